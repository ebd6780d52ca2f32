// Pointers with no data clause (implicit_bounds.rs): when every access runs in every
// iteration of countable loops, the report says the implicit copy is bounded by the
// subscripts, and the host stub computes the bytes at launch; an access under an `if`
// (or through a pointer passed to a call) leaves the pointer translated, its target to be
// present, as before.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -Minfo=accel -c %s -o %t/implicit-bounds.o 2> %t/accel.txt
// RUN: FileCheck %s < %t/accel.txt
// RUN: %accc -O2 -emit-llvm -S %s -o %t/implicit-bounds.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t/implicit-bounds.ll -S -o - | FileCheck %s --check-prefix=STUB

// CHECK-LABEL: implicit-bounds.c: add:
// CHECK-DAG: Generating implicit copy(a[bounded by its subscripts]): pointer with no data clause: the bytes the region's loads and stores reach, from the least to the greatest (computed at launch from the loop bounds), unless present
// CHECK-DAG: Generating implicit copyin(b[bounded by its subscripts])
// CHECK-LABEL: implicit-bounds.c: conditional:
// CHECK: Generating implicit firstprivate(a): pointer: its value is translated to the device address of what it points to, which must be present
// STUB-LABEL: define dso_local void @add(
// Entered (b only read: copyin, kind 1; a copy: kind 0) before the launch, each pointer
// translated as no_create relative to its first mapped byte; the copy exits last.
// STUB: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 1,
// STUB: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 0,
// STUB: call ptr @__accrt_translate_no_create(
// STUB: call ptr @__accrt_translate_no_create(
// STUB: call void @__accrt_launch(
// STUB: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 1,
// STUB: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 0,
// STUB-LABEL: define dso_local void @conditional(
// STUB-NOT: __accrt_data_enter
// STUB: call ptr @__accrt_deviceptr(
void add(double *a, const double *b, int n, int k) {
#pragma acc parallel loop
  for (int i = 1; i < n; i++)
    a[i] += b[i - 1] * k;
}

void conditional(double *a, int n) {
#pragma acc parallel loop
  for (int i = 0; i < n; i++)
    if (i % 3)
      a[i] = 0;
}
