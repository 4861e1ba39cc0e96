/* foldedhypercube: "foldedhypercube:n=N[,p=1]" (seed 003 §4.1, ref. [15]
 * there: El-Amawy and Latifi's folded hypercube).
 *
 * The binary N-cube plus one link from every router to its most distant
 * one, the complement: port d (0 <= d < N) of router r goes to r ^ (1 <<
 * d), port N to r ^ (2^N - 1), then p terminal ports (topo_hypercube view
 * with folded set); endpoints router-major. Degree N + 1, diameter
 * ceil(N/2). Distance: with h = popcount(a ^ b), min(h, N + 1 - h) (use
 * the complement link at most once). Vertex-transitive (a Cayley graph of
 * Z_2^N).
 */
#include "topo/topo_internal.h"

#include "core/error.h"

struct fhypercube_params {
	int64_t n; /* dimensions */
	int64_t p; /* endpoints per router */
};

static const struct param_def fhypercube_params_def[] = {
	{"n", PARAM_INT, offsetof(struct fhypercube_params, n), NULL, 2, 24, "dimensions: 2^n routers of degree n+1",
	 NULL},
	{"p", PARAM_INT, offsetof(struct fhypercube_params, p), "1", 0, 4096, "endpoints per router", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int fhypercube_build(struct topo *t, struct nl_err *err)
{
	const struct fhypercube_params *pr = t->params;
	struct topo_hypercube *hc = t->state;
	uint32_t n = (uint32_t)pr->n, p = (uint32_t)pr->p, nr = 1u << n, mask = nr - 1;

	char given[64];
	snprintf(given, sizeof given, "parameters n=%u, p=%u", n, p);
	NL_CHECK(topo_size_check(t, given, nr, (double)nr * (n + 1 + p), (double)nr * p, err));
	NL_CHECK(topo_alloc(t, nr, NULL, n + 1 + p, nr * p, err));
	for (uint32_t r = 0; r < nr; r++) {
		for (uint32_t d = 0; d < n; d++)
			if (!(r & (1u << d)))
				topo_connect(t, r, d, r | (1u << d), d);
		if (r < (r ^ mask))
			topo_connect(t, r, n, r ^ mask, n);
		for (uint32_t i = 0; i < p; i++)
			topo_attach(t, r * p + i, r, n + 1 + i);
	}
	hc->n = (int)n;
	hc->folded = true;
	hc->p = p;
	hc->term_base = n + 1;
	return 0;
}

static uint32_t fhypercube_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	uint32_t h = (uint32_t)__builtin_popcount(a ^ b), n = (uint32_t)((const struct topo_hypercube *)t->state)->n;
	return h < n + 1 - h ? h : n + 1 - h;
}

const struct topo_ops topo_fhypercube_ops = {
	.name = "foldedhypercube",
	.help = "folded hypercube: n-cube plus a link to each router's complement, degree n+1 (seed 003 §4.1)",
	.params = fhypercube_params_def,
	.params_size = sizeof(struct fhypercube_params),
	.state_size = sizeof(struct topo_hypercube),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = fhypercube_build,
	.distance = fhypercube_distance,
};
