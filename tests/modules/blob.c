/* blob.c - a kind whose result is data only: `bytes` bytes, byte i being
 * i * 131 mod 251 (a pattern a test can compute), made by its format
 * whatever the record limit.  It is how a test reaches the daemon's own
 * check on a job's data (a kind's parse usually refuses first). */
#include <satin/satin.h>

#include <stdint.h>
#include <stdlib.h>

static int blob_check(const int64_t *bytes, satin_err *err)
{
    if (*bytes < 0 || *bytes > (64 << 20))
        return satin_err_set(err, "blob: bytes=%lld is not in 0..67108864", (long long)*bytes);
    return 0;
}

SATIN_TASK(int64_t, blob, int64_t, blob_check);

static int64_t blob(SATIN_FRAME, int64_t bytes)
{
    return bytes;
}

static const satin_param_def blob_params[] = {
    {"bytes", NULL, 1, "the data's size, 0..67108864 bytes"},
    {NULL, NULL, 0, NULL},
};

static int blob_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t bytes;
    if (satin_param_i64(p, "bytes", 0, 64 << 20, &bytes, err) < 0)
        return -1;
    return satin_bytes_put(arg, &bytes, sizeof bytes, err);
}

static void blob_format(const void *res, size_t len, double wall_s, satin_result *result,
                        satin_result *stats)
{
    (void)wall_s, (void)stats;
    int64_t bytes = 0;
    if (len == sizeof bytes)
        memcpy(&bytes, res, sizeof bytes);
    unsigned char *data = malloc(bytes ? (size_t)bytes : 1);
    if (!data)
        return;
    for (int64_t i = 0; i < bytes; i++)
        data[i] = (unsigned char)(i * 131 % 251);
    satin_result_i64(result, "bytes", bytes);
    satin_result_data(result, "application/x-blob", data, (size_t)bytes);
    free(data);
}

SATIN_KIND(blob, .summary = "data of a given size (a test's kind)", .params = blob_params,
           .parse = blob_parse, .root = SATIN_TASK_OF(blob), .format = blob_format);
SATIN_MODULE("blob-kinds", "1.0");
