/* control_reload.c - SIGHUP: the topology file read again.
 *
 * An operator who edits the topology (a node added or removed, a key
 * rotated) and sends SIGHUP to every node (satin-grid reload) changes the
 * running grid's membership without a restart.  A file that does not load,
 * lacks this node, fails the policy checks or (under CURVE) a key is
 * refused with the loader's FILE:LINE:COLUMN message, and the node keeps
 * the membership it has.  So is a change this node cannot take while it
 * runs: its own endpoint or key, the security mode, or any membership
 * change of a grid emulated through satin-wanem (whose relay ports are
 * numbered by node count).  Otherwise each membership difference is
 * logged and the new membership taken (grid.h, satin_grid_set_membership):
 * peers still reading the old file are understood until they re-read it
 * too (roster.h).  New failure time-outs are applied either way (a node's
 * own business); every other setting (policy, links, workers) takes a
 * restart.
 */
#include "control_internal.h"
#include "grid.h"
#include "log.h"
#include "policy_config.h"

#include <stdio.h>
#include <string.h>

static void log_change(void *ctx, const char *line)
{
    const char *path = ctx;
    log_warn("SIGHUP: %s: %s", path, line);
}

/* Why this node cannot take `next`'s membership while it runs ("" when it
 * can): what it bound, loaded or was started with. */
static void cannot_take(const satin_topology *cur, const satin_topology *next, const char *self,
                        char *why, size_t len)
{
    const satin_node_def *a = satin_topology_node(cur, self), *b = satin_topology_node(next, self);
    why[0] = 0;
    if (strcmp(a->endpoint, b->endpoint) != 0)
        snprintf(why, len, "this node's endpoint changed (%s -> %s): it is bound to the old one",
                 a->endpoint, b->endpoint);
    else if (strcmp(a->public_key, b->public_key) != 0)
        snprintf(why, len, "this node's public key changed: it holds the old key pair");
    else if (cur->security_none != next->security_none)
        snprintf(why, len, "the security mode changed");
    else if (cur->emulate || next->emulate)
        snprintf(why, len, "the grid is emulated through satin-wanem, whose relay ports are "
                           "numbered by node count and cluster");
}

static void apply_failure_timeouts(satin_control *ctl, const satin_topology *t, char *said,
                                   size_t len)
{
    double lan, wan;
    satin_grid_failure_timeouts(ctl->grid, &lan, &wan);
    if (lan == t->failure_timeout_lan_ms && wan == t->failure_timeout_wan_ms)
        return;
    snprintf(said, len, "; failure_timeout lan %g -> %g ms, wan %g -> %g ms, applied", lan,
             t->failure_timeout_lan_ms, wan, t->failure_timeout_wan_ms);
    satin_grid_set_failure_timeouts(ctl->grid, t->failure_timeout_lan_ms,
                                    t->failure_timeout_wan_ms);
}

int control_reload_topology(satin_control *ctl)
{
    const char *path = ctl->opt->config;
    char err[1024], note[256], why[640], applied[160] = "";
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
    /* Each difference is logged, whether the change is taken or refused. */
    int changes = satin_topology_membership_diff(ctl->topo, next, log_change, (void *)path);
    if (!changes) {
        apply_failure_timeouts(ctl, next, applied, sizeof applied);
        log_info("SIGHUP: %s re-read: valid, membership unchanged (grid %s, %d nodes)%s", path,
                 next->name, next->nnodes, applied);
        satin_topology_destroy(&next);
        return 0;
    }
    cannot_take(ctl->topo, next, ctl->opt->node, why, sizeof why);
    if (why[0]) {
        ctl->reloads_refused++;
        log_error("SIGHUP: %s: %d membership change(s) not applied: %s; restart the grid's nodes "
                  "to use them", path, changes, why);
        satin_topology_destroy(&next);
        return -1;
    }
    int joined = satin_grid_set_membership(ctl->grid, next, err, sizeof err);   /* takes next */
    if (joined < 0) {
        ctl->reloads_refused++;
        log_error("SIGHUP: %s: membership not applied: %s", path, err);
        return -1;
    }
    ctl->topo = satin_grid_topology(ctl->grid);
    ctl->membership_changes++;
    apply_failure_timeouts(ctl, ctl->topo, applied, sizeof applied);
    log_warn("SIGHUP: %s: membership applied: %d change(s), %d node(s) new to this run (grid %s, "
             "%d nodes)%s", path, changes, joined, ctl->topo->name, ctl->topo->nnodes, applied);
    return 1;
}
