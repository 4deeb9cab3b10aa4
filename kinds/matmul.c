/*
 * matmul.c - recursive block matrix multiplication C = A B (one of the
 * paper's applications), n x n, with 64-bit integer elements and arithmetic
 * modulo 2^64, so that every result is exact and independent of the order
 * of the additions (and thus of the schedule).
 *
 * The matrices are not shipped: they are defined by the seed, and every job
 * generates the blocks it needs.  With mix() SplitMix64 at a position
 * (satin_splitmix_at, splitmix.h) and key(m) = mix(seed ^ mix(m)) (mm_key):
 *     A[i][j] = mix(key(1) ^ (i << 32 | j))
 *     B[i][j] = mix(key(2) ^ (i << 32 | j))
 * The result is a checksum of C, linear in C:
 *     checksum = sum over i, j of W[i][j] * C[i][j]   (mod 2^64),
 *     W[i][j]  = mix(mix(0x5bd1e995) ^ (i << 32 | j)) | 1   (odd: any error
 *                in a single element of C changes the checksum)
 * Being linear, the checksum of C = sum over k-blocks of A_ik B_kj is the
 * sum of the checksums of the block products, so the recursion is the
 * paper's: a job (rows i0.., columns j0.., inner range k0..) splits each
 * of its three ranges that is longer than `leaf` into two halves (the first
 * one rounded up) and spawns the up to 8 block products; C quadrant sums
 * such as C11 = A11 B11 + A12 B21 become additions of checksums.  Below,
 * a block product of at most leaf x leaf x leaf (default 48, as in the
 * paper) is computed sequentially, two rows of C at a time, and folded
 * into its checksum.  Any n works; powers of two times 48 give cubes of
 * exactly 48.  Each leaf generates 2 leaf^2 elements for its leaf^3
 * multiply-adds.
 *
 * With carry=E (E > 0) the blocks travel with the jobs instead, as in the
 * paper, so that a steal moves matrix data and a link's bandwidth matters.
 * Jobs whose A block (ni x nk) and B block (nk x nj) hold more than E
 * elements together split and add checksums as above.  The first job on a
 * path whose blocks fit E generates them, exactly as defined above, and
 * spawns its block products each with its own blocks of A and B in its
 * argument; every job below returns its block of C (ni x nj elements,
 * modulo 2^64) in place of a checksum, and a parent adds the two partial
 * products of each C quadrant (C11 = A11 B11 + A12 B21, ...) into its own
 * block.  The generating job folds its block of C into the checksum
 * above, so the checksum is the same for every carry.  (A job that fits
 * but is a leaf has nothing to send down: it computes its checksum as
 * without carry.)  The job is refused when submitted if a record or result
 * of a carrying job would exceed the record limit of the daemon it is
 * submitted to (--max-record, 1 MiB by default; mm_largest_carried), or
 * SATIN_CARRY_MAX, which the argument check holds such records to.
 *
 * One bytes task, `matmul`, runs every job: its argument is an mm_arg, or
 * one with a carry header and the blocks after it, and its result a
 * checksum or a block of C; it tells a trace the blocks a job without carry
 * would carry (mm_data_size).
 */
#include "apps.h"
#include "kind_shared.h"
#include "splitmix.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MM_MAX_N 16384
#define MM_MAX_LEAF 128
#define MM_DEFAULT_LEAF "48"
#define MM_WEIGHT_KEY UINT64_C(0x5bd1e995)
/* carry beyond A and B of the whole product (2 x 16384^2) changes nothing. */
#define MM_MAX_CARRY ((int64_t)2 * MM_MAX_N * MM_MAX_N)

/* Fixed-width fields with no padding: the bytes may cross machines. */
typedef struct mm_arg {
    uint64_t seed;
    int32_t i0, j0, k0;   /* first row of C, column of C, index of the inner sum */
    int32_t ni, nj, nk;   /* extents of the three ranges */
    int32_t leaf;         /* multiply sequentially once all three are <= leaf */
    int32_t n;
} mm_arg;

/* With carry > 0, every record is an mm_arg followed by this (so that the
 * default records stay mm_arg alone, byte for byte as before), then, when
 * has_data, the A block (ni x nk) and the B block (nk x nj), row-major,
 * 8 bytes an element. */
typedef struct mm_carry {
    uint32_t carry;       /* blocks of A and B of at most this many elements travel */
    uint32_t has_data;    /* 1: the blocks follow, and the result is the block of C */
} mm_carry;

/* How a block product splits: each range longer than leaf in halves (the
 * first rounded up), the others whole; dimension 0 is i, 1 is j, 2 is k. */
typedef struct mm_split {
    int32_t start[3][2], ext[3][2], parts[3];
} mm_split;

static int mm_check(const void *arg, size_t len, satin_err *err);
static void mm_data_size(const void *arg, size_t len, size_t result_len, uint64_t *arg_bytes,
                         uint64_t *result_bytes);
SATIN_BYTES_TASK_TRACED(matmul, mm_check, mm_data_size);

/* key(m) of the header comment: m = 1 for A, 2 for B. */
static uint64_t mm_key(uint64_t seed, uint64_t m)
{
    return satin_splitmix_at(seed ^ satin_splitmix_at(m));
}

/* Element (i, j) of the matrix whose key is `key`: mix(key ^ (i << 32 | j)). */
static uint64_t mm_at(uint64_t key, int32_t i, int32_t j)
{
    return satin_splitmix_at(key ^ ((uint64_t)(uint32_t)i << 32 | (uint32_t)j));
}

/* The leaf: the checksum of A[i0.., k0..] B[k0.., j0..]. */
static uint64_t mm_leaf(const mm_arg *a)
{
    /* 130 KiB at most, on the worker's (large) stack. */
    uint64_t bblk[MM_MAX_LEAF * MM_MAX_LEAF];
    uint64_t arow[2][MM_MAX_LEAF];
    uint64_t c0[MM_MAX_LEAF], c1[MM_MAX_LEAF];
    uint64_t ka = mm_key(a->seed, 1), kb = mm_key(a->seed, 2);
    uint64_t kw = satin_splitmix_at(MM_WEIGHT_KEY);
    int32_t ni = a->ni, nj = a->nj, nk = a->nk;
    for (int32_t k = 0; k < nk; k++)
        for (int32_t j = 0; j < nj; j++)
            bblk[k * nj + j] = mm_at(kb, a->k0 + k, a->j0 + j);
    uint64_t sum = 0;
    for (int32_t i = 0; i < ni; i += 2) {
        int two = i + 1 < ni;
        for (int32_t k = 0; k < nk; k++) {
            arow[0][k] = mm_at(ka, a->i0 + i, a->k0 + k);
            arow[1][k] = two ? mm_at(ka, a->i0 + i + 1, a->k0 + k) : 0;
        }
        memset(c0, 0, sizeof c0[0] * (size_t)nj);
        memset(c1, 0, sizeof c1[0] * (size_t)nj);
        for (int32_t k = 0; k < nk; k++) {
            uint64_t x0 = arow[0][k], x1 = arow[1][k];
            const uint64_t *brow = &bblk[k * nj];
            for (int32_t j = 0; j < nj; j++) {
                c0[j] += x0 * brow[j];
                c1[j] += x1 * brow[j];
            }
        }
        for (int32_t j = 0; j < nj; j++) {
            sum += (mm_at(kw, a->i0 + i, a->j0 + j) | 1) * c0[j];
            if (two)
                sum += (mm_at(kw, a->i0 + i + 1, a->j0 + j) | 1) * c1[j];
        }
    }
    return sum;
}

static int mm_is_leaf(const mm_arg *a)
{
    return a->ni <= a->leaf && a->nj <= a->leaf && a->nk <= a->leaf;
}

/* Elements of A and B of a block product: what its record carries. */
static uint64_t mm_operands(int32_t ni, int32_t nj, int32_t nk)
{
    return (uint64_t)ni * (uint64_t)nk + (uint64_t)nk * (uint64_t)nj;
}

static void mm_halves(const mm_arg *a, mm_split *s)
{
    const int32_t org[3] = {a->i0, a->j0, a->k0}, full[3] = {a->ni, a->nj, a->nk};
    for (int d = 0; d < 3; d++) {
        s->parts[d] = full[d] > a->leaf ? 2 : 1;
        s->ext[d][0] = s->parts[d] == 2 ? (full[d] + 1) / 2 : full[d];
        s->ext[d][1] = full[d] - s->ext[d][0];
        s->start[d][0] = org[d];
        s->start[d][1] = org[d] + s->ext[d][0];
    }
}

/* Block product (x, y, z) of a split: rows half x, columns half y, inner half z. */
static mm_arg mm_part(const mm_arg *a, const mm_split *s, int x, int y, int z)
{
    mm_arg p = *a;
    p.i0 = s->start[0][x];
    p.ni = s->ext[0][x];
    p.j0 = s->start[1][y];
    p.nj = s->ext[1][y];
    p.k0 = s->start[2][z];
    p.nk = s->ext[2][z];
    return p;
}

/* Spawns a's block products with no data and adds up their checksums.  k:
 * the carry header their records get (NULL: none, the default records). */
static uint64_t mm_split_sums(SATIN_HELPER_FRAME, const mm_arg *a, const mm_carry *k)
{
    mm_split s;
    mm_halves(a, &s);
    uint64_t sub[8] = {0};
    int nsub = 0;
    unsigned char rec[sizeof(mm_arg) + sizeof(mm_carry)];
    size_t len = sizeof(mm_arg) + (k ? sizeof *k : 0);
    if (k)
        memcpy(rec + sizeof(mm_arg), k, sizeof *k);
    for (int x = 0; x < s.parts[0]; x++)
        for (int y = 0; y < s.parts[1]; y++)
            for (int z = 0; z < s.parts[2]; z++) {
                mm_arg part = mm_part(a, &s, x, y, z);
                memcpy(rec, &part, sizeof part);
                satin_spawn_bytes(matmul, rec, len, &sub[nsub], sizeof sub[nsub]);
                nsub++;
            }
    satin_sync();
    uint64_t sum = 0;
    for (int i = 0; i < nsub; i++)
        sum += sub[i];
    return sum;
}

/* Rows r0.. and columns c0.. of A (key ka) or B (key kb), row-major. */
static void mm_make(uint64_t key, int32_t r0, int32_t c0, int32_t nr, int32_t nc, uint64_t *out)
{
    for (int32_t r = 0; r < nr; r++)
        for (int32_t col = 0; col < nc; col++)
            out[(size_t)r * (size_t)nc + (size_t)col] = mm_at(key, r0 + r, c0 + col);
}

/* C = A B for an ni x nk block A and an nk x nj block B, modulo 2^64; two
 * rows of C at a time, as mm_leaf, so that each row of B read serves two. */
static void mm_product(const uint64_t *A, const uint64_t *B, int32_t ni, int32_t nj, int32_t nk,
                       uint64_t *C)
{
    memset(C, 0, sizeof *C * (size_t)ni * (size_t)nj);
    for (int32_t i = 0; i < ni; i += 2) {
        int two = i + 1 < ni;
        uint64_t *c0 = C + (size_t)i * (size_t)nj, *c1 = two ? c0 + nj : c0;
        const uint64_t *a0 = A + (size_t)i * (size_t)nk, *a1 = two ? a0 + nk : a0;
        for (int32_t k = 0; k < nk; k++) {
            uint64_t x0 = a0[k], x1 = two ? a1[k] : 0;
            const uint64_t *brow = B + (size_t)k * (size_t)nj;
            for (int32_t j = 0; j < nj; j++) {
                c0[j] += x0 * brow[j];
                c1[j] += x1 * brow[j];
            }
        }
    }
}

/* The checksum of a's block of C (the weights of the header comment). */
static uint64_t mm_fold(const mm_arg *a, const uint64_t *C)
{
    uint64_t kw = satin_splitmix_at(MM_WEIGHT_KEY), sum = 0;
    for (int32_t i = 0; i < a->ni; i++)
        for (int32_t j = 0; j < a->nj; j++)
            sum += (mm_at(kw, a->i0 + i, a->j0 + j) | 1) *
                   C[(size_t)i * (size_t)a->nj + (size_t)j];
    return sum;
}

/* Spawns a's block products, each record with its own blocks of A and B
 * cut from a's (A, B), and assembles a's block of C (ni x nj) from their
 * blocks of C: each quadrant the sum of its one or two partial products.
 * -1 when the job failed (out of memory).  One buffer serves every record
 * and one every result: fresh memory costs a page fault per page. */
static int mm_split_data(SATIN_HELPER_FRAME, const mm_arg *a, uint32_t carry, const uint64_t *A,
                         const uint64_t *B, uint64_t *C)
{
    mm_split s;
    mm_halves(a, &s);
    mm_arg part[8];
    int inner[8];              /* its half of the inner range: 0 first, 1 added to it */
    size_t at[8], total = 0;   /* where each part's block of C lands in res */
    size_t most = 0;           /* elements of A and B of the largest part */
    int np = 0;
    for (int x = 0; x < s.parts[0]; x++)
        for (int y = 0; y < s.parts[1]; y++)
            for (int z = 0; z < s.parts[2]; z++) {
                const mm_arg *q = &part[np];
                part[np] = mm_part(a, &s, x, y, z);
                inner[np] = z;
                at[np] = total;
                total += (size_t)q->ni * (size_t)q->nj;
                if (mm_operands(q->ni, q->nj, q->nk) > most)
                    most = (size_t)mm_operands(q->ni, q->nj, q->nk);
                np++;
            }
    const mm_carry k = {carry, 1};
    const size_t hdr = sizeof(mm_arg) + sizeof k, el = sizeof(uint64_t);
    uint64_t *res = malloc(total * el);
    unsigned char *rec = malloc(hdr + most * el);
    if (!res || !rec) {
        satin_fail("matmul: out of memory for the parts of a %dx%dx%d block product",
                   (int)a->ni, (int)a->nj, (int)a->nk);
        free(res);
        free(rec);
        return -1;
    }
    for (int p = 0; p < np; p++) {
        const mm_arg *q = &part[p];
        size_t na = (size_t)q->ni * (size_t)q->nk, nb = (size_t)q->nk * (size_t)q->nj;
        memcpy(rec, q, sizeof *q);
        memcpy(rec + sizeof *q, &k, sizeof k);
        /* Its rows of A from column k0 on, then its rows of B from column j0 on. */
        for (int32_t r = 0; r < q->ni; r++)
            memcpy(rec + hdr + (size_t)r * (size_t)q->nk * el,
                   A + (size_t)(q->i0 - a->i0 + r) * (size_t)a->nk + (size_t)(q->k0 - a->k0),
                   (size_t)q->nk * el);
        for (int32_t r = 0; r < q->nk; r++)
            memcpy(rec + hdr + (na + (size_t)r * (size_t)q->nj) * el,
                   B + (size_t)(q->k0 - a->k0 + r) * (size_t)a->nj + (size_t)(q->j0 - a->j0),
                   (size_t)q->nj * el);
        /* A queued spawn copies the record: rec may be reused at once. */
        satin_spawn_bytes(matmul, rec, hdr + (na + nb) * el, res + at[p],
                          (size_t)q->ni * (size_t)q->nj * el);
    }
    free(rec);
    satin_sync();
    /* Each quadrant of C: its first partial product, plus the second if the
     * inner range was split (that part follows the first in part[]). */
    for (int p = 0; p < np; p++) {
        const mm_arg *q = &part[p];
        for (int32_t r = 0; r < q->ni; r++) {
            uint64_t *dst = C + (size_t)(q->i0 - a->i0 + r) * (size_t)a->nj +
                            (size_t)(q->j0 - a->j0);
            const uint64_t *src = res + at[p] + (size_t)r * (size_t)q->nj;
            if (inner[p] == 0) {
                memcpy(dst, src, (size_t)q->nj * el);
            } else {
                for (int32_t j = 0; j < q->nj; j++)
                    dst[j] += src[j];
            }
        }
    }
    free(res);
    return 0;
}

/* A job with carry > 0; A and B are its blocks when its record has them. */
static void mm_run_carry(SATIN_HELPER_FRAME, const mm_arg *a, const mm_carry *k,
                         const uint64_t *A, const uint64_t *B)
{
    size_t nc = (size_t)a->ni * (size_t)a->nj;
    if (!k->has_data) {
        uint64_t sum = 0;
        if (mm_is_leaf(a)) {
            sum = mm_leaf(a);   /* nothing to send down: made and multiplied here */
        } else if (mm_operands(a->ni, a->nj, a->nk) > k->carry) {
            sum = mm_split_sums(SATIN_TO_HELPER, a, k);   /* above the data: checksums */
        } else {
            /* The first to fit: makes its blocks, sends them down, folds C. */
            uint64_t *mine = malloc(sizeof *mine * (mm_operands(a->ni, a->nj, a->nk) + nc));
            if (!mine) {
                satin_fail("matmul: out of memory for a %dx%dx%d block product",
                           (int)a->ni, (int)a->nj, (int)a->nk);
                return;
            }
            uint64_t *ma = mine, *mb = ma + (size_t)a->ni * (size_t)a->nk,
                     *mc = mb + (size_t)a->nk * (size_t)a->nj;
            mm_make(mm_key(a->seed, 1), a->i0, a->k0, a->ni, a->nk, ma);
            mm_make(mm_key(a->seed, 2), a->k0, a->j0, a->nk, a->nj, mb);
            if (mm_split_data(SATIN_TO_HELPER, a, k->carry, ma, mb, mc) == 0)
                sum = mm_fold(a, mc);
            free(mine);
        }
        satin_return(&sum, sizeof sum);
        return;
    }
    uint64_t *C = malloc(sizeof *C * nc);
    if (!C) {
        satin_fail("matmul: out of memory for a %dx%d block of C", (int)a->ni, (int)a->nj);
        return;
    }
    int ok = 1;
    if (mm_is_leaf(a))
        mm_product(A, B, a->ni, a->nj, a->nk, C);
    else
        ok = mm_split_data(SATIN_TO_HELPER, a, k->carry, A, B, C) == 0;
    if (ok)
        satin_return(C, sizeof *C * nc);
    free(C);
}

/* Bytes that passed the check, or this node's own spawns: the cheap tests
 * below keep a wrong length or range from reading or writing out of bounds
 * all the same. */
static void matmul(SATIN_FRAME, const void *arg, size_t len)
{
    mm_arg a;
    mm_carry k = {0, 0};
    if (len != sizeof a && len < sizeof a + sizeof k) {
        satin_fail("matmul: argument of %zu bytes, expected %zu or at least %zu", len,
                   sizeof a, sizeof a + sizeof k);
        return;
    }
    memcpy(&a, arg, sizeof a);
    if (a.n < 1 || a.n > MM_MAX_N || a.leaf < 1 || a.leaf > MM_MAX_LEAF || a.ni < 1 ||
        a.nj < 1 || a.nk < 1 || a.i0 < 0 || a.j0 < 0 || a.k0 < 0 || a.ni > a.n - a.i0 ||
        a.nj > a.n - a.j0 || a.nk > a.n - a.k0) {
        satin_fail("matmul: corrupt argument (n=%d, block %dx%dx%d at %d,%d,%d)",
                   (int)a.n, (int)a.ni, (int)a.nj, (int)a.nk, (int)a.i0, (int)a.j0, (int)a.k0);
        return;
    }
    if (len == sizeof a) {
        uint64_t sum = mm_is_leaf(&a) ? mm_leaf(&a) : mm_split_sums(SATIN_TO_HELPER, &a, NULL);
        satin_return(&sum, sizeof sum);
        return;
    }
    memcpy(&k, (const unsigned char *)arg + sizeof a, sizeof k);
    uint64_t operands = mm_operands(a.ni, a.nj, a.nk);
    if (k.carry == 0 || k.has_data > 1 || (k.has_data && operands > k.carry) ||
        len - sizeof a - sizeof k != (k.has_data ? operands * sizeof(uint64_t) : 0)) {
        satin_fail("matmul: corrupt argument (%zu bytes for a block %dx%dx%d, carry=%u%s)",
                   len, (int)a.ni, (int)a.nj, (int)a.nk, (unsigned)k.carry,
                   k.has_data ? " with data" : "");
        return;
    }
    const uint64_t *A = NULL;
    uint64_t *copy = NULL;
    if (k.has_data) {
        /* The blocks follow the headers; read in place when aligned. */
        const unsigned char *data = (const unsigned char *)arg + sizeof a + sizeof k;
        if ((uintptr_t)data % _Alignof(uint64_t) == 0) {
            A = (const uint64_t *)(const void *)data;
        } else {
            copy = malloc(sizeof *copy * operands);
            if (!copy) {
                satin_fail("matmul: out of memory for %zu elements of A and B",
                           (size_t)operands);
                return;
            }
            memcpy(copy, data, sizeof *copy * operands);
            A = copy;
        }
    }
    mm_run_carry(SATIN_TO_HELPER, &a, &k, A, A ? A + (size_t)a.ni * (size_t)a.nk : NULL);
    free(copy);
}

/* The largest argument and result of a record that carries data in a job
 * of n x n, leaf and carry (> 0), and the block product with the largest
 * argument: the recursion walked level by level, each distinct block shape
 * once.  A record carries data when its parent's blocks of A and B fit
 * carry (the parent made them or was given them).  At a level each range
 * is one of two neighbours (n / 2^d rounded down or up) or, once at most
 * leaf, one that stopped halving a level before: at most 3 values, so at
 * most 27 shapes. */
#define MM_SHAPES 64
typedef struct mm_shape {
    int32_t ni, nj, nk;
} mm_shape;

static int mm_largest_carried(int32_t n, int32_t leaf, uint64_t carry, uint64_t *arg_max,
                              uint64_t *res_max, mm_shape *largest)
{
    mm_shape cur[MM_SHAPES], next[MM_SHAPES];
    int ncur = 1;
    cur[0] = (mm_shape){n, n, n};
    *arg_max = *res_max = 0;
    *largest = cur[0];
    while (ncur > 0) {
        int nnext = 0;
        for (int i = 0; i < ncur; i++) {
            mm_arg a;
            memset(&a, 0, sizeof a);
            a.ni = cur[i].ni;
            a.nj = cur[i].nj;
            a.nk = cur[i].nk;
            a.leaf = leaf;
            if (mm_is_leaf(&a))
                continue;
            int carried = mm_operands(a.ni, a.nj, a.nk) <= carry;
            mm_split s;
            mm_halves(&a, &s);
            for (int x = 0; x < s.parts[0]; x++)
                for (int y = 0; y < s.parts[1]; y++)
                    for (int z = 0; z < s.parts[2]; z++) {
                        mm_shape p = {s.ext[0][x], s.ext[1][y], s.ext[2][z]};
                        uint64_t ab = sizeof(mm_arg) + sizeof(mm_carry) +
                                      sizeof(uint64_t) * mm_operands(p.ni, p.nj, p.nk);
                        uint64_t rb = sizeof(uint64_t) * (uint64_t)p.ni * (uint64_t)p.nj;
                        if (carried && ab > *arg_max) {
                            *arg_max = ab;
                            *largest = p;
                        }
                        if (carried && rb > *res_max)
                            *res_max = rb;
                        int seen = 0;
                        for (int t = 0; t < nnext && !seen; t++)
                            seen = next[t].ni == p.ni && next[t].nj == p.nj && next[t].nk == p.nk;
                        if (seen)
                            continue;
                        if (nnext == MM_SHAPES)
                            return -1;
                        next[nnext++] = p;
                    }
        }
        memcpy(cur, next, sizeof *next * (size_t)nnext);
        ncur = nnext;
    }
    return 0;
}

/* What parse allows and the splits keep: a block of the n x n product, and
 * with a carry the blocks of A and B in the record only when they fit it,
 * and a carry whose records and results fit SATIN_CARRY_MAX, which bounds
 * what a job allocates (the first to fit, its blocks and theirs of C, is
 * about eight records' worth). */
static int mm_valid(const mm_arg *a, const mm_carry *k, satin_err *err)
{
    if (satin_arg_range("matmul", "n", a->n, 1, MM_MAX_N, err) < 0 ||
        satin_arg_range("matmul", "leaf", a->leaf, 1, MM_MAX_LEAF, err) < 0 ||
        satin_arg_range("matmul", "i0", a->i0, 0, a->n - 1, err) < 0 ||
        satin_arg_range("matmul", "j0", a->j0, 0, a->n - 1, err) < 0 ||
        satin_arg_range("matmul", "k0", a->k0, 0, a->n - 1, err) < 0 ||
        satin_arg_range("matmul", "ni", a->ni, 1, a->n - a->i0, err) < 0 ||
        satin_arg_range("matmul", "nj", a->nj, 1, a->n - a->j0, err) < 0 ||
        satin_arg_range("matmul", "nk", a->nk, 1, a->n - a->k0, err) < 0)
        return -1;
    if (a->seed > (uint64_t)INT64_MAX)
        return satin_err_set(err, "matmul: seed=%llu is out of range 0..2^63-1",
                             (unsigned long long)a->seed);
    if (!k)
        return 0;
    if (satin_arg_range("matmul", "carry", k->carry, 1, MM_MAX_CARRY, err) < 0 ||
        satin_arg_range("matmul", "has_data", k->has_data, 0, 1, err) < 0)
        return -1;
    if (k->has_data && mm_operands(a->ni, a->nj, a->nk) > k->carry)
        return satin_err_set(err, "matmul: a %dx%dx%d block product carries more than carry=%u "
                                  "elements",
                             (int)a->ni, (int)a->nj, (int)a->nk, (unsigned)k->carry);
    uint64_t arg_max, res_max;
    mm_shape big;
    if (mm_largest_carried(a->n, a->leaf, k->carry, &arg_max, &res_max, &big) < 0 ||
        arg_max > SATIN_CARRY_MAX || res_max > SATIN_CARRY_MAX)
        return satin_err_set(err, "matmul: n=%d leaf=%d carry=%u gives records or results "
                                  "over the %zu bytes a record that carries data may have",
                             (int)a->n, (int)a->leaf, (unsigned)k->carry, SATIN_CARRY_MAX);
    return 0;
}

static int mm_check(const void *arg, size_t len, satin_err *err)
{
    mm_arg a;
    mm_carry k;
    int carry = satin_arg_read_ext("matmul", arg, len, &a, sizeof a, &k, sizeof k, 1, err);
    if (carry < 0 || mm_valid(&a, carry ? &k : NULL, err) < 0)
        return -1;
    return satin_arg_tail("matmul", len, carry ? sizeof a + sizeof k : sizeof a,
                          carry && k.has_data ? mm_operands(a.ni, a.nj, a.nk) : 0,
                          sizeof(uint64_t), "elements", err);
}

static int mm_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, seed, leaf, carry;
    if (satin_param_i64(p, "n", 1, MM_MAX_N, &n, err) < 0 ||
        satin_param_i64(p, "seed", 0, INT64_MAX, &seed, err) < 0 ||
        satin_param_i64(p, "leaf", 1, MM_MAX_LEAF, &leaf, err) < 0 ||
        satin_param_i64(p, "carry", 0, MM_MAX_CARRY, &carry, err) < 0)
        return -1;
    mm_arg a;
    memset(&a, 0, sizeof a);
    a.seed = (uint64_t)seed;
    a.ni = a.nj = a.nk = a.n = (int32_t)n;
    a.leaf = (int32_t)leaf;
    if (carry == 0)
        return satin_bytes_put(arg, &a, sizeof a, err);
    uint64_t arg_max, res_max;
    mm_shape big;
    if (mm_largest_carried(a.n, a.leaf, (uint64_t)carry, &arg_max, &res_max, &big) < 0)
        return satin_err_set(err, "matmul: n=%lld leaf=%lld makes more block shapes than "
                                  "expected (a bug)",
                             (long long)n, (long long)leaf);
    uint64_t limit = satin_carry_limit(arg);
    char what[160];
    if (arg_max > limit || res_max > limit)
        return satin_err_set(
            err,
            "matmul: carry=%lld gives records of %llu bytes (blocks of A and B of %dx%dx%d) and "
            "results of %llu (its block of C), over %s: give a smaller carry",
            (long long)carry, (unsigned long long)arg_max, (int)big.ni, (int)big.nj, (int)big.nk,
            (unsigned long long)res_max, satin_carry_limit_text(arg, what, sizeof what));
    mm_carry k = {(uint32_t)carry, 0};
    if (satin_bytes_put(arg, &a, sizeof a, err) < 0)
        return -1;
    return satin_bytes_put(arg, &k, sizeof k, err);
}

static void mm_format(const void *res, size_t len, double wall_s, satin_result *result,
                      satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    uint64_t v = 0;
    if (len == sizeof v)
        memcpy(&v, res, sizeof v);
    /* The bits of the sum modulo 2^64, shown as a signed 64-bit integer. */
    int64_t s;
    memcpy(&s, &v, sizeof s);
    satin_result_i64(result, "checksum", s);
}

static const satin_param_def mm_params[] = {
    {"n", NULL, 1, "matrix size, 1..16384 (48 * 2^k gives 48 x 48 leaf blocks)"},
    {"seed", "1", 0, "seed the elements of A and B are generated from, 0..2^63-1"},
    {"leaf", MM_DEFAULT_LEAF, 0,
     "multiply sequentially once a block product is at most leaf^3, 1..128"},
    {"carry", "0", 0,
     "0: every job makes the elements it needs; E > 0: the matrices travel with the jobs: the "
     "first block product on a path whose blocks of A and B hold at most E elements together "
     "makes them, the jobs below it get their blocks in their records (8 bytes an element) and "
     "return their block of C; refused when a record would exceed the record limit (satind "
     "--max-record, 1 MiB by default, and at most 1 MiB), 0..2^29"},
    {NULL, NULL, 0, NULL},
};

/* Traced, a job carries what a matmul that ships its matrices would: its A
 * block (ni x nk) and B block (nk x nj) with the argument, its product
 * block of C (ni x nj) as the result, 8 bytes an element.  With carry > 0
 * the records hold their data and the results theirs: the bytes passed. */
static void mm_data_size(const void *arg, size_t len, size_t result_len, uint64_t *arg_bytes,
                         uint64_t *result_bytes)
{
    mm_arg a;
    if (len != sizeof a)
        return;   /* carry > 0, or refused by the task: as passed */
    memcpy(&a, arg, sizeof a);
    (void)result_len;
    uint64_t ni = (uint64_t)(a.ni > 0 ? a.ni : 0), nj = (uint64_t)(a.nj > 0 ? a.nj : 0),
             nk = (uint64_t)(a.nk > 0 ? a.nk : 0);
    *arg_bytes = len + 8 * (ni * nk + nk * nj);
    *result_bytes = 8 * ni * nj;
}

SATIN_KIND(matmul,
           .summary = "recursive block matrix multiplication, integer elements mod 2^64, "
                      "checksum of C",
           .params = mm_params, .parse = mm_parse, .root = SATIN_TASK_OF(matmul),
           .result_size = sizeof(uint64_t), .format = mm_format);
