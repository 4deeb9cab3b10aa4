/*
 * ctlcmd.h - the control commands, one text line each:
 *
 *   stats [A B]          per directed link: parameters and counters
 *   partition A B        cut A -> B and B -> A (held bytes stay held)
 *   restore [A B]        undo a partition (all of them without names)
 *   set A B latency=MS jitter=MS bandwidth=KBPS   (any of them) the link A -> B, at once
 *   help
 *
 * The reply is zero or more lines of data, then one last line that starts
 * with "ok" or "error: ".
 */
#ifndef WANEM_CTLCMD_H
#define WANEM_CTLCMD_H

#include "relay.h"
#include "strbuf.h"
#include "topology.h"

/* Runs one command line (without its newline); appends the reply. */
void ctlcmd_run(relay *r, const satin_topology *t, const char *line, strbuf *out);

#endif
