/*
 * kind_shared.h - what several kinds would otherwise each write again: the
 * reads their argument checks start with, which all word a wrong length
 * and a field out of range alike, and the format of a kind whose root
 * returns one int64.
 *
 * A typed task's check gets its decoded struct (SATIN_TASK checks the
 * length); a bytes task's check is a length test, then a function over the
 * decoded argument: satin_arg_head and satin_arg_tail for a fixed header
 * followed by a count of items the header names.
 */
#ifndef SATIN_KIND_SHARED_H
#define SATIN_KIND_SHARED_H

#include "satin/satin.h"

#include <stddef.h>
#include <stdint.h>

/* The argument, exactly `size` bytes, copied into out: 0, or -1 with
 * "KIND: argument of LEN bytes, expected SIZE". */
int satin_arg_read(const char *kind, const void *arg, size_t len, void *out, size_t size,
                   satin_err *err);
/* Its first `size` bytes, the header, copied into out: 0, or -1 when the
 * argument is shorter. */
int satin_arg_head(const char *kind, const void *arg, size_t len, void *out, size_t size,
                   satin_err *err);
/* 0 when the argument is `head` bytes and `count` items of `each` bytes
 * (the count the header gives, checked against its bounds before), or -1
 * naming the count (`what`: "nodes", "items"...). */
int satin_arg_tail(const char *kind, size_t len, size_t head, uint64_t count, size_t each,
                   const char *what, satin_err *err);
/* 0 when min <= v <= max, else -1 with "KIND: FIELD=V is out of range MIN..MAX". */
int satin_arg_range(const char *kind, const char *field, int64_t v, int64_t min, int64_t max,
                    satin_err *err);

/* An argument of a header alone, or of the header and an extension
 * (`more`: then data may follow it), read into head and ext: 0 for the
 * header alone, 1 with the extension, or -1 with "KIND: argument of LEN
 * bytes, expected HEAD or HEAD+EXT" (or "at least"). */
int satin_arg_read_ext(const char *kind, const void *arg, size_t len, void *head,
                       size_t head_size, void *ext, size_t ext_size, int more, satin_err *err);

/* The check of a kind whose argument is a header H and then `count` items
 * of `item_size` bytes, the count a field of H within lo..hi: the lengths,
 * then valid(const H *, const unsigned char *items, satin_err *) over the
 * decoded header and the items (unaligned: copy them out). */
#define SATIN_ARG_CHECK_ITEMS(name, kind, H, count, lo, hi, item_size, what, valid)            \
    static int name(const void *arg, size_t len, satin_err *err)                            \
    {                                                                                       \
        H head_;                                                                            \
        if (satin_arg_head(kind, arg, len, &head_, sizeof head_, err) < 0 ||                \
            satin_arg_range(kind, #count, head_.count, lo, hi, err) < 0 ||                  \
            satin_arg_tail(kind, len, sizeof head_, (uint64_t)head_.count, item_size, what, \
                           err) < 0)                                                        \
            return -1;                                                                      \
        return valid(&head_, (const unsigned char *)arg + sizeof head_, err);               \
    }

/* The most bytes a record or result that carries data (matmul's and the
 * raytracer's with carry) may have, whatever the node's record limit: a
 * task's check is not told the limit of the node that checks, so their
 * checks hold what a job would send to satind's default --max-record, and
 * their parse to the lower of that and the parsing node's. */
#define SATIN_CARRY_MAX ((size_t)1 << 20)
/* That lower limit, for parse, and how a refusal names it ("the record
 * limit (N bytes, satind --max-record)", or the bound above when it is
 * the lower): into buf, which it returns. */
size_t satin_carry_limit(const satin_bytes *b);
const char *satin_carry_limit_text(const satin_bytes *b, char *buf, size_t cap);

/* The int64 a root returned; 0 when the result is not one. */
int64_t satin_result_as_i64(const void *res, size_t len);
/* The format of a kind whose root returns one int64, shown as `value`. */
void satin_format_value(const void *res, size_t len, double wall_s, satin_result *result,
                        satin_result *stats);

#endif
