/* control.c - the control thread: the reactor (common/loop.c), and the daemon's
 * life and graceful stop */
#include "control_internal.h"
#include "metrics.h"
#include "kinds.h"
#include "log.h"
#include "satin_endpoint.h"
#include "service.h"
#include "zframes.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zmq.h>

/* The clients' ROUTER, CURVE on a tcp:// endpoint when the grid has it. */
static int open_client_socket(satin_control *ctl)
{
    const satind_options *opt = ctl->opt;
    ctl->router = zmq_socket(ctl->zctx, ZMQ_ROUTER);
    if (!ctl->router) {
        log_error("cannot make the client socket: %s", zmq_strerror(errno));
        return -1;
    }
    int linger = 1000;
    /* Frames far beyond the record limit are cut off by ZeroMQ itself; the
     * ones in between get a clear "too large" error from the decoder. */
    int64_t maxmsg = (int64_t)(opt->max_record * 4 > (16u << 20) ? opt->max_record * 4 : 16u << 20);
    zmq_setsockopt(ctl->router, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(ctl->router, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    const char *path = satin_endpoint_ipc_path(opt->endpoint);
    ctl->client_ipc = path != NULL;
    if (!path && satin_security_enabled(ctl->sec)) {
        satin_security_make_server(ctl->sec, ctl->router);
        ctl->client_curve = 1;
    } else if (!path) {
        log_warn("the client endpoint %s is plain text: anyone who can reach it may submit "
                 "(use security: curve with a clients: list between machines)", opt->endpoint);
    }
    return 0;
}

satin_control *satin_control_new(const satind_options *opt, satin_pool *pool,
                                 const satin_registry *reg,
                                 const satin_topology *topo, int self,
                                 const satin_policy_config *policy)
{
    satin_control *ctl = calloc(1, sizeof *ctl);
    if (!ctl)
        abort();
    ctl->opt = opt;
    ctl->pool = pool;
    ctl->reg = reg;
    ctl->next_id = 1;
    ctl->started_ns = satin_now_ns();
    if (satin_mailbox_init(&ctl->mailbox) < 0) {
        log_error("cannot create the worker mailbox: %s", strerror(errno));
        free(ctl);
        return NULL;
    }
    ctl->zctx = satin_security_context();
    control_size_fd_limits(ctl, topo);
    if (topo) {
        char key[600], err[1024];
        satin_security_key_path(topo, self, opt->key, key, sizeof key);
        ctl->sec = satin_security_new(ctl->zctx, topo, self, key, err, sizeof err);
        if (!ctl->sec) {
            log_error("%s", err);
            satin_control_destroy(&ctl);
            return NULL;
        }
    }
    if (open_client_socket(ctl) < 0 || control_bind_clients(ctl) < 0 ||
        control_watch_clients(ctl) < 0) {
        satin_control_destroy(&ctl);
        return NULL;
    }
    if (topo) {
        ctl->topo = topo;
        ctl->grid = satin_grid_new(ctl->zctx, topo, self, policy, pool, reg,
                                   &ctl->mailbox, opt->max_record, ctl->sec, opt->peer_rate);
        if (!ctl->grid) {
            satin_control_destroy(&ctl);
            return NULL;
        }
        control_grid_init(ctl);
        control_jobs_grid_init(ctl);
    }
    if (control_start_metrics(ctl) < 0) {
        satin_control_destroy(&ctl);
        return NULL;
    }
    log_info("listening for clients on %s with %d workers", opt->endpoint,
             satin_pool_workers(pool));
    return ctl;
}

/* The line `systemctl status` shows; sent only when it changes. */
static void update_service_status(satin_control *ctl)
{
    char line[256];
    int off = snprintf(line, sizeof line, "%s%d job(s) running, %" PRIu64 " finished",
                       ctl->stopping ? "stopping: " : "", ctl->running_jobs, ctl->finished_jobs);
    if (ctl->grid && off > 0 && (size_t)off < sizeof line)
        snprintf(line + off, sizeof line - (size_t)off,
                 "; %d record(s) of other nodes; %d of %d peers heard; policy %s",
                 satin_grid_running(ctl->grid), satin_grid_peers_heard(ctl->grid),
                 satin_grid_nnodes(ctl->grid) - 1, satin_grid_policy_name(ctl->grid));
    if (strcmp(line, ctl->status_line) != 0) {
        snprintf(ctl->status_line, sizeof ctl->status_line, "%s", line);
        satin_service_status("%s", line);
    }
}

/* SIGTERM: take no new jobs and no new work from peers, and let what runs
 * finish: our jobs, and the records other nodes gave us (their results go
 * home), so that no job of the grid is lost. */
static void begin_stop(satin_control *ctl, const char *why)
{
    ctl->stopping = 1;
    log_info("stopping (%s): %d job(s) running, %d record(s) of other nodes; waiting up to "
             "%.0f s for them to finish", why, ctl->running_jobs,
             ctl->grid ? satin_grid_running(ctl->grid) : 0, ctl->opt->stop_timeout_s);
    /* Those still waiting for a slot would start after the drain, on a
     * daemon about to exit: their clients hear now, and may resubmit. */
    control_fail_pending(ctl, "satind stopped before the job started; submit it again");
    if (ctl->grid)
        satin_grid_drain(ctl->grid);
    satin_service_stopping("stopping: waiting for running jobs");
}

/* The stop timeout passed: cancel what still runs; the clients get an error. */
static void cancel_running(satin_control *ctl)
{
    ctl->stopping = 2;
    log_warn("%d job(s) and %d record(s) of other nodes still running after %.0f s: "
             "cancelling them", ctl->running_jobs, ctl->grid ? satin_grid_running(ctl->grid) : 0,
             ctl->opt->stop_timeout_s);
    for (size_t i = 0; i < ctl->njobs; i++)
        if (ctl->jobs[i]->job)
            satin_job_cancel(ctl->jobs[i]->job, "satind is shutting down");
    if (ctl->grid)
        satin_grid_stop(ctl->grid);
}

/* Jobs that did not drain in time: their clients still get an answer. */
static void abandon_running(satin_control *ctl)
{
    for (size_t i = 0; i < ctl->njobs; i++) {
        job_entry *e = ctl->jobs[i];
        if (!e->job)
            continue;
        for (size_t k = 0; k < e->nwaiters; k++)
            control_send_error(ctl, e->waiters[k].rid, e->waiters[k].rid_len,
                       e->waiters[k].request_id, e->id, SATIN_PROTO_SHUTTING_DOWN,
                       "cancelled: satind is shutting down");
        e->nwaiters = 0;
    }
}

/* SIGHUP: logrotate moved the log file, or the topology was edited: the log
 * is reopened and the topology read again and checked (control_reload.c). */
static void on_hangup(satin_control *ctl)
{
    if (satin_log_reopen() < 0)
        log_error("SIGHUP: cannot reopen %s: %s", ctl->opt->log_file, strerror(errno));
    if (ctl->topo)
        control_reload_topology(ctl);
    log_info("SIGHUP: log reopened; %d job(s) running, %" PRIu64 " finished%s", ctl->running_jobs,
             ctl->finished_jobs, ctl->stopping ? ", stopping" : "");
}

/* ---- the reactor ------------------------------------------------------------
 * One satin_loop (common/loop.h) watches every descriptor of the control
 * thread; each has a small handler, and `pump` runs after every batch of
 * events: it drains what ZeroMQ holds (its descriptors only say "look
 * again"), fires the grid's and the daemon's deadlines, and says when it
 * must run next. */

/* 1 while `sock` has a message waiting. */
static int zmq_readable(void *sock)
{
    int events = 0;
    size_t len = sizeof events;
    return sock && zmq_getsockopt(sock, ZMQ_EVENTS, &events, &len) == 0 && (events & ZMQ_POLLIN);
}

/* zmq_readable for a socket in ctl->look, 0 for the others; one found with
 * nothing waiting leaves ctl->look (LOOK_*, control_internal.h). */
static int look(satin_control *ctl, unsigned which, void *sock)
{
    if (!(ctl->look & which))
        return 0;
    if (zmq_readable(sock))
        return 1;
    ctl->look &= ~which;
    return 0;
}

/* A batch of client requests (64 at most, for fairness to peers); 1 when it
 * read any. */
static int serve_clients(satin_control *ctl)
{
    int i = 0;
    while (i < 64 && look(ctl, LOOK_CLIENTS, ctl->router)) {
        control_read_client(ctl);
        i++;
    }
    return i > 0;
}

/* A batch of peer messages; 1 when it read any. */
static int serve_peers(satin_control *ctl)
{
    if (!ctl->grid || !look(ctl, LOOK_PEERS, satin_grid_socket(ctl->grid)))
        return 0;
    if (satin_grid_on_readable(ctl->grid) == 0)
        ctl->look &= ~LOOK_PEERS;   /* read until ZeroMQ had nothing more */
    return 1;
}

static int serve_security_log(satin_control *ctl)
{
    void *s = satin_security_log_socket(ctl->sec);
    if (!look(ctl, LOOK_SECURITY, s))
        return 0;
    satin_security_on_log(ctl->sec);
    return 1;
}

static void on_client_fd(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    ctl->look |= LOOK_CLIENTS;
    serve_clients(ctl);
}

static void on_peer_fd(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    ctl->look |= LOOK_PEERS;
    serve_peers(ctl);
}

static void on_security_fd(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    ctl->look |= LOOK_SECURITY;
    serve_security_log(ctl);
}

static void on_monitor_fd(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    ctl->look |= LOOK_MONITOR;
    control_on_client_events(ctl);
}

static void on_mail(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    satin_mailbox_deliver_all(&ctl->mailbox);
}

static void on_hungry(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    satin_grid_on_hungry(ctl->grid);
}

static void on_signal(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    struct signalfd_siginfo si;
    while (read(w->fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGHUP) {
            on_hangup(ctl);
        } else if (!ctl->stopping) {
            begin_stop(ctl, strsignal((int)si.ssi_signo));
            ctl->stop_deadline = satin_now_ns() + (int64_t)(ctl->opt->stop_timeout_s * 1e9);
        }
    }
}

/* The graceful stop's stages, by their deadlines; 1 when the loop ends. */
static int stop_due(satin_control *ctl, int64_t now)
{
    if (ctl->stopping && ctl->running_jobs == 0 &&
        (!ctl->grid || satin_grid_busy(ctl->grid) == 0)) {
        if (ctl->grid) {
            control_flush_collections(ctl);
            satin_grid_say_left(ctl->grid);
        }
        ctl->drained = 1;
        return 1;
    }
    if (ctl->stopping == 1 && now >= ctl->stop_deadline) {
        cancel_running(ctl);
        ctl->stop_deadline = now + DRAIN_DEADLINE_NS;
    } else if (ctl->stopping == 2 && now >= ctl->stop_deadline) {
        log_warn("%d job(s) did not stop within %.0f s; leaving them", ctl->running_jobs,
                 DRAIN_DEADLINE_NS / 1e9);
        abandon_running(ctl);
        if (ctl->grid)
            satin_grid_say_left(ctl->grid);
        return 1;
    }
    return 0;
}

/* Progress lines, systemd's status and watchdog: once a second or so. */
static int64_t housekeeping(satin_control *ctl, int64_t now)
{
    if (now >= ctl->next_progress) {
        /* A resume that found too many descriptors in use, or failed to
         * bind, is tried again here: no event may come to retry it. */
        if (ctl->listen_state == CLIENTS_PAUSED)
            control_pace_clients(ctl, 0);
        control_send_progress(ctl);
        update_service_status(ctl);
        control_publish_metrics(ctl, now);
        ctl->next_progress = now + PROGRESS_INTERVAL_NS;
    }
    /* From the loop itself: a stuck loop stops the pings, and systemd
     * restarts us.  Half the interval, as sd_watchdog_enabled(3) says. */
    if (ctl->watchdog_ns && now >= ctl->next_watchdog) {
        satin_service_watchdog();
        ctl->next_watchdog = now + ctl->watchdog_ns / 2;
    }
    int64_t next = ctl->next_progress;
    if (ctl->watchdog_ns && ctl->next_watchdog < next)
        next = ctl->next_watchdog;
    return next;
}

static int64_t pump(void *arg, int64_t now)
{
    satin_control *ctl = arg;
    if (stop_due(ctl, now)) {
        satin_loop_stop(&ctl->loop);
        return now;
    }
    int64_t next = housekeeping(ctl, now);
    if (ctl->grid) {
        int64_t g = satin_grid_tick(ctl->grid, satin_now_ns(), ctl->loop.late_ns);
        if (g < next)
            next = g;
        control_complete_collections(ctl);
        if (ctl->next_collect < next)
            next = ctl->next_collect;
    }
    /* The stop's deadlines are checked here, not by timers of their own. */
    if (ctl->stopping && now + STOP_RECHECK_NS < next)
        next = now + STOP_RECHECK_NS;
    /* Last: a send on a socket may take the "look again" signal of its
     * ZMQ_FD, so whatever it holds is read now, after every send above
     * (only the sockets in ctl->look: a socket read until it was empty, and
     * neither written nor bound since, rings its descriptor for new input).
     * What was read may have set new deadlines (an empty steal reply arms
     * a back-off) or owes acknowledgements: then the loop comes straight
     * back, so that `next` is never one computed before it. */
    int more = serve_clients(ctl) | serve_peers(ctl) | serve_security_log(ctl);
    if (look(ctl, LOOK_MONITOR, ctl->mon)) {
        control_on_client_events(ctl);
        more |= look(ctl, LOOK_MONITOR, ctl->mon);
    }
    /* A pause or resume of the client endpoint just now may have taken the
     * client socket's signal: look at it on the way straight back. */
    more |= (ctl->look & LOOK_CLIENTS) != 0;
    return more ? now : next;
}

static int watch_zmq(satin_control *ctl, satin_watch *w, void *sock, satin_watch_fn fn)
{
    int fd;
    size_t len = sizeof fd;
    if (!sock)
        return 0;
    w->arg = ctl;
    if (zmq_getsockopt(sock, ZMQ_FD, &fd, &len) < 0)
        return -1;
    return satin_loop_add(&ctl->loop, w, fd, EPOLLIN, fn);
}

static int watch_fd(satin_control *ctl, satin_watch *w, int fd, satin_watch_fn fn)
{
    w->arg = ctl;
    return fd < 0 ? 0 : satin_loop_add(&ctl->loop, w, fd, EPOLLIN, fn);
}

static int set_up_reactor(satin_control *ctl, int signal_fd)
{
    char err[256];
    if (satin_loop_init(&ctl->loop, NULL, err, sizeof err) < 0) {
        log_error("%s", err);
        return -1;
    }
    if (watch_zmq(ctl, &ctl->client_w, ctl->router, on_client_fd) < 0 ||
        watch_fd(ctl, &ctl->mail_w, ctl->mailbox.fd, on_mail) < 0 ||
        watch_fd(ctl, &ctl->signal_w, signal_fd, on_signal) < 0 ||
        watch_zmq(ctl, &ctl->security_w, satin_security_log_socket(ctl->sec), on_security_fd) < 0 ||
        watch_zmq(ctl, &ctl->monitor_w, ctl->mon, on_monitor_fd) < 0 ||
        (ctl->grid && (watch_zmq(ctl, &ctl->peer_w, satin_grid_socket(ctl->grid), on_peer_fd) < 0 ||
                       watch_fd(ctl, &ctl->hungry_w, satin_grid_hungry_fd(ctl->grid), on_hungry) < 0))) {
        log_error("cannot watch the control thread's sockets: %s", strerror(errno));
        satin_loop_close(&ctl->loop);
        return -1;
    }
    return 0;
}

int satin_control_run(satin_control *ctl, int signal_fd)
{
    if (set_up_reactor(ctl, signal_fd) < 0)
        return 0;
    ctl->look = LOOK_ALL;   /* whatever came before the loop ran */
    ctl->next_progress = satin_now_ns() + PROGRESS_INTERVAL_NS;
    ctl->watchdog_ns = satin_service_watchdog_interval_ns();
    update_service_status(ctl);
    satin_loop_run(&ctl->loop, pump, ctl);
    satin_loop_close(&ctl->loop);
    return ctl->drained;
}

void satin_control_destroy(satin_control **self)
{
    satin_control *ctl = *self;
    if (!ctl)
        return;
    satin_metrics_destroy(&ctl->metrics); /* its thread first: nothing it serves is ours */
    satin_grid_destroy(&ctl->grid);
    if (ctl->mon) {
        zmq_socket_monitor(ctl->router, NULL, 0);
        zmq_close(ctl->mon);
    }
    if (ctl->router)
        zmq_close(ctl->router);
    satin_security_destroy(&ctl->sec);
    if (ctl->zctx)
        satin_security_context_end();
    if (ctl->ipc_path[0])
        unlink(ctl->ipc_path);
    /* Running entries belong to jobs the pool may still touch: only free
     * the finished ones unless everything drained. */
    for (size_t i = 0; i < ctl->njobs; i++)
        if (!ctl->jobs[i]->job || ctl->running_jobs == 0)
            control_entry_free(ctl->jobs[i]);
    free(ctl->jobs);
    free(ctl->grid_queries);
    control_jobs_grid_free(ctl);
    satin_mailbox_destroy(&ctl->mailbox);
    free(ctl);
    *self = NULL;
}
