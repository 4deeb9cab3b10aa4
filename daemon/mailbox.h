/*
 * mailbox.h - how worker threads hand things to the control thread without
 * touching its sockets: a locked queue plus an eventfd that zmq_poll watches.
 */
#ifndef SATIN_MAILBOX_H
#define SATIN_MAILBOX_H

#include <pthread.h>

/* Embedded in whatever the poster hands over; `deliver` is called on the
 * control thread with the item, so the receiver never guesses its type. */
typedef struct satin_mailbox_item {
    struct satin_mailbox_item *next;
    void (*deliver)(struct satin_mailbox_item *item);
} satin_mailbox_item;

typedef struct satin_mailbox {
    pthread_mutex_t lock;
    satin_mailbox_item *head, *tail;
    int fd;    /* readable while items wait */
} satin_mailbox;

int satin_mailbox_init(satin_mailbox *m);
void satin_mailbox_destroy(satin_mailbox *m);
/* Any thread. */
void satin_mailbox_post(satin_mailbox *m, satin_mailbox_item *item);
/* Control thread: everything posted so far, oldest first (a list). */
satin_mailbox_item *satin_mailbox_drain(satin_mailbox *m);
/* Control thread: delivers everything posted so far, oldest first. */
void satin_mailbox_deliver_all(satin_mailbox *m);

#endif
