/* zframes.c - one whole multipart message off a socket (see zframes.h). */
#include "zframes.h"

#include <errno.h>
#include <string.h>

int satin_zframes_recv(void *sock, zmq_msg_t *frames, int max, int *dropped)
{
    int kept = 0, more = 1;
    *dropped = 0;
    while (more) {
        zmq_msg_t scratch, *m = kept < max ? &frames[kept] : &scratch;
        zmq_msg_init(m);
        /* ZeroMQ delivers a multipart message whole or not at all, so once
         * its first frame is in, the others are too: never blocks. */
        if (zmq_msg_recv(m, sock, ZMQ_DONTWAIT) < 0) {
            int e = errno;
            zmq_msg_close(m);
            errno = e;   /* EAGAIN tells the reader the socket is empty */
            break;
        }
        more = zmq_msg_more(m);
        if (m == &scratch) {
            zmq_msg_close(m);
            (*dropped)++;
        } else {
            kept++;
        }
    }
    return kept;
}

size_t satin_zframes_size(zmq_msg_t *frames, int n)
{
    size_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += zmq_msg_size(&frames[i]);
    return bytes;
}

void satin_zframes_close(zmq_msg_t *frames, int n)
{
    for (int i = 0; i < n; i++)
        zmq_msg_close(&frames[i]);
}

int satin_zmonitor_read(void *monitor, int *event, uint32_t *value)
{
    zmq_msg_t f;
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, monitor, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&f);
        return 0;
    }
    /* Frame 1: a u16 event and a u32 value, in host order (zmq_socket_monitor(3)). */
    uint16_t ev = 0;
    uint32_t val = 0;
    if (zmq_msg_size(&f) >= 6) {
        memcpy(&ev, zmq_msg_data(&f), 2);
        memcpy(&val, (const char *)zmq_msg_data(&f) + 2, 4);
    }
    while (zmq_msg_more(&f)) {
        zmq_msg_close(&f);
        zmq_msg_init(&f);
        if (zmq_msg_recv(&f, monitor, 0) < 0)
            break;
    }
    zmq_msg_close(&f);
    *event = ev;
    *value = val;
    return 1;
}
