/*
 * nqueens.c - the number of ways to place n non-attacking queens on an n x n
 * board (one of the paper's applications).
 *
 * A job is a partial placement: the rows above `row` hold one queen each and
 * three bitmasks say which columns and diagonals of `row` they attack.  While
 * fewer than `threshold` rows are placed, a job spawns one child per free
 * column of its row; below that depth it counts its subtree with plain
 * sequential bitmask backtracking.  The default threshold 4 gives a few
 * thousand leaf jobs for n = 12..16 (plenty of parallel slack for a grid)
 * while each leaf still searches n-4 rows, so spawn overhead stays small.
 */
#include "apps.h"
#include "kind_shared.h"

#include <stdint.h>
#include <string.h>

#define NQ_MAX_N 20             /* 20 queens already take hours sequentially */
#define NQ_DEFAULT_THRESHOLD "4"
/* Subtrees with at least this many rows left are big enough that asking
 * whether the job was cancelled costs nothing measurable. */
#define NQ_CANCEL_CHECK_ROWS 12

/* Fixed-width fields with no padding: the bytes may cross machines. */
typedef struct nq_arg {
    int32_t n;
    int32_t row;        /* queens placed so far, in rows 0..row-1 */
    int32_t threshold;  /* spawn children while row < threshold */
    uint32_t cols;      /* columns taken */
    uint32_t ldiag;     /* squares of `row` attacked along down-left diagonals */
    uint32_t rdiag;     /* squares of `row` attacked along down-right diagonals */
} nq_arg;

static uint32_t nq_board_mask(int32_t n)
{
    return (uint32_t)((UINT64_C(1) << n) - 1);
}

/* What parse makes and its spawns keep: `row` queens placed, one per
 * column taken, and masks within the board. */
static int nq_valid(const nq_arg *a, satin_err *err)
{
    if (satin_arg_range("nqueens", "n", a->n, 1, NQ_MAX_N, err) < 0 ||
        satin_arg_range("nqueens", "row", a->row, 0, a->n, err) < 0 ||
        satin_arg_range("nqueens", "threshold", a->threshold, 0, NQ_MAX_N, err) < 0)
        return -1;
    uint32_t outside = ~nq_board_mask(a->n);
    if ((a->cols | a->ldiag | a->rdiag) & outside)
        return satin_err_set(err, "nqueens: masks with squares outside a board of %d",
                             (int)a->n);
    if (__builtin_popcount(a->cols) != a->row)
        return satin_err_set(err, "nqueens: %d columns taken by %d queens",
                             __builtin_popcount(a->cols), (int)a->row);
    return 0;
}

SATIN_TASK(int64_t, nqueens, nq_arg, nq_valid);

/* The masks of the next row once a queen is put on square `bit` of this one:
 * the diagonals it attacks move one column further per row. */
static nq_arg nq_place(const nq_arg *a, uint32_t bit)
{
    nq_arg c = *a;
    uint32_t all = nq_board_mask(a->n);
    c.row = a->row + 1;
    c.cols = a->cols | bit;
    c.ldiag = ((a->ldiag | bit) << 1) & all;
    c.rdiag = (a->rdiag | bit) >> 1;
    return c;
}

/* Sequential backtracking; C recursion depth is at most n <= 20.  Returns
 * early (with a partial count nobody will look at) once the job is
 * cancelled. */
static int64_t nq_count(const nq_arg *a)
{
    if (a->row == a->n)
        return 1;
    if (a->n - a->row >= NQ_CANCEL_CHECK_ROWS && satin_cancelled())
        return 0;
    uint32_t free_sq = nq_board_mask(a->n) & ~(a->cols | a->ldiag | a->rdiag);
    int64_t total = 0;
    while (free_sq) {
        uint32_t bit = free_sq & (~free_sq + 1); /* lowest free square */
        free_sq &= free_sq - 1;
        nq_arg child = nq_place(a, bit);
        total += nq_count(&child);
    }
    return total;
}

/* One job per free column of `row` while row < threshold, each a plain
 * call unless thieves need work; below, the sequential count. */
static int64_t nqueens(SATIN_FRAME, nq_arg a)
{
    if (a.n < 1 || a.n > NQ_MAX_N || a.row < 0 || a.row > a.n) {
        satin_fail("nqueens: corrupt argument (n=%d, row=%d)", (int)a.n, (int)a.row);
        return 0;
    }
    if (a.row >= a.threshold || a.row == a.n)
        return nq_count(&a);
    /* One slot per column; a slot stays 0 for occupied columns. */
    int64_t sub[NQ_MAX_N] = {0};
    uint32_t free_sq = nq_board_mask(a.n) & ~(a.cols | a.ldiag | a.rdiag);
    for (int32_t col = 0; col < a.n; col++) {
        uint32_t bit = UINT32_C(1) << col;
        if (free_sq & bit)
            satin_spawn(nqueens, &sub[col], nq_place(&a, bit));
    }
    satin_sync();
    int64_t r = 0;
    for (int32_t col = 0; col < a.n; col++)
        r += sub[col];
    return r;
}

static int nq_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, threshold;
    if (satin_param_i64(p, "n", 1, NQ_MAX_N, &n, err) < 0 ||
        satin_param_i64(p, "threshold", 0, NQ_MAX_N, &threshold, err) < 0)
        return -1;
    nq_arg a;
    memset(&a, 0, sizeof a);
    a.n = (int32_t)n;
    a.row = 0;
    a.threshold = (int32_t)threshold;
    return satin_bytes_put(arg, &a, sizeof a, err);
}

static void nq_format(const void *res, size_t len, double wall_s,
                      satin_result *result, satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    satin_result_i64(result, "solutions", satin_result_as_i64(res, len));
}

static const satin_param_def nq_params[] = {
    {"n", NULL, 1, "board size, 1..20"},
    {"threshold", NQ_DEFAULT_THRESHOLD, 0,
     "spawn one job per free column while fewer than this many rows are placed "
     "(0: all sequential; >= n: spawn down to complete placements)"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(nqueens, .summary = "number of ways to place n non-attacking queens on an n x n board",
           .params = nq_params, .parse = nq_parse, .root = SATIN_TASK_OF(nqueens),
           .format = nq_format);
