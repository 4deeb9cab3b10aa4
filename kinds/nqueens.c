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
 *
 * first=1 asks for one placement instead of the count: a job returns the
 * first complete placement of its subtree (its columns, row by row), and
 * the job's grid-wide value `found` (SATIN_BITS) tells every job of it, on
 * every node, to return at once once some job has one; the root checks the
 * placement it returns.  Which placement comes first depends on the
 * schedule: any answer is a verified one.
 */
#include "apps.h"
#include "kind_shared.h"

#include <stdint.h>
#include <stdio.h>
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
    int32_t first;      /* 1: one placement is wanted, not the count */
    uint8_t path[NQ_MAX_N];   /* the column of each placed row (first=1; 0 beyond row) */
} nq_arg;

/* A job's answer: its subtree's count, or with first=1 (count 0 or 1) the
 * columns of its first complete placement. */
typedef struct nq_res {
    int64_t solutions;
    uint8_t cols[NQ_MAX_N];
    int32_t board;      /* first=1 with a placement: n; else 0 */
} nq_res;

/* The grid-wide value of first=1: bit 0 once some job found a placement. */
#define NQ_FOUND 0

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
    if (satin_arg_range("nqueens", "first", a->first, 0, 1, err) < 0)
        return -1;
    for (int32_t r = 0; r < NQ_MAX_N; r++)
        if (a->path[r] >= (r < a->row ? a->n : 1))
            return satin_err_set(err, "nqueens: row %d's column %d (a board of %d, %d rows placed)",
                                 (int)r, (int)a->path[r], (int)a->n, (int)a->row);
    return 0;
}

SATIN_TASK(nq_res, nqueens, nq_arg, nq_valid);

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
    c.path[a->row] = (uint8_t)__builtin_ctz(bit);
    return c;
}

/* first=1: some job of this one's has a placement already. */
static int nq_someone_found(void)
{
    return (satin_value(NQ_FOUND) & 1) != 0;
}

/* first=1, sequentially: the first complete placement below a, into res;
 * 0 when none (or another job found one first). */
static int nq_first(const nq_arg *a, nq_res *res, uint64_t *nodes)
{
    if (a->row == a->n) {
        memcpy(res->cols, a->path, sizeof res->cols);
        res->solutions = 1;
        res->board = a->n;
        satin_value_join(NQ_FOUND, 1);
        return 1;
    }
    if ((++*nodes & 0xfff) == 0 && (nq_someone_found() || satin_cancelled()))
        return 0;
    uint32_t free_sq = nq_board_mask(a->n) & ~(a->cols | a->ldiag | a->rdiag);
    while (free_sq) {
        uint32_t bit = free_sq & (~free_sq + 1);
        free_sq &= free_sq - 1;
        nq_arg child = nq_place(a, bit);
        if (nq_first(&child, res, nodes))
            return 1;
    }
    return 0;
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
 * call unless thieves need work; below, the sequential count (or search). */
static nq_res nqueens(SATIN_FRAME, nq_arg a)
{
    nq_res r = {0, {0}, 0};
    if (a.n < 1 || a.n > NQ_MAX_N || a.row < 0 || a.row > a.n) {
        satin_fail("nqueens: corrupt argument (n=%d, row=%d)", (int)a.n, (int)a.row);
        return r;
    }
    if (a.first && nq_someone_found())
        return r;
    if (a.row >= a.threshold || a.row == a.n) {
        if (a.first) {
            uint64_t nodes = 0;
            nq_first(&a, &r, &nodes);
        } else {
            r.solutions = nq_count(&a);
        }
        return r;
    }
    /* One slot per column; a slot stays empty for occupied columns. */
    nq_res sub[NQ_MAX_N];
    memset(sub, 0, sizeof sub);
    uint32_t free_sq = nq_board_mask(a.n) & ~(a.cols | a.ldiag | a.rdiag);
    for (int32_t col = 0; col < a.n; col++) {
        uint32_t bit = UINT32_C(1) << col;
        if (free_sq & bit)
            satin_spawn(nqueens, &sub[col], nq_place(&a, bit));
    }
    satin_sync();
    for (int32_t col = 0; col < a.n; col++) {
        if (a.first && sub[col].solutions > 0)
            return sub[col];
        r.solutions += sub[col].solutions;
    }
    return r;
}

static int nq_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, threshold, first;
    if (satin_param_i64(p, "n", 1, NQ_MAX_N, &n, err) < 0 ||
        satin_param_i64(p, "threshold", 0, NQ_MAX_N, &threshold, err) < 0 ||
        satin_param_i64(p, "first", 0, 1, &first, err) < 0)
        return -1;
    nq_arg a;
    memset(&a, 0, sizeof a);
    a.n = (int32_t)n;
    a.row = 0;
    a.threshold = (int32_t)threshold;
    a.first = (int32_t)first;
    return satin_bytes_put(arg, &a, sizeof a, err);
}

/* first=1's answer: no two queens of `cols` share a column or a diagonal. */
static int nq_verified(const uint8_t *cols, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < i; j++)
            if (cols[i] >= n || cols[i] == cols[j] || cols[i] - cols[j] == i - j ||
                cols[j] - cols[i] == i - j)
                return 0;
    return 1;
}

static void nq_format(const void *res, size_t len, double wall_s,
                      satin_result *result, satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    nq_res r = {0, {0}, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_i64(result, "solutions", r.solutions);
    if (r.board < 1 || r.board > NQ_MAX_N)
        return;   /* the count, or first=1 on a board without a placement */
    /* One placement (first=1): its columns, row by row, checked here. */
    char text[4 * NQ_MAX_N + 1] = "";
    size_t used = 0;
    for (int32_t i = 0; i < r.board; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%u", i ? "," : "",
                                 (unsigned)r.cols[i]);
    satin_result_str(result, "placement", text);
    satin_result_i64(result, "verified", nq_verified(r.cols, r.board));
}

static const satin_param_def nq_params[] = {
    {"n", NULL, 1, "board size, 1..20"},
    {"threshold", NQ_DEFAULT_THRESHOLD, 0,
     "spawn one job per free column while fewer than this many rows are placed "
     "(0: all sequential; >= n: spawn down to complete placements)"},
    {"first", "0", 0,
     "1: one placement (verified, in `placement`; which one depends on the schedule), every "
     "job stopping once one is found; 0: the count of all"},
    {NULL, NULL, 0, NULL},
};

static const satin_value_def nq_values[] = {
    [NQ_FOUND] = {"found", SATIN_BITS},
    {NULL, 0},
};

SATIN_KIND(nqueens, .summary = "number of ways to place n non-attacking queens on an n x n board",
           .params = nq_params, .parse = nq_parse, .root = SATIN_TASK_OF(nqueens),
           .format = nq_format, .values = nq_values);
