/*
 * ida.c - iterative-deepening A* (Korf 1985) on the 15-puzzle with the
 * Manhattan distance heuristic, one of the paper's applications.
 *
 * Board: position p = 4*row + col holds tile 0..15, 0 being the blank.  The
 * goal is tile t on position t (blank top left, as in Korf's instances).  A
 * move slides the blank up, down, left or right; the search never undoes the
 * move that led to a node (the usual pruning, no other duplicate detection).
 *
 * The root invocation (task `ida`) runs the iterations: bound = h(start),
 * and after each iteration without a solution the smallest f = g + h that
 * exceeded the bound.  Each iteration is one spawned search of the start
 * node (task `ida_search`: the same argument, with a bound, and a result of
 * its own).  A search job with g < split spawns one job per child whose f
 * is within the bound; from g >= split on it searches its subtree
 * sequentially (recursive DFS with an incrementally updated heuristic).
 *
 * To be independent of the schedule, the final iteration is searched
 * completely (it does not stop at the first goal).  Results:
 *   moves      the optimal solution length (= the final bound)
 *   nodes      nodes expanded in the final iteration: nodes reached with
 *              f <= bound, the start and the goal nodes included (nodes cut
 *              off with f > bound are not counted)
 *   solutions  goal nodes reached in the final iteration (optimal move
 *              sequences that never undo their previous move)
 *   total_nodes  the same count summed over all iterations
 *   iterations   how many bounds were searched
 *
 * Instances: board=16 comma-separated tiles, or moves=M seed=S: a random
 * walk of M moves from the goal, never undoing the previous move, where
 * step i takes candidate number r % (number of candidates) from the legal
 * moves in the order up, down, left, right (the blank's direction), r being
 * the i-th output of splitmix64 started at state S.  The optimal length of
 * a walk is at most M.  Boards whose permutation parity differs from the
 * parity of the blank's distance to its goal square cannot be solved and are
 * rejected.  The search gives up (job error) when the bound would exceed
 * max_moves; hard instances (optimal length 50..80) take hours anyway.
 */
#include "apps.h"
#include "kind_shared.h"
#include "splitmix.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDA_CELLS 16
#define IDA_MAX_WALK 1000
#define IDA_MAX_MOVES_LIMIT 80
#define IDA_DEFAULT_MAX_MOVES "60"
#define IDA_DEFAULT_SPLIT "6"
#define IDA_MAX_SPLIT 40
/* Sequential subtrees with at least this many moves left under the bound
 * ask whether the job was cancelled (cheap, and rare enough). */
#define IDA_CANCEL_CHECK_LEFT 12

/* Blank displacement of moves up, down, left, right; d ^ 1 undoes d. */
static const int ida_delta[4] = {-4, 4, -1, 1};

static int ida_legal(int blank, int d)
{
    switch (d) {
    case 0:
        return blank >= 4;
    case 1:
        return blank < 12;
    case 2:
        return (blank & 3) != 0;
    default:
        return (blank & 3) != 3;
    }
}

static int ida_md(int tile, int pos)
{
    return abs((tile >> 2) - (pos >> 2)) + abs((tile & 3) - (pos & 3));
}

/* Fixed-width fields with no padding: the bytes may cross machines. */
typedef struct ida_arg {
    uint64_t tiles;       /* tile on position p in bits 4p..4p+3 */
    int32_t g;            /* moves from the start */
    int32_t bound;        /* f bound of this iteration; -1: the root */
    int32_t prev;         /* the move that led here, -1 for none */
    int32_t split;        /* spawn children while g < split */
    int32_t max_moves;
    int32_t reserved;     /* 0 */
} ida_arg;

/* Result of a search job. */
typedef struct ida_res {
    int64_t nodes;
    int64_t solutions;
    int32_t next;         /* smallest f above the bound met, INT32_MAX: none */
    int32_t reserved;
} ida_res;

/* Result of the root. */
typedef struct ida_root_res {
    int64_t moves;
    int64_t nodes;
    int64_t solutions;
    int64_t total_nodes;
    int64_t iterations;
} ida_root_res;

static void ida_unpack(uint64_t tiles, uint8_t b[IDA_CELLS])
{
    for (int p = 0; p < IDA_CELLS; p++)
        b[p] = (uint8_t)((tiles >> (4 * p)) & 15);
}

static uint64_t ida_pack(const uint8_t b[IDA_CELLS])
{
    uint64_t t = 0;
    for (int p = 0; p < IDA_CELLS; p++)
        t |= (uint64_t)b[p] << (4 * p);
    return t;
}

static int ida_blank(const uint8_t b[IDA_CELLS])
{
    for (int p = 0; p < IDA_CELLS; p++)
        if (b[p] == 0)
            return p;
    return -1;
}

static int ida_h(const uint8_t b[IDA_CELLS])
{
    int h = 0;
    for (int p = 0; p < IDA_CELLS; p++)
        if (b[p])
            h += ida_md(b[p], p);
    return h;
}

/* 1 when b holds each tile once; *solvable then says whether the goal can be
 * reached: a move is a transposition with the blank and moves the blank one
 * square, so the permutation parity must equal the parity of the blank's
 * Manhattan distance to position 0. */
static int ida_check(const uint8_t b[IDA_CELLS], int *solvable)
{
    unsigned seen = 0;
    for (int p = 0; p < IDA_CELLS; p++) {
        if (b[p] >= IDA_CELLS || (seen & (1u << b[p])))
            return 0;
        seen |= 1u << b[p];
    }
    int inversions = 0;
    for (int i = 0; i < IDA_CELLS; i++)
        for (int j = i + 1; j < IDA_CELLS; j++)
            inversions += b[i] > b[j];
    int blank = ida_blank(b);
    *solvable = (inversions & 1) == (ida_md(0, blank) & 1);
    return 1;
}

/* ---- the sequential search ---------------------------------------------- */

typedef struct ida_seq {
    uint8_t b[IDA_CELLS];
    uint8_t md[IDA_CELLS][IDA_CELLS]; /* md[tile][pos] */
    int32_t bound;
    int32_t next;
    int64_t nodes;
    int64_t solutions;
    int stop;
} ida_seq;

/* Searches the node with the blank on `blank`, g moves from the start and
 * heuristic h (f <= bound already checked). */
static void ida_dfs(ida_seq *s, int blank, int g, int h, int prev)
{
    s->nodes++;
    if (h == 0) {
        s->solutions++;
        return;
    }
    if (s->bound - g >= IDA_CANCEL_CHECK_LEFT && satin_cancelled())
        s->stop = 1;
    for (int d = 0; d < 4 && !s->stop; d++) {
        if (d == (prev ^ 1) || !ida_legal(blank, d))
            continue;
        int np = blank + ida_delta[d];
        int t = s->b[np];
        int nh = h - s->md[t][np] + s->md[t][blank];
        int f = g + 1 + nh;
        if (f > s->bound) {
            if (f < s->next)
                s->next = f;
            continue;
        }
        s->b[blank] = (uint8_t)t;
        s->b[np] = 0;
        ida_dfs(s, np, g + 1, nh, d);
        s->b[np] = (uint8_t)t;
        s->b[blank] = 0;
    }
}

static ida_res ida_search_seq(const uint8_t b[IDA_CELLS], int g, int bound, int prev)
{
    ida_seq s;
    memcpy(s.b, b, sizeof s.b);
    for (int t = 0; t < IDA_CELLS; t++)
        for (int p = 0; p < IDA_CELLS; p++)
            s.md[t][p] = (uint8_t)(t ? ida_md(t, p) : 0);
    s.bound = bound;
    s.next = INT32_MAX;
    s.nodes = 0;
    s.solutions = 0;
    s.stop = 0;
    ida_dfs(&s, ida_blank(b), g, ida_h(b), prev);
    ida_res r = {s.nodes, s.solutions, s.next, 0};
    return r;
}

/* ---- the checks of records from another node ------------------------------ */

/* What parse makes and the searches spawn: a solvable board; the root
 * (bound -1) at g 0 with no move behind it; a search job within its bound
 * (0..max_moves), g moves from the start with the move that led here a
 * legal one (none only at g 0). */
static int ida_valid(const ida_arg *a, satin_err *err)
{
    uint8_t b[IDA_CELLS];
    int solvable = 0;
    ida_unpack(a->tiles, b);
    if (!ida_check(b, &solvable))
        return satin_err_set(err, "ida: the board does not hold each tile 0..15 once");
    if (!solvable)
        return satin_err_set(err, "ida: the board is unsolvable");
    if (satin_arg_range("ida", "max_moves", a->max_moves, 0, IDA_MAX_MOVES_LIMIT, err) < 0 ||
        satin_arg_range("ida", "split", a->split, 0, IDA_MAX_SPLIT, err) < 0 ||
        satin_arg_range("ida", "bound", a->bound, -1, a->max_moves, err) < 0 ||
        satin_arg_range("ida", "g", a->g, 0, a->bound < 0 ? 0 : a->bound, err) < 0 ||
        satin_arg_range("ida", "prev", a->prev, a->g ? 0 : -1, a->g ? 3 : -1, err) < 0 ||
        satin_arg_range("ida", "reserved", a->reserved, 0, 0, err) < 0)
        return -1;
    /* The blank came here by move prev: undoing it is a legal move. */
    if (a->prev >= 0 && !ida_legal(ida_blank(b), a->prev ^ 1))
        return satin_err_set(err, "ida: move %d cannot have brought the blank to %d",
                             (int)a->prev, ida_blank(b));
    return 0;
}

/* The root: what parse makes, which runs the iterations. */
static int ida_root_valid(const ida_arg *a, satin_err *err)
{
    if (ida_valid(a, err) < 0)
        return -1;
    if (a->bound != -1)
        return satin_err_set(err, "ida: a root record with bound=%d (a root's is -1)",
                             (int)a->bound);
    return 0;
}

/* A search within its iteration's bound. */
static int ida_search_valid(const ida_arg *a, satin_err *err)
{
    if (ida_valid(a, err) < 0)
        return -1;
    if (a->bound < 0)
        return satin_err_set(err, "ida: a search record with bound=%d (a search's is 0..%d)",
                             (int)a->bound, (int)a->max_moves);
    return 0;
}

/* Two tasks of one argument: the root's result is the whole answer, a
 * search's its subtree's counts. */
SATIN_TASK(ida_root_res, ida, ida_arg, ida_root_valid);
SATIN_TASK(ida_res, ida_search, ida_arg, ida_search_valid);

/* ---- jobs --------------------------------------------------------------- */

/* The board of `a` into b: 1, or 0 with the job failed when the argument
 * cannot be searched (a record of another node passed the check, which is
 * stricter; this holds whatever spawned it). */
static int ida_board(const ida_arg *a, uint8_t b[IDA_CELLS])
{
    ida_unpack(a->tiles, b);
    int solvable = 0;
    if (!ida_check(b, &solvable) || !solvable || a->g < 0 || a->bound < -1 ||
        a->bound > IDA_MAX_MOVES_LIMIT || a->prev < -1 || a->prev > 3 || a->split < 0 ||
        a->max_moves < 0 || a->max_moves > IDA_MAX_MOVES_LIMIT) {
        satin_fail("ida: corrupt argument (g=%d, bound=%d)", (int)a->g, (int)a->bound);
        return 0;
    }
    return 1;
}

/* One search job: the node `a` within bound a.bound. */
static ida_res ida_search(SATIN_FRAME, ida_arg a)
{
    ida_res r = {0, 0, INT32_MAX, 0};
    uint8_t b[IDA_CELLS];
    if (!ida_board(&a, b))
        return r;
    int h = ida_h(b);
    if (a.g + h > a.bound) {
        r.next = a.g + h;
        return r;
    }
    if (a.g >= a.split)
        return ida_search_seq(b, a.g, a.bound, a.prev);
    r.nodes = 1;
    if (h == 0) {
        r.solutions = 1;
        return r;
    }
    int blank = ida_blank(b);
    ida_res sub[4];
    for (int d = 0; d < 4; d++) {
        sub[d] = (ida_res){0, 0, INT32_MAX, 0};
        if (d == (a.prev ^ 1) || !ida_legal(blank, d))
            continue;
        int np = blank + ida_delta[d];
        int t = b[np];
        int f = a.g + 1 + h - ida_md(t, np) + ida_md(t, blank);
        if (f > a.bound) {
            sub[d].next = f;
            continue;
        }
        uint8_t cb[IDA_CELLS];
        memcpy(cb, b, sizeof cb);
        cb[blank] = (uint8_t)t;
        cb[np] = 0;
        ida_arg child = a;
        child.tiles = ida_pack(cb);
        child.g = a.g + 1;
        child.prev = d;
        satin_spawn(ida_search, &sub[d], child);
    }
    satin_sync();
    for (int d = 0; d < 4; d++) {
        r.nodes += sub[d].nodes;
        r.solutions += sub[d].solutions;
        if (sub[d].next < r.next)
            r.next = sub[d].next;
    }
    return r;
}

/* The root: one complete search per bound until a bound has solutions. */
static ida_root_res ida(SATIN_FRAME, ida_arg a)
{
    ida_root_res r = {0, 0, 0, 0, 0};
    uint8_t b[IDA_CELLS];
    if (!ida_board(&a, b))
        return r;
    int32_t bound = ida_h(b);
    for (;;) {
        if (bound > a.max_moves) {
            satin_fail("ida: no solution of at most max_moves=%d moves (the next bound would "
                       "be %d); raise max_moves (at most %d) for harder boards",
                       (int)a.max_moves, (int)bound, IDA_MAX_MOVES_LIMIT);
            return r;
        }
        ida_arg child = a;
        child.g = 0;
        child.bound = bound;
        child.prev = -1;
        ida_res sub = {0, 0, INT32_MAX, 0};
        satin_spawn(ida_search, &sub, child);
        satin_sync();
        if (satin_cancelled())
            return r;
        r.iterations++;
        r.total_nodes += sub.nodes;
        if (sub.solutions > 0) {
            r.moves = bound;
            r.nodes = sub.nodes;
            r.solutions = sub.solutions;
            return r;
        }
        if (sub.next == INT32_MAX) {
            satin_fail("ida: the search space is empty (unsolvable board)");
            return r;
        }
        bound = sub.next;
    }
}


/* ---- parameters --------------------------------------------------------- */

static void ida_walk(int64_t moves, uint64_t seed, uint8_t b[IDA_CELLS])
{
    for (int p = 0; p < IDA_CELLS; p++)
        b[p] = (uint8_t)p;
    int blank = 0, prev = -1;
    uint64_t state = seed;
    for (int64_t i = 0; i < moves; i++) {
        int cand[4], n = 0;
        for (int d = 0; d < 4; d++)
            if (d != (prev ^ 1) && ida_legal(blank, d))
                cand[n++] = d;
        int d = cand[satin_splitmix_next(&state) % (uint64_t)n];
        int np = blank + ida_delta[d];
        b[blank] = b[np];
        b[np] = 0;
        blank = np;
        prev = d;
    }
}

static int ida_parse_board(const char *text, uint8_t b[IDA_CELLS], satin_err *err)
{
    const char *s = text;
    int n = 0;
    for (;;) {
        while (*s == ' ')
            s++;
        const char *start = s;
        long v = 0;
        while (*s >= '0' && *s <= '9' && s - start < 3)
            v = v * 10 + (*s++ - '0');
        const char *end = s;
        while (*s == ' ')
            s++;
        if (end == start || (*s != ',' && *s != 0) || v > 15) {
            size_t l = strcspn(start, ",");
            return satin_err_set(err,
                                 "ida: board= entry %d '%.*s' is not a tile number 0..15 "
                                 "(board= takes 16 comma-separated tiles, 0 for the blank)",
                                 n + 1, (int)(l > 20 ? 20 : l), start);
        }
        if (n == IDA_CELLS)
            return satin_err_set(err, "ida: board= has more than 16 tiles");
        b[n++] = (uint8_t)v;
        if (*s == 0)
            break;
        s++;
    }
    if (n != IDA_CELLS)
        return satin_err_set(err, "ida: board= has %d tiles, expected 16 (0 for the blank)", n);
    unsigned seen = 0;
    for (int p = 0; p < IDA_CELLS; p++) {
        if (seen & (1u << b[p]))
            return satin_err_set(err, "ida: board= has tile %d twice", (int)b[p]);
        seen |= 1u << b[p];
    }
    return 0;
}

static int ida_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t moves = 0, seed = 0, max_moves = 0, split = 0;
    const char *board = NULL;
    int has_board = satin_param_given(p, "board"), has_moves = satin_param_given(p, "moves");
    if (has_board == has_moves)
        return satin_err_set(err, has_board ? "ida: give either board= or moves= (with seed=), "
                                              "not both"
                                            : "ida: needs board=16 comma-separated tiles or "
                                              "moves=N (a random walk of N moves from the goal, "
                                              "with seed=)");
    if (has_board && satin_param_given(p, "seed"))
        return satin_err_set(err, "ida: seed= only applies with moves=, not with board=");
    if (satin_param_i64(p, "max_moves", 0, IDA_MAX_MOVES_LIMIT, &max_moves, err) < 0 ||
        satin_param_i64(p, "split", 0, IDA_MAX_SPLIT, &split, err) < 0)
        return -1;
    uint8_t b[IDA_CELLS];
    if (has_board) {
        if (satin_param_str(p, "board", &board, err) < 0 || ida_parse_board(board, b, err) < 0)
            return -1;
        int solvable = 0;
        ida_check(b, &solvable);
        if (!solvable)
            return satin_err_set(err,
                                 "ida: board is unsolvable: its permutation parity does not "
                                 "match the parity of the blank's distance to its goal square "
                                 "(the goal is 0,1,2,...,15 with the blank first)");
    } else {
        if (satin_param_i64(p, "moves", 0, IDA_MAX_WALK, &moves, err) < 0 ||
            satin_param_i64(p, "seed", 0, INT64_MAX, &seed, err) < 0)
            return -1;
        ida_walk(moves, (uint64_t)seed, b);
    }
    ida_arg a;
    memset(&a, 0, sizeof a);
    a.tiles = ida_pack(b);
    a.g = 0;
    a.bound = -1;
    a.prev = -1;
    a.split = (int32_t)split;
    a.max_moves = (int32_t)max_moves;
    return satin_bytes_put(arg, &a, sizeof a, err);
}

static void ida_format(const void *res, size_t len, double wall_s, satin_result *result,
                       satin_result *stats)
{
    ida_root_res r = {0, 0, 0, 0, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_i64(result, "moves", r.moves);
    satin_result_i64(result, "nodes", r.nodes);
    satin_result_i64(result, "solutions", r.solutions);
    satin_result_i64(result, "total_nodes", r.total_nodes);
    satin_result_i64(result, "iterations", r.iterations);
    if (wall_s > 0)
        satin_result_f64(stats, "nodes_per_s", (double)r.total_nodes / wall_s);
}

static const satin_param_def ida_params[] = {
    {"board", NULL, 0, "16 comma-separated tiles by position (row by row), 0 for the blank; "
                       "the goal is 0,1,...,15"},
    {"moves", NULL, 0, "instead of board=: a random walk of this many moves from the goal, "
                       "0..1000"},
    {"seed", "1", 0, "seed of the random walk, 0..2^63-1"},
    {"max_moves", IDA_DEFAULT_MAX_MOVES, 0, "give up when the bound exceeds this, 0..80"},
    {"split", IDA_DEFAULT_SPLIT, 0,
     "spawn one job per child for nodes fewer than this many moves from the start, 0..40"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(ida, .summary = "IDA* with the Manhattan heuristic: optimal 15-puzzle solution length",
           .params = ida_params, .parse = ida_parse, .root = SATIN_TASK_OF(ida),
           .format = ida_format);
