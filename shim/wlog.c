/* wlog.c - satin-wanem's one-line log on stderr (see wlog.h). */
#include "wlog.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static satin_log_level current = SATIN_LOG_INFO;
static const char *const names[] = {"error", "warn", "info", "debug"};

void wlog_set_level(satin_log_level level)
{
    current = level;
}

void wlog(satin_log_level level, const char *fmt, ...)
{
    char line[1024];
    size_t off = 0;
    va_list ap;
    if (level > current)
        return;
    /* Always with the time (unlike satind's log on a journal): the shim's
     * log is a file (wanem.log), and its delays are what one looks for. */
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    off = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
    off += (size_t)snprintf(line + off, sizeof line - off, ".%03ldZ satin-wanem[%d] %s: ",
                            ts.tv_nsec / 1000000, (int)getpid(), names[level]);
    va_start(ap, fmt);
    if (off < sizeof line)
        vsnprintf(line + off, sizeof line - off, fmt, ap);
    va_end(ap);
    /* One write per line, so that lines are never torn. */
    size_t len = strnlen(line, sizeof line - 2);
    line[len++] = '\n';
    if (write(STDERR_FILENO, line, len) < 0) {
        /* Nowhere left to report it. */
    }
}
