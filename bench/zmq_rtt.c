/*
 * zmq_rtt.c - the wire's round trip, the bound for a steal between two
 * daemons: two threads, each with a ROUTER bound on loopback TCP and a
 * DEALER connected to the other's, as two satind peers are wired
 * (daemon/peer.c), bounce a message of SIZE bytes N times.  Each thread
 * waits in zmq_poll as a daemon's control loop waits on its sockets, and
 * each has a ZeroMQ context (so an I/O thread) of its own, as each daemon
 * has: a message crosses two I/O threads, as between two satind.
 *
 *   zmq_rtt [--busy K] [N [SIZE]]     (default 20000 round trips of 64 bytes)
 *
 * --busy K: K more threads compute (a loop of arithmetic) all the while, as
 * the victim's worker computes while a steal crosses: the round trip then
 * waits for the CPUs as a steal's does.  A steal between two one-worker
 * daemons meets one such thread (the victim's worker; the thief's sleeps).
 *
 * Prints "rtt_us median MEDIAN mean MEAN p99 P99 n N size SIZE busy K".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

typedef struct side {
    void *ctx, *router, *dealer;
    char endpoint[64];
    int n;
    size_t size;
    double *rtt_us;        /* the pinger's: one per round trip */
} side;

static atomic_int computing = 1;

/* A thread that computes until told to stop, touching no shared line. */
static void *compute(void *arg)
{
    volatile double x = 1.0;
    (void)arg;
    while (atomic_load_explicit(&computing, memory_order_relaxed))
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
    return NULL;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void die(const char *what)
{
    fprintf(stderr, "zmq_rtt: %s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(1);
}

/* Waits in zmq_poll, then takes one message (routing id + body) off the router. */
static void receive(side *s, char *buf)
{
    zmq_pollitem_t item = {s->router, 0, ZMQ_POLLIN, 0};
    for (;;) {
        if (zmq_poll(&item, 1, -1) < 0)
            die("zmq_poll");
        char id[256];
        if (zmq_recv(s->router, id, sizeof id, ZMQ_DONTWAIT) < 0)
            continue;
        if (zmq_recv(s->router, buf, s->size, 0) < 0)
            die("zmq_recv");
        return;
    }
}

static void *echo(void *arg)
{
    side *s = arg;
    char *buf = malloc(s->size);
    for (int i = 0; i < s->n; i++) {
        receive(s, buf);
        if (zmq_send(s->dealer, buf, s->size, 0) < 0)
            die("zmq_send");
    }
    free(buf);
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void open_side(side *s, void *ctx)
{
    s->ctx = ctx;
    s->router = zmq_socket(ctx, ZMQ_ROUTER);
    s->dealer = zmq_socket(ctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(s->router, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(s->dealer, ZMQ_LINGER, &zero, sizeof zero);
    if (zmq_bind(s->router, "tcp://127.0.0.1:*") < 0)
        die("zmq_bind");
    size_t len = sizeof s->endpoint;
    zmq_getsockopt(s->router, ZMQ_LAST_ENDPOINT, s->endpoint, &len);
}

int main(int argc, char **argv)
{
    int busy = 0;
    if (argc > 2 && strcmp(argv[1], "--busy") == 0) {
        busy = atoi(argv[2]);
        argc -= 2;
        argv += 2;
    }
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    size_t size = argc > 2 ? (size_t)atol(argv[2]) : 64;
    if (n < 10 || size < 1 || size > (1 << 26) || busy < 0 || busy > 64) {
        fprintf(stderr, "usage: zmq_rtt [--busy K 0..64] [N >= 10 [SIZE 1..67108864]]\n");
        return 2;
    }
    pthread_t computers[64];
    for (int i = 0; i < busy; i++)
        pthread_create(&computers[i], NULL, compute, NULL);
    side ping = {.n = n, .size = size}, pong = {.n = n, .size = size};
    open_side(&ping, zmq_ctx_new());
    open_side(&pong, zmq_ctx_new());
    if (zmq_connect(ping.dealer, pong.endpoint) < 0 || zmq_connect(pong.dealer, ping.endpoint) < 0)
        die("zmq_connect");
    pthread_t t;
    pthread_create(&t, NULL, echo, &pong);
    char *buf = calloc(1, size);
    double *rtt = calloc((size_t)n, sizeof *rtt);
    /* The first round trips also set up the TCP connections: not counted. */
    int warm = n / 10;
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        if (zmq_send(ping.dealer, buf, size, 0) < 0)
            die("zmq_send");
        receive(&ping, buf);
        rtt[i] = now_us() - t0;
    }
    pthread_join(t, NULL);
    atomic_store(&computing, 0);
    for (int i = 0; i < busy; i++)
        pthread_join(computers[i], NULL);
    int m = n - warm;
    double sum = 0;
    for (int i = warm; i < n; i++)
        sum += rtt[i];
    qsort(rtt + warm, (size_t)m, sizeof *rtt, by_value);
    printf("rtt_us median %.1f mean %.1f p99 %.1f n %d size %zu busy %d\n", rtt[warm + m / 2],
           sum / m, rtt[warm + (int)(m * 0.99)], m, size, busy);
    free(buf);
    free(rtt);
    zmq_close(ping.router);
    zmq_close(ping.dealer);
    zmq_close(pong.router);
    zmq_close(pong.dealer);
    zmq_ctx_term(ping.ctx);
    zmq_ctx_term(pong.ctx);
    return 0;
}
