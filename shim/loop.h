/*
 * loop.h - the one event loop: epoll over every socket, a timerfd for the
 * next moment held bytes fall due or tokens come back, and a signalfd for
 * SIGTERM and SIGINT (which end the loop).  Each socket's handler is a
 * `watch`; after every batch of events the loop calls `pump`, which sends
 * what may go and says when it next needs to run.
 */
#ifndef WANEM_LOOP_H
#define WANEM_LOOP_H

#include <stddef.h>
#include <stdint.h>

#define LOOP_NEVER INT64_MAX

typedef struct watch watch;
typedef void (*watch_fn)(watch *w, uint32_t events);

struct watch {
    watch_fn fn;
    int fd;
    uint32_t mask;                     /* the events asked for now */
    int added;                         /* in the epoll set */
};

typedef struct wan_loop {
    int epfd, timerfd, sigfd;
    int64_t armed_ns;                  /* the timer's deadline, LOOP_NEVER if disarmed */
    int stop;
    int signal;                        /* the signal that stopped it, 0 if none */
    watch timer_w, sig_w;
} wan_loop;

/* Blocks SIGTERM and SIGINT (they arrive through the loop) and ignores
 * SIGPIPE.  -1 with a message in err. */
int loop_init(wan_loop *l, char *err, size_t errlen);
void loop_close(wan_loop *l);

/* Adds fd with the events in mask; -1 with errno on failure. */
int loop_add(wan_loop *l, watch *w, int fd, uint32_t mask, watch_fn fn);
/* Changes the events asked for (no system call when they are the same). */
int loop_set(wan_loop *l, watch *w, uint32_t mask);
/* Removes it from the set (before its fd is closed). */
void loop_remove(wan_loop *l, watch *w);

/* Runs until a signal or loop_stop().  `pump` returns the next time it must
 * run (LOOP_NEVER: only after events). */
void loop_run(wan_loop *l, int64_t (*pump)(void *arg, int64_t now), void *arg);
void loop_stop(wan_loop *l);

#endif
