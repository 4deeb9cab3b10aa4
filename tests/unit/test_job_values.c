/* test_job_values.c - grid-wide values (job_values.c) and their spread
 * (value_spread.c) in virtual time: declarations and refusals, each
 * lattice's join, joins in every order with duplicates giving one state,
 * and a network of eight nodes in two clusters where updates travel late,
 * out of order, twice or not at all (then resent), which converges to the
 * join of every update with at most one message per wide-area link per
 * interval, and then falls silent. */
#include "../tap.h"
#include "engine/job_values.h"
#include "engine/value_spread.h"

#include <stdlib.h>
#include <string.h>

static char err[256];

static satin_value_decl decl(const char *name, satin_join_op op, uint32_t bound)
{
    satin_value_decl d = {.op = op, .bound = bound};
    snprintf(d.name, sizeof d.name, "%s", name);
    return d;
}

static void refuse_decl(const satin_value_decl *d, size_t n, const char *want, const char *what)
{
    err[0] = '\0';
    satin_job_values *v = satin_job_values_new(d, n, err, sizeof err);
    ok(v == NULL, "%s: refused", what);
    is_str(err, want, "%s: the reason", what);
    satin_job_values_destroy(&v);
}

static void declarations(void)
{
    satin_value_decl d[SATIN_VALUES_MAX + 1];
    for (int i = 0; i <= SATIN_VALUES_MAX; i++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", i);
        d[i] = decl(name, SATIN_JOIN_MIN, 0);
    }
    refuse_decl(d, SATIN_VALUES_MAX + 1, "17 values declared, at most 16", "17 values");
    satin_job_values *v = satin_job_values_new(d, SATIN_VALUES_MAX, err, sizeof err);
    ok(v != NULL && satin_job_values_count(v) == SATIN_VALUES_MAX, "16 values: declared");
    ok(v && satin_job_values_find(v, "v15") == 15 && satin_job_values_find(v, "v16") == -1,
       "found by name; an undeclared one is not");
    satin_job_values_destroy(&v);
    ok(v == NULL, "destroy clears the pointer");

    satin_value_decl one = decl("", SATIN_JOIN_MAX, 0);
    refuse_decl(&one, 1, "value 0: a name of 1 to 31 bytes", "an empty name");
    one = decl("x", (satin_join_op)9, 0);
    refuse_decl(&one, 1, "value x: unknown join 9", "an unknown join");
    one = decl("s", SATIN_JOIN_UNION, 0);
    refuse_decl(&one, 1, "value s: a bound of 0 (a set's is 1 to 4096, others have none)",
                "a set without a bound");
    one = decl("s", SATIN_JOIN_UNION, SATIN_VALUE_SET_MAX + 1);
    refuse_decl(&one, 1, "value s: a bound of 4097 (a set's is 1 to 4096, others have none)",
                "a set past the largest bound");
    one = decl("m", SATIN_JOIN_MIN, 3);
    refuse_decl(&one, 1, "value m: a bound of 3 (a set's is 1 to 4096, others have none)",
                "a bound on a scalar");
    satin_value_decl two[2] = {decl("best", SATIN_JOIN_MIN, 0), decl("best", SATIN_JOIN_MAX, 0)};
    refuse_decl(two, 2, "value best declared twice", "a name twice");
}

static void joins(void)
{
    satin_value_decl d[4] = {decl("tour", SATIN_JOIN_MIN, 0), decl("value", SATIN_JOIN_MAX, 0),
                             decl("found", SATIN_JOIN_OR, 0), decl("ids", SATIN_JOIN_UNION, 3)};
    satin_job_values *v = satin_job_values_new(d, 4, err, sizeof err);
    ok(v != NULL, "four values, one of each join: declared (%s)", v ? "" : err);
    if (!v)
        return;
    const satin_value_state *tour = satin_job_values_state(v, 0);
    ok(!tour->set, "a min value starts with nothing (bottom)");
    is_i64(satin_job_values_join_i64(v, "tour", SATIN_JOIN_MIN, 500, err, sizeof err), 1,
           "min: 500 into bottom grows it");
    is_i64(satin_job_values_join_i64(v, "tour", SATIN_JOIN_MIN, 700, err, sizeof err), 0,
           "min: 700 does not");
    is_i64(satin_job_values_join_i64(v, "tour", SATIN_JOIN_MIN, -3, err, sizeof err), 1,
           "min: -3 does");
    is_i64(tour->scalar, -3, "min: -3 held");
    is_i64(satin_job_values_join_i64(v, "value", SATIN_JOIN_MAX, -10, err, sizeof err), 1,
           "max: -10 into bottom grows it");
    is_i64(satin_job_values_join_i64(v, "value", SATIN_JOIN_MAX, -11, err, sizeof err), 0,
           "max: -11 does not");
    is_i64(satin_job_values_state(v, 1)->scalar, -10, "max: -10 held");
    is_i64(satin_job_values_join_i64(v, "found", SATIN_JOIN_OR, 0x5, err, sizeof err), 1,
           "or: 0x5 grows it");
    is_i64(satin_job_values_join_i64(v, "found", SATIN_JOIN_OR, 0x4, err, sizeof err), 0,
           "or: 0x4 is in it already");
    is_i64(satin_job_values_join_i64(v, "found", SATIN_JOIN_OR, (int64_t)0x8000000000000000ull,
                                     err, sizeof err), 1, "or: the top bit grows it");
    is_i64((int64_t)(uint64_t)satin_job_values_state(v, 2)->scalar,
           (int64_t)0x8000000000000005ull, "or: the bits of both");

    uint64_t a[] = {9, 20}, b[] = {3, 9}, c[] = {1}, bad[] = {4, 4}, many[] = {1, 2, 3, 4};
    satin_value_state u = {.op = SATIN_JOIN_UNION, .elems = a, .n = 2};
    is_i64(satin_job_values_join(v, "ids", &u, err, sizeof err), 1, "union: {9,20} grows it");
    u.elems = b;
    is_i64(satin_job_values_join(v, "ids", &u, err, sizeof err), 1, "union: {3,9} too");
    const satin_value_state *ids = satin_job_values_state(v, 3);
    ok(ids->n == 3 && ids->elems[0] == 3 && ids->elems[1] == 9 && ids->elems[2] == 20,
       "union: {3,9,20}");
    u.elems = c;
    u.n = 1;
    is_i64(satin_job_values_join(v, "ids", &u, err, sizeof err), 1,
           "union: {1} into a full set of 3 grows it (it keeps its 3 least)");
    ok(ids->n == 3 && ids->elems[0] == 1 && ids->elems[1] == 3 && ids->elems[2] == 9,
       "union: {1,3,9}");
    u.elems = a;
    u.n = 2;
    is_i64(satin_job_values_join(v, "ids", &u, err, sizeof err), 0,
           "union: {9,20} again changes nothing (20 is past the 3 least)");

    /* refusals change nothing */
    is_i64(satin_job_values_join_i64(v, "tours", SATIN_JOIN_MIN, 1, err, sizeof err), -1,
           "an undeclared name: refused");
    is_str(err, "no value named 'tours' was declared by the job", "and why");
    is_i64(satin_job_values_join_i64(v, "tour", SATIN_JOIN_MAX, 1000, err, sizeof err), -1,
           "max into a min value: refused");
    is_str(err, "value tour: an update of join 2 to a value of join 1", "and why");
    u.elems = many;
    u.n = 4;
    is_i64(satin_job_values_join(v, "ids", &u, err, sizeof err), -1,
           "an update of 4 elements to a set of 3: refused");
    is_str(err, "value ids: an update of 4 elements to a set of at most 3", "and why");
    u.elems = bad;
    u.n = 2;
    is_i64(satin_job_values_join(v, "ids", &u, err, sizeof err), -1,
           "an update with an element twice: refused");
    is_str(err, "value ids: an update whose elements are not sorted and distinct (element 1)",
           "and why");
    is_i64(satin_job_values_join_i64(v, "ids", SATIN_JOIN_UNION, 1, err, sizeof err), -1,
           "a scalar to a set: refused");
    ok(tour->scalar == -3 && ids->n == 3 && ids->elems[0] == 1 && ids->elems[2] == 9,
       "after the refusals: the states as they were");
    satin_job_values_destroy(&v);
}

/* ---- every order, with duplicates ------------------------------------------ */

#define UPDATES 6
#define SET_BOUND 5

typedef struct update {
    int value;                 /* 0 min, 1 max, 2 or, 3 union */
    int64_t scalar;
    uint64_t elems[4];
    uint32_t n;
} update;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const char *const value_names[4] = {"lo", "hi", "bits", "set"};
static satin_job_values *four_values(void)
{
    satin_value_decl d[4] = {decl("lo", SATIN_JOIN_MIN, 0), decl("hi", SATIN_JOIN_MAX, 0),
                             decl("bits", SATIN_JOIN_OR, 0), decl("set", SATIN_JOIN_UNION, SET_BOUND)};
    return satin_job_values_new(d, 4, err, sizeof err);
}

static update random_update(void)
{
    update u = {.value = (int)(rnd() % 4)};
    u.scalar = (int64_t)(rnd() % 2001) - 1000;
    if (u.value == 2)
        u.scalar = (int64_t)(1ull << (rnd() % 64));
    if (u.value == 3) {
        u.n = 1 + (uint32_t)(rnd() % 4);
        uint64_t x = rnd() % 10;
        for (uint32_t k = 0; k < u.n; k++) {
            u.elems[k] = x;
            x += 1 + rnd() % 7;
        }
    }
    return u;
}

static int apply(satin_job_values *v, const update *u)
{
    satin_value_state s = {.op = (satin_join_op)(u->value + 1), .set = 1, .scalar = u->scalar,
                           .elems = (uint64_t *)u->elems, .n = u->n};
    return satin_job_values_join(v, value_names[u->value], &s, err, sizeof err);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The join of updates, computed the plain way: min, max, or over all of
 * them, and the SET_BOUND least of their elements. */
static int matches_plain(const satin_job_values *v, const update *us, size_t n)
{
    int have[2] = {0, 0};
    int64_t lo = 0, hi = 0;
    uint64_t bits = 0, *all = malloc((n * 4 + 1) * sizeof *all);
    size_t nall = 0;
    for (size_t i = 0; i < n; i++) {
        const update *u = &us[i];
        if (u->value == 0 && (!have[0] || u->scalar < lo))
            lo = u->scalar, have[0] = 1;
        if (u->value == 1 && (!have[1] || u->scalar > hi))
            hi = u->scalar, have[1] = 1;
        if (u->value == 2)
            bits |= (uint64_t)u->scalar;
        for (uint32_t k = 0; u->value == 3 && k < u->n; k++)
            all[nall++] = u->elems[k];
    }
    qsort(all, nall, sizeof *all, cmp_u64);
    size_t distinct = 0;
    for (size_t i = 0; i < nall; i++)
        if (distinct == 0 || all[distinct - 1] != all[i])
            all[distinct++] = all[i];
    if (distinct > SET_BOUND)
        distinct = SET_BOUND;
    const satin_value_state *s0 = satin_job_values_state(v, 0), *s1 = satin_job_values_state(v, 1),
                            *s2 = satin_job_values_state(v, 2), *s3 = satin_job_values_state(v, 3);
    if (s0->set != have[0] || (have[0] && s0->scalar != lo) || s1->set != have[1] ||
        (have[1] && s1->scalar != hi)) {
        free(all);
        return 0;
    }
    int same = (uint64_t)s2->scalar == bits && s3->n == distinct &&
               (distinct == 0 || memcmp(s3->elems, all, distinct * sizeof *all) == 0);
    free(all);
    return same;
}

static void permute_and_check(update *us, size_t k, size_t n, const satin_job_values *first,
                              long *orders, long *bad)
{
    if (k == n) {
        satin_job_values *v = four_values();
        /* each update twice: once in this order, once again at the end */
        for (size_t i = 0; i < n; i++)
            apply(v, &us[i]);
        for (size_t i = 0; i < n; i++)
            apply(v, &us[i]);
        (*orders)++;
        if (!satin_job_values_equal(v, first))
            (*bad)++;
        satin_job_values_destroy(&v);
        return;
    }
    for (size_t i = k; i < n; i++) {
        update t = us[k];
        us[k] = us[i];
        us[i] = t;
        permute_and_check(us, k + 1, n, first, orders, bad);
        us[i] = us[k];
        us[k] = t;
    }
}

static void every_order(void)
{
    long orders = 0, bad = 0, plain_bad = 0;
    for (int round = 0; round < 20; round++) {
        update us[UPDATES];
        for (int i = 0; i < UPDATES; i++)
            us[i] = random_update();
        satin_job_values *first = four_values();
        for (int i = 0; i < UPDATES; i++)
            apply(first, &us[i]);
        plain_bad += !matches_plain(first, us, UPDATES);
        permute_and_check(us, 0, UPDATES, first, &orders, &bad);
        satin_job_values_destroy(&first);
    }
    is_i64(orders, 20 * 720, "20 sets of 6 updates, each in all 720 orders, each update twice");
    is_i64(bad, 0, "every order gives the one state");
    is_i64(plain_bad, 0, "and it is the plain min, max, or and least-5 union of the updates");
}

/* ---- a network in virtual time ------------------------------------------------ */

#define NODES 8                  /* a0..a3 in cluster A, b0..b3 in B */
#define MS 1000000LL
#define WAN_INTERVAL (100 * MS)
#define MAX_MSGS 200000

typedef struct msg {
    int64_t at;
    int from, to;
    satin_job_values *states;    /* the sender's states of the carried values at sending */
    uint32_t values;
} msg;

typedef struct net {
    satin_job_values *vals[NODES];
    satin_value_spread *spread[NODES];
    msg *q;
    size_t nq;
    int64_t now;
    long sent, wan_sent, dropped, duplicated;
    int64_t last_wan[NODES][NODES];
    long wan_too_soon;
    int lossy;
} net;

static int cluster_of(int node) { return node / 4; }

static void push(net *n, msg m)
{
    if (n->nq < MAX_MSGS)
        n->q[n->nq++] = m;
}

static satin_job_values *copy_values(const satin_job_values *v)
{
    satin_job_values *c = four_values();
    satin_job_values_merge(c, v);
    return c;
}

static void send_due(net *n, int node)
{
    int peer;
    uint32_t values;
    while (satin_value_spread_next(n->spread[node], n->now, &peer, &values)) {
        int wan = cluster_of(node) != cluster_of(peer);
        n->sent++;
        if (wan) {
            n->wan_sent++;
            if (n->last_wan[node][peer] >= 0 && n->now - n->last_wan[node][peer] < WAN_INTERVAL)
                n->wan_too_soon++;
            n->last_wan[node][peer] = n->now;
        }
        int64_t delay = wan ? 10 * MS + (int64_t)(rnd() % (40 * MS)) : (int64_t)(rnd() % MS);
        msg m = {.at = n->now + delay, .from = node, .to = peer, .values = values,
                 .states = copy_values(n->vals[node])};
        if (n->lossy && rnd() % 10 == 0) {
            /* Lost: the sender finds out (as a neighbour's death
             * tells it) and sends that neighbour its values again. */
            n->dropped++;
            satin_job_values_destroy(&m.states);
            satin_value_spread_resend_to(n->spread[node], peer, values);
            continue;
        }
        if (rnd() % 8 == 0) {
            msg twice = m;
            twice.at += (int64_t)(rnd() % (50 * MS));
            twice.states = copy_values(m.states);
            push(n, twice);
            n->duplicated++;
        }
        push(n, m);
    }
}

static void deliver(net *n, msg *m)
{
    satin_job_values *v = n->vals[m->to];
    uint32_t grew = 0;
    for (int i = 0; i < 4; i++) {
        if (!(m->values & (1u << i)))
            continue;
        int r = satin_job_values_join(v, value_names[i], satin_job_values_state(m->states, (size_t)i),
                                      err, sizeof err);
        if (r > 0)
            grew |= 1u << i;
    }
    satin_value_spread_grew(n->spread[m->to], grew, m->from);
    satin_job_values_destroy(&m->states);
}

static int64_t next_event(const net *n, size_t *which)
{
    int64_t t = INT64_MAX;
    for (size_t i = 0; i < n->nq; i++)
        if (n->q[i].at < t) {
            t = n->q[i].at;
            *which = i;
        }
    return t;
}

static int64_t next_deadline(const net *n)
{
    int64_t t = INT64_MAX;
    for (int i = 0; i < NODES; i++) {
        int64_t d = satin_value_spread_deadline(n->spread[i], n->now);
        if (d < t)
            t = d;
    }
    return t;
}

/* Runs until nothing is queued or due; returns the time it fell quiet. */
static void run_until_quiet(net *n, const update *updates, const int64_t *update_at,
                            const int *update_node, size_t nupdates)
{
    size_t next_update = 0;
    for (;;) {
        size_t which = 0;
        int64_t t_msg = next_event(n, &which), t_dl = next_deadline(n);
        int64_t t_up = next_update < nupdates ? update_at[next_update] : INT64_MAX;
        int64_t t = t_msg < t_dl ? t_msg : t_dl;
        if (t_up < t)
            t = t_up;
        if (t == INT64_MAX)
            return;
        if (t > n->now)
            n->now = t;
        if (t == t_up) {
            int node = update_node[next_update];
            int r = apply(n->vals[node], &updates[next_update]);
            if (r > 0)
                satin_value_spread_grew(n->spread[node], 1u << updates[next_update].value, -1);
            next_update++;
        } else if (t == t_msg) {
            msg m = n->q[which];
            n->q[which] = n->q[--n->nq];
            deliver(n, &m);
        }
        for (int i = 0; i < NODES; i++)
            send_due(n, i);
    }
}

static void network(int lossy)
{
    net n = {.lossy = lossy};
    n.q = calloc(MAX_MSGS, sizeof *n.q);
    for (int i = 0; i < NODES; i++) {
        n.vals[i] = four_values();
        n.spread[i] = satin_value_spread_new(WAN_INTERVAL);
        for (int j = 0; j < NODES; j++)
            n.last_wan[i][j] = -1;
    }
    /* The job's neighbours: records went a0->a1->a2->a3 inside A, a0->b0
     * and a2->b2 across, b0->b1->b3 and b2 inside B; every link both ways. */
    static const int edges[][2] = {{0, 1}, {1, 2}, {2, 3}, {0, 4}, {2, 6}, {4, 5}, {5, 7}, {4, 6}};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
        int a = edges[e][0], b = edges[e][1], wan = cluster_of(a) != cluster_of(b);
        satin_value_spread_link(n.spread[a], b, wan, 0);
        satin_value_spread_link(n.spread[b], a, wan, 0);
    }
    enum { NUP = 400 };
    update ups[NUP];
    int64_t at[NUP];
    int node[NUP];
    for (int i = 0; i < NUP; i++) {
        ups[i] = random_update();
        at[i] = (int64_t)i * 5 * MS;  /* a flood: an update every 5 ms for 2 s */
        node[i] = (int)(rnd() % NODES);
    }
    run_until_quiet(&n, ups, at, node, NUP);

    int same = 0, plain = 0;
    for (int i = 0; i < NODES; i++) {
        same += satin_job_values_equal(n.vals[i], n.vals[0]);
        plain += matches_plain(n.vals[i], ups, NUP);
    }
    const char *how = lossy ? "late, reordered, duplicated and lost (then resent)"
                            : "late, reordered and duplicated";
    is_i64(same, NODES, "%s: all 8 nodes hold one state", how);
    is_i64(plain, NODES, "%s: the join of all 400 updates", how);
    is_i64(n.wan_too_soon, 0, "%s: no wide-area link sent twice within its 100 ms", how);
    /* 3 s of virtual time at most (2 s of updates, the last batches
     * after): 30 intervals on each of the 4 directed wide-area links. */
    ok(n.wan_sent <= 4 * 31, "%s: %ld wide-area messages for 400 updates (at most 124)", how,
       n.wan_sent);
    ok(n.now < 3000 * MS, "%s: quiet %.0f ms after the first update", how, (double)n.now / MS);
    if (lossy)
        ok(n.dropped > 0, "%s: %ld messages were lost on the way", how, n.dropped);
    ok(n.duplicated > 0, "%s: %ld delivered twice", how, n.duplicated);
    int64_t quiet = n.now;
    long sent = n.sent;
    for (int i = 0; i < NODES; i++)
        send_due(&n, i);
    ok(n.sent == sent && n.nq == 0 && next_deadline(&n) == INT64_MAX,
       "%s: once converged nothing more is sent or due (at %.0f ms)", how, (double)quiet / MS);
    diag("%s: %ld messages, %ld across the wide area, %ld lost, %ld twice", how, n.sent, n.wan_sent,
         n.dropped, n.duplicated);
    for (int i = 0; i < NODES; i++) {
        satin_job_values_destroy(&n.vals[i]);
        satin_value_spread_destroy(&n.spread[i]);
    }
    free(n.q);
}

static void spread_rules(void)
{
    satin_value_spread *s = satin_value_spread_new(100);
    satin_value_spread_link(s, 1, 0, 0);
    satin_value_spread_link(s, 2, 1, 0);
    int peer;
    uint32_t values;
    ok(!satin_value_spread_next(s, 0, &peer, &values), "nothing grew: nothing to send");
    is_i64(satin_value_spread_deadline(s, 0), INT64_MAX, "and nothing due");
    satin_value_spread_grew(s, 0x3, 1);
    ok(satin_value_spread_next(s, 5, &peer, &values) && peer == 2 && values == 0x3,
       "grown from neighbour 1: goes to 2 only (no echo), the first wide-area message at once");
    ok(!satin_value_spread_next(s, 5, &peer, &values), "and not back to 1");
    satin_value_spread_grew(s, 0x4, -1);
    ok(satin_value_spread_next(s, 6, &peer, &values) && peer == 1 && values == 0x4,
       "grown here: the cluster neighbour at once");
    ok(!satin_value_spread_next(s, 6, &peer, &values), "the wide-area one waits");
    is_i64(satin_value_spread_deadline(s, 6), 105, "until its interval is over (5 + 100)");
    satin_value_spread_grew(s, 0x8, -1);
    ok(satin_value_spread_next(s, 7, &peer, &values) && peer == 1 && values == 0x8,
       "a second growth: the cluster neighbour at once again");
    ok(!satin_value_spread_next(s, 104, &peer, &values), "the wide area not at 104");
    ok(satin_value_spread_next(s, 105, &peer, &values) && peer == 2 && values == 0xC,
       "at 105: one message with both values grown meanwhile");
    satin_value_spread_link(s, 3, 1, 0x1);
    ok(satin_value_spread_next(s, 105, &peer, &values) && peer == 3 && values == 0x1,
       "a new neighbour gets what it was linked with");
    satin_value_spread_link(s, 3, 1, 0x2);
    is_i64((int64_t)satin_value_spread_links(s), 3, "linking it again keeps one link");
    ok(satin_value_spread_pending(s, 3) == 0,
       "and adds nothing to send: a known neighbour hears what grows, not every record's values");
    satin_value_spread_resend_to(s, 3, 0x2);
    ok(satin_value_spread_pending(s, 3) == 0x2, "a resend to it does");
    satin_value_spread_unlink(s, 3);
    ok(!satin_value_spread_next(s, 1000, &peer, &values) && satin_value_spread_links(s) == 2,
       "unlinked: its pending value goes nowhere");
    satin_value_spread_resend(s, 0x10);
    int got1 = 0, got2 = 0;
    while (satin_value_spread_next(s, 1000, &peer, &values))
        *(peer == 1 ? &got1 : &got2) = (int)values;
    ok(got1 == 0x10 && got2 == 0x10, "a resend goes to every neighbour");
    satin_value_spread_destroy(&s);
    ok(s == NULL, "destroy clears the pointer");
}

int main(void)
{
    declarations();
    joins();
    every_order();
    spread_rules();
    network(0);
    network(1);
    return done_testing();
}
