/* up*-down* tables shared by updown.c and updown_ad.c (internal to
 * emu/route). */
#ifndef NETLOOM_ROUTE_UPDOWN_TABLE_H
#define NETLOOM_ROUTE_UPDOWN_TABLE_H

#include <stdbool.h>
#include <stdint.h>

struct nl_err;
struct topo;

/* Schroeder et al. (Autonet, IEEE JSAC 1991): a BFS spanning tree from
 * `root` gives every router a level; a link a -> b goes "up" when (level,
 * id) of b is below a's. A legal route is up hops then down hops.
 * any[b * n + a]: the fewest hops of a legal route a -> b; down[b * n +
 * a]: of a down-only route (255: none); by destination b (updown_table.c
 * says why). 2 n^2 bytes. */
struct updown_table {
	uint32_t n;
	uint32_t root;
	uint32_t *level;  /* [n] BFS level from the root */
	uint8_t *any;     /* [n * n] */
	uint8_t *down;    /* [n * n] */
};

int updown_build(struct updown_table *u, const struct topo *t, uint32_t root, const char *name, struct nl_err *err);
void updown_release(struct updown_table *u);

/* True when the link from router a to its neighbour b goes up. */
static inline bool updown_is_up(const struct updown_table *u, uint32_t a, uint32_t b)
{
	return u->level[b] < u->level[a] || (u->level[b] == u->level[a] && b < a);
}

/* A local port of `router` that starts a shortest legal route to dst,
 * given whether the packet may still go up (it may unless it arrived over
 * a down link): number h mod (how many there are), in increasing port
 * order. Returns -1 at dst. */
int updown_next(const struct updown_table *u, const struct topo *t, uint32_t router, uint32_t dst, bool may_up,
		uint64_t h);

/* May a packet that arrived at `router` on local port in_port still go
 * up? (No when that link came down; yes from a terminal.) */
bool updown_may_up(const struct updown_table *u, const struct topo *t, uint32_t router, uint32_t in_port);

#endif
