/*
 * leaf_wait.h - how an emulated leaf spends its time: it waits instead of
 * computing, so that many emulated processors fit on a few cores.  Shared by
 * the kinds that emulate work (synthetic, replay), so that they wait alike.
 */
#ifndef SATIN_LEAF_WAIT_H
#define SATIN_LEAF_WAIT_H

#include "satin/satin.h"

#include <stdint.h>

/* Waits `us` microseconds without using the CPU (nothing for us <= 0);
 * returns early once the job was cancelled. */
void satin_leaf_wait(int64_t us);

#endif
