/*
 * uts_tree.c - the two UTS generators (shared/UTS.md), a resumable bounded
 * depth-first walk over them, and the sequential baselines.
 *
 * Speed: a child id is SHA-1 of a 24-byte message, which fits one 64-byte
 * block once padded.  So the message is kept pre-padded in a block and each
 * child costs one SHA1_Transform() (OpenSSL's compression function, which
 * uses the SHA-NI instructions when the CPU has them) on a context whose
 * h0..h4 were reset to the SHA-1 initial values; h0..h4 are then the digest
 * (big-endian words).  The one-shot SHA1() of OpenSSL 3 costs ~10x more (it
 * fetches the algorithm on every call), init/update/final ~1.3x more.
 * The low-level API is deprecated in OpenSSL 3 but present; asking for the
 * 1.1.1 API keeps -Werror quiet.  This file is the only user of it.
 */
#define OPENSSL_API_COMPAT 10101
#include "uts_tree.h"

#include <math.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the hash ------------------------------------------------------------ */

static inline void store_be32(unsigned char *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}

static inline uint32_t load_be32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}

/* The padding of a 24-byte message in its single block: 0x80 right after
 * it, zeros, the length in bits (192) big-endian in the last 8 bytes. */
static void block_pad24(unsigned char block[64])
{
    memset(block + UTS_ID_BYTES, 0, 64 - UTS_ID_BYTES);
    block[24] = 0x80;
    block[63] = 24 * 8;
}

/* Child `i` of the id in block[0..19]: leaves the digest in c->h0..h4.
 * Granularity g repeats the very same computation (UTS -g: more work per
 * node, same tree). */
static inline void hash_child(SHA_CTX *c, unsigned char block[64], uint32_t i,
                              uint32_t g)
{
    store_be32(block + UTS_ID_BYTES, i);
    do {
        c->h0 = 0x67452301u;
        c->h1 = 0xefcdab89u;
        c->h2 = 0x98badcfeu;
        c->h3 = 0x10325476u;
        c->h4 = 0xc3d2e1f0u;
        SHA1_Transform(c, block);
    } while (--g);
}

static inline void digest_to_id(const SHA_CTX *c, uint8_t id[UTS_ID_BYTES])
{
    store_be32(id, c->h0);
    store_be32(id + 4, c->h1);
    store_be32(id + 8, c->h2);
    store_be32(id + 12, c->h3);
    store_be32(id + 16, c->h4);
}

/* ---- parameters ---------------------------------------------------------- */

int uts_params_check(const uts_params *p, char *err, size_t errlen)
{
#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
    if (p->gen != UTS_GEN_2003 && p->gen != UTS_GEN_STD)
        FAIL("uts: unknown generator %d", (int)p->gen);
    if (!(p->q > 0.0 && p->q < 1.0))
        FAIL("uts: q=%g must satisfy 0 < q < 1", p->q);
    if (p->gen == UTS_GEN_2003) {
        if (p->m < 1 || p->m > UTS_M_MAX_2003)
            FAIL("uts: m=%u must be in 1..%d for gen=2003", (unsigned)p->m, UTS_M_MAX_2003);
        /* The paper's condition for finite trees (T3 has qm = 0.999992). */
        if (!(p->q * p->m < 1.0))
            FAIL("uts: gen=2003 needs q*m < 1 for a finite tree (q=%g m=%u gives %g)",
                 p->q, (unsigned)p->m, p->q * p->m);
        return 0;
    }
    if (p->type < UTS_BIN || p->type > UTS_BALANCED)
        FAIL("uts: t=%d must be 0 (binomial), 1 (geometric), 2 (hybrid) or 3 (balanced)",
             (int)p->type);
    if (p->shape < UTS_LINEAR || p->shape > UTS_FIXED)
        FAIL("uts: a=%d must be 0 (linear), 1 (expdec), 2 (cyclic) or 3 (fixed)",
             (int)p->shape);
    if (!(p->b0 >= 0.0 && p->b0 <= UTS_B_MAX))
        FAIL("uts: b=%g must be in [0, %g]", p->b0, UTS_B_MAX);
    if (p->m < 1 || p->m > UTS_M_MAX_STD)
        FAIL("uts: m=%u must be in 1..%d", (unsigned)p->m, UTS_M_MAX_STD);
    if (p->gen_mx < 1)
        FAIL("uts: d=%d must be in 1..%d", (int)p->gen_mx, UTS_D_MAX);
    if (!(p->shift_depth >= 0.0 && p->shift_depth <= UTS_F_MAX))
        FAIL("uts: f=%g must be in [0, %g]", p->shift_depth, UTS_F_MAX);
    if (p->granularity < 1 || p->granularity > UTS_G_MAX)
        FAIL("uts: g=%u must be in 1..%d", (unsigned)p->granularity, UTS_G_MAX);
    return 0;
#undef FAIL
}

/* ---- number of children -------------------------------------------------- */

#define UTS_MAX_KIDS 100        /* the standard release's cap (MAXNUMCHILDREN) */
#define UTS_PI 3.141592653589793

/* The count a double gives in the standard release: (int) of it as C on
 * x86-64 computes it (cvttsd2si: NaN and everything outside the int range
 * become INT_MIN), where a negative count means no children.  For x >= 0 the
 * truncation is floor(x). */
static uint32_t count_of(double x, uint32_t cap)
{
    if (!(x >= 0.0 && x < 2147483648.0))
        return 0;
    uint32_t n = (uint32_t)x;
    return n > cap ? cap : n;
}

/* The geometric rule's target branching factor b_i at `depth`.  Written in
 * the standard release's operation order: the results must be bit-exact. */
static double geo_branching(const uts_params *p, uint32_t depth)
{
    double b0 = p->b0, d = (double)depth, mx = (double)p->gen_mx;
    if (depth == 0)
        return b0;
    switch (p->shape) {
    case UTS_EXPDEC:
        return b0 * pow(d, -log(b0) / log(mx));
    case UTS_CYCLIC:
        if ((uint64_t)depth > 5 * (uint64_t)p->gen_mx)
            return 0.0;
        return pow(b0, sin(2.0 * UTS_PI * d / mx));
    case UTS_FIXED:
        return depth < (uint32_t)p->gen_mx ? b0 : 0.0;
    case UTS_LINEAR:
    default:
        return b0 * (1.0 - d / mx);
    }
}

static void rule_geo(const uts_params *p, uint32_t depth, uts_rule *r)
{
    double pr = 1.0 / (1.0 + geo_branching(p, depth));
    double l = log(1.0 - pr);
    if (l < 0.0 && l > -INFINITY) {
        r->kind = UTS_RULE_GEO;
        r->log1mp = l;
        r->n = UTS_MAX_KIDS;
    } else {
        /* ln(1-u) is finite and <= 0, so dividing it by -inf (b_i = 0, e.g.
         * below gen_mx in a fixed or linear tree), by 0, by a positive value
         * or by NaN gives -0, 0, a negative value or NaN: no children for
         * every u.  Saves the per-node log() where most nodes are. */
        r->kind = UTS_RULE_CONST;
        r->n = 0;
    }
}

/* to_prob(low & 0x7fffffff) < q, i.e. n / 2^31 < q, is exactly n < ceil(q 2^31)
 * for an integer n (q 2^31 is exact in a double); likewise for the 2003
 * generator's (v mod 2^32) / 2^32 < q.  An integer compare per node. */
static void rule_binomial(const uts_params *p, uts_rule *r)
{
    r->kind = UTS_RULE_THRESHOLD;
    if (p->gen == UTS_GEN_2003) {
        r->mask = 0xffffffffu;
        r->below = (uint64_t)ceil(p->q * 4294967296.0);
        r->n = p->m;
    } else {
        r->mask = 0x7fffffffu;
        r->below = (uint64_t)ceil(p->q * 2147483648.0);
        r->n = p->m > UTS_MAX_KIDS ? UTS_MAX_KIDS : p->m;
    }
}

void uts_rule_at(const uts_tree *t, uint32_t depth, uts_rule *r)
{
    const uts_params *p = &t->p;
    memset(r, 0, sizeof *r);
    if (p->gen == UTS_GEN_2003) {
        *r = t->binomial;
        return;
    }
    switch (p->type) {
    case UTS_GEO:
        rule_geo(p, depth, r);
        break;
    case UTS_HYBRID:
        if ((double)depth < p->shift_depth * (double)p->gen_mx)
            rule_geo(p, depth, r);
        else
            *r = t->binomial;
        break;
    case UTS_BALANCED:
        r->kind = UTS_RULE_CONST;
        r->n = depth < (uint32_t)p->gen_mx ? count_of(floor(p->b0), UINT32_MAX) : 0;
        break;
    case UTS_BIN:
    default:
        *r = t->binomial;
        break;
    }
}

static inline uint32_t rule_apply(const uts_rule *r, uint32_t low)
{
    if (r->kind == UTS_RULE_THRESHOLD)
        return (low & r->mask) < r->below ? r->n : 0;
    if (r->kind == UTS_RULE_GEO) {
        /* u = to_prob(rng_rand); children = floor(ln(1-u) / ln(1-p)).  The
         * floor() is left out: count_of() truncates only values >= 0, where
         * truncation is floor, and maps everything below 0 to no children
         * as floor's -1 would (x86-64 has no inline floor without SSE4.1). */
        double u = (double)(low & 0x7fffffffu) / 2147483648.0;
        return count_of(log(1.0 - u) / r->log1mp, r->n);
    }
    return r->n;
}

uint32_t uts_rule_apply(const uts_rule *r, uint32_t low32)
{
    return rule_apply(r, low32);
}

static uint32_t root_kids(const uts_tree *t, const uint8_t id[UTS_ID_BYTES])
{
    const uts_params *p = &t->p;
    if (p->gen == UTS_GEN_2003)
        return p->root_children;
    if (p->type == UTS_BIN) {
        /* floor(b0) without a random draw, capped at ceil(b0). */
        uint32_t n = count_of(floor(p->b0), UINT32_MAX);
        uint32_t cap = count_of(ceil(p->b0), UINT32_MAX);
        return n > cap ? cap : n;
    }
    uts_rule r;
    uts_rule_at(t, 0, &r);
    return rule_apply(&r, load_be32(id + 16));
}

void uts_tree_init(uts_tree *t, const uts_params *p)
{
    memset(t, 0, sizeof *t);
    t->p = *p;
    if (t->p.granularity < 1)
        t->p.granularity = 1;
    rule_binomial(&t->p, &t->binomial);
    uts_node root;
    uts_root(t, &root);
    t->root_kids = root_kids(t, root.id);
}

/* ---- nodes --------------------------------------------------------------- */

void uts_root(const uts_tree *t, uts_node *root)
{
    memset(root, 0, sizeof *root);
    if (t->p.gen == UTS_GEN_2003) {
        memcpy(root->id, t->p.root_id, UTS_ID_BYTES);
        return;
    }
    /* rng_init: SHA-1 of 16 zero bytes and the seed, big-endian. */
    unsigned char msg[20] = {0};
    store_be32(msg + 16, t->p.seed);
    SHA_CTX c;
    SHA1_Init(&c);
    SHA1_Update(&c, msg, sizeof msg);
    SHA1_Final(root->id, &c);
}

void uts_child(const uts_tree *t, const uts_node *parent, uint32_t i, uts_node *child)
{
    unsigned char block[64];
    SHA_CTX c;
    memcpy(block, parent->id, UTS_ID_BYTES);
    block_pad24(block);
    hash_child(&c, block, i, t->p.granularity);
    digest_to_id(&c, child->id);
    child->depth = parent->depth + 1;
}

uint32_t uts_num_children(const uts_tree *t, const uts_node *node)
{
    if (node->depth == 0)
        return t->root_kids;
    uts_rule r;
    uts_rule_at(t, node->depth, &r);
    return rule_apply(&r, load_be32(node->id + 16));
}

/* ---- the bounded walk ---------------------------------------------------- */

void uts_walk_init(uts_walk *w, const uts_tree *t, uts_slot *stack, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->tree = t;
    w->stack = stack;
    w->cap = cap;
    block_pad24(w->block);
}

int uts_walk_add(uts_walk *w, const uts_node *node, int count)
{
    uint32_t kids = uts_num_children(w->tree, node);
    if (count) {
        w->counts.nodes++;
        w->counts.leaves += kids == 0;
        if (node->depth > w->counts.max_depth)
            w->counts.max_depth = node->depth;
    }
    if (kids == 0)
        return 0;
    if (w->sp == w->cap)
        return -1;
    uts_slot *s = &w->stack[w->sp++];
    memcpy(s->id, node->id, UTS_ID_BYTES);
    s->depth = node->depth;
    s->kids = kids;
    return 0;
}

/* The rule of depth d into r, from the memo when d is shallow. */
static void memo_rule(const uts_tree *t, uts_rule_memo *m, uint32_t d, uts_rule *r)
{
    if (d >= UTS_RULE_MEMO) {
        uts_rule_at(t, d, r);
        return;
    }
    uint64_t bit = (uint64_t)1 << (d % 64);
    if (!(m->known[d / 64] & bit)) {
        uts_rule_at(t, d, &m->rule[d]);
        m->known[d / 64] |= bit;
    }
    *r = m->rule[d];
}

/* Pops the next node to expand; -1 if its children would be deeper than a
 * uint32_t can say. */
static int walk_begin(uts_walk *w)
{
    w->cur = w->stack[--w->sp];
    if (w->cur.depth == UINT32_MAX)
        return -1;
    uint32_t d = w->cur.depth + 1;
    memo_rule(w->tree, &w->memo, d, &w->rule);
    memcpy(w->block, w->cur.id, UTS_ID_BYTES);
    w->next = 0;
    w->busy = 1;
    if (d > w->counts.max_depth)
        w->counts.max_depth = d;
    return 0;
}

/* The hot loop.  Children are generated in index order; a leaf is only
 * counted, an interior child is pushed (its own count stored with it, so
 * that it is not recomputed when it is popped). */
uts_walk_status uts_walk_run(uts_walk *w, uint64_t budget)
{
    const uint32_t g = w->tree->p.granularity;
    uint64_t made = 0;
    SHA_CTX c;
    if (w->busy && w->sp == w->cap)
        return UTS_WALK_FULL;
    while (made < budget) {
        if (!w->busy) {
            if (w->sp == 0)
                return UTS_WALK_DONE;
            if (walk_begin(w) < 0)
                return UTS_WALK_TOO_DEEP;
        }
        const uts_rule rule = w->rule;
        const uint32_t depth = w->cur.depth + 1, first = w->next;
        uint32_t end = w->cur.kids;
        if (end - first > budget - made)
            end = first + (uint32_t)(budget - made);
        uts_slot *top = w->stack + w->sp, *const limit = w->stack + w->cap;
        uint64_t leaves = 0;
        uint32_t i = first;
        while (i < end) {
            hash_child(&c, w->block, i, g);
            uint32_t kids = rule_apply(&rule, c.h4);
            i++;
            if (kids) {
                digest_to_id(&c, top->id);
                top->depth = depth;
                top->kids = kids;
                if (++top == limit)
                    break;
            } else {
                leaves++;
            }
        }
        w->sp = (size_t)(top - w->stack);
        w->next = i;
        w->counts.nodes += i - first;
        w->counts.leaves += leaves;
        made += i - first;
        if (i == w->cur.kids)
            w->busy = 0;
        else if (w->sp == w->cap)
            return UTS_WALK_FULL;
    }
    return UTS_WALK_BUDGET;
}

/* ---- baselines ----------------------------------------------------------- */

int uts_count_sequential(const uts_params *p, uint64_t *nodes, uint64_t *leaves,
                         uint64_t *depth)
{
    char err[160];
    if (uts_params_check(p, err, sizeof err) < 0)
        return -1;
    uts_tree t;
    uts_tree_init(&t, p);
    uts_node root;
    uts_root(&t, &root);
    uts_counts n = {1, t.root_kids == 0, 0};

    size_t cap = 1024, sp = 0;
    uts_slot *stack = malloc(cap * sizeof *stack);
    uts_rule_memo *memo = calloc(1, sizeof *memo);
    if (!stack || !memo) {
        free(stack);
        free(memo);
        return -1;
    }
    if (t.root_kids) {
        memcpy(stack[0].id, root.id, UTS_ID_BYTES);
        stack[0].depth = 0;
        stack[0].kids = t.root_kids;
        sp = 1;
    }
    unsigned char block[64];
    block_pad24(block);
    SHA_CTX c;
    int rc = 0;
    while (sp > 0 && rc == 0) {
        uts_slot v = stack[--sp];
        if (v.depth == UINT32_MAX) {
            rc = -1;
            break;
        }
        uts_rule rule;
        memo_rule(&t, memo, v.depth + 1, &rule);
        if (v.depth + 1 > n.max_depth)
            n.max_depth = v.depth + 1;
        memcpy(block, v.id, UTS_ID_BYTES);
        for (uint32_t i = 0; i < v.kids; i++) {
            hash_child(&c, block, i, t.p.granularity);
            uint32_t kids = rule_apply(&rule, c.h4);
            if (!kids) {
                n.leaves++;
                continue;
            }
            if (sp == cap) {
                uts_slot *bigger = realloc(stack, 2 * cap * sizeof *stack);
                if (!bigger) {
                    rc = -1;
                    break;
                }
                stack = bigger;
                cap *= 2;
            }
            digest_to_id(&c, stack[sp].id);
            stack[sp].depth = v.depth + 1;
            stack[sp].kids = kids;
            sp++;
        }
        n.nodes += v.kids;
    }
    free(stack);
    free(memo);
    if (rc == 0) {
        *nodes = n.nodes;
        *leaves = n.leaves;
        *depth = n.max_depth;
    }
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double uts_sha1_rate(double seconds)
{
    /* The same work per hash as the walk: a new index into the pre-padded
     * block, one compression, the result word read back. */
    unsigned char block[64];
    block_pad24(block);
    for (int k = 0; k < UTS_ID_BYTES; k++)
        block[k] = (unsigned char)(0x5a + 7 * k);
    SHA_CTX c;
    uint32_t sink = 0;
    uint64_t n = 0;
    double t0 = now_s(), dt;
    do {
        for (uint32_t i = 0; i < 65536; i++) {
            hash_child(&c, block, (uint32_t)n + i, 1);
            sink += c.h4;
        }
        n += 65536;
        dt = now_s() - t0;
    } while (dt < seconds);
    volatile uint32_t keep = sink;
    (void)keep;
    return dt > 0 ? (double)n / dt : 0.0;
}
