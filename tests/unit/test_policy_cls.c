/* test_policy_cls.c - Cluster-aware Load-based Stealing against the fake. */
#include "test_policy_fake.h"

#define MS 1000000LL

static const satin_policy_ops *const ops = &satin_policy_cls;

/* {0,1,2} {3,4,5}: node 1 reports to its coordinator, node 0. */
static void load_reports(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 1, 2, (const int[]){3, 3});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->idle = 0;

    ops->on_queue_length(p, 0);
    expect_none(fe, "load 0 = what the coordinator assumes: no report");
    ops->on_queue_length(p, 3);
    expect_load(fe, 0, 3, "load changed to 3: report it to node 0 at once");
    expect_timer(fe, SATIN_TIMER_LOAD, 10 * MS, "and start a 10 ms quiet period");
    ops->on_queue_length(p, 5);
    ops->on_queue_length(p, 3);
    expect_none(fe, "changes during the quiet period wait");
    fake_advance(fe, ops, p, 10 * MS);
    expect_none(fe, "end of the period: back at 3 = reported, so nothing is sent");
    ops->on_queue_length(p, 4);
    expect_load(fe, 0, 4, "quiet period over: a change is reported at once");
    expect_timer(fe, SATIN_TIMER_LOAD, 10 * MS, "new quiet period");
    ops->on_queue_length(p, 6);
    expect_none(fe, "6 waits");
    fake_advance(fe, ops, p, 9 * MS);
    expect_none(fe, "9 ms: still waiting");
    fake_advance(fe, ops, p, 1 * MS);
    expect_load(fe, 0, 6, "10 ms: the pending change goes");
    ok(fe->act[fe->seen - 1].at == 20 * MS, "at t = 20 ms exactly");
    expect_timer(fe, SATIN_TIMER_LOAD, 10 * MS, "and the period restarts");
    fake_advance(fe, ops, p, 50 * MS);
    expect_none(fe, "no change for 50 ms: no report");

    fe->idle = 1;
    FAKE_DRAWS(fe, 1);
    ops->on_idle(p);
    expect_load(fe, 0, 0, "idle: a 0 at once");
    expect_timer(fe, SATIN_TIMER_LOAD, 10 * MS, "(starting a quiet period)");
    uint64_t id = expect_steal(fe, 2, SATIN_STEAL_SYNC, "then a local synchronous steal (node 2)");
    fake_advance(fe, ops, p, 10 * MS);
    ops->on_queue_length(p, 2);
    expect_load(fe, 0, 2, "(a steal brought work: 2 reported)");
    expect_timer(fe, SATIN_TIMER_LOAD, 10 * MS, "(quiet period)");
    ops->on_idle(p);
    expect_load(fe, 0, 0, "idle inside the quiet period: the 0 still goes at once");
    ops->on_queue_length(p, 0);
    fake_advance(fe, ops, p, 10 * MS);
    expect_none(fe, "0 already reported: nothing at the end of the period");
    ops->on_idle(p);
    expect_none(fe, "idle again, load still 0, steal in flight: nothing");
    is_i64(fake_node_stat(fe, "load_reports"), 6, "6 reports");
    FAKE_DRAWS(fe, 0);
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SATIN_STEAL_SYNC);
    expect_steal(fe, 0, SATIN_STEAL_SYNC, "local failure: retry in the cluster (node 0)");
    ops->on_load(p, 2, 0);
    expect_none(fe, "a node that is not the coordinator ignores load reports");
    is_i64(fake_node_stat(fe, "prefetches"), 0, "and never prefetches");
    ops->destroy(p);
    free(fe);
}

/* {0,1,2} {3,4,5} {6,7}: node 0 coordinates cluster 0. */
static void coordinator_prefetches(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 3, (const int[]){3, 3, 2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->idle = 0;
    fe->queue = 2;

    ops->on_load(p, 1, 3);
    ops->on_load(p, 2, 1);
    expect_none(fe, "cluster load 6 >= 1: no prefetch");
    ops->on_load(p, 1, 0);
    ops->on_load(p, 2, 0);
    expect_none(fe, "own queue 2 keeps the load at 2");
    fe->queue = 0;
    FAKE_DRAWS(fe, 1, 1);
    ops->on_queue_length(p, 0);
    uint64_t pf = expect_steal(fe, 7, SATIN_STEAL_WAN | SATIN_STEAL_PREFETCH,
                               "load 0 < 1: one async prefetch to a random node (7) of a random "
                               "remote cluster (2)");
    expect_none(fe, "no load report from the coordinator to itself");
    ops->on_load(p, 1, 0);
    ops->on_queue_length(p, 0);
    expect_none(fe, "a prefetch in flight: no second one");
    fe->queue = 1; /* the node queued the prefetched job */
    fake_on_steal_reply(fe, ops, p, 7, pf, 1, SATIN_STEAL_WAN | SATIN_STEAL_PREFETCH);
    expect_none(fe, "the job is queued here: load 1, no more prefetching");
    is_i64(fake_node_stat(fe, "prefetch_successes"), 1, "a prefetch success");
    is_i64(fake_node_stat(fe, "steal_successes_wan"), 1, "counted as a wide-area success");

    /* A thief in the cluster takes it; the queue runs dry again. */
    fake_check_answers_once(fe, ops, p, 2, SATIN_STEAL_SYNC, 1, "cls coordinator, local thief");
    is_i64(fe->queue, 0, "the cluster node stole the prefetched job");
    FAKE_DRAWS(fe, 0, 0);
    ops->on_queue_length(p, 0);
    pf = expect_steal(fe, 3, SATIN_STEAL_WAN | SATIN_STEAL_PREFETCH, "load 0 again: prefetch");
    /* Failures back off per round of 5 remote nodes. */
    int good = 1;
    for (int f = 1; f <= 6; f++) {
        FAKE_DRAWS(fe, 0, 0);
        fake_on_steal_reply(fe, ops, p, 3, pf, 0, SATIN_STEAL_WAN | SATIN_STEAL_PREFETCH);
        const fake_action *a = &fe->act[fe->nact - 1];
        if (f < 5) {
            good &= a->kind == FAKE_STEAL && a->at == 0;
        } else {
            good &= a->kind == FAKE_SET_TIMER && a->node == SATIN_TIMER_PREFETCH &&
                    a->value == 1 * MS;
            fake_fire_next(fe, ops, p);
            a = &fe->act[fe->nact - 1];
            good &= a->kind == FAKE_STEAL && (a->flags & SATIN_STEAL_PREFETCH);
        }
        pf = a->id;
    }
    ok(good, "failed prefetches: 4 at once, then 1 ms waits (a round = 5 remote nodes)");
    fake_skip(fe);
    fe->queue = 0;
    ops->on_load(p, 1, 4);
    fake_on_steal_reply(fe, ops, p, 3, pf, 0, SATIN_STEAL_WAN | SATIN_STEAL_PREFETCH);
    expect_timer(fe, SATIN_TIMER_PREFETCH, 1 * MS, "failure 7: 1 ms (doubles after 10)");
    fake_fire_next(fe, ops, p);
    expect_none(fe, "the cluster got load 4 meanwhile: no prefetch when the timer fires");
    is_i64(fake_node_stat(fe, "steal_attempts_sync"), 0, "prefetches are never synchronous");
    ops->destroy(p);
    free(fe);
}

static void threshold(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 3, 2, (const int[]){3, 3});
    fake_env *fe = fake_new();
    satin_policy_params pp;
    satin_policy_params_default(&pp);
    pp.cls_threshold = 5;
    satin_policy *p = fake_create(ops, &ft, fe, &pp);
    fe->idle = 0;
    fe->queue = 10;
    ops->on_load(p, 4, 2);
    ops->on_load(p, 5, 2);
    fe->queue = 1;
    ops->on_load(p, 5, 2);
    expect_none(fe, "node 3 coordinates cluster 1; load 2+2+1 = 5: not below 5");
    ops->on_load(p, 0, 0);
    expect_none(fe, "a report from another cluster is ignored");
    FAKE_DRAWS(fe, 0, 2);
    ops->on_load(p, 5, 1);
    expect_steal(fe, 2, SATIN_STEAL_WAN | SATIN_STEAL_PREFETCH, "load 4 < 5: prefetch from node 2");
    is_i64(fake_stat(ops, p, "loads_received"), 4, "4 reports from its own cluster counted");
    ops->destroy(p);
    free(fe);
}

/* One cluster: no reports, no prefetch, the same actions as RS. */
static void one_cluster_is_rs(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 1, 1, (const int[]){4});
    fake_env *fes[2] = {fake_new(), fake_new()};
    const satin_policy_ops *os[2] = {&satin_policy_rs, ops};
    satin_policy *ps[2];
    for (int k = 0; k < 2; k++) {
        fake_env *fe = fes[k];
        ps[k] = fake_create(os[k], &ft, fe, NULL);
        FAKE_DRAWS(fe, 2, 0, 1, 1, 2, 0, 4);
        fe->idle = 0;
        os[k]->on_queue_length(ps[k], 7);
        os[k]->on_load(ps[k], 2, 0);
        fe->idle = 1;
        os[k]->on_idle(ps[k]);
        for (int i = 0; i < 6; i++) {
            const fake_action *a = &fe->act[fe->nact - 1];
            if (a->kind == FAKE_SET_TIMER)
                fake_fire_next(fe, os[k], ps[k]);
            else
                fake_on_steal_reply(fe, os[k], ps[k], a->node, a->id, 0, a->flags);
        }
    }
    int same = fes[0]->nact == fes[1]->nact && fes[0]->nact >= 6;
    for (int i = 0; same && i < fes[0]->nact; i++) {
        const fake_action *a = &fes[0]->act[i], *b = &fes[1]->act[i];
        same = a->kind == b->kind && a->node == b->node && a->flags == b->flags &&
               a->value == b->value && a->at == b->at;
    }
    ok(same, "one cluster: CLS asks for exactly RS's actions (%d)", fes[0]->nact);
    is_i64(fake_count(fes[1], 0, FAKE_LOAD), 0, "no load reports");
    for (int k = 0; k < 2; k++) {
        os[k]->destroy(ps[k]);
        free(fes[k]);
    }
}

/* The coordinator a0 dies: a1, the next member, takes over (it prefetches
 * for the cluster and counts the loads); a2 reports to a1, and to a0 again
 * once a0 is back.  A death in another cluster changes nothing. */
static void coordinator_dies(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 1, 2, (const int[]){3, 3});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->idle = 0;
    fe->queue = 0;
    ops->on_peer(p, 3, 0);
    expect_none(fe, "a1: a death in the other cluster changes nothing");
    ops->on_peer(p, 0, 0);
    const fake_action *a = fe->seen < fe->nact ? &fe->act[fe->nact - 1] : NULL;
    ok(a && a->kind == FAKE_STEAL && (a->flags & SATIN_STEAL_PREFETCH) && a->node >= 3,
       "a1: a0 dead: a1 coordinates, and its empty cluster prefetches across");
    fake_skip(fe);
    ops->on_load(p, 2, 5);
    is_i64(fake_stat(ops, p, "loads_received"), 1, "a1 takes a2's load report in");
    ops->destroy(p);
    free(fe);

    fake_topo_init(&ft, 2, 2, (const int[]){3, 3});
    fe = fake_new();
    p = fake_create(ops, &ft, fe, NULL);
    fe->idle = 0;
    ops->on_queue_length(p, 4);
    expect_load(fe, 0, 4, "a2 reports its load to a0");
    fake_skip(fe);
    ops->on_peer(p, 0, 0);
    expect_load(fe, 1, 4, "a0 dead: a2 reports its load to a1 at once");
    fake_skip(fe);
    ops->on_peer(p, 0, 1);
    expect_load(fe, 0, 4, "a0 back: a2 reports to a0 again");
    fake_skip(fe);
    ops->destroy(p);
    free(fe);
}

int main(void)
{
    load_reports();
    coordinator_prefetches();
    threshold();
    one_cluster_is_rs();
    coordinator_dies();
    return done_testing();
}
