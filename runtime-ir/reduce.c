/* Device reduction helpers of accc, generic over operator and element type.
 *
 * codegen/src/reduction.rs calls these (`__acc_red_<kind>_<op>_<type>`, kinds below) for
 * every `reduction` clause; codegen/build.rs compiles this file to LLVM IR for the host
 * target (the device module is a clone of the host module, so signatures follow the host
 * ABI, as for libm.c) and the pass links it into the device module before the emulator's
 * copy is taken: the GPU and the emulator run the same helpers. They reach the target only
 * through the device runtime interface (docs/device-runtime.md): ids, syncs and the two
 * warp shuffles; shared memory is address space 3.
 *
 * Every value goes through a pointer, with a count of elements `n` (1 for a scalar, the
 * section's length for an array reduction), so one signature serves every type (complex
 * ones included) and every shape; with n = 1 the calls inline to registers.
 *
 *   identity(T *out, n)                   out[e] = the operator's identity
 *   combine(T *acc, const T *v, n)        acc[e] = acc[e] OP v[e]
 *   worker(T *v, n, smem)                 over the vector lanes of the calling worker
 *                                         (one warp: the runtime launches kernels that
 *                                         use it with vector_length 32); every lane gets
 *                                         the result, no barrier needed
 *   block(T *v, n, smem, lane0_only)      over every thread of the gang; with lane0_only
 *                                         only vector lane 0 of each worker contributes
 *                                         (the others hold copies of its value)
 *   combine_atomic(T *acc, const T *v, n, dims)
 *                                         acc[e] = acc[e] OP v[e], each element one
 *                                         compare-and-swap (acc is shared with other gangs:
 *                                         private copies of run-time size combined into the
 *                                         variable); a gang that repeated another's work
 *                                         (`dims`, as for gang) adds nothing
 *   gang(const T *mine, T *dst, n, scratch, nvars, index, smem)
 *                                         at the kernel's end: this gang's value (the same
 *                                         on all its threads) joins the others; the last
 *                                         gang to finish combines all of them in gang order
 *                                         and then dst[e], once; `index` is the first of
 *                                         the variable's n partial columns
 *
 * Trees: within a warp `redux.sync` for integers of at most 32 bits where the target has
 * it (sm_80 on; __acc_warp_redux_available), else a shuffle-down tree (lane 0 ends with the
 * total; partial warps skip the lanes that do not exist), then one partial per warp in shared memory that one
 * warp reduces the same way (no transpose), then a broadcast. The shared buffer (`smem`,
 * SMEM_SLOTS slots of 16 bytes, one per kernel module) is reused by every reduction:
 * slots 0..31 per warp, BLOCK_SLOT for the gang, FLAG_SLOT for the last-gang flag. Across gangs: per-gang partials in the runtime's scratch buffer
 * (docs/runtime-abi.md: counters first, then 16-byte slots per variable and gang), a
 * fence, a counter; the last gang reads them in a fixed order, so floating-point results
 * are the same from run to run for the same launch size. No atomics on the values. */

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define SHARED __attribute__((address_space(3)))
/* Barriers and warp operations must be reached by the threads they involve together: the
 * optimiser must not sink a shuffle into the branch that uses its result, or copy a barrier
 * into both sides of a branch. The device runtime's functions and every helper that calls
 * them are `convergent`, as CUDA's are (this file is compiled for the host, where that is
 * not the default). */
#define CONVERGENT __attribute__((convergent))
#define INLINE static inline __attribute__((always_inline)) CONVERGENT
#define SLOT_BYTES 16
#define BLOCK_SLOT 48
#define FLAG_SLOT 49
#define SMEM_SLOTS 50

long long __acc_gang_id(void);
long long __acc_num_gangs(void);
long long __acc_gang_id_1(void);
long long __acc_gang_id_2(void);
long long __acc_gang_id_3(void);
long long __acc_worker_id(void);
long long __acc_num_workers(void);
long long __acc_vector_id(void);
long long __acc_vector_length(void);
CONVERGENT void __acc_sync_gang(void);
CONVERGENT void __acc_sync_worker(void);
CONVERGENT int __acc_shfl_down(int v, int delta);
CONVERGENT int __acc_shfl_idx(int v, int src);
int __acc_warp_redux_available(void);
CONVERGENT int __acc_warp_redux(int v, int op);

/* redux.sync's operation for (operator, class of type), -1 for none: S32 and U32 are the
 * signed and unsigned integer types of at most 32 bits (widened to 32 for the warp), NO
 * every other type. `&&` and `||` reduce 0/1 values with `and` and `or`. */
#define RX_add_S32 0
#define RX_add_U32 0
#define RX_min_S32 1
#define RX_min_U32 3
#define RX_max_S32 2
#define RX_max_U32 4
#define RX_and_S32 5
#define RX_and_U32 5
#define RX_or_S32 6
#define RX_or_U32 6
#define RX_xor_S32 7
#define RX_xor_U32 7
#define RX_land_S32 5
#define RX_land_U32 5
#define RX_lor_S32 6
#define RX_lor_U32 6
#define RX_mul_S32 (-1)
#define RX_mul_U32 (-1)
#define RX_add_NO (-1)
#define RX_mul_NO (-1)
#define RX_max_NO (-1)
#define RX_min_NO (-1)
#define RX_and_NO (-1)
#define RX_or_NO (-1)
#define RX_xor_NO (-1)
#define RX_land_NO (-1)
#define RX_lor_NO (-1)
/* The 32-bit value a lane contributes. */
#define RX_IN_add(x) ((int)(x))
#define RX_IN_min(x) ((int)(x))
#define RX_IN_max(x) ((int)(x))
#define RX_IN_and(x) ((int)(x))
#define RX_IN_or(x) ((int)(x))
#define RX_IN_xor(x) ((int)(x))
#define RX_IN_land(x) ((int)((x) != 0))
#define RX_IN_lor(x) ((int)((x) != 0))
#define RX_IN_mul(x) 0

/* Operators. `a OP b` in C's own arithmetic, converted back to the element type by the
 * assignment (so `char` wraps and `_Bool` keeps 0/1 as in the sequential program). */
#define OP_add(a, b) ((a) + (b))
#define OP_mul(a, b) ((a) * (b))
#define OP_max(a, b) ((a) > (b) ? (a) : (b))
#define OP_min(a, b) ((a) < (b) ? (a) : (b))
#define OP_and(a, b) ((a) & (b))
#define OP_or(a, b) ((a) | (b))
#define OP_xor(a, b) ((a) ^ (b))
#define OP_land(a, b) ((a) && (b))
#define OP_lor(a, b) ((a) || (b))

/* Identities; max/min need the type's extremes (LO/HI). */
#define ID_add(LO, HI) 0
#define ID_mul(LO, HI) 1
#define ID_max(LO, HI) (LO)
#define ID_min(LO, HI) (HI)
#define ID_and(LO, HI) (~0)
#define ID_or(LO, HI) 0
#define ID_xor(LO, HI) 0
#define ID_land(LO, HI) 1
#define ID_lor(LO, HI) 0

INLINE long long thread_in_gang(void) { return __acc_worker_id() * __acc_vector_length() + __acc_vector_id(); }

/* Whether this gang repeated the work of the gang at index 0 in a gang dimension the
 * variable's loops are not partitioned over (`dims`: bit d-1 for each one they are). */
INLINE int gang_repeats(long long dims) {
  return (!(dims & 1) && __acc_gang_id_1() != 0) || (!(dims & 2) && __acc_gang_id_2() != 0)
         || (!(dims & 4) && __acc_gang_id_3() != 0);
}

/* *p = OPF(*p, x) as a compare-and-swap loop on the element's image as unsigned U (of T's
 * size: the other branches of the caller's size test are dead). The first read is plain
 * (there is no 128-bit atomic load): the swap checks it. */
#define ATOMIC_WITH(U, T, p, x, OPF)                                                         \
  do {                                                                                       \
    union { T v; U u; } o_, r_;                                                              \
    o_.u = *(volatile U *)(p);                                                               \
    do {                                                                                     \
      r_.u = o_.u;                                                                           \
      r_.v = OPF(o_.v, (x));                                                                 \
    } while (!__atomic_compare_exchange_n((U *)(p), &o_.u, r_.u, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
  } while (0)

/* Shuffles of any type: 32-bit words, each through the interface. */
#define SHUFFLES(TY, T)                                                                      \
  INLINE T shfl_down_##TY(T v, int delta) {                                                 \
    union { T v; int w[(sizeof(T) + 3) / 4]; } u;                                            \
    memset(&u, 0, sizeof u);                                                                 \
    u.v = v;                                                                                 \
    for (unsigned i = 0; i < sizeof u.w / sizeof u.w[0]; i++) u.w[i] = __acc_shfl_down(u.w[i], delta); \
    return u.v;                                                                              \
  }                                                                                          \
  INLINE T shfl_idx_##TY(T v, int src) {                                                    \
    union { T v; int w[(sizeof(T) + 3) / 4]; } u;                                            \
    memset(&u, 0, sizeof u);                                                                 \
    u.v = v;                                                                                 \
    for (unsigned i = 0; i < sizeof u.w / sizeof u.w[0]; i++) u.w[i] = __acc_shfl_idx(u.w[i], src); \
    return u.v;                                                                              \
  }

#define SLOT(T, smem, i) (*(volatile SHARED T *)((smem) + SLOT_BYTES * (i)))

/* One (operator, type) instance of every helper. */
#define HELPERS(OP, TY, T, LO, HI, CLASS)                                                    \
  INLINE T id_##OP##_##TY(void) { return (T)(ID_##OP(LO, HI)); }                            \
  INLINE T op_##OP##_##TY(T a, T b) { return (T)(OP_##OP(a, b)); }                          \
  /* Lane 0 of the warp ends with the total of the warp's first `active` lanes, which are   \
   * all the lanes the warp has (with redux.sync every lane gets it). */                     \
  INLINE T warp_##OP##_##TY(T x, int lane, int active) {                                    \
    if (RX_##OP##_##CLASS >= 0 && __acc_warp_redux_available())                              \
      return (T)__acc_warp_redux(RX_IN_##OP(x), RX_##OP##_##CLASS);                          \
    for (int d = 16; d >= 1; d /= 2) {                                                       \
      T y = shfl_down_##TY(x, d);                                                            \
      if (lane + d < active) x = op_##OP##_##TY(x, y);                                       \
    }                                                                                        \
    return x;                                                                                \
  }                                                                                          \
  /* The total of the warp's lanes on every lane. */                                       \
  INLINE T all_##OP##_##TY(T x, int lane, int active) {                                     \
    if (RX_##OP##_##CLASS >= 0 && __acc_warp_redux_available())                              \
      return (T)__acc_warp_redux(RX_IN_##OP(x), RX_##OP##_##CLASS);                          \
    return shfl_idx_##TY(warp_##OP##_##TY(x, lane, active), 0);                              \
  }                                                                                          \
  /* One element over the gang's threads; every thread gets the result. */                 \
  INLINE T block1_##OP##_##TY(T x, SHARED char *smem, int lane0_only) {                    \
    int n = (int)(__acc_vector_length() * __acc_num_workers());                             \
    int t = (int)thread_in_gang(), lane = t & 31, warp = t >> 5;                            \
    int warps = (n + 31) / 32, active = n - 32 * warp < 32 ? n - 32 * warp : 32;            \
    if (lane0_only && __acc_vector_id() != 0) x = id_##OP##_##TY();                          \
    if (warps > 1) x = warp_##OP##_##TY(x, lane, active);                                    \
    if (warps == 1) return all_##OP##_##TY(x, lane, active);                                 \
    if (lane == 0) SLOT(T, smem, warp) = x;                                                  \
    __acc_sync_gang();                                                                       \
    if (warp == 0) {                                                                         \
      T y = lane < warps ? SLOT(T, smem, lane) : id_##OP##_##TY();                           \
      y = warp_##OP##_##TY(y, lane, 32);                                                     \
      if (lane == 0) SLOT(T, smem, BLOCK_SLOT) = y;                                          \
    }                                                                                        \
    __acc_sync_gang();                                                                       \
    return SLOT(T, smem, BLOCK_SLOT);                                                        \
  }                                                                                          \
  void __acc_red_identity_##OP##_##TY(T *out, long long n) {                                 \
    for (long long e = 0; e < n; e++) out[e] = id_##OP##_##TY();                             \
  }                                                                                          \
  void __acc_red_combine_##OP##_##TY(T *acc, const T *v, long long n) {                      \
    for (long long e = 0; e < n; e++) acc[e] = op_##OP##_##TY(acc[e], v[e]);                 \
  }                                                                                          \
  /* Into a variable other gangs (or lanes) combine into too: each element in one          \
     compare-and-swap of its image. `dims` as for gang() (all bits set: never repeats). */  \
  void __acc_red_combine_atomic_##OP##_##TY(T *acc, const T *v, long long n, long long dims) { \
    if (gang_repeats(dims)) return;                                                          \
    for (long long e = 0; e < n; e++) {                                                      \
      if (sizeof(T) == 1) ATOMIC_WITH(unsigned char, T, &acc[e], v[e], op_##OP##_##TY);      \
      else if (sizeof(T) == 2) ATOMIC_WITH(unsigned short, T, &acc[e], v[e], op_##OP##_##TY); \
      else if (sizeof(T) == 4) ATOMIC_WITH(unsigned, T, &acc[e], v[e], op_##OP##_##TY);      \
      else if (sizeof(T) == 8) ATOMIC_WITH(unsigned long long, T, &acc[e], v[e], op_##OP##_##TY); \
      else ATOMIC_WITH(unsigned __int128, T, &acc[e], v[e], op_##OP##_##TY);                 \
    }                                                                                        \
  }                                                                                          \
  /* A worker is one warp (the runtime launches worker-syncing kernels so): no barrier. */  \
  CONVERGENT void __acc_red_worker_##OP##_##TY(T *v, long long n, SHARED char *smem) {                  \
    (void)smem;                                                                              \
    int lane = (int)thread_in_gang() & 31;                                                   \
    for (long long e = 0; e < n; e++) v[e] = all_##OP##_##TY(v[e], lane, 32);                \
  }                                                                                          \
  CONVERGENT void __acc_red_block_##OP##_##TY(T *v, long long n, SHARED char *smem, int lane0_only) {   \
    for (long long e = 0; e < n; e++) v[e] = block1_##OP##_##TY(v[e], smem, lane0_only);     \
  }                                                                                          \
  /* Partials of element e of gang g (linearised over the grid) at slot (index + e) * gangs \
     + g after the counters. `dims` has bit d-1 for each gang dimension d the variable's     \
     loops are partitioned over: a gang whose index is not 0 in another dimension repeated  \
     the work of the gang at 0 there, so it contributes the identity. */                    \
  CONVERGENT void __acc_red_gang_##OP##_##TY(const T *mine, T *dst, long long n, char *scratch,         \
                                   long long nvars, long long index, SHARED char *smem,      \
                                   long long dims) {                                         \
    long long g = __acc_gang_id(), ng = __acc_num_gangs();                                   \
    long long t = thread_in_gang(), nt = __acc_vector_length() * __acc_num_workers();        \
    unsigned *counter = (unsigned *)(scratch + 8 * index);                                   \
    char *partials = scratch + ((nvars * 8 + 255) / 256) * 256 + index * SLOT_BYTES * ng;   \
    int repeats = gang_repeats(dims);                                                        \
    for (long long e = t; e < n; e += nt)                                                    \
      *(volatile T *)(partials + SLOT_BYTES * (e * ng + g)) = repeats ? id_##OP##_##TY() : mine[e]; \
    __atomic_thread_fence(__ATOMIC_SEQ_CST);                                                 \
    __acc_sync_gang();                                                                       \
    if (t == 0) {                                                                            \
      unsigned done = __atomic_fetch_add(counter, 1u, __ATOMIC_ACQ_REL);                    \
      int last = done + 1 == (unsigned)ng;                                                   \
      /* The other gangs' partials are read after this. */                                  \
      if (last) __atomic_thread_fence(__ATOMIC_SEQ_CST);                                     \
      SLOT(int, smem, FLAG_SLOT) = last;                                                     \
    }                                                                                        \
    __acc_sync_gang();                                                                       \
    int last = SLOT(int, smem, FLAG_SLOT);                                                   \
    __acc_sync_gang();                                                                       \
    if (!last) return;                                                                       \
    for (long long e = 0; e < n; e++) {                                                      \
      char *col = partials + SLOT_BYTES * e * ng;                                            \
      T acc = id_##OP##_##TY();                                                              \
      for (long long i = t; i < ng; i += nt)                                                 \
        acc = op_##OP##_##TY(acc, *(volatile T *)(col + SLOT_BYTES * i));                   \
      acc = block1_##OP##_##TY(acc, smem, 0);                                                \
      if (t == 0) dst[e] = op_##OP##_##TY(dst[e], acc);                                      \
    }                                                                                        \
    if (t == 0) __atomic_store_n(counter, 0u, __ATOMIC_RELAXED);                             \
  }

#define ARITH(TY, T, LO, HI, CLASS)                                                          \
  HELPERS(add, TY, T, LO, HI, CLASS)                                                         \
  HELPERS(mul, TY, T, LO, HI, CLASS)                                                         \
  HELPERS(max, TY, T, LO, HI, CLASS)                                                         \
  HELPERS(min, TY, T, LO, HI, CLASS)                                                         \
  HELPERS(land, TY, T, LO, HI, CLASS)                                                        \
  HELPERS(lor, TY, T, LO, HI, CLASS)
#define INTEGER(TY, T, LO, HI, CLASS)                                                        \
  SHUFFLES(TY, T)                                                                            \
  ARITH(TY, T, LO, HI, CLASS)                                                                \
  HELPERS(and, TY, T, LO, HI, CLASS)                                                         \
  HELPERS(or, TY, T, LO, HI, CLASS)                                                          \
  HELPERS(xor, TY, T, LO, HI, CLASS)

INTEGER(i8, signed char, SCHAR_MIN, SCHAR_MAX, S32)
INTEGER(u8, unsigned char, 0, UCHAR_MAX, U32)
INTEGER(i16, short, SHRT_MIN, SHRT_MAX, S32)
INTEGER(u16, unsigned short, 0, USHRT_MAX, U32)
INTEGER(i32, int, INT_MIN, INT_MAX, S32)
INTEGER(u32, unsigned, 0, UINT_MAX, U32)
INTEGER(i64, long long, LLONG_MIN, LLONG_MAX, NO)
INTEGER(u64, unsigned long long, 0, ULLONG_MAX, NO)
INTEGER(bool, _Bool, 0, 1, U32)

SHUFFLES(f32, float)
ARITH(f32, float, -INFINITY, INFINITY, NO)
SHUFFLES(f64, double)
ARITH(f64, double, -INFINITY, INFINITY, NO)

SHUFFLES(c32, float _Complex)
HELPERS(add, c32, float _Complex, 0, 0, NO)
HELPERS(mul, c32, float _Complex, 0, 0, NO)
SHUFFLES(c64, double _Complex)
HELPERS(add, c64, double _Complex, 0, 0, NO)
HELPERS(mul, c64, double _Complex, 0, 0, NO)
