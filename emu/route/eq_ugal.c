/* eq_ugal: Equality's UGAL, "eq_ugal".
 *
 * Liang et al., J. Supercomputing 2023 (seed 002) §3.5.2: at the source
 * router every shortest first hop (R^) and every sub-shortest first hop
 * (L_0j of R', §3.4) is weighed by its output queue x the length of its
 * path, and the least is taken (Singh's UGAL-L with the table's paths as
 * the non-minimal choices, not the generic `ugal`'s random Valiant
 * intermediate); the rest of the way is adaptive minimal (amin). R' and
 * the step: eq_rprime.c. VC k on hop k: acyclic; needs num_vcs >= 4 on a
 * diameter-2 network and diameter + 1 otherwise (§3.5, "Deadlocks"),
 * fewer are refused.
 */
#include <stdint.h>

#include "route/eq_rprime.h"

static const char *const eq_ugal_families[] = {"equality", NULL};

static int eq_ugal_init(struct route *r, struct nl_err *err)
{
	return eq_route_init(r, r->state, true, UINT32_MAX, err);
}

const struct route_ops route_eq_ugal_ops = {
	.name = "eq_ugal",
	.help = "Equality UGAL: shortest and sub-shortest first hops of R' by queue x hops at the source, VC k on hop k (seed 002 3.5.2)",
	.state_size = sizeof(struct eq_route),
	.families = eq_ugal_families,
	.is_deterministic = false,
	.init = eq_ugal_init,
	.release = eq_route_release,
	.inject = eq_route_inject,
	.compute = eq_route_compute,
};
