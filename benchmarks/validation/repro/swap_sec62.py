#!/usr/bin/env python3
# Seed 003 §6.2: 5D torus (duato) vs P2-5DTORUS and RING-10 (updown_adaptive), 64/256/512 switches, low-load latency
"""Seed 003 §6.2 (Fujiwara et al., swap-and-randomize): the 5D torus routed
by Duato's protocol with a dimension-order escape (netloom `duato`), and
its P2 permutation and the same-degree RING-10 (DLN) routed by the
topology-agnostic adaptive routing with up*/down* escape paths (Silla &
Duato 2000; netloom `updown_adaptive`), 4 VCs, 8 nodes per switch, 8
switches per cabinet at 64 switches and 16 above, uniform traffic,
33-flit packets, virtual cut-through. The paper's latency is the network
delay at low load; the text gives the reductions
  P2-5DTORUS vs 5DTORUS: 12.4 % (64), 16.7 % (256), 18.7 % (512 switches)
  RING-10 vs 5DTORUS: 25.0 % (512 switches)
and of throughput ("the largest amount of accepted traffic", whatever the
latency) only that "the differences in throughput among these topologies
with degree 10 are small". Silla & Duato let a packet return from the
escape VC to the adaptive ones: `updown_adaptive:escape=return` (refused
without virtual cut-through, which the paper runs). Both functions put
their escape VC below the adaptive ports by route priority, and the
up*/down* escape need not be minimal: the VC allocator is
separable_input_first, which takes the highest priority with a free VC
(netloom refuses updown_adaptive under the default islip, whose round
robin took the escape at zero load: RING-10 at 64 switches, 2.00 hops at
0.02 against 1.96 here).
Timing from §6.1: 256-bit flits at 96 Gbit/s are 2.67 ns per flit cycle;
a header needs over 100 ns per switch (routing, VC and switch allocation,
crossbar: routing_delay = 34 with netloom's 1-cycle VC/switch allocation
and traversal, about 37 cycles; pipelined_stages = 1, so a router routes
every head that arrives, not one head per 34 cycles as BookSim's
multi-cycle stage would: a switch's latency, not its rate) and injection plus link 20 ns (8 cycles:
channel_latency = terminal_latency = 8). VC buffers: 66 flits (two
packets; not given). Offered load 0.02 flits/cycle/endpoint for latency. Throughput: the most
accepted over a sweep (0.04 steps to the first unstable load, then 0.01
steps between the last stable one and it), unless SWAP_SEC62_THROUGHPUT=0.

Usage: swap_sec62.py NETLOOM OUTDIR [SIZES...]   (default 64 256 512)
Writes OUTDIR/swap_sec62.tsv and .svg; prints the table.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import netloom_run  # noqa: E402

SHAPES = {64: ("4x2x2x2x2", 8), 256: ("4x4x4x2x2", 16), 512: ("4x4x4x4x2", 16)}
PAPER_P2 = {64: 12.4, 256: 16.7, 512: 18.7}
PAPER_RING = {512: 25.0}
USAGE = "usage: swap_sec62.py NETLOOM OUTDIR [SIZES...]"
COMMON = ["num_vcs=4", "wait_for_tail_credit=1", "vc_allocator=separable_input_first", "flow_control=vct",
          "vc_buf_size=66", "packet_size=33", "routing_delay=34", "pipelined_stages=1", "channel_latency=8",
          "terminal_latency=8", "traffic=uniform", "seed=1"]


def run(netloom, topo, fn, rate):
    p = netloom_run.results(netloom, "run", ["topology=" + topo, "routing_function=" + fn,
                                              "injection_rate=%g" % rate] + COMMON)
    return p["points"][0] if "points" in p else p


def sweep(netloom, topo, fn, lo, hi, step):
    """The points of a sweep from lo to hi, ending at the first unstable one."""
    if lo > hi + 1e-9:
        return []
    p = netloom_run.results(netloom, "sweep", ["topology=" + topo, "routing_function=" + fn] + COMMON,
                            ["--rates", "%g:%g:%g" % (lo, hi, step)])
    return p["points"]


def throughput(netloom, topo, fn):
    """The most accepted (flits/cycle/endpoint) over a coarse then a fine
    sweep, the paper's "largest amount of accepted traffic"."""
    coarse = sweep(netloom, topo, fn, 0.04, 0.60, 0.04)
    stable = [p["throughput"]["offered"] for p in coarse if p["stable"]]
    last = max(stable) if stable else 0.0
    fine = sweep(netloom, topo, fn, round(last + 0.01, 2), round(last + 0.03, 2), 0.01)
    return max(p["throughput"]["accepted"] for p in coarse + fine)

def main():
    args, _ = netloom_run.command_line(USAGE, __doc__, most=None)
    netloom, out = args[:2]
    sizes = netloom_run.sizes(USAGE, args[2:], SHAPES) or [64, 256, 512]
    with_throughput = netloom_run.env("SWAP_SEC62_THROUGHPUT", "1")
    rows = []
    for n in sizes:
        shape, cab = SHAPES[n]
        base = "torus:k=%s,p=8" % shape
        nets = [("5DTORUS", base, "duato"),
                ("P2-5DTORUS", "p2(%s):cab=%d" % (base, cab), "updown_adaptive:escape=return"),
                ("RING-10", "dln:n=%d,d=10,p=8" % n, "updown_adaptive:escape=return")]
        lat, thr = {}, {}
        for name, topo, fn in nets:
            p = run(netloom, topo, fn, 0.02)
            lat[name] = (p["latency"]["network"]["mean"], p["hops"]["mean"])
            thr[name] = throughput(netloom, topo, fn) if with_throughput else None
        for name, topo, fn in nets:
            red = 100.0 * (1 - lat[name][0] / lat["5DTORUS"][0])
            paper = {"P2-5DTORUS": PAPER_P2.get(n), "RING-10": PAPER_RING.get(n)}.get(name)
            t, t0 = thr[name], thr["5DTORUS"]
            more = None if t is None else 100.0 * (t / t0 - 1)
            rows.append((n, name, fn, lat[name][0], lat[name][1], red, paper, t, more))
    os.makedirs(out, exist_ok=True)
    tsv = os.path.join(out, "swap_sec62.tsv")
    with open(tsv + ".tmp", "w") as f:
        f.write("switches\ttopology\trouting\tlatency\thops\treduction_pct\tpaper_reduction_pct\tthroughput"
                "\tthroughput_vs_5dt_pct\n")
        opt = lambda v, fmt: "" if v is None else fmt % v
        for r in rows:
            f.write("%d\t%s\t%s\t%.2f\t%.3f\t%.1f\t%s\t%s\t%s\n" % (r[:6] + (opt(r[6], "%.1f"), opt(r[7], "%.4f"),
                                                                        opt(r[8], "%.1f"))))
    os.replace(tsv + ".tmp", tsv)
    svg = os.path.join(out, "swap_sec62.svg")
    gp = ["set terminal svg size 800,500 dynamic", "set output '%s.tmp'" % svg,
          "set title 'Seed 003 sec. 6.2: network latency at 0.02 flits/cycle/endpoint, uniform, 33-flit packets'",
          "set xlabel 'switches'", "set ylabel 'latency (cycles)'", "set logscale x 2", "set key top left",
          "set datafile separator '\\t'"]
    xrange = netloom_run.xrange_around(sizes, log=True)
    if xrange:
        gp.append(xrange)
    plots = ["'%s' using (strcol(2) eq '%s' ? $1 : 1/0):4 with linespoints title '%s'" % (tsv, t, t)
             for t in ("5DTORUS", "P2-5DTORUS", "RING-10")]
    gp.append("plot " + ", ".join(plots))
    netloom_run.draw(svg, "\n".join(gp) + "\n")
    print("%-8s %-11s %-30s %9s %6s %12s %8s %10s %12s" % ("switches", "topology", "routing", "latency", "hops",
                                                           "vs 5DT (%)", "paper", "throughput", "vs 5DT (%)"))
    for r in rows:
        print("%-8d %-11s %-30s %9.2f %6.2f %12.1f %8s %10s %12s" % (
            r[:6] + ("-" if r[6] is None else "%.1f" % r[6], "-" if r[7] is None else "%.4f" % r[7],
                     "-" if r[8] is None else "%+.1f" % r[8])))


if __name__ == "__main__":
    main()
    sys.exit(netloom_run.exit_status())
