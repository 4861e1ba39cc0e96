#!/usr/bin/env python3
# Equality (seed 002 §5): amin vs eq_ugal vs bgal, small (N16K6P4) and medium (N64K10P8) networks, uniform / bitcomp / randperm
"""Seed 002 §5 compares its three routing functions (§3.5: amin, ugal,
bgal) on Equality networks. The paper's configuration table (Table 3,
Appendix 1) and its figures' values are not in the text we have, so the
networks are ours, chosen as the paper chooses (§3.3: least diameter, then
least average distance, over random offset sets of the given sizes; the
search is in docs/validation.md):
  small  N16K6P4[-1,1,3,9](2)               16 routers, 64 endpoints, d = 2
  medium N64K10P8[-1,1,33,27,9,23](26,22)   64 routers, 512 endpoints, d = 3
Settings of §3.6 where it gives them: single-flit packets, 64-flit VC
buffers, VCs = the paper's count (amin: d; ugal/bgal: 4 at d = 2, d + 1 at
d >= 3). What we compare with is the paper's qualitative result (§5.5,
Fig. 5): the three are close on uniform traffic, and ugal (sub-shortest
paths) holds bit-complement traffic where minimal routing fails.

Usage: equality_sec5.py NETLOOM OUTDIR [--quick]
Writes OUTDIR/equality_sec5.tsv and .svg; prints the saturation table.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import netloom_run  # noqa: E402

NETS = [
    ("small", "N16K6P4[-1,1,3,9](2)", 2),
    ("medium", "N64K10P8[-1,1,33,27,9,23](26,22)", 3),
]
PATTERNS = ["uniform", "bitcomp", "randperm"]
FNS = ["amin", "eq_ugal", "bgal"]


def vcs(fn, d):
    if fn == "amin":
        return d
    return 4 if d == 2 else d + 1


def sweep(netloom, topo, fn, nvc, pattern, rates):
    return netloom_run.results(netloom, "sweep", ["topology=" + topo, "routing_function=" + fn, "num_vcs=%d" % nvc,
                                                   "vc_buf_size=64", "packet_size=1", "traffic=" + pattern,
                                                   "seed=1"], ["--rates", rates])

def main():
    (netloom, out), given = netloom_run.command_line("usage: equality_sec5.py NETLOOM OUTDIR [--quick]", __doc__,
                                                     options=("--quick",))
    quick = "--quick" in given
    rates = "0.1:1.0:0.1" if quick else "0.05:1.0:0.05"
    rows, sat = [], {}
    for name, topo, d in NETS:
        for pat in PATTERNS:
            for fn in FNS:
                res = sweep(netloom, topo, fn, vcs(fn, d), pat, rates)
                for p in res["points"]:
                    rows.append((name, pat, fn, p["throughput"]["offered"], p["throughput"]["accepted"],
                                 p["latency"]["packet"]["mean"], p["hops"]["mean"], int(p["stable"])))
                # None when no point was stable (JSON null)
                sat[(name, pat, fn)] = (res["saturation"]["last_stable_rate"],
                                        res["saturation"]["max_accepted"])
    os.makedirs(out, exist_ok=True)
    tsv = os.path.join(out, "equality_sec5.tsv")
    tmp = tsv + ".tmp"
    with open(tmp, "w") as f:
        f.write("net\tpattern\trouting\toffered\taccepted\tlatency\thops\tstable\n")
        for r in rows:
            f.write("%s\t%s\t%s\t%.3f\t%.4f\t%.2f\t%.3f\t%d\n" % r)
    os.replace(tmp, tsv)
    # One panel per (network, pattern): latency vs offered, stable points.
    svg = os.path.join(out, "equality_sec5.svg")
    gp = ["set terminal svg size 1200,700 dynamic", "set output '%s.tmp'" % svg,
          "set multiplot layout 2,3 title 'Equality (seed 002 sec. 5): amin vs eq\\_ugal vs bgal, 1-flit packets'",
          "set xlabel 'offered (flits/cycle/endpoint)'", "set ylabel 'latency (cycles)'", "set yrange [0:200]",
          "set key top left", "set datafile separator '\\t'"]
    for name, topo, d in NETS:
        for pat in PATTERNS:
            plots = []
            for fn in FNS:
                plots.append("'%s' using (strcol(1) eq '%s' && strcol(2) eq '%s' && strcol(3) eq '%s' ? $4 : 1/0):6 "
                             "with linespoints title '%s'" % (tsv, name, pat, fn, fn))
            gp.append("set title '%s %s'" % (name, pat))
            gp.append("plot " + ", ".join(plots))
    gp.append("unset multiplot")
    netloom_run.draw(svg, "\n".join(gp) + "\n")
    print("%-7s %-9s %-8s %12s %13s" % ("net", "pattern", "routing", "last stable", "max accepted"))
    for name, topo, d in NETS:
        for pat in PATTERNS:
            for fn in FNS:
                s = sat[(name, pat, fn)]
                # "none", as netloom sweep prints it (docs/results.md): 0.00
                # read as a rate that was stable.
                last = "none" if s[0] is None else "%.2f" % s[0]
                print("%-7s %-9s %-8s %12s %13.3f" % (name, pat, fn, last, s[1]))
    print("paper (sec. 5.5, Fig. 5, E361): the three close on uniform; ugal holds bitcomp where minimal fails")


if __name__ == "__main__":
    main()
    sys.exit(netloom_run.exit_status())
