/*
 * satin_profile.h - one node's profile of a job as text (PROTOCOL.md 14.12,
 * "Profiles"): what its workers and its steal requests did while the job
 * ran, as events, for satin-submit --profile to draw.
 *
 * The text is a kvlist str value (at most 65535 bytes), so that it travels
 * in STATS_REPLY's counters and RESULT's stats without a new field:
 *
 *   [node=ID cluster=C ]w=W s=START e=END[ t=TRUNC]{ DELTA WHAT N}
 *
 * e.g. "w=2 s=1000 e=9000 0b0 0i1 150l0 40a0 10b1".  Times are ns; DELTA is
 * an event's time minus the one before it (the first: minus START).  A
 * decoder refuses anything else, so a bad peer can only lose its profile.
 */
#ifndef SATIN_PROFILE_H
#define SATIN_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* What happened (the letter on the wire). */
enum {
    SATIN_PROFILE_BUSY = 'b',     /* worker N starts running a record */
    SATIN_PROFILE_FREE = 'i',     /* worker N is done with it: idle, or waiting for a steal */
    SATIN_PROFILE_LAN = 'l',      /* steal request N of the node's own goes out, in its cluster */
    SATIN_PROFILE_WAN = 'w',      /* the same to another cluster */
    SATIN_PROFILE_ANSWERED = 'a', /* request N was answered, or withdrawn */
};

/* A worker index is below this; a node has at most so many. */
#define SATIN_PROFILE_MAX_WORKERS 4096
/* A profile's text fits one str. */
#define SATIN_PROFILE_MAX_TEXT 65535
/* No truncation. */
#define SATIN_PROFILE_WHOLE INT64_MIN

typedef struct satin_profile_event {
    int64_t t;
    char what;
    uint32_t n;
} satin_profile_event;

typedef struct satin_profile {
    char node[64];           /* "" when the text names no node */
    int cluster;             /* -1 when it names none */
    int workers;             /* 1..SATIN_PROFILE_MAX_WORKERS */
    int64_t start, end;      /* what the recording covers */
    int64_t truncated;       /* events after this time are missing; SATIN_PROFILE_WHOLE: none */
    satin_profile_event *ev; /* in time order */
    size_t n, cap;
} satin_profile;

void satin_profile_init(satin_profile *p);
void satin_profile_free(satin_profile *p);
/* Appends an event (its time no earlier than the last one's). */
void satin_profile_add(satin_profile *p, int64_t t, char what, uint32_t n);

/* The text, NUL-terminated, into `buf` of `cap` bytes (at most
 * SATIN_PROFILE_MAX_TEXT + 1 are used): events that do not fit are left
 * out and the profile said truncated at the first of them.  Returns the
 * length, or -1 when not even the header fits. */
long satin_profile_encode(const satin_profile *p, char *buf, size_t cap);
/* Parses `text` into `p` (initialised; emptied first).  0, or -1 with the
 * reason in `err`. */
int satin_profile_decode(const char *text, satin_profile *p, char *err, size_t errlen);

#endif
