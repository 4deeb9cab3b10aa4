/*
 * test_engine.c - the node engine alone, in virtual time: a scripted
 * environment records every message the engine sends and every call it
 * makes on the pool, and the test plays the other nodes by hand.
 *
 * Node 0 of two clusters {0,1} {2,3} runs RS unless a test says otherwise.
 */
#include "engine_fake.h"

#include <math.h>

/* An idle node steals; nobody answers; 5 s later it counts as an empty
 * reply, the policy backs off, and the next steal goes out on the timer. */
static void test_steal_timeout(void)
{
    fake f;
    satin_engine *e = make(&f, "rs");
    f.idle = 1;
    satin_engine_on_dry(e, 0);
    is_i64(f.nout, 1, "timeout: a dry node sends one steal request");
    is_i64(f.out[0].m->type, SATIN_MSG_STEAL, "timeout: it is a STEAL");
    ok(f.out[0].to >= 1 && f.out[0].to <= 3, "timeout: to another node (%d)", f.out[0].to);
    is_i64(f.out[0].m->thief, 0, "timeout: for ourselves");
    is_i64(satin_engine_next_deadline(e), 5 * S + 1, "timeout: the next deadline is the time-out");
    forget_sent(&f);
    satin_engine_on_tick(e, 5 * S);
    is_i64(kit_counter(e, "steal_timeouts"), 0, "timeout: not at exactly 5 s");
    satin_engine_on_tick(e, 5 * S + 1);
    is_i64(kit_counter(e, "steal_timeouts"), 1, "timeout: counted just after 5 s");
    is_i64(f.warns, 1, "timeout: one warning");
    ok(strstr(f.last_log, "got no reply; counted as empty") != NULL, "timeout: it says so: %s",
       f.last_log);
    /* RS: one failure in a round of 3 candidates retries at once. */
    is_i64(f.nout, 1, "timeout: the policy steals again");
    is_i64(satin_engine_busy(e), 1, "timeout: one request in flight again");
    forget_sent(&f);
    satin_engine_destroy(&e);
}

/* A thief gets the oldest record; its result completes the record; results
 * from the wrong node, or for records never given, are refused. */
static void test_give_and_result(void)
{
    fake f;
    satin_engine *e = make(&f, "rs");
    rec a = {.arg = 30}, b = {.arg = 29};
    f.queue[0] = &a, f.queue[1] = &b, f.nqueue = 2, f.active = 1;
    satin_msg *m = steal_from(2, 77, SATIN_STEAL_SYNC | SATIN_STEAL_WAN);
    deliver(e, 10 * MS, m);
    is_i64(f.nout, 1, "give: one reply");
    satin_msg *r = f.out[0].m;
    ok(f.out[0].to == 2 && r->type == SATIN_MSG_STEAL_REPLY && r->request_id == 77,
       "give: a STEAL_REPLY to the thief for its request");
    is_i64((int64_t)r->njobrecs, 1, "give: with one record");
    int64_t arg;
    memcpy(&arg, r->jobrecs[0].arg, sizeof arg);
    ok(arg == 30 && r->jobrecs[0].owner == 0 && strcmp(r->jobrecs[0].kind, "fib") == 0,
       "give: the oldest record, owned by us");
    uint64_t id = r->jobrecs[0].record_id;
    forget_sent(&f);

    satin_msg *res = from(3, SATIN_MSG_JOB_RESULT);
    res->owner = 0, res->record_id = id, res->status = SATIN_STATUS_OK;
    int64_t v = 832040;
    satin_msg_set_data(res, &v, sizeof v);
    deliver(e, 11 * MS, res);
    ok(f.bad == 1 && strcmp(f.last_bad, "a result for a job given to another node") == 0 &&
           !a.completed,
       "give: a result from a node that does not hold the record is refused");
    res = from(2, SATIN_MSG_JOB_RESULT);
    res->owner = 0, res->record_id = id, res->status = SATIN_STATUS_OK;
    satin_msg_set_data(res, &v, sizeof v);
    satin_kvlist_add_i64(&res->stats, "jobs_run", 12);
    deliver(e, 12 * MS, res);
    ok(a.completed == 1 && a.ok && a.value == 832040, "give: the holder's result completes it");
    res = from(2, SATIN_MSG_JOB_RESULT);
    res->owner = 0, res->record_id = id, res->status = SATIN_STATUS_OK;
    satin_msg_set_data(res, &v, sizeof v);
    deliver(e, 13 * MS, res);
    ok(f.bad == 2 && strcmp(f.last_bad, "a result for a job record we never gave away") == 0 &&
           a.completed == 1,
       "give: a second result for it counts as bad and completes nothing");
    is_i64(kit_counter(e, "jobs_given"), 1, "give: jobs_given");
    satin_engine_destroy(&e);
}

/* Records that come from other nodes: refused above the size limit or
 * when the pool cannot start them, else run as stand-ins whose result
 * goes back to the owner; a JOB_CANCEL reaches the stand-in. */
static void test_standins(void)
{
    fake f;
    satin_engine *e = make(&f, "crs");
    char big[100] = {0};
    int64_t arg = 5;
    satin_msg *p = from(1, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, 1, 9, 0, "fib", 8, big, sizeof big);
    deliver(e, MS, p);
    ok(f.nout == 2 && f.out[0].to == 1 && f.out[0].m->type == SATIN_MSG_JOB_RESULT &&
           f.out[0].m->status == SATIN_STATUS_ERROR &&
           strcmp(f.out[0].m->error, "job record above the record size limit") == 0 &&
           f.out[0].m->record_id == 9,
       "standin: a record above max_record gets an error result");
    ok(f.out[1].m->type == SATIN_MSG_PUSH_ACK, "standin: the push is acknowledged all the same");
    is_i64(f.starts, 0, "standin: nothing started");
    forget_sent(&f);

    f.refuse_start = 1;
    p = from(1, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, 1, 10, 0, "nosuch", 8, &arg, sizeof arg);
    deliver(e, 2 * MS, p);
    ok(f.out[0].m->status == SATIN_STATUS_ERROR &&
           strcmp(f.out[0].m->error, "node a0 has no job kind 'nosuch'") == 0,
       "standin: the pool's reason goes back when it cannot start one");
    forget_sent(&f);

    f.refuse_start = 0;
    p = from(2, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, 2, 11, 0, "fib", 8, &arg, sizeof arg);
    deliver(e, 3 * MS, p);
    ok(f.starts == 1 && satin_engine_running(e) == 1, "standin: a good record starts");
    forget_sent(&f);
    satin_msg *c = from(1, SATIN_MSG_JOB_CANCEL);
    c->owner = 1;
    satin_msg_add_record_id(c, 11);
    deliver(e, 4 * MS, c);
    is_i64(f.cancels, 0, "standin: a cancel from another node than the owner does nothing");
    c = from(2, SATIN_MSG_JOB_CANCEL);
    c->owner = 2;
    satin_msg_add_record_id(c, 11);
    deliver(e, 5 * MS, c);
    is_i64(f.cancels, 1, "standin: the owner's cancel reaches it");
    int64_t v = 5;
    satin_engine_outcome o = {.ok = 1, .error = "", .data = &v, .len = sizeof v, .run = 15};
    satin_engine_on_standin_done(e, 6 * MS, f.standin_handles[0], &o);
    int64_t run = 0;
    ok(f.nout == 1 && f.out[0].to == 2 && f.out[0].m->record_id == 11 &&
           f.out[0].m->status == SATIN_STATUS_OK && f.out[0].m->data_len == 8 &&
           satin_kvlist_i64(&f.out[0].m->stats, "jobs_run", &run) == 0 && run == 15,
       "standin: its result and work go home");
    is_i64(satin_engine_running(e), 0, "standin: none running after");
    free(f.standin_handles[0]);
    forget_sent(&f);
    satin_engine_destroy(&e);
}

/* The dry edge met a moment with work queued: the policy heard nothing.
 * The idle re-check tells it 2 ms later once the node is really idle. */
static void test_idle_recheck(void)
{
    fake f;
    satin_engine *e = make(&f, "rs");
    f.idle = 0;
    satin_engine_on_dry(e, 0);
    is_i64(f.nout, 0, "recheck: a dry edge while not idle sends nothing");
    f.idle = 1;
    int64_t d = satin_engine_next_deadline(e);
    is_i64(d, 2 * MS + 1, "recheck: the engine wants to look again after 2 ms");
    satin_engine_on_tick(e, d);
    ok(f.nout == 1 && f.out[0].m->type == SATIN_MSG_STEAL, "recheck: then the policy steals");
    is_i64(kit_counter(e, "idle_events"), 1, "recheck: one idle event");
    forget_sent(&f);
    /* RP waits for work: no re-check. */
    satin_engine_destroy(&e);
    e = make(&f, "rp");
    f.idle = 1;
    satin_engine_on_dry(e, 0);
    is_i64(satin_engine_next_deadline(e), INT64_MAX, "recheck: RP's idle node sleeps");
    is_i64(satin_engine_spawn_reserve(e), 6, "recheck: RP keeps rp_threshold + 2 records queued");
    satin_engine_destroy(&e);
}

/* An empty reply says "poll again soon" (VICTIM_BUSY) only when jobs run
 * here; an idle node's empty reply lets the thief back off. */
static void test_victim_busy(void)
{
    fake f;
    satin_engine *e = make(&f, "rs");
    f.active = 0;
    satin_msg *m = steal_from(1, 1, SATIN_STEAL_SYNC);
    deliver(e, MS, m);
    ok(f.nout == 1 && f.out[0].m->njobrecs == 0 && !(f.out[0].m->flags & SATIN_STEAL_VICTIM_BUSY),
       "busy: an idle node: an empty reply without VICTIM_BUSY");
    forget_sent(&f);
    f.active = 1;
    m = steal_from(1, 2, SATIN_STEAL_SYNC);
    deliver(e, 2 * MS, m);
    ok(f.nout == 1 && (f.out[0].m->flags & SATIN_STEAL_VICTIM_BUSY),
       "busy: a node running a job: VICTIM_BUSY");
    forget_sent(&f);
    satin_engine_destroy(&e);
}

/* cancel_job tells exactly the nodes holding the job's records; a drained
 * engine steals no more. */
static void test_cancel_and_drain(void)
{
    fake f;
    satin_engine *e = make(&f, "rs");
    rec a = {.arg = 1}, b = {.arg = 2}, c = {.arg = 3};
    f.queue[0] = &a, f.queue[1] = &b, f.queue[2] = &c, f.nqueue = 3;
    for (int thief = 1; thief <= 2; thief++) {
        deliver(e, MS, steal_from(thief, 5, 0));
    }
    forget_sent(&f);
    satin_engine_cancel_job(e, 2 * MS, (void *)0x2);
    is_i64(f.nout, 0, "cancel: another job's cancel sends nothing");
    satin_engine_cancel_job(e, 2 * MS, (void *)0x1);
    ok(f.nout == 2 && f.out[0].to == 1 && f.out[1].to == 2 &&
           f.out[0].m->type == SATIN_MSG_JOB_CANCEL && f.out[0].m->nrecord_ids == 1,
       "cancel: one JOB_CANCEL to each holder");
    forget_sent(&f);
    satin_engine_drain(e);
    int leaving = 0;
    for (int i = 0; i < f.nout; i++)
        leaving += f.out[i].m->type == SATIN_MSG_HEARTBEAT &&
                   f.out[i].m->flags == SATIN_HEARTBEAT_LEAVING && f.out[i].to == i + 1;
    ok(f.nout == 3 && leaving == 3, "drain: every peer is told it is leaving");
    forget_sent(&f);
    f.idle = 1;
    satin_engine_on_dry(e, 3 * MS);
    satin_engine_on_tick(e, 10 * MS);
    is_i64(f.nout, 0, "drain: a stopping node asks for no work");
    satin_engine_destroy(&e);
}

/* The statistics round: a request is answered with the node's counters;
 * replies are kept per (job, phase) until forgotten. */
static void test_stats_round(void)
{
    fake f;
    satin_engine *e = make(&f, "cls");
    satin_engine_request_stats(e, 0, 42, 0);
    is_i64(f.nout, 3, "stats: a request to each of the 3 peers");
    forget_sent(&f);
    satin_msg *q = from(3, SATIN_MSG_STATS_REQUEST);
    q->job_id = 7, q->phase = 1, q->request_id = 99;
    deliver(e, MS, q);
    int64_t v = -1;
    ok(f.nout == 1 && f.out[0].to == 3 && f.out[0].m->type == SATIN_MSG_STATS_REPLY &&
           f.out[0].m->job_id == 7 && f.out[0].m->request_id == 99 &&
           satin_kvlist_i64(&f.out[0].m->stats, "steal_attempts_lan", &v) == 0 && v == 0 &&
           satin_kvlist_find(&f.out[0].m->stats, "policy.loads_received") != NULL,
       "stats: answered with the engine's and the policy's counters");
    forget_sent(&f);
    satin_msg *r = from(2, SATIN_MSG_STATS_REPLY);
    r->job_id = 42, r->phase = 0;
    satin_kvlist_add_i64(&r->stats, "jobs_given", 3);
    deliver(e, 2 * MS, r);
    satin_kvlist out[4];
    for (int i = 0; i < 4; i++)
        satin_kvlist_init(&out[i]);
    is_i64(satin_engine_collected(e, 42, 0, out), 1, "stats: one reply collected");
    ok(satin_kvlist_i64(&out[2], "jobs_given", &v) == 0 && v == 3, "stats: under its node");
    is_i64(satin_engine_collected(e, 42, 1, out), 0, "stats: none for the other phase");
    satin_engine_forget(e, 42);
    is_i64(satin_engine_collected(e, 42, 0, out), 0, "stats: forgotten");
    for (int i = 0; i < 4; i++)
        satin_kvlist_free(&out[i]);
    satin_engine_destroy(&e);
}

/* A cancel follows a job's records wherever they went: node 0 holds a
 * record of node 1's job (a stand-in) and gave a record of it on to node
 * 2; node 1's JOB_CANCEL stops the stand-in and goes on to node 2.  And a
 * job that stops here (fails) tells its holders by itself, once. */
static void test_cancel_follows(void)
{
    fake f;
    satin_engine *e = make(&f, "rs");
    int64_t arg = 9;
    satin_msg *p = from(1, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, 1, 40, 0, "fib", 8, &arg, sizeof arg);
    deliver(e, MS, p);
    forget_sent(&f);
    /* The stand-in spawned; a thief takes one of its records. */
    rec child = {.arg = 8, .job = (void *)0x51};
    f.queue[0] = &child, f.nqueue = 1;
    deliver(e, 2 * MS, steal_from(2, 3, 0));
    forget_sent(&f);
    satin_msg *c = from(1, SATIN_MSG_JOB_CANCEL);
    c->owner = 1;
    satin_msg_add_record_id(c, 40);
    deliver(e, 3 * MS, c);
    is_i64(f.cancels, 1, "follow: the stand-in is cancelled");
    ok(f.nout == 1 && f.out[0].to == 2 && f.out[0].m->type == SATIN_MSG_JOB_CANCEL &&
           f.out[0].m->owner == 0 && f.out[0].m->nrecord_ids == 1,
       "follow: the cancel goes on to the node holding its record");
    forget_sent(&f);
    f.stopped_job = (void *)0x51;
    satin_engine_on_tick(e, 10 * S);
    is_i64(f.nout, 0, "follow: the holder is told once, not again by the scan");
    satin_engine_destroy(&e);   /* hands the cancelled stand-in back (f_release) */

    /* A local job fails: the scan tells the holders of its records. */
    e = make(&f, "rs");
    rec a = {.arg = 1};
    f.queue[0] = &a, f.nqueue = 1;
    deliver(e, MS, steal_from(3, 4, 0));
    forget_sent(&f);
    int64_t d = satin_engine_next_deadline(e);
    ok(d > MS && d <= MS + 100 * MS, "scan: a record given away is checked within 100 ms");
    satin_engine_on_tick(e, d);
    is_i64(f.nout, 0, "scan: nothing while its job runs");
    f.stopped_job = (void *)0x1;   /* the fake pool's records belong to job 0x1 */
    d = satin_engine_next_deadline(e);
    satin_engine_on_tick(e, d);
    ok(f.nout == 1 && f.out[0].to == 3 && f.out[0].m->type == SATIN_MSG_JOB_CANCEL,
       "scan: once it failed, its holder is told to stop");
    forget_sent(&f);
    satin_engine_on_tick(e, d + S);
    is_i64(f.nout, 0, "scan: and only once");
    satin_engine_destroy(&e);
}

/* A STEAL_REPLY from `victim` to our request `id`, with `njobs` records of its own. */
static satin_msg *reply_from(int victim, uint64_t id, int njobs)
{
    satin_msg *m = from(victim, SATIN_MSG_STEAL_REPLY);
    m->request_id = id;
    m->victim = (uint32_t)victim;
    int64_t arg = 20;
    for (int i = 0; i < njobs; i++)
        satin_msg_add_jobrec(m, (uint32_t)victim, 100 + (uint64_t)i, 0, "fib", 8, &arg,
                             sizeof arg);
    return m;
}

/* The k-th message sent of `type` (0: the first), or NULL. */
static const sent *sent_of(const fake *f, int type, int k)
{
    for (int i = 0; i < f->nout; i++)
        if (f->out[i].m->type == type && k-- == 0)
            return &f->out[i];
    return NULL;
}

/* The names of the policy's counters among the node's, each followed by a space. */
static const char *policy_counters(satin_engine *e)
{
    static char names[256];
    satin_kvlist l;
    satin_kvlist_init(&l);
    satin_engine_counters(e, &l);
    names[0] = 0;
    for (size_t i = 0; i < l.n; i++)
        if (strncmp(l.items[i].name, "policy.", 7) == 0)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s ", l.items[i].name);
    satin_kvlist_free(&l);
    return names;
}

/* How a steal ends is counted once, by the engine: a success by the
 * victim's cluster, a time-out as a failure, and the reply that comes
 * after its time-out as late (its job runs all the same). */
static void test_counts_steal_outcomes(void)
{
    fake f;
    satin_engine *e = make(&f, "rs");
    f.idle = 1;
    satin_engine_on_dry(e, 0);
    const sent *s = sent_of(&f, SATIN_MSG_STEAL, 0);
    if (!ok(s != NULL, "outcomes: a dry node steals"))
        return;
    int victim = s->to, wan = kit_cluster_of[victim] != kit_cluster_of[0];
    uint64_t id = s->m->request_id;
    forget_sent(&f);
    f.idle = 0;
    deliver(e, MS, reply_from(victim, id, 1));
    is_i64(kit_counter(e, wan ? "steal_successes_wan" : "steal_successes_lan"), 1,
           "outcomes: a reply with a job is a success, %s", wan ? "wide-area" : "local");
    is_i64(kit_counter(e, wan ? "steal_successes_lan" : "steal_successes_wan"), 0,
           "outcomes: and not one of the other kind");
    is_i64(kit_counter(e, "steal_failures") + kit_counter(e, "late_replies"), 0,
           "outcomes: no failure, no late reply");
    ok(f.waits == 1 && f.last_wait_ns == MS && f.last_wait_wan == wan,
       "outcomes: the driver hears the synchronous steal's wait, 1 ms, and its class");

    f.idle = 1;
    satin_engine_on_dry(e, 2 * MS);
    s = sent_of(&f, SATIN_MSG_STEAL, 0);
    if (!ok(s != NULL, "outcomes: idle again: the next steal"))
        return;
    victim = s->to, id = s->m->request_id;
    forget_sent(&f);
    satin_engine_on_tick(e, 2 * MS + 5 * S + 1);
    is_i64(kit_counter(e, "steal_timeouts"), 1, "outcomes: it times out");
    is_i64(kit_counter(e, "steal_failures"), 1, "outcomes: counted as a failure");
    is_i64(f.waits, 2, "outcomes: a time-out's wait is heard too");
    is_i64(f.last_wait_ns, 5 * S + 1, "outcomes: from its request to the time-out");
    satin_kvlist counters;
    satin_kvlist_init(&counters);
    satin_engine_counters(e, &counters);
    double lan_s = -1, wan_s = -1;
    satin_kvlist_f64(&counters, "lan_wait_s", &lan_s);
    satin_kvlist_f64(&counters, "wan_wait_s", &wan_s);
    satin_kvlist_free(&counters);
    ok(fabs((lan_s + wan_s) * 1e9 - (double)f.waited_ns) < 1e3,
       "outcomes: the waits heard add up to lan_wait_s + wan_wait_s");
    f.idle = 0;
    deliver(e, 6 * S, reply_from(victim, id, 1));
    is_i64(kit_counter(e, "late_replies"), 1, "outcomes: its reply is late");
    is_i64(kit_counter(e, "steal_successes_lan") + kit_counter(e, "steal_successes_wan"), 1,
           "outcomes: and no success");
    is_i64(kit_counter(e, "jobs_received"), 2, "outcomes: its job runs all the same");
    is_i64(kit_counter(e, "steal_attempts_lan") + kit_counter(e, "steal_attempts_wan"), 3,
           "outcomes: 3 requests sent (the time-out's retry too)");
    is_str(policy_counters(e), "policy.backoffs policy.backoffs_cut ",
           "outcomes: RS reports only its back-offs; the engine counts the rest");
    forget_sent(&f);
    satin_engine_destroy(&e);
}

/* CHS on node 0, root of {0, 1}: its own cancelled steal and the cancel it
 * passes on are told apart; the reply to the cancelled one is late, not a
 * steal. */
static void test_counts_chs_cancels(void)
{
    fake f;
    satin_engine *e = make(&f, "chs");
    rec a = {.arg = 7};
    f.queue[0] = &a, f.nqueue = 1, f.active = 1;
    deliver(e, MS, steal_from(2, 5, SATIN_STEAL_SYNC | SATIN_STEAL_WAN));
    uint64_t given = f.out[0].m->jobrecs[0].record_id;
    forget_sent(&f);
    f.idle = 1;
    satin_engine_on_dry(e, 2 * MS);
    const sent *s = sent_of(&f, SATIN_MSG_STEAL, 0);
    if (!ok(s != NULL && s->to == 1, "chs counts: idle root 0 asks its child 1"))
        return;
    uint64_t id = s->m->request_id;
    forget_sent(&f);
    f.idle = 0;
    satin_msg *res = from(2, SATIN_MSG_JOB_RESULT);
    res->owner = 0, res->record_id = given, res->status = SATIN_STATUS_OK;
    int64_t v = 13;
    satin_msg_set_data(res, &v, sizeof v);
    deliver(e, 3 * MS, res);
    s = sent_of(&f, SATIN_MSG_STEAL_CANCEL, 0);
    ok(s && s->to == 1 && s->m->steal_id == id, "chs counts: a result made it busy: it cancels");
    is_i64(kit_counter(e, "steal_cancels"), 1, "chs counts: one own steal withdrawn");
    forget_sent(&f);
    deliver(e, 4 * MS, reply_from(1, id, 1));
    is_i64(kit_counter(e, "late_replies"), 1, "chs counts: the reply to it is late");
    is_i64(kit_counter(e, "steal_successes_lan"), 0, "chs counts: not a steal");
    is_i64(kit_counter(e, "steal_failures"), 0, "chs counts: nor a failure");

    /* Remote thief 3 asks; root 0 has nothing and walks its tree (to 1). */
    f.active = 0;
    deliver(e, 5 * MS, steal_from(3, 9, SATIN_STEAL_SYNC | SATIN_STEAL_WAN));
    s = sent_of(&f, SATIN_MSG_STEAL, 0);
    ok(s && s->to == 1 && s->m->thief == 3, "chs counts: 3's request goes on to 1");
    is_i64(kit_counter(e, "requests_forwarded"), 1, "chs counts: one request forwarded");
    is_i64(kit_counter(e, "requests_served"), 1, "chs counts: one answered (2's, earlier)");
    forget_sent(&f);
    satin_msg *c = from(3, SATIN_MSG_STEAL_CANCEL);
    c->thief = 3, c->steal_id = 9;
    deliver(e, 6 * MS, c);
    s = sent_of(&f, SATIN_MSG_STEAL_CANCEL, 0);
    ok(s && s->to == 1 && s->m->steal_id == 9, "chs counts: 3's cancel follows its request");
    is_i64(kit_counter(e, "steal_cancels_received"), 1, "chs counts: one cancel received");
    is_i64(kit_counter(e, "steal_cancels_forwarded"), 1, "chs counts: one passed on");
    is_i64(kit_counter(e, "steal_cancels"), 1, "chs counts: not one of our own");
    forget_sent(&f);
    satin_engine_destroy(&e);
}

/* The events RP and CLS act on are counted by the engine too: pushes in,
 * their acks, a prefetch and its success. */
static void test_counts_pushes_and_prefetches(void)
{
    fake f;
    satin_engine *e = make(&f, "rp");
    int64_t arg = 4;
    satin_msg *p = from(1, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, 1, 12, 0, "fib", 8, &arg, sizeof arg);
    deliver(e, MS, p);
    deliver(e, 2 * MS, from(2, SATIN_MSG_PUSH_ACK));
    is_i64(kit_counter(e, "pushes_received"), 1, "rp counts: one push received");
    is_i64(kit_counter(e, "push_acks"), 1, "rp counts: one ack received");
    forget_sent(&f);
    satin_engine_destroy(&e);

    e = make(&f, "cls");
    f.idle = 1;
    satin_engine_on_dry(e, 0);
    const sent *s = sent_of(&f, SATIN_MSG_STEAL, 0);
    for (int k = 1; s && !(s->m->flags & SATIN_STEAL_PREFETCH); k++)
        s = sent_of(&f, SATIN_MSG_STEAL, k);
    if (!ok(s != NULL, "cls counts: idle coordinator 0 prefetches"))
        return;
    int victim = s->to;
    uint64_t id = s->m->request_id;
    is_i64(kit_counter(e, "prefetches"), 1, "cls counts: one prefetch");
    forget_sent(&f);
    deliver(e, MS, reply_from(victim, id, 1));
    is_i64(kit_counter(e, "prefetch_successes"), 1, "cls counts: one prefetch success");
    is_i64(kit_counter(e, "steal_successes_wan"), 1, "cls counts: a wide-area success too");
    is_i64(kit_counter(e, "prefetches"), 2,
           "cls counts: the job runs, the queue stays empty: the next prefetch at once");
    forget_sent(&f);
    satin_engine_destroy(&e);
}

/* What each policy still counts itself: only what the engine cannot see. */
static void test_policy_counters(void)
{
    static const char *const want[][2] = {
        {"rs", "policy.backoffs policy.backoffs_cut "},
        {"rp", ""},
        {"chs", "policy.backoffs policy.walks_stopped policy.backoffs_cut "},
        {"cls", "policy.loads_received policy.backoffs policy.backoffs_cut "},
        {"crs", "policy.backoffs policy.wan_backoffs policy.backoffs_cut "},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        fake f;
        satin_engine *e = make(&f, want[i][0]);
        is_str(policy_counters(e), want[i][1], "policy counters: %s reports only its own",
               want[i][0]);
        satin_engine_destroy(&e);
    }
}

/* A job's start, told by its owner's statistics round (phase 0), ends an
 * idle node's back-off at once: it steals again without sleeping out the
 * interval.  Phase 1 (the job ended) does not. */
static void test_work_started(void)
{
    fake f;
    satin_engine *e = make(&f, "rs");
    f.idle = 1;
    satin_engine_on_dry(e, 0);
    int64_t now = MS;
    /* Empty replies until RS backs off (a round over the other nodes). */
    for (int i = 0; i < 10 && f.nout && f.out[f.nout - 1].m->type == SATIN_MSG_STEAL; i++) {
        const sent *s = &f.out[f.nout - 1];
        int victim = s->to;
        uint64_t id = s->m->request_id;
        forget_sent(&f);
        deliver(e, now, reply_from(victim, id, 0));
        now += MS;
    }
    ok(f.nout == 0 && satin_engine_next_deadline(e) > now,
       "work started: an idle RS node has backed off");
    satin_msg *q = from(2, SATIN_MSG_STATS_REQUEST);
    q->job_id = 9, q->phase = SATIN_STATS_PHASE_START;
    deliver(e, now, q);
    ok(f.nout == 2 && f.out[0].m->type == SATIN_MSG_STATS_REPLY && f.out[1].m->type == SATIN_MSG_STEAL,
       "work started: a job's start (phase 0) is answered, and the node steals at once");
    is_i64(kit_counter(e, "policy.backoffs_cut"), 1, "work started: one back-off cut short");
    const sent *s = &f.out[1];
    int victim = s->to;
    uint64_t id = s->m->request_id;
    forget_sent(&f);
    deliver(e, now + MS, reply_from(victim, id, 0));
    forget_sent(&f);
    q = from(2, SATIN_MSG_STATS_REQUEST);
    q->job_id = 9, q->phase = SATIN_STATS_PHASE_END;
    deliver(e, now + 2 * MS, q);
    ok(f.nout == 1 && f.out[0].m->type == SATIN_MSG_STATS_REPLY,
       "work started: a job's end (phase 1) only gets its reply");
    is_i64(kit_counter(e, "policy.backoffs_cut"), 1, "work started: still one");
    forget_sent(&f);
    satin_engine_destroy(&e);
}

/* Kinds the peers do not share (PROTOCOL.md 14.2): the pool is asked for
 * records for the thief itself, and a record the driver must not run here
 * goes home as "given back", neither run nor failed; the owner that gets
 * it back runs it itself. */
static void test_kinds_apart(void)
{
    fake f;
    satin_engine *e = make(&f, "rs");
    rec a = {.arg = 30};
    f.queue[0] = &a, f.nqueue = 1, f.active = 1;
    deliver(e, 10 * MS, steal_from(3, 5, SATIN_STEAL_WAN));
    ok(f.ntakes == 1 && f.take_peer[0] == 3, "kinds: the pool is asked for records for node 3");
    uint64_t id = f.out[0].m->jobrecs[0].record_id;
    forget_sent(&f);

    f.give_back_from = 1;
    int64_t arg = 7;
    satin_msg *p = from(1, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, 1, 12, 0, "fib", 8, &arg, sizeof arg);
    deliver(e, 11 * MS, p);
    ok(f.nout == 2 && f.out[0].to == 1 && f.out[0].m->type == SATIN_MSG_JOB_RESULT &&
           f.out[0].m->status == SATIN_STATUS_RETURNED && f.out[0].m->record_id == 12 &&
           strcmp(f.out[0].m->error, "this node has another build of fib") == 0,
       "kinds: a record of another build goes back to its owner, saying why");
    is_i64(f.starts, 0, "kinds: it is not run here");
    is_i64(kit_counter(e, "records_given_back"), 1, "kinds: records_given_back");
    forget_sent(&f);
    f.give_back_from = -1;

    /* Our own record given back by its holder: it runs here. */
    satin_msg *r = from(3, SATIN_MSG_JOB_RESULT);
    r->owner = 0, r->record_id = id, r->status = SATIN_STATUS_RETURNED;
    satin_msg_set_error(r, "node d1 lacks kind fib");
    deliver(e, 12 * MS, r);
    ok(f.starts == 1 && f.started_arg == 30, "kinds: the owner runs the record it got back");
    is_i64(kit_counter(e, "records_taken_back"), 1, "kinds: records_taken_back");
    ok(!a.completed, "kinds: its parent waits for that run, not for a failure");
    satin_engine_destroy(&e);   /* releases the stand-in that never ended (f_release) */
}

int main(void)
{
    test_kinds_apart();
    test_steal_timeout();
    test_give_and_result();
    test_standins();
    test_idle_recheck();
    test_victim_busy();
    test_cancel_and_drain();
    test_stats_round();
    test_cancel_follows();
    test_counts_steal_outcomes();
    test_counts_chs_cancels();
    test_counts_pushes_and_prefetches();
    test_policy_counters();
    test_work_started();
    return done_testing();
}
