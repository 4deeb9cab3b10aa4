/* lifeline_graph.c - cyclic hypercube edges, one vertex at a time (lifeline_graph.h). */
#include "lifeline_graph.h"

#include <stdint.h>

int satin_lifeline_auto_z(int n)
{
    int z = 1;
    while (z < SATIN_LIFELINE_MAX_Z && ((int64_t)1 << z) < n)
        z++;
    return z;
}

/* h^z >= n, without overflow. */
static int reaches(int h, int z, int n)
{
    int64_t x = 1;
    for (int i = 0; i < z; i++) {
        x *= h;
        if (x >= n)
            return 1;
    }
    return x >= n;
}

int satin_lifeline_base(int n, int z)
{
    int h = 2;
    while (!reaches(h, z, n))
        h++;
    return h;
}

int satin_lifeline_edges(int n, int z, int v, int per_dimension, int *out)
{
    if (z <= 0)
        z = satin_lifeline_auto_z(n);
    if (z > SATIN_LIFELINE_MAX_Z)
        z = SATIN_LIFELINE_MAX_Z;
    int h = satin_lifeline_base(n, z), count = 0;
    int64_t place = 1;
    for (int d = 0; d < z; d++, place *= h) {
        int digit = (int)((v / place) % h);
        int64_t rest = v - digit * place;
        int edge = -1;
        for (int step = 1; step < h; step++) {
            int64_t q = rest + ((digit + step) % h) * place;
            if (q < n) {
                edge = (int)q;
                break;
            }
        }
        if (per_dimension)
            out[count++] = edge;
        else if (edge >= 0)
            out[count++] = edge;
    }
    return count;
}
