/*
 * control_dashboard.c - the dashboard's data (satind --metrics, GET /api/...):
 * JSON documents the control thread publishes to the HTTP server with the
 * metrics, once a second and when a job ends, while someone has asked for
 * them within DASHBOARD_WATCH_NS:
 *
 *   /api/status    the grid as this node sees it: what satin-submit --status
 *                  --grid --json prints ({"NODE": {...}, ...}); gathered by a
 *                  GRID_STATUS of this node's own (control_grid.c), at most
 *                  one at a time
 *   /api/jobs      the grid's jobs, what satin-submit --list --grid --all
 *                  --json prints ({"jobs": [...], "unanswered": [...]},
 *                  params an object), as an anonymous client sees them:
 *                  another's parameters are not shown (PROTOCOL.md 6.17);
 *                  gathered by a LIST of this node's own (control_jobs_grid.c)
 *   /api/node      this node's STATUS
 *   /api/profiles  the profiles of the last PROFILES_KEPT profiled jobs that
 *                  finished here: each node's text as the RESULT has it
 *                  (PROTOCOL.md 14.12), for the page to draw
 */
#include "control_internal.h"
#include "json.h"
#include "metrics.h"

#include <string.h>

#define DASHBOARD_WATCH_NS 15000000000LL
#define PROFILES_KEPT 4
#define JSON_TYPE "application/json"

static void publish(satin_control *ctl, const char *path, satin_json *j)
{
    const char *text = satin_json_text(j);
    satin_metrics_publish_doc(ctl->metrics, path, JSON_TYPE, text, strlen(text));
    satin_json_free(j);
}

void control_dashboard_grid(satin_control *ctl, const satin_msg *grid)
{
    ctl->dashboard_query = 0;
    if (!ctl->metrics)
        return;
    satin_json j;
    satin_json_init(&j);
    satin_json_object_begin(&j);
    for (size_t i = 0; i < grid->njobs; i++) {
        const satin_kvlist *node = &grid->jobs[i];
        const char *id = satin_kvlist_str(node, "node");
        satin_json_key(&j, id ? id : "");
        satin_json_object_begin(&j);
        for (size_t k = 0; k < node->n; k++)
            satin_json_kv(&j, &node->items[k]);
        satin_json_object_end(&j);
    }
    satin_json_object_end(&j);
    publish(ctl, "/api/status", &j);
}

/* {"jobs": [...], "unanswered": [...]}: satin-submit --list --grid --json's schema. */
void control_dashboard_jobs(satin_control *ctl, const satin_msg *r)
{
    ctl->dashboard_jobs_query = 0;
    if (!ctl->metrics)
        return;
    satin_json j;
    satin_json_init(&j);
    satin_json_object_begin(&j);
    satin_json_key(&j, "jobs");
    satin_json_array_begin(&j);
    for (size_t i = 0; i < r->njobs; i++) {
        const satin_kvlist *l = &r->jobs[i];
        if (satin_kvlist_find(l, "unanswered"))
            continue;
        satin_json_object_begin(&j);
        for (size_t k = 0; k < l->n; k++) {
            const satin_kv *kv = &l->items[k];
            if (strcmp(kv->name, "params") == 0 && kv->type == SATIN_KV_STR) {
                satin_json_key(&j, "params");
                satin_json_params_text(&j, kv->str);
            } else
                satin_json_kv(&j, kv);
        }
        if (!satin_kvlist_find(l, "params")) {
            satin_json_key(&j, "params");
            satin_json_null(&j);
        }
        satin_json_object_end(&j);
    }
    satin_json_array_end(&j);
    satin_json_key(&j, "unanswered");
    satin_json_array_begin(&j);
    for (size_t i = 0; i < r->njobs; i++)
        if (satin_kvlist_find(&r->jobs[i], "unanswered"))
            satin_json_str(&j, satin_kvlist_str(&r->jobs[i], "node"));
    satin_json_array_end(&j);
    satin_json_object_end(&j);
    publish(ctl, "/api/jobs", &j);
}

static void publish_node(satin_control *ctl)
{
    satin_kvlist st;
    satin_kvlist_init(&st);
    control_status_info(ctl, &st);
    satin_json j;
    satin_json_init(&j);
    satin_json_object_begin(&j);
    for (size_t k = 0; k < st.n; k++)
        satin_json_kv(&j, &st.items[k]);
    if (ctl->topo) {
        satin_json_key(&j, "grid");
        satin_json_str(&j, ctl->topo->name);
    }
    satin_json_key(&j, "node");
    satin_json_str(&j, control_node_id(ctl));
    satin_json_object_end(&j);
    satin_kvlist_free(&st);
    publish(ctl, "/api/node", &j);
}

/* The last profiled jobs that finished here, newest first. */
static void publish_profiles(satin_control *ctl)
{
    satin_json j;
    satin_json_init(&j);
    satin_json_object_begin(&j);
    satin_json_key(&j, "profiles");
    satin_json_array_begin(&j);
    int kept = 0;
    for (size_t i = ctl->njobs; i-- > 0 && kept < PROFILES_KEPT;) {
        const job_entry *e = ctl->jobs[i];
        int64_t wall;
        if (!e->result || satin_kvlist_i64(&e->result->stats, "profile.wall_ns", &wall) < 0)
            continue;
        kept++;
        satin_json_object_begin(&j);
        satin_json_key(&j, "job");
        satin_json_u64(&j, e->id);
        satin_json_key(&j, "kind");
        satin_json_str(&j, e->kind->name);
        satin_json_key(&j, "state");
        satin_json_str(&j, e->result->status == 0 ? "ok" : "error");
        satin_json_key(&j, "wall_ns");
        satin_json_i64(&j, wall);
        satin_json_key(&j, "missing");
        satin_json_str(&j, satin_kvlist_str(&e->result->stats, "profile.missing"));
        satin_json_key(&j, "nodes");
        satin_json_array_begin(&j);
        const satin_kvlist *st = &e->result->stats;
        for (size_t k = 0; k < st->n; k++) {
            const satin_kv *kv = &st->items[k];
            if (kv->type == SATIN_KV_STR && strncmp(kv->name, "profile.", 8) == 0 &&
                kv->name[8] >= '0' && kv->name[8] <= '9')
                satin_json_str(&j, kv->str);
        }
        satin_json_array_end(&j);
        satin_json_object_end(&j);
    }
    satin_json_array_end(&j);
    satin_json_object_end(&j);
    publish(ctl, "/api/profiles", &j);
}

void control_publish_dashboard(satin_control *ctl)
{
    if (!ctl->metrics)
        return;
    int64_t asked = satin_metrics_asked_ns(ctl->metrics);
    if (!asked || satin_now_ns() - asked > DASHBOARD_WATCH_NS)
        return;
    publish_node(ctl);
    publish_profiles(ctl);
    if (!ctl->dashboard_jobs_query) {
        /* The grid's jobs as an anonymous client sees them (rid_len 0: ours). */
        satin_principal viewer;
        satin_principal_anonymous(&viewer);
        satin_msg ask = {.type = SATIN_MSG_LIST, .flags = SATIN_LIST_GRID | SATIN_LIST_ALL};
        ctl->dashboard_jobs_query = 1;
        control_list_grid(ctl, &viewer, NULL, 0, &ask);
    }
    if (ctl->dashboard_query)
        return;
    /* A view of our own, answered to no client (rid_len 0). */
    satin_msg ask = {.type = SATIN_MSG_GRID_STATUS};
    ctl->dashboard_query = 1;
    control_on_grid_status(ctl, NULL, 0, &ask);
}
