/*
 * modules.c - loading kind modules from the one directory the operator
 * configured (modules.h).
 *
 * Loading a module runs its code in the daemon, so the directory and each
 * file in it must be what the operator put there: owned by root or by the
 * user the program runs as, and writable by nobody else (whoever may write
 * either may make satind run code of their choosing).  Files are opened and
 * checked once (no symbolic link, a regular file), their bytes digested (the
 * build a node tells its peers), and loaded by that descriptor, so that the
 * file checked is the file loaded.
 */
#include "modules.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *owner_name(uid_t uid, char *buf, size_t len)
{
    struct passwd *pw = getpwuid(uid);
    if (pw)
        snprintf(buf, len, "uid %u (%s)", (unsigned)uid, pw->pw_name);
    else
        snprintf(buf, len, "uid %u", (unsigned)uid);
    return buf;
}

/* The rule for the directory and for every file: root's or ours, and
 * writable by neither group nor others. */
static int check_owner(const char *what, const char *path, const struct stat *st, satin_err *err)
{
    char who[96];
    if (st->st_uid != 0 && st->st_uid != geteuid())
        return satin_err_set(err, "the kinds %s %s belongs to %s, not to root or to this "
                             "program's user: that user could make it run code of their own; "
                             "chown it or choose another --kinds-dir", what, path,
                             owner_name(st->st_uid, who, sizeof who));
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return satin_err_set(err, "the kinds %s %s has mode %04o: %s may write it and make this "
                             "program run code of their own; run 'chmod go-w %s' or choose "
                             "another --kinds-dir", what, path, (unsigned)(st->st_mode & 07777),
                             (st->st_mode & S_IWOTH) ? "any local user" : "its group", path);
    return 0;
}

int satin_modules_check_dir(const char *dir, satin_err *err)
{
    struct stat st;
    if (stat(dir, &st) < 0)
        return satin_err_set(err, "cannot use the kinds directory %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return satin_err_set(err, "the kinds directory %s is not a directory", dir);
    return check_owner("directory", dir, &st, err);
}

static int digest_fd(int fd, char hex[65], satin_err *err, const char *path)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(md);
        return satin_err_set(err, "%s: cannot digest it (OpenSSL)", path);
    }
    unsigned char buf[65536];
    ssize_t n;
    off_t at = 0;
    while ((n = pread(fd, buf, sizeof buf, at)) > 0) {
        EVP_DigestUpdate(md, buf, (size_t)n);
        at += n;
    }
    unsigned char out[32];
    unsigned int outlen = 0;
    EVP_DigestFinal_ex(md, out, &outlen);
    EVP_MD_CTX_free(md);
    if (n < 0)
        return satin_err_set(err, "%s: cannot read it: %s", path, strerror(errno));
    for (unsigned i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", out[i]);
    return 0;
}

int satin_modules_load_file(satin_registry *reg, const char *path, satin_err *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return satin_err_set(err, "%s: cannot open it%s: %s", path,
                             errno == ELOOP ? " (a symbolic link is not loaded)" : "",
                             strerror(errno));
    struct stat st;
    char hex[65];
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return satin_err_set(err, "%s: not a regular file", path);
    }
    if (check_owner("module", path, &st, err) < 0 || digest_fd(fd, hex, err, path) < 0) {
        close(fd);
        return -1;
    }
    /* The descriptor's file, not the path's: what was checked is loaded.
     * The descriptor stays open while the module is loaded (for good, once
     * it is added): the loader knows an object by the name it was opened
     * by, and a second module opened through a reused /proc/self/fd/N
     * would be taken for the first. */
    char byfd[64];
    snprintf(byfd, sizeof byfd, "/proc/self/fd/%d", fd);
    void *h = dlopen(byfd, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        close(fd);
        return satin_err_set(err, "%s: cannot load it: %s", path, dlerror());
    }
    const satin_module *(*entry)(void) =
        (const satin_module *(*)(void))dlsym(h, "satin_module_entry");
    if (!entry) {
        dlclose(h);
        close(fd);
        return satin_err_set(err, "%s: no satin_module_entry: not a kind module (SATIN_MODULE)",
                             path);
    }
    const satin_module *m = entry();
    satin_err why = {""};
    if (!m || satin_registry_add(reg, m, path, hex, &why) < 0) {
        /* Not closed when it was loaded already (the same file again):
         * the loader counts references, and the first load's stays. */
        dlclose(h);
        close(fd);
        return satin_err_set(err, "%s: %s", path, m ? why.msg : "its entry point gave no module");
    }
    /* Kept loaded, with its descriptor, for the life of the process: its
     * code runs jobs. */
    satin_registry_set_handle(reg, satin_registry_nmodules(reg) - 1, h, fd);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int satin_modules_load_dir(satin_registry *reg, const char *dir, satin_err *err)
{
    if (satin_modules_check_dir(dir, err) < 0)
        return -1;
    DIR *d = opendir(dir);
    if (!d)
        return satin_err_set(err, "cannot read the kinds directory %s: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0 || e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            names = realloc(names, cap * sizeof *names);
            if (!names)
                abort();
        }
        names[n] = strdup(e->d_name);
        if (!names[n])
            abort();
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    int rc = n == 0 ? satin_err_set(err, "the kinds directory %s holds no module (*.so)", dir)
                    : 0;
    size_t before = satin_registry_nmodules(reg);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            rc = satin_modules_load_file(reg, path, err);
        }
        free(names[i]);
    }
    free(names);
    /* All of the directory or none: the modules loaded before the one
     * refused go again (their code never ran: nothing was given them). */
    for (size_t i = before; rc < 0 && i < satin_registry_nmodules(reg); i++) {
        const satin_module_info *mi = satin_registry_module_at(reg, i);
        dlclose(mi->handle);
        close(mi->fd);
    }
    if (rc < 0)
        satin_registry_truncate(reg, before);
    return rc;
}
