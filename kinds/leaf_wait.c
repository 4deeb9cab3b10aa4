/*
 * leaf_wait.c - an emulated leaf's wait (leaf_wait.h).
 *
 * clock_nanosleep on CLOCK_MONOTONIC until an absolute deadline, so that
 * EINTR can neither lengthen nor shorten the wait, in slices of at most
 * LEAF_SLICE_NS so that a cancelled job stops waiting soon.  A waiting leaf
 * occupies its worker (as a computing one would) but burns no CPU.
 */
#include "leaf_wait.h"

#include <errno.h>
#include <time.h>

#define LEAF_SLICE_NS INT64_C(100000000) /* 100 ms */

static int64_t leaf_ts_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static struct timespec leaf_ns_ts(int64_t ns)
{
    struct timespec t;
    t.tv_sec = (time_t)(ns / 1000000000);
    t.tv_nsec = (long)(ns % 1000000000);
    return t;
}

void satin_leaf_wait(int64_t us)
{
    if (us <= 0)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t deadline = leaf_ts_ns(&now) + us * 1000;
    for (;;) {
        int64_t t = leaf_ts_ns(&now);
        if (t >= deadline || satin_cancelled())
            return;
        int64_t until = deadline - t > LEAF_SLICE_NS ? t + LEAF_SLICE_NS : deadline;
        struct timespec ts = leaf_ns_ts(until);
        int rc;
        do
            rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        while (rc == EINTR);
        clock_gettime(CLOCK_MONOTONIC, &now);
    }
}
