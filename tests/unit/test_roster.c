/*
 * test_roster.c - slots and memberships (daemon/roster.h): a node keeps its
 * slot through every file read, a new node gets the next one, a node that
 * left keeps its slot as no member, and every file read stays readable by
 * its digest, with its indexes' slots both ways.  Then a grid at the
 * loader's limit (4096 nodes) read and re-read, every node at a new
 * index.
 */
#include "../tap.h"
#include "roster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A topology of the nodes named in `ids` (space-separated; a leading
 * "b:" puts a node in cluster B), in that order. */
static satin_topology *parse(const char *ids)
{
    size_t cap = 256 + strlen(ids) * 64;
    char *yaml = malloc(cap), *copy = strdup(ids), err[256];
    size_t n = (size_t)snprintf(yaml, cap, "grid: roster-test\nsecurity: none\nclusters:\n");
    for (int c = 0; c < (strstr(ids, "b:") ? 2 : 1); c++) {
        n += (size_t)snprintf(yaml + n, cap - n, "  - name: %s\n    nodes:\n", c ? "B" : "A");
        int port = 7000;
        strcpy(copy, ids);
        for (char *id = strtok(copy, " "); id; id = strtok(NULL, " "), port++) {
            int in_b = strncmp(id, "b:", 2) == 0;
            if (in_b != c)
                continue;
            n += (size_t)snprintf(yaml + n, cap - n,
                                  "      - {id: %s, endpoint: \"tcp://127.0.0.1:%d\"}\n",
                                  id + (in_b ? 2 : 0), port);
        }
    }
    satin_topology *t = satin_topology_parse("roster.yaml", yaml, n, err, sizeof err);
    if (!t)
        printf("Bail out! %s\n", err);
    free(yaml);
    free(copy);
    return t;
}

static void small(void)
{
    satin_topology *t0 = parse("a0 a1 b:b0 b:b1");
    satin_roster *r = satin_roster_new(t0, 1);
    is_i64(satin_roster_nslots(r), 4, "the file read at start: one slot per node");
    is_i64(satin_roster_self(r), 1, "self is its index at start");
    is_str(satin_roster_name(r, 2), "b0", "slots are the file's indexes at start");
    const satin_membership *m0 = satin_roster_current(r);

    /* a1 leaves, c0 joins in cluster A (before b0, b1: their indexes move). */
    satin_topology *t1 = parse("a0 c0 a1x b:b0 b:b1");
    is_i64(satin_roster_update(r, t1), 2, "a new file with c0 and a1x adds two slots");
    is_i64(satin_roster_nslots(r), 6, "six nodes known since start");
    is_i64(satin_roster_slot_named(r, "c0"), 4, "c0 gets the next slot");
    is_i64(satin_roster_slot_named(r, "a1x"), 5, "a1x the one after");
    is_i64(satin_roster_index(r, 1), -1, "a1 is no member of the new file");
    is_i64(satin_roster_index(r, 2), 3, "b0 keeps slot 2, at index 3 now");
    ok(satin_roster_node(r, 1) == NULL && strcmp(satin_roster_node(r, 2)->id, "b0") == 0,
       "the current file's definitions by slot");
    is_i64(satin_roster_slot(r, 1), 4, "index 1 of the current file is c0's slot");
    is_str(satin_roster_name(r, 1), "a1", "a1's name stays");
    ok(satin_roster_topology(r) == t1, "the new file is the current one");

    ok(satin_roster_find(r, m0->digest) == m0, "the first file is found by its digest");
    ok(m0->slot_of[3] == 3 && satin_membership_index(m0, 3) == 3 &&
           satin_membership_index(m0, 4) == -1,
       "and maps its indexes; it does not list c0");
    const satin_membership *m1 = satin_roster_current(r);
    ok(m1->generation == 1 && satin_membership_index(m1, 2) == 3 &&
           satin_membership_index(m1, 1) == -1,
       "the new one maps b0 to index 3 and lists a1 no more");
    unsigned char other[SATIN_TOPOLOGY_DIGEST_SIZE] = {0};
    ok(satin_roster_find(r, other) == NULL, "a digest never read is unknown");

    /* a1 comes back: its old slot. */
    satin_topology *t2 = parse("a0 a1 b:b0");
    is_i64(satin_roster_update(r, t2), 0, "a node that comes back adds no slot");
    is_i64(satin_roster_index(r, 1), 1, "a1 is a member again, in its old slot");
    is_i64(satin_roster_index(r, 4), -1, "c0 left");
    ok(satin_roster_current(r) != m1 && m1->topo == t1,
       "memberships read before keep their addresses");
    satin_roster_destroy(&r);
    ok(r == NULL, "destroy clears the pointer");
    satin_topology_destroy(&t0);   /* the caller's: the roster took t1 and t2 */
}

static void large(void)
{
    int n = 4095;   /* and one more: the loader's limit */
    size_t cap = (size_t)n * 12 + 1;
    char *ids = malloc(cap);
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(ids + len, cap - len, "%sn%d", i ? " " : "", i);
    satin_topology *t0 = parse(ids);
    if (!t0) {
        free(ids);
        return;
    }
    satin_roster *r = satin_roster_new(t0, 0);
    /* The same nodes and one more, the first moved to the end. */
    len = 0;
    for (int i = 1; i < n; i++)
        len += (size_t)snprintf(ids + len, cap - len, "%sn%d", i > 1 ? " " : "", i);
    snprintf(ids + len, cap - len, " n0 extra");
    satin_topology *t1 = parse(ids);
    free(ids);
    if (!t1) {
        satin_roster_destroy(&r);
        satin_topology_destroy(&t0);
        return;
    }
    is_i64(satin_roster_update(r, t1), 1, "4095 nodes re-read with one more, at the loader's limit");
    int moved = 0;
    for (int s = 1; s < n; s++)
        moved += satin_roster_index(r, s) == s - 1;
    ok(moved == n - 1 && satin_roster_index(r, 0) == n - 1 &&
           satin_roster_slot_named(r, "extra") == n,
       "every node kept its slot at its new index");
    satin_roster_destroy(&r);
    satin_topology_destroy(&t0);
}

int main(void)
{
    small();
    large();
    return done_testing();
}
