/*
 * satind.c - the per-node daemon: options, signals, the worker pool and the
 * control thread (this thread), and a clean stop.
 */
#include "control.h"
#include "log.h"
#include "options.h"
#include "pool.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* Without --foreground: the parent returns once the child listens (or
 * exits 1 when the child could not start), like a classic daemon. */
static int detach(int *ready_fd)
{
    int p[2];
    if (pipe(p) < 0) {
        perror("satind: pipe");
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("satind: fork");
        return -1;
    }
    if (pid > 0) {
        close(p[1]);
        char c;
        ssize_t n = read(p[0], &c, 1);
        _exit(n == 1 ? 0 : 1);
    }
    close(p[0]);
    setsid();
    if (chdir("/") < 0) {
        /* Not fatal: we only use absolute paths. */
    }
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        close(null);
    }
    *ready_fd = p[1];
    return 0;
}

int main(int argc, char **argv)
{
    satind_options opt;
    int rc = satind_options_parse(&opt, argc, argv);
    if (rc == 1)
        return 0;
    if (rc == 2)
        return 2;
    satin_log_set_level((satin_log_level)opt.log_level);

    int ready_fd = -1;
    if (!opt.foreground && detach(&ready_fd) < 0)
        return 1;

    /* Signals are taken synchronously by the control loop; block them
     * before any thread starts so that no worker receives them. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0) {
        log_error("cannot create a signalfd: %m");
        return 1;
    }

    satin_pool *pool = satin_pool_new(&(satin_pool_config){
        .workers = opt.workers,
        .max_record = opt.max_record,
    });
    satin_control *ctl = satin_control_new(&opt, pool);
    if (!ctl) {
        satin_pool_destroy(&pool);
        return 1;
    }
    if (ready_fd >= 0) {
        if (write(ready_fd, "1", 1) < 0) {
            /* The parent is gone; carry on. */
        }
        close(ready_fd);
    }
    int drained = satin_control_run(ctl, sfd);
    satin_control_destroy(&ctl);
    if (drained)
        satin_pool_destroy(&pool);
    /* else: a job is stuck in sequential code; exit without joining it. */
    close(sfd);
    log_info("stopped");
    return 0;
}
