/* The analytic backend's per-job link counts (count_jobs, job_links; issue
 * 13, interference): payload bytes per (router channel, job of the source
 * endpoint), kept only for the pairs messages used, so memory follows the
 * pairs, not channels x jobs. Internal to emu/net (backend_analytic.c). */
#ifndef NETLOOM_NET_ANALYTIC_JOBS_H
#define NETLOOM_NET_ANALYTIC_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

/* Zeroed: not counting. Open addressing keyed by (global port, job), linear
 * probing, at most half full. A dense channels x jobs table cost 8 bytes x
 * n_ports per job whatever the jobs used (1.4 GB for 64 jobs of 8 ranks on
 * torus:k=512x512). */
struct analytic_jobs {
	struct net_job_use *tab;  /* [2^bits], port UINT32_MAX: a free slot; NULL: not counting */
	unsigned bits;            /* log2 of the table's slots */
	size_t n;                 /* pairs held */
	struct net_job_use *list; /* analytic_jobs_list's sorted copy, [n] */
	const uint32_t *ep_job;   /* [endpoint] its job (count_jobs'; the caller owns it) */
};

/* Start counting from zero (a second call starts again): ep_job[e] is the
 * job of endpoint e, kept by pointer. 0, or NL_ENOMEM with j unchanged. */
int analytic_jobs_start(struct analytic_jobs *j, const uint32_t *ep_job);
/* Free what j holds; j is then zeroed (not counting). */
void analytic_jobs_release(struct analytic_jobs *j);

/* Room for `more` new pairs, so that the analytic_jobs_add calls of one
 * message cannot fail half-way through its route. 0 or NL_ENOMEM (j
 * unchanged). j must be counting. */
int analytic_jobs_reserve(struct analytic_jobs *j, size_t more);
/* Count `bytes` on channel `port` for the job of endpoint src_ep; at most
 * as many new pairs as the last analytic_jobs_reserve made room for. */
void analytic_jobs_add(struct analytic_jobs *j, uint32_t port, uint32_t src_ep, uint64_t bytes);

/* The counts, sorted by (port, job): *n entries at *use, owned by j, valid
 * until the next call or analytic_jobs_release; *n = 0
 * when not counting. O(p log p) for the p pairs used. 0 or NL_ENOMEM. */
int analytic_jobs_list(struct analytic_jobs *j, const struct net_job_use **use, size_t *n);

#endif
