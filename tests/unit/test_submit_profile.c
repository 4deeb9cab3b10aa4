/* test_submit_profile.c - satin-submit --profile's CSV (client/submit_profile.c)
 * from a result's profile.* statistics written by hand: the intervals each
 * node's events make, a node with fewer workers, a truncated node whose rows
 * end at its truncation, a bad text left out, and the per-node texts taken
 * out of the statistics. */
#include "../tap.h"
#include "submit_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static void add(satin_client_values *l, const char *name, int type, int64_t i, const char *str)
{
    l->items = realloc(l->items, (l->n + 1) * sizeof *l->items);
    satin_client_value *v = &l->items[l->n++];
    memset(v, 0, sizeof *v);
    v->name = strdup(name);
    v->type = (satin_client_value_type)type;
    v->i64 = i;
    v->str = str ? strdup(str) : NULL;
}

/* The file's lines after the header, sorted, as one text. */
static char *sorted_rows(const char *path, char *header, size_t hlen)
{
    FILE *f = fopen(path, "r");
    char line[256], *rows[64];
    int n = 0;
    if (!f || !fgets(header, (int)hlen, f))
        return strdup("(no file)");
    while (n < 64 && fgets(line, sizeof line, f))
        rows[n++] = strdup(line);
    fclose(f);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(rows[j], rows[i]) < 0) {
                char *t = rows[i];
                rows[i] = rows[j];
                rows[j] = t;
            }
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(rows[i]);
    char *all = calloc(1, len);
    for (int i = 0; i < n; i++) {
        strcat(all, rows[i]);
        free(rows[i]);
    }
    return all;
}

int main(void)
{
    satin_job_report r;
    memset(&r, 0, sizeof r);
    r.job_id = 9;
    r.ok = 1;
    add(&r.stats, "wall_s", SATIN_CLIENT_F64, 0, NULL);
    add(&r.stats, "grid.nodes", SATIN_CLIENT_I64, 3, NULL);
    add(&r.stats, "profile.wall_ns", SATIN_CLIENT_I64, 1000, NULL);
    add(&r.stats, "profile.nodes", SATIN_CLIENT_I64, 2, NULL);
    /* a0: one worker; idle, computing, idle, a local steal out and back */
    add(&r.stats, "profile.0", SATIN_CLIENT_STR, 0,
        "node=a0 cluster=0 w=1 s=0 e=1000 0i0 100b0 400i0 100l0 50a0");
    /* b0: two workers, heard of the job at 20, truncated at 300 */
    add(&r.stats, "profile.1", SATIN_CLIENT_STR, 0,
        "node=b0 cluster=1 w=2 s=20 e=1000 t=300 0b0 0i1 100w3 100b1");
    /* b1's text does not parse: left out */
    add(&r.stats, "profile.2", SATIN_CLIENT_STR, 0, "node=b1 cluster=1 w=1 s=0 e=10 11b0");
    add(&r.stats, "profile.missing", SATIN_CLIENT_STR, 0, "c0");

    char path[] = "/tmp/test_submit_profile.XXXXXX", err[] = "/tmp/test_submit_profile.err.XXXXXX";
    int fd = mkstemp(path), efd = mkstemp(err);
    ok(fd >= 0 && efd >= 0, "temporary files");
    close(fd);
    char csv[64];
    snprintf(csv, sizeof csv, "%s.csv", path);
    /* what it says on stderr, into a file */
    fflush(stderr);
    int saved = dup(2);
    dup2(efd, 2);
    int rc = submit_profile_write(&r, csv, "fib");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    is_i64(rc, 0, "written");

    char header[128];
    char *rows = sorted_rows(csv, header, sizeof header);
    is_str(header, "node,worker,state,start_ns,end_ns,node_id\n", "the header");
    is_str(rows,
           "0,0,computing,100,500,a0\n"
           "0,0,idle,0,100,a0\n"
           "0,0,idle,500,600,a0\n"
           "0,0,idle,650,1000,a0\n"
           "0,0,steal-lan,600,650,a0\n"
           "1,0,computing,20,300,b0\n"
           "1,1,computing,220,300,b0\n"
           "1,1,idle,20,120,b0\n"
           "1,1,steal-wan,120,220,b0\n",
           "a0's one worker over the whole job; b0's two from 20 to its truncation; no b1");
    free(rows);

    char said[1024] = "";
    FILE *e = fdopen(efd, "r");
    rewind(e);
    size_t got = fread(said, 1, sizeof said - 1, e);
    said[got] = 0;
    fclose(e);
    ok(strstr(said, "profile of node 2 left out") != NULL, "says b1's profile was left out");
    ok(strstr(said, "no profile from node(s) c0") != NULL, "names the missing nodes");
    ok(strstr(said, "profile of node b0 truncated at 0.000000 s") != NULL, "says b0's was truncated");

    int texts = 0;
    for (size_t i = 0; i < r.stats.n; i++)
        texts += strncmp(r.stats.items[i].name, "profile.", 8) == 0 &&
                 r.stats.items[i].name[8] >= '0' && r.stats.items[i].name[8] <= '9';
    ok(texts == 0 && satin_client_values_find(&r.stats, "profile.wall_ns") &&
       satin_client_values_find(&r.stats, "profile.missing"),
       "the per-node texts are gone from the statistics, the figures stay");

    /* a result without a profile */
    satin_job_report none;
    memset(&none, 0, sizeof none);
    add(&none.stats, "wall_s", SATIN_CLIENT_F64, 0, NULL);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    close(devnull);
    is_i64(submit_profile_write(&none, csv, "fib"), SUBMIT_PROFILE_NONE,
           "a result without profile.wall_ns: the exit status for a missing profile");
    ok(submit_profile_path_ok("a.csv") && submit_profile_path_ok("d/a.png") &&
       !submit_profile_path_ok("a.svg") && !submit_profile_path_ok(".csv"),
       "file names: .csv and .png only");
    satin_job_report_free(&r);
    satin_job_report_free(&none);
    unlink(csv);
    unlink(path);
    unlink(err);
    return done_testing();
}
