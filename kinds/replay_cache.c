/*
 * replay_cache.c - loaded trace files (replay_cache.h).
 *
 * Entries are never freed: a running job may hold any of them, and a
 * benchmark daemon loads a handful.  Reading happens outside the lock (a big
 * file takes a while); two workers that miss at once both read, and the
 * second to finish drops its copy.
 */
#include "replay_cache.h"

#include <inttypes.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct rc_entry {
    char *path;
    replay_tree *tree;
} rc_entry;

static pthread_mutex_t rc_lock = PTHREAD_MUTEX_INITIALIZER;
static rc_entry rc_table[REPLAY_CACHE_MAX];
static int rc_count;

static const replay_tree *rc_find_locked(const char *path, uint64_t checksum)
{
    for (int i = 0; i < rc_count; i++)
        if (rc_table[i].tree->checksum == checksum && strcmp(rc_table[i].path, path) == 0)
            return rc_table[i].tree;
    return NULL;
}

/* Keeps `t` (or the equal tree already kept, freeing `t`). */
static int rc_insert(const char *path, replay_tree *t, const replay_tree **out, satin_err *err)
{
    pthread_mutex_lock(&rc_lock);
    const replay_tree *have = rc_find_locked(path, t->checksum);
    int rc = 0;
    if (!have && rc_count == REPLAY_CACHE_MAX) {
        rc = satin_err_set(err,
                           "replay: this daemon already holds %d different trace files; "
                           "restart it to load others",
                           REPLAY_CACHE_MAX);
    } else if (!have) {
        char *copy = strdup(path);
        if (!copy) {
            rc = satin_err_set(err, "replay: out of memory");
        } else {
            rc_table[rc_count++] = (rc_entry){copy, t};
            have = t;
            t = NULL;
        }
    }
    pthread_mutex_unlock(&rc_lock);
    replay_tree_free(&t);
    *out = have;
    return rc;
}

/* A client names the file, and the daemon opens it: only files under the
 * directory the operator gave in SATIN_REPLAY_DIR, so that the kind cannot
 * be used to probe or read the daemon's files.  Unset: the kind is off. */
static int path_allowed(const char *path, satin_err *err)
{
    const char *dir = getenv("SATIN_REPLAY_DIR");
    if (!dir || !*dir)
        return satin_err_set(err, "replay: trace files are off on this daemon (start satind "
                                  "with SATIN_REPLAY_DIR=DIR in its environment, and put the "
                                  "file under DIR)");
    char real_dir[PATH_MAX], real_path[PATH_MAX];
    if (!realpath(dir, real_dir))
        return satin_err_set(err, "replay: SATIN_REPLAY_DIR %s: %s", dir, strerror(errno));
    /* One answer whether the file is missing or outside the directory: a
     * client must not learn which files exist elsewhere on this machine. */
    size_t n = strlen(real_dir);
    if (!realpath(path, real_path) || strncmp(real_path, real_dir, n) != 0 ||
        (real_path[n] != '/' && real_path[n] != '\0' && n != 1))
        return satin_err_set(err, "replay: no trace file %s under SATIN_REPLAY_DIR (%s)", path,
                             dir);
    return 0;
}

int replay_cache_load(const char *path, const replay_tree **out, satin_err *err)
{
    replay_tree *t;
    if (path_allowed(path, err) < 0)
        return -1;
    if (replay_tree_load(path, &t, err) < 0)
        return -1;
    return rc_insert(path, t, out, err);
}

int replay_cache_get(const char *path, uint64_t checksum, const replay_tree **out,
                     satin_err *err)
{
    pthread_mutex_lock(&rc_lock);
    *out = rc_find_locked(path, checksum);
    pthread_mutex_unlock(&rc_lock);
    if (*out)
        return 0;
    if (replay_cache_load(path, out, err) < 0)
        return -1;
    uint64_t have = (*out)->checksum;
    if (have != checksum) {
        *out = NULL;
        return satin_err_set(err,
                             "replay: the trace file %s on this node is not the one the job "
                             "was submitted with (checksum %016" PRIx64 ", expected %016" PRIx64
                             "): every node needs the same file",
                             path, have, checksum);
    }
    return 0;
}
