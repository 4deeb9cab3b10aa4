/*
 * test_raytracer.c - the raytracer kind: its checksum against the same
 * pixel function run sequentially over the whole image, for any tile size
 * and number of workers; a few properties of the picture (sky on top, the
 * red sphere in the middle, reflections change it); the same with the
 * pixels travelling up the tree (carry=), whose results are what they
 * should be and stay within the default record limit; with image=1 the
 * data format hands over, the sequential image as a P6 PPM byte for byte;
 * and the error texts of bad parameters.
 */
#include "kinds.h"
#include "raytracer.h"
#include "trace.h"
#include "../tap.h"

#define KIND_UNDER_TEST "raytracer"
#include "kind_kit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sequential_checksum(int w, int h, int depth)
{
    uint64_t sum = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            sum += satin_rt_pixel_hash(x, y, satin_rt_pixel(w, h, depth, x, y));
    return sum;
}

static int64_t as_i64(uint64_t v)
{
    int64_t s;
    memcpy(&s, &v, sizeof s);
    return s;
}

/* The checksum of the kind (depth, tile, carry < 0: not given); *pixels gets
 * the pixel count. */
static int64_t run_rt_carry(satin_pool *pool, int w, int h, int depth, int tile, int carry,
                            int64_t *pixels)
{
    char pw[32], ph[32], pd[32], pt[32], pc[32];
    snprintf(pw, sizeof pw, "width=%d", w);
    snprintf(ph, sizeof ph, "height=%d", h);
    snprintf(pd, sizeof pd, "depth=%d", depth);
    snprintf(pt, sizeof pt, "tile=%d", tile);
    snprintf(pc, sizeof pc, "carry=%d", carry);
    const char *params[6] = {pw, ph, NULL, NULL, NULL, NULL};
    int k = 2;
    if (depth >= 0)
        params[k++] = pd;
    if (tile >= 0)
        params[k++] = pt;
    if (carry >= 0)
        params[k++] = pc;
    satin_outcome o;
    int64_t v = 0, px = -1;
    satin_run_record(pool, kit_kinds(), "raytracer", params, &o);
    if (o.failed)
        diag("raytracer %dx%d depth=%d tile=%d carry=%d failed: %s", w, h, depth, tile, carry,
             o.error);
    else if (satin_kvlist_i64(&o.result, "checksum", &v) < 0 ||
             satin_kvlist_i64(&o.result, "pixels", &px) < 0)
        diag("raytracer gave no i64 'checksum' and 'pixels'");
    satin_outcome_free(&o);
    if (pixels)
        *pixels = px;
    return v;
}

static int64_t run_rt(satin_pool *pool, int w, int h, int depth, int tile, int64_t *pixels)
{
    return run_rt_carry(pool, w, h, depth, tile, -1, pixels);
}

static void check_sequential(satin_pool *pool, int workers)
{
    /* width, height, depth (-1: default 3), tile (-1: default) */
    static const int cases[][4] = {
        {1, 1, -1, -1}, {7, 5, 3, 1}, {64, 48, 0, 16}, {64, 48, -1, -1}, {64, 48, 5, 3},
        {33, 97, 2, 50}, {160, 120, -1, 100}, {120, 160, 1, 1000000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int w = cases[i][0], h = cases[i][1], d = cases[i][2], t = cases[i][3];
        int64_t pixels = -1;
        int64_t got = run_rt(pool, w, h, d, t, &pixels);
        is_i64(got, as_i64(sequential_checksum(w, h, d < 0 ? 3 : d)),
               "%dx%d depth=%d tile=%d: checksum of the sequential image, %d worker(s)", w, h, d,
               t, workers);
        is_i64(pixels, (int64_t)w * h, "%dx%d: pixels", w, h);
    }
}

/* The tiling changes the jobs, never the image. */
static void check_tiles(satin_pool *pool, int workers)
{
    int64_t want = as_i64(sequential_checksum(96, 64, 3));
    static const int tiles[] = {1, 2, 5, 64, 1024, 6144, 100000};
    for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++)
        is_i64(run_rt(pool, 96, 64, 3, tiles[i], NULL), want, "96x64 tile=%d, %d worker(s)",
               tiles[i], workers);
}

/* With the pixels travelling, the checksum is the sequential one and the
 * one of carry=0: the root assembling the whole image, regions assembling
 * theirs below the root, from tiles of one pixel, or nothing carried at all
 * (every region of at most carry pixels a tile). */
static void check_carry(satin_pool *pool, int workers)
{
    /* width, height, depth (-1: default 3), tile (-1: default 1024), carry */
    static const int cases[][5] = {
        {1, 1, -1, -1, 1},      {7, 5, 3, 1, 35},       {7, 5, 3, 1, 4},
        {64, 48, 0, 16, 3072},  {64, 48, -1, -1, 500},  {33, 97, 2, 50, 1000},
        {96, 64, 3, 5, 700},    {160, 120, -1, 100, 19200}, {160, 120, 1, 7, 1 << 28},
        {120, 160, 1, 1000000, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int w = cases[i][0], h = cases[i][1], d = cases[i][2], t = cases[i][3], k = cases[i][4];
        int64_t pixels = -1;
        int64_t got = run_rt_carry(pool, w, h, d, t, k, &pixels);
        is_i64(got, as_i64(sequential_checksum(w, h, d < 0 ? 3 : d)),
               "%dx%d depth=%d tile=%d carry=%d: checksum of the sequential image, %d worker(s)",
               w, h, d, t, k, workers);
        is_i64(got, run_rt_carry(pool, w, h, d, t, 0, NULL),
               "%dx%d depth=%d tile=%d carry=%d: the checksum of carry=0", w, h, d, t, k);
        is_i64(pixels, (int64_t)w * h, "%dx%d carry=%d: pixels", w, h, k);
    }
}

/* 1024 x 682 with carry = all of it: the root assembles the whole image from
 * its halves of 512 x 682, results of 1047552 bytes, just within the
 * default record limit (1048576; 512 x 684 would not). */
static void check_carry_limit(satin_pool *pool, int workers)
{
    static int64_t want;
    static int have;
    if (!have) {
        want = as_i64(sequential_checksum(1024, 682, 0));
        have = 1;
    }
    is_i64(run_rt_carry(pool, 1024, 682, 0, -1, 1024 * 682, NULL), want,
           "1024x682 depth=0 carry=698368: results of 1047552 bytes, checksum of the sequential "
           "image, %d worker(s)", workers);
}

/* What the results carry, traced (the task's data_size: with carry, the
 * bytes passed are the data). */
static void check_carry_records(void)
{
    satin_trace_tree t;
    satin_outcome o;
    /* 8 x 4 in tiles of at most 8: the root's halves 4 x 4, then 4 x 2. */
    satin_trace_record(kit_kinds(), "raytracer",
                       (const char *[]){"width=8", "height=4", "tile=8", "carry=32", NULL}, 0, 0, 0,
                       &t, &o);
    ok(!o.failed && t.n == 7 && t.node[0].arg_bytes == 40 && t.node[0].result_bytes == 16 &&
           t.node[1].arg_bytes == 40 && t.node[1].result_bytes == 3 * 16 &&
           t.node[2].nchildren == 0 && t.node[2].result_bytes == 3 * 8,
       "traced 8x4 tile=8 carry=32: the root a checksum, each region below its pixels x 3 "
       "bytes (root %llu, half %llu, tile %llu)",
       t.n == 7 ? (unsigned long long)t.node[0].result_bytes : 0ULL,
       t.n == 7 ? (unsigned long long)t.node[1].result_bytes : 0ULL,
       t.n == 7 ? (unsigned long long)t.node[2].result_bytes : 0ULL);
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);

    /* carry=16: the halves of 4 x 4 are the first that fit; the root returns a checksum. */
    satin_trace_record(kit_kinds(), "raytracer",
                       (const char *[]){"width=8", "height=4", "tile=8", "carry=16", NULL}, 0, 0, 0,
                       &t, &o);
    ok(!o.failed && t.n == 7 && t.node[0].result_bytes == 16 && t.node[1].result_bytes == 16 &&
           t.node[2].result_bytes == 3 * 8 && t.node[3].result_bytes == 3 * 8,
       "traced 8x4 tile=8 carry=16: the halves checksums, their tiles pixels");
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);
}

static int red(uint32_t p) { return (int)(p >> 16); }
static int green(uint32_t p) { return (int)((p >> 8) & 255); }
static int blue(uint32_t p) { return (int)(p & 255); }

/* The picture is a picture: sky above, the red sphere in the middle, a
 * checkered floor below, and reflections that matter. */
static void check_scene(satin_pool *pool)
{
    int w = 160, h = 120;
    uint32_t sky = satin_rt_pixel(w, h, 3, w / 2, 2);
    ok(blue(sky) > red(sky) && blue(sky) > 150, "top centre is sky (0x%06x)", (unsigned)sky);
    uint32_t mid = satin_rt_pixel(w, h, 3, w / 2, h * 2 / 5);
    ok(red(mid) > 2 * green(mid) && red(mid) > 2 * blue(mid), "the centre sphere is red (0x%06x)",
       (unsigned)mid);
    uint32_t lo = 0xffffff, hi = 0;
    for (int x = 0; x < w; x++) {
        uint32_t p = satin_rt_pixel(w, h, 3, x, h - 2);
        lo = green(p) < green(lo) ? p : lo;
        hi = green(p) > green(hi) ? p : hi;
    }
    ok(green(hi) - green(lo) > 100, "the bottom row is checkered (0x%06x .. 0x%06x)",
       (unsigned)lo, (unsigned)hi);
    /* Count distinct colours in a coarse histogram. */
    static unsigned char seen[1 << 15];
    memset(seen, 0, sizeof seen);
    int distinct = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = satin_rt_pixel(w, h, 3, x, y);
            unsigned k = (unsigned)(red(p) >> 3) << 10 | (unsigned)(green(p) >> 3) << 5 |
                         (unsigned)(blue(p) >> 3);
            distinct += !seen[k];
            seen[k] = 1;
        }
    ok(distinct > 200, "the image has many colours (%d)", distinct);
    ok(run_rt(pool, w, h, 0, -1, NULL) != run_rt(pool, w, h, 3, -1, NULL),
       "reflections change the image");
}

/* The limit checked is the pool's (satind --max-record), not the default:
 * 160x120 carry=19200 has its halves of 80x120 return 28800 bytes each. */
static void check_daemon_limit(void)
{
    satin_pool *small = satin_pool_new(&(satin_pool_config){.workers = 1, .max_record = 28799});
    check_bad(small, (const char *[]){"width=160", "height=120", "carry=19200", NULL},
              "raytracer: carry=19200 gives results of 28800 bytes (the pixels of 80x120, 3 "
              "bytes each), over the record limit (28799 bytes, satind --max-record): give a "
              "smaller carry",
              "a daemon's --max-record one byte short of a result: refused with its limit");
    satin_pool_destroy(&small);
    satin_pool *fits = satin_pool_new(&(satin_pool_config){.workers = 1, .max_record = 28800});
    is_i64(run_rt_carry(fits, 160, 120, -1, -1, 19200, NULL),
           as_i64(sequential_checksum(160, 120, 3)),
           "and with --max-record the size of the result, it runs: checksum of the sequential "
           "image");
    satin_pool_destroy(&fits);
    /* A larger limit does not raise the 1 MiB that other nodes' checks hold
     * a result with pixels to: the halves of 512 x 684 would return 1050624
     * bytes. */
    satin_pool *big = satin_pool_new(&(satin_pool_config){.workers = 1, .max_record = 4 << 20});
    check_bad(big, (const char *[]){"width=1024", "height=684", "carry=700416", NULL},
              "raytracer: carry=700416 gives results of 1050624 bytes (the pixels of 512x684, 3 "
              "bytes each), over the 1048576 bytes other nodes accept in a record that carries "
              "data, whatever --max-record: give a smaller carry",
              "a daemon's --max-record of 4 MiB: still refused above 1 MiB, with that bound");
    is_i64(run_rt_carry(big, 160, 120, -1, -1, 19200, NULL),
           as_i64(sequential_checksum(160, 120, 3)),
           "and a carry within it runs there: checksum of the sequential image");
    satin_pool_destroy(&big);
}

/* image=1: the PPM that format hands over, byte for byte the sequential
 * image, for tiles that split it and one that does not, and the same
 * checksum in the key/values; image=0 has no data. */
static void check_image(satin_pool *pool, int workers)
{
    const int w = 37, h = 23;
    char head[32];
    size_t hl = (size_t)snprintf(head, sizeof head, "P6\n%d %d\n255\n", w, h);
    size_t len = hl + 3 * (size_t)w * h;
    unsigned char *want = malloc(len);
    memcpy(want, head, hl);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = satin_rt_pixel(w, h, 3, x, y);
            unsigned char *px = want + hl + 3 * ((size_t)y * w + (size_t)x);
            px[0] = (unsigned char)red(p);
            px[1] = (unsigned char)green(p);
            px[2] = (unsigned char)blue(p);
        }
    static const char *tiles[] = {"tile=1", "tile=16", "tile=1024"};
    for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++) {
        satin_outcome o;
        satin_run_record(pool, kit_kinds(), "raytracer",
                         (const char *[]){"width=37", "height=23", tiles[i], "image=1", NULL}, &o);
        int64_t sum = 0, pixels = 0;
        satin_kvlist_i64(&o.result, "checksum", &sum);
        satin_kvlist_i64(&o.result, "pixels", &pixels);
        ok(!o.failed && sum == as_i64(sequential_checksum(w, h, 3)) && pixels == w * h,
           "image=1 %s, %d worker(s): the sequential checksum and %d pixels", tiles[i], workers,
           w * h);
        is_str(o.data_type, "image/x-portable-pixmap", "image=1 %s: the data's type", tiles[i]);
        ok(o.data && o.data_len == len && memcmp(o.data, want, len) == 0,
           "image=1 %s: the data are the %zu bytes of the P6 PPM of the sequential image",
           tiles[i], len);
        satin_outcome_free(&o);
    }
    satin_outcome o;
    satin_run_record(pool, kit_kinds(), "raytracer", (const char *[]){"width=37", "height=23", NULL},
                     &o);
    ok(!o.failed && o.data == NULL && o.data_type[0] == '\0', "image=0: no data");
    satin_outcome_free(&o);
    free(want);
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"height=10", NULL}, "needs parameter 'width'",
              "missing width");
    check_bad(pool, (const char *[]){"width=10", NULL}, "needs parameter 'height'",
              "missing height");
    check_bad(pool, (const char *[]){"width=0", "height=10", NULL}, "out of range", "width=0");
    check_bad(pool, (const char *[]){"width=10", "height=16385", NULL}, "out of range",
              "height=16385");
    check_bad(pool, (const char *[]){"width=10", "height=1e3", NULL}, "not an integer",
              "height=1e3");
    check_bad(pool, (const char *[]){"width=10", "height=10", "depth=-1", NULL}, "out of range",
              "depth=-1");
    check_bad(pool, (const char *[]){"width=10", "height=10", "depth=17", NULL}, "out of range",
              "depth=17");
    check_bad(pool, (const char *[]){"width=10", "height=10", "tile=0", NULL}, "out of range",
              "tile=0");
    check_bad(pool, (const char *[]){"width=10", "height=10", "carry=-1", NULL}, "out of range",
              "carry=-1");
    check_bad(pool, (const char *[]){"width=10", "height=10", "carry=268435457", NULL},
              "out of range", "carry=2^28+1");
    /* The root's halves of 512 x 684 would return 1050624 bytes. */
    check_bad(pool, (const char *[]){"width=1024", "height=684", "carry=700416", NULL},
              "raytracer: carry=700416 gives results of 1050624 bytes (the pixels of 512x684, 3 "
              "bytes each), over the record limit (1048576 bytes, satind --max-record): give a "
              "smaller carry",
              "1024x684 carry=700416: results above 1 MiB");
    check_bad(pool, (const char *[]){"width=10", "height=10", "image=2", NULL}, "out of range",
              "image=2");
    check_bad(pool, (const char *[]){"width=40", "height=30", "image=1", "carry=100", NULL},
              "raytracer: image=1 gathers the whole image at the root: carry=100 is less than "
              "its 1200 pixels (leave carry out)",
              "image=1 with a carry below the image");
    check_bad(pool, (const char *[]){"width=600", "height=600", "image=1", NULL},
              "raytracer: image=1 of 600x600 needs 1080024 bytes (3 a pixel), over the record "
              "limit (1048576 bytes, satind --max-record): give a smaller image",
              "image=1 of 600x600: over 1 MiB");
    /* Kinds are pure: no image files. */
    check_bad(pool, (const char *[]){"width=10", "height=10", "ppm=/tmp/x.ppm", NULL},
              "unknown parameter 'ppm'", "ppm=");
}

int main(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_sequential(pool, 2);
    check_tiles(pool, 2);
    check_scene(pool);
    check_carry(pool, 2);
    check_carry_limit(pool, 2);
    check_image(pool, 2);
    check_bad_params(pool);
    satin_pool_destroy(&pool);

    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_sequential(pool, 1);
    check_tiles(pool, 1);
    check_carry(pool, 1);
    check_carry_limit(pool, 1);
    check_image(pool, 1);
    satin_pool_destroy(&pool);
    check_carry_records();
    check_daemon_limit();
    return done_testing();
}
