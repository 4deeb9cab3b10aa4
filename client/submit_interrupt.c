/* submit_interrupt.c - the notice satin-submit leaves when interrupted. */
#include "submit_interrupt.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOTICE_MAX 1024

/* Two notices: the handler reads the one `current` names while the next is
 * written into the other, so it never sees half a text. */
typedef struct notice {
    char err[NOTICE_MAX], out[NOTICE_MAX];
    size_t err_len, out_len;
} notice;

static notice notices[2];
static volatile sig_atomic_t current = -1;

static void write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            return;
        p += n;
        len -= (size_t)n;
    }
}

static void on_signal(int sig)
{
    int i = current;
    if (i >= 0) {
        write_all(STDOUT_FILENO, notices[i].out, notices[i].out_len);
        write_all(STDERR_FILENO, notices[i].err, notices[i].err_len);
    }
    /* Die of the signal itself, so that a shell sees 128 + sig. */
    signal(sig, SIG_DFL);
    raise(sig);
}

void submit_interrupt_arm(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void submit_interrupt_set(const char *err_text, const char *out_text)
{
    int next = current == 0 ? 1 : 0;
    notice *n = &notices[next];
    n->err_len = (size_t)snprintf(n->err, sizeof n->err, "%s", err_text ? err_text : "");
    n->out_len = (size_t)snprintf(n->out, sizeof n->out, "%s", out_text ? out_text : "");
    if (n->err_len >= sizeof n->err)
        n->err_len = sizeof n->err - 1;
    if (n->out_len >= sizeof n->out)
        n->out_len = sizeof n->out - 1;
    current = next;
}

void submit_interrupt_disarm(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    current = -1;
}
