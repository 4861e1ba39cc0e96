/* Dragonfly view (Kim et al. ISCA 2008): published by dragonfly.
 *
 * A family-specific view for code that needs more than the generic
 * capabilities of struct topo_ops (coordinates, groups, levels, minimal
 * next hops, distance): reach it only through the checked downcast
 * topo_dragonfly_of(), which returns NULL for any other family.
 */
#ifndef NETLOOM_TOPO_TOPO_DRAGONFLY_H
#define NETLOOM_TOPO_TOPO_DRAGONFLY_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* Dragonfly (Kim et al. ISCA 2008; seeds 000 §II-A, 003 §4.1): g groups of a
 * routers, router id = group * a + index. Ports of router i: local ports 0
 * .. a-2 to router i' != i of its group at (i' < i ? i' : i' - 1); global
 * ports a-1 .. a-2+h; terminal ports a-1+h .. a-2+h+p. A group's global
 * ports are numbered gp = i*h + j (router i, global port j). The first
 * rounds*(g-1) of them use the consecutive ("absolute") arrangement: gp
 * goes to group index (gp mod (g-1)), counting the other groups in
 * increasing order without the group itself, and the k-th such link
 * between groups G and T (k = gp / (g-1)) lands on T's port of the same k
 * toward G. When g-1 does not divide a*h, the `extra` remaining ports e =
 * gp - rounds*(g-1) pair circulantly: even e goes to group G + (e/2 + 1),
 * odd e to G - (e/2 + 1) (mod g), and with an odd `extra` the last one to
 * G + g/2. With the default g = a*h + 1 every pair of groups has exactly
 * one link. */
struct topo_dragonfly {
	uint32_t a, p, h, g;
	uint32_t rounds;      /* floor(a*h / (g-1)): links every group pair has */
	uint32_t extra;       /* a*h mod (g-1): circulant ports per group */
	uint32_t global_base; /* a - 1 */
	uint32_t term_base;   /* a - 1 + h */
	uint32_t diameter;    /* exact, 1 .. 3, found at build */
};

/* Group port of group G used by the k-th (k < rounds) link toward group T
 * (T != G). */
static inline uint32_t topo_dragonfly_group_port(const struct topo_dragonfly *df, uint32_t G, uint32_t T,
						 uint32_t k)
{
	return (T < G ? T : T - 1) + k * (df->g - 1);
}

/* The circulant `extra` group ports of group G that reach group T != G
 * (T = G + j is extra port 2(j-1) unless that is an odd `extra`'s last
 * port, T = G - j is 2(j-1)+1, an odd `extra`'s last goes to G + g/2), as
 * group ports into ex[]; returns how many (0 .. 3). With the `rounds`
 * consecutive ones (topo_dragonfly_group_port, k < rounds) they are all of
 * G's links toward T. */
static inline uint32_t topo_dragonfly_extras_toward(const struct topo_dragonfly *df, uint32_t G, uint32_t T,
						    uint32_t ex[3])
{
	uint32_t n = 0;
	if (!df->extra)
		return 0;
	uint32_t base = df->rounds * (df->g - 1), fwd = (T + df->g - G) % df->g, back = df->g - fwd;
	bool odd = df->extra & 1;
	if (2 * (fwd - 1) < df->extra && !(odd && 2 * (fwd - 1) == df->extra - 1))
		ex[n++] = base + 2 * (fwd - 1);
	if (2 * (back - 1) + 1 < df->extra)
		ex[n++] = base + 2 * (back - 1) + 1;
	if (odd && T == (G + df->g / 2) % df->g)
		ex[n++] = base + df->extra - 1;
	return n;
}

/* The gateway of group G toward group T != G, the k = 0 link (BookSim's
 * dragonfly_port takes it): its router's index in G, and its global port. */
static inline void topo_dragonfly_gateway(const struct topo_dragonfly *df, uint32_t G, uint32_t T, uint32_t *index,
					  uint32_t *port)
{
	uint32_t gp = topo_dragonfly_group_port(df, G, T, 0);
	*index = gp / df->h;
	*port = df->global_base + gp % df->h;
}

/* Group-minimal next hop from router r toward router dst != r (BookSim2's
 * dragonfly_port): in dst's group the one local port; elsewhere the global
 * port of group G's k = 0 link toward dst's group when r holds it (*global
 * set), else the local port toward the router that does. */
static inline uint32_t topo_dragonfly_group_min_port(const struct topo_dragonfly *df, uint32_t r, uint32_t dst,
						     bool *global)
{
	uint32_t a = df->a, G = r / a, T = dst / a, i = r % a, j = dst % a;
	*global = false;
	if (G != T) {
		uint32_t gport;
		topo_dragonfly_gateway(df, G, T, &j, &gport);
		if (i == j) {
			*global = true;
			return gport;
		}
	}
	return j < i ? j : j - 1;
}

/* Far end of group port gp of group G: group *tg, group port *tgp. */
static inline void topo_dragonfly_global_peer(const struct topo_dragonfly *df, uint32_t G, uint32_t gp,
					      uint32_t *tg, uint32_t *tgp)
{
	uint32_t m = df->g - 1, base = df->rounds * m;
	if (gp < base) {
		uint32_t idx = gp % m, k = gp / m;
		*tg = idx < G ? idx : idx + 1;
		*tgp = (G < *tg ? G : G - 1) + k * m;
		return;
	}
	uint32_t e = gp - base, j = e / 2 + 1;
	if ((df->extra & 1) && e == df->extra - 1) {
		*tg = (G + df->g / 2) % df->g;
		*tgp = gp;
	} else if (e % 2 == 0) {
		*tg = (G + j) % df->g;
		*tgp = gp + 1;
	} else {
		*tg = (G + df->g - j) % df->g;
		*tgp = gp - 1;
	}
}

/* The view of t when its family is dragonfly; NULL otherwise. Valid while t
 * lives. */
const struct topo_dragonfly *topo_dragonfly_of(const struct topo *t);

#endif
