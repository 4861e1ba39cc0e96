#!/usr/bin/env python3
"""Write an irregular BookSim2 anynet network_file for the side-by-side
validation of netloom's anynet (docs/validation.md, "BookSim2 side by
side", anynet).

    anynet_irregular.py [--seed S] [--routers R] [--extra L] [--max-nodes MAX] [--asym] OUT

A random spanning tree over R routers plus L extra links (R/2 by default) (no parallel
links, no self-links), 1..MAX nodes per router (--max-nodes, 5) (node ids router by router),
every link 2..10 cycles; with --asym each direction draws its own latency
(BookSim's per-direction entries), else both directions share one. Python's
random with the seed: the same file every time.
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--routers", type=int, default=16)
    ap.add_argument("--asym", action="store_true")
    ap.add_argument("--extra", type=int, default=None, help="links beyond the spanning tree (default R/2)")
    ap.add_argument("--max-nodes", type=int, default=5, help="nodes per router: 1..this")
    ap.add_argument("out")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    R = a.routers
    links = set()
    for r in range(1, R):
        links.add((rnd.randrange(r), r))
    while len(links) < R - 1 + (R // 2 if a.extra is None else a.extra):
        x, y = rnd.sample(range(R), 2)
        links.add((min(x, y), max(x, y)))
    node = 0
    lines = []
    links_back = {}
    for r in range(R):
        words = [f"router {r}"]
        for _ in range(rnd.randint(1, a.max_nodes)):
            words.append(f"node {node}")
            node += 1
        for x, y in sorted(links):
            if x == r:
                lat = rnd.randint(2, 10)
                back = rnd.randint(2, 10) if a.asym else lat
                words.append(f"router {y} {lat}")
                # the reverse direction, on the other router's line
                links_back.setdefault(y, []).append(f"router {x} {back}")
        words += links_back.get(r, [])
        lines.append(" ".join(words))
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
