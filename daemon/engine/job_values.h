/*
 * job_values.h - a job's grid-wide values: named states of a lattice
 * (min, max, bitwise or, a bounded set union) that every node running the
 * job joins its updates into.
 *
 * Joins commute, associate and repeat harmlessly, so updates may travel in
 * any order, twice, or be resent after a node was lost, and every node
 * that has seen the same updates holds the same state.  That is why this
 * replaces Satin's shared objects without a consistency protocol: a node
 * reads its own copy and never waits, and a bound that arrives late costs
 * work, never a wrong result.
 *
 * Pure: no I/O, no clock, no threads.  The engine owns one per job that
 * declared values; value_spread.h decides when an update goes to whom.
 */
#ifndef SATIN_JOB_VALUES_H
#define SATIN_JOB_VALUES_H

#include <stddef.h>
#include <stdint.h>

/* The lattices.  Numbers are the wire's (PROTOCOL.md). */
typedef enum satin_join_op {
    SATIN_JOIN_MIN = 1,    /* i64: the least value seen (a tour's length) */
    SATIN_JOIN_MAX = 2,    /* i64: the greatest (a knapsack's best value) */
    SATIN_JOIN_OR = 3,     /* u64: the bits ever set (found-flags) */
    SATIN_JOIN_UNION = 4   /* a set of u64, at most `bound` elements */
} satin_join_op;

#define SATIN_VALUES_MAX 16          /* values one job may declare */
#define SATIN_VALUE_NAME_MAX 31      /* bytes of a value's name */
#define SATIN_VALUE_SET_MAX 4096     /* the largest bound of a set */

typedef struct satin_value_decl {
    char name[SATIN_VALUE_NAME_MAX + 1];
    satin_join_op op;
    uint32_t bound;                  /* SATIN_JOIN_UNION: its most elements; else 0 */
} satin_value_decl;

/* One value's state, or one update to it (an update is a state too: the
 * join of a state into another is the only operation). */
typedef struct satin_value_state {
    satin_join_op op;
    int set;                         /* min/max: 0 while nothing was joined (bottom) */
    int64_t scalar;                  /* min/max: the value; or: the bits as int64 */
    uint64_t *elems;                 /* union: sorted, distinct; owned by the state */
    uint32_t n;
} satin_value_state;

typedef struct satin_job_values satin_job_values;

/* Values declared as `decls` (distinct names of 1..SATIN_VALUE_NAME_MAX
 * bytes, known ops, a union's bound 1..SATIN_VALUE_SET_MAX, others 0);
 * NULL with the reason in err when the declaration is not one. */
satin_job_values *satin_job_values_new(const satin_value_decl *decls, size_t n, char *err,
                                       size_t errlen);
void satin_job_values_destroy(satin_job_values **self);

size_t satin_job_values_count(const satin_job_values *self);
const satin_value_decl *satin_job_values_decl(const satin_job_values *self, size_t i);
/* The index of the value named `name`, or -1. */
int satin_job_values_find(const satin_job_values *self, const char *name);
/* Value i's current state (owned by self, valid until the next join). */
const satin_value_state *satin_job_values_state(const satin_job_values *self, size_t i);

/* Joins `update` into the value named `name`: 1 when its state grew, 0
 * when the update was already in it, -1 when refused (an undeclared name,
 * another op than the declaration's, a set past its bound, elements not
 * sorted and distinct): the reason is in err and nothing changed. */
int satin_job_values_join(satin_job_values *self, const char *name,
                          const satin_value_state *update, char *err, size_t errlen);

/* Scalar updates, for the kinds' code: the same as a join of {op, 1, v}. */
int satin_job_values_join_i64(satin_job_values *self, const char *name, satin_join_op op,
                              int64_t v, char *err, size_t errlen);

/* 1 when every value of a and b holds the same state (same declarations). */
int satin_job_values_equal(const satin_job_values *a, const satin_job_values *b);

/* Joins every value of `from` into `into` (same declarations): what a node
 * starting a record of the job gets from the record's sender.  Returns
 * the values that grew as a bit mask, or -1 when the declarations differ. */
int64_t satin_job_values_merge(satin_job_values *into, const satin_job_values *from);

/* The join itself, on states of one op: grows `into` by `update`.  1: it
 * grew; 0: no change; -1: out of memory or past `bound` (into unchanged). */
int satin_value_state_join(satin_value_state *into, const satin_value_state *update, uint32_t bound);
void satin_value_state_free(satin_value_state *s);

#endif
