/* clock.c - see clock.h. */
#include "clock.h"

#include <time.h>

int64_t satin_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t satin_realtime_offset_ns(void)
{
    struct timespec r;
    int64_t mono = satin_now_ns();
    clock_gettime(CLOCK_REALTIME, &r);
    return (int64_t)r.tv_sec * 1000000000 + r.tv_nsec - mono;
}
