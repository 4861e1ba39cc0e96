/* Unit tests: BookSim's hold_switch_for_packet ([router]
 * hold_switch_for_packet = 1, emu/net/hold.h). Cycle by cycle, every held
 * crossbar connection must belong to an active input VC with flits whose
 * allocated output is the held one, and input and output holds must point
 * at each other; holds must actually occur (multi-flit packets) and change
 * the run; results must not depend on partitions or visiting order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/config.h"
#include "core/error.h"
#include "net/hold.h"
#include "net/net_internal.h"
#include "topo/topo.h"
#include "traffic/traffic.h"
#include "net_config.h"
#include "point_json.h"
#include "test.h"

#define BASE                                                                                                    \
	"topology=mesh:k=4x4", "num_vcs=2", "vc_buf_size=4", "packet_size=8", "injection_rate=0.35", "seed=3", \
		"sample_period=300", "max_samples=6", "warmup_periods=2", "check_interval=97"

/* Holds in force, summed over cycles, and inconsistent ones. */
static void scan_holds(const char *const *kv, uint64_t cycles, uint64_t *held, uint64_t *bad)
{
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	const struct flitnet *n = f.n;
	const struct fl_hold *h = n->hold;
	CHECK(h != NULL);
	if (!h) {
		fx_close(&f);
		return;
	}
	const uint32_t V = n->V;
	for (uint64_t c = 1; c <= cycles; c++) {
		CHECK_OK(flitnet_run_until(f.n, c, &e), &e);
		for (uint32_t r = 0; r < f.t->n_routers; r++) {
			const struct fl_router *ro = &n->routers[r];
			for (uint32_t in = 0; in < ro->n_ports; in++) {
				uint64_t gi = (uint64_t)ro->port_base + in; /* input_speedup = 1 */
				if (h->in_vc[gi] < 0) {
					*bad += h->in_out[gi] >= 0;
					continue;
				}
				++*held;
				const struct fl_ivc *iv = &n->ivc[(uint64_t)ro->vc_base + in * V + (uint32_t)h->in_vc[gi]];
				int32_t eout = h->in_out[gi];
				*bad += iv->state != VC_ACTIVE || iv->count == 0 || eout != (int32_t)iv->out_port ||
					h->out_in[(uint64_t)ro->port_base + (uint32_t)eout] != (int32_t)in;
			}
		}
	}
	CHECK(f.n->obs.accepted_flits > 1000);
	fx_close(&f);
}

static void test_holds_consistent(void)
{
	const char *kv[] = {BASE, "hold_switch_for_packet=1", NULL};
	uint64_t held = 0, bad = 0;
	scan_holds(kv, 3000, &held, &bad);
	printf("  holds in force over 3000 cycles: %llu, inconsistent: %llu\n", (unsigned long long)held,
	       (unsigned long long)bad);
	CHECK(held > 1000);
	CHECK_EQ(bad, 0);
}

/* A network that stops moving ends as a report even when no VCs wait on
 * each other: every crossbar output marked held by an input that holds
 * nothing (the stale hold 73dd860 fixed) blocks all switch allocation
 * while the exact deadlock check, which trusts the holds, finds no waiting
 * set. Before deadlock.c's dl_frozen the run went on, frozen, to its end. */
static void test_frozen_is_reported(void)
{
	const char *kv[] = {BASE, "hold_switch_for_packet=1", NULL};
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	CHECK_OK(flitnet_run_until(f.n, 200, &e), &e);
	struct flitnet *n = f.n;
	const struct topo *t = f.t;
	for (uint32_t r = 0; r < t->n_routers; r++) {
		const struct fl_router *ro = &n->routers[r];
		for (uint32_t out = 0; out < ro->n_ports; out++)
			n->hold->out_in[(uint64_t)ro->port_base + out] = (int32_t)((out + 1) % ro->n_ports);
	}
	int rc = flitnet_run_until(n, 200000, &e);
	CHECK_ERR(rc, NL_EDEADLOCK, &e, "yet no input VCs wait on each other: the engine's state is inconsistent");
	const struct net_deadlock *d = flitnet_deadlock(n);
	CHECK(d != NULL);
	if (d) {
		CHECK(d->global);
		CHECK_UINT(d->vcs, ==, 0);
		CHECK_UINT(d->waited, >, d->bound);
		CHECK_UINT(d->cycle, <, 200 + 3 * d->bound + 1000);
	}
	fx_close(&f);
}

/* A synthetic point's JSON (net_point_json without the configuration). */
static char *point_json(const char *const *kv, struct nl_err *e)
{
	return point_json_kv(kv, false, e);
}

/* Partitions and visiting order do not change a run with holds; holds do
 * change it (multi-flit packets); with 1-flit packets every flit is a tail,
 * no hold is ever set, and the run is the one without the key. */
static void test_identical_and_effective(void)
{
	const char *p1[] = {BASE, "hold_switch_for_packet=1", "partitions=1", NULL};
	const char *p3[] = {BASE, "hold_switch_for_packet=1", "partitions=3", "visit_order=reverse", NULL};
	const char *off[] = {BASE, "hold_switch_for_packet=0", NULL};
	const char *s1on[] = {BASE, "hold_switch_for_packet=1", "packet_size=1", NULL};
	const char *s1off[] = {BASE, "hold_switch_for_packet=0", "packet_size=1", NULL};
	struct nl_err e = {0};
	char *a = point_json(p1, &e), *b = point_json(p3, &e), *c = point_json(off, &e);
	char *d = point_json(s1on, &e), *g = point_json(s1off, &e);
	CHECK(a && b && c && d && g);
	if (a && b && c && d && g) {
		CHECK_STR(a, b);
		CHECK(strcmp(a, c) != 0);
		CHECK_STR(d, g);
	}
	free(a);
	free(b);
	free(c);
	free(d);
	free(g);
}

int main(void)
{
	TEST_RUN(test_holds_consistent);
	TEST_RUN(test_frozen_is_reported);
	TEST_RUN(test_identical_and_effective);
	return test_done();
}
