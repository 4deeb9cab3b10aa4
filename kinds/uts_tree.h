/*
 * uts_tree.h - the two UTS tree generators (shared/UTS.md) as plain code:
 * no runtime, no threads.  The `uts` job kind (uts.c), its unit test and the
 * benchmarks all count trees through these functions.
 *
 *   gen 2003  the UPC UTS paper's generator (UTS.md section 1): a root id r
 *             with n_r children, every other node m children with
 *             probability q, child i of v = SHA-1(v || i).
 *   gen std   the standard UTS release (UTS.md section 2): binomial,
 *             geometric, hybrid and balanced trees.
 *
 * A node is its 20-byte id (the standard generator calls it the state) and
 * its depth (root = 0).  How many children it has is a function of the two.
 */
#ifndef SATIN_UTS_TREE_H
#define SATIN_UTS_TREE_H

#include <stddef.h>
#include <stdint.h>

#define UTS_ID_BYTES 20

enum { UTS_GEN_2003 = 2003, UTS_GEN_STD = 1 };
/* Tree types (-t) and geometric shapes (-a) of the standard generator,
 * numbered as its command line numbers them. */
enum { UTS_BIN = 0, UTS_GEO = 1, UTS_HYBRID = 2, UTS_BALANCED = 3 };
enum { UTS_LINEAR = 0, UTS_EXPDEC = 1, UTS_CYCLIC = 2, UTS_FIXED = 3 };

/* Everything that defines a tree.  Plain fixed-size data without pointers:
 * it travels by value in the argument of every uts job.  Fields of the other
 * generator are ignored (keep them zero). */
typedef struct uts_params {
    int32_t gen;                /* UTS_GEN_2003 or UTS_GEN_STD */
    int32_t type;               /* std -t: UTS_BIN .. UTS_BALANCED */
    int32_t shape;              /* std -a: UTS_LINEAR .. UTS_FIXED */
    int32_t gen_mx;             /* std -d: depth parameter, >= 1 */
    uint32_t m;                 /* children of an interior binomial node */
    uint32_t root_children;     /* 2003: n_r */
    uint32_t seed;              /* std -r: the root's seed (4 bytes) */
    uint32_t granularity;       /* std -g: each hash is computed this often, >= 1 */
    double q;                   /* probability of an interior node, 0 < q < 1 */
    double b0;                  /* std -b: root branching factor */
    double shift_depth;         /* std -f: hybrid switches at shift_depth * gen_mx */
    uint8_t root_id[UTS_ID_BYTES]; /* 2003: r, byte 0 most significant */
    uint8_t reserved[4];        /* keeps the size a multiple of 8; zero */
} uts_params;

/* The ranges uts_params_check() accepts (besides 0 < q < 1). */
#define UTS_M_MAX_2003 256          /* the paper: 1 <= m <= 256 */
#define UTS_M_MAX_STD 2147483647    /* an int in the standard release */
#define UTS_B_MAX 1e9               /* keeps floor(b0) and (int)b0 far inside an int */
#define UTS_D_MAX 2147483647
#define UTS_F_MAX 1000.0
#define UTS_G_MAX 1000000

/* Range checks of a uts_params (the text parser in uts.c checks the user's
 * input first; this one guards every job against a corrupt argument).
 * 0, or -1 with a message in err. */
int uts_params_check(const uts_params *p, char *err, size_t errlen);

/* How many children the nodes at one depth have, as a function of the low 32
 * bits of their id (bytes 16..19 big-endian).  All children of one node share
 * a depth, so a traversal derives this once per node it expands. */
typedef struct uts_rule {
    int kind;                   /* UTS_RULE_* below */
    uint32_t n;                 /* CONST: the count; THRESHOLD: the count when below */
    uint32_t mask;              /* THRESHOLD: which bits of the low word count */
    uint64_t below;             /* THRESHOLD: (low & mask) < below => n children */
    double log1mp;              /* GEO: log(1 - p) of this depth */
} uts_rule;

enum { UTS_RULE_CONST = 0, UTS_RULE_THRESHOLD = 1, UTS_RULE_GEO = 2 };

/* A tree: its parameters plus what is precomputed from them. */
typedef struct uts_tree {
    uts_params p;
    uts_rule binomial;          /* std binomial / 2003 interior rule, any depth > 0 */
    uint32_t root_kids;         /* children of the root */
} uts_tree;

/* A node as it travels in a job argument: 24 bytes. */
typedef struct uts_node {
    uint8_t id[UTS_ID_BYTES];
    uint32_t depth;
} uts_node;

/* Result of counting (part of) a tree. */
typedef struct uts_counts {
    uint64_t nodes;             /* every node, root included */
    uint64_t leaves;            /* nodes without children */
    uint64_t max_depth;         /* deepest node; root = 0 */
} uts_counts;

/* p must have passed uts_params_check(). */
void uts_tree_init(uts_tree *t, const uts_params *p);

/* The root: 2003 r, or std rng_init(seed) = SHA-1(16 zero bytes || seed). */
void uts_root(const uts_tree *t, uts_node *root);
/* Child i of `parent` (the hash repeated `granularity` times). */
void uts_child(const uts_tree *t, const uts_node *parent, uint32_t i, uts_node *child);
/* Number of children of a node (depth 0 is the root). */
uint32_t uts_num_children(const uts_tree *t, const uts_node *node);
/* The rule for the nodes at `depth`.  Not for the root of a 2003 or a
 * binomial tree, whose count is a parameter: uts_num_children() knows. */
void uts_rule_at(const uts_tree *t, uint32_t depth, uts_rule *r);
uint32_t uts_rule_apply(const uts_rule *r, uint32_t low32);

/* ---- a resumable, bounded depth-first walk --------------------------------
 * The engine of the uts kind.  The stack holds interior nodes whose children
 * are not generated yet (leaves are counted when generated and never
 * pushed), bottom = oldest = shallowest.  It never grows beyond `cap`: the
 * walk stops when it is full so that the caller can hand the bottom entries
 * to another job, and stops every `budget` generated nodes so that the caller
 * can do so periodically.  Tree depth never becomes C recursion. */

typedef struct uts_slot {
    uint8_t id[UTS_ID_BYTES];
    uint32_t depth;
    uint32_t kids;              /* > 0 */
} uts_slot;

/* The rules of the shallow depths, computed when first needed: a geometric
 * rule costs a log() and maybe pow() and sin(), and most expansions happen
 * at a few dozen depths. */
#define UTS_RULE_MEMO 128
typedef struct uts_rule_memo {
    uts_rule rule[UTS_RULE_MEMO];
    uint64_t known[UTS_RULE_MEMO / 64];
} uts_rule_memo;

typedef struct uts_walk {
    const uts_tree *tree;
    uts_slot *stack;
    size_t cap, sp;
    /* the node being expanded (its children [next, cur.kids) are still due) */
    int busy;
    uint32_t next;
    uts_slot cur;
    uts_rule rule;              /* for cur's children */
    uts_rule_memo memo;
    unsigned char block[64];    /* cur's id, a child index, SHA-1 padding */
    uts_counts counts;          /* nodes generated here (plus those added) */
} uts_walk;

typedef enum uts_walk_status {
    UTS_WALK_DONE = 0,          /* stack empty, nothing being expanded */
    UTS_WALK_BUDGET,            /* `budget` nodes generated */
    UTS_WALK_FULL,              /* the stack is full: make room, then go on */
    UTS_WALK_TOO_DEEP,          /* a node at depth 2^32 - 1 has children */
} uts_walk_status;

void uts_walk_init(uts_walk *w, const uts_tree *t, uts_slot *stack, size_t cap);
/* Pushes a node to be expanded (if it has children).  `count`: 1 when the
 * node was not counted yet (the root); nodes taken from another job's stack
 * were counted there.  -1 when the stack is full. */
int uts_walk_add(uts_walk *w, const uts_node *node, int count);
uts_walk_status uts_walk_run(uts_walk *w, uint64_t budget);

/* ---- baselines for the benchmarks ----------------------------------------- */

/* The whole tree by a plain sequential loop (explicit heap stack, same hash
 * path, no chunks, no runtime).  0, or -1 for invalid parameters or when out
 * of memory. */
int uts_count_sequential(const uts_params *p, uint64_t *nodes, uint64_t *leaves,
                         uint64_t *depth);

/* The raw rate of the child hash alone (one SHA-1 compression of a
 * pre-padded 24-byte message), hashes per second over about `seconds`. */
double uts_sha1_rate(double seconds);

#endif
