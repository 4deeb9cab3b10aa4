/* apps.c - the built-in kinds, in the order --list-kinds shows them. */
#include "apps.h"

const satin_kind *const satin_builtin_kinds[] = {
    &satin_kind_fib,
    &satin_kind_uts,
    &satin_kind_nqueens,
    &satin_kind_integrate,
    &satin_kind_ida,
    &satin_kind_matmul,
    &satin_kind_raytracer,
    &satin_kind_synthetic,
    &satin_kind_replay,
    &satin_kind_setcover,
    &satin_kind_knapsack,
    &satin_kind_nchoosek,
    &satin_kind_primefactors,
    &satin_kind_tsp,
    &satin_kind_array,
    NULL,
};
