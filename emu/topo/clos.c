/* clos: "clos:l=L,r=R[,n=N][,taper=T1xT2..|down=D1xD2..,up=U1xU2..][,pack=1]",
 * the folded Clos of L levels built from radix-R switches, optionally
 * tapered (seed 001 §2.1.1 and §4.1).
 *
 * Untapered (taper=1, the default), §2.1.1: levels below the core have R/2
 * down and R/2 up ports, the core (R/2)^(L-1) switches use all R ports
 * downward, N = 2 (R/2)^L terminals, P = (2L - 1)(R/2)^(L-1) switches, 2
 * (R/2)^L links between adjacent levels, maximum path 2L - 1 switches.
 *
 * Tapered: taper=T gives level l (below the core) a T_l:1 ratio of down to
 * up links, u_l = floor(R / (T_l + 1)) up and d_l = T_l u_l down ports
 * (one value applies to every level); down=/up= give the counts directly.
 * The tree has as many leaves as N terminals need; each level-l block
 * groups d_l blocks of level l-1 under prod u switches; the core has one
 * down port per level-(L-2) block. With pack=1 a core switch using at most
 * R/2 ports shares a physical radix-R switch with others (floor(R / down)
 * per package), as in §4.1's example: l=3,r=32,n=4096,taper=2x1 gives 205
 * leaves (20 down, 10 up), 130 level-2 switches (16/16) and 160 core
 * switches with 13 down links, two per package, P = 415; its beta = core
 * links / N = 2080 / 4096.
 *
 * Numbering, ports and closed-form wiring: struct topo_tree (XGFT) in
 * topo.h; endpoints on the leaves in order. One orbit per level when every
 * block is full.
 */
#include "topo/topo_internal.h"

#include <stdio.h>

#include "core/error.h"

struct clos_params {
	int64_t l;              /* levels */
	int64_t r;              /* switch radix */
	int64_t n;              /* terminals, 0 = the most the core allows */
	struct param_vec taper; /* down:up ratio per level below the core */
	struct param_vec down;  /* explicit down ports per level below the core (n = 0: unset) */
	struct param_vec up;    /* explicit up ports per level below the core */
	bool pack;              /* package small core switches together */
};

static const struct param_def clos_params_def[] = {
	{"l", PARAM_INT, offsetof(struct clos_params, l), NULL, 1, TOPO_MAX_LEVELS, "levels L", NULL},
	{"r", PARAM_INT, offsetof(struct clos_params, r), NULL, 2, 65535, "switch radix R", NULL},
	{"n", PARAM_INT, offsetof(struct clos_params, n), "0", 0, (double)(TOPO_EP_BIT - 1),
	 "terminals N; 0 = the most the core can serve (2 (R/2)^L untapered)", NULL},
	{"taper", PARAM_DIMS, offsetof(struct clos_params, taper), "1", 1, 65535,
	 "down:up link ratio T of each level below the core, e.g. 2x1 (one value for all)", NULL},
	{"down", PARAM_DIMS, offsetof(struct clos_params, down), "", 0, 65535,
	 "explicit down ports per level below the core, e.g. 20x16 (instead of taper)", NULL},
	{"up", PARAM_DIMS, offsetof(struct clos_params, up), "", 0, 65535,
	 "explicit up ports per level below the core, e.g. 10x16 (with down=)", NULL},
	{"pack", PARAM_BOOL, offsetof(struct clos_params, pack), "1", 0, 0,
	 "count core switches using <= R/2 ports several per physical switch (seed 001 §4.1)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* Element l of a per-level vector given once or per level. */
static int64_t clos_vec(const struct param_vec *v, int l)
{
	return v->v[v->n == 1 ? 0 : l];
}

/* down= or up= given: the default is the unset (empty) list, so any list
 * given is set, 'down=0' and 'down=0x16' too (the default was the single
 * value 0: 'down=0,up=10' was refused as "'up' given without 'down'"), and
 * the canonical spec leaves an unset one out (it wrote 'down=0,up=0'). */
static bool clos_vec_is_set(const struct param_vec *v)
{
	return v->n > 0;
}

/* "20x16", as given, for messages. */
static const char *clos_vec_text(char *buf, size_t cap, const struct param_vec *v)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < v->n && used < cap; i++)
		used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? "x" : "", (long long)v->v[i]);
	return buf;
}

/* n past the tree's capacity, cap = r x the down ports of every level
 * below the core: taper= and down= set those as l and r do, so the
 * message names them (it blamed "3 levels of radix-16 switches", which
 * serve 1,024 untapered, for down=4's 256). */
static int clos_capacity_error(struct topo *t, const struct clos_params *pr, const uint32_t *down, uint64_t cap,
			       bool is_shaped, struct nl_err *err)
{
	int L = (int)pr->l;
	uint32_t R = (uint32_t)pr->r;
	unsigned long long n = (unsigned long long)pr->n;
	if (L == 1)
		return topo_errf(t, err, NL_ERANGE,
				 "parameter 'n': %llu terminals need more than the %u ports of one radix-%u switch (l=1); "
				 "expected n <= %u, another level or a larger r",
				 n, R, R, R);
	char product[128]; /* "16 x 4 x 4": at most 8 factors of 5 digits */
	size_t used = (size_t)snprintf(product, sizeof product, "%u", R);
	for (int l = 0; l + 1 < L && used < sizeof product; l++)
		used += (size_t)snprintf(product + used, sizeof product - used, " x %u", down[l]);
	return topo_errf(t, err, NL_ERANGE,
			 "parameter 'n': %llu terminals need more than the %llu that %d levels of radix-%u switches serve "
			 "(r x the down ports of each level below the core: %s); expected n <= %llu, another level%s",
			 n, (unsigned long long)cap, L, R, product, (unsigned long long)cap,
			 is_shaped ? ", a larger r or more down ports per level" : " or a larger r");
}

static int clos_build(struct topo *t, struct nl_err *err)
{
	struct clos_params *pr = t->params;
	struct topo_tree *tr = t->state;
	uint32_t down[TOPO_MAX_LEVELS], up[TOPO_MAX_LEVELS];
	int L = (int)pr->l;
	uint32_t R = (uint32_t)pr->r;
	bool has_down = clos_vec_is_set(&pr->down), has_up = clos_vec_is_set(&pr->up);
	bool explicit_ports = has_down || has_up;

	/* One level is one switch with n terminal ports: nothing for taper=,
	 * down= or up= to shape. */
	bool is_tapered = pr->taper.n != 1 || pr->taper.v[0] != 1;
	if (L == 1 && (explicit_ports || is_tapered))
		return topo_errf(t, err, NL_EINVAL,
				 "parameter '%s': l=1 is one switch, with no level below the core to shape",
				 has_down ? "down" : has_up ? "up" : "taper");
	/* down= and up= replace the taper together: one alone leaves the
	 * other level counts unknown. */
	if (explicit_ports && has_down != has_up) {
		return topo_errf(t, err, NL_EINVAL,
				 "parameter '%s' given without '%s': explicit ports need both (e.g. down=20x16,up=10x16)",
				 has_up ? "up" : "down", has_up ? "down" : "up");
	}
	if (explicit_ports && is_tapered) {
		char taper[PARAM_STR_MAX];
		size_t used = 0;
		for (int i = 0; i < pr->taper.n; i++) /* "2x1", as given */
			used += (size_t)snprintf(taper + used, used < sizeof taper ? sizeof taper - used : 0, "%s%lld",
						 i ? "x" : "", (long long)pr->taper.v[i]);
		return topo_errf(t, err, NL_EINVAL,
				 "parameter 'taper': %s with down= and up=, which give the ports instead; expected one or "
				 "the other",
				 taper);
	}
	if (explicit_ports) {
		for (int i = 0; i < 2; i++) {
			const struct param_vec *v = i ? &pr->up : &pr->down;
			if (v->n != 1 && v->n != L - 1)
				return topo_errf(t, err, NL_EINVAL,
						 "parameter '%s' has %d values; give one or l-1 = %d (the levels below the core)",
						 i ? "up" : "down", v->n, L - 1);
			for (int l = 0; l + 1 < L; l++)
				if (clos_vec(v, l) < 1) {
					char text[PARAM_STR_MAX];
					return topo_errf(t, err, NL_ERANGE,
							 "parameter '%s' value '%s': level %d has no %s port; expected at least "
							 "one at every level below the core",
							 i ? "up" : "down", clos_vec_text(text, sizeof text, v), l + 1,
							 i ? "up" : "down");
				}
		}
	} else if (pr->taper.n != 1 && pr->taper.n != L - 1) {
		return topo_errf(t, err, NL_EINVAL,
				 "parameter 'taper' has %d values; give one or l-1 = %d (the levels below the core)",
				 pr->taper.n, L - 1);
	}
	for (int l = 0; l + 1 < L; l++) {
		if (explicit_ports) {
			down[l] = (uint32_t)clos_vec(&pr->down, l);
			up[l] = (uint32_t)clos_vec(&pr->up, l);
		} else {
			uint32_t T = (uint32_t)clos_vec(&pr->taper, l);
			up[l] = R / (T + 1);
			down[l] = T * up[l];
			if (up[l] == 0)
				return topo_errf(t, err, NL_ERANGE,
						 "parameter 'taper': a %u:1 ratio leaves no up port on a radix-%u switch; expected "
						 "at most r-1 = %u",
						 T, R, R - 1);
		}
		/* Only down= and up= can: a taper's T u + u is at most R. */
		if (down[l] + up[l] > R)
			return topo_errf(t, err, NL_ERANGE,
					 "parameters 'down', 'up': level %d needs %u down + %u up ports, more than r=%u; "
					 "expected down + up <= r at every level below the core",
					 l + 1, down[l], up[l], R);
	}
	/* Capacity: the core serves at most R blocks of level L-2. 8 levels
	 * of 65535 ports pass 2^64, where the product wrapped (to 0 for
	 * down=32768, and the build divided by it): the integer saturates at
	 * TOPO_EP_BIT, past which every tree is refused, and the message
	 * takes the product in doubles. */
	uint64_t cap = R;
	double cap_full = R;
	for (int l = 0; l + 1 < L; l++) {
		cap = cap >= TOPO_EP_BIT ? TOPO_EP_BIT : cap * down[l];
		cap_full *= down[l];
	}
	if (pr->n == 0) {
		if (cap >= TOPO_EP_BIT)
			return topo_errf(t, err, NL_ERANGE,
					 "parameter 'n': the full tree has %.15g terminals, more than supported (2^31)",
					 cap_full);
		pr->n = (int64_t)cap;
	}
	uint64_t n = (uint64_t)pr->n, blocks = n;
	if (n > cap)
		return clos_capacity_error(t, pr, down, cap, explicit_ports || is_tapered, err);
	for (int l = 0; l + 1 < L; l++)
		blocks = (blocks + down[l] - 1) / down[l];
	down[L - 1] = (uint32_t)blocks; /* the core: one link per level-(L-2) block */
	up[L - 1] = 0;
	NL_CHECK(topo_xgft_setup(t, tr, L, down, up, n, err));
	if (pr->pack && down[L - 1] <= R / 2)
		tr->per_package[L - 1] = R / down[L - 1];
	return 0;
}

const struct topo_ops topo_clos_ops = {
	.name = "clos",
	.help = "folded Clos of L levels of radix-R switches, optionally tapered (seed 001 §2.1.1, §4.1)",
	.params = clos_params_def,
	.params_size = sizeof(struct clos_params),
	.state_size = sizeof(struct topo_tree),
	.build = clos_build,
	.orbits = topo_xgft_orbits,
	.coords = topo_tree_coords,
	.level = topo_tree_level,
	.min_ports = topo_xgft_min_ports,
};
