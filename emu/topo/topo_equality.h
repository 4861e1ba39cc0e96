/* Equality view (seed 002 §3.1): published by equality.
 *
 * A family-specific view for code that needs more than the generic
 * capabilities of struct topo_ops (coordinates, groups, levels, minimal
 * next hops, distance): reach it only through the checked downcast
 * topo_equality_of(), which returns NULL for any other family.
 */
#ifndef NETLOOM_TOPO_TOPO_EQUALITY_H
#define NETLOOM_TOPO_TOPO_EQUALITY_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* Equality (seed 002 §3.1): N routers on a ring; local port i (< K) of
 * router r goes to (r + offset[i]) mod N when r is even and (r -
 * offset[i]) mod N when r is odd (offsets normalised to 0..N-1). Each S_A
 * value gives one port; each S_B value s gives two (+s, then -s) except s
 * = N/2, which gives one. Terminals follow at K .. K + p - 1. dist0[j] is
 * the hop distance from router 0 to router j; by the even/odd symmetry
 * (Remark 2: r -> r + 2t and r -> 1 - r are automorphisms) d(a, b) =
 * dist0[(b - a) mod N] for even a and dist0[(a - b) mod N] for odd a. */
struct topo_equality {
	uint32_t N;       /* routers */
	uint32_t K;       /* network radix (eq. 1) */
	uint32_t p;       /* terminals per router */
	uint32_t *offset; /* [K] offsets mod N, even-router view */
	uint32_t *dist0;  /* [N] */
};

static inline uint32_t topo_equality_distance(const struct topo_equality *eq, uint32_t a, uint32_t b)
{
	uint32_t j = (a & 1) ? (a + eq->N - b) % eq->N : (b + eq->N - a) % eq->N;
	return eq->dist0[j];
}

/* The view of t when its family is equality; NULL otherwise. Valid while t
 * lives. */
const struct topo_equality *topo_equality_of(const struct topo *t);

#endif
