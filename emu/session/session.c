/* nl_sim: configuration, synthetic-traffic runs and sweeps, results as
 * JSON. The documents are those `netloom run/sweep --json` has always
 * written (docs/results.md); the CLI writes them through this file. */
#include "session/session.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/version.h"
#include "layout/layout.h"
#include "net/net.h"
#include "place/place.h"
#include "route/route.h"
#include "session/session_internal.h"
#include "topo/topo.h"
#include "traces/trace.h"
#include "traffic/traffic.h"

const struct config_table *const *session_config_tables(struct session_tables *st, size_t *n)
{
	static const struct config_table *const fixed[] = {
		&net_network_table, &net_router_table, &traffic_table, &net_sim_table, &app_config_table,
		&layout_config_table,
	};
	st->n = 0;
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		st->t[st->n++] = fixed[i];
	/* Each backend declares its own keys (net.h); the session lists them,
	 * so no module reaches into a backend's table by name. */
	size_t nb;
	const struct net_backend_ops *const *all = net_backend_list(&nb);
	for (size_t i = 0; i < nb; i++) {
		const struct config_table *t = all[i]->config;
		bool seen = !t;
		for (size_t k = 0; k < st->n && !seen; k++)
			seen = st->t[k] == t;
		if (!seen && st->n < SESSION_MAX_TABLES)
			st->t[st->n++] = t;
	}
	*n = st->n;
	return st->t;
}

/* Placement policies by name: linear, then emu/place's. */
void session_place_names(char *buf, size_t cap)
{
	size_t n;
	const struct place_ops *const *all = place_list(&n);
	snprintf(buf, cap, "linear");
	for (size_t i = 0; i < n; i++)
		snprintf(buf + strlen(buf), cap - strlen(buf), ", %s", all[i]->name);
}

/* The config's check_value: backend and placement name registries above
 * emu/app, whose table declares them as strings. A typo of a name names
 * it, as core/param.c's choices do ('sprad': spread). */
static int session_check_value(const char *key, const char *value, struct nl_err *err)
{
	enum { SESSION_NAMES_WEIGHED = 32 }; /* registries of a few; past this many the rest are not weighed */
	const char *weighed[SESSION_NAMES_WEIGHED];
	char names[512] = "";
	size_t n = 0;
	if (!strcmp(key, "backend") && !net_backend_find(value, NULL)) {
		size_t n_all;
		const struct net_backend_ops *const *all = net_backend_list(&n_all);
		for (size_t i = 0; i < n_all; i++) {
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
				 all[i]->name);
			if (n < SESSION_NAMES_WEIGHED)
				weighed[n++] = all[i]->name;
		}
	} else if (!strcmp(key, "placement") && strcmp(value, "linear") && !place_find(value, NULL)) {
		size_t n_all;
		const struct place_ops *const *all = place_list(&n_all);
		session_place_names(names, sizeof names);
		weighed[n++] = "linear";
		for (size_t i = 0; i < n_all && n < SESSION_NAMES_WEIGHED; i++)
			weighed[n++] = all[i]->name;
	} else {
		return 0;
	}
	const char *near = config_name_near(value, strlen(value), weighed, n);
	return nl_errf(err, NL_ECONFIG, "expected one of %s%s%s%s", names, near ? " (did you mean '" : "",
		       near ? near : "", near ? "'?)" : "");
}

void session_config_init(struct config *cfg, struct session_tables *st)
{
	size_t n;
	const struct config_table *const *t = session_config_tables(st, &n);
	config_init(cfg, t, n);
	cfg->check_value = session_check_value;
}

int session_enter(const nl_sim *s, const char *fn, const char *allowed_in, struct nl_err *err)
{
	if (!s)
		return nl_errf(err, NL_EINVAL, "%s: NULL session", fn);
	if (s->in_callback && !(allowed_in && !strcmp(s->in_callback, allowed_in)))
		return nl_errf(err, NL_ESTATE, "%s: called from a callback of %s; expected after it returns", fn,
			       s->in_callback);
	return 0;
}

int nl_sim_new(nl_sim **out, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	if (!out)
		return nl_errf(err, NL_EINVAL, "nl_sim_new: NULL out");
	nl_sim *s = calloc(1, sizeof *s);
	if (!s)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	session_config_init(&s->cfg, &s->tables);
	*out = s;
	return 0;
}

void session_net_close(nl_sim *s)
{
	net_backend_free(s->net);
	s->net = NULL;
	s->net_topo = NULL;
	s->net_failed = 0;
	s->net_reached_ps = 0;
	s->net_next_ps = UINT64_MAX;
	s->is_net_next_known = true;
}

void session_results_clear(nl_sim *s)
{
	for (uint32_t i = 0; i < s->n_points; i++)
		net_point_release(&s->points[i]);
	s->n_points = 0;
	json_decref(s->replay_doc);
	s->replay_doc = NULL;
	json_decref(s->net_report);
	s->net_report = NULL;
	json_decref(s->cables);
	s->cables = NULL;
	app_free(s->app);
	s->app = NULL;
	app_archive_source_free(s->asrc);
	s->asrc = NULL;
	net_backend_free(s->replay_net);
	s->replay_net = NULL;
	trace_archive_close(s->arch);
	s->arch = NULL;
	free(s->arch_path);
	s->arch_path = NULL;
	s->replay_topo = NULL;
	free(s->rank_ep);
	s->rank_ep = NULL;
	s->placement[0] = s->routing[0] = s->routing_given[0] = s->compute_why[0] = s->comparable_why[0] = '\0';
	s->kind = SESSION_NONE;
	s->is_replay_prepared = false;
}

/* The configuration changed: everything built from it goes. */
static void session_reconfigured(nl_sim *s)
{
	session_results_clear(s);
	session_net_close(s);
	free(s->routing_spec);
	s->routing_spec = NULL;
	free(s->info_routing);
	s->info_routing = NULL;
	topo_free(s->topo);
	s->topo = NULL;
	s->is_bound = false;
}

void nl_sim_free(nl_sim *s)
{
	if (!s)
		return;
	session_reconfigured(s);
	free(s->points);
	config_release(&s->cfg);
	free(s);
}

json_t *session_config_json(const struct config *cfg)
{
	json_t *j = config_to_json(cfg);
	const char *topo = config_get(cfg, "topology");
	char *spec;
	struct nl_err e = {0};
	/* "@FILE" is recorded as the spec it read, so the results' config
	 * reproduces the run without the file (docs/configuration.md). */
	if (j && topo && topo[0] == '@' && topo_spec_expand(topo, &spec, &e) == 0) {
		json_object_set_new(j, "topology", out_json_utf8(spec));
		free(spec);
	}
	return j;
}

uint64_t session_config_hash(const nl_sim *s)
{
	json_t *j = session_config_json(&s->cfg);
	char *text = j ? json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
	uint64_t h = text ? XXH64(text, strlen(text), 0) : 0;
	free(text);
	json_decref(j);
	return h;
}

const struct config *session_config(const nl_sim *s)
{
	return &s->cfg;
}

static int sim_load_file(nl_sim *s, const char *path, struct nl_err *err)
{
	NL_CHECK(session_enter(s, "nl_sim_load_file", NULL, err));
	if (!path)
		return nl_errf(err, NL_EINVAL, "nl_sim_load_file: NULL path");
	NL_CHECK(config_load_file(&s->cfg, path, err));
	session_reconfigured(s);
	return 0;
}

int nl_sim_load_file(nl_sim *s, const char *path, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_load_file(s, path, err));
}

static int sim_load_string(nl_sim *s, const char *ini, const char *name, struct nl_err *err)
{
	NL_CHECK(session_enter(s, "nl_sim_load_string", NULL, err));
	if (!ini)
		return nl_errf(err, NL_EINVAL, "nl_sim_load_string: NULL text");
	/* An empty name is no name: its errors began ":1: unknown key". */
	NL_CHECK(config_load_string(&s->cfg, ini, name && *name ? name : "<string>", err));
	session_reconfigured(s);
	return 0;
}

int nl_sim_load_string(nl_sim *s, const char *ini, const char *name, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_load_string(s, ini, name, err));
}

static int sim_set(nl_sim *s, const char *key, const char *value, const char *label, struct nl_err *err)
{
	NL_CHECK(session_enter(s, "nl_sim_set", NULL, err));
	if (!key)
		return nl_errf(err, NL_EINVAL, "nl_sim_set: NULL key");
	NL_CHECK(config_set(&s->cfg, key, value, label, err));
	session_reconfigured(s);
	return 0;
}

int session_set(nl_sim *s, const char *key, const char *value, const char *label, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_set(s, key, value, label, err));
}

int nl_sim_set(nl_sim *s, const char *key, const char *value, struct nl_err *err)
{
	/* The CLI sets its -s options with session_set and its own label. */
	return session_set(s, key, value, "nl_sim_set", err);
}

const struct net_backend_ops *session_backend_find(const nl_sim *s, const char *name, struct nl_err *err)
{
	const struct net_backend_ops *ops = net_backend_find(name, err);
	if (!ops) {
		nl_err_prefix(err, "key 'backend'");
		config_err_file_line(&s->cfg, "backend", err);
	}
	return ops;
}

int session_bind(nl_sim *s, struct nl_err *err)
{
	if (s->is_bound)
		return 0;
	NL_CHECK(config_bind(&s->cfg, &net_network_table, &s->nc, err));
	NL_CHECK(config_bind(&s->cfg, &net_router_table, &s->rc, err));
	NL_CHECK(config_bind(&s->cfg, &traffic_table, &s->tc, err));
	NL_CHECK(config_bind(&s->cfg, &net_sim_table, &s->sc, err));
	s->sc.cfg = &s->cfg;
	s->is_bound = true;
	return 0;
}

void session_set_mpi(nl_sim *s, struct net_mpi *m, enum session_spread spread)
{
	s->mpi = m;
	s->spread = spread;
}

void session_set_progress(nl_sim *s, bool on)
{
	s->is_progress = on;
}

int session_topo_new(nl_sim *s, const char *label, struct nl_err *err)
{
	/* The commands that ask for progress lines get the build's too (a
	 * permuted network's trials, a build of many seconds). */
	if (!s->topo && (s->is_progress ? topo_new_shown : topo_new)(s->nc.topology, &s->topo, err) < 0) {
		if (label)
			nl_err_prefix(err, "%s", label);
		return config_err_file_line(&s->cfg, "topology", err);
	}
	return 0;
}

int session_topo_as(nl_sim *s, const char *label, struct nl_err *err)
{
	NL_CHECK(session_bind(s, err));
	return session_topo_new(s, label, err);
}

int session_topo(nl_sim *s, struct nl_err *err)
{
	return session_topo_as(s, NULL, err);
}

/* The family of the session's topology, which decides the parameters a
 * canonical routing spec names (route_spec_canonical); NULL before one
 * is built. */
static const char *session_topo_family(const nl_sim *s)
{
	return s->topo ? s->topo->ops->name : NULL;
}

/* nc.routing_function's canonical spec on the session's topology, every
 * parameter that means something there given (parsed, not built: a large
 * network's tables are built once, by the run), kept until the
 * configuration changes. As typed when it does not parse: the run
 * refuses it then, with the flit network's own error. */
static const char *session_routing_spec(nl_sim *s)
{
	if (!s->routing_spec) {
		struct nl_err ignored = {0};
		(void)route_spec_canonical(s->nc.routing_function, session_topo_family(s), &s->routing_spec,
					   &ignored);
	}
	return s->routing_spec ? s->routing_spec : s->nc.routing_function;
}

static int sim_info(nl_sim *s, struct nl_sim_info *info, struct nl_err *err)
{
	NL_CHECK(session_enter(s, "nl_sim_info", NULL, err));
	if (!info)
		return nl_errf(err, NL_EINVAL, "nl_sim_info: NULL info");
	/* Exactly: a size the caller forgot to set (stack garbage, often
	 * large) was taken when only a smaller one was refused. When the
	 * struct grows, the sizes of its earlier versions join this one. */
	if (info->size != sizeof *info)
		return nl_errf(err, NL_EINVAL, "nl_sim_info: info->size %zu: expected sizeof(struct nl_sim_info), %zu",
			       info->size, sizeof *info);
	NL_CHECK(session_topo(s, err));
	/* What a run would use, without setting the key: a later call's
	 * results do not depend on whether info was called. */
	const char *rf = session_routing_effective(s);
	if (!strcmp(rf, s->nc.routing_function)) {
		info->routing = session_routing_spec(s);
	} else {
		if (!s->info_routing) {
			struct nl_err ignored = {0};
			(void)route_spec_canonical(rf, session_topo_family(s), &s->info_routing, &ignored);
		}
		info->routing = s->info_routing ? s->info_routing : rf;
	}
	info->topology = s->topo->spec;
	info->traffic = s->tc.traffic;
	info->n_routers = s->topo->n_routers;
	info->n_endpoints = s->topo->n_endpoints;
	info->seed = s->sc.seed;
	info->injection_rate = s->tc.injection_rate;
	info->warmup_periods = (int32_t)s->sc.warmup_periods;
	info->max_samples = (int32_t)s->sc.max_samples;
	return 0;
}

int nl_sim_info(nl_sim *s, struct nl_sim_info *info, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_info(s, info, err));
}

static void session_point_public(const struct net_point *p, struct nl_point *o)
{
	*o = (struct nl_point){
		.offered = p->offered,
		.injected = p->injected,
		.accepted = p->accepted,
		.stable = p->stable,
		.converged = p->converged,
		.deadlock = p->deadlock,
		.samples = p->samples,
		.cycles = p->cycles,
		.window_cycles = p->window_cycles,
		.flit_hops = p->flit_hops,
		.packets = p->packets,
		.plat_mean = p->plat_mean,
		.plat_p50 = p->plat_p50,
		.plat_p99 = p->plat_p99,
		.plat_max = p->plat_max,
		.nlat_mean = p->nlat_mean,
		.hops_mean = p->hops_mean,
		.chan_util_mean = p->chan_util_mean,
		.chan_util_max = p->chan_util_max,
		.wall_seconds = p->wall_seconds,
		.deadlock_cycle = p->deadlock ? p->dl.cycle : 0,
	};
}

int session_point_slot(nl_sim *s, struct net_point **out, struct nl_err *err)
{
	if (s->n_points == s->cap_points) {
		uint32_t cap = s->cap_points ? 2 * s->cap_points : 4;
		struct net_point *p = realloc(s->points, cap * sizeof *p);
		if (!p)
			return nl_errf(err, NL_ENOMEM, "out of memory");
		s->points = p;
		s->cap_points = cap;
	}
	*out = &s->points[s->n_points];
	memset(*out, 0, sizeof **out);
	return 0;
}

/* One point appended to s->points. A deadlock is a result (kept, rc
 * NL_EDEADLOCK); any other failure keeps nothing. */
static int session_point(nl_sim *s, double rate, struct nl_err *err)
{
	struct net_point *pt = NULL;
	/* Agreed under MPI: net_run_point's collectives follow. */
	NL_CHECK(net_mpi_agree(s->mpi, session_point_slot(s, &pt, err), err));
	s->sc.mpi = s->mpi;
	s->sc.is_quiet = !s->is_progress;
	int rc = net_run_point(&s->nc, &s->rc, &s->sc, &s->tc, s->topo, rate, pt, err);
	if (rc < 0 && !(rc == NL_EDEADLOCK && pt->deadlock)) {
		net_point_release(pt);
		return rc;
	}
	s->n_points++;
	return rc;
}

/* Synthetic traffic on a network without endpoints has no rate to
 * report (0/0): refused, as BookSim's traffic manager would have nothing
 * to inject either. Families whose endpoint count is a parameter default
 * some to 0 (equality's p). */
static int session_refuse_no_endpoints(const nl_sim *s, struct nl_err *err)
{
	if (s->topo->n_endpoints)
		return 0;
	return nl_errf(err, NL_ECONFIG,
		       "topology '%s': no endpoints; synthetic traffic needs at least one (set the family's endpoints "
		       "per router, e.g. p= or t=; see 'netloom topo list')",
		       s->topo->spec);
}

static int sim_run_rate(nl_sim *s, double rate, struct nl_point *out, struct nl_err *err)
{
	NL_CHECK(session_enter(s, "nl_sim_run_rate", NULL, err));
	if (!(rate >= 0 && rate <= 1)) /* NaN too */
		return nl_errf(err, NL_ERANGE, "nl_sim_run_rate: rate %g: expected 0 <= rate <= 1", rate);
	session_results_clear(s);
	NL_CHECK(session_topo(s, err));
	NL_CHECK(session_default_routing(s, err));
	(void)session_routing_spec(s);
	NL_CHECK(session_refuse_no_endpoints(s, err));
	NL_CHECK(session_cable_refuse_synthetic(s, err));
	int rc = session_point(s, rate, err);
	if (s->n_points) {
		s->kind = SESSION_RUN;
		s->run_rate = rate;
		if (out)
			session_point_public(&s->points[0], out);
	}
	return rc;
}

int nl_sim_run_rate(nl_sim *s, double rate, struct nl_point *out, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_run_rate(s, rate, out, err));
}

int nl_sim_run(nl_sim *s, struct nl_point *out, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	NL_CHECK(session_enter(s, "nl_sim_run", NULL, err));
	NL_CHECK(session_bind(s, err));
	return nl_sim_run_rate(s, s->tc.injection_rate, out, err);
}

const char *nl_sim_deadlock_report(const nl_sim *s)
{
	if (!s)
		return "";
	for (uint32_t i = 0; i < s->n_points; i++)
		if (s->points[i].deadlock && s->points[i].report)
			return s->points[i].report;
	return "";
}

int session_sweep_take(nl_sim *s, double rate, unsigned flags, nl_point_fn on_point, void *ctx, struct nl_sweep *sw,
		       int *rc)
{
	const struct net_point *pt = &s->points[s->n_points - 1];
	if (pt->stable) {
		sw->last_stable_rate = rate;
		if (pt->accepted > sw->max_accepted)
			sw->max_accepted = pt->accepted;
	} else if (sw->first_unstable_rate < 0 && !pt->deadlock && !pt->warmup_only) {
		/* A point whose warm-up never ended measured nothing: it says
		 * nothing of saturation (a few packets at a low rate can keep
		 * the warm-up thresholds from being met). */
		sw->first_unstable_rate = rate;
	}
	/* A deadlock ends the sweep even with NL_SWEEP_CONTINUE: the points
	 * past it would only deadlock too, or mislead. */
	if (pt->deadlock)
		sw->deadlock_rate = rate;
	if (on_point) {
		struct nl_point p;
		session_point_public(pt, &p);
		s->in_callback = "nl_sim_sweep";
		int stop = on_point(ctx, &p);
		s->in_callback = NULL;
		if (stop) {
			*rc = stop;
			return 2;
		}
	}
	return pt->deadlock || (!pt->stable && !pt->warmup_only && !(flags & NL_SWEEP_CONTINUE));
}

bool session_last_point_warmup_only(const nl_sim *s)
{
	return s->n_points && s->points[s->n_points - 1].warmup_only;
}

/* Refuse a flag bit netloom.h does not define: an older library that
 * ignored a newer caller's flag would do something else silently.
 * `known` holds the defined bits, `names` says them. */
static int session_check_flags(const char *fn, unsigned flags, unsigned known, const char *names,
			       struct nl_err *err)
{
	if (!(flags & ~known))
		return 0;
	return nl_errf(err, NL_EINVAL, "%s: flags 0x%x: unknown bits 0x%x; expected %s or 0", fn, flags,
		       flags & ~known, names);
}

static int sim_sweep(nl_sim *s, double lo, double hi, double step, unsigned flags, nl_point_fn on_point, void *ctx,
		 struct nl_sweep *out, struct nl_err *err)
{
	NL_CHECK(session_enter(s, "nl_sim_sweep", NULL, err));
	NL_CHECK(session_check_flags("nl_sim_sweep", flags, NL_SWEEP_CONTINUE, "NL_SWEEP_CONTINUE (0x1)", err));
	/* The arguments first: a call refused for them keeps the last results
	 * (and the pointers handed out into them, nl_sim_deadlock_report's).
	 * Named as the header names them: `sweep --rates A:B:STEP` checks its
	 * own text before it calls here, so only an API caller reads these. */
	if (!(lo >= 0 && hi >= lo && hi <= 1 && step > 0 && isfinite(step))) /* NaN too */
		return nl_errf(err, NL_EINVAL,
			       "nl_sim_sweep: lo %g, hi %g, step %g: expected 0 <= lo <= hi <= 1 and a finite step > 0",
			       lo, hi, step);
	/* Counted in double: a tiny step's quotient (1e20, or inf for a
	 * denormal) is out of any integer's range. */
	double n_steps_d = floor((hi - lo) / step + 1e-9);
	if (!(n_steps_d < (double)UINT32_MAX))
		return nl_errf(err, NL_ERANGE,
			       "nl_sim_sweep: lo %g, hi %g, step %g: more than %u points; expected a larger step", lo,
			       hi, step, UINT32_MAX);
	long n_steps = (long)n_steps_d;
	session_results_clear(s);
	NL_CHECK(session_topo(s, err));
	NL_CHECK(session_default_routing(s, err));
	(void)session_routing_spec(s);
	NL_CHECK(session_refuse_no_endpoints(s, err));
	NL_CHECK(session_cable_refuse_synthetic(s, err));
	struct nl_sweep sw = {.last_stable_rate = -1, .first_unstable_rate = -1, .deadlock_rate = -1};
	int rc = 0;
	double *rates = malloc(((size_t)n_steps + 1) * sizeof *rates);
	/* Under MPI a failure here, on one rank, must not leave the others in
	 * the first point's collectives. */
	rc = net_mpi_agree(s->mpi, rates ? 0 : nl_errf(err, NL_ENOMEM, "out of memory"), err);
	if (rc < 0) {
		free(rates);
		return rc;
	}
	for (long k = 0; k <= n_steps; k++) {
		/* lo + k*step to 12 significant digits, so 0.15 is 0.15. */
		char rate_txt[32];
		snprintf(rate_txt, sizeof rate_txt, "%.12g", lo + (double)k * step);
		rates[k] = strtod(rate_txt, NULL);
	}
	bool by_callback = false; /* on_point stopped it: its value, the points kept */
	if (s->mpi && s->spread == SESSION_SPREAD_POINTS) {
		rc = session_sweep_points(s, rates, (uint32_t)n_steps + 1, flags, on_point, ctx, &sw, &by_callback, err);
	} else if (s->spread == SESSION_SPREAD_POINTS) {
		rc = session_sweep_threads(s, rates, (uint32_t)n_steps + 1, flags, on_point, ctx, &sw, &by_callback, err);
	} else {
		for (long k = 0; k <= n_steps; k++) {
			rc = session_point(s, rates[k], err);
			if (rc < 0 && rc != NL_EDEADLOCK)
				break;
			int how = session_sweep_take(s, rates[k], flags, on_point, ctx, &sw, &rc);
			by_callback = how == 2;
			if (how)
				break;
		}
	}
	free(rates);
	if (by_callback && rc < 0)
		nl_errf(err, rc, "sweep stopped by on_point (returned %d) after %" PRIu32 " point%s", rc, s->n_points,
			s->n_points == 1 ? "" : "s");
	if (rc < 0 && rc != NL_EDEADLOCK && !by_callback) {
		session_results_clear(s);
		return rc;
	}
	sw.n_points = s->n_points;
	s->sweep = sw;
	s->kind = SESSION_SWEEP;
	if (out)
		*out = sw;
	return rc;
}

int nl_sim_sweep(nl_sim *s, double lo, double hi, double step, unsigned flags, nl_point_fn on_point, void *ctx,
		 struct nl_sweep *out, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_sweep(s, lo, hi, step, flags, on_point, ctx, out, err));
}

void session_json_head(json_t *doc, const char *cmd)
{
	json_object_set_new(doc, "netloom_version", json_string(nl_version()));
	json_object_set_new(doc, "netloom_build", json_string(version_build()));
	json_object_set_new(doc, "command", json_string(cmd));
}

const char *session_topology_unused(const struct config *cfg)
{
	const char *name = config_get_or_default(cfg, "backend");
	const struct net_backend_ops *ops = name ? net_backend_find(name, NULL) : NULL;
	const char *why = ops && ops->routes_unused ? ops->routes_unused(cfg) : NULL;
	struct layout_cfg lc;
	struct nl_err ignored = {0};
	if (!why || config_bind(cfg, &layout_config_table, &lc, &ignored) < 0 || lc.cable_latency)
		return NULL;
	return why;
}

bool session_topology_warning(const struct config *cfg, const char *what, const char *doc, char *buf, size_t cap)
{
	const char *why = session_topology_unused(cfg);
	if (!why)
		return false;
	snprintf(buf, cap,
		 "backend %s with %s does not see the topology: %s (-s backend=flit models each network flit by "
		 "flit; -s link_model=links shares the channels of its routes; %s)",
		 config_get_or_default(cfg, "backend"), why, what, doc);
	return true;
}

/* The document's head: version, command, topology, configuration. */
static json_t *session_doc(const nl_sim *s, const char *cmd)
{
	json_t *doc = json_object();
	session_json_head(doc, cmd);
	json_t *topo = json_object();
	json_object_set_new(topo, "spec", out_json_utf8(s->topo->spec));
	json_object_set_new(topo, "routers", json_integer(s->topo->n_routers));
	json_object_set_new(topo, "endpoints", json_integer(s->topo->n_endpoints));
	json_object_set_new(doc, "topology", topo);
	json_t *routing = json_object();
	json_object_set_new(routing, "spec",
			    out_json_utf8(s->routing_spec ? s->routing_spec : s->nc.routing_function));
	json_object_set_new(doc, "routing", routing);
	json_object_set_new(doc, "config", session_config_json(&s->cfg));
	return doc;
}

static json_t *session_rate_json(double r)
{
	return r >= 0 ? json_real(r) : json_null();
}

static json_t *session_json_doc(const nl_sim *s, unsigned flags)
{
	bool repro = flags & NL_JSON_REPRODUCIBLE;
	json_t *doc;
	if (s->kind == SESSION_RUN) {
		doc = session_doc(s, "run");
		/* The configuration records the rate run, as the CLI's -s
		 * injection_rate=R would; the session's key is left as set
		 * (nl_sim_run_rate is a one-off). */
		json_object_set_new(json_object_get(doc, "config"), "injection_rate", json_real(s->run_rate));
		json_object_set_new(doc, "results", net_point_json(&s->points[0], s->topo, repro));
	} else if (s->kind == SESSION_SWEEP) {
		doc = session_doc(s, "sweep");
		json_t *points = json_array();
		for (uint32_t i = 0; i < s->n_points; i++)
			json_array_append_new(points, net_point_json(&s->points[i], s->topo, repro));
		json_t *sat = json_object();
		json_object_set_new(sat, "last_stable_rate", session_rate_json(s->sweep.last_stable_rate));
		json_object_set_new(sat, "first_unstable_rate", session_rate_json(s->sweep.first_unstable_rate));
		json_object_set_new(sat, "max_accepted", json_real(s->sweep.max_accepted));
		json_object_set_new(sat, "deadlock_rate", session_rate_json(s->sweep.deadlock_rate));
		json_t *res = json_object();
		json_object_set_new(res, "points", points);
		json_object_set_new(res, "saturation", sat);
		json_object_set_new(doc, "results", res);
	} else {
		doc = json_deep_copy(s->replay_doc);
		if (doc && repro)
			json_object_set_new(json_object_get(doc, "results"), "wall_seconds", json_real(0));
	}
	return doc;
}

int nl_sim_json(const nl_sim *s, unsigned flags, char **out, size_t *len, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	NL_CHECK(session_enter(s, "nl_sim_json", NULL, err));
	NL_CHECK(session_check_flags("nl_sim_json", flags, NL_JSON_REPRODUCIBLE, "NL_JSON_REPRODUCIBLE (0x1)", err));
	if (!out)
		return nl_errf(err, NL_EINVAL, "nl_sim_json: NULL out");
	if (s->kind == SESSION_NONE)
		return nl_errf(err, NL_ESTATE, "nl_sim_json: no results yet: run, sweep or replay first");
	json_t *doc = session_json_doc(s, flags);
	size_t n = 0;
	char *t = doc ? out_json_text(doc, &n) : NULL;
	json_decref(doc);
	if (!t)
		return nl_errf(err, NL_ENOMEM, "cannot serialise JSON: out of memory");
	*out = t;
	if (len)
		*len = n;
	return 0;
}

static int sim_write_json(const nl_sim *s, unsigned flags, const char *path, struct nl_err *err)
{
	NL_CHECK(session_enter(s, "nl_sim_write_json", NULL, err));
	NL_CHECK(session_check_flags("nl_sim_write_json", flags, NL_JSON_REPRODUCIBLE, "NL_JSON_REPRODUCIBLE (0x1)",
				     err));
	if (!path)
		return nl_errf(err, NL_EINVAL, "nl_sim_write_json: NULL path");
	if (s->kind == SESSION_NONE)
		return nl_errf(err, NL_ESTATE, "%s: no results yet: run, sweep or replay first", path);
	json_t *doc = session_json_doc(s, flags);
	if (!doc)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	int rc = out_write_json(path, doc, err);
	json_decref(doc);
	return rc;
}

int nl_sim_write_json(const nl_sim *s, unsigned flags, const char *path, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_write_json(s, flags, path, err));
}
