/* The warnings for settings a command does not read: a -s key, a config
 * or study file's key, or a workload file's, that changes nothing under
 * the backend, router, experiment or placement it runs with; and how a
 * placement policy is named in a report (cli_put_placement). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/param.h"
#include "layout/layout.h"
#include "net/net.h"
#include "place/place.h"
#include "route/route.h"
#include "session/session.h"
#include "topo/topo.h"

/* cli_warn_unread, naming `reader` as what does not read the key. */
static void cli_warn_unread_by(const char *cmd, const char *reader, const struct config *cfg,
			       const char *const *sets, size_t n_sets, const struct config_unread *u, const char *why)
{
	for (size_t i = 0; i < n_sets; i++) {
		const char *kv = sets[i];
		size_t n = strcspn(kv, "=");
		char key[128];
		if (n >= sizeof key)
			continue;
		memcpy(key, kv, n);
		key[n] = '\0';
		bool later = false;
		for (size_t j = i + 1; j < n_sets && !later; j++)
			later = !strncmp(sets[j], key, n) && sets[j][n] == '=';
		const struct config_table *t = config_find_key(cfg, key, NULL);
		if (later || !t || !config_unread_has(u, t, key))
			continue;
		fprintf(stderr, "netloom %s: warning: -s ", cmd);
		nl_fputs_one_line(kv, stderr);
		fprintf(stderr, ": key '%s' of [%s] is not read by %s (%s); it has no effect\n", key, t->section,
			reader, why);
	}
}

void cli_warn_unread(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets,
		     const struct config_unread *u, const char *why)
{
	cli_warn_unread_by(cmd, cmd, cfg, sets, n_sets, u, why);
}

/* Append the NULL-terminated names to list (of cap entries, *n used,
 * NULL-terminated after). */
static void cli_names_add(const char **list, size_t cap, size_t *n, const char *const *names)
{
	for (size_t i = 0; names && names[i] && *n + 1 < cap; i++)
		list[(*n)++] = names[i];
	list[*n] = NULL;
}

void cli_warn_topology_unused(const char *cmd, const struct config *cfg, const char *what, const char *doc)
{
	char line[512];
	if (session_topology_warning(cfg, what, doc, line, sizeof line))
		fprintf(stderr, "netloom %s: warning: %s\n", cmd, line);
}

/* [layout] lays the topology out for cable_latency alone: without it,
 * '-s layout_preset=besta' changed no latency, silently (docs/layout.md). */
static void cli_warn_unread_layout(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets)
{
	struct layout_cfg lc;
	struct nl_err ignored = {0};
	if (config_bind(cfg, &layout_config_table, &lc, &ignored) < 0 || lc.cable_latency)
		return;
	static const char *const section[] = {"layout", NULL}, *const read[] = {"cable_latency", NULL};
	const struct config_unread u = {.sections = section, .read = read};
	cli_warn_unread(cmd, cfg, sets, n_sets, &u, "without cable_latency = 1");
}

/* A routing parameter the user set that changes nothing on the network
 * ('dor:dateline=0' on a mesh ran as dor, silently); a default is never
 * named (route_spec_noop). */
static void cli_warn_route_noop(const char *cmd, const struct config *cfg)
{
	const char *spec = config_get_or_default(cfg, "topology");
	const char *rf = config_get_or_default(cfg, "routing_function");
	struct nl_err ignored = {0};
	const struct topo_ops *family = spec && rf ? topo_spec_family(spec, &ignored) : NULL;
	char line[512];
	if (family && route_spec_noop(rf, family->name, line, sizeof line)) {
		fprintf(stderr, "netloom %s: warning: ", cmd);
		nl_fputs_one_line(line, stderr);
		fputc('\n', stderr);
	}
}

/* cli_warn_unread_router, naming `reader`. */
static void cli_warn_unread_router_by(const char *cmd, const char *reader, const struct config *cfg,
				      const char *const *sets, size_t n_sets)
{
	cli_warn_route_noop(cmd, cfg);
	struct router_cfg rc;
	struct nl_err ignored = {0};
	if (config_bind(cfg, &net_router_table, &rc, &ignored) < 0)
		return;
	if (rc.routing_delay != 0) {
		static const char *const keys[] = {"lookahead_decide", NULL};
		const struct config_unread u = {.keys = keys};
		cli_warn_unread_by(cmd, reader, cfg, sets, n_sets, &u, "without routing_delay = 0");
	}
	/* '-s alloc_iters=3' under separable allocators changed nothing,
	 * silently: only iSLIP iterates (emu/net/alloc.c). */
	if (rc.vc_allocator != NET_ALLOC_ISLIP && rc.sw_allocator != NET_ALLOC_ISLIP) {
		static const char *const keys[] = {"alloc_iters", NULL};
		const struct config_unread u = {.keys = keys};
		cli_warn_unread_by(cmd, reader, cfg, sets, n_sets, &u, "without vc_allocator or sw_allocator = islip");
	}
}

void cli_warn_unread_router(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets)
{
	cli_warn_unread_router_by(cmd, cmd, cfg, sets, n_sets);
}

/* '-s traffic_class=dest' picks a packet's class among [router]
 * traffic_classes: with one class (the default) it changed nothing,
 * silently. */
static void cli_warn_unread_tclass(const char *cmd, const char *reader, const struct config *cfg,
				   const char *const *sets, size_t n_sets)
{
	struct router_cfg rc;
	struct nl_err ignored = {0};
	if (config_bind(cfg, &net_router_table, &rc, &ignored) < 0 || rc.traffic_classes > 1)
		return;
	static const char *const keys[] = {"traffic_class", NULL};
	const struct config_unread u = {.keys = keys};
	cli_warn_unread_by(cmd, reader, cfg, sets, n_sets, &u, "without traffic_classes > 1");
}

/* [simulation] keys a point's phases leave unread (docs/engine.md,
 * Experiments): the warm-up thresholds end a warm-up of warmup_periods =
 * 0 only, and a throughput point checks no latency (experiment.c).
 * '-s warmup_thres=0.2' under the default warmup_periods = 3 changed
 * nothing, silently. */
static void cli_warn_unread_sim(const char *cmd, const char *reader, const struct config *cfg,
				const char *const *sets, size_t n_sets)
{
	struct sim_cfg sc;
	struct nl_err ignored = {0};
	if (config_bind(cfg, &net_sim_table, &sc, &ignored) < 0)
		return;
	const bool throughput = sc.sim_type != 0;
	if (sc.warmup_periods != 0) {
		static const char *const keys[] = {"warmup_thres", "acc_warmup_thres", NULL};
		const struct config_unread u = {.keys = keys};
		cli_warn_unread_by(cmd, reader, cfg, sets, n_sets, &u, "without warmup_periods = 0");
	}
	if (throughput) {
		/* warmup_thres only where the warm-up rule above left it read. */
		static const char *const keys[] = {"latency_thres", "stopping_thres", NULL};
		static const char *const keys_wt[] = {"latency_thres", "stopping_thres", "warmup_thres", NULL};
		const struct config_unread u = {.keys = sc.warmup_periods != 0 ? keys : keys_wt};
		cli_warn_unread_by(cmd, reader, cfg, sets, n_sets, &u, "with sim_type = throughput");
	}
}

void cli_warn_unread_synthetic(const char *cmd, const char *reader, const struct config *cfg,
			       const char *const *sets, size_t n_sets)
{
	cli_warn_unread_router_by(cmd, reader, cfg, sets, n_sets);
	cli_warn_unread_tclass(cmd, reader, cfg, sets, n_sets);
	cli_warn_unread_sim(cmd, reader, cfg, sets, n_sets);
}

/* Whether `policy` draws from placement_seed (place_ops.uses_seed;
 * linear, replay's default, is no place_ops and draws nothing). */
static bool cli_policy_draws(const char *policy)
{
	const struct place_ops *ops = strcmp(policy, "linear") ? place_find(policy, NULL) : NULL;
	return ops && ops->uses_seed;
}

void cli_put_placement(FILE *f, const char *policy, int64_t seed, int64_t ranks_per_node, const char *map_path)
{
	fputs(policy, f);
	if (!strcmp(policy, "map")) {
		fputs(" (file ", f);
		nl_fputs_one_line(map_path, f);
		fputc(')', f);
		return;
	}
	fputs(" (", f);
	if (cli_policy_draws(policy))
		fprintf(f, "seed %" PRId64 ", ", seed);
	fprintf(f, "%" PRId64 " rank%s per node)", ranks_per_node, ranks_per_node == 1 ? "" : "s");
}

/* The policies that draw from a seed, "random-node and random-router",
 * into seeded[n]; returns how many. */
static size_t cli_seeded_policies(char *seeded, size_t n)
{
	size_t n_all, n_seeded = 0;
	const struct place_ops *const *all = place_list(&n_all);
	seeded[0] = '\0';
	for (size_t i = 0; i < n_all; i++)
		if (all[i]->uses_seed)
			snprintf(seeded + strlen(seeded), n - strlen(seeded), "%s%s", n_seeded++ ? " and " : "",
				 all[i]->name);
	return n_seeded;
}

/* Why placement_seed changes nothing under `policy` (is_set false when
 * it is the default nobody set), into why[n]: "placement = linear
 * (unset) draws nothing; random-node and random-router do", naming the
 * policies whose place_ops.uses_seed is set. False, why untouched, when
 * the policy draws from the seed. */
static bool cli_seed_unread_why(const char *policy, bool is_set, char *why, size_t n)
{
	if (cli_policy_draws(policy))
		return false;
	char seeded[256];
	size_t n_seeded = cli_seeded_policies(seeded, sizeof seeded);
	snprintf(why, n, "placement = %s%s draws nothing; %s do%s", policy, is_set ? "" : " (unset)", seeded,
		 n_seeded == 1 ? "es" : "");
	return true;
}

/* Why ranks_per_node and placement_inner change nothing under placement
 * = map: place_job hands the job to its file, which gives each rank its
 * endpoint, before either is read. */
static const char cli_map_unread_why[] = "placement = map gives each rank its endpoint from the map file";

/* Why placement_inner changes nothing, or NULL when it is read: under
 * placement = map (cli_map_unread_why); with ranks_per_node = 1
 * (per_is_set false when that is the default nobody set) both orders put
 * one rank on each node, the same endpoints. */
static const char *cli_inner_unread_why(const char *policy, uint64_t per, bool per_is_set)
{
	if (!strcmp(policy, "map"))
		return cli_map_unread_why;
	if (per != 1)
		return NULL;
	return per_is_set ? "ranks_per_node = 1: one rank per node, in either order"
			  : "ranks_per_node = 1 (unset): one rank per node, in either order";
}

/* '-s placement_seed=7' under linear changed no endpoint, silently
 * (docs/replay.md, "Placement"). */
static void cli_warn_unread_seed(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets,
				 const char *policy)
{
	char why[PARAM_STR_MAX + 300];
	if (!cli_seed_unread_why(policy, config_get(cfg, "placement") != NULL, why, sizeof why))
		return;
	static const char *const key[] = {"placement_seed", NULL};
	const struct config_unread u = {.keys = key};
	cli_warn_unread(cmd, cfg, sets, n_sets, &u, why);
}

/* ranks_per_node says how many ranks share a node, placement_inner in
 * which order (linear refuses more than 1): under placement = map neither
 * is read ('-s ranks_per_node=2' changed nothing, silently), and with one
 * rank per node placement_inner is not ('-s placement_inner=round_robin'
 * neither). Under map both are warned of in the order given. */
static void cli_warn_unread_inner(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets,
				  const char *policy)
{
	if (!strcmp(policy, "map")) {
		static const char *const keys[] = {"ranks_per_node", "placement_inner", NULL};
		const struct config_unread u = {.keys = keys};
		cli_warn_unread(cmd, cfg, sets, n_sets, &u, cli_map_unread_why);
		return;
	}
	const char *per = config_get_or_default(cfg, "ranks_per_node");
	const char *why = cli_inner_unread_why(policy, per ? strtoull(per, NULL, 10) : 0,
					       config_get(cfg, "ranks_per_node") != NULL);
	if (!why)
		return;
	static const char *const key[] = {"placement_inner", NULL};
	const struct config_unread u = {.keys = key};
	cli_warn_unread(cmd, cfg, sets, n_sets, &u, why);
}

void cli_warn_unread_placement(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets)
{
	const char *policy = config_get_or_default(cfg, "placement");
	if (!policy)
		return;
	cli_warn_unread_seed(cmd, cfg, sets, n_sets, policy);
	cli_warn_unread_inner(cmd, cfg, sets, n_sets, policy);
}

/* One key of workload file `path`, in [section] ("job A", "workload"),
 * that nothing reads. */
static void cli_warn_unread_wl_key(const char *cmd, const char *path, const char *section, int line, const char *key,
				   const char *value, const char *why)
{
	fprintf(stderr, "netloom %s: warning: ", cmd);
	nl_fputs_one_line(path, stderr);
	fprintf(stderr, ":%d: [%s] key '%s': value '%s' is not read by %s (%s); it has no effect\n", line, section, key,
		value, cmd, why);
}

/* [workload] seed is the placement_seed of every job that sets none;
 * only a job whose policy draws reads it. With no such job, why it
 * changes nothing into why[n] ("no job's placement draws from it;
 * random-node and random-router do"); false, why untouched, when a job
 * reads it. */
static bool cli_wl_seed_unread_why(const struct place_workload *w, char *why, size_t n)
{
	bool draws = false;
	for (uint32_t i = 0; i < w->n_jobs; i++) {
		if (!cli_policy_draws(w->jobs[i].policy))
			continue;
		if (!w->jobs[i].has_seed)
			return false;
		draws = true;
	}
	char seeded[256];
	size_t n_seeded = cli_seeded_policies(seeded, sizeof seeded);
	if (draws)
		snprintf(why, n, "each job whose placement draws sets its own placement_seed");
	else
		snprintf(why, n, "no job's placement draws from it; %s do%s", seeded, n_seeded == 1 ? "es" : "");
	return true;
}

void cli_warn_unread_jobs(const char *cmd, const char *path, const struct place_workload *w)
{
	char why[PARAM_STR_MAX + 300], value[32], section[sizeof w->jobs[0].name + 4];
	if (w->seed_line && cli_wl_seed_unread_why(w, why, sizeof why)) {
		snprintf(value, sizeof value, "%" PRIu64, w->seed);
		cli_warn_unread_wl_key(cmd, path, "workload", w->seed_line, "seed", value, why);
	}
	for (uint32_t i = 0; i < w->n_jobs; i++) {
		const struct place_job_spec *j = &w->jobs[i];
		snprintf(section, sizeof section, "job %s", j->name);
		if (j->seed_line && cli_seed_unread_why(j->policy, j->placement_line != 0, why, sizeof why)) {
			snprintf(value, sizeof value, "%" PRIu64, j->seed);
			cli_warn_unread_wl_key(cmd, path, section, j->seed_line, "placement_seed", value, why);
		}
		if (j->per_node_line && !strcmp(j->policy, "map")) {
			snprintf(value, sizeof value, "%" PRIu32, j->ranks_per_node);
			cli_warn_unread_wl_key(cmd, path, section, j->per_node_line, "ranks_per_node", value,
					       cli_map_unread_why);
		}
		const char *inner_why = cli_inner_unread_why(j->policy, j->ranks_per_node, j->per_node_line != 0);
		if (j->inner_line && inner_why)
			cli_warn_unread_wl_key(cmd, path, section, j->inner_line, "placement_inner",
					       j->inner == PLACE_INNER_ROUND_ROBIN ? "round_robin" : "linear", inner_why);
	}
}

/* The keys a replay on cfg's backend does not read: r->u over r's
 * lists, r->why "backend NAME". False when the backend is unknown. */
struct cli_replay_unread {
	const char *sections[16], *keys[32], *read[16];
	struct config_unread u;
	char why[PARAM_STR_MAX + 16];
};

static bool cli_replay_unread(const struct config *cfg, struct cli_replay_unread *r)
{
	const char *backend = config_get_or_default(cfg, "backend");
	const struct net_backend_ops *ops = backend ? net_backend_find(backend, NULL) : NULL;
	if (!ops)
		return false;
	/* [traffic] and the experiment's phases are synthetic traffic's; each
	 * other backend's table is its own (docs/replay.md: each backend
	 * ignores the other's keys). */
	static const char *const synthetic[] = {"traffic", NULL};
	size_t ns = 0, nk = 0, nr = 0, nb;
	cli_names_add(r->sections, 16, &ns, synthetic);
	const struct net_backend_ops *const *all = net_backend_list(&nb);
	for (size_t i = 0; i < nb; i++)
		if (all[i] != ops && all[i]->config && all[i]->config != ops->config)
			cli_names_add(r->sections, 16, &ns, (const char *const[]){all[i]->config->section, NULL});
	cli_names_add(r->keys, 32, &nk, net_sim_experiment_keys);
	if (ops->unread) {
		cli_names_add(r->sections, 16, &ns, ops->unread->sections);
		cli_names_add(r->keys, 32, &nk, ops->unread->keys);
		cli_names_add(r->read, 16, &nr, ops->unread->read);
	}
	/* A routing function the backend does not run is still checked with
	 * the flit model's VCs per class (session_check_routing): those keys
	 * then decide whether the replay is refused. */
	static const char *const route_vcs[] = {"num_vcs", "traffic_classes", NULL};
	if (ops->ignores_routing && config_get(cfg, "routing_function"))
		cli_names_add(r->read, 16, &nr, route_vcs);
	r->read[nr] = NULL;
	r->u = (struct config_unread){r->sections, r->keys, r->read};
	snprintf(r->why, sizeof r->why, "backend %s", ops->name);
	return true;
}

void cli_warn_unread_replay(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets)
{
	struct cli_replay_unread r;
	if (!cli_replay_unread(cfg, &r))
		return;
	cli_warn_unread(cmd, cfg, sets, n_sets, &r.u, r.why);
	cli_warn_unread_layout(cmd, cfg, sets, n_sets);
	/* Where the backend reads [router] (the flit model's). */
	const struct config_table *router = config_find_key(cfg, "lookahead_decide", NULL);
	if (router && !config_unread_has(&r.u, router, "lookahead_decide"))
		cli_warn_unread_router(cmd, cfg, sets, n_sets);
}

/* Whether every one of the workloads' placements (n) is `policy`. */
static bool cli_all_placed(const char *const *placements, size_t n, const char *policy)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(placements[i], policy))
			return false;
	return n > 0;
}

/* Why key `key` of a study's system (configuration cfg) changes nothing
 * in any of its replays nor in its price, into why[n]; false when it is
 * read. rr: cfg's replay lists (cli_replay_unread). The price reads every
 * [layout] key but propagation_ns_per_m, which only cable_latency's
 * replays do; a workload places its ranks by its own `placement`, so a
 * system's placement keys are read only under the workloads' policies
 * that read them (as cli_warn_unread_placement's, per job). */
static bool cli_study_unread_why(const struct config *cfg, const struct config_table *t, const char *key,
				 const struct cli_replay_unread *rr, const char *const *placements, size_t n_wl,
				 char *why, size_t n)
{
	if (config_unread_has(&rr->u, t, key)) {
		snprintf(why, n, "%s", rr->why);
		return true;
	}
	if (!strcmp(key, "propagation_ns_per_m")) {
		const char *cl = config_get_or_default(cfg, "cable_latency");
		if (cl && strtol(cl, NULL, 10) != 0)
			return false;
		snprintf(why, n, "without cable_latency = 1");
		return true;
	}
	if (!strcmp(key, "lookahead_decide")) {
		struct router_cfg rc;
		struct nl_err ignored = {0};
		if (config_bind(cfg, &net_router_table, &rc, &ignored) < 0 || rc.routing_delay == 0)
			return false;
		snprintf(why, n, "without routing_delay = 0");
		return true;
	}
	bool every_map = cli_all_placed(placements, n_wl, "map");
	if (!strcmp(key, "placement_map")) {
		for (size_t i = 0; i < n_wl; i++)
			if (!strcmp(placements[i], "map"))
				return false;
		snprintf(why, n, "no workload has placement = map");
		return true;
	}
	static const char all_map[] =
		"every workload has placement = map, which gives each rank its endpoint from the map file";
	if (every_map && (!strcmp(key, "ranks_per_node") || !strcmp(key, "placement_inner"))) {
		snprintf(why, n, "%s", all_map);
		return true;
	}
	if (!strcmp(key, "placement_inner")) {
		/* Some workload is placed otherwise: read unless one rank per
		 * node (cli_inner_unread_why of a policy other than map). */
		const char *per = config_get_or_default(cfg, "ranks_per_node");
		const char *inner_why = cli_inner_unread_why("contiguous", per ? strtoull(per, NULL, 10) : 0,
							     config_get(cfg, "ranks_per_node") != NULL);
		if (!inner_why)
			return false;
		snprintf(why, n, "%s", inner_why);
		return true;
	}
	return false;
}

/* Entry e of cfg, set in a study (origin "study.ini:7: [system a]") or
 * in a system's config file ("a.ini:3"), not by the study itself
 * (backend: "nl_sim_set"). */
static bool cli_study_entry_placed(const struct config_entry *e)
{
	return e->origin && strchr(e->origin, ':');
}

/* cfg's entry of `key` set at `origin`, or NULL. */
static const struct config_entry *cli_entry_at(const struct config *cfg, const char *key, const char *origin)
{
	for (size_t i = 0; i < cfg->n_entries; i++) {
		const struct config_entry *e = &cfg->entries[i];
		if (!strcmp(e->def->name, key) && e->origin && !strcmp(e->origin, origin))
			return e;
	}
	return NULL;
}

/* Why entry e of system i is not read, into why[n]; false when read. */
static bool cli_study_entry_unread(const struct config *const *cfgs, size_t i, const struct config_entry *e,
				   const char *const *placements, size_t n_wl, char *why, size_t n)
{
	struct cli_replay_unread rr;
	if (!cli_replay_unread(cfgs[i], &rr))
		return false;
	return cli_study_unread_why(cfgs[i], e->table, e->def->name, &rr, placements, n_wl, why, n);
}

void cli_warn_unread_study(const char *cmd, const struct config *const *cfgs, size_t n_sys,
			   const char *const *placements, size_t n_wl)
{
	char why[PARAM_STR_MAX + 200], other[PARAM_STR_MAX + 200];
	for (size_t i = 0; i < n_sys; i++) {
		for (size_t k = 0; k < cfgs[i]->n_entries; k++) {
			const struct config_entry *e = &cfgs[i]->entries[k];
			const char *key = e->def->name;
			if (!cli_study_entry_placed(e) || !cli_study_entry_unread(cfgs, i, e, placements, n_wl, why, sizeof why))
				continue;
			/* A config file several systems load: once, and only when
			 * none of them reads the key. */
			bool said = false, read = false;
			for (size_t j = 0; j < n_sys && !said && !read; j++) {
				const struct config_entry *f = j == i ? NULL : cli_entry_at(cfgs[j], key, e->origin);
				if (!f)
					continue;
				said = j < i;
				read = !cli_study_entry_unread(cfgs, j, f, placements, n_wl, other, sizeof other);
			}
			if (said || read)
				continue;
			/* Inline, the origin names the study's section ("study.ini:7:
			 * [system a]"); from a file, the key's own section. */
			fprintf(stderr, "netloom %s: warning: ", cmd);
			nl_fputs_one_line(e->origin, stderr);
			if (e->origin[strlen(e->origin) - 1] != ']')
				fprintf(stderr, ": [%s]", e->table->section);
			fprintf(stderr, " key '%s': value '", key);
			nl_fputs_one_line(e->given ? e->given : e->value, stderr); /* as the file wrote it */
			fprintf(stderr, "' is not read by %s (%s); it has no effect\n", cmd, why);
		}
	}
}
