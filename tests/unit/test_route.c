/* Unit tests: routing algorithms (emu/route). Registry conformance: every
 * algorithm reaches every destination with VC ranges in range, minimal
 * ones by shortest paths, and the channel-dependency graph (CDG) of all the
 * paths it can produce is acyclic: the deadlock-freedom argument of each
 * file header, checked (Dally & Towles §14.1, Duato's theorem for the
 * deterministic case). Negative controls make sure the checker finds
 * cycles where deadlock is possible. The registry test walks every
 * registered algorithm on one instance of every family it declares, with a
 * synthetic congestion view; min's hash selection is checked to spread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/route.h"
#include "topo/topo.h"
#include "test.h"

#include "route_check.h"

/* One small instance of every topology family (the registry test checks
 * none is missing), so each algorithm is walked on every family it
 * declares. */
static const char *const family_specs[] = {
	"torus:k=4x3",
	"mesh:k=3x3",
	"full:n=5,p=1",
	"fly:k=4",
	"cmesh:k=3,c=4",
	"hyperx:s=3x3,t=1",
	"hypercube:n=3",
	"foldedhypercube:n=4",
	"flatfly:m=3,n=3",
	"flex:nx=3,ny=2,nz=2",
	"dragonfly:a=2,p=1,h=1",
	"fattree:k=2,n=3",
	"clos:l=3,r=8",
	"slimfly:q=5,p=1",
	"equality:n=14,sa=-1/1/3/9,sb=4,p=1",
	"ndt:k=3x4x3",
	"graph:file=" TEST_SRC("tests/data/topo/petersen.edges") ",p=1",
	"anynet:file=" TEST_SRC("tests/data/topo/ring6.anynet"),
	"dln:n=16,d=4,seed=3",
	"myriclos:n=64",
	"p1(torus:k=4x4):trials=2",
	"p2(torus:k=4x4):trials=2",
	"p3(torus:k=4x4):trials=2",
};
#define N_FAMILY_SPECS (sizeof family_specs / sizeof *family_specs)

/* The families ops declares: those it names and those publishing one of
 * the views it reads (route_ops.topo_views), any when neither. */
static int route_supports(const struct route_ops *ops, const struct topo_ops *family)
{
	if (!ops->families && !ops->topo_views)
		return 1;
	if (ops->topo_views & topo_family_views(family))
		return 1;
	for (size_t i = 0; ops->families && ops->families[i]; i++)
		if (!strcmp(ops->families[i], family->name))
			return 1;
	return 0;
}

/* Walk one algorithm (by its registry spec) on every family it declares,
 * with the fewest VCs it accepts and a synthetic congestion view. With
 * `strict` every declared family must accept some VC count; otherwise
 * (parameter variants such as ugal:mode=booksim) a family the variant
 * refuses as unsupported is skipped. With `acyclic` the CDG of every path
 * walked must be acyclic (deterministic algorithms, and adaptive ones
 * whose every channel is deadlock-free by classes or levels). Returns the
 * number of families walked; *reacts says whether any head's candidates
 * changed with the view. */
static int conform_one(const char *spec, const struct route_ops *ops, int *reacts, int strict, int acyclic_req)
{
	int walked = 0;
	*reacts = 0;
	for (size_t f = 0; f < N_FAMILY_SPECS; f++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		if (topo_new(family_specs[f], &t, &e) < 0) {
			TEST_FAIL_("%s: %s", family_specs[f], e.msg);
			continue;
		}
		/* A refused VC count starts with where num_vcs was set, as
		 * read-time errors do (route_vcs_errf): every function's check. */
		int rc = NL_ECONFIG;
		uint32_t vcs = 1;
		for (; vcs <= 16 && rc == NL_ECONFIG; vcs++) {
			rc = route_new_origin(spec, t, vcs, &(struct route_origin){.vcs = "vcs.ini:3"}, &r, &e) < 0 ? e.code : 0;
			if (rc == NL_ECONFIG && strncmp(e.msg, "vcs.ini:3: ", 11))
				TEST_FAIL_("%s on %s, %u VCs: refused without num_vcs's origin: %s", spec,
					   family_specs[f], vcs, e.msg);
		}
		vcs--;
		if (!route_supports(ops, t->ops)) {
			if (rc != NL_EUNSUPPORTED)
				TEST_FAIL_("%s on %s: undeclared family accepted (%d)", spec, family_specs[f], rc);
			route_free(r);
			topo_free(t);
			continue;
		}
		if (rc == NL_EUNSUPPORTED && !strict) {
			topo_free(t);
			continue;
		}
		if (rc) {
			TEST_FAIL_("%s on %s: no VC count up to 16 accepted: %s", spec, family_specs[f], e.msg);
			topo_free(t);
			continue;
		}
		char what[512];
		snprintf(what, sizeof what, "%s on %s with %u VCs", spec, family_specs[f], vcs);
		int rx = 0;
		struct walk_opts o = {.with_view = 1, .seeds = 8, .reacts = &rx};
		int acyclic = check_route(t, r, what, &o);
		if (acyclic_req && !acyclic)
			TEST_FAIL_("%s: cyclic channel dependencies (%s)", what,
				   ops->is_deterministic ? "deterministic algorithm" : "deadlock-free by its header");
		/* hop_pure lets the engine decide on arrival under lookahead_decide
		 * = upstream (flitnet_plan.c): the candidates must not follow the view
		 * (functions deciding at injection decide here at the source). */
		if (r->hop_pure && !ops->decide_at_injection && rx)
			TEST_FAIL_("%s: hop_pure, but its candidates follow the congestion view", what);
		*reacts |= rx;
		walked++;
		route_free(r);
		topo_free(t);
	}
	return walked;
}

static void test_registry_conformance(void)
{
	size_t n, n_topo;
	const struct route_ops *const *all = route_list(&n);
	const struct topo_ops *const *topos = topo_list(&n_topo);
	/* family_specs covers the topology registry. */
	for (size_t i = 0; i < n_topo; i++) {
		int ok = 0;
		for (size_t f = 0; f < N_FAMILY_SPECS; f++) {
			size_t len = strlen(topos[i]->name);
			ok |= !strncmp(family_specs[f], topos[i]->name, len) &&
			      (family_specs[f][len] == ':' || family_specs[f][len] == '(');
		}
		if (!ok)
			TEST_FAIL_("topology family '%s' has no instance in family_specs", topos[i]->name);
	}
	for (size_t i = 0; i < n; i++) {
		CHECK(all[i]->compute && all[i]->inject && all[i]->init && all[i]->help);
		int reacts;
		int walked = conform_one(all[i]->name, all[i], &reacts, 1, all[i]->is_deterministic);
		fprintf(stderr, "  %s: walked on %d families%s\n", all[i]->name, walked,
			reacts ? ", candidates follow the view" : ", candidates independent of the view");
		if (!walked)
			TEST_FAIL_("routing function '%s' runs on no registered topology family", all[i]->name);
	}
	/* min's adaptive selection: its candidate list must be valid under a
	 * view too (the VC allocator makes the choice, so it need not move). */
	int reacts;
	struct nl_err e = {0};
	CHECK(conform_one("min:select=adaptive", route_find("min", &e), &reacts, 1, 0) > 0);
	/* The adaptive functions of issue 11 and their variants, on every
	 * family the registry lets each run on. Those deadlock-free by VC
	 * classes or up*-down* levels must walk an acyclic CDG; BookSim's
	 * own dragonfly rule is walked for reachability only (its cycle is
	 * test_ugal_booksim_cycle). */
	static const struct {
		const char *spec;
		int acyclic;
		int min_walked;
		int adaptive; /* candidates must follow the view */
	} variants[] = {
		{"ugal", 1, 12, 1},
		{"ugal:mode=global", 1, 12, 1},
		{"ugal:inter=group,threshold=4", 1, 2, 1},
		{"ugal:mode=global,inter=group", 1, 2, 1},
		{"ugal:mode=booksim", 0, 3, 1},
		{"nca", 1, 2, 0},
		{"anca", 1, 2, 1},
		{"xyyx", 1, 2, 0},
		{"xyyx:order=adaptive", 1, 2, 1},
		{"flexmin:paths=all", 1, 1, 0},
		{"lbr:n=2,m=2,redraw=0", 1, 12, 0},
		{"valiant", 1, 6, 0},
		{"closad", 1, 2, 1},
		{"closad:threshold=-8", 1, 2, 1},
		{"amin", 1, 1, 1},
		{"eq_ugal", 1, 1, 1},
		{"bgal", 1, 1, 1},
		{"bgal:threshold=0", 1, 1, 1},
		/* Adaptive channels are cyclic by design; the extended escape
		 * graph is checked in test_route_escape.c. */
		{"duato", 0, 4, 1},
		{"updown_adaptive", 0, 20, 1},
		/* BookSim2's every-VC rule on the anynet table: reachability only
		 * (its cycles are test_anynet.c's test_vc_classes). */
		{"min_anynet:classes=none", 0, 1, 0},
		{"min_anynet:classes=hop", 1, 1, 0},
	};
	for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
		char name[16];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(variants[i].spec, ":"), variants[i].spec);
		int walked = conform_one(variants[i].spec, route_find(name, &e), &reacts, 0, variants[i].acyclic);
		fprintf(stderr, "  %s: walked on %d families%s\n", variants[i].spec, walked,
			reacts ? ", candidates follow the view" : ", candidates independent of the view");
		CHECK_INT(walked, >=, variants[i].min_walked);
		CHECK_INT(reacts, ==, variants[i].adaptive);
	}
}

/* Seed 001's Min-AD and DAL leave an escape VC (the upper half of the
 * VCs, dimension order): their full channel-dependency graph is cyclic
 * (the adaptive hops), the extended graph of the escape channels (direct
 * and indirect dependencies, Duato's theorem) must be acyclic, walked
 * over every path with synthetic congestion views (occupancies 0..4;
 * block=4 keeps most adaptive candidates open, so the walk covers them). Negative control: the
 * same walk taking every VC as escape finds the adaptive cycle. */
static void test_escape_cdg(void)
{
	static const struct {
		const char *topo, *spec;
		uint32_t vcs;
	} cases[] = {
		{"hyperx:s=3x3,t=1", "minad:block=4", 2},    {"hyperx:s=3x3,t=1", "minad:block=4", 6},
		{"hyperx:s=3x3x3,t=1", "minad:block=4", 2},  {"hyperx:s=3x3,k=2,t=1", "minad", 2},
		{"flatfly:m=3,n=3", "minad:block=4", 2},     {"hyperx:s=3x3,t=1", "dal:block=4", 2},
		{"hyperx:s=3x3,t=1", "dal:block=4", 6},      {"hyperx:s=4x3,t=1", "dal:block=4", 2},
		{"hyperx:s=4x3,t=1", "dal", 2},              {"hyperx:s=3x3,k=2,t=1", "dal:block=2", 2},
		{"hyperx:s=3x3x2,t=1", "dal:block=4", 2},
		/* The other families with the HyperX view: a hypercube (S = 2)
		 * and a full graph (L = 1), trunked too. */
		{"hypercube:n=3", "minad:block=4", 2},       {"hypercube:n=4", "dal:block=4", 2},
		{"full:n=5,p=1", "minad:block=4", 2},        {"full:n=5,p=1,k=2", "dal:block=2", 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		char what[128];
		snprintf(what, sizeof what, "%s on %s, %u VCs", cases[i].spec, cases[i].topo, cases[i].vcs);
		CHECK_OK(topo_new(cases[i].topo, &t, &e), &e);
		CHECK_OK(route_new(cases[i].spec, t, cases[i].vcs, &r, &e), &e);
		int reacts = 0;
		struct walk_opts o = {.with_view = 1, .seeds = 2, .buf = 4, .reacts = &reacts, .escape = 1,
				      .esc_lo = cases[i].vcs / 2};
		if (!check_route(t, r, what, &o))
			TEST_FAIL_("%s: the escape VCs' extended dependency graph has a cycle", what);
		CHECK(reacts);
		/* Every VC counted as escape: the adaptive cycles show. */
		if (i < 2 || i == 5) {
			struct walk_opts all = {.with_view = 1, .seeds = 2, .buf = 4, .escape = 1, .esc_lo = 0};
			CHECK(!check_route(t, r, what, &all));
		}
		route_free(r);
		topo_free(t);
	}
}

/* BookSim2's routing function names (its routing_function key, alone or
 * with the network BookSim appends): refused with netloom's name for the
 * same routing, where the list of valid names alone left a BookSim user
 * to find it ('-s routing_function=dim_order'). */
static void test_booksim_names(void)
{
	static const struct {
		const char *booksim, *netloom;
	} cases[] = {
		{"dim_order", "dor"},
		{"dim_order_torus", "dor"},
		{"ran_min_flatfly", "min:select=first,classes=none"},
		{"ugal_dragonflynew", "ugal:mode=booksim"},
		{"min_dragonflynew", "group_min"},
		{"adaptive_xyyx_flatfly", "xyyx:order=adaptive"},
		{"nca_fattree", "nca"},
		{"dest_tag_fly", "dest_tag"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct nl_err e = {0};
		char want[256];
		snprintf(want, sizeof want,
			 "unknown routing function '%s': BookSim2's name; netloom's is '%s' ('netloom config "
			 "--from-booksim FILE' converts a BookSim2 configuration)",
			 cases[i].booksim, cases[i].netloom);
		CHECK(route_find(cases[i].booksim, &e) == NULL);
		CHECK_INT(e.code, ==, NL_ENOTFOUND);
		CHECK_STR(e.msg, want);
	}
	/* Other unknown names keep the list and the typo hint. */
	struct nl_err e = {0};
	CHECK(route_find("valiantt", &e) == NULL);
	CHECK(strstr(e.msg, "did you mean 'valiant'? valid: dor, valiant") != NULL);
}

/* The one table of BookSim's names per network (route_booksim.c), which
 * 'config --from-booksim' converts with: a name means what its network
 * makes it (min: group_min on dragonflynew, min_anynet on anynet), and a
 * network lists its names in order. */
static void test_booksim_table(void)
{
	CHECK_STR(route_booksim_spec("dragonflynew", "min"), "group_min");
	CHECK_STR(route_booksim_spec("anynet", "min"), "min_anynet:classes=none");
	CHECK_STR(route_booksim_spec("flatfly", "valiant"), "valiant:shortcut=1");
	CHECK_STR(route_booksim_spec("torus", "valiant"), "valiant");
	CHECK(route_booksim_spec("torus", "dor") == NULL); /* BookSim has no dor_torus */
	CHECK(route_booksim_spec("hypercube", "dim_order") == NULL);
	static const char *const flatfly[] = {"ran_min", "valiant", "ugal", "xyyx", "adaptive_xyyx"};
	size_t i = 0;
	for (; route_booksim_name("flatfly", i); i++)
		CHECK_STR(route_booksim_name("flatfly", i), i < 5 ? flatfly[i] : "");
	CHECK_INT(i, ==, 5);
	CHECK(route_booksim_name("hypercube", 0) == NULL);
	/* BookSim's C function name, where it differs from NAME_NETWORK. */
	CHECK_STR(route_booksim_any("ugal_flatfly_onchip"), "ugal:mode=booksim");
	CHECK_STR(route_booksim_any("xy_yx_no_express_cmesh"), "xyyx");
	CHECK(route_booksim_any("dim_order_hypercube") == NULL);
}

/* BookSim's ugal_dragonflynew puts every phase-0 hop on VC 0: its CDG has
 * a cycle (what the help and docs/engine.md say), and the default mode's
 * hop classes remove it on the same network, walked the same way. */
static void test_ugal_booksim_cycle(void)
{
	struct nl_err e = {0};
	struct topo *t = NULL;
	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2", &t, &e), &e);
	static const struct {
		const char *spec;
		uint32_t vcs;
		int acyclic;
	} cases[] = {{"ugal:mode=booksim", 3, 0}, {"ugal", 6, 1}, {"ugal:mode=global", 6, 1}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct route *r = NULL;
		CHECK_OK(route_new(cases[i].spec, t, cases[i].vcs, &r, &e), &e);
		/* Deep synthetic queues so BookSim's +30 threshold is crossed. */
		struct walk_opts o = {.with_view = 1, .seeds = 24, .buf = 1000};
		CHECK_INT(check_route(t, r, cases[i].spec, &o), ==, cases[i].acyclic);
		route_free(r);
	}
	struct route *r = NULL;
	CHECK_ERR(route_new("ugal:mode=booksim", t, 4, &r, &e), NL_ECONFIG, &e, "needs num_vcs = 3");
	CHECK_ERR(route_new("ugal", t, 5, &r, &e), NL_ECONFIG, &e, "needs num_vcs >= 2 x the diameter = 6");
	topo_free(t);
	/* Fewer groups than BookSim's a*h + 1: parallel global links, which
	 * BookSim's rule cannot spread; refused, the generic modes run. */
	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2,g=5", &t, &e), &e);
	CHECK_ERR(route_new("ugal:mode=booksim", t, 3, &r, &e), NL_EUNSUPPORTED, &e,
		  "this dragonfly has g = 5 (a*h + 1 = 9)");
	CHECK_OK(route_new("ugal", t, 6, &r, &e), &e);
	route_free(r);
	r = NULL;
	topo_free(t);
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	/* It said "needs a topology with at least 2 groups ('torus' has 0)",
	 * not which families have them (traffic nextgroup's refusal does). */
	CHECK_ERR(route_new("ugal:inter=group", t, 8, &r, &e), NL_EUNSUPPORTED, &e,
		  "routing function 'ugal': inter=group needs a topology with at least 2 groups (flex, dragonfly); "
		  "'torus' has 0; use inter=router");
	/* The refusal names the families it runs on (it named two, "BookSim's
	 * dragonfly and flattened butterfly rules", though hyperx runs too). */
	CHECK_ERR(route_new("ugal:mode=booksim", t, 8, &r, &e), NL_EUNSUPPORTED, &e,
		  "runs on dragonfly (BookSim2's ugal_dragonflynew), flatfly and hyperx (its ugal_flatfly_onchip), "
		  "not on topology 'torus'; use mode=local or mode=global");
	CHECK_ERR(route_new("nca", t, 2, &r, &e), NL_EUNSUPPORTED, &e, "does not run on topology 'torus'");
	CHECK_ERR(route_new("xyyx", t, 2, &r, &e), NL_EUNSUPPORTED, &e, "does not run on topology 'torus'");
	topo_free(t);
	/* anca with one draw compares nothing: a queue is refused, not dropped. */
	CHECK_OK(topo_new("fattree:k=4,n=2", &t, &e), &e);
	CHECK_ERR(route_new("anca:choices=1,queue=output", t, 1, &r, &e), NL_ECONFIG, &e,
		  "queue=output compares up-ports and choices=1 draws one (nca)");
	CHECK_OK(route_new("anca:choices=1", t, 1, &r, &e), &e);
	route_free(r);
	r = NULL;
	topo_free(t);
	/* xyyx: BookSim's halves overlap for an odd VC count; refused. */
	CHECK_OK(topo_new("flatfly:m=4,n=3", &t, &e), &e);
	CHECK_ERR(route_new("xyyx", t, 3, &r, &e), NL_ECONFIG, &e, "needs an even num_vcs >= 2");
	/* mode=booksim keeps BookSim's bias: a threshold is refused, as
	 * snapshot= and queue= are outside their modes, not dropped. */
	CHECK_ERR(route_new("ugal:mode=booksim,threshold=30", t, 2, &r, &e), NL_ECONFIG, &e,
		  "threshold=30 applies to mode=local and mode=global only");
	CHECK_OK(route_new("ugal:mode=booksim,threshold=0", t, 2, &r, &e), &e);
	route_free(r);
	topo_free(t);
}


/* Negative controls for the view check: an algorithm that, offered a
 * saturated port and an empty one, keeps preferring the saturated one. */
static int anti_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	struct nl_err e = {0};
	int n = route_find("min", &e)->compute(r, router, in_port, in_vc, p, rng, v, out);
	if (!v || n < 2)
		return n;
	/* Prefer the fullest port: the opposite of adaptive routing. */
	int b = 0;
	for (int i = 1; i < n; i++)
		if (route_view_occ(v, out[i].port, out[i].vc_lo) > route_view_occ(v, out[b].port, out[b].vc_lo))
			b = i;
	for (int i = 0; i < n; i++)
		out[i].prio = (int16_t)(i == b);
	return n;
}

static void test_view_negative(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	const struct route_ops *min = route_find("min", &e);
	struct route_ops anti = *min;
	anti.compute = anti_compute;
	CHECK_OK(topo_new("hypercube:n=3", &t, &e), &e);
	CHECK_OK(route_new("min:select=adaptive", t, 3, &r, &e), &e);
	r->ops = &anti;
	int before = test_failed_checks, reacts = 0;
	fprintf(stderr, "  (negative control: one FAIL line about a saturated port is expected)\n");
	struct walk_opts o = {.with_view = 1, .seeds = 1, .reacts = &reacts};
	check_route(t, r, "anti-adaptive on hypercube:n=3", &o);
	/* It must have been caught: take back the failure it recorded (the
	 * FAIL line above is expected). */
	int caught = test_failed_checks > before;
	test_failed_checks = before;
	CHECK(reacts);
	if (!caught)
		TEST_FAIL_("an algorithm preferring a saturated port passed the view check");
	r->ops = min;
	route_free(r);
	topo_free(t);
}

static void test_dor(void)
{
	CHECK(check_routing("torus:k=5x4", "dor", 2, 1));
	CHECK(check_routing("torus:k=4x4x3", "dor", 4, 1));
	CHECK(check_routing("mesh:k=4x5", "dor", 1, 1));
	/* Negative control: a torus ring without dateline classes has a cyclic
	 * CDG (and deadlocks, test_net's watchdog case). */
	CHECK(!check_routing("torus:k=6", "dor:dateline=0", 1, 1));
}

/* BookSim2's dor_no_express_cmesh: x toward the destination router's
 * column first, then y, every VC, the terminal port at the destination;
 * its dest_tag_fly on the one-stage fly: the destination's port. */
static void test_cmesh_fly(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	struct route_cand c[ROUTE_MAX_CANDS];
	CHECK(check_routing("cmesh:k=4,c=4", "dor", 1, 1));
	CHECK_OK(topo_new("cmesh:k=4,n=2,c=4", &t, &e), &e);
	CHECK_OK(route_new("dor", t, 16, &r, &e), &e);
	for (uint32_t d = 0; r && d < t->n_endpoints; d++) {
		uint32_t dr = topo_ep_router(t, d), dx = dr % 4, dy = dr / 4;
		for (uint32_t cur = 0; cur < t->n_routers; cur++) {
			uint32_t cx = cur % 4, cy = cur / 4;
			struct route_pkt p = {.src_ep = 0, .dst_ep = d, .dst_router = dr};
			int n = r->ops->compute(r, cur, 4, 0, &p, NULL, NULL, c);
			uint32_t want = cx < dx ? 0 : cx > dx ? 1 : cy < dy ? 2 : cy > dy ? 3 : topo_ep_local_port(t, d);
			CHECK_EQ(n, 1);
			CHECK_EQ(c[0].port, want);
			CHECK_EQ(c[0].vc_lo, 0);
			CHECK_EQ(c[0].vc_hi, 15);
		}
	}
	route_free(r);
	topo_free(t);
	r = NULL;
	t = NULL;
	CHECK(check_routing("fly:k=10", "dest_tag", 1, 1));
	CHECK_OK(topo_new("fly:k=10", &t, &e), &e);
	CHECK_OK(route_new("dest_tag", t, 8, &r, &e), &e);
	for (uint32_t d = 0; r && d < 10; d++) {
		struct route_pkt p = {.src_ep = (d + 3) % 10, .dst_ep = d, .dst_router = 0};
		CHECK_EQ(r->ops->compute(r, 0, (d + 3) % 10, 0, &p, NULL, NULL, c), 1);
		CHECK_EQ(c[0].port, d);
		CHECK_EQ(c[0].vc_hi, 7);
	}
	route_free(r);
	topo_free(t);
	t = NULL;
	CHECK_OK(topo_new("mesh:k=4x4", &t, &e), &e);
	CHECK_ERR(route_new("dest_tag", t, 8, &r, &e), NL_EUNSUPPORTED, &e, "dest_tag");
	topo_free(t);
}

/* The spec a run reports names only parameters that mean something on
 * its topology: dor and duato on a mesh, cmesh or hypercube have no ring,
 * so no dateline ('dor:dateline=1' on a mesh said otherwise); on a torus
 * it stays. The spec reported parses to the same parameters. */
static void test_spec_on_family(void)
{
	static const struct {
		const char *topo, *spec, *want;
		uint32_t vcs;
	} cases[] = {
		{"mesh:k=4x4", "dor", "dor", 2},
		{"mesh:k=4x4", "dor:dateline=1", "dor", 2},
		{"mesh:k=4x4", "dor:dateline=0", "dor", 2},
		{"cmesh:k=4,n=2,c=4", "dor", "dor", 2},
		{"torus:k=4x4", "dor", "dor:dateline=1", 2},
		{"torus:k=4x4", "dor:dateline=0", "dor:dateline=0", 2},
		{"hypercube:n=3", "duato", "duato", 4},
		{"mesh:k=4x4", "duato:dateline=0", "duato", 4},
		{"torus:k=4x4", "duato", "duato:dateline=1", 4},
		{"mesh:k=4x4", "valiant", "valiant:shortcut=0", 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		char *canon = NULL;
		CHECK_OK(topo_new(cases[i].topo, &t, &e), &e);
		CHECK_OK(route_new(cases[i].spec, t, cases[i].vcs, &r, &e), &e);
		if (r)
			CHECK_STR(r->spec, cases[i].want);
		CHECK_OK(route_spec_canonical(cases[i].spec, t->ops->name, &canon, &e), &e);
		if (canon)
			CHECK_STR(canon, cases[i].want);
		free(canon);
		route_free(r);
		topo_free(t);
	}
	/* Family unknown: every parameter. */
	struct nl_err e = {0};
	char *canon = NULL;
	CHECK_OK(route_spec_canonical("dor", NULL, &canon, &e), &e);
	if (canon)
		CHECK_STR(canon, "dor:dateline=1");
	free(canon);
}

static void test_valiant(void)
{
	CHECK(check_routing("torus:k=4x3", "valiant", 4, 0));
	CHECK(check_routing("mesh:k=3x4", "valiant", 2, 0));
	/* The HyperX view's families: each phase is dimension order on its
	 * half of the VCs, acyclic through every intermediate. */
	CHECK(check_routing("hypercube:n=4", "valiant", 2, 0));
	CHECK(check_routing("full:n=8", "valiant", 2, 0));
	CHECK(check_routing("full:n=6,k=2", "valiant", 2, 0));
}

static void test_min(void)
{
	CHECK(check_routing("torus:k=4x4", "min", 4, 1));
	CHECK(check_routing("torus:k=4x4", "min:select=adaptive", 4, 1));
	CHECK(check_routing("hypercube:n=4", "min:select=first", 4, 1));
	CHECK(check_routing("flex:nx=3,ny=3,nz=3,p=1", "min:select=adaptive", 4, 1));
	CHECK(check_routing("dragonfly:a=4,p=1,h=1", "min:select=adaptive", 3, 1));
	/* Trees need no classes: up*-down* (auto picks it on trees). */
	CHECK(check_routing("fattree:k=2,n=3", "min:select=adaptive", 1, 1));
	/* Negative control: no classes on a ring. */
	CHECK(!check_routing("torus:k=6", "min:classes=none,select=first", 1, 1));
}

/* `min`'s selection among the minimal ports (the ordered list that
 * select=adaptive returns whole): `first` takes element 0 everywhere;
 * `hash` must take a fixed element per (source, destination, router) and
 * spread over the list, each element of an m-port list taken about 1/m of
 * the time over many flows (ECMP-like). Forcing hash to "first" fails. */
static void check_min_select(const char *topo_spec, uint32_t vcs)
{
	struct topo *t = NULL;
	struct route *ra = NULL, *rf = NULL, *rh = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new(topo_spec, &t, &e), &e);
	CHECK_OK(route_new("min:select=adaptive", t, vcs, &ra, &e), &e);
	CHECK_OK(route_new("min:select=first", t, vcs, &rf, &e), &e);
	CHECK_OK(route_new("min:select=hash", t, vcs, &rh, &e), &e);
	/* hist[m][i]: element i picked from an m-port list. */
	uint64_t hist[ROUTE_MAX_CANDS + 1][ROUTE_MAX_CANDS] = {{0}};
	uint64_t multi = 0, bad = 0;
	struct rng rng;
	rng_init(&rng, 1, RNG_CLASS_ROUTER, 0);
	/* Flows between endpoints' routers, seen at every router. */
	for (uint32_t se = 0; se < t->n_endpoints; se++)
		for (uint32_t r = 0; r < t->n_routers; r++)
			for (uint32_t de = 0; de < t->n_endpoints; de++) {
				uint32_t s = topo_ep_router(t, se), d = topo_ep_router(t, de);
				if (r == d)
					continue;
				struct route_pkt p = {.src_ep = test_src_ep(t, s), .dst_router = d, .dst_ep = de};
				struct route_cand ca[ROUTE_MAX_CANDS], cf[ROUTE_MAX_CANDS], ch[ROUTE_MAX_CANDS];
				struct route_pkt p2 = p, p3 = p;
				int na = ra->ops->compute(ra, r, 0, 0, &p, &rng, NULL, ca);
				int nf = rf->ops->compute(rf, r, 0, 0, &p2, &rng, NULL, cf);
				int nh = rh->ops->compute(rh, r, 0, 0, &p3, &rng, NULL, ch);
				if (nf != 1 || nh != 1 || cf[0].port != ca[0].port) {
					bad++;
					continue;
				}
				int pick = -1;
				for (int i = 0; i < na; i++)
					if (ca[i].port == ch[0].port)
						pick = i;
				if (pick < 0) {
					bad++;
					continue;
				}
				if (na > 1)
					multi++;
				hist[na][pick]++;
			}
	CHECK_UINT(bad, ==, 0);
	CHECK_UINT(multi, >=, 1000); /* enough flows with a choice */
	for (int m = 2; m <= ROUTE_MAX_CANDS; m++) {
		uint64_t tot = 0;
		for (int i = 0; i < m; i++)
			tot += hist[m][i];
		if (tot < 200)
			continue;
		for (int i = 0; i < m; i++)
			if (hist[m][i] * m * 2 < tot || hist[m][i] * m > tot * 2)
				TEST_FAIL_("%s: select=hash picked element %d of %d-port lists %llu times of %llu "
					   "(expected about 1/%d)", topo_spec, i, m, (unsigned long long)hist[m][i],
					   (unsigned long long)tot, m);
	}
	route_free(ra);
	route_free(rf);
	route_free(rh);
	topo_free(t);
}

static void test_min_select(void)
{
	check_min_select("hypercube:n=5", 5);
	check_min_select("torus:k=6x6", 6);
	check_min_select("fattree:k=4,n=3", 1);
	check_min_select("hyperx:s=4x4x3,t=1", 3);
}

/* A route built only to be checked (route_origin's is_check: the analytic
 * backend's session_route_check) skips min's n x n distance table but
 * makes every refusal a run's route makes, in the same words: too few VCs
 * for the diameter, a route past a packet's 254 hops; and builds when a
 * run's would. */
static void test_route_check_only(void)
{
	const struct route_origin check = {.is_check = true};
	struct nl_err run = {0}, e = {0};
	struct topo *t = NULL;
	struct route *r = NULL;
	uint32_t diameter = 0;

	CHECK_OK(topo_new("dln:n=64,d=3", &t, &e), &e);
	CHECK_OK(topo_diameter(t, &diameter, &e), &e);
	CHECK_EQ(route_new("min", t, diameter - 1, &r, &run), NL_ECONFIG);
	CHECK(strstr(run.msg, "needs num_vcs >= the diameter") != NULL);
	CHECK_ERR(route_new_origin("min", t, diameter - 1, &check, &r, &e), NL_ECONFIG, &e, run.msg);
	CHECK_OK(route_new_origin("min", t, diameter, &check, &r, &e), &e);
	CHECK(r && r->is_check);
	route_free(r);
	topo_free(t);

	/* A path of 300 routers: router 0 reaches router 255 in 255 hops. */
	char edges[300 * 12] = "", *w = edges, path[64], spec[96];
	for (int i = 0; i + 1 < 300; i++)
		w += sprintf(w, "%d %d\n", i, i + 1);
	snprintf(path, sizeof path, "%s", test_write_tmp(edges));
	snprintf(spec, sizeof spec, "graph:file=%s,p=1", path);
	CHECK_OK(topo_new(spec, &t, &e), &e);
	CHECK_EQ(route_new("min", t, 255, &r, &run), NL_EINVAL);
	CHECK(strstr(run.msg, "router 0 cannot reach router 255 within 254 hops") != NULL);
	CHECK_ERR(route_new_origin("min", t, 255, &check, &r, &e), NL_EINVAL, &e, run.msg);
	CHECK(r == NULL);
	topo_free(t);
	unlink(path);
}

static void test_route_errors(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hypercube:n=3", &t, &e), &e);
	CHECK_ERR(route_new("dor", t, 2, &r, &e), NL_EUNSUPPORTED, &e,
		  "does not run on topology 'hypercube' (it supports: torus, mesh, cmesh); set routing_function to one that does: "
		  "valiant, min, ugal, xyyx, lbr, minad, closad, dal, duato, updown, updown_adaptive");
	CHECK_ERR(route_new("min:select=hash", t, 2, &r, &e), NL_ECONFIG, &e, "needs num_vcs >= the diameter 3");
	CHECK_ERR(route_new("min:select=best", t, 4, &r, &e), NL_EINVAL, &e, "expected one of first, hash, adaptive");
	CHECK(r == NULL);
	topo_free(t);
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	CHECK_ERR(route_new("valiant", t, 2, &r, &e), NL_ECONFIG, &e, "multiple of 4");
	/* With where num_vcs was set, the refusal starts there, as errors
	 * found while reading the configuration do; without, as before. */
	CHECK_ERR(route_new_origin("dor", t, 3, &(struct route_origin){.vcs = "run.ini:7"}, &r, &e), NL_ECONFIG, &e,
		  "run.ini:7: routing function 'dor' on a torus needs an even num_vcs >= 2");
	CHECK(!strncmp(e.msg, "run.ini:7: ", 11));
	CHECK_ERR(route_new_origin("valiant", t, 2, &(struct route_origin){.vcs = "-s"}, &r, &e), NL_ECONFIG, &e, "-s: routing function 'valiant'");
	CHECK(!strncmp(e.msg, "-s: ", 4));
	CHECK_ERR(route_new("dor", t, 3, &r, &e), NL_ECONFIG, &e, "needs an even num_vcs >= 2");
	CHECK(!strncmp(e.msg, "routing function 'dor'", 22));
	/* The origin is for messages only: nothing else changes. */
	CHECK_OK(route_new_origin("dor", t, 2, &(struct route_origin){.vcs = "-s"}, &r, &e), &e);
	CHECK(r->vcs_origin == NULL);
	route_free(r);
	topo_free(t);
	/* A function's families, named or publishing a view it reads
	 * (route_ops.topo_views), are listed in one order, the topology
	 * registry's: ugal names torus ... ndt and reads the HyperX view of
	 * full, hypercube, hyperx and flatfly; xyyx names mesh and cmesh. */
	CHECK_OK(topo_new("fattree:k=4,n=2", &t, &e), &e);
	CHECK_ERR(route_new("ugal", t, 4, &r, &e), NL_EUNSUPPORTED, &e,
		  "routing function 'ugal' does not run on topology 'fattree' (it supports: torus, mesh, full, hypercube, "
		  "foldedhypercube, hyperx, flatfly, flex, dragonfly, slimfly, equality, ndt); ");
	CHECK_ERR(route_new("xyyx", t, 4, &r, &e), NL_EUNSUPPORTED, &e,
		  "routing function 'xyyx' does not run on topology 'fattree' (it supports: mesh, full, hypercube, hyperx, "
		  "flatfly, cmesh); ");
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_registry_conformance);
	TEST_RUN(test_escape_cdg);
	TEST_RUN(test_booksim_names);
	TEST_RUN(test_booksim_table);
	TEST_RUN(test_ugal_booksim_cycle);
	TEST_RUN(test_view_negative);
	TEST_RUN(test_cmesh_fly);
	TEST_RUN(test_dor);
	TEST_RUN(test_spec_on_family);
	TEST_RUN(test_valiant);
	TEST_RUN(test_min);
	TEST_RUN(test_min_select);
	TEST_RUN(test_route_errors);
	TEST_RUN(test_route_check_only);
	return test_done();
}
