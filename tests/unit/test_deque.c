/* test_deque.c - the Chase-Lev deque alone, then under concurrent thieves. */
#include "../tap.h"
#include "deque.h"

#include <pthread.h>
#include <stdatomic.h>

#define ITEMS 200000
#define THIEVES 3

static satin_deque dq;
static _Atomic int seen[ITEMS + 1];
static _Atomic int owner_done;
static _Atomic long stolen_total;

static void single_threaded(void)
{
    satin_deque d;
    satin_deque_init(&d, 2); /* capacity 4: forces growth */
    ok(satin_deque_take(&d) == NULL, "take on an empty deque gives nothing");
    ok(satin_deque_steal(&d) == NULL, "steal on an empty deque gives nothing");
    static int v[100];
    for (int i = 0; i < 100; i++)
        satin_deque_push(&d, &v[i]);
    is_i64(satin_deque_size(&d), 100, "100 pushed (grew from 4)");
    ok(satin_deque_steal(&d) == &v[0], "steal takes the oldest (tail)");
    ok(satin_deque_take(&d) == &v[99], "take takes the newest (head)");
    ok(satin_deque_take(&d) == &v[98], "take is LIFO");
    ok(satin_deque_steal(&d) == &v[1], "steal is FIFO");
    int64_t head = satin_deque_head(&d);
    satin_deque_push(&d, &v[0]);
    ok(satin_deque_head(&d) == head + 1, "head index moves with a push");
    int left = 0;
    while (satin_deque_take(&d))
        left++;
    is_i64(left, 97, "the rest comes back exactly once");
    ok(satin_deque_take(&d) == NULL && satin_deque_steal(&d) == NULL, "empty again");
    satin_deque_free(&d);
}

static void claim(void *p, const char *who)
{
    long i = (long)(intptr_t)p;
    if (i < 1 || i > ITEMS || atomic_fetch_add(&seen[i], 1) != 0)
        printf("# %s got item %ld twice or out of range\n", who, i);
}

static void *thief(void *arg)
{
    (void)arg;
    long n = 0;
    while (!atomic_load(&owner_done) || satin_deque_size(&dq) > 0) {
        void *p = satin_deque_steal(&dq);
        if (p) {
            claim(p, "thief");
            n++;
        }
    }
    atomic_fetch_add(&stolen_total, n);
    return NULL;
}

static void stress(void)
{
    satin_deque_init(&dq, 4);
    pthread_t t[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&t[i], NULL, thief, NULL);
    long taken = 0;
    /* The owner pushes in bursts and takes some back, as spawn/sync does. */
    for (long i = 1; i <= ITEMS;) {
        for (int k = 0; k < 7 && i <= ITEMS; k++, i++)
            satin_deque_push(&dq, (void *)(intptr_t)i);
        for (int k = 0; k < 3; k++) {
            void *p = satin_deque_take(&dq);
            if (p) {
                claim(p, "owner");
                taken++;
            }
        }
    }
    void *p;
    while ((p = satin_deque_take(&dq))) {
        claim(p, "owner");
        taken++;
    }
    atomic_store(&owner_done, 1);
    for (int i = 0; i < THIEVES; i++)
        pthread_join(t[i], NULL);
    long once = 0;
    for (long i = 1; i <= ITEMS; i++)
        once += atomic_load(&seen[i]) == 1;
    is_i64(once, ITEMS, "every item was obtained exactly once");
    is_i64(taken + atomic_load(&stolen_total), ITEMS, "owner and thieves together got all items");
    diag("owner took %ld, thieves stole %ld", taken, (long)atomic_load(&stolen_total));
    satin_deque_free(&dq);
}

int main(void)
{
    single_threaded();
    stress();
    return done_testing();
}
