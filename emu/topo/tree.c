/* The extended generalized fat tree (XGFT) builder shared by fattree and
 * clos: level-by-level numbering, closed-form wiring (struct topo_tree in
 * topo.h) and per-level orbits of complete trees. */
#include "topo/topo_internal.h"

#include <stdlib.h>

#include "core/error.h"

/* Refuse a tree past the port table (2^30 switches, 2^31 ports) naming
 * its parameters and sizes, before anything is allocated: the switches
 * of a level are its blocks times W, the up ports below multiplied, which
 * pass 2^64 for 8 levels of 32,767 (so in doubles). It said "more than
 * 2^30 switches", naming nothing, and a tree of fewer switches but too
 * many ports (clos:l=3,r=65535,down=32768,up=32767,n=1) filled a 4 GB
 * per-switch array before topo_alloc refused it. */
static int topo_xgft_check_size(struct topo *t, int L, const uint32_t *down, const uint32_t *up,
				uint64_t n_terminals, struct nl_err *err)
{
	double switches = 0, ports = 0, W = 1;
	uint64_t blocks = (n_terminals + down[0] - 1) / down[0];
	char given[256];

	for (int l = 0; l < L; l++) {
		if (l > 0) {
			W *= up[l - 1];
			blocks = (blocks + down[l] - 1) / down[l];
		}
		switches += (double)blocks * W;
		ports += (double)blocks * W * (down[l] + (l + 1 < L ? up[l] : 0));
	}
	if (switches <= (1u << 30) && ports < TOPO_EP_BIT)
		return 0;
	topo_params_text(t, given, sizeof given);
	return topo_size_check(t, given, switches, ports, (double)n_terminals, err);
}

int topo_xgft_setup(struct topo *t, struct topo_tree *tr, int L, const uint32_t *down, const uint32_t *up,
		    uint64_t n_terminals, struct nl_err *err)
{
	uint64_t first = 0;
	uint32_t *n_ports = NULL;
	int rc;

	if (L < 1 || L > TOPO_MAX_LEVELS)
		return topo_errf(t, err, NL_ERANGE, "1 to %d levels, got %d", TOPO_MAX_LEVELS, L);
	if (n_terminals >= TOPO_EP_BIT)
		return topo_errf(t, err, NL_ERANGE, "%llu terminals is more than supported (2^31)",
				 (unsigned long long)n_terminals);
	NL_CHECK(topo_xgft_check_size(t, L, down, up, n_terminals, err));
	tr->n_levels = L;
	tr->xgft = true;
	for (int l = 0; l < L; l++) {
		tr->down[l] = down[l];
		tr->up[l] = l + 1 < L ? up[l] : 0;
		tr->per_package[l] = 1;
		tr->W[l] = l == 0 ? 1 : tr->W[l - 1] * up[l - 1];
		if (l == 0)
			tr->blocks[l] = (uint32_t)((n_terminals + down[0] - 1) / down[0]);
		else
			tr->blocks[l] = (tr->blocks[l - 1] + down[l] - 1) / down[l];
		tr->level_first[l] = (uint32_t)first;
		first += (uint64_t)tr->blocks[l] * tr->W[l];
	}
	tr->level_first[L] = (uint32_t)first;
	NL_ASSERT(tr->blocks[L - 1] == 1);
	n_ports = malloc((size_t)first * sizeof *n_ports);
	if (!n_ports)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (int l = 0; l < L; l++)
		for (uint32_t r = tr->level_first[l]; r < tr->level_first[l + 1]; r++)
			n_ports[r] = tr->down[l] + tr->up[l];
	rc = topo_alloc(t, (uint32_t)first, n_ports, 0, (uint32_t)n_terminals, err);
	free(n_ports);
	NL_CHECK(rc);
	for (int l = 0; l + 1 < L; l++)
		for (uint32_t b = 0; b < tr->blocks[l]; b++)
			for (uint32_t w = 0; w < tr->W[l]; w++) {
				uint32_t r = tr->level_first[l] + b * tr->W[l] + w;
				for (uint32_t j = 0; j < tr->up[l]; j++) {
					uint32_t pb = b / tr->down[l + 1], pw = w * tr->up[l] + j;
					uint32_t parent = tr->level_first[l + 1] + pb * tr->W[l + 1] + pw;
					topo_connect(t, r, tr->down[l] + j, parent, b % tr->down[l + 1]);
				}
			}
	for (uint64_t e = 0; e < n_terminals; e++)
		topo_attach(t, (uint32_t)e, (uint32_t)(e / down[0]), (uint32_t)(e % down[0]));
	return 0;
}

uint32_t topo_xgft_orbits(const struct topo *t, uint32_t *reps, uint64_t *weight, uint32_t cap)
{
	const struct topo_tree *tr = t->state;
	uint64_t full = tr->down[0];
	for (int l = 1; l < tr->n_levels; l++)
		full *= tr->down[l];
	/* A partly filled block breaks the symmetry between switches of a level. */
	if (!tr->xgft || full != t->n_endpoints || cap < (uint32_t)tr->n_levels)
		return 0;
	for (int l = 0; l < tr->n_levels; l++) {
		reps[l] = tr->level_first[l];
		weight[l] = tr->level_first[l + 1] - tr->level_first[l];
	}
	return (uint32_t)tr->n_levels;
}

uint32_t topo_tree_level(const struct topo *t, uint32_t r)
{
	const struct topo_tree *tr = t->state;
	uint32_t l = 0;
	while (l + 1 < (uint32_t)tr->n_levels && r >= tr->level_first[l + 1])
		l++;
	return l;
}

int topo_tree_coords(const struct topo *t, uint32_t r, uint32_t *c)
{
	const struct topo_tree *tr = t->state;
	c[0] = topo_tree_level(t, r);
	c[1] = r - tr->level_first[c[0]];
	return 2;
}

/* Minimal next hops toward a leaf (the routers holding endpoints). A
 * level-l switch in block b is an ancestor of leaf d exactly when d's
 * level-l ancestor block, d / (down[1] * .. * down[l]), is b: then the one
 * down port toward d's level-(l-1) block is minimal (the child's block is
 * b * down[l] + port); otherwise every parent is one hop closer (all
 * parents share the block b / down[l+1], and the distance to d depends
 * only on level and block), so every up port is minimal. */
uint32_t topo_xgft_min_ports(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip, uint32_t *ports,
			     uint32_t cap)
{
	const struct topo_tree *tr = t->state;
	uint32_t l = topo_tree_level(t, r), b = (r - tr->level_first[l]) / tr->W[l];
	uint32_t child = dst, anc = dst; /* dst's ancestor blocks at levels l-1 and l */

	NL_ASSERT(tr->xgft && dst < tr->level_first[1] && r != dst);
	for (uint32_t m = 1; m <= l; m++) {
		child = anc;
		anc /= tr->down[m];
	}
	if (l > 0 && anc == b) {
		if (skip == 0 && cap > 0)
			ports[0] = child % tr->down[l];
		return 1;
	}
	for (uint32_t i = skip; i < tr->up[l] && i - skip < cap; i++)
		ports[i - skip] = tr->down[l] + i;
	return tr->up[l];
}
