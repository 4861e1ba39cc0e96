"""An empty output name ('') in one wording for every command (tests/meson.build).

"OPT '': empty file name; expected a file to write, or '-' for standard
output", the value quoted as every other refusal quotes it, from one
function (cli_empty_name); replay, interfere, topo, design, cost and
layout said "OPT: empty file name (expected ...)". Directories and the
outputs that cannot be standard output say so in the same form.
"""
import clitest
from clitest import run

STDOUT_OK = "empty file name; expected a file to write, or '-' for standard output"
OTF2 = "empty directory name; expected a new directory for the OTF2 archive"

CASES = [
    (("run", "--json", ""), "run: --json ''", STDOUT_OK),
    (("sweep", "--rates", "0.1:0.1:0.1", "--plot", ""), "sweep: --plot ''", STDOUT_OK),
    (("replay", "/nonexistent.nlt", "--json", ""), "replay: --json ''", STDOUT_OK),
    (("replay", "/nonexistent.nlt", "--svg", ""), "replay: --svg ''", STDOUT_OK),
    (("replay", "/nonexistent.nlt", "--otf2", ""), "replay: --otf2 ''", OTF2),
    (("interfere", "/nonexistent.ini", "--json", ""), "interfere: --json ''", STDOUT_OK),
    (("interfere", "/nonexistent.ini", "--plot", ""), "interfere: --plot ''", STDOUT_OK),
    (("topo", "describe", "torus:k=4", "-o", ""), "topo describe: --output ''", STDOUT_OK),
    (("topo", "export", "torus:k=4", "--format", "dot", "-o", ""), "topo export: --output ''", STDOUT_OK),
    (("design", "hyperx", "--terminals", "64", "--radix", "16", "--bisection", "0.5", "-o", ""),
     "design hyperx: --output ''", STDOUT_OK),
    (("design", "equality", "--routers", "8", "--radix", "6", "-o", ""), "design equality: --output ''", STDOUT_OK),
    (("design", "flex", "--terminals", "64", "--radix", "16", "-o", ""), "design flex: --output ''", STDOUT_OK),
    (("cost", "flex:nx=6,ny=6,nz=3,p=10", "--json", ""), "cost: --json ''", STDOUT_OK),
    (("layout", "torus:k=4", "--svg", ""), "layout: --svg ''", STDOUT_OK),
    (("layout", "torus:k=4", "--lengths", ""), "layout: --lengths ''", STDOUT_OK),
    (("compare", "s.ini", "-o", ""), "compare: -o ''",
     "empty directory name; expected a directory to write the report to"),
    (("serve", "-n", "2", "--record", ""), "serve: --record ''", "empty file name; expected a file name (FILE.nlt)"),
    (("serve", "--curve-keygen", ""), "serve: --curve-keygen ''",
     "empty file name; expected a file to write (the key pair goes to FILE and FILE.pub)"),
    (("trace", "convert", "/nonexistent.nlt", ""), "trace convert: OUT.nlt ''", "empty file name; expected a file to write"),
    (("trace", "export", "/nonexistent.nlt", "--otf2", ""), "trace export: --otf2 ''", OTF2),
    (("trace", "unpack", "/nonexistent", ""), "trace unpack: DIR ''",
     "empty directory name; expected a directory to unpack the bundle into (made if missing)"),
]


def case_empty_names():
    for args, who, what in CASES:
        p = run(*args, code=2)
        clitest.eq(f"netloom {' '.join(args)}: stderr", p.stderr.decode(), f"netloom {who}: {what}\n")
        clitest.eq(f"netloom {' '.join(args)}: stdout", p.stdout.decode(), "")


clitest.main(globals())
