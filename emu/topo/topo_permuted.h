/* Link-endpoint permutation outcome (seed 003 §3): published by p1, p2 and p3.
 *
 * A family-specific view for code that needs more than the generic
 * capabilities of struct topo_ops (coordinates, groups, levels, minimal
 * next hops, distance): reach it only through the checked downcast
 * topo_permuted_of(), which returns NULL for any other family.
 */
#ifndef NETLOOM_TOPO_TOPO_PERMUTED_H
#define NETLOOM_TOPO_TOPO_PERMUTED_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* Outcome of a link-endpoint permutation (seed 003 §3): the trial kept and
 * its diameter and total of all ordered router-pair distances. */
struct topo_permuted {
	int method;              /* 1, 2 or 3 */
	uint32_t trial;          /* index of the kept trial */
	uint32_t diameter;
	uint64_t distance_sum;   /* over ordered router pairs; ASPL = sum / (n (n-1)) */
	uint32_t base_diameter;
	uint64_t base_distance_sum;
	uint64_t swaps;          /* link swaps done in the kept trial */
	const char *base_spec;   /* the base topology's canonical spec (owned by the params) */
};

/* The view of t when its family is p1, p2 and p3; NULL otherwise. Valid while t
 * lives. */
const struct topo_permuted *topo_permuted_of(const struct topo *t);

#endif
