/* Unit tests: the topology families against their papers' numbers and
 * closed forms: trees (fat tree, folded Clos, Myrinet Clos), Slim Fly,
 * Equality, nD twin torus, DLN. The lattice and group families are in
 * test_topo_lattices.c. */
#include <stdint.h>
#include <unistd.h>

#include "core/error.h"
#include "test.h"
#include "topo/topo.h"
#include "topo/topo_dragonfly.h"
#include "topo/topo_equality.h"
#include "topo/topo_flex.h"
#include "topo/topo_hypercube.h"
#include "topo/topo_hyperx.h"
#include "topo/topo_ndt.h"
#include "topo/topo_slimfly.h"
#include "topo/topo_tree.h"
#include "topo/topo_internal.h"
#include "topo_check.h"

/* --- fat tree, folded Clos, Myrinet Clos ----------------------------------- */

/* Router-to-router links between levels l and l+1 of a tree. */
static uint64_t tree_links_between(const struct topo *t, int l)
{
	const struct topo_tree *tr = topo_tree_of(t);
	uint64_t n = 0;
	for (uint32_t r = tr->level_first[l]; r < tr->level_first[l + 1]; r++)
		for (uint32_t g = t->port_base[r]; g < t->port_base[r + 1]; g++)
			if (topo_port_is_network(t, g)) {
				uint32_t s = t->port_router[t->peer[g]];
				if (s >= tr->level_first[l + 1] && s < tr->level_first[l + 2])
					n++;
			}
	return n;
}

static void test_fattree(void)
{
	/* Seed 000 Table 6: the 3-level fat tree with k = 20, p = 10 is the
	 * 10-ary 3-tree: 1,000 terminals, 300 routers, radix 20, 2,000 links. */
	struct topo *t = tc_new("fattree:k=10,n=3");
	if (!t)
		return;
	CHECK_EQ(t->n_endpoints, 1000);
	CHECK_EQ(t->n_routers, 300);
	CHECK_EQ(topo_max_radix(t), 20);
	CHECK_EQ(topo_count_links(t), 2000);
	/* Seed 000 Table 2: a 3-level fat tree has diameter 4. */
	uint32_t diam;
	uint64_t sum;
	tc_all_pairs(t, &diam, &sum);
	CHECK_EQ(diam, 4);
	const struct topo_tree *tr = topo_tree_of(t);
	CHECK(tr && tr->xgft && tr->n_levels == 3);
	CHECK_EQ(tr->level_first[1], 100);
	CHECK_EQ(tr->level_first[2], 200);
	/* XGFT wiring: leaf 37 (block 37) up port 10 + 4 reaches level-1 switch
	 * (block 3, index 4) = 100 + 3*10 + 4 on its down port 7. */
	uint32_t g = t->port_base[37] + 10 + 4;
	CHECK_EQ(t->peer[g], t->port_base[100 + 34] + 7);
	tc_orbits(t);
	topo_free(t);
	t = tc_new("fattree:k=3,n=4");
	if (t) {
		CHECK_EQ(t->n_routers, 4 * 27);
		CHECK_EQ(t->n_endpoints, 81);
		tc_orbits(t);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("fattree:k=1,n=3", &t, &e), NL_ERANGE, &e, "parameter 'k' value '1' out of range");
	CHECK_ERR(topo_new("fattree:k=64,n=6", &t, &e), NL_ERANGE, &e,
		  "topology 'fattree': parameters 'k', 'n': K^N = 64^6 = 68719476736 terminals; expected fewer than 2^31 "
		  "(2147483648)");
	/* It named neither the count nor the limit's value. */
	CHECK_ERR(topo_new("fattree:k=65535,n=8", &t, &e), NL_ERANGE, &e,
		  "K^N = 65535^8 = 3.40240830764391e+38 terminals; expected fewer than 2^31 (2147483648)");
}

static void test_clos_formulas(void)
{
	/* Seed 001 §2.1.1: an L-level folded Clos of radix-R switches has N = 2
	 * (R/2)^L terminals, (R/2)^(L-1) core switches, P = (2L - 1) (R/2)^(L-1)
	 * switches (P/N = (2L - 1)/R), 2 (R/2)^L links between adjacent levels,
	 * paths of at most 2L - 1 switches (2(L-1) switch hops), and full
	 * bisection: beta = core links / N = 1 (§4.1's definition). */
	static const uint32_t cases[][2] = {{2, 8}, {3, 8}, {2, 16}, {4, 4}, {3, 6}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint32_t L = cases[i][0], R = cases[i][1], h = R / 2, hl = 1;
		for (uint32_t j = 0; j + 1 < L; j++)
			hl *= h; /* (R/2)^(L-1) */
		char spec[64];
		snprintf(spec, sizeof spec, "clos:l=%u,r=%u", L, R);
		struct topo *t = tc_new(spec);
		if (!t)
			continue;
		const struct topo_tree *tr = topo_tree_of(t);
		CHECK_EQ(t->n_endpoints, 2 * hl * h);
		CHECK_EQ(t->n_routers, (2 * L - 1) * hl);
		CHECK_EQ(tr->level_first[L] - tr->level_first[L - 1], hl);
		CHECK_EQ(topo_max_radix(t), R);
		for (uint32_t l = 0; l + 1 < L; l++)
			CHECK_EQ(tree_links_between(t, (int)l), 2 * hl * h);
		CHECK_EQ(tree_links_between(t, (int)L - 2), t->n_endpoints); /* beta = 1 */
		CHECK_EQ(topo_tree_physical_switches(tr), t->n_routers);
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		CHECK_EQ(diam, 2 * (L - 1));
		tc_orbits(t);
		topo_free(t);
	}

	/* Seed 002 §5.5: the largest 3-layer fat tree of 36-port routers has
	 * 11,664 endpoints (2 x 18^3). */
	struct topo *t36 = tc_new("clos:l=3,r=36");
	if (t36) {
		CHECK_EQ(t36->n_endpoints, 11664);
		CHECK_EQ(topo_max_radix(t36), 36);
		topo_free(t36);
	}

	/* §4.1's tapered example (N = 4096, R = 32, beta = 0.5): 205 level-1
	 * switches with 10 up and 20 down links, 130 level-2 switches with 16
	 * up and 16 down, 80 level-3 switches with 13 down links packaged two
	 * per physical switch (160 logical), P = 415. */
	struct topo *t = tc_new("clos:l=3,r=32,n=4096,taper=2x1");
	if (!t)
		return;
	const struct topo_tree *tr = topo_tree_of(t);
	CHECK_EQ(tr->level_first[1] - tr->level_first[0], 205);
	CHECK_EQ(tr->level_first[2] - tr->level_first[1], 130);
	CHECK_EQ(tr->level_first[3] - tr->level_first[2], 160);
	CHECK_EQ(tr->down[0], 20);
	CHECK_EQ(tr->up[0], 10);
	CHECK_EQ(tr->down[1], 16);
	CHECK_EQ(tr->up[1], 16);
	CHECK_EQ(tr->down[2], 13);
	CHECK_EQ(tr->per_package[2], 2);
	CHECK_EQ(topo_tree_physical_switches(tr), 415);
	CHECK_EQ(tree_links_between(t, 0), 205 * 10);
	CHECK_EQ(tree_links_between(t, 1), 130 * 16); /* core links: beta = 2080/4096 */
	topo_free(t);
	/* The same with explicit port counts. */
	t = tc_new("clos:l=3,r=32,n=4096,down=20x16,up=10x16");
	if (t) {
		CHECK_EQ(topo_tree_physical_switches(topo_tree_of(t)), 415);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("clos:l=2,r=8,n=40", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'n': 40 terminals need more than the 32 that 2 levels of radix-8 switches serve "
		  "(r x the down ports of each level below the core: 8 x 4); expected n <= 32, another level or a larger r");
	/* The capacity is r x the down ports below the core, which down= and
	 * taper= set too: it blamed "3 levels of radix-16 switches", which
	 * serve 1,024 untapered, for down=4's 256, and said "1 levels". */
	CHECK_ERR(topo_new("clos:l=3,r=16,n=300,down=4,up=10", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'n': 300 terminals need more than the 256 that 3 levels of radix-16 switches "
		  "serve (r x the down ports of each level below the core: 16 x 4 x 4); expected n <= 256, another level, "
		  "a larger r or more down ports per level");
	CHECK_ERR(topo_new("clos:l=3,r=16,n=3000,taper=3", &t, &e), NL_ERANGE, &e,
		  "that 3 levels of radix-16 switches serve (r x the down ports of each level below the core: 16 x 12 x "
		  "12); expected n <= 2304, another level, a larger r or more down ports per level");
	/* The capacity overflowed 64 bits: down=32768 on 8 levels made it 0
	 * (SIGFPE in the build), on 5 levels 17293822569102704640, and
	 * l=8,r=65535 said 10373584382391451649 terminals. */
	CHECK_ERR(topo_new("clos:l=8,r=65535,down=32768,up=32767", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'n': the full tree has 2.65841542675062e+36 terminals, more than supported "
		  "(2^31)");
	CHECK_ERR(topo_new("clos:l=5,r=65535,down=32768,up=32767", &t, &e), NL_ERANGE, &e,
		  "the full tree has 7.55567108044097e+22 terminals");
	CHECK_ERR(topo_new("clos:l=8,r=65535", &t, &e), NL_ERANGE, &e,
		  "the full tree has 2.65784757993735e+36 terminals");
	CHECK_ERR(topo_new("clos:l=1,r=8,n=9", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'n': 9 terminals need more than the 8 ports of one radix-8 switch (l=1); "
		  "expected n <= 8, another level or a larger r");
	CHECK_ERR(topo_new("clos:l=3,r=8,taper=1x1x1", &t, &e), NL_EINVAL, &e,
		  "parameter 'taper' has 3 values; give one or l-1 = 2");
	CHECK_ERR(topo_new("clos:l=3,r=8,taper=8", &t, &e), NL_ERANGE, &e,
		  "parameter 'taper': a 8:1 ratio leaves no up port on a radix-8 switch; expected at most r-1 = 7");
	/* Both said what was wrong but not what would do. */
	CHECK_ERR(topo_new("clos:l=3,r=16,down=10,up=8", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameters 'down', 'up': level 1 needs 10 down + 8 up ports, more than r=16; "
		  "expected down + up <= r at every level below the core");
	/* up= alone was refused as the 'down' parameter's fault ('every level
	 * below the core needs at least one down port'): name the missing one. */
	CHECK_ERR(topo_new("clos:l=2,r=4,up=1", &t, &e), NL_EINVAL, &e,
		  "topology 'clos': parameter 'up' given without 'down': explicit ports need both (e.g. "
		  "down=20x16,up=10x16)");
	CHECK_ERR(topo_new("clos:l=2,r=4,down=3", &t, &e), NL_EINVAL, &e,
		  "topology 'clos': parameter 'down' given without 'up'");
	/* A list whose first level is 0 is given: 'down=0x16' was taken for
	 * the unset default and refused as "'up' given without 'down'". */
	CHECK_ERR(topo_new("clos:l=3,r=32,down=0x16,up=10x16", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'down' value '0x16': level 1 has no down port; expected at least one at "
		  "every level below the core");
	CHECK_ERR(topo_new("clos:l=3,r=32,down=20x16,up=10x0", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'up' value '10x0': level 2 has no up port");
	CHECK_ERR(topo_new("clos:l=3,r=32,down=20x16,up=0x16", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'up' value '0x16': level 1 has no up port");
	/* A lone 0 is given too: 'down=0,up=10' said "parameter 'up' given
	 * without 'down'", 0 being the unset default. */
	CHECK_ERR(topo_new("clos:l=3,r=32,down=0,up=10", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'down' value '0': level 1 has no down port; expected at least one at "
		  "every level below the core");
	CHECK_ERR(topo_new("clos:l=3,r=32,down=20,up=0", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'up' value '0': level 1 has no up port");
	/* The canonical spec leaves down= and up= out when they are unset (it
	 * wrote 'down=0,up=0', which reads as given and is refused), and
	 * parses back to itself. */
	static const char *const canon[][2] = {
		{"clos:l=3,r=8", "clos:l=3,r=8,n=128,taper=1,pack=1"},
		{"clos:l=3,r=32,n=4096,taper=2x1", "clos:l=3,r=32,n=4096,taper=2x1,pack=1"},
		{"clos:l=3,r=32,n=4096,down=20x16,up=10x16", "clos:l=3,r=32,n=4096,taper=1,down=20x16,up=10x16,pack=1"}};
	for (size_t i = 0; i < sizeof canon / sizeof *canon; i++) {
		CHECK_OK(topo_new(canon[i][0], &t, &e), &e);
		CHECK_STR(t->spec, canon[i][1]);
		struct topo *back;
		CHECK_OK(topo_new(t->spec, &back, &e), &e);
		CHECK_STR(back->spec, canon[i][1]);
		topo_free(back);
		topo_free(t);
	}
	/* One level is one switch: taper=, down= and up= shape the levels
	 * below the core, which it has none of (they were ignored, and the
	 * canonical spec kept them). */
	CHECK_ERR(topo_new("clos:l=1,r=4,taper=3", &t, &e), NL_EINVAL, &e,
		  "topology 'clos': parameter 'taper': l=1 is one switch, with no level below the core to shape");
	CHECK_ERR(topo_new("clos:l=1,r=4,down=2,up=2", &t, &e), NL_EINVAL, &e,
		  "topology 'clos': parameter 'down': l=1 is one switch");
	/* down= and up= replace the taper: with both, taper=3 was ignored and
	 * kept in the canonical spec. */
	CHECK_ERR(topo_new("clos:l=2,r=4,taper=3,down=2,up=2", &t, &e), NL_EINVAL, &e,
		  "topology 'clos': parameter 'taper': 3 with down= and up=, which give the ports instead; expected "
		  "one or the other");
}

static void test_myriclos_table1(void)
{
	/* Seed 003 Table 1: switches per tier (1st..4th), #switches,
	 * #enclosures, #cabinets (switch-only + node-only), and the diameter in
	 * switch hops of the Myrinet Clos. */
	static const struct {
		uint32_t n, tier[4], switches, enclosures, cabinets, switch_only, diam;
	} table1[] = {
		{32, {4, 2, 0, 0}, 6, 1, 2, 1, 2},
		{64, {8, 4, 0, 0}, 12, 1, 2, 1, 2},
		{128, {16, 8, 0, 0}, 24, 1, 2, 1, 2},
		{256, {32, 32, 16, 0}, 80, 6, 4, 2, 4},
		{512, {64, 64, 32, 0}, 160, 12, 7, 3, 4},
		{1024, {128, 128, 64, 0}, 320, 24, 14, 6, 4},
		{2048, {256, 256, 256, 128}, 896, 48, 28, 12, 6},
		{4096, {512, 512, 512, 256}, 1792, 96, 56, 24, 6},
	};
	for (size_t i = 0; i < sizeof table1 / sizeof *table1; i++) {
		char spec[64];
		snprintf(spec, sizeof spec, "myriclos:n=%u", table1[i].n);
		struct topo *t = tc_new(spec);
		if (!t)
			continue;
		const struct topo_tree *tr = topo_tree_of(t);
		CHECK_EQ(t->n_routers, table1[i].switches);
		CHECK_EQ(t->n_endpoints, table1[i].n);
		for (int l = 0; l < 4; l++) {
			uint32_t c = l < tr->n_levels ? tr->level_first[l + 1] - tr->level_first[l] : 0;
			if (c != table1[i].tier[l])
				TEST_FAIL_("%s: tier %d has %u switches, Table 1 says %u", spec, l + 1, c, table1[i].tier[l]);
		}
		/* 16-port switches, every port in use. */
		CHECK_EQ(t->n_ports, 16 * table1[i].switches);
		for (uint32_t g = 0; g < t->n_ports; g++)
			if (t->peer[g] == TOPO_NONE) {
				TEST_FAIL_("%s: port %u unconnected", spec, g);
				break;
			}
		CHECK_EQ(topo_cabinet_count(t), table1[i].cabinets);
		uint32_t max_cab = 0, node_cabs = table1[i].cabinets - table1[i].switch_only;
		for (uint32_t r = 0; r < t->n_routers; r++)
			if (topo_router_cabinet(t, r) > max_cab)
				max_cab = topo_router_cabinet(t, r);
		CHECK_EQ(max_cab + 1, table1[i].cabinets);
		CHECK_EQ(topo_router_cabinet(t, 0), node_cabs);
		/* 4 enclosures per switch-only cabinet: the enclosure count fixes the
		 * number of switch-only cabinets in use. */
		CHECK_EQ((table1[i].enclosures + 3) / 4, table1[i].switch_only);
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		CHECK_EQ(diam, table1[i].diam);
		topo_free(t);
	}
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_ERR(topo_new("myriclos:n=96", &t, &e), NL_EINVAL, &e,
		  "topology 'myriclos': parameter 'n': 96 nodes; seed 003 Table 1 covers 32, 64, 128");
	CHECK_ERR(topo_new("myriclos:n=8192", &t, &e), NL_ERANGE, &e, "parameter 'n' value '8192' out of range");
}

/* --- Slim Fly ---------------------------------------------------------------- */

/* GF(q) is a field: distributive, every non-zero element invertible, and
 * the primitive element's powers cover the multiplicative group. */
static void test_gf(void)
{
	static const uint32_t qs[] = {2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 32, 49, 81, 121, 125, 128};
	for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
		struct topo_gf f;
		uint32_t p, m, q = qs[i];
		CHECK_EQ(topo_gf_init(&f, q, &p, &m), 0);
		uint32_t pm = 1;
		for (uint32_t j = 0; j < m; j++)
			pm *= p;
		CHECK_EQ(pm, q);
		int bad = 0;
		for (uint32_t a = 0; a < q && !bad; a++) {
			uint32_t inv = 0;
			CHECK_EQ(topo_gf_add(&f, a, topo_gf_neg(&f, a)), 0);
			for (uint32_t b = 0; b < q; b++) {
				if (topo_gf_mul(&f, a, b) == 1)
					inv++;
				for (uint32_t c = 0; c < q && q <= 27; c++)
					if (topo_gf_mul(&f, a, topo_gf_add(&f, b, c)) !=
					    topo_gf_add(&f, topo_gf_mul(&f, a, b), topo_gf_mul(&f, a, c)))
						bad++;
			}
			if (inv != (a != 0))
				bad++;
		}
		if (bad)
			TEST_FAIL_("GF(%u): %d field-axiom failures", q, bad);
		topo_gf_release(&f);
	}
	struct topo_gf f;
	uint32_t p, m;
	CHECK_EQ(topo_gf_init(&f, 12, &p, &m), NL_EINVAL);
	CHECK_EQ(p, 0);
}

static void test_slimfly(void)
{
	/* Seed 000 Table 6: Slim Fly with q = 9 and p = 6 (one less than
	 * floor(k/3) = 7, §IV-B): 162 routers, 972 terminals, 1,053 links,
	 * network radix k' = (3q - delta)/2 = 13 (Table 6's radix 20 counts the
	 * one port left idle by p = 6). GF(9) = GF(3^2) exercises the
	 * polynomial arithmetic. */
	struct topo *t = tc_new("slimfly:q=9,p=6");
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 162);
	CHECK_EQ(t->n_endpoints, 972);
	CHECK_EQ(topo_count_links(t), 1053);
	CHECK_EQ(topo_max_radix(t), 13 + 6);
	CHECK(topo_slimfly_of(t) && topo_slimfly_of(t)->delta == 1 && topo_slimfly_of(t)->kprime == 13);
	topo_free(t);
	t = tc_new("slimfly:q=9");
	if (t) {
		CHECK_STR(t->spec, "slimfly:q=9,p=7");
		topo_free(t);
	}
	/* The MMS graph has diameter 2 and 2q^2 routers of degree (3q-delta)/2
	 * for every admissible prime power; closed-form distance against BFS
	 * and the two-orbit claim. */
	static const uint32_t qs[] = {3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27};
	for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
		char spec[64];
		snprintf(spec, sizeof spec, "slimfly:q=%u,p=1", qs[i]);
		t = tc_new(spec);
		if (!t)
			continue;
		uint32_t q = qs[i];
		int delta = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
		uint32_t k = (uint32_t)((3 * (int)q - delta) / 2);
		CHECK_EQ(t->n_routers, 2 * q * q);
		for (uint32_t r = 0; r < t->n_routers; r++)
			if (topo_router_degree(t, r) != k) {
				TEST_FAIL_("%s: router %u degree %u, expected %u", spec, r, topo_router_degree(t, r), k);
				break;
			}
		uint32_t diam;
		uint64_t sum;
		if (q <= 13) {
			tc_all_pairs(t, &diam, &sum);
			tc_orbits(t);
		} else {
			struct nl_err e = {0};
			CHECK_EQ(topo_all_pairs(t, 2, &diam, &sum, &e), 0);
		}
		CHECK_EQ(diam, 2);
		tc_distance_vs_bfs(t, q <= 11 ? 0 : 20);
		topo_free(t);
	}
	/* Seed 002 §2.2, 80-port routers: delta = 0 holds 2,048 routers and
	 * 49,152 endpoints (q = 32, k' = 48, p = 24). Its k' = 53 system of
	 * about 2,450 routers is q = 35 and its 52,272 endpoints are q = 33
	 * with p = 24: neither is a prime power, so no MMS graph exists there
	 * (docs/topologies.md). */
	t = tc_new("slimfly:q=32,p=24");
	if (t) {
		CHECK_EQ(t->n_routers, 2048);
		CHECK_EQ(t->n_endpoints, 49152);
		CHECK(topo_slimfly_of(t) && topo_slimfly_of(t)->kprime == 48);
		CHECK_UINT(topo_max_radix(t), <=, 80);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("slimfly:q=35", &t, &e), NL_EINVAL, &e, "35 is not a prime power");
	CHECK_ERR(topo_new("slimfly:q=33", &t, &e), NL_EINVAL, &e, "33 is not a prime power");
	CHECK_ERR(topo_new("slimfly:q=6", &t, &e), NL_EINVAL, &e,
		  "topology 'slimfly': parameter 'q': 6 is not a prime power (the MMS construction needs q = p^m = 4w + delta, delta in {-1, 0, 1})");
	CHECK_ERR(topo_new("slimfly:q=2", &t, &e), NL_EINVAL, &e,
		  "parameter 'q': 2 is not 4w + delta with delta in {-1, 0, 1}");
	CHECK_ERR(topo_new("slimfly:q=1", &t, &e), NL_ERANGE, &e, "parameter 'q' value '1' out of range");
}

/* --- Equality ----------------------------------------------------------------- */

/* Network neighbours of router r, sorted. */
static uint32_t sorted_nbrs(const struct topo *t, uint32_t r, uint32_t *out)
{
	uint32_t n = 0;
	for (uint32_t g = t->port_base[r]; g < t->port_base[r + 1]; g++)
		if (topo_port_is_network(t, g)) {
			uint32_t v = t->port_router[t->peer[g]], i = n++;
			while (i > 0 && out[i - 1] > v) {
				out[i] = out[i - 1];
				i--;
			}
			out[i] = v;
		}
	return n;
}

static void test_equality_notation(void)
{
	/* Seed 002 §3.2 and Fig. 1: N14K6[-1,1,3,9](4) has 14 routers and
	 * network radix 6 (K counts router-to-router ports only; Remark 1's
	 * n14k6p3 adds 3 endpoints per router). */
	struct topo *t = tc_new("N14K6[-1,1,3,9](4)");
	if (!t)
		return;
	CHECK_STR(t->ops->name, "equality");
	CHECK_EQ(t->n_routers, 14);
	CHECK_EQ(t->n_endpoints, 0);
	CHECK_EQ(topo_max_radix(t), 6);
	CHECK_EQ(topo_count_links(t), 14 * 6 / 2);
	CHECK_STR(t->spec, "N14K6[-1,1,3,9](4)");
	CHECK(topo_equality_of(t) && topo_equality_of(t)->K == 6);
	/* §3.1: even i links i + s, odd i links i - s. */
	uint32_t nb[16];
	static const uint32_t n0[] = {1, 3, 4, 9, 10, 13}, n1[] = {0, 2, 5, 6, 11, 12};
	CHECK_EQ(sorted_nbrs(t, 0, nb), 6);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(nb[i], n0[i]);
	CHECK_EQ(sorted_nbrs(t, 1, nb), 6);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(nb[i], n1[i]);
	tc_distance_vs_bfs(t, 0);
	tc_orbits(t);
	topo_free(t);

	/* The key=value form and the P part of the notation. */
	t = tc_new("equality:n=14,sa=-1/1/3/9,sb=4,p=3");
	if (t) {
		CHECK_EQ(topo_max_radix(t), 9);
		CHECK_EQ(t->n_endpoints, 42);
		CHECK_STR(t->spec, "N14K6P3[-1,1,3,9](4)");
		topo_free(t);
	}
	t = tc_new("n14k6p3[-1, 1, 3, 9](4)");
	if (t) {
		CHECK_EQ(t->n_endpoints, 42);
		topo_free(t);
	}

	struct nl_err e = {0};
	CHECK_ERR(topo_new("n14k6p3", &t, &e), NL_EINVAL, &e,
		  "'n14k6p3' names a class of Equality networks (Remark 1); give the offsets");
	CHECK_ERR(topo_new("N14K7[-1,1,3,9](4)", &t, &e), NL_EINVAL, &e,
		  "topology 'equality': parameter 'k': the offsets give network radix K = 6 (eq. 1: |S_A| + 2|S_B| - [N/2 in S_B]), not 7");
	CHECK_ERR(topo_new("N14K6[-1,1,3,9](4", &t, &e), NL_EFORMAT, &e, "cannot read 'N14K6[-1,1,3,9](4'");
	/* The brackets swapped: the spec with them the right way round, not
	 * "unknown topology 'N14K6'". */
	CHECK_ERR(topo_new("N14K6(-1,1,3,9)[4]", &t, &e), NL_EFORMAT, &e,
		  "topology 'equality': cannot read 'N14K6(-1,1,3,9)[4]': expected 'N14K6[-1,1,3,9](4)' (the odd offsets S_A in [...], then the even offsets S_B in (...))");
	CHECK_ERR(topo_new("n14k6p3(-1, 1, 3, 9)[]", &t, &e), NL_EFORMAT, &e, "expected 'n14k6p3[-1, 1, 3, 9]()'");
	/* The lists' contents swapped: the spec the right way round, not
	 * "parameter 'sb' value '-1' out of range", a key the notation does
	 * not name. An even S_A with an even S_B is S_A's error, and an odd
	 * S_A with a negative S_B is S_B's. */
	CHECK_ERR(topo_new("N14K6[4](-1,1,3,9)", &t, &e), NL_EFORMAT, &e,
		  "topology 'equality': cannot read 'N14K6[4](-1,1,3,9)': [4] holds even offsets and (-1,1,3,9) odd ones; "
		  "expected 'N14K6[-1,1,3,9](4)' (the odd offsets S_A in [...], then the even offsets S_B in (...))");
	CHECK_ERR(topo_new("n14k6p3[2, 4](-3)", &t, &e), NL_EFORMAT, &e, "expected 'n14k6p3[-3](2, 4)'");
	CHECK_ERR(topo_new("N14K6[4](2)", &t, &e), NL_EINVAL, &e, "parameter 'sa': 4 is even");
	CHECK_ERR(topo_new("N14K6[3](-2)", &t, &e), NL_ERANGE, &e, "parameter 'sb' value '-2' out of range");
	CHECK_ERR(topo_new("N14K6(4)", &t, &e), NL_EFORMAT, &e,
		  "cannot read 'N14K6(4)': expected N<routers>K<radix>[P<endpoints>][odd offsets](even offsets), e.g. N14K6[-1,1,3,9](4)");
	CHECK_ERR(topo_new("N13K6[-1,1,3,9](4)", &t, &e), NL_EINVAL, &e, "parameter 'n': N = 13 must be even");
	/* A K or P without its number, or no K: the notation's fault, not
	 * "unknown topology 'N14K[-1,1,3,9]'" and the list of families. */
	CHECK_ERR(topo_new("N14K[-1,1,3,9](4)", &t, &e), NL_EFORMAT, &e,
		  "topology 'equality': cannot read 'N14K[-1,1,3,9](4)': 'K' is not followed by the network radix; "
		  "expected N<routers>K<radix>[P<endpoints>][odd offsets](even offsets), e.g. N14K6[-1,1,3,9](4)");
	CHECK_ERR(topo_new("N14K6P[-1,1,3,9](4)", &t, &e), NL_EFORMAT, &e,
		  "cannot read 'N14K6P[-1,1,3,9](4)': 'P' is not followed by the endpoints per router; expected");
	CHECK_ERR(topo_new("n14[-1,1,3,9](4)", &t, &e), NL_EFORMAT, &e,
		  "cannot read 'n14[-1,1,3,9](4)': 'n14' is not followed by K and the network radix; expected");
	CHECK_ERR(topo_new("equality:n=14,sa=-1/1/4", &t, &e), NL_EINVAL, &e,
		  "parameter 'sa': 4 is even; S_A holds odd offsets (seed 002 §3.1)");
	CHECK_ERR(topo_new("equality:n=14,sa=-1/1,sb=3", &t, &e), NL_EINVAL, &e,
		  "parameter 'sb': 3 is odd; S_B holds even offsets");
	CHECK_ERR(topo_new("equality:n=14,sa=-1/1,sb=10", &t, &e), NL_ERANGE, &e,
		  "parameter 'sb': 10 is not in 2..N/2 = 7 (an even offset s > N/2 makes the links of N - s, §3.1 footnote 1)");
	CHECK_ERR(topo_new("equality:n=14,sa=-1/1/13", &t, &e), NL_EINVAL, &e,
		  "parameter 'sa': offsets -1 and 13 are equal mod N = 14 and would make the same links");
	CHECK_ERR(topo_new("equality:n=12,sa=3/9", &t, &e), NL_EINVAL, &e,
		  "the offsets leave router 1 unreachable from router 0 (the network is not connected)");
	/* 1,025 odd offsets, one past what the notation holds: it said
	 * "cannot read ...: expected N<routers>K<radix>...", as if the
	 * notation were malformed. */
	static char many[8192];
	char *w = many + sprintf(many, "N5000K1025[1");
	for (int s = 3; s <= 2049; s += 2)
		w += sprintf(w, ",%d", s);
	sprintf(w, "]()");
	CHECK_ERR(topo_new(many, &t, &e), NL_ERANGE, &e,
		  "topology 'equality': parameter 'sa': more than 1024 offsets; expected at most 1024 per set in the "
		  "notation (16 in the key=value form)");
}

/* The notation's N, K and P and its offsets pass the key=value form's
 * range checks with the same messages (seed 002 §3.2 is only a shorthand
 * for the same parameters): N2K1[1]() built a 2-router network, P70000
 * 980,000 endpoints, and N over 2^24 read as "unknown topology". */
static void test_equality_notation_ranges(void)
{
	static const char *const same[][2] = {
		{"N2K1[1]()", "equality:n=2,sa=1"},
		{"N14K6P70000[-1,1,3,9](4)", "equality:n=14,sa=-1/1/3/9,sb=4,p=70000"},
		{"N16777218K2[-1,1]()", "equality:n=16777218,sa=-1/1"},
		{"N99999999999999999999K2[-1,1]()", "equality:n=99999999999999999999,sa=-1/1"},
		{"N14K2000000[-1,1,3,9](4)", "equality:n=14,sa=-1/1/3/9,sb=4,k=2000000"},
		{"N14K-6[-1,1,3,9](4)", "equality:n=14,sa=-1/1/3/9,sb=4,k=-6"},
		{"n14k6p70000", "equality:n=14,sa=-1/1/3/9,sb=4,p=70000"},
	};
	struct topo *t = NULL;
	for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
		struct nl_err ea = {0}, eb = {0};
		CHECK_ERR(topo_new(same[i][1], &t, &eb), NL_ERANGE, &eb, "out of range");
		CHECK_ERR(topo_new(same[i][0], &t, &ea), NL_ERANGE, &ea, "out of range");
		CHECK_STR(ea.msg, eb.msg);
	}
	/* An offset is checked against its list's bounds and named alone. */
	struct nl_err e = {0};
	CHECK_ERR(topo_new("N14K6[-1,1,3,16777217](4)", &t, &e), NL_ERANGE, &e,
		  "topology 'equality': parameter 'sa' value '16777217' out of range: expected a value in -16777216..16777216");
	CHECK_ERR(topo_new("N14K6[-1,1,3,9](-4)", &t, &e), NL_ERANGE, &e,
		  "topology 'equality': parameter 'sb' value '-4' out of range: expected a value in 0..16777216");
	CHECK_ERR(topo_new("N14K6[-1,1,3,9](123456789012345678901234567890)", &t, &e), NL_ERANGE, &e,
		  "parameter 'sb' value '123456789012345678901234567890' out of range");
	/* The largest values in range still build, or fail on their own rule. */
	t = tc_new("N4K2P65536[-1,1]()");
	if (t) {
		CHECK_EQ(t->n_endpoints, 4 * 65536);
		topo_free(t);
	}
}

static void test_equality_structure(void)
{
	/* N/2 as an even offset (one link) and as an odd offset; eq. 1 radix,
	 * closed-form distance against BFS, vertex-transitivity. */
	static const struct {
		const char *spec;
		uint32_t K;
	} cases[] = {
		{"equality:n=20,sa=-1/1/7,sb=4/10", 3 + 2 + 1},
		{"equality:n=14,sa=-1/1/7,sb=2/6", 3 + 4},
		{"equality:n=40,sa=-1/1/5/-11/17,sb=6/16/20,p=2", 5 + 4 + 1},
		{"N38K5[-1,1,11](8)", 5},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct topo *t = tc_new(cases[i].spec);
		if (!t)
			continue;
		for (uint32_t r = 0; r < t->n_routers; r++)
			if (topo_router_degree(t, r) != cases[i].K) {
				TEST_FAIL_("%s: router %u degree %u", cases[i].spec, r, topo_router_degree(t, r));
				break;
			}
		tc_distance_vs_bfs(t, 0);
		tc_orbits(t);
		/* The canonical spec builds the same graph. */
		struct topo *u = tc_new(t->spec);
		if (u) {
			CHECK(u->n_ports == t->n_ports && !memcmp(u->peer, t->peer, t->n_ports * sizeof *t->peer));
			topo_free(u);
		}
		topo_free(t);
	}
}

/* Seed 002's other sizes. §3.3.1: 1,840 routers of network radix 17 take
 * four even offsets (8 ports, N/2 = 920 not among them) and nine odd
 * ones; with 920 among the four even offsets they take 7 ports and ten
 * odd offsets fill radix 17 (eq. 1). §5.5: the 1E system E807,
 * n20000K64p16, 320,000 endpoints on 80-port routers (its offsets are in
 * the paper's Table 3, not in our copy: 64 odd ones here). */
static void test_equality_sizes(void)
{
	static const struct {
		const char *spec;
		uint32_t n_sa, n_sb;
	} r17[] = {
		{"equality:n=1840,sa=-1/1/3/5/7/9/11/13/15,sb=2/4/6/8", 9, 4},
		{"equality:n=1840,sa=-1/1/3/5/7/9/11/13/15/17,sb=2/4/6/920", 10, 4},
	};
	for (size_t i = 0; i < sizeof r17 / sizeof *r17; i++) {
		struct topo *t = tc_new(r17[i].spec);
		if (!t)
			continue;
		const struct topo_equality *q = topo_equality_of(t);
		CHECK(q && q->K == 17);
		CHECK_EQ(t->n_routers, 1840);
		CHECK_EQ(topo_max_radix(t), 17);
		for (uint32_t r = 0; r < t->n_routers; r++)
			if (topo_router_degree(t, r) != 17) {
				TEST_FAIL_("%s: router %u degree %u", r17[i].spec, r, topo_router_degree(t, r));
				break;
			}
		topo_free(t);
	}
	char spec[512] = "N20000K64P16[-1";
	for (int s = 1; s <= 125; s += 2)
		snprintf(spec + strlen(spec), sizeof spec - strlen(spec), ",%d", s);
	strcat(spec, "]()");
	struct topo *t = tc_new(spec);
	if (t) {
		CHECK_EQ(t->n_routers, 20000);
		CHECK_EQ(t->n_endpoints, 320000);
		CHECK_EQ(topo_max_radix(t), 80);
		topo_free(t);
	}
}

/* Seed 002 §5.5: the n64000k64p16 system (E806), 64,000 routers with 80
 * ports and 1,024,000 endpoints. The paper's offsets (its Table 3) are not
 * in our copy, so this uses 48 odd and 8 even offsets spread
 * geometrically; the test checks the construction scales (compact ports,
 * one BFS for all distances) and that the closed form agrees with BFS. */
static const char *const equality_64000 =
	"N64000K64P16[-1,1,3,5,7,9,11,13,15,17,19,21,25,29,37,45,55,67,81,101,123,151,185,227,279,343,423,"
	"519,637,783,963,1183,1455,1787,2195,2699,3315,4075,5007,6153,7561,9291,11419,14031,17243,21189,"
	"26039,31999](4,14,52,188,680,2454,8862,31998)";

static void test_equality_64000(void)
{
	struct topo *t = tc_new(equality_64000);
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 64000);
	CHECK_EQ(t->n_endpoints, 1024000);
	CHECK_EQ(topo_max_radix(t), 80);
	CHECK_EQ(topo_count_links(t), 64000ull * 64 / 2);
	CHECK_STR(t->spec, equality_64000);
	uint32_t diam = 0;
	for (uint32_t j = 0; j < t->n_routers; j++)
		if (topo_equality_of(t)->dist0[j] > diam)
			diam = topo_equality_of(t)->dist0[j];
	CHECK(diam >= 3 && diam <= 5); /* Moore bound: diameter >= 3 for K = 64, N = 64,000 */
	tc_distance_vs_bfs(t, 2);
	topo_free(t);
}

/* --- nD twin torus ------------------------------------------------------------ */

static void test_ndt(void)
{
	/* Seed 004 Table I: 3D tori and 5DT tori with the same PEs (256, 512,
	 * 1,024); §IV: the 5DT reduces distances. PE-to-PE distances in
	 * router hops: a 3D torus PE is its router, a 5DT PE is its card. */
	static const struct {
		const char *torus, *ndt;
		uint32_t pes;
	} table1[] = {
		{"torus:k=8x8x4", "ndt:k=4x4x2x2x2", 256},
		{"torus:k=8x8x8", "ndt:k=4x4x2x4x2", 512},
		{"torus:k=16x8x8", "ndt:k=4x4x2x4x4", 1024},
	};
	for (size_t i = 0; i < sizeof table1 / sizeof *table1; i++) {
		struct topo *a = tc_new(table1[i].torus), *b = tc_new(table1[i].ndt);
		if (!a || !b) {
			topo_free(a);
			topo_free(b);
			continue;
		}
		CHECK_EQ(a->n_endpoints, table1[i].pes);
		CHECK_EQ(b->n_endpoints, table1[i].pes);
		CHECK_EQ(b->n_routers, table1[i].pes);
		/* Every card: n + 1 = 6 network ports (an EXTOLL card) and its PE. */
		for (uint32_t r = 0; r < b->n_routers; r++)
			if (topo_router_degree(b, r) != 6 || topo_router_ports(b, r) != 7) {
				TEST_FAIL_("%s: card %u has %u network ports", table1[i].ndt, r, topo_router_degree(b, r));
				break;
			}
		uint32_t da, db;
		uint64_t sa, sb;
		struct nl_err e = {0};
		CHECK_EQ(topo_all_pairs(a, UINT32_MAX - 1, &da, &sa, &e), 0);
		CHECK_EQ(topo_all_pairs(b, UINT32_MAX - 1, &db, &sb, &e), 0);
		CHECK_UINT(db, <, da);
		CHECK(tc_aspl(b, sb) < tc_aspl(a, sa));
		tc_distance_vs_bfs(b, b->n_routers > 512 ? 64 : 0);
		if (b->n_routers <= 512)
			tc_orbits(b);
		topo_free(a);
		topo_free(b);
	}

	/* Definition 2.2 for 5DT (Fig. 2b): d0, d1 and d2- on card 0; d2+, d3
	 * and d4 on card 1. */
	struct topo *t = tc_new("ndt:k=4x4x3x4x2");
	if (!t)
		return;
	const struct topo_ndt *v = topo_ndt_of(t);
	CHECK_EQ(v->split, 2);
	static const uint8_t card[5][2] = {{0, 0}, {0, 0}, {1, 0}, {1, 1}, {1, 1}};
	static const uint8_t port[5][2] = {{0, 1}, {2, 3}, {0, 4}, {1, 2}, {3, 4}};
	for (int d = 0; d < 5; d++)
		for (int dir = 0; dir < 2; dir++) {
			CHECK_EQ(v->card_of[d][dir], card[d][dir]);
			CHECK_EQ(v->card_port[d][dir], port[d][dir]);
		}
	/* Node 0's d2- port (card 0, port 4) reaches node (0,0,2,0,0)'s d2+
	 * port on its card 1; the internal link joins the two cards. */
	uint32_t w = 2 * v->stride[2];
	CHECK_EQ(t->peer[t->port_base[0] + 4], t->port_base[2 * w + 1] + 0);
	CHECK_EQ(t->peer[t->port_base[0] + 5], t->port_base[1] + 5);
	CHECK_EQ(topo_ep_router(t, 7), 7);
	tc_distance_vs_bfs(t, 0);
	topo_free(t);

	/* 3DT (Fig. 2a) and odd radices; even n splits evenly. */
	static const char *const more[] = {"ndt:k=3x5x4", "ndt:k=5,n=3", "ndt:k=4x3x2x3", "ndt:k=3x3x3x3x3x3x3"};
	for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
		t = tc_new(more[i]);
		if (t) {
			tc_distance_vs_bfs(t, t->n_routers > 1000 ? 30 : 0);
			if (t->n_routers <= 1000)
				tc_orbits(t);
			topo_free(t);
		}
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("ndt:k=4x4", &t, &e), NL_EINVAL, &e,
		  "topology 'ndt': parameter 'k': 2 dimensions; an nD twin torus has n >= 3 (seed 004 Definition 2.1)");
	CHECK_ERR(topo_new("ndt:k=4x1x4", &t, &e), NL_ERANGE, &e, "parameter 'k' value '4x1x4' out of range");
}

/* --- RING-n / DLN -------------------------------------------------------------- */

static void test_dln(void)
{
	/* Seed 003 §4.1: RING-n is a ring plus n-2 random shortcuts at each
	 * switch; every switch has degree n, the ring is kept, no self-loops or
	 * repeated links, and the same seed gives the same graph. */
	struct topo *t = tc_new("dln:n=1024,d=4,p=1,seed=7");
	struct topo *u = tc_new("dln:n=1024,d=4,p=1,seed=7");
	struct topo *w = tc_new("dln:n=1024,d=4,p=1,seed=8");
	if (!t || !u || !w)
		goto out;
	CHECK(!memcmp(t->peer, u->peer, t->n_ports * sizeof *t->peer));
	CHECK(memcmp(t->peer, w->peer, t->n_ports * sizeof *t->peer) != 0);
	for (uint32_t r = 0; r < t->n_routers; r++) {
		uint32_t nb[8];
		CHECK_EQ(sorted_nbrs(t, r, nb), 4);
		for (int i = 0; i < 4; i++)
			if (nb[i] == r || (i && nb[i] == nb[i - 1]))
				TEST_FAIL_("router %u: self-loop or repeated link", r);
		CHECK_EQ(t->port_router[t->peer[t->port_base[r]]], (r + 1) % 1024);
	}
	/* Seed 003 Fig. 3: RING-4 has far lower diameter and average shortest
	 * path length than the same-degree 2DTORUS (32x32 for 2^10 switches:
	 * diameter 32, average 16.02). */
	uint32_t diam;
	uint64_t sum;
	tc_all_pairs(t, &diam, &sum);
	CHECK_UINT(diam, <, 32);
	CHECK(tc_aspl(t, sum) < 16.0 / 1.5);
out:
	topo_free(t);
	topo_free(u);
	topo_free(w);
	t = tc_new("dln:n=64,d=10");
	if (t) {
		for (uint32_t r = 0; r < t->n_routers; r++)
			CHECK_EQ(topo_router_degree(t, r), 10);
		topo_free(t);
	}
	/* Near and at the complete graph (d = n-1, allowed by the docs): every
	 * seed builds a simple d-regular graph that keeps the ring. Before the
	 * complement construction d = n-1 failed for 4 of 10 seeds at n=7. */
	static const uint32_t dense[][2] = {{4, 3}, {6, 5}, {7, 6}, {8, 7}, {10, 9}, {10, 8}, {12, 10},
					    {16, 15}, {16, 14}, {18, 15}, {20, 12}};
	for (size_t c = 0; c < sizeof dense / sizeof *dense; c++)
		for (uint32_t seed = 1; seed <= 12; seed++) {
			char spec[64];
			uint32_t n = dense[c][0], d = dense[c][1], nb[32];
			snprintf(spec, sizeof spec, "dln:n=%u,d=%u,seed=%u", n, d, seed);
			t = tc_new(spec);
			if (!t)
				continue;
			for (uint32_t r = 0; r < n; r++) {
				CHECK_EQ(sorted_nbrs(t, r, nb), d);
				for (uint32_t i = 0; i < d; i++)
					if (nb[i] == r || (i && nb[i] == nb[i - 1]))
						TEST_FAIL_("%s: router %u: self-loop or repeated link", spec, r);
				CHECK_EQ(t->port_router[t->peer[t->port_base[r]]], (r + 1) % n);
			}
			topo_free(t);
		}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("dln:n=15,d=5", &t, &e), NL_EINVAL, &e,
		  "topology 'dln': parameters 'n', 'd': n (d-2) = 45 shortcut ends cannot be paired (must be even)");
	CHECK_ERR(topo_new("dln:n=8,d=8", &t, &e), NL_ERANGE, &e,
		  "parameter 'd': degree 8 needs more than the 8 switches (d <= n-1)");
}

/* A network past the port table (2^30 routers, 2^31 ports or endpoints)
 * is refused in one line naming the parameters, their values, the size
 * they give and the limit: these said "too many endpoints", "more than
 * 2^30 routers" or "N ports / M endpoints is more than supported" with no
 * parameter, value or limit. */
static void test_size_refusals(void)
{
	static const struct {
		const char *spec, *needle;
	} cases[] = {
		{"torus:k=65535x65535",
		 "topology 'torus': parameter 'k' = 65535x65535: 4294836225 routers; expected at most 2^30 (1073741824)"},
		{"torus:k=32768x16384,p=4", "topology 'torus': parameter 'p' = 4 on 536870912 routers (k = 32768x16384): "
					    "2147483648 endpoints; expected fewer than 2^31 (2147483648)"},
		{"mesh:k=16384x16384x4", "topology 'mesh': parameters 'k', 'p' give 1073741824 routers (k = 16384x16384x4) "
					 "of 7 ports each: 7516192768 ports; expected fewer than 2^31 (2147483648)"},
		{"cmesh:k=32768", "topology 'cmesh': parameter 'c' = 4 on 1073741824 routers (k = 32768x32768): 4294967296 "
				  "endpoints; expected fewer than 2^31 (2147483648)"},
		{"hyperx:s=65535x65535",
		 "topology 'hyperx': parameter 's' gives S = 65535x65535: 4294836225 switches; expected at most 2^30"},
		{"hyperx:s=1024x1024,k=1024", "topology 'hyperx': parameter 's' gives S = 1024x1024, K = 1024x1024: 2095104 "
					      "ports per switch to other switches, sum K_d (S_d - 1); expected at most 2^20"},
		{"flatfly:m=256,n=4", "topology 'flatfly': parameter 'm' = 256 on 16777216 switches (S = 256x256x256): "
				      "4294967296 endpoints; expected fewer than 2^31 (2147483648)"},
		{"full:n=46341", "topology 'full': parameters 'n', 'p' give 46341 switches (S = 46341) of 46341 ports each "
				 "(p = 1 of them for terminals): 2147488281 ports; expected fewer than 2^31 (2147483648)"},
		{"dln:n=16777216,d=4096", "topology 'dln': parameters n=16777216, d=4096, p=1 give 16777216 routers, "
					  "68736253952 ports and 16777216 endpoints; expected at most 2^30 (1073741824) "
					  "routers and fewer than 2^31 (2147483648) ports and endpoints"},
		{"equality:n=16777216,sa=-1/1,p=65536", "topology 'equality': parameters n=16777216, p=65536 with radix K=2 "
							"give 16777216 routers, 1099545182208 ports"},
		{"slimfly:q=4093", "topology 'slimfly': parameters q=4093, p=3070 give 33505298 routers"},
		{"dragonfly:a=1024,h=512,p=512", "topology 'dragonfly': parameters a=1024, p=512, h=512, g=524289 give "
						 "536871936 routers"},
		{"flex:nx=65535,ny=65535", "topology 'flex': parameters nx=65535, ny=65535, nz=3, p=131068 give 12884508675 "
					   "routers"},
		{"foldedhypercube:n=24,p=4096", "topology 'foldedhypercube': parameters n=24, p=4096 give 16777216 routers, "
						"69138907136 ports and 68719476736 endpoints"},
		/* ndt said "parameter 'k': more than 2^28 nodes" (no value, no
		 * size), or from 2^28 nodes on "parameters k=1024x512x512, n=0
		 * give ..." with the n it was not given. */
		{"ndt:k=1024x512x513", "topology 'ndt': parameter 'k' gives 537919488 routers (k = 1024x512x513: "
				       "268959744 nodes of two cards) of 5 ports each: 2689597440 ports; expected fewer "
				       "than 2^31 (2147483648)"},
		{"ndt:k=1024x512x512", "topology 'ndt': parameter 'k' gives 536870912 routers (k = 1024x512x512: "
				       "268435456 nodes of two cards) of 5 ports each: 2684354560 ports; expected fewer "
				       "than 2^31 (2147483648)"},
		{"ndt:k=65535,n=16", "topology 'ndt': parameter 'k' gives 2.31527645838486e+77 routers (k = "
				     "65535x65535x65535x65535x65535x65535x65535x65535x65535x65535x65535x65535x65535x65535x"
				     "65535x65535: 1.15763822919243e+77 nodes of two cards) of 18 ports each"},
		/* A tree of more than 2^30 switches said "more than 2^30
		 * switches", naming nothing. */
		{"clos:l=8,r=65535,down=32768,up=32767,n=100",
		 "topology 'clos': parameters l=8, r=65535, n=100, taper=1, down=32768, up=32767, pack=1 give "
		 "4.05573921715029e+31 routers, 1.21672176514509e+32 ports and 100 endpoints; expected at most 2^30"},
		{"clos:l=2,r=65535", "topology 'clos': parameters l=2, r=65535, n=2147385345, taper=1, pack=1 "
				     "give 98302 routers, 6442156035 ports and 2147385345 endpoints; expected at most 2^30"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct topo *t = NULL;
		struct nl_err e = {0};
		CHECK_ERR(topo_new(cases[i].spec, &t, &e), NL_ERANGE, &e, cases[i].needle);
		CHECK(!t);
		CHECK(!strchr(e.msg, '\n'));
	}
}

int main(void)
{
	TEST_RUN(test_fattree);
	TEST_RUN(test_clos_formulas);
	TEST_RUN(test_myriclos_table1);
	TEST_RUN(test_gf);
	TEST_RUN(test_slimfly);
	TEST_RUN(test_equality_notation);
	TEST_RUN(test_equality_notation_ranges);
	TEST_RUN(test_equality_structure);
	TEST_RUN(test_equality_sizes);
	TEST_RUN(test_equality_64000);
	TEST_RUN(test_ndt);
	TEST_RUN(test_dln);
	TEST_RUN(test_size_refusals);
	return test_done();
}
