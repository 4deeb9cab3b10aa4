/* service.c - sd_notify(3) for satind: readiness, status, stopping, watchdog. */
#include "service.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

/* Room for one status line; systemctl shows one line anyway. */
#define STATUS_MAX 512

/* A newline would end the STATUS= assignment and let the rest of the text
 * pass for another one (say "READY=1"): it becomes a space. */
static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
}

/* Sends "HEAD" or "HEAD\nSTATUS=status".  unset_environment is 0: the
 * variables must stay for the next call (and no child inherits them: satind
 * starts no programs). */
static void notify_with_status(const char *head, const char *status)
{
    char msg[STATUS_MAX + 128];
    if (status) {
        char line[STATUS_MAX];
        snprintf(line, sizeof line, "%s", status);
        one_line(line);
        snprintf(msg, sizeof msg, "%s\nSTATUS=%s", head, line);
    } else
        snprintf(msg, sizeof msg, "%s", head);
    (void)sd_notify(0, msg);
}

void satin_service_ready(const char *status)
{
    /* MAINPID names us even if the unit did not expect this process to be
     * the main one (satind started without --foreground). */
    char head[64];
    snprintf(head, sizeof head, "READY=1\nMAINPID=%ld", (long)getpid());
    notify_with_status(head, status);
}

void satin_service_status(const char *fmt, ...)
{
    char line[STATUS_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    one_line(line);
    char msg[STATUS_MAX + 16];
    snprintf(msg, sizeof msg, "STATUS=%s", line);
    (void)sd_notify(0, msg);
}

void satin_service_stopping(const char *status)
{
    notify_with_status("STOPPING=1", status);
}

int64_t satin_service_watchdog_interval_ns(void)
{
    uint64_t usec = 0;
    /* > 0 only when WATCHDOG_USEC is valid and WATCHDOG_PID (if set) is us. */
    if (sd_watchdog_enabled(0, &usec) <= 0 || usec > (uint64_t)INT64_MAX / 1000)
        return 0;
    return (int64_t)usec * 1000;
}

void satin_service_watchdog(void)
{
    (void)sd_notify(0, "WATCHDOG=1");
}

int satin_service_stderr_is_journal(void)
{
    const char *env = getenv("JOURNAL_STREAM");
    if (!env || !*env)
        return 0;
    char *end;
    errno = 0;
    unsigned long long dev = strtoull(env, &end, 10);
    if (errno || end == env || *end != ':')
        return 0;
    const char *ino_text = end + 1;
    unsigned long long ino = strtoull(ino_text, &end, 10);
    if (errno || end == ino_text || *end)
        return 0;
    /* The variable is inherited; it only counts if stderr is still that
     * stream (not redirected by a wrapper or --log-file). */
    struct stat st;
    if (fstat(STDERR_FILENO, &st) < 0)
        return 0;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}
