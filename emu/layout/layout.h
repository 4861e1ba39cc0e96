/* Layout: routers in cabinets, cabinets on a machine-room floor, cables
 * with lengths, and the cost and power of the whole (docs/layout.md).
 *
 * Three steps, each a pure function of its inputs:
 *   1. layout_pack(): a packaging rule assigns every router to a cabinet
 *      (and a slot inside it). Rules are one table in pack.c, chosen by the
 *      closed-form view a topology publishes (never by family name).
 *   2. layout_place_rule() or layout_place_anneal(): cabinets go to cells
 *      of a rows x cols floor grid, in the rule's own order or by seeded
 *      simulated annealing on the total cable length (seed 003 §7.1).
 *   3. layout_port_lengths() / layout_report(): every cable's length under
 *      a cable/cost model (a preset, `struct layout_model`), then cables by
 *      class, total and mean length, cost by part and power.
 * A struct layout never changes after step 2; it borrows the topology.
 */
#ifndef NETLOOM_LAYOUT_LAYOUT_H
#define NETLOOM_LAYOUT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/param.h"

struct nl_err;
struct topo;

/* --- models (presets) ------------------------------------------------------
 *
 * One preset fixes the cabinet, the cable-length rule, the cable medium
 * rule, the cost lines and the power rule. `notes` says, per value, which
 * the paper states and which netloom assumes (printed by `netloom cost
 * --list-presets`, repeated in docs/layout.md). Cost of a cable of length
 * x metres = (a * x + b) $/Gbps * gbps; cost of a router with k ports =
 * router_a * k + router_b $. */
struct layout_model {
	const char *name;       /* "flex" */
	const char *help;       /* one line: source */
	const char *notes;      /* stated vs assumed, one paragraph */

	/* Cabinet and floor. */
	double cab_width_m;     /* floor pitch along a row (x) */
	double cab_depth_m;     /* floor pitch between rows (y), aisle included */
	uint32_t cab_units;     /* rack units per cabinet (42) */
	bool endpoints_on_board; /* a router's endpoints share its board and take no
				  * unit of their own (HyperX §5: a board is one
				  * switch and its 16 terminals) */
	double unit_m;          /* height of one U: 0.04445 m */

	/* Cable length: intra-cabinet router-router cables are intra_m + 2
	 * side_m + vertical (|slot difference| U when `vertical`); inter-cabinet
	 * cables are the Manhattan distance between the cabinets plus overhead_m
	 * (once, or at each end when overhead_per_end) plus 2 side_m plus, when
	 * `vertical`, each end's run from its slot up to a tray tray_m above the
	 * cabinet top. Router-endpoint cables are terminal_m. */
	double intra_m;
	double overhead_m;
	bool overhead_per_end;
	double side_m;
	bool vertical;
	double tray_m;
	double terminal_m;
	bool count_terminals;   /* cost and count router-endpoint cables */

	/* Medium: copper when length <= copper_max_m (and, with
	 * copper_intra_only, only inside a cabinet); fibre otherwise.
	 * copper_max_m < 0: every cable is fibre. */
	double copper_max_m;
	bool copper_intra_only;

	/* Cost lines. */
	double copper_a, copper_b; /* $/Gbps per metre, $/Gbps */
	double fibre_a, fibre_b;   /* $/Gbps per metre, $/Gbps */
	double router_a, router_b; /* $ per port, $ */
	double gbps;               /* link bandwidth */

	/* Power: ports x lanes x W per lane. */
	uint32_t lanes;
	uint32_t mw_per_lane; /* milliwatts per lane (integer: power sums exactly) */
};

/* All presets in registry order; *n gets the count. */
const struct layout_model *const *layout_model_list(size_t *n);

/* Preset by name, or NULL with *err listing the valid names. */
const struct layout_model *layout_model_find(const char *name, struct nl_err *err);

/* --- packaging rules ------------------------------------------------------- */

struct layout;

/* A packaging rule. `applies` says whether the topology has the structure
 * the rule needs (a closed-form view); `pack` fills lo->cabinet[],
 * lo->n_cabinets and, when the rule has its own floor order, lo->rule_cell[]
 * with lo->rule_rows x lo->rule_cols. */
struct layout_rule {
	const char *name;  /* "flex-fig7" */
	const char *help;  /* one line: the rule and its source */
	bool (*applies)(const struct topo *t);
	int (*pack)(const struct topo *t, struct layout *lo, struct nl_err *err);
};

/* All rules in the order they are tried; *n gets the count. The last one
 * ("canonical") applies to every topology. */
const struct layout_rule *const *layout_rule_list(size_t *n);

/* --- the layout ------------------------------------------------------------ */

#define LAYOUT_NONE UINT32_MAX

struct layout {
	const struct topo *t;           /* borrowed; must outlive the layout */
	const struct layout_rule *rule; /* the rule that packed it */
	uint32_t per_cabinet;           /* canonical rule: routers per cabinet */

	uint32_t n_cabinets;
	uint32_t *cabinet;      /* [n_routers] cabinet of each router */
	uint32_t *slot;         /* [n_routers] U position of the router from its cabinet's top */
	uint32_t *units;        /* [n_cabinets] U used: routers + endpoints (1U each) */
	/* Endpoints in cabinets of their own (a family whose cabinets include
	 * router-less ones: Myrinet Clos's node-only cabinets, seed 003
	 * Table 1): cabinet and slot of each endpoint; NULL when every
	 * endpoint sits in its router's cabinet. */
	uint32_t *ep_cabinet, *ep_slot;

	/* The rule's own floor order (rule_cell NULL when it has none). */
	uint32_t rule_rows, rule_cols;
	uint32_t *rule_cell;    /* [n_cabinets] row * rule_cols + col */

	/* Floor placement (after layout_place_*). */
	uint32_t rows, cols;
	uint32_t *cell;         /* [n_cabinets] row * cols + col */
	bool is_annealed;
	uint64_t iterations;    /* annealing: per trial */
	uint32_t trials;        /* annealing: independent trials, best kept */
	uint64_t seed;          /* annealing: the placement's random streams */
	uint32_t best_trial;
	/* Progress of layout_place_anneal (borrowed; set it after
	 * layout_pack, which clears the struct): NULL = silent. */
	struct progress *progress;
};

/* Pack the routers of t into cabinets. rule_name NULL: the first rule in
 * layout_rule_list() that applies; "canonical" forces canonical order with
 * per_cabinet routers per cabinet (0 = seed 003 §4.1/§6: 16, or 8 for
 * 64-router networks). On failure nothing is allocated. */
int layout_pack(struct layout *lo, const struct topo *t, const char *rule_name, uint32_t per_cabinet,
		struct nl_err *err);

/* The canonical rule's routers per cabinet when none is given
 * (per_cabinet 0): 16, or 8 for the 64-router networks of seed 003 §6. */
uint32_t layout_canonical_per_default(const struct topo *t);

/* Free a layout's arrays (the struct is the caller's). */
void layout_release(struct layout *lo);

/* Place cabinets in the rule's own order (when it has one), else row-major
 * on a grid of q = ceil(sqrt(c)) rows of ceil(c / q) cabinets (seed 003
 * §7). */
int layout_place_rule(struct layout *lo, struct nl_err *err);

/* Place cabinets on the q x r grid by simulated annealing minimising the
 * total Manhattan distance of the inter-cabinet cables (seed 003 §7.1):
 * `trials` independent runs of `iterations` swap moves each, random stream
 * (seed, RNG_CLASS_PLACEMENT, trial), the shortest kept (earliest on ties).
 * The objective depends only on the number of links between each pair of
 * cabinets, so two topologies with the same cabinet-pair link counts (a
 * topology and its P1/P2/P3 permutation) get the same placement. The model
 * gives the cabinet pitch. The trials run on `threads` threads (the
 * caller's among them; 0 = one per online processor; at most `trials`),
 * fewer when memory or a thread cannot be had (noted for the command's
 * warning: nl_thread_short_note): the placement, its length and
 * best_trial are the same for every count. lo->progress, if set, is
 * drawn from the caller's thread only. NL_ENOMEM when even one thread's
 * arrays cannot be allocated (lo unchanged). */
int layout_place_anneal(struct layout *lo, const struct layout_model *m, uint64_t iterations, uint32_t trials,
			uint64_t seed, uint32_t threads, struct nl_err *err);

/* --- cables, cost, power ------------------------------------------------- */

/* Length in metres of the cable at every global port of the topology
 * (len[] has t->n_ports entries; both ends of a link get the same value;
 * terminal ports get m->terminal_m; unconnected ports 0). This is the form
 * a later session layer turns into per-link latencies (cable_latency). */
void layout_port_lengths(const struct layout *lo, const struct layout_model *m, double *len);

/* Length class upper bounds in metres for the histogram; the last class
 * is everything longer. */
#define LAYOUT_N_CLASSES 7
extern const double layout_class_max_m[LAYOUT_N_CLASSES - 1];

struct layout_summary {
	uint32_t routers, endpoints, cabinets, rows, cols;
	uint32_t parts;            /* physical router parts priced: routers, fewer when a tree
				    * packages core switches together (topo_tree per_package) */
	uint32_t radix;            /* ports per router used for router cost */
	uint64_t links;            /* router-router links */
	uint64_t intra_links, inter_links;
	uint64_t ports_used;       /* connected ports (network + terminal) */
	uint64_t ports_part;       /* parts x radix */
	uint64_t copper, fibre;    /* router-router cables by medium */
	uint64_t by_class[LAYOUT_N_CLASSES]; /* router-router cables by length class */
	double length_m;           /* total router-router cable length */
	double copper_m, fibre_m;
	double mean_m, max_m;
	double terminal_length_m;  /* router-endpoint cables (when counted) */
	uint64_t terminal_cables;
	double cost_routers, cost_copper, cost_fibre, cost_terminals, cost_total; /* $ */
	bool router_price_floored; /* the router line a*radix + b is below 0 at this
				    * radix (Besta's 350.4k - 892.3 at k <= 2): priced $0 */
	double power_w;            /* ports_used x lanes x W per lane */
	double power_part_w;       /* ports_part x lanes x W per lane */
	uint32_t max_units;        /* fullest cabinet, U */
	uint32_t over_units;       /* cabinets above cab_units */
};

/* 0 when a router part of `radix` ports (0 = the largest router's) can
 * serve every router of t; NL_ECONFIG naming the radix needed otherwise.
 * Check it before the annealing, which may run for minutes. */
int layout_check_radix(const struct topo *t, uint32_t radix, struct nl_err *err);

/* Summarise the placed layout under model m. Routers are priced per
 * physical part (s->parts). radix 0 = the topology's
 * largest router radix (every router the same part); otherwise the part's
 * port count (e.g. FleX Table 6's Slim Fly radix 20), at least the largest
 * router's (NL_ECONFIG otherwise). */
int layout_summarise(const struct layout *lo, const struct layout_model *m, uint32_t radix,
		     struct layout_summary *s, struct nl_err *err);

/* Manhattan distance in metres between the cells of cabinets a and b. */
double layout_cabinet_distance(const struct layout *lo, const struct layout_model *m, uint32_t a, uint32_t b);

/* --- configuration keys (layout_cfg.c) ------------------------------------ */

struct config_table;

enum { LAYOUT_PLACE_AUTO, LAYOUT_PLACE_RULE, LAYOUT_PLACE_ANNEAL };

/* Does a packed layout anneal under auto placement? Only where its rule
 * has no floor order of its own (FleX, HyperX, folded tori and meshes
 * keep theirs). */
static inline bool layout_auto_anneals(const struct layout *lo)
{
	return !lo->rule_cell;
}

/* Did the annealing of an annealed layout have anything to move? Not in
 * one cabinet, nor with 0 moves per trial (layout_iterations = 0, "no
 * annealing" in docs/layout.md): it returns at once, the cabinets in
 * row-major order on the square grid, and a report saying "annealed (0
 * moves x 5 trials)" would claim work not done. */
static inline bool layout_anneal_moved(const struct layout *lo)
{
	return lo->is_annealed && lo->n_cabinets >= 2 && lo->iterations > 0;
}

/* How the cabinets were placed, in a report's words: "annealed", "rule
 * order", or why an annealed layout moved nothing ("nothing to anneal" in
 * one cabinet, "0 annealing moves"). layout_order_phrase takes the three
 * facts by value, for a report that has them from a results document
 * (replay's "cables" object) rather than a struct layout. */
static inline const char *layout_order_phrase(bool is_annealed, bool moved, uint64_t n_cabinets)
{
	if (!is_annealed)
		return "rule order";
	if (moved)
		return "annealed";
	return n_cabinets < 2 ? "nothing to anneal" : "0 annealing moves";
}

static inline const char *layout_order_words(const struct layout *lo)
{
	return layout_order_phrase(lo->is_annealed, layout_anneal_moved(lo), lo->n_cabinets);
}

/* [layout]: how the session lays a topology out for cable_latency (issue
 * 13, docs/layout.md). The same choices as `netloom cost`'s options. */
struct layout_cfg {
	bool cable_latency;          /* router-router links get their cable's latency */
	double propagation_ns_per_m; /* signal propagation, ns per metre of cable */
	char preset[PARAM_STR_MAX];  /* cable/cost model, "flex" */
	int placement;               /* LAYOUT_PLACE_*: auto = the rule's order if it has one, else anneal */
	char pack[PARAM_STR_MAX];    /* packaging rule, "" = the first that applies */
	int64_t per_cabinet;         /* canonical rule: routers per cabinet, 0 = seed 003's */
	int64_t iterations;          /* annealing moves per trial */
	int64_t trials;              /* annealing trials, shortest kept */
	int64_t seed;                /* annealing seed */
	int64_t threads;             /* threads running the trials, 0 = one per processor (same results) */
};

extern const struct config_table layout_config_table;

struct config;

/* Pack and place t as lc says (keys named in errors), and resolve its
 * preset into *m. cfg, when not NULL, is the configuration lc was bound
 * from: an annealing key it sets where nothing is annealed is refused
 * (layout_cfg_check_anneal), and a key refused starts its message with
 * the file:line or -s that set it. On failure nothing is allocated.
 * Release lo with layout_release. */
int layout_cfg_build(struct layout *lo, const struct topo *t, const struct layout_cfg *lc,
		     const struct config *cfg, const struct layout_model **m, struct nl_err *err);

/* layout_cfg_build in two steps, for a caller that needs the packing
 * before it places (`netloom compare` checks the annealing keys on it,
 * then reuses it on a cache miss). layout_cfg_pack: t packed as lc says
 * (layout_pack, its rule and routers per cabinet checked); on failure
 * nothing is allocated. layout_cfg_place: lo, packed by layout_cfg_pack
 * under the same lc, placed on the floor and *m resolved; on failure lo
 * is released. */
int layout_cfg_pack(struct layout *lo, const struct topo *t, const struct layout_cfg *lc, struct nl_err *err);
int layout_cfg_place(struct layout *lo, const struct layout_cfg *lc, const struct config *cfg,
		     const struct layout_model **m, struct nl_err *err);

/* NL_ECONFIG when cfg sets layout_iterations, layout_trials, layout_seed
 * or layout_threads (even to its default) and lc's placement anneals
 * nothing: rule, or auto where t's packaging rule has its own floor order. To know that, auto
 * reads packed (t as layout_cfg_pack packs it under lc) or, when packed
 * is NULL, packs t here; only then. They were read and ignored, as
 * `netloom cost --layout rule --iterations N` was before it was refused. */
int layout_cfg_check_anneal(const struct layout_cfg *lc, const struct config *cfg, const struct topo *t,
			    const struct layout *packed, struct nl_err *err);

/* The first of the annealing keys (layout_iterations, layout_trials,
 * layout_seed, layout_threads) that cfg sets, or NULL: where
 * layout_cfg_check_anneal may need the packing. */
const char *layout_cfg_anneal_key(const struct config *cfg);

#endif
