/* BookSim2's network, routing function and traffic pattern as netloom
 * specs (struct bs_conv), with the channel lengths and per-link latencies
 * BookSim gives each network. Every spec is built (bs_check) before the
 * INI is written: one netloom cannot build is named with netloom's reason
 * and left out, never replaced by one that behaves differently. */
#include "cli/cli_booksim.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/error.h"
#include "route/route.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

/* BookSim's valiant_torus (routefunc.cpp) takes the ring part (0 or 1,
 * asserted) at every router before the destination, but dor_next_torus
 * sets it only when the packet turns into a dimension: on a hop that
 * continues in the same ring it is left unset, and BookSim aborts
 * ("Assertion `ring_part == 1' failed", routefunc.cpp:1391). A minimal ring route takes up to k/2 hops, so it
 * continues a ring once k >= 4; BookSim runs it with k = 2 or 3. */
static bool bs_valiant_torus_aborts(const char *tp, const char *rf, long k)
{
	return !strcmp(tp, "torus") && !strcmp(rf, "valiant") && k >= 4;
}

/* The BookSim routing function names the conversion maps on network tp,
 * comma-separated in buf ("" for a network it does not map). */
static void bs_routing_names(const char *tp, long k, char *buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	const char *rf;
	for (size_t i = 0; (rf = route_booksim_name(tp, i)) && used < cap; i++)
		if (!bs_valiant_torus_aborts(tp, rf, k))
			used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", rf);
}

/* One integer list of a hotspot parameter as BookSim reads it
 * (tokenize_int: a bare number, or {a,b,...}); each element must be a
 * whole integer (BookSim's atoi would read "2x" as 2: named instead).
 * Returns the count, or -1. */
static int bs_int_list(const char *v, long *out, int max)
{
	char buf[512];
	const char *el[BS_MAX_ELEMS];
	int n = bs_tokenize(v, buf, sizeof buf, el, max < BS_MAX_ELEMS ? max : BS_MAX_ELEMS);
	for (int i = 0; i < n; i++) {
		char *end;
		errno = 0;
		out[i] = strtol(el[i], &end, 10);
		if (end == el[i] || *end || errno)
			return -1;
	}
	return n;
}

/* BookSim's hotspot (TrafficPattern::New): the parameters are the text
 * between the first '(' and the last ')', split by bs_tokenize; the first
 * is the list of hot nodes, the second (if any) their rates, the last rate
 * repeated for nodes without one, 1 each without a list. So
 * hotspot({{0,5},{1,1}}) is nodes 0 and 5 at rates 1 and 1, while
 * hotspot({0,5},{1,1}) is node 0 at rate 5 (its top-level elements are 0
 * and 5), and hotspot(3) is node 3. A node < 0 is drawn at random, and a
 * missing list means one random node: named, as are rates BookSim asserts
 * on. With one hot node every packet goes there, whatever its rate. */
static bool bs_hotspot(const char *tr, const uint32_t *map, size_t n_map, char *out, size_t cap, char *why,
		       size_t why_cap)
{
	char param[256] = "", buf[512];
	const char *el[BS_MAX_ELEMS];
	const char *l = strchr(tr, '('), *r = strrchr(tr, ')');
	if (l)
		snprintf(param, sizeof param, "%.*s", (int)(r && r > l ? r - l - 1 : (long)strlen(l + 1)), l + 1);
	int n_params = bs_tokenize(param, buf, sizeof buf, el, BS_MAX_ELEMS);
	long nodes[BS_MAX_ELEMS], rates[BS_MAX_ELEMS];
	if (n_params < 1) {
		snprintf(why, why_cap, "BookSim's hotspot without a node list sends to one node drawn at random");
		return false;
	}
	int n_nodes = bs_int_list(el[0], nodes, BS_MAX_ELEMS);
	int n_rates = n_params >= 2 ? bs_int_list(el[1], rates, BS_MAX_ELEMS) : 0;
	if (n_nodes < 1 || n_rates < 0 || (n_params >= 2 && n_rates == 0)) {
		snprintf(why, why_cap,
			 "expected hotspot({NODE,...},{RATE,...}) as BookSim reads it: integer lists (BookSim reads nodes '%s'%s%s)",
			 el[0], n_params >= 2 ? " and rates " : "", n_params >= 2 ? el[1] : "");
		return false;
	}
	for (int i = n_rates; i < n_nodes; i++)
		rates[i] = n_rates ? rates[n_rates - 1] : 1;
	for (int i = 0; i < n_nodes; i++) {
		if (nodes[i] < 0) {
			snprintf(why, why_cap, "BookSim draws hot node %ld at random (a negative id)", nodes[i]);
			return false;
		}
		if (rates[i] <= 0) {
			snprintf(why, why_cap, "BookSim asserts every hotspot rate is > 0 (got %ld)", rates[i]);
			return false;
		}
		long id = nodes[i];
		if (map) {
			if (id >= (long)n_map) {
				snprintf(why, why_cap, "hot node %ld is not a terminal (0..%zu)", id, n_map - 1);
				return false;
			}
			id = map[id];
		}
		nodes[i] = id;
	}
	/* A node listed twice is drawn with the sum of its rates (BookSim
	 * picks among the list's entries); netloom takes each node once. */
	int n_kept = 0;
	for (int i = 0; i < n_nodes; i++) {
		int k = 0;
		while (k < n_kept && nodes[k] != nodes[i])
			k++;
		if (k < n_kept) {
			rates[k] += rates[i];
			continue;
		}
		nodes[n_kept] = nodes[i];
		rates[n_kept++] = rates[i];
	}
	n_nodes = n_kept;
	char list_n[256] = "", list_r[256] = "";
	size_t used_n = 0, used_r = 0;
	for (int i = 0; i < n_nodes; i++) {
		used_n += (size_t)snprintf(list_n + used_n, sizeof list_n - used_n, "%s%ld", i ? "/" : "", nodes[i]);
		used_r += (size_t)snprintf(list_r + used_r, sizeof list_r - used_r, "%s%ld", i ? "/" : "", rates[i]);
		if (used_n >= sizeof list_n || used_r >= sizeof list_r) {
			snprintf(why, why_cap, "too many hot nodes");
			return false;
		}
	}
	if (n_nodes == 1)
		snprintf(out, cap, "hotspot:nodes=%s", list_n);
	else
		snprintf(out, cap, "hotspot:nodes=%s,rates=%s", list_n, list_r);
	return true;
}

/* The pattern in netloom's syntax. map, when not NULL, renumbers
 * BookSim's terminal ids (n_map of them) to netloom endpoints: then only
 * patterns that do not depend on the numbering (uniform, a random
 * permutation), that name endpoints (hotspot) or that commute with the
 * renumbering (bitcomp, checked) convert. */
/* BookSim's traffic patterns netloom maps: the first BS_N_SIMPLE by name
 * alone (bs_traffic), then hotspot, which takes its arguments. */
static const char *const bs_mapped_patterns[] = {"uniform", "bitcomp",  "bitrev",     "shuffle", "transpose",
						 "tornado", "neighbor", "randperm", "asymmetric", "hotspot"};
enum { BS_N_SIMPLE = 9, BS_N_MAPPED = sizeof bs_mapped_patterns / sizeof *bs_mapped_patterns };

static bool bs_traffic(const char *tr, const uint32_t *map, size_t n_map, char *out, size_t cap, char *why,
		       size_t why_cap)
{
	why[0] = '\0';
	/* bitcomp (N a power of two) sends T to N-1-T in either numbering;
	 * it keeps its meaning when the renumbering commutes with it, as it
	 * does when x, xr and yr are powers of two. */
	bool bitcomp_same = map && !strcmp(tr, "bitcomp") && n_map && !(n_map & (n_map - 1));
	for (size_t t = 0; bitcomp_same && t < n_map; t++)
		bitcomp_same = map[n_map - 1 - t] == n_map - 1 - map[t];
	for (size_t i = 0; i < BS_N_SIMPLE; i++)
		if (!strcmp(tr, bs_mapped_patterns[i]) &&
		    (!map || !strcmp(tr, "uniform") || !strcmp(tr, "randperm") || bitcomp_same)) {
			snprintf(out, cap, "%s", tr);
			return true;
		}
	if (!strncmp(tr, "hotspot", 7) && (!tr[7] || tr[7] == '('))
		return bs_hotspot(tr, map, n_map, out, cap, why, why_cap);
	return false;
}

/* BookSim's atoi: leading blanks, a sign and digits, 0 without digits.
 * Returns whether that is the whole text ("5" yes; "5x" and "4,2,1",
 * read as 5 and 4, no). */
static bool bs_atoi(const char *s, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	bool digits = end != s && isdigit((unsigned char)end[-1]);
	if (!digits)
		*v = 0;
	return digits && !*end && !errno;
}

/* NAME or NAME(PARAMS), PARAMS the text between the first '(' and the last
 * ')' split by tokenize_str (bs_tokenize): text that does not start with
 * '{' is one argument, so tornado(4,2,1) has the one argument "4,2,1",
 * which atoi reads as k = 4, and tornado({4,2,1}) has three. By pattern
 * (traffic.cpp): uniform, bitcomp, bitrev, shuffle, transpose and
 * asymmetric read no argument; randperm reads its seed, else the
 * perm_seed key; tornado and neighbor read k, n and xr, each missing one
 * from the key of that name; hotspot reads nodes and rates (bs_hotspot,
 * given the whole value, as is any pattern netloom does not have). */
static void bs_pattern_read(struct bs_file *bf, const char *v, struct bs_pattern *pat)
{
	static const char *const no_args[] = {"uniform", "bitcomp", "bitrev", "shuffle", "transpose", "asymmetric",
					      NULL};
	static const char *const dig_keys[3] = {"k", "n", "xr"};
	char param[256] = "", buf[512];
	const char *el[BS_MAX_ELEMS];
	memset(pat, 0, sizeof *pat);
	const char *l = strchr(v, '('), *r = strrchr(v, ')');
	size_t name_len = l ? (size_t)(l - v) : strlen(v);
	if (l)
		snprintf(param, sizeof param, "%.*s", (int)(r && r > l ? r - l - 1 : (long)strlen(l + 1)), l + 1);
	int n_args = bs_tokenize(param, buf, sizeof buf, el, BS_MAX_ELEMS);
	snprintf(pat->name, sizeof pat->name, "%.*s", (int)name_len, v);
	for (int i = 0; no_args[i]; i++)
		if (!strcmp(pat->name, no_args[i])) {
			if (param[0])
				snprintf(pat->note, sizeof pat->note,
					 "; traffic = %s: BookSim's %s takes no argument (TrafficPattern::New ignores '%s')\n",
					 v, pat->name, param);
			return;
		}
	long x;
	if (!strcmp(pat->name, "randperm")) {
		if (n_args > 0) {
			if (!bs_atoi(el[0], &pat->perm_seed))
				snprintf(pat->note, sizeof pat->note,
					 "; traffic = %s: BookSim reads the argument '%s' as the permutation seed %ld (atoi)\n",
					 v, el[0], pat->perm_seed);
			return;
		}
		const char *ps = bs_get(bf, "perm_seed");
		if (!strcmp(ps, "time"))
			snprintf(pat->why, sizeof pat->why,
				 "BookSim draws the permutation seed from the clock (perm_seed = time): no fixed permutation to write; set perm_seed to an integer");
		else if (!bs_atoi(ps, &pat->perm_seed))
			snprintf(pat->why, sizeof pat->why,
				 "BookSim's randperm reads perm_seed = '%s' as an integer: expected an integer", ps);
		return;
	}
	if (strcmp(pat->name, "tornado") && strcmp(pat->name, "neighbor")) {
		snprintf(pat->name, sizeof pat->name, "%s", v);
		return;
	}
	for (int i = 0; i < 3; i++) {
		if (i >= n_args) {
			bs_atoi(bs_get(bf, dig_keys[i]), &pat->dig[i]);
			continue;
		}
		snprintf(pat->dig_arg[i], sizeof pat->dig_arg[i], "%s", el[i]);
		if (!bs_atoi(el[i], &x) && !pat->note[0])
			snprintf(pat->note, sizeof pat->note,
				 "; traffic = %s: BookSim reads the argument '%s' as %s = %ld (atoi; several arguments are written %s({K,N,XR}))\n",
				 v, el[i], dig_keys[i], x, pat->name);
		pat->dig[i] = x;
	}
	if (n_args > 3 && !pat->note[0])
		snprintf(pat->note, sizeof pat->note,
			 "; traffic = %s: BookSim's %s reads three arguments (k, n, xr) and ignores the rest\n", v,
			 pat->name);
}

/* BookSim's flatfly (flatfly_onchip.cpp) beyond k, n, c. It lays the
 * routers out on an x-by-y on-chip grid (router id = row * x + column; it
 * asserts x == y, xr == yr and c == xr * yr) and numbers terminals
 * mesh-style over that grid: terminal (column * xr + i, row * yr + j),
 * i < xr, j < yr, is id (x * xr) * (row * yr + j) + column * xr + i, where
 * netloom's HyperX numbers endpoints router by router (router * c + xr * j
 * + i, which is the order BookSim's own flatfly_transformation routes
 * by). *map gets the renumbering when the two differ (NULL when they are
 * the same). With use_noc_latency = 1 (BookSim's default) a channel is
 * xr * |dcolumn| + yr * |drow| cycles long and a terminal channel 1 cycle
 * while xr, yr <= 3: netloom's `noc_latency = 1` (same grid, same rule).
 * Returns 0 or a negative error (out of memory). */
static int bs_flatfly(const char *path, FILE *warn, struct bs_file *bf, long k, long nd, long c,
		      const char *lat[][3], int *n_lat, uint32_t **map, size_t *n_map, int *unmapped,
		      struct nl_err *err)
{
	long x = strtol(bs_get(bf, "x"), NULL, 10), y = strtol(bs_get(bf, "y"), NULL, 10);
	long xr = strtol(bs_get(bf, "xr"), NULL, 10), yr = strtol(bs_get(bf, "yr"), NULL, 10);
	long routers = 1;
	for (long d = 0; d < nd && routers <= (1L << 24); d++)
		routers *= k;
	if (k < 2 || nd < 1 || nd > 4 || c < 1 || routers > (1L << 24)) {
		bs_warn(warn, path, bf, "n", "BookSim's flatfly needs k >= 2, 1 <= n <= 4 and c >= 1", unmapped);
		return 0;
	}
	if (x != y || xr != yr || c != xr * yr || x * y != routers) {
		char why[256];
		snprintf(why, sizeof why,
			 "BookSim's flatfly needs x = y, xr = yr, c = xr * yr and x * y = k^n routers (here x = %ld, y = %ld, xr = %ld, yr = %ld, c = %ld, %ld routers)",
			 x, y, xr, yr, c, routers);
		bs_warn(warn, path, bf, "x", why, unmapped);
		return 0;
	}
	/* xr > 3 is named and noc_latency left out: netloom's noc_latency
	 * refuses such a grid, and the INI written must run. */
	if (strtol(bs_get(bf, "use_noc_latency"), NULL, 10) == 1 && xr > 3) {
		bs_warn(warn, path, bf, "xr",
			"use_noc_latency = 1 with xr > 3 gives terminal channels of several cycles, not modelled",
			unmapped);
	} else if (strtol(bs_get(bf, "use_noc_latency"), NULL, 10) == 1) {
		lat[*n_lat][0] = "noc_latency";
		lat[*n_lat][1] = "1";
		lat[(*n_lat)++][2] = "BookSim's flatfly channels with use_noc_latency = 1 (its default) are "
				     "xr * columns + yr * rows cycles long";
	}
	size_t n = (size_t)(routers * c);
	uint32_t *m = malloc(n * sizeof *m);
	if (!m)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	bool same = true;
	for (size_t id = 0; id < n; id++) {
		size_t row = id / (size_t)(x * xr), col = id % (size_t)(x * xr);
		size_t router = row / (size_t)yr * (size_t)x + col / (size_t)xr;
		m[id] = (uint32_t)(router * (size_t)c + row % (size_t)yr * (size_t)xr + col % (size_t)xr);
		same = same && m[id] == id;
	}
	if (same) {
		free(m);
		return 0;
	}
	*map = m;
	*n_map = n;
	return 0;
}

/* BookSim's anynet (networks/anynet.cpp): its network_file, opened as
 * BookSim opens it (an ifstream on the name as given: relative to the
 * directory BookSim runs in, not to the config's), becomes
 * anynet:file=ABSOLUTE so the INI reads the same file from anywhere.
 * The file's own errors are named when bs_check builds the network. */
static void bs_anynet(const char *path, FILE *warn, struct bs_file *bf, char *topo, size_t cap, int *unmapped)
{
	const char *nf = bs_get(bf, "network_file");
	char why[PATH_MAX + 256], abs[PATH_MAX];
	if (!nf || !nf[0]) {
		bs_warn(warn, path, bf, "topology", "anynet needs network_file (BookSim exits without one)", unmapped);
		return;
	}
	if (!realpath(nf, abs)) {
		/* BookSim would not find it either; say where it is if beside the config. */
		char beside[PATH_MAX];
		const char *slash = strrchr(path, '/');
		snprintf(beside, sizeof beside, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, nf);
		if (nf[0] != '/' && slash && access(beside, R_OK) == 0)
			snprintf(why, sizeof why,
				 "cannot open '%s' (%s); BookSim opens it relative to the directory it runs in, not the "
				 "config's: run the conversion from the config's directory, or give an absolute path",
				 nf, strerror(errno));
		else
			snprintf(why, sizeof why, "cannot open '%s' (%s); expected BookSim's anynet network_file", nf,
				 strerror(errno));
		bs_warn(warn, path, bf, "network_file", why, unmapped);
		return;
	}
	if (strpbrk(abs, ",=") || (size_t)snprintf(topo, cap, "anynet:file=%s", abs) >= cap) {
		snprintf(why, sizeof why, "path '%s' %s; expected one without ',' or '=' of at most %zu bytes", abs,
			 strpbrk(abs, ",=") ? "holds ',' or '='" : "is too long", cap - 20);
		topo[0] = '\0';
		bs_warn(warn, path, bf, "network_file", why, unmapped);
	}
}

/* BookSim's fly (networks/fly.cpp): k-ary n-fly, k^n terminals. With
 * n = 1 it is one k x k crossbar whose channels are 1 cycle: netloom's
 * fly:k=K,n=1. With n > 1 terminals inject at stage 0 and eject at stage
 * n-1, different routers, which netloom's endpoint model cannot hold. */
static void bs_fly(const char *path, FILE *warn, struct bs_file *bf, long k, long nd, char *topo, size_t cap,
		   int *unmapped)
{
	char why[256];
	if (nd != 1) {
		snprintf(why, sizeof why,
			 "a k-ary n-fly with n = %ld > 1 injects at stage 0 and ejects at stage n-1, two different routers; netloom attaches each endpoint to one router, so only n = 1 (one k x k crossbar) converts",
			 nd);
		bs_warn(warn, path, bf, "n", why, unmapped);
		return;
	}
	if (k < 2) {
		snprintf(why, sizeof why, "BookSim's fly needs k >= 2 (a k x k crossbar), got k = %ld", k);
		bs_warn(warn, path, bf, "k", why, unmapped);
		return;
	}
	snprintf(topo, cap, "fly:k=%ld,n=1", k);
}

/* BookSim's cmesh (networks/cmesh.cpp): a k x k mesh, c = 4 terminals per
 * router as an xr x yr = 2 x 2 block of a 2k x 2k terminal grid (its
 * _ComputeSize asserts n <= 2, c == 4, x == y, xr == yr and c == xr * yr,
 * and builds its blocks as (c / n) x (c / (c / n)), so n = 1 is not a
 * concentrated mesh). netloom's cmesh numbers endpoints the same way. With
 * use_noc_latency = 1 (BookSim's default) a mesh channel is c / n = 2
 * cycles (xr), terminal channels 1; express channels (x k/2 cycles) are not
 * built and *_no_express routing never takes them. */
static void bs_cmesh(const char *path, FILE *warn, struct bs_file *bf, long k, long nd, long c, char *topo,
		     size_t cap, long *chan, int *unmapped)
{
	long x = strtol(bs_get(bf, "x"), NULL, 10), y = strtol(bs_get(bf, "y"), NULL, 10);
	long xr = strtol(bs_get(bf, "xr"), NULL, 10), yr = strtol(bs_get(bf, "yr"), NULL, 10);
	char why[256];
	const char *key = NULL;
	if (nd != 2) {
		key = "n";
		snprintf(why, sizeof why, "BookSim's cmesh is two-dimensional: expected n = 2");
	} else if (c != 4) {
		key = "c";
		snprintf(why, sizeof why, "BookSim's cmesh asserts c = 4 (a 2 x 2 block of terminals per router)");
	} else if (xr != yr || xr * yr != c) {
		key = "xr";
		snprintf(why, sizeof why, "BookSim's cmesh asserts xr = yr and c = xr * yr (here xr = %ld, yr = %ld, c = %ld)",
			 xr, yr, c);
	} else if (x != y) {
		key = "x";
		snprintf(why, sizeof why, "BookSim's cmesh asserts x = y (here x = %ld, y = %ld)", x, y);
	} else if (k < 2) {
		key = "k";
		snprintf(why, sizeof why, "BookSim's cmesh needs k >= 2 routers per dimension, got k = %ld", k);
	}
	if (key) {
		bs_warn(warn, path, bf, key, why, unmapped);
		return;
	}
	snprintf(topo, cap, "cmesh:k=%ld,n=2,c=%ld", k, c);
	*chan = strtol(bs_get(bf, "use_noc_latency"), NULL, 10) == 1 ? c / nd : 1;
}

/* What a converted file routes with when BookSim's routing function is
 * not mapped, in order of preference (NULL: netloom's default). Each
 * must also not deadlock: updown (Autonet's up/down routing) closes no
 * cycle of channel dependencies on any network with any VC count
 * (Schroeder et al. 1991), where min:classes=none, the one that built
 * with 1 VC, deadlocked the default torus within 400 cycles at a load
 * of 0.5. */
static const char *const bs_fallback_routes[] = {NULL, "min", "updown", "min:classes=none"};

/* Build what the INI will describe (the topology, the routing function
 * over n_vcs VCs, the traffic pattern), so a spec netloom cannot run is
 * named here, with netloom's reason, and left out, not found by `netloom
 * run` later. traffic NULL: nothing to check.
 *
 * What is left out must still leave a file that runs (issue 11 part 6):
 * without a topology netloom's default network is simulated, and a routing
 * function that only ran on the dropped one is dropped with it; without a
 * routing function the first of bs_fallback_routes that runs on the
 * network is written, and `route_note` says why in the INI. The exit
 * status already says the file is not BookSim's network. */
static void bs_check(const char *path, FILE *warn, struct bs_file *bf, char *topo, char *route, size_t route_cap,
		     char *traffic, long n_vcs, char *route_note, size_t note_cap, int *n)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	if (topo[0] && topo_new(topo, &t, &e) < 0) {
		bs_warn(warn, path, bf, "topology", e.msg, n);
		topo[0] = '\0';
	}
	if (!topo[0] && topo_new(bs_default("topology"), &t, &e) < 0) {
		bs_warn(warn, path, bf, "topology", e.msg, n); /* not reached: the default builds */
		return;
	}
	struct route *r = NULL;
	if (route[0] && route_new(route, t, (uint32_t)n_vcs, &r, &e) < 0) {
		char why[NL_ERR_MSG_MAX + 64];
		snprintf(why, sizeof why, "'%s' with num_vcs = %ld%s: %s", route, n_vcs,
			 topo[0] ? "" : " on netloom's default network", e.msg);
		bs_warn(warn, path, bf, "routing_function", why, n);
		route[0] = '\0';
	}
	route_free(r);
	r = NULL;
	for (size_t i = 0; !route[0] && i < sizeof bs_fallback_routes / sizeof *bs_fallback_routes; i++) {
		const char *fb = bs_fallback_routes[i] ? bs_fallback_routes[i] : bs_default("routing_function");
		if (route_new(fb, t, (uint32_t)n_vcs, &r, &e) < 0)
			continue;
		route_free(r);
		r = NULL;
		snprintf(route, route_cap, "%s", fb);
		const char *rf = bs_get(bf, "routing_function");
		snprintf(route_note, note_cap,
			 "; routing_function: BookSim's '%s' is not mapped (see the conversion's messages);\n"
			 "; '%s' is written so that this file runs: it is not BookSim's routing.\n",
			 rf[0] ? rf : "(none)", route);
	}
	/* BookSim's bit permutations exit unless the node count is a power of
	 * two (transpose: an even power); netloom would run them. */
	if (topo[0] && traffic && (!strcmp(traffic, "bitcomp") || !strcmp(traffic, "bitrev") ||
				   !strcmp(traffic, "shuffle") || !strcmp(traffic, "transpose"))) {
		uint32_t nodes = t->n_endpoints;
		int bits = 0;
		while ((1u << bits) < nodes && bits < 31)
			bits++;
		bool pow2 = nodes && !(nodes & (nodes - 1));
		char why[256] = "";
		if (!pow2)
			snprintf(why, sizeof why,
				 "BookSim exits: bit permutation traffic patterns require the number of nodes to be a power of two (here %u)",
				 nodes);
		else if (!strcmp(traffic, "transpose") && bits % 2)
			snprintf(why, sizeof why,
				 "BookSim exits: transpose requires the number of nodes to be an even power of two (here %u = 2^%d)",
				 nodes, bits);
		if (why[0]) {
			bs_warn(warn, path, bf, "traffic", why, n);
			traffic[0] = '\0';
		}
	}
	struct traffic *tr = NULL;
	if (traffic && traffic[0] && traffic_new(traffic, t, 0, &tr, &e) < 0) {
		bs_warn(warn, path, bf, "traffic", e.msg, n);
		traffic[0] = '\0';
	}
	traffic_free(tr);
	topo_free(t);
}

/* BookSim's topology, k, n and c as netloom's topology spec, with the
 * channel length and per-link latencies BookSim gives that network.
 * Returns 0 or a negative error (a size that is not one integer, out of
 * memory). */
int bs_conv_network(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped,
		    struct nl_err *err)
{
	const char *tp = cv->tp = bs_get(bf, "topology");
	NL_CHECK(bs_size(path, bf, "k", &cv->k, err));
	NL_CHECK(bs_size(path, bf, "n", &cv->nd, err));
	NL_CHECK(bs_size(path, bf, "c", &cv->c, err));
	const long k = cv->k, nd = cv->nd, c = cv->c;
	cv->chan = 1;
	bool kncube = !strcmp(tp, "torus") || !strcmp(tp, "mesh");
	if (kncube)
		cv->chan = strtol(bs_get(bf, "use_noc_latency"), NULL, 10) == 1 && !strcmp(tp, "torus") ? 2 : 1;
	if (kncube && (k < 2 || nd < 1 || nd > 16)) {
		/* Named and left out, as any key that does not convert (status
		 * 3, the INI runs), with its channel length (bs_conv_drop_latencies). */
		char why[160];
		if (k < 2)
			snprintf(why, sizeof why, "a %s needs k >= 2 routers per dimension, got k = %ld", tp, k);
		else
			snprintf(why, sizeof why, "netloom's %s has 1 to 16 dimensions, got n = %ld", tp, nd);
		bs_warn(warn, path, bf, k < 2 ? "k" : "n", why, unmapped);
	} else if (kncube) {
		int used = snprintf(cv->topo, sizeof cv->topo, "%s:k=", tp);
		for (long d = 0; d < nd; d++)
			used += snprintf(cv->topo + used, sizeof cv->topo - (size_t)used, "%s%ld", d ? "x" : "", k);
		/* KNCube (kncube.cpp) reads k and n only: one node per router
		 * whatever c says. */
		if (c != 1)
			snprintf(cv->topo_note, sizeof cv->topo_note,
				 "; c = %ld is not applied: BookSim's %s (KNCube) ignores c, one node per router\n", c, tp);
	} else if (!strcmp(tp, "fattree")) {
		/* BookSim's k-ary n-tree (fattree.cpp): k^n nodes, n levels, every
		 * channel 1 cycle. */
		snprintf(cv->topo, sizeof cv->topo, "fattree:k=%ld,n=%ld", k, nd);
	} else if (!strcmp(tp, "dragonflynew")) {
		/* dragonfly.cpp: k = p processors per router, n = 1, a = 2p
		 * routers per group, h = p global ports, g = a*h + 1 groups. Its
		 * _BuildNet sets local channels to 10 cycles and global ones to
		 * 100; terminal channels keep BookSim's 1. */
		if (nd != 1)
			bs_warn(warn, path, bf, "n", "BookSim's dragonflynew supports n = 1 only", unmapped);
		snprintf(cv->topo, sizeof cv->topo, "dragonfly:a=%ld,p=%ld,h=%ld", 2 * k, k, k);
		static const char *const df_lat[3][3] = {
			{"terminal_latency", "1", "BookSim's dragonflynew terminal channels are 1 cycle"},
			{"local_latency", "10", "BookSim's dragonflynew local channels are 10 cycles"},
			{"global_latency", "100", "BookSim's dragonflynew global channels are 100 cycles"},
		};
		for (int i = 0; i < 3; i++, cv->n_lat++)
			for (int j = 0; j < 3; j++)
				cv->lat[cv->n_lat][j] = df_lat[i][j];
	} else if (!strcmp(tp, "flatfly")) {
		/* flatfly_onchip.cpp: k routers per dimension, n dimensions, c
		 * terminals per router: a HyperX with S = k in every dimension,
		 * routers numbered as netloom's (dimension 0 fastest). */
		int used = snprintf(cv->topo, sizeof cv->topo, "hyperx:s=");
		for (long d = 0; d < nd; d++)
			used += snprintf(cv->topo + used, sizeof cv->topo - (size_t)used, "%s%ld", d ? "x" : "", k);
		snprintf(cv->topo + used, sizeof cv->topo - (size_t)used, ",t=%ld", c);
		NL_CHECK(bs_flatfly(path, warn, bf, k, nd, c, cv->lat, &cv->n_lat, &cv->map, &cv->n_map, unmapped,
				    err));
	} else if (!strcmp(tp, "anynet")) {
		bs_anynet(path, warn, bf, cv->topo, sizeof cv->topo, unmapped);
	} else if (!strcmp(tp, "fly")) {
		bs_fly(path, warn, bf, k, nd, cv->topo, sizeof cv->topo, unmapped);
	} else if (!strcmp(tp, "cmesh")) {
		bs_cmesh(path, warn, bf, k, nd, c, cv->topo, sizeof cv->topo, &cv->chan, unmapped);
	} else {
		/* A typo of a network it maps says which ('tours': torus), as
		 * a mistyped routing function does; BookSim's own others
		 * (qtree, tree4) get no guess. BookSim stops on a name it does
		 * not have (network.cpp: "Unknown topology"). */
		static const char *const mapped[] = {"torus", "mesh", "cmesh", "fly", "fattree", "flatfly", "anynet",
						     "dragonflynew"};
		const char *near = strcmp(tp, "qtree") && strcmp(tp, "tree4")
					   ? config_name_near(tp, strlen(tp), mapped, sizeof mapped / sizeof *mapped)
					   : NULL;
		char why[160];
		snprintf(why, sizeof why, "no netloom equivalent of this BookSim network yet%s%s%s",
			 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		bs_warn(warn, path, bf, "topology", why, unmapped);
	}
	return 0;
}

/* More BookSim routing functions than route_booksim_name maps on any one
 * network (flatfly's five). */
#define BS_ROUTES_MAX 16

/* The routing function BookSim has on network tp (one netloom maps) that
 * rf is a typo of ('dim_ordr': dim_order), or NULL. */
static const char *bs_routing_near(const char *tp, const char *rf, long k)
{
	const char *names[BS_ROUTES_MAX], *name;
	size_t n = 0;
	for (size_t i = 0; (name = route_booksim_name(tp, i)) && n < BS_ROUTES_MAX; i++)
		if (!bs_valiant_torus_aborts(tp, name, k))
			names[n++] = name;
	return config_name_near(rf, strlen(rf), names, n);
}

/* BookSim's routing_function on its network as netloom's routing spec,
 * or named with what BookSim does with it. */
void bs_conv_routing(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped)
{
	const char *tp = cv->tp;
	const char *rf = bs_get(bf, "routing_function");
	const char *r = route_booksim_spec(tp, rf);
	if (!strcmp(rf, "none")) {
		/* BookSim's default: it looks up none_TOPOLOGY, which no
		 * network has. */
		char names[256], why[640];
		bool set = false;
		for (int i = 0; i < bf->n; i++)
			set |= !strcmp(bf->kv[i].key, "routing_function");
		bs_routing_names(tp, cv->k, names, sizeof names);
		snprintf(why, sizeof why,
			 "%s: BookSim stops with 'Invalid routing function: none_%s'; set routing_function to %s%s",
			 set ? "'none' is no BookSim routing function"
			     : "not set, and BookSim's default is 'none', which is no routing function",
			 tp, names[0] ? "one of " : "BookSim's routing function for this network",
			 names);
		bs_warn(warn, path, bf, "routing_function", why, unmapped);
	} else if (bs_valiant_torus_aborts(tp, rf, cv->k))
		bs_warn(warn, path, bf, "routing_function",
			"BookSim's valiant_torus aborts on a torus with k >= 4 (routefunc.cpp:1391: assertion 'ring_part == 1' failed: dor_next_torus leaves ring_part unset on a hop that continues in the same dimension); valiant on a mesh runs",
			unmapped);
	else if (r)
		snprintf(cv->route, sizeof cv->route, "%s", r);
	else if (!strcmp(tp, "cmesh") && (!strcmp(rf, "dor") || !strcmp(rf, "xy_yx")))
		bs_warn(warn, path, bf, "routing_function",
			"BookSim's dor_cmesh and xy_yx_cmesh take the express channels between edge routers, which netloom's cmesh does not build (use dor_no_express or xy_yx_no_express)",
			unmapped);
	else if (!strcmp(tp, "torus") && !strcmp(rf, "dor"))
		bs_warn(warn, path, bf, "routing_function",
			"BookSim exits: 'Invalid routing function: dor_torus' (it has dor_mesh only); dim_order is dimension order on a torus",
			unmapped);
	else {
		/* A typo of a name it maps says which, as a mistyped netloom
		 * choice does. */
		const char *near = bs_routing_near(tp, rf, cv->k);
		const char *unmodelled = route_booksim_unmodelled(rf);
		char why[160];
		if (unmodelled)
			snprintf(why, sizeof why, ROUTE_BOOKSIM_UNMODELLED_FMT, unmodelled);
		else
			snprintf(why, sizeof why, "no netloom equivalent (see 'netloom run --help')%s%s%s",
				 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		bs_warn(warn, path, bf, "routing_function", why, unmapped);
	}
}

/* BookSim's tornado and neighbor (traffic.cpp) step the n digits of the
 * node id in base xr * k, from their arguments or the config's k, n and
 * xr keys, whatever the network. netloom's step router coordinates on a
 * torus, mesh or cmesh and the endpoint ring elsewhere: the same
 * destinations only on a torus or mesh (one node per router: BookSim's
 * KNCube ignores c) with the network's k and n and xr = 1. netloom's
 * patterns take no k, n or xr of their own. Anything else is named and
 * the pattern left out. */
static void bs_conv_digit_pattern(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv,
				  int *unmapped)
{
	const struct bs_pattern *pat = &cv->pat;
	const char *tp = cv->tp, *traffic = cv->traffic;
	const long k = cv->k, nd = cv->nd, xr = pat->dig[2];
	bool grid = !strcmp(tp, "torus") || !strcmp(tp, "mesh");
	char why[320];
	if (!strcmp(tp, "anynet"))
		snprintf(why, sizeof why, "%s",
			 "BookSim's tornado and neighbor on anynet step digits of the node id in base k (its k and n keys); "
			 "netloom's, on a graph without coordinates, step along the endpoint ring");
	else if (!strcmp(tp, "cmesh"))
		snprintf(why, sizeof why, "%s",
			 "BookSim's tornado and neighbor on the cmesh step k-ary digits of node ids, netloom's step router coordinates: different destinations");
	else if (!grid)
		snprintf(why, sizeof why,
			 "BookSim's tornado and neighbor step %ld digits of the node id in base %ld (n, k and xr) on any network; on its %s that is not netloom's pattern (netloom steps along the endpoint ring there)",
			 pat->dig[1], xr * pat->dig[0], tp);
	else if (pat->dig[0] != k)
		snprintf(why, sizeof why,
			 "its argument '%s' is k = %ld: BookSim steps digits of the node id in base xr * k = %ld, netloom's %s the %s's coordinates in base k = %ld (it takes no k of its own)",
			 pat->dig_arg[0], pat->dig[0], xr * pat->dig[0], traffic, tp, k);
	else if (pat->dig[1] != nd)
		snprintf(why, sizeof why,
			 "its argument '%s' is n = %ld: BookSim steps %ld digits of the node id, netloom's %s all %ld coordinates of the %s (it takes no n of its own)",
			 pat->dig_arg[1], pat->dig[1], pat->dig[1], traffic, nd, tp);
	else if (xr != 1)
		snprintf(why, sizeof why,
			 "%s%s%sBookSim's tornado and neighbor step digits of the node id in base xr * k = %ld, netloom's the %s's coordinates in base k = %ld",
			 pat->dig_arg[2][0] ? "its argument '" : "", pat->dig_arg[2],
			 pat->dig_arg[2][0] ? "' is xr: " : "", xr * k, tp, k);
	if (!grid || pat->dig[0] != k || pat->dig[1] != nd || xr != 1) {
		bs_warn(warn, path, bf, "traffic", why, unmapped);
		cv->traffic[0] = '\0';
	}
}

/* Whether the first len bytes of name are one of list's n names. */
static bool bs_name_in(const char *name, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncmp(name, list[i], len))
			return true;
	return false;
}

/* BookSim's traffic value as netloom's pattern (over flatfly's
 * renumbering, when there is one), or why it is not mapped. */
void bs_conv_traffic(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped)
{
	bs_pattern_read(bf, bs_get(bf, "traffic"), &cv->pat);
	snprintf(cv->traffic_why, sizeof cv->traffic_why, "%s", cv->pat.why);
	cv->traffic_ok = !cv->pat.why[0] && bs_traffic(cv->pat.name, cv->map, cv->n_map, cv->traffic,
						       sizeof cv->traffic, cv->traffic_why, sizeof cv->traffic_why);
	/* A typo of a pattern it maps says which ('unifrom': uniform), as a
	 * mistyped routing function does; BookSim's own others (diagonal,
	 * background, taper64, bad_dragon, badperm_yarc) get no guess. */
	static const char *const unmapped_names[] = {"diagonal", "background", "taper64", "bad_dragon", "badperm_yarc"};
	size_t len = strcspn(cv->pat.name, "("); /* unifrom() */
	/* A pattern of BookSim's, not a typo (flatfly's renumbered shuffle). */
	bool booksim_own = bs_name_in(cv->pat.name, len, unmapped_names, sizeof unmapped_names / sizeof *unmapped_names) ||
			   bs_name_in(cv->pat.name, len, bs_mapped_patterns, BS_N_MAPPED);
	const char *near = !cv->traffic_ok && !cv->traffic_why[0] && !booksim_own
				   ? config_name_near(cv->pat.name, len, bs_mapped_patterns, BS_N_MAPPED)
				   : NULL;
	if (near)
		snprintf(cv->traffic_why, sizeof cv->traffic_why, "no netloom equivalent pattern (did you mean '%s'?)", near);
	if (cv->traffic_ok && !strcmp(cv->traffic, "randperm") && cv->pat.perm_seed)
		snprintf(cv->traffic, sizeof cv->traffic, "randperm:perm_seed=%ld", cv->pat.perm_seed);
	if (cv->traffic_ok && (!strcmp(cv->traffic, "tornado") || !strcmp(cv->traffic, "neighbor")))
		bs_conv_digit_pattern(path, warn, bf, cv, unmapped);
}

/* Build the network, routing function and pattern decided (bs_check),
 * over BookSim's num_vcs (16, its default, for a count netloom refuses:
 * bs_put names that one). */
void bs_conv_check(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped)
{
	long n_vcs = strtol(bs_get(bf, "num_vcs"), NULL, 10);
	bs_check(path, warn, bf, cv->topo, cv->route, sizeof cv->route, cv->traffic_ok ? cv->traffic : NULL,
		 n_vcs >= 1 && n_vcs <= 255 ? n_vcs : 16, cv->route_note, sizeof cv->route_note, unmapped);
}

/* Per-link latencies describe the network they came with: a topology
 * left out takes them with it, as it takes its routing function.
 * Written for netloom's default network instead, they made the file
 * one that does not run (a dragonflynew of k = 0: 'local_latency':
 * torus has one class of links, exit 2), where a key left out is
 * status 3. So does a torus's or cmesh's channel length from
 * use_noc_latency (2 cycles): not written (0) for another network. */
void bs_conv_drop_latencies(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped)
{
	if (cv->topo[0])
		return;
	for (int i = 0; i < cv->n_lat; i++) {
		char why[320];
		snprintf(why, sizeof why, "%s: left out with the topology", cv->lat[i][2]);
		bs_warn(warn, path, bf, cv->lat[i][0], why, unmapped);
	}
	cv->n_lat = 0;
	if (cv->chan != 1) {
		char why[320];
		snprintf(why, sizeof why, "BookSim's %s channels with use_noc_latency = 1 are %ld cycles "
			 "(channel_latency = %ld): left out with the topology", cv->tp, cv->chan, cv->chan);
		bs_warn(warn, path, bf, "use_noc_latency", why, unmapped);
		cv->chan = 0;
	}
}
