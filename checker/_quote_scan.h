/* The search for the end of a JSON string's plain run, shared by the readers of detail logs (_detail_scan.c)
 * and JSON files (_json_scan.c). */
#ifndef MLPC_QUOTE_SCAN_H
#define MLPC_QUOTE_SCAN_H

#include <Python.h>
#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif

/* the first i in [from, to) with s[i] a quote or a backslash, or to: 16 bytes at a time with SSE2 */
static inline Py_ssize_t quote_or_backslash(const char *s, Py_ssize_t i, Py_ssize_t to)
{
#if defined(__SSE2__) && defined(__GNUC__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    while (to - i >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (m)
            return i + __builtin_ctz(m);
        i += 16;
    }
#endif
    while (i < to && s[i] != '"' && s[i] != '\\')
        i++;
    return i;
}

#endif
