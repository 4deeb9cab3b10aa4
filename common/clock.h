/*
 * clock.h - the one clock of the programs: CLOCK_MONOTONIC in nanoseconds.
 * Only drivers read it (satind's control thread, the pool, the shim); the
 * node engine and the policies are handed the time instead.
 */
#ifndef SATIN_CLOCK_H
#define SATIN_CLOCK_H

#include <stdint.h>

int64_t satin_now_ns(void);
/* CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns, as the two stand now: what
 * turns a time of the one into the other.  Daemons of one host agree on
 * CLOCK_REALTIME, so times turned so can be compared between them (a
 * profile's, satin-submit --profile); different hosts only as far as their
 * clocks are synchronised. */
int64_t satin_realtime_offset_ns(void);

#endif
