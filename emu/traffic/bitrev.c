/* bitrev: bit reversal, d_i = s_{b-1-i} (Dally & Towles §3.2).
 * Power-of-two subset of endpoints; the rest stay idle. */
#include "traffic/traffic.h"

static const struct param_def none_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static uint32_t bitrev_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	uint32_t d = 0;
	(void)rng;
	for (uint32_t i = 0; i < tr->bits; i++) {
		d = (d << 1) | (s & 1);
		s >>= 1;
	}
	return d;
}

const struct traffic_ops traffic_bitrev_ops = {
	.name = "bitrev",
	.help = "bit reversal: d_i = s_(b-1-i) (Dally & Towles 3.2)",
	.params = none_params,
	.flags = TRAFFIC_F_POW2,
	.dest = bitrev_dest,
};
