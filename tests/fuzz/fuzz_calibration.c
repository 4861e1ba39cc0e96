/* Fuzz target: the analytic backend's calibration file (`calibration =`,
 * net/calibration.h: netloom-pingpong's JSON), read as a user's file. Byte
 * 0 is calibration_ranks, the rest the file. A refusal must have a message
 * (the one-line error users see). A table that is read must hold at least
 * 2 sizes in increasing order with finite times >= 0, and a message of a
 * measured size must take its measured time (to the picosecond), one
 * between two sizes a time between theirs. */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "fuzz_file.h"
#include "net/calibration.h"

static void fuzz_check_table(const struct net_cal *c, const char *name)
{
	if (c->n < 2)
		NL_BUG("%s: %zu sizes read", name, c->n);
	for (size_t i = 0; i < c->n; i++) {
		if (!isfinite(c->ps[i]) || c->ps[i] < 0 || (i && c->bytes[i] <= c->bytes[i - 1]))
			NL_BUG("%s[%zu]: %llu bytes, %g ps", name, i, (unsigned long long)c->bytes[i], c->ps[i]);
		uint64_t at = net_cal_ps(c, c->bytes[i]);
		if (fabs((double)at - c->ps[i]) > 1 + c->ps[i] * 1e-12)
			NL_BUG("%s[%zu]: %llu bytes measured %g ps, modelled %llu", name, i,
			       (unsigned long long)c->bytes[i], c->ps[i], (unsigned long long)at);
		if (i && c->bytes[i] - c->bytes[i - 1] > 1) {
			uint64_t mid = net_cal_ps(c, c->bytes[i - 1] + (c->bytes[i] - c->bytes[i - 1]) / 2);
			double lo = fmin(c->ps[i - 1], c->ps[i]), hi = fmax(c->ps[i - 1], c->ps[i]);
			if ((double)mid < lo - 1 - lo * 1e-12 || (double)mid > hi + 1 + hi * 1e-12)
				NL_BUG("%s: between %zu and %zu, %llu ps is outside %g..%g", name, i - 1, i,
				       (unsigned long long)mid, lo, hi);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = size >= 1 && size <= (1u << 16) ? fuzz_file(data + 1, size - 1) : NULL;
	if (!path)
		return 0;
	struct net_cal one_way = {0}, exchange = {0};
	struct nl_err err = {0};
	int rc = net_cal_load(path, data[0], &one_way, &exchange, &err);
	if (rc < 0) {
		fuzz_refusal(&err, rc, "net_cal_load");
	} else {
		fuzz_check_table(&one_way, "one_way");
		if (exchange.n)
			fuzz_check_table(&exchange, "exchange");
	}
	net_cal_free(&one_way);
	net_cal_free(&exchange);
	return 0;
}
