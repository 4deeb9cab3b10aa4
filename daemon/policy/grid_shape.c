/*
 * grid_shape.c - the grid's clusters and members, checked and built once
 * for every engine and policy of a process (grid_shape.h says why).
 */
#include "grid_shape.h"

#include <stdlib.h>
#include <string.h>

static int topology_valid(const satin_policy_topology *t)
{
    if (!t || t->nnodes < 1 || t->nclusters < 1 || !t->cluster_of || !t->cluster_size ||
        !t->members)
        return 0;
    int total = 0, absent = 0;
    for (int c = 0; c < t->nclusters; c++) {
        if (t->cluster_size[c] < 0 || (t->cluster_size[c] > 0 && !t->members[c]))
            return 0;
        total += t->cluster_size[c];
        for (int i = 0; i < t->cluster_size[c]; i++) {
            int n = t->members[c][i];
            if (n < 0 || n >= t->nnodes || t->cluster_of[n] != c)
                return 0;
        }
    }
    for (int n = 0; n < t->nnodes; n++) {
        int c = t->cluster_of[n];
        if (c == SATIN_POLICY_NOT_MEMBER)
            absent++;
        else if (c < 0 || c >= t->nclusters)
            return 0;
    }
    return total + absent == t->nnodes;
}

static void *table(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

satin_grid_shape *satin_grid_shape_new(const satin_policy_topology *t, const char *const *names)
{
    if (!topology_valid(t))
        return NULL;
    int nn = t->nnodes, nc = t->nclusters;
    satin_grid_shape *s = table(1, sizeof *s);
    s->refs = 1;
    s->nnodes = nn;
    s->nclusters = nc;
    s->cluster_of = table((size_t)nn, sizeof(int));
    s->cluster_size = table((size_t)nc, sizeof(int));
    s->members = table((size_t)nc, sizeof(int *));
    s->index_of = table((size_t)nn, sizeof(int));
    s->order = table((size_t)nn, sizeof(int));
    s->rank_of = table((size_t)nn, sizeof(int));
    s->used = table((size_t)nc, sizeof(int));
    s->used_rank = table((size_t)nc, sizeof(int));
    memcpy(s->cluster_of, t->cluster_of, (size_t)nn * sizeof(int));
    memcpy(s->cluster_size, t->cluster_size, (size_t)nc * sizeof(int));
    for (int n = 0; n < nn; n++) {
        s->index_of[n] = -1;
        s->rank_of[n] = -1;
        if (s->cluster_of[n] != SATIN_POLICY_NOT_MEMBER) {
            s->rank_of[n] = s->norder;
            s->order[s->norder++] = n;
        }
    }
    for (int c = 0; c < nc; c++) {
        int sz = t->cluster_size[c];
        s->members[c] = table((size_t)sz, sizeof(int));
        if (sz > 0)   /* an empty cluster may have no list at all */
            memcpy(s->members[c], t->members[c], (size_t)sz * sizeof(int));
        for (int i = 0; i < sz; i++)
            s->index_of[s->members[c][i]] = i;
        s->used_rank[c] = sz > 0 ? s->nused : -1;
        if (sz > 0)
            s->used[s->nused++] = c;
    }
    if (names) {
        s->names = table((size_t)nn, sizeof *s->names);
        memcpy(s->names, names, (size_t)nn * sizeof *s->names);
    }
    return s;
}

satin_grid_shape *satin_grid_shape_ref(satin_grid_shape *s)
{
    if (s)
        s->refs++;
    return s;
}

void satin_grid_shape_unref(satin_grid_shape **self)
{
    satin_grid_shape *s = *self;
    *self = NULL;
    if (!s || --s->refs > 0)
        return;
    for (int c = 0; c < s->nclusters; c++)
        free(s->members[c]);
    free(s->members);
    free(s->cluster_of);
    free(s->cluster_size);
    free(s->index_of);
    free(s->order);
    free(s->rank_of);
    free(s->used);
    free(s->used_rank);
    free(s->names);
    free(s);
}

satin_policy_topology satin_grid_shape_topology(satin_grid_shape *s, int self)
{
    return (satin_policy_topology){
        .nnodes = s->nnodes,
        .self = self,
        .nclusters = s->nclusters,
        .cluster_of = s->cluster_of,
        .cluster_size = s->cluster_size,
        .members = (const int *const *)s->members,
        .shape = s,
    };
}
