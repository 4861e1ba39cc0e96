/* The topology families, in the order `netloom topo list` shows them.
 * A new family is one file, one line here and one line in meson.build. */
#include "topo/topo.h"
#include "topo/topo_internal.h"

static const struct topo_ops *const topo_registry[] = {
	&topo_torus_ops,
	&topo_mesh_ops,
	&topo_full_ops,
	&topo_graph_ops,
	&topo_anynet_ops,
	&topo_hypercube_ops,
	&topo_fhypercube_ops,
	&topo_hyperx_ops,
	&topo_flatfly_ops,
	&topo_flex_ops,
	&topo_dragonfly_ops,
	&topo_fattree_ops,
	&topo_clos_ops,
	&topo_myriclos_ops,
	&topo_slimfly_ops,
	&topo_equality_ops,
	&topo_ndt_ops,
	&topo_dln_ops,
	&topo_fly_ops,
	&topo_cmesh_ops,
	&topo_p1_ops,
	&topo_p2_ops,
	&topo_p3_ops,
};

const struct topo_ops *const *topo_list(size_t *n)
{
	*n = sizeof topo_registry / sizeof topo_registry[0];
	return topo_registry;
}
