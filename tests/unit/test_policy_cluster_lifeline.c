/* test_policy_cluster_lifeline.c - lifelines inside clusters, a few
 * wide-area lifelines per cluster held by its gateways, against the fake. */
#include "test_policy_fake.h"

#define MS 1000000LL

static const satin_policy_ops *const ops = &satin_policy_cluster_lifeline;

#define SL (SATIN_STEAL_SYNC | SATIN_STEAL_LIFELINE)
#define WL (SATIN_STEAL_WAN | SATIN_STEAL_LIFELINE)

/* 4 clusters of 4: {0-3} {4-7} {8-11} {12-15}.  Clusters form a binary
 * hypercube of wan_lifelines = 2 dimensions: cluster 0's edges are 1 and 2,
 * so gateway 0 (node 0) holds a lifeline to member 0 of cluster 1 (node 4)
 * and gateway 1 (node 1) one to member 1 of cluster 2 (node 9).  Inside,
 * node 0's lifelines are 1 and 2. */
static void gateway_quiesces_then_crosses(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 4, (const int[]){4, 4, 4, 4});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);

    FAKE_DRAWS(fe, 2);
    ops->on_idle(p);
    uint64_t id =
        expect_steal(fe, 3, SATIN_STEAL_SYNC, "idle: one random steal in the cluster (3)");
    fake_on_steal_reply(fe, ops, p, 3, id, 0, SATIN_STEAL_SYNC);
    id = expect_steal(fe, 1, SL, "local lifeline 1");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, SL);
    id = expect_steal(fe, 2, SL, "local lifeline 2");
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SL);
    uint64_t wan = expect_steal(fe, 4, WL,
                                "quiesced in its cluster: the gateway's wide-area lifeline, "
                                "asynchronous, to node 4");
    expect_none(fe, "nothing else");
    fake_on_steal_reply(fe, ops, p, 4, wan, 0, WL);
    expect_none(fe, "empty: node 4 remembers it; nothing more, no timer");
    is_i64(fake_advance(fe, ops, p, 10000 * MS), 0, "10 s: no timer");

    /* Work from a local lifeline, run, idle again: the wide-area lifeline is
     * still activated, so nothing crosses. */
    fe->idle = 0;
    fake_on_push(fe, ops, p, 2);
    fe->idle = 1;
    FAKE_DRAWS(fe, 0);
    ops->on_idle(p);
    id = expect_steal(fe, 1, SATIN_STEAL_SYNC, "random steal (1)");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, SATIN_STEAL_SYNC);
    id = expect_steal(fe, 2, SL, "lifeline 2, which delivered");
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SL);
    expect_none(fe, "quiesced; the wide-area lifeline is out already: nothing across");

    /* Work along the wide-area lifeline frees it. */
    fe->idle = 0;
    fake_on_push(fe, ops, p, 4);
    fe->idle = 1;
    FAKE_DRAWS(fe, 1);
    ops->on_idle(p);
    id = expect_steal(fe, 2, SATIN_STEAL_SYNC, "random steal (2)");
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SATIN_STEAL_SYNC);
    wan = expect_steal(fe, 4, WL,
                       "local lifelines all remembered: quiesced, and the freed wide-area "
                       "lifeline goes again");
    expect_none(fe, "nothing else");
    /* A wide-area reply with work: the buddy did not remember us. */
    fake_on_steal_reply(fe, ops, p, 4, wan, 1, WL);
    expect_none(fe, "it brought work: nothing to do");
    is_i64(fe->unscripted, 0, "every draw was scripted");
    is_i64(fake_node_stat(fe, "steal_attempts_wan"), 2, "2 wide-area requests in all");
    is_i64(fake_node_stat(fe, "steal_attempts_async"), 2, "both asynchronous");
    is_i64(fake_node_stat(fe, "steal_successes_wan"), 1, "1 brought work");
    ops->destroy(p);
    free(fe);
}

/* Who holds a wide-area lifeline, and to where. */
static void gateways(void)
{
    static const struct { int self, buddy; const char *what; } g[] = {
        {1, 9, "node 1 (gateway 1 of cluster 0): member 1 of cluster 2"},
        {12, 8, "node 12 (gateway 0 of cluster 3 = 11b): member 0 of cluster 2 = 10b"},
        {13, 5, "node 13 (gateway 1 of cluster 3): member 1 of cluster 1"},
        {2, -1, "node 2: no gateway, no wide-area lifeline"},
    };
    for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
        fake_topo ft;
        fake_topo_init(&ft, g[k].self, 4, (const int[]){4, 4, 4, 4});
        fake_env *fe = fake_new();
        satin_policy *p = fake_create(ops, &ft, fe, NULL);
        FAKE_DRAWS(fe, 0);
        ops->on_idle(p);
        int good = 1, wan_to = -1;
        /* Answer every request empty until it stops. */
        for (int i = 0; i < 10 && fe->seen < fe->nact; i++) {
            const fake_action *a = &fe->act[fe->seen++];
            good &= a->kind == FAKE_STEAL;
            if (a->flags & SATIN_STEAL_WAN) {
                wan_to = a->node;
                good &= a->flags == WL && fe->seen == fe->nact;
                fake_on_steal_reply(fe, ops, p, a->node, a->id, 0, a->flags);
            } else {
                fake_on_steal_reply(fe, ops, p, a->node, a->id, 0, a->flags);
            }
        }
        ok(good && wan_to == g[k].buddy && fe->seen == fe->nact, "%s", g[k].what);
        ops->destroy(p);
        free(fe);
    }

    /* wan_lifelines 1: a ring of clusters, one gateway. */
    fake_topo ft;
    fake_topo_init(&ft, 1, 4, (const int[]){4, 4, 4, 4});
    fake_env *fe = fake_new();
    satin_policy_params pp;
    satin_policy_params_default(&pp);
    pp.wan_lifelines = 1;
    satin_policy *p = fake_create(ops, &ft, fe, &pp);
    FAKE_DRAWS(fe, 0);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 0, SATIN_STEAL_SYNC, "wan_lifelines 1, node 1: random (0)");
    fake_on_steal_reply(fe, ops, p, 0, id, 0, SATIN_STEAL_SYNC);
    /* Node 1 = vertex 01b of its cluster: lifelines 0 and 3. */
    id = expect_steal(fe, 0, SL, "lifeline 0");
    fake_on_steal_reply(fe, ops, p, 0, id, 0, SL);
    id = expect_steal(fe, 3, SL, "lifeline 3");
    fake_on_steal_reply(fe, ops, p, 3, id, 0, SL);
    expect_none(fe, "quiesced, and node 1 is no gateway with wan_lifelines 1");
    ops->destroy(p);
    free(fe);
}

/* One cluster: exactly lifeline, never a wide-area request. */
static void one_cluster(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){8});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    FAKE_DRAWS(fe, 3);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 4, SATIN_STEAL_SYNC, "random (4)");
    fake_on_steal_reply(fe, ops, p, 4, id, 0, SATIN_STEAL_SYNC);
    static const int want[] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        id = expect_steal(fe, want[i], SL, "lifelines 1, 2, 4 as lifeline's");
        fake_on_steal_reply(fe, ops, p, want[i], id, 0, SL);
    }
    expect_none(fe, "quiesced: no gateway without another cluster");
    ops->destroy(p);
    free(fe);
}

/* A buddy remembers a wide-area thief like a local one and pushes to it. */
static void wide_area_thief(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 4, 4, (const int[]){4, 4, 4, 4});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_steal_request(p, 0, 0, 51, WL);
    expect_reply(fe, 0, 51, WL, 1, "a wide-area lifeline request, nothing queued: empty reply");
    ops->on_steal_request(p, 5, 5, 52, SL);
    expect_reply(fe, 5, 52, SL, 1, "a local one");
    is_i64(fake_stat(ops, p, "lifelines_noted"), 2, "both remembered");
    fe->queue = 4;
    ops->on_queue_length(p, 4);
    expect_push(fe, 5, "4 queued: node 5 (the last one) gets a record");
    expect_push(fe, 0, "and node 0 across the WAN");
    expect_none(fe, "nothing else");
    ops->destroy(p);
    free(fe);
}

/* wan_lifeline_jobs: a wide-area thief gets a bigger share than a local one. */
static void wide_area_loot(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 4, 4, (const int[]){4, 4, 4, 4});
    fake_env *fe = fake_new();
    satin_policy_params pp;
    satin_policy_params_default(&pp);
    pp.wan_lifeline_jobs = 4;
    pp.wan_lifeline_queue = 0; /* the loot alone */
    satin_policy *p = fake_create(ops, &ft, fe, &pp);

    fe->queue = 10;
    ops->on_steal_request(p, 0, 0, 61, WL);
    expect_reply(fe, 0, 61, WL, 1, "a wide-area lifeline request, 10 queued: the reply's 1 record");
    for (int i = 0; i < 3; i++)
        expect_push(fe, 0, "then pushes up to wan_lifeline_jobs 4 in all");
    expect_none(fe, "4 records crossed");
    is_i64(fe->queue, 6, "6 left");
    fe->queue = 3;
    ops->on_steal_request(p, 0, 0, 62, WL);
    expect_reply(fe, 0, 62, WL, 1, "3 queued: 1 in the reply");
    expect_push(fe, 0, "and one push: half of the 2 left at most");
    expect_none(fe, "no more");
    fe->queue = 10;
    ops->on_steal_request(p, 5, 5, 63, SL);
    expect_reply(fe, 5, 63, SL, 1, "a local lifeline request: the reply's record only");
    expect_none(fe, "no push to a local thief");
    is_i64(fake_stat(ops, p, "lifelines_noted"), 0, "nobody remembered (each got work)");

    fe->queue = 0;
    ops->on_steal_request(p, 0, 0, 64, WL);
    ops->on_steal_request(p, 5, 5, 65, SL);
    fake_skip(fe);
    fe->queue = 12;
    ops->on_queue_length(p, 12);
    expect_push(fe, 5, "12 queued, 2 thieves, shares of 4: node 5 (local) gets 1");
    for (int i = 0; i < 4; i++)
        expect_push(fe, 0, "node 0 (wide-area) gets 4");
    expect_none(fe, "5 pushes");
    ops->destroy(p);
    free(fe);
}

/* wan_lifeline_queue: nothing crosses the WAN from a short queue; the
 * wide-area thief is remembered and served once the queue is long enough,
 * while local thieves are served as usual. */
static void wide_area_threshold(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 4, 4, (const int[]){4, 4, 4, 4});
    fake_env *fe = fake_new();
    satin_policy_params pp;
    satin_policy_params_default(&pp);
    pp.wan_lifeline_queue = 5;
    satin_policy *p = fake_create(ops, &ft, fe, &pp);

    fe->queue = 3;
    ops->on_steal_request(p, 0, 0, 71, WL);
    expect_reply(fe, 0, 71, WL, 0, "3 queued, fewer than 5: an empty reply across the WAN");
    is_i64(fe->queue, 3, "nothing given");
    fe->queue = 0;
    ops->on_steal_request(p, 5, 5, 72, SL);
    expect_reply(fe, 5, 72, SL, 1, "a local lifeline request with nothing queued");
    is_i64(fake_stat(ops, p, "lifelines_noted"), 2, "both remembered");
    fe->queue = 4;
    ops->on_queue_length(p, 4);
    expect_push(fe, 5, "4 queued: the local thief gets its record");
    expect_none(fe, "the wide-area one waits for 5");
    fe->queue = 4;
    ops->on_queue_length(p, 4);
    expect_none(fe, "still 4: nothing");
    fe->queue = 6;
    ops->on_queue_length(p, 6);
    expect_push(fe, 0, "6 queued: now node 0 gets one");
    fe->queue = 9;
    ops->on_queue_length(p, 9);
    expect_none(fe, "and is forgotten");
    fe->queue = 7;
    ops->on_steal_request(p, 0, 0, 73, WL);
    expect_reply(fe, 0, 73, WL, 1, "7 queued: a wide-area request is answered with work");
    ops->destroy(p);
    free(fe);
}

int main(void)
{
    gateway_quiesces_then_crosses();
    gateways();
    one_cluster();
    wide_area_thief();
    wide_area_loot();
    wide_area_threshold();
    return done_testing();
}
