#!/usr/bin/env python3
"""BookSim2 vs netloom on BookSim2 anynet networks (docs/validation.md,
"BookSim2 side by side", anynet).

For each curve (a BookSim cfg here with its network_file) this
  1. converts the cfg with `netloom config --from-booksim` as written, run
     in this directory (BookSim opens network_file relative to the
     directory it runs in; the converter does the same),
  2. runs BookSim2 (`booksim CFG traffic=uniform injection_rate=X seed=S`,
     in this directory) and `netloom run -c INI -s injection_rate=X -s
     seed=S` at the curve's loads for seeds 0, 1, 2,
  3. finds each side's saturation per seed: the highest stable load on a
     grid of the curve's resolution (its coarse step up from the first
     load until a load is unstable, then bisection), stable being BookSim's
     own verdict (the run reaches "Overall Traffic Statistics", no
     "Simulation unstable": its latency_thres rule) and netloom's `stable`
     (the same rule, emu/net/experiment.c),
  4. writes OUT/anynet_points.tsv (every run with its command) and prints
     the markdown table of docs/validation.md.

Runs are serial; finished runs are kept in OUT/anynet_points.tsv and
reused when the script runs again with the same converted INI and the
same BookSim binary.

Needs a built netloom and a BookSim2 binary (--booksim); docs/validation.md
has the run times of each curve.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "repro", "lib"))
from netloom_run import BOOKSIM_WHAT, NETLOOM_WHAT, need_executable  # noqa: E402

# curve -> (cfg, loads for the latency table, saturation: first load, coarse step, resolution)
CURVES = {
    "example": ("anynet_example.cfg", [0.05, 0.10, 0.15, 0.20], (0.05, 0.05, 0.005)),
    "irregular": ("anynet_irregular.cfg", [0.01, 0.02, 0.03, 0.04, 0.05, 0.06], (0.01, 0.01, 0.002)),
    "asym": ("anynet_asym.cfg", [0.01, 0.02, 0.03, 0.04, 0.05, 0.06], (0.01, 0.01, 0.002)),
    "credit": ("anynet_credit.cfg", [0.02, 0.04, 0.06, 0.08], (0.02, 0.02, 0.002)),
}
COLS = ["curve", "side", "ini_sha", "load", "seed", "stable", "pkt_lat", "accepted", "wall_s", "command"]


def lkey(x):
    return "%.3f" % x


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        rows = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


class Runner:
    def __init__(self, a):
        self.a = a
        self.path = os.path.join(a.out, "anynet_points.tsv")
        self.pts = {(p["curve"], p["side"], p["ini_sha"], p["load"], p["seed"]): p for p in read_tsv(self.path)}

    def save(self):
        rows = ["\t".join(COLS)]
        for k in sorted(self.pts, key=lambda k: (k[0], k[1], float(k[3]), int(k[4]))):
            rows.append("\t".join(str(self.pts[k][c]) for c in COLS))
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.write("\n".join(rows) + "\n")
        os.replace(tmp, self.path)

    def convert(self, curve, cfg):
        r = subprocess.run([self.a.netloom, "config", "--from-booksim", cfg], cwd=HERE, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("%s: conversion refused: %s" % (cfg, r.stderr.strip()))
        ini = os.path.join(self.a.out, "anynet_%s.ini" % curve)
        with open(ini, "w") as f:
            f.write(r.stdout)
        return ini, hashlib.sha256(r.stdout.encode()).hexdigest()[:12]

    def run(self, curve, side, cfg, ini, sha, load, seed):
        key = (curve, side, sha if side == "netloom" else "booksim", lkey(load), str(seed))
        if key in self.pts:
            return self.pts[key]
        t = time.time()
        if side == "booksim":
            cmd = [self.a.booksim, cfg, "traffic=uniform", "injection_rate=" + lkey(load), "seed=%d" % seed]
            p = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
            out = p.stdout
            if p.returncode not in (0, 255) or "Routing table" not in out:
                sys.exit("booksim failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
            stable = "Overall Traffic Statistics" in out and "Simulation unstable" not in out
            lat, acc = "-", "-"
            if stable:
                tail = out[out.index("Overall Traffic Statistics"):]
                lat = re.search(r"Packet latency average = ([\d.e+-]+)", tail).group(1)
                acc = re.search(r"Accepted flit rate average = ([\d.e+-]+)", tail).group(1)
            show = "cd benchmarks/validation/booksim && booksim " + " ".join(cmd[1:])
        else:
            cmd = [self.a.netloom, "run", "-c", ini, "-s", "injection_rate=" + lkey(load), "-s", "seed=%d" % seed,
                   "--json", "-"]
            p = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True,
                               env=dict(os.environ, NETLOOM_PROGRESS="0"))
            if p.returncode != 0 and not p.stdout.strip():
                sys.exit("netloom failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
            r = json.loads(p.stdout)["results"]
            stable = bool(r.get("stable")) and not r.get("deadlock")
            lat = "%.4f" % r["latency"]["packet"]["mean"] if stable else "-"
            acc = "%.6f" % r["throughput"]["accepted"] if stable else "-"
            show = "netloom run -c %s -s injection_rate=%s -s seed=%d" % (os.path.basename(ini), lkey(load), seed)
        row = {"curve": curve, "side": side, "ini_sha": key[2], "load": lkey(load), "seed": str(seed),
               "stable": "1" if stable else "0", "pkt_lat": lat, "accepted": acc,
               "wall_s": "%.2f" % (time.time() - t), "command": show}
        self.pts[key] = row
        self.save()
        print("  %-9s %-7s load %s seed %d: %s %s" % (curve, side, lkey(load), seed,
                                                      "stable" if stable else "UNSTABLE", lat), flush=True)
        return row

    def saturation(self, curve, side, cfg, ini, sha, seed, first, step, res):
        st = lambda x: self.run(curve, side, cfg, ini, sha, round(x, 3), seed)["stable"] == "1"
        lo, x = 0.0, first
        while st(x):
            lo = x
            x = round(x + step, 3)
            if x > 1.0:
                return lo
        hi = x
        while hi - lo > res + 1e-9:
            mid = round(round((lo + hi) / 2 / res) * res, 3)
            if mid <= lo or mid >= hi:
                break
            if st(mid):
                lo = mid
            else:
                hi = mid
        return lo


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netloom", default=os.path.join(HERE, "..", "..", "..", "build", "netloom"),
                    help="the netloom binary (default build/netloom)")
    ap.add_argument("--booksim", default="/work/booksim/src/src/booksim",
                    help="the BookSim2 binary (default /work/booksim/src/src/booksim, the reference runner's)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "..", "build", "validation"),
                    help="folder for anynet_points.tsv and the converted INIs (default build/validation)")
    ap.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (default 0,1,2)")
    ap.add_argument("--curves", default=",".join(CURVES), help="comma-separated curves (default %s)" % ",".join(CURVES))
    a = ap.parse_args()
    need_executable(ap, "--netloom", a.netloom, NETLOOM_WHAT)
    need_executable(ap, "--booksim", a.booksim, BOOKSIM_WHAT)
    a.netloom, a.booksim, a.out = (os.path.abspath(a.netloom), os.path.abspath(a.booksim), os.path.abspath(a.out))
    os.makedirs(a.out, exist_ok=True)
    seeds = [int(s) for s in a.seeds.split(",")]
    R = Runner(a)
    md = []
    for curve in a.curves.split(","):
        cfg, loads, (first, step, res) = CURVES[curve]
        ini, sha = R.convert(curve, cfg)
        sat = {"booksim": [], "netloom": []}
        for seed in seeds:
            for side in ("booksim", "netloom"):
                for x in loads:
                    R.run(curve, side, cfg, ini, sha, x, seed)
                sat[side].append(R.saturation(curve, side, cfg, ini, sha, seed, first, step, res))
        md.append("#### anynet %s (`%s`, uniform)\n" % (curve, cfg))
        md.append("| load | BookSim2 latency (seeds) | netloom latency (seeds) | difference |")
        md.append("|---|---|---|---|")
        for x in loads:
            b = [float(R.pts[(curve, "booksim", "booksim", lkey(x), str(s))]["pkt_lat"]) for s in seeds
                 if R.pts[(curve, "booksim", "booksim", lkey(x), str(s))]["stable"] == "1"]
            n = [float(R.pts[(curve, "netloom", sha, lkey(x), str(s))]["pkt_lat"]) for s in seeds
                 if R.pts[(curve, "netloom", sha, lkey(x), str(s))]["stable"] == "1"]
            d = "%+.1f%%" % ((mean(n) - mean(b)) / mean(b) * 100) if b and n else "-"
            md.append("| %s | %s | %s | %s |" % (lkey(x), "%.2f (%d)" % (mean(b), len(b)) if b else "unstable",
                                                 "%.2f (%d)" % (mean(n), len(n)) if n else "unstable", d))
        bs, ns = mean(sat["booksim"]), mean(sat["netloom"])
        md.append("| saturation (grid %s) | %.4f (%s) | %.4f (%s) | %+.1f%% |\n" % (
            res, bs, ", ".join("%.3f" % v for v in sat["booksim"]), ns,
            ", ".join("%.3f" % v for v in sat["netloom"]), (ns - bs) / bs * 100))
    R.save()
    print("\n".join(md))


if __name__ == "__main__":
    main()
