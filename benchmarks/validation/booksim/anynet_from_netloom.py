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
import subprocess
import sys


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

    topo = json.loads(subprocess.run(
        [a.netloom, "topo", "export", a.spec, "--format", "json"],
        check=True, capture_output=True, text=True).stdout)
    edges = subprocess.run(
        [a.netloom, "topo", "export", a.spec, "--format", "edgelist"],
        check=True, capture_output=True, text=True).stdout

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

    with open(a.out, "w") as f:
        f.write("".join(
            f"router {r}" + "".join(f" node {e}" for e in eps.get(r, []))
            + "".join(f" router {s}" for s in adj[r]) + "\n"
            for r in range(n)))
    if a.edges:
        with open(a.edges, "w") as f:
            f.write(f"# {a.spec} from netloom's edge list, neighbours in increasing id\n")
            f.write("".join(f"{x} {y}\n" for x, y in sorted(pairs)))


if __name__ == "__main__":
    main()
