/* roster.c - slots and memberships (see roster.h). */
#include "roster.h"

#include <stdlib.h>
#include <string.h>

struct satin_roster {
    int self;
    char **names;                  /* [nslots], each its own allocation: pointers stay */
    int nslots, capslots;
    int *table;                    /* [tablesize] slots by name hash, -1 empty (open addressing) */
    size_t tablesize;
    satin_membership **ms;         /* every membership read, oldest first (pointers stay) */
    int nms;
};

static size_t name_hash(const char *id)
{
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a */
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 0x100000001b3ull;
    return (size_t)h;
}

/* The table slot where `id` is, or the empty one where it would go. */
static size_t probe(const satin_roster *r, const char *id)
{
    size_t mask = r->tablesize - 1, i = name_hash(id) & mask;
    while (r->table[i] >= 0 && strcmp(r->names[r->table[i]], id) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Kept at most half full, so that a probe is short: every node of the
 * file (up to 4096) is looked up at start and at every SIGHUP, on the
 * control thread, and slots only grow. */
static void grow_table(satin_roster *r)
{
    free(r->table);
    r->tablesize = r->tablesize ? 2 * r->tablesize : 64;
    r->table = malloc(r->tablesize * sizeof *r->table);
    if (!r->table)
        abort();
    for (size_t i = 0; i < r->tablesize; i++)
        r->table[i] = -1;
    for (int s = 0; s < r->nslots; s++)
        r->table[probe(r, r->names[s])] = s;
}

static int slot_named(const satin_roster *r, const char *id)
{
    return r->table ? r->table[probe(r, id)] : -1;
}

static int add_slot(satin_roster *r, const char *id)
{
    if (r->nslots == r->capslots) {
        r->capslots = r->capslots ? 2 * r->capslots : 16;
        r->names = realloc(r->names, (size_t)r->capslots * sizeof *r->names);
        if (!r->names)
            abort();
    }
    r->names[r->nslots] = strdup(id);
    if (!r->names[r->nslots])
        abort();
    int s = r->nslots++;
    if ((size_t)r->nslots * 2 > r->tablesize)
        grow_table(r);
    else
        r->table[probe(r, id)] = s;
    return s;
}

/* Adds `topo` as the current membership: slots for its new nodes, every
 * slot's current index.  Returns how many slots it added. */
static int adopt(satin_roster *r, satin_topology *topo, int owned)
{
    int before = r->nslots;
    satin_membership *m = calloc(1, sizeof *m);
    if (!m)
        abort();
    m->topo = topo;
    m->owned = owned;
    m->generation = r->nms;
    satin_topology_digest(topo, m->digest);
    m->slot_of = malloc(sizeof *m->slot_of * (size_t)(topo->nnodes ? topo->nnodes : 1));
    if (!m->slot_of)
        abort();
    for (int i = 0; i < topo->nnodes; i++) {
        int s = slot_named(r, topo->nodes[i].id);
        m->slot_of[i] = s >= 0 ? s : add_slot(r, topo->nodes[i].id);
    }
    m->nslots_then = r->nslots;
    m->index_of = malloc(sizeof *m->index_of * (size_t)(r->nslots ? r->nslots : 1));
    if (!m->index_of)
        abort();
    for (int s = 0; s < r->nslots; s++)
        m->index_of[s] = -1;
    for (int i = 0; i < topo->nnodes; i++)
        m->index_of[m->slot_of[i]] = i;
    r->ms = realloc(r->ms, (size_t)(r->nms + 1) * sizeof *r->ms);
    if (!r->ms)
        abort();
    r->ms[r->nms++] = m;
    /* The memberships read before map the slots they knew; nodes they
     * list that were new to us then had slots made then too. */
    return r->nslots - before;
}

satin_roster *satin_roster_new(const satin_topology *topo, int self)
{
    satin_roster *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    /* Not ours: the file read at start is the caller's. */
    adopt(r, (satin_topology *)topo, 0);
    r->self = self;   /* at start the slots are the file's indexes */
    return r;
}

void satin_roster_destroy(satin_roster **self)
{
    satin_roster *r = *self;
    if (!r)
        return;
    for (int s = 0; s < r->nslots; s++)
        free(r->names[s]);
    free(r->names);
    free(r->table);
    for (int i = 0; i < r->nms; i++) {
        free(r->ms[i]->slot_of);
        free(r->ms[i]->index_of);
        if (r->ms[i]->owned)
            satin_topology_destroy(&r->ms[i]->topo);
        free(r->ms[i]);
    }
    free(r->ms);
    free(r);
    *self = NULL;
}

int satin_roster_update(satin_roster *r, satin_topology *topo)
{
    return adopt(r, topo, 1);
}

const satin_membership *satin_roster_current(const satin_roster *r)
{
    return r->ms[r->nms - 1];
}

const satin_topology *satin_roster_topology(const satin_roster *r)
{
    return r->ms[r->nms - 1]->topo;
}

const satin_membership *satin_roster_find(const satin_roster *r, const unsigned char *digest)
{
    /* Newest first: a peer most likely reads what we read. */
    for (int i = r->nms - 1; i >= 0; i--)
        if (memcmp(r->ms[i]->digest, digest, SATIN_TOPOLOGY_DIGEST_SIZE) == 0)
            return r->ms[i];
    return NULL;
}

int satin_membership_index(const satin_membership *m, int slot)
{
    return slot >= 0 && slot < m->nslots_then ? m->index_of[slot] : -1;
}

int satin_roster_nslots(const satin_roster *r)
{
    return r->nslots;
}

int satin_roster_self(const satin_roster *r)
{
    return r->self;
}

const char *satin_roster_name(const satin_roster *r, int slot)
{
    return slot >= 0 && slot < r->nslots ? r->names[slot] : "?";
}

const char *const *satin_roster_names(const satin_roster *r)
{
    return (const char *const *)r->names;
}

int satin_roster_index(const satin_roster *r, int slot)
{
    /* The current file lists every slot made so far: none is newer. */
    return satin_membership_index(satin_roster_current(r), slot);
}

const satin_node_def *satin_roster_node(const satin_roster *r, int slot)
{
    int i = satin_roster_index(r, slot);
    return i >= 0 ? &satin_roster_topology(r)->nodes[i] : NULL;
}

int satin_roster_slot_named(const satin_roster *r, const char *id)
{
    return slot_named(r, id);
}

int satin_roster_slot(const satin_roster *r, int index)
{
    const satin_membership *m = satin_roster_current(r);
    return index >= 0 && index < m->topo->nnodes ? m->slot_of[index] : -1;
}
