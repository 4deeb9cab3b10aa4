/*
 * langford.c - a kind of your own: the Langford pairings of n.
 *
 * A Langford pairing of n places two 1s, two 2s, ..., two ns in a row of 2n
 * slots so that the two ks have k numbers between them (for n = 3: 2 3 1 2
 * 1 3).  The kind counts them: L(2,3) = 1, L(2,7) = 26, L(2,8) = 150,
 * L(2,11) = 17792, L(2,12) = 108144 (OEIS A014552).  It places the largest
 * numbers first; each way to place one is a child spawned with the slots
 * still free, and below `depth` spawned levels a plain C loop counts the rest.
 *
 * Build:  cc -O2 $(pkg-config --cflags satin-kind) -shared -o langford.so langford.c
 * (the Makefile beside it does that), then put langford.so in the kinds
 * directory of every node (README.md).
 */
#include <satin/satin.h>

#include <stdint.h>

/* A task's argument: a struct of plain data, sent as its bytes when the
 * task is stolen by another node, and passed in registers when it runs in
 * place. */
typedef struct lf_args {
    uint64_t used;     /* bit i: slot i is taken */
    int32_t k;         /* the next number to place; the ones above are placed */
    int32_t n;
    int32_t stop;      /* at k <= stop, count sequentially */
    int32_t pad;
} lf_args;

/* Every task has a check: a record that another node sent runs only once
 * its check accepted it, so that no argument can make the kind crash, loop
 * or allocate without bound. */
static int lf_check(const lf_args *a, satin_err *err)
{
    if (a->n < 1 || a->n > 31 || a->k < 0 || a->k > a->n || a->stop < 0 || a->pad != 0)
        return satin_err_set(err, "langford: n %d, k %d, stop %d out of range", (int)a->n,
                             (int)a->k, (int)a->stop);
    if (a->used >> (2 * a->n))
        return satin_err_set(err, "langford: slots taken beyond 2n");
    return 0;
}

/* The task: declared once (result type, name, argument type, check) ... */
SATIN_TASK(int64_t, langford, lf_args, lf_check);

/* Plain C below the spawned levels: the pairings that fill the free slots
 * with k, k-1, ..., 1. */
static int64_t count_rest(uint64_t used, int k, int n)
{
    if (k == 0)
        return 1;
    int64_t count = 0;
    for (int i = 0; i + k + 1 < 2 * n; i++) {
        uint64_t pair = (UINT64_C(1) << i) | (UINT64_C(1) << (i + k + 1));
        if (!(used & pair))
            count += count_rest(used | pair, k - 1, n);
    }
    return count;
}

/* ... and defined like a C function, with SATIN_FRAME first.  A spawned
 * child's result is defined after the next satin_sync(). */
static int64_t langford(SATIN_FRAME, lf_args a)
{
    if (a.k <= a.stop)
        return count_rest(a.used, a.k, a.n);
    int64_t found[64];
    int children = 0;
    for (int i = 0; i + a.k + 1 < 2 * a.n; i++) {
        uint64_t pair = (UINT64_C(1) << i) | (UINT64_C(1) << (i + a.k + 1));
        if (!(a.used & pair))
            satin_spawn(langford, &found[children++],
                        (lf_args){a.used | pair, a.k - 1, a.n, a.stop, 0});
    }
    satin_sync();
    int64_t count = 0;
    for (int c = 0; c < children; c++)
        count += found[c];
    return count;
}

/* The kind: what a client submits (satin-submit langford n=12). */
static const satin_param_def lf_params[] = {
    {"n", NULL, 1, "the pairs to place, 1..24"},
    {"depth", "4", 0, "levels of spawns (the largest numbers); below them, plain C"},
    {NULL, NULL, 0, NULL},
};

static int lf_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, depth;
    if (satin_param_i64(p, "n", 1, 24, &n, err) < 0 ||
        satin_param_i64(p, "depth", 0, 24, &depth, err) < 0)
        return -1;
    lf_args a = {0, (int32_t)n, (int32_t)n, (int32_t)(depth < n ? n - depth : 0), 0};
    return satin_bytes_put(arg, &a, sizeof a, err);
}

/* Every pairing is counted with its mirror image: L(2,n) is half. */
static void lf_format(const void *res, size_t len, double wall_s, satin_result *result,
                      satin_result *stats)
{
    int64_t both = 0;
    if (len == sizeof both)
        memcpy(&both, res, sizeof both);
    satin_result_i64(result, "pairings", both / 2);
    if (wall_s > 0)
        satin_result_f64(stats, "pairings_per_s", (double)both / 2 / wall_s);
}

SATIN_KIND(langford, .summary = "Langford pairings of n (L(2,n), OEIS A014552)",
           .params = lf_params, .parse = lf_parse, .root = SATIN_TASK_OF(langford),
           .format = lf_format);

/* Once per module: its name and version, which nodes compare. */
SATIN_MODULE("langford", "1.0");
