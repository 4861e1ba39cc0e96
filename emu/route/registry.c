/* The routing algorithms, in the order `netloom run --help` lists them.
 * A new algorithm is one file, one line here and one line in meson.build. */
#include "route/route.h"

extern const struct route_ops route_dor_ops;
extern const struct route_ops route_valiant_ops;
extern const struct route_ops route_min_ops;
extern const struct route_ops route_ugal_ops;
extern const struct route_ops route_nca_ops;
extern const struct route_ops route_anca_ops;
extern const struct route_ops route_group_min_ops;
extern const struct route_ops route_xyyx_ops;
extern const struct route_ops route_flexmin_ops;
extern const struct route_ops route_lbr_ops;
extern const struct route_ops route_minad_ops;
extern const struct route_ops route_closad_ops;
extern const struct route_ops route_dal_ops;
extern const struct route_ops route_amin_ops;
extern const struct route_ops route_eq_ugal_ops;
extern const struct route_ops route_bgal_ops;
extern const struct route_ops route_duato_ops;
extern const struct route_ops route_updown_ops;
extern const struct route_ops route_updown_adaptive_ops;
extern const struct route_ops route_dort_ops;
extern const struct route_ops route_tsdor_ops;
extern const struct route_ops route_min_anynet_ops;
extern const struct route_ops route_dest_tag_ops;

static const struct route_ops *const route_registry[] = {
	&route_dor_ops,
	&route_valiant_ops,
	&route_min_ops,
	&route_ugal_ops,
	&route_nca_ops,
	&route_anca_ops,
	&route_group_min_ops,
	&route_xyyx_ops,
	&route_flexmin_ops,
	&route_lbr_ops,
	&route_minad_ops,
	&route_closad_ops,
	&route_dal_ops,
	&route_amin_ops,
	&route_eq_ugal_ops,
	&route_bgal_ops,
	&route_duato_ops,
	&route_updown_ops,
	&route_updown_adaptive_ops,
	&route_dort_ops,
	&route_tsdor_ops,
	&route_min_anynet_ops,
	&route_dest_tag_ops,
};

const struct route_ops *const *route_list(size_t *n)
{
	*n = sizeof route_registry / sizeof route_registry[0];
	return route_registry;
}
