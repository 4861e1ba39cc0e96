"""Shared by hyperx_fig6.py and hyperx_fig7.py: seed 001 §4.1's router
settings, the network size chosen from the environment, and one `netloom
run --csv` point."""
import hashlib
import os
import subprocess

import netloom_run

# §4.1: a four-cycle switch (route, VC allocation, switch allocation,
# traversal), 1-cycle channels, 6 VCs of 32 flits, cut-through, iSLIP
# switch allocation, input speedup 2, single-flit packets, and
# "sequential allocation is used for adaptive route computation" (Kim,
# Dally and Abts SC'06; docs/engine.md). The VC allocator is ours: by
# priority (minimal > deroute > escape tiers).
# Min-AD's and DAL's "blocked" (seed 001 §3.3 gives no rule): a port with
# 2 or more flits routed to it here and not yet sent, sequential
# allocation's count (docs/engine.md, "`queue`: blocked where the backlog
# is"), not the credits in flight, which an input-queued router's
# overloaded channel does not show.
# The Clos's adaptive routing compares its up-ports by the same count
# (anca:queue=routed), not BookSim's credits.
# DAL also has a threshold of its own for step 3's deroute ports, 3
# flits routed and not yet sent (dal.c header, `dqueue`): with one
# threshold DAL derouted unevenly across the dimensions on bitcomp and
# trailed Valiant (fast router: 0.92x at paper size); with dqueue=3 it
# passes every Fig. 6 check with both routers (docs/validation.md, "DAL
# on bitcomp with the fast router"). Fig. 6 and Fig. 7 both run it.
ROUTING = {"minad": "minad:block=0,queue=2", "dal": "dal:block=0,queue=2,dqueue=3", "anca": "anca:queue=routed"}


SETTINGS = [
    "num_vcs=6", "vc_buf_size=32", "flow_control=vct", "packet_size=1", "channel_latency=1",
    "routing_delay=1", "vc_alloc_delay=1", "sw_alloc_delay=1", "st_final_delay=1",
    "vc_allocator=separable_input_first", "sw_allocator=islip", "input_speedup=2",
    "sequential_allocation=1",
]


# HYPERX_ROUTER selects the router of every Fig. 6 and Fig. 7 point:
#   paper  SETTINGS above, seed 001 §4.1 as written (the default);
#   fast   the same plus internal_speedup=2: the router steps twice per
#          cycle. Not a §4.1 setting: with §4.1's router, netloom and
#          BookSim2 both run Valiant's links at 74-79 % (Valiant 0.39-0.40,
#          not beta = 0.5), while the paper states "Valiant reliably
#          achieves beta"; `fast` is the router calibrated so that Valiant
#          reaches beta (docs/validation.md, "HyperX (seed 001)").
# Its points are kept apart: OUTDIR/points/ for paper, OUTDIR/points-fast/
# for fast, and the tables and plots name the router when it is not paper.
ROUTERS = {"paper": [], "fast": ["internal_speedup=2"]}


def pick_router():
    """(name, extra settings) of environment variable HYPERX_ROUTER
    (default "paper"), a key of ROUTERS; a bad name stops the script
    before any run, exit 2 (netloom_run.env)."""
    name = netloom_run.env("HYPERX_ROUTER", "paper")
    return name, list(ROUTERS[name])


def points_dir(out, router):
    """OUTDIR's cache of points for `router`: points/ (paper, as before)
    or points-ROUTER/."""
    return os.path.join(out, "points" if router == "paper" else "points-" + router)


def router_note(router):
    """Text naming a router other than paper for tables and plots ("" for
    paper, so the default outputs stay as they were)."""
    if router == "paper":
        return ""
    return ", router %s (%s, not a section 4.1 setting)" % (router, " ".join(ROUTERS[router]))


def run_csv(netloom, kv, who):
    """`netloom run --csv --reproducible -s KV...`: its non-empty output
    lines (header, row); a failed run stops the script with one line
    (netloom_run.run)."""
    cmd = [netloom, "run", "--csv", "--reproducible"]
    for x in kv:
        cmd += ["-s", x]
    p = netloom_run.run(cmd, stdout=subprocess.PIPE)
    return [ln for ln in p.stdout.splitlines() if ln.strip()]


def csv_point(lines):
    """The (header, row) lines of `run_csv` as a dict, header -> value."""
    lines = [ln for ln in lines if not ln.startswith("#")]
    return dict(zip(lines[0].split(","), lines[1].split(",")))


def pick_size(var):
    """The value of environment variable `var` (default "small"), a size
    of netloom_run.HYPERX_SIZES (the keys of the scripts' SIZES); a bad
    one stops the script before any run, exit 2 (netloom_run.env)."""
    return netloom_run.env(var, "small")


def cached_point(netloom, kv, cache, who, cached_only):
    """One `run_csv` point as a dict, kept in directory `cache` under a
    name made from `kv` and reused on the next call (several runs on
    disjoint subsets can go in parallel and a last one collects them).
    With `cached_only`, runs nothing and returns None for a point not
    kept. The key does not cover the netloom binary: empty `cache` after
    changing the engine."""
    key = hashlib.sha1("\n".join(kv).encode()).hexdigest()[:16]
    path = os.path.join(cache, key + ".csv")
    if os.path.exists(path):
        with open(path) as f:
            lines = [ln for ln in f.read().splitlines() if ln.strip()]
    elif cached_only:
        return None
    else:
        lines = run_csv(netloom, kv, who)
        with open(path + ".tmp", "w") as f:
            f.write("# " + " ".join(kv) + "\n" + "\n".join(lines) + "\n")
        os.replace(path + ".tmp", path)
    return csv_point(lines)


def latency_curve(run, base, loads, accepted):
    """Mean packet latency at each offered load of `loads` (run(kv) gives
    a point, sim_type latency until converged, at most 10 samples of
    1,000 cycles); "-" for a load above `accepted` (the saturation
    throughput: such a load has no steady state, so it is not run) and
    for a point that did not converge."""
    lat = []
    for ld in loads:
        r = run(base + ["injection_rate=%g" % ld, "sample_period=1000", "max_samples=10"]) if ld <= accepted else None
        lat.append(r["latency_mean"] if r and r.get("stable") == "1" else "-")
    return lat


def default_loads(var):
    """The offered loads of environment variable `var`, comma-separated
    (default 0.1, 0.2, ..., 0.9); a bad list stops the script
    (netloom_run.env)."""
    return netloom_run.env(var, ",".join("0.%d" % i for i in range(1, 10)))


def gnuplot(script, svg):
    """Runs gnuplot `script` (whose output is svg + '.tmp') and moves the
    plot into place; without gnuplot, or when it fails, one line says the
    plot is not drawn (netloom_run.draw)."""
    netloom_run.draw(svg, script)


def plot_curves(svg, title, panels, labels, loads, lat):
    """Load-latency graphs as seed 001's Fig. 6 and 7 draw them: one panel
    per pattern in `panels`, a curve per label in `labels`, from
    lat[(pattern, label)] (a value per load of `loads`; "-" not measured)."""
    dat = svg + ".dat"
    measured = set()  # (pattern, label) with a point: gnuplot warns of an empty data set
    with open(dat, "w") as f:
        for p in panels:
            for a in labels:
                f.write("# %s %s\n" % (p, a))
                for ld, x in zip(loads, lat.get((p, a), [])):
                    if x != "-":
                        f.write("%g %s\n" % (ld, x))
                        measured.add((p, a))
                f.write("\n\n")
    parts = []
    for i, p in enumerate(panels):
        curves = ", ".join("'%s' index %d using 1:2 with linespoints title '%s'" % (dat, i * len(labels) + j, a)
                           for j, a in enumerate(labels) if (p, a) in measured)
        parts.append("set title '(%s) %s'\nplot %s" % ("abcdefgh"[i], p, curves or "NaN notitle"))
    gnuplot("""set terminal svg size 1000,800
set output '%s'
set multiplot layout 2,2 title '%s'
set xlabel 'offered load (flits/cycle/endpoint)'
set ylabel 'packet latency (cycles)'
set xrange [0:1]
set yrange [0:150]
set key top right
%s
unset multiplot
""" % (svg + ".tmp", title, "\n".join(parts)), svg)
    os.remove(dat)


def plot_saturation_bars(svg, title, groups, labels, sat, lines):
    """A bar cluster per group (pattern), a bar per label, from
    sat[(group, label)] (None: not run); `lines` are gnuplot plot items
    drawn over the bars (e.g. "0.5 title 'beta' lt 0")."""
    dat = svg + ".dat"
    with open(dat, "w") as f:
        f.write("pattern " + " ".join(labels) + "\n")
        for g in groups:
            f.write(g + " " + " ".join("-" if sat[(g, a)] is None else "%.4f" % sat[(g, a)] for a in labels) + "\n")
    plots = ", ".join(("'%s' using %d:xtic(1) title col" % (dat, i + 2)) if i == 0 else
                      ("'' using %d title col" % (i + 2)) for i in range(len(labels)))
    gnuplot("""set terminal svg size 800,450
set output '%s'
set title '%s'
set style data histograms
set style fill solid 0.8
set datafile missing '-'
set ylabel 'accepted flits/cycle/endpoint at offered 1.0'
set yrange [0:1.1]
set key top left
plot %s, %s
""" % (svg + ".tmp", title, plots, ", ".join(lines)), svg)
    os.remove(dat)
