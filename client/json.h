/*
 * json.h - a tiny JSON writer (RFC 8259) for satin-submit's --json output.
 *
 * It builds one JSON text in memory.  Commas and colons are placed by the
 * writer, so callers only say what comes next: begin/end an object or an
 * array, a key (inside objects), a value.  Output is compact (no spaces).
 *
 * Strings: '"', '\\' and the control characters U+0000..U+001F are escaped
 * (\b \f \n \r \t, others as \u00XX), and U+007F as \u007f; well-formed
 * UTF-8 passes through unchanged; each byte that does not start a
 * well-formed UTF-8 character becomes U+FFFD, so the output is always valid
 * JSON and valid UTF-8 whatever the input.
 *
 * Numbers: integers exactly; doubles as the shortest of %.15g, %.16g and
 * %.17g that reads back as the same double (so exact, without the noise
 * digits of a plain %.17g); NaN and infinities, which JSON cannot carry,
 * become null.  The C locale's '.' is assumed (the tools never call
 * setlocale).
 *
 * Misuse (a value where a key is due, unbalanced ends, nesting deeper than
 * SATIN_JSON_MAX_DEPTH) is a programming error and aborts.  So does memory
 * exhaustion, as elsewhere in libsatin.
 */
#ifndef SATIN_JSON_H
#define SATIN_JSON_H

#include <stddef.h>
#include <stdint.h>

#define SATIN_JSON_MAX_DEPTH 32

typedef struct satin_json {
    char *buf;                 /* NUL-terminated text so far */
    size_t len, cap;
    int depth;                 /* open containers */
    char open[SATIN_JSON_MAX_DEPTH];   /* '{' or '[' per level */
    unsigned char nonempty[SATIN_JSON_MAX_DEPTH]; /* 1: a member/element came already */
    int want_value;            /* a key was written; its value comes next */
} satin_json;

void satin_json_init(satin_json *j);
void satin_json_free(satin_json *j);
/* The text written so far ("" at first); valid until the next call. */
const char *satin_json_text(const satin_json *j);
/* 1 once a complete value (the top-level one) has been written. */
int satin_json_done(const satin_json *j);

void satin_json_object_begin(satin_json *j);
void satin_json_object_end(satin_json *j);
void satin_json_array_begin(satin_json *j);
void satin_json_array_end(satin_json *j);
/* The key of the next member of the current object. */
void satin_json_key(satin_json *j, const char *key);

void satin_json_str(satin_json *j, const char *s);          /* NULL: null */
void satin_json_strn(satin_json *j, const char *s, size_t n);
void satin_json_i64(satin_json *j, int64_t v);
void satin_json_u64(satin_json *j, uint64_t v);
void satin_json_f64(satin_json *j, double v);
void satin_json_bool(satin_json *j, int v);
void satin_json_null(satin_json *j);

/* One typed value of a key/value list (proto/satin_kv.h) as the member
 * "NAME": VALUE of the object being written. */
struct satin_kv;
void satin_json_kv(satin_json *j, const struct satin_kv *kv);

/* A job's parameters as a JOBS reply gives them ("n=30 tree=T%203", pairs
 * apart by one space, %XX in values: PROTOCOL.md 6.14) as one JSON object
 * of strings, {"n":"30","tree":"T 3"}; NULL: null.  A word without '=' is
 * a key with an empty value; a '%' not followed by two hex digits stays. */
void satin_json_params_text(satin_json *j, const char *text);

/* Formats a double the way satin_json_f64 does (without the null case:
 * "nan", "inf", "-inf" are written as such) into buf; returns buf.  Used
 * for human output too, so that both show the same digits. */
char *satin_json_fmt_f64(char *buf, size_t len, double v);

#endif
