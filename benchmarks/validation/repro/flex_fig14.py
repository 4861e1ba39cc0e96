#!/usr/bin/env python3
# FleX (seed 000) Fig. 14: LBR's update period T against latency, uniform traffic on FleX Table 6
"""Usage: flex_fig14.py NETLOOM OUTDIR. Writes OUTDIR/flex_fig14.tsv and .svg
and prints latency per load for each T (the paper: latency rises and
saturation falls as T grows)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from flex_common import FLEX, gnuplot, saturation, sweep, write_atomic  # noqa: E402
import netloom_run  # noqa: E402


def main():
    (netloom, out), _ = netloom_run.command_line("usage: flex_fig14.py NETLOOM OUTDIR", __doc__)
    ts = netloom_run.env("FLEX_TS", "10,100,1000,10000")
    rates = netloom_run.env("FLEX_RATES", "0.3:0.9:0.2")
    os.makedirs(out, exist_ok=True)
    rows = ["T\toffered\taccepted\tlatency\tstable\thops"]
    curves, res = [], []
    for T in ts:
        pts = sweep(netloom, FLEX, f"lbr:t={T}", "uniform", rates)
        for (o, a, l, s, h) in pts:
            rows.append(f"{T}\t{o:.2f}\t{a:.4f}\t{l:.2f}\t{int(s)}\t{h:.3f}")
        curves.append((f"T = {T}", [(o, l) for (o, a, l, s, h) in pts if s]))
        res.append((T, pts))
        print(f"  T={T} done", file=sys.stderr)
    write_atomic(os.path.join(out, "flex_fig14.tsv"), "\n".join(rows) + "\n")
    gnuplot(os.path.join(out, "flex_fig14.svg"), "FleX Table 6, LBR, uniform: update period T", curves)
    print(f"FleX {FLEX}, LBR (N=1, M=3), uniform; mean packet latency (cycles), '-' = unstable")
    loads = sorted({o for _, pts in res for (o, *_r) in pts})
    print("T       " + " ".join(f"{o:>7.2f}" for o in loads) + "   saturation")
    for T, pts in res:
        by = {o: (l if s else None) for (o, a, l, s, h) in pts}
        cells = " ".join(f"{by[o]:7.1f}" if by.get(o) is not None else f"{'-':>7s}" for o in loads)
        print(f"{T:<7d} {cells}   {saturation(pts):.3f}")
    print("paper (Fig. 14 text): latency rises and saturation throughput falls as T grows")


if __name__ == "__main__":
    main()
    sys.exit(netloom_run.exit_status())
