/*
 * replay_cache.h - the trace files a daemon has loaded, by path and content.
 *
 * Every invocation of a replayed job needs its tree; a daemon reads each
 * file once and keeps it for as long as it runs (all daemons of an emulated
 * grid share one machine, and a job visits each node's cache thousands of
 * times).  An entry is (path, checksum of the content): a file rewritten
 * between two jobs is read again and both versions stay, so a job always
 * runs the tree it was submitted with, and a node whose copy of the file
 * differs says so instead of replaying something else.
 */
#ifndef SATIN_REPLAY_CACHE_H
#define SATIN_REPLAY_CACHE_H

#include "replay_tree.h"

#define REPLAY_CACHE_MAX 16

/* Reads the file now (whatever is cached) and returns the cached tree with
 * its content; -1 with err when it is unreadable or malformed, or the cache
 * is full. */
int replay_cache_load(const char *path, const replay_tree **out, satin_err *err);
/* The cached tree of `path` with this checksum, reading the file when this
 * daemon has not; -1 with err when the file cannot be read or its content
 * is not the one named. */
int replay_cache_get(const char *path, uint64_t checksum, const replay_tree **out,
                     satin_err *err);

#endif
