#!/usr/bin/env python3
"""The netloom command lines the documentation shows still run.

Usage: docs_examples.py NETLOOM SOURCE_ROOT [--list]. Exit 0 pass, 1 fail.
--list prints every documented command with its file, line and what the
test does with it (run, skip and why), and runs nothing.

A documented command is a line of a code block (fenced, or indented by four
spaces) of README.md or docs/*.md whose command word is `netloom` or
`build/netloom`, also behind `mpirun ...`, `srun ...` or `/usr/bin/time ...`:
a leading `$ ` is stripped, backslash continuations are joined and a
trailing `# comment` the shell would drop is dropped. In a block with `$ `
prompts the lines up to the next prompt are the command's output; other
blocks hold commands only.

How they run: the commands of one code block in order, in one fresh
temporary directory that holds a symbolic link to every top-level entry of
the source tree (so traces/samples/..., docs/examples/... and benchmarks/...
resolve as from the repository root), build/netloom (a link to the netloom
under test, also first on PATH as `netloom`) and the fixtures below: links
rather than rewritten paths, so the text that runs is the doc's, and a
command's outputs land in the temporary directory. Each command runs as
`bash -c COMMAND` with NETLOOM_PROGRESS=0, so its redirections work; `/tmp/`
in a command is replaced by that directory, so nothing is written outside
it. Of the other lines of a block only `cd DIR` and `awk ...` run (they make
what a later netloom line reads); a `cd` into the tree is followed (the
commands shown after one write only to /tmp/). About 30 s in all on a
2-core machine, twice that beside the rest of the suite; a command still
running after 60 s fails (skip it as 'takes N s').

Every command must exit 0 unless SKIP below names its exact text with the
reason it cannot run as written; a SKIP entry that matches no documented
command fails the test, as does a command neither run nor skipped. Where a
`$ ` block shows output after a command, the output is compared: as JSON
(equal after parsing) when the doc's block parses as JSON, else line by
line (trailing blanks ignored; the doc's lines up to a `...` line). A
JSON object's `netloom_build` shown in the doc stands for any build's
(it names the commit netloom was built from), so it is compared only as
a string.
README.md's quick-start block is checked by readme_quickstart, not here.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# Files a documented command names that are not in the tree as such:
# name in the temporary directory -> how it is made.
FIXTURES = {
    # BookSim2's examples/torus88 config, which configuration.md and
    # results.md convert and run (the copy kept as a fuzz seed).
    "torus8x8.cfg": ("copy", "tests/fuzz/corpus/booksim/torus8x8.cfg"),
    "torus8x8.ini": ("netloom", "config --from-booksim torus8x8.cfg"),
}

# Documented commands not runnable as written: exact text -> reason.
SKIP = {
    # Usage synopses: placeholders in capitals, options in brackets.
    "netloom config [-c FILE] [-s key=value]... [--dump | --json | --check]": "usage synopsis",
    "netloom config --from-booksim BOOKSIM_CONFIG": "usage synopsis",
    "netloom cost SPEC [--preset P] [--layout auto|rule|anneal] [--json OUT]": "usage synopsis",
    "netloom layout SPEC [--svg OUT] [--longest N] [--lengths OUT] [cost's options but --json, --list-presets]":
        "usage synopsis",
    "netloom replay TRACE -s topology=SPEC -s cable_latency=1 [-s propagation_ns_per_m=5.0]": "usage synopsis",
    "netloom interfere WORKLOAD -c SYSTEM.ini [-s key=value]... [-j N] [--json OUT|-] [--plot OUT.svg|-] [--top N]":
        "usage synopsis",
    "netloom compare STUDY.ini -o DIR [-j N]": "usage synopsis",
    "netloom replay TRACE [-c SYSTEM.ini]... [-s key=value]... [--topology SPEC]... [-j N] [--json OUT] [--csv] "
    "[--otf2 DIR] [--svg FILE]": "usage synopsis",
    # After `meson install --prefix ~/.local`: test api_install runs the
    # installed netloom on the installed sample and checks the examples'.
    "netloom replay ~/.local/share/netloom/samples/lammps-lj-16.nlt": "the installed samples (api_install)",
    "netloom interfere ~/.local/share/doc/netloom/docs/examples/interfere-workload.ini -c "
    "~/.local/share/doc/netloom/docs/examples/interfere-system.ini": "the installed examples (api_install)",
    # Placeholders for the reader's own files.
    "build/netloom config --from-booksim mybooksim.cfg > mine.ini": "mybooksim.cfg: the reader's BookSim2 file",
    "build/netloom sweep -c mine.ini --rates 0.05:0.5:0.05 --json curve.json --plot curve.svg":
        "mine.ini: written by the line above from the reader's BookSim2 file",
    "netloom run -c my.ini -s threads=2": "my.ini: the reader's configuration",
    "netloom run -c my.ini -s threads=0": "my.ini: the reader's configuration",
    "netloom run -c my.ini -s threads=2 -s partitions=2": "my.ini: the reader's configuration",
    # Too slow for this test.
    "build/netloom compare docs/examples/table6-study.ini -o table6-report/ -j 2":
        "takes about 60 s (procurement.md's first run: 61.4 s at -j 2 on the shared machine); "
        "its trace is written by the python3 line above it",
    "netloom run --csv --reproducible -s num_vcs=6 -s vc_buf_size=32 -s flow_control=vct -s packet_size=1 "
    "-s channel_latency=1 -s routing_delay=1 -s vc_alloc_delay=1 -s sw_alloc_delay=1 -s st_final_delay=1 "
    "-s vc_allocator=separable_input_first -s sw_allocator=islip -s input_speedup=2 -s sequential_allocation=1 "
    "-s internal_speedup=2 -s topology=hyperx:s=8x8x8,t=8 -s routing_function=minad:block=0,queue=2 "
    "-s traffic=uniform -s seed=1 -s injection_rate=1.0 -s sim_type=throughput -s warmup_periods=1 "
    "-s sample_period=1000 -s max_samples=3 -s acc_stopping_thres=0 -s max_drain_cycles=0": "takes 40-60 s",
    "netloom replay traces/samples/lammps-lj-16.nlt -s backend=flit --topology torus:k=4x4 "
    "--topology dragonfly:a=4,p=2,h=2,g=2 --topology fattree:k=4,n=2":
        "takes 12 s; scripts/run.sh's default job, which readme_quickstart runs and checks",
    # Elided options.
    "netloom serve -c system.ini --ranks 6 --trace traces/samples/hpcc-8.nlt ...": "options elided ('...')",
    "netloom run -s topology=ndt:k=4x4x2x2x2 -s routing_function=tsdor -s num_vcs=8 -s traffic_classes=4 ...":
        "options elided ('...')",
    # A live session: serve waits for client processes.
    "netloom serve -c system.ini --ranks 4 --listen ipc:///tmp/nl.sock --record session.nlt --json report.json":
        "a live session: serves until its 4 client ranks connect and finish",
    "netloom serve -c system.ini --ranks 8 --jobs 4,4 --listen ipc:///tmp/nl.sock &":
        "a live session of two jobs: serves until its 8 client ranks connect and finish (live.py jobs_examples)",
    "netloom serve -c system.ini --ranks 2 --listen tcp://10.0.0.1:5555 --allow-remote --curve-key server.key "
    "--curve-allow allowed": "a live session on another host's address, waiting for its clients",
    # MPI launchers.
    "mpirun -np 4 netloom run -c my.ini --json out.json": "mpirun; my.ini: the reader's configuration",
    "mpirun -np 8 --hostfile hosts netloom run -c my.ini -s threads=2": "mpirun with the reader's hostfile",
    "mpirun -np 2 netloom sweep -c my.ini --rates 0.1:0.9:0.1": "mpirun; my.ini: the reader's configuration",
    "mpirun -np 4 netloom replay app.nlt -c system.ini -s backend=flit": "mpirun; app.nlt: the reader's trace",
    "mpirun -np 4 netloom sweep -c my.ini --rates 0.1:0.9:0.1 --spread points":
        "mpirun; my.ini: the reader's configuration",
    "mpirun -np 4 netloom compare study.ini -o report": "mpirun; study.ini: the reader's study",
    "srun --mpi=pmix netloom run -c big.ini -s threads=2 -s partitioner=metis --json big.json":
        "a Slurm job script (srun); big.ini: the reader's configuration",
    '/usr/bin/time -f "%e s" mpirun -np 2 build/netloom run -c ft_anca.ini -s injection_rate=0.3 --reproducible':
        "mpirun (tests/e2e/mpi_upstream.sh runs the same)",
    "mpirun -np 4 netloom sweep -c my.ini --rates 0.05:0.8:0.05 --spread points --json curve.json":
        "mpirun; my.ini: the reader's configuration",
    "mpirun -np 4 netloom compare study.ini -o report -j 2": "mpirun; study.ini: the reader's study",
}

SUBCOMMANDS = ("run", "sweep", "config", "version", "trace", "topo", "design", "replay", "serve", "cost",
               "layout", "interfere", "compare")
WRAPPERS = ("mpirun", "srun", "/usr/bin/time")
HELPERS = ("cd", "awk")
TIMEOUT_S = 60


def strip_comment(line):
    """The line without a `# comment` the shell would drop (a # starting a
    word outside quotes)."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
        i += 1
    return line.rstrip()


def is_netloom(cmd):
    """Whether the command line runs netloom (with a subcommand word)."""
    try:
        words = shlex.split(cmd)
    except ValueError:
        words = cmd.split()
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        words = words[1:]
    if not words:
        return False
    if words[0] in WRAPPERS:
        rest = [i for i, w in enumerate(words) if w in ("netloom", "build/netloom")]
        if not rest:
            return False
        words = words[rest[0]:]
    return words[0] in ("netloom", "build/netloom") and len(words) > 1 and words[1] in SUBCOMMANDS


def code_blocks(text):
    """(first line number, lines) of each fenced or indented code block."""
    lines = text.split("\n")
    blocks = []
    i = 0
    prev_blank = True
    while i < len(lines):
        m = re.match(r"^(\s*)(```+|~~~+)", lines[i])
        if m:
            fence = m.group(2)
            start = i + 1
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                i += 1
            blocks.append((start + 1, lines[start:i]))
            i += 1
            prev_blank = False
            continue
        if prev_blank and lines[i].startswith("    ") and lines[i].strip():
            start = i
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                i += 1
            blocks.append((start + 1, lines[start:i]))
            prev_blank = True
            continue
        prev_blank = not lines[i].strip()
        i += 1
    return blocks


def block_items(lines):
    """The block as a list of (line offset, kind, text, output lines): kind
    'netloom' (a documented command), 'helper' (another command line) or
    'other' (prose-like lines of a synopsis, not run)."""
    prompt = any(l.lstrip().startswith("$ ") for l in lines)
    items = []
    i = 0
    while i < len(lines):
        raw = lines[i].strip()
        at = i
        i += 1
        if prompt:
            if not raw.startswith("$ "):
                continue
            raw = raw[2:]
        if not raw or raw.startswith("#"):
            continue
        while raw.endswith("\\") and i < len(lines):
            raw = raw[:-1].rstrip() + " " + lines[i].strip()
            i += 1
        cmd = strip_comment(raw)
        out = []
        if prompt:
            while i < len(lines) and not lines[i].strip().startswith("$ "):
                out.append(lines[i].rstrip())
                i += 1
            while out and not out[-1]:
                out.pop()
        if is_netloom(cmd):
            kind = "netloom"
        elif cmd.split()[0] in HELPERS:
            kind = "helper"
        else:
            kind = "other"
        items.append((at, kind, cmd, out))
    return items


def documented(root):
    """[(file, first line, [(line, kind, command, output)])] of the blocks
    that hold at least one netloom command."""
    files = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    found = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            text = fh.read()
        for first, lines in code_blocks(text):
            items = [(first + at, kind, cmd, out) for at, kind, cmd, out in block_items(lines)]
            if any(kind == "netloom" for _, kind, _, _ in items):
                found.append((f, first, items))
    return found


def compare_output(want, got):
    """None when the run's stdout shows what the doc shows, else why not."""
    text = "\n".join(want)
    try:
        want_json = json.loads(text)
    except ValueError:
        want_json = None
    if want_json is not None:
        try:
            got_json = json.loads(got)
        except ValueError as e:
            return f"the doc shows JSON, the output is not ({e})"
        # The doc's build id is an example: any build's string matches it.
        if isinstance(want_json, dict) and isinstance(got_json, dict) and \
                isinstance(want_json.get("netloom_build"), str) and isinstance(got_json.get("netloom_build"), str):
            want_json = dict(want_json, netloom_build=got_json["netloom_build"])
        if got_json == want_json:
            return None
        diff = [k for k in sorted(set(want_json) | set(got_json)) if want_json.get(k) != got_json.get(k)] \
            if isinstance(want_json, dict) and isinstance(got_json, dict) else []
        return "JSON differs" + (": " + "; ".join(f"{k}: doc {want_json.get(k)!r}, now {got_json.get(k)!r}"
                                                 for k in diff) if diff else "")
    if "..." in [l.strip() for l in want]:
        want = want[:[l.strip() for l in want].index("...")]
    got_lines = [l.rstrip() for l in got.split("\n")]
    want = [l.rstrip() for l in want]
    if got_lines[:len(want)] == want:
        return None
    for n, (w, g) in enumerate(zip(want, got_lines + [""] * len(want))):
        if w != g:
            return f"output line {n + 1}: doc {w!r}, now {g!r}"
    return None


def make_dir(top, root, netloom, fixtures_dir):
    d = tempfile.mkdtemp(prefix="block-", dir=top)
    for entry in os.listdir(root):
        if entry not in ("build", ".git"):
            os.symlink(os.path.join(root, entry), os.path.join(d, entry))
    os.mkdir(os.path.join(d, "build"))
    os.symlink(netloom, os.path.join(d, "build", "netloom"))
    for name in FIXTURES:
        shutil.copy(os.path.join(fixtures_dir, name), os.path.join(d, name))
    return d


def make_fixtures(top, root, netloom, env):
    d = os.path.join(top, "fixtures")
    os.mkdir(d)
    for name, (how, what) in FIXTURES.items():
        if how == "copy":
            shutil.copy(os.path.join(root, what), os.path.join(d, name))
        else:
            with open(os.path.join(d, name), "wb") as fh:
                subprocess.run([netloom, *what.split()], cwd=d, env=env, stdout=fh, check=True)
    return d


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: docs_examples.py NETLOOM SOURCE_ROOT [--list]")
    netloom = os.path.abspath(sys.argv[1])
    root = os.path.abspath(sys.argv[2])
    listing = "--list" in sys.argv[3:]
    t_all = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="netloom-docs-") as top:
        fails, n_run, n_skip = run_all(top, root, netloom, listing)
    for msg in fails:
        print("FAIL: " + msg, file=sys.stderr)
    print(f"{n_run} documented commands run, {n_skip} skipped, {len(fails)} failures"
          + ("" if listing else f", {time.monotonic() - t_all:.1f} s"))
    sys.exit(1 if fails else 0)


def run_all(top, root, netloom, listing):
    """Runs (or lists) every documented command; (failures, run, skipped)."""
    blocks = documented(root)
    fails = []
    used = set()
    n_run = n_skip = 0
    bindir = os.path.join(top, "bin")
    os.mkdir(bindir)
    os.symlink(netloom, os.path.join(bindir, "netloom"))
    env = dict(os.environ, NETLOOM_PROGRESS="0", PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    fixtures = None if listing else make_fixtures(top, root, netloom, env)
    for f, first, items in blocks:
        d = None if listing else make_dir(top, root, netloom, fixtures)
        cwd = d
        for line, kind, cmd, out in items:
            where = f"{f}:{line}"
            if kind == "other":
                continue
            if kind == "helper":
                if listing:
                    continue
                if cmd.split()[0] == "cd":
                    cwd = os.path.normpath(os.path.join(cwd, shlex.split(cmd)[1]))
                else:
                    subprocess.run(["bash", "-c", cmd.replace("/tmp/", d + "/")], cwd=cwd, env=env,
                                   capture_output=True, timeout=TIMEOUT_S)
                continue
            if cmd in SKIP:
                used.add(cmd)
                n_skip += 1
                if listing:
                    print(f"{where}: skip ({SKIP[cmd]}): {cmd}")
                continue
            n_run += 1
            if listing:
                print(f"{where}: run{' and compare' if out else ''}: {cmd}")
                continue
            t0 = time.monotonic()
            try:
                p = subprocess.run(["bash", "-c", cmd.replace("/tmp/", d + "/")], cwd=cwd, env=env,
                                   capture_output=True, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                fails.append(f"{where}: {cmd}: still running after {TIMEOUT_S} s (skip it: 'takes N s')")
                continue
            dt = time.monotonic() - t0
            print(f"{dt:6.1f} s  exit {p.returncode}  {where}: {cmd}", flush=True)
            if p.returncode != 0:
                fails.append(f"{where}: {cmd}: exit {p.returncode}\n    stderr: "
                             + p.stderr.decode(errors="replace")[:600].rstrip())
                continue
            if out:
                why = compare_output(out, p.stdout.decode(errors="replace"))
                if why:
                    fails.append(f"{where}: {cmd}: {why}")
        if d:
            shutil.rmtree(d)
    for cmd in SKIP:
        if cmd not in used:
            fails.append(f"SKIP entry matches no documented command (the doc changed: update or remove it): {cmd}")
    return fails, n_run, n_skip


if __name__ == "__main__":
    main()
