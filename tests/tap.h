/*
 * tap.h - a minimal TAP producer for the C unit tests (run under prove).
 * Header-only on purpose: each test is one small program.
 */
#ifndef SATIN_TAP_H
#define SATIN_TAP_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count_, tap_failed_;

static inline int tap_ok_(int cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#include <stdarg.h>
static inline int tap_ok_(int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    tap_count_++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count_);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond) {
        tap_failed_++;
        printf("#   Failed test at %s line %d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

#define ok(cond, ...) tap_ok_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_i64(got, want, ...) do { \
        int64_t g_ = (int64_t)(got), w_ = (int64_t)(want); \
        if (!ok(g_ == w_, __VA_ARGS__)) \
            printf("#          got: %" PRId64 "\n#     expected: %" PRId64 "\n", g_, w_); \
    } while (0)

#define is_str(got, want, ...) do { \
        const char *g_ = (got), *w_ = (want); \
        if (!ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__)) \
            printf("#          got: '%s'\n#     expected: '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
    } while (0)

#define diag(...) do { printf("# "); printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

static inline int done_testing(void)
{
    printf("1..%d\n", tap_count_);
    return tap_failed_ ? 1 : 0;
}

#endif
