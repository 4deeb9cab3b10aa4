/*
 * test_peer_garbage.c - a real grid (etc/single-4.yaml's four nodes, on ports
 * drawn at random so that other tests can run beside it, brought up with
 * deploy/satin-grid) while a raw ZeroMQ DEALER sends node n1's peer socket
 * bad and senseless peer messages: garbage, a wrong protocol version, an
 * unknown peer type, a truncated STEAL_REPLY, a STEAL_REPLY whose record
 * lies about its argument's length, a STEAL from a node index that is not
 * in the grid, a STEAL on a connection that never said HELLO, and a
 * JOB_RESULT for a record n1 never gave away.  An N-queens job runs on n1
 * meanwhile and must still be exact; n1 must count what it dropped
 * (STATUS bad_peer_messages, and rejected.<reason> by the admission stage
 * that refused it), stay alive, and compute fib 20.
 *
 * Counting is asynchronous, so each batch ends with a "fence" (one frame of
 * garbage, always counted): messages on one connection are handled in
 * order, so once the count has grown by at least the batch's minimum and
 * stopped growing, the whole batch has been handled.
 *
 * Run from the repo root:
 *   SATIN_BUILD=$PWD/build prove --exec '' build/tests/integration/test_peer_garbage.t
 */
#include "../tap.h"
#include "delivery.h"
#include "satin_client.h"
#include "satin_proto.h"
#include "topology.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define NNODES 4

static char dir[64];                 /* our temp dir; the grid's run dir is inside */
static char run_dir[128], satin_grid[1024], topology[1024];
static char n1_peer[64];             /* node n1's peer endpoint */
static int grid_started;

/* The shell command running now (satin-grid up or down), so that a signal
 * handler can let it finish before it stops the grid: an `up` cut short by
 * our exit would start daemons after our `down`. */
static volatile pid_t child_pid;

/* Runs `cmd` with /bin/sh; returns its exit status, or -1. */
static int run_cmd(const char *cmd)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    child_pid = pid;
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    child_pid = 0;
    return w == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void cleanup_grid(void)
{
    char cmd[2600];
    if (grid_started) {
        grid_started = 0;
        snprintf(cmd, sizeof cmd, "'%s' down --run-dir '%s' >/dev/null 2>&1", satin_grid,
                 run_dir);
        run_cmd(cmd);
    }
}

static void cleanup(void)
{
    char cmd[2600];
    cleanup_grid();
    if (dir[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        run_cmd(cmd);
        dir[0] = 0;
    }
}

/* ^C, kill, or the watchdog: stop the grid all the same. */
static void on_signal(int sig)
{
    if (sig == SIGALRM)
        printf("Bail out! the test did not finish within its watchdog time\n");
    fflush(stdout);
    pid_t pid = child_pid;
    if (pid > 0) {
        int status;
        waitpid(pid, &status, 0);   /* let a running up (or down) finish */
        child_pid = 0;
    }
    cleanup();
    _exit(sig == SIGALRM ? 1 : 128 + sig);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* etc/single-4.yaml's grid (one cluster of four nodes, one worker each,
 * random stealing) with its ports from BASE, into $dir/single-4.yaml. */
static int write_topology(int base)
{
    snprintf(topology, sizeof topology, "%s/single-4.yaml", dir);
    FILE *f = fopen(topology, "w");
    if (!f)
        return -1;
    fprintf(f, "grid: single-4\npolicy: rs\nsecurity: none\nclusters:\n  - name: local\n"
               "    nodes:\n");
    for (int i = 0; i < NNODES; i++)
        fprintf(f, "      - {id: n%d, endpoint: \"tcp://127.0.0.1:%d\", workers: 1}\n", i,
                base + i);
    snprintf(n1_peer, sizeof n1_peer, "tcp://127.0.0.1:%d", base + 1);
    return fclose(f);
}

static void dump_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    if (!f)
        return;
    printf("# %s:\n", path);
    while (fgets(line, sizeof line, f))
        printf("#   %s", line);
    fclose(f);
}

static void dump_logs(void)
{
    char path[200];
    for (int i = 0; i < NNODES; i++) {
        snprintf(path, sizeof path, "%s/n%d.log", run_dir, i);
        dump_file(path);
    }
}

/* ---- finding things ----------------------------------------------------------- */

static int find_repo_files(void)
{
    /* Tests run from the repo root; SATIN_BUILD is usually $repo/build. */
    const char *build = getenv("SATIN_BUILD");
    const char *roots[] = {".", NULL};
    char alt[1024];
    if (build) {
        snprintf(alt, sizeof alt, "%s/..", build);
        roots[1] = alt;
    }
    for (int i = 0; i < 2 && roots[i]; i++) {
        snprintf(satin_grid, sizeof satin_grid, "%s/deploy/satin-grid", roots[i]);
        if (access(satin_grid, X_OK) == 0)
            return 0;
    }
    return -1;
}

/* ---- the daemon's counters -------------------------------------------------------- */

static satin_client *n1;   /* a client of node n1 */

static int64_t n1_status_i64(const char *key)
{
    satin_client_values kv;
    satin_client_error err;
    int64_t v = -1;
    if (satin_client_status(n1, &kv, &err) != SATIN_CLIENT_OK) {
        diag("STATUS of n1 failed: %s", err.text);
        return -1;
    }
    if (satin_client_values_i64(&kv, key, &v) != 0)
        v = -1;
    satin_client_values_free(&kv);
    return v;
}

/* Every message n1 dropped: as bad (malformed, forged, senseless) or as
 * refused for what restarts cause (not greeted, another grid, an unknown
 * index); -1 if STATUS fails. */
static int64_t n1_dropped(void)
{
    int64_t bad = n1_status_i64("bad_peer_messages");
    int64_t refused = n1_status_i64("peer_messages_refused");
    return bad < 0 || refused < 0 ? -1 : bad + refused;
}

/* For poll_until: n1_dropped reached *(int64_t *)at_least, or STATUS
 * failed. */
static int bad_reaches(void *at_least)
{
    int64_t v = n1_dropped();
    return v < 0 || v >= *(int64_t *)at_least;
}

/* Waits until n1_dropped is at least `at_least`, then until it stops
 * growing; returns it (-1 if STATUS fails).  The count is read at least
 * twice, 150 ms apart, so a message still being handled is not missed:
 * that no more is counted is what the checks test, and only a time can
 * show it. */
static int64_t settled_bad(int64_t at_least)
{
    poll_until(60, bad_reaches, &at_least);
    int64_t v = n1_dropped();
    for (int i = 0; i < 20 && v >= 0; i++) {
        sleep_ms(150);
        int64_t again = n1_dropped();
        if (again == v)
            break;
        v = again;
    }
    return v;
}


/* ---- the raw peer connection ---------------------------------------------------- */

static void *raw;

/* A message (two frames or more) goes after a delivery frame, as a node's
 * would: unnumbered, from a run of its own. */
static void send_frames(const void *const *frames, const size_t *lens, int n)
{
    if (n >= 2) {
        unsigned char f[SATIN_DELIVERY_FRAME_SIZE];
        satin_delivery_stamp_encode(&(satin_delivery_stamp){.epoch = 0x7465737421ull}, f);
        if (zmq_send(raw, f, sizeof f, ZMQ_SNDMORE) < 0)
            diag("zmq_send: %s", zmq_strerror(zmq_errno()));
    }
    for (int i = 0; i < n; i++)
        if (zmq_send(raw, frames[i], lens[i], i + 1 < n ? ZMQ_SNDMORE : 0) < 0)
            diag("zmq_send: %s", zmq_strerror(zmq_errno()));
}

/* Sends a message as encoded, optionally with its body cut to `cut` bytes
 * (SIZE_MAX: whole) or with a patch applied (patch_at < 0: none). */
static void send_msg(const satin_msg *m, size_t cut, long patch_at, const void *patch,
                     size_t patch_len)
{
    unsigned char *h, *b;
    size_t hl, bl;
    if (satin_msg_encode(m, &h, &hl, &b, &bl) < 0) {
        diag("cannot encode a %s", satin_msg_type_name(m->type));
        return;
    }
    if (patch_at >= 0 && (size_t)patch_at + patch_len <= bl)
        memcpy(b + patch_at, patch, patch_len);
    send_frames((const void *[]){h, b}, (size_t[]){hl, cut < bl ? cut : bl}, 2);
    free(h);
    free(b);
}

static void send_garbage(void)
{
    static const unsigned char junk[] = "\xde\xad\xbe\xef not a satin message at all \x01\x02";
    send_frames((const void *[]){junk}, (size_t[]){sizeof junk - 1}, 1);
}

static void put_header(unsigned char h[16], int version, int type, uint32_t sender)
{
    memset(h, 0, 16);
    h[0] = 0x53;
    h[1] = 0x54;
    h[2] = (unsigned char)version;
    h[3] = (unsigned char)type;
    h[4] = (unsigned char)(sender >> 24);
    h[5] = (unsigned char)(sender >> 16);
    h[6] = (unsigned char)(sender >> 8);
    h[7] = (unsigned char)sender;
    h[15] = 1;  /* request id 1 */
}

/* A well-formed STEAL_REPLY from node 3 with one fib record owned by node 3. */
static satin_msg *steal_reply_from_3(void)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL_REPLY);
    m->sender = 3;
    m->request_id = 0xFEED0001u;
    m->victim = 3;
    m->flags = SATIN_STEAL_SYNC;
    int64_t arg = 20;
    satin_msg_add_jobrec(m, 3, 0xFEED0002u, 0xFEED0003u, "fib", 8, &arg, sizeof arg);
    return m;
}

static satin_msg *steal_from(uint32_t node, uint64_t request_id)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL);
    m->sender = node;
    m->request_id = request_id;
    m->thief = node;
    m->flags = SATIN_STEAL_SYNC;
    m->max_jobs = 1;
    return m;
}

/* ---- the test --------------------------------------------------------------------- */

static int count_in_file(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int n = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        n += strstr(line, needle) != NULL;
    fclose(f);
    return n;
}

static int64_t run_job(satin_client *c, const char *kind, const char *param, const char *key,
                       satin_job_report *keep)
{
    const char *params[] = {param, NULL};
    satin_client_error err;
    satin_job_report rep;
    uint64_t job;
    int64_t v = -1;
    memset(&rep, 0, sizeof rep);
    if (satin_client_submit(c, kind, params, 0, &job, &err) != SATIN_CLIENT_OK ||
        satin_client_wait(c, job, 60000, &rep, NULL, NULL, &err) != SATIN_CLIENT_OK) {
        diag("%s %s: %s", kind, param, err.text);
        satin_job_report_free(&rep);   /* filled when the job failed */
        return -1;
    }
    satin_client_values_i64(&rep.result, key, &v);
    if (keep)
        *keep = rep;
    else
        satin_job_report_free(&rep);
    return v;
}

int main(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    signal(SIGALRM, on_signal);
    alarm(180);   /* a hung daemon must not hang prove */

    if (find_repo_files() < 0) {
        printf("Bail out! cannot find deploy/satin-grid (run from the repo root)\n");
        return 1;
    }
    snprintf(dir, sizeof dir, "/tmp/satin-garbage-XXXXXX");
    if (!mkdtemp(dir)) {
        dir[0] = 0;
        printf("Bail out! mkdtemp failed\n");
        return 1;
    }
    atexit(cleanup);
    snprintf(run_dir, sizeof run_dir, "%s/run", dir);

    /* Up.  Output into files, not a pipe: the daemons inherit satin-grid's
     * stdout, so reading a pipe to its end would wait for them to exit. */
    char cmd[3000], path[200];
    /* Five draws of a port base before giving up: one may be taken. */
    srand((unsigned)getpid() ^ (unsigned)time(NULL));
    int up = -1;
    for (int attempt = 0; attempt < 5 && up != 0; attempt++) {
        if (attempt)
            cleanup_grid();
        if (write_topology(32000 + rand() % 8999) < 0) {
            printf("Bail out! cannot write %s\n", topology);
            return 1;
        }
        snprintf(cmd, sizeof cmd, "'%s' up '%s' --run-dir '%s' >'%s/endpoints' 2>'%s/up.err'",
                 satin_grid, topology, run_dir, dir, dir);
        grid_started = 1;
        up = run_cmd(cmd);
    }
    if (up != 0) {
        printf("Bail out! satin-grid up %s failed\n", topology);
        snprintf(path, sizeof path, "%s/up.err", dir);
        dump_file(path);
        dump_logs();
        return 1;
    }
    char eps[NNODES][256];
    snprintf(path, sizeof path, "%s/endpoints", dir);
    FILE *f = fopen(path, "r");
    int neps = 0;
    while (f && neps < NNODES && fgets(eps[neps], sizeof eps[neps], f)) {
        eps[neps][strcspn(eps[neps], "\n")] = 0;
        neps++;
    }
    if (f)
        fclose(f);
    if (neps != NNODES) {
        printf("Bail out! satin-grid up printed %d endpoints, not %d\n", neps, NNODES);
        return 1;
    }

    satin_client_error err;
    satin_client *n0 = satin_client_new(eps[0], &err);
    n1 = n0 ? satin_client_new(eps[1], &err) : NULL;
    if (!n0 || !n1) {
        printf("Bail out! cannot reach the grid: %s\n", err.text);
        dump_logs();
        return 1;
    }

    /* A job on n0 makes n0 ask every node for its counters; a report from
     * all 4 nodes means n1 took n0's messages, i.e. n0 has said HELLO to n1
     * on n0's own connection.  That fixes what n1 makes of the STEAL below
     * that claims to come from node 0 (the daemon keeps HELLO per node). */
    satin_job_report rep;
    memset(&rep, 0, sizeof rep);
    is_i64(run_job(n0, "fib", "n=20", "value", &rep), 6765, "warm-up: fib 20 on n0 = 6765");
    int64_t reporting = -1;
    satin_client_values_i64(&rep.stats, "grid.nodes_reporting", &reporting);
    is_i64(reporting, NNODES, "and all %d nodes reported their counters to n0", NNODES);
    satin_job_report_free(&rep);

    int64_t base = n1_dropped();
    int64_t base_bad = n1_status_i64("bad_peer_messages");
    is_i64(base, 0, "n1 has counted no bad peer message so far");
    if (base < 0)
        base = 0;

    /* The long job, on the node we are going to pester. */
    /* Long enough to still run while the garbage arrives (a few seconds on
     * 2 cores); N-queens 15 has 2279184 solutions. */
    const char *t1[] = {"n=15", NULL};
    uint64_t job = 0;
    int submitted = satin_client_submit(n1, "nqueens", t1, 0, &job, &err) == SATIN_CLIENT_OK;
    ok(submitted, "nqueens n=15 submitted to n1 (%s)", submitted ? "accepted" : err.text);

    void *ctx = zmq_ctx_new();
    raw = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(raw, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(raw, n1_peer) < 0) {
        printf("Bail out! cannot connect to %s: %s\n", n1_peer,
               zmq_strerror(zmq_errno()));
        return 1;
    }

    /* -- 1. Messages the codec rejects: all counted. ------------------------------- */
    unsigned char hdr[16];
    satin_msg *m;
    send_garbage();                                       /* one frame of garbage */
    put_header(hdr, SATIN_PROTO_VERSION + 1, SATIN_MSG_STEAL, 3);   /* a newer protocol */
    send_frames((const void *[]){hdr, ""}, (size_t[]){16, 0}, 2);
    put_header(hdr, 1, 50, 3);                            /* peer type 50: unassigned */
    send_frames((const void *[]){hdr, ""}, (size_t[]){16, 0}, 2);
    m = steal_reply_from_3();                             /* truncated STEAL_REPLY */
    {
        unsigned char *h, *b;
        size_t hl, bl;
        satin_msg_encode(m, &h, &hl, &b, &bl);
        free(h);
        free(b);
        send_msg(m, bl - 5, -1, NULL, 0);
        /* The record's arg is the last field: u32 length, then 8 bytes.
         * Claim 1 MiB where 8 bytes follow. */
        const unsigned char lie[4] = {0x00, 0x10, 0x00, 0x00};
        send_msg(m, SIZE_MAX, (long)(bl - 8 - 4), lie, sizeof lie);
    }
    satin_msg_destroy(&m);
    int64_t bad = settled_bad(base + 5);
    is_i64(bad - base, 5,
           "garbage, a newer version, type 50, a truncated and a lying STEAL_REPLY: 5 counted");
    int64_t running = n1_status_i64("jobs_running");
    diag("n1 was running %lld job(s) after the first batch", (long long)running);

    /* -- 2. A STEAL from node index 9, in a grid of 4 nodes: counted. ------------------ */
    int64_t before = bad;
    m = steal_from(9, 0xFEED0010u);
    send_msg(m, SIZE_MAX, -1, NULL, 0);
    satin_msg_destroy(&m);
    send_garbage();                                       /* fence */
    bad = settled_bad(before + 2);
    is_i64(bad - before, 2, "a STEAL claiming node index 9 (of 4) is counted (+ fence)");

    /* -- 3. A STEAL claiming node 0 on this connection, which never said HELLO. ------
     * PROTOCOL.md 14.2: "peer messages that come on a connection before its
     * HELLO are dropped and counted".  The real node 0 greeted n1 on its own
     * connection; that must not vouch for this one. */
    before = bad;
    m = steal_from(0, 0xFEED0020u);
    send_msg(m, SIZE_MAX, -1, NULL, 0);
    satin_msg_destroy(&m);
    send_garbage();                                       /* fence */
    bad = settled_bad(before + 1);
    int64_t steal_counted = bad - before - 1;
    is_i64(steal_counted, 1,
           "a STEAL as node 0 on a connection without HELLO is dropped and counted");

    /* -- 4. HELLO as node 3, then a JOB_RESULT for a record n1 never gave away. -------
     * PROTOCOL.md 14.16 counts "a reply or acknowledgement for a request or
     * record it does not know". */
    before = bad;
    const uint64_t m_record_id = 0xFEEDFEEDFEEDull;   /* n1 numbers its records 1, 2, ... */
    char terr[512];
    satin_topology *topo = satin_topology_load(topology, terr, sizeof terr);
    if (!topo) {
        printf("Bail out! %s\n", terr);
        return 1;
    }
    m = satin_msg_new(SATIN_MSG_HELLO);
    m->sender = 3;
    m->request_id = 1;
    satin_msg_set_grid_name(m, topo->name);
    m->node_count = NNODES;
    satin_msg_set_node_id(m, topo->nodes[3].id);
    satin_topology_digest(topo, m->digest);
    send_msg(m, SIZE_MAX, -1, NULL, 0);
    satin_msg_destroy(&m);
    m = satin_msg_new(SATIN_MSG_JOB_RESULT);
    m->sender = 3;
    m->request_id = 2;
    m->owner = 1;
    m->record_id = m_record_id;
    m->status = SATIN_STATUS_OK;
    int64_t fake = 42;
    satin_msg_set_data(m, &fake, sizeof fake);
    send_msg(m, SIZE_MAX, -1, NULL, 0);
    satin_msg_destroy(&m);
    send_garbage();                                       /* fence */
    bad = settled_bad(before + 1);
    int64_t result_counted = bad - before - 1;
    is_i64(result_counted, 1,
           "HELLO as node 3 (matching) and a JOB_RESULT for an unknown record: dropped and counted");
    /* (Its log line may be held back by the per-interval limiter: the
     * count above is what is exact.) */

    /* -- 5. A forged HELLO claiming node 2 for another grid.  It must only
     * spoil this connection: the real node 2 keeps talking to n1 (a job
     * that needs every node below still finishes exactly). */
    before = bad;
    m = satin_msg_new(SATIN_MSG_HELLO);
    m->sender = 2;
    m->request_id = 3;
    satin_msg_set_grid_name(m, "other-grid");
    m->node_count = NNODES;
    satin_msg_set_node_id(m, topo->nodes[2].id);
    satin_topology_digest(topo, m->digest);
    satin_topology_destroy(&topo);
    send_msg(m, SIZE_MAX, -1, NULL, 0);
    satin_msg_destroy(&m);
    send_garbage();                                       /* fence */
    bad = settled_bad(before + 2);
    is_i64(bad - before, 2, "a HELLO for another grid is counted (+ fence)");

    /* -- The job, the totals, and the daemon's health. ----------------------------------- */
    int64_t nodes = -1;
    if (submitted) {
        memset(&rep, 0, sizeof rep);
        int rc = satin_client_wait(n1, job, 60000, &rep, NULL, NULL, &err);
        ok(rc == SATIN_CLIENT_OK, "the nqueens job on n1 finished (%s)",
           rc == SATIN_CLIENT_OK ? "ok" : err.text);
        satin_client_values_i64(&rep.result, "solutions", &nodes);
        satin_job_report_free(&rep);
    }
    is_i64(nodes, 2279184, "nqueens 15 under fire = 2279184 solutions, exactly");

    /* After the forged HELLO for node 2: a job that spreads over every node
     * (n1 gives work to n2 and must get its results back). */
    const char *q[] = {"n=12", NULL};
    int64_t solutions = -1;
    if (satin_client_submit(n1, "nqueens", q, 0, &job, &err) == SATIN_CLIENT_OK) {
        memset(&rep, 0, sizeof rep);
        if (satin_client_wait(n1, job, 60000, &rep, NULL, NULL, &err) == SATIN_CLIENT_OK)
            satin_client_values_i64(&rep.result, "solutions", &solutions);
        satin_job_report_free(&rep);
    }
    is_i64(solutions, 14200, "nqueens 12 on n1 after the forged HELLO = 14200, exactly");

    /* Dropped and counted by n1: 5 + 2 (index 9, fence) + 2 (STEAL without
     * HELLO, fence) + 2 (JOB_RESULT, fence) + 2 (foreign HELLO, fence). */
    bad = n1_dropped();
    is_i64(bad - base, 13, "n1 dropped exactly the 13 messages it was sent to drop");
    /* An operator alerts on bad_peer_messages: the 3 that restarts and
     * reloads also cause (index 9, no HELLO, another grid) count apart. */
    is_i64(n1_status_i64("bad_peer_messages") - base_bad, 10,
           "10 of them as bad (garbage and fences, undecodable, senseless)");
    is_i64(n1_status_i64("peer_messages_refused"), 3,
           "3 as refused for what restarts cause (index 9, no HELLO, another grid)");
    /* The same 13 by the stage that refused them (STATUS rejected.<reason>;
     * base was 0, so these started at 0 too). */
    static const struct { const char *key; int64_t want; const char *what; } by_reason[] = {
        {"rejected.bad_stamp", 5, "the frame of garbage and the 4 fences"},
        {"rejected.undecodable", 4, "a newer version, type 50, the truncated and the lying STEAL_REPLY"},
        {"rejected.unknown_index", 1, "the STEAL from node index 9"},
        {"rejected.bad_sender", 0, "nothing"},
        {"rejected.not_greeted", 1, "the STEAL as node 0 without HELLO"},
        {"rejected.senseless", 1, "the JOB_RESULT for an unknown record"},
        {"rejected.other_grid", 1, "the HELLO for another grid"},
        {"rejected.bad_shape", 0, "nothing"},
        {"rejected.wrong_key", 0, "nothing (no keys under security: none)"},
        {"rejected.foreign_ack", 0, "nothing"},
        {"rejected.rate_limited", 0, "nothing"},
    };
    for (size_t i = 0; i < sizeof by_reason / sizeof *by_reason; i++)
        is_i64(n1_status_i64(by_reason[i].key), by_reason[i].want, "%s = %lld: %s",
               by_reason[i].key, (long long)by_reason[i].want, by_reason[i].what);

    snprintf(path, sizeof path, "%s/n1.pid", run_dir);
    f = fopen(path, "r");
    long pid = 0;
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    ok(pid > 0 && kill((pid_t)pid, 0) == 0, "n1 (pid %ld) is still alive", pid);
    is_i64(run_job(n1, "fib", "n=20", "value", NULL), 6765, "and answers fib 20 = 6765");
    snprintf(path, sizeof path, "%s/n1.log", run_dir);
    ok(count_in_file(path, "dropped") >= 1, "n1 logged what it dropped");

    zmq_close(raw);
    zmq_ctx_term(ctx);
    satin_client_destroy(&n0);
    satin_client_destroy(&n1);
    if (tap_failed_)
        dump_logs();
    cleanup();
    alarm(0);
    return done_testing();
}
