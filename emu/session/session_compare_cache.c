/* `netloom compare`'s caches (docs/procurement.md, "Runs, parallelism and
 * the cache"): one JSON file per replay under a key of everything it
 * depends on, and one per system's cost and power under a key of its own,
 * so a new cost preset replays nothing. A cache file that cannot be read
 * is a miss; one that cannot be written costs a re-run, nothing else. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "core/config.h"
#include "core/output.h"
#include "core/path.h"
#include "core/version.h"
#include "layout/layout.h"
#include "session/session_internal.h"
#include "topo/topo.h"

#include "session/session_compare_internal.h"

/* The keys whose value names a file the replay reads (PARAM_PATH,
 * config_is_path_key): the key holds only the path, so the file's bytes go
 * into the cache key instead (an edited map or calibration file must
 * replay; the same file reached by another path, from another directory,
 * must not). */
bool cmp_is_file_key(const char *name)
{
	size_t n;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &n);
	struct config c;
	config_init(&c, tables, n);
	bool is_path = config_is_path_key(&c, name);
	config_release(&c);
	return is_path;
}

/* XXH64 of a file's bytes; false when it cannot be read. */
static bool cmp_file_hash(const char *path, uint64_t *h)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	XXH64_state_t *st = XXH64_createState();
	bool ok = st && XXH64_reset(st, 0) == XXH_OK;
	char buf[65536];
	size_t n;
	while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
		ok = XXH64_update(st, buf, n) == XXH_OK;
	ok = ok && !ferror(f);
	if (ok)
		*h = XXH64_digest(st);
	XXH64_freeState(st);
	fclose(f);
	return ok;
}

/* A file as a cache key holds it: "xxh64:HASH" of its bytes, or
 * "unreadable" (the replay then fails and says why); not its path. */
static char *cmp_file_id(void *ctx, const char *path)
{
	(void)ctx;
	char buf[32];
	uint64_t h;
	if (cmp_file_hash(path, &h))
		snprintf(buf, sizeof buf, "xxh64:%016" PRIx64, h);
	else
		snprintf(buf, sizeof buf, "unreadable");
	return strdup(buf);
}

/* A string of the cache key as JSON: as it is when jansson takes it (valid
 * UTF-8, so every such study keeps its keys), else {"hex": its bytes in
 * hex}, which no string equals and which keeps every byte. The key went
 * through out_json_utf8, whose U+FFFD made values that differ only in
 * bytes that are not UTF-8 one key ('uniform\xff' and 'uniform\xfe': the
 * second cell took the first's result from the cache). NULL when out of
 * memory. */
static json_t *cmp_key_string(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	size_t n = strlen(s);
	char *hex = malloc(2 * n + 1);
	if (!hex)
		return NULL;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
	j = json_pack("{s:s}", "hex", hex);
	free(hex);
	return j;
}

/* The string, spec and path values of j (config_to_json of cfg) that are not
 * UTF-8, again from their bytes (cmp_key_string). -1 when out of memory. */
static int cmp_key_bytes(const struct config *cfg, json_t *j)
{
	int rc = 0;
	for (size_t t = 0; rc == 0 && t < cfg->n_tables; t++) {
		const struct config_table *tab = cfg->tables[t];
		void *vals = calloc(1, tab->struct_size ? tab->struct_size : 1);
		struct nl_err e = {0};
		if (!vals || config_bind(cfg, tab, vals, &e) < 0)
			rc = -1;
		for (const struct param_def *d = tab->keys; rc == 0 && d->name; d++) {
			if (d->type != PARAM_STRING && d->type != PARAM_SPEC && d->type != PARAM_PATH)
				continue;
			char buf[PARAM_STR_MAX];
			param_format(d, vals, buf, sizeof buf);
			json_t *v = json_string(buf);
			if (v)
				json_decref(v);
			else
				rc = json_object_set_new(j, d->name, cmp_key_string(buf));
		}
		free(vals);
	}
	return rc;
}

/* The cache key: the fully resolved configuration (every key with its
 * value or default, as `netloom config --json` has it: placement, seed
 * and routing included; no comments, so nothing of where a key was set;
 * a value that is not UTF-8 by its bytes, cmp_key_string), in which the
 * topology is its canonical spec and every file the replay reads
 * (placement_map, calibration, a topology's file=) is its contents' hash
 * instead of its path; then the trace's content hash, the netloom
 * version and the build's identity (a fix of the model changes results,
 * not the version). Builds sim's topology (session_topo). */
/* A file key of the cache key: its file's id in place of its path
 * (config_each_path); -1 when out of memory. */
static int cmp_key_file(void *ctx, const char *key, const char *path)
{
	char *id = cmp_file_id(NULL, path);
	int rc = id ? json_object_set_new(ctx, key, json_string(id)) : -1;
	free(id);
	return rc;
}

int cmp_key(nl_sim *sim, const struct cmp_wl *w, uint64_t seed, const char *build, char key[20],
	    struct nl_err *err)
{
	NL_CHECK(session_topo(sim, err));
	json_t *j = config_to_json(&sim->cfg);
	char *topo = path_spec_files(sim->topo->spec, cmp_file_id, NULL), *text = NULL;
	int rc = j && topo ? 0 : nl_errf(err, NL_ENOMEM, "out of memory");
	if (rc == 0)
		rc = cmp_key_bytes(&sim->cfg, j);
	if (rc == 0)
		rc = json_object_set_new(j, "topology", cmp_key_string(topo));
	if (rc == 0)
		rc = config_each_path(&sim->cfg, cmp_key_file, j) ? nl_errf(err, NL_ENOMEM, "out of memory") : 0;
	if (rc == 0)
		text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
	if (rc == 0) {
		char tail[1024];
		snprintf(tail, sizeof tail,
			 "#compare-cache=4\n#config=%016" PRIx64 "\n#trace=%016" PRIx64 "\n#placement=%s\n#seed=%" PRIu64
			 "\n#version=%s\n#build=%s\n",
			 (uint64_t)XXH64(text, strlen(text), 0), w->trace_hash, w->placement ? w->placement : "linear",
			 seed, nl_version(), build);
		snprintf(key, 20, "%016" PRIx64, (uint64_t)XXH64(tail, strlen(tail), 0));
	}
	free(text);
	free(topo);
	json_decref(j);
	return rc;
}

static void cmp_cache_path(const struct cmp *c, const char *key, char *out, size_t n)
{
	snprintf(out, n, "%s/cache/%s.json", c->o->dir, key);
}

/* The longest runtime a replay reports: its clock counts picoseconds in
 * a uint64_t, about 213 days. A larger one (1e308) is no replay's, and
 * its ratios to the other systems' overflow to infinity. */
#define CMP_RUNTIME_MAX_S ((double)UINT64_MAX * 1e-12)

/* Whether a cache entry's status and figures are ones cmp_cache_put
 * writes: ok (0) with a runtime in [0, CMP_RUNTIME_MAX_S] and a
 * communication share in [0, 1], or a deadlock (1); never an error (2,
 * not cached) or any other number.
 * A file edited or damaged into valid JSON is a miss, as an unreadable
 * one is, not a failed cell with an empty message. */
static bool cmp_cache_sane(json_int_t status, double runtime_s, double comm_share)
{
	if (status == 1)
		return true;
	return status == 0 && runtime_s >= 0 && runtime_s <= CMP_RUNTIME_MAX_S && comm_share >= 0 && comm_share <= 1;
}

bool cmp_cache_get(const struct cmp *c, struct cmp_run *r)
{
	char p[1200];
	cmp_cache_path(c, r->key, p, sizeof p);
	json_t *j = json_load_file(p, 0, NULL);
	if (!j)
		return false;
	json_t *st = json_object_get(j, "status"), *rt = json_object_get(j, "runtime_s"),
	       *e = json_object_get(j, "error");
	json_t *lk = json_object_get(j, "links"), *lu = json_object_get(j, "links_unit"),
	       *lw = json_object_get(j, "links_why"), *e2;
	json_t *cs = json_object_get(j, "comm_share");
	bool ok = json_is_integer(st) && json_is_number(rt) && json_is_number(cs) && json_is_string(e) && json_is_array(lk) &&
		  json_is_string(lu) && json_is_string(lw) &&
		  cmp_cache_sane(json_integer_value(st), json_number_value(rt), json_number_value(cs));
	/* A link is a router-to-router port of the run's system: one beyond
	 * them would be dropped from the busiest links without a word. */
	const uint32_t n_ports = c->sys[r->s].n_ports;
	size_t n = ok ? json_array_size(lk) : 0, i;
	if (ok && n && !(r->links = calloc(n, sizeof *r->links)))
		ok = false;
	json_array_foreach(lk, i, e2)
	{
		if (!ok)
			break;
		json_int_t g, u;
		ok = json_unpack(e2, "[II]", &g, &u) == 0 && g >= 0 && (uint64_t)g < n_ports && u >= 0;
		if (ok) {
			r->links[i][0] = (uint64_t)g;
			r->links[i][1] = (uint64_t)u;
		}
	}
	if (ok) {
		r->n_links = (uint32_t)n;
		r->status = (int)json_integer_value(st);
		r->runtime_s = json_number_value(rt);
		r->comm_share = json_number_value(cs);
		snprintf(r->err, sizeof r->err, "%s", json_string_value(e));
		snprintf(r->links_unit, sizeof r->links_unit, "%s", json_string_value(lu));
		snprintf(r->links_why, sizeof r->links_why, "%s", json_string_value(lw));
		r->cached = true;
	} else {
		free(r->links);
		r->links = NULL;
	}
	json_decref(j);
	return ok;
}

/* Write a cache file as the report's files are written: staged under a
 * name registered for SIGINT and SIGTERM (out_stage_registered), so an
 * interrupt while it is written waits for it to be in place, then ends
 * the command, where out_write_json's unregistered temporary file was
 * left behind (DIR/cache/KEY.json.tmpXXXXXX, about 2 interrupts in 15 of
 * a 64-seed study). A file that cannot be written costs a re-run, nothing
 * else. Called on compare's worker threads (cmp_run_one): the list of
 * staged names takes any thread (core/staged.h). */
static void cmp_cache_write(const char *path, const json_t *j)
{
	struct nl_err err = {0};
	if (j)
		(void)out_write_json_registered(path, j, &err);
}

void cmp_cache_put(const struct cmp *c, const struct cmp_run *r)
{
	char p[1200];
	/* A replay's error is not its key's result: a file unreadable or
	 * corrupt (a trace's rank stream, a calibration once found only here),
	 * memory, or a problem of the study the checks before the runs missed.
	 * Cached, it came back on every re-run as a failed cell "from the
	 * cache". A deadlock is the model's answer and is kept. */
	if (r->status == 2)
		return;
	cmp_cache_path(c, r->key, p, sizeof p);
	json_t *j = json_object();
	json_object_set_new(j, "status", json_integer(r->status));
	json_object_set_new(j, "runtime_s", json_real(r->runtime_s));
	json_object_set_new(j, "comm_share", json_real(r->comm_share));
	json_object_set_new(j, "error", out_json_utf8(r->err));
	json_t *lk = json_array();
	for (uint32_t i = 0; i < r->n_links; i++)
		json_array_append_new(lk, json_pack("[II]", (json_int_t)r->links[i][0], (json_int_t)r->links[i][1]));
	json_object_set_new(j, "links", lk);
	json_object_set_new(j, "links_unit", json_string(r->links_unit));
	json_object_set_new(j, "links_why", out_json_utf8(r->links_why));
	cmp_cache_write(p, j);
	json_decref(j);
}

/* Cost and power have a cache of their own (cache/cost-KEY.json), keyed by
 * what they depend on: the canonical topology, the layout (preset, rule,
 * placement: the study's or the system's own keys, cmp_sys_layout), the
 * netloom version and the build's identity; not the routing, router or
 * backend keys, so a new preset prices every system again and replays
 * nothing, and a changed router key replays and prices nothing it need
 * not. Validation only reads the cache (nothing is written before every
 * problem is known); cmp_cost_put writes it after. */
static void cmp_cost_path(const struct cmp *c, const char *key, char *out, size_t n)
{
	snprintf(out, n, "%s/cache/cost-%s.json", c->o->dir, key);
}

/* The most a system netloom can build is priced at: the port table holds
 * fewer than 2^31 ports (docs/topologies.md), so at most 2^30 links and
 * 2^31 terminal cables, and at the presets' dearest lines ($350 a port,
 * $15,029 a router, about $4M for a 100 km cable, 4 lanes x 0.7 W a
 * port) such a system stays below $10^18, 10^18 m of cable and 10^10 W.
 * A cached figure past them (1e308) is no pricing's, and reaches the
 * report as a 309-digit number and a plot with no bar. */
#define CMP_COST_MAX_USD 1e18
#define CMP_LENGTH_MAX_M 1e18
#define CMP_POWER_MAX_W 1e10
#define CMP_PORTS_MAX ((json_int_t)1 << 31)

/* Whether a cost entry reads as one cmp_cost_put writes: amounts and
 * counts >= 0 (the presets' router line is floored at $0) and within what
 * a system of the port table prices at, the cables by medium adding up to
 * the links, a cabinet at least, and a packaging rule of
 * layout_rule_list(). A file damaged into other values is a miss. */
static bool cmp_cost_sane(double cost, double power, double length, json_int_t links, json_int_t copper,
			  json_int_t fibre, json_int_t term, json_int_t cabinets, const char *rule)
{
	if (!(cost >= 0 && cost <= CMP_COST_MAX_USD && power >= 0 && power <= CMP_POWER_MAX_W && length >= 0 &&
	      length <= CMP_LENGTH_MAX_M) ||
	    links < 0 || links > CMP_PORTS_MAX / 2 || copper < 0 || fibre < 0 || term < 0 || term > CMP_PORTS_MAX ||
	    cabinets < 1 || cabinets > UINT32_MAX || copper > links || copper + fibre != links)
		return false;
	size_t n;
	const struct layout_rule *const *rules = layout_rule_list(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rules[i]->name, rule))
			return true;
	return false;
}

static bool cmp_cost_get(const struct cmp *c, struct cmp_sys *s)
{
	char p[1200];
	cmp_cost_path(c, s->cost_key, p, sizeof p);
	json_t *j = json_load_file(p, 0, NULL);
	if (!j)
		return false;
	double ct, pw, len;
	json_int_t links, copper, fibre, term, cab;
	const char *rule;
	int annealed;
	bool ok = json_unpack(j, "{s:F, s:F, s:F, s:I, s:I, s:I, s:I, s:I, s:s, s:b}", "cost_usd", &ct, "power_w",
			      &pw, "length_m", &len, "links", &links, "copper", &copper, "fibre", &fibre,
			      "terminal_cables", &term, "cabinets", &cab, "rule", &rule, "annealed", &annealed) == 0 &&
		  cmp_cost_sane(ct, pw, len, links, copper, fibre, term, cab, rule);
	if (ok) {
		s->cost = (struct layout_summary){.cost_total = ct, .power_w = pw, .length_m = len,
						  .links = (uint64_t)links, .copper = (uint64_t)copper,
						  .fibre = (uint64_t)fibre, .terminal_cables = (uint64_t)term,
						  .cabinets = (uint32_t)cab};
		snprintf(s->cost_rule, sizeof s->cost_rule, "%s", rule);
		s->cost_annealed = annealed;
		s->cost_ok = s->cost_cached = true;
	}
	json_decref(j);
	return ok;
}

void cmp_cost_put(const struct cmp *c, const struct cmp_sys *s)
{
	char p[1200];
	const struct layout_summary *y = &s->cost;
	cmp_cost_path(c, s->cost_key, p, sizeof p);
	json_t *j = json_pack("{s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:s, s:b}", "cost_usd", y->cost_total,
			      "power_w", y->power_w, "length_m", y->length_m, "links", (json_int_t)y->links, "copper",
			      (json_int_t)y->copper, "fibre", (json_int_t)y->fibre, "terminal_cables",
			      (json_int_t)y->terminal_cables, "cabinets", (json_int_t)y->cabinets, "rule", s->cost_rule,
			      "annealed", (int)s->cost_annealed);
	cmp_cache_write(p, j); /* a cache that cannot be written costs a re-evaluation */
	json_decref(j);
}

void cmp_cost_key(const char *spec, const struct layout_cfg *lc, const char *build, char key[20])
{
	char buf[1400], anneal[128] = "";
	/* The files the spec names by their contents, not their paths (an
	 * edited anynet or graph file is another network); the spec as it is
	 * only when out of memory. */
	char *files = path_spec_files(spec, cmp_file_id, NULL);
	const char *topo = files ? files : spec;
	/* The annealing's budget and seed matter only when it may run (its
	 * threads never: layout_threads gives the same placement for any
	 * count). */
	if (lc->placement != LAYOUT_PLACE_RULE)
		snprintf(anneal, sizeof anneal, "iterations=%lld\ntrials=%lld\nseed=%lld\n", (long long)lc->iterations,
			 (long long)lc->trials, (long long)lc->seed);
	snprintf(buf, sizeof buf,
		 "cost 4\nbuild=%s\nversion=%s\npreset=%s\npack=%s\nper_cabinet=%lld\nplacement=%d\n%stopology=%016" PRIx64
		 "\n",
		 build, nl_version(), lc->preset, lc->pack, (long long)lc->per_cabinet, lc->placement, anneal,
		 (uint64_t)XXH64(topo, strlen(topo), 0));
	free(files);
	snprintf(key, 20, "%016" PRIx64, (uint64_t)XXH64(buf, strlen(buf), 0));
}

/* The [layout] keys that choose cabinets, floor and cable lengths: a
 * system that sets one (inline or in its config file) is laid out with
 * them, as its cable_latency replays are (layout_cfg_build), so one report
 * never prices a system on one layout and times its cables on another. */
static const char *const cmp_layout_keys[] = {
	"layout_preset",     "layout_pack",   "layout_per_cabinet", "layout_placement",
	"layout_iterations", "layout_trials", "layout_seed",        NULL,
};

/* The layout that prices system s: the study's preset and the packaging
 * rule's floor order (no annealing: deterministic and fast; `netloom cost
 * --layout anneal` refines), each overridden by the system's own key. */
static int cmp_sys_layout(const struct cmp *c, struct cmp_sys *s, const struct config *cfg, struct nl_err *err)
{
	NL_CHECK(config_bind(cfg, &layout_config_table, &s->layout, err));
	s->has_layout_keys = false;
	for (const char *const *k = cmp_layout_keys; *k; k++)
		s->has_layout_keys |= config_get(cfg, *k) != NULL;
	if (!config_get(cfg, "layout_preset"))
		snprintf(s->layout.preset, sizeof s->layout.preset, "%s", c->preset);
	if (!config_get(cfg, "layout_placement"))
		s->layout.placement = LAYOUT_PLACE_RULE;
	return 0;
}

/* The price's layout could not be packed or placed: a problem of the
 * study when the system's own keys chose it (a rule that does not pack
 * its family, a per-cabinet count without the canonical rule), else the
 * system's cost error (the study's defaults always lay out). */
static int cmp_layout_failed(struct cmp_sys *s, const struct nl_err *why, struct nl_err *err)
{
	if (s->has_layout_keys)
		return nl_errf(err, why->code, "%s", why->msg);
	snprintf(s->cost_err, sizeof s->cost_err, "%s", why->msg);
	return 0;
}

int cmp_sys_cost(const struct cmp *c, struct cmp_sys *s, const struct topo *t, const struct config *cfg,
		 struct nl_err *err)
{
	NL_CHECK(cmp_sys_layout(c, s, cfg, err));
	/* An annealing key is refused where nothing anneals, before the cache
	 * (a rule-order price is cached without them): the price's placement,
	 * or with cable_latency and no layout_placement the replays' (auto),
	 * which the key then serves. Auto needs the packing to know; it is
	 * the price's too (the same pack keys), so a miss reuses it. */
	struct layout_cfg used = s->layout;
	if (used.cable_latency && !config_get(cfg, "layout_placement"))
		used.placement = LAYOUT_PLACE_AUTO;
	struct layout lo;
	struct nl_err why = {0};
	bool packed = false;
	if (used.placement == LAYOUT_PLACE_AUTO && layout_cfg_anneal_key(cfg)) {
		if (layout_cfg_pack(&lo, t, &s->layout, &why) < 0)
			return cmp_layout_failed(s, &why, err);
		packed = true;
	}
	int rc = layout_cfg_check_anneal(&used, cfg, t, packed ? &lo : NULL, err);
	cmp_cost_key(t->spec, &s->layout, version_build(), s->cost_key);
	if (rc < 0 || cmp_cost_get(c, s)) {
		if (packed)
			layout_release(&lo);
		return rc;
	}
	if (!packed && layout_cfg_pack(&lo, t, &s->layout, &why) < 0)
		return cmp_layout_failed(s, &why, err);
	const struct layout_model *m;
	if (layout_cfg_place(&lo, &s->layout, NULL, &m, &why) < 0)
		return cmp_layout_failed(s, &why, err);
	snprintf(s->cost_rule, sizeof s->cost_rule, "%s", lo.rule->name);
	s->cost_annealed = lo.is_annealed;
	if (layout_summarise(&lo, m, 0, &s->cost, &why) == 0)
		s->cost_ok = true;
	else
		snprintf(s->cost_err, sizeof s->cost_err, "%s", why.msg);
	layout_release(&lo);
	return 0;
}
