/* log.c - leveled one-line logging to stderr (see log.h). */
#include "log.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

static satin_log_level current = SATIN_LOG_INFO;
static char log_path[512];            /* --log-file, "" for stderr as given */
static char program[32] = "satind";
static int journal;                   /* stderr is the systemd journal */
static int to_syslog;                 /* satin_log_to_syslog() was called */
static int tee_fd = -1;               /* satin_log_tee_errors() */
static const char *const names[] = {"error", "warn", "info", "debug"};

int satin_log_parse_level(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

void satin_log_set_level(satin_log_level level)
{
    current = level;
}

satin_log_level satin_log_get_level(void)
{
    return current;
}

void satin_log_set_program(const char *name)
{
    snprintf(program, sizeof program, "%s", name);
}

void satin_log_set_journal(int on)
{
    journal = on;
}

/* The file becomes our stderr, so that whatever else writes there (a
 * sanitizer report, a library) lands in it too. */
int satin_log_open(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0)
        return -1;
    if (fd != STDERR_FILENO) {
        if (dup2(fd, STDERR_FILENO) < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        close(fd);
    }
    if (path != log_path)
        snprintf(log_path, sizeof log_path, "%s", path);
    return 0;
}

void satin_log_to_syslog(void)
{
    openlog(program, LOG_PID | LOG_NDELAY, LOG_DAEMON);
    to_syslog = 1;
}

void satin_log_tee_errors(int fd)
{
    if (tee_fd >= 0 && tee_fd != fd)
        close(tee_fd);
    tee_fd = fd;
}

/* An error line on the tee's terminal, as a program's message. */
static void tee_error(satin_log_level level, const char *text)
{
    if (level != SATIN_LOG_ERROR || tee_fd < 0)
        return;
    char line[1100];
    int n = snprintf(line, sizeof line, "%s: %s\n", program, text);
    if (n > 0 && write(tee_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0) {
        /* The terminal is gone: nothing to do. */
    }
}

int satin_log_reopen(void)
{
    return log_path[0] ? satin_log_open(log_path) : 0;
}

static void vlog(satin_log_level level, const char *fmt, va_list ap)
{
    /* syslog priorities of our levels, for the journal's "<N>" prefix */
    static const int priority[] = {3, 4, 6, 7};
    char line[1024];
    size_t off = 0;
    if (to_syslog) {
        /* syslog adds the time, the program and the pid itself. */
        vsnprintf(line, sizeof line, fmt, ap);
        syslog(priority[level], "%s: %s", names[level], line);
        tee_error(level, line);
        return;
    }
    if (journal && !log_path[0])
        off = (size_t)snprintf(line, sizeof line, "<%d>", priority[level]);
    /* Every line has its time, even in the journal (which adds its own):
     * lines copied out of it, or out of several nodes' files, still sort. */
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    off += strftime(line + off, sizeof line - off, "%Y-%m-%dT%H:%M:%S", &tm);
    off += (size_t)snprintf(line + off, sizeof line - off, ".%03ldZ %s[%d] %s: ",
                            ts.tv_nsec / 1000000, program, (int)getpid(), names[level]);
    size_t text = off < sizeof line ? off : sizeof line - 1;
    if (off < sizeof line)
        vsnprintf(line + off, sizeof line - off, fmt, ap);
    tee_error(level, line + text);
    /* One write per line so that lines from several threads never interleave. */
    size_t len = strnlen(line, sizeof line - 2);
    line[len++] = '\n';
    if (write(STDERR_FILENO, line, len) < 0) {
        /* Nowhere left to report it. */
    }
}

void satin_log(satin_log_level level, const char *fmt, ...)
{
    if (level > current)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

void satin_log_limited(satin_log_limit *limit, double interval_s, satin_log_level level,
                       const char *fmt, ...)
{
    long long now = satin_now_ns();
    if (now < limit->next_ns) {
        limit->suppressed++;
        return;
    }
    limit->next_ns = now + (long long)(interval_s * 1e9);
    if (level > current)
        return;
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (limit->suppressed)
        satin_log(level, "%s (and %lu more like it since the last report)", msg,
                  limit->suppressed);
    else
        satin_log(level, "%s", msg);
    limit->suppressed = 0;
}
