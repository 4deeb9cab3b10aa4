/*
 * satin_kv.h - an ordered list of typed key/value pairs.
 * Results, statistics and status replies travel as such lists, so that the
 * client can print any kind's result (text or JSON) without the kind's code.
 */
#ifndef SATIN_KV_H
#define SATIN_KV_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SATIN_KV_I64 = 1,
    SATIN_KV_F64 = 2,
    SATIN_KV_STR = 3,
} satin_kv_type;

#define SATIN_KV_NAME_MAX 63   /* longest key, in bytes */

typedef struct satin_kv {
    char *name;
    satin_kv_type type;
    int64_t i64;
    double f64;
    char *str;
} satin_kv;

typedef struct satin_kvlist {
    size_t n, cap;
    satin_kv *items;
} satin_kvlist;

void satin_kvlist_init(satin_kvlist *l);
void satin_kvlist_free(satin_kvlist *l);
/* Adding a name that is already there replaces its value. */
void satin_kvlist_add_i64(satin_kvlist *l, const char *name, int64_t v);
void satin_kvlist_add_f64(satin_kvlist *l, const char *name, double v);
void satin_kvlist_add_str(satin_kvlist *l, const char *name, const char *v);
const satin_kv *satin_kvlist_find(const satin_kvlist *l, const char *name);
/* Convenience getters: 0 when found with that type, -1 otherwise. */
int satin_kvlist_i64(const satin_kvlist *l, const char *name, int64_t *out);
int satin_kvlist_f64(const satin_kvlist *l, const char *name, double *out);
const char *satin_kvlist_str(const satin_kvlist *l, const char *name);
void satin_kvlist_copy(satin_kvlist *dst, const satin_kvlist *src);
/* A list of text values as one line, "n=30 threshold=5", into buf: pairs
 * apart by one space, and in a value '%', a space and the control
 * characters as %XX (hex, upper case), so that the line splits back into
 * exactly its pairs (PROTOCOL.md 6.14).  Only whole pairs that fit in
 * len - 1 bytes ("" for an empty list).  How a job's parameters are shown
 * in one field (the accounting record's journal entry, a JOBS reply). */
void satin_kvlist_pairs_text(const satin_kvlist *l, char *buf, size_t len);

#endif
