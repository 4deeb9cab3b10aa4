/* control_reload.c - SIGHUP: the topology file read again.
 *
 * An operator who edits the topology (a node added, a key rotated) learns
 * at once, from the node's own log, whether the file is valid and how its
 * membership differs from the one the node runs with.  A file that does
 * not load, lacks this node, fails the policy checks or (under CURVE) a
 * key is refused with the loader's FILE:LINE:COLUMN message.  Either way
 * the node keeps the membership it started with: node indexes are the
 * wire's node ids and HELLO's digest covers the membership, so a node that
 * took a new one alone would be cut off from the others (PROTOCOL.md 14.2);
 * a changed membership takes a restart of the grid's nodes.  With the
 * membership unchanged, new failure time-outs are applied (a node's own
 * business: peers need not agree on them); every other setting takes a
 * restart.
 */
#include "control_internal.h"
#include "grid.h"
#include "log.h"
#include "policy_config.h"

#include <stdio.h>

static void log_change(void *ctx, const char *line)
{
    const char *path = ctx;
    log_warn("SIGHUP: %s: %s", path, line);
}

int control_reload_topology(satin_control *ctl)
{
    const char *path = ctl->opt->config;
    char err[1024], note[256];
    satin_topology *next = satin_topology_load(path, err, sizeof err);
    satin_policy_config policy;
    int bad = !next;
    if (!bad && satin_policy_configure(next, ctl->opt->policy[0] ? ctl->opt->policy : NULL,
                                       &policy, note, sizeof note, err, sizeof err) < 0)
        bad = 1;
    if (!bad && !satin_topology_node(next, ctl->opt->node)) {
        snprintf(err, sizeof err, "%s has no node '%s' (this node)", path, ctl->opt->node);
        bad = 1;
    }
    if (!bad && !next->security_none && satin_topology_check_keys(next, err, sizeof err) < 0)
        bad = 1;
    if (bad) {
        ctl->reloads_refused++;
        log_error("SIGHUP: %s; keeping the topology in use", err);
        satin_topology_destroy(&next);
        return -1;
    }
    int changes = satin_topology_membership_diff(ctl->topo, next, log_change, (void *)path);
    if (changes) {
        ctl->reloads_refused++;
        log_warn("SIGHUP: %s: %d membership change(s) not applied: a running node keeps the "
                 "membership it started with; restart the grid's nodes to use them",
                 path, changes);
    } else {
        double lan, wan;
        char applied[160] = "";
        satin_grid_failure_timeouts(ctl->grid, &lan, &wan);
        if (lan != next->failure_timeout_lan_ms || wan != next->failure_timeout_wan_ms) {
            snprintf(applied, sizeof applied,
                     "; failure_timeout lan %g -> %g ms, wan %g -> %g ms, applied", lan,
                     next->failure_timeout_lan_ms, wan, next->failure_timeout_wan_ms);
            satin_grid_set_failure_timeouts(ctl->grid, next->failure_timeout_lan_ms,
                                            next->failure_timeout_wan_ms);
        }
        log_info("SIGHUP: %s re-read: valid, membership unchanged (grid %s, %d nodes)%s", path,
                 next->name, next->nnodes, applied);
    }
    satin_topology_destroy(&next);
    return changes ? 1 : 0;
}
