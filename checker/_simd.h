/* The vector instructions the C readers (_accuracy_scan.c, _detail_scan.c, _power_scan.c) may use, and the
 * switches their tests turn them off with. Included once by each of those files: every extension module has
 * its own copy of the two flags.
 *
 * SSE2 is there on every x86-64 build. AVX2 is used where the compiler can build a function for it alone
 * (x86 with GCC or clang) and the CPU says at import that it has it; elsewhere the SSE2 or plain code runs.
 */
#ifndef MLPC_SIMD_H
#define MLPC_SIMD_H

#include <Python.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define HAVE_SSE2 1
#else
#define HAVE_SSE2 0
#endif

#if HAVE_SSE2 && (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2 1
#else
#define HAVE_AVX2 0
#endif

static int vectors = HAVE_SSE2; /* whether the SSE2 reading runs (use_vectors) */
static int avx2;                /* whether the AVX2 reading runs: set by simd_init, then by use_avx2 */

/* called from the module's init function */
static inline void simd_init(void)
{
#if HAVE_AVX2
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2");
#endif
}

/* use_avx2(on) -> whether the AVX2 reading is used from now on (never where the CPU or the build has not got
 * it): the tests read their inputs both ways */
static inline PyObject *use_avx2(PyObject *self, PyObject *arg)
{
    (void)self;
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
#if HAVE_AVX2
    avx2 = on && __builtin_cpu_supports("avx2");
#else
    (void)on;
    avx2 = 0;
#endif
    return PyBool_FromLong(avx2);
}

/* use_vectors(on) -> whether the SSE2 reading is used from now on (never where SSE2 is not there) */
static inline PyObject *use_vectors(PyObject *self, PyObject *arg)
{
    (void)self;
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    vectors = on && HAVE_SSE2;
    return PyBool_FromLong(vectors);
}

#endif
