/*
 * matmul_exact.c - not a benchmark: the exact checksum of a `matmul` job,
 * computed here with a plain triple loop over whole matrices (as
 * kinds/matmul.c's header comment defines A, B and the checksum of
 * C = A B, modulo 2^64), not through the kind's block recursion: the
 * right answer grid.t checks matmul's variants against, carry or not.
 *
 *   matmul_exact N SEED     prints the checksum as a signed 64-bit integer,
 *                           as the kind shows it
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t pos(uint64_t i, uint64_t j)
{
    return i << 32 | j;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: matmul_exact N SEED\n");
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    uint64_t seed = strtoull(argv[2], NULL, 10);
    if (n < 1 || n > 16384) {
        fprintf(stderr, "matmul_exact: N must be 1..16384\n");
        return 2;
    }
    size_t nn = (size_t)n;
    uint64_t ka = mix(seed ^ mix(1)), kb = mix(seed ^ mix(2)), kw = mix(UINT64_C(0x5bd1e995));
    /* A by rows, B by columns (bt[j][k] = B[k][j]), so that the inner loop reads both in order. */
    uint64_t *a = malloc(sizeof *a * nn * nn), *bt = malloc(sizeof *bt * nn * nn);
    if (!a || !bt) {
        fprintf(stderr, "matmul_exact: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < nn; i++)
        for (size_t j = 0; j < nn; j++) {
            a[i * nn + j] = mix(ka ^ pos(i, j));
            bt[j * nn + i] = mix(kb ^ pos(i, j));
        }
    uint64_t sum = 0;
    for (size_t i = 0; i < nn; i++)
        for (size_t j = 0; j < nn; j++) {
            uint64_t c = 0;
            for (size_t k = 0; k < nn; k++)
                c += a[i * nn + k] * bt[j * nn + k];
            sum += (mix(kw ^ pos(i, j)) | 1) * c;
        }
    free(a);
    free(bt);
    int64_t s;
    memcpy(&s, &sum, sizeof s);
    printf("%" PRId64 "\n", s);
    return 0;
}
