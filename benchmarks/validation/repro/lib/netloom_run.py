"""Shared by the reproduction scripts: one netloom run or sweep, its JSON
results (`netloom CMD -s KEY=VALUE ... ARGS --json FILE --reproducible`)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile


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
