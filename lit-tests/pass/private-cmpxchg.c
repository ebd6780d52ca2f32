// Atomics on thread-private memory are plain code (codegen private_atomics.rs): a
// compare-and-swap loop (double max, double product, long min through ?:) or an atomicrmw on
// a `private` scalar or a local of a loop body addressed local memory, where PTX has no
// `atom` ("State space incorrect for instruction 'atom'" from ptxas). No other thread can
// see the variable, so load, compute and store is the same. Assembled by ptxas.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -save-temps -c %s -o %t/private-cmpxchg.o
// RUN: FileCheck %s < %t/private-cmpxchg.ptx
// RUN: %ptxas -arch=sm_90 %t/private-cmpxchg.ptx -o %t/private-cmpxchg.cubin

// A private scalar and a vector-loop local: no atom at all.
// CHECK-LABEL: .entry priv_l{{[0-9]+}}(
// CHECK-NOT: atom.
// CHECK: ret;
void priv(int n, double *out, long *lo) {
  double t;
#pragma acc parallel loop gang vector private(t) copyout(out[0:n], lo[0:n])
  for (int i = 0; i < n; i++) {
    t = i;
    double d = i * 0.5;
    long l = i;
#pragma acc atomic update
    d = d < 7.0 ? 7.0 : d;
#pragma acc atomic update
    t = t * 2.0;
#pragma acc atomic update
    l = l > 5 ? 5 : l;
    out[i] = d + t;
    lo[i] = l;
  }
}

// A capture of a local (compare-and-swap for the product): no atom.
// CHECK-LABEL: .entry capture_l{{[0-9]+}}(
// CHECK-NOT: atom.
// CHECK: ret;
void capture(int n, int *out) {
#pragma acc parallel loop gang vector copyout(out[0:n])
  for (int i = 0; i < n; i++) {
    int z = i + 1, c;
#pragma acc atomic capture
    {
      z = z * 3;
      c = z;
    }
    out[i] = c + z;
  }
}

// The same operation on shared memory stays atomic.
// CHECK-LABEL: .entry shared_l{{[0-9]+}}(
// CHECK: atom.{{.*}}global.cas.b64
void shared(int n, double *m) {
#pragma acc parallel loop gang vector copy(m[0:1])
  for (int i = 0; i < n; i++) {
#pragma acc atomic update
    m[0] = m[0] < i ? i : m[0];
  }
}
