/* satin_endpoint.c - client endpoint syntax and default. */
#include "satin_endpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void satin_endpoint_default(char *buf, size_t len)
{
    const char *env = getenv("SATIN_SOCKET");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char err[128];
    if (env && *env && satin_endpoint_normalise(env, buf, len, err, sizeof err) == 0)
        return;
    if (xdg && *xdg)
        snprintf(buf, len, "ipc://%s/satin/satind.sock", xdg);
    else if (getuid() == 0)
        snprintf(buf, len, "ipc:///run/satin/satind.sock");
    else
        snprintf(buf, len, "ipc:///tmp/satin-%u/satind.sock", (unsigned)getuid());
}

int satin_endpoint_normalise(const char *text, char *buf, size_t len, char *err,
                             size_t errlen)
{
    int n;
    if (!text || !*text) {
        snprintf(err, errlen, "empty endpoint");
        return -1;
    }
    if (strncmp(text, "ipc://", 6) == 0 || strncmp(text, "tcp://", 6) == 0)
        n = snprintf(buf, len, "%s", text);
    else if (strstr(text, "://")) {
        snprintf(err, errlen, "unsupported endpoint '%s' (use ipc:///path, a path, or tcp://host:port)",
                 text);
        return -1;
    } else
        n = snprintf(buf, len, "ipc://%s", text);
    if (n < 0 || (size_t)n >= len || (strncmp(buf, "ipc://", 6) == 0 && !buf[6])) {
        snprintf(err, errlen, "endpoint '%s' is empty or too long", text);
        return -1;
    }
    return 0;
}

const char *satin_endpoint_ipc_path(const char *endpoint)
{
    return strncmp(endpoint, "ipc://", 6) == 0 ? endpoint + 6 : NULL;
}
