/* BookSim2's routing function names and netloom's spec for each.
 *
 * One table serves both readers of BookSim's names: `netloom config
 * --from-booksim` (emu/cli/cli_booksim*.c) converts a routing_function on
 * its network, and route_find tells a BookSim user who typed BookSim's
 * name ('-s routing_function=dim_order') netloom's. Two copies drifted.
 * The same holds for the names netloom does not model: both say so. */
#include "route/route.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* BookSim routing_function names (without the _topology suffix BookSim
 * appends) per network, and the netloom spec with the same behaviour.
 * BookSim looks the function up as NAME_TOPOLOGY (routefunc.cpp), so a
 * name is only meaningful with its network. Specs whose algorithm is not
 * registered in this build are refused when the converted network is
 * built (cli_booksim_spec.c's bs_check), not written. `function` is
 * BookSim's C function where its name differs from NAME_TOPOLOGY (a name
 * a reader of BookSim's source may type). */
static const struct {
	const char *network, *name, *spec, *function;
} booksim_routes[] = {
	/* BookSim registers dor_mesh but no dor_torus. */
	{"torus", "dim_order", "dor", NULL},
	{"torus", "valiant", "valiant", NULL},
	{"mesh", "dim_order", "dor", NULL},
	{"mesh", "dor", "dor", NULL},
	{"mesh", "valiant", "valiant", NULL},
	/* xy_yx_mesh / adaptive_xy_yx_mesh (routefunc.cpp): XY or YX per
	 * packet at the source router (at random, or toward the first port
	 * with fewer credits used, random on a tie), XY on the lower
	 * num_vcs / 2 VCs, YX on the upper, every VC at the destination
	 * router: netloom's xyyx on a mesh. An odd num_vcs (BookSim's halves
	 * share the middle VC) is refused by xyyx and named by bs_check. */
	{"mesh", "xy_yx", "xyyx", NULL},
	{"mesh", "adaptive_xy_yx", "xyyx:order=adaptive", NULL},
	/* min_flatfly (registered as ran_min_flatfly) is dimension order
	 * (lowest dimension first) on every VC. */
	{"flatfly", "ran_min", "min:select=first,classes=none", NULL},
	/* valiant_flatfly: dimension order to a random intermediate router,
	 * then to the destination, each phase on its half of the VCs; a
	 * packet that passes its destination router on the way to the
	 * intermediate ejects there. */
	{"flatfly", "valiant", "valiant:shortcut=1", NULL},
	/* ugal_flatfly_onchip and ugal_dragonflynew: BookSim's own rules. */
	{"flatfly", "ugal", "ugal:mode=booksim", "ugal_flatfly_onchip"},
	{"dragonflynew", "ugal", "ugal:mode=booksim", NULL},
	/* xyyx_flatfly / adaptive_xyyx_flatfly: XY or YX per packet, each on
	 * its half of the VCs. */
	{"flatfly", "xyyx", "xyyx", NULL},
	{"flatfly", "adaptive_xyyx", "xyyx:order=adaptive", NULL},
	/* fattree_nca / fattree_anca: a random up-port per hop, or the less
	 * loaded of two random ones. */
	{"fattree", "nca", "nca", NULL},
	{"fattree", "anca", "anca", NULL},
	/* min_dragonflynew is group-minimal (local, global, local through the
	 * group's gateway; VC 0 then 1), not netloom's router-minimal min,
	 * which may cross a third group. */
	{"dragonflynew", "min", "group_min", NULL},
	/* min_anynet: the per-router table of shortest-latency first hops,
	 * every VC on every hop (classes=none: BookSim's rule even where its
	 * channel dependencies are cyclic). */
	{"anynet", "min", "min_anynet:classes=none", NULL},
	/* dest_tag_fly: the destination's digit per stage; one stage
	 * (netloom's fly has n = 1). */
	{"fly", "dest_tag", "dest_tag", NULL},
	/* dor_no_express_cmesh: x then y, every VC, no express channel. */
	{"cmesh", "dor_no_express", "dor", NULL},
	/* xy_yx_no_express_cmesh: XY or YX at random per packet, each on its
	 * half of the VCs. */
	{"cmesh", "xy_yx_no_express", "xyyx", NULL},
};

#define N_BOOKSIM_ROUTES (sizeof booksim_routes / sizeof *booksim_routes)

const char *route_booksim_spec(const char *network, const char *name)
{
	for (size_t i = 0; i < N_BOOKSIM_ROUTES; i++)
		if (!strcmp(network, booksim_routes[i].network) && !strcmp(name, booksim_routes[i].name))
			return booksim_routes[i].spec;
	return NULL;
}

const char *route_booksim_name(const char *network, size_t i)
{
	for (size_t j = 0; j < N_BOOKSIM_ROUTES; j++)
		if (!strcmp(network, booksim_routes[j].network) && i-- == 0)
			return booksim_routes[j].name;
	return NULL;
}

/* Whether full is name "_" network: the key BookSim looks up. */
static bool booksim_is_suffixed(const char *full, const char *name, const char *network)
{
	size_t n = strlen(name);
	return !strncmp(full, name, n) && full[n] == '_' && !strcmp(full + n + 1, network);
}

const char *route_booksim_any(const char *name)
{
	for (size_t i = 0; i < N_BOOKSIM_ROUTES; i++) {
		const char *fn = booksim_routes[i].function;
		if (!strcmp(name, booksim_routes[i].name) || (fn && !strcmp(name, fn)) ||
		    booksim_is_suffixed(name, booksim_routes[i].name, booksim_routes[i].network))
			return booksim_routes[i].spec;
	}
	return NULL;
}

/* BookSim2's routing functions on its torus and mesh (routefunc.cpp's
 * InitializeRoutingMap) that netloom does not model: no spec behaves the
 * same. Both readers say so rather than that the name is unknown. */
static const struct {
	const char *network, *name;
} booksim_unmodelled[] = {
	{"mesh", "dim_order_ni"},
	{"torus", "dim_order_ni"},
	{"torus", "dim_order_bal"},
	{"mesh", "romm"},
	{"mesh", "romm_ni"},
	{"mesh", "min_adapt"},
	{"torus", "min_adapt"},
	{"mesh", "planar_adapt"},
	{"mesh", "limited_adapt"},
	{"torus", "valiant_ni"},
	{"mesh", "chaos"},
	{"torus", "chaos"},
};

const char *route_booksim_unmodelled(const char *name)
{
	for (size_t i = 0; i < sizeof booksim_unmodelled / sizeof *booksim_unmodelled; i++)
		if (!strcmp(name, booksim_unmodelled[i].name) ||
		    booksim_is_suffixed(name, booksim_unmodelled[i].name, booksim_unmodelled[i].network))
			return booksim_unmodelled[i].name;
	return NULL;
}
