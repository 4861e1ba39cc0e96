/* Topologies: the router graph every other module works on.
 *
 * A topology family is a `const struct topo_ops` registered by name in
 * registry.c. Parsing "family:key=value,..." yields the family's typed
 * params; build() fills a struct topo with routers, ports and endpoints in
 * one compact form (CSR port arrays): router r owns global ports
 * port_base[r] .. port_base[r+1]-1, and peer[] says what is at the far end
 * of each port. Structured families also declare capabilities (coordinates,
 * groups, levels, minimal next hops, distance, ...) as topo_ops callbacks,
 * so routing and analysis never need tables or family names for them.
 *
 * Invariants after topo_new(): peer[] is symmetric (peer[peer[g]] == g for
 * network ports), every endpoint is attached to exactly one terminal port,
 * and port_router[g] is the router that owns global port g.
 */
#ifndef NETLOOM_TOPO_TOPO_H
#define NETLOOM_TOPO_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/param.h"

struct nl_err;
struct rng;
struct topo;

#define TOPO_NONE UINT32_MAX     /* peer of an unconnected port */
#define TOPO_EP_BIT 0x80000000u  /* peer of a terminal port: TOPO_EP_BIT | endpoint */
#define TOPO_MAX_DIMS 16

/* Family flags. */
enum {
	TOPO_F_VERTEX_TRANSITIVE = 1u << 0, /* every router looks the same: one BFS suffices */
	TOPO_F_LINK_LATENCY = 1u << 1,      /* link_latency gives every channel's latency, always
	                                     * applied (anynet: the file says them) */
};

/* A topology family. Optional callbacks may be NULL. */
struct topo_ops {
	const char *name;               /* "torus" */
	const char *help;               /* one line: what it is and which paper */
	const struct param_def *params; /* NULL-terminated */
	size_t params_size;             /* sizeof the family's params struct */
	size_t state_size;              /* bytes of zeroed family state, 0 for none */
	unsigned flags;                 /* TOPO_F_* */

	/* Build the graph into t (t->params is parsed). Cross-parameter rules
	 * (divisibility, radix bounds, prime powers, ...) fail here with an
	 * error naming the parameter and the rule. */
	int (*build)(struct topo *t, struct nl_err *err);

	/* Free what build() hung off t->state (the state block itself is freed
	 * by topo_free). */
	void (*release)(struct topo *t);

	/* Closed-form minimal router-to-router distance in hops; NULL = BFS. */
	uint32_t (*distance)(const struct topo *t, uint32_t a, uint32_t b);

	/* Vertex orbits under the family's automorphisms, for exact graph
	 * analysis with one BFS per orbit: fill reps[] with one router per
	 * orbit and weight[] with the orbit's size (weights sum to
	 * n_routers) and return the orbit count (<= cap), or 0 when the
	 * family cannot say (then every router is its own orbit).
	 * TOPO_F_VERTEX_TRANSITIVE families need not provide it. */
	uint32_t (*orbits)(const struct topo *t, uint32_t *reps, uint64_t *weight, uint32_t cap);

	/* Recognise a paper's own notation for the whole spec (e.g. Equality's
	 * "N14K6[-1,1,3,9](4)"). Return 1 and fill params when it matches, 0
	 * when it does not, or a negative error. */
	int (*parse_alias)(const char *spec, void *params, struct nl_err *err);

	/* Write the canonical spec into buf (cap bytes, NUL-terminated) when the
	 * generic "name:k=v,..." form cannot hold it (e.g. Equality offset
	 * lists longer than a parameter list); return 1 when written, 0 to use
	 * the generic form. The text must parse back to the same topology. */
	int (*format_spec)(const struct topo *t, char *buf, size_t cap);

	/* --- capabilities: what routing, traffic and analysis may ask any
	 * family without knowing which one it is (issue 10 part 3). Each is
	 * NULL when the family does not have that structure; read them
	 * through the topo_* queries below, which say what NULL means. */

	/* Coordinates of router r in the family's own terms (torus/mesh and
	 * HyperX: lattice coordinates; FleX: x, y, z; dragonfly: group, index;
	 * Slim Fly: s, x, y; nD twin torus: node coordinates, card; trees:
	 * level, index in level). Write at most TOPO_MAX_COORDS values to c[]
	 * and return how many. */
	int (*coords)(const struct topo *t, uint32_t r, uint32_t *c);

	/* Groups of consecutive router ids (dragonfly groups, FleX layers):
	 * router r is in group r / *group_routers of *n_groups. */
	void (*groups)(const struct topo *t, uint32_t *n_groups, uint32_t *group_routers);

	/* Up*-down* orientation: the level of router r, 0 at the leaves. A
	 * family that has it guarantees every minimal path between routers
	 * holding endpoints climbs, then descends (Dally & Towles §14.7: such
	 * paths have acyclic channel dependencies without VC classes). */
	uint32_t (*level)(const struct topo *t, uint32_t r);

	/* Minimal next hops from router r toward router dst (r != dst, dst
	 * holds endpoints): the local ports p of r whose far end is one hop
	 * closer to dst, in increasing p. Write those with index skip ..
	 * skip+cap-1 of that list to ports[] and return the list's full
	 * length. NULL when `distance` gives them (topo_min_ports). */
	uint32_t (*min_ports)(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip, uint32_t *ports,
			      uint32_t cap);

	/* Exact diameter in router hops when the family knows it faster than
	 * BFS; NULL = BFS from the orbit representatives (topo_diameter). */
	uint32_t (*diameter)(const struct topo *t);

	/* Valiant intermediate (Valiant & Brebner 1981; Kim et al. ISCA 2008
	 * §4.2 for dragonflies): the router a packet from src to dst detours
	 * through, drawn from rng. NULL = any router uniformly
	 * (topo_valiant_router). */
	uint32_t (*valiant)(const struct topo *t, uint32_t src, uint32_t dst, struct rng *rng);

	/* Link class of router-to-router global port g (TOPO_LINK_LOCAL or
	 * TOPO_LINK_GLOBAL), for families whose links have classes with
	 * their own latencies (dragonfly: BookSim2 hard-wires local 10,
	 * global 100 cycles, networks/dragonfly.cpp). NULL = every network
	 * link is TOPO_LINK_NETWORK (topo_link_class). */
	uint32_t (*link_class)(const struct topo *t, uint32_t g);

	/* On-chip channel lengths (BookSim2's flatfly with use_noc_latency =
	 * 1, networks/flatfly_onchip.cpp): write to lat[g] the cycles of every
	 * router-to-router global port g, 0 for terminal and unconnected ports
	 * (they keep terminal_latency). Returns 0, or a negative error when
	 * this instance has no such layout. NULL = the family has none; only
	 * read when [network] noc_latency = 1, so other families pay nothing,
	 * or always for a TOPO_F_LINK_LATENCY family (anynet), whose terminal
	 * ports get their own latency too. */
	int (*link_latency)(const struct topo *t, uint16_t *lat, struct nl_err *err);
};

/* Most coordinates a family's coords callback writes. */
#define TOPO_MAX_COORDS (TOPO_MAX_DIMS + 1)

/* Cartesian structure shared by torus, mesh and similar families: router id
 * = sum coord[d] * stride[d]. Port convention: port 2d goes to coordinate
 * +1 in dimension d, port 2d+1 to coordinate -1; terminal ports follow at
 * 2*n_dims .. 2*n_dims+p-1. */
struct topo_grid {
	int n_dims;
	uint32_t k[TOPO_MAX_DIMS];      /* radix per dimension */
	uint32_t stride[TOPO_MAX_DIMS]; /* id step per dimension */
	bool wrap[TOPO_MAX_DIMS];       /* ring (torus) or line (mesh) */
	uint16_t *coord;                /* [router * n_dims + d], precomputed */
	uint32_t p;                     /* endpoints per router */
};

/* --- family views -------------------------------------------------------
 *
 * A family's own closed-form structure (HyperX lattice, dragonfly groups,
 * tree levels, ...) lives in its header, topo/topo_<family>.h, reached
 * through a checked downcast (topo_hyperx_of(t), ...) that returns NULL for
 * any other family. Code that only needs what several families share asks
 * the generic capabilities of struct topo_ops instead (topo_coords,
 * topo_groups, topo_level, topo_min_ports, topo_distance, ...). The
 * endpoints of every family are numbered router-major (endpoint e is on
 * terminal port e % T of router e / T) unless its view says otherwise. */

/* The views a family publishes, known from the family alone, before any
 * topology is built: a routing function that reads a view runs on every
 * family publishing it (route_ops.topo_views), not on a list of names. */
enum {
	TOPO_VIEW_HYPERX = 1u << 0, /* topo_hyperx_of (topo_hyperx.h) */
};

/* The TOPO_VIEW_* family `ops` publishes: those whose checked downcast
 * returns its instances' view. */
unsigned topo_family_views(const struct topo_ops *ops);

/* Routers per cabinet when a family gives no packaging rule (seed 003 §4.1:
 * "each cabinet stores 16 switches", in canonical order). */
#define TOPO_CABINET_DEFAULT 16

struct topo {
	const struct topo_ops *ops;
	void *params;          /* family params struct (owned) */
	void *state;           /* family state (owned), ops->state_size bytes */
	char *spec;            /* canonical spec "family:k=v,..." (owned) */

	uint32_t n_routers;
	uint32_t n_endpoints;
	uint32_t n_ports;      /* all ports of all routers, terminal ports included */
	uint32_t *port_base;   /* [n_routers + 1] */
	uint32_t *peer;        /* [n_ports]: global port, TOPO_EP_BIT|ep, or TOPO_NONE */
	uint32_t *port_router; /* [n_ports]: owning router */
	uint32_t *ep_port;     /* [n_endpoints]: global terminal port of each endpoint */

	/* Cartesian structure shared by torus and mesh (dimension-order and
	 * Valiant routing, grid traffic patterns), or NULL. */
	const struct topo_grid *grid;

	/* Packaging hint: cabinet[r] is the cabinet of router r, 0 ..
	 * n_cabinets-1, when the family has a natural rule (owned); NULL means
	 * canonical order, TOPO_CABINET_DEFAULT routers per cabinet. Read it
	 * through topo_router_cabinet(). */
	uint32_t *cabinet;
	uint32_t n_cabinets;

	/* Progress of the build on a terminal, or NULL: topo_new_shown sets
	 * it around ops->build of the caller's own spec (not a nested base), and
	 * topo_connect and topo_attach count the ports they fill. */
	struct topo_build_progress *building;
};

/* --- registry and lifecycle --------------------------------------------- */

/* All registered families, in registry order; *n gets the count. */
const struct topo_ops *const *topo_list(size_t *n);

/* Family by name, or NULL with *err listing the valid names. */
const struct topo_ops *topo_find(const char *name, struct nl_err *err);

/* Parse `spec` and build the topology. On failure nothing is allocated and
 * *err says which parameter of which family was wrong. "@path" reads the
 * spec from a file (any length; lines joined without separators, '#'
 * lines skipped; the file names it writes read from its folder,
 * topo_spec_expand); the canonical t->spec is then the spec itself. A path
 * that is not a regular file (a FIFO, /dev/stdin) is read once per
 * process: every later read of it (topo_spec_files, topo_spec_expand, a
 * nested spec) gets the same text, or the same error. */
int topo_new(const char *spec, struct topo **out, struct nl_err *err);
/* topo_new showing the build's progress when stderr is a terminal, for a
 * command whose first long step is building the one topology it was given
 * (topo describe, topo export); topo_new itself builds silently. */
int topo_new_shown(const char *spec, struct topo **out, struct nl_err *err);
/* The spec "@path" stands for (its file's text, as topo_new reads it), or
 * a copy of any other spec; *out is the caller's to free. A relative file
 * name the text writes (an @FILE, the file= of a family, nested specs'
 * too) is read from the folder of path, not the working directory, and
 * is in *out as that folder's absolute path names it, so the spec reads
 * the same from anywhere (and so do the results that record it); a path
 * that is not a regular file (a pipe, /dev/stdin) has no folder: its
 * names stay the working directory's. A refusal of the spec held quotes
 * such a name as written and where it was looked for ("cannot open
 * 'g.txt' (resolved to /home/me/exp/g.txt, relative to the spec file
 * exp/spec.txt)"). */
int topo_spec_expand(const char *spec, char **out, struct nl_err *err);
/* The family spec (or the spec "@path" stands for) names, in its own
 * notation (Equality's N14K6[...](4)) or as "family:k=v,...", with its
 * parameters parsed, nothing built; NULL with *err saying why. */
const struct topo_ops *topo_spec_family(const char *spec, struct nl_err *err);

/* Whether the hyperx family builds "hyperx:s=S1x..,k=K1x..,t=T" (L
 * dimensions of S[d] switches, K[d] trunked links, T terminals a switch):
 * 0, or the refusal 'topo describe' gives for that spec (a parameter's
 * range; at most 2^30 switches and 2^20 ports a switch to other switches;
 * fewer than 2^31 endpoints and ports), without building it. For design
 * searches, whose analytical answers may exceed what the model holds. */
int topo_hyperx_fits(uint32_t L, const uint32_t *S, const uint32_t *K, uint32_t T, struct nl_err *err);

/* Whether the equality family holds N routers of network radix K and p
 * endpoints each (its spec's chords aside): 0, or the refusal 'topo
 * describe' gives (at most 2^30 routers, fewer than 2^31 ports and
 * endpoints). For the design search, whose --endpoints and --routers
 * each fit the family's ranges while their product may not. */
int topo_equality_fits(uint32_t N, uint32_t K, uint64_t p, struct nl_err *err);

/* A file a topology spec reads (topo_spec_files). */
struct topo_spec_file {
	const char *path;   /* as it is read (an @FILE without its '@'); a relative name an @FILE's text
			     * writes: from that file's folder, absolute (topo_spec_expand) */
	const char *given;  /* as the spec writes it: path, or that relative name */
	bool is_spec_file;  /* an @FILE: a spec's text, not a family's data */
	const char *family; /* family whose parameter names it; NULL for the spec's own @FILE */
	const char *key;    /* that parameter ("file"; "base" for a nested @FILE); NULL with family */
	const char *in;     /* the @FILE whose text holds it, as read; NULL when the spec given does */
};
/* Called for each file: 0 to go on, a negative code to stop the walk with it. */
typedef int (*topo_spec_file_fn)(void *ctx, const struct topo_spec_file *f);

/* The files `spec` reads, without building it: resolved as topo_new does
 * (family, params, nested specs, "@path"), `each` is called for every
 * parameter that names an input file (PARAM_PATH) and is set, and for
 * every "@path" before its text is read. An "@path" that is not a regular
 * file (a FIFO, /dev/stdin) is read too, once: topo_new then builds the
 * same text. A spec that does not parse returns topo_new's error, after
 * the files found before it. Pointers in *f are valid during the call
 * only. */
int topo_spec_files(const char *spec, topo_spec_file_fn each, void *ctx, struct nl_err *err);

/* Free a topology (NULL is a no-op). */
void topo_free(struct topo *t);

/* Print every family with its parameters (for --help). */
void topo_print_help(FILE *f);

/* --- queries ------------------------------------------------------------- */

static inline uint32_t topo_router_ports(const struct topo *t, uint32_t r)
{
	return t->port_base[r + 1] - t->port_base[r];
}

/* Router owning endpoint e, and the local port index it uses there. */
static inline uint32_t topo_ep_router(const struct topo *t, uint32_t e)
{
	return t->port_router[t->ep_port[e]];
}
static inline uint32_t topo_ep_local_port(const struct topo *t, uint32_t e)
{
	uint32_t g = t->ep_port[e];
	return g - t->port_base[t->port_router[g]];
}

static inline bool topo_port_is_terminal(const struct topo *t, uint32_t g)
{
	return t->peer[g] != TOPO_NONE && (t->peer[g] & TOPO_EP_BIT);
}
static inline bool topo_port_is_network(const struct topo *t, uint32_t g)
{
	return t->peer[g] != TOPO_NONE && !(t->peer[g] & TOPO_EP_BIT);
}

/* The first endpoint on router r, or TOPO_NONE when it has none (a scan
 * of its ports: for tests and set-up, not the per-packet path). */
static inline uint32_t topo_router_ep(const struct topo *t, uint32_t r)
{
	for (uint32_t g = t->port_base[r]; g < t->port_base[r + 1]; g++)
		if (topo_port_is_terminal(t, g))
			return t->peer[g] & ~TOPO_EP_BIT;
	return TOPO_NONE;
}

/* The endpoint on router r's terminal port of the same local index as
 * endpoint e's on its own router (grid traffic patterns move an endpoint
 * to "the same terminal" of another router, whatever the family's
 * endpoint numbering: router-major on torus and mesh, BookSim's on
 * cmesh). Requires that port of r to hold an endpoint. O(1). */
static inline uint32_t topo_grid_ep_at(const struct topo *t, uint32_t r, uint32_t e)
{
	return t->peer[t->port_base[r] + topo_ep_local_port(t, e)] & ~TOPO_EP_BIT;
}

/* Cabinet of router r: the family's packaging rule, or canonical order with
 * TOPO_CABINET_DEFAULT routers per cabinet. */
static inline uint32_t topo_router_cabinet(const struct topo *t, uint32_t r)
{
	return t->cabinet ? t->cabinet[r] : r / TOPO_CABINET_DEFAULT;
}

/* Number of cabinets topo_router_cabinet() uses. */
static inline uint32_t topo_cabinet_count(const struct topo *t)
{
	return t->cabinet ? t->n_cabinets
			  : (t->n_routers + TOPO_CABINET_DEFAULT - 1) / TOPO_CABINET_DEFAULT;
}

/* Number of network (router-to-router) ports of router r. */
uint32_t topo_router_degree(const struct topo *t, uint32_t r);

/* Largest number of ports on any router (network + terminal). */
uint32_t topo_max_radix(const struct topo *t);

/* Router-to-router links, each counted once (parallel links counted each). */
uint64_t topo_count_links(const struct topo *t);

/* Minimal distance in router hops: the family's closed form or BFS. */
uint32_t topo_distance(const struct topo *t, uint32_t a, uint32_t b);

/* Coordinates of router r (see topo_ops.coords): their count, 0 when the
 * family has none. c[] holds TOPO_MAX_COORDS values. */
int topo_coords(const struct topo *t, uint32_t r, uint32_t *c);

/* Groups of consecutive routers (see topo_ops.groups): true and the shape
 * when the family has them. */
bool topo_groups(const struct topo *t, uint32_t *n_groups, uint32_t *group_routers);

/* The gateway of group pair (G, T), G != T, on families with groups whose
 * every pair shares a global link (the dragonfly): true, the router of G
 * holding G's first link toward T and that link's local port. O(1), no
 * table (group-minimal routing asks it per packet per router). False
 * for families without such links. */
bool topo_group_gateway(const struct topo *t, uint32_t G, uint32_t T, uint32_t *router, uint32_t *port);

/* The next local port of the group-minimal route from router r to router
 * dst on a family with gateways (BookSim2's dragonfly_port, used by its
 * min_dragonflynew and ugal_dragonflynew): outside dst's group, toward the
 * gateway to dst's group, and at the gateway its global link (*global set);
 * in dst's group, the one local hop. r != dst. */
uint32_t topo_group_min_port(const struct topo *t, uint32_t r, uint32_t dst, bool *global);

/* Link classes (issue 11 part 1): what latency key a channel takes. */
enum {
	TOPO_LINK_TERMINAL, /* router to endpoint: terminal_latency */
	TOPO_LINK_NETWORK,  /* the one class of a family without classes: channel_latency */
	TOPO_LINK_LOCAL,    /* dragonfly intra-group: local_latency */
	TOPO_LINK_GLOBAL,   /* dragonfly inter-group: global_latency */
	TOPO_N_LINK_CLASSES
};

/* Class of the link leaving global port g (topo_ops.link_class);
 * TOPO_LINK_TERMINAL for terminal and unconnected ports. */
uint32_t topo_link_class(const struct topo *t, uint32_t g);

/* True when the family declares local/global link classes. */
static inline bool topo_has_link_classes(const struct topo *t)
{
	return t->ops->link_class != NULL;
}

/* True when the family has an up*-down* orientation (topo_ops.level). */
static inline bool topo_has_levels(const struct topo *t)
{
	return t->ops->level != NULL;
}

/* Level of router r (topo_ops.level), 0 when the family has none. */
uint32_t topo_level(const struct topo *t, uint32_t r);

/* True when topo_min_ports works without tables: the family has minimal
 * next hops or a closed-form distance. */
bool topo_has_min_ports(const struct topo *t);

/* Minimal next hops from r toward dst (r != dst, dst holds endpoints), as
 * topo_ops.min_ports says: the family's own, else the network ports whose
 * far end is one hop closer by the closed-form distance. The list is the
 * one an all-pairs BFS table gives, element by element. Requires
 * topo_has_min_ports(t). O(ports of r) distance calls; no allocation. */
uint32_t topo_min_ports(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip, uint32_t *ports,
			uint32_t cap);

/* Exact diameter in router hops, UINT32_MAX when disconnected: the
 * family's closed form, else BFS from every orbit representative (one for
 * vertex-transitive families, every router when the family has no
 * orbits), 64 sources at a time (topo_bfs64_run). O(routers + links)
 * memory. */
int topo_diameter(const struct topo *t, uint32_t *diameter, struct nl_err *err);

/* Valiant intermediate router for a packet from src to dst, drawn from
 * rng (topo_ops.valiant; default: rng_below(rng, n_routers), any router). */
uint32_t topo_valiant_router(const struct topo *t, uint32_t src, uint32_t dst, struct rng *rng);

/* Hop distances from `src` to every router by BFS; dist[] has n_routers
 * entries, UINT32_MAX for unreachable. queue[] is n_routers scratch. */
void topo_bfs(const struct topo *t, uint32_t src, uint32_t *dist, uint32_t *queue);

/* --- 64 breadth-first searches at once (bfs64.c) ------------------------ */

/* A router graph in CSR form, neighbours of v in adj[off[v] .. off[v+1]-1]
 * (a neighbour may repeat), and the search's working memory: three words
 * and two list entries per router. The callbacks are optional; ctx is
 * passed to both. */
struct topo_bfs64 {
	uint32_t n; /* routers */
	const uint32_t *off, *adj;
	uint32_t *own_off, *own_adj; /* built by topo_bfs64_init_topo, freed by release */
	uint64_t *vis, *fr, *nx;     /* [n] bit b: source b has reached / reaches at this level */
	uint32_t *cur, *next;        /* [n] the frontier lists */
	/* After each level (>= 1): fresh[reached[i]] has bit b set when
	 * source b reaches router reached[i] at `level`. A negative return
	 * stops the search and is topo_bfs64_run's. */
	int (*on_level)(void *ctx, uint32_t level, const uint32_t *reached, uint32_t n_reached,
			const uint64_t *fresh);
	/* A progress line's redraw, during long levels and after each: the
	 * routers reached so far, once per level some source newly reaches them. */
	void (*on_progress)(void *ctx, uint32_t level, uint64_t reached);
	void *ctx;
	/* The last run's results. */
	uint32_t max_level; /* the largest eccentricity among its sources */
	bool all_reached;   /* every source reached every router */
};

/* Working memory for a graph the caller keeps (off, adj) until release;
 * w's callbacks start NULL. 0 or NL_ENOMEM (w left released). */
int topo_bfs64_init(struct topo_bfs64 *w, uint32_t n, const uint32_t *off, const uint32_t *adj);
/* The same over t's network links, the CSR built here (topo_bfs's graph). */
int topo_bfs64_init_topo(struct topo_bfs64 *w, const struct topo *t);
void topo_bfs64_release(struct topo_bfs64 *w);

/* BFS from src[0..ns-1] (1 <= ns <= 64; repeats allowed), as 64 runs of
 * topo_bfs would give, in about one pass over the graph per level. Adds
 * the words it touches to *work (NULL: not counted): the same graph and
 * sources always count the same. 0, or on_level's negative return. */
int topo_bfs64_run(struct topo_bfs64 *w, const uint32_t *src, uint32_t ns, uint64_t *work);

/* All-pairs hop counts: table[a * n + b] = the distance from a to b
 * (n = t->n_routers), or sat when it is sat or more or b is unreachable.
 * *diameter: the exact largest distance, UINT32_MAX when t is
 * disconnected. table has n * n bytes. 0 or NL_ENOMEM (no message). */
int topo_hop_table(const struct topo *t, uint8_t *table, uint8_t sat, uint32_t *diameter);

/* Structural check: ports paired, endpoints attached once, graph connected. */
int topo_check(const struct topo *t, struct nl_err *err);

/* --- for family implementations (build callbacks) ------------------------ */

/* Allocate routers with n_ports[r] ports each (or `uniform` ports each when
 * n_ports is NULL) and n_endpoints endpoints; all ports start unconnected. */
int topo_alloc(struct topo *t, uint32_t n_routers, const uint32_t *n_ports, uint32_t uniform,
	       uint32_t n_endpoints, struct nl_err *err);

/* Join local port pa of router ra with local port pb of router rb. */
void topo_connect(struct topo *t, uint32_t ra, uint32_t pa, uint32_t rb, uint32_t pb);

/* Attach endpoint ep to local port p of router r. */
void topo_attach(struct topo *t, uint32_t ep, uint32_t r, uint32_t p);

/* Build a Cartesian grid (torus when wrap[d], mesh otherwise) with p
 * endpoints per router (the family's parameter `pname`, named when the
 * grid is too large), numbered router-major (ep = r * p + i), and publish
 * it as t->grid. The grid is kept in t->state, which must be at least
 * sizeof(struct topo_grid). */
int topo_grid_build(struct topo *t, int n_dims, const uint32_t *k, const bool *wrap, uint32_t p,
		    const char *pname, struct nl_err *err);

/* Free what topo_grid_build allocated (a family's release callback). */
void topo_grid_release(struct topo *t);

/* Expand a "k" dimension vector and an optional "n" (BookSim's k=8,n=2 is
 * k=8x8) into k[]; returns the dimension count or a negative error. */
int topo_grid_dims(const struct topo *t, const struct param_vec *kv, int64_t n, uint32_t *k,
		   struct nl_err *err);

/* Coordinate d of router r in a grid. */
static inline uint32_t topo_grid_coord(const struct topo_grid *g, uint32_t r, int d)
{
	return g->coord[(size_t)r * (size_t)g->n_dims + (size_t)d];
}

#endif
