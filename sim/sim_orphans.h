/*
 * sim_orphans.h - one simulated node's table of orphan results, as
 * satind's pool keeps it (daemon/runtime/orphans.c, PROTOCOL.md 14.12b):
 * results of records whose owner died, told by the engines (env.orphan),
 * for the invocation of the same place and argument bytes that would
 * compute them again.  A result replaces a promise of it; a promise is
 * kept (it counts as held) but never waited for here: an invocation that
 * meets one runs (sim/README.md says why).
 */
#ifndef SATIN_SIM_ORPHANS_H
#define SATIN_SIM_ORPHANS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_orphan sim_orphan;

typedef struct sim_orphans {
    sim_orphan **bucket;       /* NULL until the first entry: most nodes never hold one */
    size_t count;              /* results and promises held */
    uint64_t used;             /* invocations that took a result instead of running */
    uint64_t abandoned;        /* promises dropped: their holder died or gave up */
} sim_orphans;

/* A result (ready) for (place, digest). */
void sim_orphans_add(sim_orphans *t, uint64_t place, uint64_t digest, int64_t value);
/* Node `holder` still runs (place, digest) and will tell its result. */
void sim_orphans_promise(sim_orphans *t, int holder, uint64_t place, uint64_t digest);
/* `holder` will not tell it: that promise, or all of its promises (all). */
void sim_orphans_abandon(sim_orphans *t, int holder, uint64_t place, uint64_t digest, int all);
/* 1 when some entry is at `place` (the digest is worth computing then). */
int sim_orphans_at(const sim_orphans *t, uint64_t place);
/* The result for (place, digest), removed: 1 and *value, or 0. */
int sim_orphans_take(sim_orphans *t, uint64_t place, uint64_t digest, int64_t *value);
void sim_orphans_free(sim_orphans *t);

#endif
