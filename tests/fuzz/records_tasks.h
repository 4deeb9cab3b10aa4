/*
 * records_tasks.h - the order in which the records target numbers the
 * tasks (fuzz_records.c's input layout), shared with the program that
 * writes its seeds: every task of the registry, by name (strcmp), so that a
 * task keeps its number when modules or link orders change and only a new
 * task's name moves the others.
 */
#ifndef SATIN_FUZZ_RECORDS_TASKS_H
#define SATIN_FUZZ_RECORDS_TASKS_H

#include "kinds.h"

#include <stdlib.h>
#include <string.h>

static int records_task_cmp(const void *a, const void *b)
{
    return strcmp((*(const satin_task *const *)a)->name, (*(const satin_task *const *)b)->name);
}

/* The registry's tasks in that order (free() the array). */
static inline const satin_task **records_tasks(const satin_registry *reg, size_t *n)
{
    *n = satin_registry_ntasks(reg);
    const satin_task **t = calloc(*n ? *n : 1, sizeof *t);
    if (!t)
        abort();
    for (size_t i = 0; i < *n; i++)
        t[i] = satin_registry_task_at(reg, i);
    qsort(t, *n, sizeof *t, records_task_cmp);
    return t;
}

#endif
