/* submit_profile.c - satin-submit --profile (see submit_profile.h). */
#include "submit_profile.h"
#include "lifestory.h"
#include "lifestory_plot.h"
#include "satin_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n > k && strcmp(s + n - k, tail) == 0;
}

int submit_profile_path_ok(const char *path)
{
    return ends_with(path, ".csv") || ends_with(path, ".png");
}

/* `name` is an executable file in a directory of $PATH. */
static int in_path(const char *name)
{
    const char *path = getenv("PATH");
    char buf[4096];
    while (path && *path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)n, n ? path : ".", name);
        if (access(buf, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

int submit_profile_precheck(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) < 0) {
        fprintf(stderr, "satin-submit: cannot write %s: %s (directory %s); job not submitted\n",
                path, strerror(errno), dir);
        return SUBMIT_PROFILE_IOERR;
    }
    if (ends_with(path, ".png") && !in_path("gnuplot")) {
        fprintf(stderr, "satin-submit: cannot draw %s: gnuplot is not installed (Debian: "
                        "apt-get install gnuplot-nox); job not submitted\n", path);
        return SUBMIT_PROFILE_IOERR;
    }
    return 0;
}

/* "profile.SLOT": the slot, else -1. */
static int node_item(const char *name)
{
    if (strncmp(name, "profile.", 8) != 0 || !name[8])
        return -1;
    long v = 0;
    for (const char *c = name + 8; *c; c++) {
        if (*c < '0' || *c > '9' || v > 65535)
            return -1;
        v = v * 10 + (*c - '0');
    }
    return v <= 65535 ? (int)v : -1;
}

typedef struct profiles {
    int nnodes, workers, nclusters;
    satin_profile *p;          /* [nnodes]; workers 0: none came */
    const char **names;        /* [nnodes] */
    int *cluster_of;           /* [nnodes] */
} profiles;

static void profiles_free(profiles *ps)
{
    for (int i = 0; i < ps->nnodes; i++)
        satin_profile_free(&ps->p[i]);
    free(ps->p);
    free(ps->names);
    free(ps->cluster_of);
}

/* Decodes every profile.SLOT item; a bad one is left out, said on stderr. */
static int read_profiles(const satin_job_report *r, profiles *ps)
{
    memset(ps, 0, sizeof *ps);
    int64_t nodes = 0;
    satin_client_values_i64(&r->stats, "grid.nodes", &nodes);
    ps->nnodes = nodes > 0 && nodes <= 65536 ? (int)nodes : 1;
    for (size_t i = 0; i < r->stats.n; i++) {
        int slot = node_item(r->stats.items[i].name);
        if (slot >= ps->nnodes)
            ps->nnodes = slot + 1;
    }
    ps->p = calloc((size_t)ps->nnodes, sizeof *ps->p);
    ps->names = calloc((size_t)ps->nnodes, sizeof *ps->names);
    ps->cluster_of = calloc((size_t)ps->nnodes, sizeof *ps->cluster_of);
    if (!ps->p || !ps->names || !ps->cluster_of)
        abort();
    int have = 0;
    for (int i = 0; i < ps->nnodes; i++) {
        satin_profile_init(&ps->p[i]);
        ps->names[i] = "?";
    }
    for (size_t i = 0; i < r->stats.n; i++) {
        const satin_client_value *v = &r->stats.items[i];
        int slot = node_item(v->name);
        if (slot < 0 || v->type != SATIN_CLIENT_STR)
            continue;
        char err[128];
        satin_profile *p = &ps->p[slot];
        if (satin_profile_decode(v->str, p, err, sizeof err) < 0 || !p->node[0]) {
            fprintf(stderr, "satin-submit: profile of node %d left out: %s\n", slot,
                    p->node[0] ? err : "it names no node");
            satin_profile_free(p);
            continue;
        }
        ps->names[slot] = p->node;
        ps->cluster_of[slot] = p->cluster;
        if (p->cluster + 1 > ps->nclusters)
            ps->nclusters = p->cluster + 1;
        if (p->workers > ps->workers)
            ps->workers = p->workers;
        have++;
    }
    return have;
}

/* Tells the lifestory what node `slot` did. */
static void replay(satin_life *l, int slot, const satin_profile *p, int64_t wall)
{
    satin_life_node_workers(l, slot, p->workers);
    satin_life_begin_node(l, slot, p->start);
    for (size_t i = 0; i < p->n; i++) {
        const satin_profile_event *e = &p->ev[i];
        switch (e->what) {
        case SATIN_PROFILE_BUSY: satin_life_worker_start(l, slot, (int)e->n, e->t); break;
        case SATIN_PROFILE_FREE: satin_life_task_end(l, slot, (int)e->n, e->t); break;
        case SATIN_PROFILE_LAN:
        case SATIN_PROFILE_WAN:
            satin_life_steal_out(l, slot, e->n, e->what == SATIN_PROFILE_WAN, e->t);
            break;
        case SATIN_PROFILE_ANSWERED: satin_life_steal_answered(l, slot, e->n, e->t); break;
        }
    }
    int64_t end = p->truncated != SATIN_PROFILE_WHOLE ? p->truncated : p->end;
    satin_life_end_node(l, slot, end < wall ? end : wall);
}

/* Takes the per-node texts out of the statistics. */
static void drop_texts(satin_job_report *r)
{
    size_t k = 0;
    for (size_t i = 0; i < r->stats.n; i++) {
        satin_client_value *v = &r->stats.items[i];
        if (node_item(v->name) >= 0) {
            free(v->name);
            free(v->str);
        } else {
            r->stats.items[k++] = *v;
        }
    }
    r->stats.n = k;
}

static int write_profile(const satin_job_report *r, const profiles *ps, int64_t wall,
                         const char *path, const char *what)
{
    int png = ends_with(path, ".png");
    char tmp[4096] = "";
    FILE *f;
    if (png) {
        const char *dir = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/satin-profile.XXXXXX", dir && *dir ? dir : "/tmp");
        int fd = mkstemp(tmp);
        f = fd >= 0 ? fdopen(fd, "w+") : NULL;
        if (!f && fd >= 0)
            close(fd);
    } else {
        f = fopen(path, "w");
    }
    if (!f) {
        fprintf(stderr, "satin-submit: cannot write %s: %s\n", png ? tmp : path, strerror(errno));
        if (png)
            unlink(tmp);
        return SUBMIT_PROFILE_IOERR;
    }
    satin_life *l = satin_life_new_named(ps->nnodes, NULL, ps->names, ps->workers, ps->nnodes, f);
    if (!l)
        abort();
    for (int slot = 0; slot < ps->nnodes; slot++) {
        if (ps->p[slot].workers)
            replay(l, slot, &ps->p[slot], wall);
        else
            satin_life_end_node(l, slot, 0);   /* no profile: no rows */
    }
    int rc = satin_life_finish(l, wall) < 0 ? -1 : 0;
    satin_life_destroy(&l);
    if (fclose(f) == EOF)
        rc = -1;
    if (rc < 0) {
        fprintf(stderr, "satin-submit: cannot write %s: %s\n", png ? tmp : path, strerror(errno));
        if (png)
            unlink(tmp);
        return SUBMIT_PROFILE_IOERR;
    }
    if (png) {
        char title[512], err[256];
        const char *policy = satin_client_values_str(&r->stats, "grid.policy");
        snprintf(title, sizeof title, "job %llu, %s: %d node(s) in %d cluster(s)%s%s",
                 (unsigned long long)r->job_id, what, ps->nnodes,
                 ps->nclusters ? ps->nclusters : 1, policy ? ", policy " : "",
                 policy ? policy : "");
        satin_plot_lifestory p = {
            .csv = tmp, .png = path, .title = title,
            .xlabel = "time since the job started (s)", .names = ps->names,
            .nnodes = ps->nnodes, .nrec = ps->nnodes, .workers = ps->workers,
            .cluster_of = ps->cluster_of, .makespan_ns = wall};
        rc = satin_plot_lifestory_png(&p, err, sizeof err);
        unlink(tmp);
        if (rc < 0) {
            fprintf(stderr, "satin-submit: %s\n", err);
            return SUBMIT_PROFILE_IOERR;
        }
    }
    return 0;
}

int submit_profile_write(satin_job_report *r, const char *path, const char *what)
{
    int64_t wall;
    if (satin_client_values_i64(&r->stats, "profile.wall_ns", &wall) < 0 || wall < 0) {
        fprintf(stderr, "satin-submit: the result carries no profile (a satind that does "
                        "not record them?); %s not written\n", path);
        return SUBMIT_PROFILE_NONE;
    }
    profiles ps;
    int have = read_profiles(r, &ps);
    int rc = 0;
    if (!have) {
        fprintf(stderr, "satin-submit: no node's profile came with the result; %s not written\n",
                path);
        rc = SUBMIT_PROFILE_NONE;
    } else {
        rc = write_profile(r, &ps, wall, path, what);
    }
    const char *missing = satin_client_values_str(&r->stats, "profile.missing");
    if (missing)
        fprintf(stderr, "satin-submit: profile: no profile from node(s) %s (no answer in "
                        "time, an unreadable one, or its recording ended by newer ones)\n", missing);
    int64_t left_out = 0;
    if (satin_client_values_i64(&r->stats, "profile.left_out", &left_out) == 0 && left_out > 0)
        fprintf(stderr, "satin-submit: profile: %lld node(s) left out: more than one result "
                        "carries\n", (long long)left_out);
    for (int i = 0; i < ps.nnodes; i++)
        if (ps.p[i].workers && ps.p[i].truncated != SATIN_PROFILE_WHOLE)
            fprintf(stderr, "satin-submit: profile of node %s truncated at %.6f s: it recorded "
                            "more events than it keeps or sends\n", ps.names[i],
                    (double)ps.p[i].truncated / 1e9);
    profiles_free(&ps);
    drop_texts(r);
    return rc;
}
