/* FleX view (seed 000 §III-A): published by flex.
 *
 * A family-specific view for code that needs more than the generic
 * capabilities of struct topo_ops (coordinates, groups, levels, minimal
 * next hops, distance): reach it only through the checked downcast
 * topo_flex_of(), which returns NULL for any other family.
 */
#ifndef NETLOOM_TOPO_TOPO_FLEX_H
#define NETLOOM_TOPO_TOPO_FLEX_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* FleX (seed 000 §III-A): router (x, y, z) has id nx*ny*z + nx*y + x (eq.
 * 6). Ports: to layer (z+1) mod nz with the same y and x' != x at next_x +
 * (x' < x ? x' : x' - 1) (eq. 4), with the same x and y' != y at next_y +
 * (y' < y ? y' : y' - 1) (eq. 5); the links that eqs. 4-5 give the layer
 * below arrive at prev_x / prev_y with the same indexing. When nz == 2 the
 * layer above and below are the same and prev_x == next_x, prev_y ==
 * next_y. Terminals at term_base .. term_base + p - 1. */
#define TOPO_FLEX_DIST_NZ 64 /* most layers whose distances are tabled */

struct topo_flex {
	uint32_t nx, ny, nz, p;
	uint32_t next_x, next_y; /* first port of the x / y links to layer z+1 */
	uint32_t prev_x, prev_y; /* first port of the x / y links to layer z-1 */
	uint32_t term_base;      /* first terminal port */
	/* Hops between routers dz layers apart up the ring, by [dz][x equal]
	 * [y equal]: all a distance depends on, tabled at build when nz <=
	 * TOPO_FLEX_DIST_NZ (has_dist), else searched per call. */
	bool has_dist;
	uint8_t dist[TOPO_FLEX_DIST_NZ][2][2];
};

static inline void topo_flex_xyz(const struct topo_flex *f, uint32_t r, uint32_t *x, uint32_t *y, uint32_t *z)
{
	*x = r % f->nx;
	*y = (r / f->nx) % f->ny;
	*z = r / (f->nx * f->ny);
}

/* The view of t when its family is flex; NULL otherwise. Valid while t
 * lives. */
const struct topo_flex *topo_flex_of(const struct topo *t);

#endif
