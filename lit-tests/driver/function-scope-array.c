// Item 7 of the execution model: an array declared at function scope and used only inside a
// compute region is a variable of the enclosing scope (OpenACC 3.3 §2.6.2: implicitly copy,
// or subject to default(none|present)), not private storage of the region, at every -O level.
// RUN: not %accc -O0 -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: not %accc -O2 -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %accc -O0 -emit-llvm -S %s -o - | FileCheck %s --check-prefix=IR

// CHECK: function-scope-array.c:[[#@LINE+6]]:9: error: variable 'buf' is used in the region but has no data clause, and default(none) requires one
// IR-LABEL: define dso_local void @needs_clause(
// IR: call void @llvm.lifetime.start.p0(ptr %buf)
// IR: call void @__acc_begin(
void needs_clause(int *out) {
  int buf[17];
#pragma acc parallel loop default(none) copyout(out[0:17])
  for (int i = 0; i < 17; i++) {
    int mine[2]; /* declared in the region: private, needs no clause */
    mine[0] = i;
    buf[i] = mine[0];
    out[i] = buf[i];
  }
}
