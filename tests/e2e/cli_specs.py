"""End-to-end checks: topology specs of any length (issue 10 part 4b).

A ~400-character Equality spec in the paper's notation goes through `-s`,
through one long INI line, through indented continuation lines and through
`topology = @FILE`, and every route gives the same topology; a line libinih
cannot take says why instead of "syntax error".
"""
import json
import os
import tempfile

import clitest
from clitest import Fail, eq, one_line_error, run

# 48 odd and 8 even offsets (the shape of seed 002's n64000k64), with
# enough digits to pass 255 characters, the old `-s` limit.
SA = [-1, 1] + [2 * int(1.06 ** i) + 1 for i in range(1, 400)]
SA = sorted(set(x for x in SA if x < 32000), key=lambda x: (x > 0, abs(x)))
SPEC = "N64000P16[%s](4,14,52,188,680,2454,8862,31998)" % ",".join(str(x) for x in SA)
SPEC = SPEC.replace("N64000P16", "N64000K%dP16" % (len(SA) + 16))


def topology_of(*args):
    for line in run("config", *args).stdout.decode().splitlines():
        if line.startswith("topology = "):
            return line[len("topology = "):].split("    ;")[0]
    raise Fail("no topology line in 'netloom config'")


def case_long_specs():
    if len(SPEC) < 350:
        raise Fail(f"test spec is only {len(SPEC)} characters")
    with tempfile.TemporaryDirectory() as tmp:
        def write(name, text):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            return path
        eq("-s", topology_of("-s", "topology=" + SPEC), SPEC)
        one_line = write("one.ini", "[network]\ntopology = %s   ; one long line\n" % SPEC)
        eq("one long INI line", topology_of("-c", one_line), SPEC)
        wrapped = "\n    ".join(SPEC[i:i + 70] for i in range(0, len(SPEC), 70))
        cont = write("cont.ini", "[network]\ntopology = %s\nchannel_latency = 2\n" % wrapped)
        eq("continuation lines", topology_of("-c", cont), SPEC)
        spec_file = write("n64000.topo", "# seed 002 notation\n" + wrapped + "\n")
        ref = write("ref.ini", "[network]\ntopology = @%s\n" % spec_file)
        eq("topology = @FILE (as written)", topology_of("-c", ref), "@" + spec_file)
        described = run("topo", "describe", "@" + spec_file).stdout.decode().splitlines()[0].split()
        eq("topo describe @FILE", described[1], SPEC)
        # A NUL byte in a spec file cut the line there: torus:k=4x4\0,p=2
        # built torus p=1 with exit 0.
        nul = write("nul.spec", "# a comment\ntorus:k=4x4\0,p=2\n")
        p = run("topo", "describe", "@" + nul, code=2)
        one_line_error(p, f"{nul}:2: unexpected NUL byte")
        # A UTF-8 byte order mark (Windows editors write one) was read into
        # the family's name: "unknown topology '\ufeffmesh'", the mark unseen.
        bom = write("bom.spec", "\ufeff# a comment\nmesh:k=2x2\n")
        p = run("run", "-s", "topology=@" + bom, "-s", "sample_period=100", "--json", "-")
        eq("a spec file's byte order mark", json.loads(p.stdout)["topology"]["spec"], "mesh:k=2x2,p=1")
        bad = write("bad.ini", "[network]\ntopology = a" + " b" * 150 + "\n")
        err = run("config", "-c", bad, code=2).stderr.decode()
        if "cannot be split" not in err or "syntax error" in err:
            raise Fail(f"unsplittable line: {err!r}")


def case_spec_file_in_results():
    """Results record the spec a @FILE holds, not the file's name, so their
    config reproduces the run without the file (docs/configuration.md)."""
    import json
    with tempfile.TemporaryDirectory() as tmp:
        spec_file = os.path.join(tmp, "t.topo")
        with open(spec_file, "w") as f:
            f.write("# a wrapped spec\n  torus:k=4x4,\n  p=2  \n")
        short = ["-s", "topology=@" + spec_file, "-s", "max_samples=2", "-s", "warmup_periods=1",
                 "-s", "sample_period=100"]
        doc = json.loads(run("run", *short, "--json", "-").stdout)
        eq("run --json config.topology", doc["config"]["topology"], "torus:k=4x4,p=2")
        again = json.loads(run("run", "-s", "topology=torus:k=4x4,p=2", *short[2:], "--reproducible",
                               "--json", "-").stdout)
        first = json.loads(run("run", *short, "--reproducible", "--json", "-").stdout)
        eq("the recorded spec runs the same point", first["results"], again["results"])

        # A spec is any bytes (a graph:file= path that is not UTF-8): the
        # results keep it with U+FFFD (docs/layout.md). json_string refused
        # it, and config.topology (run, interfere, a @FILE's spec),
        # topology.spec and the interfere results' topology went missing.
        edges = os.path.join(tmp, "g\udcff.edges")  # the byte 0xff
        with open(edges, "w") as f:
            f.write("0 1\n1 2\n2 3\n3 0\n")
        graph = "graph:file=" + edges + ",p=1"
        shown = "graph:file=" + os.path.join(tmp, "g\ufffd.edges") + ",p=1"
        doc = json.loads(run("run", "-s", "topology=" + graph, *short[2:], "--json", "-").stdout)
        eq("non-UTF-8 spec: run's config.topology", doc["config"].get("topology"), shown)
        eq("non-UTF-8 spec: run's topology.spec", doc["topology"].get("spec"), shown + ",labels=0")
        at = os.path.join(tmp, "g.topo")
        with open(at, "wb") as f:
            f.write(os.fsencode(graph) + b"\n")
        doc = json.loads(run("run", "-s", "topology=@" + at, *short[2:], "--json", "-").stdout)
        eq("non-UTF-8 spec in a @FILE: run's config.topology", doc["config"].get("topology"), shown)
        ring = os.path.join(tmp, "ring.ini")
        with open(ring, "w") as f:
            f.write("[job ring]\nsynthetic = ring\nranks = 2\nsteps = 2\n")
        for backend in (["backend=flit"], ["backend=analytic", "-s", "link_model=links"]):
            doc = json.loads(run("interfere", ring, "-s", "topology=" + graph, "-s", *backend, "--json", "-").stdout)
            res = doc["results"]
            eq(f"non-UTF-8 spec: interfere {backend[0]}: config.topology, results.topology, network.topology",
               [doc["config"].get("topology"), res.get("topology"), res["network"].get("topology")],
               [shown, shown + ",labels=0", shown + ",labels=0"])


clitest.main(globals())
