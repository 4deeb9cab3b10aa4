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
    fake_on_steal_reply(fe, ops, p, 2, loc, 0, SATIN_STEAL_SYNC);
    loc = expect_steal(fe, 0, SATIN_STEAL_SYNC,
                       "local failure: retry locally at once, no second wide-area steal");
    fake_on_steal_reply(fe, ops, p, 0, loc, 0, SATIN_STEAL_SYNC);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "a round of 2 local failures: wait 1 ms");
    FAKE_DRAWS(fe, 1);
    fake_fire_next(fe, ops, p);
    loc = expect_steal(fe, 2, SATIN_STEAL_SYNC, "timer: local steal only, the flag is still set");
    fake_on_steal_reply(fe, ops, p, 5, wan, 0, SATIN_STEAL_WAN);
    expect_timer(fe, SATIN_TIMER_WAN, 1 * MS,
                 "empty wide-area reply from an idle victim: the next one after its own 1 ms");
    fake_on_steal_reply(fe, ops, p, 2, loc, 0, SATIN_STEAL_SYNC);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "third local failure: 1 ms");
    FAKE_DRAWS(fe, 0);
    is_i64(fake_fire_next(fe, ops, p), SATIN_TIMER_BACKOFF, "both due: the local timer first");
    loc = expect_steal(fe, 0, SATIN_STEAL_SYNC,
                       "a local attempt while the wide-area back-off runs: local steal only");
    expect_none(fe, "no wide-area steal from the local loop");
    FAKE_DRAWS(fe, 1, 0);
    is_i64(fake_fire_next(fe, ops, p), SATIN_TIMER_WAN, "then the wide-area timer");
    wan = expect_steal(fe, 6, SATIN_STEAL_WAN, "it sends the wide-area steal (cluster 2, node 6)");
    expect_none(fe, "and only that");
    is_i64(fe->clock, 2 * MS, "at 2 ms");

    /* Local success: the wide-area steal is not cancelled. */
    fake_on_steal_reply(fe, ops, p, 0, loc, 1, SATIN_STEAL_SYNC);
    expect_none(fe, "local success: no cancel, nothing else");
    FAKE_DRAWS(fe, 1);
    ops->on_idle(p);
    loc = expect_steal(fe, 2, SATIN_STEAL_SYNC, "idle again with the flag set: local only");
    fe->idle = 0;
    fake_on_steal_reply(fe, ops, p, 6, wan, 1, SATIN_STEAL_WAN);
    expect_none(fe, "wide-area jobs arrive and the node is busy: nothing to do (it queued them)");
    is_i64(fake_node_stat(fe, "steal_successes_wan"), 1, "counted as a wide-area success");
    is_i64(fake_node_stat(fe, "steal_attempts_wan"), 2, "2 wide-area requests in all");
    is_i64(fake_node_stat(fe, "steal_attempts_async"), 2, "both asynchronous");
    is_i64(fake_node_stat(fe, "steal_attempts_sync"), 5, "5 local synchronous ones");
    is_i64(fake_stat(ops, p, "wan_backoffs"), 1, "1 wide-area back-off");
    is_i64(fake_stat(ops, p, "backoffs"), 2, "2 local back-offs");
    is_i64(fe->unscripted, 0, "every draw was scripted");
    ops->destroy(p);
    free(fe);
}

/* {0} {1,2}: node 0 has no local victim, so only the wide-area rules act.
 * Draws per wide-area steal: the cluster (one), then the node (1 or 2). */
static void wan_reply_rules(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 2, (const int[]){1, 2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    FAKE_DRAWS(fe, 0, 1);
    ops->on_idle(p);
    uint64_t wan = expect_steal(fe, 2, SATIN_STEAL_WAN, "idle: a wide-area steal to node 2");
    expect_none(fe, "no local victim");
    ops->on_idle(p);
    expect_none(fe, "idle again while it is in flight: nothing");

    /* Empty replies from idle victims: 1, 2, 4, ... ms, capped at 100. */
    static const int64_t delays[] = {1, 2, 4, 8, 16, 32, 64, 100, 100};
    int64_t at = 0;
    int good = 1;
    for (size_t i = 0; i < sizeof delays / sizeof delays[0]; i++) {
        int from = fe->nact;
        fake_on_steal_reply(fe, ops, p, fe->act[fe->nact - 1].node, wan, 0, SATIN_STEAL_WAN);
        good &= fe->nact == from + 1 && fe->act[from].kind == FAKE_SET_TIMER &&
                fe->act[from].node == SATIN_TIMER_WAN && fe->act[from].value == delays[i] * MS;
        FAKE_DRAWS(fe, 0, 0);
        fake_fire_next(fe, ops, p);
        at += delays[i] * MS;
        good &= fe->nact == from + 2 && fe->act[from + 1].kind == FAKE_STEAL &&
                fe->act[from + 1].node == 1 && fe->act[from + 1].flags == SATIN_STEAL_WAN &&
                fe->act[from + 1].at == at;
        wan = fe->act[from + 1].id;
    }
    ok(good, "9 empty replies from idle victims: the next wide-area steal after 1, 2, 4, 8, 16, "
             "32, 64, 100, 100 ms, one steal per timer");
    fake_skip(fe);

    FAKE_DRAWS(fe, 0, 1);
    fake_on_steal_reply(fe, ops, p, 1, wan, 0, SATIN_STEAL_WAN | SATIN_STEAL_VICTIM_BUSY);
    wan = expect_steal(fe, 2, SATIN_STEAL_WAN, "an empty reply from a busy victim: the next one at once");
    expect_none(fe, "no timer");
    fake_on_steal_reply(fe, ops, p, 2, wan, 0, SATIN_STEAL_WAN);
    expect_timer(fe, SATIN_TIMER_WAN, 100 * MS,
                 "a busy victim is no success: the next idle victim's reply still waits 100 ms");
    FAKE_DRAWS(fe, 0, 0);
    fake_fire_next(fe, ops, p);
    wan = expect_steal(fe, 1, SATIN_STEAL_WAN, "timer: steal");

    FAKE_DRAWS(fe, 0, 1);
    fake_on_steal_reply(fe, ops, p, 1, wan, 1, SATIN_STEAL_WAN);
    wan = expect_steal(fe, 2, SATIN_STEAL_WAN, "a reply with jobs while still idle: the next at once");
    fake_on_steal_reply(fe, ops, p, 2, wan, 0, SATIN_STEAL_WAN);
    expect_timer(fe, SATIN_TIMER_WAN, 1 * MS, "the success reset the wide-area back-off: 1 ms");

    fe->idle = 0;
    fake_fire_next(fe, ops, p);
    expect_none(fe, "the timer fires while the node is busy: nothing");
    fe->idle = 1;
    FAKE_DRAWS(fe, 0, 0);
    ops->on_idle(p);
    wan = expect_steal(fe, 1, SATIN_STEAL_WAN, "the next idle period steals across at once");
    fake_on_steal_reply(fe, ops, p, 1, wan, 0, SATIN_STEAL_WAN);
    expect_timer(fe, SATIN_TIMER_WAN, 2 * MS, "second failure since the success: 2 ms");
    fe->idle = 0;
    ops->on_steal_request(p, 1, 1, 77, SATIN_STEAL_WAN);
    expect_reply(fe, 1, 77, SATIN_STEAL_WAN, 1, "busy for a while: answers a thief");
    fe->idle = 1;
    FAKE_DRAWS(fe, 0, 1);
    ops->on_idle(p);
    expect_clear(fe, SATIN_TIMER_WAN, "a new idle period drops the wide-area back-off...");
    wan = expect_steal(fe, 2, SATIN_STEAL_WAN, "...and steals across at once");
    fe->idle = 0;
    fake_on_steal_reply(fe, ops, p, 2, wan, 0, SATIN_STEAL_WAN);
    expect_none(fe, "an empty reply while busy: nothing now");
    fe->idle = 1;
    FAKE_DRAWS(fe, 0, 0);
    ops->on_idle(p);
    expect_steal(fe, 1, SATIN_STEAL_WAN, "and the next idle period steals at once");
    is_i64(fake_stat(ops, p, "wan_backoffs"), 12, "12 wide-area back-offs");
    is_i64(fake_stat(ops, p, "backoffs"), 0, "no local back-off without local victims");
    is_i64(fe->unscripted, 0, "every draw was scripted");
    ops->destroy(p);
    free(fe);
}

/* An idle 2 x 2 grid (etc/local-2x2.yaml's shape), node 0, every reply
 * empty from an idle victim and instant: over 2.3 s both loops back off to
 * one request per 100 ms, as integration/grid.t assumes. */
static void idle_grid_is_quiet(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 2, (const int[]){2, 2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    int wan = 0, local = 0, done = 0;
    ops->on_idle(p);
    while (fe->clock <= 2300 * MS) {
        for (; done < fe->nact; done++) {
            const fake_action *a = &fe->act[done];
            if (a->kind != FAKE_STEAL)
                continue;
            *(a->flags & SATIN_STEAL_WAN ? &wan : &local) += 1;
            fake_on_steal_reply(fe, ops, p, a->node, a->id, 0, a->flags);
        }
        if (fake_fire_next(fe, ops, p) < 0)
            break;
    }
    /* Both chains: at 0, 1, 3, 7, 15, 31, 63, 127 ms, then every 100 ms:
     * 227 .. 2227 ms, 21 more. */
    is_i64(local, 29, "2.3 s idle: 29 local steal requests");
    is_i64(wan, 29, "and 29 wide-area ones");
    ok(2 * (local + wan) * 4 <= 1000,
       "4 such nodes: %d requests and replies, within grid.t's bound of ~1000", 2 * (local + wan) * 4);
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
            fake_on_steal_reply(fe, ops, p, node, id, (r >> 12) % 7 == 0,
                                (r >> 16) % 3 == 0 ? SATIN_STEAL_VICTIM_BUSY : 0);
        }
        for (int i = from; i < fe->nact; i++) {
            const fake_action *a = &fe->act[i];
            if (a->kind != FAKE_STEAL)
                continue;
            if (a->flags & SATIN_STEAL_WAN) {
                wan_sent++;
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
    ok(order_ok, "each wide-area steal is asynchronous; at most one local steal in flight");
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
                fake_on_steal_reply(fe, o, p, a->node, a->id, 1, a->flags);
                o->on_steal_request(p, 0, 0, 555, SATIN_STEAL_SYNC);
                o->on_idle(p);
            } else {
                fake_on_steal_reply(fe, o, p, a->node, a->id, 0, a->flags);
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

static void victim_side(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 3, 2, (const int[]){2, 2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->queue = 2;
    fake_check_answers_once(fe, ops, p, 0, SATIN_STEAL_WAN, 4, "crs, wide-area thief");
    fake_check_answers_once(fe, ops, p, 2, SATIN_STEAL_SYNC, 3, "crs, local thief");
    is_i64(fake_node_stat(fe, "jobs_given"), 2, "2 jobs given");
    ops->destroy(p);
    free(fe);
}

int main(void)
{
    figure3();
    never_two_wan_in_flight();
    one_cluster_is_rs();
    wan_reply_rules();
    idle_grid_is_quiet();
    victim_side();
    return done_testing();
}
