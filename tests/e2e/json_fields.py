#!/usr/bin/env python3
"""The JSON keys docs/results.md names are the keys the commands write.

Usage: json_fields.py NETLOOM SOURCE_ROOT REPLAY_MKTRACE. Exit 0 pass, 1 fail.

What is read from docs/results.md:
- the field tables (`| field | unit | definition |`) of the sections "JSON
  of `netloom run`", "A deadlocked point" and "JSON of `netloom sweep`":
  every backticked name of a row's first cell is a key path (`a.b`,
  `a.b[]` for an array's elements, `a.b[].c` a key of each element; a
  name starting with `.` replaces the last component of the name before
  it, as the table abbreviates `results.stuck.flits`, `.input_vcs`);
- the table of "JSON of the other commands": each row's command and its
  top-level keys, the backticked names of the second cell outside
  parentheses (a parenthesis says when the key before it is written).
  Every row's keys begin with the head, `netloom_version`, `netloom_build`,
  `command` (which build wrote the document), and `command` is the
  command's name (COMMAND below), but for the documents HEADLESS names.

Each command then runs on a small input (the samples in traces/samples/,
docs/examples/*.ini, torus:k=4x4) and its JSON is compared with the doc:
a key written but not documented fails, and so does a documented key not
written, unless OPTIONAL below names it with the reason it is absent
here. `run`, `sweep` and the deadlocked point are compared to every depth
(`config` as a whole: its keys are `netloom config --json`'s); the other
commands at the top level, in the documented order; `topo describe` also
to every depth against the field table of docs/analysis.md, and `replay`
by key name against the JSON outline of docs/replay.md ("Output"), on
small traces REPLAY_MKTRACE (tests/e2e/replay_mktrace.c) writes. A row of the doc's
table that this test cannot run, or a command here with no row, fails,
so a new command's JSON gets a row.

Types and units too, for `run`, `sweep` and the deadlocked point: each
value written has the JSON type of the section's example value at the
same path (integer, real, string, boolean, array; null only where the
field's definition says `null`), each key of the example is written, a
field with a unit in the table is a number (or an array of numbers), and
a `.unit` field is the string its definition gives. The CSV section's
header line is the header `sweep --csv` writes and its column table
names the same columns; the formats it gives hold, as do the columns it
says a deadlocked point's row and a point with no packet measured fill.
And every key written here whose name says picoseconds or nanoseconds
(`_ps`, `_ns`) is named in the doc's list "a time: seconds everywhere,
but ...". About 2 s.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# The commands run in SOURCE_ROOT (the doc's relative paths), so NETLOOM is made absolute.
NETLOOM, ROOT = os.path.abspath(sys.argv[1]), sys.argv[2]
MKTRACE = os.path.abspath(sys.argv[3])
ENV = dict(os.environ, NETLOOM_PROGRESS="0")
DOC = "docs/results.md"
FAILS = []
# Every key name the documents read here hold (a configuration's keys
# left out: inputs, not results), for check_time_units.
KEY_NAMES = set()

# Documented keys these runs do not write, with why: key path -> reason.
# A key listed here that the run does write is checked as any other.
OPTIONAL = {
    # The deadlock below is found by the global check (a frozen ring).
    "results.stuck.waited_cycles": "written by the local deadlock check only",
    "results.stuck.bound_cycles": "written by the local deadlock check only",
    # Each waiting VC has one or the other.
    "results.stuck.waiting[].out_vc": "only for a VC that holds its output VC",
    "results.stuck.waiting[].free_vc_in": "only for a VC waiting for a free output VC",
}
# topo describe's keys of sampled distances (optional_here).
SAMPLED = ("samples", "samples_requested", "confidence", "aspl_ci95", "diameter_bounds", "moore_ratio_bounds")

# The rows of "JSON of the other commands": command cell (backticks
# dropped) -> the runs whose top-level keys are checked (several runs of
# one row check the keys only some inputs write). {tmp} is a temporary
# directory; a run is (arguments, exit status, file the JSON is in or
# None for stdout).
SAMPLE = "traces/samples/pingpong-2.nlt"
ROWS = {
    "replay --json (one network)": [(["replay", SAMPLE, "--json", "-"], 0, None)],
    "replay --json (several --topology)": [
        (["replay", SAMPLE, "--topology", "torus:k=2x2", "--topology", "torus:k=4", "--json", "-"], 0, None)],
    # No client connects: both ranks are evicted (exit 1), the report is written.
    # With --trace the trace replays beside them all the same: beside_trace.
    "serve --json": [(["serve", "--ranks", "2", "--listen", "ipc://{tmp}/s.sock", "--connect-timeout-ms", "200",
                       "-q", "--json", "-"], 1, None),
                     (["serve", "--ranks", "2", "--listen", "ipc://{tmp}/t.sock", "--connect-timeout-ms", "200",
                       "-q", "--trace", SAMPLE, "--json", "-"], 1, None)],
    "interfere --json": [(["interfere", "docs/examples/interfere-workload.ini", "-c",
                           "docs/examples/interfere-system.ini", "-s", "backend=analytic", "-s", "link_model=links",
                           "--json", "-"], 0, None)],
    "compare's report.json": [(["compare", "docs/examples/compare-study.ini", "-o", "{tmp}/cmp"], 0,
                               "{tmp}/cmp/report.json")],
    "topo describe --json": [(["topo", "describe", "torus:k=4x4", "--json"], 0, None),
                             # physical_switches (a tree) and faults (--faults)
                             (["topo", "describe", "fattree:k=4,n=2", "--json", "--faults", "--trials", "2"], 0,
                              None),
                             # sampled distances (SAMPLED), the diameter then not exact
                             (["topo", "describe", "torus:k=8x8", "--json", "--samples", "4"], 0, None)],
    "topo export --format json": [(["topo", "export", "torus:k=2x2", "--format", "json"], 0, None)],
    # One cabinet, annealing asked (the default on a torus): the anneal keys.
    "cost --json": [(["cost", "torus:k=4x4", "--json", "-"], 0, None)],
    "design hyperx --json": [(["design", "hyperx", "--terminals", "64", "--radix", "16", "--bisection", "0.5",
                               "--json"], 0, None)],
    "design equality --json": [(["design", "equality", "--routers", "16", "--radix", "4", "--json"], 0, None)],
    "design flex|dragonfly|slimfly --json": [
        (["design", f, "--terminals", "64", "--radix", "16", "--json"], 0, None) for f in ("flex", "dragonfly",
                                                                                          "slimfly")],
    "trace info --json": [(["trace", "info", SAMPLE, "--json"], 0, None)],
    # No key names of its own: checked against run's `config` below.
    "config --json": [(["config", "--json", "-s", "topology=torus:k=4x4"], 0, None)],
}

# Each row's `command` value; the head keys are the first three it writes.
HEAD = ["netloom_version", "netloom_build", "command"]
COMMAND = {
    "replay --json (one network)": "replay",
    "replay --json (several --topology)": "replay",
    "serve --json": "serve",
    "interfere --json": "interfere",
    "compare's report.json": "compare",
    "topo describe --json": "topo describe",
    "cost --json": "cost",
    "design hyperx --json": "design hyperx",
    "design equality --json": "design equality",
    "trace info --json": "trace info",
}
# Rows without the head, with why.
HEADLESS = {
    "topo export --format json": "a network's description, read back as an input",
    "config --json": "the configuration itself, as the results embed it",
    "design flex|dragonfly|slimfly --json": "an array: no keys to hold it",
}

RUN = ["run", "-s", "topology=torus:k=4x4", "-s", "injection_rate=0.1", "--reproducible"]
# A ring without dateline classes deadlocks under tornado traffic
# (tests/e2e/cli_engine.py, case deadlock): exit 1, the point written.
DEADLOCK = ["-s", "topology=torus:k=8", "-s", "routing_function=dor:dateline=0", "-s", "num_vcs=1",
            "-s", "vc_buf_size=2", "-s", "packet_size=8", "-s", "traffic=tornado", "-s", "sim_type=throughput",
            "--reproducible"]


def fail(msg):
    FAILS.append(msg)


def sections(text):
    """{'## heading' text: body} of the document."""
    out, name = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            name = line[3:].strip()
            out[name] = []
        elif name:
            out[name].append(line)
    return out


def table_rows(lines, header):
    """The cells of the rows of the first table whose header starts so."""
    rows, inside = [], False
    for line in lines:
        if line.startswith(header):
            inside = True
            continue
        if inside:
            if not line.startswith("|"):
                break
            if line.startswith("|---"):
                continue
            # A `\|` inside a cell is a literal bar.
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append(cells)
    return rows


def field_paths(rows):
    """The key paths a field table names, `.x` expanded."""
    paths, last = [], None
    for cells in rows:
        for name in re.findall(r"`([^`]+)`", cells[0]):
            if name.startswith("."):
                if not last:
                    raise SystemExit(f"{DOC}: '{name}' with no full name before it")
                name = last.rsplit(".", 1)[0] + name
            paths.append(name)
            last = name
    return paths


def field_units(rows):
    """{key path: (unit cell, definition cell)} of a field table, `.x`
    expanded as field_paths does."""
    out, last = {}, None
    for cells in rows:
        for name in re.findall(r"`([^`]+)`", cells[0]):
            if name.startswith("."):
                name = last.rsplit(".", 1)[0] + name
            out[name] = (cells[1], cells[2])
            last = name
    return out


def example_json(lines):
    """The JSON example of a section, parsed: a fragment (`"results":
    {...}`) is read inside braces, and the sweep's `[ {...one run's
    "results"...}, ... ]` as an empty array. None if it has none."""
    text = "\n".join(lines)
    at = text.find("```json")
    if at < 0:
        return None
    block = text[at + 7:text.find("```", at + 7)]
    block = re.sub(r"\[\s*\{\.\.\.[^\]]*\]", "[]", block)
    for t in (block, "{" + block + "}"):
        try:
            return json.loads(t)
        except ValueError:
            pass
    raise SystemExit(f"{DOC}: a JSON example is not JSON: {block[:80]}")


def kind(v):
    """A JSON value's type as the doc's example shows it: jansson writes a
    real with a point (0.0) and an integer without, so the two differ."""
    if isinstance(v, bool):
        return "boolean"
    return {int: "integer", float: "real", str: "string", list: "array", dict: "object",
            type(None): "null"}[type(v)]


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def may_be_null(units, path):
    """A field whose definition says it can be `null`."""
    return "`null`" in units.get(path, ("", ""))[1]


def compare_types(what, units, example, data, path="", is_element=False):
    """Each value written has the type of the doc's example value at the
    same path (`...` placeholders and `config`, opaque, skipped): an
    integer where the example has one, a real where it has a real; null
    only where the field table says the field can be `null`. A key the
    example shows is written (unless OPTIONAL names it; an array's
    elements may differ in their keys, as `out_vc` and `free_vc_in`)."""
    if path == "config" or example == "...":
        return
    if isinstance(example, dict) and isinstance(data, dict):
        for k, x in example.items():
            p = f"{path}.{k}" if path else k
            if k == "...":
                continue
            if k in data:
                compare_types(what, units, x, data[k], p)
            elif not is_element and p not in OPTIONAL:
                fail(f"{what}: {DOC}'s example shows '{p}', which is not written")
        return
    if isinstance(example, list) and isinstance(data, list):
        shown = [x for x in example if x != "..."]
        if shown:
            for x in data:
                compare_types(what, units, shown[0], x, path + "[]", True)
        return
    if example is None or data is None:
        if (example is None) != (data is None) and not may_be_null(units, path):
            fail(f"{what}: '{path}' is {kind(data)} ({data!r}), {DOC}'s example shows {kind(example)}")
        return
    if kind(example) != kind(data):
        fail(f"{what}: '{path}' is {kind(data)} ({data!r}), {DOC}'s example shows {kind(example)} ({example!r})")


def lookup(data, path):
    """The values at a key path (`[]` takes each element)."""
    vals = [data]
    for part in path.split("."):
        name, each = (part[:-2], True) if part.endswith("[]") else (part, False)
        nxt = []
        for v in vals:
            if isinstance(v, dict) and name in v:
                x = v[name]
                nxt.extend(x if each and isinstance(x, list) else [x])
        vals = nxt
    return vals


def compare_units(what, units, data, prefix=""):
    """A field the table gives a unit is a number (or an array of numbers,
    or null where the definition says so); a `.unit` field is the string
    its definition opens with (`"cycles"`)."""
    for path, (unit, definition) in units.items():
        if not path.startswith(prefix):
            continue
        for v in lookup(data, path[len(prefix):]):
            if path.endswith(".unit"):
                m = re.match(r'`"([^"]+)"`', definition)
                if not m:
                    fail(f"{DOC}: '{path}': the definition does not open with the unit's value")
                elif v != m.group(1):
                    fail(f"{what}: '{path}' is {v!r}, {DOC} says {m.group(1)!r}")
            elif unit:
                ok = is_number(v) or (isinstance(v, list) and all(is_number(x) for x in v)) or (
                    v is None and may_be_null(units, path))
                if not ok:
                    fail(f"{what}: '{path}' is {v!r}, expected a number in {unit} as {DOC} says")


def written_paths(v, prefix=""):
    """Every key path of a JSON value: objects' keys, `[]` for the
    elements of an array of objects (an array of numbers is one value)."""
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            p = f"{prefix}.{k}" if prefix else k
            out.add(p)
            out |= written_paths(x, p)
    elif isinstance(v, list) and any(isinstance(x, dict) for x in v):
        out.add(prefix + "[]")
        for x in v:
            out |= written_paths(x, prefix + "[]")
    return out


def compare_deep(what, doc, opaque, data, root=""):
    """Fail for each key written but not among the documented paths (or
    inside an opaque one, documented as a whole) and each documented path
    not written (unless OPTIONAL names root + path)."""
    got = written_paths(data)
    documented = set(doc)
    for p in sorted(got):
        if p in documented or any(p.startswith(o + ".") or p.startswith(o + "[]") for o in opaque):
            continue
        # An object or array holding documented keys needs no row itself.
        if any(d.startswith(p + ".") or d.startswith(p + "[]") for d in documented):
            continue
        fail(f"{what}: key '{p}' is written but {DOC} does not document it")
    for d in doc:
        if d not in got and root + d not in OPTIONAL:
            fail(f"{what}: {DOC} documents '{d}', which is not written")


def netloom(args, code, tmp, out_file=None):
    args = [a.replace("{tmp}", tmp) for a in args]
    p = subprocess.run([NETLOOM, *args], capture_output=True, cwd=ROOT, env=ENV, timeout=120)
    if p.returncode != code:
        fail(f"netloom {' '.join(args)}: exit {p.returncode}, expected {code}: {p.stderr.decode()[:500]}")
        return None
    try:
        if out_file:
            with open(out_file.replace("{tmp}", tmp)) as f:
                d = json.load(f)
        else:
            d = json.loads(p.stdout)
        if not (args and args[0] == "config"):
            KEY_NAMES.update(key_names(d))
        return d
    except (OSError, ValueError) as e:
        fail(f"netloom {' '.join(args)}: no JSON: {e}")
        return None


def check_run_sweep(secs, tmp):
    run_rows = table_rows(secs["JSON of `netloom run`"], "| field")
    dead_rows = table_rows(secs["A deadlocked point"], "| field")
    sweep_rows = table_rows(secs["JSON of `netloom sweep`"], "| field")
    run_doc, dead_doc, sweep_doc = field_paths(run_rows), field_paths(dead_rows), field_paths(sweep_rows)
    # Types and units: the field tables' unit column and each section's
    # JSON example (the deadlocked point's and the sweep's are fragments
    # of `results`).
    run_units, dead_units = field_units(run_rows), field_units(dead_rows)
    sweep_units = {**run_units, **field_units(sweep_rows)}
    run_ex = example_json(secs["JSON of `netloom run`"])
    dead_ex = example_json(secs["A deadlocked point"])
    sweep_ex = example_json(secs["JSON of `netloom sweep`"])
    if not run_ex or not dead_ex or not sweep_ex:
        raise SystemExit(f"{DOC}: the JSON example of run, the deadlocked point or sweep not found")
    if not run_doc or not dead_doc or not sweep_doc:
        raise SystemExit(f"{DOC}: a field table of run, the deadlocked point or sweep not found")
    head = [p for p in run_doc if not p.startswith("results.")]
    point = [p[len("results."):] for p in run_doc if p.startswith("results.")]
    dead_point = [p[len("results."):] for p in dead_doc]
    # config: every configuration key, documented by docs/configuration.md
    # and `netloom config --json`, compared with that below.
    opaque = ["config"]

    d = netloom(RUN + ["--json", "-"], 0, tmp)
    if d:
        compare_deep("run", run_doc, opaque, d)
        compare_types("run", run_units, run_ex, d)
        compare_units("run", run_units, d)
        conf = netloom(ROWS["config --json"][0][0], 0, tmp)
        if conf is not None and set(conf) != set(d.get("config", {})):
            fail(f"run: config keys differ from netloom config --json's: {sorted(set(conf) ^ set(d['config']))}")
    d = netloom(["run", *DEADLOCK, "-s", "injection_rate=0.9", "--json", "-"], 1, tmp)
    if d:
        compare_deep("run (deadlocked point)", head + dead_doc, opaque, d)
        compare_types("run (deadlocked point)", dead_units, dead_ex, d)
        compare_units("run (deadlocked point)", dead_units, d)
    sweep_head = head + [p for p in sweep_doc if not p.startswith("results.points[]")]
    for what, args, code in (("sweep", RUN[1:] + ["--rates", "0.1:0.2:0.1"], 0),
                             ("sweep (deadlocked point)", DEADLOCK + ["--rates", "0.9:0.9:0.1"], 1)):
        d = netloom(["sweep", *args, "--json", "-"], code, tmp)
        if not d:
            continue
        points = d.get("results", {}).get("points")
        if not points:
            fail(f"{what}: no results.points")
            continue
        # Each point against the run's results, or the deadlocked point's.
        for i, pt in enumerate(points):
            compare_deep(f"{what}: results.points[{i}]", dead_point if pt.get("deadlock") else point, [], pt,
                         "results.")
            ex, units = (dead_ex, dead_units) if pt.get("deadlock") else ({"results": run_ex["results"]}, run_units)
            compare_types(f"{what}: results.points[{i}]", units, ex, {"results": pt})
            compare_units(f"{what}: results.points[{i}]", units, {"results": pt})
        outside = dict(d, results={k: v for k, v in d["results"].items() if k != "points"})
        compare_deep(what, [p for p in sweep_head if p != "results.points[]"], opaque, outside)
        saturation = {k: v for k, v in sweep_ex.get("results", {}).items() if k != "points"}
        compare_types(what, sweep_units, dict(run_ex, command="sweep", results=saturation), outside)
        compare_units(what, {k: v for k, v in sweep_units.items() if not k.startswith("results.points")}, outside)


def csv_rows(args, code, tmp):
    """The rows of `netloom ARGS --csv`, split at commas (None on failure)."""
    p = subprocess.run([NETLOOM, *args, "--csv"], capture_output=True, cwd=ROOT, env=ENV, timeout=120)
    if p.returncode != code:
        fail(f"netloom {' '.join(args)} --csv: exit {p.returncode}, expected {code}: {p.stderr.decode()[:300]}")
        return None
    return [line.split(",") for line in p.stdout.decode().splitlines()]


def check_csv(secs, tmp):
    """The section "CSV (`--csv`)": its header line is the header written,
    its column table names each column once, the formats it gives hold
    (rates to 6 significant digits, wall_seconds to 3 decimals), and so do
    the columns it says a deadlocked point's row and a point that
    measured no packet fill."""
    lines = secs.get("CSV (`--csv`)", [])
    text = "\n".join(lines)
    at = text.find("```")
    header = text[at + 3:text.find("```", at + 3)].strip().splitlines()[0].split(",") if at >= 0 else None
    table = [n for cells in table_rows(lines, "| column") for n in re.findall(r"`([^`]+)`", cells[0])]
    m = re.search(r"A deadlocked point's row has (.*?) and empty measurement columns", " ".join(lines))
    if not header or not table or not m:
        raise SystemExit(f"{DOC}: the CSV header, its column table or the deadlocked row's columns not found")
    dead_cols = re.findall(r"`([^`]+)`", m.group(1))
    if table != header:
        fail(f"{DOC}: the CSV column table names {table}, its header line {header}")
    rows = csv_rows(["sweep", *RUN[1:], "--rates", "0.1:0.2:0.1"], 0, tmp)
    if rows:
        if rows[0] != header:
            fail(f"sweep --csv: header {rows[0]}, {DOC} shows {header}")
        if len(rows) != 3:
            fail(f"sweep --csv: {len(rows) - 1} rows for 2 rates")
        for r in rows[1:]:
            row = dict(zip(rows[0], r))
            if len(r) != len(rows[0]) or any(v == "" for v in r):
                fail(f"sweep --csv: a measured point's row {r} has empty or missing columns")
            for c in ("offered", "injected", "accepted"):
                if len(re.sub(r"^0\.0*|[.-]", "", row.get(c, ""))) > 6:
                    fail(f"sweep --csv: {c} {row.get(c)} has more than the 6 significant digits {DOC} gives")
            if not re.fullmatch(r"\d+\.\d{3}", row.get("wall_seconds", "")):
                fail(f"sweep --csv: wall_seconds {row.get('wall_seconds')!r}, {DOC} gives 3 decimals")
    rows = csv_rows(["sweep", *DEADLOCK, "--rates", "0.9:0.9:0.1"], 1, tmp)
    if rows and len(rows) == 2:
        filled = [c for c, v in zip(rows[0], rows[1]) if v != ""]
        if filled != dead_cols or dict(zip(rows[0], rows[1])).get("stable") != "0":
            fail(f"sweep --csv, a deadlocked point: columns {filled} filled ({rows[1]}), {DOC} says {dead_cols}, "
                 "stable 0")
    # A point that measured no packet (docs/results.md, "Table"): the six
    # latency and hop columns empty.
    rows = csv_rows(["run", "-s", "topology=torus:k=4x4", "-s", "packet_size=65535", "-s", "injection_rate=0.01",
                     "--reproducible"], 0, tmp)
    if rows and len(rows) == 2:
        empty = [c for c, v in zip(rows[0], rows[1]) if v == ""]
        if empty != [c for c in header if c.startswith(("latency", "network_latency", "hops"))] or len(empty) != 6:
            fail(f"run --csv, no packet measured: columns {empty} empty, {DOC} says the six latency and hop columns")


# topo describe's field table (docs/analysis.md) at every depth: inputs
# that together write every documented key (exact and sampled distances,
# formula, METIS, endpoint and upper-bound cuts, a tree, --faults).
ANALYSIS = "docs/analysis.md"
DESCRIBE = [["torus:k=4x4"], ["fattree:k=4,n=2", "--bisection", "--faults", "--trials", "2"],
            ["mesh:k=100x100", "--sampled", "--samples", "8"], ["equality:n=16,sa=-1/1/5,sb=8"],
            ["fly:k=12", "--bisection"], ["dln:n=400,d=4", "--samples", "8"]]


def check_describe(tmp):
    with open(os.path.join(ROOT, ANALYSIS)) as f:
        secs = sections(f.read())
    doc = field_paths(table_rows(secs.get("`netloom topo describe SPEC`", []), "| field"))
    if not doc:
        raise SystemExit(f"{ANALYSIS}: the field table of topo describe not found")
    written = set()
    for spec in DESCRIBE:
        d = netloom(["topo", "describe", *spec, "--json"], 0, tmp)
        if d is None:
            continue
        got = written_paths(d)
        written |= got
        for p in sorted(got):
            if p not in doc and not any(x.startswith(p + ".") or x.startswith(p + "[]") for x in doc):
                fail(f"topo describe {' '.join(spec)}: key '{p}' is written but {ANALYSIS} does not document it")
    for p in doc:
        if p not in written:
            fail(f"topo describe: {ANALYSIS} documents '{p}', which none of the inputs here writes")


# Key names of replay's outline that these runs do not write, with why.
REPLAY_OPTIONAL = {
    # Only when a replayed MPI_Cancel went otherwise than recorded; its
    # rank and op_index are names written elsewhere too.
    "first_divergence": "a cancel divergence only",
    "request_op": "first_divergence's",
    "recorded": "first_divergence's",
    "replayed": "first_divergence's",
    # Only when a wait/test names an id the trace never created (replay.sh
    # checks it); its rank, op_index and op are names written elsewhere too.
    "first_never_created": "a request never created only",
    "request": "first_never_created's",
}
REPLAY_NET_DEADLOCK = "results.network.deadlock"


def outline_names(block):
    """The key names of a JSON outline such as replay.md's: the quoted
    identifiers that are not values (a value follows `":` or, in an
    alternation `"a" | "b"`, another value)."""
    names, prev_value = set(), False
    for m in re.finditer(r'"([^"]*)"', block):
        pre = block[:m.start()].rstrip()
        is_value = bool(re.search(r'"\s*:$', pre)) or (pre.endswith("|") and prev_value)
        prev_value = is_value
        if not is_value and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", m.group(1)):
            names.add(m.group(1))
    return names


def replay_names(v, path=""):
    """Key names written at every depth but inside `config` (the
    configuration's keys), the collectives' and algorithms' names (data,
    not keys) and the flit network's deadlock (results.md's fields)."""
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            p = f"{path}.{k}" if path else k
            if path in ("results.collectives",) or path.endswith(".algorithms"):
                out |= replay_names(x, p)
                continue
            out.add(k)
            if p not in ("config", REPLAY_NET_DEADLOCK):
                out |= replay_names(x, p)
    elif isinstance(v, list):
        for x in v:
            out |= replay_names(x, path + "[]")
    return out


def check_replay(secs_results, tmp):
    with open(os.path.join(ROOT, "docs/replay.md")) as f:
        text = f.read()
    at = text.find("JSON (`--json`):")
    start = text.find("```", at)
    end = text.find("```", start + 3)
    if at < 0 or start < 0 or end < 0:
        raise SystemExit("docs/replay.md: the JSON outline after 'JSON (`--json`):' not found")
    doc = outline_names(text[start + 3:end])

    def t(name):
        return os.path.join(tmp, name)

    for args in (["pp.nlt", "pingpong", "10", "100"], ["dl.nlt", "deadlock", "1048576"],
                 ["sh.nlt", "shift", "8", "3", "65536"]):
        subprocess.run([MKTRACE, t(args[0]), *args[1:]], check=True, capture_output=True)
    pp, sample = t("pp.nlt"), SAMPLE
    runs = [
        # analytic, no topology
        ([sample], 0),
        # analytic on links, cables and a placement policy: link_latency, cables, rank_endpoints
        ([sample, "--topology", "torus:k=2x2", "-s", "link_model=links", "-s", "cable_latency=1",
          "-s", "placement=random-node"], 0),
        # a topology the analytic settings do not see: topology_unused
        ([sample, "--topology", "torus:k=2x2"], 0),
        # the flit backend
        ([pp, "-s", "backend=flit", "--topology", "torus:k=4", "-s", "cable_latency=1"], 0),
        # ranks that wait forever: results.deadlock
        ([t("dl.nlt")], 1),
        # the flit network deadlocks (tests/e2e/replay.sh 4b): results.network.deadlock
        ([t("sh.nlt"), "-s", "backend=flit", "-s", "topology=torus:k=8", "-s", "num_vcs=1", "-s", "vc_buf_size=2",
          "-s", "packet_bytes=128", "-s", "flit_bytes=16", "-s", "routing_function=dor:dateline=0"], 1),
    ]
    stuck = [p[len("results.stuck."):] for p in field_paths(table_rows(secs_results["A deadlocked point"], "| field"))
             if p.startswith("results.stuck.")]
    written = set()
    for args, code in runs:
        d = netloom(["replay", *args, "--json", "-"], code, tmp)
        if d is None:
            continue
        what = f"replay {' '.join(args).replace(tmp, 'TMP')}"
        got = replay_names(d)
        written |= got
        for k in sorted(got - doc):
            fail(f"{what}: key '{k}' is written but the JSON outline of docs/replay.md does not name it")
        dl = d.get("results", {}).get("network", {}).get("deadlock")
        if dl is not None:
            compare_deep(f"{what}: {REPLAY_NET_DEADLOCK}", stuck, [], dl, "results.stuck.")
    for k in sorted(doc - written):
        if k not in REPLAY_OPTIONAL:
            fail(f"replay: docs/replay.md's JSON outline names '{k}', which none of the replays here writes")


def top_keys(cell):
    """The top-level keys of a row: its backticked names outside
    parentheses (a parenthesis says when a key is written)."""
    depth, kept = 0, []
    for c in cell:
        depth += c == "("
        if depth == 0:
            kept.append(c)
        depth -= c == ")" and depth > 0
    return re.findall(r"`([^`]+)`", "".join(kept))


def check_others(secs, tmp):
    rows = table_rows(secs.get("JSON of the other commands", []), "| command")
    if not rows:
        raise SystemExit(f"{DOC}: the table of 'JSON of the other commands' not found")
    seen = set()
    for cells in rows:
        cmd = cells[0].replace("`", "")
        seen.add(cmd)
        if cmd not in ROWS:
            fail(f"{DOC}: row '{cmd}': this test does not know how to run it (add it to ROWS)")
            continue
        want = top_keys(cells[1])
        is_array = cells[1].startswith("an array")
        if cmd not in HEADLESS and cmd not in COMMAND:
            fail(f"{DOC}: row '{cmd}': give its command name in COMMAND (or say in HEADLESS why it has no head)")
        if cmd in COMMAND and want[:3] != HEAD:
            fail(f"{DOC}: row '{cmd}': its keys begin {want[:3]}, expected the head {HEAD}")
        for args, code, out_file in ROWS[cmd]:
            d = netloom(args, code, tmp, out_file)
            if d is None:
                continue
            what = f"{cmd} (netloom {' '.join(args).replace('{tmp}', 'TMP')})"
            if cmd == "config --json":
                continue  # the configuration's keys: compared with run's config in check_run_sweep
            if is_array:
                if not isinstance(d, list) or not d:
                    fail(f"{what}: expected a non-empty array, got {str(d)[:80]}")
                    continue
                objs = d
            else:
                objs = [d]
            for o in objs:
                got = list(o)
                for k in got:
                    if k not in want:
                        fail(f"{what}: key '{k}' is written but {DOC} does not list it")
                for k in want:
                    if k not in got and k not in OPTIONAL and not optional_here(cmd, k, args):
                        fail(f"{what}: {DOC} lists '{k}', which is not written")
                if cmd in COMMAND and (got[:3] != HEAD or o.get("command") != COMMAND[cmd]):
                    fail(f"{what}: begins {got[:3]}, command {o.get('command')!r}; expected {HEAD}, "
                         f"command {COMMAND[cmd]!r}")
                order = [k for k in want if k in got]
                if order != [k for k in got if k in want]:
                    fail(f"{what}: keys written in the order {got}, {DOC} lists {want}")
    for cmd in ROWS:
        if cmd not in seen:
            fail(f"{DOC}: no row for '{cmd}' in 'JSON of the other commands'")


def optional_here(cmd, key, args):
    """Documented keys one run of a row does not write by design: the
    topo describe runs each write what the others lack; serve writes
    beside_trace with --trace only."""
    if cmd == "serve --json" and key == "beside_trace":
        return "--trace" not in args
    if cmd == "topo describe --json":
        if key in SAMPLED:
            return "--samples" not in args
        if key == "physical_switches":
            return not any(a.startswith("fattree") for a in args)  # trees only
        if key == "faults":
            return "--faults" not in args  # with --faults only
    return False


def key_names(v):
    """The key names of a JSON value at every depth, but inside `config`."""
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            out.add(k)
            if k != "config":
                out |= key_names(x)
    elif isinstance(v, list):
        for x in v:
            out |= key_names(x)
    return out


def check_time_units(secs):
    """The doc's list of names kept as written says a time is in seconds
    everywhere but where it names another unit: every key written here
    whose name carries picoseconds or nanoseconds (`_ps`, `_ns`) is one
    it names (the last component of a path; `*` any suffix)."""
    bullet = None
    for line in secs.get("JSON of the other commands", []):
        if line.startswith("- a time:"):
            bullet = line
        elif bullet is not None and line.startswith("  "):
            bullet += " " + line.strip()
        elif bullet is not None:
            break
    if not bullet:
        raise SystemExit(f"{DOC}: the bullet 'a time: ...' of 'JSON of the other commands' not found")
    named = [re.escape(n.rsplit(".", 1)[-1]).replace(r"\*", ".*") for n in re.findall(r"`([^`]+)`", bullet)]
    for k in sorted(KEY_NAMES):
        if re.search(r"_(ps|ns)(_|$)", k) and not any(re.fullmatch(n, k) for n in named):
            fail(f"key '{k}' is written, a time in ps or ns, and {DOC}'s 'a time:' does not name it")


def main():
    with open(os.path.join(ROOT, DOC)) as f:
        secs = sections(f.read())
    with tempfile.TemporaryDirectory() as tmp:
        check_run_sweep(secs, tmp)
        check_csv(secs, tmp)
        check_others(secs, tmp)
        check_describe(tmp)
        check_replay(secs, tmp)
        check_time_units(secs)
    for m in FAILS:
        print("FAIL", m)
    if not FAILS:
        print("ok: the JSON keys the docs name are the keys written")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
