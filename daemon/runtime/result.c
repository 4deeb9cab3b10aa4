/* result.c - what a kind's format() writes: typed key/value pairs. */
#include "result.h"

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
