/* test_policy_rp.c - Random Pushing against the fake. */
#include "test_policy_fake.h"

static const satin_policy_ops *const ops = &satin_policy_rp;

/* {0,1,2,3} {4,5}; node 0 pushes; draw k -> node 1 + k % 5. */
static void pushes_above_threshold(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 2, (const int[]){4, 2});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);

    fe->queue = 4;
    ops->on_queue_length(p, 4);
    expect_none(fe, "queue 4 = threshold: no push");
    fe->queue = 5;
    FAKE_DRAWS(fe, 3);
    ops->on_queue_length(p, 5);
    expect_push(fe, 4, "queue 5 > 4: push the tail job to the drawn node (4, remote)");
    expect_none(fe, "one push brings it to the threshold");
    is_i64(fe->queue, 4, "the job left the queue");

    fe->queue = 20;
    FAKE_DRAWS(fe, 0, 1, 2, 3, 4, 5, 6);
    ops->on_queue_length(p, 20);
    const int want[] = {1, 2, 3, 4, 5, 1, 2};
    for (int i = 0; i < 7; i++) {
        char what[64];
        snprintf(what, sizeof what, "push %d to node %d", i + 2, want[i]);
        expect_push(fe, want[i], what);
    }
    expect_none(fe, "stops at 8 in transit although the queue is still 13");
    ops->on_queue_length(p, 30);
    expect_none(fe, "still 8 in transit: no push");
    FAKE_DRAWS(fe, 4);
    fake_on_push_ack(fe, ops, p, 4);
    expect_push(fe, 5, "an ack frees one slot: the long queue pushes again at once");
    expect_none(fe, "and only one");
    is_i64(fake_node_stat(fe, "pushes"), 9, "9 pushes");
    is_i64(fake_node_stat(fe, "push_acks"), 1, "1 ack");

    /* push() finding the queue empty (workers took the jobs) stops the loop. */
    fe->queue = 0;
    for (int i = 0; i < 8; i++)
        fake_on_push_ack(fe, ops, p, 1);
    fake_skip(fe);
    fe->queue = 1;
    FAKE_DRAWS(fe, 0, 0);
    ops->on_queue_length(p, 9);
    ok(fake_count(fe, 0, FAKE_PUSH) > 0 && fe->act[fe->nact - 1].kind == FAKE_PUSH &&
           fe->act[fe->nact - 1].result == 0 && fe->act[fe->nact - 2].result == 1,
       "an empty push ends the loop");
    is_i64(fake_node_stat(fe, "pushes"), 10, "only the job that went is counted");
    ops->destroy(p);
    free(fe);
}

static void never_exceeds_bound_never_steals(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 2, 2, (const int[]){3, 3});
    fake_env *fe = fake_new();
    satin_policy_params pp;
    satin_policy_params_default(&pp);
    pp.rp_max_in_transit = 3;
    pp.rp_threshold = 2;
    satin_policy *p = fake_create(ops, &ft, fe, &pp);
    uint64_t lcg = 99;
    int in_transit = 0, worst = 0, pushes = 0, pushed_to_self = 0;
    for (int step = 0; step < 3000; step++) {
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        int r = (int)(lcg >> 33);
        int from = fe->nact;
        switch (r % 4) {
        case 0:
        case 1:
            fe->queue = (r >> 3) % 12;
            ops->on_queue_length(p, fe->queue);
            break;
        case 2:
            if (in_transit > 0) { /* acks only for pushes that went */
                in_transit--;
                fake_on_push_ack(fe, ops, p, 0);
            }
            break;
        default:
            fe->idle = (r >> 5) & 1;
            ops->on_idle(p);
            fake_on_push(fe, ops, p, 1);
        }
        for (int i = from; i < fe->nact; i++)
            if (fe->act[i].kind == FAKE_PUSH && fe->act[i].result) {
                in_transit++, pushes++;
                pushed_to_self += fe->act[i].node == 2;
            }
        if (in_transit > worst)
            worst = in_transit;
        if (fe->nact > FAKE_MAX_ACTIONS - 100)
            fe->nact = fe->seen = 0;
    }
    is_i64(worst, 3, "3000 random events: never more than rp_max_in_transit (3) unacknowledged");
    ok(pushes > 100, "and it did push (%d)", pushes);
    is_i64(pushed_to_self, 0, "never to itself");
    is_i64(fake_stat(ops, p, "backoffs"), -1, "RP has no steal counters (no back-offs)");
    int steals = 0;
    for (int i = 0; i < fe->nact; i++)
        steals += fe->act[i].kind == FAKE_STEAL;
    is_i64(steals, 0, "and never steals");
    ops->destroy(p);
    free(fe);
}

static void idle_waits_and_requests_get_empty_replies(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 1, 1, (const int[]){3});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    expect_none(fe, "idle with an empty queue: wait");
    fake_advance(fe, ops, p, 1000000000);
    expect_none(fe, "a second later: still nothing (no timers)");
    fake_on_push(fe, ops, p, 0);
    is_i64(fake_node_stat(fe, "pushes_received"), 1, "a received push is counted");
    fe->queue = 3;
    fake_check_answers_once(fe, ops, p, 0, SATIN_STEAL_SYNC, 3, "rp");
    ok(fe->act[fe->nact - 1].value == 0 && fe->queue == 3, "the replies are empty (max 0 jobs)");
    ops->destroy(p);
    free(fe);
}

int main(void)
{
    pushes_above_threshold();
    never_exceeds_bound_never_steals();
    idle_waits_and_requests_get_empty_replies();
    return done_testing();
}
