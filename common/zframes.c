/* zframes.c - one whole multipart message off a socket (see zframes.h). */
#include "zframes.h"

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
            zmq_msg_close(m);
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
