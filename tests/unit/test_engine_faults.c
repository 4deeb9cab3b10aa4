/*
 * test_engine_faults.c - the node engine when peers die, in virtual time:
 * silence against the failure time-out, heartbeats on quiet links, records
 * a dead holder had run again here with exactly one result counting,
 * steal requests to the dead ended at once, results for a dead owner held
 * until it comes back, and a restarted peer.  Node 0 (a0) of {a0,a1}
 * {b0,b1}; a1 is its LAN peer, b0 and b1 are across the WAN.
 */
#include "engine_fake.h"
#include "engine/ledger.h"
#include "satin_digest.h"

#define TIMEOUT (3 * S)

static int sent_to(const fake *f, int to, int type)
{
    int n = 0;
    for (int i = 0; i < f->nout; i++)
        n += f->out[i].to == to && f->out[i].m->type == type;
    return n;
}

/* The first message of `type` sent to `to`, or NULL. */
static const satin_msg *first_to(const fake *f, int to, int type)
{
    for (int i = 0; i < f->nout; i++)
        if (f->out[i].to == to && f->out[i].m->type == type)
            return f->out[i].m;
    return NULL;
}

/* Time passes in watch steps (100 ms), as a driver's loop would run it. */
static void run_until(satin_engine *e, int64_t *now, int64_t until)
{
    while (*now < until) {
        int64_t next = satin_engine_next_deadline(e);
        *now = next > until ? until : next;
        satin_engine_on_tick(e, *now);
    }
}

/* Hears every peer but `silent` at each watch step up to `until`. */
static void run_hearing(satin_engine *e, int64_t *now, int64_t until, int silent)
{
    while (*now < until) {
        *now += 100 * MS;
        for (int p = 1; p < 4; p++)
            if (p != silent)
                deliver(e, *now, from(p, SATIN_MSG_HEARTBEAT));
        satin_engine_on_tick(e, *now);
    }
}

/* Gives record `r` to `thief` with request `id`; returns its record id. */
static uint64_t give(fake *f, satin_engine *e, int64_t now, int thief, rec *r)
{
    f->queue[0] = r, f->nqueue = 1, f->active = 1;
    deliver(e, now, steal_from(thief, 100 + (uint64_t)thief, SATIN_STEAL_SYNC));
    uint64_t id = f->nout ? f->out[f->nout - 1].m->jobrecs[0].record_id : 0;
    forget_sent(f);
    return id;
}

static satin_msg *result(int from_node, uint64_t id, int64_t v)
{
    satin_msg *res = from(from_node, SATIN_MSG_JOB_RESULT);
    res->owner = 0, res->record_id = id, res->status = SATIN_STATUS_OK;
    satin_msg_set_data(res, &v, sizeof v);
    return res;
}

static void test_detection(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    int64_t now = 0;
    int64_t heard;
    rec a = {.arg = 9};
    give(&f, e, 0, 1, &a); /* a1 holds a record of ours: its silence matters */
    is_i64(satin_engine_peer_state(e, 1, &heard), SATIN_PEER_ALIVE, "detect: a1 alive at first");
    run_hearing(e, &now, 1 * S, 1);
    /* a1 spoke first (it stole): no greeting; the watch looks every 100 ms
     * and the tied link, quiet since our reply at 0, gets one at 800 ms. */
    is_i64(sent_to(&f, 1, SATIN_MSG_HEARTBEAT), 1,
           "detect: a heartbeat per quarter time-out on the quiet tied link");
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_ALIVE, "detect: silent 1 s: alive");
    run_hearing(e, &now, 1600 * MS, 1);
    is_i64(satin_engine_peer_state(e, 1, &heard), SATIN_PEER_SUSPECTED,
           "detect: silent past half the time-out: suspected");
    is_i64(heard, 0, "detect: last heard at 0");
    is_i64(f.warns, 0, "detect: nothing logged while suspected");
    run_hearing(e, &now, 3 * S, 1);
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_SUSPECTED, "detect: not dead at 3 s");
    run_hearing(e, &now, 3100 * MS, 1);
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_DEAD, "detect: dead past 3 s");
    is_i64(f.warns, 1, "detect: logged once");
    ok(strstr(f.last_log, "node a1 is dead (silent for 3.100 s; 1 record(s) of ours there") !=
           NULL,
       "detect: %s", f.last_log);
    is_i64(kit_counter(e, "peers_dead"), 1, "detect: counted once");
    run_hearing(e, &now, 5 * S, 1);
    is_i64(f.warns, 1, "detect: still logged once 2 s later");
    for (int p = 2; p < 4; p++)
        is_i64(satin_engine_peer_state(e, p, NULL), SATIN_PEER_ALIVE, "detect: %s alive",
               kit_names[p]);
    deliver(e, now + 1, from(1, SATIN_MSG_HEARTBEAT));
    run_hearing(e, &now, now + 100 * MS, -1);
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_ALIVE, "detect: heard again: alive");
    /* Heard again at 5.0 s; noticed by the watch, which counts the silence to its last hearing. */
    ok(f.warns == 2 && strstr(f.last_log, "node a1 is back after 5.1 s of silence") != NULL,
       "detect: %s", f.last_log);
    is_i64(kit_counter(e, "peers_back"), 1, "detect: peers_back");
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* This node's own stall (a0 stopped from 0.5 s to 10 s): without the
 * driver telling it, the watch at 10 s takes its tied peers a1 and b0 for
 * dead at once; told (satin_engine_on_late), it greets every peer and waits
 * a greeting round: a1, who answers, stays alive, b0, silent, is dead a
 * quarter time-out later. */
static void test_own_stall(int told)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    int64_t now = 0;
    rec a = {.arg = 9}, b = {.arg = 10};
    give(&f, e, 0, 1, &a);
    give(&f, e, 0, 2, &b);
    run_hearing(e, &now, 500 * MS, -1);
    forget_sent(&f);
    now = 10 * S;
    if (told)
        satin_engine_on_late(e, now, 9500 * MS);
    satin_engine_on_tick(e, now);
    if (!told) {
        ok(satin_engine_peer_state(e, 1, NULL) == SATIN_PEER_DEAD &&
               satin_engine_peer_state(e, 2, NULL) == SATIN_PEER_DEAD,
           "stall, not told: a1 and b0 taken for dead at once");
        satin_engine_destroy(&e);
        forget_sent(&f);
        return;
    }
    ok(satin_engine_peer_state(e, 1, NULL) != SATIN_PEER_DEAD &&
           satin_engine_peer_state(e, 2, NULL) != SATIN_PEER_DEAD &&
           kit_counter(e, "peers_dead") == 0,
       "stall: nobody taken for dead when a0 comes back");
    ok(f.warns == 1 && strstr(f.last_log, "this node did not run for 9.500 s") != NULL,
       "stall: logged once: %s", f.last_log);
    int greeted = 0;
    for (int p = 1; p < 4; p++) {
        const satin_msg *g = first_to(&f, p, SATIN_MSG_HEARTBEAT);
        greeted += g && (g->flags & SATIN_HEARTBEAT_GREETING);
    }
    is_i64(greeted, 3, "stall: every peer greeted at once");
    is_i64(kit_counter(e, "stalls"), 1, "stall: counted");
    deliver(e, now + 100 * MS, from(1, SATIN_MSG_HEARTBEAT));
    for (int64_t t = now + 100 * MS; t <= now + 700 * MS; t += 100 * MS)
        satin_engine_on_tick(e, t);
    ok(satin_engine_peer_state(e, 1, NULL) != SATIN_PEER_DEAD &&
           satin_engine_peer_state(e, 2, NULL) != SATIN_PEER_DEAD,
       "stall: within the greeting round, still nobody dead");
    for (int64_t t = now + 800 * MS; t <= now + 900 * MS; t += 100 * MS)
        satin_engine_on_tick(e, t);
    is_i64(satin_engine_peer_state(e, 2, NULL), SATIN_PEER_DEAD,
           "stall: b0, silent through the round, is dead");
    ok(satin_engine_peer_state(e, 1, NULL) != SATIN_PEER_DEAD, "stall: a1, who answered, is not");
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* New failure time-outs (satind's SIGHUP) take effect at the next watch:
 * a peer silent for 1.6 s is alive under 3 s, dead under 1.5 s. */
static void test_timeouts_changed(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    int64_t now = 0, lan, wan;
    rec a = {.arg = 9};
    give(&f, e, 0, 1, &a);
    run_hearing(e, &now, 1 * S, 1);
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_ALIVE, "timeouts: silent 1 s of 3: alive");
    satin_engine_set_failure_timeouts(e, now, 1500 * MS, 4 * S);
    satin_engine_failure_timeouts(e, &lan, &wan);
    ok(lan == 1500 * MS && wan == 4 * S, "timeouts: the new ones are in use");
    run_hearing(e, &now, 1100 * MS, 1);
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_SUSPECTED,
           "timeouts: silent 1.1 s of 1.5: suspected at the next watch");
    run_hearing(e, &now, 1600 * MS, 1);
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_DEAD, "timeouts: dead past 1.5 s");
    is_i64(kit_counter(e, "peers_dead"), 1, "timeouts: counted");
    for (int p = 2; p < 4; p++)
        is_i64(satin_engine_peer_state(e, p, NULL), SATIN_PEER_ALIVE, "timeouts: %s alive",
               kit_names[p]);
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* A peer this node has no work with may be quiet for ever (an idle node
 * under RP sends nothing): it is greeted once and then left alone, and its
 * silence means nothing. */
static void test_untied_quiet(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rp", TIMEOUT);
    int64_t now = 0;
    deliver(e, 0, from(1, SATIN_MSG_HEARTBEAT));
    run_hearing(e, &now, 10 * S, 1);
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_ALIVE,
           "untied: a1, quiet 10 s and owing us nothing, is alive");
    is_i64(sent_to(&f, 1, SATIN_MSG_HEARTBEAT), 0,
           "untied: it spoke first, so it needs no greeting, and gets no heartbeat");
    satin_msg *g = from(1, SATIN_MSG_HEARTBEAT);
    g->flags = SATIN_HEARTBEAT_GREETING;
    deliver(e, now, g);
    ok(sent_to(&f, 1, SATIN_MSG_HEARTBEAT) == 1 && first_to(&f, 1, SATIN_MSG_HEARTBEAT)->flags == 0,
       "untied: its greeting is answered with a heartbeat");
    is_i64(kit_counter(e, "peers_dead"), 0, "untied: nobody dead");
    is_i64(satin_engine_next_deadline(e), INT64_MAX,
           "untied: every peer heard and greeted, no work: the idle node sleeps");
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* A node never heard since this one started is dead after the time-out
 * (a node listed but not running): others need not wait for it. */
static void test_absent(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    int64_t now = 0;
    run_until(e, &now, 3100 * MS);
    for (int p = 1; p < 4; p++)
        is_i64(satin_engine_peer_state(e, p, NULL), SATIN_PEER_DEAD, "absent: %s dead",
               kit_names[p]);
    const satin_msg *g = first_to(&f, 1, SATIN_MSG_HEARTBEAT);
    ok(g && g->flags == SATIN_HEARTBEAT_GREETING && sent_to(&f, 1, SATIN_MSG_HEARTBEAT) >= 4,
       "absent: greeted each quarter time-out until it was taken for absent (%d)",
       sent_to(&f, 1, SATIN_MSG_HEARTBEAT));
    ok(strstr(f.last_log, "(not heard in 3.100 s)") != NULL, "absent: %s", f.last_log);
    /* Steals to the dead end empty at once, without a message. */
    forget_sent(&f);
    f.idle = 1;
    satin_engine_on_dry(e, now);
    is_i64(f.nout, 0, "absent: no steal goes to a dead node");
    int64_t next = satin_engine_next_deadline(e);
    is_i64(next, now + 1, "absent: the request ends on the next tick");
    satin_engine_on_tick(e, next);
    ok(kit_counter(e, "steals_to_dead") >= 1 && kit_counter(e, "steal_timeouts") == 0,
       "absent: settled as steals to the dead, not as time-outs");
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* a1 holds a record of ours and dies: it runs again here, as a stand-in
 * owned by us; its result completes the record; a1's result, coming
 * after all, is dropped. */
static void test_redo(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    rec a = {.arg = 25};
    int64_t now = 0;
    uint64_t id = give(&f, e, now, 1, &a);
    ok(id != 0, "redo: a record given to a1");
    run_hearing(e, &now, 3100 * MS, 1);
    is_i64(f.starts, 1, "redo: a1 dead: the record starts again here");
    ok(f.started.owner == 0 && f.started.record_id == id && f.started_arg == 25 &&
           f.started.result_cap == 8,
       "redo: as our own record, with its argument and result size");
    is_i64(kit_counter(e, "records_redone"), 1, "redo: records_redone");
    int64_t v = 75025;
    satin_engine_outcome o = {.ok = 1, .error = "", .data = &v, .len = sizeof v};
    satin_engine_on_standin_done(e, now + 1, f.standin_handles[0], &o);
    free(f.standin_handles[0]);
    ok(a.completed == 1 && a.ok && a.value == 75025, "redo: the re-run's result completes it");
    is_i64(sent_to(&f, 1, SATIN_MSG_JOB_RESULT) + sent_to(&f, 0, SATIN_MSG_JOB_RESULT), 0,
           "redo: no JOB_RESULT goes anywhere for it");
    deliver(e, now + 2, result(1, id, 1));
    ok(a.completed == 1 && a.value == 75025 && f.bad == 0,
       "redo: a1's late result is dropped, not taken as senseless");
    is_i64(kit_counter(e, "late_results_dropped"), 1, "redo: late_results_dropped");
    is_i64(kit_counter(e, "redo_results"), 1, "redo: redo_results");
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* The holder was only slow: its result comes while the re-run runs.  The
 * first result counts, the re-run is cancelled, and its end completes
 * nothing. */
static void test_first_result_wins(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    rec a = {.arg = 20};
    int64_t now = 0;
    uint64_t id = give(&f, e, now, 2, &a);
    /* b0 is across the WAN; with the same 3 s time-out here it dies too. */
    run_hearing(e, &now, 3100 * MS, 2);
    is_i64(f.starts, 1, "first: b0 dead: its record runs again");
    deliver(e, now + 1, result(2, id, 6765));
    ok(a.completed == 1 && a.value == 6765, "first: b0's result, first, completes it");
    is_i64(f.cancels, 1, "first: the re-run is cancelled");
    int64_t v = 1;
    satin_engine_outcome o = {.ok = 0, .error = "cancelled", .data = &v, .len = 0};
    satin_engine_on_standin_done(e, now + 2, f.standin_handles[0], &o);
    free(f.standin_handles[0]);
    ok(a.completed == 1 && a.value == 6765 && a.ok, "first: the cancelled re-run completes nothing");
    is_i64(kit_counter(e, "late_results_used"), 1, "first: late_results_used");
    is_i64(satin_engine_running(e), 0, "first: nothing left running");
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* A record whose job stopped here is not run again when its holder dies:
 * it ends with an error, which nobody waits for. */
static void test_no_redo_when_stopped(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    rec a = {.arg = 20, .job = (void *)0x77};
    int64_t now = 0;
    give(&f, e, now, 1, &a);
    f.stopped_job = (void *)0x77;
    run_hearing(e, &now, 3100 * MS, 1);
    ok(f.starts == 0 && a.completed == 1 && !a.ok, "stopped: not run again, ended: %s", a.error);
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* Without orphan saving: we run two records for b1 (a chain: b1 stole
 * their parent elsewhere); b1 dies.  Both are stopped; one had finished already: its result waits
 * for b1, the other waits parked.  b1 comes back in the same run: the
 * result goes and the parked record starts again.  b1 dies again and
 * restarts: what waited for its old run is dropped.  With keep_args the
 * stand-ins' argument bytes are the driver's (env.standin_arg), gone once
 * each stand-in ended: the parked record must have kept a copy of its own
 * to start again with its argument. */
static void test_held_and_parked(int keep_args)
{
    fake f;
    satin_engine *e = make_watching_orphans(&f, "rs", TIMEOUT, 0);
    f.keep_args = keep_args;
    int64_t arg = 7, now = 0;
    f.epoch[3] = 41;
    for (uint64_t id = 55; id <= 56; id++) {
        satin_msg *p = from(3, SATIN_MSG_PUSH);
        satin_msg_add_jobrec(p, 3, id, 0, "fib", 8, &arg, sizeof arg);
        deliver(e, now, p);
    }
    is_i64(f.starts, 2, "held: two records of b1 run here");
    forget_sent(&f);
    run_hearing(e, &now, 3100 * MS, 3);
    is_i64(satin_engine_peer_state(e, 3, NULL), SATIN_PEER_DEAD, "held: b1 dead");
    is_i64(f.cancels, 2, "held: both are stopped");
    is_i64(kit_counter(e, "standins_parked"), 2, "held: standins_parked");
    int64_t v = 13;
    satin_engine_outcome done = {.ok = 1, .error = "", .data = &v, .len = sizeof v};
    satin_engine_outcome stopped = {.ok = 0, .error = "its owner node died"};
    satin_engine_on_standin_done(e, now + 1, f.standin_handles[0], &done);
    satin_engine_on_standin_done(e, now + 1, f.standin_handles[1], &stopped);
    fake_drop_kept(&f, 0);
    fake_drop_kept(&f, 1);
    is_i64(sent_to(&f, 3, SATIN_MSG_JOB_RESULT), 0, "held: no result goes to the dead");
    is_i64(kit_counter(e, "results_held"), 1, "held: the finished one's result waits");
    is_i64(satin_engine_running(e), 0, "held: nothing runs for b1");
    deliver(e, now + 2, from(3, SATIN_MSG_HEARTBEAT));
    run_hearing(e, &now, now + 400 * MS, -1);
    ok(sent_to(&f, 3, SATIN_MSG_JOB_RESULT) == 1 &&
           first_to(&f, 3, SATIN_MSG_JOB_RESULT)->record_id == 55,
       "held: b1 back: the waiting result goes");
    ok(f.starts == 3 && f.started.record_id == 56 && f.started.owner == 3 &&
           f.started_arg == 7,
       "held: and the parked record starts again");
    if (keep_args)
        ok(f.kept[2] && f.kept_len[2] == sizeof arg && memcmp(f.kept[2], &arg, sizeof arg) == 0,
           "held, the driver's bytes: the parked record kept its argument after they went");
    is_i64(kit_counter(e, "parked_resumed"), 1, "held: parked_resumed");
    forget_sent(&f);

    run_hearing(e, &now, now + 3100 * MS, 3);
    is_i64(f.cancels, 3, "held: b1 dead again: the restarted record stops");
    satin_engine_on_standin_done(e, now + 1, f.standin_handles[2], &stopped);
    fake_drop_kept(&f, 2);
    f.epoch[3] = 42;
    deliver(e, now + 2, from(3, SATIN_MSG_HEARTBEAT));
    run_hearing(e, &now, now + 400 * MS, -1);
    ok(f.starts == 3 && sent_to(&f, 3, SATIN_MSG_JOB_RESULT) == 0,
       "held: b1 restarted: nothing sent, nothing started");
    is_i64(kit_counter(e, "parked_dropped"), 1, "held: parked_dropped");
    ok(strstr(f.last_log, "node b1 runs again") != NULL, "held: %s", f.last_log);
    for (int i = 0; i < 3; i++)
        free(f.standin_handles[i]);
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* ORPHAN messages with `status` for `place` sent to `to` (with `value`
 * for a result). */
static int orphans_to(const fake *f, int to, int status, uint64_t place, int64_t value)
{
    int n = 0;
    for (int i = 0; i < f->nout; i++) {
        const satin_msg *m = f->out[i].m;
        int64_t v = 0;
        if (f->out[i].to != to || m->type != SATIN_MSG_ORPHAN || m->status != status ||
            m->place != place)
            continue;
        if (status == SATIN_ORPHAN_RESULT &&
            (m->data_len != sizeof v || !memcpy(&v, m->data, sizeof v) || v != value))
            continue;
        if (status != SATIN_ORPHAN_RESULT && m->data_len != 0)
            continue;
        n++;
    }
    return n;
}

/* To a1 and b0, the live peers, and to nobody else. */
static int orphans_to_live(const fake *f, int status, uint64_t place, int64_t value)
{
    return orphans_to(f, 1, status, place, value) == 1 &&
           orphans_to(f, 2, status, place, value) == 1 && sent_to(f, 3, SATIN_MSG_ORPHAN) == 0;
}

static satin_msg *push_from(int owner, uint64_t id, int64_t arg, uint64_t place)
{
    satin_msg *p = from(owner, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, (uint32_t)owner, id, 0, "fib", 8, &arg, sizeof arg);
    p->jobrecs[0].place = place;
    p->jobrecs[0].origin = 0x0e0e;   /* one submitted job's records */
    return p;
}

/* With orphan saving (the default), b1 pushes us three records and dies.
 * The one whose result we had sent it shortly before is told at once as
 * an orphan, to a1 and b0 (not to dead b1) and to our own table; the two
 * still running are not stopped but promised.  The one that finishes is
 * told with its place, digest and value, and held for b1 as before; the
 * one that fails withdraws its promise.  b1 comes back: the held results
 * go.  b1's own promises to us are void when it dies. */
static void test_orphans(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    int64_t now = 0;
    f.epoch[3] = 41;
    deliver(e, now, push_from(3, 55, 7, 0x5555));
    deliver(e, now, push_from(3, 56, 8, 0x5656));
    deliver(e, now, push_from(3, 57, 9, 0x5757));
    is_i64(f.starts, 3, "orphans: three records of b1 run here");
    is_i64((int64_t)f.started.place, 0x5757, "orphans: a record starts with its place");
    int64_t v57 = 34, v55 = 13;
    satin_engine_outcome done57 = {.ok = 1, .error = "", .data = &v57, .len = 8, .run = 109};
    satin_engine_on_standin_done(e, now + 1, f.standin_handles[2], &done57);
    is_i64(sent_to(&f, 3, SATIN_MSG_JOB_RESULT), 1, "orphans: 57's result goes to b1, alive");
    forget_sent(&f);
    run_hearing(e, &now, 3100 * MS, 3);
    is_i64(satin_engine_peer_state(e, 3, NULL), SATIN_PEER_DEAD, "orphans: b1 dead");
    is_i64(f.voided[3], 1, "orphans: b1's promises to us are void");
    is_i64(f.cancels, 0, "orphans: its records here are not stopped");
    is_i64(kit_counter(e, "standins_orphaned"), 2, "orphans: standins_orphaned");
    ok(orphans_to_live(&f, SATIN_ORPHAN_RESULT, 0x5757, 34),
       "orphans: the result sent to b1 before it died is told to a1 and b0, not b1");
    const satin_msg *o = first_to(&f, 1, SATIN_MSG_ORPHAN);
    int64_t arg = 9;
    ok(o && o->arg_digest == satin_digest("fib", &arg, sizeof arg) && o->jobs_run == 109 &&
           strcmp(o->kind, "fib") == 0 && o->origin == 0x0e0e,
       "orphans: with the digest of its kind and argument, the work it stands for and the "
       "origin of its record");
    ok(orphans_to_live(&f, SATIN_ORPHAN_RUNNING, 0x5555, 0) &&
           orphans_to_live(&f, SATIN_ORPHAN_RUNNING, 0x5656, 0),
       "orphans: the two still running are promised to a1 and b0");
    is_i64(f.promised, 2, "orphans: and their jobs here marked as promised");
    is_i64(f.orphans, 3, "orphans: our own table hears of all three");
    ok(f.orphan_status == SATIN_ORPHAN_RUNNING && f.orphan_holder == 0 &&
           f.orphan_place == 0x5656 && f.orphan_digest == satin_digest("fib", &(int64_t){8}, 8) &&
           f.orphan_origin == 0x0e0e,
       "orphans: the last, a promise of ours for 56, of its record's origin");
    is_i64(kit_counter(e, "orphans_promised"), 2, "orphans: orphans_promised");
    forget_sent(&f);

    satin_engine_outcome done55 = {.ok = 1, .error = "", .data = &v55, .len = 8, .run = 41};
    satin_engine_outcome failed = {.ok = 0, .error = "out of memory"};
    satin_engine_on_standin_done(e, now + 1, f.standin_handles[0], &done55);
    ok(orphans_to_live(&f, SATIN_ORPHAN_RESULT, 0x5555, 13) && f.orphans == 4 &&
           f.orphan_status == SATIN_ORPHAN_RESULT && f.orphan_place == 0x5555 &&
           f.orphan_value == 13 && f.orphan_runs == 41,
       "orphans: a record of the dead b1 that finishes is told, here too");
    satin_engine_on_standin_done(e, now + 1, f.standin_handles[1], &failed);
    ok(orphans_to_live(&f, SATIN_ORPHAN_GONE, 0x5656, 0) && f.orphans == 5 &&
           f.orphan_status == SATIN_ORPHAN_GONE && f.orphan_place == 0x5656,
       "orphans: the failed one withdraws its promise");
    is_i64(kit_counter(e, "orphans_told"), 2, "orphans: orphans_told");
    is_i64(kit_counter(e, "orphan_messages"), 10, "orphans: orphan_messages (5 news, 2 peers)");
    is_i64(kit_counter(e, "results_held"), 2, "orphans: both results still wait for b1");
    forget_sent(&f);
    deliver(e, now + 2, from(3, SATIN_MSG_HEARTBEAT));
    run_hearing(e, &now, now + 400 * MS, -1);
    is_i64(sent_to(&f, 3, SATIN_MSG_JOB_RESULT), 2, "orphans: b1 back: its results go");
    is_i64(sent_to(&f, 3, SATIN_MSG_ORPHAN), 0, "orphans: b1 back: told nothing of orphans");
    forget_sent(&f);

    /* b1 dies again with a record of its here, and restarts: the result
     * is told, and goes to nobody else. */
    deliver(e, now, push_from(3, 58, 10, 0x5858));
    run_hearing(e, &now, now + 3100 * MS, 3);
    f.epoch[3] = 42;
    deliver(e, now + 2, from(3, SATIN_MSG_HEARTBEAT));
    int64_t v58 = 55;
    satin_engine_outcome done58 = {.ok = 1, .error = "", .data = &v58, .len = 8, .run = 177};
    satin_engine_on_standin_done(e, now + 3, f.standin_handles[3], &done58);
    ok(orphans_to(&f, 1, SATIN_ORPHAN_RESULT, 0x5858, 55) == 1 &&
           sent_to(&f, 3, SATIN_MSG_JOB_RESULT) == 0,
       "orphans: b1 restarted: its record's result is told, not sent to the new run");

    /* News from b0 goes to our table, with b0 as the holder. */
    int before = f.orphans;
    satin_msg *om = from(2, SATIN_MSG_ORPHAN);
    om->place = 0xABC, om->arg_digest = 0xDEF, om->jobs_run = 5;
    int64_t ov = 99;
    satin_msg_set_kind(om, "fib");
    satin_msg_set_data(om, &ov, sizeof ov);
    deliver(e, now + 4, om);
    ok(f.orphans == before + 1 && f.orphan_status == SATIN_ORPHAN_RESULT &&
           f.orphan_holder == 2 && f.orphan_place == 0xABC && f.orphan_digest == 0xDEF &&
           f.orphan_value == 99 && f.orphan_runs == 5,
       "orphans: a result told by b0 is kept here");
    om = from(2, SATIN_MSG_ORPHAN);
    om->place = 0xABD, om->status = SATIN_ORPHAN_RUNNING;
    satin_msg_set_kind(om, "fib");
    deliver(e, now + 5, om);
    ok(f.orphans == before + 2 && f.orphan_status == SATIN_ORPHAN_RUNNING &&
           f.orphan_holder == 2 && f.orphan_place == 0xABD,
       "orphans: and so is b0's promise");
    is_i64(kit_counter(e, "orphans_received"), 2, "orphans: orphans_received");
    for (int i = 0; i < 4; i++)
        free(f.standin_handles[i]);
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* A promise ties us to its holder: b0 promises a record and falls silent;
 * untied it would only be absent-minded, promised it is dead after the
 * time-out, and its promises are void.  And while we run a record of a
 * dead owner, promised to all, every live link gets heartbeats. */
static void test_promise_ties(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    int64_t now = 0;
    for (int p = 1; p < 4; p++)
        deliver(e, now, from(p, SATIN_MSG_HEARTBEAT));
    satin_msg *om = from(2, SATIN_MSG_ORPHAN);
    om->place = 0x77, om->status = SATIN_ORPHAN_RUNNING;
    satin_msg_set_kind(om, "fib");
    deliver(e, now, om);
    run_hearing(e, &now, 3200 * MS, 2);
    is_i64(satin_engine_peer_state(e, 2, NULL), SATIN_PEER_DEAD,
           "promise tie: b0, silent past the time-out with a promise out, is dead");
    is_i64(f.voided[2], 1, "promise tie: its promises are void");
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_ALIVE, "promise tie: a1 is not");
    satin_engine_destroy(&e);
    forget_sent(&f);

    e = make_watching(&f, "rs", TIMEOUT);
    now = 0;
    f.epoch[3] = 41;
    deliver(e, now, push_from(3, 60, 7, 0x6060));
    run_hearing(e, &now, 3100 * MS, 3);   /* b1 dies: its record runs on here */
    forget_sent(&f);
    run_hearing(e, &now, now + 1000 * MS, 3);
    ok(sent_to(&f, 1, SATIN_MSG_HEARTBEAT) >= 1 && sent_to(&f, 2, SATIN_MSG_HEARTBEAT) >= 1,
       "promise tie: the holder of a promise heartbeats every live peer (%d, %d)",
       sent_to(&f, 1, SATIN_MSG_HEARTBEAT), sent_to(&f, 2, SATIN_MSG_HEARTBEAT));
    forget_sent(&f);
    satin_engine_destroy(&e);   /* its release frees the record still running */
}

/* The record a dead holder had runs again with the place it had, so that
 * its children get theirs again (and orphans match them); without orphan
 * saving, an ORPHAN that comes is not kept and none is told. */
static void test_redo_keeps_place(void)
{
    fake f;
    satin_engine *e = make_watching_orphans(&f, "rs", TIMEOUT, 0);
    rec a = {.arg = 5, .place = 0xFEED};
    int64_t now = 0;
    give(&f, e, now, 1, &a);
    run_hearing(e, &now, 3100 * MS, 1);
    ok(f.starts == 1 && f.started.place == 0xFEED && f.started.owner == 0,
       "redo place: the record runs again here at its place");
    satin_msg *om = from(2, SATIN_MSG_ORPHAN);
    om->place = 1;
    satin_msg_set_kind(om, "fib");
    deliver(e, now, om);
    ok(f.orphans == 0 && sent_to(&f, 2, SATIN_MSG_ORPHAN) == 0,
       "redo place: without orphan saving nothing is kept or told");
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* A peer that restarts between two messages lost what it held for us,
 * though it never fell silent: its records run again at once. */
static void test_restart(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    rec a = {.arg = 22};
    f.epoch[1] = 5;
    deliver(e, 0, from(1, SATIN_MSG_HEARTBEAT));
    uint64_t id = give(&f, e, MS, 1, &a);
    f.epoch[1] = 6;
    deliver(e, 2 * MS, steal_from(1, 9, SATIN_STEAL_SYNC));
    ok(f.starts == 1 && f.started.record_id == id, "restart: its record runs again at once");
    is_i64(satin_engine_peer_state(e, 1, NULL), SATIN_PEER_ALIVE, "restart: the new run is alive");
    is_i64(kit_counter(e, "peers_dead"), 1, "restart: the old run counted dead");
    ok(sent_to(&f, 1, SATIN_MSG_STEAL_REPLY) == 1, "restart: the new run's steal is answered");
    forget_sent(&f);
    satin_engine_destroy(&e);   /* its release frees the re-run still going */
}

/* RS steals until a request goes to `victim`, answering the others empty;
 * returns the time reached. */
static int64_t steal_until_to(fake *f, satin_engine *e, int64_t t, int64_t until, int victim)
{
    for (; t < until && !first_to(f, victim, SATIN_MSG_STEAL); t += MS) {
        for (int i = 0; i < f->nout; i++) {
            const satin_msg *s = f->out[i].m;
            if (s->type != SATIN_MSG_STEAL)
                continue;
            satin_msg *r = from(f->out[i].to, SATIN_MSG_STEAL_REPLY);
            r->request_id = s->request_id;
            r->victim = (uint32_t)f->out[i].to;
            forget_sent(f);
            deliver(e, t, r);
            break;
        }
        satin_engine_on_tick(e, t);
    }
    return t;
}

/* b0 says it is leaving: it is given no more work, but it still answers
 * steal requests (what waits there is taken before it goes), so our request
 * to it stays out and others may follow; the result of a record it gave us
 * still goes to it.  Then it says it has left: a request out to it ends at
 * once, and none goes to it any more; it is not taken for dead. */
static void test_leaving(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    int64_t arg = 3;
    satin_msg *p = from(2, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, 2, 77, 0, "fib", 8, &arg, sizeof arg);
    deliver(e, 0, p);
    forget_sent(&f);
    f.idle = 1;
    satin_engine_on_dry(e, MS);
    int64_t t = steal_until_to(&f, e, 2 * MS, 100 * MS, 2);
    const satin_msg *out = first_to(&f, 2, SATIN_MSG_STEAL);
    ok(out != NULL, "leaving: a steal request to b0 is out");
    uint64_t rid = out ? out->request_id : 0;
    forget_sent(&f);
    satin_msg *bye = from(2, SATIN_MSG_HEARTBEAT);
    bye->flags = SATIN_HEARTBEAT_LEAVING;
    deliver(e, t, bye);
    is_i64(kit_counter(e, "steals_to_dead"), 0, "leaving: the request to b0 stays out");
    satin_msg *r = from(2, SATIN_MSG_STEAL_REPLY);
    r->request_id = rid;
    r->victim = 2;
    deliver(e, t + MS, r);
    ok(kit_counter(e, "steal_failures") >= 1 && kit_counter(e, "late_replies") == 0,
       "leaving: b0's empty reply settles it");
    t = steal_until_to(&f, e, t + 2 * MS, t + 2 * S, 2);
    ok(first_to(&f, 2, SATIN_MSG_STEAL) != NULL, "leaving: b0 is still asked for work");
    is_i64(satin_engine_peer_state(e, 2, NULL), SATIN_PEER_ALIVE, "leaving: b0 is not dead");
    int64_t v = 2;
    satin_engine_outcome o = {.ok = 1, .error = "", .data = &v, .len = sizeof v};
    satin_engine_on_standin_done(e, t, f.standin_handles[0], &o);
    free(f.standin_handles[0]);
    is_i64(sent_to(&f, 2, SATIN_MSG_JOB_RESULT), 1, "leaving: its record's result goes to it");
    forget_sent(&f);
    satin_msg *gone = from(2, SATIN_MSG_HEARTBEAT);
    gone->flags = SATIN_HEARTBEAT_LEAVING | SATIN_HEARTBEAT_LEFT;
    deliver(e, t + MS, gone);
    is_i64(kit_counter(e, "steals_to_dead"), 1, "left: the request out to b0 ended at once");
    int64_t now = t + MS;
    run_hearing(e, &now, 2 * S, -1);
    is_i64(sent_to(&f, 2, SATIN_MSG_STEAL), 0, "left: no steal goes to b0 any more");
    ok(satin_engine_peer_state(e, 2, NULL) == SATIN_PEER_ALIVE &&
           kit_counter(e, "peers_dead") == 0,
       "left: b0 is not taken for dead, silent past its failure time-out");
    satin_peer_info pi;
    satin_engine_peer_info(e, 2, &pi);
    ok(pi.leaving, "left: it shows as leaving (satind: left)");
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* A node that leaves gives back what it cannot finish: on its stop, every
 * record of a live owner goes back (JOB_RESULT RETURNED) and its stand-in
 * is cancelled; when the stand-in ends, nothing more is sent. */
static void test_give_back(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    int64_t arg = 30;
    satin_msg *p = from(1, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, 1, 91, 0, "fib", 8, &arg, sizeof arg);
    deliver(e, 0, p);
    forget_sent(&f);
    satin_engine_drain(e);
    forget_sent(&f);
    is_i64(satin_engine_stop(e), 1, "give back: one stand-in stopped");
    const satin_msg *m = first_to(&f, 1, SATIN_MSG_JOB_RESULT);
    ok(m && m->status == SATIN_STATUS_RETURNED && m->record_id == 91 && m->owner == 1,
       "give back: a1's record 91 goes back to it, returned");
    is_i64(f.cancels, 1, "give back: its stand-in is cancelled");
    is_i64(kit_counter(e, "records_returned"), 1, "give back: records_returned");
    forget_sent(&f);
    satin_engine_outcome o = {.ok = 0, .error = "cancelled: given back to its owner"};
    satin_engine_on_standin_done(e, MS, f.standin_handles[0], &o);
    free(f.standin_handles[0]);
    is_i64(sent_to(&f, 1, SATIN_MSG_JOB_RESULT), 0, "give back: its end sends no result");
    is_i64(satin_engine_busy(e), 0, "give back: nothing holds the stop");
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* The owner's side: a record given back runs again here at once, as after
 * its holder's death but without waiting for one; its result is the one
 * the parent gets.  A record given back that was never given is bad. */
static void test_taken_back(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    rec a = {.arg = 12};
    uint64_t id = give(&f, e, 0, 1, &a);
    satin_msg *back = from(1, SATIN_MSG_JOB_RESULT);
    back->owner = 0, back->record_id = id, back->status = SATIN_STATUS_RETURNED;
    deliver(e, MS, back);
    ok(f.starts == 1 && f.started.record_id == id && f.started.owner == 0,
       "taken back: the record runs again here at once");
    is_i64(kit_counter(e, "records_taken_back"), 1, "taken back: records_taken_back");
    is_i64(kit_counter(e, "peers_dead"), 0, "taken back: no death was needed");
    is_i64(a.completed, 0, "taken back: its parent still waits");
    int64_t v = 144;
    satin_engine_outcome o = {.ok = 1, .error = "", .data = &v, .len = sizeof v};
    satin_engine_on_standin_done(e, 2 * MS, f.standin_handles[0], &o);
    free(f.standin_handles[0]);
    ok(a.completed == 1 && a.ok && a.value == 144,
       "taken back: the re-run's result completes the record");
    satin_msg *bogus = from(1, SATIN_MSG_JOB_RESULT);
    bogus->owner = 0, bogus->record_id = 999, bogus->status = SATIN_STATUS_RETURNED;
    int bad = f.bad;
    deliver(e, 3 * MS, bogus);
    is_i64(f.bad, bad + 1, "taken back: a record never given, given back, is a bad message");
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* What ties a0 to a peer, as satind's status and the log of a death say
 * it: a record given to a1 is "of ours there" until its result comes. */
static void test_ties_described(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    rec a = {.arg = 25};
    char ties[128];
    satin_engine_describe_ties(e, 1, ties, sizeof ties);
    is_str(ties, "", "ties: none with a1 at first");
    uint64_t id = give(&f, e, 0, 1, &a);
    satin_engine_describe_ties(e, 1, ties, sizeof ties);
    is_str(ties, "; 1 record(s) of ours there, 0 of its here, 0 steal request(s) out",
           "ties: a record given to a1 is ours there");
    satin_engine_describe_ties(e, 2, ties, sizeof ties);
    is_str(ties, "", "ties: none with b0");
    deliver(e, 1, result(1, id, 55));
    satin_engine_describe_ties(e, 1, ties, sizeof ties);
    is_str(ties, "", "ties: its result ends the tie");
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* A view of the grid (GRID_STATUS): a0 asks every peer for its status.
 * Each answer is kept under its query; b1, silent and tied to a0 by
 * nothing, stays alive until a0 asks it, and is then dead after its
 * time-out, as if work tied them; b0 said it is leaving. */
static void test_status_ties(void)
{
    fake f;
    satin_engine *e = make_watching(&f, "rs", TIMEOUT);
    int64_t now = 0;
    run_hearing(e, &now, 100 * MS, -1);
    run_hearing(e, &now, 5 * S, 3);
    is_i64(satin_engine_peer_state(e, 3, NULL), SATIN_PEER_ALIVE,
           "status: b1, silent 4.9 s but untied, is alive");
    forget_sent(&f);
    satin_engine_request_status(e, now, 7);
    int asked = 0;
    for (int p = 1; p < 4; p++) {
        const satin_msg *q = first_to(&f, p, SATIN_MSG_STATS_REQUEST);
        asked += q && q->job_id == 7 && q->phase == SATIN_STATS_PHASE_NODE;
    }
    is_i64(asked, 3, "status: a request, phase 2 and query 7, to each of the three peers");
    forget_sent(&f);
    satin_msg *r = from(1, SATIN_MSG_STATS_REPLY);
    r->job_id = 7, r->phase = SATIN_STATS_PHASE_NODE;
    satin_kvlist_add_i64(&r->stats, "workers", 4);
    deliver(e, now + MS, r);
    satin_msg *bye = from(2, SATIN_MSG_HEARTBEAT);
    bye->flags = SATIN_HEARTBEAT_LEAVING;
    deliver(e, now + MS, bye);
    satin_kvlist l;
    satin_kvlist_init(&l);
    int64_t at = 0, workers = 0;
    ok(satin_engine_peer_status(e, 1, 7, &l, &at) == 1 &&
           satin_kvlist_i64(&l, "workers", &workers) == 0 && workers == 4 && at == now + MS,
       "status: a1's answer to query 7 is kept, with when it came");
    satin_kvlist_free(&l);
    ok(satin_engine_peer_status(e, 1, 6, &l, NULL) == 0 && l.n == 0,
       "status: and is no answer to another query");
    ok(satin_engine_peer_status(e, 1, 7, NULL, NULL) == 1 &&
           satin_engine_peer_status(e, 1, 6, NULL, NULL) == 0,
       "status: whether it answered, without its figures");
    ok(satin_engine_peer_status(e, 3, 7, &l, NULL) == 0 &&
           satin_engine_peer_status(e, 9, 7, &l, NULL) == 0,
       "status: b1 has not answered; node 9 is none");
    int64_t asked_at = now;
    run_hearing(e, &now, asked_at + TIMEOUT + TIMEOUT / 2, 3);
    satin_peer_info pi;
    satin_engine_peer_info(e, 3, &pi);
    ok(pi.state == SATIN_PEER_DEAD && pi.died > asked_at + TIMEOUT &&
           pi.died <= asked_at + TIMEOUT + TIMEOUT / 4 + 100 * MS && pi.heard < asked_at &&
           !pi.leaving,
       "status: b1, asked and silent, is dead after its time-out (died %.1f s after the request)",
       (double)(pi.died - asked_at) / 1e9);
    ok(strstr(f.last_log, "node b1 is dead") != NULL, "status: its death is logged: %s",
       f.last_log);
    satin_engine_peer_info(e, 1, &pi);
    ok(pi.state == SATIN_PEER_ALIVE && pi.died == 0 && !pi.leaving,
       "status: a1 answered: alive");
    satin_engine_peer_info(e, 2, &pi);
    ok(pi.state == SATIN_PEER_ALIVE && pi.leaving, "status: b0 is alive and said it is leaving");
    is_i64(kit_counter(e, "peers_dead"), 1, "status: one node dead");

    /* A peer's request for our status is answered once, phase and query echoed. */
    forget_sent(&f);
    satin_msg *q = from(2, SATIN_MSG_STATS_REQUEST);
    q->job_id = 9, q->phase = SATIN_STATS_PHASE_NODE;
    deliver(e, now, q);
    const satin_msg *a = first_to(&f, 2, SATIN_MSG_STATS_REPLY);
    ok(sent_to(&f, 2, SATIN_MSG_STATS_REPLY) == 1 && a->job_id == 9 &&
           a->phase == SATIN_STATS_PHASE_NODE && a->stats.n > 0,
       "status: b0's request is answered with our figures");
    forget_sent(&f);
    satin_engine_destroy(&e);
    forget_sent(&f);
}

/* The ledger's copy of a stand-in's record refers to bytes the driver
 * keeps, copies them only when it must outlive them, and never frees them. */
static void test_ledger_kept_arg(void)
{
    satin_ledger l;
    satin_ledger_init(&l);
    unsigned char kept[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    char kind[] = "fib";
    satin_msg_jobrec jr = {.owner = 3, .record_id = 9, .kind = kind, .arg = kept,
                           .arg_len = sizeof kept, .arg_borrowed = 1};
    satin_ledger_add_standin(&l, &l, 3, 9, NULL, &jr, kept);
    satin_ledger_add_standin(&l, kind, 3, 10, NULL, &jr, NULL);
    satin_ledger_add_standin(&l, kept, 3, 11, NULL, &jr, kept);
    const satin_standin *a = satin_ledger_find_standin(&l, 3, 9);
    const satin_standin *b = satin_ledger_find_standin(&l, 3, 10);
    ok(a && a->rec->arg == kept && a->rec->arg_len == sizeof kept && a->rec->arg_borrowed &&
           strcmp(a->rec->kind, "fib") == 0 && a->rec->kind != kind,
       "ledger: a stand-in's record refers to the driver's kept bytes (its kind copied)");
    ok(b && b->rec->arg != kept && !b->rec->arg_borrowed &&
           memcmp(b->rec->arg, kept, sizeof kept) == 0,
       "ledger: without kept bytes it keeps a copy of its own");
    satin_standin s;
    is_i64(satin_ledger_take_standin(&l, &l, &s), 0, "ledger: the first stand-in taken");
    satin_ledger_own_arg(s.rec);
    kept[0] = 0xEE;
    ok(s.rec->arg != kept && !s.rec->arg_borrowed && s.rec->arg[0] == 1 &&
           memcmp(s.rec->arg + 1, kept + 1, sizeof kept - 1) == 0,
       "ledger: own_arg makes it a copy of its own, untouched by the driver's later writes");
    satin_ledger_free_rec(&s.rec);
    /* The third still refers to `kept`, on this stack: free() of it would
     * abort the test (and AddressSanitizer names it). */
    satin_ledger_free(&l);
    ok(kept[1] == 2 && kept[7] == 8,
       "ledger: freeing records that refer to kept bytes leaves those bytes alone");
}

int main(void)
{
    test_detection();
    test_timeouts_changed();
    test_untied_quiet();
    test_absent();
    test_redo();
    test_first_result_wins();
    test_no_redo_when_stopped();
    test_held_and_parked(0);
    test_held_and_parked(1);
    test_ledger_kept_arg();
    test_orphans();
    test_promise_ties();
    test_redo_keeps_place();
    test_restart();
    test_leaving();
    test_own_stall(0);
    test_own_stall(1);
    test_give_back();
    test_taken_back();
    test_ties_described();
    test_status_ties();
    return done_testing();
}
