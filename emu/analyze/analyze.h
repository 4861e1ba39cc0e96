/* Graph analysis and design-space search over topologies.
 *
 * Everything here reads a built struct topo and never changes it: distance
 * metrics (diameter, average shortest path length, distance histogram) by
 * bit-parallel BFS, one BFS per vertex orbit; bisection width by METIS and
 * by the papers' formulas; Moore-bound ratio; link-failure tolerance;
 * export to edge list / DOT / JSON; and the design searches of the papers
 * (HyperX seed 001 §3.1.2, Equality seed 002 §3.3, FleX §III-B full global
 * bandwidth configurations). Results are plain structs; the CLI renders
 * them. Random draws come from core/rng.h streams of class
 * RNG_CLASS_ANALYSIS / RNG_CLASS_DESIGN, so a seed fixes every byte.
 */
#ifndef NETLOOM_ANALYZE_ANALYZE_H
#define NETLOOM_ANALYZE_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "netloom/netloom.h" /* NL_ERR_MSG_MAX */

struct nl_err;
struct topo;

/* --- the router graph ------------------------------------------------------ */

/* The router graph with parallel links merged: CSR of each router's
 * distinct neighbours (ascending) and how many physical links join them.
 * Self-loops are dropped. Terminal ports are not part of it. */
struct analyze_graph {
	uint32_t n;             /* routers */
	uint32_t *off;          /* [n + 1]: neighbours of r are adj[off[r] .. off[r+1]-1] */
	uint32_t *adj;          /* [off[n]] distinct neighbour routers, ascending */
	uint32_t *mult;         /* [off[n]] physical links to that neighbour (trunk width) */
	uint32_t *n_endpoints;  /* [n] endpoints attached to each router */
	uint64_t links;         /* router pairs joined by at least one link (trunks counted once) */
	uint64_t phys_links;    /* physical router-router links (each parallel link counted) */
	uint32_t max_degree;    /* most distinct neighbours of any router */
	uint32_t min_degree;    /* fewest distinct neighbours of any router */
};

/* Build g from t. Returns 0 or NL_ENOMEM; on failure g is left released.
 * (topo.h keeps ports below 2^31, so the 32-bit offsets cannot overflow.) */
int analyze_graph_init(struct analyze_graph *g, const struct topo *t, struct nl_err *err);
void analyze_graph_release(struct analyze_graph *g);

/* --- distances --------------------------------------------------------------- */

enum analyze_dist_mode {
	ANALYZE_DIST_AUTO,    /* exact unless its projected work exceeds budget */
	ANALYZE_DIST_EXACT,   /* exact whatever it costs */
	ANALYZE_DIST_SAMPLED, /* sampled sources */
};

struct analyze_dist_opts {
	enum analyze_dist_mode mode;
	uint64_t budget;  /* AUTO: most words an exact run may touch (projected); 0 = default */
	uint32_t samples; /* sampled mode: BFS sources, 0 = default (1024, capped at n, and by sample_budget) */
	uint64_t sample_budget; /* sampling the default number: most words it may touch (projected); 0 = default */
	uint64_t seed;    /* picks the sampled sources */
};

/* Default AUTO budget on the words an exact run touches, as counted by
 * the BFS itself (adjacency entries read, frontier entries, array clears;
 * see analyze_distances): 2e9 is about 10 s on one core where neighbours
 * are scattered in memory (dln:n=50000,d=8 counts 1.5e9 in 7.5 s) and 4 s
 * where they are near (meshes: 2-2.5 ns a word). */
#define ANALYZE_DIST_BUDGET_DEFAULT 2000000000ull
#define ANALYZE_DIST_SAMPLES_DEFAULT 1024u

/* Default budget of a sampled run of the default number of sources,
 * counted as above: 4e8 words. A word costs more sampled than exact
 * (per-source counting, 64 scattered frontiers): about 2.5 ns on
 * mesh:k=220x220, 3.5 on 440x440, 5.5 on dln:n=200000,d=8 and 10 on
 * 880x880 (user CPU on a loaded 2-core host), so 1-4 s. 1,024 sources of
 * the 220 x 220 mesh or dln fit, the 440 x 440 mesh gets 256, 880 x 880
 * the one batch of 64 that always runs. */
#define ANALYZE_DIST_SAMPLE_BUDGET_DEFAULT 400000000ull

struct analyze_dist {
	bool is_exact;
	bool is_connected;     /* every source reached every router */
	const char *method;    /* "vertex-transitive", "orbits", "all-sources", "sampled" */
	uint32_t n_sources;    /* BFS sources run (orbit representatives or samples) */
	uint32_t samples_wanted; /* sampled: sources asked for; n_sources < it when the sample budget stopped */
	bool is_diameter_exact; /* exact run, or sampled with the family's closed form (topo_ops.diameter) */
	uint32_t diameter;     /* exact, or the largest eccentricity seen (a lower bound) */
	uint32_t diameter_hi;  /* == diameter when exact; else min over sources of 2*ecc (an upper bound) */
	double aspl;           /* mean hops over ordered pairs of distinct routers */
	double aspl_ci95;      /* sampled: half-width of the 95% confidence interval; 0 when exact */
	uint32_t hist_len;     /* hist[0 .. hist_len-1], hist_len = diameter + 1 */
	uint64_t *hist;        /* unordered router pairs at each distance (hist[0] = 0); sampled:
			        * the estimate n / (2 * samples) * (source, target) pairs, rounded */
};

/* Distances of the router graph. Exact runs one BFS per vertex orbit (the
 * family's orbits callback, or one BFS for TOPO_F_VERTEX_TRANSITIVE, else
 * every router), weighting each by its orbit size. BFS is bit-parallel: 64
 * sources share one sweep per BFS level, so a batch of 64 costs up to
 * (n + adjacency) words per level, and levels grow with the eccentricity.
 * AUTO runs the exact batches counting the words touched; after each but
 * the last it projects the average batch over all batches, and once that
 * exceeds the budget it discards them and samples (is_exact = false).
 * Sampling the default number of sources stops, in whole batches of 64,
 * before the batch that would take its projected work past
 * sample_budget (n_sources < samples_wanted; at least one batch runs);
 * an explicit o->samples runs whole. Sampled, a family with a closed-form
 * diameter reports it (is_diameter_exact; NL_ECORRUPT if the samples'
 * bounds do not hold it). A disconnected graph gives is_connected =
 * false (diameter UINT32_MAX). */
int analyze_distances(const struct topo *t, const struct analyze_graph *g,
		      const struct analyze_dist_opts *o, struct analyze_dist *out, struct nl_err *err);
void analyze_dist_release(struct analyze_dist *d);

/* --- work limits ------------------------------------------------------------- */

/* The longest an analysis asked for may take, at the rate its work runs
 * on the conservative side of a release build on a shared 2-core host: a
 * request past it is refused before it starts, with its size and the time
 * (design equality's GA, describe's METIS runs and fault trials). */
#define ANALYZE_MAX_WORK_S 360.0
/* The same for describe's METIS runs and fault trials: an hour. Their
 * defaults (8 runs, 100 trials) on a network a user built must run, and
 * the rates below are the slow graphs' (a torus runs about ten times
 * faster): at six minutes, torus:k=4096x4096 --bisection was refused,
 * which a release build ran whole in 156 s (8 runs estimated at 22
 * minutes). An hour still refuses the requests that ran for days
 * (--trials 1000000 on dln:n=1000000,d=8). */
#define ANALYZE_MAX_RUNS_WORK_S 3600.0

/* Repeated work (describe's METIS runs, its fault trials): how the
 * refusal names it. */
struct analyze_repeats {
	const char *analysis;  /* the option asking for it: "--bisection" */
	const char *one;       /* one repeat, singular: "METIS run" */
	const char *short_one; /* the same, short: "run" */
	const char *count;     /* the option counting them: "--metis-runs" */
	const char *pairs;     /* what joins routers: "router pairs" */
	double steps_per_s;    /* the conservative rate */
};

/* 0 when n repeats of (routers + pairs) steps each fit
 * ANALYZE_MAX_RUNS_WORK_S at k's rate; else NL_EINVAL with the size, the
 * time and the most that fit. */
int analyze_repeats_check(const struct analyze_repeats *k, uint32_t n, uint32_t routers, uint64_t pairs,
			  struct nl_err *err);

/* --- bisection --------------------------------------------------------------- */

struct analyze_bisect_opts {
	uint64_t seed;
	uint32_t runs; /* seeded METIS runs (each recursive + k-way), 0 = default 8 */
};

struct analyze_bisect {
	uint64_t cut;            /* physical links crossing the best partition found */
	uint64_t part_weight[2]; /* endpoints on each side (routers, when there are no endpoints) */
	uint32_t part_routers[2];
	uint32_t runs;
	uint32_t unbalanced;     /* METIS results rejected: halves differing by more than one router */
	const char *method;      /* "recursive" or "kway": which METIS call found the minimum ("endpoints") */
	bool is_endpoint_cut;    /* one router: cut = endpoint links, no METIS run (seed 002 §4.3) */
};

/* Balanced 2-way partition of the router graph by METIS minimising the
 * physical links cut. Vertex weight = endpoints on the router, so both
 * halves hold the same number of terminals (routers without endpoints,
 * e.g. fat-tree spines, may go either way); with no endpoints at all every
 * router weighs 1. Balanced = the halves' weights differ by at most the
 * largest router weight (one router when p is uniform); other results are
 * rejected. Edge weight = parallel links. runs seeds x {recursive, k-way},
 * minimum cut kept; deterministic for a given seed. NL_EINVAL if no run
 * gave a balanced bisection. A single router with E >= 2 endpoints has no
 * router link to cut: out->cut is then floor(E/2) endpoint links, the
 * half of the endpoints on the side without the switch (seed 002 §4.3: a
 * 12-port switch, B = 6 cables, b_r = 1/2), is_endpoint_cut set, runs 0;
 * fewer endpoints, or no router, is NL_EINVAL. */
int analyze_bisect_metis(const struct analyze_graph *g, const struct analyze_bisect_opts *o,
			 struct analyze_bisect *out, struct nl_err *err);

/* Refuse (NL_EINVAL, naming --metis-runs) METIS runs whose work, runs x
 * (routers + router pairs joined), passes ANALYZE_MAX_RUNS_WORK_S at
 * ANALYZE_METIS_STEPS_PER_S; analyze_bisect_metis checks it too, and a
 * caller checks first to refuse before other work. */
#define ANALYZE_METIS_STEPS_PER_S 3e5
int analyze_bisect_metis_check(const struct analyze_graph *g, const struct analyze_bisect_opts *o,
			       struct nl_err *err);

/* A paper's closed form for the topology's bisection, in physical links. */
struct analyze_formula {
	bool has;            /* false: no formula for this family / these params */
	bool is_upper_bound; /* value is a balanced cut, not the bisection (Equality) */
	double value;        /* physical links, an integer */
	const char *source;  /* "FleX eq. 8 (seed 000)" */
};

/* The first closed form that applies to t's closed-form view (topo.h):
 * FleX eq. 8 (three layers), HyperX eq. 1 when every S is even, else,
 * with equal trunking, the exact lexicographic cut (Lindsey's theorem)
 * (also full, flatfly and hypercube, which publish the HyperX view), torus
 * / mesh 2P/k and P/k with k the largest radix when it is even, and
 * Equality's semicircle cut, an upper bound only (is_upper_bound;
 * evaluated on g; the others ignore g, which may be NULL). out->has =
 * false when none applies. Returns 0. */
int analyze_bisection_formula(const struct topo *t, const struct analyze_graph *g,
			      struct analyze_formula *out, struct nl_err *err);

/* Bisection ratios of seed 002 §4.3: b_r = B / Phi with Phi all cables
 * (router-router physical links + endpoint links); B_r = B / router-router
 * physical links. */
double analyze_ratio_b(const struct analyze_graph *g, double bisection);
double analyze_ratio_B(const struct analyze_graph *g, double bisection);

/* Moore bound: the most routers a graph of degree d and diameter D can
 * have, 1 + d * sum_{i<D} (d-1)^i (FleX §III-A Fig. 3, seed 002 §5.1). */
double analyze_moore_bound(uint32_t degree, uint32_t diameter);

/* log10 of analyze_moore_bound, finite where the bound overflows a double
 * (degree 4 past diameter ~646: mesh:k=440x440's 878). */
double analyze_moore_bound_log10(uint32_t degree, uint32_t diameter);

/* --- link-failure tolerance ---------------------------------------------------- */

#define ANALYZE_FAULT_MAX_STEPS 101

struct analyze_fault_opts {
	uint64_t seed;
	uint32_t trials;   /* per step, 0 = default 100 (FleX Table 5) */
	uint32_t step_pct; /* fraction step in percent, 0 = default 5 */
};

struct analyze_faults {
	uint64_t links;                               /* physical links that can fail */
	uint32_t trials, step_pct, n_steps;
	uint64_t removed[ANALYZE_FAULT_MAX_STEPS];    /* links removed at step s */
	uint32_t connected[ANALYZE_FAULT_MAX_STEPS];  /* trials still connected at step s */
	int tolerance_pct;                            /* largest step % with > trials/2 connected, -1 none */
};

/* FleX §III-B.4 / Table 5: remove round(links * s% ) random physical links
 * for s = 0, step, 2 step, ... < 100 and count trials whose router graph
 * stays connected. Each trial removes links in the order of one random
 * permutation, so the removed sets are nested and one reverse union-find
 * pass per trial gives its connectivity at every step (Newman & Ziff,
 * PRL 85, 2000); each step's marginal is still a uniform random subset. */
int analyze_link_faults(const struct topo *t, const struct analyze_fault_opts *o,
			struct analyze_faults *out, struct nl_err *err);

/* Refuse (NL_EINVAL, naming --trials) fault trials whose work, trials x
 * (routers + links), passes ANALYZE_MAX_RUNS_WORK_S at ANALYZE_FAULT_STEPS_PER_S;
 * analyze_link_faults checks it too, with the links it counts. */
#define ANALYZE_FAULT_STEPS_PER_S 1e7
int analyze_link_faults_check(uint32_t routers, uint64_t links, const struct analyze_fault_opts *o,
			      struct nl_err *err);

/* --- export --------------------------------------------------------------------- */

enum analyze_format { ANALYZE_FMT_EDGELIST, ANALYZE_FMT_DOT, ANALYZE_FMT_JSON };

/* "edgelist" / "dot" / "json" to the enum; -1 if unknown. */
int analyze_format_parse(const char *name);

/* The cabinets an export names (borrowed): cabinet[r] of each router, of
 * n_cabinets, packed by the rule named `rule` (netloom cost's packaging,
 * which the caller computes: analyze does not depend on layout). */
struct analyze_packing {
	const uint32_t *cabinet; /* [n_routers] */
	uint32_t n_cabinets;
	const char *rule;
};

/* Write t to f in the format. Edge list: '#' comment header, then one
 * "a b w" line per router pair (a < b, w parallel links). DOT: an
 * undirected graph, coordinates where the family has a grid view. JSON:
 * routers with their ports (peer router/port or endpoint), endpoints per
 * router and coordinates. DOT and JSON give each router's cabinet from
 * pk, or from the topology's own packaging hint (topo_router_cabinet)
 * when pk is NULL. Returns NL_EIO if a write fails (ferror(f) then says
 * so; the caller's stream knows why). Polls out_staged_poll every 4,096
 * rows (core/staged.h), so a SIGINT/SIGTERM caught while f's file is
 * staged ends the process during the rendering. */
int analyze_export(const struct topo *t, const struct analyze_packing *pk, enum analyze_format fmt, FILE *f,
		   struct nl_err *err);

/* --- design-space search --------------------------------------------------------- */

#define ANALYZE_HX_MAX_L 32 /* storage; the search stops at the hyperx family's bound (16) */

/* HyperX design request (seed 001 §3.1): N terminals, radix R, relative
 * bisection B. */
struct analyze_hx_req {
	uint64_t N;
	uint32_t R;
	double B;
};

struct analyze_hx {
	bool found;
	uint32_t L;
	uint32_t S[ANALYZE_HX_MAX_L]; /* nondecreasing (eq. 6) */
	uint32_t K[ANALYZE_HX_MAX_L]; /* nonincreasing (eq. 7), the least meeting eq. 4 */
	uint32_t T;                   /* fewest terminals per switch meeting eq. 3 */
	uint32_t T_max;               /* most terminals per switch with the same S, K fitting eq. 2 */
	uint64_t switches;            /* P = prod S */
	uint32_t ports;               /* T + sum K (S - 1) */
	double beta;                  /* min(K S) / 2T */
	uint64_t visited;             /* designs examined (search effort) */
	/* Whether the hyperx family builds it (topo_hyperx_fits): the search
	 * is analytical and goes past 2^31 ports, which the model does not
	 * hold. When not, build_limit is the refusal 'topo describe' gives
	 * for its spec; "" otherwise. */
	bool is_buildable;
	char build_limit[NL_ERR_MSG_MAX];
};

/* Fewest-switch HyperX for the request by exhaustive search with the
 * paper's pruning (eqs. 2-9): L ascending (at most R - 1, and at most the
 * dimensions the hyperx family builds: its s= takes 16), S nondecreasing, products capped
 * by the best so far (eq. 8), T >= ceil(N / P) (eq. 9), K the least trunking
 * meeting the bisection (eq. 4). Ties keep the lower L, then the
 * lexicographically smallest S. regular = all S_k and K_k equal. Bad
 * requests (N = 0, R < 2, B <= 0) fail with NL_EINVAL. found = false when
 * no HyperX meets it. */
int analyze_hyperx_design(const struct analyze_hx_req *req, bool regular, struct analyze_hx *out,
			  struct nl_err *err);

/* Why the search finds nothing: the HyperX (regular or general) of radix
 * <= R and relative bisection >= B with the most terminals, within the
 * search's limits (at most R - 1 dimensions and as many as the hyperx family's s= takes, the same
 * step budget), in out (found = true; T its terminals a switch, so the
 * most terminals are switches * T, saturated at 2^63). Ties keep the
 * smaller T. NL_ERANGE when the step budget runs out first, NL_EINVAL for
 * a request analyze_hyperx_design refuses. */
int analyze_hyperx_reach(const struct analyze_hx_req *req, bool regular, struct analyze_hx *out,
			 struct nl_err *err);

/* Equality design by genetic algorithm (seed 002 §3.3). */
struct analyze_eq_req {
	uint32_t N;          /* routers, even, >= 6 */
	uint32_t K;          /* network radix, 3 .. N-1 */
	uint64_t seed;
	uint32_t population; /* 0 = default 40 */
	uint32_t generations;/* 0 = default 60 */
	double mutation;     /* per-child mutation probability, < 0 = default 0.3 */
};

struct analyze_eq {
	uint32_t N, K;
	uint32_t n_sa, n_sb;
	int64_t *sa;         /* odd links, -1 and 1 (the ring) first, then ascending residues */
	int64_t *sb;         /* even links, ascending, <= N/2 */
	uint32_t diameter;
	double aspl;         /* average distance a */
	double score;        /* a * d, minimised */
	uint32_t generations, evaluations;
};

/* Search S_A (odd) and S_B (even) chords of an Equality network of N
 * routers and radix K (K = |S_A| + 2|S_B| - [N/2 in S_B], seed 002 eq. 1)
 * minimising a x d. The ring (-1, 1) is always in S_A; the other chords
 * come from the candidate set C of §3.1. Deterministic for a seed. */
int analyze_equality_design(const struct analyze_eq_req *req, struct analyze_eq *out,
			    struct nl_err *err);
void analyze_eq_release(struct analyze_eq *e);

/* Distance metrics of the Equality network (N, S_A, S_B) by one BFS from
 * router 0 (the network is vertex-transitive: i -> i+2 and i -> 1-i are
 * automorphisms, seed 002 Remark 2). */
int analyze_equality_eval(uint32_t N, const int64_t *sa, uint32_t n_sa, const int64_t *sb,
			  uint32_t n_sb, uint32_t *diameter, double *aspl, struct nl_err *err);

/* One configuration of a full-global-bandwidth listing. */
struct analyze_cfg {
	char spec[160];      /* builds with topo_new */
	uint64_t routers, endpoints;
	uint64_t links;          /* router pairs joined, a trunk counted once */
	uint64_t physical_links; /* router-router cables, each parallel link counted */
	uint32_t radix;      /* ports per router, endpoints included */
	uint32_t p;          /* endpoints per router */
	uint32_t diameter;   /* measured on the built topology (UINT32_MAX if not built) */
};

/* The most router ports (routers x radix, summed over the configurations
 * listed) analyze_fullbw_configs builds: about 5 s on one core (10^7
 * ports a second; e.g. Slim Fly to radix 250, FleX and Dragonfly to radix
 * 300-400 for 1,000 terminals). */
#define ANALYZE_FULLBW_MAX_PORTS 50000000ull

/* Configurations of `family` ("flex", "dragonfly", "slimfly") with at least
 * N terminals on routers of at most R ports, each with full global bandwidth
 * as FleX §III-B sets it: FleX Nx = Ny, 3+ layers (an odd number for
 * Nx = Ny = 2), p = links to the next layer = floor(k/3); Dragonfly a = 2p = 2h; Slim Fly p = ceil(k'/2) (Besta
 * & Hoefler, FleX ref. [4]). For each shape the smallest configuration
 * reaching N is listed, by routers ascending. *out is malloc'd (caller
 * frees). Each is built to measure its exact diameter (topo_diameter), so
 * the family must be registered; a configuration the family refuses to
 * build (NL_EINVAL or NL_ERANGE from topo_new) is left out, not an error.
 * NL_ERANGE, before any is built, when their router ports add up to more
 * than ANALYZE_FULLBW_MAX_PORTS. */
int analyze_fullbw_configs(const char *family, uint64_t N, uint32_t R, struct analyze_cfg **out,
			   size_t *n, struct nl_err *err);

/* Why a listing can be empty: the radix of the family's smallest
 * configuration (FleX 6, Dragonfly 3, Slim Fly 8) and the most terminals a
 * configuration of at most R ports reaches under the same rules and
 * limits (0 when none fits R): the most a request gets listed within
 * ANALYZE_FULLBW_MAX_PORTS, with the smallest configuration of that
 * listing (is_listable), or, when every listing at R passes that limit,
 * the largest configuration's; then listable_radix is the largest radix
 * below R with a listing within the limit (0: none), and listable_terminals
 * and listable_spec the most a request gets listed there.
 * NL_EINVAL for an unknown family, NL_ENOMEM. */
struct analyze_fullbw_reach {
	uint32_t min_radix;
	uint64_t max_terminals;
	char max_spec[160]; /* the configuration reaching them ("" when none) */
	bool is_listable;   /* a request for max_terminals is listed within the limit */
	uint32_t listable_radix;
	uint64_t listable_terminals;
	char listable_spec[160];
};
int analyze_fullbw_reach(const char *family, uint32_t R, struct analyze_fullbw_reach *out, struct nl_err *err);

#endif
