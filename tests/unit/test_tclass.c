/* Unit tests: traffic classes in the flit model ([router] traffic_classes,
 * [traffic] traffic_class; issue 11 part 4). A class-k packet's flits must
 * only ever sit in VCs of class k's range; a VC count the classes cannot
 * split equally is refused; the routing function's VC rules apply per
 * class; partitions do not change the results. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/config.h"
#include "core/error.h"
#include "net/net_internal.h"
#include "topo/topo.h"
#include "traffic/traffic.h"
#include "net_config.h"
#include "point_json.h"
#include "test.h"

/* Every buffered flit of every input VC, cycle by cycle: its packet's
 * class must own the VC. Counts flits seen per class (both classes must
 * show up, or the check proves nothing) and flits out of range. */
static void scan_classes(const char *const *kv, uint64_t cycles, uint64_t seen[2], uint64_t *bad)
{
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	const uint32_t V = f.n->V, W = f.n->cls_w;
	const uint64_t IV = (uint64_t)f.t->n_ports * V;
	for (uint64_t c = 1; c <= cycles; c++) {
		CHECK_OK(flitnet_run_until(f.n, c, &e), &e);
		for (uint64_t iv = 0; iv < IV; iv++) {
			uint32_t vc = (uint32_t)(iv % V);
			for (uint32_t ru = f.n->ivc[iv].head; ru != FL_NONE; ru = f.n->pool.runs[ru].next) {
				const struct fl_run *run = &f.n->pool.runs[ru];
				uint32_t k = f.n->pool.pkts[run->pkt].rt.tclass;
				if (k < 2)
					seen[k] += run->n;
				if (vc / W != k)
					*bad += run->n;
			}
		}
	}
	CHECK(f.n->obs.accepted_flits > 1000);
	fx_close(&f);
}

static void test_flits_stay_in_class(void)
{
	/* dor on a torus (dateline classes inside each traffic class), min
	 * with one VC class per hop on a dragonfly, valiant on a mesh. */
	static const char *const cases[][9] = {
		{"topology=torus:k=4x4", "routing_function=dor", "num_vcs=4", NULL},
		{"topology=dragonfly:p=2,a=4,h=2", "routing_function=min:classes=hop", "num_vcs=6", NULL},
		{"topology=mesh:k=4x4", "routing_function=valiant", "num_vcs=4", "traffic_class=dest", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *kv[16];
		int m = 0;
		for (int j = 0; cases[i][j]; j++)
			kv[m++] = cases[i][j];
		kv[m++] = "traffic_classes=2";
		kv[m++] = "injection_rate=0.3";
		kv[m++] = "packet_size=3";
		kv[m++] = "seed=7";
		kv[m] = NULL;
		uint64_t seen[2] = {0, 0}, bad = 0;
		scan_classes(kv, 1500, seen, &bad);
		CHECK(seen[0] > 1000);
		CHECK(seen[1] > 1000);
		CHECK_UINT(bad, ==, 0);
	}
}

static void expect_refused(const char *const *kv, const char *needle)
{
	struct fx f;
	struct nl_err e = {0};
	int rc = fx_open(&f, kv, &e);
	CHECK(rc < 0);
	CHECK(strstr(e.msg, needle) != NULL);
	CHECK(strchr(e.msg, '\n') == NULL);
	fx_close(&f);
}

/* num_vcs not a multiple of traffic_classes is refused; a routing
 * function's VC needs apply per class (dor on a torus needs 2 VCs per
 * class for its datelines, so 2 classes of 1 VC are refused). */
static void test_refused(void)
{
	const char *a[] = {"num_vcs=6", "traffic_classes=4", NULL};
	expect_refused(a, "traffic_classes = 4");
	const char *b[] = {"topology=torus:k=4x4", "num_vcs=2", "traffic_classes=2", NULL};
	expect_refused(b, "dor");
}

/* A synthetic point's JSON (net_point_json without the configuration). */
static char *point_json(const char *const *kv, struct nl_err *e)
{
	return point_json_kv(kv, false, e);
}

/* Same results whatever the partitions, with classes on; and the classes
 * do change the run (else the check would not see them at all). */
static void test_partitions_identical(void)
{
#define BASE "topology=torus:k=6x6", "num_vcs=4", "injection_rate=0.35", "seed=9", "sample_period=300", \
	     "max_samples=6", "warmup_periods=2", "check_interval=97"
	const char *p1[] = {BASE, "traffic_classes=2", "partitions=1", NULL};
	const char *p3[] = {BASE, "traffic_classes=2", "partitions=3", NULL};
	const char *d3[] = {BASE, "traffic_classes=2", "traffic_class=dest", "partitions=3", NULL};
	const char *c1[] = {BASE, "traffic_classes=1", "partitions=1", NULL};
#undef BASE
	struct nl_err e = {0};
	char *a = point_json(p1, &e), *b = point_json(p3, &e), *c = point_json(c1, &e), *d = point_json(d3, &e);
	CHECK(a && b && c && d);
	if (a && b && c && d) {
		CHECK_STR(a, b);
		CHECK(strcmp(a, c) != 0);
		CHECK(strcmp(a, d) != 0);
	}
	free(a);
	free(b);
	free(c);
	free(d);
}

int main(void)
{
	TEST_RUN(test_flits_stay_in_class);
	TEST_RUN(test_refused);
	TEST_RUN(test_partitions_identical);
	return test_done();
}
