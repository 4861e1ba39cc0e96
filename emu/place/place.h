/* Job placement: which endpoints a job's ranks run on (issue 13).
 *
 * A placement policy is a `const struct place_ops` registered by name in
 * registry.c. place_job() asks the policy for the job's nodes (distinct
 * free endpoints), then maps ranks onto them (`ranks_per_node` ranks per
 * node, linearly or round-robin). Policies are pure functions of the
 * topology, the request and the seed: the same request gives the same
 * endpoints, whatever else runs. Nothing here simulates: workload files
 * (`netloom interfere`'s jobs) are read here, and the session layer runs
 * them (emu/session/session_interfere.c).
 */
#ifndef NETLOOM_PLACE_PLACE_H
#define NETLOOM_PLACE_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nl_err;
struct topo;

/* How ranks go onto the job's nodes. */
enum place_inner {
	PLACE_INNER_LINEAR = 0,   /* ranks 0..r-1 on node 0, r..2r-1 on node 1, ... */
	PLACE_INNER_ROUND_ROBIN,  /* rank i on node i mod n_nodes */
};

/* One job's request. The caller owns every array. */
struct place_req {
	const struct topo *t;
	uint32_t n_ranks;
	uint32_t ranks_per_node;  /* ranks sharing one endpoint; 0 = 1 */
	enum place_inner inner;
	uint64_t seed;            /* random policies: stream (seed, RNG_CLASS_PLACEMENT, PLACE_STREAM + job) */
	uint32_t job;             /* job index: independent streams per job */
	const uint8_t *busy;      /* [n_endpoints] nonzero = taken by another job; NULL = all free */
	const uint32_t *group;    /* [n_routers] group (cabinet) of each router; NULL = place_router_group() */
	const char *map_path;     /* the `map` policy's file */
};

/* Random streams of job placement start here, clear of the floor
 * annealing's trial streams (emu/layout) in the same class. */
#define PLACE_STREAM (UINT64_C(1) << 40)

/* A policy: fill nodes[0 .. n_nodes-1] with distinct free endpoints in the
 * order the job's nodes are numbered. */
struct place_ops {
	const char *name;   /* "contiguous" */
	const char *help;   /* one line */
	/* It draws from req->seed (random-node, random-router): another seed
	 * may give other endpoints. The others give the same ones whatever
	 * the seed, so a caller repeating a job over seeds (`netloom
	 * compare`) can place it once. */
	bool uses_seed;
	int (*place)(const struct place_req *req, uint32_t n_nodes, uint32_t *nodes, struct nl_err *err);
};

/* All policies in registry order; *n gets the count. */
const struct place_ops *const *place_list(size_t *n);

/* Policy by name, or NULL with *err listing the valid names. */
const struct place_ops *place_find(const char *name, struct nl_err *err);

/* Place one job: endpoint[rank] for every rank (n_ranks entries, caller's
 * array). Fails, writing nothing the caller can use, when fewer than
 * ceil(n_ranks / ranks_per_node) endpoints are free, or when the policy's
 * input (map file) is wrong; *err names the file, line, field and value
 * of a map, else says what the job needs, without naming the key or job:
 * the caller, which knows them, prefixes that. */
int place_job(const struct place_ops *ops, const struct place_req *req, uint32_t *endpoint, struct nl_err *err);

/* placement and placement_map agree: placement = map needs a map file,
 * and no other policy reads one (it would be ignored, the job placed by
 * that policy). `policy` is the placement in force, `is_set` false when
 * it is the default nobody set; `map` the file, or NULL or "" when unset.
 * 0, or NL_ECONFIG with one line in *err ("value 'a.map': only placement
 * = map reads it, ..."), to which the caller adds the key and where
 * ("wl.ini:3: [job A] key 'placement_map'", "-s: key 'placement_map'"). */
int place_check_map(const char *policy, bool is_set, const char *map, struct nl_err *err);

/* The group a router belongs to when the request gives none: the
 * family's own cabinet rule when it has one (topo_router_cabinet: FleX
 * rack, HyperX enclosure, ...), else its dragonfly group, else 16 routers
 * in id order. */
uint32_t place_router_group(const struct topo *t, uint32_t r);

/* Parse a map file ("rank endpoint" per line, '#' comments, every rank
 * 0..n_ranks-1 exactly once, endpoints below n_endpoints; several ranks may
 * share one, as ranks_per_node > 1 does) into endpoint[n_ranks]. */
int place_read_map(const char *path, uint32_t n_ranks, uint32_t n_endpoints, uint32_t *endpoint,
		   struct nl_err *err);

/* --- workloads (`netloom interfere`, docs/placement.md) ------------------ */

#define PLACE_MAX_JOBS 64

/* One [job NAME] section of a workload file. */
struct place_job_spec {
	char name[64];            /* NAME */
	char *trace;              /* trace path, resolved against the workload file's folder (owned); NULL: synthetic */
	char policy[32];          /* placement policy, default contiguous */
	char *map_path;           /* the map policy's file (owned), or NULL */
	uint64_t seed;            /* placement_seed, default [workload] seed (1) */
	bool has_seed;
	uint32_t ranks_per_node;  /* default 1 */
	enum place_inner inner;   /* placement_inner, default linear */
	uint64_t start_ps;        /* start_s: when the job's ranks begin */
	uint32_t repeat;          /* times the trace runs back to back, default 1 */
	int line;                 /* line of the section's first key, for messages */
	/* Lines of the keys a problem found after the file is read names
	 * (a trace that cannot be opened, a placement or map that fails),
	 * or a key the job's placement does not read (a placement_seed
	 * under a policy that draws nothing, placement_inner with one rank
	 * per node, ranks_per_node or placement_inner under map), 0 when the
	 * key is not set. */
	int trace_line, placement_line, map_line, seed_line, per_node_line, inner_line;
	/* A synthetic job instead of a trace (key `synthetic`, app.h
	 * APP_SYNTH_*; -1 for a traced job): ranks, bytes per exchange, the
	 * compute interval before each exchange and the number of steps. */
	int synthetic;
	uint32_t synth_ranks;     /* required for a synthetic job */
	uint64_t synth_bytes;     /* default 65536 */
	uint64_t synth_interval_ps; /* interval_s, default 0 */
	uint64_t synth_steps;     /* default 100 */
};

struct place_workload {
	uint64_t seed;            /* [workload] seed */
	int seed_line;            /* its line, 0 when not set (a seed no job draws from is warned of) */
	uint32_t n_jobs;
	struct place_job_spec jobs[PLACE_MAX_JOBS]; /* in file order: the order jobs are placed */
};

/* Read and check a workload file (INI, docs/placement.md "Workload
 * files"). On failure *w holds nothing and *err names file, line,
 * section, key, value and what was expected. Release with
 * place_workload_release. */
int place_workload_read(const char *path, struct place_workload *w, struct nl_err *err);
void place_workload_release(struct place_workload *w);

#endif
