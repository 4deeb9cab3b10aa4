/*
 * lifeline_graph.h - the lifeline graph of the X10 lifeline-based global
 * load balancer (Saraswat et al., PPoPP 2011, 1.1): a cyclic hypercube,
 * computed for one vertex at a time, so that a node holds its own z edges
 * and nothing the size of the grid.
 *
 * Vertices 0..n-1 are written in base h with z digits, h the smallest base
 * with h^z >= n.  Vertex p has an edge along each dimension to p with that
 * digit one higher modulo h; where that number is no vertex (n < h^z) the
 * digit goes on up to the next one that is, and a dimension that comes back
 * to p gives no edge.  So every vertex has at most z edges and, for n > 1,
 * at least one; each dimension's edges form cycles, so the graph is
 * connected and a vertex has at most z incoming edges too.
 */
#ifndef SATIN_LIFELINE_GRAPH_H
#define SATIN_LIFELINE_GRAPH_H

/* The most edges a vertex can have: z is at most this. */
#define SATIN_LIFELINE_MAX_Z 30

/* z for n vertices when the tunable says 0: ceil(log2 n), a binary
 * hypercube (at least 1). */
int satin_lifeline_auto_z(int n);

/* The base for n vertices in z dimensions: the smallest h >= 2 with h^z >= n. */
int satin_lifeline_base(int n, int z);

/* Vertex v's edges among n vertices in z dimensions (z 0: auto), in
 * dimension order, into out[SATIN_LIFELINE_MAX_Z]; returns how many.  With
 * `per_dimension` set, out has one entry per dimension, -1 where that
 * dimension gives no edge (the caller wants edge g of a fixed numbering). */
int satin_lifeline_edges(int n, int z, int v, int per_dimension, int *out);

#endif
