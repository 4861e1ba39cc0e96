#!/usr/bin/env python3
"""Two `netloom compare` at once on one report directory (docs/procurement.md,
"Several compares at once"), as on a shared machine or a cluster's shared
filesystem: one study run twice, and two studies sharing DIR's cache.

Checked: both end with status 0; report.json, report.md, index.html and
every cache entry parse whole at every poll while they run; each page has
all its plots (they shared one temporary name, DIR/.plot.svg.tmp, and
truncated, read and removed each other's: a plot "not drawn" in 10 runs of
10); the three report files are one study's; a file of another process
under that old name is left alone; the report's renames wait for
DIR/.report.lock (held here by this script); and a re-run from the shared
cache gives the report a cold run gives, every cache entry byte for byte
a cold run's.

usage: compare_concurrent.py NETLOOM SOURCE_ROOT
"""
import fcntl
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL:", msg)


def study(path, root, seeds, torus):
    s = f"{root}/traces/samples"
    with open(path, "w") as f:
        f.write(f"[study]\nbackend = analytic\nseeds = {seeds}\npreset = flex\nreference = torus\n"
                f"[system torus]\ntopology = torus:k={torus}\nrouting_function = dor\nlink_model = links\n"
                f"[system fattree]\ntopology = fattree:k=4,n=2\nlink_model = links\n"
                f"[workload lammps]\ntrace = {s}/lammps-lj-8.nlt\nplacement = random-node\n"
                f"[workload hpcc]\ntrace = {s}/hpcc-8.nlt\n")


def poll(d, what):
    """Every file of DIR that exists now must be whole."""
    for name in ("report.json", "report.md", "index.html"):
        try:
            b = open(os.path.join(d, name), "rb").read()
        except FileNotFoundError:
            continue
        whole = {"report.json": lambda: json.loads(b) is not None,
                 "report.md": lambda: b.endswith(b"\n"),
                 "index.html": lambda: b.rstrip().endswith(b"</html>")}[name]
        try:
            ok = whole()
        except ValueError:
            ok = False
        if not ok:
            fail(f"{what}: {name} read cut ({len(b)} bytes)")
    for p in glob.glob(os.path.join(d, "cache", "*.json")):
        try:
            json.loads(open(p, "rb").read())
        except FileNotFoundError:
            pass
        except ValueError:
            fail(f"{what}: cache entry {os.path.basename(p)} read cut")


def strip(path):
    d = json.load(open(path))
    d.pop("execution")
    return d


def main():
    netloom, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    env = dict(os.environ, NETLOOM_PROGRESS="0")
    tmp = tempfile.mkdtemp(prefix="nl-cmpconc-")
    os.chdir(tmp)
    study("a.ini", root, 3, "4x4")
    study("b.ini", root, 4, "2x8")

    def run(args):
        return subprocess.Popen([netloom, "compare", *args], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

    # Cold runs, one at a time: the reference.
    for s in ("a", "b"):
        p = run([f"{s}.ini", "-o", f"cold-{s}"])
        out, err = p.communicate()
        if p.returncode:
            fail(f"cold {s}: status {p.returncode}: {err.decode()}")

    for case, studies in (("same study", ("a", "a")), ("two studies", ("a", "b"))):
        for it in range(3):
            d = f"{case[:3]}{it}"
            ps = [run([f"{s}.ini", "-o", d]) for s in studies]
            n_polls = 0
            while any(p.poll() is None for p in ps):
                poll(d, f"{case} #{it}")
                n_polls += 1
            for p in ps:
                out, err = p.communicate()
                if p.returncode:
                    fail(f"{case} #{it}: status {p.returncode}: {err.decode()}")
            poll(d, f"{case} #{it}, after")
            page = open(os.path.join(d, "index.html"), "rb").read()
            drawn = page.count(b"<svg")
            if b"not drawn" in page or drawn != 5:
                why = re.findall(rb"not drawn: [^<]*", page)
                fail(f"{case} #{it}: {drawn} plots of 5 drawn: {why[:1]}")
            md = open(os.path.join(d, "report.md")).readline().strip()
            title = re.search(rb"<title>netloom compare: ([^<]*)", page).group(1).decode()
            js = json.load(open(os.path.join(d, "report.json")))["study"]["path"]
            if not (md == f"# netloom compare: {js}" and title == js):
                fail(f"{case} #{it}: a mixed report: report.json {js}, report.md {md!r}, index.html {title}")
            left = [f for f in os.listdir(d) + os.listdir(os.path.join(d, "cache")) if ".tmp" in f]
            if left:
                fail(f"{case} #{it}: temporary files left: {left}")
            if n_polls < 10:
                fail(f"{case} #{it}: polled {n_polls} times only")

    # The shared cache, re-read by each study: the report a cold run
    # gives, and every entry a cold run's bytes.
    shared = "two2"
    for s in ("a", "b"):
        w = f"warm-{s}"
        shutil.copytree(shared, w)
        p = run([f"{s}.ini", "-o", w])
        out, err = p.communicate()
        if p.returncode or b"(0 executed" not in out:
            fail(f"warm {s}: status {p.returncode}, {out.decode().strip()}: expected every run from the cache")
        if strip(f"{w}/report.json") != strip(f"cold-{s}/report.json"):
            fail(f"warm {s}: report.json differs from a cold run's")
        for e in glob.glob(f"cold-{s}/cache/*.json"):
            got = os.path.join(shared, "cache", os.path.basename(e))
            if open(e, "rb").read() != open(got, "rb").read():
                fail(f"cache entry {os.path.basename(e)}: not a cold run's")

    # A file of another process under the old fixed name: left alone.
    os.makedirs("other")
    with open("other/.plot.svg.tmp", "w") as f:
        f.write("another compare's plot\n")
    p = run(["a.ini", "-o", "other"])
    p.communicate()
    if not os.path.exists("other/.plot.svg.tmp") or open("other/.plot.svg.tmp").read() != "another compare's plot\n":
        fail("another process's other/.plot.svg.tmp truncated or replaced")
    elif sorted(os.listdir("other")) != [".plot.svg.tmp", ".report.lock", "cache", "index.html", "report.json",
                                         "report.md"]:
        fail(f"other: files {sorted(os.listdir('other'))}")

    # The renames wait for DIR/.report.lock: held here, the report stays
    # staged (report.json.tmpXXXXXX) and the command waits; released, it
    # is put in place.
    os.makedirs("locked")
    lock = open("locked/.report.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    p = run(["a.ini", "-o", "locked"])
    staged = False
    for _ in range(1200):
        if glob.glob("locked/index.html.tmp*"):
            staged = True
            break
        time.sleep(0.05)
    time.sleep(1)
    if not staged or p.poll() is not None or os.path.exists("locked/report.json"):
        fail(f"locked: staged {staged}, status {p.poll()}, report.json {os.path.exists('locked/report.json')}: "
             "expected the command waiting for the lock, its report staged")
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()
    out, err = p.communicate(timeout=120)
    if p.returncode or strip("locked/report.json") != strip("cold-a/report.json"):
        fail(f"locked: after the release, status {p.returncode}: {err.decode()}")

    if not FAILS:
        shutil.rmtree(tmp)
    print(f"{len(FAILS)} failures" if FAILS else "ok")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
