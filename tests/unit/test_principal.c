/*
 * test_principal.c - who asks: an ipc:// client's uid read from libzmq's
 * Peer-Address ("HOST:UID:GID:PID"), a CURVE client's key named from the
 * topology, and who may act on whose job.
 */
#include "../tap.h"
#include "principal.h"

#include <stdio.h>

#include <string.h>

#define KEY_A "0r]{(xpA(Q*J]cQC$HIuDjo}#v#5@lXoWe5aLOq-"
#define KEY_B "LV9[.{&RG*sY7h4gpU&ieCVT2lHY)s.VN4aPC]jX"

static void test_peer_address(void)
{
    satin_principal p;
    is_i64(satin_principal_of_peer_address(&p, "localhost:1000:1000:4242", 5000, NULL), 0,
           "peer address: parsed");
    ok(p.kind == SATIN_PRINCIPAL_UID && p.uid == 1000 && !p.admin, "peer address: uid 1000, no admin");
    is_i64(satin_principal_of_peer_address(&p, "a:b:c:0:0:77", 5000, NULL), 0,
           "peer address: a host with colons of its own");
    ok(p.kind == SATIN_PRINCIPAL_UID && p.uid == 0 && p.admin, "peer address: uid 0 is an admin");
    is_str(p.name, "root", "peer address: uid 0 is named root");
    satin_principal_of_peer_address(&p, "localhost:5000:5000:1", 5000, NULL);
    ok(p.admin, "peer address: the daemon's own uid is an admin");
    static const char *const bad[] = {"", "127.0.0.1", "::1", "localhost:x:1:2", "h:1:2",
                                      "h:-1:2:3", "h:1x:2:3", "h:99999999999:1:1", NULL};
    for (const char *const *b = bad; *b; b++) {
        is_i64(satin_principal_of_peer_address(&p, *b, 5000, NULL), -1, "peer address: '%s' has no uid",
               *b);
        ok(p.kind == SATIN_PRINCIPAL_ANONYMOUS && !p.admin, "peer address: '%s' is anonymous", *b);
    }
    is_i64(satin_principal_of_peer_address(&p, NULL, 5000, NULL), -1, "peer address: none");
    satin_principal_of_uid(&p, 4000000000u, 5000, NULL);
    is_str(p.name, "uid 4000000000", "a uid without a user is named by its number");
}

static void test_keys(void)
{
    satin_client_def clients[2] = {{.name = "alice"}, {.name = "ops", .admin = 1}};
    snprintf(clients[0].public_key, sizeof clients[0].public_key, "%s", KEY_A);
    snprintf(clients[1].public_key, sizeof clients[1].public_key, "%s", KEY_B);
    satin_topology topo = {.clients = clients, .nclients = 2};
    satin_principal alice, ops, stranger;
    satin_principal_of_key(&alice, KEY_A, &topo);
    satin_principal_of_key(&ops, KEY_B, &topo);
    satin_principal_of_key(&stranger, "0123456789012345678901234567890123456789", &topo);
    is_str(alice.name, "key:alice", "key: named as the topology lists it");
    ok(!alice.admin && ops.admin, "key: admin: true makes ops an admin");
    is_str(stranger.name, "key:01234567...", "key: an unlisted key by its first characters");
}

static void test_may_act(void)
{
    satin_principal u1, u1_again, u2, root, anon, anon2, alice, alice_again;
    satin_principal_of_uid(&u1, 1001, 5000, NULL);
    satin_principal_of_uid(&u1_again, 1001, 5000, NULL);
    satin_principal_of_uid(&u2, 1002, 5000, NULL);
    satin_principal_of_uid(&root, 0, 5000, NULL);
    satin_principal_anonymous(&anon);
    satin_principal_anonymous(&anon2);
    satin_principal_of_key(&alice, KEY_A, NULL);
    satin_principal_of_key(&alice_again, KEY_A, NULL);
    ok(satin_principal_may_act(&u1_again, &u1), "may act: the same uid");
    ok(!satin_principal_may_act(&u2, &u1), "may act: not another uid");
    ok(satin_principal_may_act(&root, &u1) && satin_principal_may_act(&root, &alice),
       "may act: root on every job");
    ok(!satin_principal_may_act(&u1, &root), "may act: not a user on root's");
    ok(satin_principal_may_act(&alice_again, &alice), "may act: the same key");
    ok(!satin_principal_may_act(&alice, &u1) && !satin_principal_may_act(&u1, &alice),
       "may act: a key is no uid");
    ok(satin_principal_may_act(&anon2, &anon), "may act: anonymous jobs are anyone's anonymous");
    ok(!satin_principal_may_act(&anon, &u1) && !satin_principal_may_act(&anon, &alice),
       "may act: anonymous on no one else's");
}

/* Names come from the cache once looked up; it keeps the last
 * SATIN_USER_NAMES users and gives the same names as a lookup. */
static void test_user_names(void)
{
    satin_user_names names = {0};
    satin_principal a, b;
    int same = 1;
    for (uid_t uid = 0; uid < SATIN_USER_NAMES + 8; uid++) {
        satin_principal_of_uid(&a, uid, 5000, &names);
        satin_principal_of_uid(&b, uid, 5000, NULL);
        same &= strcmp(a.name, b.name) == 0;
    }
    ok(same, "user names: the cache gives what a lookup gives");
    is_i64(names.n, SATIN_USER_NAMES, "user names: at most %d kept", SATIN_USER_NAMES);
    /* uid 39 is kept: its (doctored) cached name is used, not looked up again. */
    int slot = -1;
    for (int i = 0; i < names.n; i++)
        if (names.uid[i] == SATIN_USER_NAMES + 7)
            slot = i;
    ok(slot >= 0, "user names: the last user is kept");
    if (slot >= 0)
        snprintf(names.name[slot], sizeof names.name[slot], "cached");
    satin_principal_of_uid(&a, SATIN_USER_NAMES + 7, 5000, &names);
    is_str(a.name, "cached", "user names: a kept user is not looked up again");
    satin_principal_of_uid(&a, 0, 5000, &names);
    is_str(a.name, "root", "user names: uid 0, gone from the cache, is looked up again");
}

int main(void)
{
    test_peer_address();
    test_keys();
    test_may_act();
    test_user_names();
    return done_testing();
}
