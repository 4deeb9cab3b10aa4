/*
 * modules.h - kind modules (<satin/satin.h>, SATIN_MODULE) loaded into a
 * registry from the directory the operator configured.  No client message
 * names what is loaded: only the program's own options do.
 */
#ifndef SATIN_MODULES_H
#define SATIN_MODULES_H

#include "kinds.h"

/* The directory is usable: a directory owned by root or by this program's
 * user and writable by neither group nor others.  -1 with err saying what
 * is wrong and how to fix it. */
int satin_modules_check_dir(const char *dir, satin_err *err);
/* Loads every *.so of `dir` (in name order; hidden files are skipped): each
 * must follow the same rule as the directory, be a regular file, export
 * satin_module_entry for this API version, and bring no kind or task name
 * another module already has.  The first that does not stops the load:
 * -1 with err naming the file and the reason, and none of the directory's
 * modules is kept. */
int satin_modules_load_dir(satin_registry *reg, const char *dir, satin_err *err);
/* One module file, as above. */
int satin_modules_load_file(satin_registry *reg, const char *path, satin_err *err);

#endif
