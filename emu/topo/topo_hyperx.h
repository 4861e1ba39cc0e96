/* HyperX view (seed 001 §3): published by hyperx, full, flatfly and hypercube.
 *
 * A family-specific view for code that needs more than the generic
 * capabilities of struct topo_ops (coordinates, groups, levels, minimal
 * next hops, distance): reach it only through the checked downcast
 * topo_hyperx_of(), which returns NULL for any other family.
 */
#ifndef NETLOOM_TOPO_TOPO_HYPERX_H
#define NETLOOM_TOPO_TOPO_HYPERX_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* HyperX (seed 001 §3): L dimensions, S[d] switches per dimension, K[d]
 * parallel (trunked) links between two switches aligned in dimension d,
 * T terminals per switch. Router id = sum I[d] * stride[d] with stride[0] =
 * 1. Ports: dimension d occupies port_base[d] .. port_base[d] + K[d]*(S[d]-1)
 * - 1, grouped by target coordinate v != own coordinate c in increasing
 * order (see topo_hyperx_port); terminals are ports term_base .. term_base
 * + T - 1. Also published by full, flatfly and hypercube, which are HyperX
 * special cases. */
struct topo_hyperx {
	int L;                             /* dimensions */
	uint32_t S[TOPO_MAX_DIMS];         /* switches per dimension */
	uint32_t K[TOPO_MAX_DIMS];         /* trunking: parallel links per aligned pair */
	uint32_t T;                        /* terminals per switch */
	uint32_t stride[TOPO_MAX_DIMS];    /* router id step per dimension */
	uint32_t port_base[TOPO_MAX_DIMS]; /* first local port of dimension d */
	uint32_t term_base;                /* first terminal port: sum K[d] * (S[d] - 1) */
	uint16_t *coord;                   /* [router * L + d], precomputed */
};

static inline uint32_t topo_hyperx_coord(const struct topo_hyperx *h, uint32_t r, int d)
{
	return h->coord[(size_t)r * (size_t)h->L + (size_t)d];
}

/* Local port of trunk `trunk` (0..K[d]-1) from a switch at coordinate `own`
 * to the switch at coordinate `v` (!= own) of dimension d. */
static inline uint32_t topo_hyperx_port(const struct topo_hyperx *h, int d, uint32_t own, uint32_t v,
					uint32_t trunk)
{
	return h->port_base[d] + (v < own ? v : v - 1) * h->K[d] + trunk;
}

/* The view of t when its family is hyperx, full, flatfly or hypercube
 * (topo_family_views: TOPO_VIEW_HYPERX); NULL otherwise. Valid while t
 * lives. */
const struct topo_hyperx *topo_hyperx_of(const struct topo *t);

#endif
