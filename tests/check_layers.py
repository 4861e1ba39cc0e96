#!/usr/bin/env python3
"""Enforced layering (docs/ARCHITECTURE.md, "Layers"; issue 10 part 5).

Every project include in emu/, traces/ and adapters/ must point down the
layer order, or into its own module. Another module's `*_internal.h` is
never included. The public header netloom/netloom.h may be included by
anyone. Prints one line per violation (file:line: what, and what the
module may include) and exits 1; exits 0 when the tree is clean.

usage: check_layers.py SOURCE_ROOT [FILE...]   (FILEs: check only these)
       check_layers.py --selftest SOURCE_ROOT  (first checks that the check bites)"""
import os
import re
import sys

# module -> the modules it may include (besides itself). The order:
#   cli -> session -> analyze, place, layout -> app -> net
#       -> route, traffic -> topo -> core;  app -> traces -> core
LOWER = {
    "core": set(),
    "topo": {"core"},
    "route": {"topo", "core"},
    "traffic": {"topo", "core"},
    "traces": {"core"},
    "net": {"route", "traffic", "topo", "core"},
    "app": {"net", "route", "traffic", "topo", "traces", "core"},
}
for m in ("analyze", "place", "layout"):
    LOWER[m] = LOWER["app"] | {"app"}
LOWER["session"] = LOWER["analyze"] | {"analyze", "place", "layout"}
LOWER["cli"] = LOWER["session"] | {"session", "adapters"}
# adapters/ is a client of the session layer (session_src_*: the replay
# wiring over its ranks as an op source), reads the app's op source and
# results types, and writes the ranks' ops as traces.
LOWER["adapters"] = {"session", "app", "traces", "core"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def module_of(rel):
    """emu/net/x.c -> net; traces/record/y.c -> traces; adapters/... -> adapters."""
    parts = rel.split(os.sep)
    if parts[0] == "emu" and len(parts) > 2:
        return parts[1]
    if parts[0] in ("traces", "adapters"):
        return parts[0]
    return None


def target_of(inc):
    """"net/net.h" -> net; "traces/trace.h" -> traces; None for local/public."""
    parts = inc.split("/")
    if len(parts) < 2 or parts[0] == "netloom":
        return None
    return parts[0]


def check(root, files):
    bad = []
    for rel in files:
        mod = module_of(rel)
        if mod is None:
            continue
        if mod not in LOWER:
            bad.append(f"{rel}: module '{mod}' has no place in the layer order (tests/check_layers.py)")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                tgt = target_of(inc)
                if tgt is None or tgt == mod:
                    continue
                allowed = LOWER[mod]
                if tgt not in allowed and tgt in LOWER:
                    bad.append(f"{rel}:{n}: {mod} includes \"{inc}\", a module above or beside it "
                               f"(it may include: {', '.join(sorted(allowed)) or 'nothing'})")
                elif os.path.basename(inc).endswith("_internal.h"):
                    bad.append(f"{rel}:{n}: {mod} includes \"{inc}\", another module's internal header")
    return bad


def selftest():
    """The check bites: an upward, a sideways and an internal include."""
    import tempfile
    cases = {
        "emu/net/up.c": '#include "app/app.h"\n',
        "emu/layout/side.c": '#include "place/place.h"\n',
        "emu/cli/peek.c": '#include "net/net_internal.h"\n',
        "traces/up.c": '#include "net/net.h"\n',
        "emu/topo/fine.c": '#include "core/error.h"\n#include "topo/topo_internal.h"\n#include "netloom/netloom.h"\n',
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in cases.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        bad = check(root, sorted(cases))
    flagged = sorted({b.split(":")[0] for b in bad})
    want = sorted(k for k in cases if not k.endswith("fine.c"))
    if flagged != want:
        print(f"selftest: flagged {flagged}, expected {want}")
        return 1
    return 0


def main():
    if sys.argv[1] == "--selftest":
        return selftest() or main_tree(sys.argv[2])
    return main_tree(sys.argv[1])


def main_tree(root):
    files = sys.argv[2:] if sys.argv[1] != "--selftest" else []
    if not files:
        for top in ("emu", "traces", "adapters"):
            for d, _, names in os.walk(os.path.join(root, top)):
                for nm in sorted(names):
                    if nm.endswith((".c", ".h")):
                        files.append(os.path.relpath(os.path.join(d, nm), root))
    bad = check(root, sorted(files))
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} upward or sideways includes")
        return 1
    print(f"ok: {len(files)} files, every include points down the layer order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
