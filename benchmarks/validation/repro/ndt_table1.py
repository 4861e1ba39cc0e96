#!/usr/bin/env python3
# Seed 004 Table I / Figs. 5-7: 5DT torus with TS-DOR (and DORT) vs 3D torus with DOR, uniform, packets of 1-32 cells
"""Seed 004 §IV (Andujar et al., EXTOLL 5DT torus): the 5DT torus with
TS-DOR against the 3D torus with DOR at Table I's sizes (256, 512, 1024
PEs), uniform traffic, packet sizes uniform in 1..32 cells; DORT on the
5DT as an extra curve (the paper cannot run it on EXTOLL cards). The
paper: at low load the 5DT torus's latency is 10 %, 15 % and 30 % lower;
it accepts 20 % and 12 % more traffic at 256 and 512 PEs, and 80 % of the
maximum against 35 % at 1024.

Given (§II-A, §III) and set: virtual cut-through (flow_control=vct);
VOQ input buffers (voq=1); iSLIP (vc_ and sw_allocator=islip); credits
per 128-bit cell (one per flit, netloom's only mode; a cell is a flit);
four traffic classes of two deterministic VCs each, 8 VCs (num_vcs=8).
3D: DOR in each class (traffic_classes=4), its two VCs the ring's two
classes. 5DT: PE0-sourced packets in two classes, PE1-sourced in the
other two: traffic_classes=2, each split by tsdor into its PE0 and PE1
halves of two VCs (tsdor refuses traffic_classes=4: it needs 4 VCs per
class). Not given, assumed: which of its classes a packet takes: 3D by
its source endpoint (traffic_class=source; by destination, a class would
be the destination's x mod 4, one class per y and z ring under DOR), 5DT
by its destination PE (traffic_class=dest; by source, tsdor's half for
the other PE would sit idle in each class); the adaptive TCs' third VC
unused (both routings are deterministic); 32-flit VC buffers, the
smallest VCT allows (EXTOLL's multi-queue buffer is shared by a port's
queues, netloom's is one per VC); one iSLIP iteration; netloom's default
router timing, the internal link as an external one; seed 1; latency at
offered 0.1. Offered and accepted rates are flits/cycle/PE; the paper's
normalized rate is a share of the host bandwidth (10.4 GB/s), whose ratio
to a link's the paper does not give. DORT runs with TS-DOR's settings.

Usage: ndt_table1.py NETLOOM OUTDIR [SIZES...]   (default 256 512 1024)
Writes OUTDIR/ndt_table1.tsv and .svg; prints the table.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import netloom_run  # noqa: E402

TABLE1 = {256: ("8x8x4", "4x4x2x2x2"), 512: ("8x8x8", "4x4x2x4x2"), 1024: ("16x8x8", "4x4x2x4x4")}
PAPER_LAT = {256: 10.0, 512: 15.0, 1024: 30.0}
PAPER_THR = {256: "+20 %", 512: "+12 %", 1024: "0.80 vs 0.35"}
USAGE = "usage: ndt_table1.py NETLOOM OUTDIR [SIZES...]"
COMMON = ["flow_control=vct", "voq=1", "vc_allocator=islip", "sw_allocator=islip", "num_vcs=8", "vc_buf_size=32",
          "packet_size=1..32", "traffic=uniform", "seed=1"]
# 4 classes x 2 VCs; tsdor (and dort) split each of 2 classes into source-PE halves themselves.
TCLASSES = {"dor": ["traffic_classes=4", "traffic_class=source"],
            "tsdor": ["traffic_classes=2", "traffic_class=dest"], "dort": ["traffic_classes=2", "traffic_class=dest"]}


def sweep(netloom, topo, fn, rates):
    return netloom_run.results(netloom, "sweep", ["topology=" + topo, "routing_function=" + fn] + TCLASSES[fn] + COMMON,
                               ["--rates", rates])

def main():
    args, _ = netloom_run.command_line(USAGE, __doc__, most=None)
    netloom, out = args[:2]
    sizes = netloom_run.sizes(USAGE, args[2:], TABLE1) or [256, 512, 1024]
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
    svg = os.path.join(out, "ndt_table1.svg")
    gp = ["set terminal svg size 1200,400 dynamic", "set output '%s.tmp'" % svg,
          "set multiplot layout 1,%d title 'Seed 004 Table I: 3D torus DOR vs 5DT TS-DOR / DORT, uniform, 1-32 cells'"
          % len(sizes), "set xlabel 'offered (flits/cycle/PE)'", "set ylabel 'latency (cycles)'",
          "set yrange [0:300]", "set key top left", "set datafile separator '\\t'"]
    for n in sizes:
        gp.append("set title '%d PEs'" % n)
        gp.append("plot " + ", ".join(
            "'%s' using ($1 == %d && strcol(3) eq '%s' ? $4 : 1/0):6 with linespoints title '%s'" % (tsv, n, fn, lab)
            for fn, lab in (("dor", "3D DOR"), ("tsdor", "5DT TS-DOR"), ("dort", "5DT DORT"))))
    gp.append("unset multiplot")
    netloom_run.draw(svg, "\n".join(gp) + "\n")
    print("%-5s %-6s %9s %9s %10s %8s %8s %9s %12s %12s" % ("PEs", "5DT", "3D lat", "5DT lat", "lower (%)",
                                                           "3D thr", "5DT thr", "more (%)", "paper lat", "paper thr"))
    for s in summ:
        print("%-5d %-6s %9.2f %9.2f %10.1f %8.3f %8.3f %9.1f %11.0f%% %12s" % (s + (PAPER_LAT[s[0]],
                                                                                     PAPER_THR[s[0]])))


if __name__ == "__main__":
    main()
    sys.exit(netloom_run.exit_status())
