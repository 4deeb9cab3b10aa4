/*
 * test_modules.c - loading kind modules (daemon/runtime/modules.h): the
 * built-in kinds' module and a C++ one load, list their kinds with their
 * module, and run exactly; a module for another API version, one without
 * an entry point, one calling a function no program defines, a second kind
 * of a name already loaded, a directory or a file others may write, a file
 * of another user, a symbolic link and an empty directory are each refused
 * with a message naming the file and the reason, and nothing of the refused
 * load stays in the registry.
 */
#include "kinds.h"
#include "modules.h"
#include "pool.h"
#include "../tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];

static void copy_file(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0) {
        printf("Bail out! cannot copy %s to %s: %s\n", from, to, strerror(errno));
        exit(1);
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            exit(1);
    close(in);
    close(out);
    chmod(to, mode);
}

/* A fresh directory of mode 0755 under tmp holding the named modules
 * (fixture names, "" for the built-in kinds' module), each 0644. */
static const char *dir_with(const char *name, const char *const *modules)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", tmp, name);
    if (mkdir(dir, 0755) < 0) {
        printf("Bail out! mkdir %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    chmod(dir, 0755);
    for (size_t i = 0; modules[i]; i++) {
        char from[512], to[700];
        if (modules[i][0])
            snprintf(from, sizeof from, "%s/%s.so", TEST_MODULES_DIR, modules[i]);
        else
            snprintf(from, sizeof from, "%s/satin-kinds.so", SATIN_KINDS_DIR);
        snprintf(to, sizeof to, "%s/%s.so", dir, modules[i][0] ? modules[i] : "satin-kinds");
        copy_file(from, to, 0644);
    }
    return dir;
}

/* Loading `dir` fails, the message has every one of `want` (NULL-ended),
 * and the registry keeps what it had. */
static void refused(satin_registry *reg, const char *dir, const char *const *want,
                    const char *what)
{
    size_t nmod = satin_registry_nmodules(reg), nk = satin_registry_nkinds(reg),
           nt = satin_registry_ntasks(reg);
    satin_err err = {""};
    ok(satin_modules_load_dir(reg, dir, &err) < 0, "%s: refused", what);
    for (size_t i = 0; want[i]; i++)
        if (!ok(strstr(err.msg, want[i]) != NULL, "%s: the message says '%s'", what, want[i]))
            diag("it was: %s", err.msg);
    ok(satin_registry_nmodules(reg) == nmod && satin_registry_nkinds(reg) == nk &&
           satin_registry_ntasks(reg) == nt,
       "%s: the registry is as it was (%zu modules)", what, nmod);
}

static void run_exact(satin_pool *pool, const satin_registry *reg, const char *kind,
                      const char *const *params, const char *key, int64_t want)
{
    satin_outcome o;
    satin_run_record(pool, reg, kind, params, &o);
    if (!ok(!o.failed, "%s %s runs", kind, params[0]))
        diag("%s", o.error);
    int64_t got = -1;
    for (size_t i = 0; i < o.result.n; i++)
        if (strcmp(o.result.items[i].name, key) == 0)
            got = o.result.items[i].i64;
    is_i64(got, want, "%s %s: %s = %lld", kind, params[0], key, (long long)want);
    satin_outcome_free(&o);
}

static void test_good(satin_pool *pool)
{
    satin_registry *reg = satin_registry_new();
    satin_err err = {""};
    const char *dir = dir_with("good", (const char *const[]){"", "partitions", NULL});
    if (!ok(satin_modules_load_dir(reg, dir, &err) == 0, "the built-in module and a C++ one load"))
        diag("%s", err.msg);
    is_i64((int64_t)satin_registry_nmodules(reg), 2, "two modules");
    /* In name order: partitions.so before satin-kinds.so. */
    const satin_module_info *cxx = satin_registry_module_at(reg, 0),
                            *ours = satin_registry_module_at(reg, 1);
    is_str(cxx->name, "cxx-kinds", "the C++ module names itself");
    is_str(cxx->version, "1.0", "with its version");
    is_str(ours->name, "satin-kinds", "the built-in module is satin-kinds");
    is_str(ours->version, SATIN_VERSION, "of this release");
    ok(strlen(ours->digest) == 64 && strspn(ours->digest, "0123456789abcdef") == 64,
       "its digest is a SHA-256 in hex");
    ok(strcmp(ours->digest, cxx->digest) != 0, "the two builds' digests differ");
    char file[700];
    snprintf(file, sizeof file, "%s/partitions.so", dir);
    is_str(cxx->file, file, "the file it came from is kept");
    const satin_kind *k = satin_registry_kind(reg, "partitions");
    ok(k && satin_registry_kind_module(reg, k) == cxx, "partitions is the C++ module's kind");
    k = satin_registry_kind(reg, "fib");
    ok(k && satin_registry_kind_module(reg, k) == ours, "fib is satin-kinds'");
    ok(satin_registry_task(reg, "partitions") != NULL, "the C++ task is known by its name");

    run_exact(pool, reg, "partitions", (const char *const[]){"n=60", NULL}, "partitions", 966467);
    run_exact(pool, reg, "partitions", (const char *const[]){"n=80", "threshold=20", NULL},
              "partitions", 15796476);
    run_exact(pool, reg, "partitions", (const char *const[]){"n=0", NULL}, "partitions", 1);
    run_exact(pool, reg, "fib", (const char *const[]){"n=30", NULL}, "value", 832040);
    satin_outcome o;
    satin_run_record(pool, reg, "partitions", (const char *const[]){"n=201", NULL}, &o);
    ok(o.failed && strstr(o.error, "n") != NULL, "the C++ kind's parser refuses n=201 (%s)",
       o.error);
    satin_outcome_free(&o);

    /* A second directory with the same module again: its kinds clash. */
    const char *again = dir_with("again", (const char *const[]){"partitions", NULL});
    refused(reg, again,
            (const char *const[]){"partitions.so", "kind partitions is also module cxx-kinds's",
                                  "good/partitions.so",
                                  NULL},
            "the same module loaded twice");
    satin_registry_destroy(&reg);
}

static void test_refusals(void)
{
    satin_registry *reg = satin_registry_new();
    char path[700];

    refused(reg, dir_with("api", (const char *const[]){"wrong_api", NULL}),
            (const char *const[]){"wrong_api.so", "built for kind API version 3",
                                  "this program loads version 4", NULL},
            "a module for API version 3");
    refused(reg, dir_with("noentry", (const char *const[]){"no_entry", NULL}),
            (const char *const[]){"no_entry.so", "no satin_module_entry", NULL},
            "a shared object that is no module");
    refused(reg, dir_with("missing", (const char *const[]){"missing_symbol", NULL}),
            (const char *const[]){"missing_symbol.so", "cannot load it",
                                  "satin__from_a_newer_runtime", NULL},
            "a module calling a function no program defines");
    const char *dup = dir_with("dup", (const char *const[]){"", "dup_fib", NULL});
    refused(reg, dup,
            (const char *const[]){"dup/satin-kinds.so", "module satin-kinds: kind fib is also "
                                  "module dup-kinds's", "dup/dup_fib.so", "rename one", NULL},
            "a second kind named fib");

    refused(reg, dir_with("dupvalue", (const char *const[]){"dup_value", NULL}),
            (const char *const[]){"dup_value.so", "module dup-value-kinds: kind twice declares "
                                  "value best twice", NULL},
            "a kind that declares a grid-wide value twice");

    const char *wdir = dir_with("groupw", (const char *const[]){"", NULL});
    chmod(wdir, 0775);
    refused(reg, wdir,
            (const char *const[]){wdir, "has mode 0775", "its group may write it", "chmod go-w",
                                  NULL},
            "a directory its group may write");
    const char *odir = dir_with("otherw", (const char *const[]){"", NULL});
    chmod(odir, 01777);
    refused(reg, odir, (const char *const[]){"has mode 1777", "any local user", NULL},
            "a directory anyone may write (even sticky)");

    const char *fdir = dir_with("filew", (const char *const[]){"", NULL});
    snprintf(path, sizeof path, "%s/satin-kinds.so", fdir);
    chmod(path, 0646);
    refused(reg, fdir,
            (const char *const[]){path, "the kinds module", "has mode 0646", NULL},
            "a module file anyone may write");

    if (geteuid() == 0) {
        const char *udir = dir_with("owner", (const char *const[]){"", NULL});
        snprintf(path, sizeof path, "%s/satin-kinds.so", udir);
        ok(chown(path, 65534, 65534) == 0, "the module is given to uid 65534");
        refused(reg, udir,
                (const char *const[]){path, "belongs to uid 65534", "not to root or to this "
                                      "program's user", NULL},
                "a module of another user");
        const char *uddir = dir_with("dirowner", (const char *const[]){"", NULL});
        ok(chown(uddir, 65534, 65534) == 0, "a directory is given to uid 65534");
        refused(reg, uddir, (const char *const[]){"the kinds directory", "belongs to uid 65534",
                                                  NULL},
                "a directory of another user");
    } else {
        for (int i = 0; i < 10; i++)
            skip("ownership needs root to chown");
    }

    const char *ldir = dir_with("link", (const char *const[]){NULL});
    snprintf(path, sizeof path, "%s/satin-kinds.so", ldir);
    char target[512];
    snprintf(target, sizeof target, "%s/satin-kinds.so", SATIN_KINDS_DIR);
    ok(symlink(target, path) == 0, "a symbolic link to the built-in module");
    refused(reg, ldir, (const char *const[]){"a symbolic link is not loaded", NULL},
            "a symbolic link");

    refused(reg, dir_with("empty", (const char *const[]){NULL}),
            (const char *const[]){"holds no module (*.so)", NULL}, "an empty directory");
    snprintf(path, sizeof path, "%s/no-such-dir", tmp);
    refused(reg, path, (const char *const[]){"cannot use the kinds directory", "No such file",
                                             NULL},
            "a directory that is not there");

    /* Hidden files and other names are not modules: only *.so is read. */
    const char *hdir = dir_with("hidden", (const char *const[]){"", NULL});
    char from[512];
    snprintf(from, sizeof from, "%s/wrong_api.so", TEST_MODULES_DIR);
    snprintf(path, sizeof path, "%s/.wrong_api.so", hdir);
    copy_file(from, path, 0644);
    snprintf(path, sizeof path, "%s/wrong_api.so.old", hdir);
    copy_file(from, path, 0644);
    satin_err err = {""};
    if (!ok(satin_modules_load_dir(reg, hdir, &err) == 0,
            "a hidden .so and a .so.old beside a module are left alone"))
        diag("%s", err.msg);
    is_i64((int64_t)satin_registry_nmodules(reg), 1, "and the module loads");
    satin_registry_destroy(&reg);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "%s/satin-modules.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmp)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    chmod(tmp, 0755);
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    test_good(pool);
    test_refusals();
    satin_pool_destroy(&pool);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        diag("could not remove %s", tmp);
    return done_testing();
}
