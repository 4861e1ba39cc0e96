/* nl_sim: trace replay and the message-level network. The wiring
 * config → topology → net_backend → app that `netloom replay` and the live
 * server both need (docs/replay.md, docs/api.md). */
#include "session/session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/param.h"
#include "core/progress.h"
#include "core/version.h"
#include "net/net.h"
#include "place/place.h"
#include "route/route.h"
#include "session/session_internal.h"
#include "topo/topo.h"
#include "traces/trace.h"
#include "traffic/traffic.h"

/* The backend named by key `backend` and, when it models the network's
 * structure or the user set one, the [network] topology. */
static int session_backend(nl_sim *s, const struct net_backend_ops **ops, bool *want_topo, struct nl_err *err)
{
	struct app_config ac;
	NL_CHECK(app_config_bind(&s->cfg, &ac, err));
	*ops = session_backend_find(s, ac.backend, err);
	if (!*ops)
		return err->code;
	NL_CHECK(session_bind(s, err));
	/* A backend that accepts no topology (the analytic one) keeps its
	 * contention-free default unless the user set one. */
	*want_topo = !(*ops)->topology_optional || config_get(&s->cfg, "topology");
	if (*want_topo && session_topo_as(s, "key 'topology'", err) < 0)
		return err->code;
	/* routing_function unset: the family's default, as run and replay. */
	if (*want_topo && !(*ops)->ignores_routing)
		NL_CHECK(session_default_routing(s, err));
	return 0;
}

/* What identifies the trace, so a result can be re-run to the same bits. */
static json_t *session_trace_json(const char *path, const struct trace_manifest *m, uint64_t file_bytes)
{
	json_t *o = json_object();
	json_object_set_new(o, "path", out_json_utf8(path));
	json_object_set_new(o, "file_bytes", json_integer((json_int_t)file_bytes));
	json_object_set_new(o, "format_version", json_integer(m->format_version));
	json_object_set_new(o, "application", out_json_utf8(m->application));
	json_object_set_new(o, "command_line", out_json_utf8(m->command_line));
	json_object_set_new(o, "machine", out_json_utf8(m->machine));
	json_object_set_new(o, "recorder", out_json_utf8(m->recorder));
	json_object_set_new(o, "mpi_library", out_json_utf8(m->mpi_library));
	json_object_set_new(o, "ranks", json_integer(m->n_ranks));
	json_object_set_new(o, "communicators", json_integer(m->n_comms));
	json_object_set_new(o, "recorded_runtime_s", json_real(m->recorded_runtime_s));
	json_t *h = json_array();
	for (uint32_t r = 0; m->rank_hash && r < m->n_ranks; r++) {
		char hex[20];
		snprintf(hex, sizeof hex, "%016" PRIx64, m->rank_hash[r]);
		json_array_append_new(h, json_string(hex));
	}
	json_object_set_new(o, "rank_hashes", h);
	return o;
}

double session_comm_share(const struct app_results *res)
{
	double busy = 0, fin = 0;
	for (uint32_t r = 0; r < res->n_ranks; r++) {
		busy += (double)(res->ranks[r].comm_ps + res->ranks[r].wait_ps);
		fin += (double)res->ranks[r].finish_ps;
	}
	return fin > 0 ? busy / fin : 0;
}

/* The replay's "results" object (docs/results.md). */
static json_t *session_replay_results(const nl_sim *s, bool deadlock)
{
	const struct trace_manifest *m = trace_archive_manifest(s->arch);
	const struct app_results *res = app_results(s->app);
	int comparable = s->comparable;
	json_t *results = app_results_json(s->app);
	json_object_set_new(results, "status", json_string(deadlock ? "deadlock" : "ok"));
	json_t *rt = json_object_get(results, "runtime");
	double pred = (double)res->runtime_ps * 1e-12;
	json_object_set_new(rt, "recorded_s", json_real(m->recorded_runtime_s));
	json_object_set_new(rt, "recorded_comparable", comparable < 0 ? json_null() : json_boolean(comparable));
	json_object_set_new(rt, "recorded_note", out_json_utf8(s->comparable_why));
	json_object_set_new(rt, "ratio", m->recorded_runtime_s > 0 && comparable != 0 && !deadlock
						 ? json_real(pred / m->recorded_runtime_s)
						 : json_null());
	if (deadlock) {
		/* A rank waiting forever has no finish and the run no runtime:
		 * null, as serve writes them after a stop (0.0 read as a
		 * runtime; results.deadlock says when it stopped moving). */
		json_object_set_new(rt, "predicted_s", json_null());
		json_t *ranks = json_object_get(results, "ranks");
		for (uint32_t r = 0; r < res->n_ranks; r++)
			if (!app_rank_done(s->app, r))
				json_object_set_new(json_array_get(ranks, r), "finish_s", json_null());
	}
	json_object_set_new(results, "compute_time", json_string(app_compute_time_name(s->ac.compute_time)));
	json_object_set_new(results, "compute_time_note", json_string(s->compute_why));
	json_object_set_new(results, "comm_share", json_real(session_comm_share(res)));
	json_object_set_new(results, "placement", json_string(s->placement));
	/* Under map the file is all that placed the ranks (not the seed nor
	 * ranks_per_node, which the configuration still lists). */
	if (!strcmp(s->placement, "map"))
		json_object_set_new(results, "placement_map", out_json_utf8(s->ac.placement_map));
	if (s->rank_ep) {
		/* Which endpoint each rank ran on: the placement to re-run or compare. */
		json_t *eps = json_array();
		for (uint32_t r = 0; r < m->n_ranks; r++)
			json_array_append_new(eps, json_integer(s->rank_ep[r]));
		json_object_set_new(results, "rank_endpoints", eps);
	}
	json_object_set(results, "network", s->net_report);
	if (deadlock)
		json_object_set_new(results, "deadlock", app_deadlock_json(s->app));
	return results;
}

static int session_replay_doc(nl_sim *s, const char *path, bool deadlock, double t0, struct nl_err *err)
{
	const struct trace_manifest *m = trace_archive_manifest(s->arch);
	json_t *doc = json_object();
	if (!doc)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	session_json_head(doc, "replay");
	json_object_set_new(doc, "trace", session_trace_json(path, m, trace_archive_file_bytes(s->arch)));
	json_object_set_new(doc, "config", session_config_json(&s->cfg));
	json_t *results = session_replay_results(s, deadlock);
	/* The only field that differs between identical runs. */
	json_object_set_new(results, "wall_seconds", json_real(nl_wall_seconds() - t0));
	json_object_set_new(doc, "results", results);
	s->replay_doc = doc;
	return 0;
}

/* The family's default minimal routing, so one command compares
 * families: dor on the families it runs on (tori, meshes), else the first
 * function that runs on any topology (min: neither families nor
 * topo_views). Not simply the registry's first match: valiant (registered
 * before min) runs on the HyperX family, and non-minimal routing is no
 * one's default. */
static const char *session_pick_routing_family(const char *family)
{
	const struct route_ops *dor = route_find("dor", NULL);
	for (size_t j = 0; dor && dor->families && dor->families[j]; j++)
		if (!strcmp(dor->families[j], family))
			return dor->name;
	size_t n;
	const struct route_ops *const *all = route_list(&n);
	for (size_t i = 0; i < n; i++)
		if (!all[i]->families && !all[i]->topo_views)
			return all[i]->name;
	return NULL;
}

const char *session_pick_routing(const struct topo *t)
{
	return session_pick_routing_family(t->ops->name);
}

int session_set_picked_routing(nl_sim *s, const char *origin, struct nl_err *err)
{
	const char *r = session_pick_routing(s->topo);
	if (!r)
		return 0;
	NL_CHECK(config_set(&s->cfg, "routing_function", r, origin, err));
	s->is_bound = false;
	return 0;
}

/* The origin session_default_routing records its pick under: a key with
 * this origin is one the user left unset. */
static const char session_picked_origin[] = "the topology family's default (routing_function unset)";

bool session_routing_is_set(const nl_sim *s)
{
	for (size_t i = 0; i < s->cfg.n_entries; i++)
		if (!strcmp(s->cfg.entries[i].def->name, "routing_function"))
			return strcmp(s->cfg.entries[i].origin, session_picked_origin) != 0;
	return false;
}

const char *session_routing_effective(nl_sim *s)
{
	if (!s->topo || session_routing_is_set(s))
		return s->nc.routing_function;
	const char *r = session_pick_routing(s->topo);
	return r ? r : s->nc.routing_function;
}

int session_default_routing(nl_sim *s, struct nl_err *err)
{
	NL_CHECK(session_bind(s, err));
	/* A pick made for an earlier topology is picked again: the session's
	 * history (a run, a network opened before the topology changed) does
	 * not decide the routing. */
	if (!s->topo || session_routing_is_set(s))
		return 0;
	const char *r = session_pick_routing(s->topo);
	if (!r || !strcmp(r, s->nc.routing_function)) /* dor on tori and meshes: the key's default */
		return 0;
	NL_CHECK(session_set_picked_routing(s, session_picked_origin, err));
	free(s->routing_spec); /* the default's, if it was asked for */
	s->routing_spec = NULL;
	return session_bind(s, err);
}

/* topo_spec_files's callback for a configuration shown without a run:
 * a family's data file the run could not open is refused with the run's
 * words ('netloom config -s topology=graph:file=missing.edges' printed
 * the dump and exited 0). Opened without blocking and not read: a FIFO
 * keeps its data for the run. An @FILE the walk reads itself. */
static int session_spec_file_readable(void *ctx, const struct topo_spec_file *f)
{
	struct nl_err *err = ctx;
	struct nl_err named;
	if (f->is_spec_file)
		return 0;
	const char *what = !strcmp(f->family, "anynet") ? "BookSim anynet network_file" : "graph edge list";
	if (nl_input_named(f->path, what, NL_EIO, &named) < 0)
		return nl_errf(err, NL_EIO, "topology '%s': parameter '%s': %s", f->family, f->key, named.msg);
	int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	if (fd < 0)
		return nl_errf(err, NL_EIO, "topology '%s': parameter '%s': cannot open '%s': %s", f->family, f->key,
			       f->path, strerror(errno));
	bool is_dir = fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode);
	close(fd);
	if (is_dir)
		return nl_errf(err, NL_EIO, "topology '%s': parameter '%s': '%s' is a directory; expected a %s",
			       f->family, f->key, f->path, what);
	return 0;
}

int session_config_pick_routing(struct config *cfg, struct nl_err *err)
{
	const char *spec = config_get(cfg, "topology");
	const struct param_def *def = NULL;
	if (!spec || config_get(cfg, "routing_function") || !config_find_key(cfg, "routing_function", &def))
		return 0;
	struct nl_err ignored = {0};
	const struct topo_ops *family = topo_spec_family(spec, &ignored);
	const char *r = family ? session_pick_routing_family(family->name) : NULL;
	if (!r || !strcmp(r, def->defval)) /* dor on tori and meshes: the key's default */
		return 0;
	return config_set(cfg, "routing_function", r, session_picked_origin, err);
}

int session_config_check(const struct config *cfg, struct nl_err *err)
{
	const char *spec = config_get_or_default(cfg, "topology");
	const char *rf = config_get_or_default(cfg, "routing_function");
	const char *traffic = config_get_or_default(cfg, "traffic");
	if (spec && topo_spec_files(spec, session_spec_file_readable, err, err) < 0)
		return config_err_file_line(cfg, "topology", err);
	const struct topo_ops *family = spec ? topo_spec_family(spec, err) : NULL;
	if (!family)
		return spec ? config_err_file_line(cfg, "topology", err) : 0;
	if (rf && route_spec_check(rf, family->name, err) < 0)
		return config_err_file_line(cfg, "routing_function", err);
	if (traffic && traffic_spec_check(traffic, err) < 0)
		return config_err_file_line(cfg, "traffic", err);
	return 0;
}

/* The emu/place policy `name` (key `placement` of s, not linear) for a
 * network of topology t: one-line errors for an unknown name (the choices
 * listed) or a backend without a topology, at the file:line or -s that
 * set the key (the key is read when the run places its ranks). */
int session_place_policy(const nl_sim *s, const char *name, const struct topo *t, const struct place_ops **out,
			 struct nl_err *err)
{
	const struct place_ops *ops = place_find(name, NULL);
	if (!ops) {
		char names[512];
		session_place_names(names, sizeof names);
		nl_errf(err, NL_ECONFIG, "key 'placement': value '%s': expected one of %s", name, names);
		return config_err_file_line(&s->cfg, "placement", err);
	}
	if (!t) {
		nl_errf(err, NL_ECONFIG,
			"key 'placement': value '%s': this backend runs without a topology; expected linear, or set key "
			"'topology'",
			name);
		return config_err_file_line(&s->cfg, "placement", err);
	}
	*out = ops;
	return 0;
}

/* A failed place_job named by the key at fault, as `netloom interfere`
 * names it: a map file's problems are placement_map's, the others the
 * policy's, with its value; first the file:line or -s that set it. */
int session_place_failed(const nl_sim *s, const struct place_ops *ops, struct nl_err *err)
{
	if (!strcmp(ops->name, "map")) {
		nl_err_prefix(err, "key 'placement_map'");
		return config_err_file_line(&s->cfg, "placement_map", err);
	}
	nl_err_prefix(err, "key 'placement': value '%s'", ops->name);
	return config_err_file_line(&s->cfg, "placement", err);
}

/* Key `placement`: s->rank_ep stays NULL for linear (rank r on endpoint
 * r), else gets endpoint[rank] from the emu/place policy. The replay is
 * one job on an empty machine, job index 0 (issue 13). */
static int session_place(nl_sim *s, const struct trace_manifest *m, struct nl_err *err)
{
	free(s->rank_ep);
	s->rank_ep = NULL;
	snprintf(s->placement, sizeof s->placement, "linear");
	if (!strcmp(s->ac.placement, "linear"))
		return 0;
	const struct place_ops *ops = NULL;
	NL_CHECK(session_place_policy(s, s->ac.placement, s->replay_topo, &ops, err));
	/* placement = map needs its file, named at the line that asked for
	 * it. A map beside another policy is the command's to refuse
	 * (cli_check_placement_map): compare lets a system's map sit beside
	 * workloads placed otherwise. */
	if (!strcmp(ops->name, "map") && place_check_map(ops->name, true, s->ac.placement_map, err) < 0) {
		nl_err_prefix(err, "key 'placement_map'");
		return config_err_file_line(&s->cfg, "placement", err);
	}
	uint32_t *ep = malloc((size_t)(m->n_ranks ? m->n_ranks : 1) * sizeof *ep);
	if (!ep)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	struct place_req req = {
		.t = s->replay_topo,
		.n_ranks = m->n_ranks,
		.ranks_per_node = (uint32_t)s->ac.ranks_per_node,
		.inner = s->ac.placement_inner ? PLACE_INNER_ROUND_ROBIN : PLACE_INNER_LINEAR,
		.seed = (uint64_t)s->ac.placement_seed,
		.map_path = s->ac.placement_map,
	};
	int rc = place_job(ops, &req, ep, err);
	if (rc < 0) {
		free(ep);
		/* Of several --topology networks, say which one the ranks
		 * do not fit, as compare names its system. */
		const char *origin = config_origin(&s->cfg, "topology");
		if (origin && !strcmp(origin, "--topology"))
			nl_err_prefix(err, "on --topology '%s'", s->nc.topology);
		return session_place_failed(s, ops, err);
	}
	snprintf(s->placement, sizeof s->placement, "%s", ops->name);
	s->rank_ep = ep;
	return 0;
}

/* A refusal of routing_function's value, with the key and where it was
 * set (file:line or -s), as a refused topology's is (session_topo_new). */
static int session_routing_refused(nl_sim *s, struct nl_err *err)
{
	nl_err_prefix(err, "key 'routing_function'");
	return config_err_file_line(&s->cfg, "routing_function", err);
}

int session_check_unrun_routing(nl_sim *s, const struct topo *t, struct nl_err *err)
{
	const char *rf = session_routing_is_set(s) ? config_get(&s->cfg, "routing_function") : NULL;
	if (!rf)
		return 0;
	if (!t) {
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(rf, ":"), rf);
		if (!route_find(name, err))
			return session_routing_refused(s, err);
		return 0;
	}
	if (session_route_check(s, t, rf, err) < 0)
		return session_routing_refused(s, err);
	return 0;
}

/* Build routing function `spec` on t with the VCs a flit network gives it
 * (num_vcs / traffic_classes): the registry's own checks (family, VC
 * classes), nothing kept but the canonical spec when asked for. */
int session_route_check(nl_sim *s, const struct topo *t, const char *spec, struct nl_err *err)
{
	struct router_cfg rc;
	NL_CHECK(config_bind(&s->cfg, &net_router_table, &rc, err));
	uint32_t vcs = (uint32_t)(rc.num_vcs / (rc.traffic_classes > 0 ? rc.traffic_classes : 1));
	struct route *r = NULL;
	NL_CHECK(route_new_origin(spec, t, vcs, &(struct route_origin){.is_check = true}, &r, err));
	route_free(r);
	return 0;
}

/* The routing the replay runs, as run/sweep record it: the canonical spec
 * on the replay's topology, every parameter that means something there
 * given (route_spec_canonical), picked or configured. As configured when
 * it does not parse: the network then refuses it. */
static void session_replay_routing(nl_sim *s)
{
	const char *rf = config_get(&s->cfg, "routing_function");
	if (!rf)
		rf = s->nc.routing_function;
	char *canon = NULL;
	struct nl_err ignored = {0};
	(void)route_spec_canonical(rf, s->topo ? s->topo->ops->name : NULL, &canon, &ignored);
	snprintf(s->routing, sizeof s->routing, "%s", canon ? canon : rf);
	snprintf(s->routing_given, sizeof s->routing_given, "%s", rf);
	free(canon);
}

/* Everything up to a run: trace, compute time, backend, topology, routing,
 * the app. Errors in this order: [replay] keys, the trace, compute time,
 * backend, topology. */
static int session_replay_build(nl_sim *s, const char *path, const struct session_replay_opts *ro,
				struct nl_err *err)
{
	const char *label = ro->topology ? "--topology" : "key 'topology'";
	NL_CHECK(app_config_bind(&s->cfg, &s->ac, err));
	NL_CHECK(ro->open_trace ? ro->open_trace(ro->ctx, path, &s->arch, err) : trace_archive_open(&s->arch, path, err));
	const struct trace_manifest *m = trace_archive_manifest(s->arch);
	if (app_compute_time_resolve(&s->ac, m, s->compute_why, sizeof s->compute_why, err) < 0)
		return config_err_file_line(&s->cfg, "compute_time", err);
	s->comparable = app_recorded_comparable(m, s->comparable_why, sizeof s->comparable_why);
	const struct net_backend_ops *ops = session_backend_find(s, s->ac.backend, err);
	if (!ops)
		return err->code;
	if (ro->topology) {
		NL_CHECK(config_set(&s->cfg, "topology", ro->topology, "--topology", err));
		topo_free(s->topo);
		s->topo = NULL;
		free(s->routing_spec); /* the canonical spec depends on the family */
		s->routing_spec = NULL;
		free(s->info_routing);
		s->info_routing = NULL;
		s->is_bound = false;
		session_net_close(s);
	}
	NL_CHECK(config_bind(&s->cfg, &net_network_table, &s->nc, err));
	/* The [network] table's topology: always for backends that model the
	 * network's structure; for one that accepts none (the analytic one)
	 * only when set, so its default stays contention-free. */
	bool want_topo = !ops->topology_optional || config_get(&s->cfg, "topology");
	if (want_topo) {
		NL_CHECK(session_topo_new(s, label, err));
		/* Linear placement needs an endpoint per rank; a policy checks
		 * its own need (ranks_per_node ranks share one: place_job). */
		if (!strcmp(s->ac.placement, "linear") && s->topo->n_endpoints < m->n_ranks) {
			/* Ranks may share an endpoint (a node of several cores):
			 * say how, or the user resizes a network they meant. */
			uint32_t share = (uint32_t)(((uint64_t)m->n_ranks + s->topo->n_endpoints - 1) / s->topo->n_endpoints);
			/* A default network (the flit backend's) was not the
			 * user's choice: say so, or its spec seems to come from
			 * nowhere. */
			const char *which = config_origin(&s->cfg, "topology") ? label : "key 'topology' (unset)";
			nl_errf(err, NL_ECONFIG,
				"%s: '%s' has %" PRIu32 " endpoints, the trace needs %" PRIu32 " (one per rank); expected "
				"a topology of %" PRIu32 " endpoints or more, or ranks sharing endpoints: placement = "
				"contiguous, ranks_per_node = %" PRIu32 " (docs/placement.md)",
				which, s->nc.topology, s->topo->n_endpoints, m->n_ranks, m->n_ranks, share);
			return config_err_file_line(&s->cfg, "topology", err);
		}
		if (ro->pick_routing)
			NL_CHECK(session_set_picked_routing(s, "--topology", err));
		else if (!ops->ignores_routing)
			NL_CHECK(session_default_routing(s, err));
	}
	s->replay_topo = want_topo ? s->topo : NULL;
	/* A routing picked for --topology is the family's own: checking it
	 * against the flit model's VCs would refuse a replay over keys this
	 * backend does not read (num_vcs = 3 on a torus). A backend that runs
	 * no routing function records none, picked or set: the title line,
	 * the JSON and the table name only the routing that ran. */
	if (ops->ignores_routing) {
		if (!ro->pick_routing)
			NL_CHECK(session_check_unrun_routing(s, s->replay_topo, err));
	} else if (want_topo) {
		session_replay_routing(s);
	}
	/* Under mpirun every rank replays the whole trace (the application
	 * model is small and cheap; its decisions follow the deliveries,
	 * which reach every rank), and each runs its share of the network. */
	NL_CHECK(net_backend_new_mpi(ops, &s->cfg, s->replay_topo, s->mpi, &s->replay_net, err));
	NL_CHECK(session_cable_apply(s, s->replay_net, s->replay_topo, &s->cables, err));
	struct app_source src;
	NL_CHECK(app_archive_source_new(&s->asrc, s->arch, &src, err));
	/* Errors about the trace's contents say "PATH: rank R ...", as trace
	 * verify's: a study replays many files, and the reader names its own. */
	if (!(s->arch_path = strdup(path)))
		return nl_errf(err, NL_ENOMEM, "out of memory");
	src.name = s->arch_path;
	NL_CHECK(session_place(s, m, err));
	NL_CHECK(app_new(&s->app, &s->ac, &src, s->replay_net, s->rank_ep, err));
	return ro->on_app ? ro->on_app(ro->ctx, s->app, m, err) : 0;
}

static int session_replay_prepare_run(nl_sim *s, const char *path, const struct session_replay_opts *ro,
				      struct nl_err *err)
{
	double t0 = nl_wall_seconds();
	session_results_clear(s);
	int rc = session_replay_build(s, path, ro, err);
	/* Under MPI a trace or file one rank cannot read fails every rank
	 * before the network's first collective. */
	rc = net_mpi_agree(s->mpi, rc, err);
	if (rc == 0) {
		/* The same configuration and trace on every rank: the trace by
		 * its streams' hashes (the manifest's, read already). */
		uint64_t h = session_config_hash(s);
		const struct trace_manifest *m = trace_archive_manifest(s->arch);
		for (uint32_t r = 0; m->rank_hash && r < m->n_ranks; r++)
			h = h * 0x9e3779b97f4a7c15ULL ^ m->rank_hash[r];
		rc = net_mpi_agree_same(s->mpi, h, "its resolved configuration or trace", err);
	}
	if (rc < 0) {
		session_results_clear(s);
		return rc;
	}
	s->is_replay_prepared = true;
	s->replay_prep_s = nl_wall_seconds() - t0;
	return 0;
}

int session_replay_prepare(nl_sim *s, const char *path, const struct session_replay_opts *ro, struct nl_err *err)
{
	static const struct session_replay_opts no_opts;
	return nl_err_one_line(err, session_replay_prepare_run(s, path, ro ? ro : &no_opts, err));
}

static int session_replay_run(nl_sim *s, const char *path, const struct session_replay_opts *ro, struct nl_replay *out,
		   struct nl_err *err)
{
	static const struct session_replay_opts no_opts;
	/* Exactly, as nl_sim_info's size (sim_info). */
	if (out && out->size != sizeof *out)
		return nl_errf(err, NL_EINVAL, "nl_sim_replay: out->size %zu: expected sizeof(struct nl_replay), %zu",
			       out->size, sizeof *out);
	if (!ro)
		ro = &no_opts;
	if (!s->is_replay_prepared)
		NL_CHECK(session_replay_prepare_run(s, path, ro, err));
	s->is_replay_prepared = false;
	/* The document's wall_seconds: the preparation and the replay, not
	 * the other networks' replays run in between. */
	double t0 = nl_wall_seconds() - s->replay_prep_s;
	int rc = app_run(s->app, ro->pg, err);
	/* A replay that stopped early (a deadlock, the network failing) left
	 * part of the archive unread: damage there is said as damage, as if
	 * the replay had reached it, not hidden behind the deadlock it may
	 * have caused. A successful replay has read every stream to its
	 * end, so this costs only the runs that fail. A check that runs out
	 * of memory keeps the replay's own error. */
	if (rc < 0 && rc != NL_EFORMAT && !app_archive_source_failed(s->asrc)) {
		struct nl_err cerr = {0};
		int crc = app_archive_source_check_rest(s->asrc, &cerr);
		if (crc < 0 && crc != NL_ENOMEM) {
			if (err)
				*err = cerr;
			rc = crc;
		}
	}
	if (ro->trace_failed)
		*ro->trace_failed = rc < 0 && (rc == NL_EFORMAT || app_archive_source_failed(s->asrc));
	/* Under MPI a rank can fail alone in the replay (a trace that does
	 * not decode on its node) while the others go on into the network:
	 * the network's next step tells them, and the failing rank's line is
	 * agreed (docs/scaling.md, "Failures on one rank"). */
	if (s->mpi && s->replay_net->ops->agree)
		rc = s->replay_net->ops->agree(s->replay_net, rc, err);
	bool deadlock = rc == NL_EDEADLOCK;
	if (rc < 0 && !deadlock)
		goto fail;
	struct nl_err rerr = {0};
	s->net_report = json_object();
	int rrc = s->net_report ? 0 : nl_errf(&rerr, NL_ENOMEM, "out of memory");
	if (rrc == 0 && s->replay_net->ops->report)
		rrc = s->replay_net->ops->report(s->replay_net, s->net_report, &rerr);
	if (rrc == 0 && s->routing[0])
		json_object_set_new(s->net_report, "routing", out_json_utf8(s->routing));
	if (rrc == 0 && s->cables)
		json_object_set(s->net_report, "cables", s->cables);
	/* A topology the backend does not see, in the document as on stderr
	 * (the commands' warning): a script comparing networks by their
	 * JSON read equal runtimes as equal networks. */
	const char *unused = s->replay_topo ? session_topology_unused(&s->cfg) : NULL;
	if (rrc == 0 && unused)
		json_object_set_new(s->net_report, "topology_unused", json_string(unused));
	if (rrc == 0)
		rrc = session_replay_doc(s, path, deadlock, t0, &rerr);
	if (rrc < 0) {
		/* A failed report outranks the deadlock: nothing is kept. */
		if (err)
			*err = rerr;
		rc = rrc;
		goto fail;
	}
	s->kind = SESSION_REPLAY;
	s->view = (struct session_replay_view){
		.app = s->app,
		.ac = &s->ac,
		.m = trace_archive_manifest(s->arch),
		.topo = s->replay_topo,
		.backend = s->replay_net->ops->name,
		.routing = s->routing,
		.routing_given = s->routing_given,
		.placement = s->placement,
		.net_report = s->net_report,
		.doc = s->replay_doc,
		.deadlock = deadlock,
		.compute_why = s->compute_why,
		.comparable = s->comparable,
		.comparable_why = s->comparable_why,
	};
	if (out) {
		const struct app_results *res = app_results(s->app);
		out->n_ranks = res->n_ranks;
		out->deadlock = deadlock;
		out->predicted_s = (double)res->runtime_ps * 1e-12;
		out->recorded_s = s->view.m->recorded_runtime_s;
		out->messages = res->msgs;
		out->bytes = res->bytes;
	}
	return rc;
fail:
	session_results_clear(s);
	return rc;
}

int session_replay(nl_sim *s, const char *path, const struct session_replay_opts *ro, struct nl_replay *out,
		   struct nl_err *err)
{
	return nl_err_one_line(err, session_replay_run(s, path, ro, out, err));
}

static int sim_replay(nl_sim *s, const char *path, struct nl_replay *out, struct nl_err *err)
{
	NL_CHECK(session_enter(s, "nl_sim_replay", NULL, err));
	if (!path)
		return nl_errf(err, NL_EINVAL, "nl_sim_replay: NULL path");
	return session_replay(s, path, NULL, out, err);
}

int nl_sim_replay(nl_sim *s, const char *path, struct nl_replay *out, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_replay(s, path, out, err));
}

const struct session_replay_view *session_replay_view(const nl_sim *s)
{
	return s->kind == SESSION_REPLAY ? &s->view : NULL;
}

/* --- message by message ---------------------------------------------------- */

static int sim_net_open(nl_sim *s, struct nl_err *err)
{
	NL_CHECK(session_enter(s, "nl_sim_net_open", NULL, err));
	const struct net_backend_ops *ops;
	bool want_topo;
	struct net_backend *b;
	NL_CHECK(session_backend(s, &ops, &want_topo, err));
	if (ops->ignores_routing)
		NL_CHECK(session_check_unrun_routing(s, want_topo ? s->topo : NULL, err));
	NL_CHECK(net_backend_new(ops, &s->cfg, want_topo ? s->topo : NULL, &b, err));
	json_t *cables = NULL;
	int rc = session_cable_apply(s, b, want_topo ? s->topo : NULL, &cables, err);
	json_decref(cables);
	if (rc < 0) {
		net_backend_free(b);
		return rc;
	}
	session_net_close(s);
	s->net = b;
	s->net_topo = want_topo ? s->topo : NULL;
	return 0;
}

int nl_sim_net_open(nl_sim *s, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_net_open(s, err));
}

/* A send or advance that failed after the backend began to change its
 * state (a deadlock found while running, memory running out between
 * packets) leaves the network part-way: its time and queues no longer
 * match any one instant, so it takes no more sends or advances. The
 * refusals (NL_EINVAL, NL_ERANGE, NL_ESTATE) change nothing. */
static int session_net_result(nl_sim *s, int rc)
{
	if (rc < 0 && rc != NL_EINVAL && rc != NL_ERANGE && rc != NL_ESTATE)
		s->net_failed = rc;
	return rc;
}

static int session_net_usable(const nl_sim *s, const char *fn, struct nl_err *err)
{
	if (!s->net_failed)
		return 0;
	return nl_errf(err, NL_ESTATE, "%s: the network stopped at an earlier failure (%s); expected nl_sim_net_open first",
		       fn, nl_err_name(s->net_failed));
}

static int sim_send(nl_sim *s, uint64_t now_ps, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t msg_id,
		struct nl_err *err)
{
	/* The one call a deliver callback may make: a server answers a
	 * delivery with the next message. The backend takes it at the
	 * delivery's instant, as between two advances. */
	NL_CHECK(session_enter(s, "nl_sim_send", "nl_sim_advance", err));
	if (!s->net)
		NL_CHECK(nl_sim_net_open(s, err));
	NL_CHECK(session_net_usable(s, "nl_sim_send", err));
	/* The backends index endpoints unchecked (hot path): check here. */
	const struct topo *t = s->net_topo;
	if (t && (src >= t->n_endpoints || dst >= t->n_endpoints))
		return nl_errf(err, NL_ERANGE, "nl_sim_send: endpoint %" PRIu32 " -> %" PRIu32 ": expected < %" PRIu32, src,
			       dst, t->n_endpoints);
	NL_CHECK(session_net_result(s, s->net->ops->send(s->net, now_ps, src, dst, bytes, msg_id, err)));
	s->is_net_next_known = false;
	return 0;
}

int nl_sim_send(nl_sim *s, uint64_t now_ps, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t msg_id,
		struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	return nl_err_one_line(err, sim_send(s, now_ps, src, dst, bytes, msg_id, err));
}

/* The caller's deliver, counting the deliveries. */
struct session_deliveries {
	nl_deliver_fn deliver; /* NULL: no notification */
	void *ctx;
	uint64_t n;
};

static void session_deliver_counted(void *ctx, uint64_t msg_id, uint64_t t_ps)
{
	struct session_deliveries *d = ctx;
	d->n++;
	if (d->deliver)
		d->deliver(d->ctx, msg_id, t_ps);
}

/* One backend advance to until_ps, what it learnt kept in s. A send from
 * the deliver callback leaves the next time unknown again (sim_send). */
static int session_advance_to(nl_sim *s, uint64_t until_ps, struct session_deliveries *d, uint64_t *reached,
			      uint64_t *next, struct nl_err *err)
{
	bool was_known = s->is_net_next_known;
	s->is_net_next_known = true;
	s->in_callback = "nl_sim_advance";
	int rc = session_net_result(s, s->net->ops->advance(s->net, until_ps, session_deliver_counted, d, reached,
							  next, err));
	s->in_callback = NULL;
	if (rc < 0) {
		s->is_net_next_known = was_known;
		return rc;
	}
	s->net_reached_ps = *reached;
	s->net_next_ps = *next;
	return 0;
}

/* until_ps past the latest time a send takes (NET_TIME_MAX_PS; UINT64_MAX
 * is "until nothing is left"). A backend that reaches until_ps with
 * nothing delivered moves its clock there, and then refuses every send
 * (before the time reached, or past 2^62 ps): the network would be spent.
 * So the network is run from one instant with work to the next, and
 * stops at the first delivery, as any advance, or where the work ran
 * out, its clock there. Each step is a backend advance, which the
 * backend runs as one cycle or event of its own loop would. */
static int session_advance_forever(nl_sim *s, uint64_t until_ps, struct session_deliveries *d, uint64_t *reached,
				   uint64_t *next, struct nl_err *err)
{
	*reached = s->net_reached_ps;
	*next = s->net_next_ps;
	/* After a send the next time is unknown: the first step, to the time
	 * reached, learns it. */
	while (!s->is_net_next_known || s->net_next_ps != UINT64_MAX) {
		uint64_t to = !s->is_net_next_known ? s->net_reached_ps : s->net_next_ps;
		if (to > until_ps)
			to = until_ps;
		uint64_t was = s->net_reached_ps, n = d->n;
		NL_CHECK(session_advance_to(s, to, d, reached, next, err));
		/* A step that moved nothing on (a next time not after the
		 * time reached) would repeat forever: the backend's own loop
		 * takes over, to until_ps. */
		bool is_stuck = s->is_net_next_known && *next <= to && *reached == was;
		if (d->n != n || to == until_ps || is_stuck)
			return is_stuck ? session_advance_to(s, until_ps, d, reached, next, err) : 0;
	}
	return 0;
}

int nl_sim_advance(nl_sim *s, uint64_t until_ps, nl_deliver_fn deliver, void *ctx, uint64_t *reached_ps,
		   uint64_t *next_ps, struct nl_err *err)
{
	struct nl_err local;
	err = session_err(err, &local);
	NL_CHECK(session_enter(s, "nl_sim_advance", NULL, err));
	if (!s->net)
		return nl_errf(err, NL_ESTATE, "nl_sim_advance: no network yet (nl_sim_net_open or nl_sim_send first)");
	NL_CHECK(session_net_usable(s, "nl_sim_advance", err));
	uint64_t reached, next;
	/* A NULL deliver still stops at the same instants: the backends get
	 * a callback either way. */
	struct session_deliveries d = {deliver, ctx, 0};
	if (until_ps > NET_TIME_MAX_PS && until_ps >= s->net_reached_ps)
		NL_CHECK(session_advance_forever(s, until_ps, &d, &reached, &next, err));
	else
		NL_CHECK(session_advance_to(s, until_ps, &d, &reached, &next, err));
	if (reached_ps)
		*reached_ps = reached;
	if (next_ps)
		*next_ps = next;
	return 0;
}
