/* result.c - what a kind's format() writes: typed key/value pairs, and the
 * data bytes the client gets beside them. */
#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void satin_result_init(satin_result *r, satin_kvlist list)
{
    memset(r, 0, sizeof *r);
    r->list = list;
}

satin_kvlist satin_result_take_list(satin_result *r)
{
    satin_kvlist l = r->list;
    satin_kvlist_init(&r->list);
    return l;
}

void satin_result_free_data(satin_result *r)
{
    free(r->data);
    r->data = NULL;
    r->data_len = 0;
    r->data_type[0] = '\0';
}

void satin_result_i64(satin_result *r, const char *name, int64_t v)
{
    satin_kvlist_add_i64(&r->list, name, v);
}

void satin_result_f64(satin_result *r, const char *name, double v)
{
    satin_kvlist_add_f64(&r->list, name, v);
}

void satin_result_str(satin_result *r, const char *name, const char *v)
{
    satin_kvlist_add_str(&r->list, name, v);
}

void satin_result_data(satin_result *r, const char *type, const void *data, size_t len)
{
    satin_result_free_data(r);
    r->data = malloc(len ? len : 1);
    if (!r->data)
        abort();
    if (len)
        memcpy(r->data, data, len);
    r->data_len = len;
    snprintf(r->data_type, sizeof r->data_type, "%s", type ? type : "");
}
