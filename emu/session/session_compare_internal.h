/* Internals of `netloom compare` (emu/session/session_compare*.c): the
 * study as read and validated, its runs, and the report built from them. */
#ifndef NETLOOM_SESSION_COMPARE_INTERNAL_H
#define NETLOOM_SESSION_COMPARE_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>

#include "core/error.h"
#include "core/ini_lines.h"
#include "layout/layout.h"
#include "session/session.h"

#define CMP_MAX_SYS 32
#define CMP_MAX_WL 32
#define CMP_MAX_KEYS 32
#define CMP_MAX_SEEDS 64
#define CMP_TOP_LINKS 10          /* busiest links reported per (system, workload) */

struct cmp_kv {
	char *key, *value;
	char *given; /* the value as written, when value resolved its file names */
	int line;
};

struct cmp_sys {
	char *name;
	int line;                  /* of its [system NAME] header: where a key it lacks is missing */
	char *config;              /* resolved path, or NULL */
	int config_line;
	struct cmp_kv kv[CMP_MAX_KEYS];
	uint32_t n_kv;
	/* After validation. */
	uint32_t endpoints;
	char *topology;
	char *routing;             /* its own routing_function, or the family's default */
	char *path_select;         /* its analytic path_select (spread, first) */
	/* Why the backend does not see its topology (session_topology_unused,
	 * a static string), or NULL: its runtimes do not depend on it. */
	const char *topology_unused;
	/* Its router-to-router ports, as the topology numbers them (port g):
	 * owning router, port on it, peer router, link class name; for the
	 * busiest links of the report (n_ports 0: none kept). */
	uint32_t n_ports;
	uint32_t *port_router, *port_local, *port_peer;
	const char **port_class;
	/* Cost and power: cached apart from the replays (key cost_key), under
	 * the layout of cmp_sys_layout: the study's preset and the packaging
	 * rule's floor order, but for the [layout] keys the system sets. */
	struct layout_cfg layout;
	bool has_layout_keys;      /* it sets one of them (inline or in its config file) */
	char cost_rule[32];        /* the packaging rule that packed it */
	bool cost_annealed;        /* its cabinets placed on the floor by annealing */
	char cost_key[20];
	bool cost_cached;
	struct layout_summary cost;
	bool cost_ok;
	char cost_err[NL_ERR_MSG_MAX];
};

struct cmp_wl {
	char *name;
	int line;                  /* of its [workload NAME] header */
	char *trace;               /* resolved path */
	char *trace_given;         /* as the study file writes it, for messages */
	int trace_line;
	uint32_t ranks;            /* 0: as the trace */
	double weight;
	char *placement;
	int ranks_line, placement_line; /* 0: not in the file */
	/* After validation. */
	uint64_t trace_hash;       /* XXH64 of the archive's bytes */
	uint32_t trace_ranks;
	/* Its placement draws from the seed (place_ops.uses_seed): each seed
	 * replays. Else nothing a replay runs reads the seed (the flit
	 * network's draws are keyed by the system's key `seed`, which the
	 * study does not vary), so seed 1's replay is every seed's result. */
	bool uses_seed;
};

/* One replay: system s, workload w, seed index k. */
struct cmp_run {
	uint32_t s, w, k;
	int status;                /* 0 ok, 1 deadlock, 2 error */
	double runtime_s;
	double comm_share;         /* session_comm_share of the replay */
	bool cached;
	bool reused;               /* seed 1's result, not replayed (its workload's uses_seed false) */
	char key[20];
	char err[NL_ERR_MSG_MAX];
	/* Link use of the replay: (port, count) for every router-to-router
	 * port used, in port order; unit "flits" or "bytes"; links_why when
	 * the backend could not count (n_links 0). */
	uint32_t n_links;
	uint64_t (*links)[2];
	char links_unit[8];
	char links_why[NL_ERR_MSG_MAX];
};

struct cmp {
	const char *path;
	char dir[1024];            /* of the study file: relative paths start here */
	char *abs_dir;             /* the same folder made absolute; NULL: none (a pipe) */
	char *backend, *preset, *reference;
	int backend_line, preset_line, reference_line; /* 0: not in the file (the default) */
	uint32_t n_seeds;
	struct cmp_sys sys[CMP_MAX_SYS];
	uint32_t n_sys;
	struct cmp_wl wl[CMP_MAX_WL];
	uint32_t n_wl;
	char section[128];         /* the section being read */
	struct ini_lines src;      /* the study file while it is read: its line and headers */
	int section_headers;       /* src.headers when the section being read began (ini_lines.h) */
	struct cmp_sys *cur_sys;   /* the system the section being read defines, or NULL */
	struct cmp_wl *cur_wl;     /* the workload it defines, or NULL */
	struct ini_keys sec_keys;  /* the keys of the section being read, for "given twice" */
	int study_line;            /* header of the [study] section, 0 none yet */
	char *problems;            /* one line each */
	size_t n_problems, len_problems;
	/* Runs. */
	struct cmp_run *runs;
	uint32_t n_runs;
	uint32_t *todo;            /* indices into runs of those replayed: all but the reused */
	uint32_t n_todo;
	const struct session_compare_opts *o;
	pthread_mutex_t mu;        /* the cache's writes and the progress line, from pool_run's threads */
	uint32_t done;             /* runs of this rank done, for the progress line */
	uint32_t rank, size;       /* MPI: this rank runs todo[i], i = rank mod size (0 and 1 alone) */
	uint32_t n_mine;           /* how many that is */
	uint32_t cost_evaluated;   /* systems priced in this run (not from the cache) */
};

static inline uint64_t cmp_seed(uint32_t k)
{
	return (uint64_t)k + 1;
}

/* The study file (session_compare_study.c). cmp_problem: one more line
 * for the list of the study's problems, all said together; cmp_ini_any
 * and cmp_empty_section: ini_lines' callbacks (a key, a header with no
 * keys) that fill c; cmp_backend_ok: a backend a study may name. */
void cmp_problem(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cmp_ini_any(void *user, const char *section, const char *name, const char *value);
void cmp_empty_section(void *ctx, const char *name, int line, int index);
bool cmp_backend_ok(const char *backend);
/* The validation (session_compare_check.c). cmp_sys_sim: a session for
 * system s under the study's backend, its config file and keys set;
 * cmp_hash_file: XXH64 of a file's bytes; cmp_validate: every system
 * against every workload, problems by cmp_problem, nothing run. */
int cmp_sys_sim(const struct cmp *c, const struct cmp_sys *s, nl_sim **out, struct nl_err *err);
int cmp_hash_file(const char *path, uint64_t *h, struct nl_err *err);
void cmp_validate(struct cmp *c);

/* The report: report.json's document and report.md's text (NULL when
 * out of memory). */
json_t *cmp_doc(const struct cmp *c);
char *cmp_md(const struct cmp *c);
/* The caches (session_compare_cache.c). cmp_key: the replay's key from
 * its session's resolved configuration (routing_function set to the
 * routing that will run; the topology, which it builds, as its canonical
 * spec; every file named, placement_map, calibration and a topology's
 * file=, as the hash of its contents, never its path), workload w, seed
 * and the identity of the build that runs it (version_build());
 * cmp_cache_get fills r from the cache (false: a miss), cmp_cache_put
 * stores it. cmp_cost_key: the cost key of topology spec (the files it
 * names by their contents) laid out and priced as lc says (preset, rule,
 * per-cabinet count, placement and, unless that is the rule's order, the
 * annealing's budget and seed) by build. cmp_sys_cost: system s's cost
 * and power under the layout of its configuration cfg (cmp_sys_layout),
 * from the cost cache, else computed (read only: run before anything is
 * written); -1 with err set when the system's own layout keys do not lay
 * its topology out (a problem of the study, not a cost error);
 * cmp_cost_put stores them. */
int cmp_key(nl_sim *sim, const struct cmp_wl *w, uint64_t seed, const char *build, char key[20],
	    struct nl_err *err);
bool cmp_cache_get(const struct cmp *c, struct cmp_run *r);
/* Whether a system key's value names a file the replay reads
 * (placement_map, calibration): relative to the study file's folder, as
 * every path of a study, and its bytes are part of the cache key. */
bool cmp_is_file_key(const char *name);
void cmp_cache_put(const struct cmp *c, const struct cmp_run *r);
void cmp_cost_key(const char *spec, const struct layout_cfg *lc, const char *build, char key[20]);
struct topo;
struct config;
int cmp_sys_cost(const struct cmp *c, struct cmp_sys *s, const struct topo *t, const struct config *cfg,
		 struct nl_err *err);
void cmp_cost_put(const struct cmp *c, const struct cmp_sys *s);

/* The busiest links of a (workload w, system s) cell summed over its
 * seeds, as report.json has them (NULL when out of memory). */
json_t *cmp_links_json(const struct cmp *c, uint32_t w, uint32_t s);

#endif
