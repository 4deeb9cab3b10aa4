/*
 * sim_orphans.h - one simulated node's table of orphan results, as
 * satind's pool keeps it (daemon/runtime/orphans.c, PROTOCOL.md 14.12b):
 * results of records whose owner died, told by the engines (env.orphan),
 * for the invocation of the same place and argument bytes that would
 * compute them again.  A result replaces a promise of it.  A task that
 * meets a promise may wait for its result (satind's worker does, spawn.c),
 * here without holding a worker, until the result comes, the promise is
 * withdrawn or SIM_ORPHAN_WAIT_NS has passed.
 */
#ifndef SATIN_SIM_ORPHANS_H
#define SATIN_SIM_ORPHANS_H

#include <stddef.h>
#include <stdint.h>

/* The longest wait for a promised result (satind's SATIN_ORPHAN_WAIT_NS). */
#define SIM_ORPHAN_WAIT_NS (2LL * 1000000000LL)

typedef struct sim_orphan sim_orphan;

typedef struct sim_orphan_waiter {
    void *task;
    uint64_t place, digest;
    int64_t since;
} sim_orphan_waiter;

typedef struct sim_orphans {
    sim_orphan **bucket;       /* NULL until the first entry: most nodes never hold one */
    size_t count;              /* results and promises held */
    uint64_t used;             /* invocations that took a result instead of running */
    uint64_t abandoned;        /* promises dropped: their holder died or gave up */
    uint64_t waited, gave_up;  /* tasks that waited for a promise; of them, after the longest wait */
    sim_orphan_waiter *waiters;   /* oldest first */
    size_t nwaiters, capwaiters;
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
/* 1 when (place, digest) is promised and not ready. */
int sim_orphans_promised(const sim_orphans *t, uint64_t place, uint64_t digest);
/* `task` waits for the promised (place, digest) from `now`. */
void sim_orphans_wait(sim_orphans *t, void *task, uint64_t place, uint64_t digest, int64_t now);
/* The oldest waiting task that can go on, removed: with the result (*got 1,
 * *value), or to run itself (*got 0: the promise is gone, or it waited
 * SIM_ORPHAN_WAIT_NS); NULL when none can. */
void *sim_orphans_settle(sim_orphans *t, int64_t now, int *got, int64_t *value);
void sim_orphans_free(sim_orphans *t);

#endif
