"""Shared by flex_fig8_10.py and flex_fig14.py: the paper's BookSim
settings (seed 000 section IV-B) and a load sweep with netloom."""
import os
import tempfile

import netloom_run

# Seed 000 section IV-B: single-flit packets, VC buffers of 256 flits,
# internal speedup 2, credit delay 2 cycles. Not given by the paper (our
# assumptions, docs/validation.md): 4 VCs (one class per hop of a 4-hop
# Valiant path), iSLIP allocators, routing delay 1. Statistics shortened
# for a loaded 2-core machine: 500-cycle samples, 1 warm-up, 5 at most.
PAPER = [
    "packet_size=1", "vc_buf_size=256", "internal_speedup=2", "credit_delay=2",
    "num_vcs=4", "routing_delay=1",
    "sample_period=500", "warmup_periods=1", "max_samples=5",
]

FLEX = "flex:nx=6,ny=6,nz=3,p=10"  # Table 6: 108 routers, 1,080 endpoints


def sweep(netloom, topo, routing, traffic, rates, extra=()):
    """One load-latency curve; stops after the first unstable point.
    Returns [(offered, accepted, latency, stable, hops)]."""
    args = [netloom, "sweep", "-s", "topology=" + topo, "-s", "routing_function=" + routing,
            "-s", "traffic=" + traffic, "--rates", rates]
    for kv in PAPER + list(extra):
        args += ["-s", kv]
    out = []
    for p in netloom_run.json_results(args)["points"]:
        out.append((p["throughput"]["offered"], p["throughput"]["accepted"],
                    p["latency"]["packet"]["mean"] if not p["deadlock"] else float("nan"),
                    p["stable"], p["hops"]["mean"]))
    return out


def saturation(points):
    """Highest accepted throughput among the stable points (0 if none)."""
    st = [acc for (_, acc, _, stable, _) in points if stable]
    return max(st) if st else 0.0


def gnuplot(svg, title, curves, ylabel="mean packet latency (cycles)"):
    """curves: [(label, [(x, y)])]. Without gnuplot (optional), or when it
    fails, one line says the plot is not drawn (netloom_run.draw)."""
    if not netloom_run.have_gnuplot(svg):
        return
    fd, dat = tempfile.mkstemp(suffix=".dat")
    with os.fdopen(fd, "w") as f:
        for _, pts in curves:
            for x, y in pts:
                f.write(f"{x} {y}\n")
            f.write("\n\n")
    plots = ", ".join(f"'{dat}' index {i} with linespoints title '{lab}'" for i, (lab, _) in enumerate(curves))
    xrange = netloom_run.xrange_around([x for _, pts in curves for x, _ in pts])
    script = (f"set terminal svg size 900,600; set output '{svg}.tmp'; set title '{title}';"
              f"set xlabel 'offered load (flits/cycle/endpoint)'; set ylabel '{ylabel}';"
              f"set yrange [0:*]; {xrange + ';' if xrange else ''} set key top left; plot {plots}")
    try:
        netloom_run.draw(svg, script + "\n")
    finally:
        os.unlink(dat)


def write_atomic(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
