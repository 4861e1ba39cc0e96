/* Topologies: the router graph every other module works on.
 *
 * A topology family is a `const struct topo_ops` registered by name in
 * registry.c. Parsing "family:key=value,..." yields the family's typed
 * params; build() fills a struct topo with routers, ports and endpoints in
 * one compact form (CSR port arrays): router r owns global ports
 * port_base[r] .. port_base[r+1]-1, and peer[] says what is at the far end
 * of each port. Structured families also publish a closed-form view (grid)
 * so routing never needs tables for them.
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
struct topo;

#define TOPO_NONE UINT32_MAX     /* peer of an unconnected port */
#define TOPO_EP_BIT 0x80000000u  /* peer of a terminal port: TOPO_EP_BIT | endpoint */
#define TOPO_MAX_DIMS 16

/* Family flags. */
enum {
	TOPO_F_VERTEX_TRANSITIVE = 1u << 0, /* every router looks the same: one BFS suffices */
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
};

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

/* --- closed-form views ----------------------------------------------------
 *
 * A structured family publishes one of these (a const pointer in struct
 * topo, NULL when the family does not have that structure), so routing and
 * layout compute neighbours, ports and coordinates in closed form and never
 * need tables. Each view documents its router numbering and port map; the
 * endpoints of every family are numbered router-major (endpoint e is on
 * terminal port e % T of router e / T) unless the view says otherwise. */

/* HyperX (seed 001 §3): L dimensions, S[d] switches per dimension, K[d]
 * parallel (trunked) links between two switches aligned in dimension d,
 * T terminals per switch. Router id = sum I[d] * stride[d] with stride[0] =
 * 1. Ports: dimension d occupies port_base[d] .. port_base[d] + K[d]*(S[d]-1)
 * - 1, grouped by target coordinate v != own coordinate c in increasing
 * order (see topo_hyperx_port); terminals are ports term_base .. term_base
 * + T - 1. Also published by full, flatfly and hypercube, which are HyperX
 * special cases. */
struct topo_hyperx {
	int L;                             /* dimensions */
	uint32_t S[TOPO_MAX_DIMS];         /* switches per dimension */
	uint32_t K[TOPO_MAX_DIMS];         /* trunking: parallel links per aligned pair */
	uint32_t T;                        /* terminals per switch */
	uint32_t stride[TOPO_MAX_DIMS];    /* router id step per dimension */
	uint32_t port_base[TOPO_MAX_DIMS]; /* first local port of dimension d */
	uint32_t term_base;                /* first terminal port: sum K[d] * (S[d] - 1) */
	uint16_t *coord;                   /* [router * L + d], precomputed */
};

static inline uint32_t topo_hyperx_coord(const struct topo_hyperx *h, uint32_t r, int d)
{
	return h->coord[(size_t)r * (size_t)h->L + (size_t)d];
}

/* Local port of trunk `trunk` (0..K[d]-1) from a switch at coordinate `own`
 * to the switch at coordinate `v` (!= own) of dimension d. */
static inline uint32_t topo_hyperx_port(const struct topo_hyperx *h, int d, uint32_t own, uint32_t v,
					uint32_t trunk)
{
	return h->port_base[d] + (v < own ? v : v - 1) * h->K[d] + trunk;
}

/* Hypercube and folded hypercube (seed 003 §4.1): 2^n routers, port d (0 <=
 * d < n) goes to router r ^ (1 << d); the folded hypercube adds port n to
 * the complement r ^ (2^n - 1) [seed 003 ref. 15]; terminal ports follow. */
struct topo_hypercube {
	int n;         /* dimensions */
	bool folded;   /* port n is the complement link */
	uint32_t p;    /* terminals per router */
	uint32_t term_base; /* n or n + 1 */
};

/* FleX (seed 000 §III-A): router (x, y, z) has id nx*ny*z + nx*y + x (eq.
 * 6). Ports: to layer (z+1) mod nz with the same y and x' != x at next_x +
 * (x' < x ? x' : x' - 1) (eq. 4), with the same x and y' != y at next_y +
 * (y' < y ? y' : y' - 1) (eq. 5); the links that eqs. 4-5 give the layer
 * below arrive at prev_x / prev_y with the same indexing. When nz == 2 the
 * layer above and below are the same and prev_x == next_x, prev_y ==
 * next_y. Terminals at term_base .. term_base + p - 1. */
struct topo_flex {
	uint32_t nx, ny, nz, p;
	uint32_t next_x, next_y; /* first port of the x / y links to layer z+1 */
	uint32_t prev_x, prev_y; /* first port of the x / y links to layer z-1 */
	uint32_t term_base;      /* first terminal port */
};

static inline void topo_flex_xyz(const struct topo_flex *f, uint32_t r, uint32_t *x, uint32_t *y, uint32_t *z)
{
	*x = r % f->nx;
	*y = (r / f->nx) % f->ny;
	*z = r / (f->nx * f->ny);
}

/* Dragonfly (Kim et al. ISCA 2008; seeds 000 §II-A, 003 §4.1): g groups of a
 * routers, router id = group * a + index. Ports of router i: local ports 0
 * .. a-2 to router i' != i of its group at (i' < i ? i' : i' - 1); global
 * ports a-1 .. a-2+h; terminal ports a-1+h .. a-2+h+p. A group's global
 * ports are numbered gp = i*h + j (router i, global port j). The first
 * rounds*(g-1) of them use the consecutive ("absolute") arrangement: gp
 * goes to group index (gp mod (g-1)), counting the other groups in
 * increasing order without the group itself, and the k-th such link
 * between groups G and T (k = gp / (g-1)) lands on T's port of the same k
 * toward G. When g-1 does not divide a*h, the `extra` remaining ports e =
 * gp - rounds*(g-1) pair circulantly: even e goes to group G + (e/2 + 1),
 * odd e to G - (e/2 + 1) (mod g), and with an odd `extra` the last one to
 * G + g/2. With the default g = a*h + 1 every pair of groups has exactly
 * one link. */
struct topo_dragonfly {
	uint32_t a, p, h, g;
	uint32_t rounds;      /* floor(a*h / (g-1)): links every group pair has */
	uint32_t extra;       /* a*h mod (g-1): circulant ports per group */
	uint32_t global_base; /* a - 1 */
	uint32_t term_base;   /* a - 1 + h */
};

/* Group port of group G used by the k-th (k < rounds) link toward group T
 * (T != G). */
static inline uint32_t topo_dragonfly_group_port(const struct topo_dragonfly *df, uint32_t G, uint32_t T,
						 uint32_t k)
{
	return (T < G ? T : T - 1) + k * (df->g - 1);
}

/* Far end of group port gp of group G: group *tg, group port *tgp. */
static inline void topo_dragonfly_global_peer(const struct topo_dragonfly *df, uint32_t G, uint32_t gp,
					      uint32_t *tg, uint32_t *tgp)
{
	uint32_t m = df->g - 1, base = df->rounds * m;
	if (gp < base) {
		uint32_t idx = gp % m, k = gp / m;
		*tg = idx < G ? idx : idx + 1;
		*tgp = (G < *tg ? G : G - 1) + k * m;
		return;
	}
	uint32_t e = gp - base, j = e / 2 + 1;
	if ((df->extra & 1) && e == df->extra - 1) {
		*tg = (G + df->g / 2) % df->g;
		*tgp = gp;
	} else if (e % 2 == 0) {
		*tg = (G + j) % df->g;
		*tgp = gp + 1;
	} else {
		*tg = (G + df->g - j) % df->g;
		*tgp = gp - 1;
	}
}

/* nD twin torus (seed 004 §II-B): a k[0] x .. x k[n-1] torus of nodes, each
 * node two (n+1)-port cards joined by an internal link; each card is a
 * router: router id = 2 * node + card, node id = sum c[d] * stride[d], and
 * the card's PE is endpoint (router id). Definition 2.2 (odd n): dimensions
 * 0 .. split-1 on card 0, split+1 .. n-1 on card 1, and dimension split =
 * (n-1)/2 has its - port on card 0 and its + port on card 1. Even n (not in
 * the seed) splits evenly: dimensions 0 .. n/2-1 on card 0, the rest on
 * card 1, split = -1. Local ports: card_port[d][dir] on card card_of[d][dir]
 * (dir 0 = +, 1 = -); internal link at local port n, PE at n + 1. The +
 * port of node u in dimension d links to the - port of node u + e_d. */
struct topo_ndt {
	int n;                             /* torus dimensions */
	int split;                         /* the dimension spread over both cards, or -1 */
	uint32_t k[TOPO_MAX_DIMS];         /* nodes per dimension */
	uint32_t stride[TOPO_MAX_DIMS];    /* node id step per dimension */
	uint8_t card_of[TOPO_MAX_DIMS][2]; /* card holding port (d, dir) */
	uint8_t card_port[TOPO_MAX_DIMS][2]; /* its local port there */
	uint32_t internal_port;            /* n */
	uint32_t pe_port;                  /* n + 1 */
	uint16_t *coord;                   /* [node * n + d], precomputed */
};

/* Folded Clos / fat tree / Myrinet Clos: switches numbered level by level
 * from the leaves (level 0) up; level l holds routers level_first[l] ..
 * level_first[l+1]-1. A level-l switch has down[l] down ports (local ports
 * 0 .. down[l]-1; terminals at level 0) and up[l] up ports (down[l] ..
 * down[l]+up[l]-1); ports of a partly filled last block may be unconnected.
 * When `xgft` is set the wiring is the extended generalized fat tree below
 * and routing is closed form: a level-l switch is (block b, index w) with
 * id level_first[l] + b * W[l] + w, W[l] = up[0]*..*up[l-1]; its up port j
 * goes to the level-(l+1) switch (b / down[l+1], w * up[l] + j), arriving
 * on down port b % down[l+1]; leaf b's down port c is endpoint b*down[0]+c.
 * per_package[l] logical switches share one physical switch (seed 001 §4.1
 * packages two 13-port core switches per 32-port chip). */
#define TOPO_MAX_LEVELS 8
struct topo_tree {
	int n_levels;
	uint32_t level_first[TOPO_MAX_LEVELS + 1];
	uint32_t down[TOPO_MAX_LEVELS];
	uint32_t up[TOPO_MAX_LEVELS];
	uint32_t per_package[TOPO_MAX_LEVELS];
	bool xgft;                    /* the closed form above holds */
	uint32_t W[TOPO_MAX_LEVELS];  /* switches per block at level l (xgft) */
	uint32_t blocks[TOPO_MAX_LEVELS]; /* blocks at level l (xgft) */
};

/* Physical switch count: sum over levels of ceil(count / per_package). */
static inline uint32_t topo_tree_physical_switches(const struct topo_tree *tr)
{
	uint32_t n = 0;
	for (int l = 0; l < tr->n_levels; l++) {
		uint32_t c = tr->level_first[l + 1] - tr->level_first[l];
		n += (c + tr->per_package[l] - 1) / tr->per_package[l];
	}
	return n;
}

/* Equality (seed 002 §3.1): N routers on a ring; local port i (< K) of
 * router r goes to (r + offset[i]) mod N when r is even and (r -
 * offset[i]) mod N when r is odd (offsets normalised to 0..N-1). Each S_A
 * value gives one port; each S_B value s gives two (+s, then -s) except s
 * = N/2, which gives one. Terminals follow at K .. K + p - 1. dist0[j] is
 * the hop distance from router 0 to router j; by the even/odd symmetry
 * (Remark 2: r -> r + 2t and r -> 1 - r are automorphisms) d(a, b) =
 * dist0[(b - a) mod N] for even a and dist0[(a - b) mod N] for odd a. */
struct topo_equality {
	uint32_t N;       /* routers */
	uint32_t K;       /* network radix (eq. 1) */
	uint32_t p;       /* terminals per router */
	uint32_t *offset; /* [K] offsets mod N, even-router view */
	uint32_t *dist0;  /* [N] */
};

static inline uint32_t topo_equality_distance(const struct topo_equality *eq, uint32_t a, uint32_t b)
{
	uint32_t j = (a & 1) ? (a + eq->N - b) % eq->N : (b + eq->N - a) % eq->N;
	return eq->dist0[j];
}

/* Slim Fly MMS graph (Besta & Hoefler SC14, seed 000 ref. [4]): q = 4w +
 * delta a prime power, routers (s, x, y) with s in {0, 1} and x, y in
 * GF(q) (elements numbered 0..q-1 by their base-p digits), id = s*q*q +
 * x*q + y. Network radix k' = (3q - delta)/2. Ports 0 .. n_intra-1 link
 * routers of the same subgraph and column whose y differ by an element of
 * X (s = 0) or X' (s = 1); port n_intra + j links router (0, x, y) to (1,
 * j, y - j x) and router (1, m, c) to (0, j, m j + c). Terminals follow at
 * k'. Diameter 2. */
struct topo_slimfly {
	uint32_t q, p;
	int delta;
	uint32_t kprime;  /* network radix (3q - delta) / 2 */
	uint32_t n_intra; /* |X| = |X'| = (q - delta) / 2 */
};

/* Outcome of a link-endpoint permutation (seed 003 §3): the trial kept and
 * its diameter and total of all ordered router-pair distances. */
struct topo_permuted {
	int method;              /* 1, 2 or 3 */
	uint32_t trial;          /* index of the kept trial */
	uint32_t diameter;
	uint64_t distance_sum;   /* over ordered router pairs; ASPL = sum / (n (n-1)) */
	uint32_t base_diameter;
	uint64_t base_distance_sum;
	uint64_t swaps;          /* link swaps done in the kept trial */
	const char *base_spec;   /* the base topology's canonical spec (owned by the params) */
};

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

	const struct topo_grid *grid; /* closed-form Cartesian view, or NULL */

	/* Closed-form views (see above); each NULL unless the family has it. */
	const struct topo_hyperx *hyperx;
	const struct topo_hypercube *hypercube;
	const struct topo_flex *flex;
	const struct topo_dragonfly *dragonfly;
	const struct topo_ndt *ndt;
	const struct topo_tree *tree;
	const struct topo_equality *equality;
	const struct topo_slimfly *slimfly;
	const struct topo_permuted *permuted;

	/* Packaging hint: cabinet[r] is the cabinet of router r, 0 ..
	 * n_cabinets-1, when the family has a natural rule (owned); NULL means
	 * canonical order, TOPO_CABINET_DEFAULT routers per cabinet. Read it
	 * through topo_router_cabinet(). */
	uint32_t *cabinet;
	uint32_t n_cabinets;
};

/* --- registry and lifecycle --------------------------------------------- */

/* All registered families, in registry order; *n gets the count. */
const struct topo_ops *const *topo_list(size_t *n);

/* Family by name, or NULL with *err listing the valid names. */
const struct topo_ops *topo_find(const char *name, struct nl_err *err);

/* Parse `spec` and build the topology. On failure nothing is allocated and
 * *err says which parameter of which family was wrong. */
int topo_new(const char *spec, struct topo **out, struct nl_err *err);

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

/* Hop distances from `src` to every router by BFS; dist[] has n_routers
 * entries, UINT32_MAX for unreachable. queue[] is n_routers scratch. */
void topo_bfs(const struct topo *t, uint32_t src, uint32_t *dist, uint32_t *queue);

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
 * endpoints per router, numbered router-major (ep = r * p + i), and publish
 * it as t->grid. The grid is kept in t->state, which must be at least
 * sizeof(struct topo_grid). */
int topo_grid_build(struct topo *t, int n_dims, const uint32_t *k, const bool *wrap, uint32_t p,
		    struct nl_err *err);

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
