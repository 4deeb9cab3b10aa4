/* mailbox.c - worker-to-control-thread queue with an eventfd doorbell. */
#include "mailbox.h"

#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

int satin_mailbox_init(satin_mailbox *m)
{
    pthread_mutex_init(&m->lock, NULL);
    m->head = m->tail = NULL;
    m->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return m->fd < 0 ? -1 : 0;
}

void satin_mailbox_destroy(satin_mailbox *m)
{
    if (m->fd >= 0)
        close(m->fd);
    m->fd = -1;
    pthread_mutex_destroy(&m->lock);
}

void satin_mailbox_post(satin_mailbox *m, satin_mailbox_item *item)
{
    item->next = NULL;
    pthread_mutex_lock(&m->lock);
    if (m->tail)
        m->tail->next = item;
    else
        m->head = item;
    m->tail = item;
    pthread_mutex_unlock(&m->lock);
    uint64_t one = 1;
    /* EAGAIN only when the counter is saturated: the bell is ringing anyway. */
    if (write(m->fd, &one, sizeof one) < 0) {
    }
}

satin_mailbox_item *satin_mailbox_drain(satin_mailbox *m)
{
    uint64_t n;
    if (read(m->fd, &n, sizeof n) < 0) {
        /* Nothing rang: fine, the queue tells. */
    }
    pthread_mutex_lock(&m->lock);
    satin_mailbox_item *items = m->head;
    m->head = m->tail = NULL;
    pthread_mutex_unlock(&m->lock);
    return items;
}

void satin_mailbox_deliver_all(satin_mailbox *m)
{
    satin_mailbox_item *it = satin_mailbox_drain(m);
    while (it) {
        /* The handler may free the item. */
        satin_mailbox_item *next = it->next;
        it->deliver(it);
        it = next;
    }
}
