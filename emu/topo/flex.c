/* flex: "flex:nx=NX,ny=NY,nz=NZ[,p=P]" (Jeon et al., IEEE Access 2022, seed
 * 000 §III-A).
 *
 * NZ layers of NX x NY routers; router (x, y, z) has id NX*NY*z + NX*y + x
 * (eq. 6) and links to every router of layer (z+1) mod NZ that shares
 * exactly its y (eq. 4) or exactly its x (eq. 5); there are no links
 * within a layer. Radix: NX + NY + p - 2 for NZ = 2 (the layers above and
 * below coincide) and 2NX + 2NY + p - 4 otherwise (§III-A); links:
 * NX NY NZ (k - p) / 2. Default p = NX + NY - 2, the links to the next
 * layer, which §III-B uses for full global bandwidth (p = floor(k/3) with
 * NX = NY and NZ = 3).
 *
 * Ports (struct topo_flex): next_x + (x' < x ? x' : x'-1) reaches (x', y,
 * z+1), next_y + (y' < y ? y' : y'-1) reaches (x, y', z+1), prev_x / prev_y
 * likewise reach layer z-1 (the same ports as next_* when NZ = 2), then p
 * terminals; endpoints router-major.
 *
 * Distance (closed form): a hop moves one layer up or down the ring of
 * layers and replaces x or y by a different value, so d is the least h for
 * which an h-step walk on the layer ring reaches z' and the h coordinate
 * changes split as a + b = h with an a-step walk on K_NX reaching x' and a
 * b-step walk on K_NY reaching y'. It depends only on dz and whether x and
 * y match: tabled at build up to TOPO_FLEX_DIST_NZ layers, and the minimal
 * next hops cost two distances per block of ports (flex_min_ports), not
 * one per port. Vertex-transitive: layer rotation and
 * per-axis permutations are automorphisms. Packaging (Fig. 7): each y-axis
 * line of a layer is one rack, racks in rows by layer, so router (x, y, z)
 * is in cabinet NX*z + x.
 */
#include "topo/topo_internal.h"

#include <stdlib.h>

#include "core/error.h"

struct flex_params {
	int64_t nx, ny, nz; /* routers per x / y axis, layers */
	int64_t p;          /* endpoints per router; 0 = NX + NY - 2 */
};

static const struct param_def flex_params_def[] = {
	{"nx", PARAM_INT, offsetof(struct flex_params, nx), NULL, 2, 65535, "routers along x in each layer, Nx",
	 NULL},
	{"ny", PARAM_INT, offsetof(struct flex_params, ny), NULL, 2, 65535, "routers along y in each layer, Ny",
	 NULL},
	{"nz", PARAM_INT, offsetof(struct flex_params, nz), "3", 2, 65535, "layers, Nz (3 gives diameter 2)", NULL},
	{"p", PARAM_INT, offsetof(struct flex_params, p), "0", 0, 65536,
	 "endpoints per router; 0 = Nx + Ny - 2, full global bandwidth (§III-B)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static void flex_fill_dist(struct topo_flex *f);

static inline uint32_t flex_idx(uint32_t to, uint32_t own)
{
	return to < own ? to : to - 1;
}

static int flex_build(struct topo *t, struct nl_err *err)
{
	struct flex_params *pr = t->params;
	struct topo_flex *f = t->state;
	uint32_t nx = (uint32_t)pr->nx, ny = (uint32_t)pr->ny, nz = (uint32_t)pr->nz;
	uint64_t n = (uint64_t)nx * ny * nz;

	if (pr->p == 0)
		pr->p = (int64_t)(nx + ny - 2);
	uint32_t p = (uint32_t)pr->p;
	char given[128];
	snprintf(given, sizeof given, "parameters nx=%llu, ny=%llu, nz=%llu, p=%u", (unsigned long long)nx,
		 (unsigned long long)ny, (unsigned long long)nz, p);
	double net_ports = nz == 2 ? nx + ny - 2.0 : 2.0 * (nx + ny - 2.0); /* term_base below */
	NL_CHECK(topo_size_check(t, given, (double)n, (double)n * (net_ports + p), (double)n * p, err));
	/* A hop changes z by one and x + y by one: with Nx = Ny = 2 and an even
	 * ring of layers x + y + z keeps its parity, so the graph splits. */
	if (nx == 2 && ny == 2 && nz % 2 == 0)
		return topo_errf(t, err, NL_EINVAL,
				 "parameters 'nx', 'ny', 'nz': Nx = Ny = 2 with an even Nz = %u gives two disconnected halves; "
				 "expected an odd nz, or nx or ny of 3 or more",
				 nz);
	f->nx = nx;
	f->ny = ny;
	f->nz = nz;
	f->p = p;
	f->next_x = 0;
	f->next_y = nx - 1;
	if (nz == 2) {
		f->prev_x = f->next_x;
		f->prev_y = f->next_y;
		f->term_base = nx + ny - 2;
	} else {
		f->prev_x = nx + ny - 2;
		f->prev_y = f->prev_x + nx - 1;
		f->term_base = 2 * (nx + ny - 2);
	}
	NL_CHECK(topo_alloc(t, (uint32_t)n, NULL, f->term_base + p, (uint32_t)n * p, err));
	/* With Nz = 2 layer 1's eqs. 4-5 give layer 0's links again. */
	uint32_t z_links = nz == 2 ? 1 : nz;
	for (uint32_t z = 0; z < z_links; z++) {
		uint32_t z2 = (z + 1) % nz;
		for (uint32_t y = 0; y < ny; y++)
			for (uint32_t x = 0; x < nx; x++) {
				uint32_t r = nx * ny * z + nx * y + x;
				for (uint32_t x2 = 0; x2 < nx; x2++)
					if (x2 != x)
						topo_connect(t, r, f->next_x + flex_idx(x2, x), nx * ny * z2 + nx * y + x2,
							     f->prev_x + flex_idx(x, x2));
				for (uint32_t y2 = 0; y2 < ny; y2++)
					if (y2 != y)
						topo_connect(t, r, f->next_y + flex_idx(y2, y), nx * ny * z2 + nx * y2 + x,
							     f->prev_y + flex_idx(y, y2));
			}
	}
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t i = 0; i < p; i++)
			topo_attach(t, r * p + i, r, f->term_base + i);
	t->cabinet = malloc((size_t)n * sizeof *t->cabinet);
	if (!t->cabinet)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t r = 0; r < n; r++) {
		uint32_t x, y, z;
		topo_flex_xyz(f, r, &x, &y, &z);
		t->cabinet[r] = nx * z + x;
	}
	t->n_cabinets = nx * nz;
	flex_fill_dist(f);
	return 0;
}

/* Is there an a-step walk from one coordinate to another (`same` when
 * equal) in the complete graph K_n, where a step changes the coordinate? */
static bool flex_walk(uint32_t a, uint32_t n, bool same)
{
	if (a == 0)
		return same;
	if (a == 1)
		return !same;
	if (n >= 3)
		return true;
	return (a % 2 == 0) == same; /* K_2 alternates */
}

/* Is there an h-step walk on the ring of nz layers (steps +-1) from layer 0
 * to layer dz? */
static bool flex_ring_walk(uint32_t h, uint32_t nz, uint32_t dz)
{
	if (nz == 2)
		return h % 2 == dz;
	/* u up-steps and h-u down-steps: 2u - h = dz (mod nz) for some u. */
	for (uint32_t u = 0; u <= h; u++)
		if (((uint64_t)2 * u + (uint64_t)nz * (h + 1) - h) % nz == dz)
			return true;
	return false;
}

/* The distance between routers dz layers apart (up the ring) whose x
 * and y are equal or not: all it depends on. A search over walk lengths,
 * O(nz^2) steps for far layers. */
static uint32_t flex_distance_search(const struct topo_flex *f, uint32_t dz, bool same_x, bool same_y)
{
	for (uint32_t h = 0; h <= 2 * f->nz + 8; h++) {
		if (!flex_ring_walk(h, f->nz, dz))
			continue;
		for (uint32_t s = 0; s <= h; s++)
			if (flex_walk(s, f->nx, same_x) && flex_walk(h - s, f->ny, same_y))
				return h;
	}
	return UINT32_MAX;
}

/* flex_distance_search's value, from the table when there is one: with
 * the search (a 64-bit division per walk step) flex_distance took 77% of
 * an analytic replay's time on an 18 x 18 x 3 FleX, which asks for one
 * distance per port of every router of every route. */
static inline uint32_t flex_distance_of(const struct topo_flex *f, uint32_t dz, bool same_x, bool same_y)
{
	return f->has_dist ? f->dist[dz][same_x][same_y] : flex_distance_search(f, dz, same_x, same_y);
}

/* Fill the table of distances when the layers are few enough. A FleX is
 * connected (flex_build refuses the split one), so the search finds each
 * within its bound of 2 nz + 8 <= 136 hops: a byte. */
static void flex_fill_dist(struct topo_flex *f)
{
	f->has_dist = false;
	if (f->nz > TOPO_FLEX_DIST_NZ)
		return;
	for (uint32_t dz = 0; dz < f->nz; dz++)
		for (int sx = 0; sx < 2; sx++)
			for (int sy = 0; sy < 2; sy++)
				f->dist[dz][sx][sy] = (uint8_t)flex_distance_search(f, dz, sx, sy);
	f->has_dist = true;
}

static uint32_t flex_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct topo_flex *f = t->state;
	uint32_t xa, ya, za, xb, yb, zb;
	topo_flex_xyz(f, a, &xa, &ya, &za);
	topo_flex_xyz(f, b, &xb, &yb, &zb);
	return flex_distance_of(f, (zb + f->nz - za) % f->nz, xa == xb, ya == yb);
}

/* The minimal ports found so far: element n of the list goes to
 * ports[n - skip] when it falls in skip .. skip + cap - 1. */
struct flex_min_list {
	uint32_t *ports;
	uint32_t skip, cap, n;
};

/* One axis's block of ports to layer z2 (dz2 layers below dst's): port
 * base + i changes the coordinate c (of n values, dst's is cd) to
 * c' = i < c ? i : i + 1 and keeps the other axis (same_other: equal to
 * dst's). The neighbour's distance is one of two values (c' == cd or
 * not), so a block costs two distances, not one per port. */
static void flex_min_block(const struct topo_flex *f, struct flex_min_list *l, uint32_t want, uint32_t base,
			   uint32_t c, uint32_t n, uint32_t cd, uint32_t dz2, bool is_x, bool same_other)
{
	uint32_t d_hit = is_x ? flex_distance_of(f, dz2, true, same_other) : flex_distance_of(f, dz2, same_other, true);
	uint32_t d_miss = is_x ? flex_distance_of(f, dz2, false, same_other)
			       : flex_distance_of(f, dz2, same_other, false);
	if (d_hit != want && d_miss != want)
		return;
	for (uint32_t i = 0; i + 1 < n; i++) {
		uint32_t c2 = i < c ? i : i + 1;
		if ((c2 == cd ? d_hit : d_miss) != want)
			continue;
		if (l->n >= l->skip && l->n - l->skip < l->cap)
			l->ports[l->n - l->skip] = base + i;
		l->n++;
	}
}

/* Minimal next hops in closed form: topo_min_ports_by_distance's list
 * (network ports whose far end is one hop closer, in port order) from the
 * port blocks next_x, next_y, prev_x, prev_y, without a distance per port
 * (68 on an 18 x 18 x 3 FleX: most of `min`'s time per hop). */
static uint32_t flex_min_ports(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip, uint32_t *ports,
			       uint32_t cap)
{
	const struct topo_flex *f = t->state;
	uint32_t x, y, z, xd, yd, zd;
	topo_flex_xyz(f, r, &x, &y, &z);
	topo_flex_xyz(f, dst, &xd, &yd, &zd);
	uint32_t want = flex_distance_of(f, (zd + f->nz - z) % f->nz, x == xd, y == yd) - 1;
	/* Layer z + 1 is dz - 1 below dst, layer z - 1 is dz + 1 (mod nz). */
	uint32_t dz_up = (zd + 2 * f->nz - z - 1) % f->nz, dz_down = (zd + f->nz - z + 1) % f->nz;
	struct flex_min_list l = {ports, skip, cap, 0};
	flex_min_block(f, &l, want, f->next_x, x, f->nx, xd, dz_up, true, y == yd);
	flex_min_block(f, &l, want, f->next_y, y, f->ny, yd, dz_up, false, x == xd);
	if (f->nz != 2) {
		flex_min_block(f, &l, want, f->prev_x, x, f->nx, xd, dz_down, true, y == yd);
		flex_min_block(f, &l, want, f->prev_y, y, f->ny, yd, dz_down, false, x == xd);
	}
	return l.n;
}

static int flex_coords(const struct topo *t, uint32_t r, uint32_t *c)
{
	topo_flex_xyz(t->state, r, &c[0], &c[1], &c[2]);
	return 3;
}

/* A layer is a group (seed 000 §IV-B, Fig. 12). */
static void flex_groups(const struct topo *t, uint32_t *n_groups, uint32_t *group_routers)
{
	const struct topo_flex *f = t->state;
	*n_groups = f->nz;
	*group_routers = f->nx * f->ny;
}

const struct topo_ops topo_flex_ops = {
	.name = "flex",
	.help = "FleX: Nz layers of Nx x Ny routers, cross-like links between adjacent layers (seed 000 §III)",
	.params = flex_params_def,
	.params_size = sizeof(struct flex_params),
	.state_size = sizeof(struct topo_flex),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = flex_build,
	.distance = flex_distance,
	.min_ports = flex_min_ports,
	.coords = flex_coords,
	.groups = flex_groups,
};
