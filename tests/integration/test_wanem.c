/*
 * test_wanem.c - satin-wanem between two plain TCP endpoints of the test
 * itself: a topology of two clusters of one node each, whose "nodes" are
 * listening sockets of this program, relayed by build/satin-wanem.
 *
 * Every timing check is a lower bound that the shim guarantees by
 * construction (it never releases a byte before its delay, nor more than
 * its token bucket holds), so a slow machine can only make them pass more
 * easily: a 50 ms link never delivers in less than 50 ms; a bulk transfer
 * over 100 KB/s takes at least latency + (size - burst) / rate, and at no
 * moment has more than burst + rate * (elapsed - latency) arrived; two
 * connections on one link together obey that same bound.  A partition is
 * checked as a correctness property (the shim's own delivered-byte count
 * does not move while it lasts, and nothing sent after it arrives), and
 * the restore by every byte arriving, in order.  `ctl set` changes the
 * latency (lower bound again), `ctl stats` counts exactly the bytes sent,
 * and bad control commands get clear errors.
 *
 * Then one end-to-end check: a generated 2x1 emulated grid brought up with
 * deploy/satin-grid (which starts satin-wanem first), fib 25 = 75025, and
 * the shim's counters show traffic on both directed links.
 *
 * Run from the repo root:
 *   SATIN_BUILD=$PWD/build prove --exec '' build/tests/integration/test_wanem.t
 */
#include "../tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The topology's links: A -> B is the slow one the checks measure. */
#define AB_LATENCY_MS 50.0
#define AB_JITTER_MS 5.0
#define AB_KBPS 100.0
#define BA_LATENCY_MS 30.0
#define BA_KBPS 1000.0
#define BURST_LIMIT 16384   /* the shim's bucket must be small ("16 KiB or 10 ms") */

static char build[1024], wanem[1100], dir[128], yaml[300], ctl_path[256], log_path[256];
static pid_t wanem_pid = -1;
static int base_port, port_a0, port_b0;
static int lis_a0 = -1, lis_b0 = -1;        /* the two "nodes" */
static unsigned long long sent_ab, sent_ba; /* every byte we pushed through each link */
static int pairs_opened;

/* ---- small helpers ------------------------------------------------------------- */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double ms_since(int64_t t0)
{
    return (double)(now_ns() - t0) / 1e6;
}

static void dump_file(const char *path, int last_lines)
{
    char lines[64][512];
    int n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(lines[n % 64], sizeof lines[0], f))
        n++;
    fclose(f);
    int from = n > last_lines ? n - last_lines : 0;
    if (last_lines > 64 && n - from > 64)
        from = n - 64;
    printf("# %s (last lines):\n", path);
    for (int i = from; i < n; i++)
        printf("#   %s", lines[i % 64]);
}

/* The byte at position i of stream `tag`: any mix-up, loss or reordering
 * shows. */
static unsigned char pattern(int tag, size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u + (uint32_t)tag * 40503u;
    return (unsigned char)(x >> 13);
}

static void fill(unsigned char *buf, size_t len, int tag, size_t from)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(tag, from + i);
}

/* ---- sockets ----------------------------------------------------------------------- */

static void nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* A listener on 127.0.0.1:port; -1 if the port is taken. */
static int listen_port(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 16) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int connect_port(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        diag("connect to port %d: %s", port, strerror(errno));
        close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    nonblock(fd);
    return fd;
}

static int accept_within(int lis, int ms)
{
    struct pollfd p = {.fd = lis, .events = POLLIN};
    if (poll(&p, 1, ms) != 1)
        return -1;
    int one = 1, fd = accept4(lis, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0) {
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        nonblock(fd);
    }
    return fd;
}

/* A connection from cluster A to node b0 through the shim (`up` is ours at
 * A's end, `down` the one the "node" b0 accepted). */
static int open_ab(int *up, int *down)
{
    *up = connect_port(base_port + 1);   /* from cluster 0 to node 1 */
    *down = *up >= 0 ? accept_within(lis_b0, 5000) : -1;
    if (*down < 0) {
        diag("the shim did not connect to b0");
        if (*up >= 0)
            close(*up);
        return -1;
    }
    pairs_opened++;
    return 0;
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EAGAIN) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            poll(&pf, 1, 1000);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads exactly len bytes within ms; the count read. */
static size_t read_exactly(int fd, unsigned char *buf, size_t len, int ms)
{
    size_t have = 0;
    int64_t end = now_ns() + (int64_t)ms * 1000000;
    while (have < len) {
        int left = (int)((end - now_ns()) / 1000000);
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&pf, 1, left) <= 0)
            break;
        ssize_t n = recv(fd, buf + have, len - have, 0);
        if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR)))
            break;
        if (n > 0)
            have += (size_t)n;
    }
    return have;
}

/* ---- the shim -------------------------------------------------------------------- */

static void stop_wanem(void)
{
    if (wanem_pid > 0) {
        int st;
        kill(wanem_pid, SIGKILL);
        waitpid(wanem_pid, &st, 0);
        wanem_pid = -1;
    }
}

static void cleanup(void)
{
    char cmd[300];
    stop_wanem();
    if (dir[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) {
            /* Leaves a temp dir behind: not a test failure. */
        }
        dir[0] = 0;
    }
}

static void on_signal(int sig)
{
    if (sig == SIGALRM)
        printf("Bail out! the test did not finish within its watchdog time\n");
    fflush(stdout);
    cleanup();
    _exit(sig == SIGALRM ? 1 : 128 + sig);
}

/* Runs argv with stdout and stderr into files; the exit status, -1 if it
 * did not exit. */
static int run(char *const argv[], const char *out, const char *err)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null = open("/dev/null", O_RDONLY);
        dup2(null, 0);
        dup2(o, 1);
        dup2(e, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int file_has(const char *path, const char *needle)
{
    char buf[65536];
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, needle) != NULL;
}

static int write_yaml(int emulate)
{
    FILE *f = fopen(yaml, "w");
    if (!f)
        return -1;
    fprintf(f,
            "grid: wanem-test\n"
            "security: none\n"
            "emulate: %s\n"
            "wan:\n"
            "  latency_ms: %g\n"
            "  jitter_ms: %g\n"
            "  bandwidth_kBps: %g\n"
            "  shim_host: 127.0.0.1\n"
            "  shim_base_port: %d\n"
            "  links:\n"
            "    - {from: B, to: A, latency_ms: %g, jitter_ms: 0, bandwidth_kBps: %g}\n"
            "clusters:\n"
            "  - {name: A, nodes: [{id: a0, endpoint: 'tcp://127.0.0.1:%d'}]}\n"
            "  - {name: B, nodes: [{id: b0, endpoint: 'tcp://127.0.0.1:%d'}]}\n",
            emulate ? "true" : "false", AB_LATENCY_MS, AB_JITTER_MS, AB_KBPS, base_port,
            BA_LATENCY_MS, BA_KBPS, port_a0, port_b0);
    return fclose(f);
}

/* For poll_until: satin-wanem's control socket answers (*answered = 1), or
 * it has exited (wanem_pid = -1). */
static int answers_or_exits(void *answered)
{
    int st;
    if (waitpid(wanem_pid, &st, WNOHANG) == wanem_pid) {
        wanem_pid = -1;
        return 1;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%.100s", ctl_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    *(int *)answered = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    return *(int *)answered;
}

/* Starts satin-wanem; 1 when its control socket answers, 0 if it exited
 * (its log says why), -1 if it did neither within a minute. */
static int spawn_wanem(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* never outlive the test */
        int e = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(e, 2);
        execl(wanem, wanem, "--config", yaml, "--control", ctl_path, "--foreground", "--seed",
              "42", (char *)NULL);
        _exit(127);
    }
    wanem_pid = pid;
    int answered = 0;
    poll_until(60, answers_or_exits, &answered);
    return wanem_pid < 0 ? 0 : answered ? 1 : -1;
}

/* Ports at random (the other integration tests use fixed ones far below),
 * our two "nodes" listening, then the shim; again with other ports when
 * one is taken. */
static int start_wanem(void)
{
    for (int attempt = 0; attempt < 10; attempt++) {
        base_port = 30000 + (rand() % 4990);   /* relay ports base+1, base+2 < 35000 */
        port_a0 = 35000 + (rand() % 5000);
        port_b0 = port_a0 + 1;
        if ((lis_a0 = listen_port(port_a0)) < 0)
            continue;
        if ((lis_b0 = listen_port(port_b0)) < 0) {
            close(lis_a0);
            continue;
        }
        if (write_yaml(1) < 0)
            return -1;
        int rc = spawn_wanem();
        if (rc == 1)
            return 0;
        if (rc < 0 || !file_has(log_path, "in use")) {
            dump_file(log_path, 10);
            return -1;
        }
        close(lis_a0);
        close(lis_b0);
    }
    return -1;
}

/* One control command; the whole reply in `reply`.  1 for "ok", 0 for
 * "error: ", -1 for no reply. */
static int ctl(const char *cmd, char *reply, size_t len)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t have = 0;
    int rc = -1;
    reply[0] = 0;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%.100s", ctl_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        write_all(fd, (const unsigned char *)cmd, strlen(cmd)) < 0 ||
        write_all(fd, (const unsigned char *)"\n", 1) < 0) {
        close(fd);
        return -1;
    }
    for (;;) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (have + 1 >= len || poll(&pf, 1, 5000) != 1)
            break;
        ssize_t n = recv(fd, reply + have, len - have - 1, 0);
        if (n <= 0)
            break;
        have += (size_t)n;
        reply[have] = 0;
        /* The last line starts with "ok" or "error: ". */
        char *last = reply + have - 1;
        if (*last != '\n')
            continue;
        while (last > reply && last[-1] != '\n')
            last--;
        if (strncmp(last, "ok", 2) == 0) {
            rc = 1;
            break;
        }
        if (strncmp(last, "error: ", 7) == 0) {
            rc = 0;
            break;
        }
    }
    close(fd);
    return rc;
}

/* A counter of `stats` for the link "A->B" (e.g. "bytes"), -1 if absent. */
static double stat_of(const char *link, const char *key)
{
    char reply[8192], needle[64];
    if (ctl("stats", reply, sizeof reply) != 1)
        return -1;
    char *line = strstr(reply, link);
    if (!line || (line != reply && line[-1] != '\n'))
        return -1;
    char *eol = strchr(line, '\n');
    snprintf(needle, sizeof needle, " %s=", key);
    char *at = strstr(line, needle);
    if (!at || (eol && at > eol))
        return -1;
    return strtod(at + strlen(needle), NULL);
}

/* For poll_until: no connection is open on either link. */
static int none_open(void *unused)
{
    (void)unused;
    return stat_of("A->B", "open") == 0 && stat_of("B->A", "open") == 0;
}

/* ---- the checks ------------------------------------------------------------------ */

/* Small messages both ways, one at a time. */
static void test_latency(void)
{
    int up, down;
    unsigned char msg[16], got[16];
    double min_ab = 1e9, max_ab = 0, min_ba = 1e9;
    int all_ab = 1, all_ba = 1, intact = 1;
    if (!ok(open_ab(&up, &down) == 0, "latency: a connection A -> b0 through the shim"))
        return;
    for (int i = 0; i < 5; i++) {
        fill(msg, sizeof msg, 1, (size_t)i * 16);
        int64_t t0 = now_ns();
        write_all(up, msg, sizeof msg);
        size_t n = read_exactly(down, got, sizeof got, 5000);
        double ms = ms_since(t0);
        sent_ab += sizeof msg;
        intact &= n == sizeof got && memcmp(msg, got, sizeof msg) == 0;
        all_ab &= ms >= AB_LATENCY_MS;
        min_ab = ms < min_ab ? ms : min_ab;
        max_ab = ms > max_ab ? ms : max_ab;

        fill(msg, sizeof msg, 2, (size_t)i * 16);
        t0 = now_ns();
        write_all(down, msg, sizeof msg);
        n = read_exactly(up, got, sizeof got, 5000);
        ms = ms_since(t0);
        sent_ba += sizeof msg;
        intact &= n == sizeof got && memcmp(msg, got, sizeof msg) == 0;
        all_ba &= ms >= BA_LATENCY_MS;
        min_ba = ms < min_ba ? ms : min_ba;
    }
    ok(intact, "latency: 5 messages each way arrive intact");
    ok(all_ab, "latency: A -> B (%.0f ms + up to %.0f ms jitter) never under %.0f ms: min %.2f, "
               "max %.2f ms",
       AB_LATENCY_MS, AB_JITTER_MS, AB_LATENCY_MS, min_ab, max_ab);
    ok(all_ba, "latency: B -> A on the same connection never under %.0f ms: min %.2f ms",
       BA_LATENCY_MS, min_ba);
    close(up);
    close(down);
}

/* Sends `len[i]` bytes of pattern tag i on up[i] while reading every
 * down[], checking at each read that the link's bucket is never beaten
 * (delivered <= burst + rate * (elapsed - latency)).  Returns the time
 * until the last byte arrived (ms), -1 if not all came or not intact. */
static double transfer(int n, const int *up, const int *down, const size_t *len,
                       double latency_ms, double rate, double burst, int *bucket_ok,
                       double *done_ms)
{
    unsigned char buf[65536];
    size_t wrote[4] = {0}, got[4] = {0}, total = 0, want = 0;
    int intact = 1, tag_of[4] = {-1, -1, -1, -1};
    int64_t t0 = now_ns();
    *bucket_ok = 1;
    for (int i = 0; i < n; i++)
        want += len[i];
    while (total < want) {
        struct pollfd pf[8];
        for (int i = 0; i < n; i++) {
            pf[i] = (struct pollfd){.fd = up[i], .events = wrote[i] < len[i] ? POLLOUT : 0};
            pf[n + i] = (struct pollfd){.fd = down[i], .events = POLLIN};
        }
        if (poll(pf, (nfds_t)(2 * n), 10000) <= 0)
            break;
        for (int i = 0; i < n; i++) {
            if (pf[i].revents & POLLOUT) {
                size_t chunk = len[i] - wrote[i] < 8192 ? len[i] - wrote[i] : 8192;
                fill(buf, chunk, 10 + i, wrote[i]);
                ssize_t w = send(up[i], buf, chunk, MSG_NOSIGNAL);
                if (w > 0)
                    wrote[i] += (size_t)w;
            }
            if (pf[n + i].revents & (POLLIN | POLLHUP | POLLERR)) {
                ssize_t r = recv(down[i], buf, sizeof buf, 0);
                if (r <= 0)
                    continue;
                double elapsed_s = (double)(now_ns() - t0) / 1e9;
                /* Which sender this stream is: the accept order need not be ours. */
                for (int k = 0; k < n && tag_of[i] < 0; k++)
                    if (buf[0] == pattern(10 + k, 0) && got[i] == 0)
                        tag_of[i] = k;
                for (ssize_t b = 0; b < r; b++)
                    intact &= tag_of[i] >= 0 &&
                              buf[b] == pattern(10 + tag_of[i], got[i] + (size_t)b);
                got[i] += (size_t)r;
                total += (size_t)r;
                if (got[i] == (tag_of[i] >= 0 ? len[tag_of[i]] : 0))
                    done_ms[i] = elapsed_s * 1e3;
                double allowed = burst + rate * (elapsed_s - latency_ms / 1e3) + 1;
                if ((double)total > allowed) {
                    if (*bucket_ok)
                        diag("at %.3f s %zu bytes had arrived; the bucket allows %.0f",
                             elapsed_s, total, allowed);
                    *bucket_ok = 0;
                }
            }
        }
    }
    double ms = ms_since(t0);
    if (total != want || !intact) {
        diag("got %zu of %zu bytes, %s", total, want, intact ? "intact" : "NOT intact");
        return -1;
    }
    return ms;
}

static void test_bulk(double burst)
{
    int up, down, bucket_ok;
    size_t size = 100000;
    double done[1] = {0};
    if (!ok(open_ab(&up, &down) == 0, "bulk: a connection A -> b0"))
        return;
    double rate = AB_KBPS * 1000, bound = AB_LATENCY_MS + ((double)size - burst) / rate * 1e3;
    double ms = transfer(1, &up, &down, &size, AB_LATENCY_MS, rate, burst, &bucket_ok, done);
    sent_ab += size;
    ok(ms >= 0, "bulk: 100000 bytes over the 100 KB/s link arrive intact, in order");
    ok(ms >= bound,
       "bulk: they take at least latency + (size - burst) / rate = %.1f ms: %.1f ms", bound, ms);
    ok(bucket_ok, "bulk: never more arrived than burst + rate * (elapsed - latency)");
    close(up);
    close(down);
}

static void test_shared(double burst)
{
    int up[2], down[2], bucket_ok;
    size_t size[2] = {30000, 30000};
    double done[2] = {0, 0};
    if (!ok(open_ab(&up[0], &down[0]) == 0 && open_ab(&up[1], &down[1]) == 0,
            "shared: two connections A -> b0"))
        return;
    double rate = AB_KBPS * 1000, bound = AB_LATENCY_MS + (60000.0 - burst) / rate * 1e3;
    double ms = transfer(2, up, down, size, AB_LATENCY_MS, rate, burst, &bucket_ok, done);
    sent_ab += size[0] + size[1];
    ok(ms >= 0, "shared: 2 x 30000 bytes arrive intact, each in order");
    ok(ms >= bound,
       "shared: together they take at least latency + (60000 - burst) / rate = %.1f ms: "
       "%.1f ms (the streams ended at %.1f and %.1f ms)",
       bound, ms, done[0], done[1]);
    ok(bucket_ok, "shared: their combined bytes never beat the link's one bucket");
    for (int i = 0; i < 2; i++) {
        close(up[i]);
        close(down[i]);
    }
}

static void test_partition(void)
{
    int up, down;
    char reply[4096];
    unsigned char buf[20000], got[20000];
    size_t chunk0 = 1000, later_ab = 8000, later_ba = 6000;
    if (!ok(open_ab(&up, &down) == 0, "partition: a connection A -> b0"))
        return;
    /* Bytes in flight when the partition comes, and bytes sent during it. */
    fill(buf, chunk0, 20, 0);
    write_all(up, buf, chunk0);
    ok(ctl("partition A B", reply, sizeof reply) == 1, "partition: ctl partition A B: ok");
    double before_ab = stat_of("A->B", "bytes"), before_ba = stat_of("B->A", "bytes");
    ok(strstr(reply, "ok partitioned A <-> B") != NULL, "partition: the reply says so");
    fill(buf, later_ab, 20, chunk0);
    write_all(up, buf, later_ab);
    fill(buf, later_ba, 21, 0);
    write_all(down, buf, later_ba);
    /* 300 ms of partition: whatever arrives must have left before it. */
    size_t in_ab = read_exactly(down, got, sizeof got, 300);
    size_t in_ba = read_exactly(up, got + chunk0, later_ba, 1);
    double after_ab = stat_of("A->B", "bytes"), after_ba = stat_of("B->A", "bytes");
    ok(before_ab >= 0 && after_ab == before_ab && after_ba == before_ba,
       "partition: the shim delivered nothing on A->B or B->A while partitioned (%.0f, %.0f "
       "bytes before and after)",
       after_ab, after_ba);
    ok(in_ab <= chunk0 && in_ba == 0,
       "partition: nothing sent after it arrived (%zu bytes A->B of the %zu in flight, %zu "
       "B->A)",
       in_ab, chunk0, in_ba);
    {
        char line[512] = "";
        if (ctl("stats A B", reply, sizeof reply) == 1)
            snprintf(line, sizeof line, "%.500s", reply);
        ok(strstr(line, "partitioned=yes") != NULL, "partition: stats A B says partitioned=yes");
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        diag("during the partition: %s", line);
    }
    ok(ctl("restore A B", reply, sizeof reply) == 1, "partition: ctl restore A B: ok");
    size_t rest_ab = read_exactly(down, got + in_ab, chunk0 + later_ab - in_ab, 10000);
    size_t rest_ba = read_exactly(up, got + chunk0 + later_ab, later_ba, 10000);
    fill(buf, chunk0 + later_ab, 20, 0);
    ok(in_ab + rest_ab == chunk0 + later_ab && memcmp(buf, got, chunk0 + later_ab) == 0,
       "partition: after the restore every byte A->B arrived, in order (%zu)",
       in_ab + rest_ab);
    fill(buf, later_ba, 21, 0);
    ok(rest_ba == later_ba && memcmp(buf, got + chunk0 + later_ab, later_ba) == 0,
       "partition: and every byte B->A (%zu)", rest_ba);
    ok(stat_of("A->B", "stalled_ms") > 0, "partition: A->B counts time stalled");
    sent_ab += chunk0 + later_ab;
    sent_ba += later_ba;
    close(up);
    close(down);
}

/* 1 when fd's peer reset the connection (recv fails with ECONNRESET). */
static int sees_reset(int fd)
{
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    unsigned char b;
    if (poll(&pf, 1, 2000) != 1)
        return 0;
    return recv(fd, &b, 1, 0) < 0 && errno == ECONNRESET;
}

/* For poll_until: the link A->B holds *(double *)want bytes or more. */
static int queued_reaches(void *want)
{
    return stat_of("A->B", "queued") >= *(double *)want;
}

/* A reset breaks the link's connections like a failing WAN: the held bytes
 * are lost and both ends see the reset. */
static void test_reset(void)
{
    int up, down;
    char reply[4096];
    unsigned char buf[5000], got[5000];
    wait_for(60, none_open, NULL, "the earlier connections to close");
    if (!ok(open_ab(&up, &down) == 0, "reset: a connection A -> b0"))
        return;
    ok(ctl("partition A B", reply, sizeof reply) == 1, "reset: ctl partition A B: ok");
    fill(buf, sizeof buf, 30, 0);
    write_all(up, buf, sizeof buf);
    poll_until(60, queued_reaches, &(double){(double)sizeof buf});
    double held = stat_of("A->B", "queued");
    ok(held == (double)sizeof buf, "reset: the partition holds the %zu bytes sent (%.0f)",
       sizeof buf, held);
    ok(ctl("reset A B", reply, sizeof reply) == 1 &&
           strstr(reply, "ok reset 1 connection between A and B") != NULL,
       "reset: ctl reset A B breaks the one connection");
    ok(stat_of("A->B", "queued") == 0 && stat_of("A->B", "open") == 0,
       "reset: nothing is held or open on A->B any more");
    ok(ctl("restore A B", reply, sizeof reply) == 1, "reset: ctl restore A B: ok");
    ok(sees_reset(down), "reset: b0's end sees a reset, and none of the held bytes");
    ok(sees_reset(up), "reset: A's end sees a reset");
    (void)got;
    close(up);
    close(down);
    ok(ctl("reset A C", reply, sizeof reply) == 0 && strstr(reply, "unknown cluster 'C'"),
       "reset: an unknown cluster is an error naming it");
    ok(ctl("reset A", reply, sizeof reply) == 0 && strstr(reply, "usage: reset A B"),
       "reset: one cluster is a usage error");
}

static void test_set(void)
{
    char reply[4096];
    int up, down, all = 1;
    unsigned char msg[8] = "latency", got[8];
    double min = 1e9;
    ok(ctl("set A B latency=120 jitter=0", reply, sizeof reply) == 1 &&
           strstr(reply, "ok A->B latency_ms=120 jitter_ms=0 bandwidth_kBps=100"),
       "set: ctl set A B latency=120 jitter=0: ok, and says the link's values");
    if (open_ab(&up, &down) == 0) {
        for (int i = 0; i < 3; i++) {
            int64_t t0 = now_ns();
            write_all(up, msg, sizeof msg);
            size_t n = read_exactly(down, got, sizeof got, 5000);
            double ms = ms_since(t0);
            all &= n == sizeof got && ms >= 120;
            min = ms < min ? ms : min;
            sent_ab += sizeof msg;
        }
        close(up);
        close(down);
    }
    ok(all, "set: A -> B now never under 120 ms: min %.2f ms", min);
    ok(stat_of("A->B", "latency_ms") == 120, "set: stats shows latency_ms=120");
    ok(ctl("set A B latency=50 jitter=5", reply, sizeof reply) == 1, "set: and back to 50 ms");

    ok(ctl("set A B latency=fast", reply, sizeof reply) == 0 &&
           strstr(reply, "error: 'latency' must be a number of milliseconds from 0 to 60000, "
                         "not 'fast'"),
       "set: a bad number is refused clearly");
    ok(ctl("set A B bandwidth=0", reply, sizeof reply) == 0 &&
           strstr(reply, "'bandwidth' must be a number of KByte/s greater than 0"),
       "set: bandwidth 0 is refused");
    ok(ctl("set A B colour=blue", reply, sizeof reply) == 0 &&
           strstr(reply, "error: unknown setting 'colour=blue'"),
       "set: an unknown setting is refused");
    ok(ctl("set A A latency=1", reply, sizeof reply) == 0 &&
           strstr(reply, "error: no link from A to itself"),
       "set: no link from a cluster to itself");
    ok(ctl("partition A X", reply, sizeof reply) == 0 &&
           strstr(reply, "error: unknown cluster 'X' (expected one of A, B)"),
       "ctl: an unknown cluster is refused with the known ones");
    ok(ctl("reboot", reply, sizeof reply) == 0 && strstr(reply, "error: unknown command 'reboot'"),
       "ctl: an unknown command is refused");
    ok(ctl("restore", reply, sizeof reply) == 1, "ctl: restore without names restores all");
}

/* For poll_until: every connection closed and drained. */
static int drained(void *unused)
{
    (void)unused;
    return none_open(NULL) && stat_of("A->B", "queued") == 0 && stat_of("B->A", "queued") == 0;
}

/* For poll_until: satin-wanem exited and was reaped; its status in *st. */
static int reaped(void *st)
{
    return waitpid(wanem_pid, st, WNOHANG) == wanem_pid;
}

/* The counters, once every connection has closed and drained. */
static void test_stats(void)
{
    ok(poll_until(60, drained, NULL), "stats: every connection closed, nothing queued");
    is_i64((int64_t)stat_of("A->B", "bytes"), (int64_t)sent_ab, "stats: A->B bytes are exactly "
                                                                 "those sent A -> b0");
    is_i64((int64_t)stat_of("B->A", "bytes"), (int64_t)sent_ba,
           "stats: B->A bytes are exactly those sent back");
    is_i64((int64_t)stat_of("A->B", "connections"), pairs_opened,
           "stats: A->B counts every connection");
    is_i64((int64_t)stat_of("B->A", "connections"), pairs_opened,
           "stats: B->A too (each connection uses both directions)");
}

/* The client side of the control socket, as a user runs it. */
static void test_ctl_client(void)
{
    char out[300], err[300];
    snprintf(out, sizeof out, "%s/ctl.out", dir);
    snprintf(err, sizeof err, "%s/ctl.err", dir);
    char *stats[] = {wanem, "ctl", "--control", ctl_path, "stats", NULL};
    int rc = run(stats, out, err);
    ok(rc == 0 && file_has(out, "A->B latency_ms=50 jitter_ms=5 bandwidth_kBps=100") &&
           file_has(out, "B->A latency_ms=30") && file_has(out, "2 links"),
       "ctl client: satin-wanem ctl stats prints both links (exit %d)", rc);
    char *bad[] = {wanem, "ctl", "--control", ctl_path, "partition", "A", "Z", NULL};
    rc = run(bad, out, err);
    ok(rc == 1 && file_has(err, "satin-wanem: error: unknown cluster 'Z' (expected one of A, B)"),
       "ctl client: an unknown cluster exits 1 with the error on stderr (exit %d)", rc);
    char nowhere[300];
    snprintf(nowhere, sizeof nowhere, "%s/nobody.ctl", dir);
    char *none[] = {wanem, "ctl", "--control", nowhere, "stats", NULL};
    rc = run(none, out, err);
    ok(rc == 1 && file_has(err, "cannot connect to the control socket"),
       "ctl client: no shim there: exit 1, says so (exit %d)", rc);
}

static void test_check_emulate(void)
{
    char out[300], err[300], other[300];
    snprintf(out, sizeof out, "%s/ce.out", dir);
    snprintf(err, sizeof err, "%s/ce.err", dir);
    char *yes[] = {wanem, "--config", yaml, "--check-emulate", NULL};
    is_i64(run(yes, out, err), 0, "--check-emulate: exit 0 for emulate: true");
    /* The same grid not emulated, in another file. */
    snprintf(other, sizeof other, "%s", yaml);
    snprintf(yaml, sizeof yaml, "%s/plain.yaml", dir);
    write_yaml(0);
    char *no[] = {wanem, "--config", yaml, "--check-emulate", NULL};
    is_i64(run(no, out, err), 3, "--check-emulate: exit 3 for emulate: false");
    char *plain[] = {wanem, "--config", yaml, "--foreground", "--control", "/nonexistent/x.ctl",
                     NULL};
    int rc = run(plain, out, err);
    ok(rc == 0 && file_has(err, "nothing to emulate"),
       "not emulated: satin-wanem exits 0, nothing to emulate (exit %d)", rc);
    snprintf(yaml, sizeof yaml, "%s", other);
}

static void test_sigterm(void)
{
    int st = 0;
    kill(wanem_pid, SIGTERM);
    int gone = poll_until(60, reaped, &st);
    if (gone)
        wanem_pid = -1;
    ok(gone && WIFEXITED(st) && WEXITSTATUS(st) == 0, "SIGTERM: satin-wanem exits 0");
    ok(access(ctl_path, F_OK) != 0, "SIGTERM: and removes its control socket");
}

/* ---- end to end: real daemons through the shim ------------------------------------- */

static int sh(const char *cmd)
{
    fflush(stdout);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_grid(void)
{
    char gdir[256], gyaml[300], run_dir[300], repo_grid[1200], cmd[4096], out[300];
    const char *roots[2] = {".", NULL};
    char alt[1100];
    snprintf(alt, sizeof alt, "%s/..", build);
    roots[1] = alt;
    repo_grid[0] = 0;
    for (int i = 0; i < 2; i++) {
        snprintf(repo_grid, sizeof repo_grid, "%s/deploy/satin-grid", roots[i]);
        if (access(repo_grid, X_OK) == 0)
            break;
        repo_grid[0] = 0;
    }
    if (!ok(repo_grid[0], "grid: deploy/satin-grid found"))
        return;
    snprintf(gdir, sizeof gdir, "%s/grid", dir);
    snprintf(gyaml, sizeof gyaml, "%s/grid.yaml", dir);
    snprintf(run_dir, sizeof run_dir, "%s/run", gdir);
    snprintf(out, sizeof out, "%s/fib.out", dir);
    mkdir(gdir, 0700);
    int up_rc = -1;
    for (int attempt = 0; attempt < 3 && up_rc != 0; attempt++) {
        int base = 45000 + rand() % 4000, pa = 40000 + rand() % 4000;
        FILE *f = fopen(gyaml, "w");
        if (!f)
            break;
        fprintf(f,
                "grid: wanem-e2e\npolicy: crs\nsecurity: none\nemulate: true\n"
                "wan: {latency_ms: 5, jitter_ms: 0, bandwidth_kBps: 1000, shim_base_port: %d}\n"
                "clusters:\n"
                "  - {name: A, nodes: [{id: a0, endpoint: 'tcp://127.0.0.1:%d', workers: 1}]}\n"
                "  - {name: B, nodes: [{id: b0, endpoint: 'tcp://127.0.0.1:%d', workers: 1}]}\n",
                base, pa, pa + 1);
        fclose(f);
        snprintf(cmd, sizeof cmd,
                 "SATIN_BUILD='%s' '%s' up '%s' --run-dir '%s' >'%s/up.out' 2>&1", build,
                 repo_grid, gyaml, run_dir, dir);
        up_rc = sh(cmd);
        if (up_rc != 0) {
            snprintf(cmd, sizeof cmd, "%s/up.out", dir);
            dump_file(cmd, 10);
        }
    }
    if (!ok(up_rc == 0, "grid: satin-grid up starts a 2x1 emulated grid (and satin-wanem)"))
        return;
    char pidf[400];
    snprintf(pidf, sizeof pidf, "%s/wanem.pid", run_dir);
    ok(access(pidf, F_OK) == 0, "grid: satin-wanem runs with the grid (wanem.pid)");
    snprintf(cmd, sizeof cmd,
             "'%s/satin-submit' --socket 'ipc://%s/a0.sock' --json --timeout 60 fib n=25 >'%s' "
             "2>&1",
             build, run_dir, out);
    int rc = sh(cmd);
    ok(rc == 0 && file_has(out, "75025"), "grid: fib n=25 through the emulated grid = 75025");
    if (rc != 0 || !file_has(out, "75025"))
        dump_file(out, 10);
    /* The shim's counters: bytes both ways, so traffic really went through it. */
    snprintf(cmd, sizeof cmd, "'%s' ctl --control '%s/wanem.ctl' stats >'%s/gstats' 2>&1",
             wanem, run_dir, dir);
    sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/gstats", dir);
    FILE *f = fopen(cmd, "r");
    char line[512];
    unsigned long long ab = 0, ba = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *b = strstr(line, " bytes=");
        if (b && strncmp(line, "A->B ", 5) == 0)
            ab = strtoull(b + 7, NULL, 10);
        if (b && strncmp(line, "B->A ", 5) == 0)
            ba = strtoull(b + 7, NULL, 10);
        line[strcspn(line, "\n")] = 0;
        diag("shim: %s", line);
    }
    if (f)
        fclose(f);
    ok(ab > 0 && ba > 0, "grid: the shim carried the daemons' traffic both ways (%llu, %llu "
                         "bytes)",
       ab, ba);
    if (!(ab > 0 && ba > 0)) {
        snprintf(cmd, sizeof cmd, "%s/a0.log", run_dir);
        dump_file(cmd, 10);
        snprintf(cmd, sizeof cmd, "%s/wanem.log", run_dir);
        dump_file(cmd, 10);
    }
    snprintf(cmd, sizeof cmd, "'%s' down --run-dir '%s' >/dev/null 2>&1", repo_grid, run_dir);
    ok(sh(cmd) == 0 && access(pidf, F_OK) != 0, "grid: satin-grid down stops it all");
}

int main(void)
{
    const char *b = getenv("SATIN_BUILD");
    snprintf(build, sizeof build, "%s", b ? b : "build");
    snprintf(wanem, sizeof wanem, "%s/satin-wanem", build);
    if (access(wanem, X_OK) != 0) {
        printf("Bail out! %s is missing (build it, or set SATIN_BUILD)\n", wanem);
        return 1;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/satin-wanem-t.XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    snprintf(yaml, sizeof yaml, "%s/topology.yaml", dir);
    snprintf(ctl_path, sizeof ctl_path, "%s/wanem.ctl", dir);
    if (strlen(ctl_path) > 100) {
        printf("Bail out! %s is too long for a unix socket (set a shorter TMPDIR)\n", ctl_path);
        return 1;
    }
    snprintf(log_path, sizeof log_path, "%s/wanem.log", dir);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGALRM, on_signal);
    alarm(120);
    srand((unsigned)(getpid() ^ time(NULL)));

    int started = start_wanem() == 0;
    if (!ok(started, "satin-wanem starts on a 2x1 topology (relay ports %d, %d)", base_port + 1,
            base_port + 2)) {
        cleanup();
        return done_testing();
    }
    double burst = stat_of("A->B", "burst_bytes");
    ok(burst > 0 && burst <= BURST_LIMIT, "the 100 KB/s link's bucket is small: %.0f bytes",
       burst);
    test_latency();
    test_bulk(burst);
    test_shared(burst);
    test_partition();
    test_reset();
    test_set();
    test_stats();
    test_ctl_client();
    test_check_emulate();
    if (tap_failed_)
        dump_file(log_path, 20);
    test_sigterm();
    stop_wanem();
    test_grid();
    cleanup();
    return done_testing();
}
