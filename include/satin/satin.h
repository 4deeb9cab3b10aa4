/*
 * <satin/satin.h> - the kind API: how a job kind is written, built as a
 * module and loaded by satind, satin-sim and satin-trace.
 *
 * A kind is divide-and-conquer code written with spawn and sync, as in Satin
 * and Cilk.  Its unit of work is a *task*: a pure function of its arguments.
 *
 *     typedef struct { int32_t n; } fib_args;
 *     static int fib_check(const fib_args *a, satin_err *err);   // bounds of n
 *     SATIN_TASK(int64_t, fib, fib_args, fib_check);
 *
 *     static int64_t fib(SATIN_FRAME, fib_args a)
 *     {
 *         if (a.n < 2)
 *             return a.n;
 *         int64_t x, y;
 *         satin_spawn(fib, &x, (fib_args){a.n - 1});
 *         satin_spawn(fib, &y, (fib_args){a.n - 2});
 *         satin_sync();
 *         return x + y;
 *     }
 *
 * satin_spawn() either runs the child at once, in place, as a plain C call
 * with its arguments in registers (the common case), or queues an
 * invocation record that idle workers and other nodes may steal; a child's
 * result is defined after the next satin_sync() of the frame.  A *kind* is
 * what a client submits: its parameters, how they become the root task's
 * arguments, and how the root's result is shown (SATIN_KIND).  A module
 * (a shared object) holds kinds and tasks and names itself once
 * (SATIN_MODULE); satind loads the modules of its kinds directory.
 *
 * Arguments may come from another node: every task has a check that the
 * runtime calls before it runs a record another node sent.  A typed task's
 * check sees the decoded argument struct (its size is checked for it); a
 * bytes task's check sees the bytes.
 *
 * Build a module with `cc -shared $(pkg-config --cflags --libs satin-kind)`
 * (examples/kind-template).  C++ (C++20, for SATIN_KIND's designated
 * initialisers) works the same; write argument values as `fib_args{n - 1}`
 * where C writes the compound literal `(fib_args){n - 1}`.  The names with two underscores below are the
 * runtime's, visible only because the in-place spawn is inline.
 */
#ifndef SATIN_SATIN_H_INCLUDED
#define SATIN_SATIN_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A module records the version it was built for; a node loads only modules
 * of its own.  4: typed tasks, modules, results with data, grid-wide values. */
#define SATIN_API_VERSION 4

typedef struct satin_frame satin_frame;   /* a running invocation */
typedef struct satin_task satin_task;     /* a spawnable function */
typedef struct satin_kind satin_kind;     /* a job kind a client can name */
typedef struct satin_params satin_params; /* key=value parameters of a job record */
typedef struct satin_bytes satin_bytes;   /* a growable byte buffer (argument bytes) */
typedef struct satin_result satin_result; /* typed key/value output, and data bytes */

/* An error message the user sees verbatim. */
typedef struct satin_err {
    char msg[256];
} satin_err;

/* Sets err->msg and returns -1, so that checks and parsers can
 * `return satin_err_set(err, ...)`. */
int satin_err_set(satin_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- tasks ---------------------------------------------------------------- */

/* A task's descriptor, made by SATIN_TASK or SATIN_BYTES_TASK.  `name` is
 * what a record carries on the wire: unique among the modules a node loads. */
struct satin_task {
    const char *name;
    size_t arg_size;      /* typed tasks: the argument struct's size; 0: bytes task */
    size_t result_size;   /* typed tasks: the result's size; 0: bytes task (the spawner's cap) */
    /* 0 when run() may be given these argument bytes (it then neither
     * crashes, nor recurses or loops past what its own bounds allow, nor
     * allocates beyond them), -1 with err set when not. */
    int (*check)(const void *arg, size_t len, satin_err *err);
    /* Runs an invocation from a record: the trampoline SATIN_TASK makes. */
    void (*run)(satin_frame *satin__f, uint64_t satin__n, const void *arg, size_t len);
    /* Optional, read only when a job is traced (satin-trace): the bytes an
     * invocation's argument and result would have if its data travelled
     * with it instead of being made where it runs.  NULL: the bytes passed. */
    void (*data_size)(const void *arg, size_t len, size_t result_len, uint64_t *arg_bytes,
                      uint64_t *result_bytes);
};

/* The parameters every task body takes first (its frame and the count of
 * its spawns so far; a body that spawns nothing need not mention them),
 * and what a body passes on to a helper function that spawns on its
 * behalf, which declares SATIN_HELPER_FRAME. */
#define SATIN_FRAME                                                                             \
    satin_frame *satin__f __attribute__((unused)), uint64_t satin__n __attribute__((unused))
#define SATIN_HELPER_FRAME                                                                      \
    satin_frame *satin__f __attribute__((unused)), uint64_t *satin__n __attribute__((unused))
#define SATIN_TO_HELPER satin__f, &SATIN__N

/* SATIN_TASK(RES, NAME, ARGS, CHECK): declares the task NAME, whose body
 * the kind then defines as `static RES NAME(SATIN_FRAME, ARGS a)`.  ARGS is
 * a struct of plain data (it travels as its bytes), RES a value type.
 * CHECK is `int CHECK(const ARGS *a, satin_err *err)`: 0 when a may run. */
#define SATIN_TASK(RES, NAME, ARGS, CHECK)                                                      \
    static RES NAME(SATIN_FRAME, ARGS satin__a);                                                \
    typedef ARGS NAME##__satin_args;                                                            \
    typedef RES NAME##__satin_res;                                                              \
    static void NAME##__satin_run(SATIN_FRAME, const void *satin__arg, size_t satin__len)       \
    {                                                                                           \
        ARGS satin__v;                                                                          \
        (void)satin__len;                                                                       \
        memcpy(&satin__v, satin__arg, sizeof satin__v);                                         \
        RES satin__r = NAME(satin__f, satin__n, satin__v);                                      \
        satin__return(satin__f, &satin__r, sizeof satin__r);                                    \
    }                                                                                           \
    static int NAME##__satin_check(const void *satin__arg, size_t satin__len, satin_err *err)   \
    {                                                                                           \
        ARGS satin__v;                                                                          \
        if (satin__len != sizeof satin__v)                                                      \
            return satin_err_set(err, "%s: an argument of %zu bytes, expected %zu", #NAME,      \
                                 satin__len, sizeof satin__v);                                  \
        memcpy(&satin__v, satin__arg, sizeof satin__v);                                         \
        return CHECK(&satin__v, err);                                                           \
    }                                                                                           \
    SATIN__TASK_DESCRIPTOR(NAME, sizeof(ARGS), sizeof(RES), NAME##__satin_check,                \
                           NAME##__satin_run)

/* SATIN_BYTES_TASK(NAME, CHECK): a task whose argument and result are byte
 * strings of any length (a kind whose data travel with its records).  Its
 * body is `static void NAME(SATIN_FRAME, const void *arg, size_t len)` and
 * sets its result with satin_return(); CHECK is
 * `int CHECK(const void *arg, size_t len, satin_err *err)`. */
#define SATIN_BYTES_TASK(NAME, CHECK)                                                           \
    static void NAME(SATIN_FRAME, const void *satin__arg, size_t satin__len);                   \
    SATIN__TASK_DESCRIPTOR(NAME, 0, 0, CHECK, NAME)

/* The same with the bytes its data would have if they travelled with the
 * invocation instead of being made where it runs, for satin-trace (see
 * satin_task.data_size): `void DATA_SIZE(const void *arg, size_t len,
 * size_t result_len, uint64_t *arg_bytes, uint64_t *result_bytes)`. */
#define SATIN_BYTES_TASK_TRACED(NAME, CHECK, DATA_SIZE)                                         \
    static void NAME(SATIN_FRAME, const void *satin__arg, size_t satin__len);                   \
    static const satin_task NAME##__satin_task = {#NAME, 0, 0, (CHECK), NAME, (DATA_SIZE)};     \
    SATIN__REGISTER(satin_tasks, const satin_task, NAME##__satin_task)

/* The descriptor of a task declared in this file. */
#define SATIN_TASK_OF(NAME) (&NAME##__satin_task)

/* ---- spawn / sync ------------------------------------------------------------ */

/* satin_spawn(NAME, RESP, ARGS): a child invocation of the typed task NAME
 * with the argument value ARGS (an expression of its ARGS type); its result
 * goes to *RESP, defined after the next satin_sync().  The argument is taken
 * now: whatever it was built from may change at once. */
#define satin_spawn(NAME, RESP, ...)                                                            \
    do {                                                                                        \
        SATIN__STATIC_ASSERT(sizeof *(RESP) == sizeof(NAME##__satin_res),                       \
                             "satin_spawn: the result pointer's type is not the task's");       \
        satin_frame satin__c;                                                                   \
        if (__builtin_expect((uintptr_t)&satin__c >= satin__limit(), 1)) {                      \
            NAME##__satin_args satin__a = __VA_ARGS__; /* a value: kept in registers */         \
            satin__enter(&satin__c, satin__f, ++SATIN__N);                                      \
            *(RESP) = NAME(&satin__c, 0, satin__a);                                             \
            satin__leave(&satin__c);                                                            \
        } else {                                                                                \
            NAME##__satin_args satin__v = __VA_ARGS__;                                          \
            satin__spawn_queued(satin__f, ++SATIN__N, SATIN_TASK_OF(NAME), &satin__v,           \
                                sizeof satin__v, (RESP), sizeof *(RESP));                       \
        }                                                                                       \
    } while (0)

/* satin_spawn_bytes(NAME, ARG, LEN, RES, CAP): a child invocation of the
 * bytes task NAME with a copy of LEN argument bytes; its result (at most CAP
 * bytes) lands in RES by the next satin_sync(); satin_result_len() of the
 * same frame is not kept: a kind that needs the length returns it. */
#define satin_spawn_bytes(NAME, ARG, LEN, RES, CAP)                                             \
    do {                                                                                        \
        satin_frame satin__c;                                                                   \
        if (__builtin_expect((uintptr_t)&satin__c >= satin__limit(), 1)) {                      \
            satin__enter(&satin__c, satin__f, ++SATIN__N);                                      \
            satin__c.satin__out.slot = (RES);                                                   \
            satin__c.satin__out.cap = (CAP);                                                    \
            NAME(&satin__c, 0, (ARG), (LEN));                                                   \
            satin__leave(&satin__c);                                                            \
        } else {                                                                                \
            satin__spawn_queued(satin__f, ++SATIN__N, SATIN_TASK_OF(NAME), (ARG), (LEN), (RES), \
                                (CAP));                                                         \
        }                                                                                       \
    } while (0)

/* Runs or waits for every child spawned by this frame since its last sync.
 * (An invocation's children are synced when it returns, too.) */
#define satin_sync()                                                                            \
    do {                                                                                        \
        if (satin__f->satin__queued)                                                            \
            satin__sync_queued(satin__f);                                                       \
    } while (0)

/* A bytes task's result: more than the slot's capacity fails the job. */
#define satin_return(DATA, LEN) satin__return(satin__f, (DATA), (LEN))

/* Fails the whole job with a message for the user; the first failure wins. */
void satin_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* True once the job was cancelled or failed: a long loop may stop early.
 * (The spawns of a stopped job are dropped and its children do not run.) */
int satin_cancelled(void);

/* ---- grid-wide values (speculative search) ------------------------------------
 * A kind may declare values its jobs share on every node that runs them
 * (SATIN_KIND's .values: an array of satin_value_def ended by {NULL}):
 * a branch and bound's best bound, a first solution's "found" flag.  Each
 * is a lattice whose updates are joins: SATIN_LEAST keeps the least value
 * joined, SATIN_GREATEST the greatest, SATIN_BITS every bit ever set.  A
 * read is this node's copy and never waits; a join goes to the other nodes
 * running the job (at once inside a cluster, batched across the wide area:
 * PROTOCOL.md 14.12d).  A value may come late, so a search must stay exact
 * whatever it reads: prune what cannot beat the value, never what ties it. */
enum { SATIN_LEAST = 1, SATIN_GREATEST = 2, SATIN_BITS = 3 };
typedef struct satin_value_def {
    const char *name;     /* 1..31 bytes, unique within the kind */
    int join;             /* SATIN_LEAST, SATIN_GREATEST or SATIN_BITS */
} satin_value_def;
#define SATIN_VALUES_MAX 16

/* Value `i` (its place in the kind's .values) of the running job: INT64_MAX
 * for SATIN_LEAST, INT64_MIN for SATIN_GREATEST, 0 for SATIN_BITS while
 * nothing was joined; 0 when the job has no value i (a record run without
 * its kind's values: read it only with them declared). */
int64_t satin_value(int i);
/* Joins v into value i: 1 when it grew here, 0 when it did not (or the job
 * declares no value i). */
int satin_value_join(int i, int64_t v);

/* ---- parameters: a job record's key=value pairs ------------------------------- */

typedef struct satin_param_def {
    const char *name;
    const char *def;   /* default value as text; NULL: no default */
    int required;      /* 1: the user must give it */
    const char *help;
} satin_param_def;

/* The value of `name`, converted and range-checked: 0; 1 when absent (and
 * without a default); -1 with err set when malformed or out of range.
 * Integers are decimal digits with an optional '-' and no leading zero;
 * numbers are decimal notation (digits, '.', an exponent; no hex, inf, nan). */
int satin_param_i64(const satin_params *p, const char *name, int64_t min, int64_t max,
                    int64_t *out, satin_err *err);
int satin_param_f64(const satin_params *p, const char *name, double min, double max,
                    double *out, satin_err *err);
int satin_param_str(const satin_params *p, const char *name, const char **out,
                    satin_err *err);
/* 1 when the user (not a default) gave `name`. */
int satin_param_given(const satin_params *p, const char *name);

/* Appends bytes to the root's argument; -1 (err set) beyond the record limit. */
int satin_bytes_put(satin_bytes *b, const void *data, size_t len, satin_err *err);
/* The record limit of the daemon that parses (satind --max-record): the
 * largest argument a spawn may queue, and the largest result a record from
 * another node may bring. */
size_t satin_bytes_limit(const satin_bytes *b);
/* For a root whose result's size the parameters decide (an image that
 * format hands to satin_result_data): room for `size` bytes of result in
 * this job's root, instead of the kind's result_size when that is less.
 * 0, or -1 (err set) beyond the record limit. */
int satin_bytes_result_size(satin_bytes *b, size_t size, satin_err *err);

/* ---- results ----------------------------------------------------------------- */

void satin_result_i64(satin_result *r, const char *name, int64_t v);
void satin_result_f64(satin_result *r, const char *name, double v);
void satin_result_str(satin_result *r, const char *name, const char *v);
/* Bytes the client gets beside the key/values (an image, a matrix, a sorted
 * array): `satin-submit --output FILE` writes them.  Within the daemon's
 * record limit; called at most once (a second call replaces the first);
 * `type` names their format for people ("image/x-portable-pixmap"). */
void satin_result_data(satin_result *r, const char *type, const void *data, size_t len);

/* ---- kinds ------------------------------------------------------------------- */

struct satin_kind {
    const char *name;                  /* what a job record names, e.g. "uts" */
    const char *summary;               /* one line for --list-kinds */
    const satin_param_def *params;     /* terminated by {NULL} */
    /* Parameters -> the root task's argument bytes.  Unknown keys and
     * missing required ones were refused before. */
    int (*parse)(const satin_params *p, satin_bytes *arg, satin_err *err);
    const satin_task *root;
    size_t result_size;                /* the root result's capacity; 0: the root task's */
    /* The root's result bytes -> what the user sees (pure), and statistics
     * that may depend on the wall time (e.g. nodes/s). */
    void (*format)(const void *res, size_t len, double wall_s, satin_result *result,
                   satin_result *stats);
    /* The values its jobs share (see satin_value), ended by {NULL}; NULL: none.
     * Records of the kind's root task run elsewhere get them too. */
    const satin_value_def *values;
};

/* SATIN_KIND(NAME, FIELDS...): the kind NAME of this module, e.g.
 * SATIN_KIND(fib, .summary = "...", .params = fib_params, .parse = fib_parse,
 *            .root = SATIN_TASK_OF(fib), .format = fib_format); */
#define SATIN_KIND(NAME, ...)                                                                   \
    SATIN__KIND_BEGIN                                                                           \
    static const satin_kind NAME##__satin_kind = {.name = #NAME, __VA_ARGS__};                  \
    SATIN__KIND_END                                                                             \
    SATIN__REGISTER(satin_kinds, const satin_kind, NAME##__satin_kind)

/* ---- the module --------------------------------------------------------------- */

typedef struct satin_module {
    uint32_t api_version;              /* SATIN_API_VERSION it was built with: first, always */
    uint32_t size;                     /* sizeof(satin_module) */
    const char *name, *version;
    const satin_kind *const *kinds, *const *kinds_end;
    const satin_task *const *tasks, *const *tasks_end;
    uint32_t kind_size;                /* sizeof(satin_kind) */
} satin_module;

/* Once per module: its name and version (for --list-kinds and the log).
 * Its kinds and tasks are those of its files (SATIN_KIND, SATIN_TASK). */
#define SATIN_MODULE(NAME, VERSION)                                                             \
    SATIN__EXTERN_C const satin_kind *const __start_satin_kinds[]                               \
        __attribute__((weak, visibility("hidden")));                                           \
    SATIN__EXTERN_C const satin_kind *const __stop_satin_kinds[]                                \
        __attribute__((weak, visibility("hidden")));                                           \
    SATIN__EXTERN_C const satin_task *const __start_satin_tasks[]                               \
        __attribute__((weak, visibility("hidden")));                                           \
    SATIN__EXTERN_C const satin_task *const __stop_satin_tasks[]                                \
        __attribute__((weak, visibility("hidden")));                                           \
    SATIN__EXTERN_C __attribute__((visibility("default"))) const satin_module *                 \
    satin_module_entry(void);                                                                   \
    SATIN__EXTERN_C __attribute__((visibility("default"))) const satin_module *                 \
    satin_module_entry(void)                                                                    \
    {                                                                                           \
        static const satin_module m = {SATIN_API_VERSION, sizeof(satin_module), NAME, VERSION, \
                                       __start_satin_kinds, __stop_satin_kinds,                 \
                                       __start_satin_tasks, __stop_satin_tasks,                 \
                                       sizeof(satin_kind)};                                     \
        return &m;                                                                              \
    }

/* ---- the runtime's half of the inline spawn -----------------------------------
 * Layouts a kind uses only through the macros above. */

/* A running invocation.  An in-place child's frame is set up with three
 * stores (satin__enter); its place in the job's spawn tree is computed from
 * its parent's only when needed (a queued descendant, an orphan, tracing). */
struct satin_frame {
    uint32_t satin__queued;            /* children queued since the last sync */
    int32_t satin__depth;              /* nesting, once computed */
    uint64_t satin__index;             /* among its parent's spawns, from 1 */
    satin_frame *satin__parent;        /* the spawner; NULL once the place is known */
    uint64_t satin__place;
    struct {
        void *slot;
        size_t cap, len;
    } satin__out;                      /* where a record's or a bytes task's result goes */
    void *satin__children;             /* the runtime's, from the first queued spawn */
    int64_t satin__base;
    void *satin__mark_block;
    size_t satin__mark_used;
};

/* Per worker thread: the stack address at or above which a child runs in
 * place (UINTPTR_MAX: none may; the runtime raises it whenever in-place runs
 * must stop: a thief is hungry, the job stopped, orphans wait...). */
typedef struct satin__hot_t {
    uintptr_t limit;
} satin__hot_t;
/* __thread, not C++'s thread_local: no initialiser can run, so C++ reaches
 * it without a wrapper call, as C does. */
extern __thread satin__hot_t satin__hot __attribute__((tls_model("initial-exec")));

static inline uintptr_t satin__limit(void)
{
    return __atomic_load_n(&satin__hot.limit, __ATOMIC_RELAXED);
}

static inline void satin__enter(satin_frame *c, satin_frame *parent, uint64_t index)
{
    c->satin__queued = 0;
    c->satin__parent = parent;
    c->satin__index = index;
}

void satin__sync_queued(satin_frame *f);
void satin__spawn_queued(satin_frame *f, uint64_t index, const satin_task *task,
                         const void *arg, size_t len, void *result, size_t result_cap);
void satin__return_too_large(satin_frame *f, size_t len);

/* The implicit sync that ends every invocation. */
static inline void satin__leave(satin_frame *c)
{
    if (__builtin_expect(c->satin__queued != 0, 0))
        satin__sync_queued(c);
}

static inline void satin__return(satin_frame *f, const void *data, size_t len)
{
    if (__builtin_expect(len > f->satin__out.cap, 0)) {
        satin__return_too_large(f, len);
        return;
    }
    if (len)
        memcpy(f->satin__out.slot, data, len);
    f->satin__out.len = len;
}

/* The count of a body's spawns, whether the body's own (a parameter: a
 * register) or, in a helper, the body's through a pointer. */
#ifdef __cplusplus
extern "C++" {
static inline uint64_t &satin__counter(uint64_t &n) { return n; }
static inline uint64_t &satin__counter(uint64_t *n) { return *n; }
}
#define SATIN__N satin__counter(satin__n)
#define SATIN__STATIC_ASSERT(c, m) static_assert(c, m)
/* The entry point keeps its C name, which the loader looks up. */
#define SATIN__EXTERN_C extern "C"
/* C++ warns of the fields a designated initialiser leaves out (C does not):
 * they are meant to be zero. */
#define SATIN__KIND_BEGIN                                                                       \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")
#define SATIN__KIND_END _Pragma("GCC diagnostic pop")
#else
#define SATIN__EXTERN_C extern
#define SATIN__KIND_BEGIN
#define SATIN__KIND_END
#define SATIN__N \
    (*_Generic(satin__n, uint64_t *: (uint64_t *)(uintptr_t)satin__n, default: &satin__n))
#define SATIN__STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* Descriptors go into sections of their own, which the module's entry
 * point finds (GNU ld's __start_/__stop_ symbols): a task or kind cannot
 * be left out of its module's list. */
#define SATIN__REGISTER(SECTION, TYPE, OBJ)                                                     \
    __attribute__((used, section(#SECTION))) static TYPE *const OBJ##__satin_reg = &(OBJ);

#define SATIN__TASK_DESCRIPTOR(NAME, ARG_SIZE, RESULT_SIZE, CHECK, RUN)                         \
    static const satin_task NAME##__satin_task = {#NAME, (ARG_SIZE), (RESULT_SIZE), (CHECK),    \
                                                  (RUN), NULL};                                 \
    SATIN__REGISTER(satin_tasks, const satin_task, NAME##__satin_task)

#ifdef __cplusplus
}
#endif
#endif
