/* myriclos: "myriclos:n=N", the Myrinet Clos of 16-port switches for N =
 * 32, 64, ..., 4096 compute nodes (seed 003 §4.2 and Table 1, after
 * Myricom's "Guide to Myrinet-2000 Switches and Switch Networks", ref. [30]
 * there).
 *
 * Every switch has 16 ports and every port is used. Leaves (tier 1) have 8
 * nodes and 8 up links.
 *  - N <= 128 (the Clos128 and its halves): N/8 leaves and N/16 spines
 *    (tier 2); leaf i's up port 8+j goes to spine j mod (N/16), so each
 *    leaf-spine pair has 128/N parallel links.
 *  - 256 <= N <= 1024: N/64 "64" units, each 8 leaves and 8 tier-2 switches
 *    joined all-to-all (8 down, 8 up), and N/16 tier-3 spines; the 64 upper
 *    ports x = 8j + k of a unit (tier-2 switch j, up port k) are spread as
 *    the guide asks, 1024/N to every spine: x goes to spine x mod (N/16).
 *  - 2048, 4096: the same units and, as spine, N/128 Clos128 enclosures
 *    (16 tier-3 switches with 8 front ports and 8 up links to the 8 tier-4
 *    switches of the enclosure); x goes to enclosure x mod (N/128).
 * Tier counts: 4+2, 8+4, 16+8, 32+32+16, 64+64+32, 128+128+64,
 * 256+256+256+128 and 512+512+512+256 switches, as Table 1.
 *
 * Numbering: tier by tier from the leaves; within tiers 1-2 unit by unit,
 * within tiers 3-4 of the large networks enclosure by enclosure. Ports:
 * down ports first (a leaf's 8 nodes: endpoint = 8 * leaf + port), then up
 * ports (struct topo_tree, xgft unset). Packaging (Table 1): 4 M3-E128
 * enclosures or 128 nodes per cabinet; nodes fill the ceil(N/128)
 * node-only cabinets 0.. in order, then the enclosures (one per unit, then
 * 8 spines per enclosure, or one per Clos128 spine) fill switch-only
 * cabinets from the lowest tier up; router hints point at the switch-only
 * cabinets and n_cabinets counts both kinds.
 */
#include "topo/topo_internal.h"

#include <stdlib.h>

#include "core/error.h"

struct myriclos_params {
	int64_t n; /* compute nodes */
};

static const struct param_def myriclos_params_def[] = {
	{"n", PARAM_INT, offsetof(struct myriclos_params, n), NULL, 32, 4096,
	 "compute nodes: 32, 64, 128, 256, 512, 1024, 2048 or 4096 (seed 003 Table 1)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int myriclos_build(struct topo *t, struct nl_err *err)
{
	const struct myriclos_params *pr = t->params;
	struct topo_tree *tr = t->state;
	uint32_t N = (uint32_t)pr->n, count[4] = {0}, enclosures;
	int L;

	if (N & (N - 1))
		return topo_errf(t, err, NL_EINVAL,
				 "parameter 'n': %u nodes; seed 003 Table 1 covers 32, 64, 128, 256, 512, 1024, 2048 and 4096", N);
	count[0] = N / 8;
	if (N <= 128) {
		L = 2;
		count[1] = N / 16;
		enclosures = 1;
	} else if (N <= 1024) {
		L = 3;
		count[1] = N / 8;
		count[2] = N / 16;
		enclosures = N / 64 + count[2] / 8;
	} else {
		L = 4;
		count[1] = count[2] = N / 8;
		count[3] = N / 16;
		enclosures = N / 64 + N / 128;
	}
	tr->n_levels = L;
	tr->xgft = false;
	uint32_t first = 0;
	for (int l = 0; l < L; l++) {
		tr->level_first[l] = first;
		first += count[l];
		tr->per_package[l] = 1;
		tr->down[l] = l + 1 < L ? 8 : 16;
		tr->up[l] = l + 1 < L ? 8 : 0;
	}
	tr->level_first[L] = first;
	NL_CHECK(topo_alloc(t, first, NULL, 16, N, err));

	const uint32_t *lf = tr->level_first;
	if (L == 2) {
		uint32_t S = count[1], mult = 8 / S;
		for (uint32_t i = 0; i < count[0]; i++)
			for (uint32_t j = 0; j < 8; j++)
				topo_connect(t, lf[0] + i, 8 + j, lf[1] + j % S, i * mult + j / S);
	} else {
		uint32_t units = N / 64;
		for (uint32_t u = 0; u < units; u++)
			for (uint32_t i = 0; i < 8; i++)
				for (uint32_t j = 0; j < 8; j++)
					topo_connect(t, lf[0] + u * 8 + i, 8 + j, lf[1] + u * 8 + j, i);
		for (uint32_t u = 0; u < units; u++)
			for (uint32_t x = 0; x < 64; x++) {
				uint32_t r2 = lf[1] + u * 8 + x / 8, port2 = 8 + x % 8;
				if (L == 3) {
					uint32_t S = count[2];
					topo_connect(t, r2, port2, lf[2] + x % S, u * (1024 / N) + x / S);
				} else {
					uint32_t E = N / 128, f = u * (64 / E) + x / E;
					topo_connect(t, r2, port2, lf[2] + (x % E) * 16 + f / 8, f % 8);
				}
			}
		if (L == 4)
			for (uint32_t e = 0; e < N / 128; e++)
				for (uint32_t a = 0; a < 16; a++)
					for (uint32_t b = 0; b < 8; b++)
						topo_connect(t, lf[2] + e * 16 + a, 8 + b, lf[3] + e * 8 + b, a);
	}
	for (uint32_t e = 0; e < N; e++)
		topo_attach(t, e, lf[0] + e / 8, e % 8);

	/* Table 1 packaging. */
	uint32_t node_cabs = (N + 127) / 128, switch_cabs = (enclosures + 3) / 4;
	t->cabinet = malloc((size_t)first * sizeof *t->cabinet);
	if (!t->cabinet)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t r = 0; r < first; r++) {
		uint32_t enc;
		if (L == 2)
			enc = 0;
		else if (r < lf[2])
			enc = ((r < lf[1] ? r - lf[0] : r - lf[1]) / 8); /* its unit */
		else if (L == 3)
			enc = N / 64 + (r - lf[2]) / 8; /* 8 spines per enclosure */
		else
			enc = N / 64 + (r < lf[3] ? (r - lf[2]) / 16 : (r - lf[3]) / 8); /* its Clos128 */
		t->cabinet[r] = node_cabs + enc / 4;
	}
	t->n_cabinets = node_cabs + switch_cabs;
	return 0;
}

const struct topo_ops topo_myriclos_ops = {
	.name = "myriclos",
	.help = "Myrinet Clos of 16-port switches for 32..4096 nodes, switch tiers of seed 003 Table 1",
	.params = myriclos_params_def,
	.params_size = sizeof(struct myriclos_params),
	.state_size = sizeof(struct topo_tree),
	.build = myriclos_build,
	.coords = topo_tree_coords,
	.level = topo_tree_level,
};
