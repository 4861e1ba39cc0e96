#!/usr/bin/env python3
# Seed 004 Table I / Figs. 5-7: 5DT torus with TS-DOR (and DORT) vs 3D torus with DOR, uniform, packets of 1-32 cells
"""Seed 004 §IV (Andujar et al., EXTOLL 5DT torus): the 5DT torus with
TS-DOR against the 3D torus with DOR at Table I's sizes (256, 512, 1024
PEs), uniform traffic, packet sizes uniform in 1..32 cells; DORT on the
5DT as an extra curve (the paper cannot run it on EXTOLL cards). The
paper: at low load the 5DT torus's latency is 10 %, 15 % and 30 % lower;
it accepts 20 % and 12 % more traffic at 256 and 512 PEs, and 80 % of the
maximum against 35 % at 1024. Not given, assumed: 4 VCs everywhere (the
3D torus's two deterministic dateline VCs x 2; TS-DOR's 2 source halves x
2), 16-flit VC buffers, wormhole, netloom's default router timing, seed 1,
latency at 0.1 of the maximum injection rate.

Usage: ndt_table1.py NETLOOM OUTDIR [SIZES...]   (default 256 512 1024)
Writes OUTDIR/ndt_table1.tsv and .svg; prints the table.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import netloom_run  # noqa: E402

TABLE1 = {256: ("8x8x4", "4x4x2x2x2"), 512: ("8x8x8", "4x4x2x4x2"), 1024: ("16x8x8", "4x4x2x4x4")}
PAPER_LAT = {256: 10.0, 512: 15.0, 1024: 30.0}
PAPER_THR = {256: "+20 %", 512: "+12 %", 1024: "0.80 vs 0.35"}
COMMON = ["num_vcs=4", "vc_buf_size=16", "packet_size=1..32", "traffic=uniform", "seed=1"]


def sweep(netloom, topo, fn, rates):
    return netloom_run.results(netloom, "sweep", ["topology=" + topo, "routing_function=" + fn] + COMMON,
                               ["--rates", rates])

def main():
    if len(sys.argv) < 3:
        sys.exit("usage: ndt_table1.py NETLOOM OUTDIR [SIZES...]")
    netloom, out = sys.argv[1], sys.argv[2]
    sizes = [int(s) for s in sys.argv[3:]] or [256, 512, 1024]
    rows, summ = [], []
    for n in sizes:
        t3, t5 = TABLE1[n]
        nets = [("3D", "torus:k=%s" % t3, "dor"), ("5DT", "ndt:k=%s" % t5, "tsdor"),
                ("5DT", "ndt:k=%s" % t5, "dort")]
        res = {}
        for name, topo, fn in nets:
            r = sweep(netloom, topo, fn, "0.1:1.0:0.05")
            for p in r["points"]:
                rows.append((n, name, fn, p["throughput"]["offered"], p["throughput"]["accepted"],
                             p["latency"]["packet"]["mean"], int(p["stable"])))
            low = r["points"][0]["latency"]["packet"]["mean"]
            sat = max(p["throughput"]["accepted"] for p in r["points"])
            res[fn] = (low, sat)
        for fn in ("tsdor", "dort"):
            summ.append((n, fn, res["dor"][0], res[fn][0], 100 * (1 - res[fn][0] / res["dor"][0]), res["dor"][1],
                         res[fn][1], 100 * (res[fn][1] / res["dor"][1] - 1)))
    os.makedirs(out, exist_ok=True)
    tsv = os.path.join(out, "ndt_table1.tsv")
    with open(tsv + ".tmp", "w") as f:
        f.write("pes\ttopology\trouting\toffered\taccepted\tlatency\tstable\n")
        for r in rows:
            f.write("%d\t%s\t%s\t%.3f\t%.4f\t%.2f\t%d\n" % r)
    os.replace(tsv + ".tmp", tsv)
    gp = ["set terminal svg size 1200,400 dynamic", "set output '%s'" % os.path.join(out, "ndt_table1.svg"),
          "set multiplot layout 1,%d title 'Seed 004 Table I: 3D torus DOR vs 5DT TS-DOR / DORT, uniform, 1-32 cells'"
          % len(sizes), "set xlabel 'offered (flits/cycle/PE)'", "set ylabel 'latency (cycles)'",
          "set yrange [0:300]", "set key top left", "set datafile separator '\\t'"]
    for n in sizes:
        gp.append("set title '%d PEs'" % n)
        gp.append("plot " + ", ".join(
            "'%s' using ($1 == %d && strcol(3) eq '%s' ? $4 : 1/0):6 with linespoints title '%s'" % (tsv, n, fn, lab)
            for fn, lab in (("dor", "3D DOR"), ("tsdor", "5DT TS-DOR"), ("dort", "5DT DORT"))))
    gp.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, check=True)
    print("%-5s %-6s %9s %9s %10s %8s %8s %9s %12s %12s" % ("PEs", "5DT", "3D lat", "5DT lat", "lower (%)",
                                                           "3D thr", "5DT thr", "more (%)", "paper lat", "paper thr"))
    for s in summ:
        print("%-5d %-6s %9.2f %9.2f %10.1f %8.3f %8.3f %9.1f %11.0f%% %12s" % (s + (PAPER_LAT[s[0]],
                                                                                     PAPER_THR[s[0]])))


if __name__ == "__main__":
    main()
