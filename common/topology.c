/*
 * topology.c - loading the grid's topology file (YAML, read with libyaml's
 * document API).  The schema is documented in etc/README.md.
 *
 * The document is walked by the schema only (never generically), so an
 * alias that refers back to its own ancestor cannot make the walk loop: it
 * is met where a different kind of node is expected and reported as such.
 * Every problem is reported as "FILE:LINE:COLUMN: message" (1-based) at the
 * node that is wrong, or at the mapping that lacks a key.
 */
#include "topology.h"
#include "satin_endpoint.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#define TOPOLOGY_MAX_FILE (16u << 20)    /* bytes */
#define TOPOLOGY_MAX_CLUSTERS 256
#define TOPOLOGY_MAX_NODES 4096
#define TOPOLOGY_MAX_WORKERS 1024
#define TOPOLOGY_MAX_CLIENTS 4096
#define TOPOLOGY_MAX_MS 60000.0         /* latency, jitter, intervals: one minute */
#define TOPOLOGY_MAX_KBPS 10000000.0    /* 10 GByte/s */

#define NAME_RULE "a name of 1 to 63 characters from A-Z a-z 0-9 _ . -"

static const char *const top_keys[] = {"grid", "policy", "policy_params", "security",
                                       "allow_insecure_network", "keys", "kinds_dir", "clients", "emulate",
                                       "wan", "failure_timeout", "orphan_saving", "clusters",
                                       NULL};
static const char *const failure_keys[] = {"lan_ms", "wan_ms", NULL};
static const char *const client_keys[] = {"name", "public_key", "admin", NULL};
static const char *const wan_keys[] = {"latency_ms", "jitter_ms", "bandwidth_kBps", "links",
                                       "shim_host", "shim_base_port", NULL};
static const char *const link_keys[] = {"from", "to", "latency_ms", "jitter_ms",
                                        "bandwidth_kBps", "both", NULL};
static const char *const cluster_keys[] = {"name", "nodes", NULL};
static const char *const node_keys[] = {"id", "endpoint", "client", "workers", "public_key",
                                        "kinds_dir", NULL};
static const char *const security_names[] = {"none", "curve", NULL};

typedef struct parse_ctx {
    const char *file;
    yaml_document_t *doc;
    char *err;
    size_t errlen;
    satin_topology *t;
    int cap_nodes, cap_links;
    yaml_mark_t *cluster_marks;   /* [nclusters] where each cluster's name is */
    yaml_mark_t *link_marks;      /* [nlinks] where each link entry is */
    int *link_at;                 /* [nclusters * nclusters] 1 + index into links, 0 = none */
    yaml_mark_t shim_mark;        /* what a relay port problem is reported at */
    char shown[160];              /* the offending value, quoted, for messages */
} parse_ctx;

/* ---- messages --------------------------------------------------------------- */

static int fail_at(parse_ctx *c, yaml_mark_t m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(parse_ctx *c, yaml_mark_t m, const char *fmt, ...)
{
    if (c->err && c->errlen) {
        int n = snprintf(c->err, c->errlen, "%s:%zu:%zu: ", c->file, m.line + 1,
                         m.column + 1);
        if (n >= 0 && (size_t)n < c->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
}

/* "a mapping", "a sequence" or the scalar quoted (shortened, control
 * characters shown as '?'), for "..., not %s". */
static const char *shown(parse_ctx *c, const yaml_node_t *n)
{
    if (!n)
        return "nothing";
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    if (n->type == YAML_SEQUENCE_NODE)
        return "a sequence";
    if (n->type != YAML_SCALAR_NODE)
        return "nothing";
    const unsigned char *v = n->data.scalar.value;
    size_t len = n->data.scalar.length, max = 80, o = 0;
    int cut = len > max;
    if (cut) {
        len = max;
        while (len > 0 && (v[len] & 0xC0) == 0x80)   /* not inside a UTF-8 sequence */
            len--;
    }
    c->shown[o++] = '\'';
    for (size_t i = 0; i < len; i++)
        c->shown[o++] = (v[i] < 0x20 || v[i] == 0x7F) ? '?' : (char)v[i];
    if (cut) {
        memcpy(c->shown + o, "...", 3);
        o += 3;
    }
    c->shown[o++] = '\'';
    c->shown[o] = '\0';
    return c->shown;
}

/* "a, b, c" */
static void join_list(char *buf, size_t len, const char *const *items)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; items[i] && o < len; i++) {
        int n = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", items[i]);
        if (n < 0)
            break;
        o += (size_t)n;
    }
}

/* ---- the document --------------------------------------------------------------- */

static yaml_node_t *node_at(parse_ctx *c, int index)
{
    return yaml_document_get_node(c->doc, index);
}

static int scalar_is(const yaml_node_t *n, const char *s)
{
    size_t len = strlen(s);
    return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == len &&
           memcmp(n->data.scalar.value, s, len) == 0;
}

/* A plain empty, "~" or "null" value: an optional key given this way takes
 * its default. */
static int is_null(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (n->data.scalar.length == 0 || scalar_is(n, "~") || scalar_is(n, "null") ||
            scalar_is(n, "Null") || scalar_is(n, "NULL"));
}

/* The value of `key` in a mapping (NULL if absent); its key node in *keynode. */
static yaml_node_t *map_get(parse_ctx *c, const yaml_node_t *map, const char *key,
                            yaml_node_t **keynode)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_at(c, p->key);
        if (scalar_is(k, key)) {
            if (keynode)
                *keynode = k;
            return node_at(c, p->value);
        }
    }
    return NULL;
}

/* The value of an optional key, or NULL when absent or null. */
static yaml_node_t *map_opt(parse_ctx *c, const yaml_node_t *map, const char *key)
{
    yaml_node_t *v = map_get(c, map, key, NULL);
    return v && !is_null(v) ? v : NULL;
}

/* Every key a scalar, known (any name when `keys` is NULL), and given once. */
static int check_keys(parse_ctx *c, const yaml_node_t *map, const char *const *keys,
                      const char *where)
{
    char expected[256];
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_at(c, p->key);
        int known = 0;
        if (!k || k->type != YAML_SCALAR_NODE)
            return fail_at(c, k ? k->start_mark : map->start_mark,
                           "a key %s must be a plain name, not %s", where, shown(c, k));
        known = !keys;
        for (int i = 0; keys && keys[i] && !known; i++)
            known = scalar_is(k, keys[i]);
        if (!known) {
            join_list(expected, sizeof expected, keys);
            return fail_at(c, k->start_mark, "unknown key %s %s (expected %s)", shown(c, k),
                           where, expected);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *k2 = node_at(c, q->key);
            if (scalar_is(k2, (const char *)k->data.scalar.value))
                return fail_at(c, k->start_mark, "duplicate key %s %s (first given at %zu:%zu)",
                               shown(c, k), where, k2->start_mark.line + 1,
                               k2->start_mark.column + 1);
        }
    }
    return 0;
}

/* ---- scalars ------------------------------------------------------------------ */

/* The scalar's text, or an error "'key' must be EXPECT, not ...".  A scalar
 * with a NUL inside is refused the same way. */
static int want_text(parse_ctx *c, const yaml_node_t *v, const char *key, const char *expect,
                     const char **out)
{
    if (!v || v->type != YAML_SCALAR_NODE ||
        strlen((const char *)v->data.scalar.value) != v->data.scalar.length)
        return fail_at(c, v ? v->start_mark : c->doc->start_mark, "'%s' must be %s, not %s", key,
                       expect, shown(c, v));
    *out = (const char *)v->data.scalar.value;
    return 0;
}

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n >= SATIN_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-'))
            return 0;
    }
    return 1;
}

static int want_name(parse_ctx *c, const yaml_node_t *v, const char *key,
                     char out[SATIN_NAME_MAX])
{
    const char *s;
    if (want_text(c, v, key, NAME_RULE, &s) < 0)
        return -1;
    if (!name_ok(s))
        return fail_at(c, v->start_mark, "'%s' must be " NAME_RULE ", not %s", key, shown(c, v));
    snprintf(out, SATIN_NAME_MAX, "%s", s);
    return 0;
}

static int digits(const char *s)
{
    int n = 0;
    while (*s >= '0' && *s <= '9')
        s++, n++;
    return n;
}

/* Strictly a decimal integer: [+-]?[0-9]+ */
static int int_syntax(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    int n = digits(s);
    return n > 0 && s[n] == '\0';
}

/* Strictly a decimal number: [+-]?(D+(.D*)?|.D+)([eE][+-]?D+)? */
static int num_syntax(const char *s)
{
    int n;
    if (*s == '+' || *s == '-')
        s++;
    n = digits(s);
    s += n;
    if (*s == '.') {
        int f = digits(++s);
        s += f;
        n += f;
    }
    if (n == 0)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        n = digits(s);
        if (n == 0)
            return 0;
        s += n;
    }
    return *s == '\0';
}

static void int_expect(char *buf, size_t len, long long min, long long max)
{
    snprintf(buf, len, "a whole number from %lld to %lld", min, max);
}

static int int_in_range(const char *s, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long x = int_syntax(s) ? strtoll(s, &end, 10) : 0;
    if (!int_syntax(s) || errno || *end || x < min || x > max)
        return 0;
    *out = x;
    return 1;
}

static int want_int(parse_ctx *c, const yaml_node_t *v, const char *key, long long min,
                    long long max, long long *out)
{
    char expect[96];
    const char *s;
    int_expect(expect, sizeof expect, min, max);
    if (want_text(c, v, key, expect, &s) < 0)
        return -1;
    if (!int_in_range(s, min, max, out))
        return fail_at(c, v->start_mark, "'%s' must be %s, not %s", key, expect, shown(c, v));
    return 0;
}

static void num_expect(char *buf, size_t len, double min, double max, int above_min,
                       const char *unit)
{
    if (above_min)
        snprintf(buf, len, "a number of %s greater than %.15g and at most %.15g", unit, min,
                 max);
    else
        snprintf(buf, len, "a number of %s from %.15g to %.15g", unit, min, max);
}

/* A number in [min, max], or in (min, max] when `above_min`. */
static int num_in_range(const char *s, double min, double max, int above_min, double *out)
{
    char *end;
    double x = num_syntax(s) ? strtod(s, &end) : NAN;
    if (!num_syntax(s) || *end || !isfinite(x) || x > max || x < min || (above_min && x <= min))
        return 0;
    *out = x;
    return 1;
}

static int want_num(parse_ctx *c, const yaml_node_t *v, const char *key, double min, double max,
                    int above_min, const char *unit, double *out)
{
    char expect[128];
    const char *s;
    num_expect(expect, sizeof expect, min, max, above_min, unit);
    if (want_text(c, v, key, expect, &s) < 0)
        return -1;
    if (!num_in_range(s, min, max, above_min, out))
        return fail_at(c, v->start_mark, "'%s' must be %s, not %s", key, expect, shown(c, v));
    return 0;
}

static int want_bool(parse_ctx *c, const yaml_node_t *v, const char *key, int *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On",
                                      "ON", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off",
                                     "OFF", NULL};
    const char *s;
    if (want_text(c, v, key, "true or false", &s) < 0)
        return -1;
    for (int i = 0; yes[i]; i++)
        if (strcmp(s, yes[i]) == 0)
            return *out = 1, 0;
    for (int i = 0; no[i]; i++)
        if (strcmp(s, no[i]) == 0)
            return *out = 0, 0;
    return fail_at(c, v->start_mark, "'%s' must be true or false, not %s", key, shown(c, v));
}

/* One of `names` (case-insensitive); its index in *out. */
static int want_choice(parse_ctx *c, const yaml_node_t *v, const char *key,
                       const char *const *names, int *out)
{
    char list[128], expect[160];
    const char *s;
    join_list(list, sizeof list, names);
    snprintf(expect, sizeof expect, "one of %s", list);
    if (want_text(c, v, key, expect, &s) < 0)
        return -1;
    for (int i = 0; names[i]; i++)
        if (strcasecmp(s, names[i]) == 0)
            return *out = i, 0;
    return fail_at(c, v->start_mark, "unknown %s %s (expected %s)", key, shown(c, v), list);
}

/* ---- endpoints -------------------------------------------------------------------- */

/* Whether a tcp://HOST:PORT endpoint is reachable from this machine only. */
static int loopback_endpoint(const char *ep)
{
    const char *host = ep + 6, *colon = strrchr(host, ':');
    size_t hlen = colon ? (size_t)(colon - host) : strlen(host);
    if ((hlen == 9 && strncmp(host, "localhost", 9) == 0) ||
        (hlen == 5 && strncmp(host, "[::1]", 5) == 0))
        return 1;
    /* 127.0.0.0/8, written as an address (a name such as "127.example" is not). */
    if (hlen < 4 || strncmp(host, "127.", 4) != 0)
        return 0;
    for (size_t k = 4; k < hlen; k++)
        if (!((host[k] >= '0' && host[k] <= '9') || host[k] == '.'))
            return 0;
    return 1;
}

/* Under `security: none` anyone who reaches a peer endpoint may steal work
 * and push records: only loopback, unless the file says the network is closed. */
static int insecure_ok(parse_ctx *c, const yaml_node_t *v, const char *what, const char *ep,
                       const char *text)
{
    if (!c->t->security_none || c->t->allow_insecure_network || loopback_endpoint(ep))
        return 0;
    return fail_at(c, v->start_mark,
                   "%s %s is not a loopback address, and security is none: anyone who can reach "
                   "it could steal work and push records to run; use security: curve, or say "
                   "'allow_insecure_network: true' if the network is closed to strangers",
                   what, text);
}

/* tcp://HOST:PORT with a host others can connect to (no wildcard) and a
 * port from 1 to 65535; HOST may be a bracketed IPv6 address. */
static int tcp_endpoint_ok(const char *s)
{
    if (strncmp(s, "tcp://", 6) != 0 || strlen(s) >= SATIN_ENDPOINT_MAX)
        return 0;
    const char *host = s + 6, *colon = strrchr(host, ':');
    if (!colon || colon == host)
        return 0;
    size_t hlen = (size_t)(colon - host);
    if (host[0] == '[') {
        if (hlen < 3 || host[hlen - 1] != ']')
            return 0;
        for (size_t i = 1; i + 1 < hlen; i++) {
            char ch = host[i];
            if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
                  (ch >= 'A' && ch <= 'F') || ch == ':' || ch == '.'))
                return 0;
        }
    } else {
        for (size_t i = 0; i < hlen; i++) {
            char ch = host[i];
            if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                  (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '_'))
                return 0;
        }
    }
    const char *port = colon + 1;
    int n = digits(port);
    if (n < 1 || n > 5 || port[n] != '\0')
        return 0;
    long p = strtol(port, NULL, 10);
    return p >= 1 && p <= 65535;
}

static int z85_key_ok(const char *s)
{
    static const char z85[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              ".-:+=^!/*?&<>()[]{}@%$#";
    if (strlen(s) != 40)
        return 0;
    for (int i = 0; i < 40; i++)
        if (!strchr(z85, s[i]))
            return 0;
    return 1;
}

static int want_key(parse_ctx *c, const yaml_node_t *v, char out[64])
{
    static const char expect[] = "a 40-character Z85 CURVE public key";
    const char *s;
    if (want_text(c, v, "public_key", expect, &s) < 0)
        return -1;
    if (!z85_key_ok(s))
        return fail_at(c, v->start_mark, "'public_key' must be %s, not %s", expect, shown(c, v));
    snprintf(out, 64, "%s", s);
    return 0;
}

/* ---- sections ------------------------------------------------------------------- */

/* `key: value` of a mapping kept as written, for the policy registry. */
static void keep_value(parse_ctx *c, const yaml_node_t *k, const yaml_node_t *v,
                       satin_topology_value *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->key, sizeof out->key, "%.*s", (int)k->data.scalar.length,
             (const char *)k->data.scalar.value);
    out->key_line = (int)k->start_mark.line + 1;
    out->key_column = (int)k->start_mark.column + 1;
    out->line = (int)v->start_mark.line + 1;
    out->column = (int)v->start_mark.column + 1;
    snprintf(out->shown, sizeof out->shown, "%s", shown(c, v));
    out->scalar = v->type == YAML_SCALAR_NODE && v->data.scalar.length < sizeof out->text &&
                  strlen((const char *)v->data.scalar.value) == v->data.scalar.length;
    if (out->scalar)
        memcpy(out->text, v->data.scalar.value, v->data.scalar.length + 1);
}

/* The policy's word, in lower case: its meaning is the registry's. */
static int parse_policy(parse_ctx *c, const yaml_node_t *k, const yaml_node_t *v)
{
    keep_value(c, k, v, &c->t->policy);
    for (char *s = c->t->policy.text; *s; s++)
        *s = (char)tolower((unsigned char)*s);
    return 0;
}

/* Names and numbers as written: which names exist, their ranges and units
 * are the policies' (satin_policy_configure), not this layer's. */
static int parse_params(parse_ctx *c, const yaml_node_t *map)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(c, map->start_mark, "'policy_params' must be a mapping of %s, not %s",
                       "policy parameters", shown(c, map));
    if (check_keys(c, map, NULL, "in policy_params") < 0)
        return -1;
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
    if (n == 0)
        return 0;
    c->t->policy_params = calloc(n, sizeof *c->t->policy_params);
    if (!c->t->policy_params)
        return fail_at(c, map->start_mark, "out of memory");
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *v = node_at(c, p->value);
        if (is_null(v))
            continue;
        keep_value(c, node_at(c, p->key), v,
                   &c->t->policy_params[c->t->npolicy_params++]);
    }
    return 0;
}

static int parse_failure_timeout(parse_ctx *c, const yaml_node_t *map)
{
    yaml_node_t *v;
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(c, map->start_mark, "'failure_timeout' must be a mapping of %s, not %s",
                       "lan_ms and wan_ms", shown(c, map));
    if (check_keys(c, map, failure_keys, "in failure_timeout") < 0)
        return -1;
    if ((v = map_opt(c, map, "lan_ms")) &&
        want_num(c, v, "lan_ms", 0, TOPOLOGY_MAX_MS, 1, "milliseconds",
                 &c->t->failure_timeout_lan_ms) < 0)
        return -1;
    if ((v = map_opt(c, map, "wan_ms")) &&
        want_num(c, v, "wan_ms", 0, TOPOLOGY_MAX_MS, 1, "milliseconds",
                 &c->t->failure_timeout_wan_ms) < 0)
        return -1;
    return 0;
}

/* latency_ms, jitter_ms and bandwidth_kBps of `map` (each optional) into l. */
static int parse_link_values(parse_ctx *c, const yaml_node_t *map, satin_link_def *l)
{
    yaml_node_t *v;
    if ((v = map_opt(c, map, "latency_ms")) &&
        want_num(c, v, "latency_ms", 0, TOPOLOGY_MAX_MS, 0, "milliseconds", &l->latency_ms) < 0)
        return -1;
    if ((v = map_opt(c, map, "jitter_ms")) &&
        want_num(c, v, "jitter_ms", 0, TOPOLOGY_MAX_MS, 0, "milliseconds", &l->jitter_ms) < 0)
        return -1;
    if ((v = map_opt(c, map, "bandwidth_kBps")) &&
        want_num(c, v, "bandwidth_kBps", 0, TOPOLOGY_MAX_KBPS, 1, "KByte/s",
                 &l->bandwidth_kBps) < 0)
        return -1;
    return 0;
}

static int find_cluster(const satin_topology *t, const char *name)
{
    for (int i = 0; i < t->nclusters; i++)
        if (strcmp(t->clusters[i].name, name) == 0)
            return i;
    return -1;
}

/* `from` or `to` of a link: a cluster's index. */
static int link_end(parse_ctx *c, const yaml_node_t *map, const char *key, int *out)
{
    yaml_node_t *v = map_get(c, map, key, NULL);
    char list[256];
    const char *s;
    if (!v)
        return fail_at(c, map->start_mark, "missing '%s' in a link (expected a cluster's name)",
                       key);
    if (want_text(c, v, key, "a cluster's name", &s) < 0)
        return -1;
    if ((*out = find_cluster(c->t, s)) < 0) {
        size_t o = 0;
        list[0] = '\0';
        for (int i = 0; i < c->t->nclusters && o < sizeof list; i++) {
            int n = snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "",
                             c->t->clusters[i].name);
            if (n < 0)
                break;
            o += (size_t)n;
        }
        return fail_at(c, v->start_mark, "unknown cluster %s in a link (expected one of %s)",
                       shown(c, v), list);
    }
    return 0;
}

static int add_link(parse_ctx *c, const yaml_node_t *map, satin_link_def l)
{
    satin_topology *t = c->t;
    int *at = &c->link_at[l.from * t->nclusters + l.to];
    if (*at) {
        yaml_mark_t first = c->link_marks[*at - 1];
        return fail_at(c, map->start_mark, "duplicate link %s -> %s (first defined at %zu:%zu)",
                       t->clusters[l.from].name, t->clusters[l.to].name, first.line + 1,
                       first.column + 1);
    }
    if (t->nlinks == c->cap_links) {
        int cap = c->cap_links ? 2 * c->cap_links : 8;
        satin_link_def *nl = realloc(t->links, (size_t)cap * sizeof *nl);
        yaml_mark_t *nm = nl ? realloc(c->link_marks, (size_t)cap * sizeof *nm) : NULL;
        if (nl)
            t->links = nl;
        if (!nl || !nm)
            return fail_at(c, map->start_mark, "out of memory");
        c->link_marks = nm;
        c->cap_links = cap;
    }
    c->link_marks[t->nlinks] = map->start_mark;
    t->links[t->nlinks++] = l;
    *at = t->nlinks;
    return 0;
}

static int parse_link(parse_ctx *c, const yaml_node_t *map)
{
    satin_link_def l = c->t->wan_default;
    yaml_node_t *v;
    int both = 0;
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(c, map->start_mark, "a link must be a mapping with from and to, not %s",
                       shown(c, map));
    if (check_keys(c, map, link_keys, "in a link") < 0 || link_end(c, map, "from", &l.from) < 0 ||
        link_end(c, map, "to", &l.to) < 0)
        return -1;
    if (l.from == l.to)
        return fail_at(c, map_get(c, map, "to", NULL)->start_mark,
                       "a link from cluster %s to itself (expected two different clusters)",
                       c->t->clusters[l.from].name);
    if (parse_link_values(c, map, &l) < 0)
        return -1;
    if ((v = map_opt(c, map, "both")) && want_bool(c, v, "both", &both) < 0)
        return -1;
    if (add_link(c, map, l) < 0)
        return -1;
    if (both) {
        int tmp = l.from;
        l.from = l.to;
        l.to = tmp;
        return add_link(c, map, l);
    }
    return 0;
}

/* shim_host and shim_base_port: where satin-wanem's relays listen. */
static int parse_shim(parse_ctx *c, const yaml_node_t *map)
{
    static const char host_rule[] =
        "a host name, an IPv4 address or a bracketed IPv6 address to connect to";
    satin_topology *t = c->t;
    yaml_node_t *v;
    const char *s;
    long long n;
    if ((v = map_opt(c, map, "shim_host"))) {
        char ep[SATIN_ENDPOINT_MAX];
        if (want_text(c, v, "shim_host", host_rule, &s) < 0)
            return -1;
        /* The same host rule as a node endpoint's. */
        snprintf(ep, sizeof ep, "tcp://%s:1", s);
        if (strlen(s) >= sizeof t->shim_host || !tcp_endpoint_ok(ep))
            return fail_at(c, v->start_mark, "'shim_host' must be %s, not %s", host_rule,
                           shown(c, v));
        if (t->emulate && insecure_ok(c, v, "shim_host", ep, s) < 0)
            return -1;
        snprintf(t->shim_host, sizeof t->shim_host, "%s", s);
        c->shim_mark = v->start_mark;
    }
    if ((v = map_opt(c, map, "shim_base_port"))) {
        if (want_int(c, v, "shim_base_port", 1, 65535, &n) < 0)
            return -1;
        t->shim_base_port = (int)n;
        c->shim_mark = v->start_mark;
    }
    return 0;
}

static int parse_wan(parse_ctx *c, const yaml_node_t *map)
{
    yaml_node_t *links;
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(c, map->start_mark,
                       "'wan' must be a mapping with latency_ms, jitter_ms, bandwidth_kBps and "
                       "links, not %s",
                       shown(c, map));
    if (check_keys(c, map, wan_keys, "in wan") < 0 ||
        parse_link_values(c, map, &c->t->wan_default) < 0 || parse_shim(c, map) < 0)
        return -1;
    if (!(links = map_opt(c, map, "links")))
        return 0;
    if (links->type != YAML_SEQUENCE_NODE)
        return fail_at(c, links->start_mark, "'links' must be a sequence of links, not %s",
                       shown(c, links));
    c->link_at = calloc((size_t)c->t->nclusters * (size_t)c->t->nclusters, sizeof *c->link_at);
    if (!c->link_at)
        return fail_at(c, links->start_mark, "out of memory");
    for (yaml_node_item_t *i = links->data.sequence.items.start; i < links->data.sequence.items.top;
         i++)
        if (parse_link(c, node_at(c, *i)) < 0)
            return -1;
    return 0;
}

static int parse_dir(parse_ctx *c, const yaml_node_t *v, const char *key, const char *what,
                     char *out, size_t cap);

static int parse_node(parse_ctx *c, const yaml_node_t *map, int cluster, int nth)
{
    satin_topology *t = c->t;
    const char *cname = t->clusters[cluster].name;
    yaml_node_t *v;
    const char *s;
    long long n;
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(c, map->start_mark, "a node must be a mapping with id and endpoint, not %s",
                       shown(c, map));
    if (check_keys(c, map, node_keys, "in a node") < 0)
        return -1;
    if (t->nnodes >= TOPOLOGY_MAX_NODES)
        return fail_at(c, map->start_mark, "too many nodes (at most %d in a grid)",
                       TOPOLOGY_MAX_NODES);
    if (t->nnodes == c->cap_nodes) {
        int cap = c->cap_nodes ? 2 * c->cap_nodes : 16;
        satin_node_def *nn = realloc(t->nodes, (size_t)cap * sizeof *nn);
        if (!nn)
            return fail_at(c, map->start_mark, "out of memory");
        t->nodes = nn;
        c->cap_nodes = cap;
    }
    satin_node_def *nd = &t->nodes[t->nnodes];
    memset(nd, 0, sizeof *nd);
    nd->index = t->nnodes;
    nd->cluster = cluster;
    nd->line = (int)map->start_mark.line + 1;
    nd->column = (int)map->start_mark.column + 1;

    if (!(v = map_get(c, map, "id", NULL)))
        return fail_at(c, map->start_mark, "missing 'id' in node %d of cluster %s", nth + 1,
                       cname);
    if (want_name(c, v, "id", nd->id) < 0)
        return -1;
    for (int j = 0; j < t->nnodes; j++) {
        const satin_node_def *o = &t->nodes[j];
        if (strcmp(o->id, nd->id) != 0)
            continue;
        if (o->cluster == cluster)
            return fail_at(c, v->start_mark, "duplicate node id '%s' (first defined at %d:%d)",
                           nd->id, o->line, o->column);
        return fail_at(c, v->start_mark,
                       "duplicate node id '%s': node '%s' is already in cluster %s "
                       "(first defined at %d:%d)",
                       nd->id, o->id, t->clusters[o->cluster].name, o->line, o->column);
    }

    if (!(v = map_get(c, map, "endpoint", NULL)))
        return fail_at(c, map->start_mark,
                       "missing 'endpoint' in node '%s' (expected tcp://HOST:PORT)", nd->id);
    if (want_text(c, v, "endpoint", "tcp://HOST:PORT", &s) < 0)
        return -1;
    if (!tcp_endpoint_ok(s))
        return fail_at(c, v->start_mark,
                       "'endpoint' must be tcp://HOST:PORT with a host to connect to and a port "
                       "from 1 to 65535, not %s",
                       shown(c, v));
    if (insecure_ok(c, v, "endpoint", s, s) < 0)
        return -1;
    snprintf(nd->endpoint, sizeof nd->endpoint, "%s", s);
    for (int j = 0; j < t->nnodes; j++)
        if (strcmp(t->nodes[j].endpoint, nd->endpoint) == 0)
            return fail_at(c, v->start_mark,
                           "duplicate endpoint '%s': node '%s' binds it already (at %d:%d)",
                           nd->endpoint, t->nodes[j].id, t->nodes[j].line, t->nodes[j].column);

    if ((v = map_opt(c, map, "client"))) {
        char why[SATIN_ENDPOINT_MAX + 128];
        static const char expect[] = "ipc:///PATH, a path, or tcp://HOST:PORT";
        if (want_text(c, v, "client", expect, &s) < 0)
            return -1;
        if (satin_endpoint_normalise(s, nd->client, sizeof nd->client, why, sizeof why) < 0 ||
            (strncmp(nd->client, "tcp://", 6) == 0 && !tcp_endpoint_ok(nd->client)))
            return fail_at(c, v->start_mark, "'client' must be %s, not %s", expect, shown(c, v));
        for (int j = 0; j < t->nnodes; j++)
            if (strcmp(t->nodes[j].client, nd->client) == 0)
                return fail_at(c, v->start_mark,
                               "duplicate client endpoint '%s': node '%s' uses it already "
                               "(at %d:%d)",
                               nd->client, t->nodes[j].id, t->nodes[j].line,
                               t->nodes[j].column);
    }

    if ((v = map_opt(c, map, "workers"))) {
        if (want_int(c, v, "workers", 0, TOPOLOGY_MAX_WORKERS, &n) < 0)
            return -1;
        nd->workers = (int)n;
    }

    if ((v = map_opt(c, map, "public_key")) && want_key(c, v, nd->public_key) < 0)
        return -1;
    /* A node's own modules, over the grid's: a rolling upgrade changes
     * them node by node. */
    if ((v = map_opt(c, map, "kinds_dir")) &&
        parse_dir(c, v, "kinds_dir", "a directory of kind modules", nd->kinds_dir,
                  sizeof nd->kinds_dir) < 0)
        return -1;
    t->nnodes++;
    return 0;
}

static int parse_cluster(parse_ctx *c, const yaml_node_t *map, int ci)
{
    satin_topology *t = c->t;
    satin_cluster_def *cl = &t->clusters[ci];
    yaml_node_t *v, *nodes;
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(c, map->start_mark,
                       "a cluster must be a mapping with name and nodes, not %s", shown(c, map));
    if (check_keys(c, map, cluster_keys, "in a cluster") < 0)
        return -1;
    if (!(v = map_get(c, map, "name", NULL)))
        return fail_at(c, map->start_mark, "missing 'name' in cluster number %d", ci + 1);
    if (want_name(c, v, "name", cl->name) < 0)
        return -1;
    for (int j = 0; j < ci; j++)
        if (strcmp(t->clusters[j].name, cl->name) == 0)
            return fail_at(c, v->start_mark,
                           "duplicate cluster name '%s' (first defined at %zu:%zu)", cl->name,
                           c->cluster_marks[j].line + 1, c->cluster_marks[j].column + 1);
    c->cluster_marks[ci] = v->start_mark;
    t->nclusters = ci + 1;   /* names known so far, for messages */

    if (!(nodes = map_get(c, map, "nodes", NULL)))
        return fail_at(c, map->start_mark,
                       "missing 'nodes' in cluster %s (expected at least one node)", cl->name);
    if (is_null(nodes) || (nodes->type == YAML_SEQUENCE_NODE &&
                           nodes->data.sequence.items.top == nodes->data.sequence.items.start))
        return fail_at(c, nodes->start_mark,
                       "cluster %s has no nodes (expected at least one node in 'nodes')",
                       cl->name);
    if (nodes->type != YAML_SEQUENCE_NODE)
        return fail_at(c, nodes->start_mark, "'nodes' must be a sequence of nodes, not %s",
                       shown(c, nodes));
    cl->first_node = t->nnodes;
    int nth = 0;
    for (yaml_node_item_t *i = nodes->data.sequence.items.start; i < nodes->data.sequence.items.top;
         i++)
        if (parse_node(c, node_at(c, *i), ci, nth++) < 0)
            return -1;
    cl->nnodes = t->nnodes - cl->first_node;
    return 0;
}

static int parse_clusters(parse_ctx *c, const yaml_node_t *root)
{
    yaml_node_t *seq = map_get(c, root, "clusters", NULL);
    if (!seq)
        return fail_at(c, root->start_mark,
                       "missing 'clusters' at the top level (expected at least one cluster)");
    if (is_null(seq) || (seq->type == YAML_SEQUENCE_NODE &&
                         seq->data.sequence.items.top == seq->data.sequence.items.start))
        return fail_at(c, seq->start_mark, "'clusters' is empty (expected at least one cluster)");
    if (seq->type != YAML_SEQUENCE_NODE)
        return fail_at(c, seq->start_mark, "'clusters' must be a sequence of clusters, not %s",
                       shown(c, seq));
    ptrdiff_t n = seq->data.sequence.items.top - seq->data.sequence.items.start;
    if (n > TOPOLOGY_MAX_CLUSTERS)
        return fail_at(c, seq->start_mark, "too many clusters (at most %d)",
                       TOPOLOGY_MAX_CLUSTERS);
    c->t->clusters = calloc((size_t)n, sizeof *c->t->clusters);
    c->cluster_marks = calloc((size_t)n, sizeof *c->cluster_marks);
    if (!c->t->clusters || !c->cluster_marks)
        return fail_at(c, seq->start_mark, "out of memory");
    for (int i = 0; i < n; i++)
        if (parse_cluster(c, node_at(c, seq->data.sequence.items.start[i]), i) < 0)
            return -1;
    return 0;
}

/* HOST of "tcp://HOST:PORT" equals `host` (host names are case-blind);
 * its port in *port. */
static int endpoint_on_host(const char *ep, const char *host, long *port)
{
    if (strncmp(ep, "tcp://", 6) != 0)
        return 0;
    const char *h = ep + 6, *colon = strrchr(h, ':');
    if (!colon || (size_t)(colon - h) != strlen(host) ||
        strncasecmp(h, host, (size_t)(colon - h)) != 0)
        return 0;
    *port = strtol(colon + 1, NULL, 10);
    return 1;
}

/* With `emulate: true` every relay port in use (from a cluster to a node
 * of another cluster) must exist, and none may be a port that a node binds
 * on the shim's host, or the shim and that node could not both start. */
static int check_shim_ports(parse_ctx *c)
{
    const satin_topology *t = c->t;
    if (!t->emulate || t->nclusters < 2)
        return 0;
    /* Nodes are grouped by cluster, so the highest port in use is from the
     * last cluster to the last node before it. */
    const satin_cluster_def *last = &t->clusters[t->nclusters - 1];
    long long top = (long long)t->shim_base_port + (long long)(t->nclusters - 1) * t->nnodes +
                    last->first_node - 1;
    if (top > 65535)
        return fail_at(c, c->shim_mark,
                       "relay ports run past 65535: shim_base_port %d with %d clusters of %d "
                       "nodes in all needs ports up to %lld (expected a lower shim_base_port)",
                       t->shim_base_port, t->nclusters, t->nnodes, top);
    for (int i = 0; i < t->nnodes; i++) {
        const satin_node_def *nd = &t->nodes[i];
        const char *eps[2] = {nd->endpoint, nd->client};
        for (int e = 0; e < 2; e++) {
            long port, k;
            if (!endpoint_on_host(eps[e], t->shim_host, &port))
                continue;
            k = port - t->shim_base_port;
            if (k < 0 || k >= (long)t->nclusters * t->nnodes)
                continue;
            int from = (int)(k / t->nnodes), to = (int)(k % t->nnodes);
            if (t->nodes[to].cluster == from)
                continue;   /* a slot the shim leaves unused */
            return fail_at(c, c->shim_mark,
                           "relay port %ld (from cluster %s to node %s) is also the %s "
                           "endpoint of node '%s' (%s, at %d:%d); expected shim_base_port or "
                           "shim_host to keep the relay ports clear of the nodes' ports",
                           port, t->clusters[from].name, t->nodes[to].id,
                           e ? "client" : "peer", nd->id, eps[e], nd->line, nd->column);
        }
    }
    return 0;
}

static int parse_clients(parse_ctx *c, const yaml_node_t *seq)
{
    satin_topology *t = c->t;
    if (is_null(seq))
        return 0;
    if (seq->type != YAML_SEQUENCE_NODE)
        return fail_at(c, seq->start_mark,
                       "'clients' must be a sequence of {name, public_key}, not %s", shown(c, seq));
    ptrdiff_t n = seq->data.sequence.items.top - seq->data.sequence.items.start;
    if (n > TOPOLOGY_MAX_CLIENTS)
        return fail_at(c, seq->start_mark, "too many clients (at most %d)", TOPOLOGY_MAX_CLIENTS);
    t->clients = calloc((size_t)n + 1, sizeof *t->clients);
    if (!t->clients)
        return fail_at(c, seq->start_mark, "out of memory");
    for (ptrdiff_t i = 0; i < n; i++) {
        const yaml_node_t *map = node_at(c, seq->data.sequence.items.start[i]);
        satin_client_def *cd = &t->clients[t->nclients];
        yaml_node_t *v;
        if (!map || map->type != YAML_MAPPING_NODE)
            return fail_at(c, map ? map->start_mark : seq->start_mark,
                           "a client must be a mapping with name and public_key, not %s",
                           shown(c, map));
        if (check_keys(c, map, client_keys, "in a client") < 0)
            return -1;
        if (!(v = map_get(c, map, "name", NULL)))
            return fail_at(c, map->start_mark, "missing 'name' in client %td", i + 1);
        if (want_name(c, v, "name", cd->name) < 0)
            return -1;
        if (!(v = map_get(c, map, "public_key", NULL)))
            return fail_at(c, map->start_mark, "missing 'public_key' in client '%s'", cd->name);
        if (want_key(c, v, cd->public_key) < 0)
            return -1;
        if ((v = map_opt(c, map, "admin")) && want_bool(c, v, "admin", &cd->admin) < 0)
            return -1;
        for (int j = 0; j < t->nclients; j++)
            if (strcmp(t->clients[j].name, cd->name) == 0)
                return fail_at(c, map->start_mark, "duplicate client name '%s'", cd->name);
        t->nclients++;
    }
    return 0;
}

/* `keys:` and `kinds_dir:` are relative to the topology file's directory,
 * like an include. */
static int parse_dir(parse_ctx *c, const yaml_node_t *v, const char *key, const char *what,
                     char *out, size_t cap)
{
    const char *s;
    if (is_null(v))
        return 0;
    if (want_text(c, v, key, what, &s) < 0)
        return -1;
    if (!*s)
        return fail_at(c, v->start_mark, "'%s' must be a directory, not an empty string", key);
    const char *slash = strrchr(c->file, '/');
    int n;
    if (s[0] == '/' || !slash)
        n = snprintf(out, cap, "%s", s);
    else
        n = snprintf(out, cap, "%.*s/%s", (int)(slash - c->file), c->file, s);
    if (n < 0 || (size_t)n >= cap)
        return fail_at(c, v->start_mark, "'%s' makes a path that is too long", key);
    return 0;
}

static int parse_root(parse_ctx *c, const yaml_node_t *root)
{
    satin_topology *t = c->t;
    yaml_node_t *v, *k;
    int i = 0;
    if (root->type != YAML_MAPPING_NODE)
        return fail_at(c, root->start_mark,
                       "the document must be a mapping with grid and clusters, not %s",
                       shown(c, root));
    if (check_keys(c, root, top_keys, "at the top level") < 0)
        return -1;
    if (!(v = map_get(c, root, "grid", NULL)))
        return fail_at(c, root->start_mark, "missing 'grid' at the top level (the grid's name)");
    if (want_name(c, v, "grid", t->name) < 0)
        return -1;
    if ((v = map_get(c, root, "policy", &k)) && !is_null(v) && parse_policy(c, k, v) < 0)
        return -1;
    if ((v = map_opt(c, root, "policy_params")) && parse_params(c, v) < 0)
        return -1;
    if ((v = map_opt(c, root, "failure_timeout")) && parse_failure_timeout(c, v) < 0)
        return -1;
    if ((v = map_opt(c, root, "orphan_saving")) &&
        want_bool(c, v, "orphan_saving", &t->orphan_saving) < 0)
        return -1;
    if ((v = map_opt(c, root, "security"))) {
        if (want_choice(c, v, "security", security_names, &i) < 0)
            return -1;
        t->security_none = (i == 0);
    }
    if ((v = map_opt(c, root, "allow_insecure_network"))) {
        if (want_bool(c, v, "allow_insecure_network", &t->allow_insecure_network) < 0)
            return -1;
        if (t->allow_insecure_network && !t->security_none)
            return fail_at(c, v->start_mark, "'allow_insecure_network' applies only to "
                           "security: none (curve authenticates every peer)");
    }
    if ((v = map_opt(c, root, "keys")) &&
        parse_dir(c, v, "keys", "a directory of secret key files", t->keys_dir,
                  sizeof t->keys_dir) < 0)
        return -1;
    if ((v = map_opt(c, root, "kinds_dir")) &&
        parse_dir(c, v, "kinds_dir", "a directory of kind modules", t->kinds_dir,
                  sizeof t->kinds_dir) < 0)
        return -1;
    if ((v = map_opt(c, root, "clients")) && parse_clients(c, v) < 0)
        return -1;
    if ((v = map_opt(c, root, "emulate"))) {
        if (want_bool(c, v, "emulate", &t->emulate) < 0)
            return -1;
        c->shim_mark = v->start_mark;   /* unless wan names the shim's keys */
    }
    if (parse_clusters(c, root) < 0)
        return -1;
    if ((v = map_opt(c, root, "wan")) && parse_wan(c, v) < 0)
        return -1;
    return check_shim_ports(c);
}

/* ---- the API ------------------------------------------------------------------------ */

/* Line and column (1-based) of byte `offset`, for reader errors. */
static void offset_mark(const char *text, size_t len, size_t offset, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < offset && i < len; i++) {
        if (text[i] == '\n')
            ++*line, *col = 1;
        else if (((unsigned char)text[i] & 0xC0) != 0x80)
            ++*col;
    }
}

static void syntax_error(const yaml_parser_t *p, const char *name, const char *text,
                         size_t len, char *err, size_t errlen)
{
    const char *problem = p->problem ? p->problem : "cannot parse";
    if (p->error == YAML_MEMORY_ERROR) {
        set_err(err, errlen, "%s: out of memory", name);
    } else if (p->error == YAML_READER_ERROR) {
        size_t line, col;
        offset_mark(text, len, p->problem_offset, &line, &col);
        if (p->problem_value != -1)
            set_err(err, errlen, "%s:%zu:%zu: YAML syntax error: %s (#x%X)", name, line, col,
                    problem, (unsigned)p->problem_value);
        else
            set_err(err, errlen, "%s:%zu:%zu: YAML syntax error: %s", name, line, col, problem);
    } else if (p->context) {
        set_err(err, errlen, "%s:%zu:%zu: YAML syntax error: %s (%s at %zu:%zu)", name,
                p->problem_mark.line + 1, p->problem_mark.column + 1, problem, p->context,
                p->context_mark.line + 1, p->context_mark.column + 1);
    } else {
        set_err(err, errlen, "%s:%zu:%zu: YAML syntax error: %s", name, p->problem_mark.line + 1,
                p->problem_mark.column + 1, problem);
    }
}

satin_topology *satin_topology_parse(const char *name, const char *text, size_t len, char *err,
                                     size_t errlen)
{
    yaml_parser_t parser;
    yaml_document_t doc, extra;
    satin_topology *t;
    parse_ctx c;
    int rc = -1;

    if (!name)
        name = "(topology)";
    if (err && errlen)
        err[0] = '\0';
    if (!text && len) {
        set_err(err, errlen, "%s: no text", name);
        return NULL;
    }
    if (!(t = calloc(1, sizeof *t))) {
        set_err(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    snprintf(t->path, sizeof t->path, "%s", name);
    t->emulate = 0;
    t->security_none = 0;
    t->wan_default = (satin_link_def){.from = -1, .to = -1, .latency_ms = 10.0,
                                      .jitter_ms = 0.0, .bandwidth_kBps = 1000.0};
    snprintf(t->shim_host, sizeof t->shim_host, "127.0.0.1");
    t->shim_base_port = 20000;
    t->failure_timeout_lan_ms = SATIN_FAILURE_TIMEOUT_LAN_MS;
    t->orphan_saving = 1;
    t->failure_timeout_wan_ms = SATIN_FAILURE_TIMEOUT_WAN_MS;

    if (!yaml_parser_initialize(&parser)) {
        set_err(err, errlen, "%s: out of memory", name);
        free(t);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)(text ? text : ""), len);
    if (!yaml_parser_load(&parser, &doc)) {
        syntax_error(&parser, name, text, len, err, errlen);
        yaml_parser_delete(&parser);
        free(t);
        return NULL;
    }

    memset(&c, 0, sizeof c);
    c.file = name;
    c.doc = &doc;
    c.err = err;
    c.errlen = errlen;
    c.t = t;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        yaml_mark_t start = {0, 0, 0};
        fail_at(&c, start, "the file is empty (expected a mapping with grid and clusters)");
    } else if (parse_root(&c, root) == 0) {
        /* Only one document: anything after it is a mistake. */
        if (!yaml_parser_load(&parser, &extra)) {
            syntax_error(&parser, name, text, len, err, errlen);
        } else {
            yaml_node_t *second = yaml_document_get_root_node(&extra);
            if (second)
                fail_at(&c, extra.start_mark,
                        "a second YAML document (expected one document only)");
            else
                rc = 0;
            yaml_document_delete(&extra);
        }
    }
    free(c.cluster_marks);
    free(c.link_marks);
    free(c.link_at);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc < 0)
        satin_topology_destroy(&t);
    return t;
}

satin_topology *satin_topology_load(const char *path, char *err, size_t errlen)
{
    FILE *f;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    satin_topology *t;

    if (!path) {
        set_err(err, errlen, "(null): cannot open: %s", strerror(EINVAL));
        return NULL;
    }
    if (!(f = fopen(path, "rb"))) {
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (len == cap) {
            char *nb;
            if (cap >= TOPOLOGY_MAX_FILE) {
                set_err(err, errlen, "%s: too large (more than %u bytes)", path,
                        TOPOLOGY_MAX_FILE);
                goto fail;
            }
            cap = cap ? 2 * cap : 8192;
            if (!(nb = realloc(buf, cap + 1))) {
                set_err(err, errlen, "%s: out of memory", path);
                goto fail;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f)) {
                set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
                goto fail;
            }
            break;
        }
    }
    fclose(f);
    t = satin_topology_parse(path, buf ? buf : "", len, err, errlen);
    free(buf);
    return t;
fail:
    fclose(f);
    free(buf);
    return NULL;
}

void satin_topology_destroy(satin_topology **self)
{
    if (!self || !*self)
        return;
    free((*self)->policy_params);
    free((*self)->links);
    free((*self)->clients);
    free((*self)->clusters);
    free((*self)->nodes);
    free(*self);
    *self = NULL;
}

const satin_node_def *satin_topology_node(const satin_topology *t, const char *id)
{
    if (!t || !id)
        return NULL;
    for (int i = 0; i < t->nnodes; i++)
        if (strcmp(t->nodes[i].id, id) == 0)
            return &t->nodes[i];
    return NULL;
}

satin_link_def satin_topology_link(const satin_topology *t, int from, int to)
{
    satin_link_def l = {.from = from, .to = to, .latency_ms = 0, .jitter_ms = 0,
                        .bandwidth_kBps = 0};
    if (!t || from < 0 || to < 0 || from >= t->nclusters || to >= t->nclusters || from == to)
        return l;
    for (int i = 0; i < t->nlinks; i++)
        if (t->links[i].from == from && t->links[i].to == to)
            return t->links[i];
    l = t->wan_default;
    l.from = from;
    l.to = to;
    return l;
}

int satin_topology_shim_port(const satin_topology *t, int from_cluster, int to_node)
{
    if (!t || from_cluster < 0 || from_cluster >= t->nclusters || to_node < 0 ||
        to_node >= t->nnodes)
        return -1;
    long long port = (long long)t->shim_base_port + (long long)from_cluster * t->nnodes + to_node;
    return port <= 65535 ? (int)port : -1;
}

void satin_topology_peer_endpoint(const satin_topology *t, int from_node, int to_node, char *buf,
                                  size_t len)
{
    if (!buf || !len)
        return;
    buf[0] = '\0';
    if (!t || from_node < 0 || from_node >= t->nnodes || to_node < 0 || to_node >= t->nnodes)
        return;
    int from_cluster = t->nodes[from_node].cluster;
    int port = satin_topology_shim_port(t, from_cluster, to_node);
    if (t->emulate && from_cluster != t->nodes[to_node].cluster && port > 0)
        snprintf(buf, len, "tcp://%s:%d", t->shim_host, port);
    else
        snprintf(buf, len, "%s", t->nodes[to_node].endpoint);
}

int satin_topology_check_keys(const satin_topology *t, char *err, size_t errlen)
{
    if (!t || t->security_none)
        return 0;
    for (int i = 0; i < t->nnodes; i++) {
        const satin_node_def *nd = &t->nodes[i];
        if (nd->public_key[0])
            continue;
        set_err(err, errlen,
                "%s:%d:%d: node %s has no public_key, and security is curve (the default): "
                "run 'satin-keygen %s' and add the key it prints, or say 'security: none' for "
                "a plain-text grid",
                t->path, nd->line, nd->column, nd->id, nd->id);
        return -1;
    }
    for (int i = 0; i < t->nnodes; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(t->nodes[i].public_key, t->nodes[j].public_key) == 0) {
                set_err(err, errlen, "%s:%d:%d: node %s has the same public_key as node %s",
                        t->path, t->nodes[i].line, t->nodes[i].column, t->nodes[i].id,
                        t->nodes[j].id);
                return -1;
            }
    return 0;
}

int satin_topology_node_of_key(const satin_topology *t, const char *z85)
{
    for (int i = 0; t && z85 && i < t->nnodes; i++)
        if (t->nodes[i].public_key[0] && strcmp(t->nodes[i].public_key, z85) == 0)
            return i;
    return -1;
}

int satin_topology_client_of_key(const satin_topology *t, const char *z85)
{
    for (int i = 0; t && z85 && i < t->nclients; i++)
        if (strcmp(t->clients[i].public_key, z85) == 0)
            return i;
    return -1;
}

static void digest_u32(EVP_MD_CTX *md, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    EVP_DigestUpdate(md, b, sizeof b);
}

/* Length-prefixed, so that ("ab","c") and ("a","bc") cannot collide. */
static void digest_str(EVP_MD_CTX *md, const char *s)
{
    size_t n = strlen(s);
    digest_u32(md, (uint32_t)n);
    EVP_DigestUpdate(md, s, n);
}

void satin_topology_digest(const satin_topology *t, unsigned char out[SATIN_TOPOLOGY_DIGEST_SIZE])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned int len = 0;
    if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1)
        abort();
    /* A version tag: a later change of what is hashed must not match this one. */
    digest_str(md, "satin-membership-1");
    digest_str(md, t->name);
    digest_u32(md, (uint32_t)t->nclusters);
    for (int c = 0; c < t->nclusters; c++) {
        digest_str(md, t->clusters[c].name);
        digest_u32(md, (uint32_t)t->clusters[c].nnodes);
    }
    digest_u32(md, (uint32_t)t->nnodes);
    for (int i = 0; i < t->nnodes; i++) {
        const satin_node_def *n = &t->nodes[i];
        digest_str(md, n->id);
        digest_str(md, t->clusters[n->cluster].name);
        digest_str(md, n->endpoint);
        digest_str(md, n->public_key);
    }
    if (EVP_DigestFinal_ex(md, out, &len) != 1 || len != SATIN_TOPOLOGY_DIGEST_SIZE)
        abort();
    EVP_MD_CTX_free(md);
}

void satin_topology_digest_hex(const unsigned char d[SATIN_TOPOLOGY_DIGEST_SIZE], char *buf,
                               size_t len)
{
    size_t o = 0;
    if (len)
        buf[0] = 0;
    for (int i = 0; i < 6 && o + 3 <= len; i++, o += 2)
        snprintf(buf + o, len - o, "%02x", d[i]);
}

/* ---- values kept for the layers above ------------------------------------------ */

int satin_topology_fail(const satin_topology *t, int line, int column, char *err,
                        size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        int n = snprintf(err, errlen, "%s:%d:%d: ", t->path, line, column);
        if (n >= 0 && (size_t)n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

int satin_topology_value_int(const satin_topology *t, const satin_topology_value *v,
                             long long min, long long max, long long *out, char *err,
                             size_t errlen)
{
    char expect[96];
    int_expect(expect, sizeof expect, min, max);
    if (!v->scalar || !int_in_range(v->text, min, max, out))
        return satin_topology_fail(t, v->line, v->column, err, errlen, "'%s' must be %s, not %s",
                                   v->key, expect, v->shown);
    return 0;
}

int satin_topology_value_num(const satin_topology *t, const satin_topology_value *v, double min,
                             double max, int above_min, const char *unit, double *out,
                             char *err, size_t errlen)
{
    char expect[128];
    num_expect(expect, sizeof expect, min, max, above_min, unit);
    if (!v->scalar || !num_in_range(v->text, min, max, above_min, out))
        return satin_topology_fail(t, v->line, v->column, err, errlen, "'%s' must be %s, not %s",
                                   v->key, expect, v->shown);
    return 0;
}
