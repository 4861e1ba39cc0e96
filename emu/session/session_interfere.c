/* `netloom interfere`: several jobs on one machine (issue 13,
 * docs/placement.md). The jobs of a workload file are placed once, in
 * file order, each on endpoints the jobs before it left free; then each
 * job runs alone on that placement (the rest of the machine idle) and all
 * run together, so a job's slowdown is its shared runtime over its
 * runtime alone, minus one, with nothing else changed. The shared run
 * counts every router-to-router channel's use per job (the source
 * endpoint's job), which gives the links where the jobs collide.
 *
 * Everything is a function of the configuration, the workload and the
 * traces: the document holds no wall-clock time, so two runs give the same
 * bytes. The J + 1 runs share nothing a run changes (each its network,
 * application, readers of the traces; the topology, configuration and
 * placement are read only), so with jobs > 1 they run side by side on
 * threads (core/pool.h), with the same document and error.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/pool.h"
#include "core/progress.h"
#include "core/version.h"
#include "net/net.h"
#include "place/place.h"
#include "session/session.h"
#include "session/session_internal.h"
#include "topo/topo.h"
#include "traces/trace.h"

/* What one run measured of one job. */
struct ifr_meas {
	uint64_t runtime_ps;
	struct app_latency lat;
};

struct ifr_job {
	const struct place_job_spec *spec;
	struct trace_archive *arch;
	/* The shared run's reader of the same trace when the runs are on
	 * threads (trace_archive_open_again: one archive's readers share its
	 * decompression state), else NULL: arch, one run after another. */
	struct trace_archive *arch_shared;
	uint32_t n_ranks;
	uint32_t *ep;              /* [n_ranks] endpoint of each rank */
	struct ifr_meas alone, shared;
};

struct ifr {
	nl_sim *s;
	struct app_config ac;      /* the replay settings: compute time as the traced jobs resolve it */
	const char *path;          /* the workload file */
	const struct session_interfere_opts *o;
	const struct topo *t;
	const struct net_backend_ops *ops;
	struct place_workload w;
	struct ifr_job jobs[PLACE_MAX_JOBS];
	uint32_t *ep_job;          /* [n_endpoints] job of each endpoint (0 where none runs) */
	json_t *links;             /* the shared run's link use (ifr_links_json) */
	uint64_t per_job[PLACE_MAX_JOBS];   /* each job's use of the links, in links' unit */
	uint64_t on_shared[PLACE_MAX_JOBS]; /* of which on links another job used */
	json_t *net_report;        /* the shared run's network report */
	uint64_t *cable_ps;        /* cable_latency's channel latencies, laid out once (NULL: off) */
	json_t *cables;            /* the layout behind them, for the network report */
	char label[128];           /* progress label of the run going on (one run at a time) */
};

static void ifr_release(struct ifr *x)
{
	for (uint32_t j = 0; j < x->w.n_jobs; j++) {
		trace_archive_close(x->jobs[j].arch);
		trace_archive_close(x->jobs[j].arch_shared);
		free(x->jobs[j].ep);
	}
	free(x->ep_job);
	json_decref(x->links);
	json_decref(x->net_report);
	free(x->cable_ps);
	json_decref(x->cables);
	place_workload_release(&x->w);
}

/* Place job j on endpoints busy[] leaves free and take them. */
static int ifr_place(struct ifr *x, uint32_t j, uint8_t *busy, struct nl_err *err)
{
	struct ifr_job *jb = &x->jobs[j];
	const struct place_job_spec *sp = jb->spec;
	jb->ep = malloc((size_t)(jb->n_ranks ? jb->n_ranks : 1) * sizeof *jb->ep);
	if (!jb->ep)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	const struct place_ops *pops = place_find(sp->policy, err);
	struct place_req req = {
		.t = x->t,
		.n_ranks = jb->n_ranks,
		.ranks_per_node = sp->ranks_per_node,
		.inner = sp->inner,
		.seed = sp->seed,
		.job = j,
		.busy = busy,
		.map_path = sp->map_path,
	};
	int rc = pops ? place_job(pops, &req, jb->ep, err) : NL_ECONFIG;
	/* Named by the key at fault, at its line: the map file's problems
	 * are placement_map's (they were reported as 'placement'), others
	 * the policy's with its value, as replay names it, at the job's
	 * first key when it is the default. */
	if (rc < 0 && !strcmp(sp->policy, "map"))
		return nl_err_prefix(err, "%s:%d: [job %s] key 'placement_map'", x->path, sp->map_line, sp->name);
	if (rc < 0 && sp->placement_line)
		return nl_err_prefix(err, "%s:%d: [job %s] key 'placement': value '%s'", x->path, sp->placement_line,
				     sp->name, sp->policy);
	if (rc < 0)
		return nl_err_prefix(err, "%s:%d: [job %s] key 'placement' (unset: contiguous)", x->path, sp->line,
				     sp->name);
	/* Policies take free endpoints only (place_job), so jobs never share one. */
	for (uint32_t r = 0; r < jb->n_ranks; r++) {
		busy[jb->ep[r]] = 1;
		x->ep_job[jb->ep[r]] = j;
	}
	return 0;
}

/* The keys a [job NAME] section sets for its job (docs/placement.md,
 * "Workload files"). Set in the system configuration (a -c file, -s) they
 * placed no job, yet the document's config echoed them as if they had:
 * refused, naming where. */
static int ifr_check_job_keys(const struct ifr *x, struct nl_err *err)
{
	static const char *const keys[] = {"placement", "placement_seed", "ranks_per_node", "placement_inner",
					   "placement_map"};
	const struct config *c = &x->s->cfg;
	for (size_t i = 0; i < c->n_entries; i++)
		for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
			if (!strcmp(c->entries[i].def->name, keys[k]))
				return nl_errf(err, NL_ECONFIG,
					       "%s: key '%s': a job's key, not the system's; expected it in the "
					       "workload file %s ([job NAME] %s%s, docs/placement.md)",
					       c->entries[i].origin, keys[k], x->path, keys[k],
					       strcmp(keys[k], "placement_seed") ? "" : ", or [workload] seed for every job");
	return 0;
}

/* Open the traces, resolve compute time, place the jobs in file order. */
static int ifr_setup(struct ifr *x, struct nl_err *err)
{
	nl_sim *s = x->s;
	struct app_config ac;
	NL_CHECK(ifr_check_job_keys(x, err));
	/* The workload first: a mistyped WORKLOAD was reported as the
	 * system's missing topology, and a bad one only after the topology
	 * was built and its cables laid out (seconds with the annealing). */
	NL_CHECK(place_workload_read(x->path, &x->w, err));
	NL_CHECK(app_config_bind(&s->cfg, &ac, err));
	x->ops = session_backend_find(s, ac.backend, err);
	if (!x->ops)
		return err->code;
	if (!config_get(&s->cfg, "topology") && x->ops->topology_optional)
		return nl_errf(err, NL_ECONFIG,
			       "key 'topology': not set; expected the machine the jobs share (interference needs a "
			       "network)");
	if (session_topo_as(s, "key 'topology'", err) < 0)
		return err->code;
	if (!x->ops->ignores_routing)
		NL_CHECK(session_default_routing(s, err));
	else
		NL_CHECK(session_check_unrun_routing(s, s->topo, err));
	x->t = s->topo;
	/* A backend that cannot count link use per job fails here, not
	 * after the runs alone. */
	struct net_backend *probe;
	NL_CHECK(net_backend_new(x->ops, &s->cfg, x->t, &probe, err));
	uint32_t zero = 0;
	int prc = net_backend_count_jobs(probe, &zero, 1, err);
	net_backend_free(probe);
	if (prc < 0)
		return prc;
	/* cable_latency: one layout for every run (each job alone, then all
	 * together), where each run laid the same topology out again: with
	 * the annealing, seconds per run for the same answer. */
	NL_CHECK(session_cable_plan(s, x->ops, x->t, &x->cable_ps, &x->cables, err));
	uint8_t *busy = calloc(x->t->n_endpoints, 1);
	x->ep_job = calloc(x->t->n_endpoints, sizeof *x->ep_job);
	if (!busy || !x->ep_job) {
		free(busy);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	int rc = 0;
	x->ac = ac;
	const struct place_job_spec *traced = NULL; /* the first traced job */
	for (uint32_t j = 0; rc == 0 && j < x->w.n_jobs; j++) {
		struct ifr_job *jb = &x->jobs[j];
		const struct place_job_spec *sp = &x->w.jobs[j];
		jb->spec = sp;
		if (sp->synthetic >= 0) {
			/* Its compute ops carry wall and CPU time alike. */
			jb->n_ranks = sp->synth_ranks;
			rc = ifr_place(x, j, busy, err);
			continue;
		}
		char job[NL_ERR_MSG_MAX]; /* the key, as the errors below name it */
		snprintf(job, sizeof job, "%s:%d: [job %s] key 'trace'", x->path, sp->trace_line, sp->name);
		rc = x->o->open_trace ? x->o->open_trace(x->o->ctx, job, sp->trace, &jb->arch, err)
				      : trace_archive_open(&jb->arch, sp->trace, err);
		if (rc < 0) {
			rc = nl_err_prefix(err, "%s:%d: [job %s] key 'trace'", x->path, sp->trace_line, sp->name);
			break;
		}
		const struct trace_manifest *m = trace_archive_manifest(jb->arch);
		char why[320];
		struct app_config jac = ac;
		jb->n_ranks = m->n_ranks;
		rc = app_compute_time_resolve(&jac, m, why, sizeof why, err);
		if (rc < 0) {
			rc = nl_err_prefix(err, "%s:%d: [job %s] key 'trace'", x->path, sp->trace_line, sp->name);
			break;
		}
		if (traced && jac.compute_time != x->ac.compute_time) {
			rc = nl_errf(err, NL_ECONFIG,
				     "%s:%d: [job %s] key 'trace': its trace replays %s time where job '%s' replays %s; "
				     "expected one kind for all jobs (set key 'compute_time')",
				     x->path, sp->trace_line, sp->name, app_compute_time_name(jac.compute_time), traced->name,
				     app_compute_time_name(x->ac.compute_time));
			break;
		}
		if (!traced) {
			traced = sp;
			x->ac = jac;
		}
		if (x->o->jobs > 1 && (rc = trace_archive_open_again(jb->arch, &jb->arch_shared, err)) < 0) {
			rc = nl_err_prefix(err, "%s:%d: [job %s] key 'trace'", x->path, sp->trace_line, sp->name);
			break;
		}
		rc = ifr_place(x, j, busy, err);
	}
	free(busy);
	return rc;
}

/* The links of the shared run from its per-(channel, job) counts (sorted
 * by port then job, nonzero only): the links' total, those used, those
 * used by two jobs or more, and the top ones by their use (ties: lower
 * port); x->per_job and x->on_shared get each job's totals. */
static json_t *ifr_links_json(struct ifr *x, const struct net_job_use *use, size_t n_use, const char *unit)
{
	const struct topo *t = x->t;
	const uint32_t J = x->w.n_jobs;
	uint32_t k = x->o->top_links ? x->o->top_links : 10;
	size_t *top = calloc(k, sizeof *top); /* index in use[] of each top link's first count */
	uint32_t n_top = 0;
	uint64_t total = 0, *top_sum = calloc(k, sizeof *top_sum);
	uint32_t used = 0, n_shared = 0;
	json_t *o = json_object();
	if (!top || !top_sum || !o) {
		free(top);
		free(top_sum);
		json_decref(o);
		return NULL;
	}
	for (size_t i = 0, end; i < n_use; i = end) {
		const uint32_t g = use[i].port;
		const bool is_network = topo_port_is_network(t, g);
		uint64_t sum = 0;
		/* Walked by pointer: an index loop over the run made gcc 12 -O3
		 * warn of an iteration past the address space
		 * (-Waggressive-loop-optimizations). */
		const struct net_job_use *u = use + i;
		for (; u < use + n_use && u->port == g; u++) {
			sum += u->count;
			if (is_network)
				x->per_job[u->job] += u->count;
		}
		end = (size_t)(u - use);
		if (!is_network)
			continue;
		total += sum;
		used++;
		if (end - i < 2)
			continue;
		n_shared++;
		for (u = use + i; u < use + end; u++)
			x->on_shared[u->job] += u->count;
		/* Insertion into the top k, descending, first port first on ties. */
		uint32_t pos = n_top < k ? n_top++ : k;
		while (pos > 0 && top_sum[pos - 1] < sum) {
			if (pos < k) {
				top[pos] = top[pos - 1];
				top_sum[pos] = top_sum[pos - 1];
			}
			pos--;
		}
		if (pos < k) {
			top[pos] = i;
			top_sum[pos] = sum;
		}
	}
	json_object_set_new(o, "unit", json_string(unit));
	json_object_set_new(o, "total", json_integer((json_int_t)total));
	json_object_set_new(o, "links_used", json_integer(used));
	json_object_set_new(o, "links_shared", json_integer(n_shared));
	json_t *arr = json_array();
	for (uint32_t i = 0; i < n_top; i++) {
		uint32_t g = use[top[i]].port, r = t->port_router[g];
		uint64_t u[PLACE_MAX_JOBS] = {0};
		for (size_t e = top[i]; e < n_use && use[e].port == g; e++)
			u[use[e].job] = use[e].count;
		json_t *l = json_object(), *fl = json_array(), *sh = json_array();
		for (uint32_t j = 0; j < J; j++) {
			json_array_append_new(fl, json_integer((json_int_t)u[j]));
			json_array_append_new(sh, json_real((double)u[j] / (double)top_sum[i]));
		}
		json_object_set_new(l, "router", json_integer(r));
		json_object_set_new(l, "port", json_integer(g - t->port_base[r]));
		json_object_set_new(l, "peer_router", json_integer(t->port_router[t->peer[g]]));
		json_object_set_new(l, "total", json_integer((json_int_t)top_sum[i]));
		json_object_set_new(l, "per_job", fl);
		json_object_set_new(l, "shares", sh);
		json_array_append_new(arr, l);
	}
	json_object_set_new(o, "top_shared", arr);
	free(top);
	free(top_sum);
	return o;
}

/* Replay jobs [first, first + n) together on a fresh network; shared: also
 * count link use per job. pg: this run's progress, or NULL. What it
 * writes in *x is its own (each job's alone or shared measures; the links,
 * per_job, on_shared and network report for the shared run), so runs can
 * be side by side on threads. */
static int ifr_run(struct ifr *x, uint32_t first, uint32_t n, bool shared, struct progress *pg, struct nl_err *err)
{
	struct net_backend *net = NULL;
	struct app_archive_source *as[PLACE_MAX_JOBS] = {0};
	struct app_synth_source *ss[PLACE_MAX_JOBS] = {0};
	struct app_source src[PLACE_MAX_JOBS], all;
	struct app_jobs_source *js = NULL;
	struct app *app = NULL;
	uint32_t base[PLACE_MAX_JOBS + 1];
	uint64_t start[PLACE_MAX_JOBS];
	uint32_t *rank_ep = NULL;
	int rc = net_backend_new(x->ops, &x->s->cfg, x->t, &net, err);
	if (rc == 0) /* cable_latency applies here as in a replay */
		rc = session_cable_set(x->s, net, x->cable_ps, err);
	for (uint32_t k = 0; rc == 0 && k < n; k++) {
		struct ifr_job *jb = &x->jobs[first + k];
		const struct place_job_spec *sp = jb->spec;
		if (sp->synthetic >= 0) {
			rc = app_synth_source_new(&ss[k], sp->synthetic, sp->synth_ranks, sp->synth_bytes,
						  sp->synth_interval_ps, sp->synth_steps * sp->repeat, &src[k], err);
		} else {
			rc = app_archive_source_new(&as[k], shared && jb->arch_shared ? jb->arch_shared : jb->arch,
						    &src[k], err);
			if (rc == 0)
				rc = app_archive_source_set_repeat(as[k], &src[k], sp->repeat, err);
		}
		start[k] = jb->spec->start_ps;
	}
	const struct place_job_spec *alone = !shared && n == 1 && x->jobs[first].spec->synthetic < 0
		? x->jobs[first].spec : NULL;
	if (rc == 0 && alone) {
		/* A traced job alone: its ranks are the trace's, so the app
		 * names an op it refuses as a replay does ("PATH: rank R op
		 * N ...") and passes the reader's own errors, which name the
		 * path and rank, as they are. */
		all = src[0];
		all.name = alone->trace;
	} else if (rc == 0 && n == 1)
		all = src[0];
	else if (rc == 0)
		rc = app_jobs_source_new(&js, src, n, &all, err);
	if (rc == 0 && !(rank_ep = malloc((size_t)all.n_ranks * sizeof *rank_ep)))
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
	if (rc == 0) {
		base[0] = 0;
		for (uint32_t k = 0; k < n; k++) {
			const struct ifr_job *jb = &x->jobs[first + k];
			base[k + 1] = base[k] + jb->n_ranks;
			memcpy(rank_ep + base[k], jb->ep, (size_t)jb->n_ranks * sizeof *rank_ep);
		}
		rc = app_new(&app, &x->ac, &all, net, rank_ep, err);
	}
	if (rc == 0)
		rc = app_set_jobs(app, n, base, start, err);
	if (rc == 0 && shared)
		rc = net_backend_count_jobs(net, x->ep_job, x->w.n_jobs, err);
	if (rc == 0) {
		if (pg) {
			/* Which of the n_jobs + 1 runs the progress line is about. */
			if (shared)
				snprintf(x->label, sizeof x->label, "interfere: all %" PRIu32 " jobs together", n);
			else
				snprintf(x->label, sizeof x->label, "interfere: job %s alone (%" PRIu32 " of %" PRIu32 ")",
					 x->jobs[first].spec->name, first + 1, x->w.n_jobs);
			pg->label = x->label;
		}
		rc = app_run(app, pg, err);
		/* A job alone that stopped early (a deadlock) may have left
		 * damage unread in its trace: it is said as damage, as when
		 * the run reaches it (session_replay_run does the same). */
		if (rc < 0 && rc != NL_EFORMAT && alone && !app_archive_source_failed(as[0])) {
			struct nl_err cerr = {0};
			int crc = app_archive_source_check_rest(as[0], &cerr);
			if (crc < 0 && crc != NL_ENOMEM) {
				if (err)
					*err = cerr;
				rc = crc;
			}
		}
		/* The trace's fault (its reader failed, or the app refused
		 * one of its ops: NL_EFORMAT, app_bad_op) is named at the key,
		 * as a trace that does not open is. Each job runs alone before
		 * the shared run and a failure is the first run's in that
		 * order (ifr_run_all), so a bad trace is always found here. */
		if (rc < 0 && alone && (app_archive_source_failed(as[0]) || rc == NL_EFORMAT))
			rc = nl_err_prefix(err, "%s:%d: [job %s] key 'trace'", x->path, alone->trace_line, alone->name);
		else if (rc < 0)
			rc = shared ? nl_err_prefix(err, "all jobs together")
				    : nl_err_prefix(err, "job '%s' alone", x->jobs[first].spec->name);
	}
	for (uint32_t k = 0; rc == 0 && k < n; k++) {
		struct ifr_meas *mj = shared ? &x->jobs[first + k].shared : &x->jobs[first + k].alone;
		mj->runtime_ps = app_job_runtime_ps(app, k);
		app_job_latency(app, k, &mj->lat);
	}
	if (rc == 0 && shared) {
		/* Read while the backend holds them: the counts are the
		 * backend's, nothing here copies them. */
		const struct net_job_use *use;
		size_t n_use;
		const char *unit;
		rc = net_backend_job_links(net, &use, &n_use, &unit, err);
		if (rc == 0) {
			x->links = ifr_links_json(x, use, n_use, unit);
			x->net_report = json_object();
			if (!x->links || !x->net_report)
				rc = nl_errf(err, NL_ENOMEM, "out of memory");
		}
		if (rc == 0 && net->ops->report)
			rc = net->ops->report(net, x->net_report, err);
		/* As a replay's report: which layout timed the cables. */
		if (rc == 0 && x->cables)
			rc = json_object_set(x->net_report, "cables", x->cables) ? nl_errf(err, NL_ENOMEM, "out of memory") : 0;
	}
	app_free(app);
	app_jobs_source_free(js);
	for (uint32_t k = 0; k < n; k++) {
		app_archive_source_free(as[k]);
		app_synth_source_free(ss[k]);
	}
	free(rank_ep);
	net_backend_free(net);
	return rc;
}

static json_t *ifr_meas_json(const struct ifr_meas *m)
{
	json_t *o = json_object(), *l = json_object();
	json_object_set_new(o, "runtime_s", json_real((double)m->runtime_ps * 1e-12));
	json_object_set_new(l, "n", json_integer((json_int_t)m->lat.n));
	json_object_set_new(l, "mean_s", json_real(m->lat.mean_ps * 1e-12));
	json_object_set_new(l, "p50_s", json_real((double)m->lat.p50_ps * 1e-12));
	json_object_set_new(l, "p99_s", json_real((double)m->lat.p99_ps * 1e-12));
	json_object_set_new(l, "max_s", json_real((double)m->lat.max_ps * 1e-12));
	json_object_set_new(o, "latency", l);
	return o;
}

static json_t *ifr_ratio(uint64_t shared, uint64_t alone)
{
	return alone ? json_real((double)shared / (double)alone - 1.0) : json_null();
}

static json_t *ifr_doc(const struct ifr *x)
{
	const uint32_t J = x->w.n_jobs;
	json_t *doc = json_object(), *res = json_object(), *jobs = json_array();
	if (!doc || !res || !jobs) {
		json_decref(doc);
		json_decref(res);
		json_decref(jobs);
		return NULL;
	}
	for (uint32_t j = 0; j < J; j++) {
		const struct ifr_job *jb = &x->jobs[j];
		const struct place_job_spec *sp = jb->spec;
		json_t *o = json_object(), *eps = json_array(), *shift = json_object();
		/* Names and paths are any bytes (a job '[job A\xff]'): as U+FFFD,
		 * else the key went missing and the table read a NULL name. */
		json_object_set_new(o, "name", out_json_utf8(sp->name));
		if (sp->synthetic >= 0) {
			json_t *sy = json_object();
			json_object_set_new(sy, "pattern", json_string(app_synth_pattern_name(sp->synthetic)));
			json_object_set_new(sy, "bytes", json_integer((json_int_t)sp->synth_bytes));
			json_object_set_new(sy, "interval_s", json_real((double)sp->synth_interval_ps / 1e12));
			json_object_set_new(sy, "steps", json_integer((json_int_t)sp->synth_steps));
			json_object_set_new(o, "synthetic", sy);
		} else {
			json_object_set_new(o, "trace", out_json_utf8(sp->trace));
		}
		json_object_set_new(o, "ranks", json_integer(jb->n_ranks));
		json_object_set_new(o, "placement", json_string(sp->policy));
		/* What placed the job: under map its file alone (the seed,
		 * ranks_per_node and placement_inner are not read there).
		 * placement_inner too, or two jobs that differ only in it (its
		 * endpoints apart) read alike. */
		if (!strcmp(sp->policy, "map")) {
			json_object_set_new(o, "placement_map", out_json_utf8(sp->map_path));
		} else {
			json_object_set_new(o, "placement_seed", json_integer((json_int_t)sp->seed));
			json_object_set_new(o, "ranks_per_node", json_integer(sp->ranks_per_node));
			json_object_set_new(o, "placement_inner",
					    json_string(sp->inner == PLACE_INNER_ROUND_ROBIN ? "round_robin" : "linear"));
		}
		json_object_set_new(o, "start_s", json_real((double)sp->start_ps / 1e12));
		json_object_set_new(o, "repeat", json_integer(sp->repeat));
		for (uint32_t r = 0; r < jb->n_ranks; r++)
			json_array_append_new(eps, json_integer(jb->ep[r]));
		json_object_set_new(o, "endpoints", eps);
		json_object_set_new(o, "alone", ifr_meas_json(&jb->alone));
		json_object_set_new(o, "shared", ifr_meas_json(&jb->shared));
		json_object_set_new(o, "slowdown", ifr_ratio(jb->shared.runtime_ps, jb->alone.runtime_ps));
		json_object_set_new(shift, "p50", ifr_ratio(jb->shared.lat.p50_ps, jb->alone.lat.p50_ps));
		json_object_set_new(shift, "p99", ifr_ratio(jb->shared.lat.p99_ps, jb->alone.lat.p99_ps));
		json_object_set_new(o, "latency_shift", shift);
		json_object_set_new(o, "link_use", json_integer((json_int_t)x->per_job[j]));
		json_object_set_new(o, "link_use_shared", json_integer((json_int_t)x->on_shared[j]));
		json_array_append_new(jobs, o);
	}
	session_json_head(doc, "interfere");
	json_object_set_new(doc, "workload", out_json_utf8(x->path));
	json_object_set_new(doc, "config", session_config_json(&x->s->cfg));
	json_object_set_new(res, "topology", out_json_utf8(x->t->spec));
	json_object_set_new(res, "backend", json_string(x->ops->name));
	json_object_set_new(res, "jobs", jobs);
	json_object_set(res, "links", x->links);
	json_object_set(res, "network", x->net_report);
	json_object_set_new(doc, "results", res);
	return doc;
}

/* Run i of the J + 1: job i alone, or for i = J all together. */
static int ifr_run_nth(void *ctx, size_t i, struct nl_err *err)
{
	struct ifr *x = ctx;
	const uint32_t J = x->w.n_jobs;
	return i < J ? ifr_run(x, (uint32_t)i, 1, false, NULL, err) : ifr_run(x, 0, J, true, NULL, err);
}

/* The runs one after another (each job alone, then all together), or on
 * up to x->o->jobs threads. There the shared run, the longest, is started
 * first, and a failure is the first failing run's in the sequential
 * order, whichever thread failed first (core/pool.h). */
static int ifr_run_all(struct ifr *x, struct nl_err *err)
{
	const uint32_t J = x->w.n_jobs;
	int rc = 0;
	if (x->o->jobs <= 1) {
		for (uint32_t j = 0; rc == 0 && j < J; j++)
			rc = ifr_run(x, j, 1, false, x->o->pg, err);
		return rc ? rc : ifr_run(x, 0, J, true, x->o->pg, err);
	}
	int rcs[PLACE_MAX_JOBS + 1];
	size_t order[PLACE_MAX_JOBS + 1];
	struct nl_err *errs = calloc((size_t)J + 1, sizeof *errs);
	if (!errs)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	order[0] = J;
	for (uint32_t j = 0; j < J; j++)
		order[j + 1] = j;
	/* The progress line counts the runs ("interfere: runs 2/4 (2
	 * running)", the caller's label): one line, not each run's own. */
	const struct pool_opts po = {
		.n = (size_t)J + 1, .threads = x->o->jobs, .order = order, .run = ifr_run_nth, .ctx = x,
		.pg = x->o->pg, .what = "runs", .place = NL_THREAD_POOL,
	};
	rc = pool_run(&po, rcs, errs, err);
	for (uint32_t i = 0; rc == 0 && i <= J; i++)
		if (rcs[i] < 0) {
			*err = errs[i];
			rc = rcs[i];
		}
	free(errs);
	return rc;
}

int session_interfere(nl_sim *s, const char *workload, const struct session_interfere_opts *o, json_t **doc,
		      struct nl_err *err)
{
	static const struct session_interfere_opts no_opts;
	struct ifr *x = calloc(1, sizeof *x);
	*doc = NULL;
	if (!x)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	x->s = s;
	x->path = workload;
	x->o = o ? o : &no_opts;
	/* The runs point the caller's progress line at x->label: its own
	 * label is given back before x goes. */
	const char *label = x->o->pg ? x->o->pg->label : NULL;
	int rc = ifr_setup(x, err);
	if (rc == 0)
		rc = ifr_run_all(x, err);
	if (rc == 0 && !(*doc = ifr_doc(x)))
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
	if (x->o->pg)
		x->o->pg->label = label;
	ifr_release(x);
	free(x);
	return rc;
}
