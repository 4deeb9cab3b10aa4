/*
 * overhead.c - what the runtime costs, measured against plain C in one run.
 *
 *   (a) fib by spawn/sync on one worker vs plain recursive C fib (and vs
 *       plain C with one real call per node, the aim's baseline), with and
 *       without a spawn threshold, and the cost of one spawn in ns.  The
 *       kind runs from the module build/kinds/satin-kinds.so, loaded as
 *       satind loads it.  Once on each CPU the process may use (at most
 *       FIB_MAX_CPUS), the baselines and the worker pinned to it: a ratio
 *       compares the same CPU with itself;
 *   (b) UTS on one worker vs the plain sequential loop over the same tree
 *       (uts_count_sequential) and vs the raw SHA-1 rate (uts_sha1_rate);
 *   (c) UTS on two workers vs one.
 *
 * Every figure is a ratio of two measurements taken in this run, on this
 * machine, interleaved repetition by repetition so that a clock-speed change
 * hits both sides alike.  Speed never fails the run: the exit status is 1
 * only when a result is wrong (a fib value or a UTS count), 2 for bad usage.
 *
 *   overhead [--quick] [--cpu-time] [--csv FILE]
 */
#include "apps.h"
#include "fib.h"
#include "kinds.h"
#include "modules.h"
#include "pool.h"
#include "uts_tree.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 9
#define MAX_ROWS 64
#define FIB_THRESHOLD 20
#define FIB_MAX_CPUS 4

/* ---- small helpers --------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* (a)'s clock: wall time, or with --cpu-time the process's CPU time (on one
 * worker, the thread that runs the job: the caller only waits), which other
 * processes on a shared machine disturb far less. */
static clockid_t fib_clock = CLOCK_MONOTONIC;

static double fib_now_s(void)
{
    struct timespec ts;
    clock_gettime(fib_clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int wrong_results;

static void wrong(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void wrong(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "overhead: WRONG RESULT: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    wrong_results++;
}

/* The times of the repetitions of one measurement. */
typedef struct series {
    double t[MAX_REPS];
    int n;
} series;

static void series_add(series *s, double t)
{
    if (s->n < MAX_REPS)
        s->t[s->n++] = t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double series_best(const series *s)
{
    double best = s->n ? s->t[0] : 0.0;
    for (int i = 1; i < s->n; i++)
        if (s->t[i] < best)
            best = s->t[i];
    return best;
}

static double series_median(const series *s)
{
    if (s->n == 0)
        return 0.0;
    double t[MAX_REPS];
    memcpy(t, s->t, (size_t)s->n * sizeof t[0]);
    qsort(t, (size_t)s->n, sizeof t[0], cmp_double);
    return s->n % 2 ? t[s->n / 2] : 0.5 * (t[s->n / 2 - 1] + t[s->n / 2]);
}

/* A series whose median is this much above its best was disturbed (another
 * process, a clock change): its ratios are flagged and the summary says so. */
#define NOISY_MEDIAN 1.10
static int noisy_series;

/* " [noisy: ...]" for a disturbed series, "" otherwise. */
static const char *noise_note(const series *s)
{
    static char note[8][48];
    static int next;
    double best = series_best(s), median = series_median(s);
    if (s->n < 2 || best <= 0 || median <= NOISY_MEDIAN * best)
        return "";
    noisy_series++;
    char *n = note[next++ % 8];
    snprintf(n, sizeof note[0], " [noisy: median %.0f%% above best]",
             100 * (median / best - 1));
    return n;
}

/* Total and idle jiffies of all CPUs from /proc/stat; -1 when unreadable. */
static int cpu_jiffies(unsigned long long *total, unsigned long long *idle)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 4)
        return -1;
    *total = 0;
    for (int i = 0; i < 8; i++)
        *total += v[i];
    *idle = v[3] + v[4];   /* idle + iowait */
    return 0;
}

/* How many CPUs other processes kept busy over the next `seconds` (this
 * process sleeps meanwhile); -1 when /proc/stat is unreadable. */
static double cpus_busy(double seconds, long cpus)
{
    unsigned long long t0, i0, t1, i1;
    if (cpus < 1 || cpu_jiffies(&t0, &i0) < 0)
        return -1;
    struct timespec ts = {0, (long)(seconds * 1e9)};
    nanosleep(&ts, NULL);
    if (cpu_jiffies(&t1, &i1) < 0 || t1 <= t0)
        return -1;
    return (double)cpus * (1.0 - (double)(i1 - i0) / (double)(t1 - t0));
}

/* CSV rows, written at the end: benchmark,variant,seconds,rate,ratio. */
typedef struct csv_row {
    char bench[32], variant[32];
    double seconds, rate, ratio;   /* ratio < 0: none */
} csv_row;

static csv_row csv_rows[MAX_ROWS];
static int csv_n;

static void csv_add(const char *bench, const char *variant, double seconds, double rate,
                    double ratio)
{
    if (csv_n == MAX_ROWS)
        return;
    csv_row *r = &csv_rows[csv_n++];
    snprintf(r->bench, sizeof r->bench, "%s", bench);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    r->seconds = seconds;
    r->rate = rate;
    r->ratio = ratio;
}

/* Writes the rows to f (opened at the start, so that a bad path fails
 * before the measurements) and closes it. */
static int csv_write(FILE *f, const char *path)
{
    fprintf(f, "benchmark,variant,seconds,rate,ratio\n");
    for (int i = 0; i < csv_n; i++) {
        const csv_row *r = &csv_rows[i];
        fprintf(f, "%s,%s,%.9g,%.9g,", r->bench, r->variant, r->seconds, r->rate);
        if (r->ratio >= 0)
            fprintf(f, "%.6g", r->ratio);
        fprintf(f, "\n");
    }
    if (fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* ---- (a) fib ---------------------------------------------------------------- */

/* The baseline: plain recursive C.  Its input comes through a volatile so
 * that the compiler cannot evaluate it at compile time, and its result is
 * checked, so that it cannot be dropped. */
static int64_t plain_fib(int64_t n)
{
    return n < 2 ? n : plain_fib(n - 1) + plain_fib(n - 2);
}

static volatile int64_t plain_fib_input;

/* The same recursion with one real call per fib node, as the papers'
 * baselines had: GCC -O2 turns plain_fib into loops with several levels
 * inlined (about 0.5 ns per node), which no spawn can approach.  Calling
 * through a volatile pointer keeps every call. */
static int64_t called_fib(int64_t n);
static int64_t (*volatile called_fib_ptr)(int64_t) = called_fib;

static int64_t called_fib(int64_t n)
{
    return n < 2 ? n : called_fib_ptr(n - 1) + called_fib_ptr(n - 2);
}

/* The kinds, from the module (main: SATIN_KINDS_DIR, the build's). */
static satin_registry *kinds;

/* Spawns fib(n) makes with a sequential threshold t (every invocation at or
 * above it, and above 1, spawns two children). */
static int64_t fib_spawns(int n, int t)
{
    if (n < 2 || n < t)
        return 0;
    return 2 + fib_spawns(n - 1, t) + fib_spawns(n - 2, t);
}

/* One fib job on `pool`; returns the wall time around satin_run_record. */
static double run_fib_job(satin_pool *pool, int n, int threshold)
{
    char pn[32], pt[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(pt, sizeof pt, "threshold=%d", threshold);
    const char *const params[] = {pn, pt, NULL};
    satin_outcome o;
    double t0 = fib_now_s();
    satin_run_record(pool, kinds, "fib", params, &o);
    double t = fib_now_s() - t0;
    int64_t v = -1;
    if (o.failed)
        wrong("fib n=%d threshold=%d failed: %s", n, threshold, o.error);
    else if (satin_kvlist_i64(&o.result, "value", &v) < 0 || v != satin_fib_value(n))
        wrong("fib n=%d threshold=%d gave %" PRId64 ", expected %" PRId64, n, threshold, v,
              satin_fib_value(n));
    satin_outcome_free(&o);
    return t;
}

static double run_plain_fib(int n, int one_call_per_node)
{
    plain_fib_input = n;
    double t0 = fib_now_s();
    int64_t v = one_call_per_node ? called_fib_ptr(plain_fib_input)
                                  : plain_fib(plain_fib_input);
    double t = fib_now_s() - t0;
    if (v != satin_fib_value(n))
        wrong("plain fib(%d) gave %" PRId64 ", expected %" PRId64, n, v, satin_fib_value(n));
    return t;
}

typedef struct fib_figures {
    int n;
    int cpu;                               /* the one it ran on */
    double plain, called, satin, thresh;   /* best seconds */
    double ratio, ratio_called, ratio_thresh;
    double spawn_ns;                       /* (satin - plain) / spawns */
} fib_figures;

static void print_row(const char *variant, const series *s, const char *ratio,
                      const char *notes)
{
    printf("  %-22s %9.4f %9.4f %9s   %s%s\n", variant, series_best(s), series_median(s),
           ratio, notes, noise_note(s));
}

/* On the CPU the caller is pinned to (the pool's worker inherits it). */
static void bench_fib(int n, int cpu, int reps, fib_figures *f)
{
    satin_pool_config cfg = {.workers = 1};
    satin_pool *pool = satin_pool_new(&cfg);
    series plain = {.n = 0}, called = {.n = 0}, satin = {.n = 0}, thresh = {.n = 0};
    int64_t spawned = fib_spawns(n, 0), spawned_thresh = fib_spawns(n, FIB_THRESHOLD);

    /* Warm up: worker stack, arena block and deque touched once. */
    run_fib_job(pool, 20, 0);
    run_plain_fib(20, 0);
    run_plain_fib(20, 1);

    for (int r = 0; r < reps; r++) {
        series_add(&plain, run_plain_fib(n, 0));
        series_add(&called, run_plain_fib(n, 1));
        series_add(&satin, run_fib_job(pool, n, 0));
        series_add(&thresh, run_fib_job(pool, n, FIB_THRESHOLD));
    }
    satin_pool_destroy(&pool);

    f->n = n;
    f->cpu = cpu;
    f->plain = series_best(&plain);
    f->called = series_best(&called);
    f->satin = series_best(&satin);
    f->thresh = series_best(&thresh);
    f->ratio = f->satin / f->plain;
    f->ratio_called = f->satin / f->called;
    f->ratio_thresh = f->thresh / f->plain;
    f->spawn_ns = spawned > 0 ? 1e9 * (f->satin - f->plain) / (double)spawned : 0.0;

    double calls = (double)satin_fib_calls(n);
    char ratio[32], notes[160];
    printf("\n(a) fib(%d) = %" PRId64 " on CPU %d: spawn/sync on 1 worker vs plain recursive C "
           "(%.0f calls)%s\n", n, satin_fib_value(n), cpu, calls,
           fib_clock == CLOCK_MONOTONIC ? "" : ", process CPU time");
    printf("  %-22s %9s %9s %9s   %s\n", "variant", "best s", "median s", "ratio", "notes");
    snprintf(notes, sizeof notes, "%.2f ns per call (gcc -O2 inlines levels, loops)",
             1e9 * f->plain / calls);
    print_row("plain C", &plain, "1.00x", notes);
    snprintf(ratio, sizeof ratio, "%.2fx", f->called / f->plain);
    snprintf(notes, sizeof notes, "%.2f ns per call (one real call per node)",
             1e9 * f->called / calls);
    print_row("plain C, every call", &called, ratio, notes);
    snprintf(ratio, sizeof ratio, "%.2fx", f->ratio);
    snprintf(notes, sizeof notes, "%" PRId64 " spawns, %.1f ns per spawn over plain C; "
             "%.2fx plain C every call", spawned, f->spawn_ns, f->ratio_called);
    print_row("satin threshold=0", &satin, ratio, notes);
    snprintf(ratio, sizeof ratio, "%.2fx", f->ratio_thresh);
    snprintf(notes, sizeof notes, "%" PRId64 " spawns, plain C below n=%d", spawned_thresh,
             FIB_THRESHOLD);
    print_row("satin threshold=20", &thresh, ratio, notes);

    char bench[32];
    snprintf(bench, sizeof bench, "fib_%d_cpu%d", n, cpu);
    csv_add(bench, "plain", f->plain, calls / f->plain, 1.0);
    csv_add(bench, "plain_every_call", f->called, calls / f->called, f->called / f->plain);
    csv_add(bench, "satin_1w", f->satin, calls / f->satin, f->ratio);
    csv_add(bench, "satin_1w_threshold20", f->thresh, calls / f->thresh, f->ratio_thresh);
    /* seconds: the cost of one spawn; rate: spawns per second at that cost */
    csv_add(bench, "per_spawn", f->spawn_ns * 1e-9, f->spawn_ns > 0 ? 1e9 / f->spawn_ns : 0,
            -1);
}

/* ---- (b) and (c) UTS ---------------------------------------------------------- */

typedef struct uts_case {
    const char *name;       /* as the tree= preset / in the output */
    const char *const *params;
    uts_params p;           /* the same tree for uts_count_sequential */
    int64_t nodes;          /* published size; -1: check against the sequential loop only */
} uts_case;

typedef struct uts_figures {
    const char *name;
    double raw, seq, one, two;       /* rates: hashes/s and nodes/s */
    double one_vs_raw, one_vs_seq, seq_vs_raw, speedup;
} uts_figures;

typedef struct uts_count3 {
    int64_t nodes, leaves, depth;
} uts_count3;

static double run_uts_job(satin_pool *pool, const uts_case *c, const uts_count3 *want)
{
    satin_outcome o;
    double t0 = now_s();
    satin_run_record(pool, kinds, "uts", c->params, &o);
    double t = now_s() - t0;
    uts_count3 got = {-1, -1, -1};
    if (o.failed) {
        wrong("uts %s on %d worker(s) failed: %s", c->name, satin_pool_workers(pool),
              o.error);
    } else if (satin_kvlist_i64(&o.result, "nodes", &got.nodes) < 0 ||
               satin_kvlist_i64(&o.result, "leaves", &got.leaves) < 0 ||
               satin_kvlist_i64(&o.result, "depth", &got.depth) < 0 ||
               got.nodes != want->nodes || got.leaves != want->leaves ||
               got.depth != want->depth) {
        wrong("uts %s on %d worker(s): %" PRId64 " nodes, %" PRId64 " leaves, depth %" PRId64
              "; the sequential loop counts %" PRId64 ", %" PRId64 ", %" PRId64,
              c->name, satin_pool_workers(pool), got.nodes, got.leaves, got.depth,
              want->nodes, want->leaves, want->depth);
    }
    satin_outcome_free(&o);
    return t;
}

static double run_uts_sequential(const uts_case *c, uts_count3 *got)
{
    uint64_t n = 0, l = 0, d = 0;
    double t0 = now_s();
    int rc = uts_count_sequential(&c->p, &n, &l, &d);
    double t = now_s() - t0;
    if (rc < 0)
        wrong("uts %s: the sequential loop failed", c->name);
    got->nodes = (int64_t)n;
    got->leaves = (int64_t)l;
    got->depth = (int64_t)d;
    if (c->nodes >= 0 && got->nodes != c->nodes)
        wrong("uts %s: the sequential loop counts %" PRId64 " nodes, published %" PRId64,
              c->name, got->nodes, c->nodes);
    return t;
}

static void bench_uts(const uts_case *c, satin_pool *one, satin_pool *two, int reps,
                      double sha1_seconds, uts_figures *f)
{
    series seq = {.n = 0}, s1 = {.n = 0}, s2 = {.n = 0}, hash = {.n = 0};
    double raw = 0.0;
    uts_count3 want = {0, 0, 0};
    for (int r = 0; r < reps; r++) {
        double rate = uts_sha1_rate(sha1_seconds);
        if (rate > raw)
            raw = rate;
        if (rate > 0)
            series_add(&hash, 1.0 / rate);
        uts_count3 got;
        series_add(&seq, run_uts_sequential(c, &got));
        if (r == 0)
            want = got;
        else if (memcmp(&got, &want, sizeof got) != 0)
            wrong("uts %s: the sequential loop counted differently on repetition %d",
                  c->name, r + 1);
        series_add(&s1, run_uts_job(one, c, &want));
        series_add(&s2, run_uts_job(two, c, &want));
    }
    double nodes = (double)want.nodes;
    f->name = c->name;
    f->raw = raw;
    f->seq = nodes / series_best(&seq);
    f->one = nodes / series_best(&s1);
    f->two = nodes / series_best(&s2);
    f->seq_vs_raw = f->seq / f->raw;
    f->one_vs_raw = f->one / f->raw;
    f->one_vs_seq = f->one / f->seq;
    f->speedup = series_best(&s1) / series_best(&s2);

    printf("\n%s: %" PRId64 " nodes, %" PRId64 " leaves, depth %" PRId64 "%s\n", c->name,
           want.nodes, want.leaves, want.depth,
           c->nodes >= 0 ? " (the published size)" : "");
    printf("  %-22s %9s %9s %9s   %s\n", "variant", "best s", "median s", "M nodes/s",
           "ratios");
    printf("  %-22s %9s %9s %9.2f   1 hash per node, %.0f ns per hash%s\n",
           "raw SHA-1 rate", "-", "-", f->raw / 1e6, 1e9 / f->raw, noise_note(&hash));
    char notes[160];
    snprintf(notes, sizeof notes, "%.1f%% of raw SHA-1", 100 * f->seq_vs_raw);
    printf("  %-22s %9.4f %9.4f %9.2f   %s%s\n", "plain sequential loop",
           series_best(&seq), series_median(&seq), f->seq / 1e6, notes, noise_note(&seq));
    snprintf(notes, sizeof notes, "%.1f%% of raw SHA-1, %.1f%% of the sequential loop",
             100 * f->one_vs_raw, 100 * f->one_vs_seq);
    printf("  %-22s %9.4f %9.4f %9.2f   %s%s\n", "satin 1 worker", series_best(&s1),
           series_median(&s1), f->one / 1e6, notes, noise_note(&s1));
    snprintf(notes, sizeof notes, "speedup %.2fx over 1 worker (efficiency %.0f%%)",
             f->speedup, 100 * f->speedup / 2);
    printf("  %-22s %9.4f %9.4f %9.2f   %s%s\n", "satin 2 workers", series_best(&s2),
           series_median(&s2), f->two / 1e6, notes, noise_note(&s2));

    char bench[32];
    snprintf(bench, sizeof bench, "uts_%s", c->name);
    csv_add(bench, "sha1_raw", 1.0 / f->raw, f->raw, 1.0);
    csv_add(bench, "sequential", series_best(&seq), f->seq, f->seq_vs_raw);
    csv_add(bench, "satin_1w", series_best(&s1), f->one, f->one_vs_raw);
    csv_add(bench, "satin_2w", series_best(&s2), f->two, f->speedup);
}

/* ---- main ------------------------------------------------------------------- */

#define P(...) ((const char *const[]){__VA_ARGS__, NULL})

static void usage(FILE *out)
{
    fprintf(out,
            "usage: overhead [--quick] [--cpu-time] [--csv FILE]\n"
            "  Measures the runtime's overhead against plain C in one run and prints ratios.\n"
            "  --quick     one repetition and smaller problems (a smoke run)\n"
            "  --cpu-time  time (a) fib by the process's CPU time, not wall time\n"
            "  --csv FILE  also write the figures as CSV: benchmark,variant,seconds,rate,ratio\n"
            "Exit status: 0; 1 when a computed result is wrong (never for speed);\n"
            "2 for bad usage or an unwritable CSV file.\n");
}

int main(int argc, char **argv)
{
    int quick = 0;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--cpu-time") == 0) {
            fib_clock = CLOCK_PROCESS_CPUTIME_ID;
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    FILE *csv_file = NULL;
    if (csv && !(csv_file = fopen(csv, "w"))) {
        perror(csv);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    kinds = satin_registry_new();
    satin_err kerr = {""};
    if (satin_modules_load_dir(kinds, SATIN_KINDS_DIR, &kerr) < 0) {
        fprintf(stderr, "overhead: %s\n", kerr.msg);
        return 2;
    }

    const int reps = quick ? 1 : 5;
    const int fib_n = quick ? 30 : 35;
    const double sha1_seconds = quick ? 0.05 : 0.25;

    /* The trees, the same for the kind (by name) and for the sequential loop. */
    const uts_case full[] = {
        {"seed-T3", P("tree=seed-T3"),
         {.gen = UTS_GEN_2003, .root_children = 3200, .q = 0.124999, .m = 8,
          .granularity = 1},
         5529089},
        {"T3", P("tree=T3"),
         {.gen = UTS_GEN_STD, .type = UTS_BIN, .shape = UTS_LINEAR, .gen_mx = 6, .b0 = 2000,
          .seed = 42, .q = 0.124875, .m = 8, .shift_depth = 0.5, .granularity = 1},
         4112897},
    };
    /* --quick: seed-T2 (published) and a small binomial tree like T3 (checked
     * against the sequential loop). */
    const uts_case small[] = {
        {"seed-T2", P("tree=seed-T2"),
         {.gen = UTS_GEN_2003, .root_children = 3200, .q = 0.234375, .m = 4,
          .granularity = 1, .root_id = {[18] = 0x01, [19] = 0x01}},
         53521},
        {"T3-b200", P("gen=std", "t=0", "b=200", "q=0.124875", "m=8", "r=42"),
         {.gen = UTS_GEN_STD, .type = UTS_BIN, .shape = UTS_LINEAR, .gen_mx = 6, .b0 = 200,
          .seed = 42, .q = 0.124875, .m = 8, .shift_depth = 0.5, .granularity = 1},
         -1},
    };
    const uts_case *trees = quick ? small : full;
    enum { NTREES = 2 };

    printf("Satin overhead benchmark%s: %d repetition%s, best (and median) wall time\n",
           quick ? " (--quick)" : "", reps, reps == 1 ? "" : "s");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double others = cpus_busy(0.25, cpus);
    int busy = others > 0.25;
    if (others >= 0)
        printf("%ld CPUs online, %.2f busy with other work just before the start%s\n", cpus,
               others, busy ? ": they compete with the benchmark, figures will be disturbed"
                            : "");

    /* (a) once per CPU: the CPUs of a virtual machine may differ by half
     * (a busy sibling thread on the host), and plain C measured on one with
     * the worker on the other compares nothing. */
    cpu_set_t allowed;
    fib_figures fib[FIB_MAX_CPUS];
    int nfib = 0;
    if (pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE && nfib < FIB_MAX_CPUS; cpu++) {
            if (!CPU_ISSET(cpu, &allowed))
                continue;
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0)
                continue;
            bench_fib(fib_n, cpu, reps, &fib[nfib++]);
        }
        pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
    }
    if (nfib == 0) {
        printf("\n(could not pin to a CPU: (a) runs wherever the scheduler puts it)\n");
        bench_fib(fib_n, -1, reps, &fib[nfib++]);
    }

    printf("\n(b) UTS on 1 worker vs the plain sequential loop and the raw SHA-1 rate;"
           "\n(c) UTS on 2 workers vs 1\n");
    satin_pool_config c1 = {.workers = 1}, c2 = {.workers = 2};
    satin_pool *one = satin_pool_new(&c1), *two = satin_pool_new(&c2);
    uts_figures uts[NTREES];
    for (int i = 0; i < NTREES; i++)
        bench_uts(&trees[i], one, two, reps, sha1_seconds, &uts[i]);
    satin_pool_destroy(&one);
    satin_pool_destroy(&two);

    printf("\nSummary (ratios of measurements in this run; informational, never pass/fail)\n");
    printf("  %-44s %9s   %s\n", "figure", "measured", "reference");
    char label[96], val[32];
    for (int i = 0; i < nfib; i++) {
        const fib_figures *f = &fib[i];
        snprintf(label, sizeof label, "(a) fib(%d) on CPU %d, 1 worker / plain C", f->n, f->cpu);
        snprintf(val, sizeof val, "%.2fx", f->ratio);
        printf("  %-44s %9s\n", label, val);
        snprintf(label, sizeof label, "    1 worker / plain C with every call");
        snprintf(val, sizeof val, "%.2fx", f->ratio_called);
        printf("  %-44s %9s   %s\n", label, val, "Satin paper 7.25x, Cilk 3.6x; aim <= 1.5x");
        snprintf(label, sizeof label, "    1 worker, threshold=%d / plain C", FIB_THRESHOLD);
        snprintf(val, sizeof val, "%.2fx", f->ratio_thresh);
        printf("  %-44s %9s\n", label, val);
        snprintf(val, sizeof val, "%.1f ns", f->spawn_ns);
        printf("  %-44s %9s\n", "    cost per spawn", val);
    }
    for (int i = 0; i < NTREES; i++) {
        snprintf(label, sizeof label, "(b) UTS %s, 1 worker / raw SHA-1 rate", uts[i].name);
        snprintf(val, sizeof val, "%.1f%%", 100 * uts[i].one_vs_raw);
        printf("  %-44s %9s   %s\n", label, val, "aim >= 90%");
        snprintf(label, sizeof label, "    1 worker / plain sequential loop");
        snprintf(val, sizeof val, "%.1f%%", 100 * uts[i].one_vs_seq);
        printf("  %-44s %9s\n", label, val);
    }
    for (int i = 0; i < NTREES; i++) {
        snprintf(label, sizeof label, "(c) UTS %s, speedup 2 workers vs 1", uts[i].name);
        snprintf(val, sizeof val, "%.2fx", uts[i].speedup);
        printf("  %-44s %9s   %s\n", label, val, "ideal 2.00x on 2 cores");
    }

    if (noisy_series || busy)
        printf("\nNote: %d measurement%s disturbed (median > %.0f%% above best)%s; rerun on an "
               "idle machine for figures to quote.\n", noisy_series,
               noisy_series == 1 ? " was" : "s were", 100 * (NOISY_MEDIAN - 1),
               busy ? " and other work kept the CPUs busy at the start" : "");

    int rc = 0;
    if (csv_file && csv_write(csv_file, csv) < 0)
        rc = 2;
    if (wrong_results) {
        fprintf(stderr, "overhead: %d wrong result(s)\n", wrong_results);
        rc = 1;
    }
    return rc;
}
