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


# A -c file's neighbours (docs/configuration.md): tmp/exp holds the
# configs and their files, tmp/here (where the commands run) files of the
# same names, which only a name given with -s may read.
SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "samples")
TRACE = os.path.join(SAMPLES, "pingpong-2.nlt")
SHORT = ["-s", "max_samples=2", "-s", "warmup_periods=1", "-s", "sample_period=100"]
RUN_INI, REP_INI = os.path.join("..", "exp", "run.ini"), os.path.join("..", "exp", "rep.ini")


def write(folder, name, text):
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


def relative_files(case):
    """case(exp, here, real_exp) in a new tmp/exp and tmp/here."""
    with tempfile.TemporaryDirectory() as tmp:
        exp, here = os.path.join(tmp, "exp"), os.path.join(tmp, "here")
        os.mkdir(exp)
        os.mkdir(here)
        write(exp, "spec.txt", "# the experiment's network\ntorus:k=4x4\n")
        write(exp, "ring.edges", "0 1\n1 2\n2 3\n3 0\n")
        write(exp, "pp.map", "0 3\n1 2\n")
        with open(os.path.join(SAMPLES, "calibration-shm.json")) as f:
            write(exp, "cal.json", f.read())
        write(here, "spec.txt", "mesh:k=2x2\n")
        write(here, "pp.map", "0 1\n1 0\n")
        write(exp, "run.ini", "[network]\ntopology = @spec.txt\n")
        write(exp, "rep.ini", "[network]\ntopology = p2(graph:file=ring.edges,p=1):trials=1\n[replay]\n"
              "placement = map\nplacement_map = pp.map\n[analytic]\nlink_model = links\ncalibration = cal.json\n")
        case(exp, here, os.path.realpath(exp))


def case_config_relative_files():
    """A relative file name in a -c file is read from that file's folder,
    wherever the command runs (as study and workload files read theirs):
    topology = @FILE, a spec's file= (nested too), placement_map and
    calibration. The configuration keeps each made absolute, so --dump and
    the results' config run from anywhere (it said "cannot open spec
    file" unless run from the config's folder)."""
    def case(exp, here, real_exp):
        doc = json.loads(run("run", "-c", RUN_INI, *SHORT, "--json", "-", cwd=here).stdout)
        eq("run -c ../exp/run.ini (topology = @spec.txt): the spec read", doc["config"]["topology"], "torus:k=4x4")
        doc = json.loads(run("sweep", "-c", RUN_INI, *SHORT, "--rates", "0.1:0.1:0.1", "--json", "-", cwd=here).stdout)
        eq("sweep -c ../exp/run.ini: the spec read", doc["config"]["topology"], "torus:k=4x4")
        # file= (nested), placement_map and calibration: kept absolute.
        cfg = json.loads(run("config", "-c", REP_INI, "--json", cwd=here).stdout)
        eq("config -c ../exp/rep.ini --json: the file keys",
           [cfg["topology"], cfg["placement_map"], cfg["calibration"]],
           [f"p2(graph:file={real_exp}/ring.edges,p=1):trials=1", f"{real_exp}/pp.map", f"{real_exp}/cal.json"])
        doc = json.loads(run("replay", TRACE, "-c", REP_INI, "--json", "-", cwd=here).stdout)
        eq("replay -c ../exp/rep.ini: the map read and recorded",
           [doc["results"]["rank_endpoints"], doc["results"]["placement_map"], doc["config"]["calibration"]],
           [[3, 2], f"{real_exp}/pp.map", f"{real_exp}/cal.json"])
        # The dump runs from anywhere: the same replay from the root.
        write(here, "dumped.ini", run("config", "-c", REP_INI, "--dump", cwd=here).stdout.decode())
        again = json.loads(run("replay", TRACE, "-c", os.path.join(here, "dumped.ini"), "--json", "-", cwd="/").stdout)
        for d in (again, doc):
            d["results"].pop("wall_seconds")
        eq("the dumped config, replayed from /", again["results"], doc["results"])
    relative_files(case)


def case_config_relative_files_cwd():
    """A name given with -s is the working directory's, over a -c file's
    key, and so are the names of a -c read from a pipe (no folder)."""
    def case(exp, here, real_exp):
        doc = json.loads(run("run", "-c", RUN_INI, "-s", "topology=@spec.txt", *SHORT, "--json", "-", cwd=here).stdout)
        eq("-s topology=@spec.txt: the working directory's", doc["config"]["topology"], "mesh:k=2x2")
        doc = json.loads(run("replay", TRACE, "-c", REP_INI, "-s", "placement_map=pp.map", "--json", "-", cwd=here).stdout)
        eq("-s placement_map=pp.map: the working directory's",
           [doc["results"]["rank_endpoints"], doc["results"]["placement_map"]], [[1, 0], "pp.map"])
        with open(os.path.join(exp, "run.ini")) as f:
            doc = json.loads(run("run", "-c", "/dev/stdin", *SHORT, "--json", "-", cwd=here, stdin=f).stdout)
        eq("-c /dev/stdin < ../exp/run.ini: the working directory's spec", doc["config"]["topology"], "mesh:k=2x2")
    relative_files(case)


def case_config_symlink_folder():
    """A -c file that is a symbolic link reads its names from the link's
    folder, not the target's: the folder of the name as given
    (docs/configuration.md). here/link.ini -> ../exp/run.ini with
    topology = @spec.txt reads here/spec.txt."""
    def case(exp, here, real_exp):
        os.symlink(os.path.join("..", "exp", "run.ini"), os.path.join(here, "link.ini"))
        doc = json.loads(run("run", "-c", "link.ini", *SHORT, "--json", "-", cwd=here).stdout)
        eq("run -c link.ini (-> ../exp/run.ini): the link folder's spec", doc["config"]["topology"], "mesh:k=2x2")
        doc = json.loads(run("run", "-c", os.path.join("here", "link.ini"), *SHORT, "--json", "-",
                             cwd=os.path.dirname(here)).stdout)
        eq("run -c here/link.ini from the parent: still here's spec", doc["config"]["topology"], "mesh:k=2x2")
    relative_files(case)


def case_config_dump_cwd_names():
    """--dump writes the working directory's names (-s, a -c from a pipe)
    absolute: the dump saved in another folder reads the same files. It
    wrote them as given, and the dump read back took them from its own
    folder: here's 4-ring became exp's, silently."""
    def case(exp, here, real_exp):
        real_here = os.path.realpath(here)
        write(here, "ring.edges", "0 1\n1 2\n2 3\n3 4\n4 0\n")
        write(exp, "ring.edges", "0 1\n1 2\n2 0\n")
        dump = run("config", "-s", "topology=p2(graph:file=ring.edges,p=1):trials=1", "-s", "placement_map=pp.map",
                   "--dump", cwd=here).stdout.decode()
        lines = [ln.split("    ;")[0] for ln in dump.splitlines() if ln.startswith(("topology =", "placement_map ="))]
        eq("config -s ... --dump: the working directory's names, absolute", lines,
           [f"topology = p2(graph:file={real_here}/ring.edges,p=1):trials=1", f"placement_map = {real_here}/pp.map"])
        write(exp, "dumped.ini", dump)
        doc = json.loads(run("run", "-c", os.path.join(exp, "dumped.ini"), *SHORT, "--json", "-", cwd="/").stdout)
        eq("the dump saved in ../exp, run from /: here's 5-ring", doc["topology"]["routers"], 5)
        with open(os.path.join(exp, "run.ini")) as f:
            dump = run("config", "-c", "/dev/stdin", "--dump", stdin=f, cwd=here).stdout.decode()
        eq("config -c /dev/stdin --dump: its @FILE, the working directory's",
           [ln.split("    ;")[0] for ln in dump.splitlines() if ln.startswith("topology =")],
           [f"topology = @{real_here}/spec.txt"])
    relative_files(case)


def case_config_comma_folder():
    """A folder whose path holds a comma ("a,b"): a resolved name there
    cannot be written as a spec's file= nor as a spec file inside a
    wrapper's parentheses (a value ends at a comma), so such a name stays
    as written, the working directory's, as before names were resolved.
    Resolving it broke the run even from inside the folder: "topology
    'graph': expected key=value, got 'b/ring.edges'"."""
    with tempfile.TemporaryDirectory() as tmp:
        ab = os.path.join(tmp, "a,b")
        os.mkdir(ab)
        write(ab, "ring.edges", "0 1\n1 2\n2 0\n")
        write(ab, "spec.txt", "graph:file=ring.edges,p=1\n")
        write(ab, "x.ini", "[network]\ntopology = graph:file=ring.edges,p=1\n")
        write(ab, "y.ini", "[network]\ntopology = p2(@spec.txt):trials=1\n")
        for ini in ("x.ini", "y.ini"):
            doc = json.loads(run("run", "-c", ini, *SHORT, "--json", "-", cwd=ab).stdout)
            eq(f"run -c {ini} inside 'a,b': the 3-ring", doc["topology"]["routers"], 3)
        doc = json.loads(run("run", "-s", "topology=@spec.txt", *SHORT, "--json", "-", cwd=ab).stdout)
        eq("run -s topology=@spec.txt inside 'a,b': the 3-ring", doc["topology"]["routers"], 3)


def case_config_relative_files_errors():
    """A -c file's name that cannot be read is named as written and where
    it was looked for, in one line (it named only the name as written)."""
    def case(exp, here, real_exp):
        bad_ini = os.path.join("..", "exp", "bad.ini")
        where = f"(resolved to {real_exp}/%s, relative to the config {bad_ini})"
        write(exp, "bad.ini", "[network]\ntopology = @nospec.txt\n")
        one_line_error(run("run", "-c", bad_ini, *SHORT, code=2, cwd=here),
                       f"netloom run: {bad_ini}:2: topology '@nospec.txt' {where % 'nospec.txt'}: cannot open spec file: "
                       "No such file or directory\n")
        write(exp, "bad.ini", "[network]\ntopology = graph:file=no.edges,p=1\n")
        one_line_error(run("run", "-c", bad_ini, *SHORT, code=2, cwd=here),
                       f"netloom run: {bad_ini}:2: topology 'graph': parameter 'file': cannot open 'no.edges' "
                       f"{where % 'no.edges'}: No such file or directory\n")
        write(exp, "bad.ini", "[network]\ntopology = torus:k=4\n[replay]\nplacement = map\nplacement_map = no.map\n")
        one_line_error(run("replay", TRACE, "-c", bad_ini, code=2, cwd=here),
                       f"netloom replay: {bad_ini}:5: key 'placement_map': no.map {where % 'no.map'}: cannot open map "
                       "file: No such file or directory\n")
        write(exp, "bad.ini", "[analytic]\ncalibration = no.json\n")
        one_line_error(run("replay", TRACE, "-c", bad_ini, code=2, cwd=here),
                       f"netloom replay: {bad_ini}:2: key 'calibration': no.json {where % 'no.json'}: cannot open "
                       "calibration file: No such file or directory\n")
        # "-" is standard input, refused by name, not a file in the folder.
        write(exp, "bad.ini", "[network]\ntopology = torus:k=4\n[replay]\nplacement = map\nplacement_map = -\n")
        one_line_error(run("replay", TRACE, "-c", bad_ini, code=2, cwd=here),
                       f"netloom replay: {bad_ini}:5: key 'placement_map': '-': standard input is not read here; "
                       "expected a map file's path\n")
        write(exp, "bad.ini", "[network]\ntopology = graph:file=-,p=1\n")
        one_line_error(run("run", "-c", bad_ini, *SHORT, code=2, cwd=here),
                       f"netloom run: {bad_ini}:2: topology 'graph': parameter 'file': '-': standard input is not read "
                       "here; expected a graph edge list's path\n")
        one_line_error(run("run", "-s", "topology=@nospec.txt", *SHORT, code=2, cwd=here),
                       "netloom run: -s: topology '@nospec.txt': cannot open spec file: No such file or directory\n")
    relative_files(case)


def spec_file_files(case):
    """case(exp, here, real_exp) with tmp/exp/graph.txt, a spec file whose
    file= names its neighbour ring.edges (a 4-ring), and tmp/here/ring.edges
    a 3-ring that only the working directory's name reads."""
    def with_spec(exp, here, real_exp):
        write(exp, "graph.txt", "# the experiment's graph, next to this file\np2(graph:file=ring.edges,p=1):trials=1\n")
        write(exp, "outer.txt", "p1(@graph.txt):trials=1\n")
        write(exp, "gr.ini", "[network]\ntopology = @graph.txt\n")
        write(here, "ring.edges", "0 1\n1 2\n2 0\n")
        case(exp, here, real_exp)
    relative_files(with_spec)


def case_spec_file_relative_files():
    """A file name inside a spec file (a file= in the text of @FILE) is read
    from the spec file's folder, wherever the command runs, through -s, -c,
    a nested spec and a spec file naming another; results record the spec
    with that name absolute, so it reruns from anywhere (the working
    directory's ring.edges was read: 3 routers)."""
    def case(exp, here, real_exp):
        want = f"p2(graph:file={real_exp}/ring.edges,p=1):trials=1"
        spec = os.path.join("..", "exp", "graph.txt")
        for how in (["-s", "topology=@" + spec], ["-c", os.path.join("..", "exp", "gr.ini")]):
            doc = json.loads(run("run", *how, *SHORT, "--json", "-", cwd=here).stdout)
            eq(f"run {' '.join(how)}: the spec recorded", doc["config"]["topology"], want)
            eq(f"run {' '.join(how)}: the network read", doc["topology"]["routers"], 4)
        doc = json.loads(run("run", "-s", f"topology=p3(@{spec}):trials=1", *SHORT, "--json", "-", cwd=here).stdout)
        eq("run -s topology=p3(@../exp/graph.txt): the network read", doc["topology"]["routers"], 4)
        doc = json.loads(run("run", "-s", "topology=@../exp/outer.txt", *SHORT, "--json", "-", cwd=here).stdout)
        eq("run -s topology=@../exp/outer.txt (p1(@graph.txt)): the network read", doc["topology"]["routers"], 4)
        first = run("topo", "describe", "@" + spec, cwd=here).stdout.decode().splitlines()[0]
        eq("topo describe @../exp/graph.txt: the spec", first.split()[1],
           f"p2(graph:file={real_exp}/ring.edges,p=1,labels=0):trials=1,cab=0,frac=1,seed=1")
        # The recorded spec reruns from the root, to the same results.
        doc = json.loads(run("run", "-s", "topology=@" + spec, *SHORT, "--json", "-", cwd=here).stdout)
        again = json.loads(run("run", "-s", "topology=" + doc["config"]["topology"], *SHORT, "--json", "-",
                               cwd="/").stdout)
        for d in (again, doc):
            d["results"].pop("wall_seconds", None)
        eq("the recorded spec, rerun from /", again["results"], doc["results"])
    spec_file_files(case)


def case_spec_file_relative_files_errors():
    """A spec file's name that cannot be read is named as written and where
    it was looked for, in one line (it named only the name as written), and
    an input that is also an output too."""
    def case(exp, here, real_exp):
        spec = os.path.join("..", "exp", "graph.txt")
        where = f"(resolved to {real_exp}/%s, relative to the spec file %s)"
        os.rename(os.path.join(exp, "ring.edges"), os.path.join(exp, "moved.edges"))
        # config checks the files without building: no "base topology".
        for cmd, base in (("run", "topology 'p2': base topology: "), ("config", "")):
            one_line_error(run(cmd, "-s", "topology=@" + spec, *SHORT, code=2, cwd=here),
                           f"netloom {cmd}: -s: {base}topology 'graph': parameter 'file': cannot open 'ring.edges' "
                           f"{where % ('ring.edges', spec)}: No such file or directory\n")
        one_line_error(run("run", "-c", os.path.join("..", "exp", "gr.ini"), *SHORT, code=2, cwd=here),
                       f"netloom run: ../exp/gr.ini:2: topology 'p2': base topology: topology 'graph': parameter "
                       f"'file': cannot open 'ring.edges' {where % ('ring.edges', real_exp + '/graph.txt')}: "
                       "No such file or directory\n")
        write(exp, "outer.txt", "p1(@nospec.txt)\n")
        one_line_error(run("run", "-s", "topology=@../exp/outer.txt", *SHORT, code=2, cwd=here),
                       "netloom run: -s: topology 'p1': base topology: topology '@nospec.txt' "
                       f"{where % ('nospec.txt', '../exp/outer.txt')}: cannot open spec file: "
                       "No such file or directory\n")
        os.rename(os.path.join(exp, "moved.edges"), os.path.join(exp, "ring.edges"))
        one_line_error(run("cost", "@" + spec, "--json", "../exp/ring.edges", code=2, cwd=here),
                       f"netloom cost: --json '../exp/ring.edges': the same file as graph:file= in @{spec} "
                       f"'ring.edges' {where % ('ring.edges', spec)}, an input; expected another file\n")
    spec_file_files(case)

clitest.main(globals())
