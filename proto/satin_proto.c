/*
 * satin_proto.c - satin_msg <-> (header frame, body frame).
 * The byte layouts are specified in PROTOCOL.md; this file follows its
 * sections in order.  Bounds checking lives in satin_wire.c.
 */
#include "satin_proto.h"
#include "satin_wire.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names -------------------------------------------------------------- */

static const char *const type_names[] = {
    [SATIN_MSG_SUBMIT] = "SUBMIT",
    [SATIN_MSG_ACCEPTED] = "ACCEPTED",
    [SATIN_MSG_PROGRESS] = "PROGRESS",
    [SATIN_MSG_RESULT] = "RESULT",
    [SATIN_MSG_ERROR] = "ERROR",
    [SATIN_MSG_WAIT] = "WAIT",
    [SATIN_MSG_CANCEL] = "CANCEL",
    [SATIN_MSG_OK] = "OK",
    [SATIN_MSG_STATUS] = "STATUS",
    [SATIN_MSG_STATUS_REPLY] = "STATUS_REPLY",
    [SATIN_MSG_LIST_KINDS] = "LIST_KINDS",
    [SATIN_MSG_KINDS] = "KINDS",
    [SATIN_MSG_LIST] = "LIST",
    [SATIN_MSG_JOBS] = "JOBS",
    [SATIN_MSG_GRID_STATUS] = "GRID_STATUS",
    [SATIN_MSG_GRID] = "GRID",
    [SATIN_MSG_HELLO] = "HELLO",
    [SATIN_MSG_STEAL] = "STEAL",
    [SATIN_MSG_STEAL_REPLY] = "STEAL_REPLY",
    [SATIN_MSG_PUSH] = "PUSH",
    [SATIN_MSG_PUSH_ACK] = "PUSH_ACK",
    [SATIN_MSG_JOB_RESULT] = "JOB_RESULT",
    [SATIN_MSG_LOAD] = "LOAD",
    [SATIN_MSG_STEAL_CANCEL] = "STEAL_CANCEL",
    [SATIN_MSG_JOB_CANCEL] = "JOB_CANCEL",
    [SATIN_MSG_STATS_REQUEST] = "STATS_REQUEST",
    [SATIN_MSG_STATS_REPLY] = "STATS_REPLY",
    [SATIN_MSG_HEARTBEAT] = "HEARTBEAT",
    [SATIN_MSG_ORPHAN] = "ORPHAN",
    [SATIN_MSG_JOBS_REQUEST] = "JOBS_REQUEST",
    [SATIN_MSG_JOBS_REPLY] = "JOBS_REPLY",
    [SATIN_MSG_VALUES] = "VALUES",
};
#define NTYPES (sizeof type_names / sizeof type_names[0])

static int type_known(int type)
{
    return type > 0 && (size_t)type < NTYPES && type_names[type];
}

int satin_msg_is_request(int type)
{
    return type == SATIN_MSG_SUBMIT || type == SATIN_MSG_WAIT || type == SATIN_MSG_CANCEL ||
           type == SATIN_MSG_STATUS || type == SATIN_MSG_LIST_KINDS || type == SATIN_MSG_LIST ||
           type == SATIN_MSG_GRID_STATUS;
}

int satin_msg_is_peer(int type)
{
    return type >= SATIN_MSG_HELLO && type <= SATIN_MSG_VALUES;
}

const char *satin_msg_type_name(int type)
{
    return type_known(type) ? type_names[type] : "UNKNOWN";
}

const char *satin_proto_code_name(int code)
{
    switch (code) {
    case SATIN_PROTO_OK: return "ok";
    case SATIN_PROTO_BAD_MESSAGE: return "bad message";
    case SATIN_PROTO_UNKNOWN_KIND: return "unknown kind";
    case SATIN_PROTO_BAD_PARAMS: return "bad parameters";
    case SATIN_PROTO_TOO_LARGE: return "too large";
    case SATIN_PROTO_UNKNOWN_JOB: return "unknown job";
    case SATIN_PROTO_SHUTTING_DOWN: return "shutting down";
    case SATIN_PROTO_LIMIT_REACHED: return "limit reached";
    case SATIN_PROTO_UNSUPPORTED_VERSION: return "unsupported version";
    case SATIN_PROTO_FORBIDDEN: return "forbidden";
    default: return "unknown error";
    }
}

/* ---- construction ------------------------------------------------------- */

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        abort();
    return p;
}

static void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p)
        abort();
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s ? s : "");
    char *d = xcalloc(1, n + 1);
    memcpy(d, s ? s : "", n);
    return d;
}

satin_msg *satin_msg_new(int type)
{
    if (!type_known(type))
        return NULL;
    satin_msg *m = xcalloc(1, sizeof *m);
    m->type = type;
    m->version = SATIN_PROTO_VERSION;
    satin_kvlist_init(&m->result);
    satin_kvlist_init(&m->stats);
    satin_kvlist_init(&m->info);
    return m;
}

static void free_kind(satin_msg_kind *k)
{
    for (size_t j = 0; j < k->nparams; j++) {
        free(k->params[j].name);
        free(k->params[j].def);
        free(k->params[j].help);
    }
    free(k->params);
    free(k->name);
    free(k->module);
    free(k->module_version);
    free(k->summary);
}

void satin_msg_destroy(satin_msg **self)
{
    if (!self || !*self)
        return;
    satin_msg *m = *self;
    free(m->kind);
    free(m->job_name);
    free(m->asker_key);
    free(m->error);
    free(m->data_type);
    for (size_t i = 0; i < m->nparams; i++) {
        free(m->params[i].key);
        free(m->params[i].value);
    }
    free(m->params);
    satin_kvlist_free(&m->result);
    satin_kvlist_free(&m->stats);
    satin_kvlist_free(&m->info);
    for (size_t i = 0; i < m->njobs; i++)
        satin_kvlist_free(&m->jobs[i]);
    free(m->jobs);
    for (size_t i = 0; i < m->nkinds; i++)
        free_kind(&m->kinds[i]);
    free(m->kinds);
    free(m->grid_name);
    free(m->node_id);
    for (size_t i = 0; i < m->nmodules; i++) {
        free(m->modules[i].name);
        free(m->modules[i].version);
        for (size_t j = 0; j < m->modules[i].ntasks; j++)
            free(m->modules[i].tasks[j]);
        free(m->modules[i].tasks);
    }
    free(m->modules);
    for (size_t i = 0; i < m->njobrecs; i++) {
        free(m->jobrecs[i].kind);
        if (!m->jobrecs[i].arg_borrowed)
            free(m->jobrecs[i].arg);
    }
    free(m->jobrecs);
    if (!m->data_borrowed)
        free(m->data);
    free(m->record_ids);
    for (size_t i = 0; i < m->nvalues; i++) {
        free(m->values[i].name);
        free(m->values[i].elems);
    }
    free(m->values);
    if (m->keep_free)
        m->keep_free(m->keep);
    free(m);
    *self = NULL;
}

void satin_msg_set_kind(satin_msg *self, const char *kind)
{
    free(self->kind);
    self->kind = xstrdup(kind);
}

void satin_msg_set_job_name(satin_msg *self, const char *name)
{
    free(self->job_name);
    self->job_name = name && *name ? xstrdup(name) : NULL;
}

/* Makes human text always sendable: invalid UTF-8 bytes become '?' (an
 * error often quotes something that came from outside), and text longer
 * than a str can carry is cut on a character boundary. */
static char *sendable_text(const char *text)
{
    char *s = xstrdup(text);
    size_t len = strlen(s), i = 0;
    while (i < len) {
        size_t n = satin_wire_utf8_char((const unsigned char *)s + i, len - i);
        if (n == 0) {
            s[i] = '?';
            n = 1;
        }
        if (i + n > SATIN_PROTO_STR_MAX)
            break;
        i += n;
    }
    s[i] = '\0';
    return s;
}

void satin_msg_set_error(satin_msg *self, const char *text)
{
    free(self->error);
    self->error = sendable_text(text);
}

void satin_msg_set_errorf(satin_msg *self, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {   /* an encoding error in the arguments: say so, don't fail */
        satin_msg_set_error(self, "(error text could not be formatted)");
        return;
    }
    char *buf = xcalloc(1, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    va_end(ap);
    satin_msg_set_error(self, buf);
    free(buf);
}

int satin_msg_add_param(satin_msg *self, const char *key, const char *value)
{
    if (self->nparams >= SATIN_PROTO_MAX_PARAMS)
        return -1;
    self->params = xrealloc(self->params, (self->nparams + 1) * sizeof *self->params);
    self->params[self->nparams].key = xstrdup(key);
    self->params[self->nparams].value = xstrdup(value);
    self->nparams++;
    return 0;
}

const char *satin_msg_param_value(const satin_msg *self, const char *key)
{
    for (size_t i = 0; i < self->nparams; i++)
        if (self->params[i].key && key && strcmp(self->params[i].key, key) == 0)
            return self->params[i].value ? self->params[i].value : "";
    return NULL;
}

/* Entries of a JOBS or GRID message, at most. */
static size_t max_entries(int type)
{
    return type == SATIN_MSG_GRID ? SATIN_PROTO_MAX_GRID_NODES : SATIN_PROTO_MAX_LISTED;   /* JOBS, JOBS_REPLY */
}

satin_kvlist *satin_msg_add_job(satin_msg *m)
{
    if (m->njobs >= max_entries(m->type))
        return NULL;
    satin_kvlist *jobs = realloc(m->jobs, (m->njobs + 1) * sizeof *jobs);
    if (!jobs)
        abort();
    m->jobs = jobs;
    satin_kvlist_init(&m->jobs[m->njobs]);
    return &m->jobs[m->njobs++];
}

int satin_msg_add_module(satin_msg *self, const char *name, const char *version,
                         const unsigned char digest[SATIN_PROTO_DIGEST_SIZE])
{
    if (self->nmodules >= SATIN_PROTO_MAX_MODULES)
        return -1;
    self->modules = xrealloc(self->modules, (self->nmodules + 1) * sizeof *self->modules);
    satin_msg_module *mod = &self->modules[self->nmodules++];
    memset(mod, 0, sizeof *mod);
    mod->name = xstrdup(name);
    mod->version = xstrdup(version);
    memcpy(mod->digest, digest, sizeof mod->digest);
    return 0;
}

int satin_msg_add_module_task(satin_msg *self, const char *task)
{
    if (self->nmodules == 0)
        return -1;
    satin_msg_module *mod = &self->modules[self->nmodules - 1];
    if (mod->ntasks >= SATIN_PROTO_MAX_MODULE_TASKS)
        return -1;
    mod->tasks = xrealloc(mod->tasks, (mod->ntasks + 1) * sizeof *mod->tasks);
    mod->tasks[mod->ntasks++] = xstrdup(task);
    return 0;
}

int satin_msg_add_kind(satin_msg *self, const char *name, const char *summary)
{
    if (self->nkinds >= SATIN_PROTO_MAX_KINDS)
        return -1;
    self->kinds = xrealloc(self->kinds, (self->nkinds + 1) * sizeof *self->kinds);
    satin_msg_kind *k = &self->kinds[self->nkinds++];
    memset(k, 0, sizeof *k);
    k->name = xstrdup(name);
    k->summary = xstrdup(summary);
    k->module = xstrdup("");
    k->module_version = xstrdup("");
    return 0;
}

int satin_msg_set_kind_module(satin_msg *self, const char *module, const char *version)
{
    if (self->nkinds == 0)
        return -1;
    satin_msg_kind *k = &self->kinds[self->nkinds - 1];
    free(k->module);
    free(k->module_version);
    k->module = xstrdup(module);
    k->module_version = xstrdup(version);
    return 0;
}

int satin_msg_add_kind_param(satin_msg *self, const char *name, const char *def,
                             int required, const char *help)
{
    if (self->nkinds == 0)
        return -1;
    satin_msg_kind *k = &self->kinds[self->nkinds - 1];
    if (k->nparams >= SATIN_PROTO_MAX_KIND_PARAMS)
        return -1;
    k->params = xrealloc(k->params, (k->nparams + 1) * sizeof *k->params);
    satin_msg_kind_param *p = &k->params[k->nparams++];
    p->name = xstrdup(name);
    p->def = xstrdup(def);
    p->flags = (required ? SATIN_KIND_PARAM_REQUIRED : 0u) |
               (def ? SATIN_KIND_PARAM_HAS_DEFAULT : 0u);
    p->help = xstrdup(help);
    return 0;
}

void satin_msg_set_grid_name(satin_msg *self, const char *name)
{
    free(self->grid_name);
    self->grid_name = xstrdup(name);
}

void satin_msg_set_node_id(satin_msg *self, const char *id)
{
    free(self->node_id);
    self->node_id = xstrdup(id);
}

/* A malloc'd copy of len bytes; never NULL, even for 0 bytes. */
/* A copy of len bytes: malloc, not calloc, which would write a record of
 * hundreds of KB twice (zeroes, then the bytes). */
static unsigned char *copy_bytes(const void *p, size_t len)
{
    unsigned char *d = malloc(len ? len : 1);
    if (!d)
        abort();
    if (len)
        memcpy(d, p, len);
    return d;
}

/* Bytes a message points at without owning them: with none, any non-NULL
 * pointer (the fields are never NULL once set), never read. */
static unsigned char *borrowed(const void *p)
{
    return (unsigned char *)(uintptr_t)(p ? p : "");
}

static int add_jobrec(satin_msg *self, uint32_t owner, uint64_t record_id, uint64_t job_id,
                      const char *kind, uint32_t result_cap, const void *arg, size_t len,
                      int borrow)
{
    size_t max = self->type == SATIN_MSG_PUSH ? 1 : SATIN_PROTO_MAX_JOBS;
    if (self->njobrecs >= max || (!arg && len > 0))
        return -1;
    self->jobrecs = xrealloc(self->jobrecs, (self->njobrecs + 1) * sizeof *self->jobrecs);
    satin_msg_jobrec *j = &self->jobrecs[self->njobrecs++];
    memset(j, 0, sizeof *j);
    j->owner = owner;
    j->record_id = record_id;
    j->job_id = job_id;
    j->kind = xstrdup(kind);
    j->result_cap = result_cap;
    j->arg = borrow ? borrowed(arg) : copy_bytes(arg, len);
    j->arg_len = len;
    j->arg_borrowed = (uint8_t)borrow;
    return 0;
}

int satin_msg_add_jobrec(satin_msg *self, uint32_t owner, uint64_t record_id,
                         uint64_t job_id, const char *kind, uint32_t result_cap,
                         const void *arg, size_t len)
{
    return add_jobrec(self, owner, record_id, job_id, kind, result_cap, arg, len, 0);
}

int satin_msg_add_jobrec_ref(satin_msg *self, uint32_t owner, uint64_t record_id,
                             uint64_t job_id, const char *kind, uint32_t result_cap,
                             const void *arg, size_t len)
{
    return add_jobrec(self, owner, record_id, job_id, kind, result_cap, arg, len, 1);
}

void satin_msg_set_data_type(satin_msg *self, const char *type)
{
    free(self->data_type);
    self->data_type = xstrdup(type);
}

static void drop_data(satin_msg *self)
{
    if (!self->data_borrowed)
        free(self->data);
    self->data = NULL;
    self->data_borrowed = 0;
}

int satin_msg_set_data(satin_msg *self, const void *data, size_t len)
{
    if (!data && len > 0)
        return -1;
    drop_data(self);
    self->data = copy_bytes(data, len);
    self->data_len = len;
    return 0;
}

int satin_msg_set_data_ref(satin_msg *self, const void *data, size_t len)
{
    if (!data && len > 0)
        return -1;
    drop_data(self);
    self->data = borrowed(data);
    self->data_len = len;
    self->data_borrowed = 1;
    return 0;
}

void satin_msg_own_bytes(satin_msg *self)
{
    for (size_t i = 0; i < self->njobrecs; i++) {
        satin_msg_jobrec *j = &self->jobrecs[i];
        if (j->arg_borrowed) {
            j->arg = copy_bytes(j->arg, j->arg_len);
            j->arg_borrowed = 0;
        }
    }
    if (self->data_borrowed) {
        self->data = copy_bytes(self->data, self->data_len);
        self->data_borrowed = 0;
    }
}

int satin_msg_keep(satin_msg *self, void (*keep_free)(void *keep), void *keep)
{
    if (self->keep_free)
        return -1;
    self->keep_free = keep_free;
    self->keep = keep;
    return 0;
}

int satin_msg_each_node(satin_msg *m, int (*fn)(void *ctx, uint32_t *node), void *ctx)
{
    switch (m->type) {
    case SATIN_MSG_STEAL:
    case SATIN_MSG_STEAL_CANCEL:
        return fn(ctx, &m->thief);
    case SATIN_MSG_JOB_RESULT:
    case SATIN_MSG_JOB_CANCEL:
        return fn(ctx, &m->owner);
    case SATIN_MSG_STEAL_REPLY:
    case SATIN_MSG_PUSH:
        if (m->type == SATIN_MSG_STEAL_REPLY && fn(ctx, &m->victim) < 0)
            return -1;
        for (size_t i = 0; i < m->njobrecs; i++)
            if (fn(ctx, &m->jobrecs[i].owner) < 0)
                return -1;
        return 0;
    default:
        return 0;
    }
}

satin_msg_value *satin_msg_add_value(satin_msg *self, const char *name, uint8_t op, uint8_t set,
                                     int64_t scalar, const uint64_t *elems, uint32_t nelems)
{
    if (self->nvalues >= SATIN_PROTO_MAX_VALUES)
        return NULL;
    self->values = xrealloc(self->values, (self->nvalues + 1) * sizeof *self->values);
    satin_msg_value *v = &self->values[self->nvalues++];
    *v = (satin_msg_value){.name = xstrdup(name ? name : ""), .op = op, .set = set,
                           .scalar = scalar, .nelems = nelems};
    if (nelems) {
        v->elems = xcalloc(nelems, sizeof *v->elems);
        memcpy(v->elems, elems, nelems * sizeof *v->elems);
    }
    return v;
}

int satin_msg_add_record_id(satin_msg *self, uint64_t id)
{
    if (self->nrecord_ids >= SATIN_PROTO_MAX_RECORD_IDS)
        return -1;
    self->record_ids = xrealloc(self->record_ids,
                                (self->nrecord_ids + 1) * sizeof *self->record_ids);
    self->record_ids[self->nrecord_ids++] = id;
    return 0;
}

/* ---- encoding ------------------------------------------------------------- */

/* Names are unique within their list (kvlist, params, kinds, a kind's
 * params): a receiver could not tell which of two equal keys is meant.
 * `arr` is an array of structs of `stride` bytes with a char * at `off`;
 * 1 when item i's name equals an earlier one.  Lists are small (bounded
 * by the limits), so a quadratic scan is fine. */
static int name_repeated(const void *arr, size_t stride, size_t off, size_t i)
{
    const unsigned char *base = arr;
    const char *name, *other;
    memcpy(&name, base + i * stride + off, sizeof name);
    for (size_t j = 0; j < i; j++) {
        memcpy(&other, base + j * stride + off, sizeof other);
        if (strcmp(name ? name : "", other ? other : "") == 0)
            return 1;
    }
    return 0;
}

#define NAME_REPEATED(arr, type, field, i) \
    name_repeated((arr), sizeof(type), offsetof(type, field), (i))

static void enc_kvlist(satin_wire_wr *w, const satin_kvlist *l, const char *name)
{
    if (satin_wire_put_count(w, l->n, SATIN_PROTO_MAX_KV, SATIN_PROTO_TOO_LARGE,
                             "%s count", name) < 0)
        return;
    for (size_t i = 0; i < l->n && !w->failed; i++) {
        const satin_kv *kv = &l->items[i];
        satin_wire_put_str(w, kv->name, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "%s[%zu].name", name, i);
        if (NAME_REPEATED(l->items, satin_kv, name, i))
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "%s: %s[%zu].name '%s' repeated",
                             w->what, name, i, kv->name);
        satin_wire_put_u8(w, (uint8_t)kv->type);
        switch (kv->type) {
        case SATIN_KV_I64: satin_wire_put_i64(w, kv->i64); break;
        case SATIN_KV_F64: satin_wire_put_f64(w, kv->f64); break;
        case SATIN_KV_STR:
            satin_wire_put_str(w, kv->str, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                               "%s[%zu].value", name, i);
            break;
        default:
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "%s: %s[%zu].type %d is not 1, 2 or 3",
                             w->what, name, i, (int)kv->type);
        }
    }
}

/* Node indexes the codec takes: SATIN_PROTO_MAX_NODES on every real wire;
 * satin-sim raises it for grids of more nodes (satin_proto_allow_nodes). */
static uint32_t node_limit = SATIN_PROTO_MAX_NODES;

void satin_proto_allow_nodes(uint32_t n)
{
    node_limit = n > SATIN_PROTO_MAX_NODES ? n : SATIN_PROTO_MAX_NODES;
}

/* A node index (u32 on the wire, 0..65535).  `fmt` names the field. */
static void enc_node(satin_wire_wr *w, uint32_t v, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);
static void enc_node(satin_wire_wr *w, uint32_t v, const char *fmt, ...)
{
    if (v >= node_limit && !w->failed) {
        char name[96];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(name, sizeof name, fmt, ap);
        va_end(ap);
        satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "%s: %s %lu is not a node index (0..%lu)",
                         w->what, name, (unsigned long)v, (unsigned long)node_limit - 1);
    }
    satin_wire_put_u32(w, v);
}

/* The prefix of a job record's field names: "jobs[3]" in a STEAL_REPLY,
 * "job" in a PUSH. */
static void jobrec_prefix(char *buf, size_t size, int type, size_t i)
{
    if (type == SATIN_MSG_PUSH)
        snprintf(buf, size, "job");
    else
        snprintf(buf, size, "jobs[%zu]", i);
}

static void enc_jobrec(satin_wire_wr *w, const satin_msg_jobrec *j, const char *pre)
{
    enc_node(w, j->owner, "%s.owner", pre);
    satin_wire_put_u64(w, j->record_id);
    satin_wire_put_u64(w, j->job_id);
    satin_wire_put_u64(w, j->place);
    satin_wire_put_u64(w, j->ancestry[0]);
    satin_wire_put_u64(w, j->ancestry[1]);
    satin_wire_put_u64(w, j->origin);
    satin_wire_put_str(w, j->kind, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE, "%s.kind",
                       pre);
    satin_wire_put_u32(w, j->result_cap);
    if (!j->arg && j->arg_len > 0) {
        satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "%s: %s.arg is NULL with %zu bytes",
                         w->what, pre, j->arg_len);
        return;
    }
    satin_wire_put_bytes(w, j->arg, j->arg_len, "%s.arg", pre);
}

static void enc_jobrecs(satin_wire_wr *w, const satin_msg *m)
{
    char pre[32];
    for (size_t i = 0; i < m->njobrecs && !w->failed; i++) {
        jobrec_prefix(pre, sizeof pre, m->type, i);
        enc_jobrec(w, &m->jobrecs[i], pre);
    }
}

static void enc_phase(satin_wire_wr *w, uint8_t phase)
{
    if (!satin_stats_phase_valid(phase))
        satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE,
                         "%s: phase %u is not 0, 1 or 2 (or 4, 5: 0, 1 with a profile)", w->what,
                         (unsigned)phase);
    satin_wire_put_u8(w, phase);
}

/* HELLO's modules (14.2). */
static void enc_modules(satin_wire_wr *w, const satin_msg *m)
{
    if (satin_wire_put_count(w, m->nmodules, SATIN_PROTO_MAX_MODULES, SATIN_PROTO_TOO_LARGE,
                             "nmodules") < 0)
        return;
    size_t total = 0;
    for (size_t i = 0; i < m->nmodules; i++)
        total += m->modules[i].ntasks;
    if (total > SATIN_PROTO_MAX_MODULE_TASKS) {
        satin_wire_wfail(w, SATIN_PROTO_TOO_LARGE, "%s: %zu tasks in all modules, at most %d",
                         w->what, total, SATIN_PROTO_MAX_MODULE_TASKS);
        return;
    }
    for (size_t i = 0; i < m->nmodules && !w->failed; i++) {
        const satin_msg_module *mod = &m->modules[i];
        satin_wire_put_str(w, mod->name, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "modules[%zu].name", i);
        if (!w->failed && NAME_REPEATED(m->modules, satin_msg_module, name, i))
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "%s: modules[%zu].name '%s' repeated",
                             w->what, i, mod->name);
        satin_wire_put_str(w, mod->version, 0, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "modules[%zu].version", i);
        satin_wire_put_fixed(w, mod->digest, sizeof mod->digest);
        if (satin_wire_put_count(w, mod->ntasks, SATIN_PROTO_MAX_MODULE_TASKS,
                                 SATIN_PROTO_TOO_LARGE, "modules[%zu].ntasks", i) < 0)
            return;
        for (size_t j = 0; j < mod->ntasks && !w->failed; j++)
            satin_wire_put_str(w, mod->tasks[j], 1, SATIN_PROTO_NAME_MAX,
                               SATIN_PROTO_BAD_MESSAGE, "modules[%zu].tasks[%zu]", i, j);
    }
}

/* VALUES (PROTOCOL.md 14.22): the job, then each value's name, join and state. */
static void enc_values(satin_wire_wr *w, const satin_msg *m)
{
    satin_wire_put_u64(w, m->origin);
    if (m->nvalues == 0) {
        satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "VALUES: no value");
        return;
    }
    if (satin_wire_put_count(w, m->nvalues, SATIN_PROTO_MAX_VALUES, SATIN_PROTO_TOO_LARGE,
                             "nvalues") < 0)
        return;
    for (size_t i = 0; i < m->nvalues && !w->failed; i++) {
        const satin_msg_value *v = &m->values[i];
        satin_wire_put_str(w, v->name, 1, SATIN_PROTO_VALUE_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "values[%zu].name", i);
        if (v->op < SATIN_VALUE_MIN || v->op > SATIN_VALUE_UNION) {
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "VALUES: values[%zu].op %u is not 1..4",
                             i, (unsigned)v->op);
            return;
        }
        satin_wire_put_u8(w, v->op);
        switch (v->op) {
        case SATIN_VALUE_MIN:
        case SATIN_VALUE_MAX:
            if (v->set > 1)
                satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "VALUES: values[%zu].set %u is not 0 "
                                 "or 1", i, (unsigned)v->set);
            satin_wire_put_u8(w, v->set);
            satin_wire_put_i64(w, v->set ? v->scalar : 0);
            break;
        case SATIN_VALUE_OR:
            satin_wire_put_u64(w, (uint64_t)v->scalar);
            break;
        case SATIN_VALUE_UNION:
            if (v->nelems > SATIN_PROTO_MAX_VALUE_ELEMS) {
                satin_wire_wfail(w, SATIN_PROTO_TOO_LARGE, "VALUES: values[%zu] has %lu elements, "
                                 "at most %d", i, (unsigned long)v->nelems,
                                 SATIN_PROTO_MAX_VALUE_ELEMS);
                return;
            }
            satin_wire_put_u32(w, v->nelems);
            for (uint32_t k = 0; k < v->nelems; k++)
                satin_wire_put_u64(w, v->elems[k]);
            break;
        }
    }
}

/* The bodies of the peer messages (PROTOCOL.md, section 14). */
static void enc_peer_body(satin_wire_wr *w, const satin_msg *m)
{
    switch (m->type) {
    case SATIN_MSG_HELLO:
        satin_wire_put_str(w, m->grid_name, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "grid name");
        if (m->node_count < 1 || m->node_count > SATIN_PROTO_MAX_NODES)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "HELLO: node count %lu is not in 1..%d",
                             (unsigned long)m->node_count, SATIN_PROTO_MAX_NODES);
        satin_wire_put_u32(w, m->node_count);
        if (m->flags > 0xFFFF)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "HELLO: flags 0x%lx do not fit a u16",
                             (unsigned long)m->flags);
        satin_wire_put_u16(w, (uint16_t)m->flags);
        satin_wire_put_str(w, m->node_id, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "node id");
        satin_wire_put_fixed(w, m->digest, sizeof m->digest);
        enc_modules(w, m);
        break;
    case SATIN_MSG_STEAL:
        enc_node(w, m->thief, "thief");
        satin_wire_put_u32(w, m->flags);
        if (m->max_jobs < 1 || m->max_jobs > SATIN_PROTO_MAX_JOBS)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "STEAL: max_jobs %u is not in 1..%d",
                             (unsigned)m->max_jobs, SATIN_PROTO_MAX_JOBS);
        satin_wire_put_u16(w, m->max_jobs);
        break;
    case SATIN_MSG_STEAL_REPLY:
        enc_node(w, m->victim, "victim");
        satin_wire_put_u32(w, m->flags);
        if (satin_wire_put_count(w, m->njobrecs, SATIN_PROTO_MAX_JOBS, SATIN_PROTO_TOO_LARGE,
                                 "njobs") < 0)
            return;
        enc_jobrecs(w, m);
        break;
    case SATIN_MSG_PUSH:
        if (m->njobrecs != 1) {
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "PUSH: holds %zu job records, must be 1",
                             m->njobrecs);
            return;
        }
        enc_jobrecs(w, m);
        break;
    case SATIN_MSG_PUSH_ACK:
        satin_wire_put_u64(w, m->record_id);
        break;
    case SATIN_MSG_JOB_RESULT:
        enc_node(w, m->owner, "owner");
        satin_wire_put_u64(w, m->record_id);
        if (m->status > SATIN_STATUS_RETURNED)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "JOB_RESULT: status %u is not 0, 1 or 2",
                             (unsigned)m->status);
        satin_wire_put_u8(w, m->status);
        satin_wire_put_str(w, m->error, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE, "error");
        if (!m->data && m->data_len > 0) {
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "JOB_RESULT: result is NULL with %zu bytes",
                             m->data_len);
            return;
        }
        satin_wire_put_bytes(w, m->data, m->data_len, "result");
        enc_kvlist(w, &m->stats, "stats");
        break;
    case SATIN_MSG_LOAD:
        if (m->load < 0)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "LOAD: load %lld is negative",
                             (long long)m->load);
        satin_wire_put_i64(w, m->load);
        break;
    case SATIN_MSG_STEAL_CANCEL:
        satin_wire_put_u64(w, m->steal_id);
        enc_node(w, m->thief, "thief");
        break;
    case SATIN_MSG_JOB_CANCEL:
        enc_node(w, m->owner, "owner");
        if (satin_wire_put_count(w, m->nrecord_ids, SATIN_PROTO_MAX_RECORD_IDS,
                                 SATIN_PROTO_TOO_LARGE, "n") < 0)
            return;
        for (size_t i = 0; i < m->nrecord_ids; i++)
            satin_wire_put_u64(w, m->record_ids[i]);
        break;
    case SATIN_MSG_STATS_REQUEST:
        satin_wire_put_u64(w, m->job_id);
        enc_phase(w, m->phase);
        break;
    case SATIN_MSG_STATS_REPLY:
        satin_wire_put_u64(w, m->job_id);
        enc_phase(w, m->phase);
        enc_kvlist(w, &m->stats, "counters");
        break;
    case SATIN_MSG_HEARTBEAT:
        if (m->flags > 0xFF)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "HEARTBEAT: flags 0x%lx do not fit a byte",
                             (unsigned long)m->flags);
        satin_wire_put_u8(w, (uint8_t)m->flags);
        break;
    case SATIN_MSG_ORPHAN:
        satin_wire_put_u64(w, m->place);
        satin_wire_put_u64(w, m->arg_digest);
        satin_wire_put_u64(w, m->origin);
        satin_wire_put_str(w, m->kind, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE, "kind");
        if (m->status > SATIN_ORPHAN_GONE)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "ORPHAN: status %u is not 0, 1 or 2",
                             (unsigned)m->status);
        satin_wire_put_u8(w, m->status);
        satin_wire_put_u64(w, m->jobs_run);
        if (!m->data && m->data_len > 0) {
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "ORPHAN: result is NULL with %zu bytes",
                             m->data_len);
            return;
        }
        satin_wire_put_bytes(w, m->data, m->data_len, "result");
        break;
    case SATIN_MSG_JOBS_REQUEST: {
        satin_wire_put_u64(w, m->job_id);
        satin_wire_put_u32(w, m->flags);
        if (m->asker_kind > SATIN_ASKER_KEY || m->asker_admin > 1)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "JOBS_REQUEST: asker kind %u, admin %u",
                             (unsigned)m->asker_kind, (unsigned)m->asker_admin);
        satin_wire_put_u8(w, m->asker_kind);
        satin_wire_put_u32(w, m->asker_uid);
        const char *key = m->asker_key ? m->asker_key : "";
        if ((m->asker_kind == SATIN_ASKER_KEY) != (strlen(key) == SATIN_PROTO_KEY_LEN) ||
            (m->asker_kind != SATIN_ASKER_KEY && *key))
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE,
                             "JOBS_REQUEST: a key of %zu bytes for asker kind %u", strlen(key),
                             (unsigned)m->asker_kind);
        satin_wire_put_str(w, key, 0, SATIN_PROTO_KEY_LEN, SATIN_PROTO_BAD_MESSAGE, "asker key");
        satin_wire_put_u8(w, m->asker_admin);
        break;
    }
    case SATIN_MSG_JOBS_REPLY:
        satin_wire_put_u64(w, m->job_id);
        if (satin_wire_put_count(w, m->njobs, SATIN_PROTO_MAX_LISTED, SATIN_PROTO_TOO_LARGE,
                                 "njobs") < 0)
            return;
        for (size_t i = 0; i < m->njobs && !w->failed; i++) {
            char name[32];
            snprintf(name, sizeof name, "jobs[%zu]", i);
            enc_kvlist(w, &m->jobs[i], name);
        }
        break;
    case SATIN_MSG_VALUES:
        enc_values(w, m);
        break;
    }
}

/* RESULT's data: a type whenever there are bytes, and none on error. */
static void enc_result_data(satin_wire_wr *w, const satin_msg *m)
{
    const char *type = m->data_type ? m->data_type : "";
    if (!m->data && m->data_len > 0) {
        satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "RESULT: data is NULL with %zu bytes",
                         m->data_len);
        return;
    }
    if (m->data_len > 0 && !*type)
        satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "RESULT: %zu bytes of data without a type",
                         m->data_len);
    if (m->status != SATIN_STATUS_OK && (m->data_len > 0 || *type))
        satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "RESULT: a failed job with data");
    satin_wire_put_str(w, type, 0, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE, "data type");
    satin_wire_put_bytes(w, m->data ? m->data : (const unsigned char *)"", m->data_len, "data");
}

static void enc_body(satin_wire_wr *w, const satin_msg *m)
{
    if (satin_msg_is_peer(m->type)) {
        enc_peer_body(w, m);
        return;
    }
    switch (m->type) {
    case SATIN_MSG_SUBMIT:
        satin_wire_put_u32(w, m->flags);
        satin_wire_put_str(w, m->kind, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE, "kind");
        if (satin_wire_put_count(w, m->nparams, SATIN_PROTO_MAX_PARAMS,
                                 SATIN_PROTO_BAD_PARAMS, "nparams") < 0)
            return;
        for (size_t i = 0; i < m->nparams && !w->failed; i++) {
            satin_wire_put_str(w, m->params[i].key, 1, SATIN_PROTO_NAME_MAX,
                               SATIN_PROTO_BAD_PARAMS, "params[%zu].key", i);
            if (!w->failed && NAME_REPEATED(m->params, satin_msg_param, key, i))
                satin_wire_wfail(w, SATIN_PROTO_BAD_PARAMS, "%s: params[%zu].key '%s' repeated",
                                 w->what, i, m->params[i].key);
            satin_wire_put_str(w, m->params[i].value, 0, SATIN_PROTO_STR_MAX,
                               SATIN_PROTO_TOO_LARGE, "params[%zu].value", i);
        }
        satin_wire_put_str(w, m->job_name ? m->job_name : "", 0, SATIN_PROTO_NAME_MAX,
                           SATIN_PROTO_BAD_PARAMS, "job name");
        break;
    case SATIN_MSG_ACCEPTED:
    case SATIN_MSG_CANCEL:
        satin_wire_put_u64(w, m->job_id);
        break;
    case SATIN_MSG_OK:
        satin_wire_put_u64(w, m->job_id);
        if (m->status > SATIN_CANCEL_FINISHED)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "OK: state %u is not 0, 1 or 2",
                             (unsigned)m->status);
        satin_wire_put_u8(w, m->status);
        break;
    case SATIN_MSG_PROGRESS:
        satin_wire_put_u64(w, m->job_id);
        satin_wire_put_u64(w, m->elapsed_ms);
        satin_wire_put_u64(w, m->jobs_run);
        break;
    case SATIN_MSG_RESULT:
        satin_wire_put_u64(w, m->job_id);
        if (m->status > SATIN_STATUS_ERROR)
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "RESULT: status %u is not 0 or 1",
                             (unsigned)m->status);
        satin_wire_put_u8(w, m->status);
        satin_wire_put_str(w, m->kind, 0, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE, "kind");
        satin_wire_put_str(w, m->error, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE, "error");
        enc_kvlist(w, &m->result, "result");
        enc_result_data(w, m);
        enc_kvlist(w, &m->stats, "stats");
        break;
    case SATIN_MSG_ERROR:
        satin_wire_put_u64(w, m->job_id);
        satin_wire_put_u16(w, m->code);
        satin_wire_put_str(w, m->error, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                           "message");
        break;
    case SATIN_MSG_WAIT:
        satin_wire_put_u64(w, m->job_id);
        satin_wire_put_u32(w, m->flags);
        break;
    case SATIN_MSG_STATUS:
    case SATIN_MSG_LIST_KINDS:
        break;
    case SATIN_MSG_STATUS_REPLY:
        enc_kvlist(w, &m->info, "info");
        break;
    case SATIN_MSG_LIST:
    case SATIN_MSG_GRID_STATUS:
        satin_wire_put_u32(w, m->flags);
        break;
    case SATIN_MSG_JOBS:
    case SATIN_MSG_GRID: {
        const char *list = m->type == SATIN_MSG_GRID ? "nodes" : "jobs";
        if (satin_wire_put_count(w, m->njobs, max_entries(m->type), SATIN_PROTO_TOO_LARGE,
                                 "n%s", list) < 0)
            return;
        for (size_t i = 0; i < m->njobs && !w->failed; i++) {
            char name[32];
            snprintf(name, sizeof name, "%s[%zu]", list, i);
            enc_kvlist(w, &m->jobs[i], name);
        }
        break;
    }
    case SATIN_MSG_KINDS:
        if (satin_wire_put_count(w, m->nkinds, SATIN_PROTO_MAX_KINDS, SATIN_PROTO_TOO_LARGE,
                                 "nkinds") < 0)
            return;
        for (size_t i = 0; i < m->nkinds && !w->failed; i++) {
            const satin_msg_kind *k = &m->kinds[i];
            satin_wire_put_str(w, k->name, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                               "kinds[%zu].name", i);
            if (!w->failed && NAME_REPEATED(m->kinds, satin_msg_kind, name, i))
                satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "%s: kinds[%zu].name '%s' repeated",
                                 w->what, i, k->name);
            satin_wire_put_str(w, k->summary, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                               "kinds[%zu].summary", i);
            satin_wire_put_str(w, k->module, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                               "kinds[%zu].module", i);
            satin_wire_put_str(w, k->module_version, 0, SATIN_PROTO_NAME_MAX,
                               SATIN_PROTO_BAD_MESSAGE, "kinds[%zu].module_version", i);
            if (satin_wire_put_count(w, k->nparams, SATIN_PROTO_MAX_KIND_PARAMS,
                                     SATIN_PROTO_TOO_LARGE, "kinds[%zu].nparams", i) < 0)
                return;
            for (size_t j = 0; j < k->nparams && !w->failed; j++) {
                const satin_msg_kind_param *p = &k->params[j];
                satin_wire_put_str(w, p->name, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                                   "kinds[%zu].params[%zu].name", i, j);
                if (!w->failed && NAME_REPEATED(k->params, satin_msg_kind_param, name, j))
                    satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE,
                                     "%s: kinds[%zu].params[%zu].name '%s' repeated",
                                     w->what, i, j, p->name);
                satin_wire_put_str(w, p->def, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                                   "kinds[%zu].params[%zu].default", i, j);
                if (p->flags > 0xFF)
                    satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE,
                                     "%s: kinds[%zu].params[%zu].flags 0x%x do not fit a byte",
                                     w->what, i, j, p->flags);
                satin_wire_put_u8(w, (uint8_t)p->flags);
                satin_wire_put_str(w, p->help, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                                   "kinds[%zu].params[%zu].help", i, j);
            }
        }
        break;
    }
}

/* The measuring pass: validates everything and returns the body size. */
static int measure(const satin_msg *m, size_t *blen, satin_proto_error *err)
{
    satin_wire_wr w;
    *blen = 0;
    if (err)
        memset(err, 0, sizeof *err);
    const char *what = satin_msg_type_name(m ? m->type : 0);
    satin_wire_wr_init(&w, NULL, 0, what, err);
    if (!m)
        return satin_wire_wfail(&w, SATIN_PROTO_BAD_MESSAGE, "no message");
    if (!type_known(m->type))
        return satin_wire_wfail(&w, SATIN_PROTO_BAD_MESSAGE, "unknown message type %d",
                                m->type);
    if (m->version < 0 || m->version > 0xFF)
        return satin_wire_wfail(&w, SATIN_PROTO_BAD_MESSAGE, "%s: version %d does not fit a byte",
                                what, m->version);
    if (satin_msg_is_peer(m->type) && m->sender >= node_limit)
        return satin_wire_wfail(&w, SATIN_PROTO_BAD_MESSAGE,
                                "%s: sender %lu is not a node index (0..%lu)", what,
                                (unsigned long)m->sender, (unsigned long)node_limit - 1);
    enc_body(&w, m);
    *blen = w.len;
    return w.failed ? -1 : 0;
}

int satin_msg_check(const satin_msg *m, satin_proto_error *err)
{
    size_t blen;
    return measure(m, &blen, err);
}

static void put_header(unsigned char *h, const satin_msg *m)
{
    satin_wire_wr w;
    satin_wire_wr_init(&w, h, SATIN_PROTO_HEADER_SIZE, "header", NULL);
    satin_wire_put_u16(&w, SATIN_PROTO_MAGIC);
    satin_wire_put_u8(&w, (uint8_t)m->version);
    satin_wire_put_u8(&w, (uint8_t)m->type);
    satin_wire_put_u32(&w, m->sender);
    satin_wire_put_u64(&w, m->request_id);
}

int satin_msg_encoded_size(const satin_msg *m, size_t *hlen, size_t *blen)
{
    *hlen = *blen = 0;
    size_t n = 0;
    if (measure(m, &n, NULL) < 0)
        return -1;
    *hlen = SATIN_PROTO_HEADER_SIZE;
    *blen = n;
    return 0;
}

/* The body of m, measured at blen bytes, into b: 0, or -1 when m no
 * longer encodes to that size (it changed since it was measured). */
static int write_body(const satin_msg *m, unsigned char *b, size_t blen)
{
    satin_wire_wr w;
    satin_wire_wr_init(&w, b, blen, satin_msg_type_name(m->type), NULL);
    enc_body(&w, m);
    return w.failed || w.len != blen ? -1 : 0;
}

int satin_msg_encode_to(const satin_msg *m, unsigned char *out, size_t hlen, size_t blen)
{
    if (hlen != SATIN_PROTO_HEADER_SIZE || write_body(m, out + hlen, blen) < 0)
        return -1;
    put_header(out, m);
    return 0;
}

int satin_msg_encode(const satin_msg *m, unsigned char **hdr, size_t *hlen,
                     unsigned char **body, size_t *blen)
{
    size_t hn, n;
    *hdr = *body = NULL;
    *hlen = *blen = 0;
    if (satin_msg_encoded_size(m, &hn, &n) < 0)
        return -1;
    /* malloc, not calloc: every byte is written, and a body of megabytes
     * would otherwise be written twice. */
    unsigned char *h = malloc(hn), *b = malloc(n ? n : 1);
    if (!h || !b)
        abort();
    if (write_body(m, b, n) < 0) {   /* cannot happen unless m changed under us */
        free(h);
        free(b);
        return -1;
    }
    put_header(h, m);
    *hdr = h;
    *hlen = hn;
    *body = b;
    *blen = n;
    return 0;
}

/* ---- decoding ------------------------------------------------------------- */

/* Smallest encodings of list items, for satin_wire_count's plausibility
 * check: a name takes at least 3 bytes (u16 length + 1), any str 2. */
#define MIN_PARAM       (3 + 2)           /* key, value */
#define MIN_KV          (3 + 1 + 2)       /* name, type, empty str */
#define MIN_KIND        (3 + 2 + 3 + 2 + 2) /* name, summary, module, module version, nparams */
#define MIN_KIND_PARAM  (3 + 2 + 1 + 2)   /* name, default, flags, help */
#define MIN_JOBREC      (4 + 8 + 8 + 8 + 16 + 8 + 3 + 4 + 4)  /* owner, record id, job id,
                                                                place, ancestry, origin, kind,
                                                                result_cap, empty arg */
#define MIN_RECORD_ID   8

static int dec_kvlist(satin_wire_rd *r, satin_kvlist *l, const char *name)
{
    size_t n;
    if (satin_wire_count(r, &n, SATIN_PROTO_MAX_KV, MIN_KV, SATIN_PROTO_TOO_LARGE,
                         "%s count", name) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char *key = NULL, *s = NULL;
        uint8_t type;
        int64_t iv;
        double fv;
        if (satin_wire_str(r, &key, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "%s[%zu].name", name, i) < 0)
            return -1;
        if (satin_kvlist_find(l, key)) {
            satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "%s: %s[%zu].name '%s' repeated",
                            r->what, name, i, key);
            free(key);
            return -1;
        }
        int rc = satin_wire_u8(r, &type, "%s[%zu].type", name, i);
        if (rc == 0) {
            switch (type) {
            case SATIN_KV_I64:
                if ((rc = satin_wire_i64(r, &iv, "%s[%zu].value", name, i)) == 0)
                    satin_kvlist_add_i64(l, key, iv);
                break;
            case SATIN_KV_F64:
                if ((rc = satin_wire_f64(r, &fv, "%s[%zu].value", name, i)) == 0)
                    satin_kvlist_add_f64(l, key, fv);
                break;
            case SATIN_KV_STR:
                if ((rc = satin_wire_str(r, &s, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                                         "%s[%zu].value", name, i)) == 0)
                    satin_kvlist_add_str(l, key, s);
                break;
            default:
                rc = satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                     "%s: %s[%zu].type %u is not 1, 2 or 3",
                                     r->what, name, i, (unsigned)type);
            }
        }
        free(key);
        free(s);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int dec_submit(satin_wire_rd *r, satin_msg *m)
{
    size_t n;
    if (satin_wire_u32(r, &m->flags, "flags") < 0 ||
        satin_wire_str(r, &m->kind, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                       "kind") < 0 ||
        satin_wire_count(r, &n, SATIN_PROTO_MAX_PARAMS, MIN_PARAM, SATIN_PROTO_BAD_PARAMS,
                         "nparams") < 0)
        return -1;
    if (n) {
        m->params = xcalloc(n, sizeof *m->params);   /* n <= 64, checked */
        m->nparams = n;
    }
    for (size_t i = 0; i < n; i++) {
        if (satin_wire_str(r, &m->params[i].key, 1, SATIN_PROTO_NAME_MAX,
                           SATIN_PROTO_BAD_PARAMS, "params[%zu].key", i) < 0)
            return -1;
        if (NAME_REPEATED(m->params, satin_msg_param, key, i))
            return satin_wire_fail(r, SATIN_PROTO_BAD_PARAMS, "%s: params[%zu].key '%s' repeated",
                                   r->what, i, m->params[i].key);
        if (satin_wire_str(r, &m->params[i].value, 0, SATIN_PROTO_STR_MAX,
                           SATIN_PROTO_TOO_LARGE, "params[%zu].value", i) < 0)
            return -1;
    }
    return satin_wire_str(r, &m->job_name, 0, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_PARAMS,
                          "job name");
}

/* A count, then that many kvlists (JOBS' jobs, GRID's nodes): each at
 * least its own count (2 bytes), which bounds the count by what is left. */
static int dec_kvlists(satin_wire_rd *r, satin_msg *m, size_t max, const char *count_name,
                       const char *item)
{
    size_t n;
    if (satin_wire_count(r, &n, max, 2, SATIN_PROTO_TOO_LARGE, "%s", count_name) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s[%zu]", item, i);
        satin_kvlist *l = satin_msg_add_job(m);
        if (!l || dec_kvlist(r, l, name) < 0)
            return -1;
    }
    return 0;
}

static int dec_jobs(satin_wire_rd *r, satin_msg *m)
{
    return dec_kvlists(r, m, SATIN_PROTO_MAX_LISTED, "njobs", "jobs");
}

static int dec_grid(satin_wire_rd *r, satin_msg *m)
{
    return dec_kvlists(r, m, SATIN_PROTO_MAX_GRID_NODES, "nnodes", "nodes");
}

static int dec_kinds(satin_wire_rd *r, satin_msg *m)
{
    size_t n;
    if (satin_wire_count(r, &n, SATIN_PROTO_MAX_KINDS, MIN_KIND, SATIN_PROTO_TOO_LARGE,
                         "nkinds") < 0)
        return -1;
    if (n == 0)
        return 0;
    m->kinds = xcalloc(n, sizeof *m->kinds);
    m->nkinds = n;
    for (size_t i = 0; i < n; i++) {
        satin_msg_kind *k = &m->kinds[i];
        size_t np;
        if (satin_wire_str(r, &k->name, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "kinds[%zu].name", i) < 0)
            return -1;
        if (NAME_REPEATED(m->kinds, satin_msg_kind, name, i))
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "%s: kinds[%zu].name '%s' repeated",
                                   r->what, i, k->name);
        if (satin_wire_str(r, &k->summary, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                           "kinds[%zu].summary", i) < 0 ||
            satin_wire_str(r, &k->module, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "kinds[%zu].module", i) < 0 ||
            satin_wire_str(r, &k->module_version, 0, SATIN_PROTO_NAME_MAX,
                           SATIN_PROTO_BAD_MESSAGE, "kinds[%zu].module_version", i) < 0 ||
            satin_wire_count(r, &np, SATIN_PROTO_MAX_KIND_PARAMS, MIN_KIND_PARAM,
                             SATIN_PROTO_TOO_LARGE, "kinds[%zu].nparams", i) < 0)
            return -1;
        if (np == 0)
            continue;
        k->params = xcalloc(np, sizeof *k->params);
        k->nparams = np;
        for (size_t j = 0; j < np; j++) {
            satin_msg_kind_param *p = &k->params[j];
            uint8_t flags;
            if (satin_wire_str(r, &p->name, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                               "kinds[%zu].params[%zu].name", i, j) < 0)
                return -1;
            if (NAME_REPEATED(k->params, satin_msg_kind_param, name, j))
                return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                       "%s: kinds[%zu].params[%zu].name '%s' repeated",
                                       r->what, i, j, p->name);
            if (satin_wire_str(r, &p->def, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                               "kinds[%zu].params[%zu].default", i, j) < 0 ||
                satin_wire_u8(r, &flags, "kinds[%zu].params[%zu].flags", i, j) < 0 ||
                satin_wire_str(r, &p->help, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                               "kinds[%zu].params[%zu].help", i, j) < 0)
                return -1;
            p->flags = flags;
        }
    }
    return 0;
}

/* A node index: a u32 that must be 0..65535. */
static int dec_node(satin_wire_rd *r, uint32_t *out, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);
static int dec_node(satin_wire_rd *r, uint32_t *out, const char *fmt, ...)
{
    char name[96];
    va_list ap;
    *out = 0;
    if (r->failed)
        return -1;
    /* The field name is rendered only when something is wrong. */
    int there = satin_wire_left(r) >= 4;
    if (there) {
        satin_wire_u32(r, out, "%s", "node");   /* cannot fail: the bytes are there */
        if (*out < node_limit)
            return 0;
    }
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (!there)   /* truncated: the reader says so, in its words */
        return satin_wire_u32(r, out, "%s", name);
    return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "%s: %s %lu is not a node index (0..%lu)",
                           r->what, name, (unsigned long)*out, (unsigned long)node_limit - 1);
}

/* Decoded bytes: a copy, or with r->borrow a pointer into the body. */
static unsigned char *take_bytes(const satin_wire_rd *r, const unsigned char *p, size_t len)
{
    return r->borrow ? borrowed(p) : copy_bytes(p, len);
}

static int dec_jobrec(satin_wire_rd *r, satin_msg_jobrec *j, size_t max_size, const char *pre)
{
    const unsigned char *arg;
    size_t len;
    if (dec_node(r, &j->owner, "%s.owner", pre) < 0 ||
        satin_wire_u64(r, &j->record_id, "%s.record_id", pre) < 0 ||
        satin_wire_u64(r, &j->job_id, "%s.job_id", pre) < 0 ||
        satin_wire_u64(r, &j->place, "%s.place", pre) < 0 ||
        satin_wire_u64(r, &j->ancestry[0], "%s.ancestry", pre) < 0 ||
        satin_wire_u64(r, &j->ancestry[1], "%s.ancestry", pre) < 0 ||
        satin_wire_u64(r, &j->origin, "%s.origin", pre) < 0 ||
        satin_wire_str(r, &j->kind, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE, "%s.kind",
                       pre) < 0 ||
        satin_wire_u32(r, &j->result_cap, "%s.result_cap", pre) < 0)
        return -1;
    if (j->result_cap > max_size)
        return satin_wire_fail(r, SATIN_PROTO_TOO_LARGE, "%s: %s.result_cap %lu is above the limit %zu",
                               r->what, pre, (unsigned long)j->result_cap, max_size);
    /* arg <= max_size follows from the size check of the whole message */
    if (satin_wire_bytes(r, &arg, &len, "%s.arg", pre) < 0)
        return -1;
    j->arg = take_bytes(r, arg, len);
    j->arg_len = len;
    j->arg_borrowed = (uint8_t)r->borrow;
    return 0;
}

static int dec_jobrecs(satin_wire_rd *r, satin_msg *m, size_t n, size_t max_size)
{
    char pre[32];
    if (n == 0)
        return 0;
    m->jobrecs = xcalloc(n, sizeof *m->jobrecs);   /* n <= 1024 and n * 55 <= bytes left */
    m->njobrecs = n;
    for (size_t i = 0; i < n; i++) {
        jobrec_prefix(pre, sizeof pre, m->type, i);
        if (dec_jobrec(r, &m->jobrecs[i], max_size, pre) < 0)
            return -1;
    }
    return 0;
}

static int dec_phase(satin_wire_rd *r, uint8_t *phase)
{
    if (satin_wire_u8(r, phase, "phase") < 0)
        return -1;
    if (!satin_stats_phase_valid(*phase))
        return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                               "%s: phase %u is not 0, 1 or 2 (or 4, 5: 0, 1 with a profile)", r->what,
                               (unsigned)*phase);
    return 0;
}

#define MIN_MODULE (3 + 2 + SATIN_PROTO_DIGEST_SIZE + 2)   /* name, version, digest, ntasks */
#define MIN_TASK_NAME 3

/* HELLO's modules (14.2): names unique among the modules, a task's name
 * unique among all the modules' tasks. */
static int dec_modules(satin_wire_rd *r, satin_msg *m)
{
    size_t n;
    if (satin_wire_count(r, &n, SATIN_PROTO_MAX_MODULES, MIN_MODULE, SATIN_PROTO_TOO_LARGE,
                         "nmodules") < 0)
        return -1;
    if (n == 0)
        return 0;
    m->modules = xcalloc(n, sizeof *m->modules);
    m->nmodules = n;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        satin_msg_module *mod = &m->modules[i];
        size_t nt;
        if (satin_wire_str(r, &mod->name, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "modules[%zu].name", i) < 0)
            return -1;
        if (NAME_REPEATED(m->modules, satin_msg_module, name, i))
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "%s: modules[%zu].name '%s' repeated",
                                   r->what, i, mod->name);
        if (satin_wire_str(r, &mod->version, 0, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "modules[%zu].version", i) < 0 ||
            satin_wire_fixed(r, mod->digest, sizeof mod->digest, "modules[%zu].digest", i) < 0 ||
            satin_wire_count(r, &nt, SATIN_PROTO_MAX_MODULE_TASKS, MIN_TASK_NAME,
                             SATIN_PROTO_TOO_LARGE, "modules[%zu].ntasks", i) < 0)
            return -1;
        if (nt == 0)
            continue;
        total += nt;
        if (total > SATIN_PROTO_MAX_MODULE_TASKS)
            return satin_wire_fail(r, SATIN_PROTO_TOO_LARGE,
                                   "%s: more than %d tasks in all modules", r->what,
                                   SATIN_PROTO_MAX_MODULE_TASKS);
        mod->tasks = xcalloc(nt, sizeof *mod->tasks);
        mod->ntasks = nt;
        for (size_t j = 0; j < nt; j++) {
            if (satin_wire_str(r, &mod->tasks[j], 1, SATIN_PROTO_NAME_MAX,
                               SATIN_PROTO_BAD_MESSAGE, "modules[%zu].tasks[%zu]", i, j) < 0)
                return -1;
            for (size_t a = 0; a <= i; a++)
                for (size_t b = 0; b < (a == i ? j : m->modules[a].ntasks); b++)
                    if (strcmp(m->modules[a].tasks[b], mod->tasks[j]) == 0)
                        return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                               "%s: task '%s' repeated (modules[%zu] and [%zu])",
                                               r->what, mod->tasks[j], a, i);
        }
    }
    return 0;
}

/* The least a value takes: a 1-byte name with its length, the op, an OR's u64. */
#define MIN_VALUE (2 + 1 + 1 + 8)

static int dec_values(satin_wire_rd *r, satin_msg *m)
{
    size_t n;
    if (satin_wire_u64(r, &m->origin, "origin") < 0 ||
        satin_wire_count(r, &n, SATIN_PROTO_MAX_VALUES, MIN_VALUE, SATIN_PROTO_TOO_LARGE,
                         "nvalues") < 0)
        return -1;
    if (n == 0)
        return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "VALUES: no value");
    m->values = xcalloc(n, sizeof *m->values);
    for (size_t i = 0; i < n; i++) {
        satin_msg_value *v = &m->values[i];
        m->nvalues = i + 1;   /* destroy frees what was decoded so far */
        if (satin_wire_str(r, &v->name, 1, SATIN_PROTO_VALUE_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "values[%zu].name", i) < 0 ||
            satin_wire_u8(r, &v->op, "values[%zu].op", i) < 0)
            return -1;
        uint64_t u;
        switch (v->op) {
        case SATIN_VALUE_MIN:
        case SATIN_VALUE_MAX:
            if (satin_wire_u8(r, &v->set, "values[%zu].set", i) < 0 ||
                satin_wire_i64(r, &v->scalar, "values[%zu].value", i) < 0)
                return -1;
            if (v->set > 1)
                return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                       "VALUES: values[%zu].set %u is not 0 or 1", i,
                                       (unsigned)v->set);
            if (!v->set && v->scalar != 0)
                return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                       "VALUES: values[%zu] holds nothing but a value of %lld", i,
                                       (long long)v->scalar);
            break;
        case SATIN_VALUE_OR:
            if (satin_wire_u64(r, &u, "values[%zu].bits", i) < 0)
                return -1;
            v->scalar = (int64_t)u;
            break;
        case SATIN_VALUE_UNION: {
            if (satin_wire_u32(r, &v->nelems, "values[%zu].n", i) < 0)
                return -1;
            if (v->nelems > SATIN_PROTO_MAX_VALUE_ELEMS)
                return satin_wire_fail(r, SATIN_PROTO_TOO_LARGE,
                                       "VALUES: values[%zu] has %lu elements, at most %d", i,
                                       (unsigned long)v->nelems, SATIN_PROTO_MAX_VALUE_ELEMS);
            if ((size_t)v->nelems * 8 > satin_wire_left(r))
                return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                       "VALUES: values[%zu]: %lu elements, %zu bytes left", i,
                                       (unsigned long)v->nelems, satin_wire_left(r));
            if (v->nelems)
                v->elems = xcalloc(v->nelems, sizeof *v->elems);
            for (uint32_t k = 0; k < v->nelems; k++)
                if (satin_wire_u64(r, &v->elems[k], "values[%zu].elems[%lu]", i,
                                   (unsigned long)k) < 0)
                    return -1;
            break;
        }
        default:
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "VALUES: values[%zu].op %u is not "
                                   "1..4", i, (unsigned)v->op);
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->values[j].name, v->name) == 0)
                return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                       "VALUES: values[%zu].name '%s' repeats values[%zu]'s", i,
                                       v->name, j);
    }
    return 0;
}

static int dec_peer_body(satin_wire_rd *r, satin_msg *m, size_t max_size)
{
    size_t n;
    uint16_t u16;
    const unsigned char *p;
    switch (m->type) {
    case SATIN_MSG_HELLO:
        if (satin_wire_str(r, &m->grid_name, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "grid name") < 0 ||
            satin_wire_u32(r, &m->node_count, "node count") < 0)
            return -1;
        if (m->node_count < 1 || m->node_count > SATIN_PROTO_MAX_NODES)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "HELLO: node count %lu is not in 1..%d",
                                   (unsigned long)m->node_count, SATIN_PROTO_MAX_NODES);
        if (satin_wire_u16(r, &u16, "flags") < 0)
            return -1;
        m->flags = u16;
        /* A HELLO of the release before the digest ends here: name it, so
         * that the log says why such a peer is isolated. */
        if (satin_wire_left(r) == 0)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                   "truncated HELLO: it ends before the node id and membership digest "
                                   "(a peer of an older release?)");
        if (satin_wire_str(r, &m->node_id, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "node id") < 0 ||
            satin_wire_fixed(r, m->digest, sizeof m->digest, "membership digest") < 0)
            return -1;
        return dec_modules(r, m);
    case SATIN_MSG_STEAL:
        if (dec_node(r, &m->thief, "thief") < 0 ||
            satin_wire_u32(r, &m->flags, "flags") < 0 ||
            satin_wire_u16(r, &m->max_jobs, "max_jobs") < 0)
            return -1;
        if (m->max_jobs < 1 || m->max_jobs > SATIN_PROTO_MAX_JOBS)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "STEAL: max_jobs %u is not in 1..%d",
                                   (unsigned)m->max_jobs, SATIN_PROTO_MAX_JOBS);
        return 0;
    case SATIN_MSG_STEAL_REPLY:
        if (dec_node(r, &m->victim, "victim") < 0 ||
            satin_wire_u32(r, &m->flags, "flags") < 0 ||
            satin_wire_count(r, &n, SATIN_PROTO_MAX_JOBS, MIN_JOBREC, SATIN_PROTO_TOO_LARGE,
                             "njobs") < 0)
            return -1;
        return dec_jobrecs(r, m, n, max_size);
    case SATIN_MSG_PUSH:
        return dec_jobrecs(r, m, 1, max_size);
    case SATIN_MSG_PUSH_ACK:
        return satin_wire_u64(r, &m->record_id, "record id");
    case SATIN_MSG_JOB_RESULT:
        if (dec_node(r, &m->owner, "owner") < 0 ||
            satin_wire_u64(r, &m->record_id, "record id") < 0 ||
            satin_wire_u8(r, &m->status, "status") < 0)
            return -1;
        if (m->status > SATIN_STATUS_RETURNED)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                   "JOB_RESULT: status %u is not 0, 1 or 2", (unsigned)m->status);
        if (satin_wire_str(r, &m->error, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                           "error") < 0 ||
            satin_wire_bytes(r, &p, &n, "result") < 0)
            return -1;
        m->data = take_bytes(r, p, n);
        m->data_len = n;
        m->data_borrowed = (uint8_t)r->borrow;
        return dec_kvlist(r, &m->stats, "stats");
    case SATIN_MSG_LOAD:
        if (satin_wire_i64(r, &m->load, "load") < 0)
            return -1;
        if (m->load < 0)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "LOAD: load %lld is negative",
                                   (long long)m->load);
        return 0;
    case SATIN_MSG_STEAL_CANCEL:
        if (satin_wire_u64(r, &m->steal_id, "steal request id") < 0)
            return -1;
        return dec_node(r, &m->thief, "thief");
    case SATIN_MSG_JOB_CANCEL:
        if (dec_node(r, &m->owner, "owner") < 0 ||
            satin_wire_count(r, &n, SATIN_PROTO_MAX_RECORD_IDS, MIN_RECORD_ID,
                             SATIN_PROTO_TOO_LARGE, "n") < 0)
            return -1;
        if (n == 0)
            return 0;
        m->record_ids = xcalloc(n, sizeof *m->record_ids);
        m->nrecord_ids = n;
        for (size_t i = 0; i < n; i++)
            if (satin_wire_u64(r, &m->record_ids[i], "record_ids[%zu]", i) < 0)
                return -1;
        return 0;
    case SATIN_MSG_STATS_REQUEST:
        if (satin_wire_u64(r, &m->job_id, "job id") < 0)
            return -1;
        return dec_phase(r, &m->phase);
    case SATIN_MSG_STATS_REPLY:
        if (satin_wire_u64(r, &m->job_id, "job id") < 0 || dec_phase(r, &m->phase) < 0)
            return -1;
        return dec_kvlist(r, &m->stats, "counters");
    case SATIN_MSG_HEARTBEAT: {
        uint8_t f;
        if (satin_wire_u8(r, &f, "flags") < 0)
            return -1;
        m->flags = f;
        return 0;
    }
    case SATIN_MSG_ORPHAN: {
        const unsigned char *d;
        size_t len;
        if (satin_wire_u64(r, &m->place, "place") < 0 ||
            satin_wire_u64(r, &m->arg_digest, "arg digest") < 0 ||
            satin_wire_u64(r, &m->origin, "origin") < 0 ||
            satin_wire_str(r, &m->kind, 1, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "kind") < 0 ||
            satin_wire_u8(r, &m->status, "status") < 0)
            return -1;
        if (m->status > SATIN_ORPHAN_GONE)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "ORPHAN: status %u is not 0, 1 or 2",
                                   (unsigned)m->status);
        if (satin_wire_u64(r, &m->jobs_run, "jobs run") < 0 ||
            satin_wire_bytes(r, &d, &len, "result") < 0)
            return -1;
        m->data = take_bytes(r, d, len);
        m->data_len = len;
        m->data_borrowed = (uint8_t)r->borrow;
        return 0;
    }
    case SATIN_MSG_JOBS_REQUEST:
        if (satin_wire_u64(r, &m->job_id, "query") < 0 ||
            satin_wire_u32(r, &m->flags, "flags") < 0 ||
            satin_wire_u8(r, &m->asker_kind, "asker kind") < 0)
            return -1;
        if (m->asker_kind > SATIN_ASKER_KEY)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                   "JOBS_REQUEST: asker kind %u is not 0, 1 or 2",
                                   (unsigned)m->asker_kind);
        if (satin_wire_u32(r, &m->asker_uid, "asker uid") < 0 ||
            satin_wire_str(r, &m->asker_key, 0, SATIN_PROTO_KEY_LEN, SATIN_PROTO_BAD_MESSAGE,
                           "asker key") < 0)
            return -1;
        if ((m->asker_kind == SATIN_ASKER_KEY) != (strlen(m->asker_key) == SATIN_PROTO_KEY_LEN) ||
            (m->asker_kind != SATIN_ASKER_KEY && m->asker_key[0]))
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                   "JOBS_REQUEST: a key of %zu bytes for asker kind %u",
                                   strlen(m->asker_key), (unsigned)m->asker_kind);
        if (satin_wire_u8(r, &m->asker_admin, "admin") < 0)
            return -1;
        if (m->asker_admin > 1)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                                   "JOBS_REQUEST: admin %u is not 0 or 1", (unsigned)m->asker_admin);
        return 0;
    case SATIN_MSG_JOBS_REPLY:
        if (satin_wire_u64(r, &m->job_id, "query") < 0)
            return -1;
        return dec_kvlists(r, m, SATIN_PROTO_MAX_LISTED, "njobs", "jobs");
    case SATIN_MSG_VALUES:
        return dec_values(r, m);
    }
    return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "unknown message type %d", m->type);
}

/* RESULT's data type and bytes: bytes only with a type, none on error. */
static int dec_result_data(satin_wire_rd *r, satin_msg *m)
{
    const unsigned char *p;
    size_t n;
    if (satin_wire_str(r, &m->data_type, 0, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                       "data type") < 0 ||
        satin_wire_bytes(r, &p, &n, "data") < 0)
        return -1;
    m->data = take_bytes(r, p, n);
    m->data_len = n;
    m->data_borrowed = (uint8_t)r->borrow;
    if (n > 0 && !m->data_type[0])
        return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "RESULT: %zu bytes of data without a type",
                               n);
    if (m->status != SATIN_STATUS_OK && (n > 0 || m->data_type[0]))
        return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                               "RESULT: a failed job with data (type '%s', %zu bytes)",
                               m->data_type, n);
    return 0;
}

static int dec_body(satin_wire_rd *r, satin_msg *m, size_t max_size)
{
    if (satin_msg_is_peer(m->type))
        return dec_peer_body(r, m, max_size);
    switch (m->type) {
    case SATIN_MSG_SUBMIT:
        return dec_submit(r, m);
    case SATIN_MSG_ACCEPTED:
    case SATIN_MSG_CANCEL:
        return satin_wire_u64(r, &m->job_id, "job id");
    case SATIN_MSG_OK:
        if (satin_wire_u64(r, &m->job_id, "job id") < 0 || satin_wire_u8(r, &m->status, "state") < 0)
            return -1;
        if (m->status > SATIN_CANCEL_FINISHED)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "OK: state %u is not 0, 1 or 2",
                                   (unsigned)m->status);
        return 0;
    case SATIN_MSG_PROGRESS:
        if (satin_wire_u64(r, &m->job_id, "job id") < 0 ||
            satin_wire_u64(r, &m->elapsed_ms, "elapsed_ms") < 0)
            return -1;
        return satin_wire_u64(r, &m->jobs_run, "jobs_run");
    case SATIN_MSG_RESULT:
        if (satin_wire_u64(r, &m->job_id, "job id") < 0 ||
            satin_wire_u8(r, &m->status, "status") < 0)
            return -1;
        if (m->status > SATIN_STATUS_ERROR)
            return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "RESULT: status %u is not 0 or 1",
                                   (unsigned)m->status);
        if (satin_wire_str(r, &m->kind, 0, SATIN_PROTO_NAME_MAX, SATIN_PROTO_BAD_MESSAGE,
                           "kind") < 0 ||
            satin_wire_str(r, &m->error, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                           "error") < 0 ||
            dec_kvlist(r, &m->result, "result") < 0 || dec_result_data(r, m) < 0)
            return -1;
        return dec_kvlist(r, &m->stats, "stats");
    case SATIN_MSG_ERROR:
        if (satin_wire_u64(r, &m->job_id, "job id") < 0 ||
            satin_wire_u16(r, &m->code, "code") < 0)
            return -1;
        return satin_wire_str(r, &m->error, 0, SATIN_PROTO_STR_MAX, SATIN_PROTO_TOO_LARGE,
                              "message");
    case SATIN_MSG_WAIT:
        if (satin_wire_u64(r, &m->job_id, "job id") < 0)
            return -1;
        return satin_wire_u32(r, &m->flags, "flags");
    case SATIN_MSG_STATUS:
    case SATIN_MSG_LIST_KINDS:
        return 0;
    case SATIN_MSG_STATUS_REPLY:
        return dec_kvlist(r, &m->info, "info");
    case SATIN_MSG_KINDS:
        return dec_kinds(r, m);
    case SATIN_MSG_LIST:
    case SATIN_MSG_GRID_STATUS:
        return satin_wire_u32(r, &m->flags, "flags");
    case SATIN_MSG_JOBS:
        return dec_jobs(r, m);
    case SATIN_MSG_GRID:
        return dec_grid(r, m);
    }
    return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "unknown message type %d", m->type);
}

static satin_msg *decode(const void *hdr, size_t hlen, const void *body, size_t blen,
                         size_t max_size, satin_proto_error *err, int borrow)
{
    satin_wire_rd r;
    uint16_t magic;
    uint8_t version, type;
    uint32_t sender;
    uint64_t request_id;

    if (err)
        memset(err, 0, sizeof *err);
    if (max_size == 0)
        max_size = SATIN_PROTO_DEFAULT_MAX_SIZE;

    /* Header first: it tells us how to answer (request id, version) even
     * when the rest is unusable. */
    satin_wire_rd_init(&r, hdr, hlen, "header", err);
    if (!hdr || hlen != SATIN_PROTO_HEADER_SIZE) {
        satin_wire_fail(&r, SATIN_PROTO_BAD_MESSAGE, "header frame is %zu bytes, must be %d",
                        hdr ? hlen : 0, SATIN_PROTO_HEADER_SIZE);
        return NULL;
    }
    satin_wire_u16(&r, &magic, "magic");
    satin_wire_u8(&r, &version, "version");
    satin_wire_u8(&r, &type, "type");
    satin_wire_u32(&r, &sender, "sender");
    satin_wire_u64(&r, &request_id, "request id");
    if (magic != SATIN_PROTO_MAGIC) {
        satin_wire_fail(&r, SATIN_PROTO_BAD_MESSAGE, "bad magic 0x%04x, expected 0x%04x",
                        (unsigned)magic, SATIN_PROTO_MAGIC);
        return NULL;
    }
    if (err) {
        err->have_header = 1;
        err->type = type;
        err->sender = sender;
        err->request_id = request_id;
    }
    /* The version comes before anything else that depends on the layout:
     * a newer peer must learn that we speak 1, not that its body is bad. */
    if (version != SATIN_PROTO_VERSION) {
        satin_wire_fail(&r, SATIN_PROTO_UNSUPPORTED_VERSION,
                        "protocol version %u, this end speaks %d", (unsigned)version,
                        SATIN_PROTO_VERSION);
        return NULL;
    }
    if (!type_known(type)) {
        if (type >= SATIN_MSG_PEER_FIRST && type <= SATIN_MSG_PEER_LAST)
            satin_wire_fail(&r, SATIN_PROTO_BAD_MESSAGE,
                            "unknown message type %u (peer range %d..%d, this end knows %d..%d)",
                            (unsigned)type, SATIN_MSG_PEER_FIRST, SATIN_MSG_PEER_LAST,
                            SATIN_MSG_HELLO, SATIN_MSG_VALUES);
        else
            satin_wire_fail(&r, SATIN_PROTO_BAD_MESSAGE, "unknown message type %u",
                            (unsigned)type);
        return NULL;
    }
    const char *what = satin_msg_type_name(type);
    if (satin_msg_is_peer(type) && sender >= node_limit) {
        satin_wire_fail(&r, SATIN_PROTO_BAD_MESSAGE, "%s: sender %lu is not a node index (0..%lu)",
                        what, (unsigned long)sender, (unsigned long)node_limit - 1);
        return NULL;
    }
    /* Size before parsing: an oversized message costs nothing to refuse. */
    if (blen > max_size || SATIN_PROTO_HEADER_SIZE + blen > max_size) {
        satin_wire_fail(&r, SATIN_PROTO_TOO_LARGE, "%s is %zu bytes, the limit is %zu", what,
                        blen > max_size ? blen : SATIN_PROTO_HEADER_SIZE + blen, max_size);
        return NULL;
    }
    if (!body && blen > 0) {
        satin_wire_fail(&r, SATIN_PROTO_BAD_MESSAGE, "%s: body of %zu bytes is missing", what,
                        blen);
        return NULL;
    }

    satin_msg *m = satin_msg_new(type);
    if (!m)   /* cannot happen: the type was checked above */
        return NULL;
    m->version = version;
    m->sender = sender;
    m->request_id = request_id;
    satin_wire_rd_init(&r, body, blen, what, err);
    r.borrow = borrow;
    if (dec_body(&r, m, max_size) < 0 || satin_wire_end(&r) < 0) {
        satin_msg_destroy(&m);
        return NULL;
    }
    return m;
}

satin_msg *satin_msg_decode(const void *hdr, size_t hlen, const void *body, size_t blen,
                            size_t max_size, satin_proto_error *err)
{
    return decode(hdr, hlen, body, blen, max_size, err, 0);
}

satin_msg *satin_msg_decode_borrowed(const void *hdr, size_t hlen, const void *body,
                                     size_t blen, size_t max_size, satin_proto_error *err)
{
    return decode(hdr, hlen, body, blen, max_size, err, 1);
}
