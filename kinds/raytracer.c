/*
 * raytracer.c - a small ray tracer (one of the paper's applications): four
 * spheres on a checkered ground plane, one point light, hard shadows, Phong
 * highlights and up to `depth` levels of mirror reflection.
 *
 * The image is divided and conquered as a rectangle: a job splits its
 * longer side in halves (the first half rounded down) until it holds at
 * most `tile` pixels, and renders that tile sequentially.  Every pixel is
 * computed on its own by satin_rt_pixel() (one ray through the pixel
 * centre), so the image does not depend on the split.
 *
 * Result: checksum = sum modulo 2^64 over all pixels of
 *     mix((y << 40) ^ (x << 24) ^ 0xRRGGBB),
 * mix being splitmix64's output function (satin_rt_pixel_hash), a sum that
 * any tiling adds up the same; and pixels = width * height.
 *
 * Portability of the image: the pixel function uses only +, -, *, / and
 * sqrt (correctly rounded in IEEE 754) and floor, no libm transcendentals,
 * and no fused multiply-adds (GCC does not contract a*b+c in -std=c11 mode;
 * Clang is told below), so the checksum should be the same on every IEEE 754
 * double machine, x86-64 and ARM alike (only x86-64 was tried).
 *
 * With carry=P (P > 0) the pixels travel up the tree, as the paper's
 * raytracer returned its image, so that a steal's result moves image data
 * and a link's bandwidth matters.  A region of more than P pixels splits
 * and adds checksums as above; the first region on a path of at most P
 * pixels (unless it is a tile, which renders and adds as above) spawns its
 * halves to return their pixels, 3 bytes (R, G, B) a pixel row by row;
 * every job below does the same, a tile rendering its pixels and a parent
 * assembling its halves' into its region's; and the region that asked for
 * them computes its checksum, as defined above, from its assembled image:
 * the result is the same for every carry (with P >= width x height the
 * root assembles the whole image).  The job is refused when submitted if
 * a returned region would exceed the record limit of the daemon it is
 * submitted to (--max-record, 1 MiB by default; rt_largest_carried), or
 * SATIN_CARRY_MAX, which the argument check holds such results to.
 *
 * One bytes task, `raytracer`, runs every job: its argument is an rt_arg
 * (with a carry header when carry > 0), its result an rt_res or pixels; it
 * tells a trace the pixels a job without carry would return
 * (rt_data_size).
 *
 * With image=1 the client gets the image itself: the pixels travel up as
 * with carry = width x height, and the root returns its checksum and the
 * whole image (an rt_img and the pixels, room the parse asks for with
 * satin_bytes_result_size), which format hands to the client as a binary
 * PPM (P6) with satin_result_data; the checksum stays in the key/values.
 * A kind is pure and runs on any node, so it writes no file itself:
 * satin-submit --output FILE does.
 */
#include "apps.h"
#include "kind_shared.h"
#include "raytracer.h"
#include "splitmix.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
/* Clang contracts a*b+c into fused multiply-adds on machines that have them
 * unless told not to (GCC in -std=c11 mode does not); the image must not
 * depend on that. */
#pragma STDC FP_CONTRACT OFF
#endif

#define RT_DEFAULT_DEPTH "3"
#define RT_DEFAULT_TILE "1024"
#define RT_MAX_TILE (INT64_C(1) << 28)
#define RT_MAX_CARRY (INT64_C(1) << 28)   /* 16384^2: the largest image */
#define RT_EPS 1e-4          /* offset of secondary ray origins */
#define RT_FAR 1e30

typedef struct rt_vec {
    double x, y, z;
} rt_vec;

static rt_vec rt_v(double x, double y, double z)
{
    rt_vec v = {x, y, z};
    return v;
}
static rt_vec rt_add(rt_vec a, rt_vec b) { return rt_v(a.x + b.x, a.y + b.y, a.z + b.z); }
static rt_vec rt_sub(rt_vec a, rt_vec b) { return rt_v(a.x - b.x, a.y - b.y, a.z - b.z); }
static rt_vec rt_mul(rt_vec a, double s) { return rt_v(a.x * s, a.y * s, a.z * s); }
static rt_vec rt_had(rt_vec a, rt_vec b) { return rt_v(a.x * b.x, a.y * b.y, a.z * b.z); }
static double rt_dot(rt_vec a, rt_vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static rt_vec rt_unit(rt_vec a) { return rt_mul(a, 1 / sqrt(rt_dot(a, a))); }

typedef struct rt_sphere {
    rt_vec c;
    double r;
    rt_vec color;
    double reflect;
} rt_sphere;

static const rt_sphere rt_spheres[] = {
    {{0.0, 1.0, 3.0}, 1.0, {0.90, 0.20, 0.15}, 0.25},    /* red, centre */
    {{-2.1, 0.8, 4.2}, 0.8, {0.20, 0.75, 0.30}, 0.15},   /* green, left behind */
    {{1.9, 0.7, 2.2}, 0.7, {0.92, 0.92, 0.95}, 0.70},    /* mirror, right */
    {{0.55, 0.3, 1.1}, 0.3, {0.20, 0.35, 0.95}, 0.10},   /* small blue, in front */
};
#define RT_NSPHERES ((int)(sizeof rt_spheres / sizeof rt_spheres[0]))
#define RT_PLANE RT_NSPHERES  /* object index of the ground plane y = 0 */

static const rt_vec rt_eye = {0.0, 1.5, -3.5};
static const rt_vec rt_light = {-4.0, 7.0, -3.0};
#define RT_AMBIENT 0.12
#define RT_PLANE_REFLECT 0.2
#define RT_SPECULAR 0.5
#define RT_HALF_FOV 0.7      /* tan of half the vertical field of view */
#define RT_TILT (-0.22)      /* the camera looks slightly down */

/* Distance along the ray to object `obj`, or RT_FAR. */
static double rt_hit(int obj, rt_vec o, rt_vec d)
{
    if (obj == RT_PLANE) {
        if (d.y >= 0 || o.y <= 0)
            return RT_FAR;
        return -o.y / d.y;
    }
    const rt_sphere *s = &rt_spheres[obj];
    rt_vec oc = rt_sub(o, s->c);
    double b = rt_dot(oc, d), c = rt_dot(oc, oc) - s->r * s->r;
    double disc = b * b - c;   /* d is a unit vector */
    if (disc < 0)
        return RT_FAR;
    double q = sqrt(disc);
    double t = -b - q;
    if (t > RT_EPS)
        return t;
    t = -b + q;
    return t > RT_EPS ? t : RT_FAR;
}

static int rt_nearest(rt_vec o, rt_vec d, double *tmin)
{
    int best = -1;
    *tmin = RT_FAR;
    for (int i = 0; i <= RT_PLANE; i++) {
        double t = rt_hit(i, o, d);
        if (t < *tmin) {
            *tmin = t;
            best = i;
        }
    }
    return best;
}

static rt_vec rt_trace(rt_vec o, rt_vec d, int depth)
{
    double t;
    int obj = rt_nearest(o, d, &t);
    if (obj < 0) {
        /* Sky: white at the horizon to blue overhead. */
        double k = d.y > 0 ? d.y : 0;
        return rt_add(rt_mul(rt_v(0.95, 0.95, 1.0), 1 - k), rt_mul(rt_v(0.35, 0.55, 0.95), k));
    }
    rt_vec p = rt_add(o, rt_mul(d, t));
    rt_vec n, color;
    double reflect;
    if (obj == RT_PLANE) {
        n = rt_v(0, 1, 0);
        long long cx = (long long)floor(p.x), cz = (long long)floor(p.z);
        color = ((cx + cz) & 1) ? rt_v(0.25, 0.25, 0.30) : rt_v(0.85, 0.85, 0.80);
        reflect = RT_PLANE_REFLECT;
    } else {
        const rt_sphere *s = &rt_spheres[obj];
        n = rt_mul(rt_sub(p, s->c), 1 / s->r);
        color = s->color;
        reflect = s->reflect;
    }
    if (rt_dot(n, d) > 0)
        n = rt_mul(n, -1);
    rt_vec q = rt_add(p, rt_mul(n, RT_EPS));  /* off the surface */
    rt_vec tolight = rt_sub(rt_light, q);
    double ldist = sqrt(rt_dot(tolight, tolight));
    rt_vec l = rt_mul(tolight, 1 / ldist);
    rt_vec r = rt_sub(d, rt_mul(n, 2 * rt_dot(d, n)));   /* mirror direction */

    double st;
    int blocker = rt_nearest(q, l, &st);
    int lit = blocker < 0 || st >= ldist;
    double diffuse = 0, spec = 0;
    if (lit) {
        double nl = rt_dot(n, l);
        diffuse = nl > 0 ? nl : 0;
        double rl = rt_dot(r, l);
        if (rl > 0) {
            spec = rl;
            for (int i = 0; i < 5; i++)   /* rl^32 */
                spec *= spec;
            spec *= RT_SPECULAR;
        }
    }
    rt_vec local = rt_add(rt_mul(color, RT_AMBIENT + diffuse), rt_v(spec, spec, spec));
    if (depth <= 0 || reflect <= 0)
        return local;
    rt_vec mirrored = rt_trace(q, rt_unit(r), depth - 1);
    return rt_add(rt_mul(local, 1 - reflect), rt_had(mirrored, rt_v(reflect, reflect, reflect)));
}

static uint32_t rt_byte(double c)
{
    if (!(c > 0))
        return 0;
    if (c >= 1)
        return 255;
    return (uint32_t)(c * 255 + 0.5);
}

uint32_t satin_rt_pixel(int32_t width, int32_t height, int32_t depth, int32_t x, int32_t y)
{
    double aspect = (double)width / height;
    double u = (2 * (x + 0.5) / width - 1) * aspect * RT_HALF_FOV;
    double v = (1 - 2 * (y + 0.5) / height) * RT_HALF_FOV;
    rt_vec d = rt_unit(rt_v(u, v + RT_TILT, 1));
    rt_vec c = rt_trace(rt_eye, d, depth);
    return rt_byte(c.x) << 16 | rt_byte(c.y) << 8 | rt_byte(c.z);
}

uint64_t satin_rt_pixel_hash(int32_t x, int32_t y, uint32_t rgb)
{
    return satin_splitmix_at((uint64_t)(uint32_t)y << 40 ^ (uint64_t)(uint32_t)x << 24 ^ rgb);
}

/* ---- jobs --------------------------------------------------------------- */

static int rt_check(const void *arg, size_t len, satin_err *err);
static void rt_data_size(const void *arg, size_t len, size_t result_len, uint64_t *arg_bytes,
                         uint64_t *result_bytes);
SATIN_BYTES_TASK_TRACED(raytracer, rt_check, rt_data_size);

/* Fixed-width fields with no padding: the bytes may cross machines. */
typedef struct rt_arg {
    int32_t x0, y0, w, h;   /* this job's rectangle */
    int32_t width, height;  /* the whole image */
    int32_t depth;
    int32_t tile;           /* render sequentially at most this many pixels */
} rt_arg;

/* With carry > 0, every record is an rt_arg followed by this (so that the
 * default records stay rt_arg alone, byte for byte as before). */
typedef struct rt_carry {
    uint32_t carry;       /* the first region of at most this many pixels gathers pixels */
    uint32_t pixels;      /* 1: return this region's pixels, not an rt_res; RT_IMAGE: the
                             root of image=1, which returns an rt_img and the image */
} rt_carry;
#define RT_IMAGE 2

typedef struct rt_res {
    uint64_t checksum;
    int64_t pixels;
} rt_res;

/* The root's result with image=1: this, then width x height pixels, 3
 * bytes (R, G, B) each, row by row. */
typedef struct rt_img {
    uint64_t checksum;
    int64_t pixels;
    int32_t width, height;
} rt_img;

static int rt_is_whole(const rt_arg *a)
{
    return a->x0 == 0 && a->y0 == 0 && a->w == a->width && a->h == a->height;
}

/* The root's result with image=1, in bytes. */
static size_t rt_img_size(int64_t width, int64_t height)
{
    return sizeof(rt_img) + 3 * (size_t)width * (size_t)height;
}

static int rt_is_tile(const rt_arg *a)
{
    return (int64_t)a->w * a->h <= a->tile;
}

/* The halves of a's rectangle: its longer side split, the first half rounded down. */
static void rt_halves(const rt_arg *a, rt_arg *lo, rt_arg *hi)
{
    *lo = *hi = *a;
    if (a->w >= a->h) {
        lo->w = a->w / 2;
        hi->x0 = a->x0 + lo->w;
        hi->w = a->w - lo->w;
    } else {
        lo->h = a->h / 2;
        hi->y0 = a->y0 + lo->h;
        hi->h = a->h - lo->h;
    }
}

/* The checksum of a tile, rendered here. */
static uint64_t rt_tile(const rt_arg *a)
{
    uint64_t sum = 0;
    for (int32_t y = a->y0; y < a->y0 + a->h; y++) {
        for (int32_t x = a->x0; x < a->x0 + a->w; x++)
            sum += satin_rt_pixel_hash(x, y, satin_rt_pixel(a->width, a->height, a->depth, x, y));
        if (satin_cancelled())
            break;
    }
    return sum;
}

/* A tile's pixels, rendered here into rgb (3 bytes a pixel, row by row). */
static void rt_render(const rt_arg *a, unsigned char *rgb)
{
    for (int32_t y = 0; y < a->h; y++) {
        for (int32_t x = 0; x < a->w; x++) {
            uint32_t p = satin_rt_pixel(a->width, a->height, a->depth, a->x0 + x, a->y0 + y);
            unsigned char *px = rgb + 3 * ((size_t)y * (size_t)a->w + (size_t)x);
            px[0] = (unsigned char)(p >> 16);
            px[1] = (unsigned char)(p >> 8);
            px[2] = (unsigned char)p;
        }
        if (satin_cancelled())
            break;
    }
}

/* The checksum of a's rectangle from its pixels. */
static uint64_t rt_image_checksum(const rt_arg *a, const unsigned char *rgb)
{
    uint64_t sum = 0;
    for (int32_t y = 0; y < a->h; y++)
        for (int32_t x = 0; x < a->w; x++) {
            const unsigned char *px = rgb + 3 * ((size_t)y * (size_t)a->w + (size_t)x);
            uint32_t p = (uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2];
            sum += satin_rt_pixel_hash(a->x0 + x, a->y0 + y, p);
        }
    return sum;
}

/* Spawns a's halves to return their pixels and assembles a's from them
 * into rgb.  -1 when the job failed (out of memory). */
static int rt_gather(SATIN_HELPER_FRAME, const rt_arg *a, uint32_t carry, unsigned char *rgb)
{
    rt_arg half[2];
    rt_halves(a, &half[0], &half[1]);
    size_t n0 = 3 * (size_t)half[0].w * (size_t)half[0].h;
    size_t n1 = 3 * (size_t)half[1].w * (size_t)half[1].h;
    unsigned char *res = calloc(n0 + n1, 1);
    if (!res) {
        satin_fail("raytracer: out of memory for %zu bytes of pixels", n0 + n1);
        return -1;
    }
    const rt_carry k = {carry, 1};
    unsigned char rec[sizeof(rt_arg) + sizeof k];
    memcpy(rec + sizeof(rt_arg), &k, sizeof k);
    memcpy(rec, &half[0], sizeof half[0]);
    satin_spawn_bytes(raytracer, rec, sizeof rec, res, n0);
    memcpy(rec, &half[1], sizeof half[1]);
    satin_spawn_bytes(raytracer, rec, sizeof rec, res + n0, n1);
    satin_sync();
    /* Row by row: each half's rows are a part of a's. */
    const unsigned char *src = res;
    for (int h = 0; h < 2; h++) {
        const rt_arg *q = &half[h];
        for (int32_t y = 0; y < q->h; y++) {
            size_t at = (size_t)(q->y0 - a->y0 + y) * (size_t)a->w + (size_t)(q->x0 - a->x0);
            memcpy(rgb + 3 * at, src, 3 * (size_t)q->w);
            src += 3 * (size_t)q->w;
        }
    }
    free(res);
    return 0;
}

/* A job with carry > 0. */
static void rt_run_carry(SATIN_HELPER_FRAME, const rt_arg *a, const rt_carry *k)
{
    int64_t area = (int64_t)a->w * a->h;
    rt_res r = {0, area};
    if (!k->pixels && (rt_is_tile(a) || area > (int64_t)k->carry)) {
        if (rt_is_tile(a)) {
            r.checksum = rt_tile(a);
        } else {
            /* Above the pixels: checksums, as without carry. */
            rt_arg half[2];
            rt_halves(a, &half[0], &half[1]);
            rt_res rh[2] = {{0, 0}, {0, 0}};
            unsigned char rec[sizeof(rt_arg) + sizeof *k];
            memcpy(rec + sizeof(rt_arg), k, sizeof *k);
            for (int h = 0; h < 2; h++) {
                memcpy(rec, &half[h], sizeof half[h]);
                satin_spawn_bytes(raytracer, rec, sizeof rec, &rh[h], sizeof rh[h]);
            }
            satin_sync();
            r.checksum = rh[0].checksum + rh[1].checksum;
            r.pixels = rh[0].pixels + rh[1].pixels;
        }
        satin_return(&r, sizeof r);
        return;
    }
    size_t bytes = 3 * (size_t)area;
    unsigned char *rgb = malloc(bytes);
    if (!rgb) {
        satin_fail("raytracer: out of memory for the %dx%d pixels at %d,%d", (int)a->w,
                   (int)a->h, (int)a->x0, (int)a->y0);
        return;
    }
    int ok = 1;
    if (rt_is_tile(a))
        rt_render(a, rgb);
    else
        ok = rt_gather(SATIN_TO_HELPER, a, k->carry, rgb) == 0;
    if (ok && k->pixels == RT_IMAGE) {
        /* The root of image=1: its checksum, then the image. */
        unsigned char *res = malloc(sizeof(rt_img) + bytes);
        if (!res) {
            satin_fail("raytracer: out of memory for the %dx%d image", (int)a->w, (int)a->h);
        } else {
            rt_img head = {rt_image_checksum(a, rgb), area, a->width, a->height};
            memcpy(res, &head, sizeof head);
            memcpy(res + sizeof head, rgb, bytes);
            satin_return(res, sizeof head + bytes);
            free(res);
        }
    } else if (ok && k->pixels) {
        satin_return(rgb, bytes);
    } else if (ok) {
        /* The region that asked for the pixels: its checksum from its image. */
        r.checksum = rt_image_checksum(a, rgb);
        satin_return(&r, sizeof r);
    }
    free(rgb);
}

/* Bytes that passed the check, or this node's own spawns: the cheap tests
 * below keep a wrong length or rectangle from reading or writing out of
 * bounds all the same. */
static void raytracer(SATIN_FRAME, const void *arg, size_t len)
{
    rt_arg a;
    rt_carry k = {0, 0};
    if (len != sizeof a && len != sizeof a + sizeof k) {
        satin_fail("raytracer: argument of %zu bytes, expected %zu or %zu", len, sizeof a,
                   sizeof a + sizeof k);
        return;
    }
    memcpy(&a, arg, sizeof a);
    if (len > sizeof a)
        memcpy(&k, (const unsigned char *)arg + sizeof a, sizeof k);
    if (a.width < 1 || a.width > SATIN_RT_MAX_SIZE || a.height < 1 ||
        a.height > SATIN_RT_MAX_SIZE || a.depth < 0 || a.depth > SATIN_RT_MAX_DEPTH ||
        a.tile < 1 || a.x0 < 0 || a.y0 < 0 || a.w < 1 || a.h < 1 || a.w > a.width - a.x0 ||
        a.h > a.height - a.y0 ||
        (len > sizeof a && (k.carry == 0 || k.pixels > RT_IMAGE ||
                            (k.pixels == RT_IMAGE && !rt_is_whole(&a)) ||
                            (k.pixels && (int64_t)a.w * a.h > (int64_t)k.carry)))) {
        satin_fail("raytracer: corrupt argument (%dx%d at %d,%d of %dx%d, carry=%u%s)",
                   (int)a.w, (int)a.h, (int)a.x0, (int)a.y0, (int)a.width, (int)a.height,
                   (unsigned)k.carry, k.pixels ? ", pixels" : "");
        return;
    }
    if (len > sizeof a) {
        rt_run_carry(SATIN_TO_HELPER, &a, &k);
        return;
    }
    rt_res r = {0, 0};
    if (rt_is_tile(&a)) {
        r.checksum = rt_tile(&a);
        r.pixels = (int64_t)a.w * a.h;
    } else {
        rt_arg lo, hi;
        rt_halves(&a, &lo, &hi);
        rt_res rl = {0, 0}, rh = {0, 0};
        satin_spawn_bytes(raytracer, &lo, sizeof lo, &rl, sizeof rl);
        satin_spawn_bytes(raytracer, &hi, sizeof hi, &rh, sizeof rh);
        satin_sync();
        r.checksum = rl.checksum + rh.checksum;
        r.pixels = rl.pixels + rh.pixels;
    }
    satin_return(&r, sizeof r);
}

/* The largest result of a job that returns pixels, in a job of width x
 * height, tile and carry (> 0), and its rectangle: the recursion walked
 * level by level, each distinct rectangle once.  A job returns its pixels
 * when its parent has at most carry of them.  A level holds few distinct
 * rectangles (each side is one of two neighbours for each of at most two
 * numbers of halvings; 6 at most were seen): RT_SHAPES is room to spare. */
#define RT_SHAPES 32
typedef struct rt_shape {
    int32_t w, h;
} rt_shape;

static int rt_largest_carried(const rt_arg *root, uint64_t carry, uint64_t *res_max,
                              rt_shape *largest)
{
    rt_shape cur[RT_SHAPES], next[RT_SHAPES];
    int ncur = 1;
    cur[0] = (rt_shape){root->w, root->h};
    *res_max = 0;
    *largest = cur[0];
    while (ncur > 0) {
        int nnext = 0;
        for (int i = 0; i < ncur; i++) {
            rt_arg a = *root;
            a.w = cur[i].w;
            a.h = cur[i].h;
            if (rt_is_tile(&a))
                continue;
            int carried = (uint64_t)a.w * (uint64_t)a.h <= carry;
            rt_arg half[2];
            rt_halves(&a, &half[0], &half[1]);
            for (int hf = 0; hf < 2; hf++) {
                rt_shape p = {half[hf].w, half[hf].h};
                uint64_t rb = 3 * (uint64_t)p.w * (uint64_t)p.h;
                if (carried && rb > *res_max) {
                    *res_max = rb;
                    *largest = p;
                }
                int seen = 0;
                for (int t = 0; t < nnext && !seen; t++)
                    seen = next[t].w == p.w && next[t].h == p.h;
                if (seen)
                    continue;
                if (nnext == RT_SHAPES)
                    return -1;
                next[nnext++] = p;
            }
        }
        memcpy(cur, next, sizeof *next * (size_t)nnext);
        ncur = nnext;
    }
    return 0;
}

/* What parse allows and the halves keep: a rectangle of the image, and
 * with a carry pixels returned only by a region that fits it, and a carry
 * whose returned regions fit SATIN_CARRY_MAX, which bounds what a job
 * allocates (its pixels and its halves'). */
static int rt_valid(const rt_arg *a, const rt_carry *k, satin_err *err)
{
    if (satin_arg_range("raytracer", "width", a->width, 1, SATIN_RT_MAX_SIZE, err) < 0 ||
        satin_arg_range("raytracer", "height", a->height, 1, SATIN_RT_MAX_SIZE, err) < 0 ||
        satin_arg_range("raytracer", "depth", a->depth, 0, SATIN_RT_MAX_DEPTH, err) < 0 ||
        satin_arg_range("raytracer", "tile", a->tile, 1, RT_MAX_TILE, err) < 0 ||
        satin_arg_range("raytracer", "x0", a->x0, 0, a->width - 1, err) < 0 ||
        satin_arg_range("raytracer", "y0", a->y0, 0, a->height - 1, err) < 0 ||
        satin_arg_range("raytracer", "w", a->w, 1, a->width - a->x0, err) < 0 ||
        satin_arg_range("raytracer", "h", a->h, 1, a->height - a->y0, err) < 0)
        return -1;
    if (!k)
        return 0;
    if (satin_arg_range("raytracer", "carry", k->carry, 1, RT_MAX_CARRY, err) < 0 ||
        satin_arg_range("raytracer", "pixels", k->pixels, 0, RT_IMAGE, err) < 0)
        return -1;
    if (k->pixels == RT_IMAGE && !rt_is_whole(a))
        return satin_err_set(err, "raytracer: a %dx%d region at %d,%d of %dx%d returns the "
                                  "image, which only the whole image's job does",
                             (int)a->w, (int)a->h, (int)a->x0, (int)a->y0, (int)a->width,
                             (int)a->height);
    if (k->pixels == RT_IMAGE && rt_img_size(a->width, a->height) > SATIN_CARRY_MAX)
        return satin_err_set(err, "raytracer: a %dx%d image of %zu bytes is over the %zu bytes "
                                  "a result that carries data may have",
                             (int)a->width, (int)a->height, rt_img_size(a->width, a->height),
                             SATIN_CARRY_MAX);
    if (k->pixels && (int64_t)a->w * a->h > (int64_t)k->carry)
        return satin_err_set(err, "raytracer: a %dx%d region returns more pixels than carry=%u",
                             (int)a->w, (int)a->h, (unsigned)k->carry);
    rt_arg root = *a;
    root.x0 = root.y0 = 0;
    root.w = a->width;
    root.h = a->height;
    uint64_t res_max;
    rt_shape big;
    if (rt_largest_carried(&root, k->carry, &res_max, &big) < 0 || res_max > SATIN_CARRY_MAX)
        return satin_err_set(err, "raytracer: %dx%d with carry=%u returns regions over the %zu "
                                  "bytes a result that carries data may have",
                             (int)a->width, (int)a->height, (unsigned)k->carry, SATIN_CARRY_MAX);
    return 0;
}

static int rt_check(const void *arg, size_t len, satin_err *err)
{
    rt_arg a;
    rt_carry k;
    int carry = satin_arg_read_ext("raytracer", arg, len, &a, sizeof a, &k, sizeof k, 0, err);
    return carry < 0 ? -1 : rt_valid(&a, carry ? &k : NULL, err);
}

/* image=1: the whole image gathered at the root, within the record limit
 * (as the root's result, and as the PPM the client gets).  Sets *carry. */
static int rt_parse_image(const satin_params *p, int64_t width, int64_t height, int64_t *carry,
                          satin_bytes *arg, satin_err *err)
{
    int64_t area = width * height;
    if (satin_param_given(p, "carry") && *carry != 0 && *carry < area)
        return satin_err_set(err, "raytracer: image=1 gathers the whole image at the root: "
                                  "carry=%lld is less than its %lld pixels (leave carry out)",
                             (long long)*carry, (long long)area);
    *carry = area;
    char head[64], what[160];
    size_t ppm = (size_t)snprintf(head, sizeof head, "P6\n%lld %lld\n255\n", (long long)width,
                                  (long long)height) + 3 * (size_t)area;
    size_t need = rt_img_size(width, height) > ppm ? rt_img_size(width, height) : ppm;
    if (need > satin_carry_limit(arg))
        return satin_err_set(err, "raytracer: image=1 of %lldx%lld needs %zu bytes (3 a pixel), "
                                  "over %s: give a smaller image",
                             (long long)width, (long long)height, need,
                             satin_carry_limit_text(arg, what, sizeof what));
    return satin_bytes_result_size(arg, rt_img_size(width, height), err);
}

static int rt_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t width, height, depth, tile, carry, image;
    if (satin_param_i64(p, "width", 1, SATIN_RT_MAX_SIZE, &width, err) < 0 ||
        satin_param_i64(p, "height", 1, SATIN_RT_MAX_SIZE, &height, err) < 0 ||
        satin_param_i64(p, "depth", 0, SATIN_RT_MAX_DEPTH, &depth, err) < 0 ||
        satin_param_i64(p, "tile", 1, RT_MAX_TILE, &tile, err) < 0 ||
        satin_param_i64(p, "carry", 0, RT_MAX_CARRY, &carry, err) < 0 ||
        satin_param_i64(p, "image", 0, 1, &image, err) < 0)
        return -1;
    if (image && rt_parse_image(p, width, height, &carry, arg, err) < 0)
        return -1;
    rt_arg a;
    memset(&a, 0, sizeof a);
    a.x0 = a.y0 = 0;
    a.w = a.width = (int32_t)width;
    a.h = a.height = (int32_t)height;
    a.depth = (int32_t)depth;
    a.tile = (int32_t)tile;
    if (carry == 0)
        return satin_bytes_put(arg, &a, sizeof a, err);
    uint64_t res_max;
    rt_shape big;
    if (rt_largest_carried(&a, (uint64_t)carry, &res_max, &big) < 0)
        return satin_err_set(err, "raytracer: %lldx%lld makes more rectangles than expected "
                                  "(a bug)",
                             (long long)width, (long long)height);
    uint64_t limit = satin_carry_limit(arg);
    char what[160];
    if (res_max > limit)
        return satin_err_set(
            err,
            "raytracer: carry=%lld gives results of %llu bytes (the pixels of %dx%d, 3 bytes "
            "each), over %s: give a smaller carry",
            (long long)carry, (unsigned long long)res_max, (int)big.w, (int)big.h,
            satin_carry_limit_text(arg, what, sizeof what));
    rt_carry k = {(uint32_t)carry, image ? RT_IMAGE : 0};
    if (satin_bytes_put(arg, &a, sizeof a, err) < 0)
        return -1;
    return satin_bytes_put(arg, &k, sizeof k, err);
}

/* The image of an image=1 root's result as a binary PPM: the job's data. */
static void rt_format_image(const rt_img *head, const unsigned char *rgb, satin_result *result)
{
    char ppm_head[64];
    int hl = snprintf(ppm_head, sizeof ppm_head, "P6\n%d %d\n255\n", (int)head->width,
                      (int)head->height);
    size_t bytes = 3 * (size_t)head->pixels;
    unsigned char *ppm = malloc((size_t)hl + bytes);
    if (!ppm)
        abort();   /* as the runtime does when a result cannot be held */
    memcpy(ppm, ppm_head, (size_t)hl);
    memcpy(ppm + hl, rgb, bytes);
    satin_result_data(result, "image/x-portable-pixmap", ppm, (size_t)hl + bytes);
    free(ppm);
}

static void rt_format(const void *res, size_t len, double wall_s, satin_result *result,
                      satin_result *stats)
{
    rt_res r = {0, 0};
    rt_img head;
    const unsigned char *rgb = NULL;
    if (len == sizeof r) {
        memcpy(&r, res, sizeof r);
    } else if (len >= sizeof head) {
        memcpy(&head, res, sizeof head);
        if (head.width >= 1 && head.height >= 1 && head.pixels == (int64_t)head.width * head.height &&
            len == rt_img_size(head.width, head.height)) {
            r.checksum = head.checksum;
            r.pixels = head.pixels;
            rgb = (const unsigned char *)res + sizeof head;
        }
    }
    int64_t s;
    memcpy(&s, &r.checksum, sizeof s);   /* the bits of the sum modulo 2^64 */
    satin_result_i64(result, "checksum", s);
    satin_result_i64(result, "pixels", r.pixels);
    if (wall_s > 0)
        satin_result_f64(stats, "pixels_per_s", (double)r.pixels / wall_s);
    if (rgb)
        rt_format_image(&head, rgb, result);
}

static const satin_param_def rt_params[] = {
    {"width", NULL, 1, "image width in pixels, 1..16384"},
    {"height", NULL, 1, "image height in pixels, 1..16384"},
    {"depth", RT_DEFAULT_DEPTH, 0, "levels of mirror reflection, 0..16"},
    {"tile", RT_DEFAULT_TILE, 0, "render rectangles of at most this many pixels sequentially, "
                                 "1..2^28"},
    {"carry", "0", 0,
     "0: jobs return checksums; P > 0: the pixels travel up: the first region on a path of at "
     "most P pixels has its halves return theirs (3 bytes a pixel), assembles them and computes "
     "the checksum from its image; refused when a result would exceed the record limit "
     "(satind --max-record, 1 MiB by default, and at most 1 MiB), 0..2^28"},
    {"image", "0", 0,
     "1: also return the image as the job's data, a binary PPM (P6; satin-submit --output "
     "FILE writes it): its pixels travel up to the root, as with carry=width*height; refused "
     "when the image (3 bytes a pixel) exceeds the record limit, as for carry; 0: the checksum "
     "alone"},
    {NULL, NULL, 0, NULL},
};

/* Traced, a job carries what a raytracer that returns its image would: its
 * tile's pixels as the result, 3 bytes (RGB) a pixel.  The argument stays
 * the rectangle: the scene is built in, as a shared object would be.  With
 * carry > 0 the results that should hold pixels do: the bytes passed. */
static void rt_data_size(const void *arg, size_t len, size_t result_len, uint64_t *arg_bytes,
                         uint64_t *result_bytes)
{
    rt_arg a;
    (void)arg_bytes;
    if (len != sizeof a)
        return;   /* carry > 0, or refused by the task: as passed */
    memcpy(&a, arg, sizeof a);
    if (a.w > 0 && a.h > 0)
        *result_bytes = result_len + 3 * (uint64_t)a.w * (uint64_t)a.h;
}

SATIN_KIND(raytracer,
           .summary = "ray-traced built-in scene (spheres, plane, shadows, reflections): image "
                      "checksum",
           .params = rt_params, .parse = rt_parse, .root = SATIN_TASK_OF(raytracer),
           .result_size = sizeof(rt_res), .format = rt_format);
