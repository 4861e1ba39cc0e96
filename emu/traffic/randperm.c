/* randperm: a random permutation of the endpoints, "randperm:perm_seed=0".
 *
 * Dally & Towles §3.2; BookSim2's randperm. The permutation is drawn once
 * from (run seed, perm_seed) with a Fisher-Yates shuffle, so the same
 * seeds give the same pairs.
 */
#include "traffic/traffic.h"

#include <stdlib.h>

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"

struct randperm_params {
	int64_t perm_seed;
};

static const struct param_def randperm_params_def[] = {
	{"perm_seed", PARAM_INT, offsetof(struct randperm_params, perm_seed), "0", 0, 0,
	 "seed of the permutation (mixed with the run seed)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct randperm_state {
	uint32_t *perm;
};

static int randperm_init(struct traffic *tr, struct nl_err *err)
{
	const struct randperm_params *p = tr->params;
	struct randperm_state *s = tr->state;
	struct rng r;

	s->perm = malloc((size_t)tr->n_active * sizeof *s->perm);
	if (!s->perm)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < tr->n_active; i++)
		s->perm[i] = i;
	rng_init(&r, tr->seed ^ (uint64_t)p->perm_seed * 0x9e3779b97f4a7c15ULL, RNG_CLASS_TRAFFIC, 0);
	rng_shuffle_u32(&r, s->perm, tr->n_active);
	return 0;
}

static void randperm_release(struct traffic *tr)
{
	struct randperm_state *s = tr->state;
	free(s->perm);
	s->perm = NULL;
}

static uint32_t randperm_dest(const struct traffic *tr, uint32_t src, struct rng *rng)
{
	const struct randperm_state *s = tr->state;
	(void)rng;
	return s->perm[src];
}

const struct traffic_ops traffic_randperm_ops = {
	.name = "randperm",
	.help = "fixed random permutation of endpoints (Dally & Towles 3.2)",
	.params = randperm_params_def,
	.params_size = sizeof(struct randperm_params),
	.state_size = sizeof(struct randperm_state),
	.init = randperm_init,
	.release = randperm_release,
	.dest = randperm_dest,
};
