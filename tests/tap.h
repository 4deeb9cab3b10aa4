/*
 * tap.h - a minimal TAP producer for the C unit tests (run under prove).
 * Header-only on purpose: each test is one small program.
 */
#ifndef SATIN_TAP_H
#define SATIN_TAP_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int tap_count_, tap_failed_;

static inline int tap_ok_(int cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
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

/* A check that cannot run here, counted as TAP's skip ("ok N # SKIP why"). */
static inline void skip(const char *why)
{
    tap_count_++;
    printf("ok %d # SKIP %s\n", tap_count_, why);
    fflush(stdout);
}

#define diag(...) do { printf("# "); printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

/* ---- waiting for a state -------------------------------------------------------
 * The one way a C test waits for something another thread or process does:
 * never a fixed sleep.  poll_until(SECS, PRED, ARG) calls PRED(ARG) every
 * millisecond until it returns nonzero (1) or SECS seconds of wall time have
 * passed (0), printing nothing: for a check of its own, ok(poll_until(...),
 * ...).  wait_for(SECS, PRED, ARG, WHAT...) is the same wait when it is not a
 * check itself: on time-out it fails a check "waited for WHAT: timed out
 * after SECS s".  wait_flag(SECS, FLAG, WHAT...) waits for the atomic_int at FLAG
 * to become nonzero (flag_is_set is that predicate, for poll_until).  SECS bounds a test that would otherwise never end, not
 * a speed: it is generous, and the wait ends as soon as the state is reached. */
static inline int64_t tap_now_ns_(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int poll_until(double secs, int (*pred)(void *), void *arg)
{
    int64_t deadline = tap_now_ns_() + (int64_t)(secs * 1e9);
    for (;;) {
        if (pred(arg))
            return 1;
        if (tap_now_ns_() >= deadline)
            return 0;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

static inline int tap_wait_for_(int (*pred)(void *), void *arg, double secs, const char *file,
                                int line, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static inline int tap_wait_for_(int (*pred)(void *), void *arg, double secs, const char *file,
                                int line, const char *fmt, ...)
{
    if (poll_until(secs, pred, arg))
        return 1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tap_ok_(0, file, line, "waited for %s: timed out after %g s", what, secs);
}

#define wait_for(secs, pred, arg, ...) \
    tap_wait_for_((pred), (arg), (secs), __FILE__, __LINE__, __VA_ARGS__)

static inline int flag_is_set(void *flag)
{
    return atomic_load((atomic_int *)flag) != 0;
}
#define wait_flag(secs, flag, ...) wait_for((secs), flag_is_set, (void *)(flag), __VA_ARGS__)

static inline int done_testing(void)
{
    printf("1..%d\n", tap_count_);
    return tap_failed_ ? 1 : 0;
}

#endif
