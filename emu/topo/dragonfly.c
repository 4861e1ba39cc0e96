/* dragonfly: "dragonfly:a=A[,p=P][,h=H][,g=G]" (Kim, Dally, Scott and Abts,
 * ISCA 2008; seed 000 §II-A, seed 003 §4.1).
 *
 * g groups of a routers; the routers of a group are fully connected by
 * local links; every router has h global links to other groups and p
 * terminals, so its radix is k = p + a + h - 1 (seed 000 §II-A). Defaults
 * follow the balanced rule a = 2p = 2h (p = h = a/2) and the largest
 * system, g = a*h + 1, in which every pair of groups has one global link.
 * Fewer groups are allowed: every pair then has floor(a*h / (g-1)) links
 * in the consecutive arrangement and the remaining ports pair up
 * circulantly (this is how seed 003's 4,096-switch DRAGONFLY-32-4, with 128
 * groups of 32, is wired). Port numbering and the global-link arrangement:
 * struct topo_dragonfly in topo.h. Endpoints router-major.
 *
 * Distance (closed form, diameter at most 3): 0, 1 within a group or over
 * a direct global link, 2 when a one-router detour exists (a local hop to
 * the router holding a global link to b, a global link into b's group, or
 * a global link to a router with a global link to b), else 3 (local,
 * global, local). Minimal next hops (what `min` asks per packet and
 * router, in place of an n x n table; issue 10 part 3): with one link per
 * group pair (the default g) O(h) arithmetic and no memory; with several,
 * per-router rows of O(g/64 + h) words up to 32,768 routers; beyond, an
 * O(h^2 (rounds + 3)) arithmetic form. No orbits: the consecutive
 * arrangement is not vertex-transitive; the exact diameter is found at
 * build without BFS. Capabilities: coordinates (group, index), groups,
 * Valiant intermediates (a random other group).
 */
#include "topo/topo_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/rng.h"

struct dragonfly_params {
	int64_t a; /* routers per group */
	int64_t p; /* terminals per router, 0 = a/2 */
	int64_t h; /* global links per router, 0 = a/2 */
	int64_t g; /* groups, 0 = a*h + 1 */
};

static const struct param_def dragonfly_params_def[] = {
	{"a", PARAM_INT, offsetof(struct dragonfly_params, a), NULL, 1, 65535, "routers per group", NULL},
	{"p", PARAM_INT, offsetof(struct dragonfly_params, p), "0", 0, 65536,
	 "terminals per router; 0 = a/2 (balanced a = 2p = 2h)", NULL},
	{"h", PARAM_INT, offsetof(struct dragonfly_params, h), "0", 0, 65535,
	 "global links per router; 0 = a/2 (balanced a = 2p = 2h)", NULL},
	{"g", PARAM_INT, offsetof(struct dragonfly_params, g), "0", 0, 1 << 24,
	 "groups, 2 .. a*h+1; 0 = a*h + 1 (one link between every pair of groups)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* The view first (topo_dragonfly_of returns it), then the per-router rows
 * the general minimal next hops read when a group pair can have several
 * links (g < a*h + 1). */
struct dragonfly_state {
	struct topo_dragonfly df;
	uint64_t *reach; /* [r * words + Y / 64]: bit Y % 64 set when router r links into group Y */
	uint64_t *sig;   /* [r]: bit df_sig_bit(u) set for each global neighbour u of r */
	uint32_t *nbr;   /* [r * h + k]: r's global neighbours, sorted; NULL = not built */
	uint32_t words;  /* 64-bit words per router in reach: ceil(g / 64) */
};

/* The rows take n x (g/8 + 8 + 4h) bytes. Above these sizes they are not
 * built and the arithmetic closed form serves: on a=64,h=32,g=2048
 * (131,072 routers) rows would add 49 MB to save 10% per route (bench_min),
 * while up to the 32,768 routers `min`'s n x n table allows they replace
 * that table at a fraction of its memory. */
#define DF_ROWS_MAX_ROUTERS 32768u
#define DF_ROWS_MAX_BYTES (64u << 20)

static int dragonfly_find_diameter(struct topo *t, struct nl_err *err);
static int dragonfly_build_rows(struct topo *t, struct nl_err *err);

static int dragonfly_build(struct topo *t, struct nl_err *err)
{
	struct dragonfly_params *pr = t->params;
	struct topo_dragonfly *df = t->state;

	if ((pr->p == 0 || pr->h == 0) && pr->a % 2)
		return topo_errf(t, err, NL_EINVAL,
				 "parameter '%s': the balanced default a/2 needs an even a (a = %lld); give %s= explicitly",
				 pr->p == 0 ? "p" : "h", (long long)pr->a, pr->p == 0 ? "p" : "h");
	if (pr->p == 0)
		pr->p = pr->a / 2;
	if (pr->h == 0)
		pr->h = pr->a / 2;
	uint64_t a = (uint64_t)pr->a, h = (uint64_t)pr->h, p = (uint64_t)pr->p;
	if (pr->g == 0)
		pr->g = (int64_t)(a * h + 1);
	uint64_t g = (uint64_t)pr->g;
	if (g == 1) { /* the upper bound's reason below does not apply */
		char full[80] = "";
		if (a >= 2) /* full:n takes 2 routers or more */
			snprintf(full, sizeof full, " (one group of a routers alone is full:n=%llu,p=%llu)",
				 (unsigned long long)a, (unsigned long long)p);
		return topo_errf(t, err, NL_ERANGE,
				 "parameter 'g': 1 group: its a*h = %llu global ports have no other group to reach; expected "
				 "2 .. a*h+1 = %llu%s",
				 (unsigned long long)(a * h), (unsigned long long)(a * h + 1), full);
	}
	if (g > a * h + 1)
		return topo_errf(t, err, NL_ERANGE,
				 "parameter 'g': %llu groups, expected 2 .. a*h+1 = %llu so that every pair of groups has a global link",
				 (unsigned long long)g, (unsigned long long)(a * h + 1));
	uint64_t m = g - 1, extra = (a * h) % m;
	if ((extra & 1) && (g & 1))
		return topo_errf(t, err, NL_EINVAL,
				 "parameter 'g': the a*h = %llu global ports of a group leave %llu over after the g-1 = %llu other groups; an odd remainder needs an even g",
				 (unsigned long long)(a * h), (unsigned long long)extra, (unsigned long long)m);
	uint64_t n = g * a;
	char given[128];
	snprintf(given, sizeof given, "parameters a=%llu, p=%llu, h=%llu, g=%llu", (unsigned long long)a,
		 (unsigned long long)p, (unsigned long long)h, (unsigned long long)g);
	NL_CHECK(topo_size_check(t, given, (double)n, (double)n * (double)(a - 1 + h + p), (double)n * (double)p, err));
	if (a + h + p > (1u << 20))
		return topo_errf(t, err, NL_ERANGE, "%s give routers of %llu ports; expected at most 2^20 (1048576)", given,
				 (unsigned long long)(a - 1 + h + p));
	df->a = (uint32_t)a;
	df->p = (uint32_t)p;
	df->h = (uint32_t)h;
	df->g = (uint32_t)g;
	df->rounds = (uint32_t)(a * h / m);
	df->extra = (uint32_t)extra;
	df->global_base = (uint32_t)(a - 1);
	df->term_base = (uint32_t)(a - 1 + h);
	NL_CHECK(topo_alloc(t, (uint32_t)n, NULL, df->term_base + df->p, (uint32_t)(n * p), err));
	for (uint32_t G = 0; G < df->g; G++) {
		uint32_t r0 = G * df->a;
		for (uint32_t i = 0; i < df->a; i++)
			for (uint32_t j = i + 1; j < df->a; j++)
				topo_connect(t, r0 + i, j - 1, r0 + j, i);
		for (uint32_t gp = 0; gp < df->a * df->h; gp++) {
			uint32_t tg, tgp;
			topo_dragonfly_global_peer(df, G, gp, &tg, &tgp);
			if (tg > G || (tg == G && tgp > gp))
				topo_connect(t, r0 + gp / df->h, df->global_base + gp % df->h, tg * df->a + tgp / df->h,
					     df->global_base + tgp % df->h);
		}
	}
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t i = 0; i < df->p; i++)
			topo_attach(t, r * df->p + i, r, df->term_base + i);
	NL_CHECK(dragonfly_build_rows(t, err));
	return dragonfly_find_diameter(t, err);
}

static void dragonfly_release(struct topo *t)
{
	struct dragonfly_state *st = t->state;
	free(st->reach);
	free(st->sig);
	free(st->nbr);
	st->reach = NULL;
	st->sig = NULL;
	st->nbr = NULL;
}

/* Router at the far end of global port j of router r, from the closed-form
 * arrangement build() wires (no port-array reads: routing asks this for
 * routers all over the network, and arithmetic beats cache misses). */
static uint32_t dragonfly_global_nbr(const struct topo *t, uint32_t r, uint32_t j)
{
	const struct topo_dragonfly *df = t->state;
	uint32_t tg, tgp;
	topo_dragonfly_global_peer(df, r / df->a, (r % df->a) * df->h + j, &tg, &tgp);
	return tg * df->a + tgp / df->h;
}

/* Whether routers x and y share a link. Across groups X != T only the
 * group ports of X toward T can: the `rounds` consecutive ones
 * (topo_dragonfly_group_port) and at most three circulant extras (T = X +
 * j is extra port 2(j-1), T = X - j is 2(j-1)+1, X + g/2 the last odd
 * one), so the test is O(rounds), not O(h). */
static bool dragonfly_adjacent(const struct topo *t, uint32_t x, uint32_t y)
{
	const struct topo_dragonfly *df = t->state;
	uint32_t X = x / df->a, T = y / df->a, xi = x % df->a;

	if (X == T)
		return x != y;
	for (uint32_t k = 0; k < df->rounds; k++) {
		uint32_t gp = topo_dragonfly_group_port(df, X, T, k);
		if (gp / df->h == xi && dragonfly_global_nbr(t, x, gp % df->h) == y)
			return true;
	}
	if (!df->extra)
		return false;
	uint32_t e[3], n_e = 0, fwd = (T + df->g - X) % df->g, back = (X + df->g - T) % df->g;
	bool odd = df->extra & 1;
	if (2 * (fwd - 1) < df->extra && !(odd && 2 * (fwd - 1) == df->extra - 1))
		e[n_e++] = 2 * (fwd - 1);
	if (2 * (back - 1) + 1 < df->extra)
		e[n_e++] = 2 * (back - 1) + 1;
	if (odd && T == (X + df->g / 2) % df->g)
		e[n_e++] = df->extra - 1;
	for (uint32_t i = 0; i < n_e; i++) {
		uint32_t gp = df->rounds * (df->g - 1) + e[i];
		if (gp / df->h == xi && dragonfly_global_nbr(t, x, gp % df->h) == y)
			return true;
	}
	return false;
}

/* Distance in O(h * rounds): 1 within a group or over a direct global
 * link; 2 by global-then-local, local-then-global, or two global hops
 * through a third group (a global neighbour of b that is adjacent to a);
 * else 3. Fast enough to serve `min` routing per hop (topo_min_ports). */
static uint32_t dragonfly_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct topo_dragonfly *df = t->state;
	uint32_t ga = a / df->a, gb = b / df->a;

	if (a == b)
		return 0;
	if (ga == gb || dragonfly_adjacent(t, a, b))
		return 1;
	for (uint32_t j = 0; j < df->h; j++)
		if (dragonfly_global_nbr(t, a, j) / df->a == gb)
			return 2; /* global then local */
	for (uint32_t j = 0; j < df->h; j++) {
		uint32_t y = dragonfly_global_nbr(t, b, j);
		if (y / df->a == ga || dragonfly_adjacent(t, a, y))
			return 2; /* local then global, or two global hops */
	}
	return 3;
}

/* The group ports of group X that can lead to group T != X: the `rounds`
 * consecutive ones and up to three circulant candidates (see
 * dragonfly_adjacent); callers check the far end. gp[] holds rounds + 3. */
static inline uint32_t dragonfly_toward(const struct topo_dragonfly *df, uint32_t X, uint32_t T, uint32_t *gp)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < df->rounds; k++)
		gp[n++] = topo_dragonfly_group_port(df, X, T, k);
	return n + topo_dragonfly_extras_toward(df, X, T, gp + n);
}

/* Insertion sort: the lists are a few dozen entries (h, or the routers
 * of one group a query touches), where qsort's calls cost more. */
static void dragonfly_sort(uint32_t *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = v[i], j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static bool dragonfly_sorted_has(const uint32_t *v, uint32_t n, uint32_t x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x;
}

#define DF_MAX_H 256u   /* global ports handled in closed form */
#define DF_MAX_SET 1024u /* candidate group ports / routers per query */

/* --- one link per group pair (g = a*h + 1, the default) ----------------
 * Then the arrangement is pure arithmetic: group X's link toward group Y
 * is its group port rank(X, Y) (Y among X's other groups in increasing
 * order), held by router rank / h, and it lands on Y's router
 * rank(Y, X) / h. `min` asks for next hops once per packet per router, so
 * this path answers in O(h) divisions and compares, no memory reads: as
 * cheap as the n x n table's one byte per neighbour (issue 10 part 3). */

static inline uint32_t df1_rank(uint32_t X, uint32_t Y)
{
	return Y < X ? Y : Y - 1;
}

/* Index, within group X, of the router holding X's link toward group Y. */
static inline uint32_t df1_gw(uint32_t h, uint32_t X, uint32_t Y)
{
	return df1_rank(X, Y) / h;
}

/* The groups router (X, ix) links to: group ids [*lo, *hi), X excluded
 * (the interval spans X when the router's ranks straddle it). */
static inline void df1_reach(uint32_t h, uint32_t X, uint32_t ix, uint32_t *lo, uint32_t *hi)
{
	uint32_t r0 = ix * h, r1 = r0 + h;
	*lo = r0 < X ? r0 : r0 + 1;
	*hi = r1 <= X ? r1 : r1 + 1;
}

/* Whether routers (X, ix) and (Y, iy), X != Y, share a global neighbour:
 * a group W both link to whose links toward X and Y leave from the same
 * router. rank(W, X) and rank(W, Y) then fall in one block of h, which
 * needs |X - Y| <= h: most pairs are rejected before any loop. */
static inline bool df1_common(uint32_t h, uint32_t X, uint32_t ix, uint32_t Y, uint32_t iy)
{
	if ((X > Y ? X - Y : Y - X) > h)
		return false;
	uint32_t lx, hx, ly, hy;
	df1_reach(h, X, ix, &lx, &hx);
	df1_reach(h, Y, iy, &ly, &hy);
	uint32_t lo = lx > ly ? lx : ly, hi = hx < hy ? hx : hy;
	for (uint32_t W = lo; W < hi; W++)
		if (W != X && W != Y && df1_gw(h, W, X) == df1_gw(h, W, Y))
			return true;
	return false;
}

/* Minimal next hops from r = (G, i) toward dst = (T, j), G != T, with one
 * link per group pair; the same list, in the same order, as
 * dragonfly_min_ports's general path. Distance 1: r holds the G-T link and
 * it lands on dst. Distance 2: r holds it (global, local), dst holds T's
 * link into G (local, global), or r and dst share a global neighbour
 * (global, global). Else 3. A neighbour is minimal when one hop closer:
 * at distance 2 the local router holding the G-T link when it lands on
 * dst, and a global neighbour in T or adjacent to dst; at distance 3 the
 * local routers holding the G-T link or sharing a global neighbour with
 * dst, and a global neighbour x in group U holding U's link to T, or in a
 * group dst links to, or sharing a global neighbour with dst. */
static uint32_t dragonfly_min_ports_one(const struct topo_dragonfly *df, uint32_t G, uint32_t i, uint32_t T,
					uint32_t j, uint32_t skip, uint32_t *ports, uint32_t cap)
{
	uint32_t h = df->h, gG = df1_gw(h, G, T), gT = df1_gw(h, T, G), n = 0;
	if (i == gG && j == gT) {
		topo_ports_add(ports, &n, skip, cap, df->global_base + df1_rank(G, T) % h);
		return n;
	}
	if (i == gG || j == gT || df1_common(h, G, i, T, j)) { /* distance 2 */
		if (j == gT) /* then gG != i */
			topo_ports_add(ports, &n, skip, cap, gG < i ? gG : gG - 1);
		for (uint32_t k = 0; k < h; k++) {
			uint32_t rho = i * h + k, U = rho < G ? rho : rho + 1, ix = df1_gw(h, U, G);
			if (U == T || (df1_gw(h, U, T) == ix && df1_gw(h, T, U) == j))
				topo_ports_add(ports, &n, skip, cap, df->global_base + k);
		}
		return n;
	}
	/* Distance 3. Local routers sharing a global neighbour with dst, in
	 * increasing index (rank(G, W) grows with W), merged with gG. */
	uint32_t last = UINT32_MAX;
	bool g_done = false;
	if ((G > T ? G - T : T - G) <= h) {
		uint32_t lo, hi;
		df1_reach(h, T, j, &lo, &hi);
		for (uint32_t W = lo; W < hi; W++) {
			if (W == T || W == G || df1_gw(h, W, G) != df1_gw(h, W, T))
				continue;
			uint32_t l = df1_gw(h, G, W);
			if (!g_done && gG <= l) { /* every earlier l was below gG */
				topo_ports_add(ports, &n, skip, cap, gG < i ? gG : gG - 1);
				g_done = true;
				if (l == gG)
					last = l;
			}
			if (l != last)
				topo_ports_add(ports, &n, skip, cap, l < i ? l : l - 1);
			last = l;
		}
	}
	if (!g_done)
		topo_ports_add(ports, &n, skip, cap, gG < i ? gG : gG - 1);
	for (uint32_t k = 0; k < h; k++) {
		uint32_t rho = i * h + k, U = rho < G ? rho : rho + 1, ix = df1_gw(h, U, G);
		if (df1_gw(h, U, T) == ix || df1_gw(h, T, U) == j || df1_common(h, U, ix, T, j))
			topo_ports_add(ports, &n, skip, cap, df->global_base + k);
	}
	return n;
}

/* Minimal next hops from r toward dst in closed form, in increasing port
 * order (local ports 0 .. a-2 first, then global ports). With Y the global
 * neighbours of dst and X the global neighbours of r, the distance is 1
 * when dst is in X, 2 when a one-router detour exists (X meets dst's
 * group or Y, or Y meets r's group), else 3 (diameter <= 3). A neighbour
 * is minimal when it is one hop closer: at distance 2 the local routers in
 * Y and the global neighbours in dst's group or in Y; at distance 3 the
 * local routers owning a link into dst's group or adjacent to a router of
 * Y, and the global neighbours x with a link into dst's group, in a group
 * Y reaches, or adjacent to a router of Y. O(h^2 (rounds + 3)) arithmetic,
 * reading only r's own ports (in cache while r routes); beyond DF_MAX_H
 * global ports it asks the distance of every neighbour instead. Serves
 * when the per-router rows were not built (topo_internal.h). */
uint32_t topo_dragonfly_min_ports_arith(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip,
					uint32_t *ports, uint32_t cap)
{
	const struct topo_dragonfly *df = t->state;
	uint32_t a = df->a, h = df->h, G = r / a, i = r % a, T = dst / a, n = 0, n_z = 0;
	uint32_t y[DF_MAX_H], yg[DF_MAX_H], ys[DF_MAX_H], x[DF_MAX_H], z[DF_MAX_SET], gp[DF_MAX_SET];
	if (G == T) {
		uint32_t j = dst % a;
		topo_ports_add(ports, &n, skip, cap, j < i ? j : j - 1);
		return n;
	}
	if (h > DF_MAX_H || df->rounds + 3 > DF_MAX_SET / 2)
		return topo_min_ports_by_distance(t, r, dst, skip, ports, cap);
	bool direct = false, two = false;
	for (uint32_t k = 0; k < h; k++) {
		ys[k] = y[k] = dragonfly_global_nbr(t, dst, k);
		yg[k] = y[k] / a;
		x[k] = t->port_router[t->peer[t->port_base[r] + df->global_base + k]]; /* r's own ports: in cache */
		direct |= x[k] == dst;
	}
	if (direct) {
		for (uint32_t k = 0; k < h; k++)
			if (x[k] == dst)
				topo_ports_add(ports, &n, skip, cap, df->global_base + k);
		return n;
	}
	dragonfly_sort(ys, h);
	for (uint32_t k = 0; k < h && !two; k++)
		two = x[k] / a == T || yg[k] == G || dragonfly_sorted_has(ys, h, x[k]);
	if (two) {
		for (uint32_t k = 0; k < h; k++)
			if (yg[k] == G)
				z[n_z++] = y[k] % a;
	} else {
		uint32_t m = dragonfly_toward(df, G, T, gp), tg, tgp;
		for (uint32_t e = 0; e < m; e++) {
			topo_dragonfly_global_peer(df, G, gp[e], &tg, &tgp);
			if (tg == T)
				z[n_z++] = gp[e] / h;
		}
		for (uint32_t k = 0; k < h; k++) {
			uint32_t W = yg[k], lo = (y[k] - W * a) * h; /* y's group ports: lo .. lo+h-1 */
			m = dragonfly_toward(df, W, G, gp);
			for (uint32_t e = 0; e < m; e++) {
				if (gp[e] - lo >= h)
					continue;
				topo_dragonfly_global_peer(df, W, gp[e], &tg, &tgp);
				if (tg != G)
					continue;
				if (n_z == DF_MAX_SET)
					return topo_min_ports_by_distance(t, r, dst, skip, ports, cap);
				z[n_z++] = tgp / h;
			}
		}
	}
	dragonfly_sort(z, n_z);
	for (uint32_t e = 0; e < n_z; e++)
		if ((e == 0 || z[e] != z[e - 1]) && z[e] != i)
			topo_ports_add(ports, &n, skip, cap, z[e] < i ? z[e] : z[e] - 1);
	for (uint32_t k = 0; k < h; k++) {
		uint32_t X = x[k] / a, lo = (x[k] - X * a) * h; /* x's group ports: lo .. lo+h-1 */
		bool ok;
		if (two) {
			ok = X == T || dragonfly_sorted_has(ys, h, x[k]);
		} else {
			ok = false;
			uint32_t m = dragonfly_toward(df, X, T, gp), tg, tgp;
			for (uint32_t e = 0; e < m && !ok; e++)
				if (gp[e] - lo < h) {
					topo_dragonfly_global_peer(df, X, gp[e], &tg, &tgp);
					ok = tg == T;
				}
			/* dst has a link into X, or x one to a router of Y: only
			 * the group ports of X toward that router's group can. */
			for (uint32_t e = 0; e < h && !ok; e++) {
				uint32_t W = yg[e];
				if (W == X) {
					ok = true;
					break;
				}
				m = dragonfly_toward(df, X, W, gp);
				for (uint32_t q = 0; q < m && !ok; q++)
					if (gp[q] - lo < h) {
						topo_dragonfly_global_peer(df, X, gp[q], &tg, &tgp);
						ok = tg * a + tgp / h == y[e];
					}
			}
		}
		if (ok)
			topo_ports_add(ports, &n, skip, cap, df->global_base + k);
	}
	return n;
}

/* --- several links per group pair: per-router rows ------------------ */

static inline bool df_links(const struct dragonfly_state *st, uint32_t v, uint32_t Y)
{
	return st->reach[(size_t)v * st->words + Y / 64] >> (Y % 64) & 1;
}

/* One of 64 bits for router u (Fibonacci hashing), for df_common's filter. */
static inline uint64_t df_sig_bit(uint32_t u)
{
	return 1ull << ((u * 0x9E3779B97F4A7C15ull) >> 58);
}

/* Whether v shares a global neighbour with w (signature sig_w, sorted row
 * nw): disjoint signatures reject most pairs in one AND, else a merge of
 * the sorted rows decides. */
static inline bool df_common(const struct dragonfly_state *st, uint32_t v, uint64_t sig_w, const uint32_t *nw)
{
	if (!(st->sig[v] & sig_w))
		return false;
	uint32_t h = st->df.h;
	const uint32_t *nv = st->nbr + (size_t)v * h;
	for (uint32_t x = 0, y = 0; x < h && y < h;) {
		if (nv[x] == nw[y])
			return true;
		if (nv[x] < nw[y])
			x++;
		else
			y++;
	}
	return false;
}

/* Rows of every router: its global neighbours sorted, and the groups it
 * links into as a bit set. O(n (g/64 + h)) words, built from the wired
 * ports; skipped with one link per group pair (pure arithmetic there) or
 * above DF_ROWS_MAX_ROUTERS / DF_ROWS_MAX_BYTES. */
static int dragonfly_build_rows(struct topo *t, struct nl_err *err)
{
	struct dragonfly_state *st = t->state;
	const struct topo_dragonfly *df = &st->df;
	uint32_t n = t->n_routers, h = df->h, words = (df->g + 63) / 64;

	if ((df->rounds == 1 && !df->extra) || n > DF_ROWS_MAX_ROUTERS ||
	    (uint64_t)n * (words * 8ull + 8 + h * 4ull) > DF_ROWS_MAX_BYTES)
		return 0;
	st->reach = calloc((size_t)n * words, sizeof *st->reach);
	st->sig = calloc(n, sizeof *st->sig);
	st->nbr = malloc((size_t)n * h * sizeof *st->nbr);
	if (!st->reach || !st->sig || !st->nbr)
		return nl_errf(err, NL_ENOMEM, "out of memory for the dragonfly's routing rows (%u routers)", n);
	st->words = words;
	for (uint32_t r = 0; r < n; r++) {
		uint32_t *row = st->nbr + (size_t)r * h;
		for (uint32_t k = 0; k < h; k++) {
			uint32_t v = t->port_router[t->peer[t->port_base[r] + df->global_base + k]], Y = v / df->a;
			row[k] = v;
			st->reach[(size_t)r * words + Y / 64] |= 1ull << (Y % 64);
			st->sig[r] |= df_sig_bit(v);
		}
		dragonfly_sort(row, h);
	}
	return 0;
}

/* Minimal next hops from r = (G, i) toward dst = (T, j), G != T, from the
 * rows; the list the arithmetic closed form gives. For v outside T,
 * d(v, dst) is 1 when adjacent, else 2 when v links into T, dst links into
 * v's group, or they share a global neighbour, else 3. A local router and
 * each global port is tested once, so a call costs about what the n x n
 * table's one byte per neighbour did. */
static uint32_t dragonfly_min_ports_rows(const struct topo *t, const struct dragonfly_state *st, uint32_t r,
					 uint32_t dst, uint32_t skip, uint32_t *ports, uint32_t cap)
{
	const struct topo_dragonfly *df = &st->df;
	uint32_t a = df->a, h = df->h, G = r / a, i = r % a, T = dst / a, n = 0;
	const uint32_t *gpeer = t->peer + t->port_base[r] + df->global_base, *Y = st->nbr + (size_t)dst * h;
	uint64_t sig_d = st->sig[dst];
	bool r_to_T = df_links(st, r, T);
	if (r_to_T) { /* distance 1 over every parallel link to dst */
		for (uint32_t k = 0; k < h; k++)
			if (t->port_router[gpeer[k]] == dst)
				topo_ports_add(ports, &n, skip, cap, df->global_base + k);
		if (n)
			return n;
	}
	if (r_to_T || df_links(st, dst, G) || df_common(st, r, sig_d, Y)) { /* distance 2 */
		for (uint32_t k = 0, last = UINT32_MAX; k < h; k++) { /* dst's neighbours in G, ascending */
			uint32_t l = Y[k] - G * a;
			if (l < a && l != last)
				topo_ports_add(ports, &n, skip, cap, l < i ? l : l - 1);
			last = l < a ? l : last;
		}
		for (uint32_t k = 0; k < h; k++) {
			uint32_t x = t->port_router[gpeer[k]];
			if (x / a == T || (df_links(st, x, T) && dragonfly_sorted_has(Y, h, x)))
				topo_ports_add(ports, &n, skip, cap, df->global_base + k);
		}
		return n;
	}
	for (uint32_t l = 0; l < a; l++) { /* distance 3 */
		uint32_t v = G * a + l;
		if (l != i && (df_links(st, v, T) || df_common(st, v, sig_d, Y)))
			topo_ports_add(ports, &n, skip, cap, l < i ? l : l - 1);
	}
	for (uint32_t k = 0; k < h; k++) {
		uint32_t x = t->port_router[gpeer[k]];
		if (df_links(st, x, T) || df_links(st, dst, x / a) || df_common(st, x, sig_d, Y))
			topo_ports_add(ports, &n, skip, cap, df->global_base + k);
	}
	return n;
}

/* Minimal next hops: within a group the one local port; across groups the
 * arithmetic of one link per pair, else the rows, else the general
 * arithmetic (all three give the BFS table's list, test_topo_min). */
static uint32_t dragonfly_min_ports(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip,
				    uint32_t *ports, uint32_t cap)
{
	const struct dragonfly_state *st = t->state;
	const struct topo_dragonfly *df = &st->df;
	uint32_t a = df->a, G = r / a, T = dst / a, i = r % a;

	if (G == T) {
		uint32_t j = dst % a;
		if (skip == 0 && cap > 0)
			ports[0] = j < i ? j : j - 1;
		return 1;
	}
	if (df->rounds == 1 && !df->extra)
		return dragonfly_min_ports_one(df, G, i, T, dst % a, skip, ports, cap);
	if (st->nbr)
		return dragonfly_min_ports_rows(t, st, r, dst, skip, ports, cap);
	return topo_dragonfly_min_ports_arith(t, r, dst, skip, ports, cap);
}

/* Exact diameter, computed once at build: every pair of groups has a link
 * (rounds >= 1), so it is at most 3 (local, global, local). Router x has
 * eccentricity 3 exactly when fewer than n routers are within two hops of
 * it: its group, its global neighbours' groups, and the global neighbours
 * of its global and local neighbours. Stops at the first such x (at once
 * on the balanced dragonflies, where a > h + 1). */
static int dragonfly_find_diameter(struct topo *t, struct nl_err *err)
{
	struct topo_dragonfly *df = t->state;
	uint32_t n = t->n_routers, diam = 1;

	if (df->a == 1) {
		df->diameter = 1; /* one router per group, a link between every pair */
		return 0;
	}
	uint32_t *mark = calloc(n, sizeof *mark), *gmark = calloc(df->g, sizeof *gmark);
	if (!mark || !gmark) {
		free(mark);
		free(gmark);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	for (uint32_t x = 0; x < n && diam < 3; x++) {
		uint32_t X = x / df->a, seen = 0, stamp = x + 1, groups = 1;
#define DF_MARK(r)                                 \
	do {                                       \
		if (mark[(r)] != stamp) {          \
			mark[(r)] = stamp;         \
			seen++;                    \
		}                                  \
	} while (0)
		gmark[X] = stamp;
		for (uint32_t i = 0; i < df->a; i++)
			DF_MARK(X * df->a + i);
		for (uint32_t j = 0; j < df->h; j++) {
			uint32_t w = dragonfly_global_nbr(t, x, j);
			DF_MARK(w);
			if (gmark[w / df->a] != stamp) {
				gmark[w / df->a] = stamp;
				groups++;
			}
		}
		if (seen < n && diam < 2)
			diam = 2;
		/* x's own global links reach every other group: each of those
		 * groups is then within two hops whole (global, then local),
		 * so x's eccentricity is at most 2 without the walk below.
		 * Where few groups are many (g <= h + 1, as `design dragonfly`
		 * lists for small N at a large radix) no router has
		 * eccentricity 3, the loop visits every router, and the walk's
		 * O(h (a + h)) per router made a=400,h=200,g=2 cost seconds. */
		if (groups == df->g)
			continue;
		for (uint32_t j = 0; j < df->h; j++) {
			uint32_t w = dragonfly_global_nbr(t, x, j), W = w / df->a;
			for (uint32_t i = 0; i < df->a; i++)
				DF_MARK(W * df->a + i);
			for (uint32_t k = 0; k < df->h; k++)
				DF_MARK(dragonfly_global_nbr(t, w, k));
		}
		for (uint32_t i = 0; i < df->a; i++)
			for (uint32_t k = 0; k < df->h; k++)
				DF_MARK(dragonfly_global_nbr(t, X * df->a + i, k));
#undef DF_MARK
		if (seen < n)
			diam = 3;
	}
	free(mark);
	free(gmark);
	df->diameter = diam;
	return 0;
}

static uint32_t dragonfly_diameter(const struct topo *t)
{
	return ((const struct topo_dragonfly *)t->state)->diameter;
}

static int dragonfly_coords(const struct topo *t, uint32_t r, uint32_t *c)
{
	const struct topo_dragonfly *df = t->state;
	c[0] = r / df->a; /* group */
	c[1] = r % df->a; /* router in group */
	return 2;
}

static void dragonfly_groups(const struct topo *t, uint32_t *n_groups, uint32_t *group_routers)
{
	const struct topo_dragonfly *df = t->state;
	*n_groups = df->g;
	*group_routers = df->a;
}

/* Valiant on a dragonfly (Kim et al. ISCA 2008 §4.2): a random router of
 * a random group other than the source's. */
static uint32_t dragonfly_valiant(const struct topo *t, uint32_t src, uint32_t dst, struct rng *rng)
{
	const struct topo_dragonfly *df = t->state;
	uint32_t G = (uint32_t)rng_below(rng, df->g - 1);
	(void)dst;
	if (G >= src / df->a)
		G++;
	return G * df->a + (uint32_t)rng_below(rng, df->a);
}

/* Local links join routers of one group, global links two groups
 * (BookSim2's dragonflynew: 10 and 100 cycles). */
static uint32_t dragonfly_link_class(const struct topo *t, uint32_t g)
{
	const struct topo_dragonfly *df = t->state;
	uint32_t r = t->port_router[g], q = t->port_router[t->peer[g]];
	return r / df->a == q / df->a ? TOPO_LINK_LOCAL : TOPO_LINK_GLOBAL;
}

const struct topo_ops topo_dragonfly_ops = {
	.name = "dragonfly",
	.help = "dragonfly: g groups of a fully connected routers, h global links and p terminals per router (seeds 000, 003)",
	.params = dragonfly_params_def,
	.params_size = sizeof(struct dragonfly_params),
	.state_size = sizeof(struct dragonfly_state),
	.build = dragonfly_build,
	.release = dragonfly_release,
	.distance = dragonfly_distance,
	.coords = dragonfly_coords,
	.groups = dragonfly_groups,
	.min_ports = dragonfly_min_ports,
	.diameter = dragonfly_diameter,
	.valiant = dragonfly_valiant,
	.link_class = dragonfly_link_class,
};
