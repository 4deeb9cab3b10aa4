/*
 * loop.h - the one event loop of satind and satin-wanem: epoll over every
 * file descriptor a program watches, a timerfd for the next deadline, and
 * (optionally) a signalfd.  Each descriptor's handler is a `watch`; after
 * every batch of events the loop calls `pump`, which does what is due and
 * says when it must run next.  ZeroMQ sockets are watched through their
 * ZMQ_FD; since that descriptor only says "look again", their owner drains
 * them in its handler and again in its pump (libzmq's documented rule).
 */
#ifndef SATIN_LOOP_H
#define SATIN_LOOP_H

#include <stddef.h>
#include <stdint.h>

#define SATIN_LOOP_NEVER INT64_MAX

typedef struct satin_watch satin_watch;
typedef void (*satin_watch_fn)(satin_watch *w, uint32_t events);

struct satin_watch {
    satin_watch_fn fn;
    int fd;
    uint32_t mask;                     /* the events asked for now */
    int added;                         /* in the epoll set */
    void *arg;                         /* the owner's, untouched by the loop */
};

typedef struct satin_loop {
    int epfd, timerfd, sigfd;
    int64_t armed_ns;                  /* the timer's deadline, SATIN_LOOP_NEVER if disarmed */
    /* How much later than the time its last call asked for the pump is
     * called now (0 when not late): a process that was stopped (SIGSTOP,
     * a paused machine) or starved sees it, and may not take the silence
     * of others over that time for theirs. */
    int64_t late_ns;
    int64_t due_ns;                    /* what the last pump asked for */
    int stop;
    int signal;                        /* the signal that stopped it, 0 if none */
    satin_watch timer_w, sig_w;
} satin_loop;

/* `stop_signals` (0-terminated, or NULL for none) are blocked and end the
 * loop when they arrive; SIGPIPE is ignored.  -1 with a message in err. */
int satin_loop_init(satin_loop *l, const int *stop_signals, char *err, size_t errlen);
void satin_loop_close(satin_loop *l);

/* Adds fd with the events in mask; -1 with errno on failure. */
int satin_loop_add(satin_loop *l, satin_watch *w, int fd, uint32_t mask, satin_watch_fn fn);
/* Changes the events asked for (no system call when they are the same). */
int satin_loop_set(satin_loop *l, satin_watch *w, uint32_t mask);
/* Removes it from the set (before its fd is closed). */
void satin_loop_remove(satin_loop *l, satin_watch *w);

/* Runs until a stop signal or satin_loop_stop().  `pump` returns the next
 * time (satin_now_ns) it must run (SATIN_LOOP_NEVER: only after events). */
void satin_loop_run(satin_loop *l, int64_t (*pump)(void *arg, int64_t now), void *arg);
void satin_loop_stop(satin_loop *l);

#endif
