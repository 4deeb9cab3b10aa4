/* test_admission.c - the stages a peer message passes before the node
 * engine sees it (daemon/admission.h), on frames built by hand: node 1 of a
 * 4-node grid hears from node 0 on node 0's own connection and from a tool
 * on a connection of its own.  No sockets, no keys (security off). */
#include "../tap.h"
#include "admission.h"
#include "log.h"

#include <string.h>

#define SELF 1
#define SEC 1000000000LL

static satin_topology *topo;
static satin_roster *roster;
static satin_delivery *delivery;
static satin_admission *adm;
static int greets[4], greets_again[4], answers[4];
static int64_t now = 5 * SEC;

static const uint64_t E0 = 0xE0E0E0E0ull;           /* node 0's run */
static unsigned char own0[SATIN_NODE_RID_MAX];       /* node 0's own connection */
static size_t own0_len;
static const unsigned char tool[] = {0, 0x6b, 0x8b, 0x45, 0x67};   /* a ROUTER-made id */

static void on_greet(void *ctx, int node)
{
    (void)ctx;
    greets[node]++;
}

static void on_answer(void *ctx, int node)
{
    (void)ctx;
    answers[node]++;
}

static void on_greet_again(void *ctx, int node)
{
    (void)ctx;
    greets_again[node]++;
}

static int wire(void *ctx, int peer, const unsigned char *frame, const void *hdr, size_t hlen,
                const void *body, size_t blen, satin_shared_bytes *bytes, int again)
{
    (void)ctx, (void)peer, (void)frame, (void)hdr, (void)hlen, (void)body, (void)blen,
        (void)bytes, (void)again;
    return 0;
}

static void setup(double rate)
{
    static const char yaml[] =
        "grid: test-4\npolicy: rs\nsecurity: none\nclusters:\n"
        "  - name: c\n    nodes:\n"
        "      - {id: n0, endpoint: \"tcp://127.0.0.1:7301\"}\n"
        "      - {id: n1, endpoint: \"tcp://127.0.0.1:7302\"}\n"
        "      - {id: n2, endpoint: \"tcp://127.0.0.1:7303\"}\n"
        "      - {id: n3, endpoint: \"tcp://127.0.0.1:7304\"}\n";
    char err[256];
    topo = satin_topology_parse("test.yaml", yaml, strlen(yaml), err, sizeof err);
    if (!topo) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
    delivery = satin_delivery_new(topo->nnodes, 0xE1E1ull, wire, NULL);
    roster = satin_roster_new(topo, SELF);
    adm = satin_admission_new(roster, 1 << 20, NULL, delivery, rate,
                              (satin_admission_hooks){NULL, on_greet, on_greet_again, on_answer, NULL});
    own0_len = satin_node_rid("n0", own0);
}

/* Runs [rid][stamp][header][body] (no message: [rid][stamp]) through the
 * stages; an accepted message is left in c->msg. */
static satin_admit_verdict admit(satin_admit_ctx *c, const unsigned char *rid, size_t rlen,
                                 uint64_t epoch, uint64_t seq, const satin_msg *m)
{
    unsigned char f[SATIN_DELIVERY_FRAME_SIZE], *h = NULL, *b = NULL;
    size_t hl = 0, bl = 0;
    satin_delivery_stamp_encode(&(satin_delivery_stamp){.epoch = epoch, .seq = seq}, f);
    satin_admit_ctx_init(c, now);
    c->frame[0] = (satin_wire_frame){rid, rlen};
    c->frame[1] = (satin_wire_frame){f, sizeof f};
    c->nframes = 2;
    if (m) {
        if (satin_msg_encode(m, &h, &hl, &b, &bl) < 0)
            diag("cannot encode a %s", satin_msg_type_name(m->type));
        c->frame[2] = (satin_wire_frame){h, hl};
        c->frame[3] = (satin_wire_frame){b, bl};
        c->nframes = 4;
    }
    satin_admit_verdict v = satin_admission_run(adm, c);
    free(h);
    free(b);
    return v;
}

static satin_msg *steal(uint32_t from)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL);
    m->sender = from;
    m->thief = from;
    m->max_jobs = 1;
    return m;
}

/* A HELLO as node `from` of our topology says it: its id and our digest. */
static satin_msg *hello(uint32_t from, const char *grid, uint32_t nodes)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_HELLO);
    m->sender = from;
    satin_msg_set_grid_name(m, grid);
    m->node_count = nodes;
    satin_msg_set_node_id(m, from < (uint32_t)topo->nnodes ? topo->nodes[from].id : "nx");
    satin_topology_digest(topo, m->digest);
    return m;
}

static satin_msg *job_cancel(uint32_t from)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_JOB_CANCEL);
    m->sender = from;
    m->owner = from;
    satin_msg_add_record_id(m, 7);
    return m;
}

static uint64_t count(satin_reject_reason r)
{
    return satin_admission_count(adm, r);
}

/* Expects a rejection for `reason` at `stage`, counted once more. */
static void rejected(satin_admit_verdict v, const satin_admit_ctx *c, satin_reject_reason reason,
                     const char *stage, uint64_t before, const char *what)
{
    ok(v == SATIN_ADMIT_REJECT && c->reason == reason && c->stage && strcmp(c->stage, stage) == 0,
       "%s: rejected as %s at '%s' (verdict %d, reason %s, stage %s)", what,
       satin_admission_reason_name(reason), stage, (int)v, satin_admission_reason_name(c->reason),
       c->stage ? c->stage : "-");
    ok(count(reason) == before + 1 && c->msg == NULL, "%s: counted, message freed", what);
}

static void stage_list(void)
{
    size_t n;
    const satin_admit_stage *s = satin_admission_stages(&n);
    const char *want[] = {"frame shape", "delivery stamp", "decode", "node identity and key",
                          "greeting", "sequence", "rate limit"};
    int same = n == sizeof want / sizeof *want;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(s[i].name, want[i]) == 0 && s[i].run;
    ok(same, "seven stages, in order: shape, stamp, decode, identity, greeting, sequence, rate");
}

static void shapes_and_codec(void)
{
    satin_admit_ctx c;
    unsigned char f[SATIN_DELIVERY_FRAME_SIZE];
    satin_delivery_stamp_encode(&(satin_delivery_stamp){.epoch = E0}, f);
    satin_admit_ctx_init(&c, now);
    c.frame[0] = (satin_wire_frame){own0, own0_len};
    c.frame[1] = (satin_wire_frame){f, sizeof f};
    c.frame[2] = (satin_wire_frame){"x", 1};
    c.nframes = 3;
    uint64_t b = count(SATIN_REJECT_SHAPE);
    rejected(satin_admission_run(adm, &c), &c, SATIN_REJECT_SHAPE, "frame shape", b, "3 frames");
    is_str(c.detail[0], "2", "the count is of the frames the sender sent");
    satin_admit_ctx_init(&c, now);
    c.frame[0] = (satin_wire_frame){own0, own0_len};
    c.nframes = 4;
    c.extra = 3;
    rejected(satin_admission_run(adm, &c), &c, SATIN_REJECT_SHAPE, "frame shape", b + 1,
             "4 frames and 3 more");

    b = count(SATIN_REJECT_STAMP);
    satin_admit_ctx_init(&c, now);
    c.frame[0] = (satin_wire_frame){tool, sizeof tool};
    c.frame[1] = (satin_wire_frame){"junk", 4};
    c.nframes = 2;
    rejected(satin_admission_run(adm, &c), &c, SATIN_REJECT_STAMP, "delivery stamp", b,
             "one frame of garbage");
    is_str(c.detail[0], "an acknowledgement", "read as an acknowledgement");

    b = count(SATIN_REJECT_DECODE);
    satin_admit_ctx_init(&c, now);
    c.frame[0] = (satin_wire_frame){own0, own0_len};
    c.frame[1] = (satin_wire_frame){f, sizeof f};
    c.frame[2] = (satin_wire_frame){"not a header", 12};
    c.frame[3] = (satin_wire_frame){"", 0};
    c.nframes = 4;
    rejected(satin_admission_run(adm, &c), &c, SATIN_REJECT_DECODE, "decode", b, "a bad header");
    ok(c.detail[0] && c.detail[0][0], "with the codec's complaint (%s)", c.detail[0]);
}

static void identities(void)
{
    satin_admit_ctx c;
    satin_msg *m;
    uint64_t b = count(SATIN_REJECT_UNKNOWN_INDEX);
    m = steal(9);
    rejected(admit(&c, tool, sizeof tool, E0, 0, m), &c, SATIN_REJECT_UNKNOWN_INDEX,
             "node identity and key", b, "a STEAL from node index 9 of 4 on a tool's connection");
    is_str(c.detail[1], "9", "the log names the index, not a node it is not");
    /* On node 0's own connection the index is one of the file node 0
     * reads, which may list more nodes than ours: node 0 did not greet us
     * in a file we know, and is asked to. */
    uint64_t g = count(SATIN_REJECT_NOT_GREETED);
    rejected(admit(&c, own0, own0_len, E0, 0, m), &c, SATIN_REJECT_NOT_GREETED, "greeting", g,
             "the same on node 0's own connection");
    is_i64(greets_again[0], 1, "node 0 is greeted, and asked to greet us");
    greets_again[0] = 0;
    satin_msg_destroy(&m);
    b = count(SATIN_REJECT_SENDER);
    m = steal(SELF);
    rejected(admit(&c, tool, sizeof tool, E0, 0, m), &c, SATIN_REJECT_SENDER,
             "node identity and key", b, "a STEAL claiming to come from ourselves");
    satin_msg_destroy(&m);
    m = satin_msg_new(SATIN_MSG_STATUS);
    rejected(admit(&c, own0, own0_len, E0, 0, m), &c, SATIN_REJECT_SENDER,
             "node identity and key", b + 1, "a client's STATUS on the peer socket");
    satin_msg_destroy(&m);

    b = count(SATIN_REJECT_ACK_CONNECTION);
    rejected(admit(&c, own0, own0_len, E0, 0, NULL), &c, SATIN_REJECT_ACK_CONNECTION,
             "node identity and key", b, "an acknowledgement before any HELLO");
}

static void greetings(void)
{
    satin_admit_ctx c;
    satin_msg *m = steal(0);
    uint64_t b = count(SATIN_REJECT_NOT_GREETED);
    rejected(admit(&c, tool, sizeof tool, E0, 0, m), &c, SATIN_REJECT_NOT_GREETED, "greeting", b,
             "a STEAL as node 0 on a connection that never greeted us");
    is_i64(greets_again[0], 0, "a stranger's connection gets no HELLO from us");
    rejected(admit(&c, own0, own0_len, E0, 0, m), &c, SATIN_REJECT_NOT_GREETED, "greeting",
             b + 1, "a STEAL on node 0's own connection before its HELLO");
    is_i64(greets_again[0], 1, "node 0 is greeted again (it greeted a previous run of ours)");
    satin_msg_destroy(&m);

    b = count(SATIN_REJECT_OTHER_GRID);
    m = hello(0, "other-grid", 4);
    rejected(admit(&c, own0, own0_len, E0, 0, m), &c, SATIN_REJECT_OTHER_GRID, "greeting", b,
             "a HELLO for another grid");
    ok(c.detail[1] && strncmp(c.detail[1], "it is grid other-grid, we are grid test-4 (membership digest ", 61) == 0,
       "the log says how the topologies differ: %s", c.detail[1] ? c.detail[1] : "-");
    is_str(c.detail[0], "n0", "and names the node by the id its HELLO gives");
    satin_msg_destroy(&m);
    m = hello(0, "test-4", 5);
    rejected(admit(&c, own0, own0_len, E0, 0, m), &c, SATIN_REJECT_OTHER_GRID, "greeting",
             b + 1, "a HELLO with another node count");
    satin_msg_destroy(&m);
    now += SEC;
    m = hello(0, "test-4", 4);
    m->digest[0] ^= 1;
    rejected(admit(&c, own0, own0_len, E0, 0, m), &c, SATIN_REJECT_OTHER_GRID, "greeting",
             b + 2, "a HELLO whose membership digest differs");
    ok(c.detail[1] && strstr(c.detail[1], "both list 4 nodes, but clusters, node ids, endpoints "
                                          "or keys differ"),
       "the log says the files list as many nodes but differ");
    satin_msg_destroy(&m);
    m = hello(7, "test-4", 8);
    rejected(admit(&c, own0, own0_len, E0, 0, m), &c, SATIN_REJECT_OTHER_GRID,
             "node identity and key", b + 3, "a HELLO from an index our file does not have");
    ok(c.detail[1] && strstr(c.detail[1], "it lists 8 nodes, we list 4"),
       "the log gives both node counts");
    satin_msg_destroy(&m);

    now += SEC;   /* the two HELLOs above took tokens too */
    m = hello(0, "test-4", 4);
    satin_admit_verdict v = admit(&c, own0, own0_len, E0, 0, m);
    satin_msg_destroy(&m);
    ok(v == SATIN_ADMIT_CONSUMED && c.node == 0 && strcmp(c.stage, "greeting") == 0 && !c.msg,
       "a matching HELLO on node 0's own connection is taken at 'greeting', not for the engine");
    m = steal(0);
    v = admit(&c, own0, own0_len, E0, 0, m);
    ok(v == SATIN_ADMIT_ACCEPT && c.node == 0 && c.msg && c.msg->type == SATIN_MSG_STEAL,
       "then node 0's STEAL is accepted");
    satin_msg_destroy(&c.msg);
    satin_msg_destroy(&m);
    v = admit(&c, own0, own0_len, E0, 0, NULL);
    ok(v == SATIN_ADMIT_CONSUMED && c.node == 0 && strcmp(c.stage, "sequence") == 0,
       "and its acknowledgement alone is taken at 'sequence'");
}

static void sequence(void)
{
    satin_admit_ctx c;
    satin_msg *m = job_cancel(0);
    satin_admit_verdict v = admit(&c, own0, own0_len, E0, 1, m);
    ok(v == SATIN_ADMIT_ACCEPT, "numbered message 1 from node 0 is accepted");
    satin_msg_destroy(&c.msg);
    uint64_t bad = satin_admission_bad(adm);
    v = admit(&c, own0, own0_len, E0, 1, m);
    ok(v == SATIN_ADMIT_CONSUMED && strcmp(c.stage, "sequence") == 0 && !c.msg,
       "the same number again is a duplicate: consumed at 'sequence'");
    v = admit(&c, own0, own0_len, E0, 5, m);
    ok(v == SATIN_ADMIT_CONSUMED, "a number past a gap too");
    is_i64(satin_admission_bad(adm), bad, "neither counts as bad");
    is_i64(satin_delivery_counters_get(delivery)->duplicates, 1, "the delivery layer saw one duplicate");
    satin_msg_destroy(&m);

    /* A tool's HELLO as node 3 binds only its own connection, whose stamps
     * are not believed: its numbered message is taken as unnumbered. */
    m = hello(3, "test-4", 4);
    ok(admit(&c, tool, sizeof tool, 0x7001, 0, m) == SATIN_ADMIT_CONSUMED, "a tool greets as node 3");
    satin_msg_destroy(&m);
    m = job_cancel(3);
    v = admit(&c, tool, sizeof tool, 0x7001, 9, m);
    ok(v == SATIN_ADMIT_ACCEPT && c.node == 3, "its message numbered 9 is accepted as unnumbered");
    satin_msg_destroy(&c.msg);
    satin_msg_destroy(&m);
    is_i64(satin_delivery_counters_get(delivery)->out_of_order, 1,
           "and left node 3's numbering alone");

    int before = greets[0];
    now += 10 * SEC;
    m = steal(0);
    v = admit(&c, own0, own0_len, E0 + 1, 0, m);
    ok(v == SATIN_ADMIT_ACCEPT, "a message of node 0's next run is accepted");
    satin_msg_destroy(&c.msg);
    satin_msg_destroy(&m);
    is_i64(satin_delivery_counters_get(delivery)->peer_restarts, 1, "as node 0's restart");
    is_i64(greets[0], before + 1, "which we greet at once");
}

static void rates(void)
{
    satin_admit_ctx c;
    satin_msg *m = steal(0);
    now += 10 * SEC;   /* full buckets: 3 requests */
    uint64_t b = count(SATIN_REJECT_RATE), bad = satin_admission_bad(adm);
    int accepted = 0;
    for (int i = 0; i < 3; i++) {
        accepted += admit(&c, own0, own0_len, E0 + 1, 0, m) == SATIN_ADMIT_ACCEPT;
        satin_msg_destroy(&c.msg);
    }
    is_i64(accepted, 3, "3 requests within a second at rate 3 are accepted");
    rejected(admit(&c, own0, own0_len, E0 + 1, 0, m), &c, SATIN_REJECT_RATE, "rate limit", b,
             "a 4th");
    is_str(c.detail[1], "3", "the log names the rate");
    satin_msg_destroy(&m);
    m = job_cancel(0);
    ok(admit(&c, own0, own0_len, E0 + 1, 1, m) == SATIN_ADMIT_ACCEPT,
       "a JOB_CANCEL past the rate is accepted: only requests are limited");
    satin_msg_destroy(&c.msg);
    satin_msg_destroy(&m);
    m = hello(0, "test-4", 4);
    rejected(admit(&c, own0, own0_len, E0 + 1, 0, m), &c, SATIN_REJECT_RATE, "greeting", b + 1,
             "a HELLO past the rate, before it may rebind the connection");
    satin_msg_destroy(&m);
    is_i64(satin_admission_bad(adm), bad, "the rate limit's drops are not bad messages");
}

static void table(void)
{
    uint64_t b = count(SATIN_REJECT_SENSELESS);
    satin_admission_note_bad(adm, "a JOB_RESULT for record 9, which we never gave away", 2);
    satin_admission_note_bad(adm, "out of range", 77);
    is_i64(count(SATIN_REJECT_SENSELESS), b + 2, "the engine's complaints are counted as senseless");
    uint64_t bad = 0, routine = 0;
    int names_ok = 1;
    for (int r = 0; r < SATIN_REJECT_NREASONS; r++) {
        const char *name = satin_admission_reason_name(r);
        names_ok &= name && name[0] && strcmp(name, "?") != 0 && strchr(name, ' ') == NULL;
        for (int k = 0; k < r; k++)
            names_ok &= strcmp(name, satin_admission_reason_name(k)) != 0;
        if (r == SATIN_REJECT_NOT_GREETED || r == SATIN_REJECT_OTHER_GRID ||
            r == SATIN_REJECT_UNKNOWN_INDEX || r == SATIN_REJECT_NOT_MEMBER)
            routine += count(r);
        else if (r != SATIN_REJECT_RATE)
            bad += count(r);
    }
    ok(names_ok, "every reason has a distinct counter name");
    is_str(satin_admission_reason_name(SATIN_REJECT_NOT_GREETED), "not_greeted", "e.g. not_greeted");
    ok(bad > 0 && routine > 0, "both kinds were counted above (%llu bad, %llu routine)",
       (unsigned long long)bad, (unsigned long long)routine);
    is_i64(satin_admission_bad(adm), bad,
           "bad_peer_messages: malformed, forged and senseless messages only");
    is_i64(satin_admission_routine(adm), routine,
           "peer_messages_refused: not greeted, another grid, unknown index, no member");
    ok(satin_admission_reject(adm, SATIN_REJECT_NREASONS + 3, NULL, NULL) == SATIN_ADMIT_REJECT &&
           count(SATIN_REJECT_SENSELESS) == b + 3,
       "an unknown reason is counted as senseless, not out of the table");
}

/* A HELLO as the node at `index` of file t says it. */
static satin_msg *hello_in(const satin_topology *t, uint32_t index)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_HELLO);
    m->sender = index;
    satin_msg_set_grid_name(m, t->name);
    m->node_count = (uint32_t)t->nnodes;
    satin_msg_set_node_id(m, t->nodes[index].id);
    satin_topology_digest(t, m->digest);
    return m;
}

/* The membership changes (SIGHUP): n3 leaves, n4 joins at index 2, n2
 * moves to index 3, a node with a 63-byte id joins at index 4.  Nodes that still read the old file are understood
 * in it; one that left is not. */
static void memberships(void)
{
    static const char yaml[] =
        "grid: test-4\npolicy: rs\nsecurity: none\nclusters:\n"
        "  - name: c\n    nodes:\n"
        "      - {id: n0, endpoint: \"tcp://127.0.0.1:7301\"}\n"
        "      - {id: n1, endpoint: \"tcp://127.0.0.1:7302\"}\n"
        "      - {id: n4, endpoint: \"tcp://127.0.0.1:7305\"}\n"
        "      - {id: n2, endpoint: \"tcp://127.0.0.1:7303\"}\n"
        "      - {id: nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn, "
        "endpoint: \"tcp://127.0.0.1:7306\"}\n";
    char err[256];
    satin_topology *next = satin_topology_parse("next.yaml", yaml, strlen(yaml), err, sizeof err);
    if (!next) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
    is_i64(satin_roster_update(roster, next), 2, "the new file adds two nodes (n4, a long id)");
    satin_admission_membership_changed(adm);
    satin_delivery_grow(delivery, satin_roster_nslots(roster));   /* as the transport does */
    is_i64(satin_roster_slot_named(roster, "n4"), 4, "n4 takes the next slot");
    is_i64(satin_roster_index(roster, 2), 3, "n2 keeps its slot, at index 3 of the new file");
    is_i64(satin_roster_index(roster, 3), -1, "n3 is a member no more");
    now += 10 * SEC;

    satin_admit_ctx c;
    satin_msg *m = hello_in(topo, 0);
    ok(admit(&c, own0, own0_len, E0 + 1, 0, m) == SATIN_ADMIT_CONSUMED && c.membership &&
           c.membership->topo == topo,
       "n0's HELLO in the old file is taken: it has not re-read the file yet");
    satin_msg_destroy(&m);
    m = steal(0);
    satin_admit_verdict v = admit(&c, own0, own0_len, E0 + 1, 0, m);
    ok(v == SATIN_ADMIT_ACCEPT && c.node == 0, "and its steal request is read in the old file "
       "(verdict %d, reason %s, node %d)", (int)v, satin_admission_reason_name(c.reason), c.node);
    satin_msg_destroy(&c.msg);
    satin_msg_destroy(&m);

    unsigned char rid2[SATIN_NODE_RID_MAX];
    size_t rid2_len = satin_node_rid("n2", rid2);
    m = hello_in(next, 3);
    ok(admit(&c, rid2, rid2_len, 0xE2, 0, m) == SATIN_ADMIT_CONSUMED && c.node == 2 && c.wire == 3,
       "n2's HELLO in the new file is taken: index 3 there, slot 2 here");
    satin_msg_destroy(&m);
    m = steal(3);
    ok(admit(&c, rid2, rid2_len, 0xE2, 0, m) == SATIN_ADMIT_ACCEPT && c.node == 2,
       "and its index 3 names it, not n3");
    satin_msg_destroy(&c.msg);
    satin_msg_destroy(&m);

    unsigned char rid3[SATIN_NODE_RID_MAX];
    size_t rid3_len = satin_node_rid("n3", rid3);
    uint64_t b = count(SATIN_REJECT_NOT_MEMBER);
    m = hello_in(topo, 3);
    rejected(admit(&c, rid3, rid3_len, 0xE3, 0, m), &c, SATIN_REJECT_NOT_MEMBER,
             "node identity and key", b, "a HELLO of n3, which left, in the old file");
    satin_msg_destroy(&m);

    /* A node whose id is as long as ids go: its routing id is 64 bytes. */
    char longid[64];
    memset(longid, 'n', 63);
    longid[63] = 0;
    is_i64(satin_roster_slot_named(roster, longid), 5, "a node with a 63-byte id joined too");
    unsigned char rid5[SATIN_NODE_RID_MAX];
    size_t rid5_len = satin_node_rid(longid, rid5);
    m = hello_in(next, 4);
    ok(admit(&c, rid5, rid5_len, 0xE5, 0, m) == SATIN_ADMIT_CONSUMED && c.node == 5,
       "its HELLO binds its own connection (a routing id of %zu bytes)", rid5_len);
    satin_msg_destroy(&m);
    m = steal(4);
    v = admit(&c, rid5, rid5_len, 0xE5, 0, m);
    ok(v == SATIN_ADMIT_ACCEPT && c.node == 5, "and what comes on it next is believed (verdict "
       "%d, reason %s)", (int)v, satin_admission_reason_name(c.reason));
    satin_msg_destroy(&c.msg);
    satin_msg_destroy(&m);

    m = hello_in(topo, 0);
    m->flags = SATIN_HELLO_ASK;
    int before = answers[0];
    ok(admit(&c, own0, own0_len, E0 + 1, 0, m) == SATIN_ADMIT_CONSUMED && answers[0] == before + 1,
       "a HELLO that asks for ours is answered");
    satin_msg_destroy(&m);
}

int main(void)
{
    satin_log_set_level(SATIN_LOG_ERROR);   /* every rejection logs a warning */
    setup(3.0);
    stage_list();
    shapes_and_codec();
    identities();
    greetings();
    sequence();
    rates();
    table();
    memberships();
    satin_admission_destroy(&adm);
    satin_delivery_destroy(&delivery);
    satin_roster_destroy(&roster);
    satin_topology_destroy(&topo);
    return done_testing();
}
