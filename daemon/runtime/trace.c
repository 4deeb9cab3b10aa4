/*
 * trace.c - one traced run of a job record (trace.h).
 *
 * The root of the recorded tree must be timed like every other node, and the
 * runtime times only spawns (the hook is in the spawn's slow path, which a
 * traced pool takes for every spawn: untraced runs pay nothing).  So the job
 * that runs is a wrapper whose only work is to spawn the real root and hand
 * its result back; the wrapper itself is not recorded.
 */
#include "trace.h"
#include "pool_internal.h"
#include "result.h"

#include <stdio.h>
#include <string.h>

struct satin_trace {
    satin_trace_tree *tree;
    size_t last_len;      /* result length of the invocation that ended last */
    int as_passed;        /* the bytes passed, not data_size's: what a grid sends when
                           * the kind makes its data where a job runs */
};

int satin_trace_enter(satin_trace *t, satin_job *job)
{
    if (satin_trace_tree_begin(t->tree, satin_now_ns()) == 0)
        return 0;
    char msg[200];
    snprintf(msg, sizeof msg, "trace: %s", t->tree->error);
    satin_job_fail(job, msg);
    return -1;
}

void satin_trace_leave(satin_trace *t, const satin_task *task, const void *arg, size_t len,
                       size_t result_len)
{
    int64_t now = satin_now_ns();
    uint64_t arg_bytes = len, result_bytes = result_len;
    if (task->data_size && !t->as_passed)
        task->data_size(arg, len, result_len, &arg_bytes, &result_bytes);
    satin_trace_tree_data(t->tree, arg_bytes, result_bytes);
    satin_trace_tree_end(t->tree, now);
    t->last_len = result_len;
}

/* The wrapper's argument: the real root task, then its argument bytes,
 * 16-aligned as a record's are. */
#define WRAP_HEADER 16

static void trace_root_run(SATIN_FRAME, const void *arg, size_t len)
{
    (void)satin__n;
    const satin_task *real;
    memcpy(&real, arg, sizeof real);
    satin__spawn_queued(satin__f, 1, real, (const unsigned char *)arg + WRAP_HEADER,
                        len - WRAP_HEADER, satin__f->satin__out.slot, satin__f->satin__out.cap);
    satin_sync();
    /* The real root ended last: its length is the one to keep. */
    satin__f->satin__out.len = satin_worker_here()->pool->trace->last_len;
}

static int trace_root_check(const void *arg, size_t len, satin_err *err)
{
    (void)arg;
    (void)len;
    return satin_err_set(err, "trace-root runs only where it was started");
}

/* Not in a module: the runtime's own, never on the wire. */
static const satin_task trace_root = {
    .name = "trace-root",
    .check = trace_root_check,
    .run = trace_root_run,
};

void satin_trace_record(const satin_registry *reg, const char *kind_name,
                        const char *const *params, int64_t min_leaf_ns, size_t max_nodes,
                        int as_passed, satin_trace_tree *tree, satin_outcome *out)
{
    satin_trace_tree_init(tree, min_leaf_ns, max_nodes);
    const satin_kind *kind;
    satin_bytes arg;
    if (satin_record_prepare(reg, kind_name, params, SATIN_MAX_RECORD_DEFAULT, &kind, &arg,
                             out) < 0)
        return;
    satin_bytes wrapped;
    satin_err err = {""};
    satin_bytes_init(&wrapped, SATIN_MAX_RECORD_DEFAULT + WRAP_HEADER);
    unsigned char header[WRAP_HEADER] = {0};
    memcpy(header, &kind->root, sizeof kind->root);
    if (satin_bytes_put(&wrapped, header, sizeof header, &err) < 0 ||
        satin_bytes_put(&wrapped, arg.data, arg.len, &err) < 0) {
        out->failed = 1;
        snprintf(out->error, sizeof out->error, "%s", err.msg);
        satin_bytes_free(&arg);
        satin_bytes_free(&wrapped);
        return;
    }
    size_t result_cap = satin_job_root_result_size(kind, &arg);
    satin_bytes_free(&arg);

    satin_trace trace = {.tree = tree, .last_len = 0, .as_passed = as_passed};
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    pool->trace = &trace; /* published to the worker by the start's lock */
    satin_job *job = satin_job_new_task(&trace_root, wrapped.data, wrapped.len, result_cap);
    satin_job_set_values(job, kind->values);   /* the kind's search prunes as in satind */
    satin_bytes_free(&wrapped);
    satin_pool_run(pool, job);

    out->failed = satin_job_failed(job);
    snprintf(out->error, sizeof out->error, "%s", satin_job_error(job));
    out->wall_s = satin_job_wall_seconds(job);
    satin_job_stats(job, &out->stats);
    if (!out->failed && kind->format) {
        size_t len;
        const void *res = satin_job_result(job, &len);
        satin_result r, s;
        satin_result_init(&r, out->result);
        satin_result_init(&s, out->stats);
        kind->format(res, len, out->wall_s, &r, &s);
        out->result = satin_result_take_list(&r);
        out->stats = satin_result_take_list(&s);
        out->data = r.data;
        out->data_len = r.data_len;
        memcpy(out->data_type, r.data_type, sizeof out->data_type);
        satin_result_free_data(&s);
    }
    satin_job_destroy(&job);
    satin_pool_destroy(&pool);
}
