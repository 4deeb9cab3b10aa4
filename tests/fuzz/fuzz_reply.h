/*
 * fuzz_reply.h - what the targets share: satind answers a rejected input
 * with an ERROR quoting the rejection's text, so that reply must always
 * encode, whatever bytes the text quotes.  abort() makes libFuzzer report it.
 */
#ifndef SATIN_FUZZ_REPLY_H
#define SATIN_FUZZ_REPLY_H

#include "satin_proto.h"

#include <stdlib.h>

static inline void fuzz_error_reply_must_encode(uint64_t request_id, int code, const char *text)
{
    satin_msg *reply = satin_msg_new(SATIN_MSG_ERROR);
    reply->request_id = request_id;
    reply->code = (uint16_t)code;
    satin_msg_set_error(reply, text);
    unsigned char *h, *b;
    size_t hl, bl;
    if (satin_msg_encode(reply, &h, &hl, &b, &bl) < 0)
        abort();
    free(h);
    free(b);
    satin_msg_destroy(&reply);
}

#endif
