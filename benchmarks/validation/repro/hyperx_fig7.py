#!/usr/bin/env python3
# HyperX (seed 001) Fig. 7: HyperX with DAL (beta 0.5, 0.25) against the tapered folded Clos with adaptive routing (beta 0.5)
"""Usage: hyperx_fig7.py NETLOOM OUTDIR  (run by ../reproduce.sh hyperx_fig7)

Seed 001 §4.1, Figure 7: N = 4096 and R = 32 in all three networks, the
router of Fig. 6 (hyperx_fig6.py: 4-cycle switch, 1-cycle channels, 6 VCs
of 32 flits, virtual cut-through, iSLIP with input speedup 2, single-flit
packets, separable_input_first VC allocator), on bit complement, bit
rotate, transpose and swap2:
  hx05   hyperx:s=8x8x8,t=8 with DAL (T = 8, S = 8, K = 1, beta = 0.5);
  hx025  hyperx:s=7x7x7,t=14 with DAL (T = 14, S = 7, K = 1, P = 343,
         beta = K S / (2 T) = 0.25); it has 4,802 terminals: the bit
         patterns use endpoints 0..4095 (netloom's power-of-two trimming,
         docs/engine.md "Traffic"), swap2 all 4,802;
  clos   clos:l=3,r=32,n=4096,taper=2x1,pack=1, the tapered folded Clos of
         §4.1 (205 level-1 switches 20 down / 10 up, 130 level-2 16/16, 160
         logical level-3 switches with 13 down links, two per physical
         switch: P = 415; beta = 2080 / 4096 = 0.51) with
         `anca:queue=routed`: BookSim2's anca_fattree rule (the less loaded
         of two random up-ports) with the load read as the flits routed to
         the port here, sequential allocation's count, as Min-AD and DAL
         read "blocked" (lib/hyperx_common.py); the paper only says
         "adaptive routing" [5].
swap2 needs grid or HyperX coordinates (emu/traffic/swap2.c); the Clos has
none, so it runs swap2 with the numbering of the HyperX it is compared
with, swap2:s=8x8x8,t=8 (the beta = 0.5 network's pairs; the paper does
not say how it numbered the Clos), swap2:s=4x4x2,t=4 on the small Clos
(128 endpoints).

HYPERX_FIG7_SIZE: paper (the above) or small (hyperx:s=4x4x4,t=4,
hyperx:s=4x4x4,t=8 and clos:l=3,r=8,taper=2x1,pack=1 with the same betas,
128-512 endpoints: the quick check, the default; the small Clos has 32
level-1 switches 4 down / 2 up, 16 level-2 4/4, 8 core switches, 64 core
links for 128 endpoints: beta = 0.5). HYPERX_FIG7_NETS (e.g.
"clos,hx025"), HYPERX_FIG7_PATTERNS and HYPERX_FIG7_EXTRA=nca (the Clos
also with oblivious `nca`) select what runs. Statistics as in
hyperx_fig6.py: saturation = throughput accepted at offered 1.0
(sim_type=throughput, no drain, max_samples = HYPERX_FIG7_SAMPLES 1,000-cycle
periods, default 3, the first of them the warm-up: two measured samples),
and the load-latency curve (Fig. 7 is
four load-latency graphs) at the offered loads HYPERX_FIG7_LOADS (default
0.1, 0.2, ..., 0.9; empty: none) up to that saturation throughput, each
until converged (at most 10 samples; a load above saturation is not run
and a point that did not converge is left out: "-"). HYPERX_FIG7_SET
adds router settings to every point, comma-separated (e.g.
internal_speedup=2: docs/validation.md). Every point is kept in
OUTDIR/points/ under a name made from its settings and reused on the next
run, so several runs on disjoint subsets can go in parallel and a last
one collects them; HYPERX_FIG7_CACHED=1 runs nothing and prints "-" for
the points not kept. The key does not cover the netloom binary: remove
OUTDIR/points after changing the engine.

HYPERX_ROUTER selects the router as in hyperx_fig6.py (lib/hyperx_common.py,
ROUTERS): paper (the §4.1 settings, the default) or fast (the same plus
internal_speedup=2, not a §4.1 setting: the router calibrated so that
Valiant reaches the beta the paper states; docs/validation.md). Its points
are kept in OUTDIR/points-fast/ (Fig. 6's DAL points at paper size have
the same names: copying hyperx_fig6/points-fast/ into
hyperx_fig7/points-fast/ reuses them for hx05) and the table and plots
name it; HYPERX_FIG7_SET adds to either.

Check (issue 14): the folded Clos saturates at beta (within 10 %) on every
pattern run. Writes OUTDIR/hyperx_fig7.tsv, OUTDIR/hyperx_fig7.svg (the
load-latency curves, a panel per pattern) and OUTDIR/hyperx_fig7_sat.svg
(saturation per pattern and network, beta lines).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hyperx_common import ROUTING, SETTINGS, cached_point, default_loads, latency_curve, pick_router, \
    pick_size, plot_curves, plot_saturation_bars, points_dir, router_note  # noqa: E402
import netloom_run  # noqa: E402

SIZES = {
    "paper": {"hx05": ("hyperx:s=8x8x8,t=8", ROUTING["dal"], 0.5),
              "hx025": ("hyperx:s=7x7x7,t=14", ROUTING["dal"], 0.25),
              "clos": ("clos:l=3,r=32,n=4096,taper=2x1,pack=1", ROUTING["anca"], 2080.0 / 4096)},
    "small": {"hx05": ("hyperx:s=4x4x4,t=4", ROUTING["dal"], 0.5),
              "hx025": ("hyperx:s=4x4x4,t=8", ROUTING["dal"], 0.25),
              "clos": ("clos:l=3,r=8,taper=2x1,pack=1", ROUTING["anca"], 64.0 / 128)},
}
NETS = ["hx05", "hx025", "clos"]
# The Clos has no coordinates: swap2 there takes a HyperX numbering.
CLOS_SWAP2 = {"paper": "swap2:s=8x8x8,t=8", "small": "swap2:s=4x4x2,t=4"}
PATTERNS = ["bitcomp", "bitrot", "transpose", "swap2"]
# Seed 001 §4.1 on Fig. 7 (a plot without printed values): the Clos
# saturates at beta on every pattern; HyperX with DAL reaches 2 beta on
# patterns without congestion and beta on those with.
PAPER = {
    "hx05": "2beta = 1.0 uncongested, beta = 0.5 congested",
    "hx025": "2beta = 0.5 uncongested, beta = 0.25 congested",
    "clos": "beta = 0.5 on all four",
}


def run(netloom, kv, cache, cached_only):
    return cached_point(netloom, kv, cache, "hyperx_fig7", cached_only)


def main():
    (netloom, out), _ = netloom_run.command_line("usage: hyperx_fig7.py NETLOOM OUTDIR", __doc__)
    size = pick_size("HYPERX_FIG7_SIZE")
    nets = netloom_run.env("HYPERX_FIG7_NETS", ",".join(NETS))
    pats = netloom_run.env("HYPERX_FIG7_PATTERNS", ",".join(PATTERNS))
    extra = [x for x in os.environ.get("HYPERX_FIG7_EXTRA", "").split(",") if x]
    samples = netloom_run.env("HYPERX_FIG7_SAMPLES", "3")
    cached_only = netloom_run.env("HYPERX_FIG7_CACHED", "0")
    loads = default_loads("HYPERX_FIG7_LOADS")
    # Extra router settings for every point, e.g. internal_speedup=2 (docs).
    router, router_set = pick_router()
    note = router_note(router)
    base_settings = SETTINGS + router_set
    settings = base_settings + netloom_run.env("HYPERX_FIG7_SET", "")
    cache = points_dir(out, router)
    os.makedirs(cache, exist_ok=True)
    cfg = SIZES[size]
    # (network label, topology, routing, beta) in table order
    curves = []
    for n in nets:
        topo, algo, beta = cfg[n]
        curves.append((n, topo, algo, beta))
        if n == "clos":
            for a in extra:
                curves.append(("clos-" + a, topo, a, beta))
    rows = []
    for pat in pats:
        for label, topo, algo, beta in curves:
            traffic = CLOS_SWAP2[size] if pat == "swap2" and topo.startswith("clos") else pat
            base = settings + ["topology=" + topo, "routing_function=" + algo, "traffic=" + traffic, "seed=1"]
            sat = run(netloom, base + ["injection_rate=1.0", "sim_type=throughput", "max_drain_cycles=0", "warmup_periods=1",
                                       "sample_period=1000", "max_samples=" + samples,
                                       "acc_stopping_thres=0"], cache, cached_only)
            if sat is None:
                rows.append((pat, label, topo, algo, beta, None, "-", ["-"] * len(loads)))
                continue
            lat = latency_curve(lambda kv: run(netloom, kv, cache, cached_only), base, loads, float(sat["accepted"]))
            rows.append((pat, label, topo, algo, beta, float(sat["accepted"]), sat.get("hops_mean", "-"), lat))
            print("  %-9s %-10s saturation %.3f (%.2f beta)" % (pat, label, float(sat["accepted"]),
                                                                float(sat["accepted"]) / beta),
                  file=sys.stderr, flush=True)
    tsv = os.path.join(out, "hyperx_fig7.tsv")
    tmp = tsv + ".tmp"
    with open(tmp, "w") as f:
        f.write("# seed 001 Fig. 7, section 4.1 settings%s%s, saturation = accepted at offered 1.0\n" %
                (note, "".join(" + " + x for x in settings[len(base_settings):])))
        f.write("pattern\tnetwork\ttopology\trouting\tbeta\tsaturation\tsat_over_beta\thops_at_sat\t%s\n" %
                "\t".join("latency@%g" % x for x in loads))
        for pat, label, topo, algo, beta, s, hops, lat in rows:
            f.write("%s\t%s\t%s\t%s\t%.4f\t%s\t%s\t%s\t%s\n" % (
                pat, label, topo, algo, beta, "-" if s is None else "%.4f" % s,
                "-" if s is None else "%.3f" % (s / beta), hops, "\t".join(lat)))
    os.replace(tmp, tsv)
    labels = [c[0] for c in curves]
    sat = {(r[0], r[1]): r[5] for r in rows}
    plot_saturation_bars(os.path.join(out, "hyperx_fig7_sat.svg"),
                         "Seed 001 Fig. 7 (%s%s): saturation throughput, HyperX DAL vs folded Clos" % (size, note),
                         pats, labels, sat, ["0.5 title 'beta = 0.5' lt 0", "0.25 title 'beta = 0.25' lt 0 dt 2"])
    plot_curves(os.path.join(out, "hyperx_fig7.svg"),
                "Seed 001 Fig. 7 (%s%s): load-latency, HyperX DAL vs folded Clos" % (size, note), pats, labels, loads,
                {(r[0], r[1]): r[7] for r in rows})
    print("Seed 001 Fig. 7 (%s%s): saturation throughput (accepted at offered 1.0), latency at %s" %
          (size, note, ", ".join("%g" % x for x in loads)))
    print("%-9s %-10s %-19s %5s %7s %6s %6s %s   paper (text)" % (
        "pattern", "network", "route", "beta", "sat", "/beta", "hops",
        " ".join("%9s" % ("lat@%g" % x) for x in loads)))
    for pat, label, topo, algo, beta, s, hops, lat in rows:
        print("%-9s %-10s %-19s %5.3f %7s %6s %6s %s   %s" % (
            pat, label, algo, beta, "-" if s is None else "%.3f" % s, "-" if s is None else "%.2f" % (s / beta),
            hops[:5], " ".join("%9s" % x[:8] for x in lat), PAPER.get(label, "")))
    fails = []
    for pat, label, topo, algo, beta, s, hops, lat in rows:
        if label == "clos" and s is not None and abs(s / beta - 1) > 0.10:
            fails.append("%s: the Clos saturates at %.3f = %.2f beta, not beta = %.3f" % (pat, s, s / beta, beta))
    for f_ in fails:
        print("CHECK FAILED: " + f_)
    if not any(r[1] == "clos" and r[5] is not None for r in rows):
        print("checks: no Clos point")
    else:
        print("checks: %s" % ("all passed" if not fails else "%d failed" % len(fails)))
    return len(fails)


if __name__ == "__main__":
    # 3: a check failed (the table and the plot are written all the same) or
    # gnuplot failed to draw a plot (the tables written all the same).
    sys.exit(netloom_run.exit_status(main()))
