"""Shared by the reproduction scripts: one netloom run or sweep, its JSON
results (`netloom CMD -s KEY=VALUE ... ARGS --json FILE --reproducible`)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def command_line(usage, doc, options=(), most=2):
    """The command line of a reproduction script, NETLOOM OUTDIR and what
    `usage` (its one line, "usage: NAME NETLOOM OUTDIR ...") adds, checked
    before any run. -h or --help prints doc (which holds the usage) on
    stdout, exit 0. Any other argument starting with '-' that is not in
    options is refused with one line on stderr, exit 2, as reproduce.sh
    refuses one (it was taken for NETLOOM or OUTDIR). Fewer than two other
    arguments, or more than most (None: no limit), print usage on stderr,
    exit 1. Returns (the other arguments, the options given)."""
    name = usage.split()[1]
    args = sys.argv[1:]
    if "-h" in args or "--help" in args:
        print(doc.strip())
        sys.exit(0)
    positional, given = [], set()
    for a in args:
        if a.startswith("-") and a != "-":
            if a not in options:
                print(f"{name}: unknown option '{a}' ({usage})", file=sys.stderr)
                sys.exit(2)
            given.add(a)
        else:
            positional.append(a)
    if len(positional) < 2 or (most is not None and len(positional) > most):
        sys.exit(usage)
    return positional, given


def results(netloom, cmd, settings, args=()):
    """The "results" object of `netloom CMD` with the settings (KEY=VALUE
    strings) and extra arguments; raises CalledProcessError on failure."""
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    argv = [netloom, cmd]
    for kv in settings:
        argv += ["-s", kv]
    argv += list(args) + ["--json", path, "--reproducible"]
    try:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.load(f)["results"]
    finally:
        os.unlink(path)


def xrange_around(xs, log=False):
    """A gnuplot command setting the x range of a plot whose points all
    share one x (a sweep of a single load, a single network size): half
    that x either side on a linear axis (1 either side of 0), one halving
    and one doubling on a logarithmic one. Left to itself gnuplot says
    "Warning: empty x range [x:x], adjusting to ..." on stderr and draws a
    window 1 % wide. "" when the xs differ or there are none."""
    distinct = set(xs)
    if len(distinct) != 1:
        return ""
    x = distinct.pop()
    if log:
        return "set xrange [%g:%g]" % (x / 2, x * 2) if x > 0 else ""
    half = abs(x) / 2 if x else 1
    return "set xrange [%g:%g]" % (x - half, x + half)


def have_gnuplot(svg):
    """True when gnuplot is on PATH. Without it (optional), says in one line
    on stderr that svg is not drawn and removes an svg an earlier run left
    there, so no plot stays beside a table it does not show."""
    if shutil.which("gnuplot"):
        return True
    print(f"gnuplot not found: {svg} not drawn (apt-get install gnuplot-nox for the plots)", file=sys.stderr)
    if os.path.exists(svg):
        os.unlink(svg)
    return False
