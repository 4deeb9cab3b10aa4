/*
 * kind_kit.h - what the job kinds' unit tests share (header-only, like
 * tap.h).  A test defines KIND_UNDER_TEST before including it, after kinds.h
 * and tap.h.
 */
#ifndef SATIN_KIND_KIT_H
#define SATIN_KIND_KIT_H

#include "apps.h"
#include "kinds.h"
#include "../tap.h"

#include <string.h>

/* The built-in kinds, linked into the test (libsatinkinds.a, whole): made
 * once, for the life of the test. */
static inline const satin_registry *kit_kinds(void)
{
    static satin_registry *reg;
    if (!reg)
        reg = satin_registry_linked(satin_module_entry());
    return reg;
}

/* Runs KIND_UNDER_TEST with `params` and reads two i64 results, `a` and
 * `b` (-1 each, with a diagnostic, when the job failed or lacks them). */
static inline void kit_run_pair(satin_pool *pool, const char *const *params, const char *a,
                                int64_t *va, const char *b, int64_t *vb)
{
    satin_outcome o;
    *va = *vb = -1;
    satin_run_record(pool, kit_kinds(), KIND_UNDER_TEST, params, &o);
    if (o.failed || satin_kvlist_i64(&o.result, a, va) < 0 ||
        satin_kvlist_i64(&o.result, b, vb) < 0)
        diag("%s %s: %s", KIND_UNDER_TEST, params[0], o.failed ? o.error : "a result is missing");
    satin_outcome_free(&o);
}

/* The record is refused, and the error says `want`. */
static inline void check_bad(satin_pool *pool, const char *const *params, const char *want,
                             const char *what)
{
    satin_outcome o;
    satin_run_record(pool, kit_kinds(), KIND_UNDER_TEST, params, &o);
    ok(o.failed, "%s: rejected", what);
    if (!ok(strstr(o.error, want) != NULL, "%s: error mentions '%s'", what, want))
        diag("error was: '%s'", o.error);
    satin_outcome_free(&o);
}

#endif
