/* transpose: transpose, d_i = s_{(i + b/2) mod b}: swap the high and low halves of
 * the address bits (Dally & Towles 3.2). Needs an even bit count: the
 * largest power-of-four subset of endpoints takes part. */
#include "traffic/traffic.h"

static const struct param_def none_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static uint32_t transpose_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	const uint32_t b = tr->bits, mask = tr->n_active - 1;
	(void)rng;
	return ((s >> (b / 2)) | (s << (b / 2))) & mask;
}

const struct traffic_ops traffic_transpose_ops = {
	.name = "transpose",
	.help = "transpose: swap high and low address halves (Dally & Towles 3.2)",
	.params = none_params,
	.flags = TRAFFIC_F_POW4,
	.dest = transpose_dest,
};
