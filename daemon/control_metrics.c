/*
 * control_metrics.c - satind's --metrics: the control thread renders its
 * status (control_status_info) as Prometheus text and hands it to the HTTP
 * server (metrics.c), once a second and when a job ends.  The server never
 * reads the control thread's state, so a scrape costs it nothing and a
 * stuck scraper cannot slow it.
 */
#include "control_internal.h"
#include "metrics.h"
#include "metrics_text.h"

#include <stdlib.h>

#define METRICS_INTERVAL_NS 1000000000LL

int control_start_metrics(satin_control *ctl)
{
    if (!ctl->opt->metrics[0])
        return 0;
    char err[512];
    ctl->metrics = satin_metrics_new(ctl->opt->metrics, ctl->opt->dashboard_token, err, sizeof err);
    if (!ctl->metrics) {
        log_error("%s", err);
        return -1;
    }
    control_publish_metrics(ctl, 0);
    log_info("serving Prometheus metrics at http://%s/metrics",
             satin_metrics_endpoint(ctl->metrics) + 6);
    log_info("serving the dashboard at http://%s/%s", satin_metrics_endpoint(ctl->metrics) + 6,
             ctl->opt->dashboard_token[0] ? " (with its token: ?token=...)" : "");
    return 0;
}

void control_publish_metrics(satin_control *ctl, int64_t now)
{
    if (!ctl->metrics || (now && now < ctl->next_metrics))
        return;
    satin_kvlist status;
    satin_kvlist_init(&status);
    control_status_info(ctl, &status);
    const char *node = control_node_id(ctl);
    size_t len;
    char *text = satin_metrics_render(&status, node, &len);
    satin_metrics_publish(ctl->metrics, text, len);
    free(text);
    satin_kvlist_free(&status);
    control_publish_dashboard(ctl);
    ctl->next_metrics = satin_now_ns() + METRICS_INTERVAL_NS;
}
