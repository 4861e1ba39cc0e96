/* Equality's relative routing table R' (seed 002 §3.4) and the routing
 * step amin, eq_ugal and bgal share (eq_rprime.c). Internal to emu/route. */
#ifndef NETLOOM_ROUTE_EQ_RPRIME_H
#define NETLOOM_ROUTE_EQ_RPRIME_H

#include <stdbool.h>
#include <stdint.h>

#include "route/route.h"
#include "topo/topo_equality.h"

struct nl_err;

/* R' for router 0, indexed by the relative target j = (b - a) mod N for
 * an even router a and (a - b) mod N for an odd one (Remark 2, eq. 2):
 * port i of any router plays the role of port i of router 0, so one row
 * per j serves every pair. O(N x K) bits, no per-pair entry. */
struct eq_rprime {
	const struct topo_equality *eq; /* not owned */
	uint32_t words;                 /* 64-bit words per port mask (K / 64 rounded up) */
	uint64_t *min_mask;             /* [N * words]: ports of router 0 on a shortest path to j */
	uint64_t *sub_mask;             /* [N * words]: L_0j, the first hops of the sub-shortest paths */
	uint8_t *sub_hops;              /* [N]: length of a sub-shortest path to j (0: none) */
	uint8_t *n_paths;               /* [N]: shortest paths 0 -> j, saturated at 255 */
	uint32_t diameter;
	uint32_t max_sub_hops;          /* longest sub-shortest path */
};

/* Build R' for t (an equality topology, else NL_EUNSUPPORTED naming
 * `name`). */
int eq_rprime_build(struct eq_rprime *rp, const struct topo *t, const char *name, struct nl_err *err);
void eq_rprime_release(struct eq_rprime *rp);

/* The row of R' that serves router a towards router b. */
static inline uint32_t eq_rprime_rel(const struct eq_rprime *rp, uint32_t a, uint32_t b)
{
	uint32_t N = rp->eq->N;
	return (a & 1) ? (a + N - b) % N : (b + N - a) % N;
}

/* Per-instance state of amin, eq_ugal and bgal. */
struct eq_route {
	struct eq_rprime rp;
	uint32_t class_w;   /* VCs per hop class (VC class k on hop k) */
	uint32_t threshold; /* bgal: sub-shortest paths only when n_paths <= threshold; UINT32_MAX = always */
	bool adaptive_src;  /* consider sub-shortest first hops at the source (ugal, bgal) */
};

/* init for the three: R', then the VC rule. vcs_needed is the paper's
 * (amin: the diameter; ugal/bgal: 4 for d = 2, d + 1 otherwise). */
int eq_route_init(struct route *r, struct eq_route *s, bool adaptive_src, uint32_t threshold, struct nl_err *err);
void eq_route_release(struct route *r);
void eq_route_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo, uint8_t *vc_hi);
int eq_route_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
		     struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out);

#endif
