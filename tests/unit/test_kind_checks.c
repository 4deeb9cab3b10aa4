/*
 * test_kind_checks.c - every built-in kind's argument checks (satin_task.check
 * of its tasks), which satind calls on each record another node sends
 * before it runs it.
 *
 *   - every task has one, and every kind named here is built in;
 *   - it accepts what the kind's own parse makes (at the bounds of its
 *     parameters too) and every record the kind's jobs would send: a job
 *     runs on a "home" pool whose deque tails are taken as a push takes
 *     them, each taken record is checked and then run on an "away" pool
 *     (another node's stand-in), and its result goes back; the job's result
 *     is the one a plain run gives, exactly;
 *   - it refuses a wrong length, each field just past its bound, negative
 *     and huge values and inconsistent fields, with a message that names
 *     the kind and what is wrong; and whatever it is given, its verdict is
 *     0 or -1 with a message;
 *   - replay's run (whose tree is in a file the check does not read) fails
 *     at once on a scale whose waits would overflow its sums.
 */
#include "apps.h"
#include "kinds.h"
#include "pool.h"
#include "replay_tree.h"
#include "../tap.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_MOVED 200

static char replay_dir[512], replay_tree_param[640], replay_big_param[640];

/* The kinds linked into this test (the built-in module). */
static satin_registry *reg;

/* NULL, diagnosed, for a kind that is not built in. */
static const satin_kind *kind_named(const char *name)
{
    const satin_kind *k = satin_registry_kind(reg, name);
    if (!k)
        diag("no built-in kind %s", name);
    return k;
}

/* The root's argument bytes parse makes for `params`; -1 (diagnosed) if refused. */
static int root_arg(const char *kind, const char *const *params, satin_bytes *arg)
{
    const satin_kind *k;
    satin_outcome o;
    int rc = satin_record_prepare(reg, kind, params, SATIN_MAX_RECORD_DEFAULT, &k, arg, &o);
    if (rc < 0)
        diag("%s: parse refused the parameters: %s", kind, o.error);
    satin_outcome_free(&o);
    return rc;
}

static int names(const char *msg, const char *name)
{
    size_t nl = strlen(name);
    return strncmp(msg, name, nl) == 0 && msg[nl] == ':' && strlen(msg) > nl + 2;
}

/* The verdict of a task of `kind` is 0 with no message, or -1 with one that
 * names the kind (or the task: a typed task's length test names it). */
static int verdict(const satin_kind *kind, const satin_task *task, const void *arg, size_t len,
                   satin_err *err, int *clean)
{
    memset(err, 0, sizeof *err);
    int rc = task->check(arg, len, err);
    *clean = rc == 0 || (rc == -1 && memchr(err->msg, '\0', sizeof err->msg) &&
                         (names(err->msg, kind->name) || names(err->msg, task->name)));
    return rc;
}

/* The check of a kind's root. */
static int root_verdict(const satin_kind *kind, const void *arg, size_t len, satin_err *err,
                        int *clean)
{
    return verdict(kind, kind->root, arg, len, err, clean);
}

/* ---- every task has a check, and parse's bounds pass it ------------------- */

static void every_task_has_a_check(void)
{
    size_t n = satin_registry_ntasks(reg), with = 0;
    for (size_t i = 0; i < n; i++) {
        const satin_task *t = satin_registry_task_at(reg, i);
        if (t->check)
            with++;
        else
            diag("task %s has no check", t->name);
    }
    ok(n > 0 && with == n, "all %zu tasks of the built-in kinds have an argument check (%zu)", n,
       with);
}

typedef struct accepted {
    const char *kind;
    const char *const *params;
} accepted;

#define P(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Roots at the edges of what parse allows (checked only: some would run for
 * years). */
static const accepted parse_bounds[] = {
    {"fib", P("n=0")},
    {"fib", P("n=92", "threshold=92")},
    {"fib", P("n=92", "threshold=0")},
    {"uts", P("tree=T3L")},
    {"uts", P("tree=seed-T3", "chunk=128")},
    {"uts", P("gen=2003", "children=2147483647", "m=256", "q=0.0039", "root=ffffffffffffffffffffffffffffffffffffffff")},
    {"uts", P("gen=std", "t=3", "a=3", "d=2147483647", "m=2147483647", "g=1000000", "b=1000000000", "f=1000", "r=4294967295", "q=0.999999", "chunk=1")},
    {"uts", P("gen=std", "t=0", "b=0")},
    {"nqueens", P("n=1", "threshold=0")},
    {"nqueens", P("n=20", "threshold=20")},
    {"integrate", P("f=exp", "a=-1000000", "b=600", "eps=1e-300", "max_depth=60")},
    {"integrate", P("f=sqrt", "a=1000000", "b=0", "eps=1e308", "max_depth=0")},
    {"ida", P("moves=1000", "seed=9223372036854775807", "max_moves=80", "split=40")},
    {"ida", P("board=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", "max_moves=0", "split=0")},
    {"matmul", P("n=16384", "leaf=128", "seed=9223372036854775807")},
    {"matmul", P("n=1", "leaf=1", "seed=0")},
    {"matmul", P("n=1024", "carry=131072")},
    {"raytracer", P("width=16384", "height=16384", "depth=16", "tile=268435456")},
    {"raytracer", P("width=1", "height=1", "depth=0", "tile=1", "carry=268435456")},
    {"synthetic", P("depth=26", "fanout=2", "mean_us=1000000000", "seed=9223372036854775807")},
    {"synthetic", P("depth=0", "fanout=256", "dist=gamma", "shape=0.001", "mean_us=0")},
    {"synthetic", P("depth=3", "fanout=256", "dist=gamma", "shape=1000000")},
    {"setcover", P("n=256", "m=256", "density=100", "threshold=256", "probe=4294967296")},
    {"setcover", P("n=1", "m=1", "threshold=0", "probe=0")},
    {"knapsack", P("n=1000", "capacity=1099511627776", "type=strong", "threshold=1000", "probe=4294967296")},
    {"knapsack", P("n=1", "capacity=0", "type=weak", "threshold=0", "probe=0")},
    {"nchoosek", P("n=66", "k=33", "threshold=1001")},
    {"nchoosek", P("n=1000", "k=1000")},
    {"nchoosek", P("n=1000", "k=6")},
    {"nchoosek", P("n=0", "k=0", "threshold=0")},
    {"primefactors", P("lo=1099507433473", "hi=1099511627776", "threshold=4194304")},
    {"primefactors", P("lo=1", "hi=1", "threshold=1")},
    {"tsp", P("n=20", "threshold=20", "probe=4294967296", "seed=9223372036854775807")},
    {"tsp", P("n=1", "threshold=0", "probe=0")},
    {"array", P("n=68719476736", "leaf=131072", "carry=131072", "work=1000000", "seed=9223372036854775807")},
    {"array", P("n=1", "leaf=1", "carry=1", "work=0", "seed=0")},
    {"replay", P(replay_tree_param, "scale=0.000001")},
    {"replay", P(replay_tree_param, "scale=1000000")},
};

static void parse_bounds_pass(void)
{
    for (size_t i = 0; i < sizeof parse_bounds / sizeof parse_bounds[0]; i++) {
        const accepted *a = &parse_bounds[i];
        satin_bytes arg;
        if (root_arg(a->kind, a->params, &arg) < 0) {
            ok(0, "%s %s...: parse accepts it", a->kind, a->params[0]);
            continue;
        }
        satin_err err;
        int clean;
        int rc = root_verdict(kind_named(a->kind), arg.data, arg.len, &err, &clean);
        if (!ok(rc == 0, "%s %s %s: its root (%zu bytes) passes the check", a->kind,
                a->params[0], a->params[1] ? a->params[1] : "", arg.len))
            diag("refused: %s", err.msg);
        satin_bytes_free(&arg);
    }
}

/* ---- every record a job would send passes, and moving them all keeps the
 * result exact ---------------------------------------------------------- */

/* Which records wait at the tails of a deque depends on when one looks, and
 * a thread that looks from outside may get no CPU while a job of a few
 * milliseconds runs.  So the home worker is stopped at points of the wall
 * clock instead: a timer signals that very thread FREEZE_NS after it is
 * armed, and while `hold` is set the handler waits (atomics and nanosleep:
 * async-signal-safe) until this thread has taken what the tails hold and
 * released that stop.  The worker may be stopped holding any lock (malloc's,
 * say): so while `hold` is set this thread does only lock-free things (the
 * take, reading flags, the timer), and before anything else it clears
 * `hold`, with which the handler never waits. */
#define FREEZE_NS 200000L

static atomic_int hold;
static atomic_uint stopped, released;
static pid_t home_tid;
static timer_t freeze_timer;

static void freeze_handler(int sig)
{
    (void)sig;
    int saved = errno;
    if (atomic_load(&hold)) {
        unsigned k = atomic_fetch_add(&stopped, 1) + 1;
        struct timespec ts = {0, 50000};
        while (atomic_load(&hold) && atomic_load(&released) < k)
            nanosleep(&ts, NULL);
    }
    errno = saved;
}

static int any_i64(const int64_t *a, satin_err *err)
{
    (void)a;
    (void)err;
    return 0;
}

SATIN_TASK(int64_t, whoami, int64_t, any_i64);

static int64_t whoami(SATIN_FRAME, int64_t a)
{
    (void)a;
    home_tid = (pid_t)syscall(SYS_gettid);
    return 0;
}

/* The timer that stops home's one worker thread. */
static int freeze_setup(satin_pool *home)
{
    int64_t zero = 0;
    satin_job *job = satin_job_new_task(SATIN_TASK_OF(whoami), &zero, sizeof zero, sizeof zero);
    satin_pool_run(home, job);
    satin_job_destroy(&job);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = freeze_handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGUSR1;
    sev._sigev_un._tid = home_tid;   /* sigev_notify_thread_id, which glibc 2.36 does not name */
    return sigaction(SIGUSR1, &sa, NULL) == 0 &&
                   timer_create(CLOCK_MONOTONIC, &sev, &freeze_timer) == 0
               ? 0
               : -1;
}

static void freeze_arm(long ns)
{
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_nsec = ns;
    timer_settime(freeze_timer, 0, &its, NULL);
}

typedef struct moved {
    satin_record *rec;
    satin_job *job;
    atomic_int done;
} moved;

static void set_done(satin_job *job, void *arg)
{
    (void)job;
    atomic_store((atomic_int *)arg, 1);
}

typedef struct run_out {
    int failed;
    char error[256];
    unsigned char result[512];
    size_t len;
    int moved, refused, stops;
    char refusal[256];
    double wall_s;
} run_out;

/* Checks a record taken from home: refused, its error goes back at once;
 * passed, it runs on `away` (another node's stand-in for it). */
static void move(satin_pool *away, satin_record *r, moved *m, run_out *o)
{
    size_t alen;
    const void *a = satin_record_arg(r, &alen);
    const satin_task *t = satin_record_task(r);
    satin_err err;
    int clean;
    m->rec = r;
    m->job = NULL;
    if (verdict(satin_job_kind(satin_record_job(r)), t, a, alen, &err, &clean) < 0) {
        if (!o->refused++)
            snprintf(o->refusal, sizeof o->refusal, "%s", err.msg);
        satin_record_complete(r, 0, NULL, 0, err.msg);
        return;
    }
    atomic_store(&m->done, 0);
    m->job = satin_job_new_task(t, a, alen, satin_record_result_cap(r));
    satin_pool_start(away, m->job, set_done, &m->done);
}

/* What the control thread has to do: records moved to `away` and not yet
 * back, and the stops of the home worker it served. */
typedef struct mover {
    moved mv[MAX_MOVED];
    int nmv, open;
    unsigned served;
    atomic_int root_done;
} mover;

static int some_done(const mover *m)
{
    for (int i = 0; i < m->nmv; i++)
        if (m->mv[i].job && atomic_load(&m->mv[i].done))
            return 1;
    return 0;
}

/* For poll_until: a stop to serve, a stand-in that finished, or the end. */
static int something_to_do(void *arg)
{
    mover *m = arg;
    return atomic_load(&stopped) != m->served || some_done(m) ||
           (atomic_load(&m->root_done) && m->open == 0);
}

static void arm_stop(mover *m)
{
    /* Stops begun while hold was clear did not wait: skip them. */
    m->served = atomic_load(&stopped);
    atomic_store(&released, m->served);
    atomic_store(&hold, 1);
    freeze_arm(FREEZE_NS);
}

/* A stop of the home worker: takes what home's tails hold.  With nothing to
 * do that takes a lock, the next stop is set before this one ends, so that
 * the worker cannot run far while this thread waits for a CPU; else hold is
 * cleared first. */
static void serve_stop(mover *m, satin_pool *home, satin_pool *away, run_out *o)
{
    satin_record *r[8];
    int want = MAX_MOVED - m->nmv < 8 ? MAX_MOVED - m->nmv : 8;
    int n = satin_pool_take_for_push(home, r, want);
    m->served++;
    o->stops++;
    if (n == 0 && !some_done(m) && m->nmv < MAX_MOVED) {
        freeze_arm(FREEZE_NS);
        atomic_store(&released, m->served);
        return;
    }
    atomic_store(&hold, 0);
    atomic_store(&released, m->served);
    for (int i = 0; i < n; i++) {
        move(away, r[i], &m->mv[m->nmv], o);
        m->open += m->mv[m->nmv++].job != NULL;
    }
}

/* The stand-ins that finished hand their results back. */
static void results_back(mover *m)
{
    atomic_store(&hold, 0);
    for (int i = 0; i < m->nmv; i++) {
        moved *v = &m->mv[i];
        if (!v->job || !atomic_load(&v->done))
            continue;
        size_t rlen;
        const void *res = satin_job_result(v->job, &rlen);
        satin_record_complete(v->rec, !satin_job_failed(v->job), res, rlen,
                              satin_job_error(v->job));
        satin_job_destroy(&v->job);
        m->open--;
    }
}

/* Runs the record on `home`.  With `away`, this thread acts as home's
 * control thread: at each stop of the worker it takes records from the
 * tails of home's deque as a push takes them (up to MAX_MOVED in all),
 * checks each and runs it on `away`, and hands the stand-ins' results back
 * as result messages would. */
static void run_job(satin_pool *home, satin_pool *away, const satin_kind *kind, const void *arg,
                    size_t len, run_out *o)
{
    static mover m;
    memset(o, 0, sizeof *o);
    memset(&m, 0, sizeof m);
    satin_job *job = satin_job_new(kind, arg, len);
    if (!away) {
        satin_pool_run(home, job);
    } else {
        arm_stop(&m);
        satin_pool_start(home, job, set_done, &m.root_done);
        while (!atomic_load(&m.root_done) || m.open > 0) {
            if (!poll_until(120, something_to_do, &m)) {
                printf("Bail out! %s: the job did not end within 120 s\n", kind->name);
                exit(1);
            }
            if (atomic_load(&stopped) != m.served)
                serve_stop(&m, home, away, o);
            if (some_done(&m))
                results_back(&m);
            if (!atomic_load(&hold) && m.nmv < MAX_MOVED && !atomic_load(&m.root_done))
                arm_stop(&m);
        }
        atomic_store(&hold, 0);
        atomic_store(&released, atomic_load(&stopped));
    }
    o->moved = m.nmv;
    o->wall_s = satin_job_wall_seconds(job);
    o->failed = satin_job_failed(job);
    snprintf(o->error, sizeof o->error, "%s", satin_job_error(job));
    size_t rlen;
    const void *res = satin_job_result(job, &rlen);
    if (rlen <= sizeof o->result) {
        memcpy(o->result, res, rlen);
        o->len = rlen;
    }
    satin_job_destroy(&job);
}

static const accepted moving[] = {
    {"fib", P("n=34", "threshold=18")},
    {"uts", P("tree=seed-T2", "chunk=8")},
    {"uts", P("gen=std", "t=1", "a=3", "d=8", "b=4", "chunk=4")},
    {"uts", P("gen=std", "t=0", "b=200000", "q=0.2", "m=4", "chunk=2")},
    {"uts", P("gen=std", "t=2", "d=16", "b=4", "q=0.2", "m=3", "f=0.5", "g=2")},
    {"nqueens", P("n=12", "threshold=4")},
    {"integrate", P("f=sin", "a=0", "b=2000", "eps=1e-11")},
    {"integrate", P("f=sqrt", "a=100", "b=0", "eps=1e-15", "max_depth=50")},
    {"ida", P("moves=60", "seed=7", "split=10")},
    {"matmul", P("n=384", "leaf=32", "seed=3")},
    {"matmul", P("n=256", "leaf=32", "carry=32768")},
    {"raytracer", P("width=320", "height=240", "tile=256")},
    {"raytracer", P("width=320", "height=240", "tile=256", "carry=5000")},
    {"synthetic", P("depth=3", "fanout=4", "mean_us=200", "dist=uniform")},
    {"synthetic", P("depth=2", "fanout=8", "mean_us=200", "dist=gamma", "shape=0.5")},
    {"replay", P(replay_tree_param, "scale=1")},
    {"setcover", P("n=80", "m=80", "density=6", "threshold=10", "probe=0")},
    {"knapsack", P("n=40", "type=strong", "threshold=30", "probe=0", "bound=local")},
    {"nchoosek", P("n=26", "k=13", "threshold=16")},
    {"primefactors", P("lo=2", "hi=200000", "threshold=2000")},
    /* bound=local (tsp, knapsack): a shared bound makes `explored` depend on the schedule */
    {"tsp", P("n=13", "threshold=5", "probe=0", "bound=local")},
    {"array", P("n=2000000", "leaf=1000", "carry=16000", "work=4")},
};

static void every_moved_record_passes(satin_pool *home, satin_pool *away)
{
    for (size_t i = 0; i < sizeof moving / sizeof moving[0]; i++) {
        const accepted *a = &moving[i];
        const satin_kind *kind = kind_named(a->kind);
        satin_bytes arg;
        if (!kind || root_arg(a->kind, a->params, &arg) < 0) {
            ok(0, "%s: parse accepts the parameters", a->kind);
            continue;
        }
        satin_err err;
        int clean;
        ok(root_verdict(kind, arg.data, arg.len, &err, &clean) == 0, "%s %s: the root passes",
           a->kind, a->params[0]);
        run_out plain, moved_run;
        run_job(home, NULL, kind, arg.data, arg.len, &plain);
        run_job(home, away, kind, arg.data, arg.len, &moved_run);
        diag("%s: %.1f ms plain, %.1f ms with %d records moved in %d stops", a->kind,
             plain.wall_s * 1e3, moved_run.wall_s * 1e3, moved_run.moved, moved_run.stops);
        if (!ok(moved_run.moved >= 1 && moved_run.refused == 0,
                "%s %s: all %d records taken from its deques pass the check", a->kind,
                a->params[1] ? a->params[1] : a->params[0], moved_run.moved))
            diag("%d refused, the first: %s", moved_run.refused, moved_run.refusal);
        if (!ok(!plain.failed && !moved_run.failed && plain.len == moved_run.len &&
                    memcmp(plain.result, moved_run.result, plain.len) == 0,
                "%s: run with its records moved, the same result as a plain run (%zu bytes)",
                a->kind, plain.len))
            diag("plain: %s; moved: %s", plain.failed ? plain.error : "ok",
                 moved_run.failed ? moved_run.error : "ok");
        satin_bytes_free(&arg);
    }
}

/* ---- hostile bytes --------------------------------------------------------- */

/* One field of a root argument set to a value: 'i' int32 (or uint32), 'l'
 * int64 (or uint64), 'd' double, 'b' one byte, changed by xor. */
typedef struct field {
    size_t at;
    char type;
    int64_t v;
    double d;
} field;

typedef struct hostile {
    const char *kind;
    const char *const *params;
    field set[6];
    const char *want;
} hostile;

#define I(at, v) {(at), 'i', (v), 0}
#define L(at, v) {(at), 'l', (v), 0}
#define D(at, d) {(at), 'd', 0, (d)}
#define B(at, v) {(at), 'b', (v), 0}

#define FIB P("n=10", "threshold=3")
#define UTS_STD P("tree=T1")
#define UTS_2003 P("tree=seed-T1")
#define NQ P("n=8", "threshold=3")
#define IG P("f=sin", "a=0", "b=1")
#define IDA P("moves=20", "seed=3")
#define MM P("n=64", "leaf=16")
#define MMC P("n=64", "leaf=8", "carry=2048")
#define RT P("width=32", "height=24", "tile=16")
#define RTC P("width=32", "height=24", "tile=16", "carry=256")
#define SYN P("depth=2", "fanout=4", "mean_us=10")
#define RP P(replay_tree_param, "scale=1")
#define SC P("n=20", "m=20", "threshold=4", "probe=0")
#define KS P("n=30", "threshold=20", "probe=0")
#define NCK P("n=16", "k=8", "threshold=10")
#define PF P("lo=2", "hi=3000", "threshold=100")
#define TSP P("n=8", "threshold=4", "probe=0")
#define ARR P("n=5000", "leaf=64", "carry=512")

static const hostile hostiles[] = {
    /* fib {n, threshold}: the PUSH, and each bound */
    {"fib", FIB, {L(0, 100000000), L(8, INT64_C(1) << 62)}, "fib: n=100000000 is out of range 0..92"},
    {"fib", FIB, {L(0, 93)}, "fib: n=93 is out of range 0..92"},
    {"fib", FIB, {L(0, -1)}, "fib: n=-1 is out of range"},
    {"fib", FIB, {L(8, 93)}, "fib: threshold=93 is out of range 0..92"},
    {"fib", FIB, {L(8, INT64_C(1) << 62)}, "fib: threshold=4611686018427387904 is out of range"},
    {"fib", FIB, {L(8, INT64_MIN)}, "fib: threshold=-9223372036854775808"},
    /* uts: params (gen, type, shape, gen_mx, m, root_children, seed,
     * granularity, q, b0, shift_depth, root_id[20], reserved[4]) at 0..79,
     * then chunk, flags, nodes, reserved, then the nodes (id[20], depth) */
    {"uts", UTS_STD, {I(0, 5)}, "uts: unknown generator 5"},
    {"uts", UTS_STD, {I(4, 4)}, "uts: t=4 must be"},
    {"uts", UTS_STD, {I(8, -1)}, "uts: a=-1 must be"},
    {"uts", UTS_STD, {I(12, 0)}, "uts: d=0 must be"},
    {"uts", UTS_STD, {I(16, 0)}, "uts: m=0 must be"},
    {"uts", UTS_STD, {I(16, INT64_C(2147483648))}, "uts: m=2147483648 must be"},
    {"uts", UTS_STD, {I(28, 0)}, "uts: g=0 must be"},
    {"uts", UTS_STD, {I(28, 1000001)}, "uts: g=1000001 must be"},
    {"uts", UTS_STD, {D(32, 1.0)}, "uts: q=1 must satisfy 0 < q < 1"},
    {"uts", UTS_STD, {D(32, NAN)}, "uts: q=nan must satisfy"},
    {"uts", UTS_STD, {D(40, 1e10)}, "uts: b=1e+10 must be in"},
    {"uts", UTS_STD, {D(40, -1)}, "uts: b=-1 must be in"},
    {"uts", UTS_STD, {D(48, INFINITY)}, "uts: f=inf must be in"},
    {"uts", UTS_STD, {I(20, 5)}, "uts: a gen=std tree with parameters of gen=2003"},
    {"uts", UTS_STD, {B(56, 1)}, "uts: a gen=std tree with parameters of gen=2003"},
    {"uts", UTS_STD, {B(79, 1)}, "uts: the tree's reserved bytes are not zero"},
    {"uts", UTS_STD, {I(80, 0)}, "uts: chunk=0 is out of range 1..128"},
    {"uts", UTS_STD, {I(80, 129)}, "uts: chunk=129 is out of range 1..128"},
    {"uts", UTS_STD, {I(84, 3)}, "uts: unknown flags 0x3"},
    {"uts", UTS_STD, {I(92, 1)}, "uts: unknown flags 0x1 or reserved 1"},
    {"uts", UTS_STD, {I(88, 0)}, "uts: nodes=0 is out of range 1..128"},
    {"uts", UTS_STD, {I(88, 129)}, "uts: nodes=129 is out of range 1..128"},
    {"uts", UTS_STD, {I(88, 33)}, "uts: argument of 120 bytes, expected 96 + 33 nodes of 24"},
    {"uts", UTS_STD, {I(88, 2)}, "uts: argument of 120 bytes, expected 96 + 2 nodes of 24"},
    {"uts", UTS_STD, {I(116, 1)}, "uts: a root record whose node is not the tree's root"},
    {"uts", UTS_STD, {B(96, 0x5a)}, "uts: a root record whose node is not the tree's root"},
    {"uts", UTS_STD, {I(84, 0)}, "uts: node 0 of a chunk is at depth 0"},
    {"uts", UTS_STD, {I(84, 0), I(116, 10)}, "uts: node 0 of a chunk (depth 10) has no children"},
    {"uts", UTS_2003, {I(16, 257)}, "uts: m=257 must be in 1..256 for gen=2003"},
    {"uts", UTS_2003, {I(16, 5)}, "uts: gen=2003 needs q*m < 1"},
    {"uts", UTS_2003, {I(28, 2)}, "uts: a gen=2003 tree with parameters of gen=std"},
    {"uts", UTS_2003, {D(40, 4)}, "uts: a gen=2003 tree with parameters of gen=std"},
    {"uts", UTS_2003, {I(20, INT64_C(2147483648))}, "uts: children=2147483648 is out of range 0..2147483647"},
    /* nqueens {n, row, threshold, cols, ldiag, rdiag, first, path[20]} */
    {"nqueens", NQ, {I(0, 0)}, "nqueens: n=0 is out of range 1..20"},
    {"nqueens", NQ, {I(0, 21)}, "nqueens: n=21 is out of range 1..20"},
    {"nqueens", NQ, {I(4, 9)}, "nqueens: row=9 is out of range 0..8"},
    {"nqueens", NQ, {I(4, -1)}, "nqueens: row=-1 is out of range 0..8"},
    {"nqueens", NQ, {I(8, 21)}, "nqueens: threshold=21 is out of range 0..20"},
    {"nqueens", NQ, {I(8, -1)}, "nqueens: threshold=-1 is out of range"},
    {"nqueens", NQ, {I(12, 0x100)}, "nqueens: masks with squares outside a board of 8"},
    {"nqueens", NQ, {I(20, INT64_C(0x80000000))}, "nqueens: masks with squares outside"},
    {"nqueens", NQ, {I(4, 1)}, "nqueens: 0 columns taken by 1 queens"},
    {"nqueens", NQ, {I(24, 2)}, "nqueens: first=2 is out of range 0..1"},
    {"nqueens", NQ, {B(28, 1)}, "nqueens: row 0's column 1 (a board of 8, 0 rows placed)"},
    /* integrate {a, b, fa, fm, fb, whole, eps, fn, depth, max_depth, reserved} */
    {"integrate", IG, {I(56, 7)}, "integrate: fn=7 is out of range 0..6"},
    {"integrate", IG, {I(56, -1)}, "integrate: fn=-1 is out of range"},
    {"integrate", IG, {I(64, 61)}, "integrate: max_depth=61 is out of range 0..60"},
    {"integrate", IG, {I(60, 51)}, "integrate: depth=51 is out of range 0..50"},
    {"integrate", IG, {I(60, -1)}, "integrate: depth=-1 is out of range"},
    {"integrate", IG, {I(68, 1)}, "integrate: reserved=1 is out of range 0..0"},
    {"integrate", IG, {D(0, 2e6)}, "integrate: interval [2e+06, 1] beyond |x| <= 1e+06"},
    {"integrate", IG, {D(8, NAN)}, "integrate: interval [0, nan] beyond"},
    {"integrate", IG, {D(48, 0)}, "integrate: eps=0 at depth 0 is out of range"},
    {"integrate", IG, {D(48, 1e-301)}, "integrate: eps=1e-301 at depth 0 is out of range"},
    {"integrate", IG, {D(48, INFINITY)}, "integrate: eps=inf at depth 0 is out of range"},
    {"integrate", IG, {D(48, NAN)}, "integrate: eps=nan"},
    {"integrate", IG, {D(16, INFINITY)}, "integrate: f's values or the estimate are not finite"},
    {"integrate", IG, {D(40, NAN)}, "integrate: f's values or the estimate are not finite"},
    {"integrate", P("f=sqrt", "a=0", "b=1"), {D(0, -1)}, "integrate: sqrt needs a >= 0 and b >= 0"},
    {"integrate", P("f=exp", "a=0", "b=1"), {D(8, 700)}, "integrate: exp needs a, b <= 600"},
    /* ida {tiles, g, bound, prev, split, max_moves, reserved} */
    {"ida", IDA, {L(0, 0)}, "ida: the board does not hold each tile 0..15 once"},
    {"ida", IDA, {I(8, 1)}, "ida: g=1 is out of range 0..0"},
    {"ida", IDA, {I(12, 61)}, "ida: bound=61 is out of range -1..60"},
    {"ida", IDA, {I(12, -2)}, "ida: bound=-2 is out of range"},
    {"ida", IDA, {I(12, 10), I(8, INT32_MAX)}, "ida: g=2147483647 is out of range 0..10"},
    {"ida", IDA, {I(16, 0)}, "ida: prev=0 is out of range -1..-1"},
    {"ida", IDA, {I(20, 41)}, "ida: split=41 is out of range 0..40"},
    {"ida", IDA, {I(20, -1)}, "ida: split=-1 is out of range"},
    {"ida", IDA, {I(24, 81)}, "ida: max_moves=81 is out of range 0..80"},
    {"ida", IDA, {I(28, 1)}, "ida: reserved=1 is out of range 0..0"},
    /* matmul {seed, i0, j0, k0, ni, nj, nk, leaf, n} [carry, has_data] */
    {"matmul", MM, {I(36, 0)}, "matmul: n=0 is out of range 1..16384"},
    {"matmul", MM, {I(36, 16385)}, "matmul: n=16385 is out of range 1..16384"},
    {"matmul", MM, {I(32, 0)}, "matmul: leaf=0 is out of range 1..128"},
    {"matmul", MM, {I(32, 129)}, "matmul: leaf=129 is out of range 1..128"},
    {"matmul", MM, {L(0, INT64_MIN)}, "matmul: seed=9223372036854775808 is out of range"},
    {"matmul", MM, {I(8, -1)}, "matmul: i0=-1 is out of range 0..63"},
    {"matmul", MM, {I(12, 64)}, "matmul: j0=64 is out of range 0..63"},
    {"matmul", MM, {I(20, 0)}, "matmul: ni=0 is out of range 1..64"},
    {"matmul", MM, {I(16, 1)}, "matmul: nk=64 is out of range 1..63"},
    {"matmul", MM, {I(24, INT32_MAX)}, "matmul: nj=2147483647 is out of range 1..64"},
    {"matmul", MMC, {I(40, 0)}, "matmul: carry=0 is out of range 1..536870912"},
    {"matmul", MMC, {I(40, 536870913)}, "matmul: carry=536870913 is out of range"},
    {"matmul", MMC, {I(44, 2)}, "matmul: has_data=2 is out of range 0..1"},
    {"matmul", MMC, {I(44, 1)}, "matmul: a 64x64x64 block product carries more than carry=2048 elements"},
    {"matmul", MMC, {I(40, 8192), I(44, 1)}, "matmul: argument of 48 bytes, expected 48 + 8192 elements of 8"},
    {"matmul", MMC, {I(36, 16384), I(40, 536870912)}, "matmul: n=16384 leaf=8 carry=536870912 gives records or results over the 1048576 bytes a record that carries data may have"},
    /* raytracer {x0, y0, w, h, width, height, depth, tile} [carry, pixels] */
    {"raytracer", RT, {I(16, 0)}, "raytracer: width=0 is out of range 1..16384"},
    {"raytracer", RT, {I(20, 16385)}, "raytracer: height=16385 is out of range 1..16384"},
    {"raytracer", RT, {I(24, 17)}, "raytracer: depth=17 is out of range 0..16"},
    {"raytracer", RT, {I(28, 0)}, "raytracer: tile=0 is out of range 1..268435456"},
    {"raytracer", RT, {I(28, 268435457)}, "raytracer: tile=268435457 is out of range"},
    {"raytracer", RT, {I(0, -1)}, "raytracer: x0=-1 is out of range 0..31"},
    {"raytracer", RT, {I(8, 33)}, "raytracer: w=33 is out of range 1..32"},
    {"raytracer", RT, {I(4, 1)}, "raytracer: h=24 is out of range 1..23"},
    {"raytracer", RTC, {I(32, 0)}, "raytracer: carry=0 is out of range 1..268435456"},
    {"raytracer", RTC, {I(36, 3)}, "raytracer: pixels=3 is out of range 0..2"},
    {"raytracer", RTC, {I(36, 2)}, "raytracer: a 32x24 region returns more pixels than carry=256"},
    {"raytracer", RTC, {I(8, 16), I(36, 2)}, "raytracer: a 16x24 region at 0,0 of 32x24 returns the image, which only the whole image's job does"},
    {"raytracer", RTC, {I(8, 16384), I(12, 16384), I(16, 16384), I(20, 16384), I(32, 268435456), I(36, 2)}, "raytracer: a 16384x16384 image of 805306392 bytes is over the 1048576 bytes a result that carries data may have"},
    {"raytracer", RTC, {I(36, 1)}, "raytracer: a 32x24 region returns more pixels than carry=256"},
    {"raytracer", RTC, {I(16, 16384), I(20, 16384), I(32, 268435456)}, "raytracer: 16384x16384 with carry=268435456 returns regions over the 1048576 bytes a result that carries data may have"},
    /* synthetic {seed, first_leaf, mean_us, shape, depth, fanout, dist, reserved} */
    {"synthetic", SYN, {I(32, 65)}, "synthetic: depth=65, fanout=4, dist=0, mean_us=10 or shape=1 is out of range"},
    {"synthetic", SYN, {I(32, -1)}, "synthetic: depth=-1"},
    {"synthetic", SYN, {I(36, 0)}, "synthetic: depth=2, fanout=0"},
    {"synthetic", SYN, {I(36, 257)}, "synthetic: depth=2, fanout=257"},
    {"synthetic", SYN, {I(40, 3)}, "synthetic: depth=2, fanout=4, dist=3"},
    {"synthetic", SYN, {L(16, -1)}, "synthetic: depth=2, fanout=4, dist=0, mean_us=-1"},
    {"synthetic", SYN, {L(16, 1000000001)}, "mean_us=1000000001 or shape=1 is out of range"},
    {"synthetic", SYN, {D(24, 0)}, "mean_us=10 or shape=0 is out of range"},
    {"synthetic", SYN, {D(24, NAN)}, "or shape=nan is out of range"},
    {"synthetic", SYN, {I(32, 64), I(36, 256)}, "synthetic: fanout^depth = 256^64 leaves is more than 67108864"},
    {"synthetic", SYN, {I(32, 27), I(36, 2)}, "synthetic: fanout^depth = 2^27 leaves is more than 67108864"},
    {"synthetic", SYN, {L(8, 1)}, "synthetic: a subtree of 16 leaves cannot start at leaf 1"},
    {"synthetic", SYN, {L(8, INT64_C(1) << 26)}, "synthetic: a subtree of 16 leaves cannot start at leaf 67108864"},
    {"synthetic", SYN, {I(44, 1)}, "synthetic: seed above 2^63-1 or reserved not zero"},
    {"synthetic", SYN, {L(0, INT64_MIN)}, "synthetic: seed above 2^63-1 or reserved not zero"},
    /* replay {checksum, scale, node, path_len} path */
    {"replay", RP, {D(8, 0)}, "replay: scale=0 is out of range 1e-06..1e+06"},
    {"replay", RP, {D(8, 1e7)}, "replay: scale=1e+07 is out of range"},
    {"replay", RP, {D(8, NAN)}, "replay: scale=nan is out of range"},
    {"replay", RP, {I(20, 0)}, "replay: path_len=0 is out of range 1..1024"},
    {"replay", RP, {I(20, 1025)}, "replay: path_len=1025 is out of range 1..1024"},
    {"replay", RP, {I(20, 1)}, "replay: argument of"},
    {"replay", RP, {B(24, '/')}, "replay: a NUL in the path"},
    {"replay", RP, {I(16, INT64_C(1) << 22)}, "replay: node=4194304 is out of range 0..4194303"},
    /* setcover {n, m, depth, threshold, ub, probe, chosen, excluded, covered} sets */
    {"setcover", SC, {I(0, 0)}, "setcover: n=0 is out of range 1..256"},
    {"setcover", SC, {I(0, 257)}, "setcover: n=257 is out of range 1..256"},
    {"setcover", SC, {I(4, 0)}, "setcover: m=0 is out of range 1..256"},
    {"setcover", SC, {I(4, 19)}, "setcover: argument of 768 bytes, expected 128 + 19 sets of 32"},
    {"setcover", SC, {I(12, 257)}, "setcover: threshold=257 is out of range 0..256"},
    {"setcover", SC, {L(16, -1)}, "setcover: ub=-1 is out of range 0..21"},
    {"setcover", SC, {L(16, 22)}, "setcover: ub=22 is out of range 0..21"},
    {"setcover", SC, {L(24, -1)}, "setcover: probe=-1 is out of range 0..4294967296"},
    {"setcover", SC, {I(8, 1)}, "setcover: depth=1 but 0 sets decided"},
    {"setcover", SC, {I(32, 1 << 25)}, "setcover: decisions on sets beyond m=20 or both ways"},
    {"setcover", SC, {I(32, 1), I(64, 1)}, "setcover: decisions on sets beyond m=20 or both ways"},
    {"setcover", SC, {I(96, 1)}, "setcover: 'covered' is not the union of the chosen sets"},
    {"setcover", SC, {I(128, 1 << 30)}, "setcover: set 0 holds elements beyond n=20"},
    /* knapsack {n, depth, threshold, shared, room, value, lb, probe} items {w, v} */
    {"knapsack", KS, {I(0, -1)}, "knapsack: n=-1 is out of range 0..1000"},
    {"knapsack", KS, {I(0, 1001)}, "knapsack: n=1001 is out of range 0..1000"},
    {"knapsack", KS, {I(0, 29)}, "knapsack: argument of 288 bytes, expected 48 + 29 items of 8"},
    {"knapsack", KS, {I(4, 971)}, "knapsack: depth=971 is out of range 0..970"},
    {"knapsack", KS, {I(4, -1)}, "knapsack: depth=-1 is out of range"},
    {"knapsack", KS, {I(8, 1001)}, "knapsack: threshold=1001 is out of range 0..1000"},
    {"knapsack", KS, {I(12, 2)}, "knapsack: shared=2 is out of range 0..1"},
    {"knapsack", KS, {L(16, -1)}, "knapsack: room=-1 is out of range 0..1099511627776"},
    {"knapsack", KS, {L(16, (INT64_C(1) << 40) + 1)}, "knapsack: room=1099511627777 is out of range"},
    {"knapsack", KS, {L(24, 1)}, "knapsack: value=1 is out of range 0..0"},
    {"knapsack", KS, {L(24, INT64_MAX), I(4, 10)}, "knapsack: value=9223372036854775807 is out of range 0..11000"},
    {"knapsack", KS, {L(32, -1)}, "knapsack: lb=-1 is out of range 0..1100000"},
    {"knapsack", KS, {L(32, 1100001)}, "knapsack: lb=1100001 is out of range"},
    {"knapsack", KS, {L(40, INT64_C(1) << 32 | 1)}, "knapsack: probe=4294967297 is out of range"},
    {"knapsack", KS, {I(48, 0)}, "knapsack: item 0 (weight 0, value"},
    {"knapsack", KS, {I(52, 1101)}, "value 1101) is out of range"},
    {"knapsack", KS, {I(48, 1000), I(52, 1)}, "knapsack: item 1 is not in value/weight order"},
    /* nchoosek {n, k, threshold, reserved} */
    {"nchoosek", NCK, {I(0, -1)}, "nchoosek: n=-1 is out of range 0..1000"},
    {"nchoosek", NCK, {I(0, 1001)}, "nchoosek: n=1001 is out of range 0..1000"},
    {"nchoosek", NCK, {I(4, 17)}, "nchoosek: k=17 is out of range 0..16"},
    {"nchoosek", NCK, {I(4, -1)}, "nchoosek: k=-1 is out of range"},
    {"nchoosek", NCK, {I(8, 1002)}, "nchoosek: threshold=1002 is out of range 0..1001"},
    {"nchoosek", NCK, {I(12, 1)}, "nchoosek: reserved=1 is out of range 0..0"},
    {"nchoosek", NCK, {I(0, 67), I(4, 33)}, "nchoosek: C(67, 33) does not fit in a signed 64-bit integer"},
    {"nchoosek", NCK, {I(0, 1000), I(4, 500)}, "nchoosek: C(1000, 500) does not fit"},
    /* primefactors {lo, hi, threshold} */
    {"primefactors", PF, {L(0, 0)}, "primefactors: lo=0 is out of range 1..1099511627776"},
    {"primefactors", PF, {L(0, INT64_MIN)}, "primefactors: lo=-9223372036854775808 is out of range"},
    {"primefactors", PF, {L(8, (INT64_C(1) << 40) + 1)}, "primefactors: hi=1099511627777 is out of range 2..1099511627776"},
    {"primefactors", PF, {L(8, 1)}, "primefactors: hi=1 is out of range 2..1099511627776"},
    {"primefactors", PF, {L(8, (INT64_C(1) << 22) + 2)}, "primefactors: hi - lo=4194304 is out of range 0..4194303"},
    {"primefactors", PF, {L(16, 0)}, "primefactors: threshold=0 is out of range 1..4194304"},
    {"primefactors", PF, {L(16, (INT64_C(1) << 22) + 1)}, "primefactors: threshold=4194305 is out of range"},
    /* tsp {n, depth, threshold, last, visited, reserved, len, ub, probe, dist[20][20]} */
    {"tsp", TSP, {I(0, 0)}, "tsp: n=0 is out of range 1..20"},
    {"tsp", TSP, {I(0, 21)}, "tsp: n=21 is out of range 1..20"},
    {"tsp", TSP, {I(4, 0)}, "tsp: depth=0 is out of range 1..8"},
    {"tsp", TSP, {I(4, 9)}, "tsp: depth=9 is out of range 1..8"},
    {"tsp", TSP, {I(8, 21)}, "tsp: threshold=21 is out of range 0..20"},
    {"tsp", TSP, {I(12, 8)}, "tsp: last=8 is out of range 0..7"},
    {"tsp", TSP, {I(12, -1)}, "tsp: last=-1 is out of range"},
    {"tsp", TSP, {I(20, 2)}, "tsp: shared=2 is out of range 0..1"},
    {"tsp", TSP, {L(24, 1)}, "tsp: len=1 is out of range 0..0"},
    {"tsp", TSP, {L(24, INT64_MAX), I(4, 2)}, "tsp: len=9223372036854775807 is out of range 0..2000"},
    {"tsp", TSP, {L(32, -2)}, "tsp: ub=-2 is out of range -1..40000"},
    {"tsp", TSP, {L(32, 40001)}, "tsp: ub=40001 is out of range"},
    {"tsp", TSP, {L(40, -1)}, "tsp: probe=-1 is out of range 0..4294967296"},
    {"tsp", TSP, {I(16, 0)}, "tsp: visited=0 is not a path of 1 cities from 0 to 0"},
    {"tsp", TSP, {I(16, 3)}, "tsp: visited=0x3 is not a path of 1 cities from 0 to 0"},
    {"tsp", TSP, {I(16, 0x101), I(4, 2)}, "tsp: visited=0x101 is not a path of 2 cities"},
    {"tsp", TSP, {I(48 + 4 * 1, 2000), I(48 + 4 * 20, 1999)}, "tsp: distance 2000 from 0 to 1 (a symmetric matrix"},
    {"tsp", TSP, {I(48, 5)}, "tsp: distance 5 from 0 to 0"},
    {"tsp", TSP, {I(48 + 4 * 10, 1)}, "tsp: distance 1 from 0 to 10"},
    {"tsp", TSP, {I(48 + 4 * 1, 2001), I(48 + 4 * 20, 2001)}, "tsp: distance 2001 from 0 to 1"},
    {"tsp", TSP, {I(48 + 4 * 1, -1), I(48 + 4 * 20, -1)}, "tsp: distance -1 from 0 to 1"},
    /* array {lo, hi, seed, leaf, carry, work, has_data} elements */
    {"array", ARR, {L(8, 0)}, "array: range [0, 0) is not within [0, 68719476736)"},
    {"array", ARR, {L(0, 6000)}, "array: range [6000, 5000) is not within"},
    {"array", ARR, {L(8, (INT64_C(1) << 36) + 1)}, "array: range [0, 68719476737) is not within"},
    {"array", ARR, {I(28, 0)}, "array: carry=0 is out of range 1..131072"},
    {"array", ARR, {I(28, INT64_C(0xffffffff))}, "array: carry=4294967295 is out of range 1..131072"},
    {"array", ARR, {I(24, 0)}, "array: leaf=0 is out of range 1..512"},
    {"array", ARR, {I(24, 513)}, "array: leaf=513 is out of range 1..512"},
    {"array", ARR, {I(32, 1000001)}, "array: work=1000001 is out of range 0..1000000"},
    {"array", ARR, {I(36, 2)}, "array: has_data=2 is out of range 0..1"},
    {"array", ARR, {I(36, 1)}, "array: a record with 5000 elements, more than half of carry=512"},
    {"array", ARR, {I(36, 1), L(8, 256)}, "array: argument of 40 bytes, expected 40 + 256 elements of 8"},
    {"array", ARR, {L(16, INT64_MIN)}, "array: seed=9223372036854775808 is out of range 0..2^63-1"},
};

static void set_field(unsigned char *arg, const field *f)
{
    int32_t i = (int32_t)(uint32_t)f->v;
    switch (f->type) {
    case 'i':
        memcpy(arg + f->at, &i, sizeof i);
        break;
    case 'l':
        memcpy(arg + f->at, &f->v, sizeof f->v);
        break;
    case 'd':
        memcpy(arg + f->at, &f->d, sizeof f->d);
        break;
    case 'b':
        arg[f->at] ^= (unsigned char)f->v;
        break;
    }
}

/* A kind added without tests here fails this one, and so does one tested
 * here that is not built in. */
static void every_kind_is_tested(void)
{
    for (size_t n = 0; n < satin_registry_nkinds(reg); n++) {
        const satin_kind *k = satin_registry_kind_at(reg, n);
        int runs = 0, refusals = 0;
        for (size_t i = 0; i < sizeof moving / sizeof moving[0]; i++)
            runs += strcmp(moving[i].kind, k->name) == 0;
        for (size_t i = 0; i < sizeof hostiles / sizeof hostiles[0]; i++)
            refusals += strcmp(hostiles[i].kind, k->name) == 0;
        ok(runs >= 1 && refusals >= 3, "%s: %d runs with its records moved, %d hostile arguments",
           k->name, runs, refusals);
    }
    size_t unknown = 0;
    for (size_t i = 0; i < sizeof moving / sizeof moving[0]; i++)
        unknown += satin_registry_kind(reg, moving[i].kind) == NULL;
    for (size_t i = 0; i < sizeof hostiles / sizeof hostiles[0]; i++)
        unknown += satin_registry_kind(reg, hostiles[i].kind) == NULL;
    ok(unknown == 0, "every kind tested here is built in (%zu entries of others)", unknown);
}

static void hostile_fields_refused(void)
{
    for (size_t i = 0; i < sizeof hostiles / sizeof hostiles[0]; i++) {
        const hostile *h = &hostiles[i];
        const satin_kind *kind = kind_named(h->kind);
        satin_bytes arg;
        if (!kind || root_arg(h->kind, h->params, &arg) < 0) {
            ok(0, "%s: parse accepts the parameters", h->kind);
            continue;
        }
        for (size_t k = 0; k < sizeof h->set / sizeof h->set[0] && h->set[k].type; k++)
            set_field(arg.data, &h->set[k]);
        satin_err err;
        int clean;
        int rc = root_verdict(kind, arg.data, arg.len, &err, &clean);
        if (!ok(rc == -1 && clean && strstr(err.msg, h->want), "refused: %s", h->want))
            diag("got %d: '%s'", rc, err.msg);
        satin_bytes_free(&arg);
    }
}

/* A 15-puzzle board that is a permutation but cannot be solved: the goal
 * with tiles 1 and 2 swapped; a search job's move that cannot be; and each
 * of ida's two tasks refuses the other's argument (the root runs the
 * iterations, bound -1; a search runs one, bound 0..max_moves). */
static void ida_records_refused(void)
{
    const satin_kind *ida = kind_named("ida");
    const satin_task *search = satin_registry_task(reg, "ida_search");
    satin_bytes arg;
    if (!ida || !search || root_arg("ida", IDA, &arg) < 0) {
        ok(0, "ida: parse accepts the parameters, and ida_search is a task");
        return;
    }
    uint64_t tiles = 0;
    for (int p = 0; p < 16; p++)
        tiles |= (uint64_t)(p == 1 ? 2 : p == 2 ? 1 : p) << (4 * p);
    memcpy(arg.data, &tiles, sizeof tiles);
    satin_err err;
    int clean;
    int rc = root_verdict(ida, arg.data, arg.len, &err, &clean);
    ok(rc == -1 && strstr(err.msg, "ida: the board is unsolvable"), "refused: an unsolvable board (%s)",
       err.msg);
    /* The goal board, as a search job one move in, by a move that cannot
     * have brought the blank to square 0 (down: it came from above). */
    tiles = 0;
    for (int p = 0; p < 16; p++)
        tiles |= (uint64_t)p << (4 * p);
    int32_t g = 1, bound = 10, prev = 1;
    memcpy(arg.data, &tiles, sizeof tiles);
    memcpy(arg.data + 8, &g, sizeof g);
    memcpy(arg.data + 12, &bound, sizeof bound);
    memcpy(arg.data + 16, &prev, sizeof prev);
    rc = verdict(ida, search, arg.data, arg.len, &err, &clean);
    ok(rc == -1 && strstr(err.msg, "ida: move 1 cannot have brought the blank to 0"),
       "refused: a move behind the node that is not a legal one (%s)", err.msg);
    satin_bytes_free(&arg);

    if (root_arg("ida", IDA, &arg) < 0)
        return;
    rc = verdict(ida, search, arg.data, arg.len, &err, &clean);
    ok(rc == -1 && clean && strstr(err.msg, "ida: a search record with bound=-1"),
       "ida_search refuses the root's argument (%s)", err.msg);
    bound = 10;
    memcpy(arg.data + 12, &bound, sizeof bound);
    rc = verdict(ida, search, arg.data, arg.len, &err, &clean);
    if (!ok(rc == 0, "ida_search takes the board's first search at bound 10"))
        diag("refused: %s", err.msg);
    rc = root_verdict(ida, arg.data, arg.len, &err, &clean);
    ok(rc == -1 && clean && strstr(err.msg, "ida: a root record with bound=10"),
       "ida (the root) refuses a search's argument (%s)", err.msg);
    rc = verdict(ida, search, arg.data, arg.len - 1, &err, &clean);
    ok(rc == -1 && clean && strstr(err.msg, "ida_search: an argument of 31 bytes"),
       "ida_search refuses a wrong length (%s)", err.msg);
    satin_bytes_free(&arg);
}

/* For every kind: wrong lengths are refused, and arbitrary bytes get a clean
 * verdict. */
static void lengths_and_noise(void)
{
    const accepted roots[] = {
        {"fib", FIB}, {"uts", UTS_STD}, {"nqueens", NQ}, {"integrate", IG}, {"ida", IDA},
        {"matmul", MM}, {"matmul", MMC}, {"raytracer", RT}, {"raytracer", RTC},
        {"synthetic", SYN}, {"replay", RP}, {"setcover", SC}, {"knapsack", KS},
        {"nchoosek", NCK}, {"primefactors", PF}, {"tsp", TSP}, {"array", ARR},
    };
    uint64_t rng = 12345;
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        const satin_kind *kind = kind_named(roots[i].kind);
        satin_bytes arg;
        if (!kind || root_arg(roots[i].kind, roots[i].params, &arg) < 0) {
            ok(0, "%s: parse accepts the parameters", roots[i].kind);
            continue;
        }
        size_t n = arg.len;
        unsigned char *buf = calloc(1, n + 2);
        satin_err err;
        int clean, all_clean = 1, refused = 0;
        refused += root_verdict(kind, buf, 0, &err, &clean) < 0 && clean && strstr(err.msg, "argument of 0 bytes");
        memcpy(buf, arg.data, n);
        refused += root_verdict(kind, buf, n - 1, &err, &clean) < 0 && clean && strstr(err.msg, "argument of");
        refused += root_verdict(kind, buf, n + 1, &err, &clean) < 0 && clean && strstr(err.msg, "argument of");
        ok(refused == 3, "%s (%zu bytes): 0, %zu and %zu bytes refused as wrong lengths", kind->name,
           n, n - 1, n + 1);
        /* Noise: 0xff, then random bytes, then the root with one random byte
         * changed; whatever the verdict, it is clean. */
        memset(buf, 0xff, n);
        root_verdict(kind, buf, n, &err, &clean);
        all_clean &= clean;
        for (int round = 0; round < 2000; round++) {
            memcpy(buf, arg.data, n);
            if (round < 200) {
                for (size_t b = 0; b < n; b++) {
                    rng = rng * 6364136223846793005u + 1442695040888963407u;
                    buf[b] = (unsigned char)(rng >> 56);
                }
            } else {
                rng = rng * 6364136223846793005u + 1442695040888963407u;
                buf[(rng >> 33) % n] = (unsigned char)(rng >> 8);
            }
            root_verdict(kind, buf, n, &err, &clean);
            if (!clean && all_clean)
                diag("%s: an unclean verdict: '%s'", kind->name, err.msg);
            all_clean &= clean;
        }
        ok(all_clean, "%s: 2001 noisy arguments, each accepted or refused with a message", kind->name);
        free(buf);
        satin_bytes_free(&arg);
    }
}

/* The kinds whose records carry data hold them to SATIN_CARRY_MAX (1 MiB)
 * whatever a node's record limit, which a task's check is not told: with a
 * limit of 4 MiB parse refuses a carry that would send more, and the check
 * refuses it as well (a root parse made with the largest carry that fits,
 * given the larger carry). */
typedef struct carry_bound {
    const char *kind;
    const char *const *fits, *const *over;   /* the largest carry that fits, and one more */
    size_t carry_at;                         /* where the carry field is */
    uint32_t carry_over;
    const char *parse_says, *check_says;
} carry_bound;

static const carry_bound carry_bounds[] = {
    /* records of 1 MiB + 48 bytes */
    {"matmul", P("n=1024", "carry=524287"), P("n=1024", "carry=524288"), 40, 524288,
     "matmul: carry=524288 gives records of 1048624 bytes (blocks of A and B of 256x256x256) and "
     "results of 524288 (its block of C), over the 1048576 bytes other nodes accept in a record "
     "that carries data, whatever --max-record: give a smaller carry",
     "matmul: n=1024 leaf=48 carry=524288 gives records or results over the 1048576 bytes a "
     "record that carries data may have"},
    /* 1024 x 768 regions gather halves of 1.1 MiB */
    {"raytracer", P("width=4096", "height=3072", "carry=786431"),
     P("width=4096", "height=3072", "carry=786432"), 32, 786432,
     "raytracer: carry=786432 gives results of 1179648 bytes (the pixels of 512x768, 3 bytes "
     "each), over the 1048576 bytes other nodes accept in a record that carries data, whatever "
     "--max-record: give a smaller carry",
     "raytracer: 4096x3072 with carry=786432 returns regions over the 1048576 bytes a result "
     "that carries data may have"},
};

static void carry_limit_is_fixed(void)
{
    for (size_t i = 0; i < sizeof carry_bounds / sizeof carry_bounds[0]; i++) {
        const carry_bound *b = &carry_bounds[i];
        const satin_kind *k = kind_named(b->kind);
        satin_bytes arg;
        satin_outcome o;
        memset(&o, 0, sizeof o);   /* freed below even when the kind is missing */
        if (!k || satin_record_prepare(reg, b->kind, b->over, 4 << 20, &k, &arg, &o) == 0) {
            ok(0, "%s carry=%u: refused by parse with a limit of 4 MiB", b->kind, b->carry_over);
            if (k)
                satin_bytes_free(&arg);
        } else if (!ok(strstr(o.error, b->parse_says) != NULL,
                       "%s carry=%u: refused by parse with a limit of 4 MiB, naming the 1 MiB",
                       b->kind, b->carry_over)) {
            diag("error was: '%s'", o.error);
        }
        satin_outcome_free(&o);
        if (!k || root_arg(b->kind, b->fits, &arg) < 0) {
            ok(0, "%s: parse accepts the largest carry that fits", b->kind);
            continue;
        }
        satin_err err;
        int clean;
        ok(root_verdict(k, arg.data, arg.len, &err, &clean) == 0,
           "%s carry=%u: the largest carry that fits passes the check", b->kind,
           b->carry_over - 1);
        memcpy(arg.data + b->carry_at, &b->carry_over, sizeof b->carry_over);
        if (!ok(root_verdict(k, arg.data, arg.len, &err, &clean) == -1 && clean &&
                    strstr(err.msg, b->check_says),
                "%s carry=%u: refused by the check", b->kind, b->carry_over))
            diag("got: '%s'", err.msg);
        satin_bytes_free(&arg);
    }
}

/* ---- replay's run: a scale the tree's waits cannot take -------------------- */

/* A trace file: a root with `kids` leaves, every node's self time `us`. */
static int write_tree(const char *path, uint32_t kids, int64_t us)
{
    int64_t *self = calloc(kids + 1, sizeof *self);
    uint32_t *nk = calloc(kids + 1, sizeof *nk);
    for (uint32_t i = 0; i <= kids; i++)
        self[i] = us;
    nk[0] = kids;
    FILE *f = fopen(path, "w");
    satin_err err = {""};
    int rc = f ? replay_tree_write(f, self, nk, NULL, NULL, kids + 1, NULL, &err) : -1;
    if (f)
        fclose(f);
    if (rc < 0)
        diag("%s: %s", path, err.msg);
    free(self);
    free(nk);
    return rc;
}

static void replay_scale_guard(satin_pool *pool)
{
    /* 300 nodes of 2^36 us: parse takes scale=1; at scale=1e6 the waits
     * would sum to 2e19 us, past what an int64 holds. */
    satin_bytes arg;
    if (root_arg("replay", P(replay_big_param, "scale=1"), &arg) < 0) {
        ok(0, "replay: the big tree parses at scale=1");
        return;
    }
    double scale = 1e6;
    memcpy(arg.data + 8, &scale, sizeof scale);
    satin_err err;
    int clean;
    const satin_kind *replay = kind_named("replay");
    ok(replay && root_verdict(replay, arg.data, arg.len, &err, &clean) == 0,
       "replay: scale=1e6 is within the check's range");
    if (!replay) {
        satin_bytes_free(&arg);
        return;
    }
    run_out o;
    run_job(pool, NULL, replay, arg.data, arg.len, &o);
    ok(o.failed && strstr(o.error, "replay: scale=1e+06 makes the waits of") &&
           strstr(o.error, "longer than 1125899906842624 us"),
       "replay: its run fails at once, naming the scale: %s", o.error);
    satin_bytes_free(&arg);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(replay_dir, sizeof replay_dir, "%s/test_kind_checks.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(replay_dir)) {
        printf("Bail out! cannot make a temporary directory\n");
        return 1;
    }
    char small[600], big[600];
    snprintf(small, sizeof small, "%s/small.trace", replay_dir);
    snprintf(big, sizeof big, "%s/big.trace", replay_dir);
    snprintf(replay_tree_param, sizeof replay_tree_param, "tree=%s", small);
    snprintf(replay_big_param, sizeof replay_big_param, "tree=%s", big);
    setenv("SATIN_REPLAY_DIR", replay_dir, 1);
    if (write_tree(small, 12, 500) < 0 || write_tree(big, 300, INT64_C(1) << 36) < 0) {
        printf("Bail out! cannot write the trace files\n");
        return 1;
    }

    /* Home: one worker that queues every spawn, so that its deque keeps
     * records for this thread to take, oldest first, as a thief takes them. */
    satin_pool *home = satin_pool_new(&(satin_pool_config){.workers = 1});
    satin_pool_set_spawn_reserve(home, 1 << 20);
    satin_pool *away = satin_pool_new(&(satin_pool_config){.workers = 2});
    if (freeze_setup(home) < 0) {
        printf("Bail out! no timer to stop the home worker with\n");
        return 1;
    }
    reg = satin_registry_linked(satin_module_entry());
    every_task_has_a_check();
    every_kind_is_tested();
    parse_bounds_pass();
    every_moved_record_passes(home, away);
    hostile_fields_refused();
    ida_records_refused();
    lengths_and_noise();
    carry_limit_is_fixed();
    replay_scale_guard(home);
    satin_pool_destroy(&away);
    satin_pool_destroy(&home);
    satin_registry_destroy(&reg);

    unlink(small);
    unlink(big);
    rmdir(replay_dir);
    return done_testing();
}
