/*
 * peer_probe.c - a stranger at a node's peer endpoint, for curve.t: it
 * connects (with the CURVE keys it is given, or in plain text), says HELLO
 * as node AS (an index) of the grid TOPOLOGY describes, with that file's
 * membership digest, asks to steal, and pushes one fib record - what an
 * intruder would try.  It prints nothing it receives (replies go to the
 * real node AS, never back to us), only its handshake's outcome, which it
 * waits for ("handshake succeeded", "handshake refused: authentication",
 * "handshake failed: protocol"); the test looks at the daemon's counters.
 *
 *   peer-probe ENDPOINT TOPOLOGY AS [SERVER_PUBLIC_Z85 KEY_FILE [STEALS]]
 *
 * STEALS (default 1) steal requests in a burst: a flood, for the rate limit.
 *
 *   peer-probe ENDPOINT TOPOLOGY AS profile JOB
 *
 * for profile.t instead asks for profiles the node never recorded: the end
 * of job JOB's (never begun), the starts of jobs JOB+1..JOB+20 (more than
 * the sessions a node keeps) and their ends; then answers the node's
 * statistics round for job JOB, ahead of it, with a profile that does not
 * parse (an event past its end).
 *
 *   peer-probe ENDPOINT TOPOLOGY AS fib N THRESHOLD
 *
 * for hostile.t pushes (in plain text, no steal before it) one well-formed
 * fib record whose argument is N and THRESHOLD, any 64-bit values: with
 * n=100000000 and threshold=2^62 the record that sent fib's sequential
 * recursion past the end of the stack before kinds checked their
 * arguments.
 */
#include "delivery.h"
#include "modules.h"
#include "peer_kinds.h"
#include "satin_proto.h"
#include "topology.h"

#include <czmq.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

static void send_msg(void *s, satin_msg *m)
{
    unsigned char *h, *b;
    size_t hl, bl;
    if (satin_msg_encode(m, &h, &hl, &b, &bl) < 0) {
        fprintf(stderr, "peer-probe: cannot encode a %s\n", satin_msg_type_name(m->type));
        exit(1);
    }
    /* The delivery frame every peer message starts with: unnumbered. */
    unsigned char f[SATIN_DELIVERY_FRAME_SIZE];
    satin_delivery_stamp_encode(&(satin_delivery_stamp){.epoch = 0x70726f6265ull}, f);
    zmq_send(s, f, sizeof f, ZMQ_SNDMORE);
    zmq_send(s, h, hl, ZMQ_SNDMORE);
    zmq_send(s, b, bl, 0);
    free(h);
    free(b);
    satin_msg_destroy(&m);
}

/* The first handshake event the monitor socket MON reports within
 * TIMEOUT_MS, or 0. */
static int handshake_outcome(void *mon, long timeout_ms)
{
    int64_t deadline = zclock_mono() + timeout_ms;
    for (;;) {
        int64_t left = deadline - zclock_mono();
        if (left <= 0)
            return 0;
        zmq_pollitem_t it = {.socket = mon, .events = ZMQ_POLLIN};
        if (zmq_poll(&it, 1, (long)left) <= 0)
            continue;
        zmq_msg_t m;
        zmq_msg_init(&m);
        int got = zmq_msg_recv(&m, mon, 0);
        uint16_t event = 0;
        if (got >= 6)
            memcpy(&event, zmq_msg_data(&m), sizeof event);
        /* The second frame is the endpoint. */
        while (zmq_msg_more(&m) && zmq_msg_recv(&m, mon, 0) >= 0)
            ;
        zmq_msg_close(&m);
        if (event)
            return event;
    }
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 6 && argc != 7) {
        fprintf(stderr, "usage: peer-probe ENDPOINT TOPOLOGY AS [SERVER_KEY KEY_FILE [STEALS]]\n"
                        "       peer-probe ENDPOINT TOPOLOGY AS profile JOB\n"
                        "       peer-probe ENDPOINT TOPOLOGY AS fib N THRESHOLD\n");
        return 2;
    }
    int profile = argc == 6 && strcmp(argv[4], "profile") == 0;
    int fib = argc == 7 && strcmp(argv[4], "fib") == 0;
    char err[512];
    satin_topology *topo = satin_topology_load(argv[2], err, sizeof err);
    if (!topo) {
        fprintf(stderr, "peer-probe: %s\n", err);
        return 1;
    }
    uint32_t as = (uint32_t)atoi(argv[3]);
    if (as >= (uint32_t)topo->nnodes) {
        fprintf(stderr, "peer-probe: %s has no node %u\n", argv[2], (unsigned)as);
        return 2;
    }
    void *ctx = zmq_ctx_new();
    void *s = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 2000;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    /* A refused handshake (a key the grid does not list) ends the
     * connection, and a DEALER without one blocks in send for ever: a send
     * that cannot go in 2 s is dropped (the test reads the daemon's side). */
    int sndtimeo = 2000;
    zmq_setsockopt(s, ZMQ_SNDTIMEO, &sndtimeo, sizeof sndtimeo);
    int steals = fib ? 0 : argc == 7 ? atoi(argv[6]) : 1;
    if (argc >= 6 && !profile && !fib) {
        zcert_t *cert = zcert_load(argv[5]);
        if (!cert) {
            fprintf(stderr, "peer-probe: cannot load %s\n", argv[5]);
            return 1;
        }
        zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, argv[4], 40);
        zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, zcert_public_txt(cert), 40);
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, zcert_secret_txt(cert), 40);
        zcert_destroy(&cert);
    }
    /* The handshake's outcome, which the probe waits for instead of a time. */
    if (zmq_socket_monitor(s, "inproc://probe-monitor",
                           ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) < 0) {
        fprintf(stderr, "peer-probe: cannot monitor the socket: %s\n", zmq_strerror(errno));
        return 1;
    }
    void *mon = zmq_socket(ctx, ZMQ_PAIR);
    zmq_connect(mon, "inproc://probe-monitor");
    if (zmq_connect(s, argv[1]) < 0) {
        fprintf(stderr, "peer-probe: cannot connect to %s\n", argv[1]);
        return 1;
    }
    satin_msg *m = satin_msg_new(SATIN_MSG_HELLO);
    m->sender = as;
    satin_msg_set_grid_name(m, topo->name);
    m->node_count = (uint32_t)topo->nnodes;
    satin_msg_set_node_id(m, topo->nodes[as].id);
    satin_topology_digest(topo, m->digest);
    /* The modules of the build's kinds directory, as the satind beside it
     * loads them: the node then takes this probe's records as a peer's of
     * the same build, and its check is what decides. */
    satin_registry *reg = satin_registry_new();
    satin_err kerr = {""};
    if (satin_modules_load_dir(reg, SATIN_KINDS_DIR, &kerr) < 0) {
        fprintf(stderr, "peer-probe: %s\n", kerr.msg);
        return 1;
    }
    satin_peer_kinds *kinds = satin_peer_kinds_new(reg);
    satin_peer_kinds_describe(kinds, m);
    satin_peer_kinds_destroy(&kinds);
    satin_registry_destroy(&reg);
    send_msg(s, m);

    if (profile) {
        uint64_t job = strtoull(argv[5], NULL, 10);
        for (int i = 0; i <= 40; i++) {
            m = satin_msg_new(SATIN_MSG_STATS_REQUEST);
            m->sender = as;
            m->request_id = 100 + (uint64_t)i;
            m->job_id = i == 0 ? job : job + 1 + (uint64_t)(i - 1) % 20;
            m->phase = SATIN_STATS_PROFILE |
                       (i == 0 || i > 20 ? SATIN_STATS_PHASE_END : SATIN_STATS_PHASE_START);
            send_msg(s, m);
        }
        m = satin_msg_new(SATIN_MSG_STATS_REPLY);
        m->sender = as;
        m->job_id = job;
        m->phase = SATIN_STATS_PHASE_END | SATIN_STATS_PROFILE;
        satin_kvlist_add_str(&m->stats, "profile", "node=x cluster=0 w=1 s=0 e=5 9b0");
        send_msg(s, m);
        steals = 0;
    }
    for (int i = 0; i < steals; i++) {
        m = satin_msg_new(SATIN_MSG_STEAL);
        m->sender = as;
        m->request_id = (uint64_t)i + 1;
        m->thief = as;
        m->flags = SATIN_STEAL_SYNC;
        m->max_jobs = 1;
        send_msg(s, m);
    }

    if (fib) {
        /* fib's argument: n and threshold, two int64 in host order. */
        int64_t arg[2] = {strtoll(argv[5], NULL, 10), strtoll(argv[6], NULL, 10)};
        m = satin_msg_new(SATIN_MSG_PUSH);
        m->sender = as;
        satin_msg_add_jobrec(m, as, 9, 9, "fib", 8, arg, sizeof arg);
        send_msg(s, m);
    } else if (!profile) {
        m = satin_msg_new(SATIN_MSG_PUSH);
        m->sender = as;
        int64_t n = 20;
        satin_msg_add_jobrec(m, as, 7, 7, "fib", 8, &n, sizeof n);
        send_msg(s, m);
    }

    /* Waits for the handshake to succeed or be refused, and says which on
     * stdout; after a success, closing with the linger above delivers what
     * was queued.  No outcome in a minute (no node there) is a failure. */
    int event = handshake_outcome(mon, 60000);
    puts(event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED      ? "handshake succeeded"
         : event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH  ? "handshake refused: authentication"
         : event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL ? "handshake failed: protocol"
         : event > 0                                 ? "handshake failed"
                                                     : "no handshake within a minute");
    if (event != ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
        linger = 0;   /* nothing of it will go */
        zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    }
    zmq_socket_monitor(s, NULL, 0);
    zmq_close(mon);
    zmq_close(s);
    zmq_ctx_term(ctx);
    satin_topology_destroy(&topo);
    return event > 0 ? 0 : 1;
}
