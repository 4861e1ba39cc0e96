#!/usr/bin/python3
"""netloom vs BookSim2, side by side on BookSim2's own topologies (issue 11).

For every curve (a BookSim cfg of booksim/ plus a traffic pattern) this
  1. converts the cfg with `netloom config --from-booksim` as written,
  2. runs `netloom run` at every load BookSim2 was run at (booksim/
     booksim_points.tsv, the reference figures) for seeds 0, 1, 2,
  3. finds netloom's saturation per seed the way the BookSim figures were
     found: highest stable load on a 0.01 grid (0.1 steps, then bisection),
     "stable" being netloom's `stable` column, which applies BookSim's
     latency_thres rule (emu/net/experiment.c, TrafficManager::_SingleSim),
  4. writes OUT/points.tsv (every netloom run), OUT/side_by_side.tsv (per
     curve and load: BookSim mean of seeds, netloom mean of seeds,
     difference %), OUT/saturation.tsv and one SVG per curve (gnuplot;
     without it, optional, one line per curve says the SVG was not drawn,
     the tables are written all the same and an older SVG is removed).

Runs are serial (one core). Finished netloom points are kept in
OUT/points.tsv and skipped when the script runs again with the same
converted configuration; --fresh discards them.

Needs a built netloom (scripts/build.sh) and python3; not BookSim2: its
figures are read from booksim/booksim_points.tsv. Time (docs/validation.md,
on a loaded 2-core machine): every curve, 3 seeds, about 2 hours of wall
time (291 runs); single_uniform, cmesh_bitcomp and cmesh_xyyx_bitcomp
10-20 s; mesh_transpose 7 s; --cached-only runs nothing.
Exit status: 0 done; 1 a netloom run failed (one line names the command
and netloom's message); 2 bad usage; 3 the tables written but a plot not
drawn (gnuplot failed; one line says which).
"""
import argparse
import hashlib
import math
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "booksim", "booksim_points.tsv")
sys.path.insert(0, os.path.join(HERE, "repro", "lib"))
import netloom_run  # noqa: E402  (its run() and draw(): one line for a failed netloom or gnuplot)

# curve -> (BookSim cfg in booksim/, traffic)
CURVES = [
    ("ff_ranmin_uniform", "ff_ranmin.cfg", "uniform"),
    ("ff_ranmin_bitcomp", "ff_ranmin.cfg", "bitcomp"),
    ("ff_ugal_uniform", "ff_ugal.cfg", "uniform"),
    ("ff_ugal_bitcomp", "ff_ugal.cfg", "bitcomp"),
    ("ff_valiant_uniform", "ff_valiant.cfg", "uniform"),
    ("ff_valiant_bitcomp", "ff_valiant.cfg", "bitcomp"),
    ("df_flex_min", "df_flex_min.cfg", "uniform"),
    ("df_flex_ugal", "df_flex_ugal.cfg", "uniform"),
    ("df_example_min", "df_example_min.cfg", "uniform"),
    ("df_example_ugal", "df_example_ugal.cfg", "uniform"),
    ("ft_nca", "ft_nca.cfg", "uniform"),
    ("ft_anca", "ft_anca.cfg", "uniform"),
    # BookSim2's singleconfig (fly, one 10 x 10 crossbar) and cmeshconfig.
    ("single_uniform", "single.cfg", "uniform"),
    ("cmesh_bitcomp", "cmesh.cfg", "bitcomp"),
    ("cmesh_xyyx_bitcomp", "cmesh_xyyx.cfg", "bitcomp"),
    # BookSim2's mesh88_lat: 8x8 mesh, DOR, 20-flit packets, transpose.
    ("mesh_transpose", "mesh88.cfg", "transpose"),
]

PT_COLS = ["curve", "ini_sha", "load", "seed", "stable", "latency", "net_latency",
           "accepted", "hops", "cycles", "wall_s"]


def rkey(x):
    return "%.2f" % x


def read_tsv(path):
    with open(path) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    if not lines:
        return []
    head = lines[0]
    return [dict(zip(head, l)) for l in lines[1:]]


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def saturation(points):
    """BookSim's definition on a 0.01 grid: the highest stable load below
    the lowest unstable one. points: {load_key: stable_bool}."""
    unstable = [float(k) for k, s in points.items() if not s]
    if not unstable:  # not reached yet: no unstable load measured
        return float("nan"), math.inf
    lim = min(unstable)
    stable = [float(k) for k, s in points.items() if s and float(k) < lim]
    if not stable or lim - max(stable) > 0.0100001:  # bisection not finished (a seed still running)
        return float("nan"), lim
    return max(stable), lim


class Runner:
    def __init__(self, args):
        self.args = args
        self.pts_path = os.path.join(args.out, "points.tsv")
        self.points = {}
        if not args.fresh and os.path.exists(self.pts_path):
            for p in read_tsv(self.pts_path):
                self.points[(p["curve"], p["ini_sha"], p["load"], p["seed"])] = p

    def save(self):
        rows = ["\t".join(PT_COLS)]
        for k in sorted(self.points, key=lambda k: (k[0], float(k[2]), int(k[3]))):
            p = self.points[k]
            rows.append("\t".join(str(p[c]) for c in PT_COLS))
        write_atomic(self.pts_path, "\n".join(rows) + "\n")

    def convert(self, curve, cfg):
        ini = os.path.join(self.args.out, curve + ".ini")
        src = os.path.join(HERE, "booksim", cfg)
        try:
            r = subprocess.run([self.args.netloom, "config", "--from-booksim", src],
                               capture_output=True, text=True)
        except OSError as e:
            sys.exit("%s: cannot run netloom: %s: %s" % (netloom_run.script(), self.args.netloom, e.strerror))
        if r.returncode != 0:
            return None, r.stderr.strip()
        write_atomic(ini, r.stdout)
        return ini, hashlib.sha256(r.stdout.encode()).hexdigest()[:12]

    def run(self, curve, ini, sha, traffic, load, seed):
        key = (curve, sha, rkey(load), str(seed))
        if key in self.points:
            return self.points[key]
        if self.args.cached_only:
            return None
        cmd = [self.args.netloom, "run", "-c", ini, "-s", "traffic=" + traffic,
               "-s", "injection_rate=" + rkey(load), "-s", "seed=%d" % seed, "--csv"]
        r = netloom_run.run(cmd, stdout=subprocess.PIPE)
        lines = r.stdout.strip().split("\n")
        row = dict(zip(lines[0].split(","), lines[-1].split(",")))
        p = {"curve": curve, "ini_sha": sha, "load": rkey(load), "seed": str(seed),
             "stable": row["stable"], "latency": row["latency_mean"],
             "net_latency": row["network_latency_mean"], "accepted": row["accepted"],
             "hops": row["hops_mean"], "cycles": row["cycles"], "wall_s": row["wall_seconds"]}
        self.points[key] = p
        self.save()
        print("  %-18s load %s seed %d: %s latency %s accepted %s (%s s)" %
              (curve, rkey(load), seed, "stable" if p["stable"] == "1" else "UNSTABLE",
               p["latency"], p["accepted"], p["wall_s"]), flush=True)
        return p

    def find_saturation(self, curve, ini, sha, traffic, seed):
        """0.1 steps from 0.1, then bisection to 0.01, as the BookSim runner."""
        def st(x):
            p = self.run(curve, ini, sha, traffic, x, seed)
            if p is None:
                raise LookupError
            return p["stable"] == "1"
        lo, hi = 0.0, None
        try:
            for i in range(1, 11):
                x = i / 10
                if st(x):
                    lo = x
                else:
                    hi = x
                    break
        except LookupError:
            return
        if hi is None:
            return
        while round((hi - lo) * 100) > 1:
            mid = round((lo + hi) / 2, 2)
            try:
                ok = st(mid)
            except LookupError:
                return
            if ok:
                lo = mid
            else:
                hi = mid


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netloom", default=os.path.join(HERE, "..", "..", "build", "netloom"),
                    help="the netloom binary (default build/netloom)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "build", "validation"),
                    help="folder for the tables and plots (default build/validation)")
    ap.add_argument("--curves", default=",".join(c[0] for c in CURVES),
                    help="comma-separated curves (default all: %s)" % ", ".join(c[0] for c in CURVES))
    ap.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (default 0,1,2)")
    ap.add_argument("--no-sat", action="store_true", help="skip netloom's saturation search")
    ap.add_argument("--max-load", type=float, default=None,
                    help="run only BookSim's loads up to this one (e.g. extra seeds below 0.9 x saturation)")
    ap.add_argument("--fresh", action="store_true", help="discard netloom points of earlier runs")
    ap.add_argument("--cached-only", action="store_true",
                    help="run nothing: tables and plots from the points OUT/points.tsv already holds")
    args = ap.parse_args()
    # Every argument checked before OUT is made or anything runs: a bad
    # seed was a traceback (ValueError), a missing netloom one after OUT
    # was made.
    me = netloom_run.script()
    want = args.curves.split(",")
    unknown = [c for c in want if c not in [x[0] for x in CURVES]]
    if unknown:
        ap.exit(2, "%s: --curves: unknown curve '%s'; expected one of %s\n" %
                (me, unknown[0], ", ".join(x[0] for x in CURVES)))
    if not all(s.isdigit() for s in args.seeds.split(",")):
        ap.exit(2, "%s: --seeds '%s': expected whole numbers separated by commas, e.g. 0,1,2\n" % (me, args.seeds))
    seeds = [int(s) for s in args.seeds.split(",")]
    if not (os.path.isfile(args.netloom) and os.access(args.netloom, os.X_OK)):
        ap.exit(2, "%s: --netloom %s: not an executable (build with scripts/build.sh or pass --netloom)\n" %
                (me, args.netloom))
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        ap.exit(2, "%s: --out '%s': not a directory; expected a directory, or a path where one can be made\n" %
                (me, args.out))
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        ap.exit(2, "%s: --out '%s': %s; expected a directory, or a path where one can be made\n" %
                (me, args.out, e.strerror))
    ref = [p for p in read_tsv(REF) if not p["curve"].startswith("idle_")]
    runner = Runner(args)

    sbs = ["curve\tload\tbooksim_seeds\tbooksim_latency\tbooksim_accepted\tnetloom_seeds"
           "\tnetloom_latency\tnetloom_accepted\tdiff_pct\tin_acceptance_range"]
    sat_rows = ["curve\tseed\tbooksim_sat\tnetloom_sat"]
    summary = []
    md = []
    for curve, cfg, traffic in CURVES:
        if curve not in want:
            continue
        ini, sha = runner.convert(curve, cfg)
        if ini is None:
            print("%s: not converted: %s" % (curve, sha), flush=True)
            summary.append("%s: not run (conversion refused: %s)" % (curve, sha))
            md.append("#### %s (`%s`, %s)\n\nNot run: `netloom config --from-booksim` refuses the file: %s\n" %
                      (curve, cfg, traffic, sha.replace(HERE + "/", "")))
            continue
        bk = [p for p in ref if p["curve"] == curve]
        loads = sorted({float(p["rate"]) for p in bk})
        print("%s: %d BookSim loads, seeds %s" % (curve, len(loads), seeds), flush=True)
        for seed in seeds:
            for x in loads:
                if args.max_load is None or x <= args.max_load + 1e-9:
                    runner.run(curve, ini, sha, traffic, x, seed)
            if not args.no_sat:
                runner.find_saturation(curve, ini, sha, traffic, seed)
        nl = [p for k, p in runner.points.items() if k[0] == curve and k[1] == sha and int(k[3]) in seeds]
        # saturation per seed, both sides
        bsat, nsat, unreached = {}, {}, []
        for seed in sorted({int(p["seed"]) for p in bk} | set(seeds)):
            b = {p["rate"]: p["status"] == "stable" for p in bk if int(p["seed"]) == seed}
            n = {p["load"]: p["stable"] == "1" for p in nl if int(p["seed"]) == seed}
            bsat[seed] = saturation(b)[0] if b else float("nan")
            nsat[seed] = saturation(n)[0] if n else float("nan")
            if b and math.isnan(bsat[seed]):
                unreached.append("BookSim2 seed %d (search unfinished: highest stable load %s, lowest unstable %s)" %
                                 (seed, max([k for k, v in b.items() if v], key=float, default="-"),
                                  min([k for k, v in b.items() if not v], key=float, default="-")))
            if n and math.isnan(nsat[seed]):
                unreached.append("netloom seed %d (search unfinished: highest stable load %s, lowest unstable %s)" %
                                 (seed, max([k for k, v in n.items() if v], key=float, default="-"),
                                  min([k for k, v in n.items() if not v], key=float, default="-")))
            sat_rows.append("%s\t%d\t%.2f\t%.2f" % (curve, seed, bsat[seed], nsat[seed]))
        bs = mean([v for v in bsat.values() if not math.isnan(v)])
        ns = mean([v for v in nsat.values() if not math.isnan(v)])
        known = [v for v in (bs, ns) if not math.isnan(v)]
        lower = min(known) if known else float("nan")  # a side not saturated yet is left out
        worst = 0.0
        rows = []
        md.append("#### %s (`%s`, %s)\n" % (curve, cfg, traffic))
        md.append("Saturation (highest stable load, 0.01 grid), per seed: BookSim2 %s; netloom %s. "
                  "Mean: BookSim2 %.3f, netloom %.3f (%+.1f%%).\n" %
                  (", ".join("%d: %.2f" % (k, v) for k, v in sorted(bsat.items()) if not math.isnan(v)) or "-",
                   ", ".join("%d: %.2f" % (k, v) for k, v in sorted(nsat.items()) if not math.isnan(v)) or "-",
                   bs, ns, (ns - bs) / bs * 100))
        if unreached:
            md.append("Saturation not found yet: %s.\n" % "; ".join(unreached))
        md.append("| load | BookSim2 latency (seeds) | netloom latency (seeds) | difference | within 0.9 x sat |")
        md.append("|---|---|---|---|---|")
        for x in sorted({float(p["rate"]) for p in bk} | {float(p["load"]) for p in nl}):
            k = rkey(x)
            b = [p for p in bk if p["rate"] == k and p["status"] == "stable"]
            n = [p for p in nl if p["load"] == k and p["stable"] == "1"]
            bl, nlat = mean([float(p["pkt_lat"]) for p in b]), mean([float(p["latency"]) for p in n])
            ba, na = mean([float(p["acc_flit_rate"]) for p in b]), mean([float(p["accepted"]) for p in n])
            d = (nlat - bl) / bl * 100 if b and n else float("nan")
            inr = x <= 0.9 * lower + 1e-9
            if inr and not math.isnan(d):
                worst = max(worst, abs(d))
            rows.append((x, len(b), bl, len(n), nlat, d))
            ran_b = any(p["rate"] == k for p in bk)
            ran_n = any(p["load"] == k for p in nl)
            if b or n or (ran_b and not nl):
                md.append("| %s | %s | %s | %s | %s |" % (
                    k, "%.2f (%d)" % (bl, len(b)) if b else "unstable" if ran_b else "not run",
                    "%.2f (%d)" % (nlat, len(n)) if n else "unstable" if ran_n else "not run",
                    "%+.1f%%" % d if b and n else "-", "yes" if inr else "no"))
            sbs.append("%s\t%s\t%d\t%.2f\t%.4f\t%d\t%.2f\t%.4f\t%.1f\t%d" %
                       (curve, k, len(b), bl, ba, len(n), nlat, na, d, inr))
        md.append("\nLargest difference at loads up to 0.9 x %.3f: %.1f%%.\n" % (lower, worst))
        summary.append("%s: saturation BookSim %.3f (seeds %s) netloom %.3f (%+.1f%%); "
                       "worst latency difference up to 0.9 x %.3f: %.1f%%" %
                       (curve, bs, ",".join(str(s) for s in sorted(bsat) if not math.isnan(bsat[s])),
                        ns, (ns - bs) / bs * 100, lower, worst))
        plot(args.out, curve, traffic, rows, bs, ns)
    runner.save()
    write_atomic(os.path.join(args.out, "side_by_side.tsv"), "\n".join(sbs) + "\n")
    write_atomic(os.path.join(args.out, "saturation.tsv"), "\n".join(sat_rows) + "\n")
    write_atomic(os.path.join(args.out, "tables.md"), "\n".join(md) + "\n")
    print("\n".join(summary))
    print("wrote %s/{points,side_by_side,saturation}.tsv, tables.md%s" %
          (args.out, " and <curve>.svg" if shutil.which("gnuplot") else ""))
    sys.exit(netloom_run.exit_status())


def plot(out, curve, traffic, rows, bs, ns):
    """OUT/curve.svg (gnuplot, netloom_run.draw: without it, or when it
    fails, one line says so and an SVG of an earlier run is removed). Its
    data go through a temporary file, removed after."""
    svg = os.path.join(out, curve + ".svg")
    if not netloom_run.have_gnuplot(svg):
        return
    dat = svg + ".dat.tmp"
    with open(dat, "w") as f:
        f.write("# load booksim_seeds booksim_latency netloom_seeds netloom_latency\n")
        for x, nb, bl, nn, nl, _ in rows:
            f.write("%.2f %d %s %d %s\n" % (x, nb, "%.3f" % bl if nb else "NaN", nn,
                                            "%.3f" % nl if nn else "NaN"))
    gp = "\n".join([
        "set terminal svg size 640,420 dynamic font 'sans,11' background rgb 'white'",
        "set xrange [0:*]",
        "set output '%s.tmp'" % svg,
        "set title '%s (%s): packet latency, mean of seeds'" % (curve.replace("_", "\\_"), traffic),
        "set xlabel 'offered load (flits/cycle/endpoint)'",
        "set ylabel 'packet latency (cycles)'",
        "set key top left",
        "set grid",
        "set yrange [0:*]",
        "set datafile missing 'NaN'",
        "set arrow from %.2f, graph 0 to %.2f, graph 1 nohead dt 2 lc rgb '#1f77b4'" % (bs, bs) if not math.isnan(bs) else "",
        "set arrow from %.2f, graph 0 to %.2f, graph 1 nohead dt 3 lc rgb '#d62728'" % (ns, ns) if not math.isnan(ns) else "",
        "plot '%s' using 1:3 with linespoints pt 7 lc rgb '#1f77b4' title 'BookSim2 (sat. %.3f)', \\" % (dat, bs),
        "     '%s' using 1:5 with linespoints pt 5 lc rgb '#d62728' title 'netloom (sat. %.3f)'" % (dat, ns),
        ""])
    try:
        netloom_run.draw(svg, gp)
    finally:
        os.unlink(dat)


if __name__ == "__main__":
    main()
