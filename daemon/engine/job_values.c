/*
 * job_values.c - a job's grid-wide values and their joins (job_values.h).
 *
 * A bounded set keeps its `bound` least elements.  Refusing an element
 * once the set is full would make the state depend on the order updates
 * came in (two nodes, full with different elements, would never agree);
 * the least-k union is still a join (least_k(least_k(A u B) u C) is
 * least_k(A u B u C)), so every order ends in the same state.  Only an
 * update that is itself larger than the bound is refused: that is a
 * property of the update alone, and every node refuses it alike.
 */
#include "job_values.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct satin_job_values {
    size_t n;
    satin_value_decl decls[SATIN_VALUES_MAX];
    satin_value_state states[SATIN_VALUES_MAX];
};

static int op_known(satin_join_op op)
{
    return op == SATIN_JOIN_MIN || op == SATIN_JOIN_MAX || op == SATIN_JOIN_OR ||
           op == SATIN_JOIN_UNION;
}

satin_job_values *satin_job_values_new(const satin_value_decl *decls, size_t n, char *err,
                                       size_t errlen)
{
    if (n > SATIN_VALUES_MAX) {
        snprintf(err, errlen, "%zu values declared, at most %d", n, SATIN_VALUES_MAX);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const satin_value_decl *d = &decls[i];
        size_t len = strnlen(d->name, sizeof d->name);
        if (len == 0 || len > SATIN_VALUE_NAME_MAX) {
            snprintf(err, errlen, "value %zu: a name of 1 to %d bytes", i, SATIN_VALUE_NAME_MAX);
            return NULL;
        }
        if (!op_known(d->op)) {
            snprintf(err, errlen, "value %s: unknown join %d", d->name, (int)d->op);
            return NULL;
        }
        if (d->op == SATIN_JOIN_UNION ? d->bound < 1 || d->bound > SATIN_VALUE_SET_MAX
                                      : d->bound != 0) {
            snprintf(err, errlen, "value %s: a bound of %u (a set's is 1 to %d, others have none)",
                     d->name, d->bound, SATIN_VALUE_SET_MAX);
            return NULL;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(decls[j].name, d->name) == 0) {
                snprintf(err, errlen, "value %s declared twice", d->name);
                return NULL;
            }
    }
    satin_job_values *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    self->n = n;
    for (size_t i = 0; i < n; i++) {
        self->decls[i] = decls[i];
        self->states[i].op = decls[i].op;
    }
    return self;
}

void satin_value_state_free(satin_value_state *s)
{
    free(s->elems);
    s->elems = NULL;
    s->n = 0;
    s->set = 0;
    s->scalar = 0;
}

void satin_job_values_destroy(satin_job_values **self)
{
    if (!self || !*self)
        return;
    for (size_t i = 0; i < (*self)->n; i++)
        satin_value_state_free(&(*self)->states[i]);
    free(*self);
    *self = NULL;
}

size_t satin_job_values_count(const satin_job_values *self)
{
    return self->n;
}

const satin_value_decl *satin_job_values_decl(const satin_job_values *self, size_t i)
{
    return i < self->n ? &self->decls[i] : NULL;
}

int satin_job_values_find(const satin_job_values *self, const char *name)
{
    for (size_t i = 0; i < self->n; i++)
        if (strcmp(self->decls[i].name, name) == 0)
            return (int)i;
    return -1;
}

const satin_value_state *satin_job_values_state(const satin_job_values *self, size_t i)
{
    return i < self->n ? &self->states[i] : NULL;
}

/* The least `bound` elements of the union of two sorted, distinct arrays. */
static int join_union(satin_value_state *into, const satin_value_state *u, uint32_t bound)
{
    size_t cap = (size_t)into->n + u->n;
    if (cap > bound)
        cap = bound;
    uint64_t *out = malloc((cap ? cap : 1) * sizeof *out);
    if (!out)
        return -1;
    size_t i = 0, j = 0, k = 0;
    while (k < cap && (i < into->n || j < u->n)) {
        uint64_t v;
        if (j >= u->n || (i < into->n && into->elems[i] < u->elems[j]))
            v = into->elems[i++];
        else if (i >= into->n || u->elems[j] < into->elems[i])
            v = u->elems[j++];
        else {
            v = into->elems[i++];
            j++;
        }
        out[k++] = v;
    }
    int grew = k != into->n || (k && memcmp(out, into->elems, k * sizeof *out) != 0);
    free(into->elems);
    into->elems = out;
    into->n = (uint32_t)k;
    return grew;
}

int satin_value_state_join(satin_value_state *into, const satin_value_state *u, uint32_t bound)
{
    switch (into->op) {
    case SATIN_JOIN_MIN:
    case SATIN_JOIN_MAX:
        if (!u->set)
            return 0;
        if (into->set && (into->op == SATIN_JOIN_MIN ? u->scalar >= into->scalar
                                                     : u->scalar <= into->scalar))
            return 0;
        into->set = 1;
        into->scalar = u->scalar;
        return 1;
    case SATIN_JOIN_OR: {
        uint64_t old = (uint64_t)into->scalar, bits = old | (uint64_t)u->scalar;
        into->scalar = (int64_t)bits;
        into->set = 1;
        return bits != old;
    }
    case SATIN_JOIN_UNION:
        if (u->n == 0)
            return 0;
        return join_union(into, u, bound);
    }
    return -1;
}

int satin_job_values_join(satin_job_values *self, const char *name,
                          const satin_value_state *update, char *err, size_t errlen)
{
    int i = satin_job_values_find(self, name);
    if (i < 0) {
        snprintf(err, errlen, "no value named '%.*s' was declared by the job", SATIN_VALUE_NAME_MAX,
                 name);
        return -1;
    }
    const satin_value_decl *d = &self->decls[i];
    if (update->op != d->op) {
        snprintf(err, errlen, "value %s: an update of join %d to a value of join %d", d->name,
                 (int)update->op, (int)d->op);
        return -1;
    }
    if (d->op == SATIN_JOIN_UNION) {
        if (update->n > d->bound) {
            snprintf(err, errlen, "value %s: an update of %u elements to a set of at most %u",
                     d->name, update->n, d->bound);
            return -1;
        }
        for (uint32_t k = 1; k < update->n; k++)
            if (update->elems[k - 1] >= update->elems[k]) {
                snprintf(err, errlen, "value %s: an update whose elements are not sorted and "
                         "distinct (element %u)", d->name, k);
                return -1;
            }
    }
    int r = satin_value_state_join(&self->states[i], update, d->bound);
    if (r < 0)
        snprintf(err, errlen, "value %s: out of memory", d->name);
    return r;
}

int satin_job_values_join_i64(satin_job_values *self, const char *name, satin_join_op op,
                              int64_t v, char *err, size_t errlen)
{
    satin_value_state u = {.op = op, .set = 1, .scalar = v};
    if (op == SATIN_JOIN_UNION) {
        snprintf(err, errlen, "value %s: a set takes elements, not a scalar", name);
        return -1;
    }
    return satin_job_values_join(self, name, &u, err, errlen);
}

static int states_equal(const satin_value_state *a, const satin_value_state *b)
{
    if (a->op != b->op)
        return 0;
    if (a->op == SATIN_JOIN_UNION)
        return a->n == b->n && (a->n == 0 || memcmp(a->elems, b->elems, a->n * sizeof *a->elems) == 0);
    if (a->op == SATIN_JOIN_OR)
        return a->scalar == b->scalar;
    return a->set == b->set && (!a->set || a->scalar == b->scalar);
}

static int same_decls(const satin_job_values *a, const satin_job_values *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->decls[i].name, b->decls[i].name) != 0 || a->decls[i].op != b->decls[i].op ||
            a->decls[i].bound != b->decls[i].bound)
            return 0;
    return 1;
}

int satin_job_values_equal(const satin_job_values *a, const satin_job_values *b)
{
    if (!same_decls(a, b))
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (!states_equal(&a->states[i], &b->states[i]))
            return 0;
    return 1;
}

int64_t satin_job_values_merge(satin_job_values *into, const satin_job_values *from)
{
    if (!same_decls(into, from))
        return -1;
    int64_t grew = 0;
    for (size_t i = 0; i < into->n; i++) {
        int r = satin_value_state_join(&into->states[i], &from->states[i], into->decls[i].bound);
        if (r < 0)
            return -1;
        if (r > 0)
            grew |= (int64_t)1 << i;
    }
    return grew;
}
