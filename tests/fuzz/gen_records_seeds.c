/*
 * gen_records_seeds.c - writes the seed corpus of fuzz_records: for every
 * task of the built-in kinds, argument bytes its check must accept and near
 * misses it must refuse (or run within its bounds).
 *
 *   - roots: what each kind's parse makes (satin_record_prepare, the path a
 *     SUBMIT takes), from its default parameters (a small value for those
 *     it requires) and from parameters at parse's bounds, which run for
 *     long and so test that a cancelled record stops;
 *   - records a job spawns: a job runs on a 1-worker pool that queues its
 *     every spawn (satin_pool_set_wanted), and the first records at the
 *     tails of its deque are taken as a push takes them, as another node
 *     would get them; which records those are depends on the timing, so a
 *     new run may write other (equally valid) ones;
 *   - from one valid argument per task: empty, one byte short, one byte
 *     long, and, for each 8-byte field of its first 64 bytes, the field
 *     2^62 (a huge int64 count or depth) and its two halves INT32_MAX;
 *     and fib n=10^8 threshold=2^62, the PUSH that once crashed satind by
 *     unbounded recursion.
 *
 * The files are committed; this program is kept (and built by make check)
 * so that they can be remade when a kind's argument changes:
 *
 *   make build/tests/fuzz/gen_records_seeds
 *   build/tests/fuzz/gen_records_seeds tests/fuzz/corpus/records
 *
 * File layout: see fuzz_records.c (the task's number and the slot bit, a
 * "#task\n" label, the argument bytes).
 */
#include "apps.h"
#include "kinds.h"
#include "pool.h"
#include "records_tasks.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P(...) ((const char *const[]){__VA_ARGS__, NULL})
/* Records taken from one job, and the largest argument worth a seed file. */
#define TAKE_MAX 2
#define TAKE_TRIES 100
#define SEED_MAX_BYTES 4096

static const char *outdir;
static int failed;
static satin_registry *reg;
static const satin_task **tasks;
static size_t ntasks;
static satin_pool *pool;

/* One valid argument per task, for the near misses. */
static struct {
    unsigned char *arg;
    size_t len;
} valid[128];

static size_t task_index(const satin_task *t)
{
    for (size_t i = 0; i < ntasks; i++)
        if (tasks[i] == t)
            return i;
    fprintf(stderr, "gen_records_seeds: task %s is not registered\n", t->name);
    exit(1);
}

static void write_seed(const char *name, const satin_task *t, const void *arg, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        failed = 1;
        return;
    }
    fputc((int)task_index(t), f);
    fprintf(f, "#%s\n", t->name);
    if (len)
        fwrite(arg, 1, len, f);
    if (fclose(f) != 0) {
        perror(path);
        failed = 1;
    }
}

/* A valid argument of t: written, and kept for the near misses when it is
 * the task's first. */
static void valid_seed(const char *name, const satin_task *t, const void *arg, size_t len)
{
    satin_err err = {""};
    if (t->check(arg, len, &err) < 0) {
        fprintf(stderr, "gen_records_seeds: %s: its check refuses it: %s\n", name, err.msg);
        failed = 1;
        return;
    }
    if (len > SEED_MAX_BYTES)
        return;
    write_seed(name, t, arg, len);
    size_t i = task_index(t);
    if (!valid[i].arg) {
        valid[i].arg = malloc(len ? len : 1);
        if (!valid[i].arg)
            abort();
        memcpy(valid[i].arg, arg, len);
        valid[i].len = len;
    }
}

/* ---- roots, as parse makes them ------------------------------------------ */

typedef struct root_seed {
    const char *name;
    const char *kind;
    const char *const *params;
    int take;   /* 1: also the first records its job queues */
} root_seed;

static const root_seed roots[] = {
    /* defaults (a small value where a parameter is required) */
    {"fib-default", "fib", P("n=20"), 0},
    {"uts-default", "uts", P("tree=T1"), 0},
    {"nqueens-default", "nqueens", P("n=8"), 0},
    {"integrate-default", "integrate", P("f=sin", "a=0", "b=1"), 0},
    {"ida-default", "ida", P("moves=20"), 0},
    {"matmul-default", "matmul", P("n=64"), 0},
    {"raytracer-default", "raytracer", P("width=32", "height=24"), 0},
    {"synthetic-default", "synthetic", P("depth=2", "fanout=4"), 0},
    {"setcover-default", "setcover", P("n=20", "m=20"), 0},
    {"knapsack-default", "knapsack", P("n=20"), 0},
    {"nchoosek-default", "nchoosek", P("n=16", "k=8"), 0},
    {"primefactors-default", "primefactors", P("hi=1000"), 0},
    {"tsp-default", "tsp", P("n=8"), 0},
    {"array-default", "array", P("n=1000"), 0},
    /* at parse's bounds: most run far past the budget and are cancelled */
    {"fib-max", "fib", P("n=92", "threshold=92"), 0},
    {"fib-max-spawning", "fib", P("n=92", "threshold=0"), 0},
    {"uts-std-max", "uts", P("gen=std", "t=3", "a=3", "d=2147483647", "m=2147483647",
                             "g=1000000", "b=1000000000", "f=1000", "r=4294967295",
                             "q=0.999999", "chunk=1"), 0},
    {"uts-2003-max", "uts", P("gen=2003", "children=2147483647", "m=256", "q=0.0039",
                              "root=ffffffffffffffffffffffffffffffffffffffff"), 0},
    {"nqueens-max", "nqueens", P("n=20", "threshold=20"), 0},
    {"integrate-max", "integrate", P("f=exp", "a=-1000000", "b=600", "eps=1e-300",
                                     "max_depth=60"), 0},
    {"ida-max", "ida", P("moves=1000", "seed=9223372036854775807", "max_moves=80",
                         "split=40"), 0},
    {"matmul-max", "matmul", P("n=16384", "leaf=128", "seed=9223372036854775807"), 0},
    {"raytracer-max", "raytracer", P("width=16384", "height=16384", "depth=16",
                                     "tile=268435456"), 0},
    {"synthetic-max", "synthetic", P("depth=26", "fanout=2", "mean_us=1000000000",
                                     "seed=9223372036854775807"), 0},
    {"setcover-max", "setcover", P("n=256", "m=256", "density=100", "threshold=256",
                                   "probe=4294967296"), 0},
    {"knapsack-max", "knapsack", P("n=1000", "capacity=1099511627776", "type=strong",
                                   "threshold=1000", "probe=4294967296"), 0},
    {"nchoosek-max", "nchoosek", P("n=66", "k=33", "threshold=1001"), 0},
    {"primefactors-max", "primefactors", P("lo=1099507433473", "hi=1099511627776",
                                           "threshold=4194304"), 0},
    {"tsp-max", "tsp", P("n=20", "threshold=20", "probe=4294967296",
                         "seed=9223372036854775807"), 0},
    {"array-max", "array", P("n=68719476736", "leaf=131072", "carry=131072", "work=1000000",
                             "seed=9223372036854775807"), 0},
    /* jobs whose records are taken: each kind's spawns, and data that travel */
    {"fib-spawned", "fib", P("n=30", "threshold=10"), 1},
    {"uts-std-spawned", "uts", P("gen=std", "t=1", "a=3", "d=8", "b=4", "chunk=4"), 1},
    {"uts-2003-spawned", "uts", P("tree=seed-T2", "chunk=2"), 1},
    {"nqueens-spawned", "nqueens", P("n=12", "threshold=4"), 1},
    {"integrate-spawned", "integrate", P("f=sin", "a=0", "b=2000", "eps=1e-11"), 1},
    {"ida-spawned", "ida", P("moves=60", "seed=7", "split=10"), 1},
    {"matmul-spawned", "matmul", P("n=256", "leaf=32"), 1},
    {"matmul-carry-spawned", "matmul", P("n=128", "leaf=4", "carry=128"), 1},
    {"matmul-data-spawned", "matmul", P("n=16", "leaf=1", "carry=512"), 1},
    {"raytracer-spawned", "raytracer", P("width=320", "height=240", "tile=256"), 1},
    {"raytracer-carry-spawned", "raytracer", P("width=320", "height=240", "tile=16",
                                               "carry=256"), 1},
    {"synthetic-spawned", "synthetic", P("depth=3", "fanout=4", "mean_us=200"), 1},
    {"setcover-spawned", "setcover", P("n=80", "m=80", "density=6", "threshold=10",
                                       "probe=0"), 1},
    {"knapsack-spawned", "knapsack", P("n=40", "type=strong", "threshold=30", "probe=0"), 1},
    {"nchoosek-spawned", "nchoosek", P("n=26", "k=13", "threshold=16"), 1},
    {"primefactors-spawned", "primefactors", P("lo=2", "hi=200000", "threshold=2000"), 1},
    {"tsp-spawned", "tsp", P("n=13", "threshold=5", "probe=0"), 1},
    {"array-spawned", "array", P("n=20000000", "leaf=64", "carry=128", "work=4"), 1},
    {"array-data-spawned", "array", P("n=128", "leaf=16", "carry=128", "work=100000"), 1},
};

/* Runs the job with every spawn queued and takes the first records at its
 * deque's tail; each goes back failed, which stops the job.  The number of
 * records taken (0 when the job ended first). */
static int take_once(const root_seed *s, const satin_kind *kind, const satin_bytes *arg)
{
    satin_job *job = satin_job_new(kind, arg->data, arg->len);
    satin_pool_set_wanted(pool, 1);
    satin_pool_start(pool, job, NULL, NULL);
    int got = 0;
    while (got < TAKE_MAX && satin_pool_active_jobs(pool) > 0) {
        satin_record *r[TAKE_MAX];
        int n = satin_pool_take_for_push(pool, r, TAKE_MAX - got);
        for (int i = 0; i < n; i++) {
            size_t len;
            const void *a = satin_record_arg(r[i], &len);
            char name[128];
            snprintf(name, sizeof name, "%s-%d", s->name, ++got);
            valid_seed(name, satin_record_task(r[i]), a, len);
            satin_record_complete(r[i], 0, NULL, 0, "taken for a seed");
        }
        if (n == 0)
            sched_yield();
    }
    satin_job_cancel(job, "seeds taken");
    satin_job_wait(job);
    satin_job_destroy(&job);
    satin_pool_set_wanted(pool, 0);
    return got;
}

/* A small job may end before this thread looks: it runs again. */
static void take_records(const root_seed *s, const satin_kind *kind, const satin_bytes *arg)
{
    for (int tries = 0; tries < TAKE_TRIES; tries++)
        if (take_once(s, kind, arg) > 0)
            return;
    fprintf(stderr, "gen_records_seeds: %s: %d runs of its job ended before a record was taken\n",
            s->name, TAKE_TRIES);
    failed = 1;
}

static void root_seeds(void)
{
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        const root_seed *s = &roots[i];
        const satin_kind *kind;
        satin_bytes arg;
        satin_outcome o;
        if (satin_record_prepare(reg, s->kind, s->params, SATIN_MAX_RECORD_DEFAULT, &kind, &arg,
                                 &o) < 0) {
            fprintf(stderr, "gen_records_seeds: %s: %s\n", s->name, o.error);
            failed = 1;
            satin_outcome_free(&o);
            continue;
        }
        satin_outcome_free(&o);
        valid_seed(s->name, kind->root, arg.data, arg.len);
        if (s->take)
            take_records(s, kind, &arg);
        satin_bytes_free(&arg);
    }
}

/* replay's parse reads its trace file, which no seed can name (a path of
 * the machine that made it): the argument is written as parse would for a
 * file that is not there, which its run must refuse. */
static void replay_seeds(void)
{
    unsigned char a[256];
    size_t len = satin_replay_arg_write("trace/fib-20.satin-trace", UINT64_C(0x9e3779b97f4a7c15),
                                        1.0, 0, a, sizeof a);
    const satin_task *t = satin_registry_task(reg, "replay");
    if (!t || !len) {
        fprintf(stderr, "gen_records_seeds: no replay argument\n");
        failed = 1;
        return;
    }
    valid_seed("replay-missing-file", t, a, len);
    len = satin_replay_arg_write("trace/fib-20.satin-trace", 1, 1e6, 4194303, a, sizeof a);
    valid_seed("replay-node-past-tree", t, a, len);
}

/* ---- near misses ----------------------------------------------------------- */

static void put_u64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

static void near_misses(void)
{
    for (size_t i = 0; i < ntasks; i++) {
        const satin_task *t = tasks[i];
        const unsigned char *a = valid[i].arg;
        size_t len = valid[i].len;
        char name[128];
        if (!a) {
            fprintf(stderr, "gen_records_seeds: no valid argument of task %s\n", t->name);
            failed = 1;
            continue;
        }
        snprintf(name, sizeof name, "%s-empty", t->name);
        write_seed(name, t, a, 0);
        if (len) {
            snprintf(name, sizeof name, "%s-short", t->name);
            write_seed(name, t, a, len - 1);
        }
        unsigned char *b = calloc(1, len + 1);
        if (!b)
            abort();
        memcpy(b, a, len);
        snprintf(name, sizeof name, "%s-long", t->name);
        write_seed(name, t, b, len + 1);
        for (size_t at = 0; at + 8 <= len && at < 64; at += 8) {
            memcpy(b, a, len);
            put_u64(b + at, UINT64_C(1) << 62);
            snprintf(name, sizeof name, "%s-huge64-at%zu", t->name, at);
            write_seed(name, t, b, len);
            memcpy(b, a, len);
            int32_t m = INT32_MAX;
            memcpy(b + at, &m, sizeof m);
            memcpy(b + at + 4, &m, sizeof m);
            snprintf(name, sizeof name, "%s-huge32-at%zu", t->name, at);
            write_seed(name, t, b, len);
        }
        free(b);
    }
    /* The PUSH of the issue: fib's sequential recursion was unbounded. */
    unsigned char f[16];
    size_t flen = satin_fib_arg_write(100000000, INT64_C(1) << 62, f, sizeof f);
    write_seed("fib-n1e8-threshold2e62", satin_registry_task(reg, "fib"), f, flen);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    reg = satin_registry_linked(satin_module_entry());
    tasks = records_tasks(reg, &ntasks);
    if (ntasks > sizeof valid / sizeof valid[0]) {
        fprintf(stderr, "gen_records_seeds: %zu tasks, room for %zu\n", ntasks,
                sizeof valid / sizeof valid[0]);
        return 1;
    }
    satin_pool_config cfg = {.workers = 1};
    pool = satin_pool_new(&cfg);
    root_seeds();
    replay_seeds();
    near_misses();
    satin_pool_destroy(&pool);
    for (size_t i = 0; i < ntasks; i++)
        free(valid[i].arg);
    free(tasks);
    satin_registry_destroy(&reg);
    return failed;
}
