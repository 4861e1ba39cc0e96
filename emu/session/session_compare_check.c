/* `netloom compare`'s validation: every system checked against every
 * workload before anything runs (routing and flit counts, placement
 * keys and maps, calibration, fit, layout), each problem one line. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/param.h"
#include "core/path.h"
#include "core/progress.h"
#include "layout/layout.h"
#include "net/net.h"
#include "place/place.h"
#include "route/route.h"
#include "session/session.h"
#include "session/session_internal.h"
#include "topo/topo.h"
#include "traces/trace.h"

#include "session/session_compare_internal.h"

/* A session for system s under the study's backend: its file, its keys. */
int cmp_sys_sim(const struct cmp *c, const struct cmp_sys *s, nl_sim **out, struct nl_err *err)
{
	nl_sim *sim;
	NL_CHECK(nl_sim_new(&sim, err));
	int rc = 0;
	if (s->config && (rc = nl_sim_load_file(sim, s->config, err)) < 0) {
		nl_err_prefix(err, "%s:%d: [system %s] key 'config'", c->path, s->config_line, s->name);
		goto fail;
	}
	for (uint32_t i = 0; i < s->n_kv; i++) {
		/* Set with the key's place in the study as its origin, which
		 * the configuration's errors then name. */
		char where[NL_ERR_MSG_MAX];
		snprintf(where, sizeof where, "%s:%d: [system %s]", c->path, s->kv[i].line, s->name);
		if ((rc = session_set(sim, s->kv[i].key, s->kv[i].value, where, err)) < 0)
			goto fail;
	}
	/* A backend other than these is the study's problem, reported once
	 * (cmp_validate), not again for every system. */
	if (cmp_backend_ok(c->backend) && (rc = nl_sim_set(sim, "backend", c->backend, err)) < 0) {
		nl_err_prefix(err, "%s: [study] key 'backend'", c->path);
		goto fail;
	}
	*out = sim;
	return 0;
fail:
	nl_sim_free(sim);
	return rc;
}

int cmp_hash_file(const char *path, uint64_t *h, struct nl_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return nl_errf(err, NL_EIO, "%s: %s", path, strerror(errno));
	XXH64_state_t *st = XXH64_createState();
	XXH64_reset(st, 0);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		XXH64_update(st, buf, n);
	*h = XXH64_digest(st);
	XXH64_freeState(st);
	fclose(f);
	return 0;
}

static const char *cmp_class_name(uint32_t k)
{
	return k == TOPO_LINK_LOCAL ? "local" : k == TOPO_LINK_GLOBAL ? "global" : "network";
}

/* What the report says of system s's router-to-router ports (port g of
 * the topology): its router, its port there, the router at the far end,
 * its link class. */
static int cmp_sys_ports(struct cmp_sys *s, const struct topo *t)
{
	s->n_ports = t->n_ports;
	s->port_router = calloc(t->n_ports, sizeof *s->port_router);
	s->port_local = calloc(t->n_ports, sizeof *s->port_local);
	s->port_peer = calloc(t->n_ports, sizeof *s->port_peer);
	s->port_class = calloc(t->n_ports, sizeof *s->port_class);
	if (!s->port_router || !s->port_local || !s->port_peer || !s->port_class)
		return -1;
	for (uint32_t g = 0; g < t->n_ports; g++) {
		s->port_router[g] = t->port_router[g];
		s->port_local[g] = g - t->port_base[t->port_router[g]];
		s->port_peer[g] = topo_port_is_network(t, g) ? t->port_router[t->peer[g]] : UINT32_MAX;
		s->port_class[g] = cmp_class_name(topo_link_class(t, g));
	}
	return 0;
}

/* Where system s sets key: "FILE:LINE: [system S]", the key's line when
 * inline, else its section header's (the key comes from its config file
 * or the default). */
static void cmp_where(const struct cmp *c, const struct cmp_sys *s, const char *key, char *out, size_t n)
{
	int line = s->line;
	for (uint32_t i = s->n_kv; i-- > 0;)
		if (!strcmp(s->kv[i].key, key)) {
			line = s->kv[i].line;
			break;
		}
	snprintf(out, n, "%s:%d: [system %s]", c->path, line, s->name);
}

/* The line of system s's key `name`: where the study sets it, else its
 * [system NAME] header (the key then comes from its config file). */
static int cmp_sys_key_line(const struct cmp_sys *s, const char *name)
{
	for (uint32_t i = 0; i < s->n_kv; i++)
		if (!strcmp(s->kv[i].key, name))
			return s->kv[i].line;
	return s->line;
}

/* A topology the study sets, as written: the value it resolved to
 * names its files absolute (cmp_spec_path). */
static const char *cmp_sys_given(const struct cmp_sys *s, const char *name, const char *value)
{
	for (uint32_t i = 0; i < s->n_kv; i++)
		if (!strcmp(s->kv[i].key, name))
			return s->kv[i].given ? s->kv[i].given : value;
	return value;
}

/* A refusal's file names rewritten as a -c file's are
 * (config_err_name): each name as written in the study, then where it
 * was looked for. */
struct cmp_err_names {
	const struct cmp *c;
	char *msg;
	size_t cap;
};

static char *cmp_err_name(void *ctx, const char *name)
{
	const struct cmp_err_names *x = ctx;
	char *resolved = name[0] && x->c->abs_dir ? path_in_dir(x->c->abs_dir, name) : NULL, where[1100];
	snprintf(where, sizeof where, "the study %s", x->c->path);
	if (resolved)
		path_err_rename(x->msg, x->cap, name, resolved, where);
	free(resolved);
	return strdup(name);
}

static void cmp_err_names(const struct cmp *c, const char *given, char *msg, size_t cap)
{
	struct cmp_err_names x = {c, msg, cap};
	free(path_spec_files(given, cmp_err_name, &x));
}

/* "FILE:LINE" of a key the study sets, "FILE" for a default. */
static const char *cmp_at(const struct cmp *c, int line, char *buf, size_t n)
{
	if (line)
		snprintf(buf, n, "%s:%d", c->path, line);
	else
		snprintf(buf, n, "%s", c->path);
	return buf;
}

/* The routing function a replay of system s will run (its own, or the
 * one picked for the family when unset) against the topology and the VCs
 * a flit network gives it (num_vcs / traffic_classes): the registry's own
 * checks (route_new: family, VC classes), before any run. */
static void cmp_check_routing(struct cmp *c, struct cmp_sys *s, nl_sim *sim, const char *rf)
{
	struct nl_err err = {0};
	char where[1200];
	const char *spec = rf ? rf : session_pick_routing(sim->topo);
	if (!s->routing)
		s->routing = strdup(spec ? spec : "none");
	if (!spec || !strcmp(spec, "none"))
		return;
	cmp_where(c, s, rf ? "routing_function" : "topology", where, sizeof where);
	if (session_route_check(sim, sim->topo, spec, &err) >= 0)
		return;
	/* A VC count the function refuses may be set elsewhere than the
	 * routing: in the study at its own line, or in the system's config
	 * file. Say where, as the partitions/threads check does. */
	char at[1200];
	const char *vcs_at = NULL;
	if (strstr(err.msg, "num_vcs")) {
		int line = cmp_sys_key_line(s, "num_vcs");
		vcs_at = line != s->line ? cmp_at(c, line, at, sizeof at) : config_origin(&sim->cfg, "num_vcs");
	}
	cmp_problem(c, "%s key 'routing_function': value '%s'%s: %s%s%s%s", where, spec,
		    rf ? "" : " (picked for the family: key unset)", err.msg, vcs_at ? " (num_vcs set at " : "",
		    vcs_at ? vcs_at : "", vcs_at ? ")" : "");
}

/* The flit backend's partitions and threads against system s's routers,
 * which the engine checks only as it builds the network: the replay
 * would fail after the study had started, its report written with an
 * error cell (exit 3), where a system that does not build is refused
 * before the first replay (docs/procurement.md). The engine's wording
 * (part.c, flitnet_plan.c), at the study's line or the key's origin. */
static void cmp_check_flit_counts(struct cmp *c, const struct cmp_sys *s, const nl_sim *sim)
{
	if (strcmp(c->backend, "flit"))
		return;
	const uint32_t routers = sim->topo->n_routers;
	const struct {
		const char *key;
		int64_t value;
		const char *each;
	} counts[] = {
		{"partitions", sim->sc.partitions, "one router at least in each"},
		{"threads", sim->sc.threads, "a router at least per thread"},
	};
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
		if (counts[i].value <= (int64_t)routers)
			continue;
		char where[1200];
		cmp_where(c, s, counts[i].key, where, sizeof where);
		const char *origin = config_origin(&sim->cfg, counts[i].key);
		bool inline_key = cmp_sys_key_line(s, counts[i].key) != s->line;
		cmp_problem(c, "%s key '%s': value '%lld' out of range: expected 0 (automatic) or 1..%u (%s)%s%s%s",
			    where, counts[i].key, (long long)counts[i].value, routers, counts[i].each,
			    !inline_key && origin ? " (set at " : "", !inline_key && origin ? origin : "",
			    !inline_key && origin ? ")" : "");
	}
}

/* The flit network of system s, built once as each of its replays builds
 * it (the family's routing when it names none), then freed: the refusals
 * the engine makes only as it builds (UGAL-G's live view with partitions
 * or threads, ugal's queue = routed without sequential_allocation, ...)
 * failed every replay of the system, the study run on and its report
 * written with error cells (exit 3), where `netloom replay` refuses them
 * before running (exit 2). Run after the system's other checks passed, so
 * a refusal already said is not said again. */
static void cmp_check_flit_build(struct cmp *c, const struct cmp_sys *s, nl_sim *sim)
{
	if (strcmp(c->backend, "flit"))
		return;
	struct nl_err err = {0};
	struct net_backend *b = NULL;
	const struct net_backend_ops *ops = net_backend_find("flit", &err);
	if (ops && (config_get(&sim->cfg, "routing_function") || session_set_picked_routing(sim, "-s", &err) == 0) &&
	    net_backend_new(ops, &sim->cfg, sim->topo, &b, &err) == 0) {
		net_backend_free(b);
		return;
	}
	/* The engine names the file:line of a key set in a config file, not
	 * the study's inline keys: its refusals are of the routing function
	 * against other keys, so the line is routing_function's when the
	 * study sets it, else the system's header. */
	char where[1200];
	cmp_where(c, s, "routing_function", where, sizeof where);
	cmp_problem(c, "%s: %s", where, err.msg);
}

/* A system's own placement and placement_seed (inline or in its config
 * file) were overwritten by every replay with its workload's placement
 * and its seed (cmp_run_one), so its cells ran placed otherwise than
 * `netloom replay -c` of the same file, and its cache entries were those
 * of a system without them: in a study a workload is placed
 * (docs/procurement.md), on seeds 1..N of [study] seeds. Refused at the
 * line that sets them, as `netloom interfere` refuses a system's job keys;
 * ranks_per_node, placement_inner and placement_map stay the system's. */
static void cmp_check_placement_keys(struct cmp *c, const struct cmp_sys *s, const nl_sim *sim)
{
	static const struct {
		const char *key, *expected;
	} keys[] = {
		{"placement", "a study places each workload by its own key 'placement', not the system's; "
			      "expected it in the [workload NAME] sections (docs/procurement.md)"},
		{"placement_seed", "a study replays every cell with placement seeds 1..N, N = [study] seeds; "
				   "expected [study] seeds (docs/procurement.md)"},
	};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		const char *origin = config_origin(&sim->cfg, keys[i].key);
		if (!origin)
			continue;
		/* Inline, the origin is the study's "FILE:LINE: [system S]"
		 * (cmp_sys_sim); from the config file, its "FILE:LINE". */
		if (cmp_sys_key_line(s, keys[i].key) != s->line)
			cmp_problem(c, "%s key '%s': %s", origin, keys[i].key, keys[i].expected);
		else
			cmp_problem(c, "%s: [system %s] key '%s': %s", origin, s->name, keys[i].key, keys[i].expected);
	}
}

/* A system's inline backend other than the study's ran on the study's,
 * silently ('[system t] backend = flit' under the default [study]
 * backend = analytic replayed t analytically): refused at its line. One
 * from its config file is the documented override (a whole system file
 * serves other commands too). */
static void cmp_check_backend_key(struct cmp *c, const struct cmp_sys *s)
{
	for (uint32_t i = 0; i < s->n_kv; i++)
		if (!strcmp(s->kv[i].key, "backend") && strcmp(s->kv[i].value, c->backend))
			cmp_problem(c,
				    "%s:%d: [system %s] key 'backend': value '%s': every system of a study runs on the "
				    "[study] backend (%s); expected it unset here, or backend = %s in [study]",
				    c->path, s->kv[i].line, s->name, s->kv[i].value, c->backend, s->kv[i].value);
}

/* The placement policies' names, comma-separated, from the registry (so
 * the list cannot leave one out). */
static const char *cmp_policy_names(char *buf, size_t n)
{
	size_t count, used = 0;
	const struct place_ops *const *ops = place_list(&count);
	buf[0] = 0;
	for (size_t i = 0; i < count && used < n; i++) {
		int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", ops[i]->name);
		used += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

/* A placement_map no workload reads (none placed by `map`): a system's
 * map may sit beside workloads placed otherwise, but a file that cannot
 * be opened is refused as other missing inputs are, so a mistyped path
 * is heard of rather than run past. */
static void cmp_check_unread_map(struct cmp *c, const struct cmp_sys *s, const nl_sim *sim, const char *path)
{
	FILE *f = NULL;
	struct nl_err err = {0};
	if (nl_open_input(path, "map file", &f, &err) == 0) {
		fclose(f);
		return;
	}
	const char *origin = config_origin(&sim->cfg, "placement_map");
	if (cmp_sys_key_line(s, "placement_map") != s->line)
		cmp_problem(c, "%s key 'placement_map': %s; expected a map file ('rank endpoint' lines)", origin,
			    err.msg);
	else
		cmp_problem(c, "%s: [system %s] key 'placement_map': %s; expected a map file ('rank endpoint' lines)",
			    origin, s->name, err.msg);
}

/* Workloads placed by `map` on system s: the map file must be named and
 * read as a map of the trace's ranks onto s's endpoints now, not fail
 * every replay later. */
static void cmp_check_maps(struct cmp *c, const struct cmp_sys *s, nl_sim *sim)
{
	char at[1100];
	const char *path = config_get(&sim->cfg, "placement_map");
	bool is_read = false;
	for (uint32_t j = 0; j < c->n_wl; j++) {
		const struct cmp_wl *w = &c->wl[j];
		if (!w->placement || strcmp(w->placement, "map") || !w->trace_ranks)
			continue;
		is_read = true;
		cmp_at(c, w->placement_line, at, sizeof at);
		if (!path || !path[0]) {
			cmp_problem(c, "%s: [workload %s] key 'placement': value 'map': system '%s' sets no "
				       "placement_map; expected a map file ('rank endpoint' lines) in the system",
				    at, w->name, s->name);
			continue;
		}
		uint32_t *ep = malloc((size_t)w->trace_ranks * sizeof *ep);
		struct nl_err err = {0};
		if (!ep)
			cmp_problem(c, "out of memory");
		else if (place_read_map(path, w->trace_ranks, sim->topo->n_endpoints, ep, &err) < 0)
			cmp_problem(c, "%s: [workload %s] on system '%s': key 'placement_map': %s", at, w->name,
				    s->name, err.msg);
		free(ep);
	}
	if (!is_read && path && path[0])
		cmp_check_unread_map(c, s, sim, path);
}

/* The analytic backend's calibration file of system s, read as its
 * replays read it: the backend built over the system's topology, as each
 * replay builds it. A missing, unreadable or malformed file, or one
 * without a run of calibration_ranks ranks, failed every replay (exit 3,
 * its cells errors), where `netloom replay` refuses it before running. */
static void cmp_check_calibration(struct cmp *c, const struct cmp_sys *s, const nl_sim *sim)
{
	const char *path = config_get(&sim->cfg, "calibration");
	if (strcmp(c->backend, "analytic") || !path || !path[0])
		return;
	struct nl_err err = {0};
	struct net_backend *b = NULL;
	const struct net_backend_ops *ops = net_backend_find("analytic", &err);
	if (!ops || net_backend_new(ops, &sim->cfg, sim->topo, &b, &err) == 0) {
		net_backend_free(b);
		return;
	}
	/* The reader's message begins with where the key was set and the
	 * key, which ours names. */
	const char *why = err.msg, *prefix = "key 'calibration': ", *place = config_place(&sim->cfg, "calibration");
	if (place && !strncmp(why, place, strlen(place)) && !strncmp(why + strlen(place), ": ", 2))
		why += strlen(place) + 2;
	if (!strncmp(why, prefix, strlen(prefix)))
		why += strlen(prefix);
	char where[1200];
	cmp_where(c, s, "calibration", where, sizeof where);
	const char *origin = config_origin(&sim->cfg, "calibration");
	bool inline_key = cmp_sys_key_line(s, "calibration") != s->line;
	cmp_problem(c, "%s key 'calibration': %s%s%s%s", where, why, !inline_key && origin ? " (set at " : "",
		    !inline_key && origin ? origin : "", !inline_key && origin ? ")" : "");
}

/* Whether each workload's ranks fit system s, by the checks its replay
 * makes (app_config_bind with the workload's placement, session_replay.c):
 * placement linear needs an endpoint per rank and refuses ranks_per_node
 * > 1; a policy places the job (place_job with the system's
 * ranks_per_node and placement_inner, the first seed), so ranks_per_node
 * ranks share an endpoint. Placement map is cmp_check_maps'. Sets key
 * placement of sim's configuration (sim is for validation only; its
 * topology stays). */
static void cmp_check_fit(struct cmp *c, const struct cmp_sys *s, nl_sim *sim)
{
	char at[1100];
	for (uint32_t j = 0; j < c->n_wl; j++) {
		const struct cmp_wl *w = &c->wl[j];
		const char *policy = w->placement ? w->placement : "linear";
		bool linear = !strcmp(policy, "linear");
		const struct place_ops *ops = linear ? NULL : place_find(policy, NULL);
		struct nl_err err = {0};
		struct app_config ac;
		/* No trace, an unknown policy: reported with the workload. */
		if (!w->trace_ranks || (!linear && !ops))
			continue;
		/* Without a placement key (linear by default), the workload's
		 * header: every problem names a line. */
		cmp_at(c, w->placement_line ? w->placement_line : w->line, at, sizeof at);
		if (config_set(&sim->cfg, "placement", policy, "study", &err) < 0 ||
		    app_config_bind(&sim->cfg, &ac, &err) < 0) {
			cmp_problem(c, "%s: [workload %s] on system '%s': %s", at, w->name, s->name, err.msg);
			continue;
		}
		if (ops && !strcmp(ops->name, "map"))
			continue;
		if (linear) {
			if (w->trace_ranks > s->endpoints)
				cmp_problem(c, "%s: [workload %s] trace '%s': %u ranks; expected at most the %u endpoints of "
					       "system '%s' (placement linear: one rank per endpoint)",
					    cmp_at(c, w->trace_line, at, sizeof at), w->name, w->trace, w->trace_ranks,
					    s->endpoints, s->name);
			continue;
		}
		uint32_t *ep = malloc((size_t)w->trace_ranks * sizeof *ep);
		struct place_req req = {
			.t = sim->topo,
			.n_ranks = w->trace_ranks,
			.ranks_per_node = (uint32_t)ac.ranks_per_node,
			.inner = ac.placement_inner ? PLACE_INNER_ROUND_ROBIN : PLACE_INNER_LINEAR,
			.seed = cmp_seed(0),
		};
		if (!ep)
			cmp_problem(c, "out of memory");
		else if (place_job(ops, &req, ep, &err) < 0)
			cmp_problem(c, "%s: [workload %s] key 'placement': value '%s' on system '%s': %s", at, w->name,
				    policy, s->name, err.msg);
		free(ep);
	}
}

/* System s's path_select (the analytic backend's choice among equal-cost
 * next hops), for report.json's study.contention. */
static void cmp_path_select(struct cmp *c, struct cmp_sys *s, nl_sim *sim)
{
	json_t *j = config_to_json(&sim->cfg);
	const char *v = json_string_value(json_object_get(j, "path_select"));
	s->path_select = strdup(v ? v : "spread");
	json_decref(j);
	if (!s->path_select)
		cmp_problem(c, "out of memory");
}

/* A problem with system s's own layout keys (cmp_sys_cost's err, "key
 * 'layout_pack': ..."), at that key's line, else at its header's with
 * where its config file sets it. */
static void cmp_layout_problem(struct cmp *c, const struct cmp_sys *s, const nl_sim *sim, const char *msg)
{
	char key[64] = "", where[1200];
	if (sscanf(msg, "key '%63[^']'", key) != 1)
		key[0] = 0;
	cmp_where(c, s, key, where, sizeof where);
	const char *origin = key[0] ? config_origin(&sim->cfg, key) : NULL;
	bool inline_key = key[0] && cmp_sys_key_line(s, key) != s->line;
	cmp_problem(c, "%s %s%s%s%s", where, msg, !inline_key && origin ? " (set at " : "",
		    !inline_key && origin ? origin : "", !inline_key && origin ? ")" : "");
}

/* A file the study reads, `what` (printf-style) naming where, handed to
 * the caller's check (session_compare_opts): an output of its that would
 * replace the file is a problem of the study, before anything is written. */
static void cmp_check_file(struct cmp *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cmp_check_file(struct cmp *c, const char *path, const char *fmt, ...)
{
	char what[1200];
	struct nl_err err = {0};
	va_list ap;
	if (!c->o->check_file || !path)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (c->o->check_file(c->o->check_ctx, what, path, &err) < 0)
		cmp_problem(c, "%s", err.msg);
}

/* [study] reference names one of the study's systems. A name that is not
 * one is refused with the systems' names (and the one it is a typo of),
 * as an unknown plug-in name lists the valid ones: 'fat-tree' against
 * [system fattree] said only "expected the name of a [system NAME]". */
static void cmp_check_reference(struct cmp *c)
{
	const char *names[CMP_MAX_SYS];
	char list[1024] = "", at[1100];
	size_t used = 0;
	if (!c->n_sys)
		return; /* said once: no [system NAME] section */
	for (uint32_t i = 0; i < c->n_sys; i++) {
		if (!strcmp(c->sys[i].name, c->reference))
			return;
		names[i] = c->sys[i].name;
		if (used < sizeof list) {
			int k = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
			used += k > 0 ? (size_t)k : 0;
		}
	}
	const char *near = config_name_near(c->reference, strlen(c->reference), names, c->n_sys);
	cmp_problem(c, "%s: [study] key 'reference': value '%s': expected the name of a [system NAME] "
		       "(%s%s%ssystems: %s)",
		    cmp_at(c, c->reference_line, at, sizeof at), c->reference, near ? "did you mean '" : "",
		    near ? near : "", near ? "'? " : "", list);
}

/* Every problem of the study, before any run: the systems build (topology,
 * routing, cost), the traces open, their ranks fit every system, and the
 * caller writes none of the files the study reads. */
void cmp_validate(struct cmp *c)
{
	struct nl_err err = {0};
	char at[1100];
	cmp_check_file(c, c->path, "STUDY");
	if (!c->n_sys)
		cmp_problem(c, "%s: no [system NAME] section; expected at least one", c->path);
	if (!c->n_wl)
		cmp_problem(c, "%s: no [workload NAME] section; expected at least one", c->path);
	if (!cmp_backend_ok(c->backend))
		cmp_problem(c, "%s: [study] key 'backend': value '%s': expected analytic or flit",
			    cmp_at(c, c->backend_line, at, sizeof at), c->backend);
	const struct layout_model *m = layout_model_find(c->preset, &err);
	if (!m)
		cmp_problem(c, "%s: [study] key 'preset': %s", cmp_at(c, c->preset_line, at, sizeof at), err.msg);
	if (c->reference)
		cmp_check_reference(c);
	for (uint32_t i = 0; i < c->n_wl; i++) {
		struct cmp_wl *w = &c->wl[i];
		cmp_check_file(c, w->trace, "%s:%d [workload %s] trace", c->path, w->trace_line, w->name);
		if (!w->trace) {
			/* At its header's line, where the key is missing. */
			cmp_problem(c, "%s:%d: [workload %s] key 'trace': missing; expected a trace archive (.nlt)",
				    c->path, w->line, w->name);
			continue;
		}
		const struct place_ops *pops = w->placement ? place_find(w->placement, NULL) : NULL;
		w->uses_seed = pops && pops->uses_seed;
		if (w->placement && strcmp(w->placement, "linear") && !pops) {
			char names[256];
			cmp_at(c, w->placement_line, at, sizeof at);
			cmp_problem(c, "%s: [workload %s] key 'placement': value '%s': expected linear or a policy of "
				       "docs/placement.md (%s)", at, w->name, w->placement,
				    cmp_policy_names(names, sizeof names));
		}
		struct trace_archive *a;
		if (trace_archive_open(&a, w->trace, &err) < 0) {
			/* The value as written: the resolved path, which the
			 * reader's message names, was shown as the value
			 * ("value 'st/x.nlt': st/x.nlt: cannot open"). */
			cmp_problem(c, "%s:%d: [workload %s] key 'trace': value '%s': %s", c->path, w->trace_line,
				    w->name, w->trace_given ? w->trace_given : w->trace, err.msg);
			continue;
		}
		w->trace_ranks = trace_archive_manifest(a)->n_ranks;
		trace_archive_close(a);
		if (w->ranks && w->ranks != w->trace_ranks)
			cmp_problem(c, "%s: [workload %s] key 'ranks': value '%u': expected the trace's %u ranks",
				    cmp_at(c, w->ranks_line, at, sizeof at), w->name, w->ranks, w->trace_ranks);
		if (cmp_hash_file(w->trace, &w->trace_hash, &err) < 0)
			cmp_problem(c, "%s: [workload %s] key 'trace': %s", cmp_at(c, w->trace_line, at, sizeof at),
				    w->name, err.msg);
	}
	for (uint32_t i = 0; i < c->n_sys; i++) {
		struct cmp_sys *s = &c->sys[i];
		nl_sim *sim;
		cmp_check_file(c, s->config, "%s:%d [system %s] config", c->path, s->config_line, s->name);
		if (cmp_sys_sim(c, s, &sim, &err) < 0) {
			cmp_problem(c, "%s", err.msg);
			continue;
		}
		if (c->o->check_config && c->o->check_config(c->o->check_ctx, &sim->cfg, &err) < 0)
			cmp_problem(c, "%s", err.msg);
		const char *topo = config_get(&sim->cfg, "topology");
		const char *rf = config_get(&sim->cfg, "routing_function");
		cmp_check_placement_keys(c, s, sim);
		cmp_check_backend_key(c, s);
		if (!topo) {
			cmp_problem(c, "%s:%d: [system %s] key 'topology': unset; expected a topology (e.g. "
				       "torus:k=4x4), inline or in its config file", c->path, s->line, s->name);
		} else if (session_bind(sim, &err) < 0 || session_topo(sim, &err) < 0) {
			const char *given = cmp_sys_given(s, "topology", topo);
			if (given != topo)
				cmp_err_names(c, given, err.msg, sizeof err.msg);
			cmp_problem(c, "%s: [system %s] key 'topology': value '%s': %s",
				    cmp_at(c, cmp_sys_key_line(s, "topology"), at, sizeof at), s->name, given, err.msg);
		} else {
			s->endpoints = sim->topo->n_endpoints;
			s->topology = strdup(topo);
			const size_t n_problems = c->n_problems;
			cmp_check_routing(c, s, sim, rf);
			cmp_check_flit_counts(c, s, sim);
			cmp_check_fit(c, s, sim);
			cmp_check_maps(c, s, sim);
			cmp_check_calibration(c, s, sim);
			cmp_path_select(c, s, sim);
			s->topology_unused = session_topology_unused(&sim->cfg);
			if (cmp_sys_ports(s, sim->topo) < 0)
				cmp_problem(c, "out of memory");
			if (m && cmp_sys_cost(c, s, sim->topo, &sim->cfg, &err) < 0)
				cmp_layout_problem(c, s, sim, err.msg);
			if (c->n_problems == n_problems)
				cmp_check_flit_build(c, s, sim);
		}
		nl_sim_free(sim);
	}
}
