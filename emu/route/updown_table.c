/* up*-down* tables (Schroeder et al., "Autonet", IEEE JSAC 9(8), 1991,
 * §6.6; the escape paths of Silla & Duato, IEEE TPDS 11(7), 2000): the
 * BFS levels from a root and, per router pair, the length of the
 * shortest legal (up* then down*) route and of the shortest down-only
 * route. For destination b, down[a][b] is a BFS from b over reversed down
 * links; any[a][b] = min(down[a][b], 1 + min over up-neighbours c of
 * any[c][b]), filled in increasing (level, id) order since an up
 * neighbour is always earlier. O(n^2) bytes: irregular graphs of seed 003
 * scale (512 switches), capped at 8,192 routers. Stored by destination
 * (row b holds every router's distance to b): the build fills one row
 * per destination and a route reads its neighbours' entries from one
 * row. Stored by source, every step of the build read a different cache
 * line: a 2,934-router dragonfly took 0.97 s, mostly cache misses. */
#include "route/updown_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "topo/topo.h"

#define UPDOWN_MAX_ROUTERS 8192u

static uint32_t updown_peer(const struct topo *t, uint32_t g)
{
	return t->port_router[t->peer[g]];
}

int updown_build(struct updown_table *u, const struct topo *t, uint32_t root, const char *name, struct nl_err *err)
{
	uint32_t n = t->n_routers;
	memset(u, 0, sizeof *u);
	if (n > UPDOWN_MAX_ROUTERS)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function '%s': %u routers is more than its %u-router tables allow (2 n^2 bytes)",
			       name, n, UPDOWN_MAX_ROUTERS);
	if (root >= n)
		return nl_errf(err, NL_ERANGE, "routing function '%s': parameter 'root' = %u is not a router (0..%u)", name,
			       root, n - 1);
	u->n = n;
	u->root = root;
	u->level = malloc((size_t)n * sizeof *u->level);
	u->any = malloc((size_t)n * n);
	u->down = malloc((size_t)n * n);
	uint32_t *q = malloc((size_t)n * sizeof *q), *order = malloc((size_t)n * sizeof *order);
	uint32_t *cnt = NULL, *up_off = NULL, *up_nb = NULL; /* up-neighbours of a: up_nb[up_off[a] .. up_off[a + 1]) */
	int rc = 0;
	if (!u->level || !u->any || !u->down || !q || !order) {
		rc = nl_errf(err, NL_ENOMEM, "routing function '%s': out of memory for %u x %u tables", name, n, n);
		goto out;
	}
	topo_bfs(t, root, u->level, q);
	for (uint32_t r = 0; r < n; r++)
		if (u->level[r] == UINT32_MAX) {
			rc = nl_errf(err, NL_EINVAL, "routing function '%s': router %u is not connected to root %u", name, r,
				     root);
			goto out;
		}
	/* Routers in increasing (level, id): counting sort by level. */
	uint32_t max_level = 0;
	for (uint32_t r = 0; r < n; r++)
		if (u->level[r] > max_level)
			max_level = u->level[r];
	cnt = calloc(max_level + 2, sizeof *cnt);
	if (!cnt) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t r = 0; r < n; r++)
		cnt[u->level[r] + 1]++;
	for (uint32_t l = 1; l <= max_level + 1; l++)
		cnt[l] += cnt[l - 1];
	for (uint32_t r = 0; r < n; r++)
		order[cnt[u->level[r]]++] = r;
	/* Every router's up-neighbours, once: both passes below walk them
	 * for every destination, n times over. */
	up_off = malloc(((size_t)n + 1) * sizeof *up_off);
	if (!up_off) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	up_off[0] = 0;
	for (uint32_t a = 0; a < n; a++) {
		uint32_t k = 0;
		for (uint32_t g = t->port_base[a]; g < t->port_base[a + 1]; g++)
			k += topo_port_is_network(t, g) && updown_is_up(u, a, updown_peer(t, g));
		up_off[a + 1] = up_off[a] + k;
	}
	up_nb = malloc(((size_t)up_off[n] + 1) * sizeof *up_nb);
	if (!up_nb) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t a = 0, k = 0; a < n; a++)
		for (uint32_t g = t->port_base[a]; g < t->port_base[a + 1]; g++)
			if (topo_port_is_network(t, g) && updown_is_up(u, a, updown_peer(t, g)))
				up_nb[k++] = updown_peer(t, g);
	memset(u->down, 255, (size_t)n * n);
	for (uint32_t b = 0; b < n; b++) {
		uint8_t *down = u->down + (size_t)b * n, *any = u->any + (size_t)b * n;
		/* Down-only: BFS from b backwards over down links (a -> c down
		 * means c -> a is up: walk from c to its up-neighbours a). */
		uint32_t qh = 0, qt = 0;
		down[b] = 0;
		q[qt++] = b;
		while (qh < qt) {
			uint32_t c = q[qh++];
			uint8_t dc = down[c];
			for (uint32_t k = up_off[c]; k < up_off[c + 1]; k++) {
				uint32_t a = up_nb[k];
				if (down[a] == 255) {
					if (dc >= 254) {
						rc = nl_errf(err, NL_EINVAL, "routing function '%s': a down path exceeds 254 hops",
							     name);
						goto out;
					}
					down[a] = (uint8_t)(dc + 1);
					q[qt++] = a;
				}
			}
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t a = order[i];
			uint32_t best = down[a];
			for (uint32_t k = up_off[a]; k < up_off[a + 1]; k++)
				if (any[up_nb[k]] + 1u < best)
					best = any[up_nb[k]] + 1u;
			if (best >= 255) {
				rc = nl_errf(err, NL_EINVAL, "routing function '%s': no up*-down* route from %u to %u within 254 hops",
					     name, a, b);
				goto out;
			}
			any[a] = (uint8_t)best;
		}
	}
out:
	free(q);
	free(order);
	free(cnt);
	free(up_off);
	free(up_nb);
	if (rc < 0)
		updown_release(u);
	return rc;
}

void updown_release(struct updown_table *u)
{
	free(u->level);
	free(u->any);
	free(u->down);
	u->level = NULL;
	u->any = u->down = NULL;
}

bool updown_may_up(const struct updown_table *u, const struct topo *t, uint32_t router, uint32_t in_port)
{
	uint32_t g = t->port_base[router] + in_port;
	if (in_port >= topo_router_ports(t, router) || !topo_port_is_network(t, g))
		return true;
	/* Arrived from prev: the packet may still go up when prev -> router
	 * went up. */
	return updown_is_up(u, updown_peer(t, g), router);
}

/* Is local network port g of router on a shortest legal route to dst? */
static bool updown_on_route(const struct updown_table *u, const struct topo *t, uint32_t router, uint32_t g,
			    uint32_t dst, bool may_up, uint32_t want)
{
	if (!topo_port_is_network(t, g))
		return false;
	uint32_t c = updown_peer(t, g), n = u->n;
	bool up = updown_is_up(u, router, c);
	if (up && !may_up)
		return false;
	/* After an up hop the packet may still go up; after a down hop only
	 * down. */
	uint32_t rest = up ? u->any[(size_t)dst * n + c] : u->down[(size_t)dst * n + c];
	return rest != 255 && rest + 1 == want;
}

int updown_next(const struct updown_table *u, const struct topo *t, uint32_t router, uint32_t dst, bool may_up,
		uint64_t h)
{
	if (router == dst)
		return -1;
	uint32_t n = u->n, count = 0;
	uint32_t want = may_up ? u->any[(size_t)dst * n + router] : u->down[(size_t)dst * n + router];
	for (uint32_t g = t->port_base[router]; g < t->port_base[router + 1]; g++)
		count += updown_on_route(u, t, router, g, dst, may_up, want);
	if (!count)
		return -2; /* unreachable: the tables say a legal route exists */
	uint32_t pick = (uint32_t)(h % count);
	for (uint32_t g = t->port_base[router];; g++)
		if (updown_on_route(u, t, router, g, dst, may_up, want) && pick-- == 0)
			return (int)(g - t->port_base[router]);
}
