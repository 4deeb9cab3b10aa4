/* peer_kinds.c - the kinds this node shares with each peer (peer_kinds.h). */
#include "peer_kinds.h"
#include "log.h"

#include <stdarg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct peer {
    int heard;                 /* a HELLO came */
    uint64_t sig;              /* of its module list, to see it change */
    char id[64];
    unsigned char *same;       /* [our nmodules]: it has that module, same file */
    char differ[320];          /* for the status, "" when it shares all */
} peer;

struct satin_peer_kinds {
    const satin_registry *reg;
    size_t nmodules;
    unsigned char (*digest)[SATIN_PROTO_DIGEST_SIZE];   /* [nmodules] */
    peer *peers;
    size_t npeers;
};

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A module's digest in bytes (all zero when it was linked in). */
static void digest_bytes(const char *hex, unsigned char out[SATIN_PROTO_DIGEST_SIZE])
{
    memset(out, 0, SATIN_PROTO_DIGEST_SIZE);
    if (strlen(hex) != 2 * SATIN_PROTO_DIGEST_SIZE)
        return;
    for (size_t i = 0; i < SATIN_PROTO_DIGEST_SIZE; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            memset(out, 0, SATIN_PROTO_DIGEST_SIZE);
            return;
        }
        out[i] = (unsigned char)(hi << 4 | lo);
    }
}

satin_peer_kinds *satin_peer_kinds_new(const satin_registry *reg)
{
    satin_peer_kinds *k = calloc(1, sizeof *k);
    if (!k)
        abort();
    k->reg = reg;
    k->nmodules = reg ? satin_registry_nmodules(reg) : 0;
    k->digest = calloc(k->nmodules ? k->nmodules : 1, sizeof *k->digest);
    if (!k->digest)
        abort();
    for (size_t i = 0; i < k->nmodules; i++)
        digest_bytes(satin_registry_module_at(reg, i)->digest, k->digest[i]);
    return k;
}

void satin_peer_kinds_destroy(satin_peer_kinds **self)
{
    satin_peer_kinds *k = *self;
    if (!k)
        return;
    for (size_t i = 0; i < k->npeers; i++)
        free(k->peers[i].same);
    free(k->peers);
    free(k->digest);
    free(k);
    *self = NULL;
}

void satin_peer_kinds_describe(const satin_peer_kinds *self, satin_msg *hello)
{
    for (size_t i = 0; i < self->nmodules; i++) {
        const satin_module_info *mi = satin_registry_module_at(self->reg, i);
        if (satin_msg_add_module(hello, mi->name, mi->version, self->digest[i]) < 0)
            return;
        for (size_t t = 0; t < satin_registry_ntasks(self->reg); t++) {
            const satin_task *task = satin_registry_task_at(self->reg, t);
            if (satin_registry_task_module(self->reg, task) == mi)
                satin_msg_add_module_task(hello, task->name);
        }
    }
}

static peer *peer_at(satin_peer_kinds *k, int slot)
{
    if (slot < 0)
        return NULL;
    if ((size_t)slot >= k->npeers) {
        size_t n = (size_t)slot + 1;
        k->peers = realloc(k->peers, n * sizeof *k->peers);
        if (!k->peers)
            abort();
        memset(k->peers + k->npeers, 0, (n - k->npeers) * sizeof *k->peers);
        k->npeers = n;
    }
    return &k->peers[slot];
}

static const peer *peer_known(const satin_peer_kinds *k, int slot)
{
    return slot >= 0 && (size_t)slot < k->npeers && k->peers[slot].heard ? &k->peers[slot] : NULL;
}

/* FNV-1a over the module list: a change of any name, version, digest or
 * task changes it. */
static uint64_t list_sig(const satin_msg *hello)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
#define MIX(p, n)                                                                               \
    for (size_t z_ = 0; z_ < (n); z_++) {                                                      \
        h ^= ((const unsigned char *)(p))[z_];                                                  \
        h *= UINT64_C(0x100000001b3);                                                           \
    }
    for (size_t i = 0; i < hello->nmodules; i++) {
        const satin_msg_module *m = &hello->modules[i];
        MIX(m->name, strlen(m->name) + 1);
        MIX(m->version, strlen(m->version) + 1);
        MIX(m->digest, sizeof m->digest);
        for (size_t j = 0; j < m->ntasks; j++)
            MIX(m->tasks[j], strlen(m->tasks[j]) + 1);
        MIX("/", 1);
    }
#undef MIX
    return h;
}

/* Appends to buf (NUL-terminated, `len` bytes), cut at the end. */
static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* Our kinds of module i, "fib, uts" (at most what fits). */
static void kinds_of(const satin_peer_kinds *k, size_t i, char *buf, size_t len)
{
    const satin_module_info *mi = satin_registry_module_at(k->reg, i);
    buf[0] = 0;
    for (size_t j = 0; j < satin_registry_nkinds(k->reg); j++) {
        const satin_kind *kind = satin_registry_kind_at(k->reg, j);
        if (satin_registry_kind_module(k->reg, kind) == mi)
            append(buf, len, "%s%s", buf[0] ? ", " : "", kind->name);
    }
}

static void hex8(const unsigned char *d, char out[9])
{
    for (int i = 0; i < 4; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

void satin_peer_kinds_heard(satin_peer_kinds *self, int slot, const char *id,
                            const satin_msg *hello)
{
    peer *p = peer_at(self, slot);
    if (!p)
        return;
    uint64_t sig = list_sig(hello);
    if (p->heard && p->sig == sig)
        return;
    int had_differed = p->heard && p->differ[0];
    p->heard = 1;
    p->sig = sig;
    snprintf(p->id, sizeof p->id, "%s", id);
    free(p->same);
    p->same = calloc(self->nmodules ? self->nmodules : 1, 1);
    if (!p->same)
        abort();
    char line[1024] = "";
    p->differ[0] = 0;
    /* Ours: the same file there, another build, or none. */
    for (size_t i = 0; i < self->nmodules; i++) {
        const satin_module_info *mi = satin_registry_module_at(self->reg, i);
        const satin_msg_module *same_name = NULL;
        for (size_t j = 0; j < hello->nmodules; j++) {
            if (memcmp(hello->modules[j].digest, self->digest[i], SATIN_PROTO_DIGEST_SIZE) == 0)
                p->same[i] = 1;
            if (strcmp(hello->modules[j].name, mi->name) == 0)
                same_name = &hello->modules[j];
        }
        if (p->same[i])
            continue;
        char kinds[256], here[9], there[9];
        kinds_of(self, i, kinds, sizeof kinds);
        hex8(self->digest[i], here);
        if (same_name) {
            hex8(same_name->digest, there);
            append(line, sizeof line,
                   "%sit has another build of module %s (%s, sha256 %s... there; %s, %s... "
                   "here): records of its kinds (%s) do not go between the two",
                   line[0] ? "; " : "", mi->name, same_name->version, there, mi->version, here,
                   kinds);
            append(p->differ, sizeof p->differ, "%sother build of %s", p->differ[0] ? ", " : "",
                   mi->name);
        } else {
            append(line, sizeof line,
                   "%sit lacks module %s %s: records of its kinds (%s) stay off it",
                   line[0] ? "; " : "", mi->name, mi->version, kinds);
            append(p->differ, sizeof p->differ, "%slacks %s %s", p->differ[0] ? ", " : "",
                   mi->name, mi->version);
        }
    }
    /* Theirs that we have under no name and no digest. */
    for (size_t j = 0; j < hello->nmodules; j++) {
        const satin_msg_module *m = &hello->modules[j];
        int known = 0;
        for (size_t i = 0; i < self->nmodules && !known; i++)
            known = memcmp(m->digest, self->digest[i], SATIN_PROTO_DIGEST_SIZE) == 0 ||
                    strcmp(m->name, satin_registry_module_at(self->reg, i)->name) == 0;
        if (known)
            continue;
        char tasks[256] = "";
        for (size_t t = 0; t < m->ntasks; t++)
            append(tasks, sizeof tasks, "%s%s", tasks[0] ? ", " : "", m->tasks[t]);
        append(line, sizeof line,
               "%sit has module %s %s, which this node lacks: records of its tasks (%s) stay "
               "there", line[0] ? "; " : "", m->name, m->version, tasks);
        append(p->differ, sizeof p->differ, "%shas %s %s (not here)", p->differ[0] ? ", " : "",
               m->name, m->version);
    }
    if (line[0])
        log_warn("node %s's kind modules differ from this node's: %s", id, line);
    else if (had_differed)
        log_info("node %s has this node's kind modules again", id);
}

static size_t module_index(const satin_peer_kinds *k, const satin_task *task)
{
    const satin_module_info *mi = satin_registry_task_module(k->reg, task);
    for (size_t i = 0; i < k->nmodules; i++)
        if (satin_registry_module_at(k->reg, i) == mi)
            return i;
    return k->nmodules;
}

int satin_peer_kinds_accepts(const satin_peer_kinds *self, int slot, const satin_task *task)
{
    const peer *p = peer_known(self, slot);
    if (!p)
        return 1;
    size_t i = module_index(self, task);
    return i < self->nmodules && p->same[i];
}

int satin_peer_kinds_refuses(const satin_peer_kinds *self, int slot, const char *task,
                             char *why, size_t whylen)
{
    const satin_task *t = satin_registry_task(self->reg, task);
    if (!t) {
        snprintf(why, whylen, "this node has no task '%s' (no module of it is loaded here)",
                 task);
        return 1;
    }
    const peer *p = peer_known(self, slot);
    size_t i = module_index(self, t);
    if (!p || (i < self->nmodules && p->same[i]))
        return 0;
    const satin_module_info *mi = i < self->nmodules ? satin_registry_module_at(self->reg, i) : NULL;
    snprintf(why, whylen, "this node's build of module %s (task '%s') is not the sender's",
             mi ? mi->name : "?", task);
    return 1;
}

void satin_peer_kinds_modules_text(const satin_peer_kinds *self, char *buf, size_t len)
{
    buf[0] = 0;
    for (size_t i = 0; i < self->nmodules; i++) {
        const satin_module_info *mi = satin_registry_module_at(self->reg, i);
        char d[9];
        hex8(self->digest[i], d);
        append(buf, len, "%s%s %s %s", buf[0] ? ", " : "", mi->name, mi->version, d);
    }
}

void satin_peer_kinds_differ_text(const satin_peer_kinds *self, char *buf, size_t len)
{
    buf[0] = 0;
    for (size_t s = 0; s < self->npeers; s++) {
        const peer *p = &self->peers[s];
        if (p->heard && p->differ[0])
            append(buf, len, "%s%s: %s", buf[0] ? "; " : "", p->id, p->differ);
    }
}
