/*
 * wlog.h - satin-wanem's log: one line per event on stderr, in the format
 * of daemon/log.c (whose prefix is fixed to "satind"), so that a grid's
 * logs read alike but say which program wrote each line.
 */
#ifndef WANEM_WLOG_H
#define WANEM_WLOG_H

#include "log.h"   /* the level names and satin_log_parse_level() */

void wlog_set_level(satin_log_level level);
void wlog(satin_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define wlog_error(...) wlog(SATIN_LOG_ERROR, __VA_ARGS__)
#define wlog_warn(...) wlog(SATIN_LOG_WARN, __VA_ARGS__)
#define wlog_info(...) wlog(SATIN_LOG_INFO, __VA_ARGS__)
#define wlog_debug(...) wlog(SATIN_LOG_DEBUG, __VA_ARGS__)

#endif
