#!/usr/bin/env python3
"""BookSim2 min_anynet vs netloom on the small Equality network (issue 14).

docs/validation.md, "Equality, seed 002 §5": is amin's uniform saturation
(0.30 at num_vcs = 2) what BookSim2's own input-queued router gives on the
same graph? Runs, at offered loads 0.1 .. 0.9 (step 0.1) for every seed, then
bisection to 0.01 between the last stable and the first unstable load:

  booksim   BookSim2 eq_small_min.cfg (anynet of the same graph, min_anynet:
            one next hop per router and destination, every VC on every hop)
  bs_routes netloom min:select=first,classes=none on graph:file=eq_small.edges
            (the same graph with each router's ports in increasing neighbour
            id: the lowest-id minimal next hop, which is the hop anynet's
            Dijkstra keeps; every VC on every hop)
  bs_hop    the same routes with VC class k on hop k (amin's VC rule, so
            deadlock-free; num_vcs / 2 VCs per class)
  min_all   netloom min:select=first,classes=none on the Equality spec
            itself (lowest minimal port in netloom's port order)
  min_ad    netloom min:select=adaptive,classes=none (every minimal port,
            every VC)
  amin      netloom amin (least downstream occupancy, VC k on hop k)

each at the num_vcs given (--vcs 2,8). netloom runs with the INI that
`netloom config --from-booksim eq_small_min.cfg` writes (now anynet and
min_anynet too; topology and routing_function are given with -s;
everything else, router delays, allocators, speedups, statistics, comes from
the BookSim file). Stable = BookSim's own verdict (the run reaches "Overall
Traffic Statistics"; not "Simulation unstable"), netloom's `stable` (the
same latency_thres rule). Every run is one line of OUT (TSV) with its
command; finished lines are reused when the script runs again.

Needs a built netloom and a BookSim2 binary; every run, about 6 minutes,
serial (docs/validation.md). Writes OUT and, beside this script, the graph
files eq_small.anynet and eq_small.edges (from netloom topo export).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "repro", "lib"))
from netloom_run import BOOKSIM_WHAT, NETLOOM_WHAT, need_executable  # noqa: E402

SPEC = "N16K6P4[-1,1,3,9](2)"
CFG = "eq_small_min.cfg"
COLS = ["config", "num_vcs", "load", "seed", "stable", "deadlock_warning",
        "pkt_lat", "injected", "accepted", "hops", "wall_s", "command"]
NETLOOM_ROUTING = {
    "bs_routes": ("graph:file=eq_small.edges,p=4", "min:select=first,classes=none"),
    "bs_hop": ("graph:file=eq_small.edges,p=4", "min:select=first,classes=hop"),
    "min_all": (SPEC, "min:select=first,classes=none"),
    "min_ad": (SPEC, "min:select=adaptive,classes=none"),
    "amin": (SPEC, "amin"),
}
ALL = ["booksim"] + list(NETLOOM_ROUTING)


def lkey(x):
    return "%.2f" % x


def run_booksim(booksim, vcs, load, seed):
    cmd = ["nice", "-n", "10", booksim, CFG, f"num_vcs={vcs}",
           f"injection_rate={lkey(load)}", f"seed={seed}"]
    t = time.time()
    p = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
    wall = time.time() - t
    out = p.stdout
    stable = "Overall Traffic Statistics" in out and "Simulation unstable" not in out
    row = {"stable": "yes" if stable else "no",
           "deadlock_warning": "yes" if "Possible network deadlock" in out else "no",
           "wall_s": "%.2f" % wall,
           "command": "cd benchmarks/validation/booksim && " + " ".join(cmd)}

    def last(pat):
        m = re.findall(pat, out)
        return m[-1] if m else "-"
    if stable:
        tail = out[out.index("Overall Traffic Statistics"):]
        g = lambda pat: (re.search(pat, tail).group(1) if re.search(pat, tail) else "-")
        row.update(pkt_lat=g(r"Packet latency average = ([\d.e+-]+)"),
                   injected=g(r"Injected flit rate average = ([\d.e+-]+)"),
                   accepted=g(r"Accepted flit rate average = ([\d.e+-]+)"),
                   hops=g(r"Hops average = ([\d.e+-]+)"))
    else:
        # the last sample period's figures (BookSim prints no overall ones)
        row.update(pkt_lat=last(r"Packet latency average = ([\d.e+-]+)"),
                   injected=last(r"Injected flit rate average = ([\d.e+-]+)"),
                   accepted=last(r"Accepted flit rate average= ([\d.e+-]+)"),
                   hops="-")
    if p.returncode not in (0, 255) or "Routing table" not in out:
        sys.exit(f"booksim failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return row


def run_netloom(netloom, ini, conf, vcs, load, seed):
    topo, routing = NETLOOM_ROUTING[conf]
    cmd = ["nice", "-n", "10", netloom, "run", "-c", ini, "-s", f"topology={topo}",
           "-s", f"routing_function={routing}", "-s", f"num_vcs={vcs}",
           "-s", f"injection_rate={lkey(load)}", "-s", f"seed={seed}", "--json", "-"]
    t = time.time()
    p = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True,
                       env=dict(os.environ, NETLOOM_PROGRESS="0"))
    wall = time.time() - t
    if p.returncode != 0 and not p.stdout.strip():
        sys.exit(f"netloom failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    r = json.loads(p.stdout)["results"]
    th = r.get("throughput", {})
    return {"stable": "yes" if r.get("stable") and not r.get("deadlock") else "no",
            "deadlock_warning": "deadlock" if r.get("deadlock") else "no",
            "pkt_lat": "%.4f" % r["latency"]["packet"]["mean"] if r.get("latency") else "-",
            "injected": "%.6f" % th["injected"] if "injected" in th else "-",
            "accepted": "%.6f" % th["accepted"] if "accepted" in th else "-",
            "hops": "%.5f" % r["hops"]["routers_mean"] if r.get("hops") else "-",
            "wall_s": "%.2f" % wall,
            "command": "cd benchmarks/validation/booksim && "
                       + " ".join(c if "[" not in c and "," not in c else f"'{c}'"
                                  for c in cmd[:-2]).replace(ini, "eq_small_min.ini")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netloom", required=True, help="the netloom binary (build/netloom)")
    ap.add_argument("--booksim", required=True, help="the BookSim2 binary")
    ap.add_argument("--out", default=os.path.join(HERE, "eq_small_points.tsv"),
                    help="the points table (default booksim/eq_small_points.tsv)")
    ap.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (default 0,1,2)")
    ap.add_argument("--vcs", default="2,8", help="comma-separated num_vcs (default 2,8)")
    ap.add_argument("--configs", default=",".join(ALL), help="comma-separated runs (default %s)" % ",".join(ALL))
    a = ap.parse_args()
    need_executable(ap, "--netloom", a.netloom, NETLOOM_WHAT)
    need_executable(ap, "--booksim", a.booksim, BOOKSIM_WHAT)
    seeds = [int(s) for s in a.seeds.split(",")]
    vcss = [int(v) for v in a.vcs.split(",")]
    confs = a.configs.split(",")
    for c in confs:
        if c not in ALL:
            sys.exit(f"unknown config {c}; expected one of {','.join(ALL)}")
    netloom = os.path.abspath(a.netloom)

    # the graph files, from netloom's own export
    subprocess.run([sys.executable, os.path.join(HERE, "anynet_from_netloom.py"),
                    "--netloom", netloom, "--spec", SPEC,
                    "--edges", os.path.join(HERE, "eq_small.edges"),
                    os.path.join(HERE, "eq_small.anynet")], check=True)
    # The conversion must still run (it maps anynet and min to anynet and
    # min_anynet), but its INI names the anynet file by absolute path, so
    # the runs use the kept eq_small_min.ini (topology and routing given on
    # the command line) and is not rewritten.
    conv = subprocess.run([netloom, "config", "--from-booksim", CFG], cwd=HERE,
                          capture_output=True, text=True)
    if conv.returncode != 0:
        sys.exit("netloom config --from-booksim %s: exit %d:\n%s" % (CFG, conv.returncode, conv.stderr))
    ini = os.path.join(HERE, "eq_small_min.ini")

    done = {}
    if os.path.exists(a.out):
        with open(a.out) as f:
            rows = [l.rstrip("\n").split("\t") for l in f if l.strip()]
        for r in rows[1:]:
            d = dict(zip(rows[0], r))
            done[(d["config"], int(d["num_vcs"]), d["load"], int(d["seed"]))] = d
    else:
        with open(a.out, "w") as f:
            f.write("\t".join(COLS) + "\n")

    def point(conf, vcs, load, seed):
        k = (conf, vcs, lkey(load), seed)
        if k not in done:
            if conf == "booksim":
                row = run_booksim(a.booksim, vcs, load, seed)
            else:
                row = run_netloom(netloom, ini, conf, vcs, load, seed)
            row.update(config=conf, num_vcs=str(vcs), load=lkey(load), seed=str(seed))
            with open(a.out, "a") as f:
                f.write("\t".join(row[c] for c in COLS) + "\n")
            done[k] = row
            print(f"{conf:9s} vcs={vcs} load={lkey(load)} seed={seed} stable={row['stable']}"
                  f" acc={row['accepted']} lat={row['pkt_lat']}", file=sys.stderr, flush=True)
        return done[k]["stable"] == "yes"

    summary = []
    for vcs in vcss:
        for conf in confs:
            sats = []
            for seed in seeds:
                grid = [round(0.1 * i, 2) for i in range(1, 10)]
                st = {x: point(conf, vcs, x, seed) for x in grid}
                unstable = [x for x in grid if not st[x]]
                lo = max([x for x in grid if st[x] and (not unstable or x < min(unstable))],
                         default=0.0)
                hi = min(unstable) if unstable else None
                if hi is not None:
                    # bisection on the 0.01 grid between lo (stable) and hi (unstable)
                    lo_i, hi_i = round(lo * 100), round(hi * 100)
                    while hi_i - lo_i > 1:
                        m = (lo_i + hi_i) // 2
                        if point(conf, vcs, m / 100, seed):
                            lo_i = m
                        else:
                            hi_i = m
                    lo = lo_i / 100
                sats.append(lo if hi is not None else float("nan"))
            acc = {}
            for k, d in done.items():
                if k[0] == conf and k[1] == vcs and d["accepted"] != "-":
                    acc.setdefault(k[2], []).append(float(d["accepted"]))
            peak = max((sum(v) / len(v) for v in acc.values()), default=float("nan"))
            summary.append((conf, vcs, sats, peak))
    print("config\tnum_vcs\tsaturation_per_seed\tsaturation_mean\tpeak_mean_accepted")
    for conf, vcs, sats, peak in summary:
        print(f"{conf}\t{vcs}\t{','.join('%.2f' % s for s in sats)}\t"
              f"{sum(sats) / len(sats):.3f}\t{peak:.3f}")


if __name__ == "__main__":
    main()
