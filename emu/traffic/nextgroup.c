/* nextgroup: every endpoint sends to a random endpoint of the next group,
 * "nextgroup".
 *
 * The worst case of a dragonfly (Kim et al. 2008: all of a group's traffic
 * crosses the single global channel to the next group), and its analogue
 * on FleX, where a layer plays the group (seed 000 §IV-B, Fig. 12: "each
 * router sends packets only to the routers in the next group"). Groups are
 * the topology's (topo_groups: the dragonfly's groups, FleX's layers), each
 * a contiguous block of routers with endpoints numbered router-major; the
 * last group sends to the first.
 */
#include "traffic/traffic.h"

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"

static const struct param_def nextgroup_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct nextgroup_state {
	uint32_t group_routers; /* routers per group */
	uint32_t n_groups;
	uint32_t p;             /* endpoints per router */
};

static int nextgroup_init(struct traffic *tr, struct nl_err *err)
{
	const struct topo *t = tr->topo;
	struct nextgroup_state *s = tr->state;

	if (!topo_groups(t, &s->n_groups, &s->group_routers))
		return nl_errf(err, NL_EUNSUPPORTED,
			       "traffic 'nextgroup' needs a topology with groups (dragonfly, flex), not '%s'",
			       t->ops->name);
	s->p = t->n_endpoints / t->n_routers;
	if (s->p == 0 || (uint64_t)s->group_routers * s->n_groups * s->p != t->n_endpoints)
		return nl_errf(err, NL_EUNSUPPORTED, "traffic 'nextgroup': topology '%s' has no endpoints on every router",
			       t->ops->name);
	for (uint32_t e = 0; e < t->n_endpoints; e++)
		if (topo_ep_router(t, e) != e / s->p)
			NL_BUG("nextgroup: endpoints of '%s' are not numbered router-major", t->ops->name);
	return 0;
}

static uint32_t nextgroup_dest(const struct traffic *tr, uint32_t src, struct rng *rng)
{
	const struct nextgroup_state *s = tr->state;
	uint32_t group = src / s->p / s->group_routers;
	uint32_t next = group + 1 == s->n_groups ? 0 : group + 1;
	uint32_t per_group = s->group_routers * s->p;
	return next * per_group + (uint32_t)rng_below(rng, per_group);
}

const struct traffic_ops traffic_nextgroup_ops = {
	.name = "nextgroup",
	.help = "to a random endpoint of the next dragonfly group / FleX layer (seed 000 Fig. 12)",
	.params = nextgroup_params,
	.state_size = sizeof(struct nextgroup_state),
	.init = nextgroup_init,
	.dest = nextgroup_dest,
};
