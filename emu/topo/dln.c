/* dln: "dln:n=N,d=D[,p=1][,seed=1]", the random-shortcut ring RING-D of seed
 * 003 §4.1 (a DLN, Koibuchi et al., ISCA 2012, ref. [7] there): a ring of
 * N switches plus D - 2 random shortcut links at every switch, so every
 * switch has degree D.
 *
 * Construction: the ring, then the N (D - 2) shortcut ends are shuffled and
 * paired (a random D-2 regular multigraph, the configuration model); a
 * pair that would be a self-loop or repeat a link is repaired by swapping
 * ends with a random other pair until none is left, which keeps every
 * degree. Past half the possible shortcuts the complement is drawn that
 * way instead (dln_shortcuts). All draws come from the stream (seed, RNG_CLASS_TOPOLOGY, 0), so
 * a seed gives the same graph on every run. Ports: 0 to switch i + 1, 1 to
 * i - 1, 2 .. D-1 the shortcuts, then p terminals; endpoints router-major.
 */
#include "topo/topo_internal.h"

#include <stdlib.h>

#include "core/error.h"
#include "core/rng.h"

struct dln_params {
	int64_t n;    /* switches */
	int64_t d;    /* degree: 2 ring ports + d - 2 shortcuts */
	int64_t p;    /* endpoints per switch */
	int64_t seed; /* random stream */
};

static const struct param_def dln_params_def[] = {
	{"n", PARAM_INT, offsetof(struct dln_params, n), NULL, 3, 1 << 24, "switches N", NULL},
	{"d", PARAM_INT, offsetof(struct dln_params, d), NULL, 2, 4096,
	 "degree D: the ring plus D-2 random shortcuts per switch (RING-D)", NULL},
	{"p", PARAM_INT, offsetof(struct dln_params, p), "1", 0, 65536, "endpoints per switch", NULL},
	{"seed", PARAM_INT, offsetof(struct dln_params, seed), "1", 0, 0, "random seed", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* Is the shortcut pair (a, b) acceptable given the links placed so far
 * (which include it once)? */
static bool dln_ok(const struct topo_edgeset *es, uint32_t a, uint32_t b)
{
	return a != b && topo_edgeset_count(es, a, b) == 1;
}

/* A random k-regular simple graph on N switches that shares no link with
 * the ring already in *es: its N k ends, switch-major, are shuffled and
 * paired into stub[] (a configuration-model multigraph, its pairs added to
 * *es), then a pair that is a self-loop or repeats a link is repaired by
 * swapping ends with a random other pair. A swap is taken only when both
 * new pairs are new links, so it never spoils another pair; that works
 * while the graph is sparse next to its complement, which the caller
 * ensures (k at most half of the N - 3 non-ring partners). */
static int dln_random_regular(struct topo *t, struct rng *rng, struct topo_edgeset *es, uint32_t *stub, uint32_t N,
			      uint32_t k, struct nl_err *err)
{
	uint64_t M = (uint64_t)N * k;
	int rc;

	for (uint64_t i = 0; i < M; i++)
		stub[i] = (uint32_t)(i / k);
	rng_shuffle_u32(rng, stub, (uint32_t)M);
	for (uint64_t i = 0; i < M; i += 2)
		if ((rc = topo_edgeset_add(es, stub[i], stub[i + 1], err)) < 0)
			return rc;
	uint64_t pairs = M / 2, budget = 1000 * pairs + 1000;
	for (uint64_t i = 0; i < pairs; i++) {
		while (!dln_ok(es, stub[2 * i], stub[2 * i + 1])) {
			if (budget-- == 0)
				return topo_errf(t, err, NL_EINVAL,
						 "parameter 'd': could not place %u random links per switch without repeated links on %u switches",
						 k, N);
			uint64_t j = rng_below(rng, pairs);
			if (j == i)
				continue;
			uint32_t a = stub[2 * i], b = stub[2 * i + 1], c = stub[2 * j], d = stub[2 * j + 1];
			if (rng_below(rng, 2)) {
				uint32_t x = c;
				c = d;
				d = x;
			}
			/* (a,b),(c,d) -> (a,c),(b,d) */
			if (a == c || b == d || topo_edgeset_count(es, a, c) || topo_edgeset_count(es, b, d))
				continue;
			topo_edgeset_remove(es, a, b);
			topo_edgeset_remove(es, stub[2 * j], stub[2 * j + 1]);
			if ((rc = topo_edgeset_add(es, a, c, err)) < 0 || (rc = topo_edgeset_add(es, b, d, err)) < 0)
				return rc;
			stub[2 * i + 1] = c;
			stub[2 * j] = b;
			stub[2 * j + 1] = d; /* both new pairs are simple: no pair turns bad */
		}
	}
	return 0;
}

/* The D - 2 shortcuts per switch as pairs in stub[] (N (D - 2) ends).
 * Up to half of the N - 3 non-ring partners of a switch they are drawn
 * directly. Beyond that, near the complete graph (D = N - 1), end swaps
 * run out of free pairs (at D = N - 1 about half the seeds failed), so the
 * shortcuts are the complement, among the non-ring pairs, of a random
 * (N - 1 - D)-regular graph, which is sparse: empty at D = N - 1, a
 * matching at D = N - 2. Either way the result is a uniform-looking random
 * simple D-regular graph containing the ring. */
static int dln_shortcuts(struct topo *t, struct rng *rng, uint32_t *stub, uint32_t N, uint32_t D, struct nl_err *err)
{
	struct topo_edgeset es = {0};
	uint32_t k = D - 2, kc = N - 1 - D;
	bool complement = kc < k;
	uint32_t kr = complement ? kc : k;
	int rc;

	if ((rc = topo_edgeset_init(&es, N + (uint64_t)N * kr / 2, err)) < 0)
		return rc;
	for (uint32_t i = 0; i < N; i++)
		if ((rc = topo_edgeset_add(&es, i, (i + 1) % N, err)) < 0)
			goto out;
	if ((rc = dln_random_regular(t, rng, &es, stub, N, kr, err)) < 0 || !complement)
		goto out;
	uint64_t m = 0;
	for (uint32_t a = 0; a < N; a++)
		for (uint32_t b = a + 1; b < N; b++)
			if (!topo_edgeset_count(&es, a, b)) {
				stub[m++] = a;
				stub[m++] = b;
			}
	NL_ASSERT(m == (uint64_t)N * k);
	/* Random pair order, so the shortcut ports differ by seed as they do
	 * when drawn directly. */
	for (uint64_t i = m / 2; i > 1; i--) {
		uint64_t j = rng_below(rng, i);
		uint32_t a = stub[2 * (i - 1)], b = stub[2 * (i - 1) + 1];
		stub[2 * (i - 1)] = stub[2 * j];
		stub[2 * (i - 1) + 1] = stub[2 * j + 1];
		stub[2 * j] = a;
		stub[2 * j + 1] = b;
	}
out:
	topo_edgeset_release(&es);
	return rc;
}

static int dln_build(struct topo *t, struct nl_err *err)
{
	const struct dln_params *pr = t->params;
	uint32_t N = (uint32_t)pr->n, D = (uint32_t)pr->d, p = (uint32_t)pr->p, *stub = NULL, *next = NULL;
	uint64_t M = (uint64_t)N * (D - 2);
	struct rng rng;
	int rc;

	if (D > N - 1)
		return topo_errf(t, err, NL_ERANGE, "parameter 'd': degree %u needs more than the %u switches (d <= n-1)", D, N);
	if (M % 2)
		return topo_errf(t, err, NL_EINVAL, "parameters 'n', 'd': n (d-2) = %llu shortcut ends cannot be paired (must be even)",
				 (unsigned long long)M);
	char given[96];
	snprintf(given, sizeof given, "parameters n=%u, d=%u, p=%u", N, D, p);
	NL_CHECK(topo_size_check(t, given, N, (double)N * (D + p), (double)N * p, err));
	stub = malloc((M ? M : 1) * sizeof *stub);
	next = calloc(N, sizeof *next);
	if (!stub || !next) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	rng_init(&rng, (uint64_t)pr->seed, RNG_CLASS_TOPOLOGY, 0);
	if ((rc = dln_shortcuts(t, &rng, stub, N, D, err)) < 0)
		goto out;
	if ((rc = topo_alloc(t, N, NULL, D + p, N * p, err)) < 0)
		goto out;
	for (uint32_t i = 0; i < N; i++)
		topo_connect(t, i, 0, (i + 1) % N, 1);
	for (uint32_t i = 0; i < N; i++)
		next[i] = 2;
	for (uint64_t i = 0; i < M; i += 2) {
		uint32_t a = stub[i], b = stub[i + 1];
		topo_connect(t, a, next[a]++, b, next[b]++);
	}
	for (uint32_t r = 0; r < N; r++)
		for (uint32_t i = 0; i < p; i++)
			topo_attach(t, r * p + i, r, D + i);
	rc = 0;
out:
	free(stub);
	free(next);
	return rc;
}

const struct topo_ops topo_dln_ops = {
	.name = "dln",
	.help = "RING-d random shortcut network: a ring plus d-2 random shortcuts per switch, seeded (seed 003 [7])",
	.params = dln_params_def,
	.params_size = sizeof(struct dln_params),
	.build = dln_build,
};
