/* apps.h - the job kinds compiled into satind, one file each. */
#ifndef SATIN_APPS_H
#define SATIN_APPS_H

#include "satin.h"

extern const satin_kind satin_kind_fib;
extern const satin_kind satin_kind_uts;
extern const satin_kind satin_kind_nqueens;
extern const satin_kind satin_kind_integrate;

#endif
