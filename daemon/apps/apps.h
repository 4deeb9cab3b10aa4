/* apps.h - the job kinds compiled into satind, one file each. */
#ifndef SATIN_APPS_H
#define SATIN_APPS_H

#include "satin.h"

extern const satin_kind satin_kind_fib;
extern const satin_kind satin_kind_uts;
extern const satin_kind satin_kind_nqueens;
extern const satin_kind satin_kind_integrate;
extern const satin_kind satin_kind_ida;
extern const satin_kind satin_kind_matmul;
extern const satin_kind satin_kind_raytracer;
extern const satin_kind satin_kind_synthetic;
extern const satin_kind satin_kind_replay;
extern const satin_kind satin_kind_setcover;
extern const satin_kind satin_kind_knapsack;
extern const satin_kind satin_kind_nchoosek;
extern const satin_kind satin_kind_primefactors;
extern const satin_kind satin_kind_tsp;

/* All of the above, NULL-terminated, in --list-kinds order: the table satind
 * hands the runtime (runtime/kinds.h). */
extern const satin_kind *const satin_builtin_kinds[];

#endif
