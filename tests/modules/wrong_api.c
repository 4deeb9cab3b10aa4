/* wrong_api.c - a module that says it was built for kind API version 3:
 * a node must refuse it, naming the file and both versions. */
#include <satin/satin.h>

__attribute__((visibility("default"))) const satin_module *satin_module_entry(void);

const satin_module *satin_module_entry(void)
{
    static const satin_module m = {3, sizeof(satin_module), "old-kinds", "0.9", NULL, NULL,
                                   NULL, NULL, 0};
    return &m;
}
