/* admission.c - the stages a peer message passes (see admission.h). */
#include "admission.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A flood of one kind of bad message must not hide another kind for long,
 * nor fill the log: one line per reason per interval. */
#define REJECT_LOG_INTERVAL_S 10.0

/* Which total a rejection counts in.  BAD: malformed, forged or senseless,
 * which no healthy grid sends (bad_peer_messages, worth an alert);
 * ROUTINE: what ordinary restarts and topology reloads cause, a message sent
 * before its receiver knew the sender's new connection or file
 * (peer_messages_refused); RATE: the rate limit (peer_requests_dropped). */
enum { CLASS_RATE, CLASS_BAD, CLASS_ROUTINE };

/* The rejection table.  Every text is a format taking the two details as
 * strings (a text may use fewer). */
static const struct reason_row {
    const char *name;   /* STATUS rejected.<name> */
    int class;          /* which total it counts in (below) */
    const char *text;
} reasons[SATIN_REJECT_NREASONS] = {
    [SATIN_REJECT_SHAPE] = {"bad_shape", CLASS_BAD,
        "dropped a peer message of the wrong shape: %s frames (a message has 3, an acknowledgement 1)"},
    [SATIN_REJECT_STAMP] = {"bad_stamp", CLASS_BAD, "dropped %s with a bad delivery frame"},
    [SATIN_REJECT_DECODE] = {"undecodable", CLASS_BAD, "dropped a bad peer message: %s"},
    [SATIN_REJECT_SENDER] = {"bad_sender", CLASS_BAD, "dropped %s claiming to come from node %s"},
    [SATIN_REJECT_KEY] = {"wrong_key", CLASS_BAD,
        "dropped %s claiming to come from node %s: the connection's key is not that node's"},
    [SATIN_REJECT_ACK_CONNECTION] = {"foreign_ack", CLASS_BAD,
        "dropped an acknowledgement on a connection that is no node's own"},
    [SATIN_REJECT_NOT_GREETED] = {"not_greeted", CLASS_ROUTINE,
        "dropped %s claiming to come from node %s on a connection that did not greet us as that node"},
    [SATIN_REJECT_OTHER_GRID] = {"other_grid", CLASS_ROUTINE,
        "node %s's topology differs from ours: %s; its messages are dropped until both read "
        "the same topology file"},
    [SATIN_REJECT_UNKNOWN_INDEX] = {"unknown_index", CLASS_ROUTINE,
        "dropped %s from node index %s, an index our topology does not have: the sender reads "
        "another topology file (its HELLO says which)"},
    [SATIN_REJECT_RATE] = {"rate_limited", CLASS_RATE,
        "node %s sends more than %s requests per second: dropping the excess"},
    [SATIN_REJECT_SENSELESS] = {"senseless", CLASS_BAD, "dropped a peer message: %s (from node %s)"},
    [SATIN_REJECT_NOT_MEMBER] = {"not_member", CLASS_ROUTINE,
        "dropped %s from node %s, which is not in our topology's membership any more (it left "
        "the grid, or reads a file that still lists it)"},
};

struct satin_admission {
    const satin_roster *roster;
    int self;
    size_t max_message;
    const satin_security *sec;
    satin_delivery *delivery;
    satin_admission_hooks hooks;
    /* Connections that said a good HELLO, by ROUTER routing id: a message
     * is believed only on a connection that greeted us as its sender.  The
     * HELLO said which membership the sender reads (`m`), and its index
     * there (`wire`), which its messages' node numbers are in. */
    struct conn {
        unsigned char rid[SATIN_NODE_RID_MAX];  /* a node's own, or a ROUTER-made one */
        size_t len;
        int node;                       /* our slot for it */
        int wire;
        const satin_membership *m;
    } *conns;
    size_t nconns, capconns;
    /* Per-node token buckets for requests. */
    double rate;
    char rate_text[32];
    double *tokens;            /* [ntokens], by slot */
    int64_t *refilled;         /* [ntokens] ns */
    int ntokens;
    uint64_t count[SATIN_REJECT_NREASONS];
    satin_log_limit limit[SATIN_REJECT_NREASONS];
    satin_log_limit restart_limit;
    uint64_t restarts_logged;
};

size_t satin_node_rid(const char *node_id, unsigned char rid[SATIN_NODE_RID_MAX])
{
    size_t n = strnlen(node_id, SATIN_NODE_RID_MAX - 1);
    rid[0] = 'N';
    memcpy(rid + 1, node_id, n);
    return n + 1;
}

void satin_admit_ctx_init(satin_admit_ctx *c, int64_t now)
{
    memset(c, 0, sizeof *c);
    c->key = "";
    c->now = now;
    c->node = -1;
}

satin_admission *satin_admission_new(const satin_roster *roster, size_t max_message,
                                     const satin_security *sec, satin_delivery *delivery,
                                     double request_rate, satin_admission_hooks hooks)
{
    satin_admission *a = calloc(1, sizeof *a);
    if (!a)
        abort();
    a->roster = roster;
    a->self = satin_roster_self(roster);
    a->max_message = max_message;
    a->sec = sec;
    a->delivery = delivery;
    a->hooks = hooks;
    a->rate = request_rate;
    snprintf(a->rate_text, sizeof a->rate_text, "%.0f", request_rate);
    satin_admission_membership_changed(a);
    return a;
}

void satin_admission_membership_changed(satin_admission *a)
{
    int n = satin_roster_nslots(a->roster);
    if (n > a->ntokens) {
        a->tokens = realloc(a->tokens, (size_t)n * sizeof *a->tokens);
        a->refilled = realloc(a->refilled, (size_t)n * sizeof *a->refilled);
        if (!a->tokens || !a->refilled)
            abort();
        for (int i = a->ntokens; i < n; i++) {
            a->tokens[i] = a->rate;
            a->refilled[i] = 0;
        }
        a->ntokens = n;
    }
    /* A node that left is heard no more, whatever it greeted us with. */
    for (size_t i = 0; i < a->nconns;)
        if (satin_roster_index(a->roster, a->conns[i].node) < 0)
            a->conns[i] = a->conns[--a->nconns];
        else
            i++;
}

void satin_admission_destroy(satin_admission **self)
{
    satin_admission *a = *self;
    if (!a)
        return;
    free(a->conns);
    free(a->tokens);
    free(a->refilled);
    free(a);
    *self = NULL;
}

/* ---- connections, tokens, stamps ------------------------------------------------ */

static struct conn *find_conn(satin_admission *a, const satin_wire_frame *rid)
{
    for (size_t i = 0; i < a->nconns; i++)
        if (a->conns[i].len == rid->len && memcmp(a->conns[i].rid, rid->data, rid->len) == 0)
            return &a->conns[i];
    return NULL;
}

static void bind_conn(satin_admission *a, const satin_wire_frame *rid, int node, int wire,
                      const satin_membership *m)
{
    struct conn *c = find_conn(a, rid);
    if (!c) {
        if (rid->len > sizeof c->rid)
            return;
        if (a->nconns == a->capconns) {
            a->capconns = a->capconns ? 2 * a->capconns : 16;
            a->conns = realloc(a->conns, a->capconns * sizeof *a->conns);
            if (!a->conns)
                abort();
        }
        c = &a->conns[a->nconns++];
        memcpy(c->rid, rid->data, rid->len);
        c->len = rid->len;
    }
    c->node = node;
    c->wire = wire;
    c->m = m;
}

static void unbind_conn(satin_admission *a, const satin_wire_frame *rid)
{
    struct conn *c = find_conn(a, rid);
    if (c)
        *c = a->conns[--a->nconns];
}

/* Delivery frames are believed only on a node's own connection (its fixed
 * routing id): a tool or an impostor speaking as that node elsewhere must
 * not acknowledge, or restart, the node's numbering. */
static int own_connection(const satin_admission *a, int node, const satin_wire_frame *rid)
{
    unsigned char want[SATIN_NODE_RID_MAX];
    size_t n = satin_node_rid(satin_roster_name(a->roster, node), want);
    return rid->len == n && memcmp(rid->data, want, n) == 0;
}

/* Messages a peer can send unasked, which make us work. */
static int is_request(int type)
{
    return type == SATIN_MSG_HELLO || type == SATIN_MSG_STEAL || type == SATIN_MSG_LOAD ||
           type == SATIN_MSG_STATS_REQUEST || type == SATIN_MSG_STEAL_CANCEL ||
           type == SATIN_MSG_HEARTBEAT || type == SATIN_MSG_JOBS_REQUEST;
}

static int take_token(satin_admission *a, int node, int64_t now)
{
    double t = a->tokens[node] + (double)(now - a->refilled[node]) / 1e9 * a->rate;
    a->refilled[node] = now;
    a->tokens[node] = t > a->rate ? a->rate : t;
    if (a->tokens[node] < 1.0)
        return 0;
    a->tokens[node] -= 1.0;
    return 1;
}

/* Logs each peer restart seen by the delivery layer once. */
static void note_restarts(satin_admission *a, int node)
{
    const satin_delivery_counters *dc = satin_delivery_counters_get(a->delivery);
    if (dc->peer_restarts == a->restarts_logged)
        return;
    a->restarts_logged = dc->peer_restarts;
    /* The new run knows none of our connections: our DEALER reconnected to
     * it without a HELLO, and it would drop what we send. */
    a->hooks.greet(a->hooks.ctx, node);
    satin_log_limited(&a->restart_limit, 10.0, SATIN_LOG_WARN,
                      "node %s restarted: messages queued for its previous run are dropped "
                      "(%llu so far); work it held for our jobs is lost",
                      satin_roster_name(a->roster, node), (unsigned long long)dc->discarded);
}

/* What the delivery layer says of the message's stamp (SATIN_DELIVERY_TAKE
 * or _DROP).  Elsewhere than on the node's own connection the message is
 * taken as unnumbered. */
static int receive_stamp(satin_admission *a, const satin_admit_ctx *c)
{
    if (!own_connection(a, c->node, &c->frame[0]))
        return SATIN_DELIVERY_TAKE;
    int r = satin_delivery_receive(a->delivery, c->node, &c->stamp, c->bare, c->now);
    note_restarts(a, c->node);
    return r;
}

/* ---- the stages ------------------------------------------------------------------ */

static satin_admit_verdict refuse(satin_admit_ctx *c, satin_reject_reason reason,
                                  const char *detail0, const char *detail1)
{
    c->reason = reason;
    c->detail[0] = detail0;
    c->detail[1] = detail1;
    return SATIN_ADMIT_REJECT;
}

static const char *node_id(const satin_admission *a, int node)
{
    return satin_roster_name(a->roster, node);
}

static satin_admit_verdict stage_shape(satin_admission *a, satin_admit_ctx *c)
{
    (void)a;
    if (c->nframes == 2 && !c->extra) {
        c->bare = 1;
        return SATIN_ADMIT_PASS;
    }
    if (c->nframes == SATIN_ADMIT_FRAMES && !c->extra)
        return SATIN_ADMIT_PASS;
    /* What the sender sent: the routing id is the ROUTER's. */
    snprintf(c->count, sizeof c->count, "%d", c->nframes - 1 + c->extra);
    return refuse(c, SATIN_REJECT_SHAPE, c->count, NULL);
}

static satin_admit_verdict stage_stamp(satin_admission *a, satin_admit_ctx *c)
{
    (void)a;
    if (satin_delivery_stamp_decode(c->frame[1].data, c->frame[1].len, &c->stamp) == 0)
        return SATIN_ADMIT_PASS;
    return refuse(c, SATIN_REJECT_STAMP, c->bare ? "an acknowledgement" : "a peer message", NULL);
}

static satin_admit_verdict stage_decode(satin_admission *a, satin_admit_ctx *c)
{
    if (c->bare)
        return SATIN_ADMIT_PASS;
    /* Records' arguments and results are not copied out of the body frame:
     * the caller keeps the frame as long as the message (satin_peers_recv
     * ties it to an accepted one). */
    c->msg = satin_msg_decode_borrowed(c->frame[2].data, c->frame[2].len, c->frame[3].data,
                                       c->frame[3].len, a->max_message, &c->err);
    return c->msg ? SATIN_ADMIT_PASS : refuse(c, SATIN_REJECT_DECODE, c->err.text, NULL);
}

/* An acknowledgement names no sender: its connection does, once greeted. */
static satin_admit_verdict identify_ack(satin_admission *a, satin_admit_ctx *c)
{
    struct conn *k = find_conn(a, &c->frame[0]);
    snprintf(c->what, sizeof c->what, "an acknowledgement");
    if (!k || !own_connection(a, k->node, &c->frame[0]))
        return refuse(c, SATIN_REJECT_ACK_CONNECTION, NULL, NULL);
    c->node = k->node;
    c->wire = k->wire;
    c->membership = k->m;
    return SATIN_ADMIT_PASS;
}

/* The membership a HELLO's sender reads, when it is one this node has read
 * too (the current one or an earlier one: a node that has not re-read the
 * file yet, or one we re-read before it did) and its id is the one that
 * file has at its index; else NULL.  Everything a HELLO must agree on is
 * compared here. */
static const satin_membership *hello_membership(const satin_admission *a,
                                                const satin_msg *hello)
{
    const satin_membership *m = satin_roster_find(a->roster, hello->digest);
    if (!m)
        return NULL;
    const satin_topology *t = m->topo;
    if (strcmp(hello->grid_name, t->name) != 0 || hello->node_count != (uint32_t)t->nnodes ||
        hello->sender >= (uint32_t)t->nnodes || strcmp(hello->node_id, t->nodes[hello->sender].id) != 0)
        return NULL;
    return m;
}

/* A HELLO of a membership we never read: how its file differs from ours,
 * for the log.  It is decodable whatever its node count, so the line can
 * name the node. */
static satin_admit_verdict foreign_hello(satin_admission *a, satin_admit_ctx *c)
{
    const satin_msg *m = c->msg;
    const satin_membership *cur = satin_roster_current(a->roster);
    const satin_topology *t = cur->topo;
    char how[120], theirs[16], ours[16];
    if (strcmp(m->grid_name, t->name) != 0)
        snprintf(how, sizeof how, "it is grid %s, we are grid %s", m->grid_name, t->name);
    else if (m->node_count != (uint32_t)t->nnodes)
        snprintf(how, sizeof how, "it lists %lu nodes, we list %d", (unsigned long)m->node_count,
                 t->nnodes);
    else if (m->sender >= (uint32_t)t->nnodes)
        snprintf(how, sizeof how, "it claims index %lu, we list %d nodes",
                 (unsigned long)m->sender, t->nnodes);
    else if (strcmp(m->node_id, t->nodes[m->sender].id) != 0)
        snprintf(how, sizeof how, "it is node %s at index %lu, where we list node %s",
                 m->node_id, (unsigned long)m->sender, t->nodes[m->sender].id);
    else
        snprintf(how, sizeof how,
                 "both list %d nodes, but clusters, node ids, endpoints or keys differ", t->nnodes);
    satin_topology_digest_hex(m->digest, theirs, sizeof theirs);
    satin_topology_digest_hex(cur->digest, ours, sizeof ours);
    snprintf(c->what, sizeof c->what, "%s (membership digest %s, ours %s)", how, theirs, ours);
    /* Whatever this connection said before, it is no longer believed. */
    unbind_conn(a, &c->frame[0]);
    snprintf(c->who, sizeof c->who, "%s", m->node_id);
    return refuse(c, SATIN_REJECT_OTHER_GRID, c->who, c->what);
}

/* The node whose own connection this is (its routing id names it), or -1. */
static int node_of_connection(const satin_admission *a, const satin_wire_frame *rid)
{
    const unsigned char *b = rid->data;
    char id[SATIN_NODE_RID_MAX];
    if (rid->len < 2 || rid->len >= SATIN_NODE_RID_MAX || b[0] != 'N')
        return -1;
    memcpy(id, b + 1, rid->len - 1);
    id[rid->len - 1] = 0;
    return satin_roster_slot_named(a->roster, id);
}

/* The sender of a message that did not greet us (or of a HELLO of a file
 * we never read), as our current file knows it: what it is counted,
 * rate-limited and asked to greet us as.  Its index may be one of another
 * file, so the connection's key (under CURVE) or its routing id names it;
 * on another connection (a tool), its index in our file. */
static satin_admit_verdict identify_by_our_file(satin_admission *a, satin_admit_ctx *c)
{
    const satin_msg *m = c->msg;
    const satin_topology *t = satin_roster_topology(a->roster);
    int by_key = c->key[0] ? satin_topology_node_of_key(t, c->key) : -1;
    int slot = by_key >= 0 ? satin_roster_slot(a->roster, by_key)
                           : node_of_connection(a, &c->frame[0]);
    if (slot >= 0) {
        c->node = slot;
        c->wire = (int)m->sender;
        c->membership = NULL;
        if (m->type == SATIN_MSG_HELLO && strcmp(satin_roster_name(a->roster, slot), m->node_id) != 0)
            return foreign_hello(a, c);
        return SATIN_ADMIT_PASS;
    }
    if (m->sender >= (uint32_t)t->nnodes ||
        (m->type == SATIN_MSG_HELLO && strcmp(t->nodes[m->sender].id, m->node_id) != 0)) {
        /* A HELLO from an index our file does not have is another
         * topology's node: nothing to rate-limit it by. */
        if (m->type == SATIN_MSG_HELLO)
            return foreign_hello(a, c);
        snprintf(c->count, sizeof c->count, "%lu", (unsigned long)m->sender);
        return refuse(c, SATIN_REJECT_UNKNOWN_INDEX, c->what, c->count);
    }
    c->node = satin_roster_slot(a->roster, (int)m->sender);
    c->wire = (int)m->sender;
    c->membership = NULL;
    return SATIN_ADMIT_PASS;
}

static satin_admit_verdict identify_message(satin_admission *a, satin_admit_ctx *c)
{
    const satin_msg *m = c->msg;
    snprintf(c->what, sizeof c->what, "a %s", satin_msg_type_name(m->type));
    if (!satin_msg_is_peer(m->type))
        return refuse(c, SATIN_REJECT_SENDER, c->what, "?");
    const satin_membership *hm = m->type == SATIN_MSG_HELLO ? hello_membership(a, m) : NULL;
    struct conn *k = m->type == SATIN_MSG_HELLO ? NULL : find_conn(a, &c->frame[0]);
    if (hm) {
        c->node = hm->slot_of[m->sender];
        c->wire = (int)m->sender;
        c->membership = hm;
    } else if (k && k->wire == (int)m->sender) {
        c->node = k->node;
        c->wire = k->wire;
        c->membership = k->m;
    } else {
        satin_admit_verdict v = identify_by_our_file(a, c);
        if (v != SATIN_ADMIT_PASS)
            return v;
    }
    if (c->node == a->self)
        return refuse(c, SATIN_REJECT_SENDER, c->what, node_id(a, c->node));
    return SATIN_ADMIT_PASS;
}

/* The key the sender's membership lists for it ("" when none). */
static const char *listed_key(const satin_admission *a, const satin_admit_ctx *c)
{
    if (c->membership)
        return c->membership->topo->nodes[c->wire].public_key;
    const satin_node_def *n = satin_roster_node(a->roster, c->node);
    return n ? n->public_key : "";
}

static satin_admit_verdict stage_identity(satin_admission *a, satin_admit_ctx *c)
{
    satin_admit_verdict v = c->bare ? identify_ack(a, c) : identify_message(a, c);
    if (v != SATIN_ADMIT_PASS)
        return v;
    /* A node that left is no longer listed: its key is not what to blame. */
    if (satin_roster_index(a->roster, c->node) < 0)
        return refuse(c, SATIN_REJECT_NOT_MEMBER, c->what, node_id(a, c->node));
    /* zauth let the key in (it is listed), but it may be another node's. */
    if (!satin_security_key_matches(a->sec, c->key, listed_key(a, c)))
        return refuse(c, SATIN_REJECT_KEY, c->what, node_id(a, c->node));
    return SATIN_ADMIT_PASS;
}

static satin_admit_verdict take_hello(satin_admission *a, satin_admit_ctx *c)
{
    const char *id = node_id(a, c->node);
    /* A HELLO is a request too, limited before it may rebind a connection. */
    if (!take_token(a, c->node, c->now))
        return refuse(c, SATIN_REJECT_RATE, id, a->rate_text);
    if (!c->membership)
        return foreign_hello(a, c);
    bind_conn(a, &c->frame[0], c->node, c->wire, c->membership);
    receive_stamp(a, c);
    /* It dropped our messages for want of a HELLO on our connection (it
     * re-read its file, or refused an earlier HELLO of ours). */
    if (c->msg->flags & SATIN_HELLO_ASK)
        a->hooks.answer(a->hooks.ctx, c->node);
    /* The transport answers in the file the node reads. */
    if (a->hooks.greeted)
        a->hooks.greeted(a->hooks.ctx, c->node, c->membership, c->msg);
    return SATIN_ADMIT_CONSUMED;
}

static satin_admit_verdict stage_greeting(satin_admission *a, satin_admit_ctx *c)
{
    if (c->bare)
        return SATIN_ADMIT_PASS;   /* identify_ack found its greeted connection */
    if (c->msg->type == SATIN_MSG_HELLO)
        return take_hello(a, c);
    if (c->membership)
        return SATIN_ADMIT_PASS;   /* identify_message found its greeted connection */
    /* On the node's own connection this is a node that greeted a previous
     * run of ours, or another membership of ours: greet it, asking it to
     * greet us again (our new epoch alone would make it, not our new file). */
    if (own_connection(a, c->node, &c->frame[0]))
        a->hooks.greet_again(a->hooks.ctx, c->node);
    return refuse(c, SATIN_REJECT_NOT_GREETED, c->what, node_id(a, c->node));
}

static satin_admit_verdict stage_sequence(satin_admission *a, satin_admit_ctx *c)
{
    int r = receive_stamp(a, c);
    /* An acknowledgement has done its work; a duplicate, a message past a
     * gap the sender will fill, or one from its previous run is not bad. */
    return c->bare || r != SATIN_DELIVERY_TAKE ? SATIN_ADMIT_CONSUMED : SATIN_ADMIT_PASS;
}

/* Results and replies answer our own requests: never limited. */
static satin_admit_verdict stage_rate(satin_admission *a, satin_admit_ctx *c)
{
    if (is_request(c->msg->type) && !take_token(a, c->node, c->now))
        return refuse(c, SATIN_REJECT_RATE, node_id(a, c->node), a->rate_text);
    return SATIN_ADMIT_ACCEPT;
}

static const satin_admit_stage stages[] = {
    {"frame shape", stage_shape},
    {"delivery stamp", stage_stamp},
    {"decode", stage_decode},
    {"node identity and key", stage_identity},
    {"greeting", stage_greeting},
    {"sequence", stage_sequence},
    {"rate limit", stage_rate},
};

const satin_admit_stage *satin_admission_stages(size_t *count)
{
    *count = sizeof stages / sizeof *stages;
    return stages;
}

satin_admit_verdict satin_admission_run(satin_admission *a, satin_admit_ctx *c)
{
    satin_admit_verdict v = SATIN_ADMIT_PASS;
    for (size_t i = 0; v == SATIN_ADMIT_PASS && i < sizeof stages / sizeof *stages; i++) {
        v = stages[i].run(a, c);
        c->stage = stages[i].name;
    }
    if (v == SATIN_ADMIT_REJECT)
        satin_admission_reject(a, c->reason, c->detail[0], c->detail[1]);
    if (v != SATIN_ADMIT_ACCEPT)
        satin_msg_destroy(&c->msg);
    return v;
}

/* ---- rejections ------------------------------------------------------------------ */

satin_admit_verdict satin_admission_reject(satin_admission *a, satin_reject_reason reason,
                                           const char *detail0, const char *detail1)
{
    if ((unsigned)reason >= SATIN_REJECT_NREASONS)
        reason = SATIN_REJECT_SENSELESS;
    a->count[reason]++;
    satin_log_limited(&a->limit[reason], REJECT_LOG_INTERVAL_S, SATIN_LOG_WARN,
                      reasons[reason].text, detail0 ? detail0 : "", detail1 ? detail1 : "");
    return SATIN_ADMIT_REJECT;
}

void satin_admission_note_bad(satin_admission *a, const char *what, int node)
{
    satin_admission_reject(a, SATIN_REJECT_SENSELESS, what, node_id(a, node));
}

const char *satin_admission_reason_name(satin_reject_reason reason)
{
    return (unsigned)reason < SATIN_REJECT_NREASONS ? reasons[reason].name : "?";
}

uint64_t satin_admission_count(const satin_admission *a, satin_reject_reason reason)
{
    return (unsigned)reason < SATIN_REJECT_NREASONS ? a->count[reason] : 0;
}

static uint64_t total_of(const satin_admission *a, int class)
{
    uint64_t n = 0;
    for (int r = 0; r < SATIN_REJECT_NREASONS; r++)
        if (reasons[r].class == class)
            n += a->count[r];
    return n;
}

uint64_t satin_admission_bad(const satin_admission *a)
{
    return total_of(a, CLASS_BAD);
}

uint64_t satin_admission_routine(const satin_admission *a)
{
    return total_of(a, CLASS_ROUTINE);
}
