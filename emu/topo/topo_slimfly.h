/* Slim Fly view (Besta & Hoefler SC14): published by slimfly.
 *
 * A family-specific view for code that needs more than the generic
 * capabilities of struct topo_ops (coordinates, groups, levels, minimal
 * next hops, distance): reach it only through the checked downcast
 * topo_slimfly_of(), which returns NULL for any other family.
 */
#ifndef NETLOOM_TOPO_TOPO_SLIMFLY_H
#define NETLOOM_TOPO_TOPO_SLIMFLY_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* Slim Fly MMS graph (Besta & Hoefler SC14, seed 000 ref. [4]): q = 4w +
 * delta a prime power, routers (s, x, y) with s in {0, 1} and x, y in
 * GF(q) (elements numbered 0..q-1 by their base-p digits), id = s*q*q +
 * x*q + y. Network radix k' = (3q - delta)/2. Ports 0 .. n_intra-1 link
 * routers of the same subgraph and column whose y differ by an element of
 * X (s = 0) or X' (s = 1); port n_intra + j links router (0, x, y) to (1,
 * j, y - j x) and router (1, m, c) to (0, j, m j + c). Terminals follow at
 * k'. Diameter 2. */
struct topo_slimfly {
	uint32_t q, p;
	int delta;
	uint32_t kprime;  /* network radix (3q - delta) / 2 */
	uint32_t n_intra; /* |X| = |X'| = (q - delta) / 2 */
};

/* The view of t when its family is slimfly; NULL otherwise. Valid while t
 * lives. */
const struct topo_slimfly *topo_slimfly_of(const struct topo *t);

#endif
