/* Hypercube view (seed 003 §4.1): published by hypercube and foldedhypercube.
 *
 * A family-specific view for code that needs more than the generic
 * capabilities of struct topo_ops (coordinates, groups, levels, minimal
 * next hops, distance): reach it only through the checked downcast
 * topo_hypercube_of(), which returns NULL for any other family.
 */
#ifndef NETLOOM_TOPO_TOPO_HYPERCUBE_H
#define NETLOOM_TOPO_TOPO_HYPERCUBE_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* Hypercube and folded hypercube (seed 003 §4.1): 2^n routers, port d (0 <=
 * d < n) goes to router r ^ (1 << d); the folded hypercube adds port n to
 * the complement r ^ (2^n - 1) [seed 003 ref. 15]; terminal ports follow. */
struct topo_hypercube {
	int n;         /* dimensions */
	bool folded;   /* port n is the complement link */
	uint32_t p;    /* terminals per router */
	uint32_t term_base; /* n or n + 1 */
};

/* The view of t when its family is hypercube and foldedhypercube; NULL otherwise. Valid while t
 * lives. */
const struct topo_hypercube *topo_hypercube_of(const struct topo *t);

#endif
