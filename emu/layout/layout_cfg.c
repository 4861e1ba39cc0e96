/* [layout]: the configuration keys with which the session lays a topology
 * out for cable_latency (issue 13), and the pack-and-place step they
 * choose. The choices and defaults are those of `netloom cost` (docs/
 * layout.md), so a replay's cables are the ones `netloom layout --lengths`
 * prints for the same options.
 */
#include "layout/layout.h"

#include <stddef.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "topo/topo.h"

static const char *const layout_placements[] = {"auto", "rule", "anneal", NULL};
/* The names of the cost presets (model.c) and packaging rules (pack.c),
 * in their registries' order, so layout_preset and layout_pack are checked
 * when read (docs/configuration.md). A param table can hold only a name
 * list, not a registry of structs; tests/unit/test_cable.c checks that
 * these match layout_model_list and layout_rule_list. Whether a rule
 * applies needs the topology: layout_cfg_rule checks it at build. */
static const char *const layout_cfg_presets[] = {"flex", "besta", "equality", "fujiwara", "hyperx", NULL};
static const char *const layout_cfg_rules[] = {
	"base-cabinets", "flex-fig7",    "hyperx-enclosure", "dragonfly-group", "slimfly-pair",
	"tree-pods",     "equality-42u", "family-cabinets",  "grid-folded",     "canonical",
	NULL,
};

#define K(f) offsetof(struct layout_cfg, f)
static const struct param_def layout_keys[] = {
	{"cable_latency", PARAM_BOOL, K(cable_latency), "0", 0, 0,
	 "1: lay the topology out and give every router-router link the latency of its cable "
	 "(length x propagation_ns_per_m; replay, interfere and live sessions on the analytic or flit backend, "
	 "flit rounding each up to whole cycles; netloom run and sweep refuse it)",
	 NULL},
	/* Signals travel at about 2/3 of c in copper and in fibre (velocity
	 * factor ~0.66-0.7): 1 / (0.667 x 0.2998 m/ns) = 5.0 ns/m. */
	{"propagation_ns_per_m", PARAM_DOUBLE, K(propagation_ns_per_m), "5.0", 1e-3, 1e3,
	 "cable_latency: signal propagation delay, ns per metre (5.0 = about 2/3 c, copper or fibre)", NULL},
	{"layout_preset", PARAM_STRING, K(preset), "flex", 0, 0,
	 "cable_latency: cabinet and cable-length model (netloom cost --list-presets)", layout_cfg_presets},
	{"layout_placement", PARAM_CHOICE, K(placement), "auto", 0, 0,
	 "cable_latency: cabinets on the floor: auto = the packaging rule's order when it has one, else "
	 "anneal; rule; anneal (seeded simulated annealing of the total cable length)",
	 layout_placements},
	{"layout_pack", PARAM_STRING, K(pack), "", 0, 0,
	 "cable_latency: packaging rule by name (default: the first that applies to the topology)", layout_cfg_rules},
	{"layout_per_cabinet", PARAM_INT, K(per_cabinet), "0", 0, 1 << 24,
	 "cable_latency: routers per cabinet for the canonical rule (0 = 16, or 8 for 64 routers)", NULL},
	{"layout_iterations", PARAM_INT, K(iterations), "1000000", 0, 1099511627776.0,
	 "cable_latency: annealing moves per trial (seed 003: 10^8)", NULL},
	{"layout_trials", PARAM_INT, K(trials), "5", 1, 1000,
	 "cable_latency: annealing trials, the shortest kept (seed 003: 5)", NULL},
	{"layout_seed", PARAM_INT, K(seed), "1", 0, 9.2e18,
	 "cable_latency: annealing seed", NULL},
	{"layout_threads", PARAM_INT, K(threads), "0", 0, 1024,
	 "cable_latency: threads running the annealing trials side by side (0 = one per online processor, at most "
	 "layout_trials; results are identical for any value)",
	 NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};
#undef K

const struct config_table layout_config_table = {
	.section = "layout",
	.help = "cabinet layout and cable lengths as link latencies (cable_latency)",
	.keys = layout_keys,
	.struct_size = sizeof(struct layout_cfg),
};

/* The rule named by key layout_pack, checked here so the error names the
 * key and the valid names. */
static int layout_cfg_rule(const struct layout_cfg *lc, const struct topo *t, struct nl_err *err)
{
	size_t n;
	const struct layout_rule *const *all = layout_rule_list(&n);
	char names[512] = "";
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(all[i]->name, lc->pack)) {
			if (all[i]->applies(t))
				return 0;
			return nl_errf(err, NL_ECONFIG,
				       "key 'layout_pack': value '%s': the rule does not apply to %s; expected a rule "
				       "for its family, or unset",
				       lc->pack, t->spec);
		}
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", all[i]->name);
	}
	return nl_errf(err, NL_ECONFIG, "key 'layout_pack': value '%s': expected one of %s", lc->pack, names);
}

/* Does lc's placement anneal lo (packed)? */
static bool layout_cfg_anneals(const struct layout_cfg *lc, const struct layout *lo)
{
	return lc->placement == LAYOUT_PLACE_ANNEAL || (lc->placement == LAYOUT_PLACE_AUTO && layout_auto_anneals(lo));
}

const char *layout_cfg_anneal_key(const struct config *cfg)
{
	static const char *const keys[] = {"layout_iterations", "layout_trials", "layout_seed", "layout_threads"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (config_get(cfg, keys[i]))
			return keys[i];
	return NULL;
}

/* The first annealing key cfg sets, when lo's placement under lc anneals
 * nothing: refused, naming it (layout_cfg_check_anneal). */
static int layout_cfg_unannealed(const struct layout_cfg *lc, const struct config *cfg, const struct layout *lo,
				 struct nl_err *err)
{
	const char *key = cfg && !layout_cfg_anneals(lc, lo) ? layout_cfg_anneal_key(cfg) : NULL;
	if (!key)
		return 0;
	const char *v = config_get(cfg, key);
	const char *dflt = config_get(cfg, "layout_placement") ? "" : " (the default)";
	if (lc->placement == LAYOUT_PLACE_RULE)
		return nl_errf(err, NL_ECONFIG,
			       "key '%s': value '%s': only the annealing uses it, and layout_placement = rule%s keeps the "
			       "packaging rule's floor order; expected layout_placement = anneal with it, or %s unset",
			       key, v, dflt, key);
	return nl_errf(err, NL_ECONFIG,
		       "key '%s': value '%s': only the annealing uses it, and layout_placement = auto%s keeps the floor "
		       "order of rule '%s' (%s); expected layout_placement = anneal with it, or %s unset",
		       key, v, dflt, lo->rule->name, lo->t->spec, key);
}

int layout_cfg_check_anneal(const struct layout_cfg *lc, const struct config *cfg, const struct topo *t,
			    const struct layout *packed, struct nl_err *err)
{
	if (!cfg || lc->placement == LAYOUT_PLACE_ANNEAL || !layout_cfg_anneal_key(cfg))
		return 0;
	if (lc->placement != LAYOUT_PLACE_AUTO || packed)
		return layout_cfg_unannealed(lc, cfg, packed, err);
	struct layout lo;
	NL_CHECK(layout_cfg_pack(&lo, t, lc, err));
	int rc = layout_cfg_unannealed(lc, cfg, &lo, err);
	layout_release(&lo);
	return rc;
}

int layout_cfg_pack(struct layout *lo, const struct topo *t, const struct layout_cfg *lc, struct nl_err *err)
{
	if (lc->pack[0])
		NL_CHECK(layout_cfg_rule(lc, t, err));
	NL_CHECK(layout_pack(lo, t, lc->pack[0] ? lc->pack : NULL, (uint32_t)lc->per_cabinet, err));
	if (lc->per_cabinet && strcmp(lo->rule->name, "canonical")) {
		int rc = nl_errf(err, NL_ECONFIG,
				 "key 'layout_per_cabinet': value '%lld': only the canonical rule takes it, and %s is "
				 "packed by rule '%s'; expected layout_pack = canonical with it, or 0",
				 (long long)lc->per_cabinet, t->spec, lo->rule->name);
		layout_release(lo);
		return rc;
	}
	return 0;
}

/* Place packed lo as lc says, under model m (its annealing keys checked
 * by the caller); lo released on failure. */
static int layout_cfg_place_in(struct layout *lo, const struct layout_cfg *lc, const struct layout_model *m,
			       struct nl_err *err)
{
	int rc = layout_cfg_anneals(lc, lo) ? layout_place_anneal(lo, m, (uint64_t)lc->iterations, (uint32_t)lc->trials,
								  (uint64_t)lc->seed, (uint32_t)lc->threads, err)
					    : layout_place_rule(lo, err);
	if (rc < 0)
		layout_release(lo);
	return rc;
}

int layout_cfg_place(struct layout *lo, const struct layout_cfg *lc, const struct config *cfg,
		     const struct layout_model **m, struct nl_err *err)
{
	*m = layout_model_find(lc->preset, err);
	if (!*m) {
		layout_release(lo);
		return nl_err_prefix(err, "key 'layout_preset'");
	}
	if (layout_cfg_unannealed(lc, cfg, lo, err) < 0) {
		layout_release(lo);
		return err->code;
	}
	return layout_cfg_place_in(lo, lc, *m, err);
}

/* A refusal of `keys`, read when the network is laid out, named where
 * the first of them that a file or -s set was set. */
static int layout_cfg_at(const struct config *cfg, const char *const *keys, struct nl_err *err)
{
	return cfg ? config_err_file_line_any(cfg, keys, err) : err->code;
}

int layout_cfg_build(struct layout *lo, const struct topo *t, const struct layout_cfg *lc,
		     const struct config *cfg, const struct layout_model **m, struct nl_err *err)
{
	*m = layout_model_find(lc->preset, err);
	if (!*m) {
		nl_err_prefix(err, "key 'layout_preset'");
		return layout_cfg_at(cfg, CONFIG_KEYS("layout_preset"), err);
	}
	if (layout_cfg_pack(lo, t, lc, err) < 0)
		return layout_cfg_at(cfg, CONFIG_KEYS("layout_pack", "layout_per_cabinet"), err);
	if (layout_cfg_unannealed(lc, cfg, lo, err) < 0) {
		layout_release(lo);
		return layout_cfg_at(cfg, CONFIG_KEYS(layout_cfg_anneal_key(cfg)), err);
	}
	return layout_cfg_place_in(lo, lc, *m, err);
}
