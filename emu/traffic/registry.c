/* The traffic patterns, in the order --help lists them. */
#include "traffic/traffic.h"

extern const struct traffic_ops traffic_uniform_ops;
extern const struct traffic_ops traffic_bitcomp_ops;
extern const struct traffic_ops traffic_bitrev_ops;
extern const struct traffic_ops traffic_shuffle_ops;
extern const struct traffic_ops traffic_transpose_ops;
extern const struct traffic_ops traffic_bitrot_ops;
extern const struct traffic_ops traffic_hotspot_ops;
extern const struct traffic_ops traffic_randperm_ops;
extern const struct traffic_ops traffic_asymmetric_ops;
extern const struct traffic_ops traffic_neighbor_ops;
extern const struct traffic_ops traffic_tornado_ops;
extern const struct traffic_ops traffic_swap2_ops;
extern const struct traffic_ops traffic_nextgroup_ops;

static const struct traffic_ops *const traffic_registry[] = {
	&traffic_uniform_ops,
	&traffic_bitcomp_ops,
	&traffic_bitrev_ops,
	&traffic_shuffle_ops,
	&traffic_transpose_ops,
	&traffic_bitrot_ops,
	&traffic_hotspot_ops,
	&traffic_randperm_ops,
	&traffic_asymmetric_ops,
	&traffic_neighbor_ops,
	&traffic_tornado_ops,
	&traffic_swap2_ops,
	&traffic_nextgroup_ops,
};

const struct traffic_ops *const *traffic_list(size_t *n)
{
	*n = sizeof traffic_registry / sizeof traffic_registry[0];
	return traffic_registry;
}
