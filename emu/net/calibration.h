/* Calibration tables of the analytic backend: one-way message times (ps)
 * measured at increasing sizes (netloom-pingpong's JSON). */
#ifndef NETLOOM_NET_CALIBRATION_H
#define NETLOOM_NET_CALIBRATION_H

#include <stddef.h>
#include <stdint.h>

struct nl_err;

/* The longest one-way time a table may hold (seconds; 11.6 days), and the
 * longest time net_cal_ps gives (ps, 2^62: any sum of a few of them still
 * fits simulated time's 64 bits). */
#define NET_CAL_MAX_SECONDS 1e6
#define NET_CAL_MAX_PS 4611686018427387904.0

struct net_cal {
	uint64_t *bytes;
	double *ps;
	size_t n; /* 0: no table */
};

/* Read the run of `calibration_ranks` ranks from `path`: {"runs": [{"ranks":
 * N, "one_way": TABLE, "exchange": TABLE (optional)}...]} or one such run
 * object. NL_EFORMAT / NL_ECONFIG / NL_ENOMEM with one line in *err. */
int net_cal_load(const char *path, uint64_t calibration_ranks, struct net_cal *one_way, struct net_cal *exchange,
		 struct nl_err *err);
/* Time of a message of `bytes`, ps: linear between measured sizes, the last
 * segment's slope beyond them. */
uint64_t net_cal_ps(const struct net_cal *c, uint64_t bytes);
void net_cal_free(struct net_cal *c);

#endif
