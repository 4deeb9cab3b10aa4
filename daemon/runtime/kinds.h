/*
 * kinds.h - the kinds and tasks a node knows (its registry: the modules it
 * loaded), and the path from a job record (kind name + key=value
 * parameters) to a running job and a formatted result.
 */
#ifndef SATIN_KINDS_H
#define SATIN_KINDS_H

#include "params.h"
#include "pool.h"
#include "satin/satin.h"
#include "satin_kv.h"

#include <stddef.h>

/* What a node knows of one module it loaded. */
typedef struct satin_module_info {
    char name[64], version[64];
    char file[512];               /* where it was loaded from ("" when linked in) */
    char digest[65];              /* SHA-256 of the file, hex ("" when linked in) */
    void *handle;                 /* dlopen's (NULL when linked in) */
    int fd;                       /* the file, open while loaded (-1 when linked in) */
} satin_module_info;

typedef struct satin_registry satin_registry;

satin_registry *satin_registry_new(void);
void satin_registry_destroy(satin_registry **self);
/* Adds a module's kinds and tasks.  -1 with err when the module was built
 * for another API version, or a kind or task has the name of one already
 * known (err names both modules); nothing is added then. */
int satin_registry_add(satin_registry *self, const satin_module *m, const char *file,
                       const char *digest, satin_err *err);
/* For the module loader: module i's dlopen handle and open file. */
void satin_registry_set_handle(satin_registry *self, size_t i, void *handle, int fd);
/* Forgets the modules from the nmodules-th on, with their kinds and tasks
 * (a directory's load that failed part way: modules.c releases them). */
void satin_registry_truncate(satin_registry *self, size_t nmodules);
/* The module linked into this program itself (satin_module_entry of the
 * kinds' static library, or a test's own): what the unit tests use. */
satin_registry *satin_registry_linked(const satin_module *m);

const satin_kind *satin_registry_kind(const satin_registry *self, const char *name);
const satin_task *satin_registry_task(const satin_registry *self, const char *name);
/* The module a kind or task came from (NULL when unknown). */
const satin_module_info *satin_registry_kind_module(const satin_registry *self,
                                                    const satin_kind *kind);
const satin_module_info *satin_registry_task_module(const satin_registry *self,
                                                    const satin_task *task);
/* The grid-wide values of the kind whose root task is `task` (what a record
 * of that task run for another node shares), or NULL. */
const satin_value_def *satin_registry_task_values(const satin_registry *self,
                                                  const satin_task *task);
/* In the order they were added (--list-kinds order). */
size_t satin_registry_nkinds(const satin_registry *self);
const satin_kind *satin_registry_kind_at(const satin_registry *self, size_t i);
size_t satin_registry_ntasks(const satin_registry *self);
const satin_task *satin_registry_task_at(const satin_registry *self, size_t i);
size_t satin_registry_nmodules(const satin_registry *self);
const satin_module_info *satin_registry_module_at(const satin_registry *self, size_t i);

/* Checks the parameters (unknown keys, required ones, defaults) and lets the
 * kind turn them into the root's argument bytes. */
int satin_kind_prepare(const satin_kind *kind, satin_params *params, size_t max_record,
                       satin_bytes *arg, satin_err *err);

/* The user-visible result, statistics and data of a finished job (`data`
 * may be NULL: the data are dropped).  A job of another node's record has
 * no kind: only its statistics. */
void satin_kind_format(const satin_job *job, satin_kvlist *result, satin_kvlist *stats,
                       satin_result *data);

/* A whole job record run to completion on `pool`: what the tests, the
 * benchmarks and the kinds' self-checks use.  `params` is a NULL-terminated
 * list of "key=value" strings. */
typedef struct satin_outcome {
    int failed;            /* 1: the record was rejected or the job failed */
    char error[256];
    satin_kvlist result;
    satin_kvlist stats;
    double wall_s;
    unsigned char *data;   /* satin_result_data's bytes, NULL when none */
    size_t data_len;
    char data_type[64];
} satin_outcome;

void satin_run_record(satin_pool *pool, const satin_registry *reg, const char *kind,
                      const char *const *params, satin_outcome *out);
/* The first half of satin_run_record: finds the kind and turns the parameters
 * into the root's argument bytes (`arg`, to be freed).  -1 with out->failed
 * and out->error set when the record is rejected; `out` is initialised
 * either way. */
int satin_record_prepare(const satin_registry *reg, const char *kind, const char *const *params,
                         size_t max_record, const satin_kind **kind_out, satin_bytes *arg,
                         satin_outcome *out);
void satin_outcome_free(satin_outcome *out);

#endif
