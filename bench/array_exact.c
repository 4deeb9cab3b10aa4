/*
 * array_exact.c - not a benchmark: the exact result of an `array` job,
 * summed here in one plain loop (kinds/array.c defines the elements:
 * SplitMix64's finalizer of seed + i, mixed `work` more times), for
 * steal-latency --records to check the grid's answer.
 *
 *   array_exact N SEED WORK     prints "SUM XOR" in hexadecimal
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: array_exact N SEED WORK\n");
        return 2;
    }
    uint64_t n = strtoull(argv[1], NULL, 10), seed = strtoull(argv[2], NULL, 10);
    unsigned long work = strtoul(argv[3], NULL, 10);
    uint64_t sum = 0, x = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = mix(seed + i);
        for (unsigned long r = 0; r < work; r++)
            v = mix(v);
        sum += v;
        x ^= v;
    }
    printf("%016" PRIx64 " %016" PRIx64 "\n", sum, x);
    return 0;
}
