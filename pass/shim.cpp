// Registration shim for the acc-offload pass plugin.
//
// Registering a new-pass-manager pass has no C API, so these few lines of C++ do only that:
// they expose `acc-offload` (and the printer `print-acc-regions`) to opt's pipeline parser
// and run `acc-offload` at the pipeline start inside clang. All the work happens in Rust
// (`acc_offload_run`, pass/src/lib.rs). This file must be compiled against the same LLVM 22
// headers as the libLLVM-22.so that opt and clang load.
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h" // moved from llvm/Passes/ in LLVM 22
#include "llvm-c/Core.h"
#include <dlfcn.h>
#include <string>

// Implemented in Rust. Returns 0: unchanged, 1: changed, 2: errors were reported.
extern "C" int acc_offload_run(LLVMModuleRef M, const char *options, int print_only, int defer_image);
extern "C" int acc_offload_finish(LLVMModuleRef M);

using namespace llvm;

namespace {

// What one instance of the pass does.
enum class Stage {
  Offload,         // acc-offload: everything, the device image included
  Print,           // print-acc-regions
  OffloadDeferred, // inside clang: the device image is left building on another thread...
  Finish,          // ...and put in by acc-offload-finish at the optimiser's end
};

struct AccOffloadPass : PassInfoMixin<AccOffloadPass> {
  std::string Options;
  Stage What;
  AccOffloadPass(std::string Opts, Stage S) : Options(std::move(Opts)), What(S) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    int rc = What == Stage::Finish
                 ? acc_offload_finish(wrap(&M))
                 : acc_offload_run(wrap(&M), Options.c_str(), What == Stage::Print,
                                   What == Stage::OffloadDeferred);
    if (rc == 0)
      return PreservedAnalyses::all();
    if (rc == 2) {
      // The messages were printed in the user's format already; this makes opt and clang
      // fail with a non-zero exit, as for any other error diagnostic.
      M.getContext().diagnose(DiagnosticInfoGeneric(
          "OpenACC offloading failed (errors above)", DS_Error));
      emptyModule(M);
    }
    return PreservedAnalyses::none();
  }

  // After an error the module may be half transformed, and clang still runs the rest of
  // its pipeline and code generation before it fails: leave nothing there to crash on.
  static void emptyModule(Module &M) {
    for (GlobalAlias &A : make_early_inc_range(M.aliases())) {
      A.replaceAllUsesWith(PoisonValue::get(A.getType()));
      A.eraseFromParent();
    }
    for (GlobalIFunc &I : make_early_inc_range(M.ifuncs())) {
      I.replaceAllUsesWith(PoisonValue::get(I.getType()));
      I.eraseFromParent();
    }
    for (Function &F : M)
      if (!F.isDeclaration())
        F.deleteBody();
    for (GlobalVariable &G : M.globals())
      if (G.hasInitializer()) {
        G.setInitializer(nullptr);
        G.setLinkage(GlobalValue::ExternalLinkage);
        G.setComdat(nullptr);
      }
  }
  // Must run even for optnone functions: the markers have to disappear at every -O level.
  static bool isRequired() { return true; }
};

// "acc-offload" or "acc-offload<gpu-arch=sm_80;save-temps=/tmp/x>".
bool parseName(StringRef Name, StringRef Base, std::string &Opts) {
  if (Name == Base) return true;
  if (Name.consume_front(Base) && Name.consume_front("<") && Name.consume_back(">")) {
    Opts = Name.str();
    return true;
  }
  return false;
}

} // namespace

// The path this plugin was loaded from, for the "reproduce with" line of an internal error
// (empty if the loader cannot tell).
extern "C" const char *acc_plugin_path() {
  Dl_info Info;
  if (dladdr(reinterpret_cast<void *>(&acc_plugin_path), &Info) && Info.dli_fname)
    return Info.dli_fname;
  return "";
}

// Exported as `llvmGetPassPluginInfo` by pass/src/lib.rs: a Rust cdylib only exports Rust
// symbols, so the entry point opt looks for is defined there and forwards here.
extern "C" PassPluginLibraryInfo acc_pass_plugin_info() {
  return {LLVM_PLUGIN_API_VERSION, "acc-offload", "0.1", [](PassBuilder &PB) {
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
                  std::string Opts;
                  if (parseName(Name, "acc-offload", Opts)) {
                    MPM.addPass(AccOffloadPass(Opts, Stage::Offload));
                    return true;
                  }
                  if (parseName(Name, "print-acc-regions", Opts)) {
                    MPM.addPass(AccOffloadPass(Opts, Stage::Print));
                    return true;
                  }
                  return false;
                });
            // Inside clang (-fpass-plugin): first thing in the pipeline, at every -O level,
            // so no optimisation ever sees the markers. Options come from the environment.
            // The device image is built while clang optimises the host module and goes in
            // at the optimiser's last extension point, before code generation (both points
            // are in every -O level's pipeline).
            PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
              MPM.addPass(AccOffloadPass("", Stage::OffloadDeferred));
            });
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
                  MPM.addPass(AccOffloadPass("", Stage::Finish));
                });
          }};
}
