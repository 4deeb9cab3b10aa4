/*
 * pidfile.h - satind's --pidfile: the daemon's pid in a file that it holds
 * locked (flock) while it runs, so that a file naming a live satind is
 * told from one a crashed daemon left behind, whatever its pid became.
 */
#ifndef SATIND_PIDFILE_H
#define SATIND_PIDFILE_H

#include <stddef.h>

/* Before detaching: -1 with the reason in err when a running satind holds
 * `path`; 0 when it is free (missing, or left by a daemon that died). */
int satind_pidfile_check(const char *path, char *err, size_t errlen);

/* Takes `path` (locks it, writes our pid); held until satind_pidfile_remove.
 * -1 with err when another satind holds it or it cannot be written. */
int satind_pidfile_write(const char *path, char *err, size_t errlen);

/* Removes the file taken by satind_pidfile_write (no-op if none). */
void satind_pidfile_remove(void);

#endif
