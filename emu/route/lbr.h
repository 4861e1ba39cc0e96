/* LBR's state and selection maths (lbr.c), exposed for its unit test. */
#ifndef NETLOOM_ROUTE_LBR_H
#define NETLOOM_ROUTE_LBR_H

#include <stdbool.h>
#include <stdint.h>

struct topo;

#define LBR_MAX_K 16          /* N + M */
#define LBR_MAX_D 8           /* diameter: a Valiant path has at most 2D hops (VC classes) */
#define LBR_MAX_ROUTERS 1024u /* per-pair tables are O(routers^2) */
#define LBR_ONE (1u << 31)    /* cumulative alpha of 1 */

/* One candidate path: Valiant intermediate (UINT32_MAX: a minimal path),
 * the salt choosing each segment's minimal next hops, its channel count. */
struct lbr_path {
	uint32_t inter;
	uint8_t salt;
	uint8_t n_ch;
};

struct lbr_state {
	uint32_t n, N, K;        /* routers, minimal candidates, N + M */
	uint32_t diameter, max_hops, class_w;
	bool redraw;
	bool per_pair;           /* lambda_s T counted per pair (rate=pair), else per source */
	uint64_t epoch;          /* snapshots so far: the one occ holds (keys the path draws) */
	uint32_t *moff;          /* [n*n + 1] offsets into mports per (router, target) */
	uint16_t *mports;        /* minimal next-hop local ports */
	struct lbr_path *path;   /* [(src*n + dst)*K + k] */
	uint32_t *ch;            /* [((src*n + dst)*K + k) * max_hops + i] global ports of the path */
	uint32_t *cum;           /* [(src*n + dst)*K + k] cumulative alpha x LBR_ONE */
	uint64_t *pair_epoch;    /* [src*n + dst] the snapshot path, ch and cum were computed for */
	uint32_t *count;         /* [src*n + dst] packets injected since then (lambda_s T for rate=pair) */
	uint64_t *src_epoch;     /* [src] the interval src_count counts */
	uint32_t *src_count;     /* [src] packets injected in snapshot interval src_epoch */
	uint32_t *src_prev;      /* [src] packets injected in interval src_epoch - 1 (rate=source) */
	uint32_t *src_active;    /* [src] pairs of src that sent since the last snapshot (from count) */
	uint32_t *occ;           /* [global port] channel queues at snapshot `epoch` */
};

/* Brings pair (src, dst)'s paths and cumulative alphas up to the last
 * snapshot (lbr.c computes them lazily, at the pair's next packet);
 * lbr_inject calls it, the unit test too before reading them. */
void lbr_pair_current(const struct topo *t, struct lbr_state *s, uint32_t src, uint32_t dst);

/* eqs. 9-10 with the repeated removal of lbr.c's header: alpha[k] for K
 * paths of queue lengths q[] when L = lambda_s T packets are expected
 * (L > 0); removed paths get 0. */
void lbr_alphas(const double *q, uint32_t K, double L, double *alpha);

#endif
