#!/usr/bin/env python3
# FleX (seed 000) Fig. 8-10: the five Table 6 systems under min / UGAL-L / LBR; uniform, bitcomp, randperm
"""Usage: flex_fig8_10.py NETLOOM OUTDIR. Writes OUTDIR/flex_fig8_10.tsv and
.svg (one panel per pattern), prints per pattern a table of system x
routing: saturation (most accepted), highest stable offered load and
latency at 0.1, with what the paper's text says of its Figs. 8-10 beside
(the figures' curves are not in the text).

Environment: FLEX_RATES (offered-load grid, default 0.1:0.9:0.2; the first
rate should be 0.1, the latency column), FLEX_SYSTEMS (comma-separated
subset of FleX,dragonfly,HyperX,SlimFly,fattree), FLEX_PATTERNS (subset of
uniform,bitcomp,randperm), FLEX_FROM_TSV=FILE (print the tables and redraw
the plot from a saved TSV instead of simulating; curves missing from it
are shown as '-'). The TSV is rewritten after every curve, so an
interrupted run leaves what it measured."""
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from flex_common import FLEX, sweep, write_atomic  # noqa: E402
import netloom_run  # noqa: E402

# Table 6 systems (seed 000 section IV-B; tests/unit/test_topo_*.c check
# their sizes): name, topology, num_vcs, [(label, routing function)].
# VCs: UGAL and LBR need one class per hop of a Valiant path, 2 x the
# diameter (FleX, HyperX, Slim Fly: 2 -> 4; dragonfly: 3 -> 6; fat tree:
# 4 -> 8); each system keeps one VC count for its three routings.
# min: Algorithm 1 (flexmin) on FleX; on the fat tree nca (BookSim's
# nearest-common-ancestor, a random up-port per hop; `min` there would be
# one up-port per pair); `min` elsewhere (HyperX: dimension order, every
# VC; dragonfly and Slim Fly: one minimal port per router pair, a VC class
# per hop). `ugal` does not run on a fat tree: anca (the less loaded of two
# random up-ports) stands in for UGAL-L there, marked '*'.
SYSTEMS = [
    ("FleX", FLEX, 4, [("min", "flexmin"), ("UGAL-L", "ugal"), ("LBR", "lbr")]),
    ("dragonfly", "dragonfly:a=8,p=4,h=4", 6, [("min", "min"), ("UGAL-L", "ugal"), ("LBR", "lbr")]),
    ("HyperX", "hyperx:s=10x10,t=10", 4, [("min", "min"), ("UGAL-L", "ugal"), ("LBR", "lbr")]),
    ("SlimFly", "slimfly:q=9,p=6", 4, [("min", "min"), ("UGAL-L", "ugal"), ("LBR", "lbr")]),
    ("fattree", "fattree:k=10,n=3", 8, [("min", "nca"), ("UGAL-L", "anca"), ("LBR", "lbr")]),
]
LABELS = ["min", "UGAL-L", "LBR"]
# Paper's statements per pattern (seed 000 section IV-B text).
PATTERNS = [
    ("uniform", "Fig. 8(a): FleX lower latency and higher saturation than Slim Fly and dragonfly, "
     "similar to HyperX; FleX min/UGAL below fat tree and HyperX; FleX LBR comparable to HyperX and fat tree"),
    ("bitcomp", "Fig. 8(b): FleX lower latency and higher saturation than dragonfly, Slim Fly, HyperX "
     "on each routing, lower than fat tree; FleX LBR endures nearly 0.6"),
    ("randperm", "Fig. 10(a): FleX lowest latency, similar to HyperX; all but fat tree below 0.4 "
     "with min and UGAL; FleX LBR close to fat tree"),
]
HEADER = "system\tpattern\trouting\toffered\taccepted\tlatency\tstable\thops"


def read_tsv(path):
    """Points per (system, pattern, routing function) from an earlier run's
    TSV (also the FleX-only TSV of before, without the system column)."""
    pts = {}
    with open(path) as f:
        next(f)
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) == 7:
                c = ["FleX"] + c
            sy, pat, rf, o, a, l, st, h = c
            pts.setdefault((sy, pat, rf), []).append((float(o), float(a), float(l), st == "1", float(h)))
    return pts


def pick(env, names):
    """The entries of names chosen by the comma list in os.environ[env]
    (unset or empty: all); an unknown name stops the script before any
    run, exit 2 (netloom_run.env)."""
    want = netloom_run.env(env, "")
    return [n for n in names if n[0] in want] if want else names


def plot(svg, panels):
    """panels: [(title, [(system index, routing index, label, [(x, y)])])];
    one panel per pattern, colour per system, dash per routing."""
    if not netloom_run.have_gnuplot(svg):
        return
    fd, dat = tempfile.mkstemp(suffix=".dat")
    cmds = [f"set terminal svg size 1500,560 dynamic font 'sans,10'; set output '{svg}.tmp'",
            "set multiplot layout 1," + str(len(panels)),
            "set xlabel 'offered load (flits/cycle/endpoint)'; set ylabel 'mean packet latency (cycles)'",
            "set yrange [0:400]; set xrange [0:1]; set key top left font 'sans,8'"]
    colours = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#7f7f7f"]
    idx = 0
    with os.fdopen(fd, "w") as f:
        for title, curves in panels:
            plots = []
            for si, ri, lab, pts in curves:
                if not pts:
                    continue
                for x, y in pts:
                    f.write(f"{x} {y}\n")
                f.write("\n\n")
                plots.append(f"'{dat}' index {idx} with linespoints lc rgb '{colours[si % 5]}' dt {ri + 1} "
                             f"pt {ri + 5} ps 0.6 title '{lab}'")
                idx += 1
            cmds.append(f"set title '{title}'")
            cmds.append("plot " + (", ".join(plots) if plots else "NaN notitle"))
            cmds.append("unset key")  # the same key holds for every panel: first one only
    cmds.append("unset multiplot")
    try:
        netloom_run.draw(svg, "\n".join(cmds) + "\n")
    finally:
        os.unlink(dat)


def fmt(v, spec):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def main():
    (netloom, out), _ = netloom_run.command_line("usage: flex_fig8_10.py NETLOOM OUTDIR", __doc__)
    rates = netloom_run.env("FLEX_RATES", "0.1:0.9:0.2")
    systems = pick("FLEX_SYSTEMS", SYSTEMS)
    patterns = pick("FLEX_PATTERNS", PATTERNS)
    from_tsv = netloom_run.env("FLEX_FROM_TSV", "")
    os.makedirs(out, exist_ok=True)
    old = read_tsv(from_tsv) if from_tsv else None
    tsv = os.path.join(out, "flex_fig8_10.tsv")
    rows = [HEADER]
    res = {}  # (system, pattern, label) -> points
    # Patterns outer: uniform and bitcomp of every system before randperm.
    for pat, _ in patterns:
        for sy, topo, vcs, routings in systems:
            for lab, rf in routings:
                if old is not None:
                    pts = old.get((sy, pat, rf))
                    if pts is None:
                        continue
                else:
                    pts = sweep(netloom, topo, rf, pat, rates, [f"num_vcs={vcs}"])
                res[(sy, pat, lab)] = pts
                for (o, a, l, s, h) in pts:
                    rows.append(f"{sy}\t{pat}\t{rf}\t{o:.2f}\t{a:.4f}\t{l:.2f}\t{int(s)}\t{h:.3f}")
                if old is None:
                    write_atomic(tsv, "\n".join(rows) + "\n")
                    print(f"  {pat:9s} {sy:9s} {lab:7s} done: saturation "
                          f"{max(a for (_, a, _, _, _) in pts):.3f}", file=sys.stderr, flush=True)
    write_atomic(tsv, "\n".join(rows) + "\n")

    print(f"offered {rates}; sat = most accepted (flits/cycle/endpoint), stable = highest stable "
          "offered load ('-': unstable at the first), lat = mean packet latency at 0.1 (cycles); '+': stable and accepted at the grid's last load (saturation above it); fat tree: min = nca, "
          "UGAL-L* = anca (ugal does not run on it)")
    print("VCs: " + ", ".join(f"{sy} {vcs}" for sy, _, vcs, _ in systems)
          + "; bitcomp: the largest power-of-two endpoint subset (1,024 of FleX's 1,080 and the "
          "dragonfly's 1,056; 512 of HyperX's and the fat tree's 1,000, of Slim Fly's 972)")
    panels = []
    for pat, paper in patterns:
        print(f"\n{pat}: {paper}")
        print(f"{'system':9s} {'sat min':>7s} {'UGAL-L':>7s} {'LBR':>6s} {'LBR/min':>7s} "
              f"{'stable min/UGAL/LBR':>20s} {'lat min':>7s} {'UGAL-L':>7s} {'LBR':>7s}")
        curves = []
        for si, (sy, _, _, routings) in enumerate(systems):
            sat, st, lat, low = {}, {}, {}, {}
            for ri, (lab, rf) in enumerate(routings):
                pts = res.get((sy, pat, lab))
                if not pts:
                    sat[lab] = st[lab] = lat[lab] = None
                    low[lab] = False
                    continue
                # Saturation throughput: the most the network accepted, which
                # the sweep's last (overloaded) points give; and the highest
                # offered load still stable (latency < 500 cycles; None, shown
                # '-', when not even the first load was).
                sat[lab] = max(a for (_, a, _, _, _) in pts)
                # '+': the grid's last load was still stable and accepted
                # (within 2%): the saturation is above the grid.
                low[lab] = pts[-1][3] and pts[-1][1] >= 0.98 * pts[-1][0]
                st[lab] = max([o for (o, _, _, s, _) in pts if s], default=None)
                lat[lab] = pts[0][2]
                star = "*" if rf == "anca" else ""
                curves.append((si, ri, f"{sy} {lab}{star}", [(o, l) for (o, a, l, s, h) in pts if s]))
            ratio = sat["LBR"] / sat["min"] if sat["LBR"] and sat["min"] else None
            stab = "/".join(fmt(st[x], ".1f") for x in LABELS)
            sv = {x: fmt(sat[x], ".3f") + ("+" if low[x] else "") for x in LABELS}
            print(f"{sy:9s} {sv['min']:>7s} {sv['UGAL-L']:>7s} {sv['LBR']:>6s} "
                  f"{fmt(ratio, '.2f'):>7s} {stab:>20s} {fmt(lat['min'], '.2f'):>7s} "
                  f"{fmt(lat['UGAL-L'], '.2f'):>7s} {fmt(lat['LBR'], '.2f'):>7s}")
        panels.append((f"{pat} (Table 6 systems)", curves))
    print("\npaper overall: LBR ~2x the saturation of minimal on FleX, ~16% more latency")
    plot(os.path.join(out, "flex_fig8_10.svg"), panels)


if __name__ == "__main__":
    main()
    sys.exit(netloom_run.exit_status())
