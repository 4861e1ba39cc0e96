/* flexmin: FleX minimal routing (Jeon et al., IEEE Access 2022, seed 000
 * §III-C1, Algorithm 1), "flexmin:paths=auto".
 *
 * `paths=alg1` is Algorithm 1 as printed, for the 3-layer FleX it is written
 * for (nz = 3, nx, ny >= 3, the assumption of §III-C): at current router
 * (xc, yc, zc) towards (xd, yd, zd)
 *   zc = zd, xc = xd:  (xc, y', zc - 1), y' drawn uniformly, y' != yc, yd;
 *   zc = zd, yc = yd:  (x', yc, zc - 1), x' != xc, xd;
 *   zc = zd, else:     (xc, yd, zc - 1)                  (align y first);
 *   zc != zd, xc = xd and yc = yd: (x', yd, z'), x' != xc, z' != zc, zd;
 *   zc != zd, xc = xd or yc = yd:  the destination (a direct link);
 *   zc != zd, else:    (xc, yd, z'), z' != zc, zd.
 * "select one" is a uniform draw from the router's stream at every hop.
 * Algorithm 1's "while (vc = vd)" is read as "while vc != vd", and
 * "(zc + Nz - 1) mod Nz" is the previous layer.
 *
 * `paths=all` draws uniformly, at every hop, among all minimal next hops
 * (topo_min_ports: every port one hop closer), i.e. also the detouring
 * minimal paths the text lists beside Algorithm 1 (either neighbouring
 * layer, either axis first: 4 paths when both x and y differ in the same
 * layer, 2(N-2) when one does). It runs on every flex instance, which is
 * why `paths=auto` (the default) is alg1 where Algorithm 1 applies and all
 * elsewhere. `min` on flex is not Algorithm 1: its `hash` selection fixes
 * one port per flow and router, `first` the lowest; neither draws per
 * packet.
 *
 * Deadlock freedom: VC class per hop, as min (Dally & Towles §14.3): a
 * packet that has taken h router-to-router hops uses class h < D, so every
 * channel dependency goes from class h to h + 1 (acyclic). num_vcs >= the
 * diameter D (2 on the 3-layer FleX); each class gets num_vcs / D VCs.
 */
#include "route/route.h"
#include "route/route_internal.h"

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"
#include "topo/topo_flex.h"

static const char *const flexmin_families[] = {"flex", NULL};

enum { FM_AUTO, FM_ALG1, FM_ALL };
static const char *const flexmin_paths_names[] = {"auto", "alg1", "all", NULL};

struct flexmin_params {
	int paths;
};

static const struct param_def flexmin_params_def[] = {
	{"paths", PARAM_CHOICE, offsetof(struct flexmin_params, paths), "auto", 0, 0,
	 "alg1 (Algorithm 1 as printed: nz = 3, nx, ny >= 3), all (uniform among every minimal next hop), "
	 "auto (alg1 where it applies, else all)",
	 flexmin_paths_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

#define FM_PORTS 64u

struct flexmin_state {
	int alg1;
	uint32_t class_w; /* VCs per hop class */
};

static int flexmin_init(struct route *r, struct nl_err *err)
{
	const struct flexmin_params *pr = r->params;
	struct flexmin_state *s = r->state;
	const struct topo_flex *f = topo_flex_of(r->topo);
	uint32_t diameter;

	if (!f)
		return nl_errf(err, NL_EUNSUPPORTED, "routing function 'flexmin': topology '%s' is not flex",
			       r->topo->ops->name);
	bool alg1_ok = f->nz == 3 && f->nx >= 3 && f->ny >= 3;
	if (pr->paths == FM_ALG1 && !alg1_ok)
		return nl_errf(err, NL_ECONFIG,
			       "routing function 'flexmin': paths=alg1 is Algorithm 1 for 3 layers with nx, ny >= 3 "
			       "(seed 000 §III-C), got nx=%u ny=%u nz=%u; expected paths=all",
			       f->nx, f->ny, f->nz);
	s->alg1 = pr->paths == FM_ALG1 || (pr->paths == FM_AUTO && alg1_ok);
	NL_CHECK(topo_diameter(r->topo, &diameter, err));
	if (diameter == 0 || diameter > 254)
		return nl_errf(err, NL_EINVAL, "routing function 'flexmin': diameter %u out of range", diameter);
	if (r->n_vcs < diameter)
		return route_vcs_errf(r, err,
				      "routing function 'flexmin' needs num_vcs >= the diameter %u (one VC class per hop), got %u",
				      diameter, r->n_vcs);
	s->class_w = r->n_vcs / diameter;
	r->max_cands = 1;
	return 0;
}

static void flexmin_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			   uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

/* Index of coordinate `to` among the n - 1 values other than `own`. */
static inline uint32_t fm_idx(uint32_t to, uint32_t own)
{
	return to < own ? to : to - 1;
}

/* A uniform value of [0, n) other than a and b (a may equal b). */
static uint32_t fm_other(uint32_t n, uint32_t a, uint32_t b, struct rng *rng)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
	uint32_t k = (uint32_t)rng_below(rng, n - 1 - (lo != hi));
	if (k >= lo)
		k++;
	if (lo != hi && k >= hi)
		k++;
	return k;
}

/* Algorithm 1's next hop from router c towards d (c != d), as a local
 * port. */
static uint32_t fm_alg1_port(const struct topo_flex *f, uint32_t c, uint32_t d, struct rng *rng)
{
	uint32_t xc, yc, zc, xd, yd, zd;
	topo_flex_xyz(f, c, &xc, &yc, &zc);
	topo_flex_xyz(f, d, &xd, &yd, &zd);
	if (zc == zd) {
		/* All three cases go to the previous layer, (zc + Nz - 1) mod Nz. */
		if (xc == xd)
			return f->prev_y + fm_idx(fm_other(f->ny, yc, yd, rng), yc);
		if (yc == yd)
			return f->prev_x + fm_idx(fm_other(f->nx, xc, xd, rng), xc);
		return f->prev_y + fm_idx(yd, yc);
	}
	/* With three layers the layer other than zc and zd is z'. */
	uint32_t znext = (zc + 1) % f->nz;
	if (xc == xd && yc == yd) {
		uint32_t zi = 3 - zc - zd; /* the third layer */
		uint32_t xi = fm_other(f->nx, xc, xc, rng);
		return (zi == znext ? f->next_x : f->prev_x) + fm_idx(xi, xc);
	}
	if (xc == xd)
		return (zd == znext ? f->next_y : f->prev_y) + fm_idx(yd, yc);
	if (yc == yd)
		return (zd == znext ? f->next_x : f->prev_x) + fm_idx(xd, xc);
	uint32_t zi = 3 - zc - zd;
	return (zi == znext ? f->next_y : f->prev_y) + fm_idx(yd, yc);
}

static int flexmin_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			   struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct flexmin_state *s = r->state;
	(void)in_port;
	(void)in_vc;
	(void)v;

	if (router == p->dst_router)
		return route_eject(r, p, out);
	uint32_t port;
	if (s->alg1) {
		port = fm_alg1_port(topo_flex_of(r->topo), router, p->dst_router, rng);
	} else {
		uint32_t ports[FM_PORTS];
		uint32_t n = topo_min_ports(r->topo, router, p->dst_router, 0, ports, FM_PORTS);
		uint32_t pick = (uint32_t)rng_below(rng, n);
		if (pick >= FM_PORTS)
			topo_min_ports(r->topo, router, p->dst_router, pick, ports, 1);
		port = ports[pick < FM_PORTS ? pick : 0];
	}
	uint32_t lo = (uint32_t)p->hops * s->class_w;
	out->port = (uint16_t)port;
	out->vc_lo = (uint8_t)lo;
	out->vc_hi = (uint8_t)(lo + s->class_w - 1);
	out->prio = 0;
	return 1;
}

const struct route_ops route_flexmin_ops = {
	.name = "flexmin",
	.help = "FleX minimal routing, Algorithm 1 with a uniform draw at each choice, or uniform among all minimal "
		"next hops (Jeon et al. 2022, seed 000 §III-C1), VC class per hop",
	.params = flexmin_params_def,
	.params_size = sizeof(struct flexmin_params),
	.state_size = sizeof(struct flexmin_state),
	.families = flexmin_families,
	.is_deterministic = false,
	.init = flexmin_init,
	.inject = flexmin_inject,
	.compute = flexmin_compute,
};
