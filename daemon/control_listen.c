/* control_listen.c - the client endpoint: its socket directory, binding it, and
 * pausing it near the open-file limit */
#include "control_internal.h"
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


/* ---- start, run, stop ----------------------------------------------------- */

/* Makes the default socket directory (its parent, /run, /tmp or
 * $XDG_RUNTIME_DIR, must exist): 0700, or 0750 for the group of
 * --socket-group, so that its members can reach the socket.  Nothing else
 * is made: an explicit --socket names a place the operator prepared, and
 * creating directories along any path given (as root) would be a way to
 * plant them anywhere. */
static int make_socket_dir(const char *dir, const char *group)
{
    struct group *gr = group[0] ? getgrnam(group) : NULL;
    if (group[0] && !gr) {
        log_error("--socket-group: no group named '%s'", group);
        return -1;
    }
    mode_t mode = gr ? 0750 : 0700;
    if (mkdir(dir, mode) < 0 && errno != EEXIST) {
        log_error("cannot create the socket directory %s: %s", dir, strerror(errno));
        return -1;
    }
    /* mkdir's mode passed through the umask; the group's access must not. */
    if (chmod(dir, mode) < 0 || (gr && chown(dir, (uid_t)-1, gr->gr_gid) < 0)) {
        log_error("cannot set up directory %s for the socket: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Refuses a socket directory another user could write (they would delete
 * our socket and bind their own daemon in its place: our clients would talk
 * to it), and to take over the socket of a live daemon (libzmq would
 * silently unlink it). */
static int prepare_ipc(const char *path, const char *group)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    char dir[512], err[1024];
    if (strlen(path) >= sizeof sa.sun_path) {
        log_error("socket path %s is too long (at most %zu bytes)", path, sizeof sa.sun_path - 1);
        return -1;
    }
    satin_endpoint_socket_dir(path, dir, sizeof dir);
    int flags = SATIN_DIR_DAEMON | (satin_endpoint_is_default_dir(dir) ? SATIN_DIR_DEFAULT : 0);
    /* Checked before and after making it: what we would create inside
     * someone else's directory is theirs to replace. */
    int rc = satin_endpoint_check_dir(dir, flags, err, sizeof err);
    if (rc == 1 && !(flags & SATIN_DIR_DEFAULT)) {
        log_error("the socket directory %s does not exist (satind makes only its default "
                  "directory; create it, or choose another --socket)", dir);
        return -1;
    }
    if (rc == 1) {
        if (make_socket_dir(dir, group) < 0)
            return -1;
        rc = satin_endpoint_check_dir(dir, flags, err, sizeof err);
    }
    if (rc != 0) {
        log_error("%s", rc < 0 ? err : "the socket directory vanished while being made");
        return -1;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        int live = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
        close(fd);
        if (live) {
            log_error("another daemon is already listening on %s", path);
            return -1;
        }
    }
    return 0;
}

/* Local users of that group may submit; everybody else is kept out by the
 * socket file's mode (0660). */
static int set_socket_group(const char *path, const char *group)
{
    struct group *gr = getgrnam(group);
    if (!gr) {
        log_error("--socket-group: no group named '%s'", group);
        return -1;
    }
    if (chown(path, (uid_t)-1, gr->gr_gid) < 0) {
        log_error("cannot give the socket %s to group %s: %s", path, group, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- the client endpoint and the open-file limit ------------------------------ */

/* Connections the kernel queues for ZeroMQ to accept: a burst that comes in
 * between our look at the descriptors and the unbind is at most this plus
 * what the I/O thread accepts meanwhile, well within the margin below. */
#define CLIENT_BACKLOG 32
#define CLIENT_PAUSE_NS 1000000000LL

static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1;   /* the directory's own descriptor */
}

/* The soft RLIMIT_NOFILE is raised to the hard one (capped: nothing here
 * needs more): systemd's default soft limit of 1024 would otherwise bound
 * the clients of a node whose administrator allowed more.  Then
 * ZMQ_MAX_SOCKETS and the thresholds at which client connections are
 * paused and resumed follow from the limit. */
void control_size_fd_limits(satin_control *ctl, const satin_topology *topo)
{
    struct rlimit rl;
    long limit = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
        if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
            struct rlimit raised = {want, rl.rlim_max};
            if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
                rl.rlim_cur = want;
        }
        limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536 ? 65536 : (long)rl.rlim_cur;
    }
    /* Every ZeroMQ socket holds a descriptor (its mailbox): a few of ours,
     * one per peer, and CZMQ's; more than half the limit would only let
     * sockets starve the connections. */
    long sockets = limit / 2 > 1023 ? 1023 : limit / 2;
    if (sockets < 32)
        sockets = 32;
    satin_security_set_max_sockets(ctl->zctx, (int)sockets);
    long margin = limit / 4 > 32 ? limit / 4 : 32;
    ctl->fd_limit = limit;
    ctl->fd_pause = limit - margin;
    /* Unbinding closes the client connections, so what remains in use
     * after a pause is the daemon's own: a small hysteresis is enough. */
    ctl->fd_resume = ctl->fd_pause - margin / 2;
    /* Peers: a connection each way per node, and the sockets themselves. */
    long peers = topo ? 3L * topo->nnodes : 0;
    long room = ctl->fd_pause - 32 - peers;
    if (room < 64)
        log_warn("the open-file limit (RLIMIT_NOFILE %ld) leaves room for about %ld client "
                 "connections: raise it (LimitNOFILE= in the unit, ulimit -n)",
                 limit, room > 0 ? room : 0);
    else
        log_info("open-file limit %ld: satind stops listening for clients while %ld "
                 "descriptors are in use", limit, ctl->fd_pause);
}

/* Binds the client endpoint (again, after a pause). */
int control_bind_clients(satin_control *ctl)
{
    const satind_options *opt = ctl->opt;
    const char *path = satin_endpoint_ipc_path(opt->endpoint);
    if (path && prepare_ipc(path, opt->socket_group) < 0)
        return -1;
    int backlog = CLIENT_BACKLOG;
    zmq_setsockopt(ctl->router, ZMQ_BACKLOG, &backlog, sizeof backlog);
    /* The socket file: read-write for its owner and group, nothing for others. */
    mode_t old = umask(0117);
    ctl->look |= LOOK_CLIENTS;
    int rc = zmq_bind(ctl->router, opt->endpoint);
    int bind_errno = errno;
    umask(old);
    if (rc < 0) {
        log_error("cannot listen on %s: %s", opt->endpoint, zmq_strerror(bind_errno));
        return -1;
    }
    size_t len = sizeof ctl->bound;
    if (zmq_getsockopt(ctl->router, ZMQ_LAST_ENDPOINT, ctl->bound, &len) < 0)
        snprintf(ctl->bound, sizeof ctl->bound, "%s", opt->endpoint);
    if (path) {
        snprintf(ctl->ipc_path, sizeof ctl->ipc_path, "%s", path);
        chmod(path, 0660);
        if (opt->socket_group[0] && set_socket_group(path, opt->socket_group) < 0)
            return -1;
    }
    ctl->listen_state = CLIENTS_LISTENING;
    ctl->fd_estimate = open_fds();
    return 0;
}

int control_watch_clients(satin_control *ctl)
{
    char ep[64];
    snprintf(ep, sizeof ep, "inproc://satind-clients-%p", (void *)ctl);
    if (zmq_socket_monitor(ctl->router, ep,
                           ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_ACCEPT_FAILED |
                               ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_CLOSED) < 0) {
        log_error("cannot watch the client connections: %s", zmq_strerror(errno));
        return -1;
    }
    ctl->mon = zmq_socket(ctl->zctx, ZMQ_PAIR);
    if (!ctl->mon || zmq_connect(ctl->mon, ep) < 0) {
        log_error("cannot watch the client connections: %s", zmq_strerror(errno));
        return -1;
    }
    return 0;
}

/* Pauses or resumes accepting clients by the descriptors in use.  Paused,
 * the endpoint is unbound: a new client is refused at once (no socket file,
 * a closed port) instead of waiting for an accept that cannot come.
 * ZeroMQ closes the connections accepted through an endpoint along with it,
 * so their clients see the connection lost (their jobs run on): the price
 * of keeping the daemon alive, paid only at the limit.  A pause lasts at
 * least CLIENT_PAUSE_NS, so that a flood of connections does not make the
 * endpoint come and go (and legitimate clients with it) as fast as it can. */
void control_pace_clients(satin_control *ctl, int accept_failed)
{
    long used = open_fds();
    if (used < 0)
        return;
    ctl->fd_estimate = used;
    if (ctl->listen_state == CLIENTS_LISTENING && (used >= ctl->fd_pause || accept_failed)) {
        ctl->look |= LOOK_CLIENTS;
        if (zmq_unbind(ctl->router, ctl->bound) < 0) {
            log_error("cannot stop listening on %s: %s", ctl->bound, zmq_strerror(errno));
            return;
        }
        ctl->listen_state = CLIENTS_CLOSING;
        ctl->paused_until = satin_now_ns() + CLIENT_PAUSE_NS;
        ctl->client_pauses++;
        satin_log_limited(&ctl->fd_log, 10.0, SATIN_LOG_WARN,
                          "%ld of %ld file descriptors in use (RLIMIT_NOFILE): not listening "
                          "for clients for now (ZeroMQ closes the client connections with the "
                          "endpoint); raise the limit (LimitNOFILE= in the unit, ulimit -n)",
                          used, ctl->fd_limit);
    } else if (ctl->listen_state == CLIENTS_PAUSED && used <= ctl->fd_resume &&
               satin_now_ns() >= ctl->paused_until && !ctl->stopping) {
        if (control_bind_clients(ctl) == 0)
            log_info("accepting client connections again (%ld of %ld file descriptors in use)",
                     used, ctl->fd_limit);
    }
}

void control_on_client_events(satin_control *ctl)
{
    int check = 0, failed = 0;
    int ev;
    uint32_t val;
    while (satin_zmonitor_read(ctl->mon, &ev, &val)) {
        if (ev == ZMQ_EVENT_CLOSED && ctl->listen_state == CLIENTS_CLOSING)
            ctl->listen_state = CLIENTS_PAUSED;   /* the listener (and its file) is gone */
        if (ev == ZMQ_EVENT_ACCEPT_FAILED && (val == EMFILE || val == ENFILE))
            failed = 1;
        /* During a flood the events keep coming while we drain them: keep a
         * running estimate (a count of /proc/self/fd per event would fall
         * behind the I/O thread) and stop listening as soon as it reaches
         * the threshold, not once the queue is empty, or the I/O thread
         * accepts past the limit meanwhile (libzmq's IPC accept asserts on
         * EMFILE). */
        if (ev == ZMQ_EVENT_ACCEPTED)
            ctl->fd_estimate++;
        else if (ev == ZMQ_EVENT_DISCONNECTED && ctl->fd_estimate > 0)
            ctl->fd_estimate--;
        if (ctl->listen_state == CLIENTS_LISTENING && ctl->fd_estimate >= ctl->fd_pause)
            control_pace_clients(ctl, 1);
        check = 1;
    }
    if (check)
        control_pace_clients(ctl, failed);
}

