/*
 * fuzz_params.c - libFuzzer target for the job kinds' parameter parsers.
 *
 * A SUBMIT's key=value parameters come straight from the network, and
 * satind turns them into a job on its control thread (daemon/control.c,
 * on_submit): satin_params_add for each pair, satin_kind_prepare (unknown
 * and missing keys, defaults, then the kind's own parser), satin_job_new.
 * This target takes the same path up to, not including, running the job.
 * Whatever the parameters, that path must end in a job or in an error
 * message for the user, and the ERROR reply carrying that message must be
 * sendable.
 *
 * Input layout: byte 0 picks the kind, (byte & 0x7F) % number of kinds,
 * and the record limit: bit 7 set, the smallest --max-record (1024 bytes),
 * else the default.  The rest of the first line is a label: when it is a
 * kind's name, that kind is used instead, so that the committed seeds
 * ("#fib\nn=30\n") keep meaning the same kind when kinds are added or
 * reordered in daemon/apps/apps.c.  The other lines are the parameters.
 * A line with '=' is a key and a value split at the first '=', as the
 * wire carries them; a line without one goes through
 * satin_params_add_text, the local path (satin_run_record), which must
 * refuse it.  Empty lines are skipped: the wire has no empty keys.
 */
#include "apps.h"
#include "kinds.h"
#include "params.h"
#include "pool.h"
#include "fuzz_reply.h"
#include "satin_proto.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The built-in kinds, linked in whole (mk/fuzz.mk). */
static const satin_registry *kinds(void)
{
    static satin_registry *reg;
    if (!reg)
        reg = satin_registry_linked(satin_module_entry());
    return reg;
}

/* The ERROR satind sends for bad parameters must encode (the message may
 * quote the user's bytes, cut anywhere by the 256-byte buffer). */
static void check_reply(const satin_kind *kind, const satin_err *err)
{
    char text[512];
    snprintf(text, sizeof text, "%s: %s", kind->name, err->msg);
    fuzz_error_reply_must_encode(0, SATIN_PROTO_BAD_PARAMS, text);
}

/* Adds one line; 0 or -1 with err set. */
static int add_line(satin_params *p, char *line, satin_err *err)
{
    char *eq = strchr(line, '=');
    if (!eq)
        return satin_params_add_text(p, line, err);
    *eq = '\0';
    return satin_params_add(p, line, eq + 1, err);
}

/* The daemon's path for the newline-separated parameter lines (cut up in
 * place): 0 with the argument in *arg, or -1 with err set. */
static int prepare(const satin_kind *kind, char *lines, size_t max_record, satin_bytes *arg,
                   satin_err *err)
{
    satin_params *params = satin_params_new();
    int rc = 0;
    memset(arg, 0, sizeof *arg);
    err->msg[0] = '\0';
    for (char *line = lines, *next; line && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (*line)
            rc = add_line(params, line, err);
    }
    if (rc == 0)
        rc = satin_kind_prepare(kind, params, max_record, arg, err);
    satin_params_destroy(&params);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t nkinds = satin_registry_nkinds(kinds());
    if (size == 0 || nkinds == 0)
        return 0;
    const satin_kind *kind = satin_registry_kind_at(kinds(), (data[0] & 0x7Fu) % nkinds);
    size_t max_record = data[0] & 0x80u ? 1024 : SATIN_MAX_RECORD_DEFAULT;

    /* A NUL-terminated copy (a NUL inside a line ends it early, as no NUL
     * can come over the wire); its first line is the label. */
    char *text = malloc(size);
    if (!text)
        abort();
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *lines = strchr(text, '\n');
    if (lines)
        *lines++ = '\0';
    const satin_kind *named = satin_registry_kind(kinds(), text);
    if (named)
        kind = named;

    satin_bytes arg;
    satin_err err;
    int rc = prepare(kind, lines, max_record, &arg, &err);
    free(text);

    if (rc < 0) {
        if (!err.msg[0] || !memchr(err.msg, '\0', sizeof err.msg))
            abort();
        check_reply(kind, &err);
        satin_bytes_free(&arg);
        return 0;
    }
    if (arg.len > max_record || (arg.len > 0 && !arg.data))
        abort();
    satin_job *job = satin_job_new(kind, arg.data, arg.len);
    satin_job_destroy(&job);
    satin_bytes_free(&arg);
    return 0;
}
