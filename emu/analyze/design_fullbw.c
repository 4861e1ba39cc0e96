/* Full-global-bandwidth configurations of FleX, Dragonfly and Slim Fly
 * for N terminals and radix R (FleX §III-B, seed 000).
 *
 * §III-B sets each family's concentration p for full global bandwidth:
 *   FleX:      Nx = Ny = n, p = floor(k/3) = the 2(n-1) links each router
 *              has to the next layer, so k = 6(n-1); layers Nz >= 3,
 *              odd for n = 2 (2 x 2 layers with an even Nz split in two).
 *   Dragonfly: a = 2p = 2h, so k = p + (a-1) + h = 4h - 1; g <= a h + 1.
 *   Slim Fly:  MMS graph of prime power q = 4w + delta, network radix
 *              k' = (3q - delta)/2, p = ceil(k'/2) (Besta & Hoefler, FleX
 *              ref. [4]; FleX Table 6 uses q = 9, p = 7 - 1).
 * For each shape (n, h or q) with k <= R the smallest configuration
 * reaching N terminals is built and its diameter measured.
 */
#include "analyze/analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "topo/topo.h"

struct cfg_list {
	struct analyze_cfg *v;
	size_t n, cap;
	bool is_dry;               /* only add up the ports that would be built */
	bool wants_spec;           /* dry: keep the smallest's spec (the generators skip formatting it) */
	uint64_t work;             /* dry: router ports (routers x radix) of every configuration */
	uint64_t fewest_endpoints; /* dry: the fewest endpoints of a configuration queued, 0 = none */
	char fewest_spec[160];     /* dry, wants_spec: that configuration */
};

/* A generator formats a configuration's spec only when it is kept: a dry
 * pass counting ports needs none (fullbw_reach_listable runs many). */
static bool cfg_wants_spec(const struct cfg_list *l)
{
	return !l->is_dry || l->wants_spec;
}

/* Queue `spec` (routers x radix ports, `endpoints` terminals) for the
 * listing: a dry pass only counts its ports and notes the smallest;
 * otherwise it is built and its diameter measured. */
static int cfg_push(struct cfg_list *l, const char *spec, uint32_t p, uint64_t ports, uint64_t endpoints,
		    struct nl_err *err)
{
	if (l->is_dry) {
		l->work = ports < UINT64_MAX / 4 - l->work ? l->work + ports : UINT64_MAX / 4; /* saturating */
		if (!l->fewest_endpoints || endpoints < l->fewest_endpoints) {
			l->fewest_endpoints = endpoints;
			if (l->wants_spec)
				snprintf(l->fewest_spec, sizeof l->fewest_spec, "%s", spec);
		}
		return 0;
	}
	struct topo *t;
	struct analyze_graph g;
	uint32_t diameter;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct analyze_cfg *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return nl_errf(err, NL_ENOMEM, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	/* A configuration the family refuses (NL_EINVAL, NL_ERANGE: a rule
	 * of its own the generator did not apply) is left out of the listing
	 * instead of failing it; anything else (out of memory, an unknown
	 * family) still fails. */
	int rc = topo_new(spec, &t, err);
	if (rc == NL_EINVAL || rc == NL_ERANGE) {
		nl_err_clear(err);
		return 0;
	}
	NL_CHECK(rc);
	rc = analyze_graph_init(&g, t, err);
	if (rc < 0) {
		topo_free(t);
		return rc;
	}
	/* The family's exact diameter: dragonfly's closed form, one BFS
	 * for vertex-transitive FleX, one per orbit for Slim Fly (never the
	 * all-sources or sampled distances of analyze_distances). */
	rc = topo_diameter(t, &diameter, err);
	if (rc == 0) {
		struct analyze_cfg *c = &l->v[l->n++];
		memset(c, 0, sizeof *c);
		snprintf(c->spec, sizeof c->spec, "%s", spec);
		c->routers = t->n_routers;
		c->endpoints = t->n_endpoints;
		c->links = g.links;
		c->physical_links = g.phys_links;
		c->radix = topo_max_radix(t);
		c->p = p;
		c->diameter = diameter;
	}
	analyze_graph_release(&g);
	topo_free(t);
	return rc;
}

static int cfg_flex(struct cfg_list *l, uint64_t N, uint32_t R, struct nl_err *err)
{
	char spec[160] = "";
	for (uint64_t n = 2; 6 * (n - 1) <= R; n++) {
		uint64_t p = 2 * (n - 1), per_layer = n * n * p;
		uint64_t nz = (N + per_layer - 1) / per_layer;
		if (nz < 3)
			nz = 3;
		/* Nx = Ny = 2 with an even Nz splits into two halves (x + y + z
		 * keeps its parity along every hop): take the next odd Nz. */
		if (n == 2 && nz % 2 == 0)
			nz++;
		if (nz > 65535 || n * n * nz > (1u << 24))
			continue; /* beyond what the family builds (nz <= 65535) or a listing should */
		if (cfg_wants_spec(l))
			snprintf(spec, sizeof spec, "flex:nx=%llu,ny=%llu,nz=%llu,p=%llu", (unsigned long long)n,
				 (unsigned long long)n, (unsigned long long)nz, (unsigned long long)p);
		NL_CHECK(cfg_push(l, spec, (uint32_t)p, n * n * nz * 6 * (n - 1), n * n * nz * p, err));
	}
	return 0;
}

static int cfg_dragonfly(struct cfg_list *l, uint64_t N, uint32_t R, struct nl_err *err)
{
	char spec[160] = "";
	for (uint64_t h = 1; 4 * h - 1 <= R; h++) {
		uint64_t a = 2 * h, p = h, gmax = a * h + 1;
		uint64_t g = (N + a * p - 1) / (a * p);
		if (g < 2)
			g = 2;
		if (g > gmax)
			continue; /* this h cannot reach N terminals */
		if (cfg_wants_spec(l))
			snprintf(spec, sizeof spec, "dragonfly:a=%llu,p=%llu,h=%llu,g=%llu", (unsigned long long)a,
				 (unsigned long long)p, (unsigned long long)h, (unsigned long long)g);
		NL_CHECK(cfg_push(l, spec, (uint32_t)p, a * g * (4 * h - 1), a * g * p, err));
	}
	return 0;
}

/* q = prime^m, m >= 1. */
static bool cfg_prime_power(uint64_t q)
{
	if (q < 2)
		return false;
	uint64_t f = 0;
	for (uint64_t d = 2; d * d <= q; d++)
		if (q % d == 0) {
			f = d;
			break;
		}
	if (!f)
		return true;
	while (q % f == 0)
		q /= f;
	return q == 1;
}

static int cfg_slimfly(struct cfg_list *l, uint64_t N, uint32_t R, struct nl_err *err)
{
	char spec[160] = "";
	for (uint64_t q = 3;; q++) {
		/* q = 4w + delta: q mod 4 is 1, 0 or 3 for delta = 1, 0, -1. */
		int64_t delta = q % 4 == 1 ? 1 : q % 4 == 0 ? 0 : -1;
		if (q % 4 == 2 || !cfg_prime_power(q))
			continue;
		uint64_t kn = (uint64_t)((3 * (int64_t)q - delta) / 2); /* k' = (3q - delta)/2 */
		uint64_t p = (kn + 1) / 2;
		if (kn + p > R)
			break; /* k grows with q */
		if (2 * q * q * p < N)
			continue;
		if (cfg_wants_spec(l))
			snprintf(spec, sizeof spec, "slimfly:q=%llu,p=%llu", (unsigned long long)q,
				 (unsigned long long)p);
		NL_CHECK(cfg_push(l, spec, (uint32_t)p, 2 * q * q * (kn + p), 2 * q * q * p, err));
	}
	return 0;
}

/* One shape's reach: the most terminals its generator above lists (the
 * fewest groups or layers reaching N; here the most the family and the
 * listing allow), and the router ports of its smallest configuration. */
struct reach_shape {
	uint64_t terminals, least_ports;
};

struct reach_ctx {
	struct analyze_fullbw_reach *out; /* the largest shape's terminals and spec */
	struct reach_shape *v;            /* every shape within the radix */
	size_t n, cap;
	bool is_oom;
};

static void reach_keep(struct reach_ctx *c, uint64_t terminals, uint64_t least_ports, const char *spec)
{
	struct analyze_fullbw_reach *o = c->out;
	if (terminals > o->max_terminals) {
		o->max_terminals = terminals;
		snprintf(o->max_spec, sizeof o->max_spec, "%s", spec);
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct reach_shape *v = realloc(c->v, cap * sizeof *v);
		if (!v) {
			c->is_oom = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = (struct reach_shape){terminals, least_ports};
}

static void reach_flex(uint32_t R, struct reach_ctx *c)
{
	char spec[160];
	c->out->min_radix = 6; /* n = 2: k = 6 (n - 1) */
	for (uint64_t n = 2; 6 * (n - 1) <= R; n++) {
		uint64_t p = 2 * (n - 1), nz = (1u << 24) / (n * n);
		if (nz > 65535)
			nz = 65535;
		if (n == 2 && nz % 2 == 0)
			nz--;
		if (nz < 3)
			continue;
		snprintf(spec, sizeof spec, "flex:nx=%llu,ny=%llu,nz=%llu,p=%llu", (unsigned long long)n,
			 (unsigned long long)n, (unsigned long long)nz, (unsigned long long)p);
		reach_keep(c, n * n * nz * p, 3 * n * n * 6 * (n - 1), spec); /* least: nz = 3 */
	}
}

static void reach_dragonfly(uint32_t R, struct reach_ctx *c)
{
	char spec[160];
	c->out->min_radix = 3; /* h = 1: k = 4h - 1 */
	for (uint64_t h = 1; 4 * h - 1 <= R; h++) {
		uint64_t a = 2 * h, g = a * h + 1;
		snprintf(spec, sizeof spec, "dragonfly:a=%llu,p=%llu,h=%llu,g=%llu", (unsigned long long)a,
			 (unsigned long long)h, (unsigned long long)h, (unsigned long long)g);
		reach_keep(c, a * h * g, a * 2 * (4 * h - 1), spec); /* least: g = 2 */
	}
}

static void reach_slimfly(uint32_t R, struct reach_ctx *c)
{
	char spec[160];
	c->out->min_radix = 8; /* q = 3: k' = 5, p = 3 */
	for (uint64_t q = 3;; q++) {
		int64_t delta = q % 4 == 1 ? 1 : q % 4 == 0 ? 0 : -1;
		if (q % 4 == 2 || !cfg_prime_power(q))
			continue;
		uint64_t kn = (uint64_t)((3 * (int64_t)q - delta) / 2), p = (kn + 1) / 2;
		if (kn + p > R)
			break;
		snprintf(spec, sizeof spec, "slimfly:q=%llu,p=%llu", (unsigned long long)q, (unsigned long long)p);
		reach_keep(c, 2 * q * q * p, 2 * q * q * (kn + p), spec);
	}
}

/* The §III-B rule of each family, by the name `netloom design` takes. */
static const struct {
	const char *name;
	int (*gen)(struct cfg_list *l, uint64_t N, uint32_t R, struct nl_err *err);
	void (*reach)(uint32_t R, struct reach_ctx *c);
} fullbw_generators[] = {
	{"flex", cfg_flex, reach_flex},
	{"dragonfly", cfg_dragonfly, reach_dragonfly},
	{"slimfly", cfg_slimfly, reach_slimfly},
};

/* The listing for N at radix R, counted only: its router ports and its
 * smallest configuration (spec kept when wants_spec). */
static int fullbw_dry(int (*gen)(struct cfg_list *, uint64_t, uint32_t, struct nl_err *), uint64_t N, uint32_t R,
		      bool wants_spec, struct cfg_list *l, struct nl_err *err)
{
	*l = (struct cfg_list){.is_dry = true, .wants_spec = wants_spec};
	return gen(l, N, R, err);
}

static int reach_cmp_desc(const void *a, const void *b)
{
	const struct reach_shape *x = a, *y = b;
	return x->terminals < y->terminals ? 1 : x->terminals > y->terminals ? -1 : 0;
}

/* The most terminals a request gets listed: at most the largest shape's,
 * but analyze_fullbw_configs also refuses a listing of more than
 * ANALYZE_FULLBW_MAX_PORTS router ports, and at radix 40 FleX's largest,
 * flex:nx=7,ny=7,nz=65535,p=12, has 115,603,740 (the reason named it, and
 * the request it advised was refused). Between two consecutive shape
 * maxima the listing holds the same shapes, none smaller as N grows, so
 * its ports grow with N: from the top, the first such range whose lowest
 * N fits holds the answer, found by bisection. Going down adds shapes, at
 * least their smallest configurations' ports: once those pass the limit
 * no lower N fits, and the largest shape's count stays (every listing at
 * this radix is refused then). */
static int fullbw_reach_listable(int (*gen)(struct cfg_list *, uint64_t, uint32_t, struct nl_err *), uint32_t R,
				 struct reach_ctx *c, struct nl_err *err)
{
	struct cfg_list l;
	uint64_t least = 0; /* the smallest configurations' ports of the shapes in range */

	if (c->n == 0)
		return 0;
	NL_CHECK(fullbw_dry(gen, c->out->max_terminals, R, false, &l, err));
	if (l.work <= ANALYZE_FULLBW_MAX_PORTS) {
		c->out->is_listable = true;
		return 0;
	}
	qsort(c->v, c->n, sizeof *c->v, reach_cmp_desc);
	for (size_t i = 0; i < c->n; i++) {
		least += c->v[i].least_ports;
		if (least > ANALYZE_FULLBW_MAX_PORTS)
			return 0;
		uint64_t hi = c->v[i].terminals, lo = i + 1 < c->n ? c->v[i + 1].terminals + 1 : 1;
		if (lo > hi)
			continue; /* two shapes with the same maximum */
		NL_CHECK(fullbw_dry(gen, lo, R, false, &l, err));
		if (l.work > ANALYZE_FULLBW_MAX_PORTS)
			continue;
		while (lo < hi) { /* lo fits, hi + 1 does not */
			uint64_t mid = lo + (hi - lo + 1) / 2;
			NL_CHECK(fullbw_dry(gen, mid, R, false, &l, err));
			if (l.work <= ANALYZE_FULLBW_MAX_PORTS)
				lo = mid;
			else
				hi = mid - 1;
		}
		NL_CHECK(fullbw_dry(gen, lo, R, true, &l, err));
		c->out->max_terminals = lo;
		c->out->is_listable = true;
		snprintf(c->out->max_spec, sizeof c->out->max_spec, "%s", l.fewest_spec);
		return 0;
	}
	return 0;
}

static size_t fullbw_find(const char *family)
{
	size_t g = 0, n_gen = sizeof fullbw_generators / sizeof fullbw_generators[0];
	while (g < n_gen && strcmp(family, fullbw_generators[g].name))
		g++;
	return g;
}

/* The reach at radix R alone (analyze_fullbw_reach without the radix
 * below when nothing at R is listable). */
static int fullbw_reach_at(size_t g, uint32_t R, struct analyze_fullbw_reach *out, struct nl_err *err)
{
	struct reach_ctx c = {.out = out};

	memset(out, 0, sizeof *out);
	fullbw_generators[g].reach(R, &c);
	int rc = c.is_oom ? nl_errf(err, NL_ENOMEM, "design %s: out of memory", fullbw_generators[g].name)
			  : fullbw_reach_listable(fullbw_generators[g].gen, R, &c, err);
	free(c.v);
	return rc;
}

/* The largest radix in lo..hi at which fits(radix) holds, given it holds
 * at lo (0 when it does not): a listing at radix R holds the one at any
 * lower radix (configurations of at most R ports), so what fits the port
 * limit at R fits below it and a bisection finds the edge. */
struct fullbw_edge {
	size_t g;
	uint64_t N; /* fullbw_fits_n: the terminals asked for */
};

static int fullbw_fits_reach(const struct fullbw_edge *e, uint32_t R, bool *fits, struct nl_err *err)
{
	struct analyze_fullbw_reach r;
	NL_CHECK(fullbw_reach_at(e->g, R, &r, err));
	*fits = r.is_listable && r.max_terminals > 0;
	return 0;
}

static int fullbw_fits_n(const struct fullbw_edge *e, uint32_t R, bool *fits, struct nl_err *err)
{
	struct cfg_list l;
	NL_CHECK(fullbw_dry(fullbw_generators[e->g].gen, e->N, R, false, &l, err));
	*fits = l.work <= ANALYZE_FULLBW_MAX_PORTS;
	return 0;
}

static int fullbw_edge_radix(const struct fullbw_edge *e, int (*fits)(const struct fullbw_edge *, uint32_t, bool *,
								      struct nl_err *),
			     uint32_t lo, uint32_t hi, uint32_t *out, struct nl_err *err)
{
	bool ok;
	*out = 0;
	if (lo > hi)
		return 0;
	NL_CHECK(fits(e, lo, &ok, err));
	if (!ok)
		return 0;
	while (lo < hi) { /* lo fits, hi + 1 does not (or is past the range) */
		uint32_t mid = lo + (hi - lo + 1) / 2;
		NL_CHECK(fits(e, mid, &ok, err));
		if (ok)
			lo = mid;
		else
			hi = mid - 1;
	}
	*out = lo;
	return 0;
}

int analyze_fullbw_reach(const char *family, uint32_t R, struct analyze_fullbw_reach *out, struct nl_err *err)
{
	size_t g = fullbw_find(family);
	struct analyze_fullbw_reach below;

	memset(out, 0, sizeof *out);
	if (g == sizeof fullbw_generators / sizeof fullbw_generators[0])
		return nl_errf(err, NL_EINVAL, "design: unknown family '%s' (valid: flex, dragonfly, slimfly)", family);
	NL_CHECK(fullbw_reach_at(g, R, out, err));
	if (out->is_listable || !out->max_terminals)
		return 0;
	/* Every listing at R passes the limit (FleX past radix ~340): the
	 * largest shape's count, which the line gave, was then refused. */
	struct fullbw_edge e = {.g = g};
	NL_CHECK(fullbw_edge_radix(&e, fullbw_fits_reach, out->min_radix, R - 1, &out->listable_radix, err));
	if (out->listable_radix) {
		NL_CHECK(fullbw_reach_at(g, out->listable_radix, &below, err));
		out->listable_terminals = below.max_terminals;
		snprintf(out->listable_spec, sizeof out->listable_spec, "%s", below.max_spec);
	}
	return 0;
}

/* The limit's refusal of N at R, with advice that is then listed: the
 * largest lower radix whose listing of N fits and holds a configuration,
 * or the most terminals listed at R (or, when none is, at the largest
 * radix below where one is). */
static int fullbw_refuse(size_t g, uint64_t N, uint32_t R, uint64_t work, struct nl_err *err)
{
	const char *family = fullbw_generators[g].name;
	struct fullbw_edge e = {.g = g, .N = N};
	struct analyze_fullbw_reach r;
	struct cfg_list l;
	uint32_t radix = 0;
	char advice[256] = "fewer --terminals or a smaller --radix";

	NL_CHECK(fullbw_reach_at(g, R, &r, err));
	if (r.min_radix < R)
		NL_CHECK(fullbw_edge_radix(&e, fullbw_fits_n, r.min_radix, R - 1, &radix, err));
	if (radix)
		NL_CHECK(fullbw_dry(fullbw_generators[g].gen, N, radix, false, &l, err));
	if (radix && l.fewest_endpoints) /* a listing, not an empty one */
		snprintf(advice, sizeof advice, "--radix %u lists --terminals %llu within it", radix,
			 (unsigned long long)N);
	else if (r.is_listable && r.max_terminals && r.max_terminals < N)
		snprintf(advice, sizeof advice, "--terminals %llu or fewer (%s) at this radix",
			 (unsigned long long)r.max_terminals, r.max_spec);
	else {
		NL_CHECK(analyze_fullbw_reach(family, R, &r, err));
		if (!r.is_listable && r.listable_radix)
			snprintf(advice, sizeof advice, "--radix %u with --terminals %llu or fewer (%s)",
				 r.listable_radix, (unsigned long long)r.listable_terminals, r.listable_spec);
	}
	return nl_errf(err, NL_ERANGE,
		       "design %s: --radix %u with --terminals %llu builds %llu router ports; "
		       "expected at most %llu (seconds of work): %s",
		       family, R, (unsigned long long)N, (unsigned long long)work,
		       (unsigned long long)ANALYZE_FULLBW_MAX_PORTS, advice);
}

static int cfg_cmp(const void *a, const void *b)
{
	const struct analyze_cfg *x = a, *y = b;
	if (x->routers != y->routers)
		return x->routers < y->routers ? -1 : 1;
	return strcmp(x->spec, y->spec);
}

int analyze_fullbw_configs(const char *family, uint64_t N, uint32_t R, struct analyze_cfg **out,
			   size_t *n, struct nl_err *err)
{
	struct cfg_list l = {0};
	int rc;

	*out = NULL;
	*n = 0;
	if (N < 1)
		return nl_errf(err, NL_EINVAL, "design %s: --terminals must be at least 1", family);
	if (R < 2)
		return nl_errf(err, NL_EINVAL, "design %s: --radix %u: a router needs at least 2 ports", family, R);
	size_t g = 0, n_gen = sizeof fullbw_generators / sizeof fullbw_generators[0];
	while (g < n_gen && strcmp(family, fullbw_generators[g].name))
		g++;
	if (g == n_gen)
		return nl_errf(err, NL_EINVAL, "design: unknown family '%s' (valid: flex, dragonfly, slimfly)", family);
	/* Every listed configuration is built: refuse, before building any,
	 * a request whose configurations add up to more router ports than
	 * complete in seconds (all three families' sizes grow as R^2 to R^3
	 * per shape, and there are R/3 to R/6 shapes). */
	l.is_dry = true;
	rc = fullbw_generators[g].gen(&l, N, R, err);
	if (rc == 0 && l.work > ANALYZE_FULLBW_MAX_PORTS)
		rc = fullbw_refuse(g, N, R, l.work, err);
	l.is_dry = false;
	if (rc == 0)
		rc = fullbw_generators[g].gen(&l, N, R, err);
	if (rc < 0) {
		free(l.v);
		return rc;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof *l.v, cfg_cmp);
	*out = l.v;
	*n = l.n;
	return 0;
}
