"""Shared by the reproduction scripts: one netloom run or sweep, its JSON
results (`netloom CMD -s KEY=VALUE ... ARGS --json FILE --reproducible`)."""
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile


def _die_of_closed_pipe():
    """Ends the script as netloom ends when its reader is gone (`--help |
    head -1`): killed by SIGPIPE, nothing on stderr (shell status 141).
    Python ignores SIGPIPE and raised BrokenPipeError, a traceback."""
    try:
        sys.stderr.flush()
    except OSError:
        pass
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGPIPE)


# The stdout of a script that found its reader gone: quiet from then on,
# and the script dies of SIGPIPE once Python has cleaned up (its
# temporary folders). SIGPIPE itself stays ignored until then: a write to
# gnuplot's stdin (draw()) must fail as an error subprocess handles, not
# kill the script.
_stdout_closed = False
_previous_excepthook = sys.excepthook


def _stdout_gone():
    global _stdout_closed
    _stdout_closed = True
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _excepthook(kind, value, tb):
    if issubclass(kind, BrokenPipeError):
        _stdout_gone()
        return
    _previous_excepthook(kind, value, tb)


def _at_exit():
    # Registered first, so it runs last: a table printed whole but still
    # in Python's buffer meets the closed pipe here.
    if not _stdout_closed:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _stdout_gone()
    if _stdout_closed:
        _die_of_closed_pipe()


sys.excepthook = _excepthook
atexit.register(_at_exit)


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
    _check_outdir(name, positional[1])
    return positional, given


def _check_outdir(name, out):
    """Refuses an OUTDIR that cannot be a directory (an existing file, or
    under one): one line naming it, exit 2, before any run. Not made here:
    the environment is checked first (a bad variable leaves no OUTDIR).
    It was a Python traceback (FileExistsError) from os.makedirs, in
    three of the scripts after every run."""
    path = out
    while path and not os.path.exists(path):
        parent = os.path.dirname(path.rstrip(os.sep))
        if parent == path:
            break
        path = parent
    if path and os.path.exists(path) and not os.path.isdir(path):
        where = "" if path == out else f" ('{path}' is not a directory)"
        print(f"{name}: OUTDIR '{out}': not a directory{where}; expected a directory, or a path where one can "
              "be made, for the tables and plots", file=sys.stderr)
        sys.exit(2)


def script():
    """The running script's name (flex_fig14.py), which its messages start with."""
    return os.path.basename(sys.argv[0])


def abbreviate(argv, width=120):
    """argv as one shell-like line of at most `width` characters: a long
    one keeps its start (netloom, the command, the first settings) and
    ends in "..."."""
    line = " ".join(argv)
    return line if len(line) <= width else line[:width - 3].rstrip() + "..."


def run(argv, stdout=subprocess.DEVNULL):
    """Runs netloom with argv (argv[0] the binary) and returns its
    CompletedProcess (stdout captured as text when stdout is
    subprocess.PIPE). Its stderr is passed on when it succeeds (its
    warnings); when it fails, or cannot be started, the script stops with
    one line on stderr, exit 1: the script, the command (abbreviated) and
    netloom's own last stderr line, no Python traceback. On a terminal
    netloom's stderr goes straight to it, so its progress line (simulated
    time, % done, ETA), which it draws only on a terminal, shows during
    the long sweeps; the line then says its message is above."""
    live = sys.stderr.isatty()
    try:
        p = subprocess.run(argv, stdout=stdout, stderr=None if live else subprocess.PIPE, text=True)
    except OSError as e:
        print(f"{script()}: cannot run netloom: {argv[0]}: {e.strerror}", file=sys.stderr)
        sys.exit(1)
    if p.returncode != 0:
        if live:
            why = "exit status %d (its message is above)" % p.returncode
        else:
            lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
            why = lines[-1].strip() if lines else "exit status %d, nothing on stderr" % p.returncode
        print(f"{script()}: netloom failed: {abbreviate(argv)}: {why}", file=sys.stderr)
        sys.exit(1)
    if not live:
        sys.stderr.write(p.stderr)
    return p


def json_results(argv):
    """The "results" object that `argv + --json FILE --reproducible` writes
    (run() above: a failed run stops the script with one line)."""
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        run(list(argv) + ["--json", path, "--reproducible"])
        with open(path) as f:
            return json.load(f)["results"]
    finally:
        os.unlink(path)


def results(netloom, cmd, settings, args=()):
    """The "results" object of `netloom CMD` with the settings (KEY=VALUE
    strings) and extra arguments; a failed run stops the script (run())."""
    argv = [netloom, cmd]
    for kv in settings:
        argv += ["-s", kv]
    return json_results(argv + list(args))


def usage_error(usage, what):
    """Refuses a bad argument before any run: one line on stderr naming it
    and the usage, exit 2."""
    print(f"{script()}: {what} ({usage})", file=sys.stderr)
    sys.exit(2)


def sizes(usage, args, known):
    """The network sizes SIZES... of a script's command line, each one of
    `known` (a dict); refused with usage_error otherwise."""
    want = " ".join(str(k) for k in sorted(known))
    out = []
    for a in args:
        try:
            n = int(a)
        except ValueError:
            n = None
        if n not in known:
            usage_error(usage, f"size '{a}': expected one of {want}")
        out.append(n)
    return out


def _rates(v):
    a, b, step = (float(x) for x in v.split(":"))
    return v if 0 <= a <= b <= 1 and step > 0 else None


def _ints(v):
    xs = [int(x) for x in v.split(",")]
    return xs if xs and all(x > 0 for x in xs) else None


def _loads(v):
    xs = [float(x) for x in v.split(",") if x]
    return xs if all(0 < x <= 1 for x in xs) else None


def _count(v):
    n = int(v)
    return v if n > 0 else None


def _flag(v):
    return v == "1" if v in ("0", "1") else None


def _settings(v):
    xs = [x for x in v.split(",") if x]
    return xs if all("=" in x and x.index("=") > 0 for x in xs) else None


def _file(v):
    return v if v == "" or os.path.isfile(v) else None


def _one_of(names, empty=None):
    """A parse for a variable naming one of `names` ("" is `empty` when
    given, else refused)."""
    return lambda v: (empty if empty is not None and v == "" else v if v in names else None)


def _subset(names):
    """A parse for a comma-separated subset of `names` (spaces around a
    name ignored, empty items dropped)."""
    def parse(v):
        xs = [x.strip() for x in v.split(",") if x.strip()]
        return xs if all(x in names for x in xs) else None
    return parse


# The names the variables choosing one of a script's own tables accept;
# each script's table has these keys (tests/e2e/validation_scripts.sh
# checks that they agree), so reproduce.sh checks them before any run.
HYPERX_SIZES = ("paper", "small")
HYPERX_ROUTERS = ("paper", "fast")
HYPERX_FIG7_NETS = ("hx05", "hx025", "clos")
HYPERX_PATTERNS = ("bitcomp", "bitrot", "transpose", "swap2")
FLEX_SYSTEMS = ("FleX", "dragonfly", "HyperX", "SlimFly", "fattree")
FLEX_PATTERNS = ("uniform", "bitcomp", "randperm")


def _names(names):
    return ", ".join(names)


# The environment variables the scripts read for numbers, flags, lists and
# files: name -> (parse, expected form). parse returns the value, or None
# or raises ValueError for a bad one. Checked by env() when a script reads
# one and by `netloom_run.py check-env` (reproduce.sh, before any figure).
# Variables naming one of a script's own choices (HYPERX_FIG6_SIZE,
# FLEX_SYSTEMS, ...) too, against the names above.
ENV = {
    "FLEX_RATES": (_rates, "START:STOP:STEP, numbers with 0 <= START <= STOP <= 1 and STEP > 0, e.g. 0.3:0.9:0.2"),
    "FLEX_TS": (_ints, "comma-separated positive integers, e.g. 10,100"),
    "FLEX_FROM_TSV": (_file, "an existing TSV file of an earlier flex_fig8_10.py run (empty: none)"),
    "HYPERX_FIG6_SAMPLES": (_count, "a positive integer"),
    "HYPERX_FIG7_SAMPLES": (_count, "a positive integer"),
    "HYPERX_FIG6_LOADS": (_loads, "comma-separated offered loads in (0, 1], e.g. 0.1,0.5 (empty: none)"),
    "HYPERX_FIG7_LOADS": (_loads, "comma-separated offered loads in (0, 1], e.g. 0.1,0.5 (empty: none)"),
    "HYPERX_FIG6_CACHED": (_flag, "0 or 1"),
    "HYPERX_FIG7_CACHED": (_flag, "0 or 1"),
    "HYPERX_FIG7_SET": (_settings, "comma-separated KEY=VALUE settings, e.g. internal_speedup=2"),
    "SWAP_SEC62_THROUGHPUT": (_flag, "0 or 1"),
    "HYPERX_FIG6_SIZE": (_one_of(HYPERX_SIZES), " or ".join(HYPERX_SIZES)),
    "HYPERX_FIG7_SIZE": (_one_of(HYPERX_SIZES), " or ".join(HYPERX_SIZES)),
    "HYPERX_ROUTER": (_one_of(HYPERX_ROUTERS, empty="paper"), " or ".join(HYPERX_ROUTERS) + " (empty: paper)"),
    "HYPERX_FIG7_NETS": (_subset(HYPERX_FIG7_NETS), "comma-separated names of " + _names(HYPERX_FIG7_NETS)),
    "HYPERX_FIG7_PATTERNS": (_subset(HYPERX_PATTERNS), "comma-separated names of " + _names(HYPERX_PATTERNS)),
    "FLEX_SYSTEMS": (_subset(FLEX_SYSTEMS), "comma-separated names of %s (empty: all)" % _names(FLEX_SYSTEMS)),
    "FLEX_PATTERNS": (_subset(FLEX_PATTERNS), "comma-separated names of %s (empty: all)" % _names(FLEX_PATTERNS)),
}


def _parse_env(var, value):
    parse, _ = ENV[var]
    try:
        return parse(value)
    except ValueError:
        return None


def _refuse_env(who, var, value):
    print(f"{who}: {var}={value!r}: expected {ENV[var][1]}", file=sys.stderr)


def env(var, default):
    """The value of environment variable `var` (a key of ENV) parsed, or
    of `default` (a string) when it is unset. A bad value stops the script
    before any run: one line naming the variable, its value and the
    expected form, exit 2."""
    value = os.environ.get(var, default)
    got = _parse_env(var, value)
    if got is None:
        _refuse_env(script(), var, value)
        sys.exit(2)
    return got


def check_env(who):
    """Checks every variable of ENV that is set; one line per bad one
    naming `who`. Returns 2 if any was bad, else 0."""
    rc = 0
    for var in ENV:
        value = os.environ.get(var)
        if value is not None and _parse_env(var, value) is None:
            _refuse_env(who, var, value)
            rc = 2
    return rc


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


# The SVGs gnuplot failed to draw in this run (draw()): the script then
# ends with exit status 3 (exit_status()), its tables written.
_not_drawn = []


def _last_line(text, fallback):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else fallback


def _not_drawn_because(svg, why):
    """Says in one line on stderr that svg is not drawn and why; removes
    gnuplot's partial output and an svg an earlier run left (it would not
    show the table beside it)."""
    print(f"{script()}: {svg} not drawn: {why}", file=sys.stderr)
    for path in (svg + ".tmp", svg):
        if os.path.exists(path):
            os.unlink(path)
    _not_drawn.append(svg)


def _cut_svg_size(path):
    """The size in bytes of a cut SVG at path (no closing </svg> last; 0
    when gnuplot wrote none), None when it is whole."""
    if not os.path.exists(path):
        return 0
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 16))
        return None if f.read().rstrip().endswith(b"</svg>") else size


def draw(svg, commands):
    """Runs gnuplot on `commands` (a script whose output is svg + '.tmp')
    and moves the plot into place. Without gnuplot (optional) says so in
    one line (have_gnuplot). When gnuplot fails, one line names the svg
    not drawn and gnuplot's last stderr line (it was a Python traceback,
    subprocess.CalledProcessError), and the script goes on to print its
    tables, then ends with exit status 3 (exit_status), as netloom does
    for a chart it could not draw; so does an output gnuplot cut short
    (it exits 0 after a failed write). Returns True when drawn."""
    if not have_gnuplot(svg):
        return False
    try:
        p = subprocess.run(["gnuplot"], input=commands, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    except OSError as e:
        _not_drawn_because(svg, f"cannot run gnuplot: {e.strerror}")
        return False
    if p.returncode != 0:
        status = ("ended by signal %d" % -p.returncode if p.returncode < 0 else
                  "exit status %d" % p.returncode)
        _not_drawn_because(svg, "gnuplot failed: " + _last_line(p.stderr, status + ", nothing on stderr"))
        return False
    size = _cut_svg_size(svg + ".tmp")
    if size is not None:
        _not_drawn_because(svg, f"gnuplot's output is cut ({size} bytes, no closing </svg>; a full disk?)")
        return False
    sys.stderr.write(p.stderr)  # its warnings, as when it ran on the terminal
    os.replace(svg + ".tmp", svg)
    return True


def exit_status(checks_failed=False):
    """A script's exit status once its tables are written: 3 when a check
    against the paper failed or a plot was not drawn (draw()), else 0."""
    return 3 if checks_failed or _not_drawn else 0


if __name__ == "__main__":
    # `netloom_run.py check-env WHO`: reproduce.sh checks the environment
    # before its first figure runs.
    if len(sys.argv) != 3 or sys.argv[1] != "check-env":
        sys.exit("usage: netloom_run.py check-env WHO")
    sys.exit(check_env(sys.argv[2]))


def need_executable(ap, opt, path, what):
    """One line, exit 2, before anything runs, when `path` (option `opt`)
    is no executable: a missing BookSim2 was a Python traceback
    (FileNotFoundError) or "booksim failed (127)" after the graph files
    were written (booksim/anynet_side_by_side.py, booksim/eq_small_min.py)."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        ap.exit(2, "%s: %s %s: not an executable; expected %s\n" % (os.path.basename(sys.argv[0]), opt, path, what))


BOOKSIM_WHAT = ("a BookSim2 binary (github booksim/booksim2, commit 28f43299, built with its own Makefile; "
                "docs/validation.md)")
NETLOOM_WHAT = "a built netloom (scripts/build.sh)"
