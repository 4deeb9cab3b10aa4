/* policy_config.c - the topology's policy keys against the registry (see policy_config.h). */
#include "policy_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const satin_policy_tunable *tunable_named(const char *name)
{
    const satin_policy_tunable *t;
    for (int i = 0; (t = satin_policy_tunable_at(i)); i++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

static void list_tunables(char *buf, size_t len)
{
    const satin_policy_tunable *t;
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; (t = satin_policy_tunable_at(i)) && o < len; i++) {
        int n = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", t->name);
        if (n < 0)
            break;
        o += (size_t)n;
    }
}

static int choose_policy(const satin_topology *t, const char *override,
                         const satin_policy_ops **out, char *err, size_t errlen)
{
    char names[128];
    satin_policy_list_names(names, sizeof names);
    const satin_topology_value *v = t ? &t->policy : NULL;
    const char *name = override ? override : v && v->key[0] ? v->text : SATIN_POLICY_DEFAULT;
    if (!override && v && v->key[0] && !v->scalar)
        return satin_topology_fail(t, v->line, v->column, err, errlen,
                                   "'policy' must be one of %s, not %s", names, v->shown);
    if ((*out = satin_policy_find(name)))
        return 0;
    if (override || !v || !v->key[0]) {
        snprintf(err, errlen, "unknown policy '%s' (expected %s)", name, names);
        return -1;
    }
    return satin_topology_fail(t, v->line, v->column, err, errlen,
                               "unknown policy %s (expected %s)", v->shown, names);
}

static int set_tunable(const satin_topology *t, const satin_topology_value *v,
                       const satin_policy_tunable *tun, satin_policy_params *p, char *err,
                       size_t errlen)
{
    int64_t x;
    if (tun->unit == SATIN_TUNABLE_MS) {
        double ms;
        if (satin_topology_value_num(t, v, tun->min, tun->max, 1, "milliseconds", &ms, err,
                                     errlen) < 0)
            return -1;
        x = (int64_t)llround(ms * 1e6);
    } else {
        long long n;
        if (satin_topology_value_int(t, v, (long long)tun->min, (long long)tun->max, &n, err,
                                     errlen) < 0)
            return -1;
        x = n;
    }
    memcpy((char *)p + tun->offset, &x, sizeof x);
    return 0;
}

static int64_t value_of(const satin_policy_params *p, const satin_policy_tunable *tun)
{
    int64_t x;
    memcpy(&x, (const char *)p + tun->offset, sizeof x);
    return x;
}

static double shown_value(const satin_policy_params *p, const satin_policy_tunable *tun)
{
    double x = (double)value_of(p, tun);
    return tun->unit == SATIN_TUNABLE_MS ? x / 1e6 : x;
}

static const satin_topology_value *given(const satin_topology *t, const char *name)
{
    for (int i = 0; t && i < t->npolicy_params; i++)
        if (strcmp(t->policy_params[i].key, name) == 0)
            return &t->policy_params[i];
    return NULL;
}

/* Pairs such as backoff_max_ms >= backoff_min_ms, checked when either is given. */
/* 1 if `hi` must not be below another tunable (*lo) and is, in p. */
static int below_its_floor(const satin_policy_params *p, const satin_policy_tunable *hi,
                           const satin_policy_tunable **lo)
{
    return hi->not_below && (*lo = tunable_named(hi->not_below)) &&
           value_of(p, hi) < value_of(p, *lo);
}

static int check_order(const satin_topology *t, const satin_policy_params *p, char *err,
                       size_t errlen)
{
    const satin_policy_tunable *hi, *lo;
    for (int i = 0; (hi = satin_policy_tunable_at(i)); i++) {
        if (!below_its_floor(p, hi, &lo))
            continue;
        const satin_topology_value *vhi = given(t, hi->name), *vlo = given(t, lo->name);
        if (!vhi && !vlo)
            continue;
        const satin_topology_value *at = vhi ? vhi : vlo;
        char why[96] = "";
        if (!vhi)
            snprintf(why, sizeof why, "; the default '%s' applies", hi->name);
        return satin_topology_fail(t, at->line, at->column, err, errlen,
                                   "'%s' (%g) must not be less than '%s' (%g)%s", hi->name,
                                   shown_value(p, hi), lo->name, shown_value(p, lo), why);
    }
    return 0;
}

static void note_unread(const satin_policy_ops *ops, const satin_topology_value *v,
                        const satin_policy_tunable *tun, char *note, size_t notelen)
{
    size_t o = strlen(note);
    if (satin_policy_reads(ops, tun) || o >= notelen)
        return;
    snprintf(note + o, notelen - o, "%s%s", o ? ", " : "", v->key);
}

int satin_policy_configure(const satin_topology *t, const char *override,
                           satin_policy_config *out, char *note, size_t notelen, char *err,
                           size_t errlen)
{
    char list[256];
    if (note && notelen)
        note[0] = '\0';
    satin_policy_params_default(&out->params);
    if (choose_policy(t, override, &out->ops, err, errlen) < 0)
        return -1;
    for (int i = 0; t && i < t->npolicy_params; i++) {
        const satin_topology_value *v = &t->policy_params[i];
        const satin_policy_tunable *tun = tunable_named(v->key);
        if (!tun) {
            list_tunables(list, sizeof list);
            return satin_topology_fail(t, v->key_line, v->key_column, err, errlen,
                                       "unknown key '%s' in policy_params (expected %s)",
                                       v->key, list);
        }
        if (set_tunable(t, v, tun, &out->params, err, errlen) < 0)
            return -1;
        if (note && notelen)
            note_unread(out->ops, v, tun, note, notelen);
    }
    return check_order(t, &out->params, err, errlen);
}

int satin_policy_set_param(const satin_policy_ops *ops, satin_policy_params *params,
                           const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    char name[64];
    if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof name) {
        snprintf(err, errlen, "'%s': expected NAME=VALUE", assignment);
        return -1;
    }
    memcpy(name, assignment, (size_t)(eq - assignment));
    name[eq - assignment] = '\0';
    const satin_policy_tunable *tun = tunable_named(name);
    if (!tun || !satin_policy_reads(ops, tun)) {
        char names[512] = "";
        size_t o = 0;
        for (int i = 0; ops->tunables && ops->tunables[i] && o < sizeof names; i++)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "",
                                  ops->tunables[i]->name);
        snprintf(err, errlen, "policy %s has no tunable '%s' (it reads %s)", ops->name, name,
                 names[0] ? names : "none");
        return -1;
    }
    const char *text = eq + 1;
    char *end = NULL;
    int64_t x;
    if (tun->unit == SATIN_TUNABLE_MS) {
        double ms = strtod(text, &end);
        if (!*text || *end || !(ms >= (double)tun->min && ms <= (double)tun->max)) {
            snprintf(err, errlen, "'%s' must be milliseconds from %g to %g, not '%s'", name,
                     tun->min, tun->max, text);
            return -1;
        }
        x = (int64_t)llround(ms * 1e6);
    } else {
        int digits = *text != '\0' && strspn(text, "0123456789") == strlen(text);
        long long n = digits ? strtoll(text, &end, 10) : -1;
        if (!digits || end - text > 15 || (double)n < tun->min || (double)n > tun->max) {
            snprintf(err, errlen, "'%s' must be a whole number from %g to %g, not '%s'", name,
                     tun->min, tun->max, text);
            return -1;
        }
        x = n;
    }
    satin_policy_params was = *params;
    memcpy((char *)params + tun->offset, &x, sizeof x);
    const satin_policy_tunable *hi, *lo;
    for (int i = 0; (hi = satin_policy_tunable_at(i)); i++)
        if (below_its_floor(params, hi, &lo) && (hi == tun || lo == tun)) {
            snprintf(err, errlen, "'%s' (%g) must not be less than '%s' (%g)", hi->name,
                     shown_value(params, hi), lo->name, shown_value(params, lo));
            *params = was;
            return -1;
        }
    return 0;
}

double satin_policy_param_shown(const satin_policy_params *p, const satin_policy_tunable *t)
{
    return shown_value(p, t);
}
