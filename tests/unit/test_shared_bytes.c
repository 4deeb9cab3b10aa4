/*
 * test_shared_bytes.c - the reference-counted buffer: the bytes stay
 * readable while any reference is held, from any thread, and are freed
 * with the last (the sanitizer builds see a leak or a use after free;
 * ThreadSanitizer a release that does not order the readers before the
 * free).
 */
#include "../tap.h"
#include "shared_bytes.h"

#include <pthread.h>
#include <stdint.h>

#define READERS 4
#define LEN 4096

typedef struct reader {
    satin_shared_bytes *b;   /* this thread's reference */
    uint64_t sum;
} reader;

static void *read_then_release(void *arg)
{
    reader *r = arg;
    const unsigned char *p = satin_shared_bytes_data(r->b);
    for (size_t i = 0; i < satin_shared_bytes_len(r->b); i++)
        r->sum += p[i];
    satin_shared_bytes_unref(&r->b);
    return NULL;
}

int main(void)
{
    satin_shared_bytes *b = satin_shared_bytes_new(LEN);
    is_i64((int64_t)satin_shared_bytes_len(b), LEN, "a buffer of the length asked");
    unsigned char *p = satin_shared_bytes_data(b);
    uint64_t want = 0;
    for (size_t i = 0; i < LEN; i++) {
        p[i] = (unsigned char)(i * 7);
        want += p[i];
    }
    ok(((uintptr_t)p & 15) == 0, "its bytes are 16-byte aligned");

    reader r[READERS];
    pthread_t t[READERS];
    for (int i = 0; i < READERS; i++) {
        r[i] = (reader){satin_shared_bytes_ref(b), 0};
        pthread_create(&t[i], NULL, read_then_release, &r[i]);
    }
    satin_shared_bytes_unref(&b);   /* the creator lets go first */
    ok(b == NULL, "unref clears the caller's pointer");
    int all = 1;
    for (int i = 0; i < READERS; i++) {
        pthread_join(t[i], NULL);
        all &= r[i].sum == want && r[i].b == NULL;
    }
    ok(all, "%d threads read every byte after the creator let go, then released theirs",
       READERS);

    /* The ZeroMQ form: data ignored, the buffer as the hint. */
    satin_shared_bytes *z = satin_shared_bytes_new(0);
    satin_shared_bytes_ref(z);
    satin_shared_bytes_release(NULL, z);
    satin_shared_bytes_unref(&z);
    ok(z == NULL, "a zero-length buffer, released as ZeroMQ does, then by its owner");
    satin_shared_bytes_unref(&z);   /* of NULL: nothing (a crash would end the test) */
    return done_testing();
}
