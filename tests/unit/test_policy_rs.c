/* test_policy_rs.c - Random Stealing against the scripted fake; also the
 * shared parts (defaults, lookup, back-off). */
#include "test_policy_fake.h"

#include <string.h>

#define MS 1000000LL

static const satin_policy_ops *const ops = &satin_policy_rs;

static void defaults_and_lookup(void)
{
    satin_policy_params p;
    satin_policy_params_default(&p);
    is_i64(p.backoff_min_ns, 1 * MS, "backoff_min 1 ms");
    is_i64(p.backoff_max_ns, 100 * MS, "backoff_max 100 ms");
    is_i64(p.steal_max_jobs, 1, "one job per steal, as the paper");
    is_i64(p.rp_threshold, 4, "rp_threshold 4");
    is_i64(p.rp_max_in_transit, 8, "rp_max_in_transit 8");
    is_i64(p.cls_load_interval_ns, 10 * MS, "cls_load_interval 10 ms (the paper's)");
    is_i64(p.cls_threshold, 1, "cls_threshold 1");
    is_i64(p.lifeline_w, 1, "lifeline_w 1");
    is_i64(p.lifeline_z, 0, "lifeline_z 0 (log2 of the node count)");
    is_i64(p.wan_lifelines, 2, "wan_lifelines 2");
    is_i64(p.wan_lifeline_jobs, 1, "wan_lifeline_jobs 1");
    is_i64(p.wan_lifeline_queue, 0, "wan_lifeline_queue 0");
    const char *names[] = {"rs", "rp", "chs", "cls", "crs", "lifeline", "cluster-lifeline"};
    const satin_policy_ops *want[] = {&satin_policy_rs,  &satin_policy_rp,
                                      &satin_policy_chs, &satin_policy_cls,
                                      &satin_policy_crs, &satin_policy_lifeline,
                                      &satin_policy_cluster_lifeline};
    for (int i = 0; i < 7; i++)
        ok(satin_policy_find(names[i]) == want[i], "find(\"%s\")", names[i]);
    ok(satin_policy_find("ws") == NULL && satin_policy_find(NULL) == NULL, "unknown name: NULL");
    ok(satin_policy_find("CRS") == &satin_policy_crs, "find is case-insensitive");
    int listed = 0;
    for (const satin_policy_ops *const *r = satin_policy_registry; *r; r++, listed++)
        ok(listed < 7 && *r == want[listed], "registry[%d] is %s", listed, names[listed % 7]);
    is_i64(listed, 7, "the registry lists every policy once");
    ok(satin_policy_find("Cluster-Lifeline") == &satin_policy_cluster_lifeline,
       "find(\"Cluster-Lifeline\")");
    char list[128];
    satin_policy_list_names(list, sizeof list);
    is_str(list, "rs, rp, chs, cls, crs, lifeline, cluster-lifeline",
           "names listed in registry order");
}

/* Each policy registers the tunables it reads; the registry lists each
 * once, in the order the topology file's messages name them. */
static void tunables_registered_per_policy(void)
{
    static const char *const all[] = {"backoff_min_ms", "backoff_max_ms", "steal_max_jobs",
                                      "rp_threshold", "rp_max_in_transit",
                                      "cls_load_interval_ms", "cls_threshold", "lifeline_w",
                                      "lifeline_z", "wan_lifelines", "wan_lifeline_jobs",
                                      "wan_lifeline_queue"};
    int n = 0;
    for (const satin_policy_tunable *t; (t = satin_policy_tunable_at(n)); n++)
        is_str(t->name, n < 12 ? all[n] : "(more)", "tunable %d", n);
    is_i64(n, 12, "twelve tunables in all");
    /* Who reads what: RP never steals, so it reads no back-off. */
    static const char *const reads[7] = {
        "backoff_min_ms backoff_max_ms steal_max_jobs",
        "rp_threshold rp_max_in_transit",
        "backoff_min_ms backoff_max_ms steal_max_jobs",
        "backoff_min_ms backoff_max_ms steal_max_jobs cls_load_interval_ms cls_threshold",
        "backoff_min_ms backoff_max_ms steal_max_jobs",
        "steal_max_jobs lifeline_w lifeline_z",
        "steal_max_jobs lifeline_w lifeline_z wan_lifelines wan_lifeline_jobs wan_lifeline_queue",
    };
    for (int i = 0; satin_policy_registry[i]; i++) {
        char got[256] = "";
        for (int j = 0; j < 12; j++) {
            const satin_policy_tunable *t = satin_policy_tunable_at(j);
            if (satin_policy_reads(satin_policy_registry[i], t))
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", got[0] ? " " : "",
                         t->name);
        }
        is_str(got, reads[i], "%s reads its own tunables", satin_policy_registry[i]->name);
    }
    for (int i = 0; i < 7; i++) {
        const satin_policy_ops *o = satin_policy_registry[i];
        ok(o->create && o->destroy && o->on_idle && o->on_steal_request && o->on_steal_reply &&
               o->on_cancel && o->on_queue_length && o->on_push && o->on_push_ack &&
               o->on_load && o->on_result && o->on_timer && o->on_peer && o->stats,
           "%s: every handler is set", o->name);
    }
}

/* Two clusters {0,1,2} {3,4,5}; node 1 steals.  Draw k picks others[k % 5]
 * with others = 0,2,3,4,5.  WAN exactly for 3,4,5. */
static void uniform_victims_and_wan_flag(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 1, 2, (const int[]){3, 3});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    FAKE_DRAWS(fe, 0, 1, 2, 3, 4);
    const int victim[] = {0, 2, 3, 4, 5};
    ops->on_idle(p);
    for (int i = 0; i < 5; i++) {
        char what[80];
        snprintf(what, sizeof what, "draw %d: steal from %d, %s", i, victim[i],
                 victim[i] >= 3 ? "SYNC|WAN" : "SYNC");
        uint64_t id = expect_steal(fe, victim[i],
                                   SATIN_STEAL_SYNC | (victim[i] >= 3 ? SATIN_STEAL_WAN : 0), what);
        if (i == 0) {
            ops->on_idle(p);
            ok(fe->seen == fe->nact, "a second idle event while waiting sends nothing");
        }
        fake_on_steal_reply(fe, ops, p, victim[i], id, 0, 0);
    }
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "a full round of 5 failures: wait 1 ms");
    expect_none(fe, "nothing else");
    is_i64(fake_draws_left(fe), 0, "one draw per steal");
    is_i64(fe->unscripted, 0, "no unscripted draw");

    /* Large draws wrap: 7 % 5 = 2 -> node 3; 10 % 5 = 0 -> node 0. */
    FAKE_DRAWS(fe, 7, 10);
    fake_fire_next(fe, ops, p);
    uint64_t id = expect_steal(fe, 3, SATIN_STEAL_SYNC | SATIN_STEAL_WAN, "draw 7 -> node 3");
    ok(fe->act[fe->seen - 1].at == 1 * MS, "sent when the 1 ms timer fired");
    fake_on_steal_reply(fe, ops, p, 3, id, 1, SATIN_STEAL_SYNC | SATIN_STEAL_WAN);
    expect_none(fe, "success: no retry, no timer");
    is_i64(fake_node_attempts(fe), 6, "6 requests counted");
    is_i64(fake_node_stat(fe, "steal_attempts_wan"), 4, "4 of them wide-area");
    is_i64(fake_node_stat(fe, "steal_attempts_sync"), 6, "all synchronous");
    is_i64(fake_node_successes(fe), 1, "1 success");
    is_i64(fake_node_stat(fe, "steal_successes_wan"), 1, "from a remote node");
    is_i64(fake_stat(ops, p, "backoffs"), 1, "1 back-off");
    ops->on_idle(p);
    expect_steal(fe, 0, SATIN_STEAL_SYNC, "draw 10 -> node 0, LAN");
    ops->destroy(p);
    free(fe);
}

/* Draws 0..999 in turn: every other node is chosen exactly 200 times. */
static void uniform_over_a_cycle_of_draws(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 3, 2, (const int[]){3, 3});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    for (uint64_t k = 0; k < 1000; k++)
        FAKE_DRAWS(fe, k);
    int hits[6] = {0}, wan_ok = 1;
    ops->on_idle(p);
    while (fake_draws_left(fe) > 0 || fe->act[fe->nact - 1].kind == FAKE_STEAL) {
        const fake_action *a = &fe->act[fe->nact - 1];
        if (a->kind == FAKE_SET_TIMER) {
            fake_fire_next(fe, ops, p);
            continue;
        }
        hits[a->node]++;
        wan_ok &= !!(a->flags & SATIN_STEAL_WAN) == (a->node < 3);
        if (fake_draws_left(fe) == 0)
            break;
        fake_on_steal_reply(fe, ops, p, a->node, a->id, 0, a->flags);
    }
    ok(hits[0] == 200 && hits[1] == 200 && hits[2] == 200 && hits[4] == 200 && hits[5] == 200,
       "1000 draws: 200 steals to each of the 5 other nodes (%d %d %d - %d %d)", hits[0],
       hits[1], hits[2], hits[4], hits[5]);
    is_i64(hits[3], 0, "never to itself");
    ok(wan_ok, "WAN flag exactly on the requests to the other cluster");
    ops->destroy(p);
    free(fe);
}

/* One cluster of 3: a round is 2 failures.  Delay after failure f:
 * 0 for f < 2, then 1 ms per round doubling, capped at 100 ms. */
static void backoff_doubles_and_resets(void)
{
    static const int64_t want[] = {
        0, 1 * MS, 1 * MS, 2 * MS, 2 * MS, 4 * MS, 4 * MS, 8 * MS, 8 * MS, 16 * MS, 16 * MS,
        32 * MS, 32 * MS, 64 * MS, 64 * MS, 100 * MS, 100 * MS, 100 * MS, 100 * MS, 100 * MS,
    };
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){3});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    int good = 1;
    int64_t expect_clock = 0;
    for (int f = 1; f <= (int)(sizeof want / sizeof want[0]); f++) {
        const fake_action *s = &fe->act[fe->nact - 1];
        good &= s->kind == FAKE_STEAL && s->at == expect_clock;
        fake_on_steal_reply(fe, ops, p, s->node, s->id, 0, SATIN_STEAL_SYNC);
        const fake_action *a = &fe->act[fe->nact - 1];
        if (want[f - 1] == 0) {
            good &= a->kind == FAKE_STEAL;
        } else {
            if (!(a->kind == FAKE_SET_TIMER && a->node == SATIN_TIMER_BACKOFF &&
                  a->value == want[f - 1])) {
                diag("failure %d: wanted a %" PRId64 " ns timer", f, want[f - 1]);
                fake_show_(a);
                good = 0;
            }
            expect_clock += want[f - 1];
            fake_fire_next(fe, ops, p);
        }
    }
    ok(good, "delays 0,1,1,2,2,4,...,64,100,100 ms: doubling per round of 2, capped");
    is_i64(fe->clock, (1 + 1 + 2 + 2 + 4 + 4 + 8 + 8 + 16 + 16 + 32 + 32 + 64 + 64 + 500) * MS,
           "the fake clock moved by exactly the sum of the delays");
    fake_skip(fe);

    /* Success resets: the next failure retries at once again. */
    const fake_action *s = &fe->act[fe->nact - 1];
    fake_on_steal_reply(fe, ops, p, s->node, s->id, 2, SATIN_STEAL_SYNC);
    expect_none(fe, "success: nothing more");
    FAKE_DRAWS(fe, 0, 1, 1, 0);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 1, SATIN_STEAL_SYNC, "idle: steal from 1");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, 0);
    id = expect_steal(fe, 2, SATIN_STEAL_SYNC, "after a success the first failure retries at once");
    fake_on_steal_reply(fe, ops, p, 2, id, 0, 0);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "second failure: 1 ms again");

    /* The timer fires while the node is busy: no steal. */
    fe->idle = 0;
    fake_fire_next(fe, ops, p);
    expect_none(fe, "timer while busy: no steal");
    /* A failure while busy does not retry either. */
    fe->idle = 1;
    ops->on_idle(p);
    id = expect_steal(fe, 2, SATIN_STEAL_SYNC, "idle again: steal from 2");
    fe->idle = 0;
    fake_on_steal_reply(fe, ops, p, 2, id, 0, 0);
    expect_none(fe, "failure while busy: no retry, no timer");
    fe->idle = 1;
    ops->on_idle(p);
    id = expect_steal(fe, 1, SATIN_STEAL_SYNC, "next idle period: steal from 1");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, 0);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 2 * MS, "failure 4 since the success: 2 ms");
    ops->destroy(p);
    free(fe);
}

/* An empty reply from a victim that was busy means work exists: the thief
 * polls again at backoff_min and does not escalate its back-off. */
static void busy_victim_keeps_polling(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    int good = 1;
    for (int f = 1; f <= 12; f++) {
        const fake_action *s = &fe->act[fe->nact - 1];
        good &= s->kind == FAKE_STEAL;
        fake_on_steal_reply(fe, ops, p, s->node, s->id, 0,
                            SATIN_STEAL_SYNC | SATIN_STEAL_VICTIM_BUSY);
        const fake_action *a = &fe->act[fe->nact - 1];
        good &= a->kind == FAKE_SET_TIMER && a->node == SATIN_TIMER_BACKOFF && a->value == 1 * MS;
        fake_fire_next(fe, ops, p);
    }
    ok(good, "12 empty replies from a busy victim: each followed by a 1 ms wait, never longer");
    const fake_action *s = &fe->act[fe->nact - 1];
    fake_on_steal_reply(fe, ops, p, s->node, s->id, 0, SATIN_STEAL_SYNC);
    expect_steal(fe, 1, SATIN_STEAL_SYNC,
                 "then an idle victim: the normal back-off starts from scratch (retry at once)");
    ops->destroy(p);
    free(fe);
}

/* A job that only waits (its records held by a node that died) keeps
 * answering "busy": after SATIN_BUSY_POLLS_MAX such replies in a row the
 * thief backs off as from an idle victim, doubling up to backoff_max. */
static void busy_victim_polls_are_bounded(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    int64_t delays[SATIN_BUSY_POLLS_MAX + 12];
    for (int f = 0; f < SATIN_BUSY_POLLS_MAX + 12; f++) {
        const fake_action *s = &fe->act[fe->nact - 1];
        fake_on_steal_reply(fe, ops, p, s->node, s->id, 0,
                            SATIN_STEAL_SYNC | SATIN_STEAL_VICTIM_BUSY);
        const fake_action *a = &fe->act[fe->nact - 1];
        delays[f] = a->kind == FAKE_SET_TIMER ? a->value : 0;
        fake_fire_next(fe, ops, p);
    }
    int fast = 1;
    for (int f = 0; f < SATIN_BUSY_POLLS_MAX; f++)
        fast &= delays[f] == 1 * MS;
    ok(fast, "the first %d busy replies: 1 ms each", SATIN_BUSY_POLLS_MAX);
    const int64_t want[] = {1, 2, 4, 8, 16, 32, 64, 100, 100, 100, 100, 100};
    int grows = 1;
    for (int k = 0; k < 12; k++)
        grows &= delays[SATIN_BUSY_POLLS_MAX + k] == want[k] * MS;
    ok(grows, "then the back-off doubles to backoff_max (1, 2, 4 ... 100 ms): %lld %lld %lld ms",
       (long long)(delays[SATIN_BUSY_POLLS_MAX] / MS),
       (long long)(delays[SATIN_BUSY_POLLS_MAX + 1] / MS),
       (long long)(delays[SATIN_BUSY_POLLS_MAX + 11] / MS));
    ops->destroy(p);
    free(fe);
}

static void idle_during_backoff_steals_now(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 1, SATIN_STEAL_SYNC, "steal from the only other node");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, 0);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "round of 1: wait 1 ms");
    ops->on_idle(p); /* work came and went meanwhile: a new idle period */
    expect_clear(fe, SATIN_TIMER_BACKOFF, "new idle period: the back-off timer goes");
    id = expect_steal(fe, 1, SATIN_STEAL_SYNC, "and it steals at once");
    ok(fake_fire_next(fe, ops, p) == -1, "no timer left");
    fake_on_steal_reply(fe, ops, p, 1, id + 77, 0, 0);
    expect_none(fe, "a reply to an unknown request is ignored");
    is_i64(fake_node_stat(fe, "late_replies"), 1, "and counted as late");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, 0);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 2 * MS, "second round fails: 2 ms");
    ops->destroy(p);
    free(fe);
}

static void victim_side(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 2, 2, (const int[]){2, 2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->queue = 3;
    fe->idle = 0;
    fake_check_answers_once(fe, ops, p, 0, SATIN_STEAL_SYNC | SATIN_STEAL_WAN, 5, "rs");
    is_i64(fe->queue, 0, "3 jobs given, one per request");
    is_i64(fake_node_stat(fe, "jobs_given"), 3, "jobs_given 3");
    is_i64(fake_node_stat(fe, "requests_served"), 5, "requests_served 5");
    ok(fe->act[0].kind == FAKE_REPLY && fe->act[0].node == 0 && fe->act[0].value == 1 &&
           fe->act[0].flags == (SATIN_STEAL_SYNC | SATIN_STEAL_WAN),
       "reply goes to the thief with max 1 job and the request's flags");
    ops->destroy(p);
    free(fe);

    /* A grid of one node never steals. */
    fake_topo_init(&ft, 0, 1, (const int[]){1});
    fe = fake_new();
    p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    expect_none(fe, "alone: no steal");
    ops->destroy(p);
    free(fe);
}

int main(void)
{
    defaults_and_lookup();
    tunables_registered_per_policy();
    uniform_victims_and_wan_flag();
    uniform_over_a_cycle_of_draws();
    backoff_doubles_and_resets();
    idle_during_backoff_steals_now();
    busy_victim_keeps_polling();
    busy_victim_polls_are_bounded();
    victim_side();
    return done_testing();
}
