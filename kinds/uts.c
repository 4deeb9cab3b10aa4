/*
 * uts.c - the Unbalanced Tree Search job kind (shared/UTS.md): counts the
 * nodes, leaves and depth of a SHA-1 defined tree.  The generators live in
 * uts_tree.c; this file is the job around them.
 *
 * How a job walks its part of the tree, and why:
 *
 * - Tree depth must never become C recursion depth: a binomial tree can be
 *   thousands of levels deep (T3L: 17,844) and a q close to 1 with m = 1 is
 *   a chain of any depth.  So a job does not spawn one child per tree node,
 *   as fib does per call.  It walks its nodes depth-first with an explicit
 *   stack of fixed size (UTS_STACK_CAP entries, on the C stack).  Only
 *   interior nodes are pushed; leaves are counted as they are generated.
 *
 * - Parallelism comes from chunks, as in the UPC UTS paper (shared/seeds/
 *   001_*.txt, section 2.1): every UTS_SPAWN_EVERY generated nodes, if the
 *   stack holds at least two nodes, some of its oldest entries (the
 *   shallowest, whose subtrees are the largest in expectation) are moved
 *   into the argument of a child job and spawned: at most `chunk` of them
 *   and at most half the stack.  Spawned records wait at the head of this
 *   worker's deque; idle workers (and later remote nodes) steal from the
 *   tail, i.e. the oldest chunks.  When the stack is full a chunk is
 *   spawned at once: that bounds the stack without bounding the tree.
 *
 * - A chunk job's argument carries the generator parameters and its nodes
 *   (20-byte id + depth each) by value, so a job is a pure function of its
 *   argument: it returns (nodes, leaves, max depth) of the subtrees below its
 *   nodes, and the parent adds its children's results after satin_sync().
 *   The sum is the same under every schedule.
 *
 * - Nesting.  A chunk nobody stole runs inside its parent's satin_sync(),
 *   one C frame (~17 KiB) deeper, and may do the same to its own chunks.
 *   Handing over "the n oldest entries" made that chain long: in a
 *   geometric tree the few bottom entries hold most of the remaining work,
 *   so each generation passed nearly everything on to the next and peeled
 *   off only a few thousand nodes itself (T1, depth 10, nested 241 frames
 *   deep, and the count grew with the tree's size).  So a chunk takes every
 *   other one of the 2n oldest entries: parent and child each keep about
 *   half of the shallow work, the work per generation halves, and nesting
 *   grows like log(size) (measured: 16 for T1, 30 for T1L, 34 for seed T3
 *   and T3; 250 for T3L, whose 17,844 levels fill the stack again and again:
 *   ~4 MiB of a worker's 256 MiB stack).  A chain (m = 1) never has two
 *   entries on its stack and runs in one frame at any depth.  Nesting grows
 *   like log(size) only while jobs finish their subtrees: on a tree that is
 *   in effect endless (b=4, d=100000) every job syncs its 64 pending chunks
 *   long before its subtree ends, so each sync nests one more frame until
 *   the worker stack runs out (~15,000 frames of 256 MiB); the runtime's
 *   guard then fails the job with a clear error rather than crashing, and
 *   the worker gives the stack pages back when it is idle again (pool.c).
 *
 * A job keeps at most UTS_MAX_PENDING children outstanding; beyond that it
 * syncs early, so that neither its result slots nor the worker's record
 * arena grow with the size of its subtree.
 */
#include "apps.h"
#include "kind_shared.h"
#include "uts_tree.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

/* Explicit DFS stack entries per job (28 bytes each). */
#define UTS_STACK_CAP 256
/* Default nodes per spawned chunk.  The UPC paper found about 20 best on a
 * shared-memory machine and about 100 where a steal costs a network round
 * trip.  Measured here on 2 workers: chunk=1 loses 20-25% on seed T3 and T3
 * (hundreds of steals of near-empty chunks), 16 and up all run at ~99% of
 * twice the 1-worker rate.  32 leaves a margin for steals that cross a WAN
 * link later: 768 bytes of nodes, one small message, and since the stack
 * only holds interior nodes every one of them roots at least m+1 nodes. */
#define UTS_CHUNK_DEFAULT 32
#define UTS_CHUNK_DEFAULT_S "32"
#define UTS_CHUNK_MAX (UTS_STACK_CAP / 2)
/* Generated nodes between two looks at the stack (~200 us at 20 M nodes/s):
 * rare enough that spawning costs little (one worker runs seed T3, ~1000
 * spawns, within 1.5% of the plain sequential loop), often enough that
 * thieves find work. */
#define UTS_SPAWN_EVERY 4096
#define UTS_MAX_PENDING 64

enum { UTS_ARG_ROOT = 1 };   /* the nodes were not counted yet (the root) */

/* The argument of every uts invocation; `nodes` uts_node follow it. */
typedef struct uts_arg {
    uts_params params;
    uint32_t chunk;
    uint32_t flags;
    uint32_t nodes;
    uint32_t reserved;
} uts_arg;

int satin_uts_arg_read(const void *arg, size_t len, uts_params *p, uts_node *node)
{
    uts_arg head;
    char msg[200];
    if (len != sizeof head + sizeof *node)
        return -1;
    memcpy(&head, arg, sizeof head);
    if (head.nodes != 1 || uts_params_check(&head.params, msg, sizeof msg) < 0)
        return -1;
    *p = head.params;
    memcpy(node, (const unsigned char *)arg + sizeof head, sizeof *node);
    return 0;
}

size_t satin_uts_arg_write(const uts_params *p, const uts_node *node, int root, void *out,
                           size_t cap)
{
    uts_arg head = {*p, UTS_CHUNK_DEFAULT, root ? UTS_ARG_ROOT : 0, 1, 0};
    if (cap < sizeof head + sizeof *node)
        return 0;
    memcpy(out, &head, sizeof head);
    memcpy((unsigned char *)out + sizeof head, node, sizeof *node);
    return sizeof head + sizeof *node;
}

/* The result of every uts invocation. */
typedef struct uts_result {
    int64_t nodes, leaves, depth;
} uts_result;

/* ---- the job ------------------------------------------------------------- */

static void add_result(uts_result *sum, const uts_result *r)
{
    sum->nodes += r->nodes;
    sum->leaves += r->leaves;
    if (r->depth > sum->depth)
        sum->depth = r->depth;
}

/* Every uts invocation is one task: its argument is a header and 1..chunk
 * nodes, a length only the header gives (a bytes task). */
static int uts_check(const void *arg, size_t len, satin_err *err);
SATIN_BYTES_TASK(uts, uts_check);

/* Moves n of the 2n oldest stack entries, every other one, into a new child
 * job (see the top of the file for why not the n oldest). */
static void spawn_chunk(SATIN_HELPER_FRAME, const uts_arg *head, uts_walk *w, size_t n,
                        uts_result *slot)
{
    unsigned char buf[sizeof(uts_arg) + UTS_CHUNK_MAX * sizeof(uts_node)];
    uts_arg a = *head;
    a.flags = 0;
    a.nodes = (uint32_t)n;
    memcpy(buf, &a, sizeof a);
    for (size_t i = 0; i < n; i++) {
        const uts_slot *s = &w->stack[2 * i];
        uts_node node;
        memcpy(node.id, s->id, UTS_ID_BYTES);
        node.depth = s->depth;
        memcpy(buf + sizeof a + i * sizeof node, &node, sizeof node);
        w->stack[i] = w->stack[2 * i + 1];   /* keep the odd ones, in order */
    }
    memmove(w->stack + n, w->stack + 2 * n, (w->sp - 2 * n) * sizeof *w->stack);
    w->sp -= n;
    memset(slot, 0, sizeof *slot);
    satin_spawn_bytes(uts, buf, sizeof a + n * sizeof(uts_node), slot, sizeof *slot);
}

/* How many nodes to give away after a walk stopped with `st`. */
static size_t chunk_size(uts_walk_status st, const uts_walk *w, size_t chunk)
{
    if (st == UTS_WALK_FULL)
        return chunk;              /* chunk <= UTS_STACK_CAP / 2 */
    size_t half = w->sp / 2;       /* keep at least half of what we have */
    return half < chunk ? half : chunk;
}

/* A record of another node passed uts_check; this node's own spawns and
 * roots are held to the same shape here, once per chunk (cheap beside the
 * thousands of nodes a chunk generates). */
static void uts(SATIN_FRAME, const void *argp, size_t len)
{
    uts_arg head;
    if (len < sizeof head) {
        satin_fail("uts: argument of %zu bytes, expected at least %zu", len, sizeof head);
        return;
    }
    memcpy(&head, argp, sizeof head);
    if (head.nodes > UTS_STACK_CAP || len != sizeof head + head.nodes * sizeof(uts_node) ||
        head.chunk < 1 || head.chunk > UTS_CHUNK_MAX) {
        satin_fail("uts: malformed argument (%zu bytes, %u nodes, chunk %u)", len,
                   (unsigned)head.nodes, (unsigned)head.chunk);
        return;
    }
    char msg[200];
    if (uts_params_check(&head.params, msg, sizeof msg) < 0) {
        satin_fail("%s", msg);
        return;
    }
    uts_tree tree;
    uts_tree_init(&tree, &head.params);
    uts_slot stack[UTS_STACK_CAP];
    uts_walk w;
    uts_walk_init(&w, &tree, stack, UTS_STACK_CAP);
    const unsigned char *nodes = (const unsigned char *)argp + sizeof head;
    for (uint32_t i = 0; i < head.nodes; i++) {
        uts_node node;
        memcpy(&node, nodes + i * sizeof node, sizeof node);
        uts_walk_add(&w, &node, head.flags & UTS_ARG_ROOT);   /* fits: nodes <= cap */
    }

    /* Hashes, not nodes, between two looks: at g=10^6 a node is 10^6 of
     * them, and 4096 nodes would keep a cancelled job (and the thieves)
     * waiting for most of an hour; now for one node at most. */
    uint64_t every = UTS_SPAWN_EVERY / tree.p.granularity;   /* >= 1 in a tree */
    if (every == 0)
        every = 1;
    uts_result kids[UTS_MAX_PENDING], sum = {0, 0, 0};
    size_t pending = 0;
    for (;;) {
        uts_walk_status st = uts_walk_run(&w, every);
        if (st == UTS_WALK_DONE)
            break;
        if (st == UTS_WALK_TOO_DEEP) {
            satin_fail("uts: the tree is deeper than %u levels", (unsigned)UINT32_MAX);
            break;
        }
        if (satin_cancelled())
            break;
        size_t n = chunk_size(st, &w, head.chunk);
        if (n == 0)
            continue;
        if (pending == UTS_MAX_PENDING) {
            satin_sync();
            for (size_t i = 0; i < pending; i++)
                add_result(&sum, &kids[i]);
            pending = 0;
        }
        spawn_chunk(SATIN_TO_HELPER, &head, &w, n, &kids[pending++]);
    }
    /* Always sync, even when failing: the children write into `kids`. */
    satin_sync();
    for (size_t i = 0; i < pending; i++)
        add_result(&sum, &kids[i]);
    uts_result mine = {(int64_t)w.counts.nodes, (int64_t)w.counts.leaves,
                       (int64_t)w.counts.max_depth};
    add_result(&sum, &mine);
    satin_return(&sum, sizeof sum);
}

/* ---- parameters ---------------------------------------------------------- */

typedef struct uts_preset {
    const char *name;
    int gen;
    /* 2003: root (last bytes, big-endian), n_r, q, m */
    uint32_t root_low;
    uint32_t root_children;
    /* std: t, a, d, b, r (q and m below) */
    int type, shape, gen_mx;
    double b0;
    uint32_t seed;
    double q;
    uint32_t m;
} uts_preset;

/* UTS.md's tables.  The standard trees use -q 15/64 and -m 4 unless given. */
static const uts_preset uts_presets[] = {
    {"seed-T1", UTS_GEN_2003, 0x000, 3200, 0, 0, 0, 0, 0, 0.234375, 4},
    {"seed-T2", UTS_GEN_2003, 0x101, 3200, 0, 0, 0, 0, 0, 0.234375, 4},
    {"seed-T3", UTS_GEN_2003, 0x000, 3200, 0, 0, 0, 0, 0, 0.124999, 8},
    {"T1", UTS_GEN_STD, 0, 0, UTS_GEO, UTS_FIXED, 10, 4, 19, 0.234375, 4},
    {"T2", UTS_GEN_STD, 0, 0, UTS_GEO, UTS_CYCLIC, 16, 6, 502, 0.234375, 4},
    {"T3", UTS_GEN_STD, 0, 0, UTS_BIN, UTS_LINEAR, 6, 2000, 42, 0.124875, 8},
    {"T4", UTS_GEN_STD, 0, 0, UTS_HYBRID, UTS_LINEAR, 16, 6, 1, 0.234375, 4},
    {"T5", UTS_GEN_STD, 0, 0, UTS_GEO, UTS_LINEAR, 20, 4, 34, 0.234375, 4},
    {"T1L", UTS_GEN_STD, 0, 0, UTS_GEO, UTS_FIXED, 13, 4, 29, 0.234375, 4},
    {"T2L", UTS_GEN_STD, 0, 0, UTS_GEO, UTS_CYCLIC, 23, 7, 220, 0.234375, 4},
    {"T3L", UTS_GEN_STD, 0, 0, UTS_BIN, UTS_LINEAR, 6, 2000, 7, 0.200014, 5},
};
#define UTS_NPRESETS (sizeof uts_presets / sizeof uts_presets[0])

/* Parameters that only one generator has (q and m belong to both). */
static const char *const uts_only_2003[] = {"root", "children", NULL};
static const char *const uts_only_std[] = {"t", "b", "r", "a", "d", "f", "g", NULL};

/* The defaults of a generator: the standard release's for std (-t 1 -b 4
 * -r 0 -m 4 -q 15/64 -d 6 -a 0 -f 0.5 -g 1); seed-T1's for 2003. */
static void uts_defaults(uts_params *p, int gen)
{
    memset(p, 0, sizeof *p);
    p->gen = gen;
    p->q = 0.234375;
    p->m = 4;
    p->granularity = 1;
    if (gen == UTS_GEN_2003) {
        p->root_children = 3200;
    } else {
        p->type = UTS_GEO;
        p->shape = UTS_LINEAR;
        p->gen_mx = 6;
        p->b0 = 4.0;
        p->seed = 0;
        p->shift_depth = 0.5;
    }
}

static void uts_apply_preset(uts_params *p, const uts_preset *t)
{
    uts_defaults(p, t->gen);
    p->q = t->q;
    p->m = t->m;
    if (t->gen == UTS_GEN_2003) {
        for (int i = 0; i < 4; i++)
            p->root_id[UTS_ID_BYTES - 1 - i] = (uint8_t)(t->root_low >> (8 * i));
        p->root_children = t->root_children;
    } else {
        p->type = t->type;
        p->shape = t->shape;
        p->gen_mx = t->gen_mx;
        p->b0 = t->b0;
        p->seed = t->seed;
    }
}

static int uts_find_preset(const char *name, uts_params *p, satin_err *err)
{
    for (size_t i = 0; i < UTS_NPRESETS; i++)
        if (strcmp(uts_presets[i].name, name) == 0) {
            uts_apply_preset(p, &uts_presets[i]);
            return 0;
        }
    char names[160] = "";
    size_t off = 0;
    for (size_t i = 0; i < UTS_NPRESETS && off < sizeof names; i++)
        off += (size_t)snprintf(names + off, sizeof names - off, "%s%s", i ? ", " : "",
                                uts_presets[i].name);
    return satin_err_set(err, "uts: unknown tree '%s' (valid: %s)", name, names);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* root=HEX: up to 40 hex digits, optionally 0x-prefixed, left-padded. */
static int uts_parse_root(const char *s, uint8_t id[UTS_ID_BYTES], satin_err *err)
{
    const char *digits = s;
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
        digits += 2;
    size_t n = strlen(digits);
    if (n == 0 || n > 2 * UTS_ID_BYTES)
        return satin_err_set(err, "uts: root=%s must be 1 to 40 hex digits", s);
    memset(id, 0, UTS_ID_BYTES);
    for (size_t i = 0; i < n; i++) {
        int v = hex_digit(digits[n - 1 - i]);
        if (v < 0)
            return satin_err_set(err, "uts: root=%s is not hexadecimal", s);
        id[UTS_ID_BYTES - 1 - i / 2] |= (uint8_t)(v << (4 * (i % 2)));
    }
    return 0;
}

/* Reads an integer parameter if given; 0 when absent or fine, -1 on error. */
static int get_int(const satin_params *sp, const char *name, int64_t min, int64_t max,
                   int64_t *v, satin_err *err)
{
    return satin_param_i64(sp, name, min, max, v, err) < 0 ? -1 : 0;
}

static int uts_parse_2003(const satin_params *sp, uts_params *p, satin_err *err)
{
    const char *root = NULL;
    if (satin_param_str(sp, "root", &root, err) == 0 &&
        uts_parse_root(root, p->root_id, err) < 0)
        return -1;
    int64_t n = p->root_children, m = p->m;
    if (get_int(sp, "children", 0, INT32_MAX, &n, err) < 0 ||
        get_int(sp, "m", 1, UTS_M_MAX_2003, &m, err) < 0)
        return -1;
    p->root_children = (uint32_t)n;
    p->m = (uint32_t)m;
    return 0;
}

static int uts_parse_std(const satin_params *sp, uts_params *p, satin_err *err)
{
    int64_t t = p->type, a = p->shape, d = p->gen_mx, r = p->seed, m = p->m,
            g = p->granularity;
    if (get_int(sp, "t", 0, 3, &t, err) < 0 || get_int(sp, "a", 0, 3, &a, err) < 0 ||
        get_int(sp, "d", 1, UTS_D_MAX, &d, err) < 0 ||
        get_int(sp, "r", 0, UINT32_MAX, &r, err) < 0 ||
        get_int(sp, "m", 1, UTS_M_MAX_STD, &m, err) < 0 ||
        get_int(sp, "g", 1, UTS_G_MAX, &g, err) < 0 ||
        satin_param_f64(sp, "b", 0.0, UTS_B_MAX, &p->b0, err) < 0 ||
        satin_param_f64(sp, "f", 0.0, UTS_F_MAX, &p->shift_depth, err) < 0)
        return -1;
    p->type = (int32_t)t;
    p->shape = (int32_t)a;
    p->gen_mx = (int32_t)d;
    p->seed = (uint32_t)r;
    p->m = (uint32_t)m;
    p->granularity = (uint32_t)g;
    return 0;
}

static int uts_parse_gen(const satin_params *sp, int *gen, satin_err *err)
{
    const char *s = NULL;
    if (satin_param_str(sp, "gen", &s, err) != 0) {
        *gen = 0;
        return 0;
    }
    if (strcmp(s, "2003") == 0)
        *gen = UTS_GEN_2003;
    else if (strcmp(s, "std") == 0)
        *gen = UTS_GEN_STD;
    else
        return satin_err_set(err, "uts: gen=%s must be 2003 (the seed's generator) or std "
                             "(the standard UTS generator)", s);
    return 0;
}

static const char *gen_name(int gen)
{
    return gen == UTS_GEN_2003 ? "2003" : "std";
}

static int uts_parse(const satin_params *sp, satin_bytes *arg, satin_err *err)
{
    uts_params p;
    const char *tree = NULL;
    int gen = 0;
    if (uts_parse_gen(sp, &gen, err) < 0)
        return -1;
    if (satin_param_str(sp, "tree", &tree, err) == 0) {
        if (uts_find_preset(tree, &p, err) < 0)
            return -1;
        if (gen && gen != p.gen)
            return satin_err_set(err, "uts: tree=%s is a gen=%s tree, not gen=%s", tree,
                                 gen_name(p.gen), gen_name(gen));
        gen = p.gen;
    } else if (gen) {
        uts_defaults(&p, gen);
    } else {
        return satin_err_set(err, "uts: give tree=NAME (seed-T1..3, T1..T5, T1L..T3L) "
                             "or gen=2003|std with its parameters");
    }

    const char *const *foreign = gen == UTS_GEN_2003 ? uts_only_std : uts_only_2003;
    for (; *foreign; foreign++)
        if (satin_param_given(sp, *foreign))
            return satin_err_set(err, "uts: parameter '%s' belongs to gen=%s, not to gen=%s",
                                 *foreign, gen_name(gen == UTS_GEN_2003 ? UTS_GEN_STD
                                                                        : UTS_GEN_2003),
                                 gen_name(gen));

    /* q, shared: 0 < q < 1 checked here for a message that says so. */
    double q = p.q;
    if (satin_param_f64(sp, "q", -DBL_MAX, DBL_MAX, &q, err) < 0)
        return -1;
    if (!(q > 0.0 && q < 1.0))
        return satin_err_set(err, "uts: q=%g must satisfy 0 < q < 1", q);
    p.q = q;
    if ((gen == UTS_GEN_2003 ? uts_parse_2003 : uts_parse_std)(sp, &p, err) < 0)
        return -1;

    int64_t chunk = UTS_CHUNK_DEFAULT;
    if (get_int(sp, "chunk", 1, UTS_CHUNK_MAX, &chunk, err) < 0)
        return -1;

    char msg[200];
    if (uts_params_check(&p, msg, sizeof msg) < 0)
        return satin_err_set(err, "%s", msg);

    /* The root invocation: the root node, not yet counted. */
    uts_tree t;
    uts_tree_init(&t, &p);
    uts_node root;
    uts_root(&t, &root);
    uts_arg head = {p, (uint32_t)chunk, UTS_ARG_ROOT, 1, 0};
    if (satin_bytes_put(arg, &head, sizeof head, err) < 0 ||
        satin_bytes_put(arg, &root, sizeof root, err) < 0)
        return -1;
    return 0;
}

/* ---- the check of a record from another node ------------------------------ */

/* The fields of the other generator are zero as parse leaves them (and a
 * 2003 tree hashes once per node: its granularity is not a parameter). */
static int uts_params_consistent(const uts_params *p, satin_err *err)
{
    static const uint8_t zero[UTS_ID_BYTES];
    char msg[200];
    if (uts_params_check(p, msg, sizeof msg) < 0)
        return satin_err_set(err, "%s", msg);
    if (memcmp(p->reserved, zero, sizeof p->reserved) != 0)
        return satin_err_set(err, "uts: the tree's reserved bytes are not zero");
    if (p->gen == UTS_GEN_2003) {
        if (p->type || p->shape || p->gen_mx || p->seed || p->b0 != 0.0 ||
            p->shift_depth != 0.0 || p->granularity != 1)
            return satin_err_set(err, "uts: a gen=2003 tree with parameters of gen=std");
        return satin_arg_range("uts", "children", p->root_children, 0, INT32_MAX, err);
    }
    if (p->root_children || memcmp(p->root_id, zero, UTS_ID_BYTES) != 0)
        return satin_err_set(err, "uts: a gen=std tree with parameters of gen=2003");
    return 0;
}

/* A record holds the tree's root alone, not counted yet (what parse makes),
 * or 1..chunk interior nodes below it taken from a walk's stack (a node
 * without children is counted where it is made, never handed on, and the
 * root is expanded before any chunk is made). */
static int uts_valid(const uts_arg *head, const unsigned char *nodes, satin_err *err)
{
    if (satin_arg_range("uts", "chunk", head->chunk, 1, UTS_CHUNK_MAX, err) < 0 ||
        satin_arg_range("uts", "nodes", head->nodes, 1, head->chunk, err) < 0 ||
        uts_params_consistent(&head->params, err) < 0)
        return -1;
    if (head->reserved || (head->flags & ~(uint32_t)UTS_ARG_ROOT))
        return satin_err_set(err, "uts: unknown flags %#x or reserved %u", (unsigned)head->flags,
                             (unsigned)head->reserved);
    if ((head->flags & UTS_ARG_ROOT) && head->nodes != 1)
        return satin_err_set(err, "uts: a root record with %u nodes", (unsigned)head->nodes);
    uts_tree tree;
    uts_tree_init(&tree, &head->params);
    uts_node root;
    uts_root(&tree, &root);
    for (uint32_t i = 0; i < head->nodes; i++) {
        uts_node node;
        memcpy(&node, nodes + i * sizeof node, sizeof node);
        if (head->flags & UTS_ARG_ROOT) {
            if (node.depth != 0 || memcmp(node.id, root.id, UTS_ID_BYTES) != 0)
                return satin_err_set(err, "uts: a root record whose node is not the tree's root");
        } else if (node.depth == 0) {
            return satin_err_set(err, "uts: node %u of a chunk is at depth 0", (unsigned)i);
        } else if (uts_num_children(&tree, &node) == 0) {
            return satin_err_set(err, "uts: node %u of a chunk (depth %u) has no children",
                                 (unsigned)i, (unsigned)node.depth);
        }
    }
    return 0;
}

SATIN_ARG_CHECK_ITEMS(uts_check, "uts", uts_arg, nodes, 1, UTS_CHUNK_MAX, sizeof(uts_node),
                      "nodes", uts_valid)

static void uts_format(const void *res, size_t len, double wall_s, satin_result *result,
                       satin_result *stats)
{
    uts_result r = {0, 0, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_i64(result, "nodes", r.nodes);
    satin_result_i64(result, "leaves", r.leaves);
    satin_result_i64(result, "depth", r.depth);
    if (wall_s > 0)
        satin_result_f64(stats, "nodes_per_s", (double)r.nodes / wall_s);
}

static const satin_param_def uts_params_def[] = {
    {"tree", NULL, 0, "preset: seed-T1, seed-T2, seed-T3 (gen 2003); T1..T5, T1L, T2L, T3L "
                      "(gen std); explicit parameters override it"},
    {"gen", NULL, 0, "2003 (the seed's generator) or std (the standard UTS generator)"},
    {"root", NULL, 0, "gen 2003: root id, up to 40 hex digits (default 0)"},
    {"children", NULL, 0, "gen 2003: children of the root n_r (default 3200)"},
    {"q", NULL, 0, "probability of an interior node, 0 < q < 1 (default 0.234375)"},
    {"m", NULL, 0, "children of an interior node (default 4; 1..256 for gen 2003)"},
    {"t", NULL, 0, "gen std: 0 binomial, 1 geometric, 2 hybrid, 3 balanced (default 1)"},
    {"b", NULL, 0, "gen std: root branching factor b0, 0..1e9 (default 4)"},
    {"r", NULL, 0, "gen std: root seed, 0..4294967295 (default 0)"},
    {"a", NULL, 0, "gen std: geometric shape 0 linear, 1 expdec, 2 cyclic, 3 fixed (default 0)"},
    {"d", NULL, 0, "gen std: depth parameter gen_mx >= 1 (default 6)"},
    {"f", NULL, 0, "gen std: hybrid shift depth fraction (default 0.5)"},
    {"g", NULL, 0, "gen std: compute granularity, hashes per node 1..1000000 (default 1)"},
    {"chunk", UTS_CHUNK_DEFAULT_S, 0, "nodes per spawned chunk job, 1..128"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(uts, .summary = "Unbalanced Tree Search: nodes, leaves and depth of a SHA-1 tree",
           .params = uts_params_def, .parse = uts_parse, .root = SATIN_TASK_OF(uts),
           .result_size = sizeof(uts_result), .format = uts_format);
