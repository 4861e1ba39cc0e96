/* Link-endpoint permutation (Fujiwara et al., "Swap-and-randomize", seed
 * 003 §3), the engine behind the p1, p2 and p3 families.
 *
 * Routers sit in cabinets (the base's packaging rule, or canonical order
 * with `cab` routers per cabinet; §4.1 uses 16). A swap takes two links
 * v1-v2 and v3-v4 and makes v1-v4 and v3-v2; it is made only when the four
 * routers are distinct, neither new link exists yet, and the two links'
 * cabinet pairs are the same before and after (so every cable keeps its
 * length: the multiset of links per cabinet pair is invariant). Links are
 * considered in groups; a group is shuffled and taken two links at a time,
 * each link once ("remove both links from consideration").
 *   two-cab (P2, §3.1): each cabinet's intra-cabinet links E_i, then the
 *     links E_ij between each pair of cabinets;
 *   three-cab (P3, §3.1): the E_i, then for every triad of cabinets the
 *     union E_ij + E_jk + E_ki, oriented so v1 and v3 share a cabinet;
 *   one-step (P1, §3.2): for every pair of cabinets E_ij + E_i + E_j,
 *     never swapping two intra-cabinet links of different cabinets.
 * Groups are visited in increasing cabinet order (triads by their
 * smallest linked cabinet pair, then the third cabinet; triads and pairs
 * without links are skipped as they cannot swap). A valid swap is made with
 * probability `frac` (§5.4, fraction of swappable links). Of `trials`
 * independent trials (random stream (seed, RNG_CLASS_TOPOLOGY, trial + 1))
 * the one with the lowest diameter, then the lowest average shortest path
 * length, is kept (§3.3), the earliest on ties; disconnected trials are
 * discarded.
 */
#include "topo/topo_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"

const struct param_def topo_perm_params_def[] = {
	{"base", PARAM_SPEC, offsetof(struct topo_perm_params, base), NULL, 0, 0,
	 "base topology, in parentheses after the family name, as in p2(torus:k=64x64)", NULL},
	{"trials", PARAM_INT, offsetof(struct topo_perm_params, trials), "20", 1, 100000,
	 "random trials; the lowest diameter, then average path length, is kept (§3.3)", NULL},
	{"cab", PARAM_INT, offsetof(struct topo_perm_params, cab), "0", 0, 1 << 24,
	 "routers per cabinet in canonical order; 0 = the base's packaging rule, else 16 (§4.1)", NULL},
	{"frac", PARAM_DOUBLE, offsetof(struct topo_perm_params, frac), "1", 0, 1,
	 "probability that a valid swap is made: the fraction of swappable links (§5.4)", NULL},
	{"seed", PARAM_INT, offsetof(struct topo_perm_params, seed), "1", 0, 0, "random seed", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* One trial's working state. Links are pairs of global ports (a[x], b[x]);
 * `slot` holds link ids grouped by cabinet pair (ranges fixed, as the
 * number of links per cabinet pair never changes), pos[x] is x's slot. */
struct perm {
	const struct topo *t; /* port_router of the base layout */
	const uint32_t *cab;  /* [router] cabinet */
	uint32_t n_links;
	uint32_t *a, *b;      /* [n_links] link ends (global ports) */
	uint32_t *slot, *pos; /* [n_links] */
	uint64_t *key;        /* [n_keys] sorted cabinet-pair keys */
	uint32_t *start;      /* [n_keys + 1] slot range of each key */
	uint32_t n_keys;
	uint32_t *group;      /* [n_links] scratch */
	struct topo_edgeset es;
	struct rng rng;
	double frac;
	uint64_t swaps;
};

static uint64_t perm_pair_key(uint32_t c1, uint32_t c2)
{
	return c1 < c2 ? ((uint64_t)c1 << 32) | c2 : ((uint64_t)c2 << 32) | c1;
}

static uint64_t perm_link_key(const struct perm *pm, uint32_t x)
{
	return perm_pair_key(pm->cab[pm->t->port_router[pm->a[x]]], pm->cab[pm->t->port_router[pm->b[x]]]);
}

/* Index of `key` in pm->key, or UINT32_MAX. */
static uint32_t perm_find(const struct perm *pm, uint64_t key)
{
	uint32_t lo = 0, hi = pm->n_keys;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pm->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pm->n_keys && pm->key[lo] == key ? lo : UINT32_MAX;
}

/* Append the links of cabinet pair (c1, c2) to group[*n]. */
static void perm_gather(struct perm *pm, uint32_t c1, uint32_t c2, uint32_t *n)
{
	uint32_t k = perm_find(pm, perm_pair_key(c1, c2));
	if (k == UINT32_MAX)
		return;
	for (uint32_t s = pm->start[k]; s < pm->start[k + 1]; s++)
		pm->group[(*n)++] = pm->slot[s];
}

/* Does replacing c1-c2, c3-c4 by c1-c4, c3-c2 keep the cabinet pairs? */
static bool perm_keeps(uint32_t c1, uint32_t c2, uint32_t c3, uint32_t c4)
{
	uint64_t o1 = perm_pair_key(c1, c2), o2 = perm_pair_key(c3, c4);
	uint64_t n1 = perm_pair_key(c1, c4), n2 = perm_pair_key(c3, c2);
	return (o1 == n1 && o2 == n2) || (o1 == n2 && o2 == n1);
}

/* Try to swap links x and y; returns <0 only on allocation failure. */
static int perm_try(struct perm *pm, uint32_t x, uint32_t y, struct nl_err *err)
{
	const uint32_t *pr = pm->t->port_router;
	uint64_t coin = rng_u64(&pm->rng);
	uint32_t p1 = pm->a[x], p2 = pm->b[x], p3 = pm->a[y], p4 = pm->b[y], tmp;

	if (coin & 1) {
		tmp = p1;
		p1 = p2;
		p2 = tmp;
	}
	if (coin & 2) {
		tmp = p3;
		p3 = p4;
		p4 = tmp;
	}
	uint32_t r1 = pr[p1], r2 = pr[p2], r3 = pr[p3], r4 = pr[p4];
	if (!perm_keeps(pm->cab[r1], pm->cab[r2], pm->cab[r3], pm->cab[r4])) {
		/* The other orientation of y (v1 and v3 in a shared cabinet). */
		tmp = p3;
		p3 = p4;
		p4 = tmp;
		tmp = r3;
		r3 = r4;
		r4 = tmp;
		if (!perm_keeps(pm->cab[r1], pm->cab[r2], pm->cab[r3], pm->cab[r4]))
			return 0; /* e.g. two intra-cabinet links of different cabinets */
	}
	if (r1 == r2 || r1 == r3 || r1 == r4 || r2 == r3 || r2 == r4 || r3 == r4)
		return 0;
	if (topo_edgeset_count(&pm->es, r1, r4) || topo_edgeset_count(&pm->es, r3, r2))
		return 0;
	if (pm->frac < 1.0 && !(rng_uniform(&pm->rng) < pm->frac))
		return 0;
	uint64_t kx = perm_link_key(pm, x);
	topo_edgeset_remove(&pm->es, r1, r2);
	topo_edgeset_remove(&pm->es, r3, r4);
	NL_CHECK(topo_edgeset_add(&pm->es, r1, r4, err));
	NL_CHECK(topo_edgeset_add(&pm->es, r3, r2, err));
	pm->a[x] = p1;
	pm->b[x] = p4;
	pm->a[y] = p3;
	pm->b[y] = p2;
	pm->swaps++;
	if (perm_link_key(pm, x) != kx) { /* x and y traded cabinet pairs */
		uint32_t sx = pm->pos[x], sy = pm->pos[y];
		pm->slot[sx] = y;
		pm->slot[sy] = x;
		pm->pos[x] = sy;
		pm->pos[y] = sx;
	}
	return 0;
}

/* Shuffle group[0..n) and try its links two by two. */
static int perm_group(struct perm *pm, uint32_t n, struct nl_err *err)
{
	if (n < 2)
		return 0;
	rng_shuffle_u32(&pm->rng, pm->group, n);
	for (uint32_t i = 0; i + 1 < n; i += 2)
		NL_CHECK(perm_try(pm, pm->group[i], pm->group[i + 1], err));
	return 0;
}

/* One trial of `method` over the cabinets 0..n_cab-1. */
static int perm_run(struct perm *pm, int method, uint32_t n_cab, struct nl_err *err)
{
	uint32_t n;

	if (method == 2 || method == 3)
		for (uint32_t i = 0; i < n_cab; i++) { /* step 1: intra-cabinet */
			n = 0;
			perm_gather(pm, i, i, &n);
			NL_CHECK(perm_group(pm, n, err));
		}
	if (method == 2) {
		for (uint32_t k = 0; k < pm->n_keys; k++) {
			uint32_t i = (uint32_t)(pm->key[k] >> 32), j = (uint32_t)pm->key[k];
			if (i == j)
				continue;
			n = 0;
			perm_gather(pm, i, j, &n);
			NL_CHECK(perm_group(pm, n, err));
		}
	} else if (method == 3) {
		for (uint32_t k = 0; k < pm->n_keys; k++) {
			uint32_t i = (uint32_t)(pm->key[k] >> 32), j = (uint32_t)pm->key[k];
			if (i == j)
				continue;
			for (uint32_t c = 0; c < n_cab; c++) {
				if (c == i || c == j)
					continue;
				/* Visit the triad once: from its smallest linked pair. */
				uint32_t s[3] = {i, j, c}, tmp;
				if (s[0] > s[2]) {
					tmp = s[0];
					s[0] = s[2];
					s[2] = tmp;
				}
				if (s[1] > s[2]) {
					tmp = s[1];
					s[1] = s[2];
					s[2] = tmp;
				}
				if (s[0] > s[1]) {
					tmp = s[0];
					s[0] = s[1];
					s[1] = tmp;
				}
				uint64_t pairs[3] = {perm_pair_key(s[0], s[1]), perm_pair_key(s[0], s[2]),
						     perm_pair_key(s[1], s[2])};
				uint64_t first = UINT64_MAX;
				for (int q = 0; q < 3; q++)
					if (pairs[q] < first && perm_find(pm, pairs[q]) != UINT32_MAX)
						first = pairs[q];
				if (first != pm->key[k])
					continue;
				n = 0;
				for (int q = 0; q < 3; q++)
					perm_gather(pm, (uint32_t)(pairs[q] >> 32), (uint32_t)pairs[q], &n);
				NL_CHECK(perm_group(pm, n, err));
			}
		}
	} else {
		for (uint32_t i = 0; i < n_cab; i++)
			for (uint32_t j = i + 1; j < n_cab; j++) {
				n = 0;
				perm_gather(pm, i, j, &n);
				perm_gather(pm, i, i, &n);
				perm_gather(pm, j, j, &n);
				NL_CHECK(perm_group(pm, n, err));
			}
	}
	return 0;
}

static int perm_cmp_key(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* t laid out as base: its routers' ports, endpoints, cabinets (the base's
 * own, or pr->cab routers each) and links. */
static int perm_copy_base(struct topo *t, const struct topo *base, const struct topo_perm_params *pr,
			  struct nl_err *err)
{
	uint32_t n = base->n_routers;
	uint32_t *n_ports = malloc((size_t)n * sizeof *n_ports);
	t->cabinet = malloc((size_t)n * sizeof *t->cabinet);
	int rc = 0;
	if (!n_ports || !t->cabinet) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t r = 0; r < n; r++) {
		n_ports[r] = topo_router_ports(base, r);
		t->cabinet[r] = pr->cab ? r / (uint32_t)pr->cab : topo_router_cabinet(base, r);
	}
	t->n_cabinets = pr->cab ? (n + (uint32_t)pr->cab - 1) / (uint32_t)pr->cab : topo_cabinet_count(base);
	if ((rc = topo_alloc(t, n, n_ports, 0, base->n_endpoints, err)) < 0)
		goto out;
	memcpy(t->peer, base->peer, (size_t)t->n_ports * sizeof *t->peer);
	memcpy(t->ep_port, base->ep_port, (size_t)t->n_endpoints * sizeof *t->ep_port);
out:
	free(n_ports);
	return rc;
}

/* pm's arrays for t's links, the links themselves (also kept in base_a,
 * base_b, each trial's start) and their cabinet-pair groups: the sorted
 * distinct keys and each key's slot range. */
static int perm_links(struct perm *pm, struct topo *t, const struct topo_perm_params *pr, uint32_t **base_a,
		      uint32_t **base_b, struct nl_err *err)
{
	pm->t = t;
	pm->cab = t->cabinet;
	pm->frac = pr->frac;
	pm->n_links = (uint32_t)topo_count_links(t);
	uint32_t L = pm->n_links;
	pm->a = malloc((L + 1) * sizeof *pm->a);
	pm->b = malloc((L + 1) * sizeof *pm->b);
	*base_a = malloc((L + 1) * sizeof **base_a);
	*base_b = malloc((L + 1) * sizeof **base_b);
	pm->slot = malloc((L + 1) * sizeof *pm->slot);
	pm->pos = malloc((L + 1) * sizeof *pm->pos);
	pm->group = malloc((L + 1) * sizeof *pm->group);
	pm->key = malloc((L + 1) * sizeof *pm->key);
	pm->start = malloc((L + 2) * sizeof *pm->start);
	if (!pm->a || !pm->b || !*base_a || !*base_b || !pm->slot || !pm->pos || !pm->group || !pm->key || !pm->start)
		return nl_errf(err, NL_ENOMEM, "out of memory for %u links", L);
	uint32_t x = 0;
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (topo_port_is_network(t, g) && t->peer[g] > g) {
			(*base_a)[x] = g;
			(*base_b)[x] = t->peer[g];
			pm->a[x] = g;
			pm->b[x] = t->peer[g];
			pm->key[x] = perm_link_key(pm, x);
			x++;
		}
	qsort(pm->key, L, sizeof *pm->key, perm_cmp_key);
	pm->n_keys = 0;
	for (uint32_t i = 0; i < L; i++)
		if (i == 0 || pm->key[i] != pm->key[i - 1])
			pm->key[pm->n_keys++] = pm->key[i];
	memset(pm->start, 0, (pm->n_keys + 1) * sizeof *pm->start);
	for (uint32_t i = 0; i < L; i++)
		pm->start[perm_find(pm, perm_link_key(pm, i)) + 1]++;
	for (uint32_t k = 0; k < pm->n_keys; k++)
		pm->start[k + 1] += pm->start[k];
	return 0;
}

/* One trial from the base links (base_a, base_b; t->peer the base's):
 * the links permuted by method, seeded by the trial, and the resulting
 * graph in work (base terminal ports, permuted links). */
static int perm_trial(struct perm *pm, struct topo *t, const struct topo_perm_params *pr, int method,
		      int64_t trial, const uint32_t *base_a, const uint32_t *base_b, uint32_t *work, struct nl_err *err)
{
	uint32_t L = pm->n_links;
	memcpy(pm->a, base_a, L * sizeof *pm->a);
	memcpy(pm->b, base_b, L * sizeof *pm->b);
	uint32_t *fill = calloc(pm->n_keys + 1, sizeof *fill);
	if (!fill)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < L; i++) {
		uint32_t k = perm_find(pm, perm_link_key(pm, i));
		pm->pos[i] = pm->start[k] + fill[k]++;
		pm->slot[pm->pos[i]] = i;
	}
	free(fill);
	NL_CHECK(topo_edgeset_from_topo(&pm->es, t, err));
	rng_init(&pm->rng, (uint64_t)pr->seed, RNG_CLASS_TOPOLOGY, (uint64_t)trial + 1);
	pm->swaps = 0;
	int rc = perm_run(pm, method, t->n_cabinets, err);
	topo_edgeset_release(&pm->es);
	if (rc < 0)
		return rc;
	memcpy(work, t->peer, (size_t)t->n_ports * sizeof *work);
	for (uint32_t i = 0; i < L; i++) {
		work[pm->a[i]] = pm->b[i];
		work[pm->b[i]] = pm->a[i];
	}
	return 0;
}

int topo_perm_build(struct topo *t, int method, struct nl_err *err)
{
	struct topo_perm_params *pr = t->params;
	struct topo_permuted *view = t->state;
	struct topo *base = NULL;
	struct perm pm = {0};
	uint32_t *best = NULL, *work = NULL, *base_a = NULL, *base_b = NULL;
	struct progress prog;
	int rc;

	/* Its own line counts the trials, which are most of the work; only
	 * for a build that shows one (topo_new_shown set t->building): topo_new
	 * builds silently, whoever calls it (an API caller's terminal is its
	 * own). */
	bool is_shown = t->building != NULL;
	t->building = NULL;
	rc = topo_new(pr->base, &base, err);
	if (rc < 0)
		return nl_err_prefix(err, "topology '%s': base topology", t->ops->name);
	progress_init(&prog, t->ops->name);
	prog.enabled = prog.enabled && is_shown;
	if (strlen(base->spec) < sizeof pr->base)
		strcpy(pr->base, base->spec);
	if ((rc = perm_copy_base(t, base, pr, err)) < 0 || (rc = perm_links(&pm, t, pr, &base_a, &base_b, err)) < 0)
		goto out;
	best = malloc((size_t)t->n_ports * sizeof *best);
	work = malloc((size_t)t->n_ports * sizeof *work);
	if (!best || !work) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory for %u links", pm.n_links);
		goto out;
	}

	/* The base's own figures, for comparison. */
	uint32_t diam;
	uint64_t sum;
	rc = topo_all_pairs(t, UINT32_MAX - 1, &diam, &sum, err);
	if (rc != 0) {
		if (rc > 0)
			rc = topo_errf(t, err, NL_EINVAL, "base topology '%s' is not connected", pr->base);
		goto out;
	}
	view->method = method;
	view->base_spec = pr->base;
	view->base_diameter = diam;
	view->base_distance_sum = sum;
	view->diameter = UINT32_MAX;
	view->distance_sum = UINT64_MAX;

	/* The best trial: the smallest diameter, then distance sum. */
	uint32_t *base_peer = t->peer;
	for (int64_t trial = 0; trial < pr->trials; trial++) {
		char detail[64];
		snprintf(detail, sizeof detail, "trial %lld/%lld", (long long)trial + 1, (long long)pr->trials);
		progress_update(&prog, (double)trial / (double)pr->trials, detail);
		if ((rc = perm_trial(&pm, t, pr, method, trial, base_a, base_b, work, err)) < 0)
			goto out;
		t->peer = work;
		int worse = topo_all_pairs(t, view->diameter == UINT32_MAX ? UINT32_MAX - 1 : view->diameter, &diam,
					   &sum, err);
		t->peer = base_peer;
		if (worse < 0) {
			rc = worse;
			goto out;
		}
		if (worse == 0 && (diam < view->diameter || (diam == view->diameter && sum < view->distance_sum))) {
			view->trial = (uint32_t)trial;
			view->diameter = diam;
			view->distance_sum = sum;
			view->swaps = pm.swaps;
			uint32_t *tmp = best;
			best = work;
			work = tmp;
		}
	}
	if (view->diameter == UINT32_MAX) {
		rc = topo_errf(t, err, NL_EINVAL,
			       "parameters 'trials', 'seed': %s %lld trial%s (seed=%lld) left the network disconnected; "
			       "expected a connected one: another seed=, more trials= or a smaller frac=",
			       pr->trials == 1 ? "the" : "all", (long long)pr->trials, pr->trials == 1 ? "" : "s",
			       (long long)pr->seed);
		goto out;
	}
	memcpy(t->peer, best, (size_t)t->n_ports * sizeof *t->peer);
	rc = 0;
out:
	progress_done(&prog);
	topo_free(base);
	free(best);
	free(work);
	free(base_a);
	free(base_b);
	free(pm.a);
	free(pm.b);
	free(pm.slot);
	free(pm.pos);
	free(pm.group);
	free(pm.key);
	free(pm.start);
	topo_edgeset_release(&pm.es);
	return rc;
}
