/* amin: adaptive minimal routing on Equality networks, "amin".
 *
 * Liang et al., J. Supercomputing 2023 (seed 002) §3.5.1: packets take
 * shortest paths only, from the relative routing table R^ (§3.4, eq. 2:
 * router 0's shortest first hops, carried to every router by the
 * even/odd rule; eq_rprime.c), at each router the minimal port with the
 * shortest output queue, ties at random. VC k on hop k (§3.5,
 * "Deadlocks"): acyclic channel dependencies; needs num_vcs >= the
 * diameter and refuses fewer. O(N x K) bits of state, whatever the
 * number of endpoints.
 */
#include "route/eq_rprime.h"

static const char *const amin_families[] = {"equality", NULL};

static int amin_init(struct route *r, struct nl_err *err)
{
	return eq_route_init(r, r->state, false, 0, err);
}

const struct route_ops route_amin_ops = {
	.name = "amin",
	.help = "Equality adaptive minimal: shortest paths of the relative table R', least-queued port, VC k on hop k (seed 002 3.5.1)",
	.state_size = sizeof(struct eq_route),
	.families = amin_families,
	.is_deterministic = false,
	.init = amin_init,
	.release = eq_route_release,
	.inject = eq_route_inject,
	.compute = eq_route_compute,
};
