/* Helpers for the topology family tests: build a spec, exact all-pairs
 * statistics by BFS, closed-form distance against BFS, orbit claims against
 * per-router BFS. */
#ifndef NETLOOM_TESTS_TOPO_CHECK_H
#define NETLOOM_TESTS_TOPO_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/error.h"
#include "test.h"
#include "topo/topo.h"

/* Build `spec` or fail the case (returns NULL). */
static inline struct topo *tc_new(const char *spec)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	int rc = topo_new(spec, &t, &e);
	if (rc != 0) {
		TEST_FAIL_("topo_new(\"%s\") = %d: %s", spec, rc, e.msg);
		return NULL;
	}
	rc = topo_check(t, &e);
	if (rc != 0)
		TEST_FAIL_("topo_check(%s) = %d: %s", spec, rc, e.msg);
	return t;
}

/* Diameter and sum of distances over ordered pairs by one BFS per router
 * (independent of the families' closed forms). */
static inline void tc_all_pairs(const struct topo *t, uint32_t *diam, uint64_t *sum)
{
	uint32_t *dist = malloc(t->n_routers * sizeof *dist), *q = malloc(t->n_routers * sizeof *q);
	*diam = 0;
	*sum = 0;
	for (uint32_t a = 0; a < t->n_routers; a++) {
		topo_bfs(t, a, dist, q);
		for (uint32_t b = 0; b < t->n_routers; b++) {
			if (dist[b] == UINT32_MAX) {
				*diam = UINT32_MAX;
				continue;
			}
			*sum += dist[b];
			if (dist[b] > *diam)
				*diam = dist[b];
		}
	}
	free(dist);
	free(q);
}

static inline double tc_aspl(const struct topo *t, uint64_t sum)
{
	return (double)sum / ((double)t->n_routers * (double)(t->n_routers - 1));
}

/* Closed-form distance equals BFS from the given sources (all when
 * n_src == 0). */
static inline void tc_distance_vs_bfs(const struct topo *t, uint32_t n_src)
{
	uint32_t *dist = malloc(t->n_routers * sizeof *dist), *q = malloc(t->n_routers * sizeof *q);
	uint32_t n = n_src ? n_src : t->n_routers;
	int bad = 0;
	for (uint32_t i = 0; i < n && bad < 5; i++) {
		uint32_t a = n_src ? (uint32_t)(((uint64_t)i * 2654435761u) % t->n_routers) : i;
		topo_bfs(t, a, dist, q);
		for (uint32_t b = 0; b < t->n_routers && bad < 5; b++)
			if (topo_distance(t, a, b) != dist[b]) {
				TEST_FAIL_("%s: distance(%u,%u) = %u, BFS %u", t->spec, a, b, topo_distance(t, a, b),
					   dist[b]);
				bad++;
			}
	}
	free(dist);
	free(q);
}

/* The family's orbit claim agrees with the exact all-pairs figures: the
 * orbit weights sum to the router count, and the weighted sum of the
 * representatives' BFS distance sums and their largest distance equal the
 * all-pairs sum and diameter. */
static inline void tc_orbits(const struct topo *t)
{
	uint32_t cap = t->n_routers;
	uint32_t *reps = malloc(cap * sizeof *reps);
	uint64_t *w = malloc(cap * sizeof *w);
	uint32_t n = t->ops->orbits ? t->ops->orbits(t, reps, w, cap) : 0;
	if (!t->ops->orbits && (t->ops->flags & TOPO_F_VERTEX_TRANSITIVE)) {
		reps[0] = 0;
		w[0] = t->n_routers;
		n = 1;
	}
	if (n == 0) {
		TEST_FAIL_("%s: no orbits", t->spec);
		free(reps);
		free(w);
		return;
	}
	uint32_t *dist = malloc(t->n_routers * sizeof *dist), *q = malloc(t->n_routers * sizeof *q);
	uint64_t wsum = 0, osum = 0;
	uint32_t odiam = 0;
	for (uint32_t i = 0; i < n; i++) {
		wsum += w[i];
		topo_bfs(t, reps[i], dist, q);
		uint64_t s = 0;
		for (uint32_t b = 0; b < t->n_routers; b++) {
			s += dist[b];
			if (dist[b] > odiam)
				odiam = dist[b];
		}
		osum += s * w[i];
	}
	CHECK_UINT(wsum, ==, t->n_routers);
	uint32_t diam;
	uint64_t sum;
	tc_all_pairs(t, &diam, &sum);
	CHECK_UINT(odiam, ==, diam);
	CHECK_UINT(osum, ==, sum);
	free(dist);
	free(q);
	free(reps);
	free(w);
}

/* Write `text` to /tmp/netloom_test_<pid>_<name>; returns the path (static
 * buffer) for the test to use and unlink. */
static inline const char *tc_tmpfile(const char *text, const char *name)
{
	static char path[256];
	snprintf(path, sizeof path, "/tmp/netloom_test_%d_%s", (int)getpid(), name);
	FILE *f = fopen(path, "w");
	if (!f) {
		TEST_FAIL_("cannot create %s", path);
		return path;
	}
	fputs(text, f);
	fclose(f);
	return path;
}

#endif
