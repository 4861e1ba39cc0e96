/* `netloom compare` (issue 15, docs/procurement.md): candidate systems
 * side by side under the same workloads. A study file names the systems
 * (a network configuration each), the workloads (traces with a weight and
 * a placement policy), the backend, the repeat seeds and the cost preset.
 * Every system is validated against every workload before anything runs;
 * then each (system, workload, seed) replay is an independent job, run on
 * N threads (sessions share nothing, session.h) and gathered in a fixed
 * order, so -j changes no result. Each job's result is cached under a
 * hash of everything it depends on, so a re-run computes only what
 * changed. Cost and power come from emu/layout, as `netloom cost` has them.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
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
#include "core/progress.h"
#include "core/version.h"
#include "layout/layout.h"
#include "net/net.h"
#include "place/place.h"
#include "route/route.h"
#include "session/session.h"
#include "session/session_internal.h"
#include "topo/topo.h"
#include "traces/trace.h"

#include "session/session_compare_internal.h"

static void cmp_problem(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cmp_problem(struct cmp *c, const char *fmt, ...)
{
	char line[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	char *p = realloc(c->problems, c->len_problems + n + 2);
	if (!p)
		return;
	memcpy(p + c->len_problems, line, n);
	p[c->len_problems + n] = '\n';
	p[c->len_problems + n + 1] = 0;
	c->problems = p;
	c->len_problems += n + 1;
	c->n_problems++;
}

static char *cmp_path(const struct cmp *c, const char *v)
{
	char buf[2048];
	if (v[0] == '/' || !c->dir[0])
		snprintf(buf, sizeof buf, "%s", v);
	else
		snprintf(buf, sizeof buf, "%s/%s", c->dir, v);
	return strdup(buf);
}

static bool cmp_parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	if (!*v || *v == '-' || *v == '+')
		return false;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return false;
	*out = (uint32_t)x;
	return true;
}

/* A section of the study begins (its header at line, the index-th header
 * of the file): registered even when no key follows, so an empty
 * [system NAME] or [workload NAME] is refused for what it lacks rather
 * than dropped, and an unknown or second [study] is refused. Sets
 * cur_sys or cur_wl to the system or workload it defines (NULL: neither,
 * or refused). False when there are too many of its kind (reported). */
static bool cmp_section(struct cmp *c, const char *section, int line, int index)
{
	const char *f = c->path;
	char name[sizeof c->section];
	snprintf(c->section, sizeof c->section, "%s", section);
	c->section_headers = index;
	c->cur_sys = NULL;
	c->cur_wl = NULL;
	ini_keys_release(&c->sec_keys);
	if (!strcmp(section, "study")) {
		if (c->study_line)
			cmp_problem(c, "%s:%d: [study] given twice (first at line %d); expected one [study] section", f,
				    line, c->study_line);
		else
			c->study_line = line;
	} else if (ini_lines_section_name(section, "system", name, sizeof name) && name[0]) {
		for (uint32_t i = 0; i < c->n_sys; i++)
			if (!strcmp(c->sys[i].name, name))
				cmp_problem(c, "%s:%d: [%s]: system '%s' defined twice; expected one section per system", f,
					    line, section, name);
		if (c->n_sys == CMP_MAX_SYS) {
			cmp_problem(c, "%s:%d: [%s]: more than %d systems", f, line, section, CMP_MAX_SYS);
			return false;
		}
		c->cur_sys = &c->sys[c->n_sys++];
		c->cur_sys->line = line;
		c->cur_sys->name = strdup(name);
	} else if (ini_lines_section_name(section, "workload", name, sizeof name) && name[0]) {
		for (uint32_t i = 0; i < c->n_wl; i++)
			if (!strcmp(c->wl[i].name, name))
				cmp_problem(c, "%s:%d: [%s]: workload '%s' defined twice; expected one section per workload",
					    f, line, section, name);
		if (c->n_wl == CMP_MAX_WL) {
			cmp_problem(c, "%s:%d: [%s]: more than %d workloads", f, line, section, CMP_MAX_WL);
			return false;
		}
		struct cmp_wl *w = c->cur_wl = &c->wl[c->n_wl++];
		w->name = strdup(name);
		w->line = line;
		w->weight = 1;
	} else {
		static const char *const kinds[] = {"study", "system", "workload"};
		char near[INI_LINES_NAME_MAX + 8];
		bool has_near = ini_lines_section_near(section, kinds, 3, near, sizeof near);
		cmp_problem(c, "%s:%d: section [%s]: expected [study], [system NAME] or [workload NAME]%s%s%s", f, line,
			    section, has_near ? " (did you mean " : "", has_near ? near : "", has_near ? "?)" : "");
	}
	return true;
}

/* A path a topology spec names (file=, @FILE), resolved as every path of
 * the study. */
static char *cmp_spec_path(void *ctx, const char *v)
{
	return v[0] ? cmp_path(ctx, v) : strdup(v);
}

/* inih's handler: every problem is noted, reading goes on. */
static int cmp_ini(struct cmp *c, const char *section, const char *name, const char *value)
{
	const char *f = c->path;
	int line = c->src.line;
	/* a new section (inih reports sections with their first key) */
	if ((strcmp(section, c->section) || c->src.headers != c->section_headers) &&
	    !cmp_section(c, section, c->src.header_line, c->src.headers))
		return 1;
	/* The section as messages name it: a system's or workload's name
	 * trimmed, whatever blanks its header has. */
	char sec[sizeof c->section + 16];
	if (c->cur_sys)
		snprintf(sec, sizeof sec, "system %s", c->cur_sys->name);
	else if (c->cur_wl)
		snprintf(sec, sizeof sec, "workload %s", c->cur_wl->name);
	else
		snprintf(sec, sizeof sec, "%s", section);
	if (c->src.is_misindented) {
		char msg[NL_ERR_MSG_MAX];
		ini_lines_misindented_msg(msg, sizeof msg, sec, name, value);
		cmp_problem(c, "%s:%d: %s", f, line, msg);
		return 1;
	}
	/* inih also splits at ':', so "topology torus:k=4" (no '=') reads as
	 * key "topology torus": a key with a blank in it is refused. */
	if (name[strcspn(name, " \t")]) {
		cmp_problem(c, "%s:%d: expected 'key = value' with one word before '=', got key '%s'", f, line, name);
		return 1;
	}
	/* A key given twice in one section: the last one won, silently,
	 * where a system or workload defined twice is refused. */
	int first = ini_keys_seen(&c->sec_keys, section, name, line);
	if (first > 0) {
		cmp_problem(c, "%s:%d: [%s] key '%s' given twice (first at line %d); expected each key once", f, line,
			    sec, name, first);
		return 1;
	}
	if (!strcmp(section, "study")) {
		if (!strcmp(name, "backend")) {
			free(c->backend);
			c->backend = strdup(value);
			c->backend_line = line;
		} else if (!strcmp(name, "preset")) {
			free(c->preset);
			c->preset = strdup(value);
			c->preset_line = line;
		} else if (!strcmp(name, "reference")) {
			free(c->reference);
			c->reference = strdup(value);
			c->reference_line = line;
		} else if (!strcmp(name, "seeds")) {
			if (!cmp_parse_u32(value, 1, CMP_MAX_SEEDS, &c->n_seeds))
				cmp_problem(c, "%s:%d: [study] key 'seeds': value '%s': expected an integer in [1, %d]", f,
					    line, value, CMP_MAX_SEEDS);
		} else {
			cmp_problem(c, "%s:%d: [study]: unknown key '%s'; expected backend, seeds, preset or reference", f,
				    line, name);
		}
		return 1;
	}
	if (c->cur_sys) {
		struct cmp_sys *s = c->cur_sys;
		if (!strcmp(name, "config")) {
			free(s->config);
			s->config = cmp_path(c, value);
			s->config_line = line;
		} else if (s->n_kv == CMP_MAX_KEYS) {
			cmp_problem(c, "%s:%d: [%s]: more than %d keys", f, line, sec, CMP_MAX_KEYS);
		} else {
			char *v = cmp_is_file_key(name)	     ? cmp_path(c, value)
				  : !strcmp(name, "topology") ? cmp_spec_files(value, cmp_spec_path, c)
							      : strdup(value);
			s->kv[s->n_kv++] = (struct cmp_kv){strdup(name), v, line};
		}
		return 1;
	}
	if (c->cur_wl) {
		struct cmp_wl *w = c->cur_wl;
		char *end;
		if (!strcmp(name, "trace")) {
			free(w->trace);
			w->trace = cmp_path(c, value);
			w->trace_line = line;
		} else if (!strcmp(name, "ranks")) {
			w->ranks_line = line;
			/* The range said: 4294967304, a positive integer, was
			 * refused as not one. */
			if (!cmp_parse_u32(value, 1, UINT32_MAX, &w->ranks))
				cmp_problem(c, "%s:%d: [%s] key 'ranks': value '%s': expected an integer in [1, %" PRIu32
					       "] (the trace's ranks)", f, line, sec, value, UINT32_MAX);
		} else if (!strcmp(name, "weight")) {
			w->weight = param_strtod(value, &end);
			/* 1e309 reads as inf, 1e-330 as 0: "> 0" alone read as wrong
			 * for both, so the range is said. */
			if (end == value || *end || !(w->weight > 0) || !isfinite(w->weight))
				cmp_problem(c,
					    "%s:%d: [%s] key 'weight': value '%s': expected a finite decimal number > 0 "
					    "(a double: 4.9e-324 .. 1.8e308)",
					    f, line, sec, value);
		} else if (!strcmp(name, "placement")) {
			free(w->placement);
			w->placement = strdup(value);
			w->placement_line = line;
		} else {
			cmp_problem(c, "%s:%d: [%s]: unknown key '%s'; expected trace, ranks, weight or placement", f,
				    line, sec, name);
		}
		return 1;
	}
	/* A key before the first header belongs to no section: it was
	 * dropped silently ("foo = 1", or "seeds = 3" above [study]). */
	if (!c->src.headers)
		cmp_problem(c, "%s:%d: key '%s' before any section; expected it under [study], [system NAME] or "
			    "[workload NAME]", f, line, name);
	return 1; /* keys of a section already reported */
}

/* ini_lines' empty_section: a header with no keys (inih never reports it). */
static void cmp_empty_section(void *ctx, const char *name, int line, int index)
{
	(void)cmp_section(ctx, name, line, index);
}

static int cmp_ini_any(void *user, const char *section, const char *name, const char *value)
{
	return cmp_ini(user, section, name, value);
}

static bool cmp_backend_ok(const char *backend)
{
	return !strcmp(backend, "analytic") || !strcmp(backend, "flit");
}

/* A session for system s under the study's backend: its file, its keys. */
static int cmp_sys_sim(const struct cmp *c, const struct cmp_sys *s, nl_sim **out, struct nl_err *err)
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

static int cmp_hash_file(const char *path, uint64_t *h, struct nl_err *err)
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
 * (part.c, flitnet.c), at the study's line or the key's origin. */
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
static void cmp_validate(struct cmp *c)
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
			cmp_problem(c, "%s:%d: [workload %s] key 'trace': value '%s': %s", c->path, w->trace_line,
				    w->name, w->trace, err.msg);
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
			cmp_problem(c, "%s: [system %s] key 'topology': value '%s': %s",
				    cmp_at(c, cmp_sys_key_line(s, "topology"), at, sizeof at), s->name, topo, err.msg);
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

/* The systems' configurations and the workloads' placements, for the
 * caller's warnings of keys nothing reads (session_compare_opts
 * on_systems), once the study is valid: each system's session again, as
 * cmp_validate made it (cheap: keys set, nothing built). */
static int cmp_systems_read(const struct cmp *c, struct nl_err *err)
{
	if (!c->o->on_systems)
		return 0;
	int rc = 0;
	nl_sim *sims[CMP_MAX_SYS] = {NULL};
	const struct config *cfgs[CMP_MAX_SYS];
	const char *placements[CMP_MAX_WL];
	uint32_t n = 0;
	for (; n < c->n_sys; n++) {
		if ((rc = cmp_sys_sim(c, &c->sys[n], &sims[n], err)) < 0)
			goto out;
		cfgs[n] = &sims[n]->cfg;
	}
	for (uint32_t i = 0; i < c->n_wl; i++)
		placements[i] = c->wl[i].placement ? c->wl[i].placement : "linear";
	c->o->on_systems(c->o->systems_ctx, cfgs, c->n_sys, placements, c->n_wl);
out:
	for (uint32_t i = 0; i < n; i++)
		nl_sim_free(sims[i]);
	return rc;
}

/* Link use: the replay's endpoints are all one job (0), so the backend's
 * per-(channel, job) counters of `netloom interfere` give each channel's
 * use. A backend or model that cannot count leaves the reason instead. */
struct cmp_count {
	nl_sim *sim;
	struct cmp_run *r;
	uint32_t *ep_job;
};

static int cmp_on_app(void *ctx, struct app *app, const struct trace_manifest *m, struct nl_err *err)
{
	(void)app;
	(void)m;
	struct cmp_count *cnt = ctx;
	const struct topo *t = cnt->sim->replay_topo;
	struct nl_err why = {0};
	if (!t) {
		snprintf(cnt->r->links_why, sizeof cnt->r->links_why, "the replay ran without a topology");
		return 0;
	}
	cnt->ep_job = calloc(t->n_endpoints ? t->n_endpoints : 1, sizeof *cnt->ep_job);
	if (!cnt->ep_job)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	if (net_backend_count_jobs(cnt->sim->replay_net, cnt->ep_job, 1, &why) < 0)
		snprintf(cnt->r->links_why, sizeof cnt->r->links_why, "%s", why.msg);
	return 0;
}

static int cmp_links_take(nl_sim *sim, struct cmp_run *r)
{
	const char *unit = "";
	const struct net_job_use *use = NULL;
	size_t n_use = 0;
	const struct topo *t = sim->replay_topo;
	struct nl_err why = {0};
	if (r->links_why[0] || !t)
		return 0;
	if (net_backend_job_links(sim->replay_net, &use, &n_use, &unit, &why) < 0)
		return -1;
	snprintf(r->links_unit, sizeof r->links_unit, "%s", unit);
	/* One job: at most one entry per port, in port order. */
	uint32_t n = 0;
	for (size_t i = 0; i < n_use; i++)
		n += topo_port_is_network(t, use[i].port) && use[i].count;
	if (n && !(r->links = calloc(n, sizeof *r->links)))
		return -1;
	for (size_t i = 0; i < n_use; i++)
		if (topo_port_is_network(t, use[i].port) && use[i].count) {
			r->links[r->n_links][0] = use[i].port;
			r->links[r->n_links++][1] = use[i].count;
		}
	return 0;
}

/* One replay. Its failure (deadlock, an error) is the cell's, not the
 * study's. */
static void cmp_run_one(struct cmp *c, struct cmp_run *r)
{
	const struct cmp_sys *s = &c->sys[r->s];
	const struct cmp_wl *w = &c->wl[r->w];
	struct nl_err err = {0};
	nl_sim *sim = NULL;
	char seed[32];
	snprintf(seed, sizeof seed, "%" PRIu64, cmp_seed(r->k));
	/* The routing that will run is in the key: a system that names none
	 * gets the family's default now, as the replay would pick it, set as
	 * if the system named it (so both share their cache entries, and a
	 * changed default misses). */
	if (cmp_sys_sim(c, s, &sim, &err) < 0 ||
	    nl_sim_set(sim, "placement", w->placement ? w->placement : "linear", &err) < 0 ||
	    nl_sim_set(sim, "placement_seed", seed, &err) < 0 ||
	    (!config_get(&sim->cfg, "routing_function") &&
	     (session_topo(sim, &err) < 0 || session_set_picked_routing(sim, "-s", &err) < 0)) ||
	    cmp_key(sim, w, cmp_seed(r->k), version_build(), r->key, &err) < 0) {
		r->status = 2;
		snprintf(r->err, sizeof r->err, "%s", err.msg);
		nl_sim_free(sim);
		return;
	}
	if (!cmp_cache_get(c, r)) {
		struct cmp_count cnt = {.sim = sim, .r = r};
		struct session_replay_opts ro = {.on_app = cmp_on_app, .ctx = &cnt};
		struct nl_replay out = {.size = sizeof out};
		int rc = session_replay(sim, w->trace, &ro, &out, &err);
		r->status = rc == 0 ? 0 : rc == NL_EDEADLOCK ? 1 : 2;
		r->runtime_s = rc == 0 ? out.predicted_s : 0;
		r->comm_share = rc == 0 ? session_comm_share(app_results(sim->app)) : 0;
		snprintf(r->err, sizeof r->err, "%s", rc == 0 ? "" : err.msg);
		if (rc == 0 && cmp_links_take(sim, r) < 0) {
			r->status = 2;
			snprintf(r->err, sizeof r->err, "out of memory");
		}
		free(cnt.ep_job);
		/* Only rank 0 writes the cache: it puts the other ranks'
		 * results after the gather (cmp_gather). One thread at a time:
		 * the list of files staged for a signal is the process's
		 * (cmp_cache_write, core/output.h). */
		if (c->rank == 0) {
			pthread_mutex_lock(&c->mu);
			cmp_cache_put(c, r);
			pthread_mutex_unlock(&c->mu);
		}
	}
	nl_sim_free(sim);
}

static void *cmp_worker(void *arg)
{
	struct cmp *c = arg;
	for (;;) {
		/* This rank's runs: i = rank, rank + ranks, ... (all of them in
		 * one process). */
		uint64_t i = (uint64_t)atomic_fetch_add(&c->next, 1) * c->size + c->rank;
		if (i >= c->n_todo)
			return NULL;
		cmp_run_one(c, &c->runs[c->todo[i]]);
		pthread_mutex_lock(&c->mu);
		c->done++;
		if (c->o->pg) {
			char d[64];
			snprintf(d, sizeof d, "run %u/%u", c->done, c->n_mine);
			progress_update(c->o->pg, (double)c->done / c->n_mine, d);
		}
		pthread_mutex_unlock(&c->mu);
	}
}

/* Directory p, made unless there: a file of that name is refused here,
 * before any run, not found when the cache or the report is written. */
static int cmp_mkdir(const char *p, const char *what, struct nl_err *err)
{
	struct stat st;
	if (!*p)
		return nl_errf(err, NL_EINVAL, "empty directory name; expected a directory %s", what);
	if (mkdir(p, 0777) < 0 && errno != EEXIST)
		return nl_errf(err, NL_EIO, "%s: cannot create directory: %s", p, strerror(errno));
	if (stat(p, &st) < 0)
		return nl_errf(err, NL_EIO, "%s: %s", p, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return nl_errf(err, NL_EIO, "%s: not a directory; expected a directory %s", p, what);
	return 0;
}

/* A run's result as bytes, for the other ranks (the same netloom on
 * each): index, status, figures, cache flag and key, error line, links.
 * Writes at out when not NULL; returns the size either way. */
static size_t cmp_pack_run(const struct cmp_run *r, uint32_t i, uint8_t *out)
{
	const uint32_t le = (uint32_t)strlen(r->err) + 1, lw = (uint32_t)strlen(r->links_why) + 1;
	const uint8_t cached = r->cached;
	const int32_t status = r->status;
	size_t n = 0;
#define CMP_PUT(src, len)                               \
	do {                                            \
		if (out && (len) != 0)                  \
			memcpy(out + n, (src), (len));  \
		n += (len);                             \
	} while (0)
	CMP_PUT(&i, 4);
	CMP_PUT(&status, 4);
	CMP_PUT(&r->runtime_s, 8);
	CMP_PUT(&r->comm_share, 8);
	CMP_PUT(&cached, 1);
	CMP_PUT(r->key, sizeof r->key);
	CMP_PUT(&le, 4);
	CMP_PUT(r->err, le);
	CMP_PUT(&r->n_links, 4);
	CMP_PUT(r->links, (size_t)r->n_links * sizeof *r->links);
	CMP_PUT(r->links_unit, sizeof r->links_unit);
	CMP_PUT(&lw, 4);
	CMP_PUT(r->links_why, lw);
#undef CMP_PUT
	return n;
}

/* The inverse of cmp_pack_run into c->runs (its index); returns the bytes
 * read, 0 when out of memory. */
static size_t cmp_unpack_run(struct cmp *c, const uint8_t *p)
{
	size_t n = 0;
	uint32_t i, le, lw;
	int32_t status;
	uint8_t cached;
#define CMP_GET(dst, len)                     \
	do {                                  \
		if ((len) != 0)               \
			memcpy((dst), p + n, (len)); \
		n += (len);                   \
	} while (0)
	CMP_GET(&i, 4);
	struct cmp_run *r = &c->runs[i];
	CMP_GET(&status, 4);
	CMP_GET(&r->runtime_s, 8);
	CMP_GET(&r->comm_share, 8);
	CMP_GET(&cached, 1);
	CMP_GET(r->key, sizeof r->key);
	CMP_GET(&le, 4);
	CMP_GET(r->err, le);
	CMP_GET(&r->n_links, 4);
	free(r->links);
	r->links = NULL;
	if (r->n_links && !(r->links = malloc((size_t)r->n_links * sizeof *r->links)))
		return 0;
	CMP_GET(r->links, (size_t)r->n_links * sizeof *r->links);
	CMP_GET(r->links_unit, sizeof r->links_unit);
	CMP_GET(&lw, 4);
	CMP_GET(r->links_why, lw);
#undef CMP_GET
	r->status = status;
	r->cached = cached;
	return n;
}

/* Under MPI: every rank's runs to every rank (so all count the same
 * failures and return the same status), then rank 0 caches those the
 * other ranks executed. Collective; the same status on every rank. */
static int cmp_gather(struct cmp *c, struct nl_err *err)
{
	size_t len = 0;
	for (uint32_t i = c->rank; i < c->n_todo; i += c->size)
		len += cmp_pack_run(&c->runs[c->todo[i]], c->todo[i], NULL);
	uint8_t *mine = malloc(len ? len : 1), *all = NULL;
	size_t *at = malloc(((size_t)c->size + 1) * sizeof *at);
	int rc = mine && at ? 0 : nl_errf(err, NL_ENOMEM, "out of memory");
	rc = net_mpi_agree(c->o->mpi, rc, err);
	if (rc == 0) {
		len = 0;
		for (uint32_t i = c->rank; i < c->n_todo; i += c->size)
			len += cmp_pack_run(&c->runs[c->todo[i]], c->todo[i], mine + len);
		rc = net_mpi_allgather(c->o->mpi, mine, len, &all, at, err);
	}
	int urc = 0;
	for (uint32_t q = 0; rc == 0 && urc == 0 && q < c->size; q++)
		for (size_t off = at[q]; q != c->rank && urc == 0 && off < at[q + 1];) {
			size_t n = cmp_unpack_run(c, all + off);
			if (!n)
				urc = nl_errf(err, NL_ENOMEM, "out of memory");
			off += n;
		}
	if (rc == 0)
		rc = net_mpi_agree(c->o->mpi, urc, err);
	if (rc == 0 && c->rank == 0)
		for (uint32_t i = 0; i < c->n_todo; i++)
			if (i % c->size != 0 && !c->runs[c->todo[i]].cached)
				cmp_cache_put(c, &c->runs[c->todo[i]]);
	free(mine);
	free(all);
	free(at);
	return rc;
}

/* Each reused run (a seed its workload's placement does not read) takes
 * the result of its cell's seed 1, replayed or cached: every seed's entry
 * of the report is there, as when each replayed, and the seeds' sums
 * (busiest links) count it once per seed. */
static int cmp_reuse(struct cmp *c, struct nl_err *err)
{
	for (uint32_t i = 0; i < c->n_runs; i++) {
		struct cmp_run *r = &c->runs[i];
		if (!r->reused)
			continue;
		const struct cmp_run *first = r - r->k;
		const uint32_t s = r->s, w = r->w, k = r->k;
		*r = *first;
		r->s = s;
		r->w = w;
		r->k = k;
		r->reused = true;
		r->links = NULL;
		if (first->n_links && !(r->links = malloc((size_t)first->n_links * sizeof *r->links))) {
			r->n_links = 0;
			return nl_errf(err, NL_ENOMEM, "out of memory");
		}
		if (first->n_links)
			memcpy(r->links, first->links, (size_t)first->n_links * sizeof *r->links);
	}
	return 0;
}

static int cmp_run_all(struct cmp *c, struct nl_err *err)
{
	char p[1100];
	int rc = 0;
	/* Rank 0 alone writes: the directories, the costs, the cache. */
	if (c->rank == 0) {
		rc = cmp_mkdir(c->o->dir, "to write the report to", err);
		snprintf(p, sizeof p, "%s/cache", c->o->dir);
		if (rc == 0)
			rc = cmp_mkdir(p, "for the report's cache", err);
		for (uint32_t s = 0; rc == 0 && s < c->n_sys; s++)
			if (c->sys[s].cost_ok && !c->sys[s].cost_cached) {
				cmp_cost_put(c, &c->sys[s]);
				c->cost_evaluated++;
			}
	}
	c->n_runs = c->n_sys * c->n_wl * c->n_seeds;
	c->runs = calloc(c->n_runs, sizeof *c->runs);
	c->todo = calloc(c->n_runs, sizeof *c->todo);
	if (rc == 0 && (!c->runs || !c->todo))
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
	NL_CHECK(net_mpi_agree(c->o->mpi, rc, err));
	uint32_t i = 0;
	for (uint32_t w = 0; w < c->n_wl; w++)
		for (uint32_t s = 0; s < c->n_sys; s++)
			for (uint32_t k = 0; k < c->n_seeds; k++) {
				/* A seed its workload's placement does not read
				 * gives seed 1's result: not replayed again. */
				const bool reused = k > 0 && !c->wl[w].uses_seed;
				if (!reused)
					c->todo[c->n_todo++] = i;
				c->runs[i++] = (struct cmp_run){.s = s, .w = w, .k = k, .reused = reused};
			}
	c->n_mine = c->n_todo > c->rank ? (c->n_todo - c->rank + c->size - 1) / c->size : 0;
	unsigned nt = c->o->jobs ? c->o->jobs : 1;
	if (nt > c->n_mine)
		nt = c->n_mine ? c->n_mine : 1;
	pthread_t th[64];
	unsigned started = 0;
	atomic_init(&c->next, 0);
	pthread_mutex_init(&c->mu, NULL);
	for (; started + 1 < nt && started < 64; started++)
		if (pthread_create(&th[started], NULL, cmp_worker, c))
			break;
	cmp_worker(c);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&c->mu);
	if (c->size > 1)
		NL_CHECK(cmp_gather(c, err));
	return cmp_reuse(c, err);
}

static void cmp_release(struct cmp *c)
{
	for (uint32_t i = 0; i < c->n_sys; i++) {
		free(c->sys[i].name);
		free(c->sys[i].config);
		free(c->sys[i].topology);
		free(c->sys[i].routing);
		free(c->sys[i].path_select);
		free(c->sys[i].port_router);
		free(c->sys[i].port_local);
		free(c->sys[i].port_peer);
		free(c->sys[i].port_class);
		for (uint32_t k = 0; k < c->sys[i].n_kv; k++) {
			free(c->sys[i].kv[k].key);
			free(c->sys[i].kv[k].value);
		}
	}
	for (uint32_t i = 0; i < c->n_wl; i++) {
		free(c->wl[i].name);
		free(c->wl[i].trace);
		free(c->wl[i].placement);
	}
	free(c->backend);
	free(c->preset);
	free(c->reference);
	for (uint32_t i = 0; c->runs && i < c->n_runs; i++)
		free(c->runs[i].links);
	free(c->runs);
	free(c->todo);
}

int session_compare(const char *study, const struct session_compare_opts *o, struct session_compare_result *res,
		    struct nl_err *err)
{
	struct cmp *c = calloc(1, sizeof *c);
	if (!c)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	*res = (struct session_compare_result){0};
	c->path = study;
	c->o = o;
	c->n_seeds = 1;
	c->backend = strdup("analytic");
	c->preset = strdup("flex");
	const char *slash = strrchr(study, '/');
	if (slash)
		snprintf(c->dir, sizeof c->dir, "%.*s", (int)(slash - study), study);
	c->rank = net_mpi_rank(o->mpi);
	c->size = net_mpi_size(o->mpi);
	FILE *f;
	int rc = nl_open_input(study, "study file", &f, err);
	if (!rc) {
		c->src.f = f;
		c->src.empty_section = cmp_empty_section;
		c->src.empty_ctx = c;
		int line = ini_lines_parse(&c->src, cmp_ini_any, c);
		fclose(f);
		if (line > 0 && c->src.rd.why[0])
			cmp_problem(c, "%s:%d: %s", study, line, c->src.rd.why);
		else if (line > 0)
			cmp_problem(c, "%s:%d: expected 'key = value' or a [section]", study, line);
		else if (line < 0)
			cmp_problem(c, "%s: out of memory reading the study file", study);
		/* With the file's own problems too: every problem at once
		 * (docs/procurement.md), not one round per fix; but not after
		 * a line the reader could not hand over, where reading stopped:
		 * the unread rest would give problems that are not there. */
		if (!(line > 0 && c->src.rd.why[0]))
			cmp_validate(c);
	}
	if (c->n_problems) {
		res->problems = c->problems;
		c->problems = NULL;
		char first[NL_ERR_MSG_MAX];
		snprintf(first, sizeof first, "%.*s", (int)strcspn(res->problems, "\n"), res->problems);
		rc = nl_errf(err, NL_ECONFIG, "%s%s", first, c->n_problems > 1 ? " (and more)" : "");
	}
	/* Every rank read the study and its traces: a file missing on one
	 * node fails every rank with that rank's first line. */
	if ((rc = net_mpi_agree(o->mpi, rc, err)) < 0)
		goto out;
	/* ... and read the same ones: another copy under the same name on one
	 * node would mix two studies in one report (scaling.md). */
	if (net_mpi_size(o->mpi) > 1) {
		uint64_t h = 0, f;
		if (cmp_hash_file(study, &f, err) == 0)
			h = f;
		for (uint32_t i = 0; i < c->n_sys; i++)
			if (c->sys[i].config && cmp_hash_file(c->sys[i].config, &f, err) == 0)
				h = h * 0x9e3779b97f4a7c15ULL ^ f;
		for (uint32_t i = 0; i < c->n_wl; i++)
			h = h * 0x9e3779b97f4a7c15ULL ^ c->wl[i].trace_hash;
		if ((rc = net_mpi_agree_same(o->mpi, h, "its study file, a system's configuration file or a trace",
					     err)) < 0)
			goto out;
	}
	if (c->rank == 0 && (rc = cmp_systems_read(c, err)) < 0)
		goto out;
	if ((rc = cmp_run_all(c, err)) < 0)
		goto out;
	for (uint32_t i = 0; i < c->n_runs; i++) {
		const struct cmp_run *r = &c->runs[i];
		res->executed += !r->reused && !r->cached;
		res->cached += !r->reused && r->cached;
		res->reused += r->reused;
		/* A reused seed repeats seed 1's failure; it did not fail again. */
		res->failed += r->status != 0 && !r->reused;
	}
	res->runs = c->n_runs;
	res->cost_evaluated = c->cost_evaluated;
	for (uint32_t s = 0; s < c->n_sys; s++)
		res->cost_cached += c->sys[s].cost_cached;
	res->doc = cmp_doc(c);
	res->markdown = cmp_md(c);
	if (!res->doc || !res->markdown)
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
out:
	free(c->problems);
	ini_keys_release(&c->sec_keys);
	cmp_release(c);
	free(c);
	return rc;
}
