/* params.c - job record parameters, their checks and getters. */
#include "params.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int satin_err_set(satin_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

satin_params *satin_params_new(void)
{
    satin_params *self = calloc(1, sizeof *self);
    if (!self)
        abort();
    return self;
}

void satin_params_destroy(satin_params **self)
{
    if (!self || !*self)
        return;
    for (size_t i = 0; i < (*self)->n; i++) {
        free((*self)->key[i]);
        free((*self)->val[i]);
    }
    free(*self);
    *self = NULL;
}

static int find(const satin_params *p, const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->key[i], key) == 0)
            return (int)i;
    return -1;
}

static int add(satin_params *self, const char *key, const char *val, int given,
               satin_err *err)
{
    if (find(self, key) >= 0)
        return satin_err_set(err, "parameter '%s' given twice", key);
    if (self->n == SATIN_MAX_PARAMS)
        return satin_err_set(err, "too many parameters (at most %d)", SATIN_MAX_PARAMS);
    self->key[self->n] = strdup(key);
    self->val[self->n] = strdup(val);
    if (!self->key[self->n] || !self->val[self->n])
        abort();
    self->given[self->n] = (unsigned char)given;
    self->n++;
    return 0;
}

int satin_params_add(satin_params *self, const char *key, const char *val,
                     satin_err *err)
{
    if (!*key)
        return satin_err_set(err, "empty parameter name");
    return add(self, key, val, 1, err);
}

int satin_params_add_text(satin_params *self, const char *kv, satin_err *err)
{
    const char *eq = strchr(kv, '=');
    if (!eq)
        return satin_err_set(err, "parameter '%s' is not of the form key=value", kv);
    if (eq == kv)
        return satin_err_set(err, "parameter '%s' has an empty name", kv);
    char key[128];
    size_t klen = (size_t)(eq - kv);
    if (klen >= sizeof key)
        return satin_err_set(err, "parameter name too long");
    memcpy(key, kv, klen);
    key[klen] = 0;
    return add(self, key, eq + 1, 1, err);
}

int satin_params_check(satin_params *self, const satin_kind *kind, satin_err *err)
{
    for (size_t i = 0; i < self->n; i++) {
        const satin_param_def *d = kind->params;
        while (d && d->name && strcmp(d->name, self->key[i]) != 0)
            d++;
        if (!d || !d->name) {
            char known[160] = "";
            size_t off = 0;
            for (d = kind->params; d && d->name && off < sizeof known; d++)
                off += (size_t)snprintf(known + off, sizeof known - off, "%s%s",
                                        off ? ", " : "", d->name);
            return satin_err_set(err, "unknown parameter '%s' for kind %s (known: %s)",
                                 self->key[i], kind->name, known[0] ? known : "none");
        }
    }
    for (const satin_param_def *d = kind->params; d && d->name; d++) {
        if (find(self, d->name) >= 0)
            continue;
        if (d->required)
            return satin_err_set(err, "kind %s needs parameter '%s' (%s)", kind->name,
                                 d->name, d->help ? d->help : "");
        if (d->def && add(self, d->name, d->def, 0, err) < 0)
            return -1;
    }
    return 0;
}

int satin_param_given(const satin_params *p, const char *name)
{
    int i = find(p, name);
    return i >= 0 && p->given[i];
}

int satin_param_str(const satin_params *p, const char *name, const char **out,
                    satin_err *err)
{
    (void)err;
    int i = find(p, name);
    if (i < 0)
        return 1;
    *out = p->val[i];
    return 0;
}

/* Integers are decimal digits only: strtoll's base 0 would read n=010 as 8
 * and n=0x10 as 16, and any strto* skips leading blanks; a leading zero is
 * refused rather than guessed at.  A '-' is out of range unless the kind's
 * range has negative numbers.  Returns 0 with *out, or -1 with the reason in err. */
int satin_param_parse_i64(const char *name, const char *s, int64_t min, int64_t max,
                          int64_t *out, satin_err *err)
{
    const char *d = s + (*s == '-');
    char range[96];
    snprintf(range, sizeof range, "a whole number from %lld to %lld, in decimal digits",
             (long long)min, (long long)max);
    if (*d < '0' || *d > '9' || d[strspn(d, "0123456789")] != '\0')
        return satin_err_set(err, "parameter %s=%s is not an integer (%s)", name, s, range);
    if (d[0] == '0' && d[1] != '\0')
        return satin_err_set(err, "parameter %s=%s has a leading zero (%s)", name, s, range);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || v < min || v > max)
        return satin_err_set(err, "parameter %s=%s is out of range [%lld, %lld]", name, s,
                             (long long)min, (long long)max);
    *out = v;
    return 0;
}

/* Decimal notation only (digits, one '.', an exponent): no blanks, no hex
 * floats, no inf or nan, which strtod would all take. */
static int decimal_number(const char *s)
{
    size_t n, frac = 0;
    if (*s == '-' || *s == '+')
        s++;
    n = strspn(s, "0123456789");
    s += n;
    if (*s == '.') {
        frac = strspn(s + 1, "0123456789");
        s += 1 + frac;
    }
    if (n + frac == 0)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        size_t e = strspn(s, "0123456789");
        if (e == 0)
            return 0;
        s += e;
    }
    return *s == '\0';
}

int satin_param_parse_f64(const char *name, const char *s, double min, double max,
                          double *out, satin_err *err)
{
    /* Overflow gives an infinity (refused); underflow a denormal or 0 (taken). */
    double v = decimal_number(s) ? strtod(s, NULL) : NAN;
    if (!decimal_number(s) || !isfinite(v))
        return satin_err_set(err, "parameter %s=%s is not a finite number (decimal notation, e.g. 2.5 or 1e-6)", name, s);
    if (v < min || v > max)
        return satin_err_set(err, "parameter %s=%s is out of range [%g, %g]", name, s, min, max);
    *out = v;
    return 0;
}

int satin_param_i64(const satin_params *p, const char *name, int64_t min,
                    int64_t max, int64_t *out, satin_err *err)
{
    int i = find(p, name);
    if (i < 0)
        return 1;
    return satin_param_parse_i64(name, p->val[i], min, max, out, err);
}

int satin_param_f64(const satin_params *p, const char *name, double min,
                    double max, double *out, satin_err *err)
{
    int i = find(p, name);
    if (i < 0)
        return 1;
    return satin_param_parse_f64(name, p->val[i], min, max, out, err);
}

void satin_bytes_init(satin_bytes *b, size_t limit)
{
    memset(b, 0, sizeof *b);
    b->limit = limit;
}

void satin_bytes_free(satin_bytes *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

size_t satin_bytes_limit(const satin_bytes *b)
{
    return b->limit;
}

int satin_bytes_result_size(satin_bytes *b, size_t size, satin_err *err)
{
    if (size > b->limit)
        return satin_err_set(err, "a result of %zu bytes exceeds the record limit (%zu bytes, "
                                  "satind --max-record)",
                             size, b->limit);
    b->result_size = size;
    return 0;
}

int satin_bytes_put(satin_bytes *b, const void *data, size_t len, satin_err *err)
{
    if (len > b->limit - b->len || b->len > b->limit)
        return satin_err_set(err, "argument record too large (more than %zu bytes)", b->limit);
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + len)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d)
            abort();
        b->data = d;
        b->cap = cap;
    }
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}
