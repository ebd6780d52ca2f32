// OpenACC atomic: the driver rewrites the statement in place (no markers) into GNU C atomic
// builtins; the contract IR holds atomicrmw where a hardware read-modify-write gives C's
// value and a cmpxchg loop elsewhere; the PTX adds floats with atom.add.f32/f64 and
// assembles. Forms accc cannot lower are located errors.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
// RUN: %accc -O2 -save-temps -c %s -o atomic.o
// RUN: FileCheck %s --check-prefix=SRC < atomic.acc.i
// RUN: FileCheck %s < atomic.acc.ll
// RUN: FileCheck %s --check-prefix=PTX < atomic.ptx
// RUN: %ptxas -arch=sm_90 atomic.ptx -o k.cubin
// RUN: not %accc -DBAD -c %s -o bad.o 2>&1 | FileCheck %s --check-prefix=BAD --implicit-check-not=error:

// The pragma line is emptied; the statement's lowering sits on its first line, later lines
// keep their numbers (the next line is still line 22).
// SRC-LABEL: void update(
// SRC: __acc_begin({{[0-9]+}}, "parallel"
// SRC: {{^}}  {{[{]$}}
// SRC-EMPTY:
// SRC-NEXT: {{^}}  { __typeof__(h [ k % 7 ]) *__acc_p = &(h [ k % 7 ]); __auto_type __acc_e = (w);{{.*}}__atomic_fetch_add((__acc_ft *)__acc_p, (__acc_ft)__acc_e, 0); } else { __atomic_load(__acc_p, &__acc_old, 0); do __acc_new = __acc_old + __acc_e; while (!__atomic_compare_exchange(__acc_p, &__acc_old, &__acc_new, 0, 0, 0)); } }{{$}}
// SRC-EMPTY:
// SRC-NEXT: {{^ *}}h[0]--;
void update(int *h, int k, int w, float *f, double *d, unsigned char *c, long *l) {
#pragma acc parallel copy(h[0:7], f[0:1], d[0:1], c[0:1], l[0:1])
  {
#pragma acc atomic update
  h[k % 7] +=
      w;
  h[0]--;
#pragma acc atomic
  f[0] += 0.5f;
#pragma acc atomic
  d[0] += 1;
#pragma acc atomic
  c[0] *= 3;
#pragma acc atomic
  l[0] = l[0] < k ? k : l[0];
  }
}
// The host fallback of the region: int and float adds, a double add of an int, the max of a
// long and an int as read-modify-writes; the char multiply as a compare-and-swap.
// CHECK-LABEL: define {{.*}}void @update(
// CHECK: atomicrmw add ptr %{{.*}}, i32 %{{.*}} monotonic
// CHECK: atomicrmw fadd ptr %{{.*}}, float %{{.*}} monotonic
// CHECK: atomicrmw fadd ptr %{{.*}}, double %{{.*}} monotonic
// CHECK: cmpxchg ptr %{{.*}}, i8 %{{.*}}, i8 %{{.*}} monotonic monotonic
// CHECK: atomicrmw max ptr %{{.*}}, i64 %{{.*}} monotonic
// PTX-DAG: atom.global.add.u32
// PTX-DAG: atom.global.add.f32
// PTX-DAG: atom.global.add.f64
// PTX-DAG: atom.global.max.s64
// PTX-DAG: atom.{{.*}}cas.b32

// Where C converts differently (a float plus a double; an int times a double; e - x), the
// loop computes the statement's own value.
// CHECK-LABEL: define {{.*}}void @converting(
// CHECK-NOT: atomicrmw
// CHECK: load atomic i32, ptr %{{.*}} monotonic
// CHECK: fpext float
// CHECK: fadd double
// CHECK: fptrunc double
// CHECK: cmpxchg ptr %{{.*}}, i32 %{{.*}}, i32 %{{.*}} monotonic monotonic
// CHECK: sitofp i32 %{{.*}} to double
// CHECK: fptosi double
// CHECK: cmpxchg ptr %{{.*}}, i32
// CHECK: sub nsw i32
// CHECK: cmpxchg ptr %{{.*}}, i32
// CHECK-NOT: atomicrmw
// CHECK: ret void
void converting(float *f, int *i, double e) {
#pragma acc atomic update
  *f += e;
#pragma acc atomic update
  *i = *i * 2.5;
#pragma acc atomic update
  *i = 10 - *i;
}

// Read, write, exchange and captures of the old and the new value; if(c): the statement as
// written when c is false.
// SRC-LABEL: void captures(
// SRC: __atomic_load(__acc_p, &__acc_old, 0); * v = __acc_old; }
// SRC: __typeof_unqual__(* x) __acc_new = (c + 1); __atomic_store(__acc_p, &__acc_new, 0); }
// SRC: __atomic_exchange(__acc_p, &__acc_new, &__acc_old, 0); * v = __acc_old; }
// SRC: * v = __acc_new; }
// SRC: { if (c) { {{.*}} } else { * v = * x ; * x = * x << 1 ; } }
// CHECK-LABEL: define {{.*}}void @captures(
// CHECK: load atomic i32, ptr %{{.*}} monotonic
// CHECK: store atomic i32 %{{.*}}, ptr %{{.*}} monotonic
// CHECK: atomicrmw xchg ptr %{{.*}}, i32 %{{.*}} monotonic
// CHECK: atomicrmw sub ptr %{{.*}}, i32 %{{.*}} monotonic
// CHECK: cmpxchg
// CHECK: shl i32
void captures(int *x, int *v, int c) {
#pragma acc atomic read
  *v = *x;
#pragma acc atomic write
  *x = c + 1;
#pragma acc atomic capture
  { *v = *x; *x = c; }
#pragma acc atomic capture
  *v = --*x;
#pragma acc atomic capture if(c)
  { *v = *x; *x = *x << 1; }
}

#ifdef BAD
void bad(int n, double d) {
  int x = 0, v;
// BAD: atomic.c:[[@LINE+2]]:3: error: statement of OpenACC 'atomic update' is not one accc can lower: 'x = x < n ? d : x' is not an atomic min/max: expected 'x = x < expr ? expr : x' (or with > <= >=, either order)
#pragma acc atomic update
  x = x < n ? d : x;
// BAD: atomic.c:[[@LINE+2]]:3: error: statement of OpenACC 'atomic' is not one accc can lower: 'x = x % 3' is not an atomic update of 'x'
#pragma acc atomic
  x = x % 3;
// BAD: atomic.c:[[@LINE+2]]:3: error: statement of OpenACC 'atomic capture' is not one accc can lower: expected a block of two statements
#pragma acc atomic capture
  { v = x; x = x || n; v = x; }
// BAD: atomic.c:[[@LINE+2]]:3: error: statement of OpenACC 'atomic read' is not one accc can lower: expected 'v = x;' after 'atomic read'
#pragma acc atomic read
  v = x + 1;
}
#endif
