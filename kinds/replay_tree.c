/* replay_tree.c - reading, checking and writing trace files (replay_tree.h). */
#include "replay_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RT_MAX_TOKENS 7

/* Splits `line` at spaces and tabs; returns the number of tokens (at most
 * RT_MAX_TOKENS: one more than any line may have, to notice extras). */
static int rt_tokens(char *line, char **tok)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t", &save); t && n < RT_MAX_TOKENS;
         t = strtok_r(NULL, " \t", &save))
        tok[n++] = t;
    return n;
}

/* A decimal integer in [min, max], nothing else. */
static int rt_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
    const char *digits = s[0] == '-' ? s + 1 : s;
    if (!*digits)
        return -1;
    for (const char *p = digits; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* FNV-1a over the bytes of a 64-bit value, least significant first. */
static uint64_t rt_hash(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

void replay_tree_free(replay_tree **self)
{
    replay_tree *t = *self;
    if (!t)
        return;
    free(t->self_us);
    free(t->nkids);
    free(t->first_kid);
    free(t->kids);
    free(t->arg_bytes);
    free(t->result_bytes);
    free(t);
    *self = NULL;
}

/* The reader's state between lines. */
typedef struct rt_reader {
    const char *name;
    long line;
    satin_err *err;
    replay_tree *t;
    int64_t count, total, next_slot;
    int64_t want_total;
    int64_t *stack;       /* ancestors of the next node: node ids */
    int64_t *left;        /* children each of them still expects */
    int64_t depth;
} rt_reader;

static int rt_header(rt_reader *r, char **tok, int n)
{
    int64_t version, nodes, total;
    if (n != 4 || strcmp(tok[0], "satin-trace") != 0 || rt_int(tok[1], 0, INT32_MAX, &version) < 0 ||
        strncmp(tok[2], "nodes=", 6) != 0 || strncmp(tok[3], "total_us=", 9) != 0)
        return satin_err_set(r->err,
                             "replay: %s:%ld: expected the header 'satin-trace %d nodes=N "
                             "total_us=T' (is this a trace file?)",
                             r->name, r->line, REPLAY_FORMAT_VERSION);
    if (version < 1 || version > REPLAY_FORMAT_VERSION)
        return satin_err_set(r->err,
                             "replay: %s:%ld: trace format version %" PRId64
                             " is not supported (this build reads versions 1 to %d)",
                             r->name, r->line, version, REPLAY_FORMAT_VERSION);
    if (rt_int(tok[2] + 6, 1, REPLAY_MAX_NODES, &nodes) < 0)
        return satin_err_set(r->err,
                             "replay: %s:%ld: nodes=%s is not an integer in [1, %" PRId64 "]",
                             r->name, r->line, tok[2] + 6, REPLAY_MAX_NODES);
    if (rt_int(tok[3] + 9, 0, INT64_MAX, &total) < 0)
        return satin_err_set(r->err, "replay: %s:%ld: total_us=%s is not a non-negative integer",
                             r->name, r->line, tok[3] + 9);
    replay_tree *t = r->t;
    t->version = (int)version;
    t->nnodes = nodes;
    t->self_us = malloc(sizeof *t->self_us * (size_t)nodes);
    t->nkids = malloc(sizeof *t->nkids * (size_t)nodes);
    t->first_kid = malloc(sizeof *t->first_kid * (size_t)nodes);
    t->kids = malloc(sizeof *t->kids * (size_t)nodes);
    t->arg_bytes = calloc((size_t)nodes, sizeof *t->arg_bytes);
    t->result_bytes = calloc((size_t)nodes, sizeof *t->result_bytes);
    r->stack = malloc(sizeof *r->stack * (size_t)nodes);
    r->left = malloc(sizeof *r->left * (size_t)nodes);
    if (!t->self_us || !t->nkids || !t->first_kid || !t->kids || !t->arg_bytes ||
        !t->result_bytes || !r->stack || !r->left)
        return satin_err_set(r->err, "replay: %s:%ld: out of memory for %" PRId64 " nodes",
                             r->name, r->line, nodes);
    r->want_total = total;
    return 0;
}

static int rt_node(rt_reader *r, char **tok, int n)
{
    static const char *const field[] = {"id",        "parent",    "self_us",
                                        "nchildren", "arg_bytes", "result_bytes"};
    static const int64_t lo[] = {0, -1, 0, 0, 0, 0};
    const int64_t hi[] = {REPLAY_MAX_NODES - 1, REPLAY_MAX_NODES - 1, REPLAY_MAX_SELF_US,
                          REPLAY_MAX_CHILDREN,  REPLAY_MAX_DATA_BYTES, REPLAY_MAX_DATA_BYTES};
    int want = r->t->version == 1 ? 4 : 6;
    int64_t v[6] = {0};
    if (n != want)
        return satin_err_set(r->err,
                             "replay: %s:%ld: expected %d fields 'id parent self_us nchildren%s' "
                             "(format version %d), got %s%d",
                             r->name, r->line, want, want == 6 ? " arg_bytes result_bytes" : "",
                             r->t->version, n > want ? "more than " : "", n > want ? want : n);
    for (int i = 0; i < want; i++)
        if (rt_int(tok[i], lo[i], hi[i], &v[i]) < 0)
            return satin_err_set(r->err,
                                 "replay: %s:%ld: %s '%s' is not an integer in [%" PRId64
                                 ", %" PRId64 "]",
                                 r->name, r->line, field[i], tok[i], lo[i], hi[i]);
    replay_tree *t = r->t;
    int64_t id = r->count;
    if (id >= t->nnodes)
        return satin_err_set(r->err, "replay: %s:%ld: more nodes than the header's nodes=%" PRId64,
                             r->name, r->line, t->nnodes);
    if (v[0] != id)
        return satin_err_set(r->err,
                             "replay: %s:%ld: node id %" PRId64 ", expected %" PRId64
                             " (ids count 0, 1, ... in line order)",
                             r->name, r->line, v[0], id);
    while (r->depth > 0 && r->left[r->depth - 1] == 0)
        r->depth--;
    if (id > 0 && r->depth == 0)
        return satin_err_set(r->err,
                             "replay: %s:%ld: node %" PRId64
                             " comes after the root's subtree is complete (a trace has one root)",
                             r->name, r->line, id);
    int64_t parent = r->depth ? r->stack[r->depth - 1] : -1;
    if (v[1] != parent)
        return satin_err_set(r->err,
                             "replay: %s:%ld: node %" PRId64 " names parent %" PRId64
                             ", but in pre-order its parent is %" PRId64,
                             r->name, r->line, id, v[1], parent);
    if (v[3] > t->nnodes - 1 - r->next_slot)
        return satin_err_set(r->err,
                             "replay: %s:%ld: node %" PRId64 " has %" PRId64
                             " children: more than the header's nodes=%" PRId64 " leave room for",
                             r->name, r->line, id, v[3], t->nnodes);
    if (parent >= 0) {
        int64_t k = t->nkids[parent] - r->left[r->depth - 1]--;
        t->kids[t->first_kid[parent] + k] = (uint32_t)id;
    }
    t->self_us[id] = v[2];
    t->nkids[id] = (uint32_t)v[3];
    t->first_kid[id] = (uint32_t)r->next_slot;
    r->next_slot += v[3];
    if (r->depth > t->depth)
        t->depth = r->depth;
    if (v[3] == 0) {
        t->leaves++;
        if (v[2] > t->max_leaf_us)
            t->max_leaf_us = v[2];
    }
    r->stack[r->depth] = id;
    r->left[r->depth++] = v[3];
    r->total += v[2];
    t->arg_bytes[id] = v[4];
    t->result_bytes[id] = v[5];
    t->checksum = rt_hash(rt_hash(t->checksum, (uint64_t)v[2]), (uint64_t)v[3]);
    if (t->version > 1)
        t->checksum = rt_hash(rt_hash(t->checksum, (uint64_t)v[4]), (uint64_t)v[5]);
    r->count++;
    return 0;
}

static int rt_finish(rt_reader *r)
{
    replay_tree *t = r->t;
    if (!t->self_us)
        return satin_err_set(r->err,
                             "replay: %s:%ld: no header 'satin-trace %d nodes=N total_us=T' "
                             "(an empty file?)",
                             r->name, r->line, REPLAY_FORMAT_VERSION);
    while (r->depth > 0 && r->left[r->depth - 1] == 0)
        r->depth--;
    if (r->depth > 0)
        return satin_err_set(r->err,
                             "replay: %s:%ld: the file ends inside the tree: node %" PRId64
                             " still expects %" PRId64 " more children",
                             r->name, r->line, r->stack[r->depth - 1], r->left[r->depth - 1]);
    if (r->count != t->nnodes)
        return satin_err_set(r->err,
                             "replay: %s:%ld: the file ends after %" PRId64
                             " nodes, the header says nodes=%" PRId64,
                             r->name, r->line, r->count, t->nnodes);
    if (r->total != r->want_total)
        return satin_err_set(r->err,
                             "replay: %s:%ld: the self times sum to %" PRId64
                             " us, the header says total_us=%" PRId64,
                             r->name, r->line, r->total, r->want_total);
    t->total_us = r->total;
    return 0;
}

/* Reads one line into buf; 1 when a line was read, 0 at the end, -1 when a
 * line that is not a comment is too long. */
static int rt_line(FILE *f, char *buf, size_t size, rt_reader *r)
{
    if (!fgets(buf, (int)size, f))
        return 0;
    r->line++;
    size_t len = strlen(buf);
    if (len && buf[len - 1] == '\n') {
        buf[--len] = '\0';
    } else if (!feof(f)) {
        /* Longer than the buffer: only a comment may be. */
        const char *s = buf + strspn(buf, " \t");
        if (*s != '#')
            return satin_err_set(r->err, "replay: %s:%ld: line longer than %d characters",
                                 r->name, r->line, REPLAY_MAX_LINE);
        int ch;
        while ((ch = getc(f)) != EOF && ch != '\n')
            ;
    }
    if (len && buf[len - 1] == '\r')
        buf[--len] = '\0';
    return 1;
}

int replay_tree_read(FILE *f, const char *name, replay_tree **out, satin_err *err)
{
    *out = NULL;
    rt_reader r = {.name = name, .err = err};
    r.t = calloc(1, sizeof *r.t);
    if (!r.t)
        return satin_err_set(err, "replay: %s: out of memory", name);
    r.t->checksum = UINT64_C(0xcbf29ce484222325);
    char buf[REPLAY_MAX_LINE + 2];
    int rc = 0, got;
    while (rc == 0 && (got = rt_line(f, buf, sizeof buf, &r)) != 0) {
        if (got < 0) {
            rc = -1;
            break;
        }
        char *s = buf + strspn(buf, " \t");
        if (*s == '#' || *s == '\0')
            continue;
        char *tok[RT_MAX_TOKENS];
        int n = rt_tokens(s, tok);
        rc = r.t->self_us ? rt_node(&r, tok, n) : rt_header(&r, tok, n);
    }
    if (rc == 0 && ferror(f))
        rc = satin_err_set(err, "replay: %s:%ld: read error", name, r.line);
    if (rc == 0)
        rc = rt_finish(&r);
    free(r.stack);
    free(r.left);
    if (rc < 0) {
        replay_tree_free(&r.t);
        return -1;
    }
    *out = r.t;
    return 0;
}

int replay_tree_load(const char *path, replay_tree **out, satin_err *err)
{
    *out = NULL;
    /* Only a regular file: a FIFO or a device named by a job record must not
     * block the daemon that parses it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return satin_err_set(err, "replay: cannot open the trace file %s: %s", path,
                             strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return satin_err_set(err, "replay: the trace file %s is not a regular file", path);
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return satin_err_set(err, "replay: cannot read the trace file %s: %s", path,
                             strerror(errno));
    }
    int rc = replay_tree_read(f, path, out, err);
    fclose(f);
    return rc;
}

int replay_tree_write(FILE *f, const int64_t *self_us, const uint32_t *nchildren,
                      const int64_t *arg_bytes, const int64_t *result_bytes, int64_t n,
                      const char *const *comments, satin_err *err)
{
    if (n < 1 || n > REPLAY_MAX_NODES)
        return satin_err_set(err, "replay: a trace has 1 to %" PRId64 " nodes, not %" PRId64,
                             REPLAY_MAX_NODES, n);
    int64_t *stack = malloc(sizeof *stack * (size_t)n), *left = malloc(sizeof *left * (size_t)n);
    int64_t total = 0, depth = 0, slots = 0;
    int rc = stack && left ? 0 : satin_err_set(err, "replay: out of memory");
    /* First the checks, so that a bad tree leaves no half-written file. */
    for (int64_t i = 0; rc == 0 && i < n; i++) {
        while (depth > 0 && left[depth - 1] == 0)
            depth--;
        if (i > 0 && depth == 0)
            rc = satin_err_set(err, "replay: node %" PRId64 " follows a complete tree", i);
        else if (self_us[i] < 0 || self_us[i] > REPLAY_MAX_SELF_US)
            rc = satin_err_set(err, "replay: node %" PRId64 " has self time %" PRId64
                               " us, outside [0, %" PRId64 "]", i, self_us[i], REPLAY_MAX_SELF_US);
        else if ((arg_bytes && (arg_bytes[i] < 0 || arg_bytes[i] > REPLAY_MAX_DATA_BYTES)) ||
                 (result_bytes && (result_bytes[i] < 0 || result_bytes[i] > REPLAY_MAX_DATA_BYTES)))
            rc = satin_err_set(err, "replay: node %" PRId64 " has a data size outside [0, %" PRId64
                               "]", i, REPLAY_MAX_DATA_BYTES);
        else if (nchildren[i] > REPLAY_MAX_CHILDREN || (slots += nchildren[i]) > n - 1)
            rc = satin_err_set(err, "replay: node %" PRId64 " has too many children (%" PRIu32 ")",
                               i, nchildren[i]);
        if (rc == 0) {
            if (depth > 0)
                left[depth - 1]--;
            stack[depth] = i;
            left[depth++] = nchildren[i];
            total += self_us[i];
        }
    }
    if (rc == 0 && slots != n - 1)
        rc = satin_err_set(err, "replay: the child counts announce %" PRId64
                           " nodes below the root, there are %" PRId64, slots, n - 1);
    if (rc == 0) {
        for (const char *const *c = comments; c && *c; c++) {
            fputs("# ", f);
            for (const char *p = *c; *p; p++)
                putc(*p == '\n' ? ' ' : *p, f);
            putc('\n', f);
        }
        fprintf(f, "satin-trace %d nodes=%" PRId64 " total_us=%" PRId64 "\n",
                REPLAY_FORMAT_VERSION, n, total);
        depth = 0;
        for (int64_t i = 0; i < n; i++) {
            while (depth > 0 && left[depth - 1] == 0)
                depth--;
            int64_t parent = depth ? stack[depth - 1] : -1;
            if (depth > 0)
                left[depth - 1]--;
            fprintf(f, "%" PRId64 " %" PRId64 " %" PRId64 " %" PRIu32 " %" PRId64 " %" PRId64 "\n",
                    i, parent, self_us[i], nchildren[i], arg_bytes ? arg_bytes[i] : 0,
                    result_bytes ? result_bytes[i] : 0);
            stack[depth] = i;
            left[depth++] = nchildren[i];
        }
        if (fflush(f) != 0 || ferror(f))
            rc = satin_err_set(err, "replay: writing the trace failed: %s", strerror(errno));
    }
    free(stack);
    free(left);
    return rc;
}

int64_t replay_scaled_us(int64_t self_us, double scale)
{
    return (int64_t)llround((double)self_us * scale);
}

int replay_tree_scaled(const replay_tree *t, double scale, int64_t *total_us, int64_t *span_us,
                       satin_err *err)
{
    int64_t *span = malloc(sizeof *span * (size_t)t->nnodes);
    if (!span)
        return satin_err_set(err, "replay: out of memory");
    int64_t total = 0;
    /* Children come after their parent in pre-order: walk backwards. */
    for (int64_t i = t->nnodes; i-- > 0;) {
        int64_t v = replay_scaled_us(t->self_us[i], scale);
        if (v > REPLAY_MAX_TOTAL_US - total) {
            free(span);
            return satin_err_set(err,
                                 "replay: scale=%g makes the waits sum to more than %" PRId64
                                 " us",
                                 scale, REPLAY_MAX_TOTAL_US);
        }
        total += v;
        int64_t longest = 0;
        for (uint32_t k = 0; k < t->nkids[i]; k++) {
            int64_t s = span[t->kids[t->first_kid[i] + k]];
            if (s > longest)
                longest = s;
        }
        span[i] = v + longest;
    }
    *total_us = total;
    *span_us = span[0];
    free(span);
    return 0;
}
