/* shared_bytes.c - a reference-counted byte buffer (see shared_bytes.h). */
#include "shared_bytes.h"

#include <stdatomic.h>
#include <stdlib.h>

struct satin_shared_bytes {
    atomic_size_t refs;
    size_t len;
    _Alignas(16) unsigned char data[];
};

satin_shared_bytes *satin_shared_bytes_new(size_t len)
{
    satin_shared_bytes *b = malloc(sizeof *b + (len ? len : 1));
    if (!b)
        abort();
    atomic_init(&b->refs, 1);
    b->len = len;
    return b;
}

unsigned char *satin_shared_bytes_data(satin_shared_bytes *self)
{
    return self->data;
}

size_t satin_shared_bytes_len(const satin_shared_bytes *self)
{
    return self->len;
}

satin_shared_bytes *satin_shared_bytes_ref(satin_shared_bytes *self)
{
    atomic_fetch_add_explicit(&self->refs, 1, memory_order_relaxed);
    return self;
}

void satin_shared_bytes_unref(satin_shared_bytes **self)
{
    satin_shared_bytes *b = *self;
    *self = NULL;
    if (!b)
        return;
    /* Release, then acquire by the last: whoever frees sees every use. */
    if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        free(b);
}

void satin_shared_bytes_release(void *data, void *hint)
{
    (void)data;
    satin_shared_bytes *b = hint;
    satin_shared_bytes_unref(&b);
}
