/* The analytic backend's per-job link counts: an open-addressing table
 * keyed by (global port, job), linear probing, at most half full, grown
 * before a message's counts so they cannot fail half-way (analytic_jobs.h).
 * job_links hands out its pairs sorted by (port, job). */
#include "net/analytic_jobs.h"

#include <stdlib.h>

#include "core/error.h"

#define ANALYTIC_JOBS_FREE UINT32_MAX /* tab: the port of a free slot */
#define ANALYTIC_JOBS_BITS0 6u        /* tab: 64 slots to start with */

/* The slot of (port, job) in a table of 2^bits slots: where the pair is,
 * or the free slot it goes to. Fibonacci hashing (Knuth, TAOCP vol. 3,
 * 6.4): the top bits of the pair times 2^64 / golden ratio, so ports
 * that differ only in high bits still spread. */
static size_t analytic_jobs_slot(const struct net_job_use *tab, unsigned bits, uint32_t port, uint32_t job)
{
	size_t mask = ((size_t)1 << bits) - 1;
	size_t i = (size_t)((((uint64_t)port << 32 | job) * 0x9E3779B97F4A7C15ull) >> (64 - bits));
	while (tab[i].port != ANALYTIC_JOBS_FREE && (tab[i].port != port || tab[i].job != job))
		i = (i + 1) & mask;
	return i;
}

/* An empty table of 2^bits slots, or NULL. */
static struct net_job_use *analytic_jobs_table(unsigned bits)
{
	struct net_job_use *tab = malloc(((size_t)1 << bits) * sizeof *tab);
	for (size_t i = 0; tab && i < (size_t)1 << bits; i++)
		tab[i].port = ANALYTIC_JOBS_FREE;
	return tab;
}

int analytic_jobs_start(struct analytic_jobs *j, const uint32_t *ep_job)
{
	struct net_job_use *tab = analytic_jobs_table(ANALYTIC_JOBS_BITS0);
	if (!tab)
		return NL_ENOMEM;
	free(j->tab);
	j->tab = tab;
	j->bits = ANALYTIC_JOBS_BITS0;
	j->n = 0;
	j->ep_job = ep_job;
	return 0;
}

void analytic_jobs_release(struct analytic_jobs *j)
{
	free(j->tab);
	free(j->list);
	*j = (struct analytic_jobs){0};
}

int analytic_jobs_reserve(struct analytic_jobs *j, size_t more)
{
	unsigned bits = j->bits;
	while (2 * (j->n + more) > (size_t)1 << bits)
		bits++;
	if (bits == j->bits)
		return 0;
	struct net_job_use *tab = analytic_jobs_table(bits);
	if (!tab)
		return NL_ENOMEM;
	for (size_t i = 0; i < (size_t)1 << j->bits; i++)
		if (j->tab[i].port != ANALYTIC_JOBS_FREE)
			tab[analytic_jobs_slot(tab, bits, j->tab[i].port, j->tab[i].job)] = j->tab[i];
	free(j->tab);
	j->tab = tab;
	j->bits = bits;
	return 0;
}

void analytic_jobs_add(struct analytic_jobs *j, uint32_t port, uint32_t src_ep, uint64_t bytes)
{
	uint32_t job = j->ep_job[src_ep];
	struct net_job_use *u = &j->tab[analytic_jobs_slot(j->tab, j->bits, port, job)];
	if (u->port == ANALYTIC_JOBS_FREE) {
		*u = (struct net_job_use){.port = port, .job = job, .count = 0};
		j->n++;
	}
	u->count += bytes;
}

static int analytic_jobs_cmp(const void *pa, const void *pb)
{
	const struct net_job_use *x = pa, *y = pb;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

int analytic_jobs_list(struct analytic_jobs *j, const struct net_job_use **use, size_t *n)
{
	*use = NULL;
	*n = 0;
	if (!j->tab)
		return 0;
	struct net_job_use *l = malloc((j->n ? j->n : 1) * sizeof *l);
	if (!l)
		return NL_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < (size_t)1 << j->bits; i++)
		if (j->tab[i].port != ANALYTIC_JOBS_FREE)
			l[k++] = j->tab[i];
	qsort(l, k, sizeof *l, analytic_jobs_cmp);
	free(j->list);
	j->list = l;
	*use = l;
	*n = k;
	return 0;
}
