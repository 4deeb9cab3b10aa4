/*
 * accept_guard.c - satind's own accept() and accept4(), in front of libc's.
 *
 * Why: libzmq 4.3.4's IPC listener (ipc_listener_t::accept) asserts, and so
 * aborts the daemon, when accept fails with EMFILE (this process is out of
 * descriptors), though it takes ENFILE (the system is out of them) as an
 * ordinary failed accept: it reports ZMQ_EVENT_ACCEPT_FAILED and goes on.
 * The two mean the same to a listener.  The control thread pauses the
 * client endpoint before descriptors run out (control_listen.c), but a
 * flood of connections can beat it to the limit.  The executable's
 * definitions take the place of libc's for libzmq too (the linker exports
 * symbols a shared library refers to), so an EMFILE reaches libzmq as
 * ENFILE, and satind answers the ACCEPT_FAILED event by pausing.
 *
 * Linked into satind only (not into libsatincore, the tests or libsatin).
 * The real functions are found with dlsym(RTLD_NEXT) so that whatever
 * stands between (a sanitizer's interceptors) still sees the calls.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef int accept4_fn(int, __SOCKADDR_ARG, socklen_t *__restrict, int);
typedef int accept_fn(int, __SOCKADDR_ARG, socklen_t *__restrict);

static accept4_fn *real_accept4;
static accept_fn *real_accept;
static pthread_once_t found = PTHREAD_ONCE_INIT;

static void find_real(void)
{
    real_accept4 = (accept4_fn *)dlsym(RTLD_NEXT, "accept4");
    real_accept = (accept_fn *)dlsym(RTLD_NEXT, "accept");
}

static int as_enfile(int rc)
{
    if (rc < 0 && errno == EMFILE)
        errno = ENFILE;
    return rc;
}

int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *__restrict len, int flags)
{
    pthread_once(&found, find_real);
    if (real_accept4)
        return as_enfile(real_accept4(fd, addr, len, flags));
    return as_enfile((int)syscall(SYS_accept4, fd, addr.__sockaddr__, len, flags));
}

int accept(int fd, __SOCKADDR_ARG addr, socklen_t *__restrict len)
{
    pthread_once(&found, find_real);
    if (real_accept)
        return as_enfile(real_accept(fd, addr, len));
    return as_enfile((int)syscall(SYS_accept4, fd, addr.__sockaddr__, len, 0));
}
