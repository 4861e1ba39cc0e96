/* Synthetic-traffic experiments: one operating point, run the way BookSim2
 * runs it (TrafficManager::_SingleSim), so its users' numbers carry over.
 *
 * Warm-up for warmup_periods sample periods (statistics cleared at every
 * other one), then sample periods until three in a row change mean packet
 * latency and accepted rate by no more than stopping_thres /
 * acc_stopping_thres (or max_samples periods in all), then drain until
 * every packet created during measurement has arrived. A point whose mean
 * latency, counting packets still in flight, exceeds latency_thres is
 * unstable (saturated) and stops at once. Throughput runs skip the latency
 * checks, and drain with no packet created, as BookSim's Run() does after
 * every simulation, until the packets created during measurement have
 * arrived.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "core/progress.h"
#include "net/mpi.h"
#include "net/net_internal.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

/* Flits queued on network port g's channel before this cycle for a cycle
 * at or after it. fl_output (router.c) counts a flit as it gives it its
 * cycle c = max(at, out_free), with `at` at most one cycle after the call,
 * so those queued before now that go at or after now take the cycles now
 * .. out_free - 1 with no gap: out_free - now of them. Another rank's port
 * has out_free 0 here, and no count. */
static uint64_t exp_chan_queued(const struct flitnet *n, uint32_t g)
{
	const struct fl_port *pt = &n->ports[g];
	return pt->link.network && pt->out_free > n->now ? pt->out_free - n->now : 0;
}

/* The channels' window is that of the flits put on them from now on:
 * those already queued for now or later count in it. */
static void exp_clear_stats(struct flitnet *n)
{
	fl_part_fold_hists(n);
	stats_hist_reset(&n->obs.plat);
	stats_hist_reset(&n->obs.nlat);
	stats_hist_reset(&n->obs.hops);
	n->obs.accepted_flits = 0;
	n->obs.sent_flits = 0;
	for (uint32_t g = 0; g < n->topo->n_ports; g++)
		n->ports[g].chan_flits = exp_chan_queued(n, g);
	n->obs.reset_time = n->now;
}

/* The channels' window ends now: flits counted as queued but going on the
 * channel now or later are not in it (with a speedup, up to a queue's
 * length a channel; 901 flits in 900 cycles before). */
static void exp_stop_channels(struct flitnet *n)
{
	n->obs.count_channels = false;
	for (uint32_t g = 0; g < n->topo->n_ports; g++) {
		const uint64_t q = exp_chan_queued(n, g);
		NL_ASSERT(n->ports[g].chan_flits >= q);
		n->ports[g].chan_flits -= q;
	}
}

/* Mean latency over retired packets and every flit still alive, as BookSim
 * computes it for the stability check. */
static double exp_latency_with_inflight(const struct flitnet *n)
{
	double sum = n->obs.plat.sum + ((double)n->obs.flits_alive * (double)n->now - (double)n->obs.ctime_sum_alive);
	double count = (double)n->obs.plat.n + (double)n->obs.flits_alive;
	return count > 0 ? sum / count : 0.0;
}

static void exp_progress(struct progress *pg, const struct flitnet *n, const char *phase, double frac)
{
	char detail[96];
	snprintf(detail, sizeof detail, "%s, cycle %" PRIu64, phase, n->now);
	progress_update(pg, frac, detail);
}

/* Run to cycle `end`, a sample period's end. With the progress line on,
 * in slices, redrawing after each with the period's share of the whole
 * (`base` done before it, `share` of it): a period of the million-endpoint
 * runs takes minutes, and the line would otherwise stand still that long.
 * A slice starts at 64 cycles, doubles while one takes under 0.025 s and
 * halves when one takes over 0.1 s: a few slices per redraw (at most 5 a
 * second), the clock read once a slice, not once a cycle. Slicing
 * changes nothing a run computes (flitnet_run_until steps cycle by cycle
 * either way; tests/e2e/cli_engine.py compares the two). Not under MPI,
 * where a call is a collective of every rank and only one draws. */
static int exp_run_period(struct flitnet *n, uint64_t end, struct progress *pg, const char *phase, double base,
			  double share, struct nl_err *err)
{
	if (!pg->enabled || n->mx)
		return flitnet_run_until(n, end, err);
	const uint64_t start = n->now;
	uint64_t slice = 64;
	while (n->now < end) {
		const uint64_t to = end - n->now > slice ? n->now + slice : end;
		const double t = nl_wall_seconds();
		NL_CHECK(flitnet_run_until(n, to, err));
		const double took = nl_wall_seconds() - t;
		if (took < 0.025 && slice < (UINT64_C(1) << 30))
			slice *= 2;
		else if (took > 0.1 && slice > 1)
			slice /= 2;
		exp_progress(pg, n, phase, base + share * (double)(n->now - start) / (double)(end - start));
	}
	return 0;
}

static int exp_drive(struct flitnet *n, const struct sim_cfg *sc, struct net_point *pt, struct progress *pg,
		     struct nl_err *err)
{
	const bool measure_latency = sc->sim_type == 0;
	const uint64_t period = (uint64_t)sc->sample_period;
	const double n_active = (double)n->synth.traffic->n_active;
	double prev_lat = 0, prev_acc = 0;
	int converged = 0;
	int64_t total_phases = 0;
	bool clear_last = false;
	int phase = PH_WARMUP;

	/* The progress line's whole: BookSim's rule stops 3 converged samples
	 * after the warm-up, so a run that can converge is expected to take
	 * warmup_periods + 3 of them; with stopping thresholds of 0 nothing
	 * converges and every one of max_samples runs (equality_scale.sh). */
	const bool runs_all = !(sc->acc_stopping_thres > 0) && (!measure_latency || !(sc->stopping_thres > 0));
	int64_t expect = runs_all ? sc->max_samples : sc->warmup_periods + 3;
	if (expect > sc->max_samples)
		expect = sc->max_samples;
	fl_obs_phase(&n->obs, phase);
	exp_clear_stats(n);
	while (total_phases < sc->max_samples && (phase != PH_RUNNING || converged < 3)) {
		if (clear_last || (phase == PH_WARMUP && total_phases % 2 == 0)) {
			clear_last = false;
			exp_clear_stats(n);
		}
		/* Channels are counted in warm-up too, and cleared with the
		 * other statistics: a point whose warm-up never ends reports
		 * its last window, and channels.mean must describe the same
		 * window as accepted and hops. A run that measures clears
		 * everything as measurement starts, so its figures are unchanged. */
		n->obs.count_channels = true;
		const char *doing = phase == PH_WARMUP ? "warm-up" : "measuring";
		NL_CHECK(exp_run_period(n, n->now + period, pg, doing, (double)total_phases / (double)expect,
					1.0 / (double)expect, err));
		fl_part_fold_hists(n);
		exp_progress(pg, n, doing, (double)(total_phases + 1) / (double)expect);

		double cur_lat = stats_hist_mean(&n->obs.plat);
		double cur_acc = (double)n->obs.accepted_flits / (double)(n->now - n->obs.reset_time) / n_active;
		double lat_change = fabs((cur_lat - prev_lat) / cur_lat);
		double acc_change = fabs((cur_acc - prev_acc) / cur_acc);
		prev_lat = cur_lat;
		prev_acc = cur_acc;

		if (measure_latency && exp_latency_with_inflight(n) > sc->latency_thres) {
			pt->stable = false;
			converged = 0;
			phase = PH_DRAINING;
			n->obs.drain_time = n->now;
			exp_stop_channels(n);
			fl_obs_phase(&n->obs, phase);
			pt->samples = (uint32_t)total_phases + 1;
			return 0;
		}
		if (phase == PH_WARMUP) {
			bool done = sc->warmup_periods > 0
					    ? total_phases + 1 >= sc->warmup_periods
					    : (!measure_latency || !(lat_change > sc->warmup_thres)) &&
						      !(acc_change > sc->acc_warmup_thres);
			if (done) {
				clear_last = true;
				phase = PH_RUNNING;
				fl_obs_phase(&n->obs, phase);
			}
		} else {
			if ((!measure_latency || !(lat_change > sc->stopping_thres)) &&
			    !(acc_change > sc->acc_stopping_thres))
				converged++;
			else
				converged = 0;
		}
		total_phases++;
	}
	pt->samples = (uint32_t)total_phases;
	pt->converged = converged >= 3;
	if (phase != PH_RUNNING) {
		/* max_samples ran out during warm-up: nothing was measured. */
		pt->stable = false;
		pt->warmup_only = true;
		n->obs.drain_time = n->now;
		exp_stop_channels(n);
		return 0;
	}
	phase = PH_DRAINING;
	n->obs.drain_time = n->now;
	exp_stop_channels(n);
	fl_obs_phase(&n->obs, phase);
	/* Under MPI a rank knows its own sources' next packet only: the
	 * count is summed over the ranks. */
	uint64_t undrained = 0;
	for (uint32_t e = 0; e < n->topo->n_endpoints; e++) {
		if (!fl_ep_local(n, e))
			continue; /* another rank's record: left untouched */
		struct fl_nic *c = &n->nics[e];
		c->drained = c->next_gen >= n->obs.drain_time;
		undrained += !c->drained;
	}
	n->obs.n_undrained = (uint32_t)(n->mx ? fl_mpi_sum(n, undrained) : undrained);
	uint64_t drain_start = n->now;
	/* max_drain_cycles = 0: a throughput run that ends with its
	 * measurement. Past saturation the drain empties source queues that
	 * grew all run (Equality n8000k64p16 at 0.9 offered, 40 measured
	 * cycles: 3,456 drain cycles; at 10,000 measured, hours), and a study
	 * of accepted rates alone need not pay for it. */
	if (!measure_latency && sc->max_drain_cycles == 0)
		return 0;
	if (!measure_latency) {
		/* BookSim's Run() ends every simulation with a drain in which no
		 * packet is created (_empty_network: _Inject is skipped, what the
		 * sources hold still goes out), and its overall latency and hop
		 * figures include the record packets retired in it; stopping at
		 * the end of measurement counted only those already out, the
		 * short fast ones: on BookSim's torus88 at offered 1.0 transpose,
		 * network latency 104.5 where BookSim gives 133.3. Without a
		 * latency check, as there; the drain limit still applies.
		 * In steps of FL_TP_DRAIN_STEP cycles, not one: under MPI every
		 * call ends a window (docs/scaling.md), and windows of one
		 * cycle cost a collective a cycle. A fixed step keeps the run
		 * the same whatever the partitioning; it may end up to a step
		 * after the last measured packet (cycles, flit_hops). */
		enum { FL_TP_DRAIN_STEP = 32 };
		fl_gen_stop(n);
		while (n->obs.measured_alive > 0) {
			NL_CHECK(flitnet_run_until(n, n->now + FL_TP_DRAIN_STEP, err));
			uint64_t steps = n->now - drain_start;
			if (steps % 1024 == 0)
				exp_progress(pg, n, "draining", -1);
			if (steps >= (uint64_t)sc->max_drain_cycles) {
				pt->stable = false;
				return 0;
			}
		}
		return 0;
	}
	while (n->obs.measured_alive > 0 || n->obs.n_undrained > 0) {
		NL_CHECK(flitnet_run_until(n, n->now + 1, err));
		uint64_t steps = n->now - drain_start;
		if (steps % 1000 == 0) {
			fl_part_fold_hists(n);
			exp_progress(pg, n, "draining", -1);
			if (exp_latency_with_inflight(n) > sc->latency_thres) {
				pt->stable = false;
				return 0;
			}
		}
		if (steps >= (uint64_t)sc->max_drain_cycles) {
			pt->stable = false;
			return 0;
		}
	}
	return 0;
}

/* Every entry of the hop histogram is a count of one hop number. */
_Static_assert(NET_MAX_HOPS <= STATS_HIST_EXACT, "hop histogram entries must be exact bins");

static void exp_collect(const struct flitnet *n, struct net_point *pt)
{
	uint64_t window = n->obs.drain_time > n->obs.reset_time ? n->obs.drain_time - n->obs.reset_time : 1;
	double n_active = (double)n->synth.traffic->n_active;

	pt->cycles = n->now;
	pt->flit_hops = n->flit_hops;
	pt->window_cycles = window;
	pt->injected = (double)n->obs.sent_flits / (double)window / n_active;
	pt->accepted = (double)n->obs.accepted_flits / (double)window / n_active;
	pt->active_endpoints = n->synth.traffic->n_active;
	pt->packets = n->obs.plat.n;
	pt->plat_mean = stats_hist_mean(&n->obs.plat);
	pt->plat_p50 = stats_hist_percentile(&n->obs.plat, 50);
	pt->plat_p99 = stats_hist_percentile(&n->obs.plat, 99);
	pt->plat_max = n->obs.plat.n ? n->obs.plat.max : 0;
	pt->nlat_mean = stats_hist_mean(&n->obs.nlat);
	pt->hops_mean = stats_hist_mean(&n->obs.hops);
	pt->n_hops = 0;
	if (n->obs.hops.n)
		for (uint64_t h = 0; h <= n->obs.hops.max && h < NET_MAX_HOPS; h++) {
			pt->hops_hist[h] = n->obs.hops.bins[h];
			pt->n_hops = (uint32_t)h + 1;
		}

	/* Channel utilisation over the measurement window (network channels). */
	uint64_t n_chan = 0, sum = 0;
	pt->n_busiest = fl_busiest_channels(n, pt->busiest, &sum, &n_chan);
	pt->chan_util_mean = n_chan ? (double)sum / (double)n_chan / (double)window : 0;
	pt->chan_util_max = pt->n_busiest ? (double)pt->busiest[0].flits / (double)window : 0;
	for (uint32_t i = 0; i < pt->n_busiest; i++)
		pt->busiest[i].util = (double)pt->busiest[i].flits / (double)window;
}

int net_run_point(const struct net_cfg *nc, const struct router_cfg *rc, const struct sim_cfg *sc,
		  const struct traffic_cfg *tc, const struct topo *t, double rate, struct net_point *pt,
		  struct nl_err *err)
{
	struct flitnet *n = NULL;
	struct traffic *tr = NULL;
	struct progress pg;
	char label[64];
	int rc_;

	memset(pt, 0, sizeof *pt);
	pt->offered = rate;
	pt->stable = true;
	/* Refusals of keys together, found at the first key's file:line. */
	if (nc->flow_control == FL_VCT && tc->packet_size.hi > rc->vc_buf_size) {
		nl_errf(err, NL_ECONFIG, "flow_control = vct needs vc_buf_size (%lld) >= the largest packet (%lld flits)",
			(long long)rc->vc_buf_size, (long long)tc->packet_size.hi);
		rc_ = config_err_file_line_any(sc->cfg, CONFIG_KEYS("flow_control", "vc_buf_size", "packet_size"), err);
	} else if (sc->max_drain_cycles == 0 && sc->sim_type == 0) {
		nl_errf(err, NL_ECONFIG,
			"max_drain_cycles = 0 (no drain) needs sim_type = throughput: a latency point is "
			"measured until its packets have drained");
		rc_ = config_err_file_line_any(sc->cfg, CONFIG_KEYS("max_drain_cycles", "sim_type"), err);
	} else
		rc_ = flitnet_new(nc, rc, sc, t, &n, err);
	if (rc_ == 0 && traffic_new(tc->traffic, t, (uint64_t)sc->seed, &tr, err) < 0)
		rc_ = config_err_file_line(sc->cfg, "traffic", err);
	if (rc_ == 0) {
		flitnet_set_class_rule(n, tc->traffic_class);
		rc_ = flitnet_set_traffic(n, tr, rate, (uint32_t)tc->packet_size.lo, (uint32_t)tc->packet_size.hi,
					  err);
	}
	/* Under MPI the build is agreed before the run's first collective: a
	 * rank that failed alone (out of memory) must not leave the others
	 * waiting in it. Refusals fail on every rank alike. */
	if (sc->mpi)
		rc_ = net_mpi_agree(sc->mpi, rc_, err);
	if (rc_ < 0)
		goto out;
	snprintf(label, sizeof label, "rate %g", rate);
	progress_init(&pg, label);
	pg.enabled = pg.enabled && !sc->is_quiet;
	double t0 = nl_wall_seconds();
	rc_ = exp_drive(n, sc, pt, &pg, err);
	pt->wall_seconds = nl_wall_seconds() - t0;
	progress_done(&pg);
	if (rc_ == NL_EDEADLOCK) {
		/* A deadlock is the point's result, not a measurement: no
		 * latency or throughput figures. */
		const struct net_deadlock *dl = flitnet_deadlock(n);
		pt->deadlock = true;
		pt->stable = false;
		pt->converged = false;
		pt->cycles = n->now;
		pt->flit_hops = n->flit_hops;
		if (dl)
			pt->dl = *dl;
		pt->report = strdup(flitnet_report(n));
		goto out;
	}
	if (rc_ < 0)
		goto out;
	if (sc->check_interval != 0)
		rc_ = flitnet_check(n, err);
	fl_part_fold_hists(n);
	if (n->mx)
		fl_mpi_sum_channels(n);
	exp_collect(n, pt);
out:
	traffic_free(tr);
	flitnet_free(n);
	return rc_;
}

int net_run_point_cfg(const struct config *cfg, struct net_point *pt, struct nl_err *err)
{
	struct net_cfg nc;
	struct router_cfg rc;
	struct traffic_cfg tc;
	struct sim_cfg sc = {0}; /* mpi is not a key: config_bind leaves it */
	struct topo *t = NULL;

	memset(pt, 0, sizeof *pt);
	NL_CHECK(config_bind(cfg, &net_network_table, &nc, err));
	NL_CHECK(config_bind(cfg, &net_router_table, &rc, err));
	NL_CHECK(config_bind(cfg, &traffic_table, &tc, err));
	NL_CHECK(config_bind(cfg, &net_sim_table, &sc, err));
	sc.cfg = cfg;
	if (topo_new(nc.topology, &t, err) < 0)
		return config_err_file_line(cfg, "topology", err);
	int r = net_run_point(&nc, &rc, &sc, &tc, t, tc.injection_rate, pt, err);
	topo_free(t);
	return r;
}

void net_point_release(struct net_point *pt)
{
	free(pt->report);
	pt->report = NULL;
}

size_t net_point_packed_size(const struct net_point *pt)
{
	return sizeof *pt + (pt->report ? strlen(pt->report) + 1 : 0);
}

void net_point_pack(const struct net_point *pt, uint8_t *out)
{
	struct net_point c = *pt;
	c.report = NULL; /* a pointer means nothing in another process */
	memcpy(out, &c, sizeof c);
	if (pt->report)
		memcpy(out + sizeof c, pt->report, strlen(pt->report) + 1);
}

int net_point_unpack(const uint8_t *p, size_t len, struct net_point *pt, struct nl_err *err)
{
	if (len < sizeof *pt || (len > sizeof *pt && p[len - 1] != '\0'))
		return nl_errf(err, NL_ECORRUPT, "a point of %zu bytes from another rank: expected %zu and a report",
			       len, sizeof *pt);
	memcpy(pt, p, sizeof *pt);
	pt->report = NULL;
	if (len > sizeof *pt && !(pt->report = strdup((const char *)p + sizeof *pt)))
		return nl_errf(err, NL_ENOMEM, "out of memory");
	return 0;
}

json_t *net_deadlock_json(const struct net_deadlock *d)
{
	json_t *dl = json_object(), *waits = json_array();
	json_object_set_new(dl, "cycle", json_integer((json_int_t)d->cycle));
	json_object_set_new(dl, "flits", json_integer((json_int_t)d->flits));
	json_object_set_new(dl, "input_vcs", json_integer(d->vcs));
	json_object_set_new(dl, "check", json_string(d->global ? "global" : "local"));
	if (!d->global) {
		json_object_set_new(dl, "waited_cycles", json_integer((json_int_t)d->waited));
		json_object_set_new(dl, "bound_cycles", json_integer((json_int_t)d->bound));
	}
	for (uint32_t i = 0; i < d->n_waits; i++) {
		const struct net_dl_wait *w = &d->waits[i];
		json_t *o = json_object();
		json_object_set_new(o, "router", json_integer(w->router));
		json_object_set_new(o, "in_port", json_integer(w->in_port));
		json_object_set_new(o, "vc", json_integer(w->vc));
		json_object_set_new(o, "flits", json_integer(w->flits));
		json_object_set_new(o, "out_port", json_integer(w->out_port));
		if (w->has_vc) {
			json_object_set_new(o, "out_vc", json_integer(w->out_vc_lo));
		} else {
			json_t *range = json_array();
			json_array_append_new(range, json_integer(w->out_vc_lo));
			json_array_append_new(range, json_integer(w->out_vc_hi));
			json_object_set_new(o, "free_vc_in", range);
		}
		json_array_append_new(waits, o);
	}
	json_object_set_new(dl, "waiting", waits);
	return dl;
}

/* A deadlocked point: what is stuck, where, and how it was found. */
static json_t *exp_deadlock_json(const struct net_point *pt, bool reproducible)
{
	json_t *res = json_object(), *thr = json_object();
	json_object_set_new(res, "deadlock", json_true());
	json_object_set_new(res, "stable", json_false());
	json_object_set_new(thr, "offered", json_real(pt->offered));
	json_object_set_new(thr, "unit", json_string("flits/cycle/endpoint"));
	json_object_set_new(res, "throughput", thr);
	json_object_set_new(res, "stuck", net_deadlock_json(&pt->dl));
	json_object_set_new(res, "cycles", json_integer((json_int_t)pt->cycles));
	json_object_set_new(res, "flit_hops", json_integer((json_int_t)pt->flit_hops));
	json_object_set_new(res, "wall_seconds", json_real(reproducible ? 0.0 : pt->wall_seconds));
	return res;
}

json_t *net_point_json(const struct net_point *pt, const struct topo *t, bool reproducible)
{
	if (pt->deadlock)
		return exp_deadlock_json(pt, reproducible);

	json_t *res = json_object();
	json_t *lat = json_object(), *pk = json_object(), *nw = json_object();
	json_t *thr = json_object(), *hops = json_object(), *hist = json_array();
	json_t *ch = json_object(), *busy = json_array();

	json_object_set_new(pk, "mean", json_real(pt->plat_mean));
	json_object_set_new(pk, "p50", json_integer((json_int_t)pt->plat_p50));
	json_object_set_new(pk, "p99", json_integer((json_int_t)pt->plat_p99));
	json_object_set_new(pk, "max", json_integer((json_int_t)pt->plat_max));
	json_object_set_new(nw, "mean", json_real(pt->nlat_mean));
	json_object_set_new(lat, "packet", pk);
	json_object_set_new(lat, "network", nw);
	json_object_set_new(lat, "unit", json_string("cycles"));
	json_object_set_new(res, "deadlock", json_false());
	json_object_set_new(res, "stable", json_boolean(pt->stable));
	json_object_set_new(res, "converged", json_boolean(pt->converged));
	json_object_set_new(res, "warmup_ended", json_boolean(!pt->warmup_only));
	json_object_set_new(res, "latency", lat);
	json_object_set_new(thr, "offered", json_real(pt->offered));
	json_object_set_new(thr, "injected", json_real(pt->injected));
	json_object_set_new(thr, "accepted", json_real(pt->accepted));
	json_object_set_new(thr, "active_endpoints", json_integer(pt->active_endpoints));
	json_object_set_new(thr, "unit", json_string("flits/cycle/endpoint"));
	json_object_set_new(res, "throughput", thr);
	json_object_set_new(hops, "mean", json_real(pt->hops_mean));
	json_object_set_new(hops, "routers_mean", json_real(pt->packets ? pt->hops_mean + 1 : 0));
	for (uint32_t h = 0; h < pt->n_hops; h++)
		json_array_append_new(hist, json_integer((json_int_t)pt->hops_hist[h]));
	json_object_set_new(hops, "histogram", hist);
	json_object_set_new(res, "hops", hops);
	json_object_set_new(res, "packets", json_integer((json_int_t)pt->packets));
	json_object_set_new(res, "samples", json_integer(pt->samples));
	json_object_set_new(res, "cycles", json_integer((json_int_t)pt->cycles));
	json_object_set_new(res, "measured_cycles", json_integer((json_int_t)pt->window_cycles));
	json_object_set_new(res, "flit_hops", json_integer((json_int_t)pt->flit_hops));
	json_object_set_new(res, "wall_seconds", json_real(reproducible ? 0.0 : pt->wall_seconds));
	json_object_set_new(ch, "mean", json_real(pt->chan_util_mean));
	json_object_set_new(ch, "max", json_real(pt->chan_util_max));
	for (uint32_t i = 0; i < pt->n_busiest; i++) {
		json_t *c = json_object();
		json_object_set_new(c, "router", json_integer(pt->busiest[i].router));
		json_object_set_new(c, "port", json_integer(pt->busiest[i].local_port));
		json_object_set_new(c, "to_router", json_integer(pt->busiest[i].peer_router));
		json_object_set_new(c, "utilization", json_real(pt->busiest[i].util));
		json_array_append_new(busy, c);
	}
	json_object_set_new(ch, "busiest", busy);
	json_object_set_new(ch, "unit", json_string("flits/cycle"));
	json_object_set_new(res, "channels", ch);
	(void)t;
	return res;
}
