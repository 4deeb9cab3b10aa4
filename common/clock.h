/*
 * clock.h - the one clock of the programs: CLOCK_MONOTONIC in nanoseconds.
 * Only drivers read it (satind's control thread, the pool, the shim); the
 * node engine and the policies are handed the time instead.
 */
#ifndef SATIN_CLOCK_H
#define SATIN_CLOCK_H

#include <stdint.h>

int64_t satin_now_ns(void);

#endif
