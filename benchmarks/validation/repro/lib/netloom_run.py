"""Shared by the reproduction scripts: one netloom run or sweep, its JSON
results (`netloom CMD -s KEY=VALUE ... ARGS --json FILE --reproducible`)."""
import json
import os
import subprocess
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
