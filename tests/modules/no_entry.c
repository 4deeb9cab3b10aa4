/* no_entry.c - a shared object that is not a kind module (no
 * satin_module_entry): refused, not skipped, since the operator put it in
 * the kinds directory. */
__attribute__((visibility("default"))) int satin_not_a_module(void);

int satin_not_a_module(void)
{
    return 1;
}
