/* result.h - the definition behind <satin/satin.h>'s opaque satin_result. */
#ifndef SATIN_RESULT_H
#define SATIN_RESULT_H

#include "satin/satin.h"
#include "satin_kv.h"

#include <stddef.h>

struct satin_result {
    satin_kvlist list;
    /* satin_result_data: the bytes and their type, owned; NULL when none. */
    unsigned char *data;
    size_t data_len;
    char data_type[64];
};

/* An empty result around `list` (taken over; give it back with
 * satin_result_take_list). */
void satin_result_init(satin_result *r, satin_kvlist list);
satin_kvlist satin_result_take_list(satin_result *r);
void satin_result_free_data(satin_result *r);

#endif
