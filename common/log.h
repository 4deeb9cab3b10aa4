/*
 * log.h - the one logger of satind and satin-wanem: one line per event on
 * stderr, "TIME PROGRAM[PID] LEVEL: text", written with one write(2) so
 * that threads never tear a line.  On the systemd journal each line also
 * starts with its syslog priority ("<6>").
 */
#ifndef SATIN_LOG_H
#define SATIN_LOG_H

typedef enum {
    SATIN_LOG_ERROR = 0,
    SATIN_LOG_WARN = 1,
    SATIN_LOG_INFO = 2,
    SATIN_LOG_DEBUG = 3,
} satin_log_level;

/* Returns -1 for an unknown level name (error, warn, info, debug). */
int satin_log_parse_level(const char *name);
void satin_log_set_level(satin_log_level level);
satin_log_level satin_log_get_level(void);
/* The name in every line ("satind" unless told). */
void satin_log_set_program(const char *name);
/* 1: stderr is the journal (satin_service_stderr_is_journal), which reads
 * a priority prefix. */
void satin_log_set_journal(int on);
/* Logs (and the process's stderr) go to `path`, appended; lines get a time.
 * reopen opens the same path again, after logrotate moved it: 0 or -1. */
int satin_log_open(const char *path);
int satin_log_reopen(void);
/* Error lines also go to `fd` as "PROGRAM: text" (-1: no more; the fd
 * given before is closed): the terminal a daemon started from, while its
 * log is a file and it has not yet said it is ready, so that a refusal
 * to start is seen where it was started. */
void satin_log_tee_errors(int fd);
/* From now on lines go to syslog (the journal under systemd), facility
 * daemon: for a daemon that left its terminal without a --log-file. */
void satin_log_to_syslog(void);
void satin_log(satin_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A limiter for events that a peer can trigger at will: at most one line
 * per interval; the lines it held back are counted in the next one. */
typedef struct satin_log_limit {
    long long next_ns;
    unsigned long suppressed;
} satin_log_limit;

void satin_log_limited(satin_log_limit *limit, double interval_s, satin_log_level level,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define log_error(...) satin_log(SATIN_LOG_ERROR, __VA_ARGS__)
#define log_warn(...) satin_log(SATIN_LOG_WARN, __VA_ARGS__)
#define log_info(...) satin_log(SATIN_LOG_INFO, __VA_ARGS__)
#define log_debug(...) satin_log(SATIN_LOG_DEBUG, __VA_ARGS__)

#endif
