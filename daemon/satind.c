/*
 * satind.c - the per-node daemon: options, signals, the worker pool and the
 * control thread (this thread), and a clean stop.
 */
#include "control.h"
#include "log.h"
#include "modules.h"
#include "options.h"
#include "pidfile.h"
#include "policy_config.h"
#include "pool.h"
#include "satin_endpoint.h"
#include "service.h"
#include "topology.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* Without --foreground: the parent returns once the child listens (or
 * exits 1 when the child could not start), like a classic daemon. */
static int detach(int *ready_fd)
{
    int p[2];
    if (pipe(p) < 0) {
        perror("satind: pipe");
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("satind: fork");
        return -1;
    }
    if (pid > 0) {
        close(p[1]);
        char c;
        ssize_t n = read(p[0], &c, 1);
        _exit(n == 1 ? 0 : 1);
    }
    close(p[0]);
    setsid();
    if (chdir("/") < 0) {
        /* Not fatal: we only use absolute paths. */
    }
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        close(null);
    }
    *ready_fd = p[1];
    return 0;
}

/* Once the detached daemon is ready its terminal is no place for the log:
 * the --log-file has it (it is stderr already), else syslog.  Whatever
 * else writes to stdout or stderr goes nowhere. */
static void leave_terminal(const satind_options *opt)
{
    if (!opt->log_file[0])
        satin_log_to_syslog();
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0)
        return;
    dup2(null, STDOUT_FILENO);
    if (!opt->log_file[0])
        dup2(null, STDERR_FILENO);
    close(null);
}

/* --pidfile FILE as an absolute path (detach() goes to "/"): 0, or -1. */
static int absolute_pidfile(satind_options *opt)
{
    char cwd[PATH_MAX], abs[sizeof opt->pidfile];
    if (!opt->pidfile[0] || opt->pidfile[0] == '/')
        return 0;
    if (!getcwd(cwd, sizeof cwd) ||
        snprintf(abs, sizeof abs, "%s/%s", cwd, opt->pidfile) >= (int)sizeof abs) {
        fprintf(stderr, "satind: --pidfile %s: path too long\n", opt->pidfile);
        return -1;
    }
    memcpy(opt->pidfile, abs, sizeof abs);
    return 0;
}

/* --check-config and --list-nodes. */
static int describe_topology(const satin_topology *t, const satind_options *opt,
                             const satin_policy_config *policy)
{
    if (opt->check_config) {
        char err[1024];
        if (satin_topology_check_keys(t, err, sizeof err) < 0) {
            fprintf(stderr, "satind: %s\n", err);
            return 1;
        }
        printf("%s: ok (grid %s: %d cluster%s, %d node%s, policy %s%s)\n", opt->config, t->name,
               t->nclusters, t->nclusters == 1 ? "" : "s", t->nnodes, t->nnodes == 1 ? "" : "s",
               policy->ops->name,
               t->emulate ? ", wide-area links emulated" : "");
        return 0;
    }
    for (int i = 0; i < t->nnodes; i++)
        printf("%s %s %s %s\n", t->nodes[i].id, t->clusters[t->nodes[i].cluster].name,
               t->nodes[i].endpoint, t->nodes[i].client[0] ? t->nodes[i].client : "-");
    return 0;
}

/* A refusal to start: on stderr as "satind: ..."; with --log-file, into the
 * log, and (satin_log_tee_errors) on the terminal satind was started from. */
static void refuse(const satind_options *opt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void refuse(const satind_options *opt, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (opt->log_file[0])
        log_error("%s", text);
    else
        fprintf(stderr, "satind: %s\n", text);
}

int main(int argc, char **argv)
{
    satind_options opt;
    int rc = satind_options_parse(&opt, argc, argv);
    if (rc == 1)
        return 0;
    if (rc == 2)
        return 2;
    satin_log_set_level((satin_log_level)opt.log_level);
    satin_log_set_journal(satin_service_stderr_is_journal());
    /* Until it is ready, its errors reach the terminal too. */
    if (opt.log_file[0])
        satin_log_tee_errors(fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3));
    if (opt.log_file[0] && satin_log_open(opt.log_file) < 0) {
        fprintf(stderr, "satind: cannot open the log file %s: %s\n", opt.log_file,
                strerror(errno));
        return 1;
    }

    satin_topology *topo = NULL;
    satin_policy_config policy;
    int self = -1;
    if (opt.config[0]) {
        char err[512], note[256];
        topo = satin_topology_load(opt.config, err, sizeof err);
        if (!topo || satin_policy_configure(topo, opt.policy[0] ? opt.policy : NULL, &policy,
                                            note, sizeof note, err, sizeof err) < 0) {
            refuse(&opt, "%s", err);
            satin_topology_destroy(&topo);
            return 1;
        }
        if (note[0])
            log_info("%s: policy %s does not read policy_params %s (they serve other policies)",
                     opt.config, policy.ops->name, note);
        if (opt.check_config || opt.list_nodes) {
            int rc2 = describe_topology(topo, &opt, &policy);
            satin_topology_destroy(&topo);
            return rc2;
        }
        const satin_node_def *node = satin_topology_node(topo, opt.node);
        if (!node) {
            refuse(&opt, "%s has no node '%s'", opt.config, opt.node);
            satin_topology_destroy(&topo);
            return 1;
        }
        self = node->index;
        /* SIGHUP reads the file again, after detach() went to "/". */
        char abs[PATH_MAX];
        if (realpath(opt.config, abs) && strlen(abs) < sizeof opt.config)
            memcpy(opt.config, abs, strlen(abs) + 1);
        if (!opt.workers_given)
            opt.workers = node->workers;
        /* Without --socket or the node's client: endpoint, the default
         * socket is the node's own (satind-ID.sock), so that several nodes
         * of one grid can run on one host. */
        if (!opt.socket_given && !node->client[0])
            satin_endpoint_default_node(opt.endpoint, sizeof opt.endpoint, node->id);
        if (!opt.socket_given && node->client[0]) {
            char err2[256];
            if (satin_endpoint_normalise(node->client, opt.endpoint, sizeof opt.endpoint, err2,
                                         sizeof err2) < 0) {
                refuse(&opt, "node %s: client endpoint: %s", node->id, err2);
                satin_topology_destroy(&topo);
                return 1;
            }
        }
    }

    char perr[600];
    if (opt.pidfile[0] && (absolute_pidfile(&opt) < 0 ||
                           satind_pidfile_check(opt.pidfile, perr, sizeof perr) < 0)) {
        if (opt.pidfile[0] == '/')
            refuse(&opt, "%s", perr);
        satin_topology_destroy(&topo);
        return 1;
    }

    /* The kinds: before detaching, so that a module that is refused is
     * reported where the operator looks. */
    const char *node_dir = topo && self >= 0 ? topo->nodes[self].kinds_dir : "";
    const char *kinds_dir = opt.kinds_dir[0]                ? opt.kinds_dir
                            : node_dir[0]                   ? node_dir
                            : topo && topo->kinds_dir[0] ? topo->kinds_dir
                                                         : SATIN_KINDS_DIR;
    satin_registry *reg = satin_registry_new();
    satin_err kerr = {""};
    if (satin_modules_load_dir(reg, kinds_dir, &kerr) < 0) {
        refuse(&opt, "%s", kerr.msg);
        satin_registry_destroy(&reg);
        satin_topology_destroy(&topo);
        return 1;
    }
    for (size_t i = 0; i < satin_registry_nmodules(reg); i++) {
        const satin_module_info *mi = satin_registry_module_at(reg, i);
        log_info("loaded kind module %s %s from %s (sha256 %.16s)", mi->name, mi->version,
                 mi->file, mi->digest);
    }

    int ready_fd = -1;
    if (!opt.foreground && detach(&ready_fd) < 0) {
        satin_registry_destroy(&reg);
        satin_topology_destroy(&topo);
        return 1;
    }
    /* Written by the process that stays, before the parent returns. */
    if (opt.pidfile[0] && satind_pidfile_write(opt.pidfile, perr, sizeof perr) < 0) {
        log_error("%s", perr);
        satin_registry_destroy(&reg);
        satin_topology_destroy(&topo);
        return 1;
    }

    /* Signals are taken synchronously by the control loop; block them
     * before any thread starts so that no worker receives them. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0) {
        log_error("cannot create a signalfd: %m");
        satin_registry_destroy(&reg);
        satin_topology_destroy(&topo);
        satind_pidfile_remove();
        return 1;
    }

    satin_pool *pool = satin_pool_new(&(satin_pool_config){
        .workers = opt.workers,
        .max_record = opt.max_record,
    });
    satin_control *ctl = satin_control_new(&opt, pool, reg, topo, self,
                                           topo ? &policy : NULL);
    if (!ctl) {
        satin_pool_destroy(&pool);
        satin_registry_destroy(&reg);
        satin_topology_destroy(&topo);
        close(sfd);
        satind_pidfile_remove();
        return 1;
    }
    char ready[700];
    snprintf(ready, sizeof ready, "%s%s: %d workers, clients on %s", topo ? "node " : "",
             topo ? topo->nodes[self].id : "standalone", satin_pool_workers(pool), opt.endpoint);
    satin_service_ready(ready);
    if (ready_fd >= 0) {
        if (write(ready_fd, "1", 1) < 0) {
            /* The parent is gone; carry on. */
        }
        close(ready_fd);
        leave_terminal(&opt);
    }
    satin_log_tee_errors(-1);
    int drained = satin_control_run(ctl, sfd);
    satin_control_destroy(&ctl);
    if (drained) {
        satin_pool_destroy(&pool);
        satin_topology_destroy(&topo);
        satin_registry_destroy(&reg);   /* its modules stay loaded: nothing runs them now */
    }
    /* else: a job is stuck in sequential code; exit without joining it. */
    close(sfd);
    satind_pidfile_remove();
    log_info("stopped");
    return 0;
}
