/* Folded Clos / fat tree view: published by fattree, clos and myriclos.
 *
 * A family-specific view for code that needs more than the generic
 * capabilities of struct topo_ops (coordinates, groups, levels, minimal
 * next hops, distance): reach it only through the checked downcast
 * topo_tree_of(), which returns NULL for any other family.
 */
#ifndef NETLOOM_TOPO_TOPO_TREE_H
#define NETLOOM_TOPO_TOPO_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* Folded Clos / fat tree / Myrinet Clos: switches numbered level by level
 * from the leaves (level 0) up; level l holds routers level_first[l] ..
 * level_first[l+1]-1. A level-l switch has down[l] down ports (local ports
 * 0 .. down[l]-1; terminals at level 0) and up[l] up ports (down[l] ..
 * down[l]+up[l]-1); ports of a partly filled last block may be unconnected.
 * When `xgft` is set the wiring is the extended generalized fat tree below
 * and routing is closed form: a level-l switch is (block b, index w) with
 * id level_first[l] + b * W[l] + w, W[l] = up[0]*..*up[l-1]; its up port j
 * goes to the level-(l+1) switch (b / down[l+1], w * up[l] + j), arriving
 * on down port b % down[l+1]; leaf b's down port c is endpoint b*down[0]+c.
 * per_package[l] logical switches share one physical switch (seed 001 §4.1
 * packages two 13-port core switches per 32-port chip). */
#define TOPO_MAX_LEVELS 8
struct topo_tree {
	int n_levels;
	uint32_t level_first[TOPO_MAX_LEVELS + 1];
	uint32_t down[TOPO_MAX_LEVELS];
	uint32_t up[TOPO_MAX_LEVELS];
	uint32_t per_package[TOPO_MAX_LEVELS];
	bool xgft;                    /* the closed form above holds */
	uint32_t W[TOPO_MAX_LEVELS];  /* switches per block at level l (xgft) */
	uint32_t blocks[TOPO_MAX_LEVELS]; /* blocks at level l (xgft) */
};

/* Physical switch count: sum over levels of ceil(count / per_package). */
static inline uint32_t topo_tree_physical_switches(const struct topo_tree *tr)
{
	uint32_t n = 0;
	for (int l = 0; l < tr->n_levels; l++) {
		uint32_t c = tr->level_first[l + 1] - tr->level_first[l];
		n += (c + tr->per_package[l] - 1) / tr->per_package[l];
	}
	return n;
}

/* The view of t when its family is fattree, clos and myriclos; NULL otherwise. Valid while t
 * lives. */
const struct topo_tree *topo_tree_of(const struct topo *t);

#endif
