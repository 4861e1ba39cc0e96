/* Statistics: running moments and log-linear histograms with percentiles.
 *
 * Values are non-negative integers (cycles, picoseconds, bytes). A histogram
 * is exact below STATS_HIST_EXACT and has relative error below 1/256 above
 * it (HdrHistogram-style log-linear buckets), in fixed memory allocated at
 * init: recording never allocates.
 */
#ifndef NETLOOM_CORE_STATS_H
#define NETLOOM_CORE_STATS_H

#include <stdint.h>

struct json_t;

/* Mean, variance, min and max of a stream of doubles. */
struct stats_acc {
	uint64_t n;
	double sum, sum_sq; /* of the values */
	double min, max;
};

void stats_acc_init(struct stats_acc *a);
static inline void stats_acc_add(struct stats_acc *a, double x)
{
	a->n++;
	a->sum += x;
	a->sum_sq += x * x;
	if (x < a->min)
		a->min = x;
	if (x > a->max)
		a->max = x;
}
double stats_acc_mean(const struct stats_acc *a); /* 0 when empty */
double stats_acc_stddev(const struct stats_acc *a);
void stats_acc_merge(struct stats_acc *into, const struct stats_acc *from);

/* The two-sided 95% critical value of Student's t with df degrees of
 * freedom (df >= 1): the half-width of a mean's 95% confidence interval
 * from df + 1 samples is this times the standard error. 1.96 (the normal
 * quantile) for few samples covers far less than 95%: 70% at 2. */
double stats_t95(uint32_t df);

#define STATS_HIST_EXACT 4096u /* values below are counted exactly */
#define STATS_HIST_SUB 256u    /* buckets per power of two above that */
#define STATS_HIST_NBINS (STATS_HIST_EXACT + 52u * STATS_HIST_SUB) /* bins[] entries */

struct stats_hist {
	uint64_t *bins; /* STATS_HIST_EXACT + 52 * STATS_HIST_SUB counters */
	uint64_t n;     /* values recorded */
	uint64_t max;   /* largest value recorded */
	uint64_t min;   /* smallest value recorded (UINT64_MAX when empty) */
	double sum;     /* of values, for the mean */
};

int stats_hist_init(struct stats_hist *h);
void stats_hist_release(struct stats_hist *h);
void stats_hist_reset(struct stats_hist *h);
void stats_hist_add(struct stats_hist *h, uint64_t v);
void stats_hist_merge(struct stats_hist *into, const struct stats_hist *from);
double stats_hist_mean(const struct stats_hist *h);
/* Nearest-rank percentile, q in [0, 100]; exact below STATS_HIST_EXACT, the
 * bucket's lower bound above it (and never more than max). 0 when empty. */
uint64_t stats_hist_percentile(const struct stats_hist *h, double q);

#endif
