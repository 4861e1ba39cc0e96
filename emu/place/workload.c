/* The workload file of `netloom interfere` (issue 13, docs/placement.md):
 * jobs, each a trace with its placement, start time and repeat count.
 *
 * INI: an optional [workload] section (seed: every job's default
 * placement seed), then one [job NAME] section per job, in the order the
 * jobs are placed: a trace, or a synthetic pattern (app.h APP_SYNTH_*). Every value is checked here, so a bad file fails before
 * anything runs, with one line naming file, line, section, key, value and
 * what was expected. Relative paths are relative to the workload file.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "core/ini_lines.h"
#include "core/param.h"
#include "core/path.h"
#include "place/place.h"

/* A job's first key of a synthetic job (ranks, bytes, interval_s, steps),
 * line 0 for none: a traced job setting one is refused at that key, its
 * value named, as every problem of the file is (docs/placement.md). */
struct wl_synth_key {
	int line;
	char key[16];
	char value[128];  /* as given (a number once the key is checked), cut past 127 characters */
};

struct wl_ctx {
	struct place_workload *w;
	const char *path;
	struct ini_lines src;  /* the file, its line (the handler's) and headers */
	char dir[4096];        /* the file's folder (path_dir_of), "" for the working directory */
	struct nl_err *err;
	int rc;
	/* The section being read, and src.headers when it began: a header
	 * repeating the last one ("[job A]" twice in a row) reads as more keys
	 * of that section otherwise (ini_lines.h). */
	char cur[128];
	int cur_headers;
	struct place_job_spec *job; /* the job of the section being read, NULL for none */
	struct ini_keys keys; /* the keys set, for "given twice" */
	struct wl_synth_key synth_key[PLACE_MAX_JOBS]; /* of each job */
};

/* A key set twice in one section: the last one won silently. */
static bool wl_twice(struct wl_ctx *x, const char *section, const char *key)
{
	int first = ini_keys_seen(&x->keys, section, key, x->src.line);
	if (first < 0)
		x->rc = nl_errf(x->err, NL_ENOMEM, "%s:%d: out of memory", x->path, x->src.line);
	else if (first > 0)
		x->rc = nl_errf(x->err, NL_ECONFIG, "%s:%d: [%s] key '%s' given twice (first at line %d); expected each key once",
				x->path, x->src.line, section, key, first);
	return first != 0;
}

static int wl_bad(struct wl_ctx *x, const char *section, const char *key, const char *value, const char *expected)
{
	x->rc = nl_errf(x->err, NL_ECONFIG, "%s:%d: [%s] key '%s': value '%s': expected %s", x->path, x->src.line,
			section, key, value, expected);
	return 0;
}

/* A key no section of its kind reads, refused with the keys it has
 * (`expected`) and, when the key is a typo of one of them (config_name_near:
 * 'placment', 'start' for start_s), that one: a config file's unknown key
 * had the suggestion, a workload's not. */
static int wl_bad_key(struct wl_ctx *x, const char *section, const char *key, const char *value,
		      const char *expected, const char *const *keys, size_t n_keys)
{
	const char *near = config_name_near(key, strlen(key), keys, n_keys);
	x->rc = nl_errf(x->err, NL_ECONFIG, "%s:%d: [%s] key '%s': value '%s': expected %s%s%s%s", x->path,
			x->src.line, section, key, value, expected, near ? " (did you mean '" : "", near ? near : "",
			near ? "'?)" : "");
	return 0;
}

/* A job's keys, as the message for an unknown one lists them: the first
 * WL_N_ANY_JOB_KEYS any job's, the rest a synthetic job's. */
static const char *const wl_job_keys[] = {
	"trace", "placement", "placement_seed", "ranks_per_node", "placement_inner", "placement_map", "start_s",
	"repeat",
	"synthetic", "ranks", "bytes", "interval_s", "steps",
};
enum { WL_N_ANY_JOB_KEYS = 8 };

static int wl_bad_job_key(struct wl_ctx *x, const char *section, const char *key, const char *value)
{
	char expected[256] = "a job key: ";
	for (size_t i = 0; i < sizeof wl_job_keys / sizeof *wl_job_keys; i++)
		snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s",
			 i == WL_N_ANY_JOB_KEYS ? "; or for a synthetic job " : i ? ", " : "", wl_job_keys[i]);
	return wl_bad_key(x, section, key, value, expected, wl_job_keys, sizeof wl_job_keys / sizeof *wl_job_keys);
}

/* A seed: 0..2^53, the bound of a replay's key placement_seed
 * (app_config.c), so the JSON's placement_seed (a signed 64-bit integer)
 * holds it exactly, also for readers keeping numbers as doubles. Refused
 * in a replay's words. */
static bool wl_seed(struct wl_ctx *x, const char *section, const char *key, const char *value, uint64_t *out)
{
	const uint64_t max = UINT64_C(1) << 53;
	if (param_strtou_in(value, 0, max, out))
		return true;
	if (!*value || value[strspn(value, "0123456789")])
		return wl_bad(x, section, key, value, "an unsigned integer");
	x->rc = nl_errf(x->err, NL_ECONFIG, "%s:%d: [%s] key '%s': value '%s' out of range: expected a value in 0..%" PRIu64,
			x->path, x->src.line, section, key, value, max);
	return false;
}

/* A path relative to the workload file's folder (absolute ones stay). */
static char *wl_path(const struct wl_ctx *x, const char *v)
{
	return path_in_dir(x->dir, v);
}

static int wl_set_path(struct wl_ctx *x, char **dst, const char *value)
{
	free(*dst);
	*dst = wl_path(x, value);
	if (!*dst)
		x->rc = nl_errf(x->err, NL_ENOMEM, "%s: out of memory", x->path);
	return 0;
}

/* A placement no policy has: the policies, and the one the value is a
 * typo of ('sprad': spread), as for a mistyped key. */
static int wl_bad_policy(struct wl_ctx *x, const char *section, const char *key, const char *value)
{
	enum { WL_POLICIES_WEIGHED = 32 }; /* a registry of a few; past this many the rest are not weighed */
	const char *names[WL_POLICIES_WEIGHED];
	char expected[600] = "one of ";
	size_t n;
	const struct place_ops *const *all = place_list(&n);
	for (size_t i = 0; i < n; i++) {
		snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s", i ? ", " : "",
			 all[i]->name);
		if (i < WL_POLICIES_WEIGHED)
			names[i] = all[i]->name;
	}
	const char *near = config_name_near(value, strlen(value), names, n < WL_POLICIES_WEIGHED ? n : WL_POLICIES_WEIGHED);
	if (near)
		snprintf(expected + strlen(expected), sizeof expected - strlen(expected), " (did you mean '%s'?)", near);
	return wl_bad(x, section, key, value, expected);
}

static int wl_job_key(struct wl_ctx *x, struct place_job_spec *j, const char *section, const char *key,
		      const char *value)
{
	uint64_t u;
	struct wl_synth_key *sk = &x->synth_key[j - x->w->jobs];
	if (!sk->line && (!strcmp(key, "ranks") || !strcmp(key, "bytes") || !strcmp(key, "interval_s") ||
			  !strcmp(key, "steps"))) {
		sk->line = x->src.line;
		snprintf(sk->key, sizeof sk->key, "%s", key);
		snprintf(sk->value, sizeof sk->value, "%s", value);
	}
	if (!strcmp(key, "trace")) {
		if (!*value)
			return wl_bad(x, section, key, value, "a trace file (any format netloom replay reads)");
		j->trace_line = x->src.line;
		return wl_set_path(x, &j->trace, value);
	}
	if (!strcmp(key, "placement")) {
		if (!place_find(value, NULL))
			return wl_bad_policy(x, section, key, value);
		snprintf(j->policy, sizeof j->policy, "%s", value);
		j->placement_line = x->src.line;
		return 0;
	}
	if (!strcmp(key, "placement_seed")) {
		if (wl_seed(x, section, key, value, &u)) {
			j->seed = u;
			j->has_seed = true;
			j->seed_line = x->src.line;
		}
		return 0;
	}
	if (!strcmp(key, "ranks_per_node")) {
		_Static_assert(APP_MAX_RANKS_PER_NODE == 1048576, "the range said below");
		if (!param_strtou_in(value, 1, APP_MAX_RANKS_PER_NODE, &u))
			return wl_bad(x, section, key, value, "an integer 1..1048576");
		j->ranks_per_node = (uint32_t)u;
		j->per_node_line = x->src.line;
		return 0;
	}
	if (!strcmp(key, "placement_inner")) {
		if (!strcmp(value, "linear"))
			j->inner = PLACE_INNER_LINEAR;
		else if (!strcmp(value, "round_robin"))
			j->inner = PLACE_INNER_ROUND_ROBIN;
		else
			return wl_bad(x, section, key, value, "linear or round_robin");
		j->inner_line = x->src.line;
		return 0;
	}
	if (!strcmp(key, "placement_map")) {
		if (!*value)
			return wl_bad(x, section, key, value, "a map file (rank endpoint per line)");
		j->map_line = x->src.line;
		return wl_set_path(x, &j->map_path, value);
	}
	if (!strcmp(key, "start_s")) {
		char *end;
		errno = 0;
		double d = param_strtod(value, &end);
		if (!*value || *end || errno || !(d >= 0) || d > 1e6)
			return wl_bad(x, section, key, value, "seconds, 0..1e6");
		j->start_ps = (uint64_t)llround(d * 1e12);
		return 0;
	}
	if (!strcmp(key, "repeat")) {
		if (!param_strtou_in(value, 1, 1000000, &u))
			return wl_bad(x, section, key, value, "an integer 1..1000000 (times the trace runs back to back)");
		j->repeat = (uint32_t)u;
		return 0;
	}
	if (!strcmp(key, "synthetic")) {
		j->synthetic = app_synth_pattern_find(value);
		if (j->synthetic < 0) {
			/* The pattern the value is a typo of ('Ring', 'shfit'), as for a policy. */
			const char *names[APP_SYNTH_RING + 1];
			for (int i = 0; i <= APP_SYNTH_RING; i++)
				names[i] = app_synth_pattern_name(i);
			const char *near = config_name_near(value, strlen(value), names, APP_SYNTH_RING + 1);
			char expected[96];
			snprintf(expected, sizeof expected, "a synthetic pattern: alltoall, shift or ring%s%s%s",
				 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
			return wl_bad(x, section, key, value, expected);
		}
		return 0;
	}
	if (!strcmp(key, "ranks")) {
		if (!param_strtou_in(value, 1, APP_JOBS_MAX_RANKS, &u))
			return wl_bad(x, section, key, value, "an integer 1..16777215 (the synthetic job's ranks)");
		j->synth_ranks = (uint32_t)u;
		return 0;
	}
	if (!strcmp(key, "bytes")) {
		if (!param_strtou_in(value, 0, UINT64_C(1) << 40, &u))
			return wl_bad(x, section, key, value, "bytes per exchange, 0..2^40");
		j->synth_bytes = u;
		return 0;
	}
	if (!strcmp(key, "steps")) {
		if (!param_strtou_in(value, 1, UINT32_MAX, &u))
			return wl_bad(x, section, key, value, "an integer 1..4294967295 (exchanges per rank)");
		j->synth_steps = u;
		return 0;
	}
	if (!strcmp(key, "interval_s")) {
		char *end;
		errno = 0;
		double d = param_strtod(value, &end);
		if (!*value || *end || errno || !(d >= 0) || d > 1e3)
			return wl_bad(x, section, key, value, "seconds, 0..1e3 (compute before each exchange)");
		j->synth_interval_ps = (uint64_t)llround(d * 1e12);
		return 0;
	}
	return wl_bad_job_key(x, section, key, value);
}

/* A section begins (its header at line, the index-th header of the file):
 * registered even when no key follows, so an empty [job NAME] is refused
 * for its missing trace and an empty unknown section as unknown, rather
 * than dropped. The job of a [job NAME] section in *out (NULL for
 * [workload] and on error). */
static void wl_section(struct wl_ctx *x, const char *section, int line, int index, struct place_job_spec **out)
{
	struct place_workload *w = x->w;
	*out = NULL;
	x->cur_headers = index;
	snprintf(x->cur, sizeof x->cur, "%s", section);
	if (x->rc < 0 || !strcmp(section, "workload"))
		return;
	/* The name without the blanks around it, as compare reads its
	 * names: "[job  A ]" was a job ' A ' beside a job 'A'. */
	char name[128];
	if (!ini_lines_section_name(section, "job", name, sizeof name) || !name[0]) {
		static const char *const kinds[] = {"workload", "job NAME"};
		char near[INI_LINES_NAME_MAX + 8];
		bool has_near = ini_lines_section_near(section, kinds, 2, near, sizeof near);
		x->rc = nl_errf(x->err, NL_ECONFIG, "%s:%d: section [%s]: expected [workload] or [job NAME]%s%s%s",
				x->path, line, section, has_near ? " (did you mean " : "", has_near ? near : "",
				has_near ? "?)" : "");
		return;
	}
	for (uint32_t i = 0; i < w->n_jobs; i++)
		if (!strcmp(w->jobs[i].name, name)) {
			x->rc = nl_errf(x->err, NL_ECONFIG,
					"%s:%d: section [%s]: job '%s' given twice; expected one section per job", x->path,
					line, section, name);
			return;
		}
	struct place_job_spec *j = NULL;
	/* No length check: the reader refused a section name past
	 * INI_LINES_NAME_MAX - 1 characters at its header, so NAME, after
	 * "job ", has at most 45 (docs/placement.md), and fits. */
	_Static_assert(sizeof j->name >= INI_LINES_NAME_MAX - 4, "a job name the reader lets through fits");
	if (w->n_jobs == PLACE_MAX_JOBS) {
		x->rc = nl_errf(x->err, NL_ECONFIG, "%s:%d: section [%s]: expected at most %d jobs", x->path, line,
				section, PLACE_MAX_JOBS);
		return;
	}
	j = &w->jobs[w->n_jobs++];
	memset(j, 0, sizeof *j);
	snprintf(j->name, sizeof j->name, "%s", name);
	snprintf(j->policy, sizeof j->policy, "contiguous");
	j->ranks_per_node = 1;
	j->repeat = 1;
	j->line = line;
	j->synthetic = -1;
	j->synth_bytes = 65536;
	j->synth_steps = 100;
	*out = j;
}

static int wl_handle(void *user, const char *section, const char *key, const char *value)
{
	struct wl_ctx *x = user;
	struct place_workload *w = x->w;
	if (x->rc < 0)
		return 0;
	/* a new section (inih reports sections with their first key) */
	if (strcmp(section, x->cur) || x->src.headers != x->cur_headers) {
		wl_section(x, section, x->src.header_line, x->src.headers, &x->job);
		/* the first key's line: where a keyed job's missing keys are reported */
		if (x->job)
			x->job->line = x->src.line;
	}
	if (x->rc < 0)
		return 0;
	/* Messages name a job as it runs: "[job  A ]" is [job A]. */
	char sec[sizeof x->job->name + 4];
	snprintf(sec, sizeof sec, "%s%s", x->job ? "job " : "", x->job ? x->job->name : section);
	if (x->src.is_misindented) {
		char msg[NL_ERR_MSG_MAX];
		ini_lines_misindented_msg(msg, sizeof msg, sec, key, value);
		x->rc = nl_errf(x->err, NL_ECONFIG, "%s:%d: %s", x->path, x->src.line, msg);
		return 0;
	}
	if (!strcmp(section, "workload")) {
		uint64_t u;
		if (wl_twice(x, section, key))
			return 0;
		if (strcmp(key, "seed")) {
			static const char *const keys[] = {"seed"};
			return wl_bad_key(x, section, key, value, "a [workload] key: seed", keys, 1);
		}
		if (wl_seed(x, section, key, value, &u)) {
			w->seed = u;
			w->seed_line = x->src.line;
		}
		return 0;
	}
	if (!x->job) {
		/* A key before the first header belongs to no job: it was
		 * dropped silently ("foo = 1", or a job key misplaced). */
		if (!x->src.headers)
			x->rc = nl_errf(x->err, NL_ECONFIG,
					"%s:%d: key '%s' before any section; expected it under [workload] or [job NAME]",
					x->path, x->src.line, key);
		return 0;
	}
	if (wl_twice(x, sec, key))
		return 0;
	return wl_job_key(x, x->job, sec, key, value);
}

/* ini_lines' empty_section: a header with no keys (inih never reports it). */
static void wl_empty_section(void *ctx, const char *name, int line, int index)
{
	struct wl_ctx *x = ctx;
	wl_section(x, name, line, index, &x->job);
}

/* inih's handler: errors are in x->rc (the first one kept), so inih's own
 * "handler failed" line number never replaces them. */
static int wl_handler(void *user, const char *section, const char *key, const char *value)
{
	wl_handle(user, section, key, value);
	return 1;
}

void place_workload_release(struct place_workload *w)
{
	for (uint32_t i = 0; i < w->n_jobs; i++) {
		free(w->jobs[i].trace);
		free(w->jobs[i].map_path);
	}
	memset(w, 0, sizeof *w);
}

int place_workload_read(const char *path, struct place_workload *w, struct nl_err *err)
{
	memset(w, 0, sizeof *w);
	w->seed = 1;
	struct wl_ctx x = {.w = w, .path = path, .err = err};
	path_dir_of(path, x.dir, sizeof x.dir);
	NL_CHECK(nl_open_input(path, "workload file", &x.src.f, err));
	x.src.empty_section = wl_empty_section;
	x.src.empty_ctx = &x;
	static const char *const name_kinds[] = {"job", NULL};
	x.src.rd.name_kinds = name_kinds;
	int line = ini_lines_parse(&x.src, wl_handler, &x);
	fclose(x.src.f);
	ini_keys_release(&x.keys);
	int rc = x.rc;
	if (rc == 0 && line > 0 && x.src.rd.why[0])
		rc = nl_errf(err, NL_ECONFIG, "%s:%d: %s", path, line, x.src.rd.why);
	else if (rc == 0 && line > 0)
		rc = nl_errf(err, NL_ECONFIG, "%s:%d: expected 'key = value', '[job NAME]' or a comment", path, line);
	else if (rc == 0 && line == -2)
		rc = nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	else if (rc == 0 && line < 0)
		rc = nl_errf(err, NL_EIO, "%s: cannot read workload file", path);
	else if (rc == 0 && w->n_jobs == 0)
		rc = nl_errf(err, NL_ECONFIG, "%s: no [job NAME] section; expected at least one job", path);
	for (uint32_t i = 0; rc == 0 && i < w->n_jobs; i++) {
		struct place_job_spec *j = &w->jobs[i];
		if (!j->trace && j->synthetic < 0)
			rc = nl_errf(err, NL_ECONFIG,
				     "%s:%d: [job %s] key 'trace': missing; expected a trace file (or key 'synthetic')", path,
				     j->line, j->name);
		else if (j->trace && j->synthetic >= 0)
			rc = nl_errf(err, NL_ECONFIG,
				     "%s:%d: [job %s] keys 'trace' and 'synthetic': expected one of them, not both", path,
				     j->line, j->name);
		else if (j->synthetic >= 0 && !j->synth_ranks)
			rc = nl_errf(err, NL_ECONFIG, "%s:%d: [job %s] key 'ranks': missing; expected the synthetic job's ranks",
				     path, j->line, j->name);
		else if (j->synthetic < 0 && x.synth_key[i].line)
			rc = nl_errf(err, NL_ECONFIG,
				     "%s:%d: [job %s] key '%s': value '%s': ranks, bytes, interval_s and steps describe a "
				     "synthetic job; expected key 'synthetic' with them",
				     path, x.synth_key[i].line, j->name, x.synth_key[i].key, x.synth_key[i].value);
		/* A map under another policy was read and ignored: the job
		 * ran placed by that policy, its map file unread. */
		else if (place_check_map(j->policy, j->placement_line != 0, j->map_path, err) < 0)
			rc = nl_err_prefix(err, "%s:%d: [job %s] key 'placement_map'", path,
					   j->map_path ? j->map_line : j->line, j->name);
		if (!j->has_seed)
			j->seed = w->seed;
	}
	if (rc < 0)
		place_workload_release(w);
	return rc;
}
