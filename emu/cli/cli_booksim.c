/* BookSim2 configuration files to netloom INI (netloom config
 * --from-booksim). BookSim's syntax is `key = value;` with // and block
 * comments and {a,b} vectors. Every key with a netloom equivalent is
 * written with BookSim's effective value (its default when the file does
 * not set it), so the result does not depend on netloom's own defaults;
 * keys netloom does not model are accepted silently when they hold
 * BookSim's default, and named on the warning stream otherwise. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"

#define BS_MAX 256

struct bs_kv {
	char key[64];
	char val[256];
	int line;
	bool used;
};

struct bs_file {
	struct bs_kv kv[BS_MAX];
	int n;
};

/* BookSim2's defaults (booksim_config.cpp) for the keys we map. */
static const char *const bs_defaults[][2] = {
	{"topology", "torus"}, {"k", "8"}, {"n", "2"}, {"c", "1"}, {"routing_function", "none"},
	{"use_noc_latency", "1"}, {"num_vcs", "16"}, {"vc_buf_size", "8"}, {"routing_delay", "1"},
	{"vc_alloc_delay", "1"}, {"sw_alloc_delay", "1"}, {"st_prepare_delay", "0"}, {"st_final_delay", "1"},
	{"credit_delay", "0"}, {"internal_speedup", "1.0"}, {"input_speedup", "1"}, {"output_speedup", "1"},
	{"vc_allocator", "islip"}, {"sw_allocator", "islip"}, {"alloc_iters", "1"},
	{"wait_for_tail_credit", "0"}, {"traffic", "uniform"}, {"injection_rate", "0.1"},
	{"injection_rate_uses_flits", "0"}, {"packet_size", "1"}, {"injection_process", "bernoulli"},
	{"sim_type", "latency"}, {"warmup_periods", "3"}, {"sample_period", "1000"}, {"max_samples", "10"},
	{"latency_thres", "500.0"}, {"warmup_thres", "0.05"}, {"acc_warmup_thres", "0.05"},
	{"stopping_thres", "0.05"}, {"acc_stopping_thres", "0.05"}, {"seed", "0"}, {"router", "iq"},
};

/* Keys netloom does not model, fine when they hold this (BookSim default)
 * value. */
static const char *const bs_inert[][2] = {
	{"speculative", "0"}, {"noq", "0"}, {"output_delay", "0"}, {"hold_switch_for_packet", "0"},
	{"classes", "1"}, {"subnets", "1"}, {"priority", "none"}, {"vc_busy_when_full", "0"},
	{"vc_prioritize_empty", "0"}, {"vc_shuffle_requests", "0"}, {"output_buffer_size", "-1"},
	{"buffer_policy", "private"}, {"use_read_write", "0"}, {"include_queuing", "1"},
	{"arb_type", "round_robin"}, {"sim_count", "1"}, {"measure_stats", "1"}, {"pair_stats", "0"},
	{"vc_priority_donation", "0"}, {"spec_sw_allocator", "prio"}, {"fail_seed", "0"},
	{"link_failures", "0"}, {"buf_size", "-1"}, {"perm_seed", "0"}, {"vct", "0"},
};

/* Keys that only affect BookSim's console output or warnings. */
static const char *const bs_cosmetic[] = {
	"print_activity", "print_csv_results", "deadlock_warn_timeout", "watch_file", "watch_flits",
	"watch_packets", "watch_transactions", "watch_out", "stats_out", "viewer_trace", "sim_power",
	"power_output_file", "tech_file", "channel_sweep", "network_file", "stats_out", NULL,
};

static int bs_read(const char *path, struct bs_file *bf, struct nl_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return nl_errf(err, NL_EIO, "%s: cannot open BookSim config: %s", path, strerror(errno));
	char text[1 << 16];
	size_t len = fread(text, 1, sizeof text - 1, f);
	bool big = !feof(f);
	fclose(f);
	if (big)
		return nl_errf(err, NL_EFORMAT, "%s: larger than 64 KiB, not a BookSim config", path);
	text[len] = '\0';

	/* Strip comments, keeping newlines for line numbers. */
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '/' && text[i + 1] == '/') {
			while (i < len && text[i] != '\n')
				text[i++] = ' ';
		} else if (text[i] == '/' && text[i + 1] == '*') {
			while (i < len && !(text[i] == '*' && text[i + 1] == '/')) {
				if (text[i] != '\n')
					text[i] = ' ';
				i++;
			}
			if (i < len)
				text[i] = text[i + 1] = ' ';
		}
	}
	int line = 1;
	char *p = text;
	bf->n = 0;
	while (*p) {
		while (*p && isspace((unsigned char)*p)) {
			line += *p == '\n';
			p++;
		}
		if (!*p)
			break;
		char *semi = strchr(p, ';');
		if (!semi)
			return nl_errf(err, NL_EFORMAT, "%s:%d: expected 'key = value;' (missing ';')", path, line);
		*semi = '\0';
		int stmt_line = line;
		for (char *q = p; q < semi; q++)
			line += *q == '\n';
		char *eq = strchr(p, '=');
		if (!eq)
			return nl_errf(err, NL_EFORMAT, "%s:%d: expected 'key = value;'", path, stmt_line);
		*eq = '\0';
		char *k = p, *v = eq + 1;
		while (isspace((unsigned char)*k))
			k++;
		for (char *e = k + strlen(k); e > k && isspace((unsigned char)e[-1]); *--e = '\0')
			;
		while (isspace((unsigned char)*v))
			v++;
		for (char *e = v + strlen(v); e > v && isspace((unsigned char)e[-1]); *--e = '\0')
			;
		/* A second '=' in the value, or a key with blanks inside, means
		 * two statements ran together: the first one's ';' is missing
		 * (BookSim's own parser rejects these too). */
		if (v[0] != '"' && strchr(v, '='))
			return nl_errf(err, NL_EFORMAT, "%s:%d: expected 'key = value;' (missing ';')", path,
				       stmt_line);
		for (char *q = k; *q; q++)
			if (isspace((unsigned char)*q))
				return nl_errf(err, NL_EFORMAT, "%s:%d: expected 'key = value;'", path, stmt_line);
		size_t vl = strlen(v);
		if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
			v[vl - 1] = '\0';
			v++;
		}
		if (!*k || strlen(k) >= sizeof bf->kv[0].key || strlen(v) >= sizeof bf->kv[0].val)
			return nl_errf(err, NL_EFORMAT, "%s:%d: bad key or value", path, stmt_line);
		if (bf->n == BS_MAX)
			return nl_errf(err, NL_ERANGE, "%s: more than %d settings", path, BS_MAX);
		int slot = bf->n;
		for (int i = 0; i < bf->n; i++)
			if (!strcmp(bf->kv[i].key, k))
				slot = i;
		snprintf(bf->kv[slot].key, sizeof bf->kv[slot].key, "%s", k);
		snprintf(bf->kv[slot].val, sizeof bf->kv[slot].val, "%s", v);
		bf->kv[slot].line = stmt_line;
		bf->kv[slot].used = false;
		if (slot == bf->n)
			bf->n++;
		p = semi + 1;
	}
	return 0;
}

/* Effective value of a key: the file's, else BookSim's default. */
static const char *bs_get(struct bs_file *bf, const char *key)
{
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key)) {
			bf->kv[i].used = true;
			return bf->kv[i].val;
		}
	for (size_t i = 0; i < sizeof bs_defaults / sizeof *bs_defaults; i++)
		if (!strcmp(bs_defaults[i][0], key))
			return bs_defaults[i][1];
	return NULL;
}

static void bs_warn(FILE *warn, const char *path, struct bs_file *bf, const char *key, const char *why, int *n)
{
	int line = 0;
	const char *val = "";
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key)) {
			bf->kv[i].used = true;
			line = bf->kv[i].line;
			val = bf->kv[i].val;
		}
	if (line)
		fprintf(warn, "netloom: %s:%d: cannot map '%s = %s': %s\n", path, line, key, val, why);
	else
		fprintf(warn, "netloom: %s: cannot map '%s': %s\n", path, key, why);
	(*n)++;
}

/* Write `key = val` if netloom accepts the value; otherwise name it as
 * unmappable with netloom's reason (`what`, when given, says how val was
 * derived from the file), so the INI written always loads. */
static void bs_put(FILE *out, FILE *warn, const char *path, struct bs_file *bf, const char *key, const char *val,
		   const char *what, int *n)
{
	size_t n_tables;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &n_tables);
	struct config c;
	struct nl_err e = {0};
	config_init(&c, tables, n_tables);
	int rc = config_set(&c, key, val, "BookSim", &e);
	config_release(&c);
	if (rc == 0) {
		fprintf(out, "%s = %s\n", key, val);
		return;
	}
	/* "BookSim: key 'K' value 'V': expected ..." -> "expected ..." */
	char needle[320], why[NL_ERR_MSG_MAX + 128];
	snprintf(needle, sizeof needle, "value '%s'", val);
	const char *r = strstr(e.msg, needle);
	r = r ? r + strlen(needle) : e.msg;
	while (*r == ':' || *r == ' ')
		r++;
	snprintf(why, sizeof why, "%s%s%s", what ? what : "", what ? " is " : "", r);
	bs_warn(warn, path, bf, key, why, n);
}

/* BookSim routing_function names (without the _topology suffix). */
static const char *bs_routing(const char *rf)
{
	static const char *const map[][2] = {
		{"dim_order", "dor"}, {"dor", "dor"}, {"valiant", "valiant"}, {"min", "min"},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcmp(rf, map[i][0]))
			return map[i][1];
	return NULL;
}

static bool bs_traffic(const char *tr, char *out, size_t cap)
{
	static const char *const simple[] = {"uniform", "bitcomp", "bitrev", "shuffle", "transpose", "tornado",
					     "neighbor", "randperm", "asymmetric", NULL};
	for (int i = 0; simple[i]; i++)
		if (!strcmp(tr, simple[i])) {
			snprintf(out, cap, "%s", tr);
			return true;
		}
	/* hotspot({n1,n2,...},{r1,r2,...}) */
	if (!strncmp(tr, "hotspot(", 8)) {
		char nodes[128] = "", rates[128] = "";
		const char *a = strchr(tr, '{'), *b = a ? strchr(a, '}') : NULL;
		if (!a || !b || (size_t)(b - a - 1) >= sizeof nodes)
			return false;
		memcpy(nodes, a + 1, (size_t)(b - a - 1));
		const char *c = strchr(b, '{'), *d = c ? strchr(c, '}') : NULL;
		if (c && d && (size_t)(d - c - 1) < sizeof rates)
			memcpy(rates, c + 1, (size_t)(d - c - 1));
		for (char *q = nodes; *q; q++)
			if (*q == ',')
				*q = '/';
		for (char *q = rates; *q; q++)
			if (*q == ',')
				*q = '/';
		if (rates[0])
			snprintf(out, cap, "hotspot:nodes=%s,rates=%s", nodes, rates);
		else
			snprintf(out, cap, "hotspot:nodes=%s", nodes);
		return true;
	}
	return false;
}

/* The conversion over a caller-provided bs_file (85 KB: on the heap, not
 * the stack, and not static: the API is reentrant, no mutable globals). */
static int bs_convert(const char *path, FILE *out, FILE *warn, struct bs_file *bf, struct nl_err *err)
{
	int unmapped = 0;
	char topo[512] = "", route[64] = "", traffic[256] = "";

	NL_CHECK(bs_read(path, bf, err));

	/* [network] */
	const char *tp = bs_get(bf, "topology");
	long k = strtol(bs_get(bf, "k"), NULL, 10), nd = strtol(bs_get(bf, "n"), NULL, 10);
	long c = strtol(bs_get(bf, "c"), NULL, 10);
	long chan = 1;
	if (!strcmp(tp, "torus") || !strcmp(tp, "mesh")) {
		if (k < 2 || nd < 1 || nd > 16) {
			return nl_errf(err, NL_ECONFIG, "%s: k = %ld, n = %ld: expected k >= 2 and 1 <= n <= 16", path,
				       k, nd);
		}
		int used = snprintf(topo, sizeof topo, "%s:k=", tp);
		for (long d = 0; d < nd; d++)
			used += snprintf(topo + used, sizeof topo - (size_t)used, "%s%ld", d ? "x" : "", k);
		if (c != 1)
			bs_warn(warn, path, bf, "c", "torus/mesh concentration is not modelled (use p=)", &unmapped);
		long noc = strtol(bs_get(bf, "use_noc_latency"), NULL, 10);
		chan = (noc == 1 && !strcmp(tp, "torus")) ? 2 : 1;
	} else if (!strcmp(tp, "fattree")) {
		/* BookSim's k-ary n-tree (fattree.cpp): k^n nodes, n levels. */
		snprintf(topo, sizeof topo, "fattree:k=%ld,n=%ld", k, nd);
	} else if (!strcmp(tp, "dragonflynew")) {
		/* dragonfly.cpp: k = p processors per router, n = 1, a = 2p
		 * routers per group, h = p global ports, g = a*h + 1 groups. */
		if (nd != 1)
			bs_warn(warn, path, bf, "n", "BookSim's dragonflynew supports n = 1 only", &unmapped);
		snprintf(topo, sizeof topo, "dragonfly:a=%ld,p=%ld,h=%ld", 2 * k, k, k);
	} else if (!strcmp(tp, "flatfly")) {
		/* flatfly_onchip.cpp: k routers per dimension, n dimensions, c
		 * terminals per router: a HyperX with S = k in every dimension.
		 * Its on-chip channel lengths are not modelled. */
		int used = snprintf(topo, sizeof topo, "hyperx:s=");
		for (long d = 0; d < nd; d++)
			used += snprintf(topo + used, sizeof topo - (size_t)used, "%s%ld", d ? "x" : "", k);
		snprintf(topo + used, sizeof topo - (size_t)used, ",t=%ld", c);
		bs_warn(warn, path, bf, "topology",
			"flatfly's on-chip channel lengths are not modelled (every channel gets channel_latency)",
			&unmapped);
	} else {
		bs_warn(warn, path, bf, "topology", "no netloom equivalent of this BookSim network yet", &unmapped);
	}
	const char *rf = bs_get(bf, "routing_function");
	const char *r = bs_routing(rf);
	/* Topology-specific minimal routing maps to table-based minimal. */
	if (!r && ((!strcmp(tp, "dragonflynew") && !strcmp(rf, "min")) || (!strcmp(tp, "fattree") && !strcmp(rf, "nca"))))
		r = "min";
	if (r)
		snprintf(route, sizeof route, "%s", r);
	else
		bs_warn(warn, path, bf, "routing_function", "no netloom equivalent (see 'netloom run --help')",
			&unmapped);
	if (strcmp(bs_get(bf, "router"), "iq"))
		bs_warn(warn, path, bf, "router", "netloom models BookSim's iq router only", &unmapped);

	fprintf(out, "; netloom configuration converted from the BookSim2 config %s\n", path);
	fprintf(out, "; by 'netloom config --from-booksim'. BookSim's defaults are written out.\n\n");
	fprintf(out, "[network]\n");
	if (topo[0])
		bs_put(out, warn, path, bf, "topology", topo, NULL, &unmapped);
	if (route[0])
		bs_put(out, warn, path, bf, "routing_function", route, NULL, &unmapped);
	char num[64];
	snprintf(num, sizeof num, "%ld", chan);
	bs_put(out, warn, path, bf, "channel_latency", num, NULL, &unmapped);

	/* [router]: same names, same meaning. */
	static const char *const router_keys[] = {
		"num_vcs", "vc_buf_size", "routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_prepare_delay",
		"st_final_delay", "credit_delay", "internal_speedup", "input_speedup", "output_speedup",
		"vc_allocator", "sw_allocator", "alloc_iters", "wait_for_tail_credit", NULL};
	fprintf(out, "\n[router]\n");
	for (int i = 0; router_keys[i]; i++) {
		const char *v = bs_get(bf, router_keys[i]);
		/* routing_delay = 0 (lookahead routing) maps as is (issue 11 part 2). */
		bs_put(out, warn, path, bf, router_keys[i], v, NULL, &unmapped);
	}

	/* [traffic]: injection rates are flits in netloom. */
	fprintf(out, "\n[traffic]\n");
	if (bs_traffic(bs_get(bf, "traffic"), traffic, sizeof traffic))
		bs_put(out, warn, path, bf, "traffic", traffic, NULL, &unmapped);
	else
		bs_warn(warn, path, bf, "traffic", "no netloom equivalent pattern", &unmapped);
	double rate = strtod(bs_get(bf, "injection_rate"), NULL);
	const char *ps = bs_get(bf, "packet_size");
	if (ps[0] == '{')
		bs_warn(warn, path, bf, "packet_size", "size vectors with rates are not modelled; use lo..hi",
			&unmapped);
	else
		bs_put(out, warn, path, bf, "packet_size", ps, NULL, &unmapped);
	char how[160] = "";
	if (strtol(bs_get(bf, "injection_rate_uses_flits"), NULL, 10) == 0) {
		double size = strtod(ps, NULL) > 0 ? strtod(ps, NULL) : 1;
		snprintf(how, sizeof how, "%.12g flits/cycle (%.12g packets of %.12g flits)", rate * size, rate, size);
		rate *= size;
	}
	snprintf(num, sizeof num, "%.12g", rate);
	bs_put(out, warn, path, bf, "injection_rate", num, how[0] ? how : NULL, &unmapped);
	if (strcmp(bs_get(bf, "injection_process"), "bernoulli"))
		bs_warn(warn, path, bf, "injection_process", "only bernoulli is modelled", &unmapped);

	fprintf(out, "\n[simulation]\n");
	static const char *const sim_keys[] = {"sim_type", "warmup_periods", "sample_period", "max_samples",
					       "latency_thres", "warmup_thres", "acc_warmup_thres", "stopping_thres",
					       "acc_stopping_thres", NULL};
	for (int i = 0; sim_keys[i]; i++)
		bs_put(out, warn, path, bf, sim_keys[i], bs_get(bf, sim_keys[i]), NULL, &unmapped);
	const char *seed = bs_get(bf, "seed");
	if (!strcmp(seed, "time"))
		bs_warn(warn, path, bf, "seed", "'time' seeds are not reproducible; using 0", &unmapped);
	else
		bs_put(out, warn, path, bf, "seed", seed, NULL, &unmapped);

	/* Everything the file set that nothing above consumed. */
	for (int i = 0; i < bf->n; i++) {
		struct bs_kv *kv = &bf->kv[i];
		if (kv->used)
			continue;
		bool fine = false;
		for (size_t j = 0; j < sizeof bs_inert / sizeof *bs_inert; j++)
			if (!strcmp(kv->key, bs_inert[j][0]))
				fine = !strcmp(kv->val, bs_inert[j][1]) ||
				       (strtod(kv->val, NULL) == strtod(bs_inert[j][1], NULL) &&
					isdigit((unsigned char)kv->val[0]));
		for (int j = 0; bs_cosmetic[j]; j++)
			if (!strcmp(kv->key, bs_cosmetic[j]))
				fine = true;
		if (!strcmp(kv->key, "injection_rate_uses_flits") || !strcmp(kv->key, "use_noc_latency"))
			fine = true;
		if (!fine) {
			fprintf(warn, "netloom: %s:%d: cannot map '%s = %s': not modelled by netloom\n", path, kv->line,
				kv->key, kv->val);
			unmapped++;
		}
	}
	return unmapped;
}

int cli_booksim_convert(const char *path, FILE *out, FILE *warn, struct nl_err *err)
{
	struct bs_file *bf = calloc(1, sizeof *bf);
	if (!bf)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	int rc = bs_convert(path, out, warn, bf, err);
	free(bf);
	return rc;
}
