/*
 * test_client_endpoints.c - a libsatin client with several endpoints,
 * without daemons: the endpoint list (order, repeats, failures, the final
 * error), which outcomes count as a dead node, satin-submit's endpoints
 * from a topology file, and the failover itself against scripted fake
 * nodes (ROUTER sockets on threads of this test): a node that dies after
 * accepting, one that answers too late (its late RESULT must never reach
 * the caller), and a list whose every node dies.
 */
#include "../tap.h"
#include "client_internal.h"
#include "endpoint_list.h"
#include "satin_client.h"
#include "satin_proto.h"
#include "submit_endpoints.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static char dir[] = "/tmp/satin-client-endpoints.XXXXXX";

/* ---- the endpoint list ------------------------------------------------------ */

static void test_list(void)
{
    char err[256], sum[1024], a[300], b[300];
    satin_endpoint_list *l = satin_endpoint_list_new();
    snprintf(a, sizeof a, "%s/a.sock", dir);
    snprintf(b, sizeof b, "ipc://%s/b.sock", dir);
    is_i64(satin_endpoint_list_add(l, a, err, sizeof err), 0, "a bare path is added");
    is_i64(satin_endpoint_list_add(l, b, err, sizeof err), 0, "an ipc:// endpoint is added");
    is_i64(satin_endpoint_list_add(l, "tcp://127.0.0.1:7", err, sizeof err), 0,
           "a tcp:// endpoint is added");
    char again[310];
    snprintf(again, sizeof again, "ipc://%s", a);
    is_i64(satin_endpoint_list_add(l, again, err, sizeof err), 1,
           "the same socket written another way counts once");
    is_i64(satin_endpoint_list_add(l, "udp://x:1", err, sizeof err), -1,
           "an unsupported transport is refused");
    ok(strstr(err, "udp://x:1") != NULL, "and the error names it (%s)", err);
    is_i64(satin_endpoint_list_count(l), 3, "three endpoints");
    char want[400];
    snprintf(want, sizeof want, "ipc://%s", a);
    is_str(satin_endpoint_list_current(l), want, "the first is current, normalised");
    is_i64(satin_endpoint_list_position(l), 0, "at position 0");
    ok(satin_endpoint_list_cause(l, 0) == NULL, "nothing failed yet");

    snprintf(want, sizeof want, "satind at ipc://%s stopped answering (connection lost)", a);
    is_str(satin_endpoint_list_fail(l, "connection lost", want), b, "a failure moves to the next");
    is_str(satin_endpoint_list_cause(l, 0), "connection lost", "the cause is kept");
    ok(satin_endpoint_list_fail(l, "unreachable", "cannot reach satind at B") != NULL,
       "then the third");
    ok(satin_endpoint_list_fail(l, "no answer in time", "satind at C did not answer") == NULL,
       "after the last one nothing is current");
    ok(satin_endpoint_list_current(l) == NULL, "and stays so");
    ok(satin_endpoint_list_fail(l, "x", "y") == NULL, "failing past the end changes nothing");
    is_i64(satin_endpoint_list_position(l), 3, "position = count once all failed");
    satin_endpoint_list_summary(l, sum, sizeof sum);
    char expect[1024];
    snprintf(expect, sizeof expect,
             "every endpoint failed: %s; cannot reach satind at B; satind at C did not answer",
             want);
    is_str(sum, expect, "the summary gives every endpoint's reason in order");
    satin_endpoint_list_summary(l, sum, 30);
    is_i64(strlen(sum), 29, "a short buffer cuts the summary");
    satin_endpoint_list_destroy(&l);
    ok(l == NULL, "destroy clears the pointer");

    l = satin_endpoint_list_new();
    unsetenv("SATIN_SOCKET");
    satin_endpoint_list_add(l, "", err, sizeof err);
    ok(strncmp(satin_endpoint_list_at(l, 0), "ipc://", 6) == 0,
       "\"\" stands for the default endpoint (%s)", satin_endpoint_list_at(l, 0));
    ok(satin_endpoint_list_at(l, 1) == NULL, "nothing past the end");
    satin_endpoint_list_destroy(&l);
}

/* ---- which outcomes are a dead node ----------------------------------------------- */

static void test_node_gone(void)
{
    char why[64];
    ok(failover_node_gone(SATIN_CLIENT_UNREACHABLE, 1, 0, NULL, why, sizeof why) &&
           strcmp(why, "connection lost") == 0,
       "a closed connection: connection lost");
    ok(failover_node_gone(SATIN_CLIENT_UNREACHABLE, 0, 0, NULL, why, sizeof why) &&
           strcmp(why, "no answer in time") == 0,
       "no reply within the request timeout: no answer in time");
    ok(failover_node_gone(SATIN_CLIENT_REJECTED, 0, SATIN_CLIENT_E_SHUTTING_DOWN, NULL, why,
                          sizeof why) &&
           strcmp(why, "shutting down") == 0,
       "a refusal because satind stops: shutting down");
    ok(failover_node_gone(SATIN_CLIENT_JOB_FAILED, 0, 0, "cancelled: satind is shutting down",
                          why, sizeof why),
       "a job cancelled by the stop moves on");
    ok(!failover_node_gone(SATIN_CLIENT_JOB_FAILED, 0, 0, "cancelled: by request", why,
                           sizeof why),
       "a job cancelled by a user does not");
    ok(!failover_node_gone(SATIN_CLIENT_JOB_FAILED, 0, 0, "recursion too deep", why, sizeof why),
       "a job that failed on its own does not");
    ok(!failover_node_gone(SATIN_CLIENT_REJECTED, 0, SATIN_CLIENT_E_BAD_PARAMS, NULL, why,
                           sizeof why),
       "bad parameters do not");
    ok(!failover_node_gone(SATIN_CLIENT_PROTOCOL, 0, 1, NULL, why, sizeof why),
       "a protocol error does not");
    ok(!failover_node_gone(SATIN_CLIENT_OK, 0, 0, NULL, why, sizeof why), "success does not");
}

/* ---- satin-submit's endpoints from a topology ------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_topology(void)
{
    char path[300], note[256], err[512];
    snprintf(path, sizeof path, "%s/t.yaml", dir);
    write_file(path, "grid: t\nsecurity: none\nclusters:\n  - name: A\n    nodes:\n"
                     "      - {id: n0, endpoint: 'tcp://127.0.0.1:7101', client: /tmp/n0.sock}\n"
                     "      - {id: n1, endpoint: 'tcp://127.0.0.1:7102'}\n"
                     "      - {id: n2, endpoint: 'tcp://127.0.0.1:7103', "
                     "client: 'tcp://127.0.0.1:7203'}\n");
    submit_endpoints e = {0};
    submit_endpoints_add(&e, "ipc:///tmp/first.sock");
    is_i64(submit_endpoints_from_topology(&e, path, 0, note, sizeof note, err, sizeof err), 0,
           "a topology with client endpoints");
    is_i64(e.n, 3, "--socket first, then two nodes");
    is_str(e.items[1], "ipc:///tmp/n0.sock", "n0's client endpoint, normalised");
    is_str(e.items[2], "tcp://127.0.0.1:7203", "n2's (tcp is fine without CURVE)");
    ok(e.items[3] == NULL, "NULL-terminated");
    is_str(note, "left out, without a client endpoint: n1", "the note names the node left out");
    submit_endpoints_free(&e);

    write_file(path, "grid: t\nsecurity: none\nclusters:\n  - name: A\n    nodes:\n"
                     "      - {id: n0, endpoint: 'tcp://127.0.0.1:7101'}\n");
    is_i64(submit_endpoints_from_topology(&e, path, 0, note, sizeof note, err, sizeof err), -1,
           "a topology without client endpoints is refused");
    ok(strstr(err, "--socket") != NULL, "saying to give --socket (%s)", err);
    submit_endpoints_free(&e);

    write_file(path, "grid: t\nclusters:\n  - name: A\n    nodes:\n"
                     "      - {id: n0, endpoint: 'tcp://10.0.0.1:7101', "
                     "client: 'tcp://10.0.0.1:7201'}\n");
    is_i64(submit_endpoints_from_topology(&e, path, 0, note, sizeof note, err, sizeof err), -1,
           "tcp client endpoints under CURVE are not used without a key");
    ok(strstr(err, "needs --key") != NULL, "saying why (%s)", err);
    submit_endpoints_free(&e);

    /* With this client's key (--key): each CURVE endpoint comes with its node's key. */
    write_file(path, "grid: t\nclusters:\n  - name: A\n    nodes:\n"
                     "      - {id: n0, endpoint: 'tcp://10.0.0.1:7101', "
                     "client: 'tcp://10.0.0.1:7201', "
                     "public_key: 'rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7'}\n"
                     "      - {id: n1, endpoint: 'tcp://10.0.0.2:7101', "
                     "client: 'tcp://10.0.0.2:7201'}\n"
                     "      - {id: n2, endpoint: 'tcp://10.0.0.3:7101', client: /tmp/n2.sock}\n");
    is_i64(submit_endpoints_from_topology(&e, path, 1, note, sizeof note, err, sizeof err), 0,
           "with a client key, CURVE endpoints are used");
    is_i64(e.n, 2, "n0 (a key) and n2 (ipc)");
    is_str(e.items[0], "tcp://10.0.0.1:7201", "n0's endpoint");
    is_str(e.keys[0], "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", "with n0's public key");
    is_str(e.keys[1], "", "n2's ipc endpoint without one");
    is_str(note, "left out, tcp:// under CURVE without a public_key: n1",
           "n1 has no key: left out, and named");
    submit_endpoints_free(&e);

    is_i64(submit_endpoints_from_topology(&e, "/nonexistent/t.yaml", 0, note, sizeof note, err,
                                          sizeof err),
           -1, "a missing file is an error");
    submit_endpoints_free(&e);
}

/* ---- fake nodes ---------------------------------------------------------------------- */

typedef enum {
    FAKE_ANSWER,   /* accepts and sends the result at once */
    FAKE_DIE,      /* accepts, then closes its socket: a node that died */
    FAKE_LATE,     /* answers nothing for 600 ms, then accepts and sends a result */
} fake_mode;

typedef struct fake {
    char endpoint[320];
    fake_mode mode;
    int64_t value;            /* the "value" its results carry */
    uint64_t job_id;          /* the id it gives jobs */
    void *ctx, *router;
    pthread_t thread;
    atomic_int submits, stop;
    atomic_int late_sent;     /* FAKE_LATE: its late ACCEPTED and RESULT went out */
} fake;

static int64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fake_send(fake *f, const zmq_msg_t *id, satin_msg *m)
{
    unsigned char *hdr, *body;
    size_t hl, bl;
    if (satin_msg_encode(m, &hdr, &hl, &body, &bl) == 0) {
        zmq_send(f->router, zmq_msg_data((zmq_msg_t *)id), zmq_msg_size((zmq_msg_t *)id),
                 ZMQ_SNDMORE);
        zmq_send(f->router, hdr, hl, ZMQ_SNDMORE);
        zmq_send(f->router, body, bl, 0);
    }
    free(hdr);
    free(body);
    satin_msg_destroy(&m);
}

/* ACCEPTED for request `rid`, and with `result` the job's RESULT too. */
static void fake_answer(fake *f, const zmq_msg_t *id, uint64_t rid, int result)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_ACCEPTED);
    m->request_id = rid;
    m->job_id = f->job_id;
    fake_send(f, id, m);
    if (!result)
        return;
    m = satin_msg_new(SATIN_MSG_RESULT);
    m->request_id = rid;
    m->job_id = f->job_id;
    satin_msg_set_kind(m, "fib");
    satin_msg_set_error(m, "");
    satin_kvlist_add_i64(&m->result, "value", f->value);
    fake_send(f, id, m);
}

/* One SUBMIT (other requests are not used here): 1 when the node dies. */
static int fake_serve(fake *f, zmq_msg_t *id, uint64_t *late_rid, int64_t *late_at)
{
    zmq_msg_t hdr, body;
    zmq_msg_init(&hdr);
    zmq_msg_init(&body);
    zmq_msg_recv(&hdr, f->router, 0);
    zmq_msg_recv(&body, f->router, 0);
    satin_msg *m = satin_msg_decode(zmq_msg_data(&hdr), zmq_msg_size(&hdr), zmq_msg_data(&body),
                                    zmq_msg_size(&body), 0, NULL);
    int died = 0;
    if (m && m->type == SATIN_MSG_SUBMIT) {
        atomic_fetch_add(&f->submits, 1);
        if (f->mode == FAKE_LATE) {
            *late_rid = m->request_id;
            *late_at = ms_now() + 600;
        } else {
            fake_answer(f, id, m->request_id, f->mode == FAKE_ANSWER);
            died = f->mode == FAKE_DIE;
        }
    }
    satin_msg_destroy(&m);
    zmq_msg_close(&hdr);
    zmq_msg_close(&body);
    return died;
}

static void *fake_main(void *arg)
{
    fake *f = arg;
    zmq_msg_t id, late_id;
    uint64_t late_rid = 0;
    int64_t late_at = -1;
    zmq_msg_init(&late_id);
    while (!atomic_load(&f->stop)) {
        zmq_pollitem_t it = {f->router, 0, ZMQ_POLLIN, 0};
        zmq_poll(&it, 1, 10);
        if (late_at >= 0 && ms_now() >= late_at) {
            fake_answer(f, &late_id, late_rid, 1);   /* to a client that gave us up */
            late_at = -1;
            atomic_store(&f->late_sent, 1);
        }
        if (!(it.revents & ZMQ_POLLIN))
            continue;
        zmq_msg_init(&id);
        zmq_msg_recv(&id, f->router, 0);
        int died = fake_serve(f, &id, &late_rid, &late_at);
        if (late_at >= 0 && zmq_msg_size(&late_id) == 0)
            zmq_msg_copy(&late_id, &id);
        zmq_msg_close(&id);
        if (died)
            break;
    }
    zmq_msg_close(&late_id);
    zmq_close(f->router);   /* linger: what was sent still goes out */
    f->router = NULL;
    return NULL;
}

static void fake_start(fake *f, const char *name, fake_mode mode, int64_t value,
                       uint64_t job_id)
{
    memset(f, 0, sizeof *f);
    snprintf(f->endpoint, sizeof f->endpoint, "ipc://%s/%s.sock", dir, name);
    f->mode = mode;
    f->value = value;
    f->job_id = job_id;
    f->ctx = zmq_ctx_new();
    f->router = zmq_socket(f->ctx, ZMQ_ROUTER);
    int linger = 1000;
    zmq_setsockopt(f->router, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_bind(f->router, f->endpoint) < 0)
        diag("bind %s: %s", f->endpoint, zmq_strerror(zmq_errno()));
    pthread_create(&f->thread, NULL, fake_main, f);
}

static void fake_stop(fake *f)
{
    atomic_store(&f->stop, 1);
    pthread_join(f->thread, NULL);
    zmq_ctx_term(f->ctx);
}

/* ---- failover against fake nodes ------------------------------------------------------ */

typedef struct seen {
    int n;
    satin_client_failover last;
    char from[320], cause[64], to[320];
} seen;

static void on_failover(const satin_client_failover *ev, void *arg)
{
    seen *s = arg;
    s->n++;
    s->last = *ev;
    snprintf(s->from, sizeof s->from, "%s", ev->from);
    snprintf(s->cause, sizeof s->cause, "%s", ev->cause);
    snprintf(s->to, sizeof s->to, "%s", ev->to);
}

static const char *const fib_params[] = {"n=30", NULL};

/* Waits for job `id` and returns its "value" (-1 on failure). */
static int64_t wait_value(satin_client *c, uint64_t id, satin_client_error *err, int *rc)
{
    satin_job_report r;
    int64_t v = -1;
    *rc = satin_client_wait(c, id, 10000, &r, NULL, NULL, err);
    if (*rc == SATIN_CLIENT_OK) {
        satin_client_values_i64(&r.result, "value", &v);
        ok(r.job_id == id, "the report carries the client's job id (%llu)",
           (unsigned long long)r.job_id);
    }
    satin_job_report_free(&r);
    return v;
}

static void test_node_dies(void)
{
    fake a, b;
    fake_start(&a, "die", FAKE_DIE, 0, 5);
    fake_start(&b, "answer", FAKE_ANSWER, 832040, 9);
    const char *eps[] = {a.endpoint, b.endpoint, NULL};
    satin_client_error err;
    satin_client *c = satin_client_new_multi(eps, &err);
    ok(c != NULL, "a client over two fake nodes%s%s", c ? "" : ": ", c ? "" : err.text);
    if (!c)
        return;
    seen s = {0};
    satin_client_set_failover_fn(c, on_failover, &s);
    is_str(satin_client_endpoint(c), a.endpoint, "it talks to the first");
    uint64_t id = 0;
    int rc = satin_client_submit(c, "fib", fib_params, 0, &id, &err);
    is_i64(rc, SATIN_CLIENT_OK, "the job is accepted by the first node");
    is_i64(id, 1, "the client numbers it 1, not the node's 5");
    is_i64(wait_value(c, id, &err, &rc), 832040, "the result comes from the second node");
    is_i64(s.n, 1, "one re-submission was announced");
    is_i64(s.last.job_id, 1, "for job 1");
    is_i64(s.last.node_job_id, 5, "which was job 5 on the dead node");
    is_str(s.from, a.endpoint, "from the dead node");
    is_str(s.cause, "connection lost", "because its connection closed");
    is_str(s.to, b.endpoint, "to the next one");
    is_str(satin_client_endpoint(c), b.endpoint, "the client now talks to the second");
    is_i64(atomic_load(&b.submits), 1, "which got the job once");
    rc = satin_client_wait(c, id, 100, &(satin_job_report){0}, NULL, NULL, &err);
    is_i64(rc, SATIN_CLIENT_REJECTED, "a job's result is returned once only");
    satin_client_destroy(&c);
    fake_stop(&a);
    fake_stop(&b);
}

static void test_node_late(void)
{
    fake a, b;
    fake_start(&a, "late", FAKE_LATE, 666, 3);
    fake_start(&b, "answer2", FAKE_ANSWER, 832040, 4);
    const char *eps[] = {a.endpoint, b.endpoint, NULL};
    satin_client_error err;
    satin_client *c = satin_client_new_multi(eps, &err);
    ok(c != NULL, "a client over a slow node and a good one");
    if (!c)
        return;
    seen s = {0};
    satin_client_set_failover_fn(c, on_failover, &s);
    satin_client_set_request_timeout(c, 200);
    uint64_t id = 0;
    int rc = satin_client_submit(c, "fib", fib_params, 0, &id, &err);
    is_i64(rc, SATIN_CLIENT_OK, "a submission the first node leaves unanswered goes to the next");
    is_i64(s.n, 1, "announced once");
    is_str(s.cause, "no answer in time", "as not answering in time");
    is_i64(s.last.node_job_id, 0, "the slow node never gave it an id");
    /* However slow the machine: the slow node sends ACCEPTED and a RESULT of
     * 666 before the client waits for the job. */
    wait_flag(60, &a.late_sent, "the slow node to send its late ACCEPTED and RESULT");
    is_i64(atomic_load(&a.submits), 1, "the slow node did get the job (it may run twice)");
    is_i64(wait_value(c, id, &err, &rc), 832040, "the result is the second node's, not the "
           "slow node's late one");
    uint64_t id2 = 0;
    satin_client_submit(c, "fib", fib_params, 0, &id2, &err);
    is_i64(id2, 2, "the next job is job 2");
    is_i64(wait_value(c, id2, &err, &rc), 832040, "and runs on the second node");
    is_i64(atomic_load(&a.submits), 1, "the slow node is never tried again");
    satin_client_destroy(&c);
    fake_stop(&a);
    fake_stop(&b);
}

static void test_all_die(void)
{
    fake a, b;
    fake_start(&a, "die1", FAKE_DIE, 0, 1);
    fake_start(&b, "die2", FAKE_DIE, 0, 2);
    const char *eps[] = {a.endpoint, b.endpoint, NULL};
    satin_client_error err;
    satin_client *c = satin_client_new_multi(eps, &err);
    uint64_t id = 0;
    int rc = c ? satin_client_submit(c, "fib", fib_params, 0, &id, &err) : -1;
    is_i64(rc, SATIN_CLIENT_OK, "a job on a list of two nodes that both die");
    int64_t v = c ? wait_value(c, id, &err, &rc) : 0;
    (void)v;
    is_i64(rc, SATIN_CLIENT_UNREACHABLE, "fails as unreachable once both died");
    char want[1024];
    snprintf(want, sizeof want,
             "every endpoint failed: satind at %s stopped answering (connection lost); "
             "satind at %s stopped answering (connection lost)",
             a.endpoint, b.endpoint);
    is_str(err.text, want, "naming each node and why");
    if (c) {
        rc = satin_client_submit(c, "fib", fib_params, 0, &id, &err);
        is_i64(rc, SATIN_CLIENT_UNREACHABLE, "later calls fail the same way");
        is_str(err.text, want, "with the same text");
    }
    satin_client_destroy(&c);
    fake_stop(&a);
    fake_stop(&b);
}

static void test_new_multi_errors(void)
{
    satin_client_error err;
    ok(satin_client_new_multi(NULL, &err) == NULL && err.code == SATIN_CLIENT_INVALID,
       "no endpoint: invalid");
    const char *bad[] = {"udp://x:1", NULL};
    ok(satin_client_new_multi(bad, &err) == NULL && err.code == SATIN_CLIENT_INVALID,
       "a malformed endpoint: invalid (%s)", err.text);
    char a[300], b[300];
    snprintf(a, sizeof a, "%s/none-a.sock", dir);
    snprintf(b, sizeof b, "%s/none-b.sock", dir);
    const char *none[] = {a, b, NULL};
    ok(satin_client_new_multi(none, &err) == NULL && err.code == SATIN_CLIENT_UNREACHABLE,
       "no daemon at any endpoint: unreachable");
    ok(strncmp(err.text, "every endpoint failed: cannot reach satind at ipc://", 52) == 0 &&
           strstr(err.text, "none-a.sock") && strstr(err.text, "none-b.sock"),
       "naming both (%s)", err.text);

    /* CURVE: one server key per endpoint, read before this client's own key
     * file.  Z85 has '/' among its characters: a key with one is a key, not
     * a path. */
    char missing[300];
    snprintf(missing, sizeof missing, "%s/none.key", dir);
    const char *tcp[] = {"tcp://127.0.0.1:1", "ipc:///x.sock", NULL};
    const char *keys[] = {"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", "", NULL};
    ok(satin_client_new_multi_curve(tcp, keys, missing, &err) == NULL &&
           err.code == SATIN_CLIENT_INVALID && strstr(err.text, "none.key") != NULL,
       "curve: a server key with '/' is read as a key; the missing client key is the error (%s)",
       err.text);
    const char *badkey[] = {"tcp://127.0.0.1:1", NULL};
    const char *notz85[] = {"not a key", NULL};
    ok(satin_client_new_multi_curve(badkey, notz85, missing, &err) == NULL &&
           err.code == SATIN_CLIENT_INVALID && strstr(err.text, "not a key") != NULL,
       "curve: a server key that is neither a key nor a file is refused (%s)", err.text);
    const char *ipc[] = {"ipc:///x.sock", NULL};
    ok(satin_client_new_multi_curve(ipc, keys, missing, &err) == NULL &&
           err.code == SATIN_CLIENT_INVALID && strstr(err.text, "tcp://") != NULL,
       "curve: a server key for an ipc endpoint is refused (%s)", err.text);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    test_list();
    test_node_gone();
    test_topology();
    test_new_multi_errors();
    test_node_dies();
    test_node_late();
    test_all_die();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
