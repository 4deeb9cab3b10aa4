/*
 * service.h - telling systemd how satind is doing (sd_notify(3)).
 *
 * The units in deploy/ run satind with Type=notify and WatchdogSec=: systemd
 * counts the service as started only when READY=1 arrives (after the config
 * is loaded and every socket is bound, so that `systemctl start` returns
 * when clients can connect), shows the last STATUS= line in `systemctl
 * status`, and restarts the daemon when WATCHDOG=1 stops arriving.
 *
 * Every call is a no-op when satind does not run under systemd
 * (NOTIFY_SOCKET unset): tests, satin-grid and a terminal need no flag.
 * Calls are cheap (one datagram) and safe from any thread; errors are
 * ignored on purpose, since a daemon must not fail because its supervisor
 * cannot be told.
 */
#ifndef SATIN_SERVICE_H
#define SATIN_SERVICE_H

#include <stdint.h>

/* READY=1, STATUS=status (left out when NULL) and MAINPID of this process. */
void satin_service_ready(const char *status);

/* STATUS=..., one line shown by `systemctl status`, e.g.
 * "node n3: 4 jobs running, 15/16 peers connected".  Line breaks in the
 * text become spaces (a newline would start another assignment). */
void satin_service_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* STOPPING=1 and STATUS=status (left out when NULL): the graceful drain has
 * begun, so that systemd reports "deactivating" rather than a hang. */
void satin_service_stopping(const char *status);

/* The watchdog interval systemd expects pings within, in nanoseconds; 0 when
 * there is no watchdog (WatchdogSec= unset, or meant for another process).
 * Ping at half of it, as sd_watchdog_enabled(3) advises. */
int64_t satin_service_watchdog_interval_ns(void);

/* WATCHDOG=1: the control loop is alive.  Send it from the loop itself, not
 * from a timer thread, so that a stuck loop stops the pings. */
void satin_service_watchdog(void);

/* 1 when stderr is connected to the journal (JOURNAL_STREAM names its
 * device and inode), so that the logger can leave out what the journal adds
 * itself (time, pid) and prefix a syslog priority ("<3>") instead. */
int satin_service_stderr_is_journal(void);

#endif
