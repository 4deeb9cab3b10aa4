/*
 * test_accept_guard.c - libzmq's IPC listener in a process that is out of
 * descriptors, with satind's accept guard (daemon/accept_guard.c) in front
 * of accept(), as satind has it.  libzmq 4.3.4 aborts the process on an
 * IPC accept that fails with EMFILE; with the guard the failure reaches it
 * as ENFILE: the process lives, and the monitor reports the failed accepts.
 * Without the guard this test dies of SIGABRT.
 *
 * A child process opens the connections (its descriptors are its own);
 * this process lowers its own open-file limit to what it uses plus two.
 */
#include "../tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#define CONNECTIONS 40

/* The limit under which this process can open exactly two descriptors
 * more: one above the second lowest free number (the kernel hands out the
 * lowest free one and refuses numbers at or above the limit; descriptors
 * inherited with holes below them, as under make or prove, make a count of
 * open ones the wrong measure). */
static long limit_for_two_more(void)
{
    int found = 0;
    for (long fd = 0;; fd++)
        if (fcntl((int)fd, F_GETFD) < 0 && errno == EBADF && ++found == 2)
            return fd + 1;
}

/* libzmq 4.3.4 loses one small allocation of its IPC listener when an
 * accept fails (what this test makes happen); not ours to free. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libzmq.so\n";
}

/* Reads monitor events, counting accepts and failed ones, until both have
 * come or `secs` of wall time have passed (a bound, not a speed: under load
 * the child's connections and libzmq's accepts come late). */
static void read_events(void *mon, int secs, int *accepted, int *failed, int *failed_errno)
{
    int64_t deadline = tap_now_ns_() + (int64_t)secs * 1000000000;
    while ((*accepted < 1 || *failed < 1) && tap_now_ns_() < deadline) {
        zmq_pollitem_t it = {mon, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 10) <= 0)
            continue;
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, mon, 0) < 0)
            continue;
        const unsigned char *p = zmq_msg_data(&m);
        uint16_t ev;
        uint32_t val;
        memcpy(&ev, p, 2);
        memcpy(&val, p + 2, 4);
        zmq_msg_close(&m);
        zmq_msg_init(&m);
        zmq_msg_recv(&m, mon, 0);   /* the endpoint */
        zmq_msg_close(&m);
        if (ev == ZMQ_EVENT_ACCEPTED)
            (*accepted)++;
        if (ev == ZMQ_EVENT_ACCEPT_FAILED) {
            (*failed)++;
            *failed_errno = (int)val;
        }
    }
}

int main(void)
{
    char dir[] = "/tmp/satin-accept-guard.XXXXXX";
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    char path[100], endpoint[160];
    snprintf(path, sizeof path, "%s/s.sock", dir);
    snprintf(endpoint, sizeof endpoint, "ipc://%s", path);
    void *ctx = zmq_ctx_new();
    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    void *mon = zmq_socket(ctx, ZMQ_PAIR);
    ok(zmq_socket_monitor(router, "inproc://guard-mon",
                          ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_ACCEPT_FAILED) == 0 &&
           zmq_connect(mon, "inproc://guard-mon") == 0 && zmq_bind(router, endpoint) == 0,
       "a ROUTER listens on %s, monitored", endpoint);

    int go[2];
    if (pipe(go) < 0) {
        printf("Bail out! pipe: %s\n", strerror(errno));
        return 1;
    }
    pid_t child = fork();
    if (child == 0) {
        close(go[1]);   /* so that the parent's death, too, ends the wait below */
        for (int i = 0; i < CONNECTIONS; i++) {
            int s = socket(AF_UNIX, SOCK_STREAM, 0);
            struct sockaddr_un a = {.sun_family = AF_UNIX};
            snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
            if (s >= 0)
                connect(s, (struct sockaddr *)&a, sizeof a);
        }
        char c;
        while (read(go[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }

    close(go[0]);
    struct rlimit old, low;
    getrlimit(RLIMIT_NOFILE, &old);
    low = old;
    low.rlim_cur = (rlim_t)limit_for_two_more();
    ok(setrlimit(RLIMIT_NOFILE, &low) == 0, "this process may open 2 more descriptors (%ld)",
       (long)low.rlim_cur);
    int accepted = 0, failed = 0, failed_errno = 0;
    read_events(mon, 60, &accepted, &failed, &failed_errno);
    ok(accepted >= 1, "libzmq accepted what fits (%d)", accepted);
    ok(failed >= 1, "then failed accepts were reported (%d), and the process lives", failed);
    is_i64(failed_errno, ENFILE, "as ENFILE (the guard's), not EMFILE");

    setrlimit(RLIMIT_NOFILE, &old);
    zmq_unbind(router, endpoint);   /* the listener spins on the failed accepts until then */
    if (write(go[1], "x", 1) < 0)
        diag("cannot release the child: %s", strerror(errno));
    int status = 0;
    waitpid(child, &status, 0);
    zmq_close(mon);
    zmq_close(router);
    zmq_ctx_term(ctx);
    unlink(path);
    rmdir(dir);
    return done_testing();
}
