/* submit_grid.c - satin-submit --status --grid: the grid as one daemon sees it */
#include "submit_grid.h"
#include "json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The table's columns: a title and the value it shows. */
static const struct {
    const char *title;
    const char *key;
    int text;               /* left-aligned */
} columns[] = {
    {"NODE", "node", 1},
    {"CLUSTER", "cluster", 1},
    {"STATE", "state", 1},
    {"SILENT_S", "silent_s", 0},
    {"WORKERS", "workers", 0},
    {"BUSY", "workers_busy", 0},
    {"RUNNING", "jobs_running", 0},
    {"PENDING", "jobs_pending", 0},
    {"QUEUED", "queue_length", 0},
    {"HELD", "records_held", 0},
    {"STEALS", "steal_attempts", 0},
    {"STEALS_OK", "steal_successes", 0},
    {"STEALS_FAILED", "steal_failures", 0},
    {"WAN_MSGS", "wan_msgs", 0},
    {"WAN_BYTES", "wan_bytes", 0},
    {"NOTE", NULL, 1},
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])
#define CELL 96

static int64_t flag_of(const satin_client_values *v, const char *name)
{
    int64_t x = 0;
    satin_client_values_i64(v, name, &x);
    return x;
}

/* What is worth saying beyond the figures: which node was asked, and of a
 * node that did not answer, that it did not (and since when it is dead). */
static void note_of(const satin_client_values *v, char *buf, size_t len)
{
    double dead = -1;
    if (flag_of(v, "asked"))
        snprintf(buf, len, "asked");
    else if (flag_of(v, "answered"))
        snprintf(buf, len, "%s", "");
    else if (satin_client_values_f64(v, "dead_s", &dead) == 0)
        snprintf(buf, len, "no answer; dead for %.1f s", dead);
    else
        snprintf(buf, len, "no answer");
}

static void cell_of(const satin_client_values *v, size_t col, char *buf, size_t len)
{
    if (!columns[col].key) {
        note_of(v, buf, len);
        return;
    }
    const satin_client_value *kv = satin_client_values_find(v, columns[col].key);
    if (strcmp(columns[col].key, "silent_s") == 0 && !kv)
        snprintf(buf, len, "%s", flag_of(v, "asked") ? "-" : "never");
    else if (!kv)
        snprintf(buf, len, "-");
    else if (kv->type == SATIN_CLIENT_I64)
        snprintf(buf, len, "%" PRId64, kv->i64);
    else if (kv->type == SATIN_CLIENT_F64)
        snprintf(buf, len, "%.1f", kv->f64);
    else
        snprintf(buf, len, "%s", kv->str[0] ? kv->str : "-");
}

/* When the nodes' kind modules differ, under the table: each node's and
 * what each sees differ (nothing when they agree: the JSON has them). */
static void kinds_block(FILE *out, const satin_client_values *nodes, size_t n)
{
    const char *first = NULL;
    int same = 1, any_differ = 0;
    for (size_t i = 0; i < n; i++) {
        const char *m = satin_client_values_str(&nodes[i], "modules");
        const char *d = satin_client_values_str(&nodes[i], "kinds_differ");
        if (d && d[0])
            any_differ = 1;
        if (!m)
            continue;
        if (!first)
            first = m;
        else if (strcmp(first, m) != 0)
            same = 0;
    }
    if (!first)
        return;
    if (same && !any_differ)
        return;
    fprintf(out, "kinds differ (records of a kind go only to nodes with the same build of it):\n");
    for (size_t i = 0; i < n; i++) {
        const char *id = satin_client_values_str(&nodes[i], "node");
        const char *m = satin_client_values_str(&nodes[i], "modules");
        if (m)
            fprintf(out, "  %s has %s\n", id ? id : "?", m[0] ? m : "no module");
    }
    for (size_t i = 0; i < n; i++) {
        const char *id = satin_client_values_str(&nodes[i], "node");
        const char *d = satin_client_values_str(&nodes[i], "kinds_differ");
        if (d && d[0])
            fprintf(out, "  %s sees: %s\n", id ? id : "?", d);
    }
}

void submit_grid_table(FILE *out, const satin_client_values *nodes, size_t n)
{
    char (*cells)[NCOLUMNS][CELL] = calloc(n ? n : 1, sizeof *cells);
    int width[NCOLUMNS];
    if (!cells)
        abort();
    for (size_t c = 0; c < NCOLUMNS; c++)
        width[c] = (int)strlen(columns[c].title);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < NCOLUMNS; c++) {
            cell_of(&nodes[i], c, cells[i][c], CELL);
            int w = (int)strlen(cells[i][c]);
            width[c] = w > width[c] ? w : width[c];
        }
    for (size_t i = 0; i <= n; i++) {
        char line[NCOLUMNS * (CELL + 2) + 1];
        size_t off = 0;
        for (size_t c = 0; c < NCOLUMNS; c++) {
            const char *s = i == 0 ? columns[c].title : cells[i - 1][c];
            int last = c == NCOLUMNS - 1;
            /* Text to the left, figures to the right; no trailing blanks. */
            off += (size_t)snprintf(line + off, sizeof line - off, "%s%*s", c ? "  " : "",
                                    columns[c].text ? -(last ? 0 : width[c]) : width[c], s);
        }
        while (off > 0 && line[off - 1] == ' ')
            line[--off] = 0;
        fprintf(out, "%s\n", line);
    }
    free(cells);
    kinds_block(out, nodes, n);
}

void submit_grid_json(FILE *out, const satin_client_values *nodes, size_t n)
{
    satin_json j;
    satin_json_init(&j);
    satin_json_object_begin(&j);
    for (size_t i = 0; i < n; i++) {
        const char *id = satin_client_values_str(&nodes[i], "node");
        satin_json_key(&j, id ? id : "");
        satin_json_object_begin(&j);
        for (size_t k = 0; k < nodes[i].n; k++) {
            const satin_client_value *kv = &nodes[i].items[k];
            satin_json_key(&j, kv->name);
            if (kv->type == SATIN_CLIENT_I64)
                satin_json_i64(&j, kv->i64);
            else if (kv->type == SATIN_CLIENT_F64)
                satin_json_f64(&j, kv->f64);
            else
                satin_json_str(&j, kv->str);
        }
        satin_json_object_end(&j);
    }
    satin_json_object_end(&j);
    fprintf(out, "%s\n", satin_json_text(&j));
    satin_json_free(&j);
}
