/* Unit tests: DORT and TS-DOR on the nD twin torus (seed 004 §II-B, §III):
 * acyclic channel dependencies on several shapes (the VC rules of the
 * internal link), dimension order (DORT and PE0-sourced TS-DOR packets
 * ascending, PE1-sourced descending), TS-DOR's VC halves per source card,
 * and the tie rule in the split dimension (PE0: d^-, PE1: d^+). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/route.h"
#include "topo/topo.h"
#include "topo/topo_ndt.h"
#include "test.h"

#include "route_check.h"

static const char *const shapes[] = {"ndt:k=3x4x3", "ndt:k=4x4x2x2x2", "ndt:k=4x4x2x4x2", "ndt:k=3x3x3x3x3",
				     "ndt:k=4x4x4"};

static void test_acyclic(void)
{
	static const char *const fns[] = {"dort", "tsdor"};
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		for (size_t f = 0; f < 2; f++)
			if (!check_routing(shapes[i], fns[f], 4, 0))
				TEST_FAIL_("%s on %s: cyclic channel dependencies", fns[f], shapes[i]);
}

/* The dimension and direction of external port `port` of card r. */
static int ext_dim(const struct topo_ndt *v, uint32_t r, uint32_t port, int *dir)
{
	for (int d = 0; d < v->n; d++)
		for (int s = 0; s < 2; s++)
			if (v->card_of[d][s] == (r & 1) && v->card_port[d][s] == port) {
				*dir = s;
				return d;
			}
	return -1;
}

static void test_order_and_ties(void)
{
	static const char *const fns[] = {"dort", "tsdor"};
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		for (size_t f = 0; f < 2; f++) {
			struct topo *t = NULL;
			struct route *r = NULL;
			struct nl_err e = {0};
			CHECK_OK(topo_new(shapes[i], &t, &e), &e);
			CHECK_OK(route_new(fns[f], t, 4, &r, &e), &e);
			const struct topo_ndt *v = topo_ndt_of(t);
			int bad = 0, ties = 0;
			for (uint32_t s = 0; s < t->n_routers && !bad; s++)
				for (uint32_t d = 0; d < t->n_routers && !bad; d++) {
					struct route_pkt pk = {.src_ep = test_src_ep(t, s), .dst_router = d, .dst_ep = d};
					uint8_t lo, hi;
					r->ops->inject(r, &pk, NULL, &lo, &hi);
					int pe1 = f == 1 && (s & 1);
					if (f == 1 && (lo != (pe1 ? 2 : 0) || hi != lo + 1)) {
						TEST_FAIL_("tsdor: card %u injects on VCs %u..%u", s, lo, hi);
						bad = 1;
					}
					/* Tie in the split dimension only: the first split hop's direction. */
					int tie = v->split >= 0 && v->k[v->split] % 2 == 0;
					for (int dd = 0; dd < v->n && tie; dd++) {
						uint32_t a = v->coord[(s / 2) * v->n + dd], b = v->coord[(d / 2) * v->n + dd];
						tie = dd == v->split ? (a + v->k[dd] - b) % v->k[dd] == v->k[dd] / 2 : a == b;
					}
					uint32_t cur = s, in_port = v->pe_port, hops = 0;
					int last = pe1 ? v->n : -1, first_split = -1;
					while (!bad && hops < 64) {
						struct route_cand c[ROUTE_MAX_CANDS];
						r->ops->compute(r, cur, in_port, 0, &pk, NULL, NULL, c);
						uint32_t g = t->port_base[cur] + c[0].port;
						if (topo_port_is_terminal(t, g))
							break;
						if (f == 1 && (c[0].vc_lo < (pe1 ? 2 : 0) || c[0].vc_hi > (pe1 ? 3 : 1))) {
							TEST_FAIL_("tsdor: %u -> %u leaves its half: VCs %u..%u", s, d, c[0].vc_lo,
								   c[0].vc_hi);
							bad = 1;
						}
						int dir, dim = ext_dim(v, cur, c[0].port, &dir);
						if (dim >= 0) {
							if (pe1 ? dim > last : dim < last) {
								TEST_FAIL_("%s on %s: %u -> %u corrects d%d after d%d", fns[f],
									   shapes[i], s, d, dim, last);
								bad = 1;
							}
							last = dim;
							if (dim == v->split && first_split < 0)
								first_split = dir;
						}
						uint32_t nr = t->port_router[t->peer[g]];
						in_port = t->peer[g] - t->port_base[nr];
						cur = nr;
						hops++;
					}
					if (!bad && cur != d) {
						TEST_FAIL_("%s on %s: %u -> %u ends at %u", fns[f], shapes[i], s, d, cur);
						bad = 1;
					}
					if (!bad && f == 1 && tie) {
						ties++;
						if (first_split != (pe1 ? 0 : 1)) {
							TEST_FAIL_("tsdor on %s: tie %u -> %u takes d%d%c", shapes[i], s, d, v->split,
								   first_split ? '-' : '+');
							bad = 1;
						}
					}
				}
			if (f == 1 && !strcmp(shapes[i], "ndt:k=3x4x3"))
				CHECK_INT(ties, >, 0);
			route_free(r);
			topo_free(t);
		}
}

static void test_refuse(void)
{
	struct nl_err e = {0};
	struct topo *t = NULL;
	struct route *r = NULL;
	CHECK_OK(topo_new("ndt:k=3x4x3", &t, &e), &e);
	CHECK_ERR(route_new("dort", t, 2, &r, &e), NL_ECONFIG, &e, "multiple of 4");
	CHECK_ERR(route_new("tsdor", t, 6, &r, &e), NL_ECONFIG, &e, "multiple of 4");
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_acyclic);
	TEST_RUN(test_order_and_ties);
	TEST_RUN(test_refuse);
	return test_done();
}
