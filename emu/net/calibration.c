/* Calibration tables of the analytic backend (docs/replay.md): one-way
 * message times measured by netloom-pingpong at increasing sizes, read from
 * its JSON and interpolated. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/error.h"
#include "net/calibration.h"

void net_cal_free(struct net_cal *c)
{
	free(c->bytes);
	free(c->ps);
	c->bytes = NULL;
	c->ps = NULL;
	c->n = 0;
}

/* One table of a calibration run: [{"bytes", "median_seconds"}...], at
 * least 2 sizes, increasing. */
static int cal_table(struct net_cal *c, json_t *tab, const char *path, const char *name, long long ranks,
		     struct nl_err *err)
{
	if (!json_is_array(tab) || json_array_size(tab) < 2)
		return nl_errf(err, NL_EFORMAT,
			       "calibration %s: run of %lld ranks: expected a '%s' array of at least 2 sizes", path,
			       ranks, name);
	size_t n = json_array_size(tab);
	c->bytes = malloc(n * sizeof *c->bytes);
	c->ps = malloc(n * sizeof *c->ps);
	if (!c->bytes || !c->ps)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(tab, i);
		json_t *b = json_object_get(e, "bytes"), *sec = json_object_get(e, "median_seconds");
		/* A time above NET_CAL_MAX_SECONDS is no measurement, and in
		 * picoseconds it would pass the 64 bits simulated time has. */
		if (!json_is_integer(b) || json_integer_value(b) < 0 || !json_is_number(sec) ||
		    !(json_number_value(sec) >= 0 && json_number_value(sec) <= NET_CAL_MAX_SECONDS) ||
		    (i && (uint64_t)json_integer_value(b) <= c->bytes[i - 1])) {
			/* The run and the values refused, so a file of several
			 * runs says which entry of which, and what it holds. */
			char bv[32] = "not an integer", sv[32] = "not a number";
			if (!b)
				snprintf(bv, sizeof bv, "missing");
			else if (json_is_integer(b))
				snprintf(bv, sizeof bv, "%lld", (long long)json_integer_value(b));
			if (!sec)
				snprintf(sv, sizeof sv, "missing");
			else if (json_is_number(sec))
				snprintf(sv, sizeof sv, "%g", json_number_value(sec));
			return nl_errf(err, NL_EFORMAT,
				       "calibration %s: run of %lld ranks: %s[%zu]: bytes %s, median_seconds %s: expected "
				       "increasing 'bytes' and a 'median_seconds' >= 0 (at most %g)",
				       path, ranks, name, i, bv, sv, NET_CAL_MAX_SECONDS);
		}
		c->bytes[i] = (uint64_t)json_integer_value(b);
		c->ps[i] = json_number_value(sec) * 1e12;
	}
	c->n = n;
	return 0;
}

/* "2, 8, 16": the ranks of the runs a calibration holds (doc itself when
 * it is one run), what calibration_ranks may be; "" when it has none. */
static void cal_run_ranks(json_t *doc, char *buf, size_t size)
{
	json_t *runs = json_object_get(doc, "runs"), *r;
	size_t i, len = 0;
	buf[0] = '\0';
	if (!json_is_array(runs)) {
		if (json_is_integer(json_object_get(doc, "ranks")))
			snprintf(buf, size, "%lld", (long long)json_integer_value(json_object_get(doc, "ranks")));
		return;
	}
	json_array_foreach(runs, i, r) {
		json_t *n = json_object_get(r, "ranks");
		if (!json_is_integer(n) || len >= size)
			continue;
		int w = snprintf(buf + len, size - len, "%s%lld", len ? ", " : "", (long long)json_integer_value(n));
		len += w > 0 ? (size_t)w : 0;
	}
}

/* Read the calibration: {"runs": [{"ranks": N, "one_way": TABLE,
 * "exchange": TABLE (optional)}...]} or one such run object, as
 * netloom-pingpong prints it. */
int net_cal_load(const char *path, uint64_t calibration_ranks, struct net_cal *one_way, struct net_cal *exchange,
		 struct nl_err *err)
{
	long long ranks = (long long)calibration_ranks;
	json_error_t je;
	/* jansson opens a directory and reads it as an empty file ("/tmp:1:
	 * '[' or '{' expected near end of file"). */
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return nl_errf(err, NL_EIO,
			       "key 'calibration': %s: is a directory, not a calibration file (netloom-pingpong's JSON)",
			       path);
	/* Opened here, not by jansson, whose "unable to open PATH: reason"
	 * read unlike the other keys naming a file (placement_map's
	 * "PATH: cannot open map file: reason"); '' and '-' are refused by
	 * name (nl_open_input). */
	FILE *f;
	if (nl_open_input(path, "calibration file", &f, err))
		return nl_err_prefix(err, "key 'calibration'");
	json_t *doc = json_loadf(f, 0, &je);
	fclose(f);
	if (!doc && je.line < 1) /* not read at all (a read error): jansson says why */
		return nl_errf(err, NL_EIO, "key 'calibration': %s: %s", path, je.text);
	if (!doc)
		return nl_errf(err, NL_EFORMAT, "key 'calibration': %s:%d: %s", path, je.line, je.text);
	json_t *run = NULL, *runs = json_object_get(doc, "runs");
	if (json_is_array(runs)) {
		size_t i, at = 0;
		json_t *r;
		/* Two runs of the ranks asked for: which one is meant is not
		 * ours to guess (the last was used, silently). */
		json_array_foreach(runs, i, r) {
			if (json_integer_value(json_object_get(r, "ranks")) != ranks)
				continue;
			if (run) {
				json_decref(doc);
				return nl_errf(err, NL_EFORMAT,
					       "calibration %s: runs[%zu] and runs[%zu] both have %lld ranks; expected one "
					       "run per rank count",
					       path, at, i, ranks);
			}
			run = r;
			at = i;
		}
	} else if (json_integer_value(json_object_get(doc, "ranks")) == ranks) {
		run = doc;
	}
	int rc;
	if (!run) {
		char have[256];
		cal_run_ranks(doc, have, sizeof have);
		if (have[0])
			rc = nl_errf(err, NL_ECONFIG,
				     "calibration %s: no run with %lld ranks (calibration_ranks); expected "
				     "calibration_ranks = the ranks of one of its runs: %s",
				     path, ranks, have);
		else
			rc = nl_errf(err, NL_ECONFIG,
				     "calibration %s: no run with %lld ranks (calibration_ranks): it has no runs; expected "
				     "netloom-pingpong's JSON, {\"ranks\": N, \"one_way\": [...]} or {\"runs\": [...]} "
				     "of them",
				     path, ranks);
	} else {
		rc = cal_table(one_way, json_object_get(run, "one_way"), path, "one_way", ranks,
					     err);
		json_t *x = json_object_get(run, "exchange");
		if (rc == 0 && x)
			rc = cal_table(exchange, x, path, "exchange", ranks, err);
	}
	json_decref(doc);
	return rc;
}

/* Measured time of a message of `bytes` in table `c`, ps: linear between
 * measured sizes, the last segment's slope beyond them. */
uint64_t net_cal_ps(const struct net_cal *c, uint64_t bytes)
{
	size_t hi = 1;
	while (hi + 1 < c->n && c->bytes[hi] < bytes)
		hi++;
	size_t lo = hi - 1;
	/* A measured size takes its measured time, to the picosecond: the
	 * line through a neighbour's far larger time rounds it away. */
	if (bytes <= c->bytes[0])
		return (uint64_t)llround(c->ps[0]);
	if (bytes == c->bytes[hi])
		return (uint64_t)llround(c->ps[hi]);
	/* The offsets in whole bytes (doubles lose bytes above 2^53); below
	 * that, the same operations in the same order as before, so the
	 * same times to the picosecond. */
	double y = c->ps[lo] + (c->ps[hi] - c->ps[lo]) * (double)(bytes - c->bytes[lo]) /
				       (double)(c->bytes[hi] - c->bytes[lo]);
	/* Extrapolated far past the last size, a slope can pass what the
	 * simulated time holds: the longest time instead. */
	if (!(y < NET_CAL_MAX_PS))
		return (uint64_t)NET_CAL_MAX_PS;
	return y > 0 ? (uint64_t)llround(y) : 0;
}

