/* hotspot: traffic concentrated on a few endpoints,
 * "hotspot:nodes=0/63,rates=1/1,frac=1".
 *
 * BookSim2's hotspot: each packet goes to one of `nodes`, chosen with
 * probability proportional to `rates` (equal when omitted). With frac < 1
 * only that fraction of packets goes to the hot spots and the rest is
 * uniform random (a hot spot over uniform background, Dally & Towles 3.2).
 */
#include "traffic/traffic.h"

#include "core/error.h"
#include "core/rng.h"

struct hotspot_params {
	struct param_vec nodes;
	struct param_vec rates;
	double frac;
};

static const struct param_def hotspot_params_def[] = {
	{"nodes", PARAM_LIST, offsetof(struct hotspot_params, nodes), "0", 0, 0,
	 "hot-spot endpoints, each once, e.g. 0/63", NULL},
	{"rates", PARAM_LIST, offsetof(struct hotspot_params, rates), "1", 1, 1e9,
	 "relative weight of each hot spot (one value = all equal)", NULL},
	{"frac", PARAM_DOUBLE, offsetof(struct hotspot_params, frac), "1", 0, 1,
	 "fraction of packets sent to hot spots; the rest are uniform", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct hotspot_state {
	int64_t total; /* sum of weights */
};

static int hotspot_init(struct traffic *tr, struct nl_err *err)
{
	const struct hotspot_params *p = tr->params;
	struct hotspot_state *s = tr->state;

	if (p->rates.n != 1 && p->rates.n != p->nodes.n)
		return nl_errf(err, NL_EINVAL,
			       "traffic 'hotspot': parameter 'rates' has %d values for %d nodes (give one or one per node)",
			       p->rates.n, p->nodes.n);
	for (int i = 0; i < p->nodes.n; i++)
		if (p->nodes.v[i] < 0 || p->nodes.v[i] >= tr->n_active)
			return nl_errf(err, NL_ERANGE,
				       "traffic 'hotspot': parameter 'nodes' value %lld is not an endpoint (0..%u)",
				       (long long)p->nodes.v[i], tr->n_active - 1);
	/* A node listed twice was drawn with the sum of its weights, which
	 * 'rates' says in one place ('nodes=0/0' is 'nodes=0'). */
	for (int i = 1; i < p->nodes.n; i++)
		for (int k = 0; k < i; k++)
			if (p->nodes.v[k] == p->nodes.v[i]) {
				char v[PARAM_STR_MAX];
				param_format(&hotspot_params_def[0], p, v, sizeof v);
				return nl_errf(err, NL_EINVAL,
					       "traffic 'hotspot': parameter 'nodes' value '%s': endpoint %lld given twice; "
					       "expected each endpoint once (weigh them with 'rates')",
					       v, (long long)p->nodes.v[i]);
			}
	s->total = 0;
	for (int i = 0; i < p->nodes.n; i++)
		s->total += p->rates.n == 1 ? p->rates.v[0] : p->rates.v[i];
	return 0;
}

static uint32_t hotspot_dest(const struct traffic *tr, uint32_t src, struct rng *rng)
{
	const struct hotspot_params *p = tr->params;
	const struct hotspot_state *s = tr->state;
	(void)src;
	if (p->frac < 1 && rng_uniform(rng) >= p->frac)
		return (uint32_t)rng_below(rng, tr->n_active);
	int64_t pick = (int64_t)rng_below(rng, (uint64_t)s->total);
	for (int i = 0; i < p->nodes.n; i++) {
		pick -= p->rates.n == 1 ? p->rates.v[0] : p->rates.v[i];
		if (pick < 0)
			return (uint32_t)p->nodes.v[i];
	}
	return (uint32_t)p->nodes.v[p->nodes.n - 1];
}

const struct traffic_ops traffic_hotspot_ops = {
	.name = "hotspot",
	.help = "packets to a few hot-spot endpoints, optionally over uniform background (BookSim2)",
	.params = hotspot_params_def,
	.params_size = sizeof(struct hotspot_params),
	.state_size = sizeof(struct hotspot_state),
	.init = hotspot_init,
	.dest = hotspot_dest,
};
