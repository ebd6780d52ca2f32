// Private copies in device memory the runtime allocates per launch (codegen/src/
// private_copies.rs): a firstprivate section of a pointer is a copy per gang filled from the
// data's device copy, a loop's private section a copy per worker (its level set in the
// device module: the emulator's copy says 1), a firstprivate array over 2 KiB and private
// arrays over the shared-memory budget go there too. The host path mallocs one block for
// the call. The descriptor's last field names the area's argument slot (plus one) and the
// kernel may be capped to one wave (flag 2). ptxas assembles the PTX.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %accc -O2 -save-temps -Minfo=accel -c %s -o p.o 2> report.txt
// RUN: FileCheck %s --check-prefix=REPORT < report.txt
// RUN: %ptxas -arch=sm_90 private-copies.ptx -o p.cubin
// RUN: %accc -O2 -emit-llvm -S %s -o o2.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload o2.ll -S -o host.ll
// RUN: FileCheck %s --check-prefix=HOST < host.ll
// RUN: %accc -DINNER -Minfo=accel -c %s -o e.o 2>&1 | FileCheck %s --check-prefix=INNER
// RUN: %accc -DINNER_MEMBER -Minfo=accel -c %s -o e.o 2>&1 | FileCheck %s --check-prefix=INNER-MEMBER
// RUN: not %accc -DMEMBER -c %s -o e.o 2>&1 | FileCheck %s --check-prefix=MEMBER
// RUN: %accc -DUNREAD_INDEX -c %s -o e.o 2>&1 | FileCheck %s --check-prefix=UNREAD-INDEX
// RUN: %accc -DVLA -Minfo=accel -c %s -o e.o 2>&1 | FileCheck %s --check-prefix=VLA

// REPORT-LABEL: private-copies.c: gang_copy:
// REPORT: Generating implicit copyin(c[1:m]): the data firstprivate copies are filled from
// REPORT: Generating firstprivate(c[1:m]): a copy per gang in device memory, filled from the device copy of the data
// HOST-DAG: @__acc_kernel.gang_copy_l{{[0-9]+}} = internal global {{.*}}, i64 2, i64 0, i64 0, i64 5, i64 {{[0-9]+}}, ptr @__acc_kernel.gang_copy_l{{[0-9]+}}.arg_sizes }
// HOST-LABEL: define dso_local void @gang_copy(
// HOST: %acc.private.host = call ptr @malloc(
// HOST: call void @free(ptr %acc.private.host)
// HOST-LABEL: define internal void @gang_copy_l{{[0-9]+}}(
// HOST: %c.copy = call ptr @__acc_private_copy(ptr %0, i64 %1, i64 %2, i64 %3, i64 0, i64 %4)
// HOST: call void @__acc_private_init(ptr %c.copy, ptr %6, i64 %7, i64 0)
void gang_copy(int n, int m, const double *a, double *c, double *out) {
#pragma acc parallel loop gang firstprivate(c[1:m]) copyin(a[0:n]) copyout(out[0:n])
  for (int j = 0; j < n; j++) {
#pragma acc loop vector
    for (int k = 1; k <= m; k++) c[k] += a[j];
    out[j] = c[m];
  }
}

// REPORT-LABEL: private-copies.c: worker_copy:
// REPORT: Generating private(u[0:m]): a copy per worker in device memory
// HOST-LABEL: define internal void @__accemu.kernel.worker_copy_l{{[0-9]+}}(
// HOST: %u.copy = call ptr @__acc_private_copy{{[.0-9]*}}(ptr %0, i64 %1, i64 %2, i64 %3, i64 1, i64 %4)
void worker_copy(int n, int m, long *u, long *out) {
#pragma acc parallel loop gang copyout(out[0:n])
  for (int j = 0; j < n; j++) {
#pragma acc loop worker private(u[0:m])
    for (int k = 0; k < 4; k++) {
#pragma acc loop vector
      for (int v = 0; v < m; v++) u[v] = j + v;
      out[j] = u[m - 1];
    }
  }
}

// REPORT-LABEL: private-copies.c: big_arrays:
// REPORT: Generating firstprivate(table) [4096 bytes]: a copy per gang in device memory, filled from the device copy of the data
// REPORT: Generating private(huge) [48000 bytes]: a copy per gang in device memory
void big_arrays(int n, double *out) {
  double huge[6000], table[512];
  for (int i = 0; i < 512; i++) table[i] = i;
#pragma acc parallel loop gang private(huge) firstprivate(table) copyout(out[0:n])
  for (int j = 0; j < n; j++) {
#pragma acc loop vector
    for (int k = 0; k < 6000; k++) huge[k] = table[k % 512] + j;
    out[j] = huge[5999 - j % 6000];
  }
}

// Arrays declared in the region over the budget: per gang and per worker by their uses in
// the area; one a vector loop declares is the thread's own alloca again (no report line).
// REPORT-LABEL: private-copies.c: declared:
// REPORT: Generating private(per_gang) [48000 bytes]: a copy per gang in device memory
// REPORT-NEXT: Generating private(per_worker) [48000 bytes]: a copy per worker in device memory
// REPORT-NOT: Generating private(own)
// REPORT: Kernel declared_l
void declared(int n, double *out) {
#pragma acc parallel loop gang num_workers(4) copyout(out[0:n])
  for (int j = 0; j < n; j++) {
    double per_gang[6000];
#pragma acc loop vector
    for (int k = 0; k < 6000; k++) per_gang[k] = j + k;
#pragma acc loop worker
    for (int w = 0; w < 4; w++) {
      double per_worker[6000];
#pragma acc loop vector
      for (int v = 0; v < 6000; v++) {
        double own[6000];
        own[v] = per_gang[v];
        per_worker[v] = own[v] + w;
      }
      out[j] = per_worker[j % 6000];
    }
  }
}

#ifdef INNER
// A loop's private section sized inside the region: a copy per iteration, made where the
// iteration starts (each thread's own here: only the vector loop's own lanes use it; on its
// stack up to 256 bytes, else from the heap, not one per gang from the heap).
// INNER-LABEL: private-copies.c: inner_bounds:
// INNER: Generating private(t[0:k]): a copy per iteration of the loop, made where the iteration starts (its bounds are computed in the region)
// INNER: Generating implicit private(t[0:k]): a thread's own array whose size the region computes: on its stack up to 256 bytes, else from the device heap
// INNER-NOT: a copy per gang from the device heap
void inner_bounds(int n, double *t, double *out) {
#pragma acc parallel loop gang copyout(out[0:n])
  for (int j = 0; j < n; j++) {
    int k = j % 7 + 1;
#pragma acc loop vector private(t[0:k])
    for (int v = 0; v < k; v++) { t[v] = v; out[j] = t[0]; }
  }
}
#endif

#ifdef INNER_MEMBER
struct buf { double *p; };
// A struct member's section sized inside the region: a copy per iteration too.
// INNER-MEMBER-LABEL: private-copies.c: inner_member:
// INNER-MEMBER: Generating private(s.p[0:k]): a copy per iteration of the loop, made where the iteration starts
void inner_member(int n, struct buf s, double *out) {
#pragma acc parallel loop gang copyout(out[0:n])
  for (int j = 0; j < n; j++) {
    int k = j % 7 + 1;
#pragma acc loop vector private(s.p[0:k])
    for (int v = 0; v < k; v++) { s.p[v] = v; out[j] = s.p[0]; }
  }
}
#endif

#ifdef MEMBER
// A member at a variable index of a pointer's target is the element the index has where
// the region starts: a region that assigns the index is an error (tests/e2e/
// private_sections.c runs `pp[i][0:n]` with an index the region only reads).
// MEMBER: private-copies.c:[[@LINE+2]]:9: error: 'pp[i][0:n]' in a private clause: the region assigns its index 'i', after which the section's pointer is another one; copy the pointer to a local variable before the region and privatise that variable's section
void member(double **pp, int i, int n, double *out) {
#pragma acc parallel loop gang private(pp[i][0:n]) copyout(out[0:37])
  for (int j = 0; j < 37; j++) {
    pp[i][0] = j;
    out[j] = pp[i][0];
    i = j % 3;
  }
}
#endif

#ifdef UNREAD_INDEX
// An index the region never reads: the region never names the section (its accesses are
// through other pointers), so the clause changes nothing, and a warning says so.
// UNREAD-INDEX: private-copies.c:[[@LINE+2]]:9: warning: 'pp[i][0:n]' in a private clause: the region does not read its index 'i', so it never names this section; the clause has no effect
void unread_index(double **pp, int i, int n, double *out) {
#pragma acc parallel loop gang private(pp[i][0:n]) copyin(pp[0][0:37]) copyout(out[0:37])
  for (int j = 0; j < 37; j++) out[j] = pp[0][j];
}
#endif

#ifdef VLA
// An array of run-time size whose size changes per iteration cannot be sized before the
// launch: a gang's lanes sharing it get one from the device heap per gang iteration; a
// thread's own one (a vector loop's body declares it) is a dynamic alloca.
// VLA-LABEL: private-copies.c: shared_vla:
// VLA: Generating implicit private(a variable-length array): an array whose size the region computes, shared by a gang's lanes: a copy per gang from the device heap
void shared_vla(int n, double *out) {
#pragma acc parallel loop gang copyout(out[0:n])
  for (int j = 0; j < n; j++) {
    double t[j % 7 + 1];
#pragma acc loop vector
    for (int k = 0; k < j % 7 + 1; k++) t[k] = k;
    out[j] = t[j % 7];
  }
}
// Each thread's own: its stack up to 256 bytes, else the heap (not one per gang).
// VLA-LABEL: private-copies.c: own_vla:
// VLA: Generating implicit private(a variable-length array): a thread's own array whose size the region computes: on its stack up to 256 bytes, else from the device heap
// VLA-NOT: a copy per gang from the device heap
void own_vla(int n, double *out) {
#pragma acc parallel loop gang vector copyout(out[0:n])
  for (int j = 0; j < n; j++) {
    double t[j % 7 + 1];
    for (int k = 0; k < j % 7 + 1; k++) t[k] = k;
    out[j] = t[j % 7];
  }
}
#endif

// Sections of members reached through a pointer variable: the region's loads of `ps->p`
// and `pp[1]` become the copies (per thread: the gang loop takes the vector level too); `pp` itself is never dereferenced then, so no clause needs
// to map its target.
// REPORT-LABEL: private-copies.c: through_pointer:
// REPORT: Generating implicit no_create(pp): pointer with no data clause that the region never dereferences
// REPORT: Generating private(ps->p[0:ps->n]): a copy per thread in device memory
// REPORT: Generating private(pp[1][0:4]): a copy per thread in device memory
struct prow { double *p; int n; };
void through_pointer(struct prow *ps, double **pp, double *out) {
#pragma acc parallel loop gang copyin(ps[0:1]) private(ps->p[0:ps->n], pp[1][0:4]) copyout(out[0:37])
  for (int j = 0; j < 37; j++) {
    ps->p[0] = j;
    pp[1][3] = ps->p[0] + 1;
    out[j] = pp[1][3];
  }
}
