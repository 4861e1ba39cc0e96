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
#include "core/pool.h"
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
		bool trace_failed = false;
		struct session_replay_opts ro = {.on_app = cmp_on_app, .ctx = &cnt, .trace_failed = &trace_failed};
		struct nl_replay out = {.size = sizeof out};
		int rc = session_replay(sim, w->trace, &ro, &out, &err);
		/* The trace's fault (a stream that does not decompress, an op
		 * the app refuses) is named at the workload's key, as a trace
		 * that does not open is (cmp_validate) and as interfere names
		 * a job's; the message names the file and rank after it. */
		if (rc < 0 && trace_failed)
			rc = nl_err_prefix(&err, "%s:%d: [workload %s] key 'trace'", c->path, w->trace_line, w->name);
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
		 * results after the gather (cmp_gather). Workers write side by
		 * side: each entry is its own staged file, and the list of files
		 * staged for a signal takes any thread (core/staged.h). */
		if (c->rank == 0)
			cmp_cache_put(c, r);
	}
	nl_sim_free(sim);
}

/* Run k of this rank's on one of pool_run's threads: todo[k * ranks +
 * rank] (k itself in one process), then the progress line's count. The
 * cell keeps its own failure: the run never fails the pool. */
static int cmp_run_nth(void *ctx, size_t k, struct nl_err *err)
{
	(void)err;
	struct cmp *c = ctx;
	cmp_run_one(c, &c->runs[c->todo[k * c->size + c->rank]]);
	pthread_mutex_lock(&c->mu);
	c->done++;
	if (c->o->pg) {
		char d[64];
		snprintf(d, sizeof d, "run %u/%u", c->done, c->n_mine);
		progress_update(c->o->pg, (double)c->done / c->n_mine, d);
	}
	pthread_mutex_unlock(&c->mu);
	return 0;
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
	/* pool_run's statuses and lines, one per run of this rank at most. */
	int *rcs = calloc(c->n_runs ? c->n_runs : 1, sizeof *rcs);
	struct nl_err *errs = calloc(c->n_runs ? c->n_runs : 1, sizeof *errs);
	if (rc == 0 && (!c->runs || !c->todo || !rcs || !errs))
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
	if ((rc = net_mpi_agree(c->o->mpi, rc, err)) < 0) {
		free(rcs);
		free(errs);
		return rc;
	}
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
	/* This rank's runs on up to -j threads (65 at most, the calling one
	 * included), in index order; a thread that cannot start leaves its
	 * runs to the others ("the study's replays" in the warning). No run
	 * fails the pool: pool_run fails only when out of memory, before
	 * any run, which every rank must know before the gather. */
	pthread_mutex_init(&c->mu, NULL);
	const unsigned jobs = c->o->jobs ? c->o->jobs : 1;
	const struct pool_opts po = {.n = c->n_mine,
				     .threads = jobs < 65 ? jobs : 65,
				     .run = cmp_run_nth,
				     .ctx = c,
				     .what = "study's replays",
				     .place = NL_THREAD_REPLAYS};
	rc = pool_run(&po, rcs, errs, err);
	pthread_mutex_destroy(&c->mu);
	free(rcs);
	free(errs);
	NL_CHECK(net_mpi_agree(c->o->mpi, rc, err));
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
			free(c->sys[i].kv[k].given);
		}
	}
	for (uint32_t i = 0; i < c->n_wl; i++) {
		free(c->wl[i].name);
		free(c->wl[i].trace);
		free(c->wl[i].trace_given);
		free(c->wl[i].placement);
	}
	free(c->backend);
	free(c->abs_dir);
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
	path_dir_of(study, c->dir, sizeof c->dir);
	c->rank = net_mpi_rank(o->mpi);
	c->size = net_mpi_size(o->mpi);
	FILE *f;
	int rc = nl_open_input(study, "study file", &f, err);
	if (!rc) {
		struct stat st;
		c->abs_dir = path_file_folder(study, fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode));
		c->src.f = f;
		c->src.empty_section = cmp_empty_section;
		c->src.empty_ctx = c;
		static const char *const name_kinds[] = {"system", "workload", NULL};
		c->src.rd.name_kinds = name_kinds;
		int line = ini_lines_parse(&c->src, cmp_ini_any, c);
		fclose(f);
		if (line > 0 && c->src.rd.why[0])
			cmp_problem(c, "%s:%d: %s", study, line, c->src.rd.why);
		else if (line > 0 && line == c->src.rd.bad_line) {
			char shown[INI_LINES_BAD_QUOTE_MAX];
			ini_lines_bad_quote(&c->src.rd, shown, sizeof shown);
			cmp_problem(c, "%s:%d: %s: expected 'key = value' or a [section]", study, line, shown);
		} else if (line > 0) {
			cmp_problem(c, "%s:%d: expected 'key = value' or a [section]", study, line);
		}
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
