/* test_engine_values.c - grid-wide values between node engines
 * (engine_values.c), scripted in virtual time: node 0 of clusters {0,1}
 * {2,3} gives records of its job to a node of its cluster and to one
 * across the wide area, and the values follow them; growth goes to the
 * cluster at once and across at most once per 100 ms with the latest
 * state; updates from a neighbour reach the driver and the other
 * neighbours, never back; bad updates are refused, counted and logged
 * once; a record run here for another node brings its job's values; and
 * once the records are back, the job's entry closes. */
#include "engine_fake.h"

/* The driver's side of the values: its own copy per job (origin 0, the
 * fake pool's local job; origin 0xABC, a job of node 3 run here). */
typedef struct driver {
    satin_job_values *local, *remote;
    int decl_calls, state_calls, grew_calls;
    uint64_t grew_origin;
    uint32_t grew_mask;
} driver;
static driver drv;

static const satin_value_decl decls[2] = {{.name = "best", .op = SATIN_JOIN_MIN},
                                          {.name = "ids", .op = SATIN_JOIN_UNION, .bound = 4}};

static size_t d_value_decls(void *ctx, const void *job, const satin_value_decl **out)
{
    (void)ctx, (void)job;
    drv.decl_calls++;
    *out = decls;
    return 2;
}

static satin_job_values *copy_of(uint64_t origin)
{
    return origin == 0 ? drv.local : drv.remote;
}

static void d_value_states(void *ctx, uint64_t origin, satin_job_values *into)
{
    (void)ctx;
    drv.state_calls++;
    satin_job_values_merge(into, copy_of(origin));
}

static void d_values_grew(void *ctx, uint64_t origin, const satin_job_values *vals, uint32_t grew)
{
    (void)ctx;
    drv.grew_calls++;
    drv.grew_origin = origin;
    drv.grew_mask = grew;
    satin_job_values_merge(copy_of(origin), vals);
}

static satin_engine *make_values(fake *f)
{
    memset(f, 0, sizeof *f);
    f->give_back_from = -1;
    satin_policy_topology topo = kit_topology(0);
    satin_engine_config cfg;
    satin_engine_config_default(&cfg);
    cfg.topo = &topo;
    cfg.node_names = kit_names;
    cfg.policy = satin_policy_find("rs");
    cfg.max_record = 64;
    satin_engine_env env = {
        .ctx = f, .send = f_send, .take = f_take, .complete = f_complete, .start = f_start,
        .cancel = f_cancel, .release = f_release, .job_stopping = f_job_stopping,
        .queue_length = f_queue_length, .is_idle = f_is_idle, .active_jobs = f_active,
        .note_bad = f_note_bad, .log = f_log, .describe = f_describe,
        .value_decls = d_value_decls, .value_states = d_value_states,
        .values_grew = d_values_grew};
    return satin_engine_new(&cfg, &env, 0);
}

/* The value named `name` in message m: its scalar, or -1 when m lacks it. */
static int64_t carried(const satin_msg *m, const char *name)
{
    for (size_t i = 0; i < m->nvalues; i++)
        if (strcmp(m->values[i].name, name) == 0)
            return m->values[i].op == SATIN_VALUE_UNION ? (int64_t)m->values[i].nelems
                                                        : m->values[i].scalar;
    return -1;
}

/* How many of the messages sent are VALUES to `to`. */
static int values_to(const fake *f, int to)
{
    int n = 0;
    for (int i = 0; i < f->nout; i++)
        n += f->out[i].to == to && f->out[i].m->type == SATIN_MSG_VALUES;
    return n;
}

static const satin_msg *last_values_to(const fake *f, int to)
{
    for (int i = f->nout; i-- > 0;)
        if (f->out[i].to == to && f->out[i].m->type == SATIN_MSG_VALUES)
            return f->out[i].m;
    return NULL;
}

static satin_msg *values_from(int sender, uint64_t origin)
{
    satin_msg *m = from(sender, SATIN_MSG_VALUES);
    m->origin = origin;
    return m;
}

static void join_here(satin_engine *e, int64_t now, uint64_t origin, int64_t best)
{
    char err[128];
    satin_job_values *v = copy_of(origin);
    if (satin_job_values_join_i64(v, "best", SATIN_JOIN_MIN, best, err, sizeof err) > 0)
        satin_engine_values_grew(e, now, origin, v, 0x1);
}

static int64_t best_of(const satin_job_values *v)
{
    return satin_job_values_state(v, 0)->scalar;
}

static void result_from(satin_engine *e, int64_t now, int holder, uint64_t record_id)
{
    satin_msg *r = from(holder, SATIN_MSG_JOB_RESULT);
    r->owner = 0;
    r->record_id = record_id;
    int64_t value = 1;
    satin_msg_set_data(r, &value, sizeof value);
    deliver(e, now, r);
}

int main(void)
{
    char err[128];
    drv.local = satin_job_values_new(decls, 2, err, sizeof err);
    drv.remote = satin_job_values_new(decls, 2, err, sizeof err);
    satin_job_values_join_i64(drv.local, "best", SATIN_JOIN_MIN, 100, err, sizeof err);

    fake f;
    satin_engine *e = make_values(&f);
    static rec r1 = {.arg = 10}, r2 = {.arg = 11};
    f.queue[f.nqueue++] = &r1;
    f.queue[f.nqueue++] = &r2;
    f.active = 1;

    /* Records leave, the values right behind them. */
    deliver(e, 1 * MS, steal_from(1, 1, 0));
    ok(f.nout == 2 && f.out[0].m->type == SATIN_MSG_STEAL_REPLY && f.out[0].m->njobrecs == 1 &&
           f.out[1].to == 1 && f.out[1].m->type == SATIN_MSG_VALUES,
       "a record to a1 (its cluster): the STEAL_REPLY, then VALUES");
    uint64_t rid1 = f.out[0].m->jobrecs[0].record_id;
    ok(f.out[1].m->origin == 0 && f.out[1].m->nvalues == 1 && carried(f.out[1].m, "best") == 100,
       "the VALUES carry the job's one value that holds something: best=100");
    is_i64(drv.decl_calls, 1, "the job's declarations were asked for once");
    is_i64(drv.state_calls, 1, "and the driver's states, once, as the entry opened");
    forget_sent(&f);
    deliver(e, 2 * MS, steal_from(2, 2, 0));
    ok(f.nout == 2 && f.out[0].to == 2 && f.out[0].m->njobrecs == 1 && f.out[1].to == 2 &&
           f.out[1].m->type == SATIN_MSG_VALUES && carried(f.out[1].m, "best") == 100,
       "a record to b0 (across the wide area): the values at once too, with the record");
    uint64_t rid2 = f.out[0].m->jobrecs[0].record_id;
    is_i64(drv.decl_calls, 1, "the second neighbour: the entry is the job's, no new one");
    is_i64((int64_t)satin_engine_values_jobs(e), 1, "one job's values passed on");
    forget_sent(&f);

    /* Growth here: the cluster at once, the wide area batched. */
    join_here(e, 10 * MS, 0, 90);
    ok(values_to(&f, 1) == 1 && carried(last_values_to(&f, 1), "best") == 90 && values_to(&f, 2) == 0,
       "best=90 here at 10 ms: a1 has it at once, b0 not yet");
    is_i64(satin_engine_next_deadline(e) <= 102 * MS, 1,
           "the engine wants to run by 102 ms, when b0's link may send again");
    join_here(e, 50 * MS, 0, 80);
    ok(values_to(&f, 1) == 2 && carried(last_values_to(&f, 1), "best") == 80 && values_to(&f, 2) == 0,
       "best=80 at 50 ms: a1 again at once, b0 still waits");
    satin_engine_on_tick(e, 101 * MS);
    ok(values_to(&f, 2) == 0, "at 101 ms (99 ms after b0's last): not yet");
    satin_engine_on_tick(e, 102 * MS);
    ok(values_to(&f, 2) == 1 && carried(last_values_to(&f, 2), "best") == 80,
       "at 102 ms: one message to b0, with the latest state (80; 90 never crossed)");
    forget_sent(&f);

    /* An update from a1: the driver and b0 hear it, a1 does not. */
    satin_msg *v = values_from(1, 0);
    satin_msg_add_value(v, "best", SATIN_VALUE_MIN, 1, 70, NULL, 0);
    uint64_t ids[2] = {5, 9};
    satin_msg_add_value(v, "ids", SATIN_VALUE_UNION, 0, 0, ids, 2);
    deliver(e, 120 * MS, v);
    ok(drv.grew_calls == 1 && drv.grew_origin == 0 && drv.grew_mask == 0x3,
       "VALUES from a1 (best 70, ids {5,9}): the driver is told both grew");
    ok(best_of(drv.local) == 70 && satin_job_values_state(drv.local, 1)->n == 2,
       "and its copy holds them");
    is_i64(f.nout, 0, "nothing goes back to a1, and b0's link waits (sent at 102 ms)");
    satin_engine_on_tick(e, 202 * MS);
    ok(values_to(&f, 2) == 1 && carried(last_values_to(&f, 2), "best") == 70 &&
           carried(last_values_to(&f, 2), "ids") == 2 && values_to(&f, 1) == 0,
       "at 202 ms b0 gets both, in one message");
    forget_sent(&f);
    v = values_from(1, 0);
    satin_msg_add_value(v, "best", SATIN_VALUE_MIN, 1, 75, NULL, 0);
    deliver(e, 210 * MS, v);
    ok(drv.grew_calls == 1 && f.nout == 0, "an update already in the state: no news, nothing sent");

    /* Refused: counted, logged once, nothing changed. */
    int warns = f.warns;
    v = values_from(1, 0);
    satin_msg_add_value(v, "worst", SATIN_VALUE_MIN, 1, 1, NULL, 0);
    deliver(e, 220 * MS, v);
    is_str(f.last_log, "refused a value update of job 0000000000000000 from node a1: no value "
           "named 'worst' was declared by the job (logged once per job; counted as values_refused)",
           "an undeclared name: refused, and the log says what and from whom");
    v = values_from(1, 0);
    satin_msg_add_value(v, "best", SATIN_VALUE_MAX, 1, 1000, NULL, 0);
    deliver(e, 221 * MS, v);
    uint64_t many[5] = {1, 2, 3, 4, 6};
    v = values_from(1, 0);
    satin_msg_add_value(v, "ids", SATIN_VALUE_UNION, 0, 0, many, 5);
    deliver(e, 222 * MS, v);
    is_i64(f.warns - warns, 1, "three refusals, one log line");
    is_i64(kit_counter(e, "values_refused"), 3, "values_refused: 3 (a name, a join, a set too large)");
    ok(best_of(drv.local) == 70 && satin_job_values_state(drv.local, 1)->n == 2 &&
           drv.grew_calls == 1 && f.nout == 0,
       "nothing changed, nobody told");
    v = values_from(1, 77);
    satin_msg_add_value(v, "best", SATIN_VALUE_MIN, 1, 1, NULL, 0);
    deliver(e, 223 * MS, v);
    is_i64(kit_counter(e, "values_late"), 1, "values of a job that does not run here: values_late");

    /* A record of node 3's job run here: its values come to it, and ours go home. */
    int64_t arg = 7;
    satin_msg *p = from(3, SATIN_MSG_PUSH);
    satin_msg_add_jobrec(p, 3, 44, 0, "fib", 8, &arg, sizeof arg);
    p->jobrecs[0].origin = 0xABC;
    deliver(e, 300 * MS, p);
    ok(f.starts == 1 && values_to(&f, 3) == 0,
       "a record of node 3's job starts here; its values hold nothing yet: none sent");
    is_i64((int64_t)satin_engine_values_jobs(e), 2, "two jobs' values passed on now");
    forget_sent(&f);
    v = values_from(3, 0xABC);
    satin_msg_add_value(v, "best", SATIN_VALUE_MIN, 1, 500, NULL, 0);
    deliver(e, 301 * MS, v);
    ok(drv.grew_calls == 2 && drv.grew_origin == 0xABC && best_of(drv.remote) == 500,
       "its owner's best (500) reaches the driver's copy of that job");
    join_here(e, 302 * MS, 0xABC, 400);
    ok(values_to(&f, 3) == 1 && carried(last_values_to(&f, 3), "best") == 400,
       "a better one found here (400) goes home across the wide area at once (the link's first)");
    ok(values_to(&f, 1) == 0 && values_to(&f, 2) == 0, "and to nobody else: they run the other job");
    forget_sent(&f);

    /* The records come back: the entries close at the next sweep. */
    result_from(e, 400 * MS, 1, rid1);
    result_from(e, 401 * MS, 2, rid2);
    satin_engine_on_standin_done(e, 402 * MS, f.standin_handles[0],
                                 &(satin_engine_outcome){.ok = 1, .data = &arg, .len = sizeof arg});
    free(f.standin_handles[0]);
    ok(r1.completed == 1 && r2.completed == 1, "both records given away came back");
    satin_engine_on_tick(e, 1500 * MS);
    is_i64((int64_t)satin_engine_values_jobs(e), 0, "no ties left: the sweep closed both jobs' entries");
    is_i64(satin_engine_next_deadline(e) == INT64_MAX || satin_engine_next_deadline(e) > 2000 * MS, 1,
           "and nothing of them is due any more");
    forget_sent(&f);
    join_here(e, 1600 * MS, 0, 60);
    is_i64(f.nout, 0, "growth with no neighbour: nothing to send (a record that leaves takes it)");

    is_i64(kit_counter(e, "values_sent"), 7, "values_sent: 7 (a1 three times, b0 three, b1 once)");
    is_i64(kit_counter(e, "values_sent_wan"), 4, "values_sent_wan: 4 (b0's and b1's)");
    is_i64(kit_counter(e, "values_received"), 7, "values_received: 7");
    is_i64(kit_counter(e, "values_grown"), 2, "values_grown: 2");

    satin_engine_destroy(&e);
    forget_sent(&f);
    satin_job_values_destroy(&drv.local);
    satin_job_values_destroy(&drv.remote);
    return done_testing();
}
