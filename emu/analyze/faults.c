/* Link-failure tolerance (FleX §III-B.4, Table 5, seed 000).
 *
 * For each trial, the physical router-router links are put in a random
 * order and removed in that order; the trial's threshold is the largest
 * number of removed links that leaves the routers connected. Adding the
 * links back in reverse order to a union-find finds it in one pass: the
 * graph first becomes connected when link perm[i] is added, so removing
 * perm[0..r-1] keeps it connected iff r <= i.
 */
#include "analyze/analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "topo/topo.h"

#define FAULT_RNG_BASE 0x4641554c00000000ull /* "FAUL" << 32 | trial */

static uint32_t fault_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]]; /* path halving */
		x = parent[x];
	}
	return x;
}

/* A trial shuffles the links, clears a union-find over the routers and
 * adds links back until connected: about routers + links steps at random
 * addresses. A release build ran dln:n=1000000,d=8 (5 x 10^6 of them)
 * 100 trials in 25 s, 2 x 10^7 steps a second, torus:k=256x256 5 x 10^7;
 * taken at half the slower: --trials 1000000 on that dln was 2.9 days. */
int analyze_link_faults_check(uint32_t routers, uint64_t links, const struct analyze_fault_opts *o,
			      struct nl_err *err)
{
	static const struct analyze_repeats trials = {"--faults", "trial", "trial", "--trials", "links",
						       ANALYZE_FAULT_STEPS_PER_S};
	return analyze_repeats_check(&trials, o && o->trials ? o->trials : 100, routers, links, err);
}

int analyze_link_faults(const struct topo *t, const struct analyze_fault_opts *o,
			struct analyze_faults *out, struct nl_err *err)
{
	uint32_t n = t->n_routers;
	uint32_t *la = NULL, *lb = NULL, *perm = NULL, *parent = NULL, *size = NULL;
	int rc = 0;

	memset(out, 0, sizeof *out);
	out->trials = o && o->trials ? o->trials : 100;
	out->step_pct = o && o->step_pct ? o->step_pct : 5;
	if (out->step_pct > 100)
		return nl_errf(err, NL_EINVAL, "fault step %u%% is more than 100%%", out->step_pct);
	out->n_steps = 100 / out->step_pct + 1;
	if (out->n_steps > ANALYZE_FAULT_MAX_STEPS)
		out->n_steps = ANALYZE_FAULT_MAX_STEPS;
	/* Removing every link disconnects any graph of 2+ routers; one router
	 * (no router-router links) stays connected at 100% too. */
	if ((out->n_steps - 1) * out->step_pct == 100 && t->n_routers > 1)
		out->n_steps--;

	uint64_t m = 0;
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (topo_port_is_network(t, g) && t->peer[g] > g && t->port_router[t->peer[g]] != t->port_router[g])
			m++;
	if (m >= UINT32_MAX)
		return nl_errf(err, NL_ERANGE, "%s: %llu links is too many for the fault analysis", t->spec,
			       (unsigned long long)m);
	NL_CHECK(analyze_link_faults_check(n, m, o, err));
	out->links = m;
	la = malloc((size_t)(m ? m : 1) * sizeof *la);
	lb = malloc((size_t)(m ? m : 1) * sizeof *lb);
	perm = malloc((size_t)(m ? m : 1) * sizeof *perm);
	parent = malloc((size_t)n * sizeof *parent);
	size = malloc((size_t)n * sizeof *size);
	if (!la || !lb || !perm || !parent || !size) {
		rc = nl_errf(err, NL_ENOMEM, "%s: out of memory for the fault analysis", t->spec);
		goto done;
	}
	uint32_t k = 0;
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (topo_port_is_network(t, g) && t->peer[g] > g && t->port_router[t->peer[g]] != t->port_router[g]) {
			la[k] = t->port_router[g];
			lb[k] = t->port_router[t->peer[g]];
			k++;
		}
	for (uint32_t s = 0; s < out->n_steps; s++)
		/* round(m * s * step / 100), half up */
		out->removed[s] = (m * s * out->step_pct * 2 + 100) / 200;

	struct progress pg;
	progress_init(&pg, "link faults");
	for (uint32_t trial = 0; trial < out->trials; trial++) {
		char detail[48];
		snprintf(detail, sizeof detail, "trial %u of %u", trial + 1, out->trials);
		progress_update(&pg, (double)trial / out->trials, detail);
		struct rng r;
		rng_init(&r, o ? o->seed : 0, RNG_CLASS_ANALYSIS, FAULT_RNG_BASE | trial);
		for (uint32_t i = 0; i < k; i++)
			perm[i] = i;
		rng_shuffle_u32(&r, perm, k);
		for (uint32_t v = 0; v < n; v++) {
			parent[v] = v;
			size[v] = 1;
		}
		uint32_t comps = n;
		int64_t threshold = comps == 1 ? (int64_t)k : -1;
		for (uint32_t i = k; i-- > 0 && comps > 1;) {
			uint32_t a = fault_find(parent, la[perm[i]]), b = fault_find(parent, lb[perm[i]]);
			if (a == b)
				continue;
			if (size[a] < size[b]) {
				uint32_t x = a;
				a = b;
				b = x;
			}
			parent[b] = a;
			size[a] += size[b];
			if (--comps == 1)
				threshold = i; /* perm[i..k-1] present: first connected */
		}
		for (uint32_t s = 0; s < out->n_steps; s++)
			if ((int64_t)out->removed[s] <= threshold)
				out->connected[s]++;
	}
	progress_done(&pg);
	out->tolerance_pct = -1;
	for (uint32_t s = 0; s < out->n_steps; s++)
		if (2 * out->connected[s] > out->trials)
			out->tolerance_pct = (int)(s * out->step_pct);
done:
	free(la);
	free(lb);
	free(perm);
	free(parent);
	free(size);
	return rc;
}
