/* Helpers shared by the topology family files (not part of the module's
 * interface: other folders include only topo/topo.h). */
#ifndef NETLOOM_TOPO_TOPO_INTERNAL_H
#define NETLOOM_TOPO_TOPO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo/topo.h"
#include "topo/topo_dragonfly.h"
#include "topo/topo_equality.h"
#include "topo/topo_flex.h"
#include "topo/topo_hypercube.h"
#include "topo/topo_hyperx.h"
#include "topo/topo_ndt.h"
#include "topo/topo_permuted.h"
#include "topo/topo_slimfly.h"
#include "topo/topo_tree.h"

struct nl_err;

/* Every family's ops object, for the registry and the checked downcasts. */
extern const struct topo_ops topo_torus_ops;
extern const struct topo_ops topo_mesh_ops;
extern const struct topo_ops topo_full_ops;
extern const struct topo_ops topo_fly_ops;
extern const struct topo_ops topo_cmesh_ops;
extern const struct topo_ops topo_graph_ops;
extern const struct topo_ops topo_anynet_ops;
extern const struct topo_ops topo_hyperx_ops;
extern const struct topo_ops topo_hypercube_ops;
extern const struct topo_ops topo_fhypercube_ops;
extern const struct topo_ops topo_flatfly_ops;
extern const struct topo_ops topo_flex_ops;
extern const struct topo_ops topo_dragonfly_ops;
extern const struct topo_ops topo_fattree_ops;
extern const struct topo_ops topo_clos_ops;
extern const struct topo_ops topo_myriclos_ops;
extern const struct topo_ops topo_slimfly_ops;
extern const struct topo_ops topo_equality_ops;
extern const struct topo_ops topo_ndt_ops;
extern const struct topo_ops topo_dln_ops;
extern const struct topo_ops topo_p1_ops;
extern const struct topo_ops topo_p2_ops;
extern const struct topo_ops topo_p3_ops;

/* 0, or the refusal of a network past the port table's limits (at most
 * 2^30 routers, fewer than 2^31 ports and endpoints) naming `given`, the
 * parameters and values that give those sizes ("parameters n=8, d=4"). */
int topo_size_check(const struct topo *t, const char *given, double routers, double ports, double endpoints,
		    struct nl_err *err);

/* topo_size_check for a check with no struct topo (topo_equality_fits):
 * family names the topology in the refusal. */
int topo_size_check_named(const char *family, const char *given, double routers, double ports, double endpoints,
			  struct nl_err *err);

/* "parameters l=2, r=64" of t's plain parameters (a nested base left
 * out) in buf (cut at cap), for the refusal of a family that does not
 * name its own (topo_size_check's `given`). */
void topo_params_text(const struct topo *t, char *buf, size_t cap);

/* The n values of v as "8x8x4" in buf (cut at cap), for messages. */
const char *topo_dims_text(char *buf, size_t cap, const uint32_t *v, int n);
/* A mixed-radix coordinate table: n entries of `dims` coordinates each,
 * coordinate d of entry u = (u / stride[d]) % k[d] (the grid, HyperX and
 * nD twin torus numberings). A new array, or NULL when out of memory. */
uint16_t *topo_coords_new(uint32_t n, int dims, const uint32_t *stride, const uint32_t *k);

/* Record an error prefixed with "topology '<family>': " and return code. */
int topo_errf(const struct topo *t, struct nl_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Build a HyperX (seed 001 §3) into t and publish hx (which must live in
 * t->state; topo_hyperx_of returns it): L dimensions of S[d] switches, K[d] trunked links
 * per aligned pair, T terminals per switch, endpoints router-major. Fails
 * with an error naming `sname` and `tname` (the family's parameters for S
 * and T) when the network is too large. */
int topo_hyperx_setup(struct topo *t, struct topo_hyperx *hx, int L, const uint32_t *S, const uint32_t *K,
		      uint32_t T, const char *sname, const char *tname, struct nl_err *err);

/* hypercube's state: its HyperX view first, so t->state is that view for
 * topo_hyperx_of, then its hypercube view. */
struct topo_hypercube_state {
	struct topo_hyperx hx;
	struct topo_hypercube hc;
};

/* Free what topo_hyperx_setup allocated in hx. */
void topo_hyperx_free_view(struct topo_hyperx *hx);

/* HyperX distance: the number of coordinates in which a and b differ. */
uint32_t topo_hyperx_distance(const struct topo *t, uint32_t a, uint32_t b);

/* BookSim2's flatfly on-chip channel lengths (topo_ops.link_latency;
 * networks/flatfly_onchip.cpp): routers on an x-by-x grid, x = sqrt of
 * the router count, router id = row * x + column, terminals on an xr-by-xr
 * patch (xr = sqrt T); a channel between routers a and b is xr * |dcolumn|
 * + xr * |drow| cycles. Refused unless both square roots are whole and xr
 * <= 3 (beyond it BookSim's terminal channels grow, not modelled). */
int topo_hyperx_link_latency(const struct topo *t, uint16_t *lat, struct nl_err *err);

/* HyperX coordinates (topo_ops.coords) and minimal next hops
 * (topo_ops.min_ports): in every differing dimension d, the K[d] trunk
 * ports toward the destination's coordinate; the families that share the
 * HyperX view share these. */
int topo_hyperx_coords(const struct topo *t, uint32_t r, uint32_t *c);
uint32_t topo_hyperx_min_ports(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip, uint32_t *ports,
			       uint32_t cap);

/* Build an extended generalized fat tree (folded Clos) into t and publish
 * tr (which must live in t->state; topo_tree_of returns it): L levels, level-l switches
 * with down[l] children and up[l] parents (up[L-1] = 0), n_terminals
 * terminals on the leaves (leaf b's down port c is endpoint b*down[0] + c),
 * and only the leaves that carry terminals. Blocks fill in order; the
 * parents' ports toward missing children stay unconnected. The top level
 * must form a single block (the caller checks radix rules first). */
int topo_xgft_setup(struct topo *t, struct topo_tree *tr, int L, const uint32_t *down, const uint32_t *up,
		    uint64_t n_terminals, struct nl_err *err);

/* Append `port` to a minimal-port list under topo_ops.min_ports's window:
 * element *n is written to ports[*n - skip] when it falls in [skip, skip
 * + cap), and *n counts every element. */
static inline void topo_ports_add(uint32_t *ports, uint32_t *n, uint32_t skip, uint32_t cap, uint32_t port)
{
	if (*n >= skip && *n - skip < cap)
		ports[*n - skip] = port;
	(*n)++;
}

/* Dragonfly minimal next hops by arithmetic alone (O(h^2 (rounds + 3)) per
 * call, no tables): what topo_ops.min_ports uses when its per-router rows
 * would exceed their memory cap; exported so tests check it against BFS on
 * the small shapes, where the rows serve. */
uint32_t topo_dragonfly_min_ports_arith(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip,
					uint32_t *ports, uint32_t cap);

/* Minimal next hops by the closed-form distance: the network ports whose
 * far end is one hop closer (what topo_min_ports does when the family has
 * no min_ports of its own). */
uint32_t topo_min_ports_by_distance(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip,
				    uint32_t *ports, uint32_t cap);

/* Capabilities shared by the tree families (t->state is a topo_tree):
 * level (0 at the leaves), coordinates (level, index in level), and for an
 * XGFT the closed-form minimal next hops toward a leaf. */
uint32_t topo_tree_level(const struct topo *t, uint32_t r);
int topo_tree_coords(const struct topo *t, uint32_t r, uint32_t *c);
uint32_t topo_xgft_min_ports(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip, uint32_t *ports,
			     uint32_t cap);

/* Orbits of a complete XGFT (every block full): one per level. */
uint32_t topo_xgft_orbits(const struct topo *t, uint32_t *reps, uint64_t *weight, uint32_t cap);

/* The finite field GF(q), q = p^m: elements are 0..q-1, read as the
 * base-p digits of a polynomial of degree < m over GF(p) modulo a
 * primitive polynomial (found by search), so that addition is digit-wise
 * mod p and xi = the element "x" (or a primitive root when m = 1) generates
 * the multiplicative group: exp[i] = xi^i, log[exp[i]] = i. */
struct topo_gf {
	uint32_t q, p, m;
	uint32_t *exp; /* [2(q-1)]: xi^i, doubled so exp[log a + log b] needs no mod */
	uint32_t *log; /* [q], log[0] unused */
};

/* Set up GF(q). Returns 0, NL_EINVAL when q is not a prime power (then
 * *p_out is 0), or NL_ENOMEM. *p_out and *m_out get p and m. */
int topo_gf_init(struct topo_gf *f, uint32_t q, uint32_t *p_out, uint32_t *m_out);
void topo_gf_release(struct topo_gf *f);
uint32_t topo_gf_add(const struct topo_gf *f, uint32_t a, uint32_t b);
uint32_t topo_gf_neg(const struct topo_gf *f, uint32_t a);
uint32_t topo_gf_mul(const struct topo_gf *f, uint32_t a, uint32_t b);

/* Parameters shared by the grid families torus and mesh: k (radix per
 * dimension), n (BookSim's dimension count for a single radix), p. */
struct topo_grid_params {
	struct param_vec k;
	int64_t n;
	int64_t p;
};
extern const struct param_def topo_grid_params_def[];

/* Build a torus (wrap) or mesh from struct topo_grid_params. */
int topo_grid_build_params(struct topo *t, bool wrap, struct nl_err *err);

/* Canonical spec of a torus or mesh (topo_ops.format_spec):
 * "torus:k=8x8,p=1", every dimension written out and n left out.
 * BookSim's "k=8,n=2" and "k=8x8" build the same network and have one
 * canonical text; they were "k=8,n=2,p=1" and "k=8x8,n=0,p=1", where
 * n=0, meaning "k lists the dimensions", read as zero dimensions. */
int topo_grid_format_spec(const struct topo *t, char *buf, size_t cap);

/* Grid coordinates (topo_ops.coords of torus and mesh). */
int topo_grid_coords(const struct topo *t, uint32_t r, uint32_t *c);

/* Mesh hop distance (the sum of coordinate differences) and diameter
 * (the sum of k - 1): topo_ops.distance and .diameter of mesh and cmesh. */
uint32_t topo_grid_mesh_distance(const struct topo *t, uint32_t a, uint32_t b);
uint32_t topo_grid_mesh_diameter(const struct topo *t);

/* Parameters shared by the permuted families p1, p2 and p3 (seed 003 §3). */
struct topo_perm_params {
	char base[PARAM_STR_MAX]; /* the base topology's spec */
	int64_t trials;           /* random trials; the best is kept */
	int64_t cab;              /* routers per cabinet; 0 = the base's rule, else 16 */
	double frac;              /* probability that a valid swap is made (§5.4) */
	int64_t seed;             /* random seed */
};
extern const struct param_def topo_perm_params_def[];

/* Build the `method`-permuted (1 = one-step, 2 = two-cab, 3 = three-cab)
 * version of the base topology named in t->params into t. */
int topo_perm_build(struct topo *t, int method, struct nl_err *err);

/* A multiset of unordered router pairs (links), open addressing keyed by
 * the pair; used to reject duplicate links and to test adjacency in O(1). */
struct topo_edgeset {
	uint64_t *key;   /* (min << 32 | max) + 1, 0 = empty slot */
	uint32_t *count; /* multiplicity (0 after removal; the key stays) */
	size_t cap;      /* power of two */
	size_t used;     /* slots with a key */
};

int topo_edgeset_init(struct topo_edgeset *s, size_t expected, struct nl_err *err);
void topo_edgeset_release(struct topo_edgeset *s);
uint32_t topo_edgeset_count(const struct topo_edgeset *s, uint32_t a, uint32_t b);
int topo_edgeset_add(struct topo_edgeset *s, uint32_t a, uint32_t b, struct nl_err *err);
void topo_edgeset_remove(struct topo_edgeset *s, uint32_t a, uint32_t b);

/* Fill an edge set with every router-to-router link of t. */
int topo_edgeset_from_topo(struct topo_edgeset *s, const struct topo *t, struct nl_err *err);

/* Exact diameter and sum of distances over ordered router pairs by one BFS
 * per router. Returns 0, or 1 when the graph is disconnected or its
 * diameter exceeds `cutoff` (then the outputs are meaningless); the search
 * stops as soon as that is known. */
int topo_all_pairs(const struct topo *t, uint32_t cutoff, uint32_t *diameter, uint64_t *sum,
		   struct nl_err *err);

#endif
