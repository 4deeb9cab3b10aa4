/*
 * raytracer_exact.c - not a benchmark: the exact checksum of a `raytracer`
 * job, the image rendered here pixel by pixel in one loop with the kind's
 * pixel function (satin_rt_pixel, raytracer.h) and summed as its header
 * comment defines, without its tiles, jobs or the pixels its carry variant
 * sends up the tree: the right answer grid.t checks the variants against.
 *
 *   raytracer_exact WIDTH HEIGHT DEPTH     prints the checksum as a signed
 *                                          64-bit integer, as the kind shows it
 *   raytracer_exact --ppm FILE WIDTH HEIGHT DEPTH
 *                                          also writes the image to FILE as
 *                                          the binary PPM (P6) that image=1
 *                                          returns, byte for byte
 */
#include "raytracer.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: raytracer_exact [--ppm FILE] WIDTH HEIGHT DEPTH\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *ppm = NULL;
    if (argc > 1 && strcmp(argv[1], "--ppm") == 0) {
        if (argc < 3)
            return usage();
        ppm = argv[2];
        argc -= 2;
        argv += 2;
    }
    if (argc != 4)
        return usage();
    long w = strtol(argv[1], NULL, 10), h = strtol(argv[2], NULL, 10),
         depth = strtol(argv[3], NULL, 10);
    if (w < 1 || w > SATIN_RT_MAX_SIZE || h < 1 || h > SATIN_RT_MAX_SIZE || depth < 0 ||
        depth > SATIN_RT_MAX_DEPTH) {
        fprintf(stderr, "raytracer_exact: WIDTH and HEIGHT must be 1..%d, DEPTH 0..%d\n",
                SATIN_RT_MAX_SIZE, SATIN_RT_MAX_DEPTH);
        return 2;
    }
    FILE *f = NULL;
    if (ppm) {
        f = fopen(ppm, "wb");
        if (!f) {
            perror(ppm);
            return 1;
        }
        fprintf(f, "P6\n%ld %ld\n255\n", w, h);
    }
    uint64_t sum = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            uint32_t rgb = satin_rt_pixel((int32_t)w, (int32_t)h, (int32_t)depth, x, y);
            sum += satin_rt_pixel_hash(x, y, rgb);
            if (f) {
                unsigned char px[3] = {(unsigned char)(rgb >> 16), (unsigned char)(rgb >> 8),
                                       (unsigned char)rgb};
                fwrite(px, 1, sizeof px, f);
            }
        }
    if (f && (ferror(f) | fclose(f))) {
        perror(ppm);
        return 1;
    }
    int64_t s;
    memcpy(&s, &sum, sizeof s);
    printf("%" PRId64 "\n", s);
    return 0;
}
