/* kinds.c - finding kinds by name, preparing and formatting their records. */
#include "kinds.h"
#include "result.h"

#include <stdio.h>
#include <string.h>

const satin_kind *satin_kinds_find(const satin_kind *const *kinds, const char *name)
{
    for (const satin_kind *const *k = kinds; *k; k++)
        if (strcmp((*k)->name, name) == 0)
            return *k;
    return NULL;
}

int satin_kind_prepare(const satin_kind *kind, satin_params *params,
                       size_t max_record, satin_bytes *arg, satin_err *err)
{
    satin_bytes_init(arg, max_record);
    if (satin_params_check(params, kind, err) < 0)
        return -1;
    if (kind->parse(params, arg, err) < 0) {
        satin_bytes_free(arg);
        return -1;
    }
    return 0;
}

void satin_kind_format(const satin_job *job, satin_kvlist *result, satin_kvlist *stats)
{
    const satin_kind *kind = satin_job_kind(job);
    satin_job_stats(job, stats);
    if (satin_job_failed(job) || !kind->format)
        return;
    size_t len;
    const void *res = satin_job_result(job, &len);
    satin_result r = {*result}, s = {*stats};
    kind->format(res, len, satin_job_wall_seconds(job), &r, &s);
    *result = r.list;
    *stats = s.list;
}

int satin_record_prepare(const satin_kind *const *kinds, const char *kind_name,
                         const char *const *params, size_t max_record,
                         const satin_kind **kind_out, satin_bytes *arg, satin_outcome *out)
{
    memset(out, 0, sizeof *out);
    satin_kvlist_init(&out->result);
    satin_kvlist_init(&out->stats);
    satin_err err = {""};
    const satin_kind *kind = satin_kinds_find(kinds, kind_name);
    if (!kind) {
        out->failed = 1;
        snprintf(out->error, sizeof out->error, "unknown job kind '%s'", kind_name);
        return -1;
    }
    satin_params *p = satin_params_new();
    satin_bytes_init(arg, max_record);
    int rc = 0;
    for (const char *const *kv = params; kv && *kv && rc == 0; kv++)
        rc = satin_params_add_text(p, *kv, &err);
    if (rc == 0)
        rc = satin_kind_prepare(kind, p, max_record, arg, &err);
    satin_params_destroy(&p);
    if (rc < 0) {
        out->failed = 1;
        snprintf(out->error, sizeof out->error, "%s", err.msg);
        satin_bytes_free(arg);
        return -1;
    }
    *kind_out = kind;
    return 0;
}

void satin_run_record(satin_pool *pool, const satin_kind *const *kinds, const char *kind_name,
                      const char *const *params, satin_outcome *out)
{
    const satin_kind *kind;
    satin_bytes arg;
    if (satin_record_prepare(kinds, kind_name, params, satin_pool_max_record(pool), &kind, &arg,
                             out) < 0)
        return;
    satin_job *job = satin_job_new(kind, arg.data, arg.len);
    satin_bytes_free(&arg);
    satin_pool_run(pool, job);
    out->failed = satin_job_failed(job);
    snprintf(out->error, sizeof out->error, "%s", satin_job_error(job));
    out->wall_s = satin_job_wall_seconds(job);
    satin_kind_format(job, &out->result, &out->stats);
    satin_job_destroy(&job);
}

void satin_outcome_free(satin_outcome *out)
{
    satin_kvlist_free(&out->result);
    satin_kvlist_free(&out->stats);
}
