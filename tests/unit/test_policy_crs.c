/* test_policy_crs.c - Cluster-aware Random Stealing (Figure 3) against the fake. */
#include "test_policy_fake.h"

#define MS 1000000LL

static const satin_policy_ops *const ops = &satin_policy_crs;

/* {0,1,2} {3,4,5} {6,7}; node 1.  Draws for an idle pass: remote cluster
 * (others = 1,2), node in it, then the local victim (0 or 2). */
static void figure3(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 1, 3, (const int[]){3, 3, 2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);

    FAKE_DRAWS(fe, 0, 2, 1);
    ops->on_idle(p);
    uint64_t wan = expect_steal(fe, 5, SATIN_STEAL_WAN,
                                "idle: first the asynchronous wide-area steal (cluster 1, node 5)");
    uint64_t loc = expect_steal(fe, 2, SATIN_STEAL_SYNC, "then a synchronous local one (node 2)");
    expect_none(fe, "nothing else");

    FAKE_DRAWS(fe, 0);
    ops->on_steal_reply(p, 2, loc, 0, SATIN_STEAL_SYNC);
    loc = expect_steal(fe, 0, SATIN_STEAL_SYNC,
                       "local failure: retry locally at once, no second wide-area steal");
    ops->on_steal_reply(p, 0, loc, 0, SATIN_STEAL_SYNC);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "a round of 2 local failures: wait 1 ms");
    FAKE_DRAWS(fe, 1);
    fake_fire_next(fe, ops, p);
    loc = expect_steal(fe, 2, SATIN_STEAL_SYNC, "timer: local steal only, the flag is still set");
    ops->on_steal_reply(p, 5, wan, 0, SATIN_STEAL_WAN);
    expect_none(fe, "empty wide-area reply clears the flag and sends nothing by itself");
    ops->on_steal_reply(p, 2, loc, 0, SATIN_STEAL_SYNC);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "third local failure: 1 ms");
    FAKE_DRAWS(fe, 1, 0, 0);
    fake_fire_next(fe, ops, p);
    wan = expect_steal(fe, 6, SATIN_STEAL_WAN, "next pass: a new wide-area steal (cluster 2, node 6)");
    loc = expect_steal(fe, 0, SATIN_STEAL_SYNC, "and the local one after it");

    /* Local success: the wide-area steal is not cancelled. */
    ops->on_steal_reply(p, 0, loc, 1, SATIN_STEAL_SYNC);
    expect_none(fe, "local success: no cancel, nothing else");
    FAKE_DRAWS(fe, 1);
    ops->on_idle(p);
    loc = expect_steal(fe, 2, SATIN_STEAL_SYNC, "idle again with the flag set: local only");
    ops->on_steal_reply(p, 6, wan, 1, SATIN_STEAL_WAN);
    expect_none(fe, "wide-area jobs arrive: nothing to do (the node queued them)");
    is_i64(fake_stat(ops, p, "steal_successes_wan"), 1, "counted as a wide-area success");
    is_i64(fake_stat(ops, p, "steal_requests_sent_wan"), 2, "2 wide-area requests in all");
    is_i64(fake_stat(ops, p, "steal_requests_async"), 2, "both asynchronous");
    is_i64(fake_stat(ops, p, "steal_requests_sync"), 5, "5 local synchronous ones");
    is_i64(fe->unscripted, 0, "every draw was scripted");
    ops->destroy(p);
    free(fe);
}

/* Random events; after each, count wide-area steals in flight. */
static void never_two_wan_in_flight(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 4, 4, (const int[]){4, 4, 4, 4});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    uint64_t out_id[64];
    int out_node[64], out_wan[64], nout = 0, max_wan = 0, order_ok = 1, wan_sent = 0;
    uint64_t lcg = 12345;
    for (int step = 0; step < 5000; step++) {
        int from = fe->nact;
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        int r = (int)(lcg >> 33);
        fe->idle = (r & 7) != 0;
        if (r % 5 == 0 || nout == 0) {
            if (fake_fire_next(fe, ops, p) < 0)
                ops->on_idle(p);
        } else if (r % 5 == 1) {
            ops->on_idle(p);
        } else {
            int k = (r >> 4) % nout;
            uint64_t id = out_id[k];
            int node = out_node[k];
            out_id[k] = out_id[nout - 1], out_node[k] = out_node[nout - 1];
            out_wan[k] = out_wan[nout - 1];
            nout--;
            ops->on_steal_reply(p, node, id, (r >> 12) % 7 == 0, 0);
        }
        for (int i = from; i < fe->nact; i++) {
            const fake_action *a = &fe->act[i];
            if (a->kind != FAKE_STEAL)
                continue;
            if (a->flags & SATIN_STEAL_WAN) {
                wan_sent++;
                /* Figure 3: the wide-area steal comes first, then the local one */
                order_ok &= i + 1 < fe->nact && fe->act[i + 1].kind == FAKE_STEAL &&
                            fe->act[i + 1].flags == SATIN_STEAL_SYNC;
                order_ok &= !(a->flags & SATIN_STEAL_SYNC);
            }
            if (nout < 64) {
                out_id[nout] = a->id, out_node[nout] = a->node;
                out_wan[nout] = !!(a->flags & SATIN_STEAL_WAN);
                nout++;
            }
        }
        int wan = 0, sync = 0;
        for (int i = 0; i < nout; i++)
            wan += out_wan[i], sync += !out_wan[i];
        if (wan > max_wan)
            max_wan = wan;
        if (sync > 1)
            order_ok = 0;
        if (fe->nact > FAKE_MAX_ACTIONS - 100)
            fe->nact = fe->seen = 0; /* keep the log small; ids keep counting */
    }
    is_i64(max_wan, 1, "5000 random events: at most one wide-area steal in flight, ever");
    ok(order_ok, "each wide-area steal is asynchronous and followed by a local synchronous one");
    ok(wan_sent > 50, "the scenario did send wide-area steals (%d)", wan_sent);
    ops->destroy(p);
    free(fe);
}

/* Runs the same script through RS and CRS on one cluster of 4. */
static void one_cluster_is_rs(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 2, 1, (const int[]){4});
    fake_env *fr = fake_new(), *fc = fake_new();
    satin_policy *pr = fake_create(&satin_policy_rs, &ft, fr, NULL);
    satin_policy *pc = fake_create(ops, &ft, fc, NULL);
    fake_env *fes[2] = {fr, fc};
    satin_policy *ps[2] = {pr, pc};
    const satin_policy_ops *os[2] = {&satin_policy_rs, ops};
    for (int k = 0; k < 2; k++) {
        fake_env *fe = fes[k];
        satin_policy *p = ps[k];
        const satin_policy_ops *o = os[k];
        FAKE_DRAWS(fe, 5, 1, 8, 2, 9, 4, 0, 3, 7, 7, 6, 1, 2);
        o->on_idle(p);
        for (int i = 0; i < 12; i++) {
            const fake_action *a = &fe->act[fe->nact - 1];
            if (a->kind == FAKE_SET_TIMER) {
                fake_fire_next(fe, o, p);
                continue;
            }
            if (i == 6) {
                o->on_steal_reply(p, a->node, a->id, 1, a->flags);
                o->on_steal_request(p, 0, 0, 555, SATIN_STEAL_SYNC);
                o->on_idle(p);
            } else {
                o->on_steal_reply(p, a->node, a->id, 0, a->flags);
            }
        }
    }
    int same = fr->nact == fc->nact && fr->nact > 10;
    for (int i = 0; same && i < fr->nact; i++) {
        const fake_action *a = &fr->act[i], *b = &fc->act[i];
        same = a->kind == b->kind && a->node == b->node && a->flags == b->flags &&
               a->value == b->value && a->id == b->id && a->at == b->at;
    }
    ok(same, "one cluster: CRS asks for exactly RS's actions (%d actions)", fr->nact);
    ok(fake_count(fc, 0, FAKE_STEAL) > 5 && fake_count(fc, 0, FAKE_SET_TIMER) > 1,
       "including steals and back-off timers");
    int wan = 0;
    for (int i = 0; i < fc->nact; i++)
        wan += fc->act[i].kind == FAKE_STEAL && (fc->act[i].flags & SATIN_STEAL_WAN);
    is_i64(wan, 0, "and no wide-area steal");
    for (int k = 0; k < 2; k++) {
        os[k]->destroy(ps[k]);
        free(fes[k]);
    }
}

/* {0} {1,2}: node 0 has no local victim; wide-area failures drive the back-off. */
static void alone_in_cluster(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 2, (const int[]){1, 2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    FAKE_DRAWS(fe, 0, 1, 0, 0);
    ops->on_idle(p);
    uint64_t wan = expect_steal(fe, 2, SATIN_STEAL_WAN, "wide-area steal to node 2");
    expect_none(fe, "no local victim");
    ops->on_idle(p);
    expect_none(fe, "idle again while it is in flight: nothing");
    ops->on_steal_reply(p, 2, wan, 0, SATIN_STEAL_WAN);
    wan = expect_steal(fe, 1, SATIN_STEAL_WAN, "failure 1 of a round of 2 remote nodes: at once");
    ops->on_steal_reply(p, 1, wan, 0, SATIN_STEAL_WAN);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "failure 2: wait 1 ms");
    ops->destroy(p);
    free(fe);
}

static void victim_side(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 3, 2, (const int[]){2, 2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->queue = 2;
    fake_check_answers_once(fe, ops, p, 0, SATIN_STEAL_WAN, 4, "crs, wide-area thief");
    fake_check_answers_once(fe, ops, p, 2, SATIN_STEAL_SYNC, 3, "crs, local thief");
    is_i64(fake_stat(ops, p, "jobs_given"), 2, "2 jobs given");
    ops->destroy(p);
    free(fe);
}

int main(void)
{
    figure3();
    never_two_wan_in_flight();
    one_cluster_is_rs();
    alone_in_cluster();
    victim_side();
    return done_testing();
}
