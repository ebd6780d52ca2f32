// Debug-info fix-ups that LLVM's C API cannot express (it can read debug records but not
// retarget or erase them). Called only through the safe wrappers in src/ir.rs.
//
// accc_di_fixup_outlined: after outline.rs moved a region's blocks into a new function,
// their instructions still carry debug metadata of the host function: DILocations whose
// scope chain ends in the host's DISubprogram, #dbg_declare/#dbg_value/#dbg_assign records
// whose variables live in the host's scopes and whose locations may name the host's values,
// and DIAssignIDs shared with records left in the host. The verifier rejects all of these.
// This mirrors LLVM's CodeExtractor (fixupDebugInfoPostExtraction): the new function gets a
// distinct DISubprogram of its own (same unit and file, at the directive's line), scopes and
// variables are cloned into it, locations keep their lines and columns, assignment IDs are
// renumbered, and records that describe values of another function are re-pointed at the
// value that replaced them (the capture's parameter or private copy) or dropped.
//
// accc_di_line_directives_only: turns a module's debug info into what clang emits for CUDA
// device code at -O1 and above (-gline-directives-only): line tables only, in compile units
// of kind DebugDirectivesOnly, so the NVPTX back end writes `.file`/`.loc` and no DWARF
// sections, and ptxas (-lineinfo) keeps the lines without turning optimisation off.

#include "llvm-c/Types.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace {

// A location operand that names a value of a function other than `F`.
bool isForeign(Value *V, const Function &F) {
  if (auto *A = dyn_cast_or_null<Argument>(V))
    return A->getParent() != &F;
  if (auto *I = dyn_cast_or_null<Instruction>(V))
    return I->getFunction() != &F;
  return false;
}

// Re-points the record's location operands (and a #dbg_assign's address) at what replaced
// them in the new function. Returns false when the record still describes a foreign value
// and must go.
bool remapRecordValues(DbgVariableRecord &DVR, const Function &F,
                       const DenseMap<Value *, Value *> &Replaced) {
  SmallVector<Value *, 2> Ops(DVR.location_ops());
  for (Value *Op : Ops) {
    auto It = Replaced.find(Op);
    if (It != Replaced.end())
      DVR.replaceVariableLocationOp(Op, It->second, /*AllowEmpty=*/true); // an op listed twice is gone the second time
  }
  for (Value *Op : DVR.location_ops())
    if (isForeign(Op, F))
      return false;
  if (DVR.isDbgAssign() && !DVR.isKillAddress()) {
    Value *Addr = DVR.getAddress();
    auto It = Replaced.find(Addr);
    // Assignment tracking follows stores to an alloca; a parameter is no alloca.
    if (It != Replaced.end() && isa<AllocaInst>(It->second))
      DVR.setAddress(It->second);
    else if (It != Replaced.end() || isForeign(Addr, F))
      return false;
  }
  return true;
}

DISubprogram *newSubprogram(DIBuilder &DIB, DISubprogram &OldSP, Function &F, unsigned Line) {
  // No parameter types: the parameters are captures, not source-level arguments.
  DISubroutineType *Ty = DIB.createSubroutineType(DIB.getOrCreateTypeArray({}));
  DISubprogram::DISPFlags SPFlags = DISubprogram::SPFlagDefinition | DISubprogram::SPFlagLocalToUnit;
  if (OldSP.isOptimized())
    SPFlags |= DISubprogram::SPFlagOptimized;
  DISubprogram *SP = DIB.createFunction(OldSP.getFile(), F.getName(), F.getName(), OldSP.getFile(), Line, Ty, Line,
                                        DINode::FlagZero, SPFlags, nullptr, nullptr, nullptr, nullptr, "",
                                        OldSP.getKeyInstructionsEnabled());
  F.setSubprogram(SP);
  return SP;
}

// Erases records in functions other than `F` that describe values of `F` (a host record of
// an instruction that moved into the outlined function).
void eraseForeignUsers(Function &F) {
  for (Instruction &I : instructions(F)) {
    SmallVector<DbgVariableRecord *, 4> Users;
    findDbgUsers(&I, Users);
    for (DbgVariableRecord *DVR : Users)
      if (DVR->getFunction() != &F)
        DVR->eraseFromParent();
  }
}

} // namespace

extern "C" void accc_di_fixup_outlined(LLVMValueRef OldFnRef, LLVMValueRef NewFnRef, unsigned Line,
                                       const LLVMValueRef *FromRefs, const LLVMValueRef *ToRefs, unsigned N) {
  Function &OldF = *cast<Function>(reinterpret_cast<Value *>(OldFnRef));
  Function &NewF = *cast<Function>(reinterpret_cast<Value *>(NewFnRef));
  DenseMap<Value *, Value *> Replaced;
  for (unsigned K = 0; K < N; ++K)
    Replaced[reinterpret_cast<Value *>(FromRefs[K])] = reinterpret_cast<Value *>(ToRefs[K]);

  DISubprogram *OldSP = OldF.getSubprogram();
  if (!OldSP) {
    // The host function has no debug info: nothing the new function carries can be right.
    stripDebugInfo(NewF);
    eraseForeignUsers(NewF);
    return;
  }
  LLVMContext &Ctx = NewF.getContext();
  DIBuilder DIB(*NewF.getParent(), /*AllowUnresolved=*/false, OldSP->getUnit());
  DISubprogram *NewSP = newSubprogram(DIB, *OldSP, NewF, Line);

  // Variables and labels declared in the host function's scopes get copies in the new
  // subprogram's; those inlined from elsewhere keep theirs (their inlinedAt chain is
  // rebuilt below).
  DenseMap<const MDNode *, MDNode *> Cache;
  DenseMap<DINode *, DINode *> Remapped;
  auto NewScope = [&](DILocalScope *Old) { return DILocalScope::cloneScopeForSubprogram(*Old, *NewSP, Ctx, Cache); };
  auto NewVariable = [&](DILocalVariable *Old) {
    DINode *&New = Remapped[Old];
    if (!New)
      New = DIB.createAutoVariable(NewScope(Old->getScope()), Old->getName(), Old->getFile(), Old->getLine(),
                                   Old->getType(), /*AlwaysPreserve=*/false, DINode::FlagZero,
                                   Old->getAlignInBits());
    return cast<DILocalVariable>(New);
  };
  SmallVector<DbgRecord *, 8> Dead;
  for (Instruction &I : instructions(NewF)) {
    for (DbgRecord &DR : I.getDbgRecordRange()) {
      if (auto *DLR = dyn_cast<DbgLabelRecord>(&DR)) {
        if (DLR->getDebugLoc().getInlinedAt())
          continue;
        DILabel *Old = DLR->getLabel();
        DINode *&New = Remapped[Old];
        if (!New)
          New = DILabel::get(Ctx, NewScope(Old->getScope()), Old->getName(), Old->getFile(), Old->getLine(),
                             Old->getColumn(), Old->isArtificial(), Old->getCoroSuspendIdx());
        DLR->setLabel(cast<DILabel>(New));
        continue;
      }
      auto &DVR = cast<DbgVariableRecord>(DR);
      if (!remapRecordValues(DVR, NewF, Replaced)) {
        Dead.push_back(&DVR);
        continue;
      }
      if (DVR.getDebugLoc().getInlinedAt())
        continue;
      DVR.setVariable(NewVariable(DVR.getVariable()));
    }
  }
  for (DbgRecord *DR : Dead)
    DR->eraseFromParent();

  // Line locations (of instructions, records and loop metadata) move into the new
  // subprogram; assignment IDs get fresh copies so none is shared with the host function.
  DenseMap<DIAssignID *, DIAssignID *> AssignIDs;
  auto Relocate = [&](Metadata *MD) -> Metadata * {
    if (auto *Loc = dyn_cast_or_null<DILocation>(MD))
      return DebugLoc::replaceInlinedAtSubprogram(Loc, *NewSP, Ctx, Cache);
    return MD;
  };
  for (Instruction &I : instructions(NewF)) {
    if (const DebugLoc &DL = I.getDebugLoc())
      I.setDebugLoc(DebugLoc::replaceInlinedAtSubprogram(DL, *NewSP, Ctx, Cache));
    for (DbgRecord &DR : I.getDbgRecordRange())
      DR.setDebugLoc(DebugLoc::replaceInlinedAtSubprogram(DR.getDebugLoc(), *NewSP, Ctx, Cache));
    updateLoopMetadataDebugLocations(I, Relocate);
    at::remapAssignID(AssignIDs, I);
  }

  // A captured variable declared in the host (its #dbg_declare stayed there with its
  // alloca) is declared again at its replacement: the private copy, or the parameter that
  // points at the variable, so a debugger stopped in the region still finds it.
  for (unsigned K = 0; K < N; ++K) {
    // In capture order (not the map's), so the output does not depend on pointer values.
    Value *From = reinterpret_cast<Value *>(FromRefs[K]), *To = reinterpret_cast<Value *>(ToRefs[K]);
    if (!isa<AllocaInst>(From) || !To->getType()->isPointerTy() || !findDVRDeclares(To).empty())
      continue;
    for (DbgVariableRecord *Old : findDVRDeclares(From)) {
      if (Old->getFunction() != &OldF || Old->getDebugLoc().getInlinedAt())
        continue;
      DebugLoc Loc = DebugLoc::replaceInlinedAtSubprogram(Old->getDebugLoc(), *NewSP, Ctx, Cache);
      DILocalVariable *Var = NewVariable(Old->getVariable());
      if (auto *I = dyn_cast<Instruction>(To))
        DIB.insertDeclare(To, Var, Old->getExpression(), Loc.get(), std::next(I->getIterator()));
      else
        DIB.insertDeclare(To, Var, Old->getExpression(), Loc.get(), NewF.getEntryBlock().getFirstInsertionPt());
      break;
    }
  }
  DIB.finalizeSubprogram(NewSP);
  eraseForeignUsers(NewF);
}

extern "C" void accc_di_line_directives_only(LLVMModuleRef ModRef) {
  Module &M = *reinterpret_cast<Module *>(ModRef);
  if (M.debug_compile_units().empty())
    return;
  // Variables, types and records go; every subprogram and CU is rebuilt as line tables.
  stripNonLineTableDebugInfo(M);
  DenseMap<DICompileUnit *, DICompileUnit *> NewCU;
  NamedMDNode *CUs = M.getNamedMetadata("llvm.dbg.cu");
  for (unsigned K = 0; CUs && K < CUs->getNumOperands(); ++K) {
    auto *CU = cast<DICompileUnit>(CUs->getOperand(K));
    DICompileUnit *New = DICompileUnit::getDistinct(
        M.getContext(), CU->getSourceLanguage(), CU->getFile(), CU->getProducer(), CU->isOptimized(),
        CU->getFlags(), CU->getRuntimeVersion(), CU->getSplitDebugFilename(), DICompileUnit::DebugDirectivesOnly,
        {}, {}, {}, {}, {}, CU->getDWOId(), CU->getSplitDebugInlining(), CU->getDebugInfoForProfiling(),
        CU->getNameTableKind(), CU->getRangesBaseAddress(), CU->getSysRoot(), CU->getSDK());
    NewCU[CU] = New;
    CUs->setOperand(K, New);
  }
  DebugInfoFinder Finder;
  Finder.processModule(M);
  for (DISubprogram *SP : Finder.subprograms())
    if (DICompileUnit *New = NewCU.lookup(SP->getUnit()))
      SP->replaceUnit(New);
}
