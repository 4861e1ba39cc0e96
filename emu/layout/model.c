/* Cable, cost and power models (presets) and the layout summary.
 *
 * A preset is data: the cabinet, the cable-length rule, the medium rule,
 * the cost lines and the power rule of one paper, with `notes` saying
 * which values the paper states and which are netloom's assumption
 * (docs/layout.md repeats them with the arithmetic against FleX Table 6).
 */
#include "layout/layout.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/registry.h"
#include "topo/topo.h"
#include "topo/topo_tree.h"

/* Shared preset fragments: several papers reuse the same cabinet and the
 * same Besta price lines, so each is written once. */

/* 0.6 m x 2.1 m cabinet pitch with aisle, 42U of 1.75 in (seed 003 §7.1). */
#define LAYOUT_CABINET_06X21 .cab_width_m = 0.6, .cab_depth_m = 2.1, .cab_units = 42, .unit_m = 0.04445

/* Besta and Hoefler SC14 (FleX ref. [4], seed 002 §4, seed 000 §IV-A):
 * FDR10 copper and fibre $/Gbps lines, router $ line, 40 Gbps. */
#define LAYOUT_BESTA_COST                                                                                              \
	.copper_a = 0.4079, .copper_b = 0.5771, .fibre_a = 0.0919, .fibre_b = 7.2745, .router_a = 350.4,               \
	.router_b = -892.3, .gbps = 40.0

/* FleX §IV-A (seed 000): 4 lanes x 0.7 W per used port. */
#define LAYOUT_PORT_POWER .lanes = 4, .mw_per_lane = 700

/* FleX §IV-A (seed 000): EDR 100 Gb/s AOC f(x) = 0.1167x + 4.3410 $/Gbps,
 * EDR switch f(k) = 128k + 15029 $, router-terminal cables 1 m,
 * inter-rack = Manhattan + 2 m [its ref. 3], 4 lanes x 0.7 W per port. */
static const struct layout_model layout_model_flex = {
	.name = "flex",
	.help = "FleX §IV-A (seed 000): EDR 100 Gb/s AOC cables, EDR switches, 4 x 0.7 W per port",
	.notes = "stated: cable 0.1167x+4.3410 $/Gbps (AOC, every cable), router 128k+15029 $, 100 Gbps, "
		 "router-terminal cables 1 m and counted, inter-rack Manhattan + 2 m once per cable, "
		 "4 lanes x 0.7 W per port; assumed: cabinet pitch 0.6 m x 2.1 m (seed 003 §7.1), "
		 "intra-rack router-router cable 1 m (as the terminal cables in the same rack)",
	LAYOUT_CABINET_06X21,
	.intra_m = 1.0,
	.overhead_m = 2.0,
	.overhead_per_end = false,
	.terminal_m = 1.0,
	.count_terminals = true,
	.copper_max_m = -1.0,
	.copper_a = 0.1167, .copper_b = 4.3410,
	.fibre_a = 0.1167, .fibre_b = 4.3410,
	.router_a = 128.0, .router_b = 15029.0,
	.gbps = 100.0,
	LAYOUT_PORT_POWER,
};

/* Slim Fly cost model (Besta and Hoefler SC14, FleX ref. [4]; the lines
 * are quoted in seed 002 §4 and the router slope in seed 000 §IV-A). */
static const struct layout_model layout_model_besta = {
	.name = "besta",
	.help = "Slim Fly paper's cost model (FleX ref. [4], lines quoted by seed 002 §4): FDR10 copper and fibre",
	.notes = "stated (seed 002 §4, seed 000 §IV-A): copper 0.4079x+0.5771, fibre 0.0919x+7.2745 $/Gbps, "
		 "router 350.4k-892.3 $ (FDR10 switch: 40 Gbps); assumed: copper inside a cabinet, fibre "
		 "between cabinets, cabinet pitch 0.6 m x 2.1 m and 2 m intra-cabinet cables with a 2 m "
		 "overhead per inter-cabinet cable, terminal cables 1 m counted, 4 lanes x 0.7 W per port",
	LAYOUT_CABINET_06X21,
	.intra_m = 2.0,
	.overhead_m = 2.0,
	.overhead_per_end = false,
	.terminal_m = 1.0,
	.count_terminals = true,
	.copper_max_m = 1e9,
	.copper_intra_only = true,
	LAYOUT_BESTA_COST,
	LAYOUT_PORT_POWER,
};

/* Equality §4 (seed 002): 1 m x 1 m cabinets without aisle, 1U modules,
 * routers at the top, a tray 1 m above the cabinets, 0.5 m from the
 * cabinet side to the port, copper up to 8 m, the Besta cost lines. */
static const struct layout_model layout_model_equality = {
	.name = "equality",
	.help = "Equality §4 (seed 002): 1 m x 1 m 42U cabinets, overhead tray, copper <= 8 m else fibre",
	.notes = "stated: cabinet 1 m x 1 m without aisle, 42U, 1U per router and endpoint, routers at the "
		 "top, tray 1 m above the cabinet, 0.5 m side distance per end (adjacent modules: 1.04445 m), "
		 "copper <= 8 m else fibre, Besta's cost lines; assumed: 40 Gbps (FDR10, as besta), "
		 "terminal cables at the adjacent-module length 1.04445 m and counted, 4 lanes x 0.7 W",
	.cab_width_m = 1.0,
	.cab_depth_m = 1.0,
	.cab_units = 42,
	.unit_m = 0.04445,
	.intra_m = 0.0,
	.overhead_m = 0.0,
	.side_m = 0.5,
	.vertical = true,
	.tray_m = 1.0,
	.terminal_m = 1.04445,
	.count_terminals = true,
	.copper_max_m = 8.0,
	LAYOUT_BESTA_COST,
	LAYOUT_PORT_POWER,
};

/* Swap-and-randomize §7.1 (seed 003): lengths only; the paper gives no
 * prices, so the Besta lines stand in. */
static const struct layout_model layout_model_fujiwara = {
	.name = "fujiwara",
	.help = "swap-and-randomize §7.1 (seed 003): 0.6 m x 2.1 m cabinets, 2 m intra, 2 m overhead per end",
	.notes = "stated: cabinet 0.6 m wide x 2.1 m deep with aisle, 2 m intra-cabinet cables, 2 m overhead "
		 "at each cabinet of an inter-cabinet cable, terminal cables ignored; assumed (the paper has "
		 "no prices or power): Besta's cost lines with copper inside a cabinet, 40 Gbps, 4 x 0.7 W",
	LAYOUT_CABINET_06X21,
	.intra_m = 2.0,
	.overhead_m = 2.0,
	.overhead_per_end = true,
	.terminal_m = 0.0,
	.count_terminals = false,
	.copper_max_m = 1e9,
	.copper_intra_only = true,
	LAYOUT_BESTA_COST,
	LAYOUT_PORT_POWER,
};

/* HyperX §5 (seed 001): enclosures of S1 switches on a 2-D floor, 1.2 m
 * pitch in both directions plus one metre of overhead per cable, every
 * cable optical; the switch sits on the board of its terminals ("Each
 * board thus comprises 16 terminal nodes and one switch", 32 boards an
 * enclosure), so a board fills one slot, its terminals in it, and the
 * 128K system's enclosure holds 32 of 42U. The paper gives no prices,
 * power or backplane lengths. */
static const struct layout_model layout_model_hyperx = {
	.name = "hyperx",
	.help = "HyperX §5 (seed 001): enclosures at a 1.2 m pitch, 1 m overhead per cable, all optical",
	.notes = "stated: enclosure pitch 1.2 m in each dimension, 1 m overhead per inter-enclosure cable, "
		 "all cables optical, switch on the board of its terminals (no terminal cables; one slot for both); assumed "
		 "(the paper gives no prices, power or backplane lengths): intra-enclosure links 1 m "
		 "(the optical backplane; as flex's intra-rack cable), Besta's fibre and router lines, "
		 "40 Gbps, 4 x 0.7 W per port",
	.cab_width_m = 1.2,
	.cab_depth_m = 1.2,
	.cab_units = 42,
	.endpoints_on_board = true,
	.unit_m = 0.04445,
	.intra_m = 1.0,
	.overhead_m = 1.0,
	.overhead_per_end = false,
	.terminal_m = 0.0,
	.count_terminals = false,
	.copper_max_m = -1.0,
	LAYOUT_BESTA_COST,
	LAYOUT_PORT_POWER,
};

static const struct layout_model *const layout_models[] = {
	&layout_model_flex,
	&layout_model_besta,
	&layout_model_equality,
	&layout_model_fujiwara,
	&layout_model_hyperx,
};

const struct layout_model *const *layout_model_list(size_t *n)
{
	*n = sizeof layout_models / sizeof *layout_models;
	return layout_models;
}

const struct layout_model *layout_model_find(const char *name, struct nl_err *err)
{
	return registry_find((const void *const *)layout_models, sizeof layout_models / sizeof *layout_models, name,
			     "cost preset", err);
}

const double layout_class_max_m[LAYOUT_N_CLASSES - 1] = {1, 2, 5, 10, 20, 50};

double layout_cabinet_distance(const struct layout *lo, const struct layout_model *m, uint32_t a, uint32_t b)
{
	uint32_t ca = lo->cell[a], cb = lo->cell[b];
	uint32_t ra = ca / lo->cols, xa = ca % lo->cols, rb = cb / lo->cols, xb = cb % lo->cols;
	uint32_t dx = xa > xb ? xa - xb : xb - xa, dy = ra > rb ? ra - rb : rb - ra;
	return dx * m->cab_width_m + dy * m->cab_depth_m;
}

/* Length of a cable between U slot sa of cabinet ca and slot sb of cabinet
 * cb (docs/layout.md, "Cables"). */
static double layout_cable_length(const struct layout *lo, const struct layout_model *m, uint32_t ca, uint32_t sa,
				  uint32_t cb, uint32_t sb)
{
	if (ca == cb) {
		double v = 0;
		if (m->vertical)
			v = (sa > sb ? sa - sb : sb - sa) * m->unit_m;
		return m->intra_m + 2 * m->side_m + v;
	}
	double len = layout_cabinet_distance(lo, m, ca, cb) + 2 * m->side_m;
	len += m->overhead_per_end ? 2 * m->overhead_m : m->overhead_m;
	if (m->vertical)
		len += 2 * m->tray_m + (sa + sb) * m->unit_m;
	return len;
}

/* Length of the cable joining routers a and b. */
static double layout_link_length(const struct layout *lo, const struct layout_model *m, uint32_t a, uint32_t b)
{
	return layout_cable_length(lo, m, lo->cabinet[a], lo->slot[a], lo->cabinet[b], lo->slot[b]);
}

/* Whether endpoint e sits in another cabinet than its router r (node-only
 * cabinets, layout.h ep_cabinet). */
static bool layout_ep_apart(const struct layout *lo, uint32_t e, uint32_t r)
{
	return lo->ep_cabinet && lo->ep_cabinet[e] != lo->cabinet[r];
}

/* Length of endpoint e's cable to its router r: the preset's terminal
 * length in one cabinet, an inter-cabinet cable from a node-only one. */
static double layout_terminal_length(const struct layout *lo, const struct layout_model *m, uint32_t e, uint32_t r)
{
	if (!layout_ep_apart(lo, e, r))
		return m->terminal_m;
	return layout_cable_length(lo, m, lo->cabinet[r], lo->slot[r], lo->ep_cabinet[e], lo->ep_slot[e]);
}

void layout_port_lengths(const struct layout *lo, const struct layout_model *m, double *len)
{
	const struct topo *t = lo->t;
	for (uint32_t g = 0; g < t->n_ports; g++) {
		uint32_t p = t->peer[g];
		if (p == TOPO_NONE)
			len[g] = 0;
		else if (p & TOPO_EP_BIT)
			len[g] = layout_terminal_length(lo, m, p & ~TOPO_EP_BIT, t->port_router[g]);
		else
			len[g] = layout_link_length(lo, m, t->port_router[g], t->port_router[p]);
	}
}

static bool layout_is_copper(const struct layout_model *m, double len, bool intra)
{
	if (m->copper_max_m < 0)
		return false;
	if (m->copper_intra_only && !intra)
		return false;
	return len <= m->copper_max_m;
}

/* Cost of `n` cables of one medium totalling `len_m` metres: the preset's
 * $/Gbps line (a per metre + b per cable) times the link rate. */
static double layout_cable_cost(const struct layout_model *m, bool copper, double len_m, double n)
{
	return copper ? (m->copper_a * len_m + m->copper_b * n) * m->gbps : (m->fibre_a * len_m + m->fibre_b * n) * m->gbps;
}

/* Lengths are summed in whole micrometres (every preset's dimensions are
 * exact there), so a total does not depend on the order cables are visited:
 * a permuted topology's total equals its base's to the bit. Cable cost is
 * linear in length, so each medium's cost is computed from its totals. */
#define LAYOUT_UM 1e6

/* One router part's price, a*radix + b. A line fitted to real switches
 * (Besta and Hoefler SC14: 350.4k - 892.3, seed 002 §4) is negative below
 * its domain (k <= 2 there); a part costs no less than $0, and *floored
 * says the line was cut there. */
static double layout_router_price(const struct layout_model *m, uint32_t radix, bool *floored)
{
	double price = m->router_a * radix + m->router_b;
	*floored = price < 0;
	return price < 0 ? 0 : price;
}

/* Terminal cables by where they run: n_home in their router's cabinet
 * (the preset's terminal length), the others from a node-only cabinet,
 * by medium with their lengths in micrometres. */
struct layout_terminals {
	uint64_t n_home, n_cu, n_fi;
	int64_t cu_um, fi_um;
};

static void layout_count_terminal(const struct layout *lo, const struct layout_model *m, uint32_t e, uint32_t r,
				  struct layout_terminals *term)
{
	if (!layout_ep_apart(lo, e, r)) {
		term->n_home++;
		return;
	}
	double len = layout_terminal_length(lo, m, e, r);
	int64_t um = llround(len * LAYOUT_UM);
	if (layout_is_copper(m, len, false)) {
		term->n_cu++;
		term->cu_um += um;
	} else {
		term->n_fi++;
		term->fi_um += um;
	}
}

int layout_check_radix(const struct topo *t, uint32_t radix, struct nl_err *err)
{
	if (radix && radix < topo_max_radix(t))
		return nl_errf(err, NL_ECONFIG, "--radix: value %u: expected at least %u (the ports of %s's largest router)",
			       radix, topo_max_radix(t), t->spec);
	return 0;
}

/* The fullest cabinet and the cabinets over cab_units, in U: a router
 * and an endpoint 1U each, except under a preset whose endpoints sit on
 * their router's board (endpoints_on_board), where an endpoint in its
 * router's cabinet takes no unit of its own; node-only cabinets (ep_cabinet)
 * keep their endpoints' units, they are not on a switch's board. */
static int layout_fill(const struct layout *lo, const struct layout_model *m, struct layout_summary *s,
		       struct nl_err *err)
{
	uint32_t *on_board = NULL;
	if (m->endpoints_on_board && !lo->ep_cabinet) {
		on_board = calloc(lo->n_cabinets ? lo->n_cabinets : 1, sizeof *on_board);
		if (!on_board)
			return nl_errf(err, NL_ENOMEM, "layout: out of memory");
		for (uint32_t e = 0; e < lo->t->n_endpoints; e++)
			on_board[lo->cabinet[topo_ep_router(lo->t, e)]]++;
	}
	for (uint32_t c = 0; c < lo->n_cabinets; c++) {
		uint32_t u = lo->units[c] - (on_board ? on_board[c] : 0);
		if (u > s->max_units)
			s->max_units = u;
		if (u > m->cab_units)
			s->over_units++;
	}
	free(on_board);
	return 0;
}

int layout_summarise(const struct layout *lo, const struct layout_model *m, uint32_t radix,
		     struct layout_summary *s, struct nl_err *err)
{
	const struct topo *t = lo->t;
	int64_t len_um = 0, cu_um = 0, fi_um = 0, max_um = 0;
	struct layout_terminals term = {0};
	if (!lo->cell)
		return nl_errf(err, NL_ESTATE, "layout: cabinets not placed on the floor yet");
	NL_CHECK(layout_check_radix(t, radix, err));
	*s = (struct layout_summary){0};
	s->routers = t->n_routers;
	s->endpoints = t->n_endpoints;
	s->cabinets = lo->n_cabinets;
	s->rows = lo->rows;
	s->cols = lo->cols;
	s->radix = radix ? radix : topo_max_radix(t);

	/* Every cable once: at its lower-numbered port. */
	for (uint32_t g = 0; g < t->n_ports; g++) {
		uint32_t p = t->peer[g];
		if (p == TOPO_NONE)
			continue;
		s->ports_used++;
		if (p & TOPO_EP_BIT) {
			if (m->count_terminals)
				layout_count_terminal(lo, m, p & ~TOPO_EP_BIT, t->port_router[g], &term);
			continue;
		}
		if (p < g)
			continue;
		uint32_t a = t->port_router[g], b = t->port_router[p];
		bool intra = lo->cabinet[a] == lo->cabinet[b];
		double len = layout_link_length(lo, m, a, b);
		int64_t um = llround(len * LAYOUT_UM);
		uint32_t c = 0;
		while (c < LAYOUT_N_CLASSES - 1 && len > layout_class_max_m[c])
			c++;
		s->links++;
		s->by_class[c]++;
		if (intra)
			s->intra_links++;
		else
			s->inter_links++;
		len_um += um;
		if (um > max_um)
			max_um = um;
		if (layout_is_copper(m, len, intra)) {
			s->copper++;
			cu_um += um;
		} else {
			s->fibre++;
			fi_um += um;
		}
	}
	s->length_m = (double)len_um / LAYOUT_UM;
	s->copper_m = (double)cu_um / LAYOUT_UM;
	s->fibre_m = (double)fi_um / LAYOUT_UM;
	s->max_m = (double)max_um / LAYOUT_UM;
	s->mean_m = s->links ? s->length_m / (double)s->links : 0;
	s->cost_copper = layout_cable_cost(m, true, s->copper_m, (double)s->copper);
	s->cost_fibre = layout_cable_cost(m, false, s->fibre_m, (double)s->fibre);
	s->terminal_cables = term.n_home + term.n_cu + term.n_fi;
	/* In whole micrometres too: 5 cables of 1.04445 m were 5.222250000000001 m. */
	s->terminal_length_m =
		(double)(llround(m->terminal_m * LAYOUT_UM) * (int64_t)term.n_home + term.cu_um + term.fi_um) / LAYOUT_UM;
	s->cost_terminals = layout_cable_cost(m, layout_is_copper(m, m->terminal_m, true), m->terminal_m * term.n_home,
					      (double)term.n_home) +
			    layout_cable_cost(m, true, (double)term.cu_um / LAYOUT_UM, (double)term.n_cu) +
			    layout_cable_cost(m, false, (double)term.fi_um / LAYOUT_UM, (double)term.n_fi);
	/* The parts bought: one per router, except that a tree may package
	 * several small core switches in one physical switch (seed 001
	 * §4.1: clos pack=1, P = 415 for l=3,r=32,n=4096,taper=2x1). */
	const struct topo_tree *tr = topo_tree_of(t);
	s->parts = tr ? topo_tree_physical_switches(tr) : t->n_routers;
	s->ports_part = (uint64_t)s->radix * s->parts;
	s->cost_routers = layout_router_price(m, s->radix, &s->router_price_floored) * s->parts;
	s->cost_total = s->cost_routers + s->cost_copper + s->cost_fibre + s->cost_terminals;
	s->power_w = (double)(s->ports_used * m->lanes * m->mw_per_lane) / 1000.0;
	s->power_part_w = (double)(s->ports_part * m->lanes * m->mw_per_lane) / 1000.0;
	return layout_fill(lo, m, s, err);
}
