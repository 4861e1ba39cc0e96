#!/usr/bin/env python3
"""Write a BookSim2 anynet network_file from netloom's edge list.

    anynet_from_netloom.py --netloom NETLOOM --spec SPEC [--edges EDGES] OUT

One line per router: "router R node E ... router S ..." (BookSim2
networks/anynet.cpp, commit 28f43299): its endpoints, then its neighbours.
Endpoints come from netloom's json export (the "endpoint" ports of each
router, in port order), so BookSim's node E is netloom's endpoint E.
Every channel has latency 1 (anynet's default; netloom channel_latency = 1).
anynet keeps one channel per router pair (a std::map), so a topology with
parallel links (edge list weight > 1) is refused rather than silently
thinned.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def export(netloom, spec, fmt):
    """netloom's export of spec in fmt. A refusal (a bad spec) is one line,
    netloom's own last one, exit 1: it was a traceback that hid it."""
    cmd = [netloom, "topo", "export", spec, "--format", fmt]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        why = lines[-1] if lines else f"exit status {p.returncode}"
        sys.exit(f"anynet_from_netloom.py: netloom failed: {' '.join(cmd)}: {why}")
    return p.stdout


def write_atomic(path, text):
    """Writes path whole or not at all (a temporary file beside it, then
    renamed over it), as netloom writes its outputs: a cut network_file
    would read in BookSim as a smaller network."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=os.path.basename(path) + ".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        # mkstemp made it 0600: the old file's mode, or a new file's.
        if os.path.isfile(path):
            mode = os.stat(path).st_mode & 0o7777
        else:
            mask = os.umask(0)
            os.umask(mask)
            mode = 0o666 & ~mask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--netloom", required=True, help="netloom binary")
    ap.add_argument("--spec", required=True, help="netloom topology spec")
    ap.add_argument("--edges", help="also write the same graph as a netloom "
                    "graph:file= edge list (two ids a line, a < b, sorted), so "
                    "every router's ports are its neighbours in increasing id, "
                    "the order anynet's routing table visits them")
    ap.add_argument("out", help="anynet network_file to write")
    a = ap.parse_args()

    topo = json.loads(export(a.netloom, a.spec, "json"))
    edges = export(a.netloom, a.spec, "edgelist")

    n = topo["n_routers"]
    # An unconnected port (a mesh's edge) is null in the export.
    eps = {r["id"]: [p["endpoint"] for p in r["ports"] if p and "endpoint" in p]
           for r in topo["routers"]}
    adj = {r: [] for r in range(n)}
    pairs = []
    for line in edges.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        x, y, w = map(int, line.split())
        if w != 1:
            sys.exit(f"routers {x} and {y} have {w} parallel links; "
                     "BookSim2's anynet keeps one channel per router pair")
        if x == y:
            sys.exit(f"router {x} has a self-loop; anynet cannot express it")
        adj[x].append(y)
        adj[y].append(x)
        pairs.append((min(x, y), max(x, y)))

    allep = sorted(e for r in eps for e in eps[r])
    if allep != list(range(topo["n_endpoints"])):
        sys.exit("endpoints are not numbered 0..n-1; anynet needs that")
    for r in range(n):
        if not eps.get(r):
            # anynet builds a router for every head; one without endpoints
            # is legal, but say so: BookSim's traffic covers nodes only.
            print(f"note: router {r} has no endpoints", file=sys.stderr)

    write_atomic(a.out, "".join(
        f"router {r}" + "".join(f" node {e}" for e in eps.get(r, []))
        + "".join(f" router {s}" for s in adj[r]) + "\n"
        for r in range(n)))
    if a.edges:
        write_atomic(a.edges, f"# {a.spec} from netloom's edge list, neighbours in increasing id\n"
                     + "".join(f"{x} {y}\n" for x, y in sorted(pairs)))


if __name__ == "__main__":
    main()
