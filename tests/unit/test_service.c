/*
 * test_service.c - daemon/service.c against a stand-in for systemd: an
 * AF_UNIX datagram socket named by NOTIFY_SOCKET.  Checks the exact
 * datagrams (READY with MAINPID and STATUS, STATUS, STOPPING, WATCHDOG),
 * that a newline cannot smuggle in another assignment, the watchdog
 * interval from WATCHDOG_USEC/WATCHDOG_PID, JOURNAL_STREAM matching, and
 * that nothing is sent and nothing fails without NOTIFY_SOCKET.
 */
#include "service.h"
#include "../tap.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static char dir[80];
static char path[sizeof dir + 8];
static int sock = -1;

static void cleanup(void)
{
    if (sock >= 0)
        close(sock);
    unlink(path);
    rmdir(dir);
}

/* The next datagram, "" when there is none: sd_notify has sent it before it
 * returns, so no waiting is needed (and none would make a failure slow). */
static const char *next_datagram(void)
{
    static char buf[2048];
    ssize_t n = recv(sock, buf, sizeof buf - 1, MSG_DONTWAIT);
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            diag("recv: %s", strerror(errno));
        n = 0;
    }
    buf[n] = '\0';
    return buf;
}

static void test_messages(void)
{
    char want[256];
    satin_service_ready("node n3: 0 jobs, 3/3 peers");
    snprintf(want, sizeof want, "READY=1\nMAINPID=%ld\nSTATUS=node n3: 0 jobs, 3/3 peers",
             (long)getpid());
    is_str(next_datagram(), want, "ready: READY=1, MAINPID, STATUS in one datagram");

    satin_service_ready(NULL);
    snprintf(want, sizeof want, "READY=1\nMAINPID=%ld", (long)getpid());
    is_str(next_datagram(), want, "ready without a status sends no STATUS=");

    satin_service_status("%d jobs running, %d/%d peers", 4, 15, 16);
    is_str(next_datagram(), "STATUS=4 jobs running, 15/16 peers", "status is formatted");

    satin_service_status("%s", "evil\nREADY=1\rX");
    is_str(next_datagram(), "STATUS=evil READY=1 X", "line breaks in a status become spaces");

    char longer[2000];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    satin_service_status("%s", longer);
    const char *got = next_datagram();
    ok(strncmp(got, "STATUS=xxx", 10) == 0 && strlen(got) < 600,
       "a long status is cut to one short line (%zu bytes)", strlen(got));

    satin_service_stopping("stopping: 2 jobs left");
    is_str(next_datagram(), "STOPPING=1\nSTATUS=stopping: 2 jobs left", "stopping with status");
    satin_service_stopping(NULL);
    is_str(next_datagram(), "STOPPING=1", "stopping without status");

    satin_service_watchdog();
    is_str(next_datagram(), "WATCHDOG=1", "watchdog ping");
    is_str(next_datagram(), "", "nothing else was sent");
}

static void test_watchdog_interval(void)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());

    unsetenv("WATCHDOG_USEC");
    unsetenv("WATCHDOG_PID");
    is_i64(satin_service_watchdog_interval_ns(), 0, "no WATCHDOG_USEC: no watchdog");

    setenv("WATCHDOG_USEC", "30000000", 1);
    setenv("WATCHDOG_PID", pid, 1);
    is_i64(satin_service_watchdog_interval_ns(), 30000000000LL,
           "WatchdogSec=30 for this pid: 30 s in ns");
    is_i64(satin_service_watchdog_interval_ns(), 30000000000LL,
           "asking again gives the same (the environment is kept)");

    unsetenv("WATCHDOG_PID");
    is_i64(satin_service_watchdog_interval_ns(), 30000000000LL,
           "WATCHDOG_USEC without WATCHDOG_PID counts for us");

    setenv("WATCHDOG_PID", "1", 1);
    is_i64(satin_service_watchdog_interval_ns(), 0, "a watchdog for another pid is not ours");

    setenv("WATCHDOG_PID", pid, 1);
    setenv("WATCHDOG_USEC", "thirty", 1);
    is_i64(satin_service_watchdog_interval_ns(), 0, "a malformed WATCHDOG_USEC: no watchdog");
    unsetenv("WATCHDOG_USEC");
    unsetenv("WATCHDOG_PID");
}

static void test_journal_stream(void)
{
    struct stat st;
    char v[64];
    if (fstat(STDERR_FILENO, &st) < 0) {
        ok(0, "fstat(stderr): %s", strerror(errno));
        return;
    }
    unsetenv("JOURNAL_STREAM");
    is_i64(satin_service_stderr_is_journal(), 0, "no JOURNAL_STREAM: not the journal");
    snprintf(v, sizeof v, "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    setenv("JOURNAL_STREAM", v, 1);
    is_i64(satin_service_stderr_is_journal(), 1, "JOURNAL_STREAM naming stderr: the journal");
    snprintf(v, sizeof v, "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino + 1);
    setenv("JOURNAL_STREAM", v, 1);
    is_i64(satin_service_stderr_is_journal(), 0, "another inode: stderr was redirected");
    setenv("JOURNAL_STREAM", "12:", 1);
    is_i64(satin_service_stderr_is_journal(), 0, "a malformed JOURNAL_STREAM is ignored");
    unsetenv("JOURNAL_STREAM");
}

static void test_without_systemd(void)
{
    unsetenv("NOTIFY_SOCKET");
    satin_service_ready("x");
    is_str(next_datagram(), "", "without NOTIFY_SOCKET, ready sends nothing");
    satin_service_status("y %d", 1);
    is_str(next_datagram(), "", "nor does status");
    satin_service_stopping("z");
    is_str(next_datagram(), "", "nor stopping");
    satin_service_watchdog();
    is_str(next_datagram(), "", "nor the watchdog");
    /* The socket still works: those empty reads are the calls' doing. */
    setenv("NOTIFY_SOCKET", path, 1);
    satin_service_status("back");
    is_str(next_datagram(), "STATUS=back", "NOTIFY_SOCKET set again: a status arrives");
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    /* Short: a socket path has room for about 100 bytes. */
    snprintf(dir, sizeof dir, "%s/satin-test-service.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/notify", dir);
    atexit(cleanup);

    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        printf("Bail out! %s is too long for a socket path (set a shorter TMPDIR)\n", path);
        return 1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof sa) < 0) {
        printf("Bail out! notify socket %s: %s\n", path, strerror(errno));
        return 1;
    }
    setenv("NOTIFY_SOCKET", path, 1);

    test_messages();
    test_watchdog_interval();
    test_journal_stream();
    test_without_systemd();
    return done_testing();
}
