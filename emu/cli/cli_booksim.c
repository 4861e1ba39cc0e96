/* netloom config --from-booksim: the conversion's phases (bs_convert, in
 * the order of its messages) and the INI they write. Every netloom key
 * goes through bs_put, which writes a value only if netloom's
 * configuration accepts it and otherwise names it and notes netloom's
 * default in the INI: the INI written always loads. */
#include "cli/cli_booksim.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"

/* Keys netloom does not model, fine when they hold this (BookSim default)
 * value: at it BookSim does what netloom does. class_priority 0 gives
 * every flit one priority; max_outstanding_requests 0 is no limit; the
 * spec_check and spec_mask keys are read by speculative allocation alone
 * (iq_router.cpp), named apart at speculative = 1. */
static const char *const bs_inert[][2] = {
	{"speculative", "0"}, {"noq", "0"}, {"output_delay", "0"},
	{"classes", "1"}, {"subnets", "1"}, {"priority", "none"}, {"vc_busy_when_full", "0"},
	{"vc_prioritize_empty", "0"}, {"vc_shuffle_requests", "0"}, {"output_buffer_size", "-1"},
	{"buffer_policy", "private"}, {"include_queuing", "1"},
	{"arb_type", "round_robin"}, {"sim_count", "1"}, {"measure_stats", "1"}, {"pair_stats", "0"},
	{"vc_priority_donation", "0"}, {"spec_sw_allocator", "prio"}, {"fail_seed", "0"},
	{"link_failures", "0"}, {"buf_size", "-1"}, {"perm_seed", "0"}, {"vct", "0"},
	{"class_priority", "0"}, {"max_outstanding_requests", "0"}, {"spec_check_cred", "1"},
	{"spec_check_elig", "1"}, {"spec_mask_by_reqs", "0"},
};

/* Keys that only affect BookSim's console output or warnings (or its
 * power report: channel_width is read with sim_power alone, main.cpp). */
static const char *const bs_cosmetic[] = {
	"print_activity", "print_csv_results", "deadlock_warn_timeout", "watch_file", "watch_flits",
	"watch_packets", "watch_transactions", "watch_out", "stats_out", "viewer_trace", "sim_power",
	"power_output_file", "tech_file", "channel_sweep", "channel_width", "network_file", NULL,
};

/* Keys booksim_config.cpp defines that no BookSim2 code reads (commit
 * 28f43299): they change nothing, whatever the value. */
static const char *const bs_unread[] = {"channel_file", "in_ports", "out_ports", NULL};

/* netloom's definition of `key` (its default, its range), or NULL for a
 * key netloom does not have. The tables are static: the definition
 * outlives the configuration it was looked up in. */
static const struct param_def *bs_key_def(const char *key)
{
	size_t n_tables;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &n_tables);
	struct config c;
	const struct param_def *def = NULL;
	config_init(&c, tables, n_tables);
	bool found = config_find_key(&c, key, &def);
	config_release(&c);
	return found ? def : NULL;
}

/* The default netloom gives `key` when a file leaves it out. */
const char *bs_default(const char *key)
{
	const struct param_def *def = bs_key_def(key);
	return def ? def->defval : NULL;
}

/* The INI's note where a named key is left out: what BookSim had (val, or
 * the file's value), why it was named (bs_warn's reason, else `why`), and
 * the default netloom applies instead, so one who keeps only the INI sees
 * that the value is netloom's, not BookSim's (as the routing function's
 * fallback says, bs_check). */
static void bs_note_left_out(FILE *out, const struct bs_file *bf, const char *key, const char *val,
			     const char *why)
{
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key)) {
			val = bf->kv[i].val;
			if (bf->kv[i].why[0])
				why = bf->kv[i].why;
		}
	fprintf(out, "; %s: BookSim's '%s' is not mapped%s%s;\n", key, val,
		why ? ": " : " (see the conversion's messages)", why ? why : "");
	const char *def = bs_default(key);
	if (def && def[0])
		fprintf(out, "; netloom uses its default instead: %s = %s.\n", key, def);
	else if (def)
		fprintf(out, "; netloom uses its default instead: %s unset.\n", key);
}

/* Write `key = val` if netloom accepts the value; otherwise name it as
 * unmappable with netloom's reason (`what`, when given, says how val was
 * derived from the file), so the INI written always loads, and note in
 * the INI that netloom's default applies there. Whether it was written. */
static bool bs_put(FILE *out, FILE *warn, const char *path, struct bs_file *bf, const char *key, const char *val,
		   const char *what, int *n)
{
	size_t n_tables;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &n_tables);
	struct config c;
	struct nl_err e = {0};
	if (bs_multi(bf, key)) {
		bs_note_left_out(out, bf, key, val, NULL); /* named by bs_vectors */
		return false;
	}
	config_init(&c, tables, n_tables);
	int rc = config_set(&c, key, val, "BookSim", &e);
	config_release(&c);
	if (rc == 0) {
		fprintf(out, "%s = %s\n", key, val);
		return true;
	}
	/* "BookSim: key 'K': value 'V': expected ..." -> "expected ..." */
	char needle[320], why[NL_ERR_MSG_MAX + 128];
	snprintf(needle, sizeof needle, "value '%s'", val);
	const char *r = strstr(e.msg, needle);
	if (!r && strstr(e.msg, "unknown key")) {
		/* A key a later netloom adds (per-link latencies): refuse
		 * rather than drop what BookSim models. */
		snprintf(why, sizeof why, "%s%sthis netloom has no key '%s' for it", what ? what : "", what ? ": " : "",
			 key);
		bs_warn(warn, path, bf, key, why, n);
		bs_note_left_out(out, bf, key, val, why);
		return false;
	}
	r = r ? r + strlen(needle) : e.msg;
	while (*r == ':' || *r == ' ')
		r++;
	/* "2 flits/cycle ... is out of range", but "inf flits/cycle ...:
	 * expected a number", not "... is expected a number". */
	snprintf(why, sizeof why, "%s%s%s", what ? what : "", !what ? "" : strncmp(r, "expected", 8) ? " is " : ": ", r);
	bs_warn(warn, path, bf, key, why, n);
	bs_note_left_out(out, bf, key, val, why);
	return false;
}

/* A number as the whole value ('O.1', '0.1O', 'abc' and '' are not 0 or
 * 0.1), as config_set reads the other numeric keys. */
static bool bs_number(const char *v, double *out)
{
	char *end;
	errno = 0;
	*out = v && *v ? strtod(v, &end) : 0;
	return v && *v && !*end && !errno && isfinite(*out);
}

/* BookSim's thresholds (latency_thres, warmup_thres, stopping_thres and
 * the acc_ forms): a negative one turns its check off
 * (trafficmanager.cpp: `_latency_thres[c] >= 0.0 &&`, in the sample loop
 * and the drain). netloom's keys have no 'off': the largest value each
 * accepts stands for it (1e12 cycles of mean latency; a relative change
 * of 1e6), written under a comment that says so. Each is compared with
 * '>' only, so the largest is never exceeded by a finite latency or
 * change; what differs is an infinite relative change, a sample period
 * that counted nothing after one that counted some (docs/configuration.md). */
static void bs_put_thres(FILE *out, FILE *warn, const char *path, struct bs_file *bf, const char *key, int *n)
{
	const char *v = bs_get(bf, key);
	double x;
	if (bs_multi(bf, key) || !bs_number(v, &x) || !(x < 0)) {
		bs_put(out, warn, path, bf, key, v, NULL, n);
		return;
	}
	const struct param_def *def = bs_key_def(key);
	if (!def || !(def->max > 0)) { /* a netloom without the key: bs_put names it */
		bs_put(out, warn, path, bf, key, v, NULL, n);
		return;
	}
	char num[40];
	snprintf(num, sizeof num, "%.15g", def->max);
	fprintf(out, "; %s = %s: BookSim's check is off (a negative threshold); %s, netloom's largest, stands for it\n",
		key, v, num);
	bs_put(out, warn, path, bf, key, num, NULL, n);
}

/* injection_rate in flits/cycle: BookSim's rate is in packets unless
 * injection_rate_uses_flits. A rate or a flag that is not a number is
 * named and left out, not written as 0. */
static void bs_put_rate(FILE *out, FILE *warn, const char *path, struct bs_file *bf, bool rate_ok, double rate,
			const char *ps, bool ps_mapped, int *unmapped)
{
	const char *v = bs_get(bf, "injection_rate");
	if (bs_multi(bf, "injection_rate")) {
		bs_note_left_out(out, bf, "injection_rate", v, NULL); /* named by bs_vectors */
		return;
	}
	double flits;
	if (!bs_number(bs_get(bf, "injection_rate_uses_flits"), &flits) || flits != (long)flits) {
		bs_warn(warn, path, bf, "injection_rate_uses_flits", "expected an integer (0 or 1)", unmapped);
		bs_warn(warn, path, bf, "injection_rate", "its unit is unknown (injection_rate_uses_flits is not an integer)",
			unmapped);
		bs_note_left_out(out, bf, "injection_rate", v, NULL);
		return;
	}
	if (!rate_ok) {
		bs_warn(warn, path, bf, "injection_rate", "expected a number", unmapped);
		bs_note_left_out(out, bf, "injection_rate", v, NULL);
		return;
	}
	/* In packets of a size netloom does not take: the flits it stands for
	 * are not the run's either (it read '7000 flits/cycle (0.1 packets
	 * of 70000 flits) is out of range'). */
	if (flits == 0 && !ps_mapped) {
		bs_warn(warn, path, bf, "injection_rate",
			"its unit is packets of packet_size, which is not mapped (BookSim's injection_rate_uses_flits = 0)",
			unmapped);
		bs_note_left_out(out, bf, "injection_rate", v, NULL);
		return;
	}
	char how[160] = "", num[64];
	if (flits == 0) {
		double size = strtod(ps, NULL) > 0 ? strtod(ps, NULL) : 1;
		snprintf(how, sizeof how, "%.12g flits/cycle (%.12g packets of %.12g flits)", rate * size, rate, size);
		rate *= size;
	}
	snprintf(num, sizeof num, "%.12g", rate);
	bs_put(out, warn, path, bf, "injection_rate", num, how[0] ? how : NULL, unmapped);
}

/* An allocator value as BookSim reads it (Allocator::NewAllocator):
 * NAME or NAME(PARAM). The iterative allocators (islip, pim, select) take
 * their iteration count from PARAM, else from alloc_iters of the
 * configuration they are given; BookSim2's IQRouter gives none (config
 * NULL), so without PARAM they run one iteration whatever alloc_iters
 * says. name gets NAME (the whole value when PARAM is not an iteration
 * count, so the conversion names it); *iters the count, 0 when the
 * allocator has none. */
static void bs_alloc_split(const char *v, char *name, size_t cap, int *iters)
{
	static const char *const iterative[] = {"islip", "pim", "select", NULL};
	const char *paren = strchr(v, '(');
	size_t len = paren ? (size_t)(paren - v) : strlen(v);
	snprintf(name, cap, "%.*s", (int)len, v);
	bool iter = false;
	for (int i = 0; iterative[i]; i++)
		iter |= !strcmp(name, iterative[i]);
	*iters = iter ? 1 : 0;
	if (!paren)
		return;
	char *end = NULL;
	long n = strtol(paren + 1, &end, 10);
	if (iter && end && end != paren + 1 && !strcmp(end, ")") && n >= 1 && n <= 1000)
		*iters = (int)n;
	else
		snprintf(name, cap, "%s", v); /* a PARAM netloom has no key for: named */
}

/* vc_allocator, sw_allocator and the iterations they run in BookSim2's IQ
 * router (bs_alloc_split): netloom's alloc_iters serves both. */
static void bs_allocators(FILE *out, FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
{
	char vc[128], sw[128], num[32];
	int vc_it, sw_it;
	bs_alloc_split(bs_get(bf, "vc_allocator"), vc, sizeof vc, &vc_it);
	bs_alloc_split(bs_get(bf, "sw_allocator"), sw, sizeof sw, &sw_it);
	bs_put(out, warn, path, bf, "vc_allocator", vc, NULL, unmapped);
	bs_put(out, warn, path, bf, "sw_allocator", sw, NULL, unmapped);
	const char *file_iters = bs_get(bf, "alloc_iters");
	if (vc_it && sw_it && vc_it != sw_it) {
		char why[160];
		snprintf(why, sizeof why,
			 "BookSim runs %d iteration(s) in the VC allocator and %d in the switch allocator; netloom's alloc_iters serves both",
			 vc_it, sw_it);
		bs_warn(warn, path, bf, "sw_allocator", why, unmapped);
		bs_note_left_out(out, bf, "alloc_iters", file_iters, why);
		return;
	}
	int iters = vc_it > sw_it ? vc_it : sw_it;
	if (!iters)
		iters = 1; /* neither allocator iterates */
	if (strtol(file_iters, NULL, 10) != iters)
		fprintf(out,
			"; alloc_iters = %s is not applied: BookSim2's IQ router builds its allocators without the\n"
			"; configuration, so they run the iterations their names give (islip(N)), here %d\n",
			file_iters, iters);
	snprintf(num, sizeof num, "%d", iters);
	bs_put(out, warn, path, bf, "alloc_iters", num, NULL, unmapped);
}

/* BookSim2's IQ router aborts with vc_alloc_delay or sw_alloc_delay above
 * 1 (routers/iq_router.cpp, _VCAllocEvaluate and _SWAllocEvaluate). Its
 * first loop over the allocator's queue times the new requests only up to
 * the first request already timed, so one queued behind a request in
 * progress stays untimed (-1); the second loop, run only with a delay
 * above 1, walks the requests whose delay has elapsed, asserting each is
 * timed. When a request completes with an untimed one behind it, that is
 * when two requests reach one router's allocator within delay - 1 cycles
 * of each other, BookSim stops: "Assertion `time >= 0' failed"
 * (iq_router.cpp:783, :1641 for the switch allocator). Any load but the
 * lightest does it (a 4x4 mesh at 0.001 packets/cycle; at 0.0001 a run
 * may finish), so there is no BookSim run to match: the key is named and
 * left out. Returns whether key = v is such a delay. */
static bool bs_alloc_delay_aborts(const char *key, const char *v)
{
	double x;
	return (!strcmp(key, "vc_alloc_delay") || !strcmp(key, "sw_alloc_delay")) && bs_number(v, &x) && x > 1;
}

/* The INI's opening comment and its [network] section. */
static void bs_write_network(FILE *out, FILE *warn, const char *path, struct bs_file *bf, const struct bs_conv *cv,
			     int *unmapped)
{
	fprintf(out, "; netloom configuration converted from the BookSim2 config %s\n", path);
	fprintf(out, "; by 'netloom config --from-booksim'. BookSim's defaults are written out.\n\n");
	fprintf(out, "[network]\n");
	if (cv->topo[0]) {
		fputs(cv->topo_note, out);
		bs_put(out, warn, path, bf, "topology", cv->topo, NULL, unmapped);
	} else {
		bs_note_left_out(out, bf, "topology", cv->tp, NULL);
	}
	fputs(cv->route_note, out);
	if (cv->route[0])
		bs_put(out, warn, path, bf, "routing_function", cv->route, NULL, unmapped);
	char num[64];
	snprintf(num, sizeof num, "%ld", cv->chan);
	if (cv->chan)
		bs_put(out, warn, path, bf, "channel_latency", num, NULL, unmapped);
	/* Per-link latencies: a netloom without these keys refuses them here
	 * (unknown key), so BookSim's 10/100-cycle links never silently
	 * become 1-cycle ones. */
	for (int i = 0; i < cv->n_lat; i++)
		bs_put(out, warn, path, bf, cv->lat[i][0], cv->lat[i][1], cv->lat[i][2], unmapped);
}

/* [router]: same names, same meaning. */
static void bs_write_router(FILE *out, FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
{
	static const char *const router_keys[] = {
		"num_vcs", "vc_buf_size", "routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_prepare_delay",
		"st_final_delay", "credit_delay", "internal_speedup", "input_speedup", "output_speedup",
		"vc_allocator", "wait_for_tail_credit", "hold_switch_for_packet", NULL};
	fprintf(out, "\n[router]\n");
	for (int i = 0; router_keys[i]; i++) {
		if (!strcmp(router_keys[i], "vc_allocator")) { /* with sw_allocator and alloc_iters */
			bs_allocators(out, warn, path, bf, unmapped);
			continue;
		}
		const char *v = bs_get(bf, router_keys[i]);
		if (bs_alloc_delay_aborts(router_keys[i], v)) {
			char why[320];
			snprintf(why, sizeof why,
				 "BookSim aborts with a delay above 1 (iq_router.cpp:%d: assertion 'time >= 0' failed) as soon "
				 "as two requests reach a router's %s allocator within %s - 1 cycles, at any but the lightest load",
				 router_keys[i][0] == 'v' ? 783 : 1641, router_keys[i][0] == 'v' ? "VC" : "switch",
				 router_keys[i]);
			bs_warn(warn, path, bf, router_keys[i], why, unmapped);
			bs_note_left_out(out, bf, router_keys[i], v, NULL);
			continue;
		}
		/* routing_delay = 0 (lookahead routing) maps as is (issue 11 part 2). */
		bs_put(out, warn, path, bf, router_keys[i], v, NULL, unmapped);
	}
	/* ... with BookSim's timing: a head's route at the next router decided
	 * as it leaves this one (docs/engine.md, "Lookahead routing"). */
	if (strtol(bs_get(bf, "routing_delay"), NULL, 10) == 0)
		bs_put(out, warn, path, bf, "lookahead_decide", "upstream",
		       "routing_delay = 0: BookSim computes the next router's route as a head wins this router's switch",
		       unmapped);
}

/* [traffic]: the pattern decided, the packet size, and the injection
 * rate, which is in flits in netloom. */
static void bs_write_traffic(FILE *out, FILE *warn, const char *path, struct bs_file *bf, const struct bs_conv *cv,
			     int *unmapped)
{
	fprintf(out, "\n[traffic]\n");
	if (cv->traffic[0]) {
		fputs(cv->pat.note, out);
		bs_put(out, warn, path, bf, "traffic", cv->traffic, NULL, unmapped);
	} else if (bs_multi(bf, "traffic")) {
		/* named by bs_vectors */
	} else if (!cv->traffic_ok && cv->traffic_why[0]) {
		bs_warn(warn, path, bf, "traffic", cv->traffic_why, unmapped);
	} else if (!cv->traffic_ok && cv->map_used) {
		bs_warn(warn, path, bf, "traffic",
			"BookSim's flatfly numbers terminals mesh-style (x, xr, yr), netloom's HyperX router by router: only uniform, randperm, hotspot (renumbered) and bitcomp (with x, xr, yr powers of two) keep their meaning",
			unmapped);
	} else if (!cv->traffic_ok) {
		bs_warn(warn, path, bf, "traffic", "no netloom equivalent pattern", unmapped);
	}
	if (!cv->traffic[0])
		bs_note_left_out(out, bf, "traffic", bs_get(bf, "traffic"), NULL);
	double rate;
	const bool rate_ok = bs_number(bs_get(bf, "injection_rate"), &rate);
	const char *ps = bs_get(bf, "packet_size");
	bool ps_mapped = false;
	if (bs_multi(bf, "packet_size")) {
		bs_note_left_out(out, bf, "packet_size", ps, NULL); /* named by bs_vectors */
	} else if (ps[0] == '{') {
		bs_warn(warn, path, bf, "packet_size", "size vectors with rates are not modelled; use lo..hi",
			unmapped);
		bs_note_left_out(out, bf, "packet_size", ps, NULL);
	} else {
		ps_mapped = bs_put(out, warn, path, bf, "packet_size", ps, NULL, unmapped);
	}
	bs_put_rate(out, warn, path, bf, rate_ok, rate, ps, ps_mapped, unmapped);
	if (!bs_multi(bf, "injection_process") && strcmp(bs_get(bf, "injection_process"), "bernoulli"))
		bs_warn(warn, path, bf, "injection_process", "only bernoulli is modelled", unmapped);
}

/* [simulation]: the measurement's keys and the seed. */
static void bs_write_simulation(FILE *out, FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
{
	fprintf(out, "\n[simulation]\n");
	static const char *const sim_keys[] = {"sim_type", "warmup_periods", "sample_period", "max_samples",
					       "latency_thres", "warmup_thres", "acc_warmup_thres", "stopping_thres",
					       "acc_stopping_thres", NULL};
	for (int i = 0; sim_keys[i]; i++)
		if (strstr(sim_keys[i], "_thres"))
			bs_put_thres(out, warn, path, bf, sim_keys[i], unmapped);
		else
			bs_put(out, warn, path, bf, sim_keys[i], bs_get(bf, sim_keys[i]), NULL, unmapped);
	const char *seed = bs_get(bf, "seed");
	if (!strcmp(seed, "time"))
		bs_warn(warn, path, bf, "seed", "'time' seeds are not reproducible; using 0", unmapped);
	else
		bs_put(out, warn, path, bf, "seed", seed, NULL, unmapped);
}

/* The file's value of key, else dflt; unlike bs_get it leaves the key
 * unconsumed, so the sweep still names it. */
static const char *bs_peek(const struct bs_file *bf, const char *key, const char *dflt)
{
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key))
			return bf->kv[i].val;
	return dflt;
}

/* BookSim's outputs besides its results, which the conversion drops
 * (bs_cosmetic) because they change no result: what the file asked for
 * and where netloom gives the nearest thing, in the INI's closing comment,
 * so one who converts a file that wrote statistics or power is told
 * rather than left looking for them. Each key's "off" value is
 * booksim_config.cpp's default (commit 28f43299); watch_out alone writes
 * nothing (BookSim's own example configs set `watch_out = -`), so the
 * tracing note keys on what is watched. */
static void bs_note_outputs(FILE *out, const struct bs_file *bf)
{
	static const char watch[] = "BookSim's flit and packet tracing; netloom traces no single flit or packet";
	static const struct {
		const char *key, *off, *note;
	} outputs[] = {
		{"stats_out", "", "BookSim's statistics file; netloom's: 'netloom run --json FILE' (or --csv)"},
		{"print_csv_results", "0", "netloom: 'netloom run --csv'"},
		{"print_activity", "0",
		 "BookSim's per-router activity; netloom: per-channel use in 'netloom run --json FILE' (channels)"},
		{"watch_file", "", watch},
		{"watch_flits", "", watch},
		{"watch_packets", "", watch},
		{"watch_transactions", "", watch},
		{"viewer_trace", "0", "BookSim's trace for its viewer; netloom writes none"},
		{"sim_power", "0",
		 "BookSim's router and channel power model (Orion) is not modelled; 'netloom cost' estimates a "
		 "system's power (docs/procurement.md)"},
		{"deadlock_warn_timeout", "256",
		 "BookSim's deadlock warning; netloom's deadlock check: [simulation] watchdog_cycles"},
	};
	bool first = true;
	for (int i = 0; i < bf->n; i++) {
		const struct bs_kv *kv = &bf->kv[i];
		for (size_t j = 0; j < sizeof outputs / sizeof *outputs; j++) {
			if (strcmp(kv->key, outputs[j].key))
				continue;
			const char *off = outputs[j].off;
			/* Integers as BookSim's GetInt reads them: "00" is 0. */
			bool is_off = off[0] ? strtol(kv->val, NULL, 10) == strtol(off, NULL, 10) : !kv->val[0];
			if (is_off)
				continue;
			if (first)
				fprintf(out, "\n; BookSim's outputs this file asks for, not written by netloom:\n");
			first = false;
			fprintf(out, "; %s = %s: %s.\n", kv->key, kv->val, outputs[j].note);
		}
	}
}

/* Whether key is one that only BookSim's shared buffer policies read. */
static bool bs_is_shared_buffer_key(const char *key)
{
	static const char *const keys[] = {"private_bufs", "private_buf_size", "private_buf_start_vc",
					   "private_buf_end_vc", "max_held_slots", "feedback_aging_scale",
					   "feedback_offset", NULL};
	for (int i = 0; keys[i]; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/* Everything the file set that nothing above consumed: named, unless it
 * is cosmetic, holds BookSim's default for a key netloom does not model,
 * or is one BookSim itself ignores with these settings. */
static void bs_sweep_leftovers(FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
{
	bool read_write = strtol(bs_get(bf, "use_read_write"), NULL, 10) != 0;
	if (read_write)
		bs_warn(warn, path, bf, "use_read_write", "read/write request-reply traffic is not modelled",
			unmapped);
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
		for (int j = 0; bs_unread[j]; j++)
			if (!strcmp(kv->key, bs_unread[j]))
				fine = true;
		if (!strcmp(kv->key, "injection_rate_uses_flits") || !strcmp(kv->key, "use_noc_latency"))
			fine = true;
		/* Packet types' sizes and VC ranges (read_request_size,
		 * write_reply_begin_vc, ...) only apply with use_read_write = 1
		 * (trafficmanager.cpp; routing functions give ANY_TYPE flits
		 * every VC). */
		if ((!strncmp(kv->key, "read_", 5) || !strncmp(kv->key, "write_", 6)) && !read_write)
			fine = true;
		/* perm_seed is read by randperm alone (traffic.cpp,
		 * TrafficPattern::New), which consumes it above. */
		if (!strcmp(kv->key, "perm_seed") && strncmp(bs_get(bf, "traffic"), "randperm", 8))
			fine = true;
		/* packet_size_rate weighs the sizes of a packet_size list
		 * (trafficmanager.cpp, _GetNextPacketSize and
		 * _GetAveragePacketSize); with one size BookSim ignores it, but
		 * for its assertion rate >= 0. A size list is named where
		 * packet_size is written. */
		if (!strcmp(kv->key, "packet_size_rate") && !bs_multi(bf, "packet_size") &&
		    bs_get(bf, "packet_size")[0] != '{' && kv->val[0] && strspn(kv->val, "0123456789") == strlen(kv->val))
			fine = true;
		/* batch_size and batch_count only apply with sim_type = batch
		 * (trafficmanager.cpp); cmeshconfig sets batch_size in latency mode. */
		if ((!strcmp(kv->key, "batch_size") || !strcmp(kv->key, "batch_count")) &&
		    strcmp(bs_get(bf, "sim_type"), "batch"))
			fine = true;
		/* burst_* are read by the on_off injection process alone
		 * (injection.cpp), named above. */
		if (!strncmp(kv->key, "burst_", 6) && strncmp(bs_peek(bf, "injection_process", "bernoulli"), "on_off", 6))
			fine = true;
		/* The shared buffer policies alone read these (buffer_state.cpp);
		 * private, the default, does not, and another policy is named. */
		if (bs_is_shared_buffer_key(kv->key) && !strcmp(bs_peek(bf, "buffer_policy", "private"), "private"))
			fine = true;
		const char *near;
		if (!bs_is_key(kv->key, &near)) {
			fprintf(warn, "%s:%d: cannot map '%s = %s': not a BookSim key (BookSim stops on it)%s%s%s\n",
				path, kv->line, kv->key, kv->val, near ? "; did you mean '" : "", near ? near : "",
				near ? "'?" : "");
			(*unmapped)++;
		} else if (!fine) {
			fprintf(warn, "%s:%d: cannot map '%s = %s': not modelled by netloom\n", path, kv->line,
				kv->key, kv->val);
			(*unmapped)++;
		}
	}
}

/* The conversion over a caller-provided bs_file (190 KB: on the heap, not
 * the stack, and not static: the API is reentrant, no mutable globals).
 * Returns how many keys it named, or a negative error. */
static int bs_convert(const char *path, FILE *out, FILE *warn, struct bs_file *bf, struct nl_err *err)
{
	int unmapped = 0;
	struct bs_conv cv = {0};

	NL_CHECK(bs_read(path, bf, err));
	bs_vectors(warn, path, bf, &unmapped);
	NL_CHECK(bs_conv_network(path, warn, bf, &cv, &unmapped, err));
	bs_conv_routing(path, warn, bf, &cv, &unmapped);
	if (strcmp(bs_get(bf, "router"), "iq"))
		bs_warn(warn, path, bf, "router", "netloom models BookSim's iq router only", &unmapped);
	bs_conv_traffic(path, warn, bf, &cv, &unmapped);
	/* The renumbering served the pattern alone. */
	cv.map_used = cv.map != NULL;
	free(cv.map);
	cv.map = NULL;
	bs_conv_check(path, warn, bf, &cv, &unmapped);
	bs_conv_drop_latencies(path, warn, bf, &cv, &unmapped);

	bs_write_network(out, warn, path, bf, &cv, &unmapped);
	bs_write_router(out, warn, path, bf, &unmapped);
	bs_write_traffic(out, warn, path, bf, &cv, &unmapped);
	bs_write_simulation(out, warn, path, bf, &unmapped);
	bs_note_outputs(out, bf);
	bs_sweep_leftovers(warn, path, bf, &unmapped);
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
