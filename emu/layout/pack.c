/* Packaging rules: which cabinet each router goes to (docs/layout.md,
 * "Packaging rules").
 *
 * The table below is the one place that knows topology structure; a rule
 * is chosen by the closed-form view the topology publishes (topo_flex_of(t),
 * topo_hyperx_of(t), ...), never by its family name. Endpoints sit in their
 * router's cabinet. Inside a cabinet routers take slots from the top in
 * id order (seed 002 §4: routers at the top), 1U each.
 */
#include "layout/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "topo/topo.h"
#include "topo/topo_dragonfly.h"
#include "topo/topo_equality.h"
#include "topo/topo_flex.h"
#include "topo/topo_hypercube.h"
#include "topo/topo_hyperx.h"
#include "topo/topo_permuted.h"
#include "topo/topo_slimfly.h"
#include "topo/topo_tree.h"

/* --- FleX Fig. 7 (seed 000 §IV-A): each y-axis of each layer is one rack
 * (cabinet nx*z + x, the hint topo/flex.c publishes), the racks of a layer
 * in one row in x order: row z, column x. */
static bool pack_flex_applies(const struct topo *t)
{
	return topo_flex_of(t) != NULL;
}

static int pack_alloc_rule_cells(struct layout *lo, uint32_t rows, uint32_t cols, struct nl_err *err)
{
	lo->rule_rows = rows;
	lo->rule_cols = cols;
	lo->rule_cell = malloc((size_t)lo->n_cabinets * sizeof *lo->rule_cell);
	if (!lo->rule_cell)
		return nl_errf(err, NL_ENOMEM, "layout: out of memory");
	return 0;
}

static int pack_flex(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	const struct topo_flex *f = topo_flex_of(t);
	for (uint32_t r = 0; r < t->n_routers; r++) {
		uint32_t x, y, z;
		topo_flex_xyz(f, r, &x, &y, &z);
		lo->cabinet[r] = f->nx * z + x;
	}
	lo->n_cabinets = f->nx * f->nz;
	NL_CHECK(pack_alloc_rule_cells(lo, f->nz, f->nx, err));
	for (uint32_t c = 0; c < lo->n_cabinets; c++)
		lo->rule_cell[c] = c; /* cabinet nx*z + x is row z, column x */
	return 0;
}

/* --- permuted topologies (seed 003 §3): the base's cabinets, which
 * topo/permute.c keeps in t->cabinet, so every swapped cable keeps its
 * cabinet pair. */
static bool pack_hint_applies(const struct topo *t)
{
	return topo_permuted_of(t) != NULL;
}

static const struct layout_rule layout_rule_hint;
static const struct layout_rule *pack_choose(const struct topo *t);

static int pack_hint(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	for (uint32_t r = 0; r < t->n_routers; r++)
		lo->cabinet[r] = topo_router_cabinet(t, r);
	lo->n_cabinets = topo_cabinet_count(t);
	if (!topo_permuted_of(t)->base_spec)
		return 0;
	/* The base's own floor order too, when its rule packs the same
	 * cabinets (so `--layout rule` lays out P2-X as X). */
	struct topo *base = NULL;
	struct layout bl;
	int rc = topo_new(topo_permuted_of(t)->base_spec, &base, err);
	if (rc < 0)
		return nl_err_prefix(err, "layout: base topology");
	const struct layout_rule *rule = pack_choose(base);
	rc = rule == &layout_rule_hint ? 1 : layout_pack(&bl, base, rule->name, 0, err);
	if (rc == 0) {
		bool same = bl.n_cabinets == lo->n_cabinets && bl.rule_cell && base->n_routers == t->n_routers;
		for (uint32_t r = 0; same && r < t->n_routers; r++)
			same = bl.cabinet[r] == lo->cabinet[r];
		if (same) {
			rc = pack_alloc_rule_cells(lo, bl.rule_rows, bl.rule_cols, err);
			if (rc == 0)
				memcpy(lo->rule_cell, bl.rule_cell, (size_t)lo->n_cabinets * sizeof *lo->rule_cell);
		}
		layout_release(&bl);
	}
	topo_free(base);
	return rc < 0 ? rc : 0;
}

/* --- a family's own cabinets (topo.h packaging hint), for families with
 * no rule above: Myrinet Clos's Table 1 deployment (seed 003 §4.2: 128
 * nodes or 4 enclosures per cabinet; node-only cabinets hold no router).
 * Tried after the structural rules, so it is the same cabinets a
 * permutation of the family keeps (base-cabinets). */
static bool pack_family_applies(const struct topo *t)
{
	return t->cabinet != NULL && topo_permuted_of(t) == NULL;
}

static int pack_family(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	(void)err;
	for (uint32_t r = 0; r < t->n_routers; r++)
		lo->cabinet[r] = topo_router_cabinet(t, r);
	lo->n_cabinets = topo_cabinet_count(t);
	return 0;
}

/* --- HyperX (seed 001 §5): the first dimension inside an enclosure, the
 * second along a row of enclosures, the remaining ones across rows (seed
 * 003 §4.1's HYPERX-s1-s2-s3 is the same). Router id = sum I[d] stride[d]
 * with stride[0] = 1, so enclosure = id / S[0]. */
static bool pack_hyperx_applies(const struct topo *t)
{
	return topo_hyperx_of(t) != NULL && topo_hypercube_of(t) == NULL; /* hypercubes: canonical, seed 003 §4.1 */
}

static int pack_hyperx(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	const struct topo_hyperx *h = topo_hyperx_of(t);
	for (uint32_t r = 0; r < t->n_routers; r++)
		lo->cabinet[r] = r / h->S[0];
	lo->n_cabinets = t->n_routers / h->S[0];
	uint32_t cols = h->L >= 2 ? h->S[1] : 1;
	NL_CHECK(pack_alloc_rule_cells(lo, lo->n_cabinets / cols, cols, err));
	for (uint32_t c = 0; c < lo->n_cabinets; c++)
		lo->rule_cell[c] = c; /* c = I[1] + S[1] * (I[2] + S[2] * ...) */
	return 0;
}

/* --- Dragonfly (Kim et al. 2008; Slim Fly paper's rule, FleX Table 6):
 * one group per cabinet, groups in order on the square grid. */
static bool pack_dragonfly_applies(const struct topo *t)
{
	return topo_dragonfly_of(t) != NULL;
}

static int pack_dragonfly(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	(void)err;
	const struct topo_dragonfly *df = topo_dragonfly_of(t);
	for (uint32_t r = 0; r < t->n_routers; r++)
		lo->cabinet[r] = r / df->a;
	lo->n_cabinets = df->g;
	return 0;
}

/* --- Slim Fly (our reading of the Slim Fly paper's layout, FleX Table 6):
 * the q routers (0, x, .) of subgraph 0 and the q routers (1, x, .) of
 * subgraph 1 with the same first index share a cabinet: q cabinets of 2q
 * routers. Router id = s q^2 + x q + y, so cabinet = (id / q) mod q. */
static bool pack_slimfly_applies(const struct topo *t)
{
	return topo_slimfly_of(t) != NULL;
}

static int pack_slimfly(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	(void)err;
	uint32_t q = topo_slimfly_of(t)->q;
	for (uint32_t r = 0; r < t->n_routers; r++)
		lo->cabinet[r] = (r / q) % q;
	lo->n_cabinets = q;
	return 0;
}

/* --- Fat tree / folded Clos with the XGFT closed form (the fat-tree tiers;
 * the Slim Fly paper's pod rule, FleX Table 6): a pod is one block of
 * level L-2 with every switch below it (for a 3-level k-ary tree: k leaf
 * and k middle switches, k^2 endpoints); the top level fills cabinets of
 * up[L-2] switches in index order, so with k-ary trees top cabinet i holds
 * the switches linked to middle switch i of every pod. */
static bool pack_tree_applies(const struct topo *t)
{
	return topo_tree_of(t) != NULL && topo_tree_of(t)->xgft && topo_tree_of(t)->n_levels >= 2;
}

static int pack_tree(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	(void)err;
	const struct topo_tree *tr = topo_tree_of(t);
	int L = tr->n_levels, top = L - 1;
	uint32_t pods = tr->blocks[L - 2];
	uint32_t per_top = tr->up[L - 2];
	for (int l = 0; l < L; l++) {
		for (uint32_t id = tr->level_first[l]; id < tr->level_first[l + 1]; id++) {
			uint32_t local = id - tr->level_first[l];
			if (l == top) {
				lo->cabinet[id] = pods + local / per_top;
				continue;
			}
			uint32_t b = local / tr->W[l];
			for (int m = l + 1; m <= L - 2; m++)
				b /= tr->down[m];
			lo->cabinet[id] = b;
		}
	}
	uint32_t n_top = tr->level_first[L] - tr->level_first[top];
	lo->n_cabinets = pods + (n_top + per_top - 1) / per_top;
	return 0;
}

/* --- Equality (seed 002 §4): routers with their p endpoints fill 42U
 * cabinets sequentially, 1U each: floor(42 / (1 + p)) routers a cabinet. */
static bool pack_equality_applies(const struct topo *t)
{
	return topo_equality_of(t) != NULL;
}

static int pack_equality(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	(void)err;
	uint32_t per = 42 / (1 + topo_equality_of(t)->p);
	if (per == 0)
		per = 1;
	for (uint32_t r = 0; r < t->n_routers; r++)
		lo->cabinet[r] = r / per;
	lo->n_cabinets = (t->n_routers + per - 1) / per;
	return 0;
}

/* --- Tori and meshes, folded (Dally & Towles §5.3; seed 003 §4.1 packs
 * 16 switches per cabinet in canonical order, 8 for 64 switches). When
 * those per-cabinet switches are exactly the first j dimensions, a cabinet
 * is a point of the remaining dimensions; these are dealt to the floor's
 * columns and rows (each dimension to the side with fewer cells so far,
 * the first one least significant), and every wrapped dimension is
 * folded (coordinate i at 2i below k/2, 2(k-1-i)+1 above), so no cable,
 * wrap-around included, spans more than two cabinets of its dimension. */
static uint32_t pack_grid_per(const struct topo *t)
{
	return t->n_routers == 64 ? 8 : TOPO_CABINET_DEFAULT;
}

/* Leading dimensions filling a cabinet exactly, or 0. */
static int pack_grid_lead(const struct topo *t, uint32_t per)
{
	const struct topo_grid *g = t->grid;
	uint32_t prod = 1;
	for (int d = 0; d < g->n_dims - 1; d++) {
		if (g->stride[d] != prod)
			return 0;
		prod *= g->k[d];
		if (prod == per)
			return d + 1;
		if (prod > per)
			return 0;
	}
	return 0;
}

static bool pack_grid_applies(const struct topo *t)
{
	return t->grid != NULL && t->n_routers > pack_grid_per(t) && pack_grid_lead(t, pack_grid_per(t)) > 0;
}

static uint32_t pack_fold(uint32_t i, uint32_t k, bool wrap)
{
	if (!wrap)
		return i;
	return 2 * i < k ? 2 * i : 2 * (k - 1 - i) + 1;
}

static int pack_grid(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	const struct topo_grid *g = t->grid;
	uint32_t per = pack_grid_per(t), cols = 1, rows = 1;
	int j = pack_grid_lead(t, per);
	bool on_row[TOPO_MAX_DIMS] = {0};
	uint32_t place[TOPO_MAX_DIMS];

	lo->per_cabinet = per;
	for (uint32_t r = 0; r < t->n_routers; r++)
		lo->cabinet[r] = r / per;
	lo->n_cabinets = t->n_routers / per;
	for (int d = j; d < g->n_dims; d++) {
		on_row[d] = rows < cols;
		place[d] = on_row[d] ? rows : cols;
		if (on_row[d])
			rows *= g->k[d];
		else
			cols *= g->k[d];
	}
	NL_CHECK(pack_alloc_rule_cells(lo, rows, cols, err));
	for (uint32_t c = 0; c < lo->n_cabinets; c++) {
		uint32_t r0 = c * per, row = 0, col = 0;
		for (int d = j; d < g->n_dims; d++) {
			uint32_t v = pack_fold(topo_grid_coord(g, r0, d), g->k[d], g->wrap[d]) * place[d];
			if (on_row[d])
				row += v;
			else
				col += v;
		}
		lo->rule_cell[c] = row * cols + col;
	}
	return 0;
}

/* --- Canonical order (seed 003 §4.1): switches in id order, 16 per
 * cabinet, or 8 for the 64-switch networks of §6. Tori, meshes,
 * hypercubes and every other family. */
static bool pack_canonical_applies(const struct topo *t)
{
	(void)t;
	return true;
}

uint32_t layout_canonical_per_default(const struct topo *t)
{
	return t->n_routers == 64 ? 8 : TOPO_CABINET_DEFAULT;
}

static int pack_canonical(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	(void)err;
	uint32_t per = lo->per_cabinet ? lo->per_cabinet : layout_canonical_per_default(t);
	lo->per_cabinet = per;
	for (uint32_t r = 0; r < t->n_routers; r++)
		lo->cabinet[r] = r / per;
	lo->n_cabinets = (t->n_routers + per - 1) / per;
	return 0;
}

#define PACK_RULE(id, nm, hp) \
	static const struct layout_rule layout_rule_##id = { \
		.name = nm, .help = hp, .applies = pack_##id##_applies, .pack = pack_##id}

PACK_RULE(flex, "flex-fig7", "FleX Fig. 7: a rack per y-axis of each layer, a row per layer in x order");
PACK_RULE(hint, "base-cabinets", "permuted topology: the base topology's cabinets (seed 003 §3)");
PACK_RULE(hyperx, "hyperx-enclosure", "HyperX §5: dimension 1 in an enclosure, 2 along rows, the rest across");
PACK_RULE(dragonfly, "dragonfly-group", "dragonfly: one group per cabinet");
PACK_RULE(slimfly, "slimfly-pair", "Slim Fly: subgraph groups (0,x,.) and (1,x,.) share cabinet x");
PACK_RULE(tree, "tree-pods", "fat tree: a pod (level L-2 block and below) per cabinet, top level by up-arity");
PACK_RULE(equality, "equality-42u", "Equality §4: routers and endpoints fill 42U cabinets, 1U each");
PACK_RULE(family, "family-cabinets", "the family's own cabinets (Myrinet Clos: seed 003 Table 1)");
PACK_RULE(grid, "grid-folded", "tori/meshes: canonical cabinets as points of the outer dimensions, folded on the floor");
PACK_RULE(canonical, "canonical", "canonical order, 16 routers per cabinet (8 for 64 routers), seed 003 §4.1");

/* Tried in this order; the first that applies packs. */
static const struct layout_rule *const layout_rules[] = {
	&layout_rule_hint,     &layout_rule_flex,     &layout_rule_hyperx,   &layout_rule_dragonfly,
	&layout_rule_slimfly,  &layout_rule_tree,     &layout_rule_equality, &layout_rule_family,
	&layout_rule_grid,     &layout_rule_canonical,
};

static const struct layout_rule *pack_choose(const struct topo *t)
{
	for (size_t i = 0; i < sizeof layout_rules / sizeof *layout_rules; i++)
		if (layout_rules[i]->applies(t))
			return layout_rules[i];
	return &layout_rule_canonical;
}

const struct layout_rule *const *layout_rule_list(size_t *n)
{
	*n = sizeof layout_rules / sizeof *layout_rules;
	return layout_rules;
}

void layout_release(struct layout *lo)
{
	if (!lo)
		return;
	free(lo->cabinet);
	free(lo->slot);
	free(lo->units);
	free(lo->ep_cabinet);
	free(lo->ep_slot);
	free(lo->rule_cell);
	free(lo->cell);
	memset(lo, 0, sizeof *lo);
}

/* Cabinets the rule left without a router are node-only cabinets (Myrinet
 * Clos, seed 003 Table 1: "all compute nodes to node-only cabinets in the
 * canonical order"): the endpoints fill them in id order, as evenly as
 * they go (128 per cabinet for Table 1's sizes). Otherwise every endpoint
 * stays in its router's cabinet (ep_cabinet NULL). */
static int pack_node_cabinets(const struct topo *t, struct layout *lo, struct nl_err *err)
{
	uint32_t n_empty = 0;
	for (uint32_t c = 0; c < lo->n_cabinets; c++)
		n_empty += lo->units[c] == 0;
	if (!n_empty || !t->n_endpoints)
		return 0;
	lo->ep_cabinet = malloc((size_t)t->n_endpoints * sizeof *lo->ep_cabinet);
	lo->ep_slot = malloc((size_t)t->n_endpoints * sizeof *lo->ep_slot);
	uint32_t *empty = malloc((size_t)n_empty * sizeof *empty);
	if (!lo->ep_cabinet || !lo->ep_slot || !empty) {
		free(empty);
		return nl_errf(err, NL_ENOMEM, "layout: out of memory");
	}
	n_empty = 0;
	for (uint32_t c = 0; c < lo->n_cabinets; c++)
		if (lo->units[c] == 0)
			empty[n_empty++] = c;
	uint32_t per = (t->n_endpoints + n_empty - 1) / n_empty;
	for (uint32_t e = 0; e < t->n_endpoints; e++) {
		uint32_t c = empty[e / per];
		lo->ep_cabinet[e] = c;
		lo->ep_slot[e] = lo->units[c]++;
	}
	free(empty);
	return 0;
}

/* A --pack naming no rule: the rules in the order they are tried, from
 * the table (a list written out beside it had two of them swapped), and
 * the one the name is a typo of ('grid-foldd'), as a topology's or a
 * preset's unknown name has. */
static int pack_unknown_rule(const char *name, struct nl_err *err)
{
	enum { N_RULES = sizeof layout_rules / sizeof *layout_rules };
	const char *names[N_RULES];
	char valid[512] = "";
	for (size_t i = 0; i < N_RULES; i++) {
		names[i] = layout_rules[i]->name;
		snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", i ? ", " : "", names[i]);
	}
	const char *near = config_name_near(name, strlen(name), names, N_RULES);
	return nl_errf(err, NL_ECONFIG, "--pack: unknown packaging rule '%s' (%s%s%svalid: %s)", name,
		       near ? "did you mean '" : "", near ? near : "", near ? "'? " : "", valid);
}

int layout_pack(struct layout *lo, const struct topo *t, const char *rule_name, uint32_t per_cabinet,
		struct nl_err *err)
{
	size_t n_rules = sizeof layout_rules / sizeof *layout_rules;
	const struct layout_rule *rule = NULL;
	int rc;

	memset(lo, 0, sizeof *lo);
	for (size_t i = 0; i < n_rules && !rule; i++) {
		if (rule_name ? !strcmp(rule_name, layout_rules[i]->name) : layout_rules[i]->applies(t))
			rule = layout_rules[i];
	}
	if (!rule)
		return pack_unknown_rule(rule_name, err);
	if (!rule->applies(t))
		return nl_errf(err, NL_ECONFIG, "--pack: rule '%s' does not apply to %s (it needs that family's structure)",
				rule->name, t->spec);
	lo->t = t;
	lo->rule = rule;
	lo->per_cabinet = per_cabinet;
	lo->cabinet = malloc((size_t)t->n_routers * sizeof *lo->cabinet);
	lo->slot = malloc((size_t)t->n_routers * sizeof *lo->slot);
	if (!lo->cabinet || !lo->slot) {
		rc = nl_errf(err, NL_ENOMEM, "layout: out of memory");
		goto fail;
	}
	rc = rule->pack(t, lo, err);
	if (rc < 0)
		goto fail;
	lo->units = calloc(lo->n_cabinets ? lo->n_cabinets : 1, sizeof *lo->units);
	if (!lo->units) {
		rc = nl_errf(err, NL_ENOMEM, "layout: out of memory");
		goto fail;
	}
	/* Slots from the top in id order; endpoints below the routers. */
	for (uint32_t r = 0; r < t->n_routers; r++) {
		uint32_t c = lo->cabinet[r];
		if (c >= lo->n_cabinets)
			NL_BUG("layout rule %s put router %u in cabinet %u of %u", rule->name, r, c, lo->n_cabinets);
		lo->slot[r] = lo->units[c]++;
	}
	if ((rc = pack_node_cabinets(t, lo, err)) < 0)
		goto fail;
	if (!lo->ep_cabinet) /* each endpoint in its router's cabinet */
		for (uint32_t e = 0; e < t->n_endpoints; e++)
			lo->units[lo->cabinet[topo_ep_router(t, e)]]++;
	return 0;
fail:
	layout_release(lo);
	return rc;
}
