/* module.c - the built-in kinds as one module: the paper's applications,
 * UTS, the emulation kinds and array (kinds/README.md has the table).  Its
 * kinds and tasks are those of the files linked with it (SATIN_KIND,
 * SATIN_TASK); --list-kinds shows them in link order (the Makefile's). */
#include "apps.h"

SATIN_MODULE("satin-kinds", SATIN_VERSION)
