/*
 * matmul.c - recursive block matrix multiplication C = A B (one of the
 * paper's applications), n x n, with 64-bit integer elements and arithmetic
 * modulo 2^64, so that every result is exact and independent of the order
 * of the additions (and thus of the schedule).
 *
 * The matrices are not shipped: they are defined by the seed, and every job
 * generates the blocks it needs.  With mix() the splitmix64 output function
 * (see mm_mix) and key(m) = mix(seed ^ mix(m)):
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
 */
#include "apps.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MM_MAX_N 16384
#define MM_MAX_LEAF 128
#define MM_DEFAULT_LEAF "48"
#define MM_WEIGHT_KEY UINT64_C(0x5bd1e995)

/* Fixed-width fields with no padding: the bytes may cross machines. */
typedef struct mm_arg {
    uint64_t seed;
    int32_t i0, j0, k0;   /* first row of C, column of C, index of the inner sum */
    int32_t ni, nj, nk;   /* extents of the three ranges */
    int32_t leaf;         /* multiply sequentially once all three are <= leaf */
    int32_t n;
} mm_arg;

static uint64_t mm_mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t mm_pos(int32_t i, int32_t j)
{
    return (uint64_t)(uint32_t)i << 32 | (uint32_t)j;
}

/* The leaf: the checksum of A[i0.., k0..] B[k0.., j0..]. */
static uint64_t mm_leaf(const mm_arg *a)
{
    /* 130 KiB at most, on the worker's (large) stack. */
    uint64_t bblk[MM_MAX_LEAF * MM_MAX_LEAF];
    uint64_t arow[2][MM_MAX_LEAF];
    uint64_t c0[MM_MAX_LEAF], c1[MM_MAX_LEAF];
    uint64_t ka = mm_mix(a->seed ^ mm_mix(1)), kb = mm_mix(a->seed ^ mm_mix(2));
    uint64_t kw = mm_mix(MM_WEIGHT_KEY);
    int32_t ni = a->ni, nj = a->nj, nk = a->nk;
    for (int32_t k = 0; k < nk; k++)
        for (int32_t j = 0; j < nj; j++)
            bblk[k * nj + j] = mm_mix(kb ^ mm_pos(a->k0 + k, a->j0 + j));
    uint64_t sum = 0;
    for (int32_t i = 0; i < ni; i += 2) {
        int two = i + 1 < ni;
        for (int32_t k = 0; k < nk; k++) {
            arow[0][k] = mm_mix(ka ^ mm_pos(a->i0 + i, a->k0 + k));
            arow[1][k] = two ? mm_mix(ka ^ mm_pos(a->i0 + i + 1, a->k0 + k)) : 0;
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
            sum += (mm_mix(kw ^ mm_pos(a->i0 + i, a->j0 + j)) | 1) * c0[j];
            if (two)
                sum += (mm_mix(kw ^ mm_pos(a->i0 + i + 1, a->j0 + j)) | 1) * c1[j];
        }
    }
    return sum;
}

static void mm_run(satin_ctx *c, const void *arg, size_t len, satin_out *out)
{
    mm_arg a;
    if (len != sizeof a) {
        satin_fail(out, "matmul: argument of %zu bytes, expected %zu", len, sizeof a);
        return;
    }
    memcpy(&a, arg, sizeof a);
    if (a.n < 1 || a.n > MM_MAX_N || a.leaf < 1 || a.leaf > MM_MAX_LEAF || a.ni < 1 ||
        a.nj < 1 || a.nk < 1 || a.i0 < 0 || a.j0 < 0 || a.k0 < 0 || a.ni > a.n - a.i0 ||
        a.nj > a.n - a.j0 || a.nk > a.n - a.k0) {
        satin_fail(out, "matmul: corrupt argument (n=%d, block %dx%dx%d at %d,%d,%d)",
                   (int)a.n, (int)a.ni, (int)a.nj, (int)a.nk, (int)a.i0, (int)a.j0, (int)a.k0);
        return;
    }
    uint64_t sum = 0;
    if (a.ni <= a.leaf && a.nj <= a.leaf && a.nk <= a.leaf) {
        sum = mm_leaf(&a);
    } else {
        /* Each range longer than leaf is halved; the others stay whole. */
        int32_t start[3][2], ext[3][2], parts[3];
        const int32_t org[3] = {a.i0, a.j0, a.k0}, full[3] = {a.ni, a.nj, a.nk};
        for (int d = 0; d < 3; d++) {
            parts[d] = full[d] > a.leaf ? 2 : 1;
            ext[d][0] = parts[d] == 2 ? (full[d] + 1) / 2 : full[d];
            ext[d][1] = full[d] - ext[d][0];
            start[d][0] = org[d];
            start[d][1] = org[d] + ext[d][0];
        }
        uint64_t sub[8] = {0};
        int nsub = 0;
        for (int x = 0; x < parts[0]; x++)
            for (int y = 0; y < parts[1]; y++)
                for (int z = 0; z < parts[2]; z++) {
                    mm_arg child = a;
                    child.i0 = start[0][x];
                    child.ni = ext[0][x];
                    child.j0 = start[1][y];
                    child.nj = ext[1][y];
                    child.k0 = start[2][z];
                    child.nk = ext[2][z];
                    satin_spawn(c, &satin_kind_matmul, &child, sizeof child, &sub[nsub],
                                sizeof sub[nsub]);
                    nsub++;
                }
        satin_sync(c);
        for (int s = 0; s < nsub; s++)
            sum += sub[s];
    }
    satin_return(out, &sum, sizeof sum);
}

static int mm_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, seed, leaf;
    if (satin_param_i64(p, "n", 1, MM_MAX_N, &n, err) < 0 ||
        satin_param_i64(p, "seed", 0, INT64_MAX, &seed, err) < 0 ||
        satin_param_i64(p, "leaf", 1, MM_MAX_LEAF, &leaf, err) < 0)
        return -1;
    mm_arg a;
    memset(&a, 0, sizeof a);
    a.seed = (uint64_t)seed;
    a.ni = a.nj = a.nk = a.n = (int32_t)n;
    a.leaf = (int32_t)leaf;
    return satin_bytes_put(arg, &a, sizeof a, err);
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
    {NULL, NULL, 0, NULL},
};

/* Traced, a job carries what a matmul that ships its matrices would: its A
 * block (ni x nk) and B block (nk x nj) with the argument, its product
 * block of C (ni x nj) as the result, 8 bytes an element. */
static void mm_data_size(const void *arg, size_t len, size_t result_len, uint64_t *arg_bytes,
                         uint64_t *result_bytes)
{
    mm_arg a;
    if (len != sizeof a)
        return;   /* refused by mm_run: as passed */
    memcpy(&a, arg, sizeof a);
    (void)result_len;
    uint64_t ni = (uint64_t)(a.ni > 0 ? a.ni : 0), nj = (uint64_t)(a.nj > 0 ? a.nj : 0),
             nk = (uint64_t)(a.nk > 0 ? a.nk : 0);
    *arg_bytes = len + 8 * (ni * nk + nk * nj);
    *result_bytes = 8 * ni * nj;
}

const satin_kind satin_kind_matmul = {
    .name = "matmul",
    .summary = "recursive block matrix multiplication, integer elements mod 2^64, checksum of C",
    .params = mm_params,
    .parse = mm_parse,
    .run = mm_run,
    .result_size = sizeof(uint64_t),
    .format = mm_format,
    .data_size = mm_data_size,
};
