/*
 * zframes.h - reading one whole ZeroMQ multipart message without blocking,
 * for every socket that takes messages of a fixed number of frames: the
 * daemon's peer and client ROUTERs and libsatin's DEALER.  A message with
 * more frames than the reader expects must still leave the socket whole,
 * or its tail would be read as the next message.
 */
#ifndef SATIN_ZFRAMES_H
#define SATIN_ZFRAMES_H

#include <stddef.h>
#include <stdint.h>
#include <zmq.h>

/* Receives the message waiting on `sock`: its first `max` frames into
 * frames[0..] (initialised here), the rest read and discarded.  Returns
 * the frames kept (0: no message waiting, errno EAGAIN if ZeroMQ said so)
 * and sets *dropped to the number discarded, so a message had
 * `kept + *dropped` frames in all. */
int satin_zframes_recv(void *sock, zmq_msg_t *frames, int max, int *dropped);
/* The bytes of frames[0..n-1]. */
size_t satin_zframes_size(zmq_msg_t *frames, int n);
void satin_zframes_close(zmq_msg_t *frames, int n);

/* The next event of a socket monitor (zmq_socket_monitor's PAIR): 1 with
 * its event and value, 0 when none is waiting.  The endpoint frame that
 * follows is read and dropped. */
int satin_zmonitor_read(void *monitor, int *event, uint32_t *value);

#endif
