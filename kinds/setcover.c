/*
 * setcover.c - minimum set cover by branch and bound (one of the paper's
 * applications): the fewest of m given subsets of a universe {0..n-1} whose
 * union is the whole universe.
 *
 * Instance.  SplitMix64 seeded with `seed`; for set j = 0..m-1 and element
 * e = 0..n-1 in turn, e is in set j when next() % 100 < density.  Then every
 * element e = 0..n-1 in no set yet is added to set next() % m, so a cover
 * always exists.  The generator is part of the kind's definition: the unit
 * test repeats it.
 *
 * Search: include/exclude decisions.  At a node some sets are chosen, some
 * excluded, the rest available.  The uncovered element with the fewest
 * available sets containing it (ties: the lowest element) must be covered;
 * of those sets the one covering the most uncovered elements (ties: the
 * lowest set) is decided: first "include it", then "exclude it".  A node is
 * pruned when an uncovered element has no available set left, or when
 *     chosen + lower bound >= the best cover size known,
 * the lower bound being the larger of ceil(uncovered / largest available
 * coverage) and the number of uncovered elements found, taking them by how
 * few available sets contain them (ties: lower element first), whose
 * available sets are disjoint from those of the ones found before (each
 * needs a set of its own).
 *
 * Jobs and bounds.  A job's argument holds the instance, its decisions so
 * far and `ub`; the job returns the best cover of its subtree that has fewer
 * than ub sets, or "none".  Jobs cannot share an incumbent while they run (a
 * job is a pure function of its argument bytes and results only come back
 * through satin_return), so a job knows only the ub handed down by its parent
 * (the root's is m + 1) and what it finds itself.  To find a good incumbent
 * early, as a sequential depth-first search does, a job first takes a greedy
 * completion (repeatedly the available set covering the most uncovered
 * elements, ties the lowest set; then the added sets that turned out
 * redundant are dropped, last added first); a job that is to spawn then runs
 * the sequential search of its own subtree for a limited number of nodes
 * (the "probe": parameter probe >> 2*depth, at least min(probe,
 * SC_PROBE_MIN); probe=0 turns probes off, as the unit test does to exercise
 * the spawning).  A probe that finishes is the job's answer (small subtrees
 * are not split); otherwise its best cover is the bound the children get.
 * While fewer than `threshold` decisions are made a job spawns its two
 * children; below that it searches sequentially.  Measured on n = m = 100,
 * density 10 (seeds 1-6) with the defaults: 1.0-1.6 times the nodes of the
 * sequential search (it depends on how soon the optimum turns up), the
 * largest job (the root's probe) 6-14% of the work, or all of it when the
 * probe finishes the search.
 *
 * Determinism: every job is a pure function of its argument bytes and a
 * parent prefers, among equally small covers, its own (greedy, then probe),
 * then the include child's, then the exclude child's.  So the result,
 * including which minimum cover is reported, is the same on any number of
 * workers; it may differ with `threshold` or `probe`.
 *
 * Result: size (the minimum number of sets) and checksum, the sum over the
 * chosen sets j of 2^j mod (2^61 - 1), so that for m <= 60 it is exactly the
 * bitmask of the chosen sets (bit j = set j).
 */
#include "apps.h"
#include "kind_shared.h"
#include "splitmix.h"

#include <stdint.h>
#include <string.h>

#define SC_WORDS 4
#define SC_MAX (64 * SC_WORDS)   /* elements and sets */
#define SC_DEFAULT_THRESHOLD "10"
#define SC_DEFAULT_DENSITY "10"
/* The sequential search looks at the cancel flag once per this many nodes. */
#define SC_CANCEL_MASK 0xfffu
/* The probe budget of the root (parameter probe=) and its floor for deeper
 * jobs (see sc_probe_budget). */
#define SC_DEFAULT_PROBE "65536"
#define SC_MAX_PROBE (INT64_C(1) << 32)
#define SC_PROBE_MIN 64
#define SC_MERSENNE61 ((UINT64_C(1) << 61) - 1)

/* A set of up to 256 elements or set numbers. */
typedef struct sc_bits {
    uint64_t w[SC_WORDS];
} sc_bits;

/* Fixed-width fields with no padding: the bytes may cross machines.  The
 * argument is an sc_head followed by m sc_bits, the sets. */
typedef struct sc_head {
    int32_t n, m;
    int32_t depth;       /* decisions made above this job */
    int32_t threshold;   /* spawn children while depth < threshold */
    int64_t ub;          /* only covers of fewer than ub sets are wanted */
    int64_t probe;       /* the root's probe budget (see sc_probe_budget) */
    sc_bits chosen;      /* set numbers in the cover */
    sc_bits excluded;    /* set numbers left out */
    sc_bits covered;     /* union of the chosen sets */
} sc_head;

typedef struct sc_res {
    int64_t size;        /* -1: no cover of fewer than ub sets here */
    sc_bits cover;
} sc_res;

typedef struct sc_job {
    sc_head h;
    sc_bits sets[SC_MAX];
} sc_job;

typedef struct sc_inst {
    int32_t n, m;
    sc_bits all;             /* the universe */
    sc_bits allsets;         /* every set number */
    const sc_bits *sets;
    sc_bits cand[SC_MAX];    /* cand[e]: the sets containing e */
} sc_inst;

/* ---- bit sets ------------------------------------------------------------- */

static sc_bits sc_first(int32_t count)
{
    sc_bits b;
    for (int k = 0; k < SC_WORDS; k++) {
        int32_t left = count - 64 * k;
        b.w[k] = left >= 64 ? ~UINT64_C(0) : left <= 0 ? 0 : (UINT64_C(1) << left) - 1;
    }
    return b;
}

static int sc_has(const sc_bits *b, int i)
{
    return (int)((b->w[i >> 6] >> (i & 63)) & 1);
}

static void sc_add(sc_bits *b, int i)
{
    b->w[i >> 6] |= UINT64_C(1) << (i & 63);
}

static void sc_del(sc_bits *b, int i)
{
    b->w[i >> 6] &= ~(UINT64_C(1) << (i & 63));
}

static sc_bits sc_and(const sc_bits *a, const sc_bits *b)
{
    sc_bits r;
    for (int k = 0; k < SC_WORDS; k++)
        r.w[k] = a->w[k] & b->w[k];
    return r;
}

static sc_bits sc_andnot(const sc_bits *a, const sc_bits *b)
{
    sc_bits r;
    for (int k = 0; k < SC_WORDS; k++)
        r.w[k] = a->w[k] & ~b->w[k];
    return r;
}

static void sc_or_into(sc_bits *a, const sc_bits *b)
{
    for (int k = 0; k < SC_WORDS; k++)
        a->w[k] |= b->w[k];
}

static int sc_count(const sc_bits *b)
{
    int c = 0;
    for (int k = 0; k < SC_WORDS; k++)
        c += __builtin_popcountll(b->w[k]);
    return c;
}

static int sc_count_and(const sc_bits *a, const sc_bits *b)
{
    int c = 0;
    for (int k = 0; k < SC_WORDS; k++)
        c += __builtin_popcountll(a->w[k] & b->w[k]);
    return c;
}

static int sc_meets(const sc_bits *a, const sc_bits *b)
{
    uint64_t x = 0;
    for (int k = 0; k < SC_WORDS; k++)
        x |= a->w[k] & b->w[k];
    return x != 0;
}

static int sc_empty(const sc_bits *b)
{
    uint64_t x = 0;
    for (int k = 0; k < SC_WORDS; k++)
        x |= b->w[k];
    return x == 0;
}

/* The members of b in increasing order, into out; returns how many. */
static int sc_list(const sc_bits *b, int16_t *out)
{
    int c = 0;
    for (int k = 0; k < SC_WORDS; k++)
        for (uint64_t x = b->w[k]; x; x &= x - 1)
            out[c++] = (int16_t)(64 * k + __builtin_ctzll(x));
    return c;
}

/* ---- the search ----------------------------------------------------------- */

static void sc_inst_init(sc_inst *in, int32_t n, int32_t m, const sc_bits *sets)
{
    in->n = n;
    in->m = m;
    in->all = sc_first(n);
    in->allsets = sc_first(m);
    in->sets = sets;
    memset(in->cand, 0, sizeof in->cand[0] * (size_t)n);
    int16_t el[SC_MAX];
    for (int32_t j = 0; j < m; j++) {
        sc_bits s = sc_and(&sets[j], &in->all);
        int c = sc_list(&s, el);
        for (int i = 0; i < c; i++)
            sc_add(&in->cand[el[i]], j);
    }
}

/* A lower bound on the sets still needed to cover the elements not in
 * `covered` with sets from `avail`, or -1 when some element cannot be
 * covered.  Sets *pick to the set to decide next. */
static int sc_examine(const sc_inst *in, const sc_bits *covered, const sc_bits *avail,
                      int *pick)
{
    sc_bits unc = sc_andnot(&in->all, covered), used;
    memset(&used, 0, sizeof used);
    int16_t el[SC_MAX], st[SC_MAX], byk[SC_MAX];
    int16_t kof[SC_MAX];
    int start[SC_MAX + 2];
    int nunc = sc_list(&unc, el);
    int fewest = SC_MAX + 1, e_best = -1, kmax = 0;
    for (int i = 0; i < nunc; i++) {
        sc_bits cm = sc_and(&in->cand[el[i]], avail);
        int k = sc_count(&cm);
        if (k == 0)
            return -1;
        kof[i] = (int16_t)k;
        if (k < fewest) {
            fewest = k;
            e_best = el[i];
        }
        if (k > kmax)
            kmax = k;
    }
    /* The elements by how few sets can still cover them (counting sort,
     * stable): the disjoint bound is much stronger taken in that order. */
    memset(start, 0, sizeof start[0] * (size_t)(kmax + 2));
    for (int i = 0; i < nunc; i++)
        start[kof[i] + 1]++;
    for (int k = 1; k <= kmax + 1; k++)
        start[k] += start[k - 1];
    for (int i = 0; i < nunc; i++)
        byk[start[kof[i]]++] = el[i];
    int disjoint = 0;
    for (int i = 0; i < nunc; i++) {
        sc_bits cm = sc_and(&in->cand[byk[i]], avail);
        if (!sc_meets(&cm, &used)) {
            disjoint++;
            sc_or_into(&used, &cm);
        }
    }
    int maxcov = 0, nav = sc_list(avail, st);
    for (int i = 0; i < nav; i++) {
        int c = sc_count_and(&in->sets[st[i]], &unc);
        if (c > maxcov)
            maxcov = c;
    }
    sc_bits cm = sc_and(&in->cand[e_best], avail);
    int nc = sc_list(&cm, st), best_cov = -1;
    *pick = -1;
    for (int i = 0; i < nc; i++) {
        int c = sc_count_and(&in->sets[st[i]], &unc);
        if (c > best_cov) {
            best_cov = c;
            *pick = st[i];
        }
    }
    int bysize = (nunc + maxcov - 1) / maxcov; /* maxcov >= 1: e_best has a set */
    return bysize > disjoint ? bysize : disjoint;
}

/* Greedy completion: the number of sets added (added to *cover), or -1 when
 * the available sets cannot cover the rest.  Afterwards each added set whose
 * elements the other sets of the cover hold too is dropped again (last
 * added first). */
static int sc_greedy(const sc_inst *in, sc_bits covered, sc_bits avail, sc_bits *cover)
{
    int count = 0;
    int16_t st[SC_MAX], added[SC_MAX];
    sc_bits unc = sc_andnot(&in->all, &covered);
    while (!sc_empty(&unc)) {
        int best = -1, best_cov = 0, nav = sc_list(&avail, st);
        for (int i = 0; i < nav; i++) {
            int c = sc_count_and(&in->sets[st[i]], &unc);
            if (c > best_cov) {
                best_cov = c;
                best = st[i];
            }
        }
        if (best < 0)
            return -1;
        unc = sc_andnot(&unc, &in->sets[best]);
        sc_del(&avail, best);
        sc_add(cover, best);
        added[count++] = (int16_t)best;
    }
    int kept = count;
    for (int i = count - 1; i >= 0; i--) {
        sc_bits rest = covered;
        int16_t members[SC_MAX];
        int nm = sc_list(cover, members);
        for (int t = 0; t < nm; t++)
            if (members[t] != added[i])
                sc_or_into(&rest, &in->sets[members[t]]);
        sc_bits miss = sc_andnot(&in->all, &rest);
        if (sc_empty(&miss)) {
            sc_del(cover, added[i]);
            kept--;
        }
    }
    return kept;
}

/* The nodes a spawning job at `depth` searches on its own before it spawns:
 * probe >> 2*depth, at least min(probe, SC_PROBE_MIN); 0: no probe. */
static uint64_t sc_probe_budget(int64_t probe, int32_t depth)
{
    uint64_t p = (uint64_t)probe, b = depth < 32 ? p >> (2 * depth) : 0;
    uint64_t least = p < SC_PROBE_MIN ? p : SC_PROBE_MIN;
    return b > least ? b : least;
}

typedef struct sc_search {
    const sc_inst *in;
    int stop;            /* 1: budget used up or job cancelled: search incomplete */
    uint64_t nodes;
    uint64_t budget;     /* stop after this many nodes; 0: no limit */
    int64_t best;        /* size of the best cover so far (or the ub) */
    sc_bits cover;
} sc_search;

static int sc_complete(const sc_inst *in, const sc_bits *covered)
{
    sc_bits unc = sc_andnot(&in->all, covered);
    return sc_empty(&unc);
}

static void sc_dfs(sc_search *s, sc_bits chosen, sc_bits excluded, sc_bits covered,
                   int64_t count)
{
    if (sc_complete(s->in, &covered)) {
        if (count < s->best) {
            s->best = count;
            s->cover = chosen;
        }
        return;
    }
    if (s->stop)
        return;
    s->nodes++;
    if ((s->budget && s->nodes > s->budget) ||
        ((s->nodes & SC_CANCEL_MASK) == 0 && satin_cancelled())) {
        s->stop = 1;
        return;
    }
    sc_bits avail = sc_andnot(&s->in->allsets, &chosen);
    avail = sc_andnot(&avail, &excluded);
    int pick;
    int lb = sc_examine(s->in, &covered, &avail, &pick);
    if (lb < 0 || count + lb >= s->best)
        return;
    sc_bits inc = chosen, cov = covered;
    sc_add(&inc, pick);
    sc_or_into(&cov, &s->in->sets[pick]);
    sc_dfs(s, inc, excluded, cov, count + 1);
    sc_add(&excluded, pick);
    sc_dfs(s, chosen, excluded, covered, count);
}

/* A job's argument is its header and the instance's m sets, a length only
 * the header gives: a bytes task. */
static int sc_check(const void *arg, size_t len, satin_err *err);
SATIN_BYTES_TASK(setcover, sc_check);

/* The check (below) held a record of another node to what parse allows; the
 * body keeps its own guard of the lengths and decisions, whoever spawned it. */
static void setcover(SATIN_FRAME, const void *arg, size_t len)
{
    sc_job j;
    if (len < sizeof j.h) {
        satin_fail("setcover: argument of %zu bytes, expected at least %zu", len, sizeof j.h);
        return;
    }
    memcpy(&j.h, arg, sizeof j.h);
    if (j.h.n < 1 || j.h.n > SC_MAX || j.h.m < 1 || j.h.m > SC_MAX) {
        satin_fail("setcover: corrupt argument (n=%d, m=%d)", (int)j.h.n, (int)j.h.m);
        return;
    }
    size_t want = sizeof j.h + (size_t)j.h.m * sizeof(sc_bits);
    if (len != want) {
        satin_fail("setcover: argument of %zu bytes, expected %zu", len, want);
        return;
    }
    memcpy(j.sets, (const unsigned char *)arg + sizeof j.h, (size_t)j.h.m * sizeof(sc_bits));
    sc_inst in;
    sc_inst_init(&in, j.h.n, j.h.m, j.sets);
    sc_bits outside = sc_andnot(&j.h.chosen, &in.allsets);
    sc_bits both = sc_and(&j.h.chosen, &j.h.excluded);
    if (j.h.depth < 0 || j.h.ub < 0 || j.h.ub > SC_MAX + 1 || j.h.probe < 0 ||
        !sc_empty(&outside) || !sc_empty(&both)) {
        satin_fail("setcover: corrupt argument (n=%d, m=%d, depth=%d)", (int)j.h.n, (int)j.h.m,
                   (int)j.h.depth);
        return;
    }
    sc_bits avail = sc_andnot(&in.allsets, &j.h.chosen);
    avail = sc_andnot(&avail, &j.h.excluded);
    int64_t count = sc_count(&j.h.chosen);
    int spawning = j.h.depth < j.h.threshold && !sc_complete(&in, &j.h.covered);
    uint64_t budget = spawning ? sc_probe_budget(j.h.probe, j.h.depth) : 0;
    sc_search s;
    memset(&s, 0, sizeof s);
    s.in = &in;
    s.budget = budget;
    s.best = j.h.ub;

    sc_bits gcover = j.h.chosen;
    int g = sc_greedy(&in, j.h.covered, avail, &gcover);
    if (g >= 0 && count + g < s.best) {
        s.best = count + g;
        s.cover = gcover;
    }
    if (!spawning || budget > 0)
        sc_dfs(&s, j.h.chosen, j.h.excluded, j.h.covered, count);
    int pick;
    int lb;
    if (spawning && (budget == 0 || s.stop) && !satin_cancelled() &&
        (lb = sc_examine(&in, &j.h.covered, &avail, &pick)) >= 0 && count + lb < s.best) {
        sc_job child;
        size_t clen = sizeof child.h + (size_t)j.h.m * sizeof(sc_bits);
        memcpy(child.sets, j.sets, (size_t)j.h.m * sizeof(sc_bits));
        child.h = j.h;
        child.h.depth = j.h.depth + 1;
        child.h.ub = s.best;
        sc_add(&child.h.chosen, pick);
        sc_or_into(&child.h.covered, &j.sets[pick]);
        sc_res ri, re;
        memset(&ri, 0, sizeof ri);
        memset(&re, 0, sizeof re);
        ri.size = re.size = -1;
        satin_spawn_bytes(setcover, &child, clen, &ri, sizeof ri);
        child.h.chosen = j.h.chosen;
        child.h.covered = j.h.covered;
        sc_add(&child.h.excluded, pick);
        satin_spawn_bytes(setcover, &child, clen, &re, sizeof re);
        satin_sync();
        if (ri.size >= 0 && ri.size < s.best) {
            s.best = ri.size;
            s.cover = ri.cover;
        }
        if (re.size >= 0 && re.size < s.best) {
            s.best = re.size;
            s.cover = re.cover;
        }
    }
    sc_res r;
    memset(&r, 0, sizeof r);
    r.size = -1;
    if (s.best < j.h.ub) {
        r.size = s.best;
        r.cover = s.cover;
    }
    satin_return(&r, sizeof r);
}

static int sc_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, m, seed, density, threshold, probe;
    if (satin_param_i64(p, "n", 1, SC_MAX, &n, err) < 0 ||
        satin_param_i64(p, "m", 1, SC_MAX, &m, err) < 0 ||
        satin_param_i64(p, "seed", 0, INT64_MAX, &seed, err) < 0 ||
        satin_param_i64(p, "density", 1, 100, &density, err) < 0 ||
        satin_param_i64(p, "threshold", 0, SC_MAX, &threshold, err) < 0 ||
        satin_param_i64(p, "probe", 0, SC_MAX_PROBE, &probe, err) < 0)
        return -1;
    sc_job j;
    memset(&j.h, 0, sizeof j.h);
    memset(j.sets, 0, sizeof j.sets[0] * (size_t)m);
    j.h.n = (int32_t)n;
    j.h.m = (int32_t)m;
    j.h.threshold = (int32_t)threshold;
    j.h.ub = m + 1;
    j.h.probe = probe;
    uint64_t rng = (uint64_t)seed;
    sc_bits covered;
    memset(&covered, 0, sizeof covered);
    for (int32_t s = 0; s < j.h.m; s++)
        for (int32_t e = 0; e < j.h.n; e++)
            if ((int64_t)(satin_splitmix_next(&rng) % 100) < density)
                sc_add(&j.sets[s], e);
    for (int32_t s = 0; s < j.h.m; s++)
        sc_or_into(&covered, &j.sets[s]);
    for (int32_t e = 0; e < j.h.n; e++)
        if (!sc_has(&covered, e))
            sc_add(&j.sets[satin_splitmix_next(&rng) % (uint64_t)j.h.m], e);
    return satin_bytes_put(arg, &j, sizeof j.h + (size_t)j.h.m * sizeof(sc_bits), err);
}

/* What parse makes and the spawns keep: an instance whose sets cover the
 * universe and hold nothing outside it, decisions on sets that exist
 * (each made once, one per level), the chosen sets' union as `covered`,
 * and ub and probe within parse's bounds. */
static int sc_valid(const sc_head *h, const unsigned char *set_bytes, satin_err *err)
{
    sc_bits sets[SC_MAX];
    memcpy(sets, set_bytes, (size_t)h->m * sizeof(sc_bits));
    sc_bits all = sc_first(h->n), allsets = sc_first(h->m), u, cov;
    if (satin_arg_range("setcover", "n", h->n, 1, SC_MAX, err) < 0 ||
        satin_arg_range("setcover", "threshold", h->threshold, 0, SC_MAX, err) < 0 ||
        satin_arg_range("setcover", "ub", h->ub, 0, h->m + 1, err) < 0 ||
        satin_arg_range("setcover", "probe", h->probe, 0, SC_MAX_PROBE, err) < 0)
        return -1;
    memset(&u, 0, sizeof u);
    memset(&cov, 0, sizeof cov);
    for (int32_t j = 0; j < h->m; j++) {
        sc_bits out = sc_andnot(&sets[j], &all);
        if (!sc_empty(&out))
            return satin_err_set(err, "setcover: set %d holds elements beyond n=%d", (int)j,
                                 (int)h->n);
        sc_or_into(&u, &sets[j]);
        if (sc_has(&h->chosen, j))
            sc_or_into(&cov, &sets[j]);
    }
    sc_bits missing = sc_andnot(&all, &u), outside = sc_andnot(&h->chosen, &allsets);
    sc_bits outside_ex = sc_andnot(&h->excluded, &allsets), both = sc_and(&h->chosen, &h->excluded);
    if (!sc_empty(&missing))
        return satin_err_set(err, "setcover: the sets do not cover the universe");
    if (!sc_empty(&outside) || !sc_empty(&outside_ex) || !sc_empty(&both))
        return satin_err_set(err, "setcover: decisions on sets beyond m=%d or both ways",
                             (int)h->m);
    if (h->depth != sc_count(&h->chosen) + sc_count(&h->excluded))
        return satin_err_set(err, "setcover: depth=%d but %d sets decided", (int)h->depth,
                             sc_count(&h->chosen) + sc_count(&h->excluded));
    if (memcmp(&cov, &h->covered, sizeof cov) != 0)
        return satin_err_set(err, "setcover: 'covered' is not the union of the chosen sets");
    return 0;
}

SATIN_ARG_CHECK_ITEMS(sc_check, "setcover", sc_head, m, 1, SC_MAX, sizeof(sc_bits), "sets",
                      sc_valid)

static void sc_format(const void *res, size_t len, double wall_s,
                      satin_result *result, satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    sc_res r;
    memset(&r, 0, sizeof r);
    r.size = -1;
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    uint64_t sum = 0;
    int16_t st[SC_MAX];
    int c = sc_list(&r.cover, st);
    for (int i = 0; i < c; i++) {
        /* 2^j mod 2^61-1 is 2^(j mod 61): 2^61 = 1 (mod 2^61-1). */
        sum += UINT64_C(1) << (st[i] % 61);
        sum %= SC_MERSENNE61;
    }
    satin_result_i64(result, "size", r.size);
    satin_result_i64(result, "checksum", (int64_t)sum);
}

static const satin_param_def sc_params[] = {
    {"n", NULL, 1, "universe size, 1..256"},
    {"m", NULL, 1, "number of sets, 1..256"},
    {"seed", "1", 0, "instance seed, 0..2^63-1"},
    {"density", SC_DEFAULT_DENSITY, 0, "percent chance that a set holds an element, 1..100"},
    {"threshold", SC_DEFAULT_THRESHOLD, 0,
     "spawn include/exclude children while fewer than this many sets are decided "
     "(0: all sequential)"},
    {"probe", SC_DEFAULT_PROBE, 0,
     "nodes the root searches alone for a good incumbent before it spawns, 0..2^32 "
     "(a spawning job at depth d: probe/4^d, at least min(probe, 64); 0: no probes)"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(setcover, .summary = "minimum set cover of a seeded instance by branch and bound",
           .params = sc_params, .parse = sc_parse, .root = SATIN_TASK_OF(setcover),
           .result_size = sizeof(sc_res), .format = sc_format);
