/* kinds.c - the registry of kinds and tasks, preparing and formatting
 * records. */
#include "kinds.h"
#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    const void *what;            /* a satin_kind or a satin_task */
    size_t module;               /* index into modules */
} entry;

struct satin_registry {
    satin_module_info *modules;
    size_t nmodules;
    entry *kinds, *tasks;
    size_t nkinds, ntasks;
};

satin_registry *satin_registry_new(void)
{
    satin_registry *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    return r;
}

void satin_registry_destroy(satin_registry **self)
{
    satin_registry *r = *self;
    if (!r)
        return;
    free(r->modules);
    free(r->kinds);
    free(r->tasks);
    free(r);
    *self = NULL;
}

static const char *name_of_kind(const void *p)
{
    return ((const satin_kind *)p)->name;
}

static const char *name_of_task(const void *p)
{
    return ((const satin_task *)p)->name;
}

static const entry *find(const entry *e, size_t n, const char *name,
                         const char *(*name_of)(const void *))
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name_of(e[i].what), name) == 0)
            return &e[i];
    return NULL;
}

/* A name a record or a job record can carry: 1..63 bytes (PROTOCOL.md). */
static int bad_name(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    return len == 0 || len > 63;
}

/* " (FILE)" of the module an entry came from, in three pieces for a format
 * string; "" when linked in. */
static const char *in_file(const satin_registry *self, const entry *e, int piece)
{
    const char *file = self->modules[e->module].file;
    if (!file[0])
        return "";
    return piece == 0 ? " (" : piece == 1 ? file : ")";
}

/* A kind's grid-wide values: at most SATIN_VALUES_MAX, each with a name of
 * 1..31 bytes of its own and a join the runtime knows. */
static int check_values(const satin_module *m, const satin_kind *k, satin_err *err)
{
    size_t n = 0;
    for (const satin_value_def *v = k->values; v && v->name; v++, n++) {
        size_t len = strlen(v->name);
        if (n == SATIN_VALUES_MAX)
            return satin_err_set(err, "module %s: kind %s declares more than %d values", m->name,
                                 k->name, SATIN_VALUES_MAX);
        if (len == 0 || len > 31)
            return satin_err_set(err, "module %s: kind %s: value %zu's name is not 1..31 bytes",
                                 m->name, k->name, n);
        if (v->join != SATIN_LEAST && v->join != SATIN_GREATEST && v->join != SATIN_BITS)
            return satin_err_set(err, "module %s: kind %s: value %s has join %d (SATIN_LEAST, "
                                 "SATIN_GREATEST or SATIN_BITS)", m->name, k->name, v->name,
                                 v->join);
        for (const satin_value_def *w = k->values; w < v; w++)
            if (strcmp(w->name, v->name) == 0)
                return satin_err_set(err, "module %s: kind %s declares value %s twice", m->name,
                                     k->name, v->name);
    }
    return 0;
}

int satin_registry_add(satin_registry *self, const satin_module *m, const char *file,
                       const char *digest, satin_err *err)
{
    if (m->api_version != SATIN_API_VERSION)
        return satin_err_set(err, "built for kind API version %u; this program loads version %d "
                             "(rebuild the module against this <satin/satin.h>)",
                             (unsigned)m->api_version, SATIN_API_VERSION);
    if (m->size < sizeof *m || m->kind_size < sizeof(satin_kind))
        return satin_err_set(err, "its module record is %u bytes and its kinds' %u, expected %zu "
                             "and %zu (built with an older <satin/satin.h> of version %d: "
                             "rebuild the module)", (unsigned)m->size,
                             m->size < sizeof *m ? 0u : (unsigned)m->kind_size, sizeof *m,
                             sizeof(satin_kind), SATIN_API_VERSION);
    if (!m->name || !m->version || bad_name(m->name))
        return satin_err_set(err, "the module has no name of 1..63 bytes (SATIN_MODULE)");
    size_t nk = (size_t)(m->kinds_end - m->kinds), nt = (size_t)(m->tasks_end - m->tasks);
    if (!m->kinds || nk == 0)
        return satin_err_set(err, "module %s has no kinds (SATIN_KIND)", m->name);
    /* Check everything before adding anything. */
    /* Kinds first: a clash of kind names is the one users see. */
    for (size_t i = 0; i < nk; i++) {
        const satin_kind *k = m->kinds[i];
        if (bad_name(k->name))
            return satin_err_set(err, "module %s: a kind's name is not 1..63 bytes", m->name);
        if (!k->root || !k->parse)
            return satin_err_set(err, "module %s: kind %s has no %s", m->name, k->name,
                                 k->root ? "parse function" : "root task");
        int own = 0;
        for (size_t j = 0; j < nt && !own; j++)
            own = m->tasks[j] == k->root;
        if (!own)
            return satin_err_set(err, "module %s: kind %s's root task %s is not the module's",
                                 m->name, k->name, k->root->name ? k->root->name : "?");
        const entry *e = find(self->kinds, self->nkinds, k->name, name_of_kind);
        if (e)
            return satin_err_set(err, "module %s: kind %s is also module %s's%s%s%s (a kind "
                                 "name is one kind on a node: rename one, or remove the "
                                 "older module)", m->name, k->name,
                                 self->modules[e->module].name, in_file(self, e, 0),
                                 in_file(self, e, 1), in_file(self, e, 2));
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->kinds[j]->name, k->name) == 0)
                return satin_err_set(err, "module %s: two kinds named %s", m->name, k->name);
        if (check_values(m, k, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < nt; i++) {
        const satin_task *t = m->tasks[i];
        if (bad_name(t->name))
            return satin_err_set(err, "module %s: a task's name is not 1..63 bytes", m->name);
        if (!t->run || !t->check)
            return satin_err_set(err, "module %s: task %s has no %s", m->name, t->name,
                                 t->run ? "argument check" : "body");
        const entry *e = find(self->tasks, self->ntasks, t->name, name_of_task);
        if (e)
            return satin_err_set(err, "module %s: task %s is also module %s's%s%s%s", m->name,
                                 t->name, self->modules[e->module].name, in_file(self, e, 0),
                                 in_file(self, e, 1), in_file(self, e, 2));
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->tasks[j]->name, t->name) == 0)
                return satin_err_set(err, "module %s: two tasks named %s", m->name, t->name);
    }
    self->modules = realloc(self->modules, (self->nmodules + 1) * sizeof *self->modules);
    self->kinds = realloc(self->kinds, (self->nkinds + nk) * sizeof *self->kinds);
    self->tasks = realloc(self->tasks, (self->ntasks + nt) * sizeof *self->tasks);
    if (!self->modules || !self->kinds || !self->tasks)
        abort();
    satin_module_info *info = &self->modules[self->nmodules];
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", m->name);
    snprintf(info->version, sizeof info->version, "%s", m->version);
    snprintf(info->file, sizeof info->file, "%s", file ? file : "");
    snprintf(info->digest, sizeof info->digest, "%s", digest ? digest : "");
    info->fd = -1;
    for (size_t i = 0; i < nk; i++)
        self->kinds[self->nkinds++] = (entry){m->kinds[i], self->nmodules};
    for (size_t i = 0; i < nt; i++)
        self->tasks[self->ntasks++] = (entry){m->tasks[i], self->nmodules};
    self->nmodules++;
    return 0;
}

void satin_registry_set_handle(satin_registry *self, size_t i, void *handle, int fd)
{
    self->modules[i].handle = handle;
    self->modules[i].fd = fd;
}

void satin_registry_truncate(satin_registry *self, size_t nmodules)
{
    while (self->nkinds > 0 && self->kinds[self->nkinds - 1].module >= nmodules)
        self->nkinds--;
    while (self->ntasks > 0 && self->tasks[self->ntasks - 1].module >= nmodules)
        self->ntasks--;
    if (self->nmodules > nmodules)
        self->nmodules = nmodules;
}

satin_registry *satin_registry_linked(const satin_module *m)
{
    satin_registry *r = satin_registry_new();
    satin_err err = {""};
    if (satin_registry_add(r, m, NULL, NULL, &err) < 0) {
        fprintf(stderr, "satin: the linked-in kinds: %s\n", err.msg);
        abort();
    }
    return r;
}

const satin_kind *satin_registry_kind(const satin_registry *self, const char *name)
{
    const entry *e = find(self->kinds, self->nkinds, name, name_of_kind);
    return e ? e->what : NULL;
}

const satin_task *satin_registry_task(const satin_registry *self, const char *name)
{
    const entry *e = find(self->tasks, self->ntasks, name, name_of_task);
    return e ? e->what : NULL;
}

static const satin_module_info *module_of(const satin_registry *self, const entry *e, size_t n,
                                          const void *what)
{
    for (size_t i = 0; i < n; i++)
        if (e[i].what == what)
            return &self->modules[e[i].module];
    return NULL;
}

const satin_module_info *satin_registry_kind_module(const satin_registry *self,
                                                    const satin_kind *kind)
{
    return module_of(self, self->kinds, self->nkinds, kind);
}

const satin_module_info *satin_registry_task_module(const satin_registry *self,
                                                    const satin_task *task)
{
    return module_of(self, self->tasks, self->ntasks, task);
}

const satin_value_def *satin_registry_task_values(const satin_registry *self,
                                                  const satin_task *task)
{
    for (size_t i = 0; i < self->nkinds; i++) {
        const satin_kind *k = self->kinds[i].what;
        if (k->root == task && k->values && k->values[0].name)
            return k->values;
    }
    return NULL;
}

size_t satin_registry_nkinds(const satin_registry *self)
{
    return self->nkinds;
}

const satin_kind *satin_registry_kind_at(const satin_registry *self, size_t i)
{
    return i < self->nkinds ? self->kinds[i].what : NULL;
}

size_t satin_registry_ntasks(const satin_registry *self)
{
    return self->ntasks;
}

const satin_task *satin_registry_task_at(const satin_registry *self, size_t i)
{
    return i < self->ntasks ? self->tasks[i].what : NULL;
}

size_t satin_registry_nmodules(const satin_registry *self)
{
    return self->nmodules;
}

const satin_module_info *satin_registry_module_at(const satin_registry *self, size_t i)
{
    return i < self->nmodules ? &self->modules[i] : NULL;
}

int satin_kind_prepare(const satin_kind *kind, satin_params *params, size_t max_record,
                       satin_bytes *arg, satin_err *err)
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

void satin_kind_format(const satin_job *job, satin_kvlist *result, satin_kvlist *stats,
                       satin_result *data)
{
    const satin_kind *kind = satin_job_kind(job);
    satin_job_stats(job, stats);
    if (satin_job_failed(job) || !kind || !kind->format)
        return;
    size_t len;
    const void *res = satin_job_result(job, &len);
    satin_result r, s;
    satin_result_init(&r, *result);
    satin_result_init(&s, *stats);
    kind->format(res, len, satin_job_wall_seconds(job), &r, &s);
    *result = satin_result_take_list(&r);
    *stats = satin_result_take_list(&s);
    satin_result_free_data(&s);   /* statistics carry no data */
    if (data) {
        satin_result_free_data(data);
        data->data = r.data;
        data->data_len = r.data_len;
        memcpy(data->data_type, r.data_type, sizeof data->data_type);
    } else {
        satin_result_free_data(&r);
    }
}

int satin_record_prepare(const satin_registry *reg, const char *kind_name,
                         const char *const *params, size_t max_record,
                         const satin_kind **kind_out, satin_bytes *arg, satin_outcome *out)
{
    memset(out, 0, sizeof *out);
    satin_kvlist_init(&out->result);
    satin_kvlist_init(&out->stats);
    satin_err err = {""};
    const satin_kind *kind = satin_registry_kind(reg, kind_name);
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

void satin_run_record(satin_pool *pool, const satin_registry *reg, const char *kind_name,
                      const char *const *params, satin_outcome *out)
{
    const satin_kind *kind;
    satin_bytes arg;
    if (satin_record_prepare(reg, kind_name, params, satin_pool_max_record(pool), &kind, &arg,
                             out) < 0)
        return;
    satin_job *job = satin_job_new_parsed(kind, &arg);
    satin_bytes_free(&arg);
    satin_pool_run(pool, job);
    out->failed = satin_job_failed(job);
    snprintf(out->error, sizeof out->error, "%s", satin_job_error(job));
    out->wall_s = satin_job_wall_seconds(job);
    satin_result data;
    satin_result_init(&data, (satin_kvlist){0});
    satin_kind_format(job, &out->result, &out->stats, &data);
    out->data = data.data;
    out->data_len = data.data_len;
    memcpy(out->data_type, data.data_type, sizeof out->data_type);
    satin_job_destroy(&job);
}

void satin_outcome_free(satin_outcome *out)
{
    satin_kvlist_free(&out->result);
    satin_kvlist_free(&out->stats);
    free(out->data);
    out->data = NULL;
}
