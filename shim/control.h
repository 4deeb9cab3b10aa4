/*
 * control.h - the control socket: a unix stream socket in the same event
 * loop, one command line in, one reply out (ctlcmd.h has the commands),
 * as many commands per connection as the client likes.
 */
#ifndef WANEM_CONTROL_H
#define WANEM_CONTROL_H

#include "loop.h"
#include "relay.h"
#include "topology.h"

#include <stddef.h>

typedef struct control control;

/* The default path: $XDG_RUNTIME_DIR/satin-wanem.ctl, else
 * /tmp/satin-wanem-UID.ctl. */
void control_default_path(char *buf, size_t len);

/* Listens on `path` (mode 0600).  A stale socket left by a run that died
 * is replaced; a live one (another satin-wanem answers) is an error. */
control *control_new(satin_loop *loop, relay *r, const satin_topology *t, const char *path,
                     char *err, size_t errlen);
/* Closes every client and removes the socket file. */
void control_free(control **c);

#endif
