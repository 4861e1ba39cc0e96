/* The flit-level network's run loop around fl_cycle (flitnet.c): jumps
 * over cycles without work, idle and sleeping partitions, the windows
 * between exchanges under MPI, and the checks after each cycle with work.
 * Its per-cycle helpers are static, so that they inline into
 * flitnet_run_until and flitnet_run_to_delivery. */
#include <math.h>
#include <stdint.h>

#include "net/mpi.h"
#include "net/net_internal.h"
#include "net/workers.h"
#include "topo/topo.h"

/* Partition n has nothing to do in the coming cycle: no router or
 * endpoint to step, now or swapped in at its end, no event due, no source
 * due, no lookahead decision pending. Then its fl_cycle would only move
 * its clock and its speedup credit (fl_idle_cycle). */
static bool fl_part_idle(const struct flitnet *n)
{
	const uint64_t t = n->now;
	return !(n->n_act_r | n->n_act_r_next | n->n_act_e | n->n_act_e_next | n->n_la_pend) &&
	       !n->wheel[t & n->wheel_mask].n && fl_gen_top(n) > t && !n->oom;
}

/* fl_cycle of an idle partition (fl_part_idle): the same clock and the
 * same speedup credit, by the same arithmetic. Sources not yet due stay
 * in the heap until a cycle that runs takes them, as after a jump. */
static void fl_idle_cycle(struct flitnet *n)
{
	n->speedup_acc += n->rc.internal_speedup;
	while (n->speedup_acc >= 1.0)
		n->speedup_acc -= 1.0;
	fl_set_now(n, n->now + 1);
}

void fl_part_wake(struct flitnet *n, uint32_t k)
{
	fl_set_now(n->part[k], n->now);
	n->awake[k >> 6] |= 1ULL << (k & 63);
	if (n->wake[k] == n->wake_min)
		n->wake_stale = true;
}

void fl_parts_wake_all(struct flitnet *n)
{
	if (n->n_parts < 2)
		return;
	for (uint32_t i = 0; i < n->n_own; i++)
		if (fl_part_asleep(n, n->own[i]))
			fl_part_wake(n, n->own[i]);
	n->wake_min = UINT64_MAX;
	n->wake_stale = false;
}

/* The earliest cycle a sleeping partition is due at, UINT64_MAX for none. */
static uint64_t fl_wake_min_scan(const struct flitnet *n)
{
	if (!n->wake_stale)
		return n->wake_min;
	uint64_t m = UINT64_MAX;
	for (uint32_t i = 0; i < n->n_own; i++) {
		const uint32_t k = n->own[i];
		if (fl_part_asleep(n, k) && n->wake[k] < m)
			m = n->wake[k];
	}
	return m;
}

static uint64_t fl_wake_min(struct flitnet *n)
{
	n->wake_min = fl_wake_min_scan(n);
	n->wake_stale = false;
	return n->wake_min;
}

/* Wake the sleeping partitions due by now. */
static void fl_parts_wake_due(struct flitnet *n)
{
	for (uint32_t i = 0; i < n->n_own; i++) {
		const uint32_t k = n->own[i];
		if (fl_part_asleep(n, k) && n->wake[k] <= n->now)
			fl_part_wake(n, k);
	}
	n->wake_stale = true;
}

/* Before a cycle on one thread: partition k's pools get their room, or it
 * sits the cycle out (fl_part_idle). With `sleep`, a partition other than
 * the root goes further: it sleeps until its next work (fl_part_next_work)
 * and no cycle touches it, its clock left behind, until that cycle comes
 * or a merge or a send brings it work (part.c, fl_part_list_inbound;
 * backend_flit.c), which wakes it at the clock its idle cycles would have
 * reached. That needs a whole internal speedup: the credit then stays 0
 * through idle cycles, so a sleeping partition's cycles would change
 * nothing but its clock. The cycle's loops then visit the awake
 * partitions only: a replay of 16 ranks on torus:k=64x64 (16 automatic
 * partitions, one of them busy) took 1.57x the CPU time of one partition
 * when they stepped every partition at every cycle. */
static int fl_part_prepare(struct flitnet *n, uint32_t k, bool skip_idle, bool sleep, struct nl_err *err)
{
	struct flitnet *p = n->part[k];
	const bool idle = skip_idle && !n->oom && fl_part_idle(p);
	p->idle_now = idle;
	if (idle && sleep && k) {
		const uint64_t w = fl_part_next_work(p);
		n->wake[k] = w;
		n->awake[k >> 6] &= ~(1ULL << (k & 63));
		if (!n->wake_stale && w < n->wake_min)
			n->wake_min = w;
		return 0;
	}
	return idle ? 0 : fl_reserve(p, err);
}

uint64_t fl_part_next_work(const struct flitnet *n)
{
	if (n->n_act_r || n->n_act_e)
		return n->now;
	uint64_t next = fl_gen_top(n);
	if (n->n_events) {
		for (uint64_t c = n->now; c <= n->now + n->wheel_mask; c++)
			if (n->wheel[c & n->wheel_mask].n) {
				if (c < next)
					next = c;
				break;
			}
		if (n->n_far && n->far[0].cycle < next)
			next = n->far[0].cycle;
	}
	return next;
}

uint64_t fl_part_last_event(const struct flitnet *n)
{
	if (!n->n_events)
		return 0;
	/* A far event is due at now + wheel_mask or later (fl_set_now moves
	 * nearer ones into the wheel), after every wheel event. */
	uint64_t last = 0;
	for (uint64_t i = 0; i < n->n_far; i++)
		if (n->far[i].cycle > last)
			last = n->far[i].cycle;
	if (last)
		return last;
	for (uint64_t k = 1; k <= n->wheel_mask; k++) {
		const uint64_t c = n->now + n->wheel_mask - k;
		if (n->wheel[c & n->wheel_mask].n)
			return c;
	}
	return 0;
}

uint64_t fl_next_work(const struct flitnet *n)
{
	if (n->n_parts == 1)
		return fl_part_next_work(n);
	uint64_t next = fl_wake_min_scan(n);
	FL_FOR_AWAKE(n, k) {
		const uint64_t c = fl_part_next_work(n->part[k]);
		if (c < next)
			next = c;
		if (next <= n->now)
			break;
	}
	return next;
}

uint64_t fl_next_work_all(const struct flitnet *n)
{
	return n->mx ? fl_mpi_next_work(n) : fl_next_work(n);
}

/* Move every partition's clock to cycle t (idle time: no work before t). */
static inline void fl_jump(struct flitnet *n, uint64_t t)
{
	double jumped = (double)(t - n->now);
	for (uint32_t k = 0; k < n->n_parts; k++) {
		struct flitnet *p = n->part[k];
		p->speedup_acc += jumped * p->rc.internal_speedup;
		p->speedup_acc -= floor(p->speedup_acc);
		fl_set_now(p, t);
	}
}

void fl_clock_jump(struct flitnet *n, uint64_t t)
{
	fl_jump(n, t);
}

/* check_interval -1: conservation checks in debug builds (DESIGN §9),
 * every 1024 cycles, or on a large network every (output VCs / 4)
 * cycles. A check reads every output VC and walks the events, so at a
 * fixed 1024 its cost grew with the network while a cycle's work grows
 * with the traffic: hpcc-8 on dragonfly:p=8,a=16,h=8 (241,000 output
 * VCs) spent 89% of the debug build's time checking, there where
 * scripts/run.sh runs. */
static uint64_t fl_check_interval(const struct flitnet *n)
{
	if (n->sc.check_interval >= 0)
		return (uint64_t)n->sc.check_interval;
#ifdef NDEBUG
	return 0;
#else
	const uint64_t n_ov = ((uint64_t)n->topo->n_ports + n->topo->n_endpoints) * n->V;
	return n_ov / 4 > 1024 ? n_ov / 4 : 1024;
#endif
}

/* The periodic-snapshot hook (route_ops.snapshot, issue 11 part 3): all
 * partitions are between cycles, so the global view is consistent. */
static void fl_route_snapshot(struct flitnet *n)
{
	struct route_view g = {
		.occ_base = &n->ovc[0].occ,
		.occ_stride = sizeof(struct fl_ovc),
		.n_vcs = n->V,
		.vc_buf_size = n->buf,
		.gocc_base = &n->ovc[0].occ,
	};
	const uint64_t T = n->route->snapshot_period;
	if (n->mx) {
		/* Each rank's counts are zero where another rank runs the port. */
		const uint64_t IV = (uint64_t)n->topo->n_ports * n->V;
		for (uint64_t iv = 0; iv < IV; iv++)
			n->snap_occ[iv] = n->ovc[iv].occ;
		fl_mpi_sum_u16(n, n->snap_occ, IV);
		g.occ_base = g.gocc_base = n->snap_occ;
		g.occ_stride = sizeof *n->snap_occ;
	}
	n->route->ops->snapshot(n->route, &g, n->now);
	n->snap_next = (n->now / T + 1) * T;
}

/* Under MPI: the last cycle (inclusive, >= b) of the window that starts
 * at cycle b, where b has work on some rank (mpi.h; docs/scaling.md,
 * "Windows"). Inside a window no rank can see another's events (each
 * arrives at least x_window cycles after it is sent), so the window is
 * as long as that allows, cut short so that every decision the single
 * process takes between two cycles falls on a window's end:
 *  - the run's end `cycle` (the driver's sample ends, drain steps);
 *  - the next routing snapshot (LBR, UGAL snapshots), taken before the
 *    first cycle with work at or after snap_next;
 *  - the next multiple of check_interval (the conservation check runs
 *    after a cycle with work that ends on one);
 *  - the next deadlock scan (after the first cycle with work at or past
 *    dl_next_scan: an overdue scan makes a one-cycle window);
 *  - the global deadlock check, which needs no event pending anywhere
 *    and nothing moved for dl_quiet cycles: an event due at cycle c
 *    is pending until c and moves something at c, so the check cannot
 *    fire before max(last_move, x_clast) + dl_quiet. */
static uint64_t fl_window_end(const struct flitnet *n, uint64_t b, uint64_t cycle, uint64_t interval)
{
	uint64_t e = b + n->x_window - 1;
	if (e > cycle - 1)
		e = cycle - 1;
	if (n->snap_next > b && n->snap_next - 1 < e)
		e = n->snap_next - 1;
	if (interval) {
		const uint64_t m = (b / interval + 1) * interval;
		if (m - 1 < e)
			e = m - 1;
	}
	if (n->dl_next_scan <= b)
		return b;
	if (n->dl_next_scan - 1 < e)
		e = n->dl_next_scan - 1;
	const uint64_t quiet = (n->last_move > n->x_clast ? n->last_move : n->x_clast) + n->dl_quiet - 1;
	if (quiet < e)
		e = quiet < b ? b : quiet;
	return e;
}

/* Run this rank's partitions one cycle (threads or one after the other),
 * or none of them when a partition's pools cannot take the cycle:
 * NL_ENOMEM then, its line in *err, and n->oom set for the exchange to
 * fold. The cycle would take records the pools lack (fl_pkt_alloc gives
 * FL_NONE, which fl_nic_generate indexes), as the single process never
 * does (flitnet_run_until). */
static int fl_run_own_cycle(struct flitnet *n, struct nl_err *err)
{
	for (uint32_t i = 0; i < n->n_own; i++) {
		int rc = fl_reserve(n->part[n->own[i]], err);
		if (rc < 0) {
			n->oom = true;
			return rc;
		}
	}
	if (n->workers)
		fl_workers_cycle(n->workers);
	else
		for (uint32_t i = 0; i < n->n_own; i++)
			fl_cycle(n->part[n->own[i]]);
	/* A rank that does not run partition 0 still keeps its clock. */
	if (n->own[0] != 0)
		fl_set_now(n, n->now + 1);
	return 0;
}

/* This rank's failure in the window before the exchange: a partition's
 * run-time allocation that failed (a far event, a wheel slot: its oom),
 * NL_ENOMEM with its line from fl_reserve, or 0. */
static int fl_own_oom(struct flitnet *n, struct nl_err *err)
{
	for (uint32_t i = 0; i < n->n_own; i++)
		if (n->part[n->own[i]]->oom)
			return fl_reserve(n->part[n->own[i]], err);
	return n->oom ? fl_reserve(n, err) : 0;
}

/* The run's end under MPI when some rank ran out of memory (n->oom, as
 * the exchange folded it): every rank returns the line of the lowest rank
 * that failed in the window (`rc`, this rank's: NL_ENOMEM or 0), as
 * net_mpi_agree carries it; a rank that failed inside the exchange
 * itself (its receive buffers) has no line the others see, and every
 * rank takes its own from fl_reserve, rank 0's printed. */
static int fl_run_windows_oom(struct flitnet *n, int rc, struct nl_err *err)
{
	rc = net_mpi_agree(n->sc.mpi, rc, err);
	return rc < 0 ? rc : fl_reserve(n, err);
}

/* flitnet_run_until over MPI ranks: windows of cycles between exchanges.
 * Every rank takes every decision from the same numbers: the next cycle
 * with work on any rank and the latest pending event (fl_mpi_begin, or
 * the caller's with n->x_agreed; then each exchange), the folded
 * counters, whether the window's last cycle had work on some rank, and
 * no early return on a failure of this rank alone (its oom is folded at
 * the exchange).
 *
 * Inside a window a rank skips its own idle cycles: an idle partition's
 * cycle changes nothing but its clock and speedup credit (with a whole
 * internal_speedup, as a jump does; fl_mpi_plan makes one-cycle windows
 * otherwise), so running or skipping it gives the same state, and the
 * one process's decisions, which only depend on which cycles had work
 * anywhere, are all taken at windows' ends (fl_window_end). */
static int fl_run_windows(struct flitnet *n, uint64_t cycle, struct nl_err *err)
{
	const uint64_t interval = fl_check_interval(n);
	if (n->x_agreed)
		n->x_agreed = false; /* the caller's fl_mpi_begin or last exchange stands (flit_advance) */
	else
		fl_mpi_begin(n);
	NL_CHECK(fl_mpi_peer_check(n, err));
	while (n->now < cycle) {
		if (n->x_next > n->now) {
			fl_jump(n, n->x_next < cycle ? n->x_next : cycle);
			if (n->now >= cycle)
				break;
		}
		if (n->now >= n->snap_next)
			fl_route_snapshot(n);
		const uint64_t e = fl_window_end(n, n->now, cycle, interval);
		n->x_wstart = n->now;
		/* The window's first cycle has work on some rank: all run it.
		 * A rank whose pools cannot take a cycle runs no more of the
		 * window; the exchange tells the others (n->oom). */
		int rc = fl_run_own_cycle(n, err);
		n->x_busy = true;
		while (rc == 0 && n->now <= e) {
			if (n->n_own > 1)
				fl_part_merge_own(n);
			const uint64_t next = fl_next_work(n);
			if (next > n->now) {
				fl_jump(n, next <= e ? next : e + 1);
				if (n->now > e) {
					n->x_busy = false;
					break;
				}
			}
			rc = fl_run_own_cycle(n, err);
		}
		if (rc == 0)
			rc = fl_own_oom(n, err);
		fl_part_exchange(n);
		if (n->oom)
			return fl_run_windows_oom(n, rc, err);
		/* The single process checks after each cycle with work only. */
		if (n->x_gbusy) {
			NL_CHECK(fl_dl_after_cycle(n, err));
			if (interval && n->now % interval == 0)
				NL_CHECK(flitnet_check(n, err));
		}
	}
	return n->oom ? fl_reserve(n, err) : 0;
}

/* The cycle at n->now, which has work, on one process (fl_run_one_process
 * and flitnet_run_to_delivery): the partitions' room or sleep, the
 * routing snapshot, the cycle, the exchange and the checks after it. */
static inline __attribute__((always_inline)) int fl_one_cycle(struct flitnet *n, uint64_t interval, bool skip_idle,
							      bool sleep, struct nl_err *err)
{
	if (n->n_parts == 1) {
		NL_CHECK(fl_reserve(n, err));
	} else {
		if (fl_wake_min(n) <= n->now)
			fl_parts_wake_due(n);
		FL_FOR_AWAKE(n, k)
			NL_CHECK(fl_part_prepare(n, k, skip_idle, sleep, err));
	}
	if (n->now >= n->snap_next)
		fl_route_snapshot(n);
	/* Partitions run the cycle side by side on the workers, or one
	 * after the other; fl_part_exchange follows either way. */
	if (n->workers)
		fl_workers_cycle(n->workers);
	else if (n->n_parts == 1)
		fl_cycle(n);
	else
		FL_FOR_AWAKE(n, k) {
			struct flitnet *p = n->part[k];
			if (p->idle_now)
				fl_idle_cycle(p);
			else
				fl_cycle(p);
		}
	if (n->n_parts > 1 || n->msg.n_done)
		fl_part_exchange(n);
	NL_CHECK(fl_dl_after_cycle(n, err));
	if (interval && n->now % interval == 0)
		NL_CHECK(flitnet_check(n, err));
	return 0;
}

/* Idle partitions are skipped on one thread, and with a whole internal
 * speedup put to sleep (fl_part_prepare). */
static inline bool fl_skip_idle(const struct flitnet *n)
{
	return !n->workers && n->n_own > 1;
}

static inline bool fl_may_sleep(const struct flitnet *n)
{
	return fl_skip_idle(n) && n->rc.internal_speedup == floor(n->rc.internal_speedup);
}

static int fl_run_one_process(struct flitnet *n, uint64_t cycle, struct nl_err *err)
{
	const uint64_t interval = fl_check_interval(n);
	const bool skip_idle = fl_skip_idle(n), sleep = fl_may_sleep(n);
	while (n->now < cycle) {
		/* The sleepers' earliest wake-up, refreshed once a cycle: both
		 * fl_next_work and the wake-up below then read the cache (a
		 * wake-up last cycle left it stale, and each rescanned it). */
		if (n->n_parts > 1)
			(void)fl_wake_min(n);
		uint64_t next = fl_next_work(n);
		if (next > n->now) {
			fl_jump(n, next < cycle ? next : cycle);
			if (n->now >= cycle)
				break;
		}
		NL_CHECK(fl_one_cycle(n, interval, skip_idle, sleep, err));
	}
	return n->oom ? fl_reserve(n, err) : 0;
}

/* flit_advance's loop (backend_flit.c) in one call: before, the advance
 * asked for the next cycle with work and ran the network up to just
 * after it (flitnet_run_until, which asked again), once per cycle with
 * work, and that call's set-up was 3.5% of a sparse replay's instructions
 * (lammps-lj-2: one packet's flits moving through two routers a cycle).
 * Each step is the one the two calls took: the same jumps (fl_jump to the
 * next cycle with work), the same cycle, the same checks after it, and
 * the same stops. The idle cycles up to `last` are jumped too, speedup
 * credit included, so a fractional internal_speedup's steps do not
 * depend on where the advances stop (test_net's
 * test_advance_split_speedup). */
int flitnet_run_to_delivery(struct flitnet *n, uint64_t last, struct nl_err *err)
{
	NL_ASSERT(!n->mx);
	if (n->n_parts > 1)
		fl_part_sync(n);
	const uint64_t interval = fl_check_interval(n);
	const bool skip_idle = fl_skip_idle(n), sleep = fl_may_sleep(n);
	while (n->now <= last) {
		if (n->n_parts > 1)
			(void)fl_wake_min(n); /* as fl_run_one_process: one scan a cycle */
		/* fl_part_next_work's first answer inline: a replay's flow keeps
		 * a router or an endpoint stepping nearly every cycle. */
		const uint64_t next = n->n_parts == 1 && (n->n_act_r | n->n_act_e) ? n->now : fl_next_work(n);
		if (next > last) {
			fl_jump(n, last + 1);
			break;
		}
		if (next > n->now)
			fl_jump(n, next);
		NL_CHECK(fl_one_cycle(n, interval, skip_idle, sleep, err));
		if (n->oom)
			return fl_reserve(n, err);
		if (n->msg.delivered)
			break;
	}
	return 0;
}

int flitnet_run_until(struct flitnet *n, uint64_t cycle, struct nl_err *err)
{
	if (n->n_parts > 1)
		fl_part_sync(n);
	if (n->mx)
		return fl_run_windows(n, cycle, err);
	return fl_run_one_process(n, cycle, err);
}
