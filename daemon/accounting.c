/* accounting.c - a finished job's record, to the journal and a JSON-lines file (accounting.h). */
#include "accounting.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

/* ISO 8601 in UTC with milliseconds: "2026-11-26T08:42:49.123Z". */
static void iso_time(int64_t ns, char *buf, size_t len)
{
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%03dZ", (int)(ns % 1000000000 / 1000000));
}

static void time_field(satin_json *j, const char *key, int64_t ns)
{
    char t[40];
    satin_json_key(j, key);
    if (!ns) {
        satin_json_null(j);
        return;
    }
    iso_time(ns, t, sizeof t);
    satin_json_str(j, t);
}

static double seconds(int64_t from, int64_t to)
{
    return from && to >= from ? (double)(to - from) / 1e9 : 0;
}

static void kv_object(satin_json *j, const char *key, const satin_kvlist *l)
{
    satin_json_key(j, key);
    satin_json_object_begin(j);
    for (size_t i = 0; l && i < l->n; i++)
        satin_json_kv(j, &l->items[i]);
    satin_json_object_end(j);
}

char *satin_account_json(const satin_job_account *a)
{
    satin_json j;
    satin_json_init(&j);
    satin_json_object_begin(&j);
    satin_json_key(&j, "job");
    satin_json_u64(&j, a->job_id);
    satin_json_key(&j, "name");
    satin_json_str(&j, a->name ? a->name : "");
    satin_json_key(&j, "node");
    satin_json_str(&j, a->node);
    satin_json_key(&j, "owner");
    satin_json_str(&j, a->owner ? a->owner : "");
    satin_json_key(&j, "owner_uid");
    if (a->owner_uid >= 0)
        satin_json_i64(&j, a->owner_uid);
    else
        satin_json_null(&j);
    satin_json_key(&j, "kind");
    satin_json_str(&j, a->kind);
    satin_json_key(&j, "params");
    satin_json_object_begin(&j);
    for (size_t i = 0; a->params && i < a->params->n; i++) {
        satin_json_key(&j, a->params->items[i].name);
        satin_json_str(&j, a->params->items[i].str);
    }
    satin_json_object_end(&j);
    satin_json_key(&j, "status");
    satin_json_str(&j, a->status);
    satin_json_key(&j, "error");
    satin_json_str(&j, a->error && *a->error ? a->error : NULL);
    time_field(&j, "submitted", a->submitted_ns);
    time_field(&j, "started", a->started_ns);
    time_field(&j, "finished", a->finished_ns);
    satin_json_key(&j, "wait_s");
    satin_json_f64(&j, seconds(a->submitted_ns, a->started_ns ? a->started_ns : a->finished_ns));
    satin_json_key(&j, "run_s");
    satin_json_f64(&j, seconds(a->started_ns, a->finished_ns));
    kv_object(&j, "result", a->result);
    kv_object(&j, "stats", a->stats);
    satin_json_object_end(&j);
    size_t len = strlen(satin_json_text(&j));
    char *line = malloc(len + 2);
    if (!line)
        abort();
    memcpy(line, satin_json_text(&j), len);
    line[len] = '\n';
    line[len + 1] = '\0';
    satin_json_free(&j);
    return line;
}

int satin_account_write(const satin_job_account *a, const char *file)
{
    char params[1024], submitted[40] = "", run[32], uid[24] = "";
    satin_kvlist_pairs_text(a->params, params, sizeof params);
    if (a->submitted_ns)
        iso_time(a->submitted_ns, submitted, sizeof submitted);
    snprintf(run, sizeof run, "%.6f", seconds(a->started_ns, a->finished_ns));
    if (a->owner_uid >= 0)
        snprintf(uid, sizeof uid, "%lld", a->owner_uid);
    /* Without a journal (a foreground satind in a container) this fails
     * quietly: the file is the record there. */
    sd_journal_send("MESSAGE=job %" PRIu64 " (%s) %s", a->job_id, a->kind, a->status,
                    "PRIORITY=6", "SYSLOG_IDENTIFIER=satind", "SATIN_JOB_ID=%" PRIu64, a->job_id,
                    "SATIN_NODE=%s", a->node, "SATIN_OWNER=%s", a->owner ? a->owner : "",
                    "SATIN_OWNER_UID=%s", uid, "SATIN_KIND=%s", a->kind, "SATIN_JOB_NAME=%s", a->name ? a->name : "",
                    "SATIN_PARAMS=%s", params,
                    "SATIN_STATUS=%s", a->status, "SATIN_ERROR=%s", a->error ? a->error : "",
                    "SATIN_SUBMITTED=%s", submitted, "SATIN_RUN_S=%s", run, NULL);
    if (!file || !*file)
        return 0;
    char *line = satin_account_json(a);
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    int rc = -1;
    if (fd >= 0) {
        size_t len = strlen(line);
        /* One write(2) of the whole line: O_APPEND keeps lines whole. */
        rc = write(fd, line, len) == (ssize_t)len ? 0 : -1;
        int saved = errno;
        close(fd);
        errno = saved;
    }
    free(line);
    return rc;
}
