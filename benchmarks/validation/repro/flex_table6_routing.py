#!/usr/bin/env python3
# FleX (seed 000) Table 6 dragonfly and Slim Fly: minimal, Valiant, UGAL-L, UGAL-G (uniform: hops, latency, throughput)
"""Usage: flex_table6_routing.py NETLOOM OUTDIR. Runs the Table 6 dragonfly
(a=8, p=4, h=4) and Slim Fly (q=9, p=6) under min, Valiant (ugal with a
threshold that never takes the minimal path), UGAL-L and UGAL-G with the
paper's BookSim settings: mean hops and latency at 0.1, and the accepted
throughput offered 1.0 (sim_type=throughput, no drain: max_drain_cycles =
0, the measured window). Writes
OUTDIR/flex_table6_routing.tsv and .svg."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from flex_common import PAPER, gnuplot, write_atomic  # noqa: E402
import netloom_run  # noqa: E402

SYSTEMS = [("dragonfly", "dragonfly:a=8,p=4,h=4", "6"), ("slimfly", "slimfly:q=9,p=6", "4")]
ROUTINGS = [("min", "min"), ("Valiant", "ugal:threshold=-1000000"), ("UGAL-L", "ugal"),
            ("UGAL-G", "ugal:mode=global")]


def point(netloom, topo, rf, vcs, rate, extra=()):
    args = [netloom, "sweep", "-s", "topology=" + topo, "-s", "routing_function=" + rf, "--rates",
            f"{rate}:{rate}:1"]
    for kv in PAPER + [f"num_vcs={vcs}"] + list(extra):
        args += ["-s", kv]
    return netloom_run.json_results(args)["points"][0]


def main():
    (netloom, out), _ = netloom_run.command_line("usage: flex_table6_routing.py NETLOOM OUTDIR", __doc__)
    os.makedirs(out, exist_ok=True)
    rows = ["system\trouting\thops_0.1\tlatency_0.1\taccepted_at_1.0"]
    bars = []
    for name, topo, vcs in SYSTEMS:
        for lab, rf in ROUTINGS:
            lo = point(netloom, topo, rf, vcs, 0.1)
            hi = point(netloom, topo, rf, vcs, 1.0, ["sim_type=throughput", "max_drain_cycles=0", "max_samples=4"])
            rows.append(f"{name}\t{lab}\t{lo['hops']['mean']:.3f}\t{lo['latency']['packet']['mean']:.2f}\t"
                        f"{hi['throughput']['accepted']:.4f}")
            bars.append((f"{name} {lab}", hi["throughput"]["accepted"]))
            print(f"  {name} {lab} done", file=sys.stderr)
    write_atomic(os.path.join(out, "flex_table6_routing.tsv"), "\n".join(rows) + "\n")
    gnuplot(os.path.join(out, "flex_table6_routing.svg"), "Table 6 dragonfly and Slim Fly, uniform: accepted at 1.0",
            [(lab, [(i, v)]) for i, (lab, v) in enumerate(bars)], ylabel="accepted (flits/cycle/endpoint)")
    print("system     routing   hops@0.1  latency@0.1  accepted@1.0")
    for r in rows[1:]:
        s, rt, h, l, a = r.split("\t")
        print(f"{s:10s} {rt:8s} {float(h):8.2f} {float(l):12.2f} {float(a):13.3f}")
    print("expected: Valiant about twice min's hops; UGAL between min and Valiant; on uniform min saturates highest")


if __name__ == "__main__":
    main()
    sys.exit(netloom_run.exit_status())
