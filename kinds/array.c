/*
 * array.c - the sum of a seeded array whose parts travel with their jobs:
 * a kind whose records carry real data, so that a steal moves the bytes of
 * its part and a link's bandwidth matters (the paper's matmul and
 * raytracer shipped their matrices and scenes; our versions of those make
 * their data inside each job).
 *
 * Element i is satin_splitmix_at(seed + i) (SplitMix64 at position
 * seed + i, splitmix.h), and a leaf adds up its elements after `work` more
 * rounds of satin_splitmix_at each, to give a part as much computing per
 * byte as wanted.  A record names a range [lo, hi) of
 * elements.  While the range is larger than `carry` elements, its record
 * holds no data and splits the range in halves; the first record whose
 * range fits makes its elements, and every record below it carries its own
 * half of them (so a record carries at most carry/2 elements, 4 x carry
 * bytes): a child run in place reads them where its parent holds them, a
 * stolen one takes them over the wire.  A range of at most `leaf` elements
 * is summed.
 *
 * The result is exact and does not depend on how the work was split: the
 * sum (mod 2^64, shown in hexadecimal) and the xor of the mixed elements,
 * and how many there were.
 *
 * Every range is an invocation of the bytes task `array`: its argument an
 * array_arg, followed by the range's elements when it carries them.
 */
#include "apps.h"
#include "kind_shared.h"
#include "splitmix.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_MAX_N ((int64_t)1 << 36)
/* Records of at most 512 KiB of elements: within satind's default record limit (1 MiB). */
#define ARRAY_MAX_CARRY ((int64_t)1 << 17)
#define ARRAY_MAX_WORK 1000000
/* Rounds of mix between two looks at satin_cancelled() in a leaf (about a
 * millisecond): a leaf of 2^17 elements at work=10^6 mixes for minutes. */
#define ARRAY_CANCEL_ROUNDS ((uint64_t)1 << 20)

/* Fixed-width fields with no padding: the bytes may cross machines.  The
 * record's elements, when it carries them, follow. */
typedef struct array_arg {
    uint64_t lo, hi;       /* the range of element indexes */
    uint64_t seed;
    uint32_t leaf;         /* elements summed without spawning */
    uint32_t carry;        /* a range of at most this many elements travels with its data */
    uint32_t work;         /* rounds of mix per element at the leaves */
    uint32_t has_data;     /* 1: (hi - lo) elements follow */
} array_arg;

typedef struct array_sum {
    uint64_t sum, xor, count;
} array_sum;

static void add_leaf(const array_arg *a, const uint64_t *v, array_sum *s)
{
    uint64_t rounds = 0;
    for (uint64_t i = 0; i < a->hi - a->lo; i++) {
        uint64_t x = v[i];
        for (uint32_t r = 0; r < a->work; r++)
            x = satin_splitmix_at(x);
        s->sum += x;
        s->xor ^= x;
        /* A stopped job's result is dropped: a partial sum does no harm. */
        if ((rounds += a->work + 1) >= ARRAY_CANCEL_ROUNDS) {
            rounds = 0;
            if (satin_cancelled())
                return;
        }
    }
    s->count += a->hi - a->lo;
}

static int array_check(const void *arg, size_t len, satin_err *err);
SATIN_BYTES_TASK(array, array_check);

/* Spawns the halves of a's range, each with its part of `v` (NULL: none). */
static void split(SATIN_HELPER_FRAME, const array_arg *a, const uint64_t *v, array_sum *sum)
{
    uint64_t mid = a->lo + (a->hi - a->lo) / 2;
    array_arg half[2] = {*a, *a};
    half[0].hi = mid;
    half[1].lo = mid;
    array_sum r[2];
    memset(r, 0, sizeof r);
    for (int h = 0; h < 2; h++) {
        size_t n = (size_t)(half[h].hi - half[h].lo);
        if (!v) {
            satin_spawn_bytes(array, &half[h], sizeof half[h], &r[h], sizeof r[h]);
            continue;
        }
        /* The header, then the elements: one record's bytes. */
        size_t bytes = sizeof half[h] + n * sizeof *v;
        unsigned char *rec = malloc(bytes);
        if (!rec) {
            satin_fail("array: out of memory for a record of %zu bytes", bytes);
            return;
        }
        half[h].has_data = 1;
        memcpy(rec, &half[h], sizeof half[h]);
        memcpy(rec + sizeof half[h], v + (h ? mid - a->lo : 0), n * sizeof *v);
        satin_spawn_bytes(array, rec, bytes, &r[h], sizeof r[h]);
        free(rec);   /* a queued spawn copied it into its record */
    }
    satin_sync();
    sum->sum = r[0].sum + r[1].sum;
    sum->xor = r[0].xor ^ r[1].xor;
    sum->count = r[0].count + r[1].count;
}

/* Bytes that passed the check, or this node's own spawns: the cheap tests
 * below keep a wrong length from reading out of bounds all the same. */
static void array(SATIN_FRAME, const void *arg, size_t len)
{
    array_arg a;
    if (len < sizeof a) {
        satin_fail("array: argument of %zu bytes, expected at least %zu", len, sizeof a);
        return;
    }
    memcpy(&a, arg, sizeof a);
    uint64_t n = a.hi - a.lo;
    if (a.hi < a.lo || n > (uint64_t)ARRAY_MAX_N || a.leaf == 0 || a.carry == 0 ||
        len != sizeof a + (a.has_data ? n * sizeof(uint64_t) : 0)) {
        satin_fail("array: corrupt argument (%zu bytes for [%" PRIu64 ", %" PRIu64 ")%s)", len,
                   a.lo, a.hi, a.has_data ? " with data" : "");
        return;
    }
    array_sum s = {0, 0, 0};
    uint64_t *made = NULL;
    const uint64_t *v = NULL;
    if (a.has_data) {
        /* The elements follow the header; read in place when aligned. */
        const unsigned char *data = (const unsigned char *)arg + sizeof a;
        if ((uintptr_t)data % _Alignof(uint64_t) == 0) {
            v = (const uint64_t *)(const void *)data;
        } else {
            made = malloc(n ? n * sizeof *made : 1);
            if (made)
                memcpy(made, data, n * sizeof *made);
            v = made;
        }
    } else if (n <= a.carry) {
        made = malloc(n ? n * sizeof *made : 1);
        for (uint64_t i = 0; made && i < n; i++)
            made[i] = satin_splitmix_at(a.seed + a.lo + i);
        v = made;
    }
    if (!v && (a.has_data || n <= a.carry)) {
        satin_fail("array: out of memory for %" PRIu64 " elements", n);
        return;
    }
    /* n > leaf >= 1 when it splits, so both halves hold elements. */
    if (v && n <= a.leaf)
        add_leaf(&a, v, &s);
    else
        split(SATIN_TO_HELPER, &a, v, &s);
    free(made);
    satin_return(&s, sizeof s);
}

static int array_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, seed, leaf, carry, work;
    if (satin_param_i64(p, "n", 1, ARRAY_MAX_N, &n, err) < 0 ||
        satin_param_i64(p, "seed", 0, INT64_MAX, &seed, err) < 0 ||
        satin_param_i64(p, "leaf", 1, ARRAY_MAX_CARRY, &leaf, err) < 0 ||
        satin_param_i64(p, "carry", 1, ARRAY_MAX_CARRY, &carry, err) < 0 ||
        satin_param_i64(p, "work", 0, ARRAY_MAX_WORK, &work, err) < 0)
        return -1;
    if (leaf > carry)
        return satin_err_set(err, "array: leaf=%lld must not exceed carry=%lld (a leaf sums "
                                  "elements its record holds)",
                             (long long)leaf, (long long)carry);
    array_arg a;
    memset(&a, 0, sizeof a);
    a.lo = 0;
    a.hi = (uint64_t)n;
    a.seed = (uint64_t)seed;
    a.leaf = (uint32_t)leaf;
    a.carry = (uint32_t)carry;
    a.work = (uint32_t)work;
    return satin_bytes_put(arg, &a, sizeof a, err);
}

/* What parse allows and the splits keep: a range of elements of the array,
 * leaf and carry within parse's bounds, and elements only in a record of
 * at most half a carry (a half of the first range that fits). */
static int array_valid(const array_arg *a, satin_err *err)
{
    if (!(a->lo < a->hi && a->hi <= (uint64_t)ARRAY_MAX_N))
        return satin_err_set(err, "array: range [%" PRIu64 ", %" PRIu64 ") is not within "
                                  "[0, %" PRId64 ")",
                             a->lo, a->hi, ARRAY_MAX_N);
    if (satin_arg_range("array", "carry", a->carry, 1, ARRAY_MAX_CARRY, err) < 0 ||
        satin_arg_range("array", "leaf", a->leaf, 1, a->carry, err) < 0 ||
        satin_arg_range("array", "work", a->work, 0, ARRAY_MAX_WORK, err) < 0 ||
        satin_arg_range("array", "has_data", a->has_data, 0, 1, err) < 0)
        return -1;
    if (a->seed > (uint64_t)INT64_MAX)
        return satin_err_set(err, "array: seed=%" PRIu64 " is out of range 0..2^63-1", a->seed);
    if (a->has_data && a->hi - a->lo > (a->carry + UINT64_C(1)) / 2)
        return satin_err_set(err, "array: a record with %" PRIu64 " elements, more than half of "
                                  "carry=%u",
                             a->hi - a->lo, (unsigned)a->carry);
    return 0;
}

static int array_check(const void *arg, size_t len, satin_err *err)
{
    array_arg a;
    if (satin_arg_head("array", arg, len, &a, sizeof a, err) < 0 || array_valid(&a, err) < 0)
        return -1;
    return satin_arg_tail("array", len, sizeof a, a.has_data ? a.hi - a.lo : 0, sizeof(uint64_t),
                          "elements", err);
}

static void array_format(const void *res, size_t len, double wall_s, satin_result *result,
                         satin_result *stats)
{
    (void)stats;
    (void)wall_s;
    array_sum s = {0, 0, 0};
    if (len == sizeof s)
        memcpy(&s, res, sizeof s);
    char hex[24];
    snprintf(hex, sizeof hex, "%016" PRIx64, s.sum);
    satin_result_str(result, "sum", hex);
    snprintf(hex, sizeof hex, "%016" PRIx64, s.xor);
    satin_result_str(result, "xor", hex);
    satin_result_i64(result, "elements", (int64_t)s.count);
}

static const satin_param_def array_params[] = {
    {"n", NULL, 1, "elements, 1..2^36 (8 bytes each)"},
    {"seed", "1", 0, "element i is satin_splitmix_at(seed + i)"},
    {"leaf", "4096", 0, "elements a leaf adds up, 1..carry"},
    {"carry", "32768", 0,
     "a range of at most this many elements is made where it is, and its halves travel with "
     "their data (a record of carry/2 elements, 4 x carry bytes, must fit satind's "
     "--max-record), 1..131072"},
    {"work", "0", 0, "rounds of mix per element at the leaves (computing per byte), 0..1000000"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(array,
           .summary = "sum of a seeded array whose parts travel with their jobs (data-heavy "
                      "records)",
           .params = array_params, .parse = array_parse, .root = SATIN_TASK_OF(array),
           .result_size = sizeof(array_sum), .format = array_format);
