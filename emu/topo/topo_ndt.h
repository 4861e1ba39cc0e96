/* nD twin torus view (seed 004 §II-B): published by ndt.
 *
 * A family-specific view for code that needs more than the generic
 * capabilities of struct topo_ops (coordinates, groups, levels, minimal
 * next hops, distance): reach it only through the checked downcast
 * topo_ndt_of(), which returns NULL for any other family.
 */
#ifndef NETLOOM_TOPO_TOPO_NDT_H
#define NETLOOM_TOPO_TOPO_NDT_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* nD twin torus (seed 004 §II-B): a k[0] x .. x k[n-1] torus of nodes, each
 * node two (n+1)-port cards joined by an internal link; each card is a
 * router: router id = 2 * node + card, node id = sum c[d] * stride[d], and
 * the card's PE is endpoint (router id). Definition 2.2 (odd n): dimensions
 * 0 .. split-1 on card 0, split+1 .. n-1 on card 1, and dimension split =
 * (n-1)/2 has its - port on card 0 and its + port on card 1. Even n (not in
 * the seed) splits evenly: dimensions 0 .. n/2-1 on card 0, the rest on
 * card 1, split = -1. Local ports: card_port[d][dir] on card card_of[d][dir]
 * (dir 0 = +, 1 = -); internal link at local port n, PE at n + 1. The +
 * port of node u in dimension d links to the - port of node u + e_d. */
struct topo_ndt {
	int n;                             /* torus dimensions */
	int split;                         /* the dimension spread over both cards, or -1 */
	uint32_t k[TOPO_MAX_DIMS];         /* nodes per dimension */
	uint32_t stride[TOPO_MAX_DIMS];    /* node id step per dimension */
	uint8_t card_of[TOPO_MAX_DIMS][2]; /* card holding port (d, dir) */
	uint8_t card_port[TOPO_MAX_DIMS][2]; /* its local port there */
	uint32_t internal_port;            /* n */
	uint32_t pe_port;                  /* n + 1 */
	uint16_t *coord;                   /* [node * n + d], precomputed */
};

/* The view of t when its family is ndt; NULL otherwise. Valid while t
 * lives. */
const struct topo_ndt *topo_ndt_of(const struct topo *t);

#endif
