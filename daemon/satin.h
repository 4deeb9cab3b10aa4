/*
 * satin.h - the job API for writers of job kinds.
 *
 * A kind is a pure function of its argument bytes, written with spawn and
 * sync as in Satin/Cilk.  satin_spawn() records an invocation at the head of
 * the calling worker's deque, or runs it at once while that deque holds
 * enough work for thieves (the common case, inline below); load balancing
 * takes records from the tail; satin_sync() runs this frame's own children
 * (LIFO) and waits for those that were stolen.  A child's result is written
 * into the slot its parent named and is only defined after satin_sync().
 *
 * Kinds know nothing of threads, sockets or the wire: the same kind runs
 * inside satind, in the unit tests and in the benchmarks.
 */
#ifndef SATIN_H_INCLUDED
#define SATIN_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: spawn, sync and return are inline and the frame's layout is in this
 * header (the spawn fast path): kinds built against 1 must be rebuilt.
 * 3: the frame no longer holds its worker and job (the thread-local
 * satin_here does); satin_out_of.  Kinds are linked into the daemon: a
 * kind built against 2 must be rebuilt. */
#define SATIN_API_VERSION 3

typedef struct satin_ctx satin_ctx;       /* the running frame */
typedef struct satin_out satin_out;       /* where this invocation's result goes */
typedef struct satin_kind satin_kind;
typedef struct satin_params satin_params; /* key=value parameters of a job record */
typedef struct satin_bytes satin_bytes;   /* a growable byte buffer (argument bytes) */
typedef struct satin_result satin_result; /* typed key/value output of a kind */

/* An error message a kind hands back to the user verbatim. */
typedef struct satin_err {
    char msg[256];
} satin_err;

/* Sets err->msg and returns -1, so that parsers can `return satin_err_set(...)`. */
int satin_err_set(satin_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- spawn / sync ------------------------------------------------------ */

/* Records an invocation of `kind` with a copy of `len` argument bytes.  The
 * child's result (at most `result_cap` bytes) lands in `result` by the next
 * satin_sync() of this frame.  The argument is copied now: the caller's
 * buffer may be reused at once.  (While the worker's deque holds enough
 * work for thieves, the child runs at once instead, in place: the same
 * computation, since results are defined only after the sync.) */
static inline void satin_spawn(satin_ctx *ctx, const satin_kind *kind, const void *arg,
                               size_t len, void *result, size_t result_cap);

/* Runs or waits for every child spawned by this frame since its last sync. */
static inline void satin_sync(satin_ctx *ctx);

/* Sets this invocation's result.  More than the slot's capacity fails the job. */
static inline void satin_return(satin_out *out, const void *data, size_t len);

/* The invocation's own out, the one its run function was given: a helper
 * that has the frame need not be given both (one register less to keep). */
static inline satin_out *satin_out_of(satin_ctx *ctx);

/* Fails the whole job with a message for the user; the first failure wins. */
void satin_fail(satin_out *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* True once the job was cancelled or failed: long loops may stop early.
 * (Spawns of a cancelled job are dropped and its children are not run.) */
int satin_cancelled(const satin_ctx *ctx);

/* ---- parameters --------------------------------------------------------- */

typedef struct satin_param_def {
    const char *name;
    const char *def;   /* default value as text; NULL: no default */
    int required;      /* 1: the user must give it */
    const char *help;
} satin_param_def;

/* Getters: the value of `name` converted and range-checked.  They return 0,
 * 1 when the parameter is absent (and has no default), -1 with err set when
 * it is malformed or out of range.  Integers are decimal digits with an
 * optional '-' and no leading zero (no octal, hex or blanks); numbers are
 * decimal notation (digits, '.', an exponent; no hex, inf or nan). */
int satin_param_i64(const satin_params *p, const char *name, int64_t min,
                    int64_t max, int64_t *out, satin_err *err);
int satin_param_f64(const satin_params *p, const char *name, double min,
                    double max, double *out, satin_err *err);
int satin_param_str(const satin_params *p, const char *name, const char **out,
                    satin_err *err);
/* 1 when the user (not a default) gave `name`. */
int satin_param_given(const satin_params *p, const char *name);

/* Appends bytes to an argument buffer; -1 (err set) beyond the record limit. */
int satin_bytes_put(satin_bytes *b, const void *data, size_t len, satin_err *err);
/* The record limit of the daemon that parses (satind --max-record): the
 * largest argument a spawn may queue and the largest result a record from
 * another node may bring. */
size_t satin_bytes_limit(const satin_bytes *b);

/* ---- results ------------------------------------------------------------ */

void satin_result_i64(satin_result *r, const char *name, int64_t v);
void satin_result_f64(satin_result *r, const char *name, double v);
void satin_result_str(satin_result *r, const char *name, const char *v);

/* ---- kinds -------------------------------------------------------------- */

typedef void satin_run_fn(satin_ctx *ctx, const void *arg, size_t len,
                          satin_out *out);

struct satin_kind {
    const char *name;        /* what a job record names, e.g. "uts" */
    const char *summary;     /* one line for --list-kinds */
    const satin_param_def *params; /* terminated by {NULL} */
    /* Job record parameters -> argument bytes of the root invocation.
     * Unknown keys and missing required ones were rejected before. */
    int (*parse)(const satin_params *p, satin_bytes *arg, satin_err *err);
    satin_run_fn *run;
    size_t result_size;      /* capacity of the root invocation's result slot */
    /* Root result bytes -> user-visible result (pure) and extra statistics
     * that may depend on the wall time (e.g. nodes/s). */
    void (*format)(const void *res, size_t len, double wall_s,
                   satin_result *result, satin_result *stats);
    /* Optional, read only when a job is traced (bench/trace): the bytes an
     * invocation's argument and result would have if its data travelled
     * with it instead of being regenerated where it runs (matmul's blocks,
     * the raytracer's pixels), from its argument and its result's length.
     * NULL: the bytes passed are the data. */
    void (*data_size)(const void *arg, size_t len, size_t result_len, uint64_t *arg_bytes,
                      uint64_t *result_bytes);
    /* Required: whether argument bytes that came from another node may be
     * run: 0 when run() may be given them, -1 with err set (a message for
     * the user that starts "KIND:" and says what is wrong) when not.  Bytes
     * that pass keep run() within the bounds parse() sets and the kind's
     * own spawns keep: it neither crashes nor overflows, nor recurses, loops
     * or allocates past what those bounds allow, nor reads beyond the
     * argument.  It accepts whatever parse() makes and every argument the
     * kind spawns.  satind calls it on its control thread, once, before a
     * record of another node runs there (and before a record of its own
     * runs again after the node holding it died); a record that fails is
     * refused (its result message carries err) and counted
     * (records_refused).  So it is cheap (the length, then a function of the
     * decoded argument), does no I/O and keeps no state.  Spawns of this
     * node and parse's own output are not checked again.  `max_record` is
     * the checking node's record limit (satind --max-record), the one
     * satin_bytes_limit() gives parse(): a kind whose bounds depend on it
     * (records that carry data) holds them to this node's. */
    int (*check)(const void *arg, size_t len, size_t max_record, satin_err *err);
};

/* ---- the inline part of spawn/sync --------------------------------------
 * The common spawn runs its child in place, and the common sync has nothing
 * queued: both are inline, so that a spawn costs a flag test, a frame on the
 * stack and the kind's own call (with the kind known at compile time, a
 * direct call).  The layouts below are shared with the runtime for that
 * alone: kinds use the functions, never the fields. */

struct satin_job;
struct satin_worker;
struct satin_record;
struct satin_arena_block;

/* Part of the invocation's frame (satin_ctx's `out`), which knows the job. */
struct satin_out {
    void *slot;
    size_t cap, len;
};

/* What the inline spawn reads and counts: one per thread, so that a spawn
 * reaches it without a pointer (one %fs-relative operand).  A worker
 * thread's is its worker's (`w`); other threads keep the initial one, whose
 * limit never lets a child run in place.  Other threads write `limit` and
 * read `spawns` through the worker's pointer to it: both are accessed with
 * atomic builtins.  (Frames never move between threads: a frame is on the
 * stack of the worker that runs it.) */
typedef struct satin_hot {
    /* A child runs in place while the spawning frame's stack address is at
     * or above this: the stack's line while the runtime allows children in
     * place (runtime/spawn.c says when), UINTPTR_MAX while it does not. */
    uintptr_t limit;
    /* The spawns of the frames that ended on this worker, counted when each
     * ends (one addition per frame that spawned, none per spawn). */
    uint64_t spawns;
    struct satin_worker *w;  /* this thread's worker; NULL on other threads */
    struct satin_job *job;   /* the job of the invocation running on top */
} satin_hot;

#ifdef __cplusplus
extern thread_local satin_hot satin_here __attribute__((tls_model("local-exec")));
#else
extern _Thread_local satin_hot satin_here __attribute__((tls_model("local-exec")));
#endif

/* A running invocation's frame.  A child run in place fills in the first
 * group (`depth` and `place` excepted).  Its place in the spawn tree and its
 * depth are computed when first needed, from the parent's: until then
 * `parent` is set, and the child's index among its parent's children is the
 * parent's `nchildren`, which cannot change while the parent waits in the
 * spawn that runs this child.  The runtime's group is set by the frame's
 * first queued spawn after a sync.  Its worker and job are those of
 * satin_here, the thread's. */
struct satin_ctx {
    uint32_t queued;         /* children queued since the last sync */
    int depth;               /* nesting of invocations on this worker, 1 outermost */
    uint64_t nchildren;      /* spawns so far, across syncs: the last child's index */
    satin_ctx *parent;       /* the spawning frame; NULL once `place` and `depth` are set */
    uint64_t place;          /* of this invocation in its job's spawn tree */
    satin_out out;           /* the invocation's result */

    struct satin_record *children;  /* queued since the last sync, newest first */
    int64_t base;                   /* deque head before the first of them */
    struct satin_arena_block *mark_block;   /* the record arena before them */
    size_t mark_used;
};

/* Adds n to this thread's spawn count.  Only this thread writes it and
 * others read it with relaxed atomic loads, so a relaxed store of the sum
 * would do; on x86-64 it is one add to %fs-relative memory instead, which
 * such loads see whole, as a relaxed store (one instruction per spawning
 * frame, against a load, an add and a store). */
#if defined(__SANITIZE_THREAD__)
#define SATIN_COUNT_BY_STORE 1    /* ThreadSanitizer sees no asm: GCC */
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SATIN_COUNT_BY_STORE 1    /* clang */
#endif
#endif
static inline void satin_count_spawns(uint64_t n)
{
#if defined(__x86_64__) && !defined(SATIN_COUNT_BY_STORE)
    __asm__("addq %1, %0" : "+m"(satin_here.spawns) : "er"(n));
#else
    __atomic_store_n(&satin_here.spawns, __atomic_load_n(&satin_here.spawns, __ATOMIC_RELAXED) + n,
                     __ATOMIC_RELAXED);
#endif
}

/* The out-of-line halves: a spawn that does not run in place, a sync with
 * queued children, a result too large. */
void satin_spawn_general(satin_ctx *ctx, const satin_kind *kind, const void *arg, size_t len,
                         void *result, size_t result_cap);
void satin_sync_queued(satin_ctx *ctx);
void satin_return_too_large(satin_out *out, size_t len);

static inline void satin_spawn(satin_ctx *ctx, const satin_kind *kind, const void *arg,
                               size_t len, void *result, size_t result_cap)
{
    /* The stack line is checked against the child frame's address, which
     * the call needs anyway, and the worker's counters are the thread's
     * (satin_here): so a spawning function keeps no register alive across
     * its spawns for either, and a child frame holds only what is its own. */
    satin_ctx child;
    if (__builtin_expect((uintptr_t)&child >= __atomic_load_n(&satin_here.limit, __ATOMIC_RELAXED),
                         1)) {
        /* queued, depth (not known yet) and nchildren: one 16-byte store */
        memset(&child, 0, offsetof(satin_ctx, parent));
        child.parent = ctx;
        ctx->nchildren++;
        child.out.slot = result;
        child.out.cap = result_cap;
        /* out.len is left unset: only a record's run reads it back (the
         * runtime's, which sets it).  Setting it made the compiler store
         * cap and len as one 16-byte vector, from which the child's first
         * read of cap cannot be forwarded at once (fib: 5 % slower). */
        kind->run(&child, arg, len, &child.out);
        /* One test for the common child, which spawned nothing: only a
         * child that spawned can have queued. */
        if (child.nchildren) {
            if (child.queued)
                satin_sync_queued(&child); /* the implicit sync that ends every invocation */
            satin_count_spawns(child.nchildren);
        }
        return;
    }
    satin_spawn_general(ctx, kind, arg, len, result, result_cap);
}

static inline satin_out *satin_out_of(satin_ctx *ctx)
{
    return &ctx->out;
}

static inline void satin_sync(satin_ctx *ctx)
{
    if (ctx->queued)
        satin_sync_queued(ctx);
}

static inline void satin_return(satin_out *out, const void *data, size_t len)
{
    if (__builtin_expect(len > out->cap, 0)) {
        satin_return_too_large(out, len);
        return;
    }
    if (len)
        memcpy(out->slot, data, len);
    out->len = len;
}

#ifdef __cplusplus
}
#endif
#endif
