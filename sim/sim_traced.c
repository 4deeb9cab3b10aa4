/* sim_traced.c - any module's kind as a tree traced here and replayed
 * (sim_model_trace, sim_model.h). */
#include "sim_model.h"
#include "trace_capture.h"

#include <stdio.h>
#include <string.h>

int sim_model_trace(sim_model *m, const satin_registry *reg, const char *kind,
                    const char *const *params, int64_t task_ns, int64_t min_leaf_us,
                    sim_state *root, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    memset(root, 0, sizeof *root);
    if (!satin_registry_kind(reg, kind)) {
        snprintf(err, errlen, "no kind '%s' in the modules loaded (satin-trace --list-kinds "
                 "lists them)", kind);
        return -1;
    }
    trace_capture c;
    satin_err e = {""};
    trace_capture_opts opts = {.min_leaf_us = min_leaf_us};
    if (trace_capture_run(&c, reg, kind, params, &opts, &e) < 0 ||
        trace_capture_tree(&c, &m->trace, &e) < 0) {
        snprintf(err, errlen, "%s", e.msg);
        trace_capture_free(&c);
        return -1;
    }
    m->kind = SIM_REPLAY;
    snprintf(m->traced_name, sizeof m->traced_name, "%s", kind);
    m->name = m->traced_name;
    m->task_ns = task_ns > 0 ? task_ns : 1000;   /* a traced microsecond */
    /* On the wire as a replay record of this tree: what a grid replaying
     * satin-trace's file would send. */
    snprintf(m->trace_path, sizeof m->trace_path, "traced:%s", c.what);
    m->trace_checksum = m->trace->checksum;
    m->trace_scale = 1;
    snprintf(m->traced_result, sizeof m->traced_result, "%s", c.result);
    m->traced_invocations = c.tree.jobs;
    m->traced_wall_s = c.outcome.wall_s;
    trace_capture_free(&c);
    return 0;   /* the root's state is node 0 */
}
