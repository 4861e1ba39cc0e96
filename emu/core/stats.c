/* Statistics: running moments and log-linear histograms. */
#include "core/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"


void stats_acc_init(struct stats_acc *a)
{
	a->n = 0;
	a->sum = a->sum_sq = 0;
	a->min = INFINITY;
	a->max = -INFINITY;
}

double stats_acc_mean(const struct stats_acc *a)
{
	return a->n ? a->sum / (double)a->n : 0.0;
}

double stats_acc_stddev(const struct stats_acc *a)
{
	if (a->n < 2)
		return 0.0;
	double m = a->sum / (double)a->n;
	double v = (a->sum_sq - (double)a->n * m * m) / (double)(a->n - 1);
	return v > 0 ? sqrt(v) : 0.0;
}

void stats_acc_merge(struct stats_acc *into, const struct stats_acc *from)
{
	into->n += from->n;
	into->sum += from->sum;
	into->sum_sq += from->sum_sq;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
}

/* Bucket index of v: exact below STATS_HIST_EXACT (= 2^12), then for each
 * power of two 2^e (e >= 12) STATS_HIST_SUB equal slices. */
static inline uint32_t stats_hist_index(uint64_t v)
{
	if (v < STATS_HIST_EXACT)
		return (uint32_t)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* 12..63 */
	uint64_t slice = (v >> (e - 8)) & (STATS_HIST_SUB - 1);
	return STATS_HIST_EXACT + (e - 12u) * STATS_HIST_SUB + (uint32_t)slice;
}

static inline uint64_t stats_hist_lower(uint32_t i)
{
	if (i < STATS_HIST_EXACT)
		return i;
	uint32_t k = i - STATS_HIST_EXACT;
	unsigned e = 12u + k / STATS_HIST_SUB;
	uint64_t slice = k % STATS_HIST_SUB;
	return (1ULL << e) + (slice << (e - 8));
}

int stats_hist_init(struct stats_hist *h)
{
	h->bins = calloc(STATS_HIST_NBINS, sizeof *h->bins);
	if (!h->bins)
		return NL_ENOMEM;
	h->n = 0;
	h->max = 0;
	h->min = UINT64_MAX;
	h->sum = 0;
	return 0;
}

void stats_hist_release(struct stats_hist *h)
{
	free(h->bins);
	h->bins = NULL;
}

/* The bins a histogram's values can be in: index(min) .. index(max).
 * Reset and merge stay inside it, so a histogram touches the pages of the
 * values it holds, not all 136 KiB: a flit network keeps three per
 * partition (128 partitions on a 32,768-router torus: 52 MiB once every
 * reset had written them all). */
static bool stats_hist_span(const struct stats_hist *h, uint32_t *lo, uint32_t *hi)
{
	if (!h->n)
		return false;
	*lo = stats_hist_index(h->min);
	*hi = stats_hist_index(h->max);
	return true;
}

void stats_hist_reset(struct stats_hist *h)
{
	uint32_t lo, hi;
	if (stats_hist_span(h, &lo, &hi))
		memset(h->bins + lo, 0, (size_t)(hi - lo + 1) * sizeof *h->bins);
	h->n = 0;
	h->max = 0;
	h->min = UINT64_MAX;
	h->sum = 0;
}

void stats_hist_add(struct stats_hist *h, uint64_t v)
{
	h->bins[stats_hist_index(v)]++;
	h->n++;
	h->sum += (double)v;
	if (v > h->max)
		h->max = v;
	if (v < h->min)
		h->min = v;
}

void stats_hist_merge(struct stats_hist *into, const struct stats_hist *from)
{
	uint32_t lo, hi;
	if (stats_hist_span(from, &lo, &hi))
		for (uint32_t i = lo; i <= hi; i++)
			into->bins[i] += from->bins[i];
	into->n += from->n;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	if (from->min < into->min)
		into->min = from->min;
}

double stats_hist_mean(const struct stats_hist *h)
{
	return h->n ? h->sum / (double)h->n : 0.0;
}

uint64_t stats_hist_percentile(const struct stats_hist *h, double q)
{
	if (!h->n)
		return 0;
	if (q >= 100.0)
		return h->max;
	uint64_t rank = (uint64_t)ceil(q / 100.0 * (double)h->n);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (uint32_t i = 0; i < STATS_HIST_NBINS; i++) {
		seen += h->bins[i];
		if (seen >= rank) {
			uint64_t v = stats_hist_lower(i);
			if (v < h->min)
				v = h->min;
			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}

double stats_t95(uint32_t df)
{
	/* t(0.975, df) for df = 1..30, from the distribution's tables. */
	static const double t[30] = {
		12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
		2.200985,  2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
		2.079614,  2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
	};
	if (df == 0)
		return INFINITY;
	if (df <= 30)
		return t[df - 1];
	/* Above: the Cornish-Fisher expansion in 1/df around the normal
	 * quantile z (Abramowitz & Stegun 26.7.5), within 1e-5 of the
	 * table's value at df = 30 and closer beyond. */
	const double z = 1.959963984540054, z2 = z * z, v = (double)df;
	const double g1 = (z2 + 1) * z / 4;
	const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
	const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
	const double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
	return z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v;
}
