/*
 * fib.h - Fibonacci numbers the sequential way, for whatever checks the fib
 * kind's results or counts its invocations (satin-sim's model, the tests,
 * bench/overhead): one definition instead of a copy in each.
 */
#ifndef SATIN_FIB_H
#define SATIN_FIB_H

#include <stdint.h>

/* fib(n), iteratively (exact for n <= 92). */
static inline int64_t satin_fib_value(int64_t n)
{
    int64_t a = 0, b = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t t = a + b;
        a = b;
        b = t;
    }
    return a;
}

/* Calls of the doubly recursive fib(n), its root included: 2 fib(n+1) - 1. */
static inline int64_t satin_fib_calls(int64_t n)
{
    return 2 * satin_fib_value(n + 1) - 1;
}

#endif
