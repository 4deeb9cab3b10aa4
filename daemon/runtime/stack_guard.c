/*
 * stack_guard.c - a kind's own recursion that overflows its worker's stack
 * fails its job instead of killing the process.
 *
 * Spawns watch the stack themselves (spawn.c: the depth guard fails the job
 * 4 MiB above the end), but a kind's sequential code does not spawn: fib's
 * leaves, given an argument a peer made up, could recurse until the stack's
 * guard page faults.  Every worker has an alternate signal stack, and every
 * record it runs sets a recovery point (satin_record_run).  A SIGSEGV or
 * SIGBUS whose stack pointer is below the depth guard of the worker it hits
 * is such an overflow: the handler stops the innermost record's job, drops
 * the records that record's frames queued and nobody took, waits (on the
 * alternate stack, so that nothing overwrites them) until those that were
 * stolen have written their results into the abandoned frames, and jumps
 * back to the recovery point, where the record ends with the job failed.
 * Any other fault goes to the handler that was there before (or the
 * default one: a core dump).
 *
 * What it cannot undo: a lock the kind's code held when it overflowed (the
 * C library's malloc, say) stays held, and this worker may block on it
 * later.  Kinds built with -fstack-clash-protection (the satin-kind.pc
 * flags) touch every page of a large frame in turn, so the overflow meets
 * the guard and not a mapping below it.
 */
#include "pool_internal.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define UNDER_ASAN 1
#endif
#endif

/* The alternate stack: the handler, the deque and a yield loop. */
#define ALT_STACK_SIZE ((size_t)64 << 10)
/* How far below the stack's lowest address a faulting frame may reach and
 * still be an overflow of it (a large frame moves the stack pointer past the
 * guard in one step). */
#define GUARD_REACH ((uintptr_t)16 << 20)

static struct sigaction previous_segv, previous_bus;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static uintptr_t fault_sp(const void *ucv)
{
    const ucontext_t *uc = ucv;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.sp;
#else
    (void)uc;
    return UINTPTR_MAX;   /* unknown: never taken for an overflow */
#endif
}

/* Not ours: as if we were not installed. */
static void pass_on(int sig, siginfo_t *si, void *ucv)
{
    const struct sigaction *old = sig == SIGBUS ? &previous_bus : &previous_segv;
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
        old->sa_sigaction(sig, si, ucv);
        return;
    }
    if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
        return;
    }
    /* The default action: the faulting instruction runs again and faults
     * with it, which dumps core where it happened. */
    signal(sig, SIG_DFL);
}

/* Runs on the alternate stack; only atomics, the owner's end of the deque
 * and sched_yield, all safe in a signal handler. */
static void abandon(satin_worker *w, satin_recovery *rc)
{
    while (satin_deque_head(&w->deque) > rc->base) {
        satin_record *r = satin_deque_take(&w->deque);
        if (!r)
            break;
        atomic_store_explicit(&r->done, 1, memory_order_relaxed);   /* never to run */
    }
    /* What is left in the arena above the mark are the records of the
     * abandoned frames: the ones still not done were stolen. */
    for (satin_arena_block *b = rc->mark.block;; b = b->next) {
        size_t at = b == rc->mark.block ? rc->mark.used : 0;
        while (at < b->used) {
            satin_record *r = (satin_record *)(void *)(b->mem + at);
            while (!atomic_load_explicit(&r->done, memory_order_acquire))
                sched_yield();
            at += (sizeof *r + r->len + 15) & ~(size_t)15;
        }
        if (b == w->arena.cur)
            break;
    }
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
    satin_worker *w = satin_worker_here();
    uintptr_t sp = fault_sp(ucv);
    satin_recovery *rc = w ? w->recovery : NULL;
    if (!rc || sp >= w->stack_floor || sp + GUARD_REACH < w->stack_base) {
        pass_on(sig, si, ucv);
        return;
    }
    atomic_store_explicit(&rc->job->stop, 1, memory_order_seq_cst);
    satin_pool_clear_fast(w->pool);
    abandon(w, rc);
    siglongjmp(rc->env, 1);
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_segv);
    sigaction(SIGBUS, &sa, &previous_bus);
}

void satin_stack_guard_install(void)
{
    pthread_once(&installed, install);
}

void satin_stack_guard_thread_begin(satin_worker *w)
{
    w->altstack = malloc(ALT_STACK_SIZE);
    if (!w->altstack)
        abort();
    stack_t ss = {.ss_sp = w->altstack, .ss_size = ALT_STACK_SIZE, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) < 0) {
        free(w->altstack);
        w->altstack = NULL;   /* no alternate stack: an overflow still kills */
    }
}

void satin_stack_guard_thread_end(satin_worker *w)
{
    if (!w->altstack)
        return;
    stack_t ss = {.ss_flags = SS_DISABLE};
    sigaltstack(&ss, NULL);
    free(w->altstack);
    w->altstack = NULL;
}

/* AddressSanitizer clears the redzones of the frames a longjmp leaves only
 * when it jumps on one stack; ours came from the alternate one, so the
 * abandoned frames' are cleared here: everything below this function's own
 * frame, which has no variables of its own (the caller calls it first). */
__attribute__((noinline)) void satin_stack_guard_unpoison(satin_worker *w)
{
#ifdef UNDER_ASAN
    uintptr_t hi = (uintptr_t)__builtin_frame_address(0) - 64;
    if (hi > w->stack_base)
        __asan_unpoison_memory_region((void *)w->stack_base, hi - w->stack_base);
#else
    (void)w;
#endif
}

void satin_stack_guard_recovered(satin_worker *w, satin_recovery *rc)
{
    /* The jump left the handler with its signal still blocked (the
     * recovery point does not save the mask: that would be a system call
     * per record): without this, the next overflow would kill. */
    sigset_t faults;
    sigemptyset(&faults);
    sigaddset(&faults, SIGSEGV);
    sigaddset(&faults, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &faults, NULL);
    char msg[224];
    snprintf(msg, sizeof msg,
             "recursion too deep: %s's own code overflowed the worker stack (%zu MiB)",
             rc->task->name, w->pool->stack_size >> 20);
    satin_job_fail(rc->job, msg);
    satin_arena_reset(&w->arena, rc->mark);
    /* Its pages below go back after the record, as after any deep job. */
    w->went_deep = 1;
    w->stack_check = w->stack_floor;
    satin_worker_clear_fast(w);
}
