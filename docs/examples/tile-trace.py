#!/usr/bin/env python3
"""Tile a trace: N independent copies of an R-rank run as one N x R-rank
trace, so a bundled 16-rank sample loads a ~1,000-endpoint machine
(docs/procurement.md, "Worked example"). Copy c's ranks are c*R .. c*R+R-1;
every operation on the world communicator moves to a communicator of the
copy's ranks, and every other communicator gets an id per copy, so copies
never talk to each other: N jobs of the same application side by side.

Usage: tile-trace.py NETLOOM IN.nlt N OUT.nlt

Works on the text form (`netloom trace dump`, docs/trace-format.md
section 8) and writes the archive with `netloom trace encode`.
"""
import os
import re
import subprocess
import sys
import tempfile

# Operations that name no communicator (and keep none).
NO_COMM = {"compute", "init", "finalize", "wait", "waitall", "waitany", "waitsome", "test", "testall",
           "testany", "testsome", "cancel", "request_free"}


def main():
    netloom, src, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    dump = subprocess.run([netloom, "trace", "dump", src], check=True, capture_output=True, text=True).stdout
    lines = dump.splitlines()
    ranks = next(int(l.split()[1]) for l in lines if l.startswith("ranks "))
    ids = []  # communicators other than world (0) and self (1), in order of appearance
    for l in lines:
        for m in re.finditer(r"\b(?:comm|new_comm)=(\d+)", l):
            if int(m.group(1)) > 1 and m.group(1) not in ids:
                ids.append(m.group(1))
        if l.startswith("comm ") and l.split()[1] not in ids:
            ids.append(l.split()[1])
    base = 1 << 20

    def cid(c, i):  # copy c's id for communicator index i (0: its world)
        return str(base + c * (len(ids) + 1) + i)

    first = next(i for i, l in enumerate(lines) if l.startswith("rank "))
    header = [l for l in lines[:first] if not l.startswith("#")]
    body = lines[first:]
    fd, text = tempfile.mkstemp(suffix=".txt")
    with os.fdopen(fd, "w") as f:
        for l in header:
            k = l.split()[0]
            if k == "ranks":
                f.write(f"ranks {n * ranks}\n")
            elif k == "hosts":
                f.write(f"hosts {n * int(l.split()[1])}\n")
            elif k == "comm":
                continue
            else:
                f.write(l + "\n")
        for c in range(n):
            f.write(f"comm {cid(c, 0)} " + " ".join(str(c * ranks + r) for r in range(ranks)) + "\n")
            for l in header:
                if l.startswith("comm "):
                    p = l.split()
                    f.write(f"comm {cid(c, ids.index(p[1]) + 1)} " +
                            " ".join(str(c * ranks + int(r)) for r in p[2:]) + "\n")
        for c in range(n):
            sub = {i: cid(c, k + 1) for k, i in enumerate(ids)}
            for l in body:
                if not l or l.startswith("#"):
                    continue
                if l.startswith("rank "):
                    f.write(f"rank {c * ranks + int(l.split()[1])}\n")
                    continue
                kind = l.split(" ", 1)[0]
                l = re.sub(r"\b(comm|new_comm)=(\d+)",
                           lambda m: f"{m.group(1)}={sub.get(m.group(2), m.group(2))}", l)
                if kind not in NO_COMM and " comm=" not in l:
                    l += f" comm={cid(c, 0)}"
                f.write(l + "\n")
    try:
        subprocess.run([netloom, "trace", "encode", text, out], check=True)
    finally:
        os.unlink(text)


if __name__ == "__main__":
    main()
