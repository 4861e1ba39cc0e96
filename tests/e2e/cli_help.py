"""--help wins over everything else on a command's line (tests/meson.build).

As in getopt tools (git): -h or --help anywhere among the options prints
the usage, exit 0, nothing on stderr, whatever else the line holds (a bad
value, a missing file, an unknown option, an extra argument). An option's
value ('-s -h') and a word after '--' are not a request, as getopt_long
reads them.
"""
import os
import re
import tempfile

import clitest
from clitest import Fail, check, eq, run

# After: a bad option value, a missing file, an unknown option, an extra
# argument. Every command and subcommand 'netloom help' lists.
WINS = [
    "run --rate x -h", "run -c /nonexistent.ini -h", "run --bogus -h", "run extra --help", "run -Rh",
    "sweep --rates x -h", "sweep -c /nonexistent.ini -h", "sweep --bogus --help", "sweep extra -h",
    "config -c /nonexistent.ini -h", "config --bogus -h", "config extra -h",
    "replay -c /nonexistent.ini -h", "replay --json '' -h", "replay --bogus -h", "replay a b c -h",
    "replay /nonexistent.nlt --help",
    "interfere -c /nonexistent.ini -h", "interfere --top x -h", "interfere --bogus -h", "interfere a b -h",
    "trace info /nonexistent.nlt -h", "trace info --bogus -h", "trace info a b -h",
    "trace dump --rank x -h", "trace dump --bogus -h", "trace verify --bogus -h", "trace encode a b c -h",
    "trace convert --bogus -h", "trace unpack a b c -h", "trace import a b c -h", "trace export --bogus -h",
    "trace pack --bogus -h", "trace pack --config /nonexistent -h",
    "topo list --bogus -h", "topo list extra -h",
    "topo describe bogus:k=1 -h", "topo describe --bogus -h", "topo describe a b -h",
    "topo export bogus -h", "topo export --bogus -h",
    "design hyperx --terminals x -h", "design hyperx --bogus -h", "design equality --routers x -h",
    "design equality --bogus -h", "design flex --bogus -h", "design dragonfly --bogus -h",
    "design slimfly --bogus -h",
    "serve -n x -h", "serve -c /nonexistent.ini -h", "serve --bogus -h", "serve extra -h",
    "cost --preset x -h", "cost --bogus -h", "cost a b c -h",
    "layout --preset x -h", "layout --bogus -h", "layout a b c -h",
    "compare --jobs x -h", "compare --bogus -h", "compare /nonexistent.ini -h", "compare a b -h",
    "version --bogus -h", "version extra -h",
]

# Not a request: the value of an option, a word after '--'.
NOT_HELP = [
    ("run -s -h", "-s: expected key=value, got '-h'"),
    ("run --json -h", "--json '-h': an option, not a file name"),
    ("run -- -h", "unexpected argument '-h' after '--'"),
    ("replay -s -h", "-s: expected key=value, got '-h'"),
    ("replay --json -h x.nlt", "--json '-h': an option, not a file name"),
    ("replay x.nlt -- -h", "unexpected argument '-h' after TRACE"),
    ("interfere -s -h", "-s: expected key=value, got '-h'"),
    ("topo describe -o -h torus:k=4", "--output '-h': an option, not a file name"),
    ("trace import -o -h", "OUT.nlt '-h': an option, not a file name"),
    ("trace info -- -h", "-h: cannot open"),
    ("topo list -- -h", "unexpected argument '-h' after '--'"),
]


def words(line):
    return [w if w != "''" else "" for w in line.split()]


def case_help_wins():
    for line in WINS:
        p = run(*words(line))
        out, err = p.stdout.decode(), p.stderr.decode()
        check(f"netloom {line}: stdout is not the usage: {out[:200]!r}", out.startswith("usage: netloom "))
        eq(f"netloom {line}: stderr", err, "")


def case_help_not_a_value():
    for line, needle in NOT_HELP:
        p = run(*words(line), code=2)
        clitest.one_line_error(p, needle)


def option_entry(text, opt):
    """The lines of option `opt` ("--json") in a --help text: its own
    line and the continuation lines under it, joined."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        m = re.match(r"^ +(?:-\w, )?(--[\w-]+)", ln)
        if m and m.group(1) == opt:
            out = [ln]
            for nxt in lines[i + 1:]:
                if not nxt.strip() or re.match(r"^ +(?:-\w, )?--?[\w-]", nxt):
                    break
                out.append(nxt)
            return " ".join(x.strip() for x in out)
    raise Fail(f"--help has no line for {opt}:\n{text}")


# The output options that take '-' for standard output: their --help says
# so, in one wording ('-o -' worked, but topo's, design's and layout's
# --help did not say it), and '-' does write there.
STDOUT_OPTS = [
    ("run", "--json", ["-s", "topology=torus:k=4x4", "-s", "sample_period=100", "-s", "max_samples=3"]),
    ("sweep", "--json", None), ("sweep", "--plot", None),
    ("replay", "--json", None), ("replay", "--svg", None),
    ("serve", "--json", None), ("serve", "--messages", None),
    ("interfere", "--json", None), ("interfere", "--plot", None),
    ("cost", "--json", ["torus:k=4x4"]),
    ("layout", "--svg", ["torus:k=4x4"]), ("layout", "--lengths", ["torus:k=4x4"]),
    ("topo describe", "--output", ["torus:k=4x4"]),
    ("topo export", "--output", ["torus:k=4x4", "--format", "dot"]),
    ("design hyperx", "--output", ["--terminals", "64", "--radix", "16", "--bisection", "0.5"]),
    ("design equality", "--output", ["--routers", "8", "--radix", "3", "--generations", "2"]),
    ("design flex", "--output", ["--terminals", "64", "--radix", "16"]),
    ("design dragonfly", "--output", ["--terminals", "64", "--radix", "16"]),
    ("design slimfly", "--output", ["--terminals", "64", "--radix", "16"]),
]


def case_help_stdout():
    for cmd, opt, line in STDOUT_OPTS:
        text = run(*cmd.split(), "--help").stdout.decode()
        entry = option_entry(text, opt)
        check(f"netloom {cmd} --help, {opt}: says \"'-' = stdout\": {entry!r}", "'-' = stdout" in entry)
        if line is not None:
            p = run(*cmd.split(), *line, opt, "-")
            check(f"netloom {cmd} {opt} -: nothing on stdout", len(p.stdout) > 0)


# Every command and subcommand 'netloom help' lists.
COMMANDS = ["run", "sweep", "config", "version", "trace", "topo", "topo list", "topo describe", "topo export",
            "design", "design hyperx", "design equality", "design flex", "design dragonfly", "design slimfly",
            "replay", "serve", "cost", "layout", "interfere", "compare"] + [
    "trace " + s for s in ("info", "dump", "encode", "verify", "convert", "import", "export", "pack", "unpack")]
# Where a --help's hand-written part ends: the tables printed from the
# plug-ins' and keys' parameter lists follow, one line per entry so that
# grep finds an entry whole (netloom config --keys | grep num_vcs).
TABLES = {"run": "Topologies: 'netloom topo list'.", "sweep": "Topologies: 'netloom topo list'.",
          "replay": "Network backends:"}


def case_help_texts():
    """Each --help as a user reads it first: its exit statuses (README's
    general rule, or the command's own) and the docs page to read next,
    and no hand-written line past 100 columns."""
    for cmd in COMMANDS:
        text = run(*cmd.split(), "--help").stdout.decode()
        if cmd in TABLES:
            text = text[:text.index(TABLES[cmd])]
        for ln in text.splitlines():
            check(f"netloom {cmd} --help: line of {len(ln)} columns: {ln!r}", len(ln) <= 100)
        if cmd == "topo list":
            continue
        check(f"netloom {cmd} --help: no exit status", "Exit status:" in text or "exit 0 when" in text)
        check(f"netloom {cmd} --help: names no docs page", re.search(r"docs/[\w-]+\.md", text))


def case_help_before_config():
    """interfere reads each -c as it comes: --help after an empty one
    printed the usage with the file's 'sets no key' warning."""
    with tempfile.TemporaryDirectory() as d:
        empty = os.path.join(d, "empty.ini")
        open(empty, "w").close()
        for cmd in ("interfere", "replay"):
            p = run(cmd, "-c", empty, "-h")
            eq(f"netloom {cmd} -c empty.ini -h: stderr", p.stderr.decode(), "")
            check(f"netloom {cmd} -c empty.ini -h: no usage", p.stdout.decode().startswith("usage: netloom " + cmd))


clitest.main(globals())
