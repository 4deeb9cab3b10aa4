/*
 * replay_main.c - runs one fuzz target's LLVMFuzzerTestOneInput on every
 * file of its committed corpus, so that make check (built with gcc, no
 * libFuzzer) keeps every input that once crashed or hung from coming back.
 *
 * Built once per target with -DFUZZ_TARGET='"name"' (mk/fuzz.mk) and linked
 * with tests/fuzz/fuzz_<name>.c.  The corpus is tests/fuzz/corpus/<name>/
 * relative to the current directory (make check runs from the repository
 * root), or the directory given as the only argument.
 *
 * TAP: the plan first, then one "ok" per file once its input has run.  A
 * target reports a problem by crashing or calling abort(), which kills
 * this program and so fails the test; the "# FILE" line printed before
 * each input says which one did it.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_TARGET
#error "build with -DFUZZ_TARGET='\"name\"'"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The corpus file names, sorted so that runs are repeatable; NULL when
 * the directory cannot be read. */
static char **list_corpus(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    size_t cap = 0;
    *n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')   /* ".", "..", and editors' hidden files */
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names)
                abort();
        }
        if (!(names[(*n)++] = strdup(e->d_name)))
            abort();
    }
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof *names, by_name);
    return names ? names : calloc(1, sizeof *names);
}

/* The whole file in a block of exactly its size (so that AddressSanitizer
 * builds catch a read one byte past the input); NULL on error. */
static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            cap = cap ? 2 * cap : 4096;
            unsigned char *nb = realloc(buf, cap);
            if (!nb)
                abort();
            buf = nb;
        }
        size_t got = fread(buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    unsigned char *exact = malloc(*len ? *len : 1);
    if (!exact)
        abort();
    if (*len)
        memcpy(exact, buf, *len);
    free(buf);
    return exact;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/fuzz/corpus/" FUZZ_TARGET;
    size_t n;
    char **names = list_corpus(dir, &n);
    if (!names || n == 0) {
        /* A missing corpus is a broken checkout, not a reason to pass. */
        printf("1..1\nnot ok 1 - no corpus in %s (run from the repository root)\n", dir);
        return 1;
    }
    printf("1..%zu\n", n);
    fflush(stdout);
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len;
        unsigned char *data = read_file(path, &len);
        if (!data) {
            printf("not ok %zu - corpus/%s/%s (cannot read it)\n", i + 1, FUZZ_TARGET, names[i]);
            failed = 1;
        } else {
            printf("# %s (%zu bytes)\n", path, len);
            fflush(stdout);
            LLVMFuzzerTestOneInput(data, len);
            free(data);
            printf("ok %zu - corpus/%s/%s\n", i + 1, FUZZ_TARGET, names[i]);
        }
        fflush(stdout);
        free(names[i]);
    }
    free(names);
    return failed;
}
