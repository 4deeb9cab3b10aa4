/* kind_shared.c - the argument reads and the int64 format several kinds share (kind_shared.h). */
#include "kind_shared.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int satin_arg_read(const char *kind, const void *arg, size_t len, void *out, size_t size,
                   satin_err *err)
{
    if (len != size)
        return satin_err_set(err, "%s: argument of %zu bytes, expected %zu", kind, len, size);
    memcpy(out, arg, size);
    return 0;
}

int satin_arg_head(const char *kind, const void *arg, size_t len, void *out, size_t size,
                   satin_err *err)
{
    if (len < size)
        return satin_err_set(err, "%s: argument of %zu bytes, expected at least %zu", kind, len,
                             size);
    memcpy(out, arg, size);
    return 0;
}

int satin_arg_read_ext(const char *kind, const void *arg, size_t len, void *head,
                       size_t head_size, void *ext, size_t ext_size, int more, satin_err *err)
{
    size_t both = head_size + ext_size;
    if (len != head_size && (more ? len < both : len != both))
        return satin_err_set(err, "%s: argument of %zu bytes, expected %zu or %s%zu", kind, len,
                             head_size, more ? "at least " : "", both);
    memcpy(head, arg, head_size);
    if (len == head_size)
        return 0;
    memcpy(ext, (const unsigned char *)arg + head_size, ext_size);
    return 1;
}

int satin_arg_tail(const char *kind, size_t len, size_t head, uint64_t count, size_t each,
                   const char *what, satin_err *err)
{
    /* count and each are small (bounded by the caller), len - head cannot wrap. */
    if ((uint64_t)(len - head) != count * each)
        return satin_err_set(err, "%s: argument of %zu bytes, expected %zu + %" PRIu64 " %s of %zu",
                             kind, len, head, count, what, each);
    return 0;
}

int satin_arg_range(const char *kind, const char *field, int64_t v, int64_t min, int64_t max,
                    satin_err *err)
{
    if (v < min || v > max)
        return satin_err_set(err, "%s: %s=%" PRId64 " is out of range %" PRId64 "..%" PRId64,
                             kind, field, v, min, max);
    return 0;
}

size_t satin_carry_limit(const satin_bytes *b)
{
    size_t limit = satin_bytes_limit(b);
    return limit < SATIN_CARRY_MAX ? limit : SATIN_CARRY_MAX;
}

const char *satin_carry_limit_text(const satin_bytes *b, char *buf, size_t cap)
{
    if (satin_bytes_limit(b) <= SATIN_CARRY_MAX)
        snprintf(buf, cap, "the record limit (%zu bytes, satind --max-record)", satin_bytes_limit(b));
    else
        snprintf(buf, cap, "the %zu bytes other nodes accept in a record that carries data, "
                           "whatever --max-record", SATIN_CARRY_MAX);
    return buf;
}

int64_t satin_result_as_i64(const void *res, size_t len)
{
    int64_t v = 0;
    if (len == sizeof v)
        memcpy(&v, res, sizeof v);
    return v;
}

void satin_format_value(const void *res, size_t len, double wall_s, satin_result *result,
                        satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    satin_result_i64(result, "value", satin_result_as_i64(res, len));
}
