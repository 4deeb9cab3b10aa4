/*
 * shared_bytes.h - a reference-counted byte buffer: one encoding of a peer
 * message that the retransmission queue and ZeroMQ's I/O thread hold at
 * once, instead of a copy each.  The count is atomic: ZeroMQ releases its
 * reference on its own thread when the bytes have left.
 */
#ifndef SATIN_SHARED_BYTES_H
#define SATIN_SHARED_BYTES_H

#include <stddef.h>

typedef struct satin_shared_bytes satin_shared_bytes;

/* `len` bytes, not initialised, with one reference (the caller's). */
satin_shared_bytes *satin_shared_bytes_new(size_t len);
unsigned char *satin_shared_bytes_data(satin_shared_bytes *self);
size_t satin_shared_bytes_len(const satin_shared_bytes *self);
/* One more reference; returns self. */
satin_shared_bytes *satin_shared_bytes_ref(satin_shared_bytes *self);
/* Drops the caller's reference (the last frees the bytes); *self = NULL. */
void satin_shared_bytes_unref(satin_shared_bytes **self);
/* The same as a zmq_free_fn: `hint` is the buffer, `data` ignored. */
void satin_shared_bytes_release(void *data, void *hint);

#endif
