/*
 * raytracer.h - the pixel function of the `raytracer` kind, exposed so that
 * tests and tools can render the same image sequentially.
 */
#ifndef SATIN_RAYTRACER_H
#define SATIN_RAYTRACER_H

#include <stdint.h>

#define SATIN_RT_MAX_SIZE 16384
#define SATIN_RT_MAX_DEPTH 16

/* The colour of pixel (x, y) (x to the right, y down, from 0) of the
 * built-in scene rendered at width x height with `depth` levels of
 * reflection, as 8-bit RGB 0xRRGGBB.  A pure function of its arguments. */
uint32_t satin_rt_pixel(int32_t width, int32_t height, int32_t depth, int32_t x, int32_t y);

/* The checksum of an image is the sum modulo 2^64 of this over its pixels. */
uint64_t satin_rt_pixel_hash(int32_t x, int32_t y, uint32_t rgb);

#endif
