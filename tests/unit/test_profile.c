/* test_profile.c - a node's profile as text (proto/satin_profile.h): round
 * trips, truncation to a size, and every malformed text refused. */
#include "satin_profile.h"
#include "../tap.h"

#include <stdlib.h>
#include <string.h>

static void test_roundtrip(void)
{
    satin_profile p, d;
    satin_profile_init(&p);
    satin_profile_init(&d);
    strcpy(p.node, "b1");
    p.cluster = 1;
    p.workers = 2;
    p.start = 1000;
    p.end = 9000;
    satin_profile_add(&p, 1000, SATIN_PROFILE_BUSY, 0);
    satin_profile_add(&p, 1000, SATIN_PROFILE_FREE, 1);
    satin_profile_add(&p, 1150, SATIN_PROFILE_WAN, 7);
    satin_profile_add(&p, 1190, SATIN_PROFILE_ANSWERED, 7);
    satin_profile_add(&p, 1200, SATIN_PROFILE_BUSY, 1);
    satin_profile_add(&p, 9000, SATIN_PROFILE_LAN, 4294967295u);
    char buf[1024], err[128];
    long n = satin_profile_encode(&p, buf, sizeof buf);
    is_str(buf, "node=b1 cluster=1 w=2 s=1000 e=9000 0b0 0i1 150w7 40a7 10b1 7800l4294967295",
           "the text of a profile");
    is_i64(n, (int64_t)strlen(buf), "its length");
    ok(satin_profile_decode(buf, &d, err, sizeof err) == 0, "decoded");
    int same = d.n == p.n && d.workers == 2 && d.start == 1000 && d.end == 9000 &&
               d.cluster == 1 && strcmp(d.node, "b1") == 0 && d.truncated == SATIN_PROFILE_WHOLE;
    for (size_t i = 0; same && i < p.n; i++)
        same = d.ev[i].t == p.ev[i].t && d.ev[i].what == p.ev[i].what && d.ev[i].n == p.ev[i].n;
    ok(same, "the same profile back");

    /* without a node, with negative times (before the job's start) */
    satin_profile_free(&p);
    p.workers = 1;
    p.start = -50;
    p.end = 20;
    satin_profile_add(&p, -50, SATIN_PROFILE_FREE, 0);
    satin_profile_add(&p, 0, SATIN_PROFILE_BUSY, 0);
    satin_profile_encode(&p, buf, sizeof buf);
    is_str(buf, "w=1 s=-50 e=20 0i0 50b0", "no node, negative start");
    ok(satin_profile_decode(buf, &d, err, sizeof err) == 0 && d.n == 2 && d.ev[1].t == 0 &&
       d.node[0] == 0 && d.cluster == -1, "decoded again");

    /* too long: the events that do not fit go, and the profile says when */
    satin_profile_free(&p);
    p.workers = 1;
    p.start = 0;
    p.end = 1000000;
    for (int i = 0; i < 100000; i++)
        satin_profile_add(&p, i * 10, i % 2 ? SATIN_PROFILE_FREE : SATIN_PROFILE_BUSY, 0);
    char *big = malloc(SATIN_PROFILE_MAX_TEXT + 100);
    n = satin_profile_encode(&p, big, SATIN_PROFILE_MAX_TEXT + 100);
    ok(n > 60000 && n <= SATIN_PROFILE_MAX_TEXT, "a long profile fits one str (%ld bytes)", n);
    ok(satin_profile_decode(big, &d, err, sizeof err) == 0, "and decodes: %s", err);
    ok(d.truncated != SATIN_PROFILE_WHOLE && d.n > 1000 && d.n < 100000 &&
       d.truncated == p.ev[d.n].t && d.ev[d.n - 1].t < d.truncated,
       "truncated at the first event left out (%zu kept, t=%lld)", d.n,
       (long long)d.truncated);
    /* an encoding with a truncation already keeps no event after it */
    p.truncated = 55;
    satin_profile_encode(&p, big, 1000);
    ok(satin_profile_decode(big, &d, err, sizeof err) == 0 && d.truncated == 55 && d.n == 6,
       "a truncation given keeps the events up to it: %s", big);
    ok(satin_profile_encode(&p, big, 20) == -1, "no room for the header: -1");
    /* a text of the longest length, whole, encodes again whole */
    char *whole = malloc(SATIN_PROFILE_MAX_TEXT + 1), *again = malloc(SATIN_PROFILE_MAX_TEXT + 1);
    int len = snprintf(whole, SATIN_PROFILE_MAX_TEXT + 1, "w=1 s=0 e=%lld", (long long)INT64_MAX);
    while (len + 8 <= SATIN_PROFILE_MAX_TEXT)
        len += snprintf(whole + len, 9, " 12345b0");
    if (len < SATIN_PROFILE_MAX_TEXT) {
        /* the last event longer by what is left */
        int r = SATIN_PROFILE_MAX_TEXT - len;
        len -= 8;
        whole[len++] = ' ';
        for (int k = 0; k < 5 + r; k++)
            whole[len++] = '1';
        len += snprintf(whole + len, 3, "b0");
    }
    ok(len == SATIN_PROFILE_MAX_TEXT && satin_profile_decode(whole, &d, err, sizeof err) == 0,
       "a text of %d bytes decodes: %s", len, err);
    n = satin_profile_encode(&d, again, SATIN_PROFILE_MAX_TEXT + 1);
    ok(n == len && strcmp(again, whole) == 0, "and encodes again whole, to the same text");
    free(whole);
    free(again);
    free(big);
    satin_profile_free(&p);
    satin_profile_free(&d);
}

static void test_malformed(void)
{
    static const char *const bad[] = {
        "",
        "w=0 s=0 e=1",
        "w=4097 s=0 e=1",
        "w=2 s=5 e=1",
        "w=2 e=1 s=0",
        "w=2 s=0",
        "w=2 s=0 e=10 t=11",
        "w=2 s=0 e=10 t=5 6b0",
        "w=2 s=0 e=10 0b2",
        "w=2 s=0 e=10 0x0",
        "w=2 s=0 e=10 11b0",
        "w=2 s=0 e=10 5b0 6b0",
        "w=2 s=0 e=10 -1b0",
        "w=2 s=0 e=10 0b",
        "w=2 s=0 e=10 0b0x",
        "w=2 s=0 e=10 0l4294967296",
        "w=2 s=0 e=99999999999999999999",
        "w=2 s=0 e=10 99999999999999999999b0",
        "node= cluster=0 w=1 s=0 e=1",
        "node=a,b cluster=0 w=1 s=0 e=1",
        "node=a cluster=65536 w=1 s=0 e=1",
        "node=a w=1 s=0 e=1",
        "w=1  s=0 e=1",
        "w=1 s=0 e=1  0b0",
        "w=1 s=0 e=1 0b0 ",
    };
    satin_profile d;
    satin_profile_init(&d);
    char err[128];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ok(satin_profile_decode(bad[i], &d, err, sizeof err) == -1 && err[0],
           "refused: '%s' (%s)", bad[i], err);
    }
    /* random bytes never crash the decoder, and what it takes is sane */
    unsigned seed = 7;
    int sane = 1;
    for (int i = 0; i < 20000; i++) {
        char s[40];
        int len = (int)(rand_r(&seed) % 39);
        static const char alphabet[] = "w=se t0123456789-bilwa node,clusr";
        for (int k = 0; k < len; k++)
            s[k] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
        s[len] = 0;
        if (satin_profile_decode(s, &d, err, sizeof err) == 0)
            for (size_t k = 0; k < d.n; k++)
                sane &= d.ev[k].t >= d.start && d.ev[k].t <= d.end &&
                        (k == 0 || d.ev[k].t >= d.ev[k - 1].t);
    }
    ok(sane, "random texts: no crash, every accepted event in order within s..e");
    satin_profile_free(&d);
}

int main(void)
{
    test_roundtrip();
    test_malformed();
    return done_testing();
}
