/*
 * principal.c - who asks (principal.h).
 */
#include "principal.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void satin_principal_anonymous(satin_principal *p)
{
    memset(p, 0, sizeof *p);
    p->kind = SATIN_PRINCIPAL_ANONYMOUS;
    snprintf(p->name, sizeof p->name, "anonymous");
}

/* The uid's user name, or "uid N" without one. */
static void look_up(uid_t uid, char *out, size_t len)
{
    struct passwd pw, *found = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
        snprintf(out, len, "%s", found->pw_name);
    else
        snprintf(out, len, "uid %lu", (unsigned long)uid);
}

static const char *user_name(satin_user_names *names, uid_t uid, char *scratch, size_t len)
{
    if (!names) {
        look_up(uid, scratch, len);
        return scratch;
    }
    for (int i = 0; i < names->n; i++)
        if (names->uid[i] == uid)
            return names->name[i];
    int i = names->n < SATIN_USER_NAMES ? names->n++ : names->next;
    names->next = (i + 1) % SATIN_USER_NAMES;
    names->uid[i] = uid;
    look_up(uid, names->name[i], sizeof names->name[i]);
    return names->name[i];
}

void satin_principal_of_uid(satin_principal *p, uid_t uid, uid_t daemon_uid,
                            satin_user_names *names)
{
    memset(p, 0, sizeof *p);
    p->kind = SATIN_PRINCIPAL_UID;
    p->uid = uid;
    p->admin = uid == 0 || uid == daemon_uid;
    char scratch[sizeof p->name];
    snprintf(p->name, sizeof p->name, "%s", user_name(names, uid, scratch, sizeof scratch));
}

/* "HOST:UID:GID:PID": the uid is the third field from the end (a host
 * may hold colons of its own). */
int satin_principal_of_peer_address(satin_principal *p, const char *peer_address,
                                    uid_t daemon_uid, satin_user_names *names)
{
    satin_principal_anonymous(p);
    if (!peer_address)
        return -1;
    const char *colon[3] = {NULL, NULL, NULL};
    int found = 0;
    for (const char *s = peer_address + strlen(peer_address); s > peer_address && found < 3;)
        if (*--s == ':')
            colon[found++] = s;
    if (found < 3)
        return -1;
    const char *u = colon[2] + 1;
    char *end;
    if (*u < '0' || *u > '9')
        return -1;
    unsigned long uid = strtoul(u, &end, 10);
    if (end != colon[1] || uid > (uid_t)-1 - 1)
        return -1;
    satin_principal_of_uid(p, (uid_t)uid, daemon_uid, names);
    return 0;
}

void satin_principal_of_key(satin_principal *p, const char *z85, const satin_topology *topo)
{
    memset(p, 0, sizeof *p);
    p->kind = SATIN_PRINCIPAL_KEY;
    snprintf(p->key, sizeof p->key, "%s", z85 ? z85 : "");
    int i = topo && z85 ? satin_topology_client_of_key(topo, z85) : -1;
    if (i >= 0) {
        snprintf(p->name, sizeof p->name, "key:%s", topo->clients[i].name);
        p->admin = topo->clients[i].admin;
    } else {
        snprintf(p->name, sizeof p->name, "key:%.8s...", p->key);
    }
}

int satin_principal_may_act(const satin_principal *actor, const satin_principal *owner)
{
    if (actor->admin)
        return 1;
    if (actor->kind != owner->kind)
        return 0;
    switch (actor->kind) {
    case SATIN_PRINCIPAL_UID: return actor->uid == owner->uid;
    case SATIN_PRINCIPAL_KEY: return strcmp(actor->key, owner->key) == 0;
    case SATIN_PRINCIPAL_ANONYMOUS: return 1;
    }
    return 0;
}
