/* satin_endpoint.c - client endpoint syntax and default. */
#include "satin_endpoint.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void builtin_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && *xdg)
        snprintf(buf, len, "%s/satin", xdg);
    else if (getuid() == 0)
        snprintf(buf, len, "/run/satin");
    else
        snprintf(buf, len, "/tmp/satin-%u", (unsigned)getuid());
}

void satin_endpoint_default(char *buf, size_t len)
{
    satin_endpoint_default_node(buf, len, NULL);
}

void satin_endpoint_default_node(char *buf, size_t len, const char *node)
{
    const char *env = getenv("SATIN_SOCKET");
    char err[128], dir[4096];
    if (env && *env && satin_endpoint_normalise(env, buf, len, err, sizeof err) == 0)
        return;
    builtin_dir(dir, sizeof dir);
    if (node && *node)
        snprintf(buf, len, "ipc://%s/satind-%s.sock", dir, node);
    else
        snprintf(buf, len, "ipc://%s/satind.sock", dir);
}

int satin_endpoint_normalise(const char *text, char *buf, size_t len, char *err,
                             size_t errlen)
{
    int n;
    if (!text || !*text) {
        snprintf(err, errlen, "empty endpoint");
        return -1;
    }
    if (strncmp(text, "ipc://", 6) == 0 || strncmp(text, "tcp://", 6) == 0)
        n = snprintf(buf, len, "%s", text);
    else if (strstr(text, "://")) {
        snprintf(err, errlen, "unsupported endpoint '%s' (use ipc:///path, a path, or tcp://host:port)",
                 text);
        return -1;
    } else
        n = snprintf(buf, len, "ipc://%s", text);
    if (n < 0 || (size_t)n >= len || (strncmp(buf, "ipc://", 6) == 0 && !buf[6])) {
        snprintf(err, errlen, "endpoint '%s' is empty or too long", text);
        return -1;
    }
    return 0;
}

const char *satin_endpoint_ipc_path(const char *endpoint)
{
    return strncmp(endpoint, "ipc://", 6) == 0 ? endpoint + 6 : NULL;
}

int satin_endpoint_socket_dir(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    int n;
    if (!slash)
        n = snprintf(dir, len, ".");
    else if (slash == path)
        n = snprintf(dir, len, "/");
    else
        n = snprintf(dir, len, "%.*s", (int)(slash - path), path);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int satin_endpoint_is_default_dir(const char *dir)
{
    char def[4096];
    builtin_dir(def, sizeof def);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strlen(def) == n && strncmp(def, dir, n) == 0;
}

/* A directory only root can write: whatever it holds, root put there. */
static int root_only(const char *dir)
{
    char parent[4096];
    struct stat st;
    if (strcmp(dir, "/") == 0 || satin_endpoint_socket_dir(dir, parent, sizeof parent) < 0 ||
        stat(parent, &st) < 0)
        return 0;
    return st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

static const char *user_name(uid_t uid, char *buf, size_t len)
{
    struct passwd *pw = getpwuid(uid);
    if (pw)
        snprintf(buf, len, "uid %u (%s)", (unsigned)uid, pw->pw_name);
    else
        snprintf(buf, len, "uid %u", (unsigned)uid);
    return buf;
}

int satin_endpoint_check_dir(const char *dir, int flags, char *err, size_t errlen)
{
    struct stat st;
    int deflt = flags & SATIN_DIR_DEFAULT, daemon = flags & SATIN_DIR_DAEMON;
    /* The default directory sits in a place others may write (/tmp): a
     * symlink there is someone else's choice of directory. */
    if ((deflt ? lstat(dir, &st) : stat(dir, &st)) < 0) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, errlen, "cannot check the socket directory %s: %s", dir, strerror(errno));
        return -1;
    }
    const char *fix = daemon ? "choose another --socket" : "give --socket";
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the socket directory %s is %s, not a directory of yours: "
                 "remove it or %s", dir, S_ISLNK(st.st_mode) ? "a symbolic link" : "no directory",
                 fix);
        return -1;
    }
    uid_t me = geteuid();
    char who[96];
    if (st.st_uid != me && st.st_uid != 0 && !(!daemon && root_only(dir))) {
        snprintf(err, errlen, "the socket directory %s belongs to %s, not to you: that user "
                 "could replace the socket with one of their own; remove the directory or %s",
                 dir, user_name(st.st_uid, who, sizeof who), fix);
        return -1;
    }
    mode_t bad = deflt ? (S_IWGRP | S_IWOTH) : (st.st_mode & S_ISVTX) ? 0 : S_IWOTH;
    if (st.st_mode & bad) {
        snprintf(err, errlen, "the socket directory %s has mode %04o: %s may write it and "
                 "replace the socket; run 'chmod %s %s' (or remove it) or %s", dir,
                 (unsigned)(st.st_mode & 07777),
                 (st.st_mode & bad & S_IWOTH) ? "any local user" : "its group",
                 deflt ? "700" : "o-w", dir, fix);
        return -1;
    }
    return 0;
}
