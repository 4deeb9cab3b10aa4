/*
 * test_ida.c - the ida kind (IDA* on the 15-puzzle): optimal lengths against
 * a breadth-first search, node and solution counts against a plain IDA*
 * written here, the random-walk instances against the same boards given as
 * board=, the same results whatever the split depth and the number of
 * workers, and the error texts of bad parameters.
 */
#include "kinds.h"
#include "../tap.h"

#define KIND_UNDER_TEST "ida"
#include "kind_kit.h"

#include <stdint.h>

/* ---- an independent 15-puzzle --------------------------------------------
 * b[p] is the tile on position p = 4*row + col, 0 the blank; the goal has
 * tile p on position p.  Moves are named by the blank's direction. */

typedef struct board {
    int b[16];
} board;

static const int drow[4] = {-1, 1, 0, 0}, dcol[4] = {0, 0, -1, 1}; /* up down left right */

static int blank_of(const board *s)
{
    for (int p = 0; p < 16; p++)
        if (s->b[p] == 0)
            return p;
    return -1;
}

/* The position the blank moves to, or -1 when the move leaves the board. */
static int move_to(int blank, int d)
{
    int r = blank / 4 + drow[d], c = blank % 4 + dcol[d];
    return r < 0 || r > 3 || c < 0 || c > 3 ? -1 : 4 * r + c;
}

static int opposite(int d)
{
    static const int opp[4] = {1, 0, 3, 2};
    return opp[d];
}

static board goal_board(void)
{
    board s;
    for (int p = 0; p < 16; p++)
        s.b[p] = p;
    return s;
}

static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* The kind's documented random walk: from the goal, each step picks
 * candidate r % n among the legal moves other than undoing the last one. */
static board walk(int moves, uint64_t seed)
{
    board s = goal_board();
    int prev = -1;
    uint64_t st = seed;
    for (int i = 0; i < moves; i++) {
        int cand[4], n = 0;
        int blank = blank_of(&s);
        for (int d = 0; d < 4; d++)
            if ((prev < 0 || d != opposite(prev)) && move_to(blank, d) >= 0)
                cand[n++] = d;
        int d = cand[splitmix(&st) % (uint64_t)n];
        int to = move_to(blank, d);
        s.b[blank] = s.b[to];
        s.b[to] = 0;
        prev = d;
    }
    return s;
}

static int manhattan(const board *s)
{
    int h = 0;
    for (int p = 0; p < 16; p++) {
        int t = s->b[p];
        if (t)
            h += abs(t / 4 - p / 4) + abs(t % 4 - p % 4);
    }
    return h;
}

static uint64_t pack(const board *s)
{
    uint64_t k = 0;
    for (int p = 0; p < 16; p++)
        k |= (uint64_t)s->b[p] << (4 * p);
    return k;
}

/* Breadth-first search: the optimal solution length (or -1 beyond max_depth). */
static int bfs_length(const board *start, int max_depth)
{
    size_t cap = (size_t)1 << 21; /* open-addressing set of packed boards */
    uint64_t *set = calloc(cap, sizeof *set);
    uint64_t *cur = malloc(cap * sizeof *cur), *nxt = malloc(cap * sizeof *nxt);
    size_t ncur = 0, nnxt, nset = 0;
    uint64_t goal = pack(&(board){{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}});
    int result = -1;
    /* The goal packs to a nonzero value, so 0 marks a free slot. */
    cur[ncur++] = pack(start);
    set[(cur[0] * 0x9e3779b97f4a7c15u >> 43) & (cap - 1)] = cur[0];
    nset = 1;
    for (int depth = 0; depth <= max_depth && ncur; depth++) {
        nnxt = 0;
        for (size_t i = 0; i < ncur; i++) {
            if (cur[i] == goal) {
                result = depth;
                goto out;
            }
            board s;
            for (int p = 0; p < 16; p++)
                s.b[p] = (int)((cur[i] >> (4 * p)) & 15);
            int blank = blank_of(&s);
            for (int d = 0; d < 4; d++) {
                int to = move_to(blank, d);
                if (to < 0)
                    continue;
                board t = s;
                t.b[blank] = t.b[to];
                t.b[to] = 0;
                uint64_t k = pack(&t);
                size_t h = (k * 0x9e3779b97f4a7c15u >> 43) & (cap - 1);
                while (set[h] && set[h] != k)
                    h = (h + 1) & (cap - 1);
                if (set[h])
                    continue;
                if (nset >= cap / 2 || nnxt >= cap) {
                    diag("bfs: too many states");
                    goto out;
                }
                set[h] = k;
                nset++;
                nxt[nnxt++] = k;
            }
        }
        uint64_t *tmp = cur;
        cur = nxt;
        nxt = tmp;
        ncur = nnxt;
    }
out:
    free(set);
    free(cur);
    free(nxt);
    return result;
}

/* A plain IDA*: the heuristic recomputed at every node, each iteration
 * searched completely; the same tree as the kind's (no move undoes the
 * previous one). */
typedef struct plain {
    int bound, next;
    int64_t nodes, solutions;
} plain;

static void plain_dfs(plain *pl, board *s, int g, int prev)
{
    int h = manhattan(s);
    if (g + h > pl->bound) {
        if (g + h < pl->next)
            pl->next = g + h;
        return;
    }
    pl->nodes++;
    if (h == 0) {
        pl->solutions++;
        return;
    }
    int blank = blank_of(s);
    for (int d = 0; d < 4; d++) {
        int to = move_to(blank, d);
        if (to < 0 || (prev >= 0 && d == opposite(prev)))
            continue;
        s->b[blank] = s->b[to];
        s->b[to] = 0;
        plain_dfs(pl, s, g + 1, d);
        s->b[to] = s->b[blank];
        s->b[blank] = 0;
    }
}

typedef struct ida_out {
    int64_t moves, nodes, solutions, total_nodes, iterations;
} ida_out;

static ida_out plain_ida(board s)
{
    ida_out o = {0, 0, 0, 0, 0};
    int bound = manhattan(&s);
    for (;;) {
        plain pl = {bound, 1 << 30, 0, 0};
        plain_dfs(&pl, &s, 0, -1);
        o.iterations++;
        o.total_nodes += pl.nodes;
        if (pl.solutions) {
            o.moves = bound;
            o.nodes = pl.nodes;
            o.solutions = pl.solutions;
            return o;
        }
        bound = pl.next;
    }
}

static void board_text(const board *s, char *buf, size_t cap)
{
    size_t off = 0;
    for (int p = 0; p < 16; p++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%d", p ? "," : "", s->b[p]);
}

/* ---- running the kind ---------------------------------------------------- */

static int run_ida(satin_pool *pool, const char *const *params, ida_out *r)
{
    satin_outcome o;
    satin_run_record(pool, kit_kinds(), "ida", params, &o);
    int rc = 0;
    if (o.failed) {
        diag("ida failed: %s", o.error);
        rc = -1;
    } else if (satin_kvlist_i64(&o.result, "moves", &r->moves) < 0 ||
               satin_kvlist_i64(&o.result, "nodes", &r->nodes) < 0 ||
               satin_kvlist_i64(&o.result, "solutions", &r->solutions) < 0 ||
               satin_kvlist_i64(&o.result, "total_nodes", &r->total_nodes) < 0 ||
               satin_kvlist_i64(&o.result, "iterations", &r->iterations) < 0) {
        diag("ida gave an incomplete result");
        rc = -1;
    }
    satin_outcome_free(&o);
    return rc;
}

static int same(const ida_out *a, const ida_out *b)
{
    return a->moves == b->moves && a->nodes == b->nodes && a->solutions == b->solutions &&
           a->total_nodes == b->total_nodes && a->iterations == b->iterations;
}

static void show(const char *what, const ida_out *r)
{
    diag("%s: moves=%lld nodes=%lld solutions=%lld total_nodes=%lld iterations=%lld", what,
         (long long)r->moves, (long long)r->nodes, (long long)r->solutions,
         (long long)r->total_nodes, (long long)r->iterations);
}

/* The goal itself: no move, one node, one solution. */
static void check_goal(satin_pool *pool)
{
    ida_out r = {-1, -1, -1, -1, -1};
    ok(run_ida(pool, (const char *[]){"moves=0", NULL}, &r) == 0, "moves=0 runs");
    is_i64(r.moves, 0, "goal: 0 moves");
    is_i64(r.nodes, 1, "goal: 1 node");
    is_i64(r.solutions, 1, "goal: 1 solution");
    ok(run_ida(pool, (const char *[]){"board=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", NULL},
               &r) == 0 && r.moves == 0,
       "board= of the goal: 0 moves");
    /* One move away: blank moved right (tile 1 slid left). */
    ok(run_ida(pool, (const char *[]){"board=1,0,2,3,4,5,6,7,8,9,10,11,12,13,14,15", NULL},
               &r) == 0,
       "one move from the goal runs");
    is_i64(r.moves, 1, "one move from the goal: 1 move");
    is_i64(r.nodes, 2, "one move from the goal: 2 nodes (start, goal)");
}

/* Short walks: optimal lengths from BFS, counts from the plain IDA*, on
 * one and two workers. */
static void check_small(satin_pool *const pools[2])
{
    static const int cases[][2] = {{4, 1}, {8, 2}, {10, 3}, {12, 4}, {13, 7}, {14, 5}, {16, 6},
                                  {16, 11}, {16, 31}}; /* these two: optimal 14 and 8 */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int m = cases[i][0], seed = cases[i][1];
        board s = walk(m, (uint64_t)seed);
        int opt = bfs_length(&s, m);
        ida_out want = plain_ida(s);
        is_i64(want.moves, opt, "plain IDA* agrees with BFS for moves=%d seed=%d (%d)", m, seed,
               opt);
        char pm[32], ps[32];
        snprintf(pm, sizeof pm, "moves=%d", m);
        snprintf(ps, sizeof ps, "seed=%d", seed);
        for (int w = 0; w < 2; w++) {
            ida_out got = {-1, -1, -1, -1, -1};
            run_ida(pools[w], (const char *[]){pm, ps, NULL}, &got);
            is_i64(got.moves, opt, "moves=%d seed=%d: optimal length %d, %d worker(s)", m, seed,
                   opt, w + 1);
            if (!ok(same(&got, &want), "moves=%d seed=%d: counts as the plain IDA*, %d worker(s)",
                    m, seed, w + 1)) {
                show("got", &got);
                show("want", &want);
            }
        }
    }
}

/* Longer instances: the plain IDA* only (BFS would need too much memory),
 * random walks against board=, every split depth, one and two workers. */
static void check_larger(satin_pool *const pools[2])
{
    static const int cases[][2] = {{40, 11}, {60, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int m = cases[i][0], seed = cases[i][1];
        board s = walk(m, (uint64_t)seed);
        ida_out want = plain_ida(s);
        char pm[32], ps[32], pb[80], bt[64];
        snprintf(pm, sizeof pm, "moves=%d", m);
        snprintf(ps, sizeof ps, "seed=%d", seed);
        board_text(&s, bt, sizeof bt);
        snprintf(pb, sizeof pb, "board=%s", bt);
        for (int w = 0; w < 2; w++) {
            ida_out got = {-1, -1, -1, -1, -1};
            run_ida(pools[w], (const char *[]){pm, ps, NULL}, &got);
            if (!ok(same(&got, &want), "moves=%d seed=%d (optimal %lld): as the plain IDA*, "
                                       "%d worker(s)", m, seed, (long long)want.moves, w + 1)) {
                show("got", &got);
                show("want", &want);
            }
        }
        ida_out byboard = {-1, -1, -1, -1, -1};
        run_ida(pools[1], (const char *[]){pb, NULL}, &byboard);
        ok(same(&byboard, &want), "the same board as board=%s", bt);
        static const char *const splits[] = {"split=0", "split=1", "split=3", "split=40"};
        for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
            ida_out sp = {-1, -1, -1, -1, -1};
            run_ida(pools[k & 1], (const char *[]){pm, ps, splits[k], NULL}, &sp);
            ok(same(&sp, &want), "moves=%d seed=%d %s: same result, %d worker(s)", m, seed,
               splits[k], (int)(k & 1) + 1);
        }
    }
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"board=0,2,1,3,4,5,6,7,8,9,10,11,12,13,14,15", NULL},
              "unsolvable", "two tiles swapped");
    check_bad(pool, (const char *[]){"board=1,0,2,3,4,5,6,7,8,9,10,11,12,13,15,14", NULL},
              "unsolvable", "blank moved and two tiles swapped");
    check_bad(pool, (const char *[]){"board=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14", NULL},
              "has 15 tiles, expected 16", "15 tiles");
    check_bad(pool, (const char *[]){"board=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,3", NULL},
              "more than 16 tiles", "17 tiles");
    check_bad(pool, (const char *[]){"board=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,14", NULL},
              "tile 14 twice", "duplicate tile");
    check_bad(pool, (const char *[]){"board=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,16", NULL},
              "entry 16 '16' is not a tile number", "tile 16");
    check_bad(pool, (const char *[]){"board=0,1,2,3,x,5,6,7,8,9,10,11,12,13,14,15", NULL},
              "entry 5 'x' is not a tile number", "tile x");
    check_bad(pool, (const char *[]){"board=0,1,2,3,,5,6,7,8,9,10,11,12,13,14,15", NULL},
              "entry 5 '' is not a tile number", "empty entry");
    check_bad(pool, (const char *[]){"board=", NULL}, "entry 1 '' is not a tile number",
              "empty board");
    check_bad(pool, (const char *[]){NULL}, "needs board=", "no instance");
    check_bad(pool,
              (const char *[]){"board=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", "moves=3", NULL},
              "either board= or moves=", "board and moves");
    check_bad(pool,
              (const char *[]){"board=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", "seed=3", NULL},
              "seed= only applies with moves=", "board and seed");
    check_bad(pool, (const char *[]){"moves=-1", NULL}, "out of range", "moves=-1");
    check_bad(pool, (const char *[]){"moves=1001", NULL}, "out of range", "moves=1001");
    check_bad(pool, (const char *[]){"moves=ten", NULL}, "not an integer", "moves=ten");
    check_bad(pool, (const char *[]){"moves=10", "seed=-1", NULL}, "out of range", "seed=-1");
    check_bad(pool, (const char *[]){"moves=10", "split=41", NULL}, "out of range", "split=41");
    check_bad(pool, (const char *[]){"moves=10", "max_moves=81", NULL}, "out of range",
              "max_moves=81");
    /* moves=60 seed=1 needs 34 moves. */
    check_bad(pool, (const char *[]){"moves=60", "seed=1", "max_moves=20", NULL},
              "no solution of at most max_moves=20 moves", "bound above max_moves");
    check_bad(pool, (const char *[]){"moves=10", "n=4", NULL}, "unknown parameter 'n'",
              "unknown key");
}

int main(void)
{
    satin_pool *pools[2] = {satin_pool_new(&(satin_pool_config){.workers = 1}),
                            satin_pool_new(&(satin_pool_config){.workers = 2})};
    check_goal(pools[1]);
    check_small(pools);
    check_larger(pools);
    check_bad_params(pools[1]);
    satin_pool_destroy(&pools[0]);
    satin_pool_destroy(&pools[1]);
    return done_testing();
}
