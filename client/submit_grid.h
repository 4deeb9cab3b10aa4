/*
 * submit_grid.h - how satin-submit --status --grid prints the grid as one
 * daemon sees it (satin_client_grid_status): a table with one row per
 * node, or one JSON object with one member per node.
 */
#ifndef SATIN_SUBMIT_GRID_H
#define SATIN_SUBMIT_GRID_H

#include "satin_client.h"

#include <stdio.h>

/* The table: aligned columns, "-" for a figure the node did not send. */
void submit_grid_table(FILE *out, const satin_client_values *nodes, size_t n);
/* {"a0": {...}, "a1": {...}}: each node's values under its id, in order. */
void submit_grid_json(FILE *out, const satin_client_values *nodes, size_t n);

#endif
