/* apps.c - the built-in kinds, in the order --list-kinds shows them. */
#include "apps.h"
#include "kinds.h"

const satin_kind *const satin_builtin_kinds[] = {
    &satin_kind_fib,
    &satin_kind_uts,
    &satin_kind_nqueens,
    &satin_kind_integrate,
    NULL,
};
