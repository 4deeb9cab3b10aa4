/*
 * test_daemon_wire.c - a real satind, spoken to over its real ZeroMQ socket
 * with hand-made frames: every kind of bad message gets the right error,
 * the daemon keeps computing exactly, counts what it dropped, refuses a
 * second daemon on its socket, and exits 0 on SIGTERM.
 */
#include "../tap.h"
#include "satin_client.h"
#include "satin_proto.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

static pid_t daemon_pid = -1;
static char dir[256], endpoint[300], satind[512];

static void stop_daemon(void)
{
    if (daemon_pid > 0) {
        kill(daemon_pid, SIGTERM);
        waitpid(daemon_pid, NULL, 0);
        daemon_pid = -1;
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (dir[0] && system(cmd) != 0)
        diag("could not remove %s", dir);
}

static pid_t spawn_satind(const char *max_record)
{
    pid_t pid = fork();
    if (pid == 0) {
        /* If this test dies, the kernel stops the daemon too. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        execl(satind, "satind", "--workers", "2", "--socket", endpoint, "--foreground",
              "--log-level", "error", "--max-record", max_record, "--max-client-jobs", "2",
              "--max-clients", "2", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void *sock;

static int send_frames(const void *const *frames, const size_t *lens, int n)
{
    for (int i = 0; i < n; i++)
        if (zmq_send(sock, frames[i], lens[i], i + 1 < n ? ZMQ_SNDMORE : 0) < 0)
            return -1;
    return 0;
}

static int send_msg(satin_msg *m)
{
    unsigned char *h, *b;
    size_t hl, bl;
    if (satin_msg_encode(m, &h, &hl, &b, &bl) < 0)
        return -1;
    int rc = send_frames((const void *[]){h, b}, (size_t[]){hl, bl}, 2);
    free(h);
    free(b);
    return rc;
}

/* The next reply, decoded; NULL on timeout or a bad reply. */
static satin_msg *recv_msg(void)
{
    unsigned char h[64], *b = malloc(1 << 20);
    int hl = zmq_recv(sock, h, sizeof h, 0);
    int more = 0;
    size_t ml = sizeof more;
    zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &ml);
    int bl = hl >= 0 && more ? zmq_recv(sock, b, 1 << 20, 0) : -1;
    satin_proto_error err;
    satin_msg *m = bl >= 0 ? satin_msg_decode(h, (size_t)hl, b, (size_t)bl, 0, &err) : NULL;
    free(b);
    return m;
}

static void expect_error(int code, const char *text_part, const char *what)
{
    satin_msg *m = recv_msg();
    ok(m && m->type == SATIN_MSG_ERROR && m->code == code && strstr(m->error, text_part),
       "%s -> ERROR %d (%s)", what, code, m && m->error ? m->error : "no reply");
    satin_msg_destroy(&m);
}

/* The daemon runs with --max-client-jobs 2 --max-clients 2: a connection
 * with two unfinished jobs is refused a third, and a third client is refused
 * while two others have unfinished jobs; each refusal names the limit. */
static void test_client_limits(void)
{
    const char *slow[] = {"depth=0", "fanout=1", "mean_us=1500000", NULL};
    const char *quick[] = {"n=10", NULL};
    satin_client_error err;
    satin_client *a = satin_client_new(endpoint, &err), *b = satin_client_new(endpoint, &err),
                 *c = satin_client_new(endpoint, &err);
    uint64_t ja[2] = {0, 0}, jb = 0, jx = 0;
    ok(a && b && c, "limits: three client connections");
    if (!a || !b || !c)
        goto out;
    ok(satin_client_submit(a, "synthetic", slow, 0, &ja[0], &err) == SATIN_CLIENT_OK &&
           satin_client_submit(a, "synthetic", slow, 0, &ja[1], &err) == SATIN_CLIENT_OK,
       "limits: client A has two unfinished jobs");
    int rc = satin_client_submit(a, "fib", quick, 0, &jx, &err);
    ok(rc != SATIN_CLIENT_OK && err.proto_code == SATIN_PROTO_LIMIT_REACHED &&
           strstr(err.text, "this client already has 2 unfinished jobs (the limit per client is 2)"),
       "limits: A's third job is refused: %s", err.text);
    ok(satin_client_submit(b, "synthetic", slow, 0, &jb, &err) == SATIN_CLIENT_OK,
       "limits: a second client may submit");
    rc = satin_client_submit(c, "fib", quick, 0, &jx, &err);
    ok(rc != SATIN_CLIENT_OK && err.proto_code == SATIN_PROTO_LIMIT_REACHED &&
           strstr(err.text, "2 other clients have unfinished jobs (the limit is 2)"),
       "limits: a third client is refused while two have unfinished jobs: %s", err.text);
    satin_job_report rep;
    int done = 1;
    for (int i = 0; i < 2; i++) {
        done &= satin_client_wait(a, ja[i], 30000, &rep, NULL, NULL, &err) == SATIN_CLIENT_OK &&
                rep.ok;
        satin_job_report_free(&rep);
    }
    done &= satin_client_wait(b, jb, 30000, &rep, NULL, NULL, &err) == SATIN_CLIENT_OK && rep.ok;
    satin_job_report_free(&rep);
    ok(done, "limits: the accepted jobs finish");
    int64_t v = -1;
    ok(satin_client_submit(c, "fib", quick, 0, &jx, &err) == SATIN_CLIENT_OK &&
           satin_client_wait(c, jx, 30000, &rep, NULL, NULL, &err) == SATIN_CLIENT_OK &&
           satin_client_values_i64(&rep.result, "value", &v) == 0 && v == 55,
       "limits: once they are done the third client is served (fib 10 = 55)");
    satin_job_report_free(&rep);
out:
    satin_client_destroy(&a);
    satin_client_destroy(&b);
    satin_client_destroy(&c);
}

/* For wait_for: the socket file at PATH exists. */
static int socket_made(void *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int main(void)
{
    const char *build = getenv("SATIN_BUILD");
    snprintf(satind, sizeof satind, "%s/satind", build ? build : "build");
    snprintf(dir, sizeof dir, "/tmp/satin-wire-XXXXXX");
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp failed\n");
        return 1;
    }
    snprintf(endpoint, sizeof endpoint, "ipc://%s/s.sock", dir);
    atexit(stop_daemon);
    daemon_pid = spawn_satind("65536");

    char path[300];
    snprintf(path, sizeof path, "%s/s.sock", dir);
    struct stat st;
    if (!wait_for(60, socket_made, path, "satind to make %s", path) || stat(path, &st) < 0) {
        printf("Bail out! satind did not create %s\n", path);
        return 1;
    }
    is_i64(st.st_mode & 0777, 0660, "the socket file is mode 0660");

    void *ctx = zmq_ctx_new();
    sock = zmq_socket(ctx, ZMQ_DEALER);
    int timeout = 10000, linger = 0;
    zmq_setsockopt(sock, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect(sock, endpoint);
    int sent_bad = 0;

    send_frames((const void *[]){"hello"}, (size_t[]){5}, 1);
    sent_bad++;
    expect_error(SATIN_PROTO_BAD_MESSAGE, "exactly two frames", "one frame of garbage");

    send_frames((const void *[]){"abc", ""}, (size_t[]){3, 0}, 2);
    sent_bad++;
    expect_error(SATIN_PROTO_BAD_MESSAGE, "header", "a 3-byte header");

    satin_msg *m = satin_msg_new(SATIN_MSG_STATUS);
    m->version = 9;
    m->request_id = 77;
    send_msg(m);
    sent_bad++;
    satin_msg_destroy(&m);
    satin_msg *r = recv_msg();
    ok(r && r->type == SATIN_MSG_ERROR && r->code == SATIN_PROTO_UNSUPPORTED_VERSION &&
           r->request_id == 77,
       "protocol version 9 -> ERROR 8 echoing request id 77");
    satin_msg_destroy(&r);

    /* A SUBMIT whose parameter value length points past the end of the body. */
    m = satin_msg_new(SATIN_MSG_SUBMIT);
    m->request_id = 5;
    satin_msg_set_kind(m, "fib");
    satin_msg_add_param(m, "n", "10");
    unsigned char *h, *b;
    size_t hl, bl;
    satin_msg_encode(m, &h, &hl, &b, &bl);
    satin_msg_destroy(&m);
    /* flags u32, kind (u16 + "fib"), nparams u16, key (u16 + "n"), then the
     * value's u16 length at offset 14: claim 4098 bytes where 2 remain. */
    b[14] = 0x10;
    send_frames((const void *[]){h, b}, (size_t[]){hl, bl}, 2);
    sent_bad++;
    free(h);
    free(b);
    r = recv_msg();
    ok(r && r->type == SATIN_MSG_ERROR && r->code == SATIN_PROTO_BAD_MESSAGE && r->request_id == 5,
       "a lying length -> ERROR 1 echoing the request id (%s)", r ? r->error : "no reply");
    satin_msg_destroy(&r);

    /* More than the daemon's 64 KiB record limit. */
    m = satin_msg_new(SATIN_MSG_SUBMIT);
    satin_msg_set_kind(m, "fib");
    char *big = malloc(60001);
    memset(big, 'x', 60000);
    big[60000] = 0;
    satin_msg_add_param(m, "n", big);
    satin_msg_add_param(m, "threshold", big);
    free(big);
    send_msg(m);
    sent_bad++;
    satin_msg_destroy(&m);
    expect_error(SATIN_PROTO_TOO_LARGE, "", "a 120 KB record to a daemon with a 64 KiB limit");

    unsigned char hdr[16] = {0x53, 0x54, SATIN_PROTO_VERSION, 20};
    send_frames((const void *[]){hdr, ""}, (size_t[]){16, 0}, 2);
    sent_bad++;
    expect_error(SATIN_PROTO_BAD_MESSAGE, "", "unknown message type 20");

    m = satin_msg_new(SATIN_MSG_ACCEPTED);
    m->job_id = 1;
    send_msg(m);
    sent_bad++;
    satin_msg_destroy(&m);
    expect_error(SATIN_PROTO_BAD_MESSAGE, "not a request", "a daemon-to-client message");

    m = satin_msg_new(SATIN_MSG_SUBMIT);
    m->request_id = 9;
    satin_msg_set_kind(m, "fib");
    satin_msg_add_param(m, "n", "25");
    send_msg(m);
    satin_msg_destroy(&m);
    r = recv_msg();
    ok(r && r->type == SATIN_MSG_ACCEPTED && r->request_id == 9 && r->job_id > 0,
       "after all that, a SUBMIT is accepted");
    uint64_t job = r ? r->job_id : 0;
    satin_msg_destroy(&r);
    r = recv_msg();
    int64_t v = -1;
    ok(r && r->type == SATIN_MSG_RESULT && r->job_id == job && r->status == SATIN_STATUS_OK &&
           satin_kvlist_i64(&r->result, "value", &v) == 0 && v == 75025,
       "and computes fib 25 = 75025 exactly");
    satin_msg_destroy(&r);

    m = satin_msg_new(SATIN_MSG_STATUS);
    send_msg(m);
    satin_msg_destroy(&m);
    r = recv_msg();
    int64_t bad = -1;
    ok(r && r->type == SATIN_MSG_STATUS_REPLY &&
           satin_kvlist_i64(&r->info, "bad_messages", &bad) == 0,
       "STATUS answers");
    is_i64(bad, sent_bad, "the daemon counted every bad message it dropped");
    satin_msg_destroy(&r);

    test_client_limits();

    pid_t second = spawn_satind("65536");
    int status = 0;
    waitpid(second, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 1,
       "a second satind on the same socket refuses to start (exit 1)");
    ok(kill(daemon_pid, 0) == 0, "and the first one is still running");

    zmq_close(sock);
    zmq_ctx_term(ctx);
    kill(daemon_pid, SIGTERM);
    waitpid(daemon_pid, &status, 0);
    daemon_pid = -1;
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "SIGTERM: satind exits 0");
    ok(stat(path, &st) < 0, "and removes its socket file");
    return done_testing();
}
