#!/usr/bin/env python3
"""End-to-end checks of `netloom run`, `netloom sweep` and `netloom config`.

Usage: cli_engine.py NETLOOM CASE [BOOKSIM_CFG]. Each case runs the built
binary and checks values (closed forms, BookSim2's reference figures,
round trips) or exact messages. BOOKSIM_CFG is BookSim2's torus8x8.cfg
from the shared booksim-reference folder; cases that need it exit 77
(skip) when it is absent. Exit 0 pass, 1 fail, 77 skip.
"""
import configparser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from clitest import run_tty, ENV, NETLOOM, Fail, check, eq, main, near, one_line_error, run, run_json  # noqa: F401

BOOKSIM_CFG = sys.argv[3] if len(sys.argv) > 3 else ""

# A small, quick network for the cases that only need some run.
SMALL = ("-s", "topology=mesh:k=4x4", "-s", "num_vcs=2", "-s", "sample_period=300")
# What an unknown section header that is no typo of one is told.
SECTIONS = "; expected [network], [router], [traffic], [simulation], [replay], [layout] or [analytic]"


def need_booksim():
    if not BOOKSIM_CFG or not os.path.isfile(BOOKSIM_CFG):
        print(f"skip: BookSim reference config not found at '{BOOKSIM_CFG}'")
        sys.exit(77)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read_ini(text):
    cp = configparser.ConfigParser(comment_prefixes=(";", "#"), inline_comment_prefixes=(";",))
    cp.read_string(text)
    return cp


def strip_origin(dump):
    """A dump without the '; from FILE:LINE' notes that record where values came from."""
    return re.sub(r" +; from .*$", "", dump, flags=re.M)


# --- netloom config --from-booksim ---------------------------------------------

def case_booksim_convert():
    need_booksim()
    p = run("config", "--from-booksim", BOOKSIM_CFG)
    eq("stderr (nothing unmappable in the reference config)", p.stderr, b"")
    ini = read_ini(p.stdout.decode())
    eq("sections", ini.sections(), ["network", "router", "traffic", "simulation"])
    eq("topology", ini["network"]["topology"], "torus:k=8x8")
    eq("routing_function (dim_order)", ini["network"]["routing_function"], "dor")
    # use_noc_latency = 1 on a torus: BookSim's folded torus, 2-cycle channels.
    eq("channel_latency", ini["network"]["channel_latency"], "2")
    eq("num_vcs", ini["router"]["num_vcs"], "2")
    eq("vc_buf_size", ini["router"]["vc_buf_size"], "8")
    eq("sw_allocator", ini["router"]["sw_allocator"], "islip")
    eq("traffic", ini["traffic"]["traffic"], "uniform")
    eq("packet_size", ini["traffic"]["packet_size"], "1")
    # injection_rate_uses_flits = 1: the rate is already flits/cycle.
    eq("injection_rate", float(ini["traffic"]["injection_rate"]), 0.1)
    eq("seed", ini["simulation"]["seed"], "0")
    with tempfile.TemporaryDirectory() as tmp:
        conv = os.path.join(tmp, "torus8x8.ini")
        write(conv, p.stdout.decode())
        c = run_json("config", "-c", conv, "--json")
        eq("loaded channel_latency", c["channel_latency"], 2)
        eq("loaded num_vcs", c["num_vcs"], 2)
        eq("loaded injection_rate", c["injection_rate"], 0.1)
        eq("loaded routing_function", c["routing_function"], "dor")

        # Rates in packets (BookSim's default) become flits; a mesh or
        # use_noc_latency = 0 gives 1-cycle channels; BookSim's defaults
        # are written out for what the file leaves unset.
        bs = os.path.join(tmp, "mesh.cfg")
        write(bs, "// a mesh\ntopology = mesh;\nk = 4;\nn = 3;\nrouting_function = dor;\n"
                  "packet_size = 4;\ninjection_rate = 0.05;\n// line\n// comments\ntraffic = transpose; // here too\n")
        ini = read_ini(run("config", "--from-booksim", bs).stdout.decode())
        eq("mesh topology", ini["network"]["topology"], "mesh:k=4x4x4")
        eq("mesh channel_latency", ini["network"]["channel_latency"], "1")
        eq("packets to flits", float(ini["traffic"]["injection_rate"]), 0.2)
        eq("traffic after comments", ini["traffic"]["traffic"], "transpose")
        eq("BookSim's default num_vcs", ini["router"]["num_vcs"], "16")
        bs = os.path.join(tmp, "flat.cfg")
        write(bs, "topology = torus;\nk = 4;\nn = 2;\nrouting_function = dim_order;\nuse_noc_latency = 0;\n"
                  "traffic = hotspot({{0,5},{2,1}});\n")
        ini = read_ini(run("config", "--from-booksim", bs).stdout.decode())
        eq("use_noc_latency = 0", ini["network"]["channel_latency"], "1")
        # BookSim's two-list form: nodes {0,5} at rates {2,1}.
        eq("hotspot", ini["traffic"]["traffic"], "hotspot:nodes=0/5,rates=2/1")


def case_booksim_unmappable():
    with tempfile.TemporaryDirectory() as tmp:
        bs = os.path.join(tmp, "odd.cfg")
        write(bs, "topology = torus;\n"          # 1
                  "k = 4;\n"                     # 2
                  "n = 2;\n"                     # 3
                  "routing_function = dim_order;\n"  # 4
                  "num_vcs = 2;\n"               # 5
                  "router = event;\n"            # 6
                  "speculative = 1;\n"           # 7
                  "seed = time;\n"               # 8
                  "noq = 0;\n")                  # 9: BookSim's default, fine
        p = run("config", "--from-booksim", bs, code=3)
        err = sorted(p.stderr.decode().splitlines())
        eq("warnings", err, sorted([
            f"netloom config: {bs}:6: cannot map 'router = event': netloom models BookSim's iq router only",
            f"netloom config: {bs}:7: cannot map 'speculative = 1': not modelled by netloom",
            f"netloom config: {bs}:8: cannot map 'seed = time': 'time' seeds are not reproducible; using 0",
        ]))
        # What can be mapped is still written, and it loads.
        ini = read_ini(p.stdout.decode())
        eq("topology", ini["network"]["topology"], "torus:k=4x4")
        eq("num_vcs", ini["router"]["num_vcs"], "2")
        check("no seed line for seed = time", "seed" not in ini["simulation"])
        conv = os.path.join(tmp, "odd.ini")
        write(conv, p.stdout.decode())
        eq("loads", run_json("config", "-c", conv, "--json")["num_vcs"], 2)
        # An unknown routing function and traffic pattern are named too.
        bs2 = os.path.join(tmp, "odd2.cfg")
        write(bs2, "routing_function = romm;\ntraffic = diagonal;\n")
        p = run("config", "--from-booksim", bs2, code=3)
        err = p.stderr.decode()
        check(f"names routing_function with its line: {err!r}",
              f"{bs2}:1: cannot map 'routing_function = romm'" in err)
        check(f"names traffic with its line: {err!r}", f"{bs2}:2: cannot map 'traffic = diagonal'" in err)
        check(f"romm, BookSim's, says netloom does not model it: {err!r}", f"{bs2}:1: cannot map "
              "'routing_function = romm': BookSim2's 'romm', which netloom does not model (see 'netloom run "
              "--help')\n" in err)
        # A typo of a routing function it maps names that one, as a
        # mistyped netloom choice does; on a torus of k = 4 not valiant,
        # which BookSim aborts on there.
        for topo, rf, near in (("mesh", "dim_ordr", " (did you mean 'dim_order'?)"), ("torus", "valiamt", "")):
            bs3 = os.path.join(tmp, "typo.cfg")
            write(bs3, f"topology = {topo};\nk = 4;\nn = 2;\nrouting_function = {rf};\n")
            p = run("config", "--from-booksim", bs3, code=3)
            eq(f"routing_function = {rf} on a {topo}", p.stderr.decode(),
               f"netloom config: {bs3}:4: cannot map 'routing_function = {rf}': no netloom equivalent "
               f"(see 'netloom run --help'){near}\n")


def case_booksim_unmapped_runs():
    # Issue 11 part 6: whatever is named and left out, the converted file
    # runs. A routing function that does not run on the converted network
    # (or on netloom's default one, when the topology is left out) is
    # replaced by the first of netloom's default, min, updown,
    # min:classes=none that does, with a comment saying it is not
    # BookSim's routing.
    cases = [
        ("ft.cfg", "topology = fattree;\nk = 2;\nn = 3;\nrouting_function = min;\n", "min", "fattree:k=2,n=3"),
        ("df.cfg", "topology = dragonflynew;\nk = 2;\nn = 1;\nrouting_function = valiant;\nnum_vcs = 3;\n",
         "min", "dragonfly:a=4,p=2,h=2"),
        ("ff.cfg", "topology = flatfly;\nk = 4;\nn = 2;\nc = 1;\nx = 4;\ny = 4;\nxr = 1;\nyr = 1;\n"
                   "routing_function = dim_order;\n", "min", "hyperx:s=4x4,t=1"),
        # The topology left out takes the routing function built for it
        # along: netloom's default network with its default routing.
        ("any.cfg", "topology = anynet;\nnetwork_file = missing.anynet;\nrouting_function = min;\n", "dor", None),
        # One VC: the default torus's dor needs two, min's hop classes more;
        # min:classes=none, written before, deadlocked at this load.
        ("odd.cfg", "topology = weird;\nrouting_function = min;\nnum_vcs = 1;\ninjection_rate = 0.5;\n", "updown",
         None),
        ("df1.cfg", "topology = dragonflynew;\nk = 2;\nn = 1;\nrouting_function = min;\nnum_vcs = 1;\n"
                    "injection_rate = 0.5;\n", "updown", "dragonfly:a=4,p=2,h=2"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, text, route, topo in cases:
            bs = os.path.join(tmp, name)
            write(bs, text)
            p = run("config", "--from-booksim", bs, code=3)
            check(f"{name}: routing_function named: {p.stderr.decode()!r}",
                  "cannot map 'routing_function" in p.stderr.decode())
            out = p.stdout.decode()
            ini = read_ini(out)
            eq(f"{name}: routing_function written", ini["network"]["routing_function"], route)
            eq(f"{name}: topology", ini["network"].get("topology"), topo)
            check(f"{name}: the INI says the routing is not BookSim's: {out!r}",
                  f"; '{route}' is written so that this file runs: it is not BookSim's routing." in out)
            conv = os.path.join(tmp, name + ".ini")
            write(conv, out)
            res = run_json("run", "-c", conv, "-s", "warmup_periods=1", "-s", "sample_period=200", "-s", "max_samples=3",
                           "--json", "-")
            acc = res["results"]["throughput"].get("accepted", 0)
            check(f"{name}: the converted file runs and delivers: {acc!r}", acc > 0)


def case_warmup_only():
    # max_samples <= warmup_periods: BookSim counts warm-up periods in
    # max_samples, so nothing is measured; said on stderr and in the
    # table, not reported as a saturated point.
    for cmd, extra in (("run", ()), ("sweep", ("--rates", "0.1:0.1:0.1"))):
        p = run(cmd, *SMALL, "-s", "warmup_periods=3", "-s", "max_samples=2", *extra)
        eq(f"{cmd}: warning", p.stderr.decode(),
           f"netloom {cmd}: warning: max_samples = 2 < warmup_periods = 3: every sample period is warm-up, nothing is "
           "measured, and each point is reported unstable (BookSim's rule); expected max_samples >= warmup_periods\n")
        check(f"{cmd}: table label: {p.stdout.decode()!r}", "no (warm-up only)" in p.stdout.decode())
        if cmd == "sweep":  # no rate to say "up to": it said "no saturation up to -1"
            eq("sweep: last line", p.stdout.decode().splitlines()[-1],
               "no saturation judged: no point ended its warm-up (last stable rate none)")
        # Equal: warm-up ends with the last period, whose figures are
        # reported (a stable point, as BookSim reports it), but nothing
        # was measured or drained: said on stderr (it was silent, and a
        # 65,535-cycle channel reported a stable latency of 7).
        p = run(cmd, *SMALL, "-s", "warmup_periods=3", "-s", "max_samples=3", *extra)
        eq(f"{cmd}: warning with max_samples = warmup_periods", p.stderr.decode(),
           f"netloom {cmd}: warning: max_samples = warmup_periods = 3: warm-up ends with the last sample period, so each "
           "point reports that warm-up period's figures, with no packet measured or drained (BookSim's rule); "
           "expected max_samples > warmup_periods\n")
        check(f"{cmd}: stable with max_samples = warmup_periods: {p.stdout.decode()!r}",
              p.stdout.decode().splitlines()[2].endswith(" yes"))
    # A warm-up that never ends (warmup_periods = 0: BookSim's thresholds,
    # never met by the few packets of 0.001 on a 4x4 torus) is not a
    # saturated point: labelled so, warmup_ended false, and the sweep goes
    # on past it without taking it for saturation.
    args = ("-s", "topology=torus:k=4x4", "-s", "warmup_periods=0", "--rates", "0.001:0.005:0.002")
    p = run("sweep", *args)
    lines = p.stdout.decode().splitlines()
    check(f"warm-up did not end: table {lines!r}", lines[2].endswith(" no (warm-up did not end)")
          and lines[3].endswith(" yes") and lines[-1].startswith("no saturation up to 0.005"))
    d = run_json("sweep", *args, "--json", "-")["results"]
    eq("warm-up did not end: warmup_ended", [pt["warmup_ended"] for pt in d["points"]], [False, True, True])
    eq("warm-up did not end: stable", [pt["stable"] for pt in d["points"]], [False, True, True])
    eq("warm-up did not end: first_unstable_rate", d["saturation"]["first_unstable_rate"], None)
    # The channel figures describe the window the other figures do (they
    # were 0 when no period was measured): channels.mean is accepted x
    # hops.mean x endpoints / channels (a 4x4 mesh: 16 endpoints, 48 channels).
    for ms in (2, 3, 6):
        r = run_json("run", *SMALL, "-s", "warmup_periods=3", "-s", f"max_samples={ms}", "--json", "-")["results"]
        want = r["throughput"]["accepted"] * r["hops"]["mean"] * 16 / 48
        near(f"max_samples={ms}: channels.mean", r["channels"]["mean"], want, 0.05 * want)
        check(f"max_samples={ms}: channels.max >= mean", r["channels"]["max"] >= r["channels"]["mean"] > 0)


def case_empty_config():
    # A -c file that sets no key ('config --from-booksim x.cfg > mine.ini'
    # that failed leaves mine.ini empty) ran the default 8x8 torus without
    # a word, as if it were the reader's network. Warned of, the run as it
    # was; not for a file that sets a key, even one -s then replaces.
    trace = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "samples", "hpcc-2.nlt")
    with tempfile.TemporaryDirectory() as tmp:
        empty, hdr, one = (os.path.join(tmp, n) for n in ("empty.ini", "hdr.ini", "one.ini"))
        open(empty, "w").close()
        open(hdr, "w").write("# converted\n[network]\n\n[router]\n")
        open(one, "w").write("[network]\ntopology = torus:k=4x4\n")
        small = ("-s", "topology=mesh:k=4x4", "-s", "sample_period=100")
        for path in (empty, hdr):
            warn = (f"warning: -c {path} sets no key (empty, or only comments and section headers): the "
                    "defaults run ('netloom config --keys' lists them)")
            for cmd, extra in (("run", small), ("sweep", (*small, "--rates", "0.1:0.1:0.1")), ("config", ()),
                               ("config", ("--check",)), ("replay", (trace,))):
                p = run(cmd, "-c", path, *extra)
                eq(f"{cmd} -c {os.path.basename(path)}: stderr", p.stderr.decode().splitlines(),
                   [f"netloom {cmd}: {warn}"])
                if cmd == "run":
                    eq("run: the same results", run(cmd, "-c", path, *extra, "--reproducible").stdout,
                       run(cmd, *extra, "--reproducible").stdout)
        for cmd, extra in (("run", ("-s", "topology=mesh:k=4x4", "-s", "sample_period=100")), ("config", ()),
                           ("replay", (trace, "-c", empty))):
            p = run(cmd, "-c", one, *extra)
            eq(f"{cmd} -c one.ini: no warning for it", [l for l in p.stderr.decode().splitlines() if "one.ini" in l], [])
        # replay: the empty one of two files named, once.
        p = run("replay", trace, "-c", one, "-c", empty)
        eq("replay, two files", [l.split(": warning: ")[1][:len("-c ") + len(empty)] for l in p.stderr.decode().splitlines()
                                 if "sets no key" in l], [f"-c {empty}"])


def case_suggestions():
    # A typo of a command, subcommand, option or key names what was meant
    # (only 'config' keys did); another word does not ('-s foo=1'
    # suggested 'voq').
    for args, line in (
            (("runn",), "netloom: unknown command 'runn' (did you mean 'run'? see 'netloom --help')"),
            (("help", "swep"), "netloom: unknown command 'swep' (did you mean 'sweep'? see 'netloom --help')"),
            (("bogus",), "netloom: unknown command 'bogus' (see 'netloom --help')"),
            # trace's said "unknown command ... see 'netloom trace --help'"
            # where topo's says "unknown subcommand" and lists them.
            (("trace", "convrt"), "netloom trace: unknown subcommand 'convrt' (did you mean 'convert'? valid: info, "
                                  "dump, encode, verify, convert, pack, unpack, import, export)"),
            (("trace", "bogus"), "netloom trace: unknown subcommand 'bogus' (valid: info, dump, encode, verify, "
                                 "convert, pack, unpack, import, export)"),
            (("topo", "bogus"), "netloom topo: unknown subcommand 'bogus' (valid: list, describe, export)"),
            (("run", "--jsn", "x.json"), "netloom run: unknown option '--jsn' (did you mean '--json'? see 'netloom "
                                         "run --help')"),
            # trace's subcommands read their own options and named no typo.
            (("trace", "info", "--jsn"), "netloom trace info: unknown option '--jsn' (did you mean '--json'? usage: "
                                         "netloom trace info FILE [--json])"),
            (("trace", "dump", "--rnak", "1"), "netloom trace dump: unknown option '--rnak' (did you mean '--rank'? "
                                               "usage: netloom trace dump FILE [--rank R])"),
            (("trace", "info", "--bogus"), "netloom trace info: unknown option '--bogus' (usage: netloom trace info "
                                           "FILE [--json])"),
            (("sweep", "--rates", "0.1:0.2:0.1", "--plt=x.svg"), "netloom sweep: unknown option '--plt=x.svg' (did "
                                                                 "you mean '--plot'? see 'netloom sweep --help')"),
            (("config", "--dmp"), "netloom config: unknown option '--dmp' (did you mean '--dump'? see 'netloom "
                                  "config --help')"),
            (("replay", "x.nlt", "--topolgy", "torus:k=4x4"), "netloom replay: unknown option '--topolgy' (did you "
                                                              "mean '--topology'? see 'netloom replay --help')"),
            (("run", "--bogus"), "netloom run: unknown option '--bogus' (see 'netloom run --help')"),
            (("run", "-s", "num_vc=2"), "netloom run: -s: unknown key 'num_vc' (did you mean 'num_vcs'?)"),
            (("run", "-s", "foo=1"), "netloom run: -s: unknown key 'foo' (see 'netloom config --keys' for the list)"),
            # A value of a few names: a typo of one names it too.
            (("run", "-s", "placement=sprad"), "netloom run: -s: key 'placement': value 'sprad': expected one of "
                                               "linear, contiguous, random-node, random-router, round-robin, packed, "
                                               "spread, map (did you mean 'spread'?)"),
            (("run", "-s", "sim_type=throughpt"), "netloom run: -s: key 'sim_type': value 'throughpt': expected one "
                                                  "of latency, throughput (did you mean 'throughput'?)"),
            (("run", "-s", "sim_type=batch"), "netloom run: -s: key 'sim_type': value 'batch': expected one of "
                                              "latency, throughput"),
            (("run", "-s", "topology=dragonfly:a=4,h=2,p=2", "-s", "routing_function=ugal:mode=glbal"),
             "netloom run: -s: routing function 'ugal': parameter 'mode' value 'glbal': expected one of local, "
             "global, booksim (did you mean 'global'?)"),
            (("cost", "torus:k=4x4", "--layout", "anneel"), "netloom cost: --layout: expected auto, rule or anneal, "
                                                           "got 'anneel' (did you mean 'anneal'?)"),
            (("layout", "torus:k=4x4", "--layout", "none"), "netloom layout: --layout: expected auto, rule or "
                                                           "anneal, got 'none'")):
        p = run(*args, code=2)
        eq(" ".join(args), p.stderr.decode(), line + "\n")
    # sweep's options given to run ('run --plot c.svg') were unknown
    # options like any word; they now say whose they are.
    for opt in (("--plot", "c.svg"), ("--rates=0.1:0.2:0.1",), ("--continue",), ("--spread", "points")):
        name = opt[0].split("=")[0]
        p = run("run", *opt, code=2)
        eq(f"run {opt[0]}", p.stderr.decode(), f"netloom run: option '{name}' is sweep's, not run's (run simulates "
           "one rate); expected 'netloom sweep --rates A:B:STEP' with it (see 'netloom sweep --help')\n")
    # A BookSim2 key in a netloom configuration ('k = 8', '-s subnets=2')
    # was an unknown key like any other word; it now says whose key it is.
    bs_hint = ("is a BookSim2 key, not netloom's: docs/configuration.md ('netloom config --from-booksim') says what "
               "it becomes, and that command converts a BookSim2 file\n")
    for args, line in ((("run", "-s", "k=8"), "netloom run: -s: unknown key 'k' (see 'netloom config --keys' for the "
                        "list); 'k' " + bs_hint),
                       (("config", "-s", "subnets=2"), "netloom config: -s: unknown key 'subnets' (see 'netloom config "
                        "--keys' for the list); 'subnets' " + bs_hint)):
        p = run(*args, code=2)
        eq(" ".join(args), p.stderr.decode(), line)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.ini")
        open(path, "w").write("[network]\ntopology = torus:k=4x4\nk = 8\n")
        for cmd in ("run", "config"):
            p = run(cmd, "-c", path, code=2)
            eq(f"{cmd} -c k.ini", p.stderr.decode(), f"netloom {cmd}: {path}:3: unknown key 'k' (see 'netloom config "
               "--keys' for the list); 'k' " + bs_hint)
    # A section header's typo named no section ('unknown section [netwrk]').
    with tempfile.TemporaryDirectory() as tmp:
        for text, line in (("[netwrk]\ntopology = torus:k=4x4\n", "1: unknown section [netwrk] (did you mean [network]?)"),
                           ("num_vcs = 2\n[Router]\n", "2: unknown section [Router] (did you mean [router]?)"),
                           ("[bogus]\n", "1: unknown section [bogus]" + SECTIONS)):
            path = os.path.join(tmp, "s.ini")
            open(path, "w").write(text)
            for cmd in ("run", "config"):
                p = run(cmd, "-c", path, code=2)
                eq(f"{cmd} -c {text!r}", p.stderr.decode(),
                   f"netloom {cmd}: {path}:{line}\n")


def case_unread_keys():
    # A -s of a key synthetic runs do not read ([replay], [analytic],
    # [layout]) ran silently: '-s placement=random-node' looked like a
    # placed run. Warned of once per key (its last -s), with no effect on
    # the results; a -c file's, shared with replays, is not.
    base = ("--reproducible", "-s", "topology=torus:k=4x4", "-s", "sample_period=300")
    plain = run("run", *base).stdout
    for cmd, extra in (("run", ()), ("sweep", ("--rates", "0.1:0.1:0.1"))):
        p = run(cmd, *base, "-s", "placement=random-node", "-s", "num_vcs=16", "-s", "ideal=yes",
                "-s", "placement=spread", *extra)
        eq(f"{cmd}: warnings", p.stderr.decode().splitlines(), [
            f"netloom {cmd}: warning: -s ideal=yes: key 'ideal' of [analytic] is not read by {cmd} (synthetic "
            "traffic on the flit model); it has no effect",
            f"netloom {cmd}: warning: -s placement=spread: key 'placement' of [replay] is not read by {cmd} "
            "(synthetic traffic on the flit model); it has no effect"])
        if cmd == "run":
            eq("run: the same results", p.stdout, plain)
        # lookahead_decide times BookSim's lookahead routing alone
        # (routing_delay = 0): with the default routing_delay = 1 it
        # changed nothing, silently.
        p = run(cmd, *base, "-s", "lookahead_decide=upstream", *extra)
        eq(f"{cmd}: lookahead_decide without routing_delay = 0", p.stderr.decode().splitlines(), [
            f"netloom {cmd}: warning: -s lookahead_decide=upstream: key 'lookahead_decide' of [router] is not read "
            f"by {cmd} (without routing_delay = 0); it has no effect"])
        if cmd == "run":
            eq("run: lookahead_decide, the same results", p.stdout, plain)
        p = run(cmd, *base, "-s", "lookahead_decide=upstream", "-s", "routing_delay=0", *extra)
        eq(f"{cmd}: lookahead_decide with routing_delay = 0", p.stderr.decode(), "")
        # alloc_iters counts iSLIP's iterations; the separable allocators
        # make one pass, so with both of them it changed nothing, silently.
        sep = ("-s", "vc_allocator=separable_input_first", "-s", "sw_allocator=separable_output_first")
        p = run(cmd, *base, *sep, "-s", "alloc_iters=3", *extra)
        eq(f"{cmd}: alloc_iters without islip", p.stderr.decode().splitlines(), [
            f"netloom {cmd}: warning: -s alloc_iters=3: key 'alloc_iters' of [router] is not read by {cmd} "
            "(without vc_allocator or sw_allocator = islip); it has no effect"])
        if cmd == "run":
            eq("run: alloc_iters without islip, the same results", p.stdout, run("run", *base, *sep).stdout)
        p = run(cmd, *base, "-s", "vc_allocator=separable_input_first", "-s", "alloc_iters=3", *extra)
        eq(f"{cmd}: alloc_iters with an islip sw_allocator", p.stderr.decode(), "")
        # dateline=0 drops a torus ring's dateline classes: on a mesh, or
        # for duato on a hypercube, it changed nothing, silently. The
        # default (dateline=1, in the header's canonical spec) is silent.
        mesh = ("--reproducible", "-s", "topology=mesh:k=4x4", "-s", "sample_period=300")
        for topo, spec, ring in (
                (mesh, "dor:dateline=0", "VCs"),
                (("--reproducible", "-s", "topology=hypercube:n=4", "-s", "sample_period=300", "-s", "num_vcs=4",
                  "-s", "wait_for_tail_credit=1"), "duato:dateline=0", "escape VCs")):
            p = run(cmd, *topo, "-s", f"routing_function={spec}", *extra)
            family = topo[2].split("=")[1].split(":")[0]
            eq(f"{cmd}: {spec} on a {family}", p.stderr.decode().splitlines(), [
                f"netloom {cmd}: warning: routing function '{spec}' on topology '{family}': dateline=0 does "
                f"nothing here: datelines split a torus ring's {ring}, and this network has no ring"])
            if cmd == "run":
                # The header names the routing as run there: plain dor
                # or duato, no dateline (a mesh or hypercube has no ring).
                eq(f"run: {spec} on a {family}, the same results, the same header", p.stdout,
                   run("run", *topo, "-s", f"routing_function={spec.split(':')[0]}").stdout)
                check(f"run: {spec} on a {family}: header names '{spec.split(':')[0]}'",
                      f", routing {spec.split(':')[0]}, traffic " in p.stdout.decode().splitlines()[0])
            for default in (spec.split(":")[0], spec.replace("=0", "=1")):
                p = run(cmd, *topo, "-s", f"routing_function={default}", *extra)
                eq(f"{cmd}: {default} on a {family}", p.stderr.decode(), "")
        p = run(cmd, "--reproducible", "-s", "topology=torus:k=4x4", "-s", "sample_period=300",
                "-s", "routing_function=dor:dateline=0", "-s", "num_vcs=2", *extra)
        eq(f"{cmd}: dor:dateline=0 on a torus", p.stderr.decode(), "")
        # traffic_class picks a packet's class among traffic_classes; with
        # one class (the default) it changed nothing, silently.
        p = run(cmd, *base, "-s", "traffic_class=dest", *extra)
        eq(f"{cmd}: traffic_class without traffic_classes", p.stderr.decode().splitlines(), [
            f"netloom {cmd}: warning: -s traffic_class=dest: key 'traffic_class' of [traffic] is not read by {cmd} "
            "(without traffic_classes > 1); it has no effect"])
        if cmd == "run":
            eq("run: traffic_class without traffic_classes, the same results", p.stdout, plain)
        p = run(cmd, *base, "-s", "traffic_class=dest", "-s", "traffic_classes=2", *extra)
        eq(f"{cmd}: traffic_class with traffic_classes = 2", p.stderr.decode(), "")
        # The warm-up thresholds end a warm-up of warmup_periods = 0 only,
        # and a throughput run checks no latency (docs/engine.md,
        # Experiments): '-s warmup_thres=0.2' under the default
        # warmup_periods = 3 changed nothing, silently.
        def unread(kv, why):
            return (f"netloom {cmd}: warning: -s {kv}: key '{kv.split('=')[0]}' of [simulation] is not read by "
                    f"{cmd} ({why}); it has no effect")
        p = run(cmd, *base, "-s", "warmup_thres=0.2", "-s", "acc_warmup_thres=0.3", *extra)
        eq(f"{cmd}: warm-up thresholds with warmup_periods = 3", p.stderr.decode().splitlines(), [
            unread("warmup_thres=0.2", "without warmup_periods = 0"),
            unread("acc_warmup_thres=0.3", "without warmup_periods = 0")])
        if cmd == "run":
            eq("run: warm-up thresholds with warmup_periods = 3, the same results", p.stdout, plain)
        p = run(cmd, *base, "-s", "warmup_thres=0.2", "-s", "acc_warmup_thres=0.3", "-s", "warmup_periods=0",
                *extra)
        eq(f"{cmd}: warm-up thresholds with warmup_periods = 0", p.stderr.decode(), "")
        tp = ("-s", "sim_type=throughput")
        p = run(cmd, *base, *tp, "-s", "warmup_periods=0", "-s", "latency_thres=100", "-s", "stopping_thres=0.5",
                "-s", "warmup_thres=0.2", "-s", "acc_warmup_thres=0.3", "-s", "acc_stopping_thres=0.1", *extra)
        eq(f"{cmd}: latency thresholds with sim_type = throughput", p.stderr.decode().splitlines(), [
            unread("latency_thres=100", "with sim_type = throughput"),
            unread("stopping_thres=0.5", "with sim_type = throughput"),
            unread("warmup_thres=0.2", "with sim_type = throughput")])
        p = run(cmd, *base, "-s", "latency_thres=100", "-s", "stopping_thres=0.5", *extra)
        eq(f"{cmd}: latency thresholds with sim_type = latency", p.stderr.decode(), "")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sys.ini")
        write(path, "[network]\ntopology = torus:k=4x4\n[replay]\nplacement = spread\n[layout]\nlayout_seed = 3\n")
        p = run("run", "-c", path, *base)
        eq("keys from a file: no warning", p.stderr.decode(), "")
        eq("keys from a file: the same results", p.stdout, plain)


def case_config_unread_keys():
    # config printed none of the warnings run and sweep print of what they
    # would leave unread ('netloom config -s topology=mesh:k=4x4 -s
    # routing_function=dor:dateline=0' said nothing, status 0). Now
    # --dump, --json and --check print them on stderr, naming run and
    # sweep as what does not read the key; stdout stays the configuration
    # (or --check's one line) alone. --keys reads no configuration.
    def unread(kv, section, why):
        return (f"netloom config: warning: -s {kv}: key '{kv.split('=')[0]}' of [{section}] is not read by run or "
                f"sweep ({why}); it has no effect")
    torus = ("-s", "topology=torus:k=4x4")
    sep = ("-s", "vc_allocator=separable_input_first", "-s", "sw_allocator=separable_output_first")
    cases = (
        (("-s", "topology=mesh:k=4x4", "-s", "routing_function=dor:dateline=0"),
         ["netloom config: warning: routing function 'dor:dateline=0' on topology 'mesh': dateline=0 does nothing "
          "here: datelines split a torus ring's VCs, and this network has no ring"]),
        ((*torus, "-s", "lookahead_decide=upstream"),
         [unread("lookahead_decide=upstream", "router", "without routing_delay = 0")]),
        ((*torus, *sep, "-s", "alloc_iters=3"),
         [unread("alloc_iters=3", "router", "without vc_allocator or sw_allocator = islip")]),
        ((*torus, "-s", "traffic_class=dest"), [unread("traffic_class=dest", "traffic", "without traffic_classes > 1")]),
        ((*torus, "-s", "warmup_thres=0.2"), [unread("warmup_thres=0.2", "simulation", "without warmup_periods = 0")]),
        ((*torus, "-s", "sim_type=throughput", "-s", "latency_thres=100"),
         [unread("latency_thres=100", "simulation", "with sim_type = throughput")]),
        # Where the key is read: no warning (--check's one-cycle keys
        # set warmup_periods after the warnings, not before).
        (("-s", "topology=mesh:k=4x4", "-s", "routing_function=dor:dateline=1"), []),
        ((*torus, "-s", "lookahead_decide=upstream", "-s", "routing_delay=0"), []),
        ((*torus, "-s", "vc_allocator=separable_input_first", "-s", "alloc_iters=3"), []),
        ((*torus, "-s", "traffic_class=dest", "-s", "traffic_classes=2"), []),
        ((*torus, "-s", "warmup_thres=0.2", "-s", "warmup_periods=0"), []),
    )
    for args, want in cases:
        for mode in ("--dump", "--json", "--check"):
            p = run("config", mode, *args)
            eq(f"config {mode} {' '.join(args)}: stderr", p.stderr.decode().splitlines(), want)
            out = p.stdout.decode()
            check(f"config {mode}: stdout holds no warning: {out!r}", "warning" not in out)
            if mode == "--json":
                json.loads(out)
            elif mode == "--check":
                check(f"config --check: one line: {out!r}", out.startswith("runs: ") and out.count("\n") == 1)
            else:
                check(f"config --dump: the INI: {out[:40]!r}", out.startswith("[network]\n"))
    # A routing spec's no-op from a file is warned of, as run does; a
    # file's other keys are not (one file serves every command).
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sys.ini")
        write(path, "[network]\ntopology = mesh:k=4x4\nrouting_function = dor:dateline=0\n[router]\n"
                    "vc_allocator = separable_input_first\nsw_allocator = separable_input_first\nalloc_iters = 3\n")
        for cmd in ("run", "config"):
            p = run(cmd, "-c", path, *(("-s", "sample_period=100") if cmd == "run" else ()))
            eq(f"{cmd} -c: stderr", p.stderr.decode().splitlines(), [
                f"netloom {cmd}: warning: routing function 'dor:dateline=0' on topology 'mesh': dateline=0 does "
                "nothing here: datelines split a torus ring's VCs, and this network has no ring"])


def case_booksim_invalid_values():
    # Values netloom does not accept are named like unmappable keys and
    # left out, so the INI written always loads.
    with tempfile.TemporaryDirectory() as tmp:
        bs = os.path.join(tmp, "vals.cfg")
        write(bs, "topology = mesh;\n"             # 1
                  "k = 4;\n"                       # 2
                  "n = 2;\n"                       # 3
                  "routing_function = dim_order;\n"  # 4
                  "sw_allocator = max_size;\n"     # 5
                  "num_vcs = 300;\n"               # 6
                  "sim_type = batch;\n"            # 7
                  "packet_size = 4;\n"             # 8
                  "injection_rate = 0.5;\n")       # 9: packets/cycle -> 2 flits/cycle
        p = run("config", "--from-booksim", bs, code=3)
        err = p.stderr.decode().splitlines()
        want = [f"netloom config: {bs}:5: cannot map 'sw_allocator = max_size': expected one of islip, "
                "separable_input_first, separable_output_first",
                f"netloom config: {bs}:6: cannot map 'num_vcs = 300': out of range: expected a value in 1..255",
                f"netloom config: {bs}:9: cannot map 'injection_rate = 0.5': 2 flits/cycle (0.5 packets of 4 flits) "
                "is out of range: expected a value in 0..1",
                f"netloom config: {bs}:7: cannot map 'sim_type = batch': expected one of latency, throughput"]
        eq("warnings", sorted(err), sorted(want))
        conv = os.path.join(tmp, "vals.ini")
        write(conv, p.stdout.decode())
        j = run_json("config", "-c", conv, "--json")
        eq("defaults stand for what was left out", (j["sw_allocator"], j["num_vcs"], j["sim_type"]),
           ("islip", 16, "latency"))
        eq("packet_size kept", j["packet_size"], "4")
        # A real for an integer key, on which BookSim stops: named, or
        # for the network's size refused (the docs said both were read).
        for text, code, line in (("num_vcs = 4.0;", 3, ":5: cannot map 'num_vcs = 4.0': expected an integer"),
                                 ("k = 4.0;", 2, ":5: 'k = 4.0': expected one integer (BookSim reads k as an int)")):
            real = os.path.join(tmp, "real.cfg")
            write(real, f"topology = mesh;\nk = 4;\nn = 2;\nrouting_function = dim_order;\n{text}\n")
            p = run("config", "--from-booksim", real, code=code)
            check(f"{text}: {p.stderr!r}", f"netloom config: {real}{line}\n" in p.stderr.decode())
        # A rate in packets of a size netloom does not take is named for
        # that: it was converted with the size, then named out of range
        # ('7000 flits/cycle (0.1 packets of 70000 flits) is out of range')
        # or, past a double, 'inf flits/cycle ... expected a number'.
        big = os.path.join(tmp, "big.cfg")
        for size, why in (("1e400", "expected value or range like 1..32"),
                          ("70000", "out of range: expected values in 1..65535")):
            write(big, "topology = mesh;\nk = 4;\nn = 2;\nrouting_function = dim_order;\n"
                       f"packet_size = {size};\ninjection_rate = 0.1;\n")
            err = run("config", "--from-booksim", big, code=3).stderr.decode().splitlines()
            eq(f"packet_size = {size}: a rate in its packets", err,
               [f"netloom config: {big}:5: cannot map 'packet_size = {size}': {why}",
                f"netloom config: {big}:6: cannot map 'injection_rate = 0.1': its unit is packets of packet_size, which is "
                "not mapped (BookSim's injection_rate_uses_flits = 0)"])
        # A rate that is a word is named like latency_thres = O.1, not
        # read as 0 (O.1, abc). 0.1O and an empty value are not BookSim
        # syntax (its parser stops): refused, not read as 0.1 or 0.
        head = "topology = torus;\nk = 4;\nn = 2;\nrouting_function = dim_order;\n"
        for v in ("O.1", "abc"):
            write(bs, head + f"injection_rate = {v};\n")
            p = run("config", "--from-booksim", bs, code=3)
            eq(f"injection_rate = {v!r}", p.stderr.decode(),
               f"netloom config: {bs}:5: cannot map 'injection_rate = {v}': expected a number\n")
            out = p.stdout.decode()
            check(f"injection_rate = {v!r} left out", not re.search(r"^injection_rate\s*=", out, re.M))
            check(f"injection_rate = {v!r}: the INI notes netloom's default applies: {out!r}",
                  f"; injection_rate: BookSim's '{v}' is not mapped: expected a number;\n"
                  "; netloom uses its default instead: injection_rate = " in out)
        for v, msg in (("0.1O", "'injection_rate = 0.1O': BookSim reads the value as '0.1' then 'O' and stops with "
                                "'Parse error': expected a decimal number, a word or a {a,b} list"),
                       ("", "expected 'key = value;'")):
            write(bs, head + f"injection_rate = {v};\n")
            p = run("config", "--from-booksim", bs, code=2)
            eq(f"injection_rate = {v!r}: nothing written", p.stdout, b"")
            one_line_error(p, f"netloom config: {bs}:5: {msg}")
        # Values BookSim takes and a netloom run refuses: the converted
        # configuration is built as a run builds it, and refused (exit 2,
        # nothing on stdout), not written to fail at the first run.
        for extra, why in (("st_final_delay = 0;\n", "st_prepare_delay (0) + st_final_delay (0) must be at least 1 cycle; "
                           "set st_final_delay = 1 (its default) or st_prepare_delay = 1"),
                           ("num_vcs = 2;\ninput_speedup = 4;\n", "input_speedup 4 exceeds num_vcs 2")):
            write(bs, head + extra)
            p = run("config", "--from-booksim", bs, code=2)
            one_line_error(p, f"netloom config: {bs}: the converted configuration does not run: {why}")
        # A negative threshold turns BookSim's check off (trafficmanager.cpp:
        # 'thres >= 0.0 &&'): it was refused as out of range (exit 3, the
        # default 500 written); now netloom's largest value stands for it,
        # under a comment, and the INI loads.
        thres = (("latency_thres", "-1.0", "1000000000000"), ("warmup_thres", "{-1.0}", "1000000"),
                 ("acc_warmup_thres", "-0.5", "1000000"), ("stopping_thres", "-1e3", "1000000"),
                 ("acc_stopping_thres", "-1", "1000000"))
        write(bs, head + "".join(f"{k} = {v};\n" for k, v, _ in thres))
        p = run("config", "--from-booksim", bs)
        eq("thresholds off: stderr", p.stderr, b"")
        text = p.stdout.decode()
        ini = read_ini(text)
        for k, v, want in thres:
            eq(f"{k} = {v}", ini["simulation"][k], want)
            check(f"{k}: comment says so", f"; {k} = {v.strip('{}')}: BookSim's check is off (a negative threshold); {want}, "
                  "netloom's largest, stands for it\n" in text)
        conv = os.path.join(tmp, "thres.ini")
        write(conv, text)
        j = run_json("config", "-c", conv, "--json")
        eq("thresholds off: loaded", [j[k] for k, _, _ in thres], [1e12, 1e6, 1e6, 1e6, 1e6])
        write(bs, head + "latency_thres = 0.0;\nstopping_thres = 0.5;\n")
        ini = read_ini(run("config", "--from-booksim", bs).stdout.decode())
        eq("thresholds >= 0 as they are", (ini["simulation"]["latency_thres"], ini["simulation"]["stopping_thres"]),
           ("0.0", "0.5"))
        write(bs, head + "injection_rate_uses_flits = l;\ninjection_rate = 0.2;\n")
        p = run("config", "--from-booksim", bs, code=3)
        eq("injection_rate_uses_flits = l", p.stderr.decode().splitlines(),
           [f"netloom config: {bs}:5: cannot map 'injection_rate_uses_flits = l': expected an integer (0 or 1)",
            f"netloom config: {bs}:6: cannot map 'injection_rate = 0.2': its unit is unknown "
            "(injection_rate_uses_flits is not an integer)"])


def case_booksim_syntax():
    with tempfile.TemporaryDirectory() as tmp:
        bs = os.path.join(tmp, "bad.cfg")
        write(bs, "topology = torus;\nk = 4;\nn = 2\n")
        p = run("config", "--from-booksim", bs, code=2)
        one_line_error(p, f"{bs}:3: expected 'key = value;' (missing ';')")
        write(bs, "topology = torus;\nk 4;\n")
        p = run("config", "--from-booksim", bs, code=2)
        one_line_error(p, f"{bs}:2: expected 'key = value;'")
        p = run("config", "--from-booksim", os.path.join(tmp, "none.cfg"), code=2)
        one_line_error(p, f"{tmp}/none.cfg: cannot open BookSim config: No such file or directory")
        # What BookSim's parser (config.l, config.y) stops on is refused
        # with file:line: it took quotes, 0x4 (written to the INI as 0x4,
        # which netloom reads as 4) and /* */ comments that BookSim refuses.
        head = "topology = mesh;\nk = 4;\nn = 2;\nrouting_function = dor;\n"
        for body, msg in (
                ('topology = "mesh";\nk = 4;\n', ":1: a quoted value is not BookSim syntax (BookSim stops with "
                 "'Parse error'): expected 'key = value;' with the value unquoted"),
                (head + "num_vcs = 0x4;\n", ":5: 'num_vcs = 0x4': BookSim reads the value as '0' then 'x4' and "
                 "stops with 'Parse error': expected a decimal number, a word or a {a,b} list"),
                (head + "injection_rate = 1.;\n", ":5: 'injection_rate = 1.': BookSim reads the value as '1' then '.'"),
                (head + "injection_rate = {0.1, 0.2};\n", ":5: '{' is not BookSim syntax"),
                (head + "k = +4;\n", ":5: '+' is not BookSim syntax"),
                (head + "\fk = 4;\n", ":5: '\\x0c' is not BookSim syntax"),
                ("/* a mesh */\n" + head, ":1: '/*' is not BookSim syntax (BookSim's comments are '//' to the end "
                 "of the line; it stops with 'Parse error')"),
                (head + "k = 4; /* x */\n", ":5: '/*' is not BookSim syntax"),
                (head + "k = 4 /* x */;\n", ":5: '/*' is not BookSim syntax"),
                (head + "k = 4;;\n", ":5: expected 'key = value;'"),
                ("", ": no 'key = value;' setting (BookSim's parser stops with 'Parse error' on a file without one)"),
                ("// only a comment\n", ": no 'key = value;' setting")):
            write(bs, body)
            p = run("config", "--from-booksim", bs, code=2)
            one_line_error(p, f"netloom config: {bs}{msg}")
            check(f"{body!r}: a BookSim file not called a netloom one", b"netloom configuration" not in p.stderr)
        # A netloom INI given to --from-booksim (the mistake the other way
        # round from run -c on a BookSim file): said so.
        for body, msg in (("[network]\ntopology = torus:k=4x4\n", ":1: '[' is not BookSim syntax"),
                          ("topology = torus:k=4x4\nnum_vcs = 2\n", ":1: 'topology = torus:k=4x4': BookSim reads")):
            write(bs, body)
            p = run("config", "--from-booksim", bs, code=2)
            one_line_error(p, f"netloom config: {bs}{msg}")
            check(f"{body!r}: the hint to read it with -c: {p.stderr!r}",
                  p.stderr.endswith(b" (this is a netloom configuration: read it with 'netloom run -c FILE' or "
                                    b"'netloom config -c FILE')\n"))
        # What it takes: words with BookSim's punctuation, {a,b} lists,
        # numbers as its lexer reads them (.5, 1e-1, -1.0), '//' after a
        # ';' or a word, several statements on a line, CR LF line ends.
        write(bs, "topology = mesh;k = 4;\r\nn = 2; // c\nrouting_function = dor;\ninjection_rate = .05;\n"
                  "injection_rate_uses_flits = 1;\ntraffic = hotspot({{0,5},{1,1}});\nwarmup_thres = 1e-1;\n"
                  "stopping_thres = {0.2};\n")
        ini = read_ini(run("config", "--from-booksim", bs).stdout.decode())
        eq("lexer: values", (ini["network"]["topology"], ini["traffic"]["injection_rate"], ini["traffic"]["traffic"],
                             ini["simulation"]["warmup_thres"], ini["simulation"]["stopping_thres"]),
           ("mesh:k=4x4", "0.05", "hotspot:nodes=0/5,rates=1/1", "1e-1", "0.2"))


def case_booksim_missing_semicolon():
    # A ';' missing in the middle of a file joins two settings into one
    # value ("4\nn = 2"): that is a syntax error in BookSim too, not a
    # setting of k = 4 with n left at its default.
    with tempfile.TemporaryDirectory() as tmp:
        bs = os.path.join(tmp, "bad.cfg")
        write(bs, "topology = torus;\nk = 4\nn = 3;\nrouting_function = dim_order;\n")
        p = run("config", "--from-booksim", bs, code=2)
        one_line_error(p, f"{bs}:2: expected 'key = value;' (missing ';')")


# --- netloom config --dump / --json / --keys ------------------------------------

def case_config_dump():
    with tempfile.TemporaryDirectory() as tmp:
        # Defaults only: the dump loads back to the same dump.
        a = run("config", "--dump").stdout.decode()
        eq("--dump is the default", run("config").stdout.decode(), a)
        fa = os.path.join(tmp, "a.ini")
        write(fa, a)
        b = run("config", "-c", fa, "--dump").stdout.decode()
        # Loaded values carry a note of where they came from.
        check("origin notes", f"num_vcs = 16    ; from {fa}:15\n" in b)
        eq("dump -> load -> dump", strip_origin(b), a)
        # With overrides, file values and -s values after them.
        fo = os.path.join(tmp, "o.ini")
        write(fo, "[router]\nnum_vcs = 4\n[traffic]\npacket_size = 2..6\ninjection_rate = 0.3\n")
        c = run("config", "-c", fo, "-s", "num_vcs=6", "-s", "routing_function=min:select=first",
                "-s", "internal_speedup=1.5").stdout.decode()
        check("-s note", "num_vcs = 6    ; from -s\n" in c)
        check("file note", f"packet_size = 2..6    ; from {fo}:4\n" in c)
        fc = os.path.join(tmp, "c.ini")
        write(fc, c)
        d = run("config", "-c", fc, "--dump").stdout.decode()
        eq("dump -> load -> dump (overrides)", strip_origin(d), strip_origin(c))
        # The shortest decimal, a subnormal's too: 1e-320 was 9.99989e-321.
        check("a subnormal's shortest decimal", "injection_rate = 1e-320    ; from -s\n"
              in run("config", "-s", "injection_rate=1e-320").stdout.decode())
        fd = os.path.join(tmp, "d.ini")
        write(fd, d)
        eq("dump -> load -> dump -> load -> dump", strip_origin(run("config", "-c", fd).stdout.decode()),
           strip_origin(c))
        eq("same configuration as JSON", run_json("config", "-c", fc, "--json"),
           run_json("config", "-c", fo, "-s", "num_vcs=6", "-s", "routing_function=min:select=first",
                    "-s", "internal_speedup=1.5", "--json"))
        # routing_function unset: the family's default a run uses (min on a
        # HyperX), noted as such, so the dump loads back to a configuration
        # that runs; it said dor, which does not run on a HyperX.
        fh = os.path.join(tmp, "hx.ini")
        write(fh, "[network]\ntopology = hyperx:s=4x4\n")
        h = run("config", "-c", fh).stdout.decode()
        check("family's routing in the dump", "routing_function = min    ; from the topology family's default "
              "(routing_function unset)\n" in h)
        eq("family's routing in --json", run_json("config", "-c", fh, "--json")["routing_function"], "min")
        fhd = os.path.join(tmp, "hx_dump.ini")
        write(fhd, h)
        eq("the dump runs", run_json("run", "-c", fhd, "-s", "sample_period=100", "--json", "-")["routing"]["spec"],
           "min:select=auto,classes=auto,table=auto")
        eq("a torus keeps the key's default, unnoted", "routing_function = dor\n" in run("config").stdout.decode(), True)
        # A family's own notation (Equality's N..K..P..[...](...)): the
        # dump said dor, which the run, picking min, does not use.
        eq_spec = run_json("design", "equality", "--routers", "64", "--radix", "8", "--endpoints", "2",
                           "--json")["notation"]
        check(f"notation's family routing: {eq_spec}", "routing_function = min    ; from the topology family's default "
              "(routing_function unset)\n" in run("config", "-s", "topology=" + eq_spec).stdout.decode())
        # BookSim style: keys before any section header are accepted.
        fb = os.path.join(tmp, "flat.ini")
        write(fb, "num_vcs = 4\nchannel_latency = 3\n")
        j = run_json("config", "-c", fb, "--json")
        eq("flat num_vcs", j["num_vcs"], 4)
        eq("flat channel_latency", j["channel_latency"], 3)
        # A continuation line's ' ; comment' is a comment, as a key line's
        # (the topology was 'torus:k=4x4 ; 4x4 torus').
        fk = os.path.join(tmp, "cont.ini")
        write(fk, "[network]\ntopology = torus:k=4\n  x4 ; 4x4 torus\n[router]\nnum_vcs = 4 ; four\n")
        j = run_json("config", "-c", fk, "--json")
        eq("continued topology", j["topology"], "torus:k=4x4")
        eq("num_vcs after it", j["num_vcs"], 4)


def case_config_check():
    # --dump and --json check specs parsed, not built: a configuration run
    # refuses once it builds (too few VCs for ugal) was dumped, exit 0.
    # --check builds it as run does and refuses it with run's own line.
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, "df.ini")
        write(f, "[network]\ntopology = dragonfly:a=4,p=2,h=2,g=3\nrouting_function = ugal\n[router]\nnum_vcs = 2\n")
        want = (f"{f}:5: routing function 'ugal' needs num_vcs >= 2 x the diameter = 4 "
                "(one VC class per hop of the longest Valiant path), got 2")
        ran = run("run", "-c", f, code=2)
        one_line_error(ran, "netloom run: " + want)
        p = run("config", "-c", f, "--check", code=2)
        one_line_error(p, "netloom config: " + want)
        eq("refused: nothing on stdout", p.stdout.decode(), "")
        # Fixed by -s, it runs: one line saying what, on stdout.
        p = run("config", "-c", f, "-s", "num_vcs=4", "--check")
        eq("check line", p.stdout.decode(),
           "runs: dragonfly:a=4,p=2,h=2,g=3, routing ugal:mode=local,inter=router,threshold=0,snapshot=0,queue=credit, "
           "traffic uniform, 12 routers, 24 endpoints\n")
        eq("check: stderr", p.stderr.decode(), "")
        # The run's header agrees on what runs, active endpoints included.
        args = ("-s", "topology=torus:k=3x3", "-s", "traffic=bitrev")
        p = run("config", *args, "--check")
        eq("check line, bit pattern", p.stdout.decode(),
           "runs: torus:k=3x3,p=1, routing dor:dateline=1, traffic bitrev, 9 routers, 9 endpoints "
           "(8 active: bitrev needs a power of two)\n")
        head = run("run", *args, "-s", "sample_period=50").stdout.decode().splitlines()[0]
        check(f"run header names the same: {head}", head.endswith("9 routers, 9 endpoints (8 active: bitrev needs a "
                                                                  "power of two), seed 0"))
        # A spec refused before building still is, as by --dump.
        p = run("config", "-s", "topology=torus:k=1x1", "--check", code=2)
        one_line_error(p, "netloom config: -s: topology 'torus': parameter 'k' value '1x1' out of range")


def case_config_json():
    j = run_json("config", "--json", "-s", "packet_size=1..4", "-s", "wait_for_tail_credit=yes")
    # Leading zeros of any number (a leading 0 is not octal): past 63
    # characters 4 was refused as out of range, a spec's 4 too.
    zeros = "0" * 70
    j2 = run_json("config", "--json", "-s", f"num_vcs={zeros}4", "-s", f"vc_buf_size=0x{zeros}10",
                  "-s", f"seed=-{zeros}1")
    eq("leading zeros", [j2["num_vcs"], j2["vc_buf_size"], j2["seed"]], [4, 16, -1])
    p = run("run", "-s", f"topology=mesh:k={zeros}2x2", "-s", "sample_period=100", "--json", "-")
    eq("a spec's leading zeros", json.loads(p.stdout)["topology"]["routers"], 4)
    want_types = {
        "topology": str, "routing_function": str, "channel_latency": int, "cycle_ps": int,
        "flow_control": str, "num_vcs": int, "vc_buf_size": int, "internal_speedup": float,
        "vc_allocator": str, "wait_for_tail_credit": bool, "pipelined_stages": bool,
        "traffic": str, "injection_rate": float, "packet_size": str, "sim_type": str, "seed": int,
        "latency_thres": float, "watchdog_cycles": int,
    }
    for k, t in want_types.items():
        check(f"config --json: {k} is {type(j.get(k)).__name__}, expected {t.__name__}",
              type(j.get(k)) is t)
    eq("defaults", [j[k] for k in ("topology", "routing_function", "num_vcs", "vc_buf_size", "channel_latency",
                                   "injection_rate", "sim_type", "sample_period", "latency_thres")],
       ["torus:k=8x8", "dor", 16, 8, 1, 0.1, "latency", 1000, 500.0])
    eq("range kept as text", j["packet_size"], "1..4")
    eq("bool parsed", j["wait_for_tail_credit"], True)


def case_config_keys():
    keys_text = run("config", "--keys").stdout.decode()
    sections = re.findall(r"^\[(\w+)\]", keys_text, flags=re.M)
    eq("sections", sections, ["network", "router", "traffic", "simulation", "replay", "layout", "analytic"])
    listed = re.findall(r"^  (\w+) ", keys_text, flags=re.M)
    every = list(run_json("config", "--json").keys())
    eq("--keys lists every key, in order", listed, every)
    eq("key count", len(every), 54 + 29 + 10 + 9)  # engine (3 link-class latencies, noc_latency, 2 traffic-class keys, hold_switch_for_packet, voq, lookahead_decide, sequential_allocation, threads, partitioner), [replay] (5 placement keys), [layout] (layout_threads), [analytic] (path_select)
    # Each key line carries its default; bounded numbers their range.
    check("num_vcs line", re.search(r"^  num_vcs +virtual channels per port \[default 16\] \[integer, 1\.\.255\]$",
                                    keys_text, flags=re.M))
    check("flow_control choices", "(wormhole|vct) [default wormhole]" in keys_text)
    # A key whose default is no value (no map file, no calibration, the
    # packaging rule chosen per topology) printed "[default ]"; it reads
    # "[default unset]", as 'topo list' prints clos's down=/up=.
    check("no '[default ]' line", "[default ]" not in keys_text)
    for key in ("placement_map", "layout_pack", "calibration"):
        line = next(l for l in keys_text.splitlines() if l.startswith(f"  {key} "))
        check(f"{key} default: {line!r}", "[default unset]" in line)
    # lookahead_decide = upstream runs on any number of partitions,
    # threads and ranks (docs/configuration.md); the help said one partition.
    line = next(l for l in keys_text.splitlines() if l.startswith("  lookahead_decide "))
    check(f"lookahead_decide help: {line!r}", "one partition only" not in line
          and "any number of partitions, threads and MPI ranks; not with voq = 1" in line)
    # routing_function's line said "[default dor]" alone, where a hyperx
    # runs min, and named no list of functions, as topology's and
    # traffic's lines do (docs/configuration.md).
    line = next(l for l in keys_text.splitlines() if l.startswith("  routing_function "))
    check(f"routing_function help: {line!r}",
          "(see 'netloom run --help'); unset: the topology family's, dor on tori, meshes and the cmesh, min "
          "elsewhere [default dor]" in line)
    # A file or override given with --keys was read, then ignored: the
    # defaults were printed, status 0.
    for extra, opt in ((("-s", "num_vcs=4"), "-s"), (("-c", "/dev/null"), "-c")):
        one_line_error(run("config", "--keys", *extra, code=2),
                       f"netloom config: --keys lists every key's own default: '{opt}' does not apply (the values a "
                       "configuration resolves to: netloom config -c FILE -s ...)")


# --- bad configurations -----------------------------------------------------------

def case_errors():
    """Every class of bad input: one line naming the key/value and what is
    expected, exit status 2, nothing on stdout, the --json target untouched."""
    with tempfile.TemporaryDirectory() as tmp:
        def ini(name, text):
            path = os.path.join(tmp, name)
            write(path, text)
            return path

        unknown_section = ini("us.ini", "[network]\ntopology = mesh:k=4x4\n\n[bogus]\nnum_vcs = 2\n")
        wrong_section = ini("ws.ini", "[network]\ntopology = mesh:k=4x4\nnum_vcs = 2\n")
        syntax = ini("se.ini", "[router]\nnum_vcs = 2\nthis is not a setting\n")
        bracket = ini("sb.ini", "; comment\n[router\nnum_vcs = 2\n")
        # inih ignores text after a header's ']': the key written there was
        # lost and the run took the default (topology torus:k=8x8, num_vcs 16).
        after_hdr = ini("ah.ini", "[network] topology = torus:k=4x4\nrouting_function = dor\n")
        after_hdr2 = ini("a2.ini", "[network]\ntopology = torus:k=4x4\n[router] num_vcs = 4\n")
        hdr_comment = ini("hc.ini", "[network] ; the network\ntopology = torus:k=4x4\n[router];x\nnum_vcs = 4\n")
        in_file = ini("rf.ini", "[router]\nvc_buf_size = 4\nnum_vcs = 0\n")
        missing = os.path.join(tmp, "missing.ini")
        # The first bad line is reported, with its own message, whatever follows.
        bad_then_good = ini("bg.ini", "[router]\nnum_vc = 4\nvc_buf_size = 4\n")
        # A key set twice in one file (the last one won silently), in one
        # section or two.
        twice = ini("tw.ini", "[router]\nnum_vcs = 2\nvc_buf_size = 4\nnum_vcs = 4\n")
        twice_sec = ini("ts.ini", "[router]\nnum_vcs = 2\n[network]\ntopology = mesh:k=4x4\n[router]\nnum_vcs = 4\n")
        # ... or before the first header and again in the key's section
        # (a section-less key matched no section's, so the last one won).
        twice_flat = ini("tf.ini", "injection_rate = 0.3\n[traffic]\ninjection_rate = 0.05\n")
        two_bad = ini("tb.ini", "[router]\nvc_buf_size = x\nvc_buf_size = 4\nalloc_iter = 2\n")
        indented = ini("in.ini", "[router]\nnum_vcs = 4\n  vc_buf_size = 2\n")
        # After a text key the line was its value, silently ('placement_map =
        # placement = random-node', the topology 'routing_function = min').
        indented_text = ini("it.ini", "[network]\ntopology = torus:k=4x4\n[replay]\nplacement_map = my.map\n"
                                      "  placement = random-node\n")
        indented_topo = ini("io.ini", "[network]\ntopology = torus:k=4x4\n  routing_function = min\n")
        # A NUL byte cut the line silently (p=3 dropped).
        nul = ini("nu.ini", "[network]\ntopology = torus:k=4x4\0,p=3\n")
        # Refused once the topology is known, at the key's line as when read.
        parts_file = ini("pa.ini", "[network]\ntopology = torus:k=4x4\n[simulation]\npartitions = 17\n")
        threads_file = ini("th.ini", "[network]\ntopology = torus:k=4x4\n[simulation]\nthreads = 17\n")
        vcs_file = ini("vc.ini", "[network]\ntopology = torus:k=4x4\n[router]\nvc_buf_size = 4\nnum_vcs = 3\n")
        # Refusals of keys together name the file:line of the key they
        # expect changed first (they named none).
        st_file = ini("st.ini", "[network]\ntopology = mesh:k=4x4\n[router]\nst_prepare_delay = 0\nst_final_delay = 0\n")
        drain_file = ini("drain.ini", "topology = mesh:k=4x4\nmax_drain_cycles = 0\n")
        speedup_file = ini("sp.ini", "topology = mesh:k=4x4\ninput_speedup = 4\nnum_vcs = 2\n")
        voq_file = ini("voq.ini", "topology = mesh:k=4x4\nrouting_function = min\nnum_vcs = 6\nsequential_allocation = 1\n"
                       "voq = 1\n")
        # A by-priority VC allocator refused: at vc_allocator's line, else
        # routing_function's (it named no place).
        prio_file = ini("prio.ini", "[network]\ntopology = hyperx:s=4x4\nrouting_function = minad\n[router]\n"
                        "num_vcs = 2\n")
        prio_va_file = ini("prio_va.ini", "[network]\ntopology = hyperx:s=4x4\nrouting_function = dal\n[router]\n"
                           "num_vcs = 2\nvc_allocator = islip\n")
        # UGAL-G's live view against the threads given with -s: it named
        # '-s:' alone, or the file's 'partitions = 1', the value it expects.
        ugalg_file = ini("ug.ini", "[network]\ntopology = torus:k=4x4\nrouting_function = ugal:mode=global\n"
                         "[simulation]\npartitions = 1\n")
        # The specs parsed once the network is built named no file: a
        # bad topology, traffic or routing function in run.ini read as if
        # typed with -s.
        topo_file = ini("tp.ini", "[network]\ntopology = torus:k=1x4\n")
        traffic_file = ini("tr.ini", "[network]\ntopology = mesh:k=4x4\n[traffic]\ntraffic = diagonal\n")
        rf_file = ini("ru.ini", "[network]\ntopology = mesh:k=4x4\nrouting_function = zigzag\n")
        # BookSim2's routing functions netloom does not model said only
        # "unknown ... (valid: ...)": they say what --from-booksim says.
        rf_booksim_file = ini("rb.ini", "[network]\ntopology = torus:k=4x4\nrouting_function = min_adapt\n")
        rf_param_file = ini("rp.ini", "[network]\nrouting_function = dor:dateline=2\ntopology = mesh:k=4x4\n")
        rf_family_file = ini("rm.ini", "[network]\ntopology = full:n=8\nrouting_function = dor\n")
        # A link latency key the topology has no use for, refused once the
        # network is built: it named no place, unlike partitions above.
        lat_file = ini("ll.ini", "[network]\ntopology = mesh:k=4x4\nlocal_latency = 3\n")
        noc_file = ini("noc.ini", "[network]\ntopology = hyperx:s=4x4,t=2\nnoc_latency = 1\n")
        cases = [
            (("-c", topo_file), f"netloom run: {topo_file}:2: topology 'torus': parameter 'k' value '1x4' out of "
             "range: expected each element in 2..65535, got '1'"),
            (("-c", traffic_file), f"netloom run: {traffic_file}:4: unknown traffic pattern 'diagonal' (valid: "
             "uniform, bitcomp, bitrev, shuffle, transpose, bitrot, hotspot, randperm, asymmetric, neighbor, "
             "tornado, swap2, nextgroup)"),
            (("-c", rf_file), f"netloom run: {rf_file}:3: unknown routing function 'zigzag' (valid: dor,"),
            (("-c", rf_param_file), f"netloom run: {rf_param_file}:2: routing function 'dor': parameter 'dateline' "
             "value '2': expected 0/1"),
            (("-c", rf_family_file), f"netloom run: {rf_family_file}:3: routing function 'dor' does not run on "
             "topology 'full'"),
            # key=value errors: -s and file
            (("-s", "num_vc=4"), "-s: unknown key 'num_vc' (did you mean 'num_vcs'?)"),
            (("-s", "frobnicate=4"), "-s: unknown key 'frobnicate' (see 'netloom config --keys' for the list)"),
            # Case and a section written into the name had no suggestion.
            (("-s", "NUM_VCS=4"), "-s: unknown key 'NUM_VCS' (did you mean 'num_vcs'?)"),
            (("-s", "router.num_vcs=4"), "-s: unknown key 'router.num_vcs' (did you mean 'num_vcs'?)"),
            (("-s", "num_vcs=abc"), "-s: key 'num_vcs': value 'abc': expected an integer"),
            (("-s", "injection_rate=fast"), "-s: key 'injection_rate': value 'fast': expected a number"),
            # Reals are decimal, as a command's numbers: C99's hexadecimal
            # floats ran ('0x1p-4' at 0.0625); integers keep their 0x.
            (("-s", "injection_rate=0x1p-4"), "-s: key 'injection_rate': value '0x1p-4': expected a number"),
            (("-s", "bandwidth_gbps=0X10"), "-s: key 'bandwidth_gbps': value '0X10': expected a number"),
            (("-s", "wait_for_tail_credit=maybe"),
             "-s: key 'wait_for_tail_credit': value 'maybe': expected 0/1, true/false, yes/no or on/off"),
            (("-s", "num_vcs=0"), "-s: key 'num_vcs': value '0': out of range: expected a value in 1..255"),
            # Digits too many for 64 bits are out of range, not "not an integer".
            (("-s", "num_vcs=99999999999999999999"),
             "-s: key 'num_vcs': value '99999999999999999999': out of range: expected a value in 1..255"),
            # An integral bound in full, not 9.00719925474099e+15.
            (("-s", "placement_seed=-1"),
             "-s: key 'placement_seed': value '-1': out of range: expected a value in 0..9007199254740992"),
            # Compared as integers: (double) rounded 2^53 + 1 down to the bound.
            (("-s", "placement_seed=9007199254740993"),
             "-s: key 'placement_seed': value '9007199254740993': out of range: expected a value in 0..9007199254740992"),
            (("-s", "injection_rate=1.5"),
             "-s: key 'injection_rate': value '1.5': out of range: expected a value in 0..1"),
            (("-s", "packet_size=8..2"),
             "-s: key 'packet_size': value '8..2': range is empty (lo > hi); expected lo..hi with lo <= hi"),
            # 0x digits past 64 bits are out of range as decimal ones are.
            (("-s", "seed=0x8000000000000000"),
             "-s: key 'seed': value '0x8000000000000000': out of range: expected an integer in "
             "-9223372036854775808..9223372036854775807"),
            (("-s", "packet_size=99999999999999999999"),
             "-s: key 'packet_size': value '99999999999999999999': out of range: expected values in 1..65535"),
            (("-s", "sw_allocator=wavefront"),
             "-s: key 'sw_allocator': value 'wavefront': expected one of islip, separable_input_first, "
             "separable_output_first"),
            (("-s", "flow_control=store_forward"),
             "-s: key 'flow_control': value 'store_forward': expected one of wormhole, vct"),
            # Keys run does not read, checked where set as their typed
            # neighbours are: a backend or placement typo ran silently.
            (("-s", "backend=flitz"), "-s: key 'backend': value 'flitz': expected one of analytic, flit"),
            (("-s", "placement=rando"),
             "-s: key 'placement': value 'rando': expected one of linear, contiguous, random-node, random-router, "
             "round-robin, packed, spread, map"),
            (("-s", "novalue"), "-s: expected key=value, got 'novalue'"),
            # An empty value says what is expected, as any other refusal.
            (("-s", "num_vcs="), "-s: key 'num_vcs' has an empty value; expected an integer in 1..255"),
            (("-s", "backend="), "-s: key 'backend' has an empty value; expected one of analytic, flit"),
            (("-s", "sw_allocator="),
             "-s: key 'sw_allocator' has an empty value; expected one of islip, separable_input_first, "
             "separable_output_first"),
            (("-c", in_file), f"{in_file}:3: key 'num_vcs': value '0': out of range: expected a value in 1..255"),
            (("-c", unknown_section), f"{unknown_section}:4: unknown section [bogus]" + SECTIONS),
            (("-c", wrong_section), f"{wrong_section}:3: key 'num_vcs' belongs in section [router], not [network]"),
            (("-c", syntax), f"{syntax}:3: 'this is not a setting': syntax error: expected 'key = value' or '[section]'"),
            (("-c", bracket), f"{bracket}:2: '[router': expected ']' at the end of a section header"),
            (("-c", after_hdr), f"{after_hdr}:1: '[network] topology = torus:k=4x4': text after the ']' of a section "
             "header; expected a key on a line of its own (only blanks or a ';' comment may follow ']')"),
            (("-c", after_hdr2), f"{after_hdr2}:3: '[router] num_vcs = 4': text after the ']' of a section header"),
            (("-c", missing), f"{missing}: cannot open config file: No such file or directory"),
            # The empty name was shown as nothing: ": cannot open config file".
            (("-c", ""), "netloom run: '': empty file name; expected a config file to read"),
            (("--config=",), "netloom run: '': empty file name; expected a config file to read"),
            (("-c", bad_then_good), f"{bad_then_good}:2: unknown key 'num_vc' (did you mean 'num_vcs'?)"),
            (("-c", twice), f"{twice}:4: key 'num_vcs' set twice in this file (first at line 2); expected each key "
             "once (-s overrides a file's key)"),
            (("-c", twice_sec), f"{twice_sec}:6: key 'num_vcs' set twice in this file (first at line 2); expected "
             "each key once (-s overrides a file's key)"),
            (("-c", twice_flat), f"{twice_flat}:3: key 'injection_rate' set twice in this file (first at line 1); "
             "expected each key once (-s overrides a file's key)"),
            (("-c", two_bad), f"{two_bad}:2: key 'vc_buf_size': value 'x': expected an integer"),
            # inih reads an indented line as the continuation of the previous value.
            (("-c", indented), f"{indented}:3: key 'num_vcs': value 'vc_buf_size = 2': expected an integer"),
            (("-c", indented_text), f"{indented_text}:5: [replay] indented line 'placement = random-node' reads as "
             "'name = value' after key 'placement_map'; expected keys unindented (an indented line continues the "
             "key before it)"),
            (("-c", indented_topo), f"{indented_topo}:3: [network] indented line 'routing_function = min' reads as "
             "'name = value' after key 'topology'; expected keys unindented (an indented line continues the key "
             "before it)"),
            (("-c", nul), f"{nul}:2: unexpected NUL byte; expected a text file"),
            # topology, routing, traffic, flow control; a spec's refusal
            # starts with -s, as one from a file starts with its line (it
            # named no place).
            (("-s", "topology=hypertorus:k=4"), "netloom run: -s: unknown topology 'hypertorus' (valid: torus, mesh, full, graph"),
            (("-s", "topology=torus:k=1x4"),
             "netloom run: -s: topology 'torus': parameter 'k' value '1x4' out of range: expected each element in 2..65535"),
            (("-s", "topology=torus:q=4"), "netloom run: -s: topology 'torus': unknown parameter 'q' (valid: k, n, p)"),
            # A ':' with nothing after it (as a trailing ',' is refused).
            (("-s", "topology=dragonfly:a=4,p=2,h=2", "-s", "routing_function=ugal:"),
             "netloom run: -s: routing function 'ugal': expected key=value after ':' (or no ':' for the defaults)"),
            (("-s", "topology=mesh:k=4x4", "-s", "routing_function=zigzag"),
             "netloom run: -s: unknown routing function 'zigzag' (valid: dor, valiant, min, ugal, nca, anca, group_min, xyyx"),
            (("-c", rf_booksim_file), f"netloom run: {rf_booksim_file}:3: unknown routing function 'min_adapt': "
             "BookSim2's 'min_adapt', which netloom does not model (see 'netloom "),
            *((("-s", "topology=mesh:k=4x4", "-s", f"routing_function={rf}"),
               f"netloom run: -s: unknown routing function '{rf}': BookSim2's '{bare}', which netloom does not "
               "model (see 'netloom ")
              for rf, bare in (("romm", "romm"), ("chaos", "chaos"), ("planar_adapt", "planar_adapt"),
                               ("dim_order_ni", "dim_order_ni"), ("dim_order_bal", "dim_order_bal"),
                               ("valiant_ni", "valiant_ni"), ("romm_ni_mesh", "romm_ni"),
                               ("limited_adapt", "limited_adapt"))),
            (("-s", "topology=full:n=8", "-s", "routing_function=dor"),
             "netloom run: -s: routing function 'dor' does not run on topology 'full' (it supports: torus, mesh, cmesh)"),
            (("-s", "topology=mesh:k=4x4", "-s", "routing_function=dor:dateline=2"),
             "netloom run: -s: routing function 'dor': parameter 'dateline' value '2': expected 0/1"),
            # A VC count refused by the routing function starts with where
            # num_vcs was set, as read-time errors do (none: its default).
            (("-s", "topology=torus:k=4x4", "-s", "num_vcs=3"),
             "netloom run: -s: routing function 'dor' on a torus needs an even num_vcs >= 2 (two dateline classes), "
             "got 3"),
            (("-c", vcs_file),
             f"netloom run: {vcs_file}:5: routing function 'dor' on a torus needs an even num_vcs >= 2 (two dateline "
             "classes), got 3"),
            (("-s", "topology=torus:k=4x4", "-s", "routing_function=valiant", "-s", "num_vcs=2"),
             "netloom run: -s: routing function 'valiant' on a torus needs num_vcs a multiple of 4 (2 phases x 2 "
             "dateline classes), got 2"),
            (("-s", "topology=mesh:k=4x4", "-s", "routing_function=min", "-s", "num_vcs=4"),
             "netloom run: -s: routing function 'min' needs num_vcs >= the diameter 6 (one VC class per hop), got 4"),
            (("-s", "topology=mesh:k=10x10", "-s", "routing_function=min"),
             "netloom run: routing function 'min' needs num_vcs >= the diameter 18 (one VC class per hop), got 16"),
            (("-s", "topology=mesh:k=4x4", "-s", "flow_control=vct", "-s", "packet_size=16"),
             "netloom run: -s: flow_control = vct needs vc_buf_size (8) >= the largest packet (16 flits)\n"),
            (("-c", st_file), f"netloom run: {st_file}:5: st_prepare_delay (0) + st_final_delay (0) must be at least 1 cycle; "
               "set st_final_delay = 1 (its default) or st_prepare_delay = 1\n"),
            (("-c", drain_file), f"netloom run: {drain_file}:2: max_drain_cycles = 0 (no drain) needs sim_type = throughput"),
            (("-c", speedup_file), f"netloom run: {speedup_file}:2: input_speedup 4 exceeds num_vcs 2 "),
            (("-c", voq_file), f"netloom run: {voq_file}:5: [router] sequential_allocation = 1 with voq = 1: "),
            (("-c", prio_file),
             f"netloom run: {prio_file}:3: routing_function 'minad:block=1,queue=0' takes a deroute, a blocked port or its escape VCs only when no "
             "higher-priority candidate has a free VC, which only a by-priority VC allocator does; expected "
             "vc_allocator = separable_input_first or separable_output_first, got islip (the default)\n"),
            (("-c", prio_va_file),
             f"netloom run: {prio_va_file}:6: routing_function 'dal:block=1,queue=0,dqueue=0' takes a deroute, a blocked port or its escape VCs only when no "
             "higher-priority candidate has a free VC, which only a by-priority VC allocator does; expected "
             "vc_allocator = separable_input_first or separable_output_first, got islip\n"),
            (("-s", "topology=hyperx:s=4x4", "-s", "routing_function=dal", "-s", "num_vcs=2", "-s", "vc_allocator=islip"),
             "netloom run: -s: routing_function 'dal:block=1,queue=0,dqueue=0' takes a deroute, a blocked port or its escape VCs only when no "
             "higher-priority candidate has a free VC, which only a by-priority VC allocator does; expected "
             "vc_allocator = separable_input_first or separable_output_first, got islip\n"),
            (("-c", ugalg_file, "-s", "threads=2"),
             f"netloom run: {ugalg_file}:3: routing_function 'ugal:mode=global,inter=router,threshold=0,snapshot=0,"
             "queue=credit' reads the live global congestion view, which threads = 2 (from -s) cannot give (other "
             "partitions' channels change meanwhile); expected partitions = 1 and threads = 1\n"),
            (("-s", "topology=torus:k=4x4", "-s", "routing_function=ugal:mode=global", "-s", "partitions=2"),
             "netloom run: -s: routing_function 'ugal:mode=global,inter=router,threshold=0,snapshot=0,queue=credit' "
             "reads the live global congestion view, which partitions = 2 cannot give (other partitions' channels "
             "change meanwhile); expected partitions = 1 and threads = 1\n"),
            (("-s", "topology=mesh:k=4x4", "-s", "traffic=diagonal"),
             "netloom run: -s: unknown traffic pattern 'diagonal' (valid: uniform, bitcomp, bitrev, shuffle, transpose, "
             "bitrot, hotspot, randperm, asymmetric, neighbor, tornado, swap2, nextgroup)"),
            (("-s", "topology=mesh:k=4x4", "-s", "traffic=hotspot:nodes=16"),
             "netloom run: -s: traffic 'hotspot': parameter 'nodes' value 16 is not an endpoint (0..15)"),
            # a node twice: drawn with the sum of its weights, silently
            (("-s", "topology=mesh:k=4x4", "-s", "traffic=hotspot:nodes=0/5/0"),
             "netloom run: -s: traffic 'hotspot': parameter 'nodes' value '0/5/0': endpoint 0 given twice; expected each endpoint "
             "once (weigh them with 'rates')"),
            (("-s", "topology=torus:k=8", "-s", "traffic=swap2"),
             "netloom run: -s: traffic 'swap2' needs a topology with coordinates in at least 2 dimensions"),
            # lbr's router limit named no way out.
            (("-s", "topology=torus:k=64x64", "-s", "routing_function=lbr"),
             "netloom run: -s: routing function 'lbr': 4096 routers; its per-pair path tables (O(routers^2)) allow "
             "at most 1024: use a network of at most 1024 routers, or another routing function on topology 'torus': "
             "dor, valiant, min, ugal, duato, updown, updown_adaptive\n"),
            (("-s", "topology=mesh:k=4x4", "-s", "st_final_delay=0"),
             "netloom run: -s: st_prepare_delay (0) + st_final_delay (0) must be at least 1 cycle; "
               "set st_final_delay = 1 (its default) or st_prepare_delay = 1\n"),
            (("-s", "topology=mesh:k=4x4", "-s", "injection_rate=0.9", "-s", "packet_size=1",
              "-s", "internal_speedup=17"),
             "-s: key 'internal_speedup': value '17': out of range: expected a value in 1..16"),
            (("-s", "topology=torus:k=4x4", "-s", "num_vcs=2", "-s", "traffic_classes=2"),
             "netloom run: -s: [router] traffic_classes = 2 leaves num_vcs / 2 = 1 VC per class: routing function 'dor' on a "
             "torus needs an even num_vcs >= 2 (two dateline classes), got 1"),
            (("-s", "topology=torus:k=4x4", "-s", "num_vcs=4", "-s", "traffic_classes=2", "-s", "routing_function=valiant"),
             "netloom run: -s: [router] traffic_classes = 2 leaves num_vcs / 2 = 2 VCs per class: routing function "
             "'valiant' on a torus needs num_vcs a multiple of 4 (2 phases x 2 dateline classes), got 2"),
            # partitions and threads past the routers: 0 (automatic) is in
            # range too; where the key was set first, as read-time errors.
            (("-s", "topology=torus:k=4x4", "-s", "partitions=17"),
             "netloom run: -s: key 'partitions': value '17': out of range: expected 0 (automatic) or 1..16 (one router "
             "at least in each)"),
            (("-c", parts_file),
             f"netloom run: {parts_file}:4: key 'partitions': value '17': out of range: expected 0 (automatic) or 1..16 "
             "(one router at least in each)"),
            (("-s", "topology=torus:k=4x4", "-s", "threads=17"),
             "netloom run: -s: key 'threads': value '17': out of range: expected 0 (automatic) or 1..16 (a router at "
             "least per thread)"),
            (("-c", threads_file),
             f"netloom run: {threads_file}:4: key 'threads': value '17': out of range: expected 0 (automatic) or 1..16 "
             "(a router at least per thread)"),
            (("-c", lat_file),
             f"netloom run: {lat_file}:3: key 'local_latency': value '3': topology 'mesh' has one class of links; "
             "expected 0 (unset), or channel_latency"),
            (("-s", "topology=torus:k=4x4", "-s", "global_latency=5"),
             "netloom run: -s: key 'global_latency': value '5': topology 'torus' has one class of links"),
            (("-s", "topology=torus:k=4x4", "-s", "noc_latency=1"),
             "netloom run: -s: key 'noc_latency': value '1': topology 'torus' has no on-chip layout"),
            # The topology's own refusals of noc_latency said neither -s
            # nor the file's line, unlike the one above.
            (("-c", noc_file),
             f"netloom run: {noc_file}:3: topology 'hyperx': noc_latency = 1: t=2 terminals per router; expected "
             "1, 4 or 9 (BookSim's c = xr * yr with xr = yr <= 3, where its terminal channels are 1 cycle)"),
            (("-s", "topology=hyperx:s=2x4,t=4", "-s", "noc_latency=1"),
             "netloom run: -s: topology 'hyperx': noc_latency = 1: 8 routers do not fill a square on-chip grid; "
             "expected a square router count (BookSim's flatfly: x = y, x * y routers)"),
            (("-s", "topology=full:n=4,p=0", "-s", "routing_function=min"),
             "topology 'full:n=4,p=0,k=1': no endpoints; synthetic traffic needs at least one"),
            # command line
            (("--frobnicate",), "netloom run: unknown option '--frobnicate' (see 'netloom run --help')"),
            (("-c",), "netloom run: option '-c' needs a value"),
            (("-c", "a.ini", "-c", "b.ini"), "netloom run: only one -c FILE is allowed (got 'a.ini' and 'b.ini')"),
            # BookSim2's command line ('booksim FILE KEY=VALUE'): said as
            # "unknown option", without what to type instead.
            (("injection_rate=0.2",),
             "netloom run: argument 'injection_rate=0.2' is not an option; expected -s injection_rate=0.2 to set a key"),
            ((in_file,), f"netloom run: argument '{in_file}' is not an option; expected -c {in_file} to read a "
             "configuration file"),
            (("extra",), "netloom run: unknown option 'extra' (see 'netloom run --help')"),
        ]
        target = os.path.join(tmp, "keep.json")
        for args, msg in cases:
            write(target, "sentinel\n")
            for cmd in ("run", "sweep"):
                extra = ("--rates", "0.1:0.2:0.1") if cmd == "sweep" else ()
                a = (cmd, *args, *extra, "--json", target) if args != ("-c",) else (cmd, *extra, *args)
                p = run(*a, code=2)
                one_line_error(p, msg.replace("netloom run", f"netloom {cmd}"))
                eq(f"{' '.join(a)}: --json target", open(target).read(), "sentinel\n")
        # config --dump/--json refuse the specs run refuses, with its line
        # (parsed, not built): they printed the dump, status 0.
        spec_cases = [(a, m.replace("netloom run: ", "netloom config: ")) for a, m in cases[:5]] + [
            (("-s", "topology=hypertorus"), "netloom config: -s: unknown topology 'hypertorus' (valid: torus,"),
            (("-s", "topology=full:n=4", "-s", "routing_function=dor"),
             "netloom config: -s: routing function 'dor' does not run on topology 'full' (it supports: torus, mesh, cmesh)"),
            (("-s", "traffic=hotspot:bogus=1"), "netloom config: -s: traffic 'hotspot': unknown parameter 'bogus'"),
            # A family's data file the run cannot open (it printed the dump, status 0).
            (("-s", "topology=graph:file=" + os.path.join(tmp, "missing.edges")),
             "netloom config: -s: topology 'graph': parameter 'file': cannot open '%s': No such file or directory"
             % os.path.join(tmp, "missing.edges")),
            (("-s", "topology=p2(anynet:file=" + tmp + ")"), "netloom config: -s: topology 'anynet': parameter 'file': '%s' "
             "is a directory; expected a BookSim anynet network_file" % tmp),
        ]
        for args, msg in spec_cases:
            for form in ((), ("--dump",), ("--json",)):
                one_line_error(run("config", *args, *form, code=2), msg)
        # A directory as a family's file said "DIR: read error: Is a
        # directory", where a missing one names the parameter.
        for fam, what in (("graph", "a graph edge list"), ("anynet", "a BookSim anynet network_file")):
            msg = f"-s: topology '{fam}': parameter 'file': '{tmp}' is a directory; expected {what}"
            for cmd in ("run", "config"):
                one_line_error(run(cmd, "-s", f"topology={fam}:file={tmp}", code=2), f"netloom {cmd}: {msg}")
            one_line_error(run("topo", "describe", f"{fam}:file={tmp}", code=2),
                           "netloom topo describe: " + msg.replace("-s: ", ""))
        # config -c reads the file alike: it printed the defaults, status 0.
        for path, line, hdr in ((after_hdr, 1, "[network] topology = torus:k=4x4"),
                                (after_hdr2, 3, "[router] num_vcs = 4")):
            one_line_error(run("config", "-c", path, code=2), f"{path}:{line}: '{hdr}': text after the ']' of a "
                           "section header; expected a key on a line of its own")
        p = run("config", "-c", hdr_comment)
        check(f"config -c {hdr_comment}: a ';' comment after ']' is read: {p.stdout!r}",
              b"\ntopology = torus:k=4x4 " in p.stdout and b"\nnum_vcs = 4 " in p.stdout)
        # /dev/zero (NULs, no newline) is refused at its first NUL: the line
        # reader read it whole first, growing until memory ran out (under a
        # 1 GB limit: "sets no key", the defaults run, status 0), and the
        # BookSim hint after a refusal read its NULs as empty lines forever.
        exe = os.path.abspath(NETLOOM) if os.sep in NETLOOM else NETLOOM
        for cmd in ("config", "run"):
            try:
                p = subprocess.run(["sh", "-c", 'ulimit -v 1000000; exec "$0" "$@"', exe, cmd, "-c", "/dev/zero"],
                                   capture_output=True, env=ENV, timeout=20)
            except subprocess.TimeoutExpired:
                raise Fail(f"netloom {cmd} -c /dev/zero: still running after 20 s (a hang)")
            eq(f"netloom {cmd} -c /dev/zero: exit status", p.returncode, 2)
            one_line_error(p, f"netloom {cmd}: /dev/zero:1: unexpected NUL byte; expected a text file")
        p = run("config", "-c", ini("hh.ini", "[network] # the network\n"), code=2)
        one_line_error(p, "(only blanks or a ';' comment may follow ']'; '#' starts a comment only at the start of "
                          "a line)")
        eq("nothing else written", sorted(os.listdir(tmp)),
           sorted(["us.ini", "ws.ini", "se.ini", "sb.ini", "rf.ini", "bg.ini", "tb.ini", "in.ini", "tw.ini", "ts.ini",
                   "tf.ini", "nu.ini", "pa.ini", "th.ini", "vc.ini", "it.ini", "io.ini", "ah.ini", "a2.ini", "hc.ini",
                   "hh.ini", "tp.ini", "tr.ini", "ru.ini", "rb.ini", "rp.ini", "rm.ini", "ll.ini", "noc.ini", "st.ini", "drain.ini", "sp.ini", "ug.ini",
                   "voq.ini", "prio.ini", "prio_va.ini", "keep.json"]))

        # sweep's own options
        for rates in ("abc", "0.5:0.1:0.1", "0:2:0.1", "0.1:0.2:0", "0.1:0.2", "nan:0.3:0.1", "0.1:inf:0.1"):
            p = run("sweep", *SMALL, "--rates", rates, "--json", target, code=2)
            one_line_error(p, f"netloom sweep: --rates '{rates}': expected A:B:STEP with 0 <= A <= B <= 1 "
                              "and STEP > 0")
        for cmd in (("run",), ("sweep", "--rates", "0.1:0.2:0.1")):
            bad = os.path.join(tmp, "nodir", "x.json")
            p = run(*cmd, *SMALL, "--json", bad, code=2)
            one_line_error(p, f"netloom {cmd[0]}: --json: {bad}: {os.path.dirname(bad)}: no such directory"
                              "; expected an existing folder to write to")
        p = run("sweep", *SMALL, "--rates", "0.1:0.3:1e-9", "--json", target, code=2)
        one_line_error(p, "netloom sweep: --rates '0.1:0.3:1e-9': more than 100000 points: expected a larger STEP")
        p = run("sweep", *SMALL, code=2)
        one_line_error(p, "netloom sweep: --rates A:B:STEP is required (e.g. --rates 0.05:0.5:0.05)")
        p = run("config", "--frob", code=2)
        one_line_error(p, "netloom config: unknown option '--frob' (see 'netloom config --help')")
        p = run("config", "num_vcs=4", code=2)
        one_line_error(p, "netloom config: argument 'num_vcs=4' is not an option; expected -s num_vcs=4 to set a key")
        p = run("config", in_file, code=2)
        one_line_error(p, f"netloom config: argument '{in_file}' is not an option; expected -c {in_file} to read a "
                          f"configuration file (or --from-booksim {in_file} to convert a BookSim2 one)")
        p = run("config", "-s", "num_vcs=300", code=2)
        one_line_error(p, "-s: key 'num_vcs': value '300': out of range: expected a value in 1..255")
        # layout_preset and layout_pack are names, checked when read (config took any).
        p = run("config", "-s", "layout_preset=bogus", code=2)
        one_line_error(p, "-s: key 'layout_preset': value 'bogus': expected one of flex, besta, equality, fujiwara, hyperx")
        p = run("config", "-s", "layout_pack=bogus", code=2)
        one_line_error(p, "-s: key 'layout_pack': value 'bogus': expected one of base-cabinets, flex-fig7, ")
        # A key holding a newline stays one line (config printed it raw).
        p = run("config", "-s", "num_vc\n=3", code=2)
        one_line_error(p, "-s: unknown key 'num_vc\\n' (did you mean 'num_vcs'?)")
        eq("--json target after sweep errors", open(target).read(), "sentinel\n")
        # A network that does not fit in memory is refused like any other
        # configuration (exit 2): exit 1 is the deadlock's alone.
        def small_memory():
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (2 * 10**9, 2 * 10**9))
        for cmd in (("run",), ("sweep", "--rates", "0.1:0.2:0.1")):
            p = subprocess.run([NETLOOM, *cmd, "-s", "topology=torus:k=8192x8192", "--json", target],
                               capture_output=True, env=ENV, preexec_fn=small_memory)
            eq(f"{cmd[0]} out of memory: exit status ({p.stderr!r})", p.returncode, 2)
            one_line_error(p, "out of memory")
        eq("--json target after out of memory", open(target).read(), "sentinel\n")
        # The first bad line in file order is reported, whether a syntax
        # error or a key error comes first (a key error on line 2 won over
        # the syntax error on line 1).
        for name, text, want in (("m1.ini", "hello world\nfoo = bar\n", ":1: 'hello world': syntax error"),
                                 ("m2.ini", "foo = bar\nhello world\n", ":1: unknown key 'foo'"),
                                 ("m3.ini", "num_vcs = 2\nhello world\nnum_vcs = 3\n", ":2: 'hello world': syntax error"),
                                 ("m4.ini", "num_vcs = 2\nnum_vcs = 3\nhello world\n", ":2: key 'num_vcs' set twice"),
                                 # It was "unknown key ''".
                                 ("m5.ini", "[router]\n= 4\n", ":2: syntax error: a value without a key name before "
                                  "its '=' or ':'; expected 'key = value' or '[section]'")):
            path = ini(name, text)
            p = run("config", "-c", path, code=2)
            one_line_error(p, f"netloom config: {path}{want}")


def case_option_values():
    # An option that takes a value, given last without one, says so.
    for args, opt in ((("run", "--json"), "--json"), (("sweep", "--rates"), "--rates"),
                      (("sweep", "--rates", "0.1:0.1:0.1", "--json"), "--json"),
                      (("config", "--from-booksim"), "--from-booksim")):
        p = run(*args, code=2)
        one_line_error(p, f"netloom {args[0]}: option '{opt}' needs a value")
    # Options that cannot apply are refused, not ignored (the last --json or
    # --rates won; --keys hid --dump; --from-booksim ignored --json and -s).
    with tempfile.TemporaryDirectory() as tmp:
        bs = os.path.join(tmp, "b.cfg")
        write(bs, "topology = torus;\nk = 4;\nn = 2;\nrouting_function = dim_order;\n")
        a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
        for args, msg in (
                (("run", "--json", a, "--json", b), "netloom run: option '--json' given twice"),
                (("sweep", "--rates", "0.1:0.1:0.1", "--rates", "0.2:0.2:0.1"), "netloom sweep: option '--rates' given twice"),
                (("sweep", "--rates", "0.1:0.1:0.1", "--json", a, "--json", b), "netloom sweep: option '--json' given twice"),
                (("sweep", "--rates", "0.1:0.1:0.1", "--spread", "points", "--spread", "network"),
                 "netloom sweep: option '--spread' given twice"),
                (("config", "--keys", "--dump"), "netloom config: '--dump' with '--keys': expected one of --dump, --json, --check, "
                 "--keys, --from-booksim"),
                (("config", "--check", "--json"), "netloom config: '--json' with '--check'"),
                (("config", "--dump", "--json"), "netloom config: '--json' with '--dump'"),
                (("config", "--from-booksim", bs, "--json"), "netloom config: '--json' with '--from-booksim'"),
                (("config", "--from-booksim", bs, "-s", "num_vcs=4"),
                 "netloom config: --from-booksim converts its file alone: '-s' does not apply"),
                (("config", "-c", bs, "--from-booksim", bs), "netloom config: --from-booksim converts its file alone: '-c' does not apply"),
                # BookSim's 'booksim FILE KEY=VALUE' typed after --from-booksim
                # (in either order) or beside --keys was told 'expected -s
                # KEY=VALUE', which both then refuse; a second file, '-c FILE'.
                (("config", "--from-booksim", bs, "injection_rate=0.2"),
                 "netloom config: argument 'injection_rate=0.2' is not an option; --from-booksim converts its file "
                 "alone: expected the key set in the INI written (netloom run -c FILE.ini -s injection_rate=0.2)"),
                (("config", "injection_rate=0.2", "--from-b", bs),
                 "netloom config: argument 'injection_rate=0.2' is not an option; --from-booksim converts its file alone"),
                (("config", "--from-booksim", bs, bs),
                 f"netloom config: argument '{bs}' is not an option; --from-booksim converts one file: expected one "
                 "conversion per command"),
                (("config", "--keys", "num_vcs=4"),
                 "netloom config: argument 'num_vcs=4' is not an option; --keys lists every key's own default: expected "
                 "no key set (the values a configuration resolves to: netloom config -s num_vcs=4)"),
                (("config", "num_vcs=4"), "netloom config: argument 'num_vcs=4' is not an option; expected -s num_vcs=4 "
                 "to set a key")):
            p = run(*args, code=2)
            one_line_error(p, msg)
            check(f"{' '.join(args)}: nothing written", not os.path.exists(a) and not os.path.exists(b))
        # --json=FILE, --rates=A:B:S, --spread=X, as getopt's long options
        # and --config=/--set= take them (they were refused as unknown).
        p = run("run", *SMALL, f"--json={a}")
        d = json.load(open(a))
        check("run --json=FILE wrote its JSON", d["results"]["throughput"]["accepted"] > 0)
        p = run("sweep", *SMALL, "--rates=0.1:0.2:0.1", "--spread=points", "--csv")
        eq("sweep --rates=, --spread= rows", len(p.stdout.decode().splitlines()), 3)
        # Without mpirun --spread network has no effect: the same points,
        # run one after another, and a warning says so (it said nothing);
        # --spread points runs them on threads, the same rows, no warning.
        alone = run("sweep", *SMALL, "--rates", "0.1:0.2:0.1", "--csv", "--reproducible")
        eq("sweep alone: stderr", alone.stderr.decode(), "")
        p = run("sweep", *SMALL, "--rates", "0.1:0.2:0.1", "--spread", "network", "--csv", "--reproducible")
        eq("--spread network without mpirun: stdout", p.stdout, alone.stdout)
        eq("--spread network without mpirun: stderr", p.stderr.decode(),
           "netloom sweep: warning: --spread network has no effect without mpirun/srun: this one process runs "
           "the points one after another, as without --spread (docs/scaling.md)\n")
        p = run("sweep", *SMALL, "--rates", "0.1:0.2:0.1", "--spread", "points", "--csv", "--reproducible")
        eq("--spread points without mpirun: stdout", p.stdout, alone.stdout)
        eq("--spread points without mpirun: stderr", p.stderr.decode(), "")
        for args, msg in ((("run", "--csv=1"), "netloom run: option '--csv' takes no value (got '--csv=1')"),
                          (("run", "--json=x", "--json", b), "netloom run: option '--json' given twice"),
                          (("run", "--bogus=1"), "netloom run: unknown option '--bogus=1'"),
                          (("run", "--continue=1"), "netloom run: option '--continue' is sweep's, not run's"),
                          (("run", "--json="), "netloom run: --json '': empty file name"),
                          (("sweep", "--rates", "0.1:0.1:0.1", "--json", ""), "netloom sweep: --json '': empty file name"),
                          (("sweep", "--continue=1"), "netloom sweep: option '--continue' takes no value"),
                          # config's flags alike (they were unknown options)
                          (("config", "--dump=1"), "netloom config: option '--dump' takes no value (got '--dump=1')"),
                          (("config", "--keys="), "netloom config: option '--keys' takes no value (got '--keys=')"),
                          (("config", f"--from-booksim={bs}", "--from-booksim", bs),
                           "netloom config: option '--from-booksim' given twice")):
            p = run(*args, code=2)
            one_line_error(p, msg)
        # A flag given twice changes nothing and is taken, as every command
        # takes its flags (run --csv --csv); config refused its own.
        want = run("config", "-s", "num_vcs=3", "--json").stdout
        eq("config --json --json", run("config", "-s", "num_vcs=3", "--json", "--json").stdout, want)
        eq("config --dump --dump", run("config", "--dump", "--dump").stdout, run("config").stdout)
        eq("config --keys --keys", run("config", "--keys", "--keys").stdout, run("config", "--keys").stdout)
        # config --from-booksim=FILE (and its abbreviation) converts as
        # --from-booksim FILE does; it was refused as an unknown option.
        want = run("config", "--from-booksim", bs).stdout
        for opt in ("--from-booksim=", "--from="):
            eq(f"config {opt}FILE", run("config", opt + bs).stdout, want)


    # Every command's numeric options refuse a blank before the number as
    # one after it (strtoull and strtod skipped it: --top ' 3' ran with 3),
    # and an unsigned one a sign (--seed ' -1' ran with 2^64 - 1), as -s
    # values do (16b4747). The options are those of each command's --help.
    def usage(cmd, opt, lo, hi, kind="an integer"):
        return lambda v: f"netloom {cmd}: {opt}: expected {kind} in {lo}..{hi}, got '{v}'"
    spec, u64max = "torus:k=4x4", 2**64 - 1
    seed_max = 9200000000000000000  # CLI_SEED_MAX: a seed a JSON integer holds
    for args, v, msg in (
            (("interfere", "wl.ini", "--top"), "3", usage("interfere", "--top", 1, 100000)),
            (("interfere", "wl.ini", "--jobs"), "2", usage("interfere", "--jobs", 1, 64)),
            (("interfere", "wl.ini", "-j"), "2", usage("interfere", "--jobs", 1, 64)),
            (("compare", "study.ini", "--jobs"), "2", usage("compare", "--jobs", 1, 64)),
            (("compare", "study.ini", "-j"), "2", usage("compare", "--jobs", 1, 64)),
            (("replay", "t.nlt", "--jobs"), "2", usage("replay", "--jobs", 1, 64)),
            (("replay", "t.nlt", "-j"), "2", usage("replay", "--jobs", 1, 64)),
            (("serve", "--ranks"), "4", usage("serve", "--ranks", 1, 1 << 20)),
            (("serve", "--ranks", "4", "--max-payload"), "64", usage("serve", "--max-payload", 0, 1 << 30)),
            (("serve", "--ranks", "4", "--timeout-ms"), "100", usage("serve", "--timeout-ms", 1, 3600000)),
            (("serve", "--ranks", "4", "--pace"), "2", usage("serve", "--pace", 1e-06, 1000000, "a number")),
            (("cost", spec, "--seed"), "1", usage("cost", "--seed", 0, seed_max)),
            (("cost", spec, "--trials"), "2", usage("cost", "--trials", 1, 1000)),
            (("layout", spec, "--longest"), "5", usage("layout", "--longest", 0, 2**32 - 1)),
            (("topo", "describe", spec, "--seed"), "1", usage("topo describe", "--seed", 0, seed_max)),
            (("topo", "describe", spec, "--samples"), "4", usage("topo describe", "--samples", 2, 2**32 - 1)),
            (("design", "hyperx", "--terminals"), "64", usage("design hyperx", "--terminals", 1, u64max // 2)),
            (("design", "hyperx", "--bisection"), "0.5",
             usage("design hyperx", "--bisection", 1e-09, 1000000000, "a number")),
            (("design", "equality", "--mutation"), "0.3", usage("design equality", "--mutation", 0, 1, "a number")),
            (("design", "flex", "--radix"), "16", usage("design flex", "--radix", 2, 100000))):
        unsigned = "an integer" in msg("")
        # A number option is decimal as a whole-number one is: strtod's
        # hexadecimal floats were read ('--bisection 0x10' designed for 16).
        for bad in (f" {v}", f"\t{v}", f"{v} ") + ((" -1", "-1", "+1") if unsigned else ("0x10", "-0X1p-1")):
            p = run(*args, bad, code=2)
            # Every command says its lines as clean text (nl_err_one_line,
            # cli_usage_error): a tab in the value is written '\t'.
            one_line_error(p, msg(bad.replace("\t", "\\t")))
    # Every command's options with a value, given twice, are refused as
    # run's and sweep's are: the last one won silently ('design hyperx
    # --terminals 64 ... --terminals 128' designed for 128). -c and -s of
    # serve and interfere stay repeatable.
    for args, opt, v1, v2 in (
            (("design", "hyperx", "--radix", "16", "--bisection", "0.5"), "--terminals", "64", "128"),
            (("design", "hyperx", "--terminals", "64", "--radix", "16"), "--bisection", "0.5", "0.25"),
            (("design", "equality", "--routers", "16", "--radix", "4"), "--seed", "1", "2"),
            (("design", "flex", "--terminals", "64"), "--radix", "16", "12"),
            (("topo", "describe", spec), "--seed", "1", "2"),
            (("topo", "export", spec), "--format", "dot", "json"),
            (("cost", spec), "--preset", "flex", "besta"),
            (("cost", spec), "--seed", "1", "2"),
            (("layout", spec, "--svg", "x.svg"), "--longest", "3", "4"),
            (("compare", "study.ini", "-o", "r"), "--jobs", "1", "2"),
            (("replay", "t.nlt"), "--jobs", "1", "2"),
            (("interfere", "wl.ini", "-s", "num_vcs=2", "-s", "num_vcs=4"), "--top", "1", "2"),
            (("interfere", "wl.ini"), "--jobs", "1", "2"),
            (("serve",), "--ranks", "1", "2"),
            (("serve", "--ranks", "2"), "--jobs", "1,1", "2"),
            (("serve", "-s", "num_vcs=2", "--set", "num_vcs=4", "--ranks", "2"), "--jobs", "1,1", "2"),
            (("serve", "--ranks", "2"), "--tokens", "t1", "t2")):
        p = run(*args, opt, v1, opt, v2, code=2)
        one_line_error(p, f"netloom {' '.join(args[:2]) if args[0] in ('design', 'topo') else args[0]}: "
                       f"option '{opt}' given twice")
    p = run("trace", "dump", "t.nlt", "--rank", "0", "--rank", "1", code=2)
    one_line_error(p, "netloom trace dump: option '--rank' given twice")
    # An output option whose value was left out took the next option for
    # its file: 'run --json --csv' wrote the JSON to a file named '--csv'
    # and printed the table (exit 0). Run in a folder of its own, where
    # such a file was written.
    trace = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "samples",
                         "pingpong-2.nlt")
    with tempfile.TemporaryDirectory() as tmp:
        def run_in(*args, code=0):  # in tmp (NETLOOM may be relative to the build folder)
            p = subprocess.run([os.path.abspath(NETLOOM), *args], capture_output=True, env=ENV, cwd=tmp)
            if p.returncode != code:
                raise Fail(f"netloom {' '.join(args)}: exit {p.returncode}, expected {code}: {p.stderr.decode()!r}")
            return p
        for args, opt, nxt in ((("run", *SMALL), "--json", "--csv"),
                               (("sweep", *SMALL, "--rates", "0.1:0.1:0.1"), "--json", "--reproducible"),
                               (("replay", trace), "--svg", "--csv"),
                               (("cost", spec), "--json", "--reproducible"),
                               (("topo", "describe", spec), "-o", "--json"),
                               (("design", "hyperx", "--terminals", "64", "--radix", "16", "--bisection", "0.5"),
                                "-o", "--json")):
            p = run_in(*args, opt, nxt, code=2)
            name = "--output" if opt == "-o" else opt
            cmd = " ".join(args[:2]) if args[0] in ("topo", "design") else args[0]
            one_line_error(p, f"netloom {cmd}: {name} '{nxt}': an option, not a file name (a value left out?); "
                           f"expected a file to write (./{nxt} for a file of that name)")
            check(f"{' '.join(args[:2])} {opt} {nxt}: nothing written", os.listdir(tmp) == [])
        # The same of a directory output: replay's and trace export's
        # --otf2 made a directory '--csv', compare -o one named '--jobs'.
        study = os.path.join(tmp, "..", os.path.basename(tmp) + ".ini")
        for args, opt, nxt, what in ((("replay", trace), "--otf2", "--csv", "a new directory for the OTF2 archive"),
                                     (("trace", "export", trace), "--otf2", "--csv",
                                      "a new directory for the OTF2 archive"),
                                     (("compare", study), "-o", "--jobs", "a directory to write the report to")):
            p = run_in(*args, opt, nxt, code=2)
            one_line_error(p, f"{opt} '{nxt}': an option, not a directory name (a value left out?); expected {what} "
                           f"(./{nxt} for a directory of that name)")
            check(f"{' '.join(args[:2])} {opt} {nxt}: nothing made", os.listdir(tmp) == [])
        # With an argument left over after the option taken for the
        # value, the option is named, not that argument ('replay T --json
        # --topology torus:k=4x4' said "unexpected argument 'torus:k=4x4'
        # after TRACE").
        for opt, what in (("--json", "file"), ("--svg", "file"), ("--otf2", "directory")):
            p = run_in("replay", trace, opt, "--topology", "torus:k=4x4", code=2)
            one_line_error(p, f"netloom replay: {opt} '--topology': an option, not a {what} name (a value left out?)")
            check(f"replay {opt} --topology SPEC: nothing written", os.listdir(tmp) == [])
        # Every other command's outputs alike: 'topo describe SPEC -o
        # --samples 3' said "unexpected argument '3'", 'run --json -c F'
        # "unknown option 'F'", 'serve --json -c F' "unexpected argument
        # 'F'", 'compare S.ini -o --jobs 2' "unexpected argument '2'".
        hyperx = ("design", "hyperx", "--terminals", "64", "--radix", "16")
        for args, opt, nxt, left, what in (
                (("topo", "describe", spec), "-o", "--samples", "3", "file"),
                (("topo", "export", spec, "--format", "json"), "-o", "--format", "dot", "file"),
                (hyperx, "-o", "--bisection", "0.5", "file"),
                (("design", "equality", "--routers", "8", "--radix", "4"), "-o", "--seed", "1", "file"),
                (("design", "flex", "--terminals", "64"), "-o", "--radix", "16", "file"),
                (("run",), "--json", "-c", "x.ini", "file"), (("sweep",), "--json", "-c", "x.ini", "file"),
                (("sweep",), "--plot", "-c", "x.ini", "file"),
                (("serve", "--ranks", "2"), "--json", "-c", "x.ini", "file"),
                (("serve", "--ranks", "2"), "--messages", "-c", "x.ini", "file"),
                (("serve", "--ranks", "2"), "--record", "-c", "x.ini", "file"),
                (("compare", study), "-o", "--jobs", "2", "directory")):
            p = run_in(*args, opt, nxt, left, code=2)
            name = "--output" if opt == "-o" and args[0] != "compare" else opt
            cmd = " ".join(args[:2]) if args[0] in ("topo", "design") else args[0]
            one_line_error(p, f"netloom {cmd}: {name} '{nxt}': an option, not a {what} name (a value left out?); "
                           f"expected a {what} to write{' the report to' if what == 'directory' else ''} "
                           f"(./{nxt} for a {what} of that name)")
            check(f"{' '.join(args[:2])} {opt} {nxt} {left}: nothing written", os.listdir(tmp) == [])
        # trace import's -o (named OUT.nlt, as convert's) and trace
        # export's --otf2 alike ("unexpected argument 'x.nlt'", "... 'd'").
        for args, line in ((("trace", "import", trace, "-o", "--output", "x.nlt"),
                            "netloom trace import: OUT.nlt '--output': an option, not a file name (a value left out?); "
                            "expected a file to write (./--output for a file of that name)"),
                           (("trace", "export", trace, "--otf2", "--otf2", "d"),
                            "netloom trace export: --otf2 '--otf2': an option, not a directory name (a value left "
                            "out?); expected a new directory for the OTF2 archive (./--otf2 for a directory of that "
                            "name)")):
            p = run_in(*args, code=2)
            eq(" ".join(args[:2]), p.stderr.decode(), line + "\n")
            check(f"{' '.join(args[:2])}: nothing written", os.listdir(tmp) == [])
        run_in("run", *SMALL, "--json", "./--csv")
        check("run --json ./--csv writes the file so named", os.path.exists(os.path.join(tmp, "--csv")))
    rates = "netloom sweep: --rates '{}': expected A:B:STEP with 0 <= A <= B <= 1 and STEP > 0"
    jobs = "netloom serve: --jobs: '{}': job {} size '{}', expected a list of rank counts"
    for args, bad, msg in (
            (("sweep", *SMALL, "--rates"), " 0.1:0.2:0.1", rates.format(" 0.1:0.2:0.1")),
            (("sweep", *SMALL, "--rates"), "0.1: 0.2:0.1", rates.format("0.1: 0.2:0.1")),
            (("sweep", *SMALL, "--rates"), "0.1:0.2: 0.1", rates.format("0.1:0.2: 0.1")),
            (("sweep", *SMALL, "--rates"), "0.1 :0.2:0.1", rates.format("0.1 :0.2:0.1")),
            (("sweep", *SMALL, "--rates"), ":0.2:0.1", rates.format(":0.2:0.1")),
            (("serve", "--ranks", "4", "--jobs"), " 2,2", jobs.format(" 2,2", 1, " 2")),
            (("serve", "--ranks", "4", "--jobs"), "2, 2", jobs.format("2, 2", 2, " 2")),
            (("serve", "--ranks", "4", "--jobs"), "2 ,2", jobs.format("2 ,2", 1, "2 ")),
            (("serve", "--ranks", "4", "--jobs"), "+2,2", jobs.format("+2,2", 1, "+2")),
            (("trace", "dump", "t.nlt", "--rank"), " 3", "netloom trace dump: --rank ' 3': expected a rank number"),
            (("trace", "dump", "t.nlt", "--rank"), "3 ", "netloom trace dump: --rank '3 ': expected a rank number"),
            (("trace", "dump", "t.nlt", "--rank"), "99999999999999999999",
             "netloom trace dump: --rank '99999999999999999999': expected a rank number")):
        p = run(*args, bad, code=2)
        one_line_error(p, msg)


def case_subnormal_rates():
    # strtod sets ERANGE for a subnormal result: 1e-320 is in 0..1 but
    # was refused ('expected a number', 'expected 0 <= A <= B <= 1'). It
    # is read; only a number that rounds to 0 is refused, saying so.
    d = run_json("sweep", *SMALL, "--rates", "1e-320:1e-320:1", "--json", "-")["results"]["points"]
    eq("sweep 1e-320: one point at its rate", [p["throughput"]["offered"] for p in d], [1e-320])
    d = run_json("run", *SMALL, "-s", "injection_rate=1e-320", "--json", "-")
    eq("run injection_rate=1e-320", d["results"]["throughput"]["offered"], 1e-320)
    p = run("run", *SMALL, "-s", "injection_rate=1e-400", code=2)
    one_line_error(p, "netloom run: -s: key 'injection_rate': value '1e-400': too small to represent (rounds to 0); "
                      "expected 0 or a magnitude of at least 4.9e-324")
    for rates, part in (("1e-400:0.1:0.1", "1e-400"), ("0:1e-999:0.1", "1e-999"), ("0:0.1:-1e-400", "-1e-400")):
        p = run("sweep", *SMALL, "--rates", rates, code=2)
        one_line_error(p, f"netloom sweep: --rates '{rates}': '{part}' is too small to represent (rounds to 0); "
                          "expected 0 or at least 4.9e-324")


def case_sweep_error_no_output():
    # Routing, traffic and flow-control checks fail before anything is
    # printed, for sweep as for run: stdout stays empty (a CSV consumer
    # never sees a header without rows).
    for extra in (("-s", "topology=torus:k=4x4", "-s", "num_vcs=3"), ("-s", "traffic=diagonal"),
                  ("-s", "flow_control=vct", "-s", "packet_size=16")):
        for fmt in ((), ("--csv",)):
            p = run("sweep", *SMALL, *extra, "--rates", "0.1:0.2:0.1", *fmt, code=2)
            check(f"sweep {' '.join(extra + fmt)}: one-line error, got {p.stderr!r}",
                  p.stderr.decode().count("\n") == 1)
            eq(f"sweep {' '.join(extra + fmt)}: stdout", p.stdout, b"")


def case_json_stdout():
    # --json - writes only the JSON document on stdout.
    d = json.loads(run("run", *SMALL, "--json", "-", "--reproducible").stdout)
    check("run --json -: results", "results" in d and "config" in d)
    d = json.loads(run("sweep", *SMALL, "--rates", "0.1:0.2:0.1", "--json", "-").stdout)
    eq("sweep --json -: points", len(d["results"]["points"]), 2)
    p = run("run", *SMALL, "--json", "-", "--csv", code=2)
    one_line_error(p, "netloom run: --csv and --json -: both on standard output; expected a file for --json")


# --- results ----------------------------------------------------------------------

def case_equality_128k():
    """Issue 16's CI gate: a 128,000-endpoint Equality (n8000k64p16) at the
    paper's n64000k64p16 settings (seed 002 §5.5: 0.9 flits/cycle, bit
    complement, amin, single-flit packets, 64-flit VCs, VCs = diameter), a
    short window of it: it builds (no table of routers squared), it routes
    minimally, it stays within its memory budget, and two threads (on the
    automatic 31 partitions: workers.c, fl_partitions_auto) give the bytes
    of one partition. The full run is benchmarks/engine/equality_scale.sh."""
    import resource
    d = run_json("design", "equality", "--routers", "8000", "--radix", "64", "--endpoints", "16", "--json")
    eq("design", (d["routers"], d["diameter"]), (8000, 3))
    args = ("run", "-s", "topology=" + d["spec"], "-s", "routing_function=amin", "-s", "num_vcs=3",
            "-s", "vc_buf_size=64", "-s", "packet_size=1", "-s", "traffic=bitcomp", "-s", "injection_rate=0.9",
            "-s", "sim_type=throughput", "-s", "warmup_periods=1", "-s", "sample_period=40", "-s", "max_samples=2",
            "-s", "max_drain_cycles=0", "--reproducible")  # the window alone, as equality_scale.sh
    with tempfile.TemporaryDirectory() as tmp:
        f1, f2 = os.path.join(tmp, "1.json"), os.path.join(tmp, "2.json")
        run(*args, "-s", "partitions=1", "--json", f1)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        run(*args, "-s", "threads=2", "--json", f2)
        a, b = json.load(open(f1)), json.load(open(f2))
    for k in ("threads", "partitions"):
        a["config"].pop(k, None)
        b["config"].pop(k, None)
    eq("threads = 2: same results", b, a)
    r = a["results"]
    # bitcomp uses the largest power-of-two subset (65,536 of the 128,000
    # endpoints send); rates are per sending endpoint.
    check(f"injected {r['throughput']['injected']} about 0.9", 0.85 < r["throughput"]["injected"] <= 0.95)
    check("accepted <= injected", 0 < r["throughput"]["accepted"] <= r["throughput"]["injected"] + 1e-9)
    # amin is minimal: no packet takes more hops than the diameter.
    hist = r["hops"]["histogram"]
    check(f"hops within the diameter: {hist}", len(hist) <= 4 and hist[0] == 0 and sum(hist) > 0)
    # Measured 2026-11-28: 0.33 GB for this window (about 2.6 KB per endpoint,
    # the topology, R' and the router state); 8 KB per endpoint is a budget
    # that a per-router-pair table (8,000^2) or per-flit buffers would break.
    check(f"peak memory {peak / 2**20:.0f} MiB <= 8 KiB per endpoint", peak <= 8192 * 128000)


def case_reproducible():
    args = ("run", *SMALL, "-s", "injection_rate=0.25", "-s", "packet_size=1..4", "-s", "traffic=randperm")
    with tempfile.TemporaryDirectory() as tmp:
        f = [os.path.join(tmp, f"{i}.json") for i in range(5)]
        run(*args, "--json", f[0], "--reproducible")
        run(*args, "--json", f[1], "--reproducible")
        a, b = open(f[0], "rb").read(), open(f[1], "rb").read()
        eq("same seed, same bytes", a, b)
        run(*args, "-s", "seed=1", "--json", f[2], "--reproducible")
        c = open(f[2], "rb").read()
        check("a different seed gives different results", c != a)
        da, dc = json.loads(a), json.loads(c)
        check("a different seed changes the latency",
              da["results"]["latency"]["packet"]["mean"] != dc["results"]["latency"]["packet"]["mean"])
        eq("seed recorded", (da["config"]["seed"], dc["config"]["seed"]), (0, 1))
        # Without --reproducible only the wall-clock time may differ.
        run(*args, "--json", f[3])
        run(*args, "--json", f[4])
        eq("reproducible wall_seconds", da["results"]["wall_seconds"], 0.0)
        for path in f[3:]:
            d = json.loads(open(path).read())
            check("measured wall_seconds > 0", d["results"]["wall_seconds"] > 0)
            d["results"]["wall_seconds"] = 0.0
            eq("all but wall_seconds", d, da)
        eq("no temporary files", sorted(os.listdir(tmp)), sorted(os.path.basename(x) for x in f))
        # Visiting routers and endpoints backwards within a cycle changes nothing.
        run(*args, "-s", "visit_order=reverse", "--json", f[2], "--reproducible")
        dr = json.loads(open(f[2], "rb").read())
        eq("visit_order recorded", dr["config"]["visit_order"], "reverse")
        eq("visit_order=reverse: same results", dr["results"], da["results"])
        # Two threads (two partitions side by side) change nothing either.
        run(*args, "-s", "threads=2", "--json", f[2], "--reproducible")
        dt = json.loads(open(f[2], "rb").read())
        eq("threads recorded", (dt["config"]["threads"], dt["config"]["partitions"]), (2, 0))
        eq("threads=2: same results", dt["results"], da["results"])
        # CSV too: --reproducible writes wall_seconds as 0.
        c1 = run(*args, "--csv", "--reproducible").stdout
        c2 = run(*args, "--csv", "--reproducible").stdout
        eq("CSV: same seed, same bytes", c1, c2)
        eq("CSV wall_seconds", c1.decode().splitlines()[1].split(",")[-1], "0.000")
        # The table too: its last line printed the wall time and the rate
        # ("in 0.00 s (3.35 M flit-hops/s)") under --reproducible.
        t1 = run(*args, "--reproducible").stdout.decode()
        t2 = run(*args, "--reproducible").stdout.decode()
        eq("table: same seed, same bytes", t1, t2)
        check(f"table: no wall time or rate: {t1.splitlines()[-1]!r}",
              re.fullmatch(r"\d+ cycles, \d+ flit-hops", t1.splitlines()[-1]))
        check("table without --reproducible: the rate", "M flit-hops/s)" in run(*args).stdout.decode())
        # The same holds for a sweep.
        s = ("sweep", *SMALL, "--rates", "0.1:0.3:0.1", "--reproducible", "--json")
        run(*s, f[0])
        run(*s, f[1])
        eq("sweep: same seed, same bytes", open(f[0], "rb").read(), open(f[1], "rb").read())


def case_json_fields():
    # Neighbor traffic on a 4x4 torus with dimension order: every packet
    # takes exactly one +x and one +y channel hop (3 routers).
    d = run_json("run", "-s", "topology=torus:k=4x4", "-s", "num_vcs=2", "-s", "traffic=neighbor",
                 "-s", "injection_rate=0.1", "-s", "sample_period=2000", "--json", "-")
    # The head every results document starts with (replay, interfere,
    # serve and compare had it flat, run and sweep nested under "netloom").
    eq("top-level keys", list(d), ["netloom_version", "netloom_build", "command", "topology", "routing", "config",
                                   "results"])
    eq("command", d["command"], "run")
    # The build that produced the results, as `netloom version` names it
    # (the version alone when not built from a git checkout).
    m = re.fullmatch(r"netloom (\S+)(?: \(build (\S+)\))?\n", run("version").stdout.decode())
    check("version line", m)
    eq("version", d["netloom_version"], m.group(1))
    eq("build", d["netloom_build"], m.group(2) or m.group(1))
    eq("topology", [d["topology"][k] for k in ("routers", "endpoints")], [16, 16])
    c = d["config"]
    eq("config records what was set", (c["topology"], c["traffic"], c["num_vcs"]), ("torus:k=4x4", "neighbor", 2))
    eq("config records defaults too", (c["vc_buf_size"], c["sw_allocator"], c["seed"], c["channel_latency"]),
       (8, "islip", 0, 1))
    r = d["results"]
    for key in ("stable", "converged", "latency", "throughput", "hops", "packets", "samples", "cycles",
                "measured_cycles", "flit_hops", "wall_seconds", "channels"):
        check(f"results.{key} present", key in r)
    pk = r["latency"]["packet"]
    eq("latency.packet keys", sorted(pk), ["max", "mean", "p50", "p99"])
    eq("latency unit", r["latency"]["unit"], "cycles")
    check("p50 <= p99 <= max", pk["p50"] <= pk["p99"] <= pk["max"])
    check("network latency <= packet latency", r["latency"]["network"]["mean"] <= pk["mean"])
    for k in ("cycles", "flit_hops", "packets", "p50", "p99", "max"):
        v = r[k] if k in r else pk[k]
        check(f"{k} is an integer", isinstance(v, int))
    eq("stable", (r["stable"], r["converged"]), (True, True))
    h = r["hops"]
    eq("hops histogram (all 2 channel hops)", h["histogram"], [0, 0, r["packets"]])
    eq("hops mean", h["mean"], 2.0)
    eq("routers_mean (BookSim's Hops average)", h["routers_mean"], 3.0)
    t = r["throughput"]
    eq("throughput unit", t["unit"], "flits/cycle/endpoint")
    eq("offered", t["offered"], 0.1)
    near("injected", t["injected"], 0.1, 0.01)
    near("accepted", t["accepted"], 0.1, 0.01)
    # T0 = 3 routers x 4 + 2 channels x 1 + 3 = 17 cycles; at 0.1 a little
    # more where packets follow each other closely on one input VC.
    eq("median packet latency = T0", pk["p50"], 17)
    check(f"T0 <= mean packet latency < T0 + 1: {pk['mean']}", 17.0 <= pk["mean"] < 18.0)
    # flit_hops counts router-to-router traversals over the whole run
    # (warm-up and drain included): 2 per flit.
    near("flit_hops", r["flit_hops"] / (2 * 0.1 * 16 * r["cycles"]), 1.0, 0.05)
    # Channel use over the measurement window: of the 64 channels, the 16
    # +x and 16 +y ones carry one endpoint's flits each.
    ch = r["channels"]
    eq("channels unit", ch["unit"], "flits/cycle")
    near("channels mean", ch["mean"], t["accepted"] * 2 * 16 / 64, 0.002)
    near("channels max", ch["max"], 0.1, 0.02)
    eq("busiest channels listed", len(ch["busiest"]), 10)
    for b in ch["busiest"]:
        check("busiest entry", sorted(b) == ["port", "router", "to_router", "utilization"])
        check("busiest on a +x or +y port", b["port"] in (0, 2))
    # Uniform traffic includes self-traffic (0 hops), as BookSim's does.
    d = run_json("run", *SMALL, "--json", "-")
    hist = d["results"]["hops"]["histogram"]
    eq("histogram sums to packets", sum(hist), d["results"]["packets"])
    check("self-traffic at 0 hops", hist[0] > 0)
    eq("histogram length (diameter 6)", len(hist), 7)
    # Minimal routes on the mesh take the Manhattan distance: along one
    # row of 4, ordered pairs are 4 at distance 0, 6 at 1, 4 at 2, 2 at 3;
    # the two dimensions convolve to 16, 48, 68, 64, 40, 16, 4 of 256.
    # Each bin is binomial over the packets: within 5 standard deviations.
    npk = sum(hist)
    for i, w in enumerate((16, 48, 68, 64, 40, 16, 4)):
        p_i = w / 256
        sd = (npk * p_i * (1 - p_i)) ** 0.5
        check(f"hops histogram[{i}] = {hist[i]} within 5 sd ({sd:.1f}) of {npk * p_i:.1f} (uniform on a 4x4 mesh)",
              abs(hist[i] - npk * p_i) <= 5 * sd)
    near("hops mean from the histogram", d["results"]["hops"]["mean"],
         sum(i * n for i, n in enumerate(hist)) / sum(hist), 1e-9)
    # Routes of 64 hops and more (a line of 100 routers: up to 99) are in
    # the histogram too: it stopped at 64 entries, and the packets past
    # them were missing from it (2209 of 2570 listed).
    d = run_json("run", "-s", "topology=mesh:k=100", "-s", "routing_function=dor", "-s", "injection_rate=0.005",
                 "--json", "-")
    r = d["results"]
    hist = r["hops"]["histogram"]
    check(f"a 100-router line: routes of 64 hops or more measured ({len(hist)} entries)", len(hist) > 65)
    eq("a 100-router line: histogram sums to packets", sum(hist), r["packets"])
    near("a 100-router line: hops mean from the histogram", r["hops"]["mean"],
         sum(i * n for i, n in enumerate(hist)) / sum(hist), 1e-9)


def case_active_endpoints():
    # A bit pattern uses the largest power of two (transpose: of four) of
    # the endpoints, and the rates are per endpoint used: on an 8x4 torus
    # transpose runs on 16 of 32. The banner said "32 endpoints" and the
    # JSON had no count, so accepted 0.1 read as 32 x 0.1 flits/cycle.
    args = ("-s", "topology=torus:k=8x4", "-s", "num_vcs=2", "-s", "sample_period=300")
    for cmd, extra in (("run", ()), ("sweep", ("--rates", "0.1:0.1:0.1"))):
        first = run(cmd, *args, "-s", "traffic=transpose", *extra).stdout.decode().splitlines()[0]
        check(f"{cmd} banner says 16 active: {first}",
              "traffic transpose, 32 routers, 32 endpoints (16 active: transpose needs a power of four), seed 0"
              in first)
    r = run_json("run", *args, "-s", "traffic=transpose", "--json", "-")["results"]["throughput"]
    eq("transpose: throughput.active_endpoints", r["active_endpoints"], 16)
    near("transpose: accepted is per active endpoint", r["accepted"], 0.1, 0.01)
    first = run("run", *args, "-s", "traffic=bitcomp").stdout.decode().splitlines()[0]
    check(f"bitcomp (power of two, all 32 used): no count in the banner: {first}",
          "32 endpoints, seed 0" in first)
    first = run("run", "-s", "topology=torus:k=6x4", "-s", "num_vcs=2", "-s", "sample_period=300",
                "-s", "traffic=bitcomp").stdout.decode().splitlines()[0]
    check(f"bitcomp on 24: {first}", "24 endpoints (16 active: bitcomp needs a power of two), seed 0" in first)
    r = run_json("run", *args, "--json", "-")["results"]["throughput"]
    eq("uniform: throughput.active_endpoints", r["active_endpoints"], 32)


def case_routing_spec():
    # The routing function's parameters are recorded in full, defaults
    # included, as the topology's are: in the table's first line and in
    # the JSON's routing.spec; config.routing_function stays as typed.
    fast = ("-s", "sample_period=100", "-s", "max_samples=3", "-s", "warmup_periods=1")
    for topo, typed, canon, extra in (
            ("flex:nx=3,ny=3,nz=2,p=2", "lbr:t=10", "lbr:t=10,n=1,m=3,redraw=1,rate=pair", ()),
            ("hyperx:s=4x4,t=4", "dal", "dal:block=1,queue=0,dqueue=0",
             ("-s", "num_vcs=6", "-s", "vc_allocator=separable_input_first")),
            # Not the parameters that mean nothing on the family: a mesh
            # has no ring to put a dateline on (it said dor:dateline=1),
            # a hypercube neither (duato's escape is one VC there).
            ("mesh:k=4x4", "dor:dateline=1", "dor", ()),
            ("torus:k=4x4", "dor", "dor:dateline=1", ()),
            ("hypercube:n=4", "duato", "duato",
             ("-s", "num_vcs=4", "-s", "wait_for_tail_credit=1"))):
        args = ("-s", f"topology={topo}", "-s", f"routing_function={typed}", *extra, *fast)
        p = run("run", *args)
        head = p.stdout.decode().splitlines()[0]
        check(f"{typed}: table header names {canon}: {head}", f", routing {canon}, traffic " in head)
        for cmd, more in (("run", ()), ("sweep", ("--rates", "0.05:0.1:0.05"))):
            d = run_json(cmd, *args, *more, "--json", "-")
            eq(f"{cmd} {typed}: routing.spec", d["routing"], {"spec": canon})
            eq(f"{cmd} {typed}: config.routing_function as typed", d["config"]["routing_function"], typed)
            eq(f"{cmd} {typed}: key order", list(d)[:6],
               ["netloom_version", "netloom_build", "command", "topology", "routing", "config"])
    # routing_function unset: the family's default, recorded, as replay
    # --topology, serve and compare pick it (dor, the key's default, ran
    # only on tori, meshes and the cmesh: 'routing function dor does not
    # run on topology dragonfly'). Tori keep dor.
    for topo, canon, rf in (("dragonfly:a=4,p=2,h=2", "min:select=auto,classes=auto,table=auto", "min"),
                            ("fattree:k=4,n=2", "min:select=auto,classes=auto,table=auto", "min"),
                            ("torus:k=4x4", "dor:dateline=1", "dor"),
                            # a mesh has no ring: no dateline named
                            ("mesh:k=4x4", "dor", "dor")):
        for cmd, more in (("run", ()), ("sweep", ("--rates", "0.05:0.1:0.05"))):
            d = run_json(cmd, "-s", f"topology={topo}", *fast, *more, "--json", "-")
            eq(f"{cmd} {topo} unset routing: spec, config", (d["routing"]["spec"], d["config"]["routing_function"]),
               (canon, rf))
    head = run("run", "-s", "topology=dragonfly:a=4,p=2,h=2", *fast).stdout.decode().splitlines()[0]
    check(f"unset routing named in the header: {head}", ", routing min:select=auto,classes=auto,table=auto, " in head)
    # A blank around a value or key is refused, before it as after it:
    # 'ugal:threshold= 5' ran with threshold 5 (strtoll skips a leading
    # blank) while 'threshold=5 ' was refused. Hexadecimal stays.
    # The message names the blank ('unknown parameter ' threshold'' of
    # those it listed, threshold among them, read as a wrong name).
    nb = " (no blanks around a parameter's name or value)"
    for spec, needle in (("ugal:threshold= 5", "parameter 'threshold' value ' 5': expected '5'" + nb),
                         ("ugal:threshold=5 ", "parameter 'threshold' value '5 ': expected '5'" + nb),
                         ("ugal: threshold=5", "unknown parameter ' threshold': expected 'threshold'" + nb),
                         ("ugal:threshold =5", "unknown parameter 'threshold ': expected 'threshold'" + nb)):
        p = run("run", "-s", "topology=hyperx:s=3x3,t=1", "-s", "num_vcs=4", "-s", f"routing_function={spec}",
                *fast, code=2)
        one_line_error(p, "routing function 'ugal': " + needle)
    head = run("run", "-s", "topology=hyperx:s=3x3,t=1", "-s", "num_vcs=4", "-s", "routing_function=ugal:threshold=0x5",
               *fast).stdout.decode().splitlines()[0]
    check(f"ugal:threshold=0x5 is 5: {head}", ",threshold=5," in head)


def case_hyperx_view_families():
    # minad, dal, closad, xyyx and valiant read the HyperX view, which full
    # (a HyperX with L = 1) and hypercube (S = 2 in every dimension)
    # publish too; they were refused there: "netloom run: -s: routing
    # function 'dal' does not run on topology 'hypercube' (it supports:
    # hyperx, flatfly); ...". At offered 0.9, on uniform traffic and two
    # permutations, every run completes without deadlock, and a second run
    # with the same seed writes the same JSON, byte for byte. On the
    # hypercube bitcomp sends every packet 4 hops away: the minimal
    # functions take exactly 4, and so does valiant, whose bit fixing to a
    # random router i and on to the complement b of the source a takes
    # popcount(a ^ i) + popcount(i ^ b) = 4 hops. On the full graph
    # valiant takes at most 2 hops (histogram: 0, 1, 2).
    for topo in ("hypercube:n=4", "full:n=8"):
        for rf in ("minad", "dal", "closad", "xyyx", "valiant"):
            for traffic in ("uniform", "bitcomp", "transpose"):
                args = ("run", "-s", f"topology={topo}", "-s", f"routing_function={rf}", "-s", "num_vcs=4",
                        "-s", "vc_allocator=separable_input_first", "-s", "injection_rate=0.9",
                        "-s", f"traffic={traffic}", "--reproducible", "--json", "-")
                what = f"{rf} on {topo}, {traffic} at 0.9"
                first = run(*args, timeout=60).stdout
                res = json.loads(first)["results"]
                check(f"{what}: no deadlock", res["deadlock"] is False)
                check(f"{what}: packets delivered", res["throughput"]["accepted"] > 0.5)
                if topo.startswith("hypercube") and traffic == "bitcomp" and rf != "closad":
                    eq(f"{what}: hops", res["hops"]["mean"], 4.0)
                if topo.startswith("full") and rf == "valiant":
                    eq(f"{what}: hop histogram length", len(res["hops"]["histogram"]), 3)
                eq(f"{what}: the same JSON with the same seed", run(*args, timeout=60).stdout, first)
    # The refusal elsewhere lists every family with the view.
    p = run("run", "-s", "topology=torus:k=4x4", "-s", "routing_function=dal", code=2)
    one_line_error(p, "netloom run: -s: routing function 'dal' does not run on topology 'torus' "
                      "(it supports: full, hypercube, hyperx, flatfly); set routing_function to one that does: ")
    p = run("run", "-s", "topology=fattree:k=4,n=2", "-s", "routing_function=valiant", code=2)
    one_line_error(p, "netloom run: -s: routing function 'valiant' does not run on topology 'fattree' "
                      "(it supports: torus, mesh, full, hypercube, hyperx, flatfly); set routing_function to one "
                      "that does: ")


def case_booksim_key_entries():
    # "-s sim_count=1: ... 'sim_count' is a BookSim2 key, not netloom's:
    # docs/configuration.md ('netloom config --from-booksim') says what it
    # becomes": every key the message names that way must have an entry
    # there, `KEY` or `KEY = VALUE` (sim_count had none, hidden behind
    # "..."). The keys are BookSim's list in cli_booksim_read.c (bs_known).
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(root, "emu", "cli", "cli_booksim_read.c")) as f:
        src = f.read()
    known = re.findall(r'"([^"]+)"', re.search(r"bs_known\[\] = \{(.*?)NULL", src, re.S).group(1))
    check(f"bs_known read from cli_booksim_read.c ({len(known)} keys)", len(known) > 100 and "sim_count" in known)
    with open(os.path.join(root, "docs", "configuration.md")) as f:
        doc = f.read()
    section = doc[doc.index("## `netloom config --from-booksim`"):]
    section = re.sub(r"```.*?```", "", section, flags=re.S)
    spans = re.findall(r"`([^`]+)`", section)
    missing = []
    for key in known:
        p = subprocess.run([NETLOOM, "config", "-s", f"{key}=1"], capture_output=True, env=ENV)
        if f"'{key}' is a BookSim2 key, not netloom's" not in p.stderr.decode():  # one of netloom's too
            continue
        if not any(re.match(re.escape(key) + r"($|\s*=)", s) for s in spans):
            missing.append(key)
    eq("BookSim keys the -s hint names without an entry in docs/configuration.md", missing, [])


def case_key_blanks():
    # A blank around a key's -s value is named, as around a spec
    # parameter's: "-s num_vcs=' 4'" said "value ' 4': expected an
    # integer", as if 4 were not one. A file's 'key = value' is trimmed by
    # the INI reader, so blanks there are fine.
    nb = " (no blanks around a key's value)"
    for kv, needle in (("num_vcs= 4", "key 'num_vcs': value ' 4': expected '4'" + nb),
                       ("num_vcs=4 ", "key 'num_vcs': value '4 ': expected '4'" + nb),
                       ("injection_rate=\t0.1", "key 'injection_rate': value '\\t0.1': expected '0.1'" + nb),
                       ("flow_control=vct ", "key 'flow_control': value 'vct ': expected 'vct'" + nb),
                       ("hold_switch_for_packet= 1 ", "key 'hold_switch_for_packet': value ' 1 ': expected '1'" + nb)):
        for cmd in ("run", "config"):
            one_line_error(run(cmd, "-s", kv, code=2), f"netloom {cmd}: -s: " + needle)
    # The blanks are named first, whatever the value, as a spec
    # parameter's are; without them the value's own message.
    one_line_error(run("run", "-s", "num_vcs= x", code=2), "-s: key 'num_vcs': value ' x': expected 'x'" + nb)
    one_line_error(run("run", "-s", "num_vcs=x", code=2), "-s: key 'num_vcs': value 'x': expected an integer")
    with tempfile.TemporaryDirectory() as tmp:
        ini = os.path.join(tmp, "b.ini")
        write(ini, "num_vcs =  4  \ninjection_rate =\t0.1\t\n")
        dump = run("config", "-c", ini, "--dump").stdout.decode()
        check(f"a file's values are trimmed: {dump!r}",
              "num_vcs = 4 " in dump and "injection_rate = 0.1 " in dump)


def case_zero_load():
    # mesh:k=4x4, 1-flit packets at 0.001: packet latency = T0 averaged over
    # uniform pairs, T0 = H R + (H - 1) L + 3 + (P - 1) with H routers
    # traversed, R = 4 (routing, VC, switch allocation, crossbar), L = 1,
    # P = 1. Uniform destinations include the source itself.
    k, R, L, P = 4, 4, 1, 1
    coords = [(x, y) for x in range(k) for y in range(k)]
    pairs = [(abs(a[0] - b[0]) + abs(a[1] - b[1])) for a in coords for b in coords]
    mean_hops = sum(pairs) / len(pairs)
    eq("mean hops of a 4x4 mesh with self-traffic", mean_hops, 2.5)
    t0 = sum((h + 1) * R + h * L + 3 + (P - 1) for h in pairs) / len(pairs)
    eq("T0", t0, 19.5)
    # A long sample period, so ~10,000 packets make the sample mean of the
    # hop count tight (standard error ~0.3%).
    doc = run_json("run", "-s", "topology=mesh:k=4x4", "-s", "injection_rate=0.001", "-s", "packet_size=1",
                   "-s", "sample_period=200000", "--json", "-")
    # The resolved configuration records keys left at their defaults.
    eq("config.num_vcs (not set: default)", doc["config"]["num_vcs"], 16)
    eq("config.routing_delay (not set: default)", doc["config"]["routing_delay"], 1)
    d = doc["results"]
    check(f"enough packets: {d['packets']}", d["packets"] > 5000)
    near("packet latency vs T0 over uniform pairs", d["latency"]["packet"]["mean"], t0, 0.02 * t0)
    near("hops vs mean over uniform pairs", d["hops"]["mean"], mean_hops, 0.02 * mean_hops)
    # Per packet, the formula is exact but for rare contention: averaged
    # over the measured hop histogram it agrees to 0.1%.
    hist = d["hops"]["histogram"]
    formula = sum(n * ((h + 1) * R + h * L + 3 + (P - 1)) for h, n in enumerate(hist)) / sum(hist)
    near("packet latency vs T0 over the measured hops", d["latency"]["packet"]["mean"], formula, 0.001 * formula)
    eq("zero-load network latency = packet latency", d["latency"]["network"]["mean"], d["latency"]["packet"]["mean"])
    eq("max latency = T0 of the diameter (6 hops)", d["latency"]["packet"]["max"], 7 * R + 6 * L + 3)
    # A point that measured no packet: its latency is no 0.00 but '-'
    # (empty in CSV). Packets of 65,535 flits at 0.01: one created every
    # 6.5 M cycles per endpoint, none arrives in the 3,000-cycle window.
    none = ("run", "-s", "topology=mesh:k=4x4", "-s", "packet_size=65535", "-s", "injection_rate=0.01",
            "--reproducible")
    d = run_json(*none, "--json", "-")["results"]
    eq("no packet measured: packets", d["packets"], 0)
    row = run(*none).stdout.decode().splitlines()[2]
    eq("no packet measured: table row", row.split()[3:], ["-"] * 6 + ["yes", "(no", "packet", "measured)"])
    row = run(*none, "--csv").stdout.decode().splitlines()[1]
    eq("no packet measured: CSV row", row.split(",")[3:10], [""] * 6 + ["1"])
    # Rates below 0.001 keep three significant digits: four decimals
    # showed an offered 0.00003 as 0.0000, and its max accepted so too.
    low = ("-s", "topology=mesh:k=4x4", "-s", "injection_rate=0.00003", "--reproducible")
    row = run("run", *low).stdout.decode().splitlines()[2]
    eq("low rate: table offered", row.split()[0], "3.00e-05")
    last = run("sweep", *low, "--rates", "0.00003:0.00003:0.00001").stdout.decode().splitlines()[-1]
    check(f"low rate: sweep's last line: {last}", re.fullmatch(r"no saturation up to 3e-05, max accepted \d\.\d\de-0[45]", last))


def case_sweep_booksim():
    need_booksim()
    # BookSim2's reference: 8x8 torus, dateline DOR, 2 VCs, 1-flit packets,
    # uniform; last stable point 0.26 (booksim-reference/README.md).
    with tempfile.TemporaryDirectory() as tmp:
        conv = os.path.join(tmp, "torus8x8.ini")
        write(conv, run("config", "--from-booksim", BOOKSIM_CFG).stdout.decode())
        out = os.path.join(tmp, "sweep.json")
        p = run("sweep", "-c", conv, "--rates", "0.05:0.40:0.05", "--csv", "--json", out)
        d = json.load(open(out))
    eq("command", d["command"], "sweep")
    pts = d["results"]["points"]
    rates = [pt["throughput"]["offered"] for pt in pts]
    stable = [pt["stable"] for pt in pts]
    n = stable.index(False) + 1 if False in stable else len(pts)
    eq("stops after the first unstable point", len(pts), n)
    eq("only the last point is unstable", stable, [True] * (n - 1) + [False])
    for i, r in enumerate(rates):
        # Each rate to 12 significant digits (docs/results.md): 0.15, not 0.15000000000000002.
        eq(f"rate {i}", r, round(0.05 * (i + 1), 12))
    lat = [pt["latency"]["packet"]["mean"] for pt in pts]
    check(f"latency increases with load: {lat}", all(a < b for a, b in zip(lat, lat[1:])))
    sat = d["results"]["saturation"]
    # The band BookSim reports, 0.26, give or take one step of the sweep.
    check(f"last stable rate {sat['last_stable_rate']} within 0.26 +- 0.05",
          0.21 <= sat["last_stable_rate"] <= 0.31)
    near("last_stable_rate is the last stable point", sat["last_stable_rate"], rates[-2], 1e-12)
    near("first_unstable_rate", sat["first_unstable_rate"], rates[-1], 1e-12)
    near("max_accepted", sat["max_accepted"], max(pt["throughput"]["accepted"] for pt in pts if pt["stable"]),
         1e-12)
    # BookSim2's figures at the stable points it shares with the sweep
    # (packet latency within 5%; accepted = offered).
    booksim = {0.05: 31.51, 0.10: 32.35, 0.20: 36.16}
    for pt in pts:
        want = booksim.get(round(pt["throughput"]["offered"], 2))
        if want:
            near(f"latency at {pt['throughput']['offered']}", pt["latency"]["packet"]["mean"], want, 0.05 * want)
            near(f"accepted at {pt['throughput']['offered']}", pt["throughput"]["accepted"],
                 pt["throughput"]["offered"], 0.005)
    # CSV: the header and one row per point, matching the JSON.
    rows = p.stdout.decode().splitlines()
    eq("CSV header", rows[0], "offered,injected,accepted,latency_mean,latency_p50,latency_p99,latency_max,"
                              "network_latency_mean,hops_mean,stable,cycles,flit_hops,wall_seconds")
    eq("CSV rows", len(rows), 1 + len(pts))
    for row, pt in zip(rows[1:], pts):
        f = row.split(",")
        eq("CSV columns", len(f), 13)
        near("CSV offered", float(f[0]), pt["throughput"]["offered"], 1e-9)
        near("CSV latency_mean", float(f[3]), pt["latency"]["packet"]["mean"], 1e-4 * pt["latency"]["packet"]["mean"])
        eq("CSV latency_p99", int(f[5]), pt["latency"]["packet"]["p99"])
        eq("CSV stable", f[9], "1" if pt["stable"] else "0")
        eq("CSV cycles", int(f[10]), pt["cycles"])
        eq("CSV flit_hops", int(f[11]), pt["flit_hops"])


def case_sweep_plot():
    """sweep --plot FILE.svg: the load-latency curve drawn by gnuplot
    (it had no chart; users drew BookSim-style curves by hand)."""
    import shutil
    if not shutil.which("gnuplot"):
        print("SKIP: gnuplot not on PATH")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "c.svg")
        rates = ("--rates", "0.2:0.8:0.2")
        p = run("sweep", *SMALL, *rates, "--continue", "--plot", svg)
        table = p.stdout
        eq("stderr (no gnuplot warning)", p.stderr, b"")
        check("the table on stdout", b"offered  injected" in table and b"saturation:" in table)
        text = open(svg).read()
        check(f"an SVG: {text[:60]!r}", "<svg" in text and text.rstrip().endswith("</svg>"))
        # Saturated points (0.6 and 0.8 on this mesh) are their own series.
        for label in ("latency", "latency, saturated (unstable)", "accepted", "accepted = offered",
                      "offered load (flits/cycle/endpoint)", "mean packet latency (cycles)",
                      "netloom sweep: mesh:k=4x4,p=1, dor, uniform"):
            check(f"label {label!r} drawn", f">{label}<" in text)
        # No saturation: no empty series (gnuplot warned on stderr of it).
        p = run("sweep", *SMALL, "--rates", "0.1:0.2:0.1", "--plot", svg)
        eq("unsaturated: stderr", p.stderr, b"")
        check("unsaturated: no saturated series", ">latency, saturated (unstable)<" not in open(svg).read())
        # A point whose warm-up never ended is unstable but not saturated
        # ("no (warm-up only)", "no saturation judged"): it was drawn as a
        # saturated point. Its own series now, and no saturated one.
        p = run("sweep", *SMALL, "-s", "warmup_periods=3", "-s", "max_samples=2", "--rates", "0.1:0.2:0.1",
                "--plot", svg)
        check("warm-up only: the table says so", b"no (warm-up only)" in p.stdout)
        text = open(svg).read()
        check("warm-up only: its series", ">latency, warm-up only (not measured)<" in text)
        check("warm-up only: not drawn as saturated", ">latency, saturated (unstable)<" not in text)
        # '-': the SVG on stdout instead of the table, the same chart.
        run("sweep", *SMALL, *rates, "--continue", "--plot", svg)
        p = run("sweep", *SMALL, *rates, "--continue", "--plot", "-")
        eq("--plot -: the file's chart on stdout", p.stdout, open(svg, "rb").read())
        # The refusals, before any point runs, nothing on stdout.
        js = os.path.join(tmp, "c.json")
        for args, msg in ((("--plot", "-", "--json", "-"), "netloom sweep: --plot - and --json -: both on standard "
                           "output; expected a file for one of them"),
                          (("--plot", "-", "--csv"), "netloom sweep: --csv and --plot -: both on standard output; "
                           "expected a file for --plot"),
                          (("--plot", ""), "netloom sweep: --plot '': empty file name"),
                          (("--plot", svg, "--plot", svg), "netloom sweep: option '--plot' given twice"),
                          (("--plot", js, "--json", js), "the same file"),
                          (("--plot", os.path.join(tmp, "nodir", "c.svg")), "nodir"),
                          (("--plot",), "netloom sweep: option '--plot' needs a value"),
                          # Another image format's name got an SVG in it, status 0.
                          *((("--plot", os.path.join(tmp, f"c.{ext}"), "--json", js),
                             f"netloom sweep: --plot '{os.path.join(tmp, f'c.{ext}')}': a .{ext} name, but the plot "
                             "is SVG; expected a .svg name (or one with no image extension)\n")
                            for ext in ("png", "pdf", "jpg", "JPEG", "eps", "ps", "gif"))):
            one_line_error(run("sweep", *SMALL, *rates, *args, code=2), msg)
        check("no --json written", not os.path.exists(js))
        eq("no image file written", sorted(f for f in os.listdir(tmp) if f.startswith("c.")), ["c.svg"])
        # A name with no image extension is still the SVG asked for.
        for name in ("chart", "c.ps.d"):
            run("sweep", *SMALL, "--rates", "0.1:0.1:0.1", "--plot", os.path.join(tmp, name))
            check(f"--plot {name}: an SVG", open(os.path.join(tmp, name)).read().rstrip().endswith("</svg>"))
        # '-' is staged in TMPDIR: one that cannot take it is refused before
        # the points, not after them (exit 3).
        p = run("sweep", *SMALL, *rates, "--plot", "-", code=2, env=dict(ENV, TMPDIR=os.path.join(tmp, "nodir")))
        one_line_error(p, f"netloom sweep: --plot: {tmp}/nodir/netloom-out: {tmp}/nodir: no such directory; "
                       "expected an existing folder to write to; TMPDIR names that folder")
        one_line_error(run("run", *SMALL, "--plot", svg, code=2), "--plot")
        # No gnuplot: the table and JSON written, exit 3, the old chart kept.
        old = open(svg, "rb").read()
        env = dict(ENV, PATH=tmp)
        p = run("sweep", *SMALL, *rates, "--json", js, "--plot", svg, code=3, env=env)
        check("no gnuplot: the table written", b"offered  injected" in p.stdout)
        eq("no gnuplot: the line", p.stderr.decode(), f"netloom sweep: --plot {svg}: gnuplot not found; expected gnuplot "
           "on PATH (Debian: apt-get install gnuplot-nox); the table and JSON were written\n")
        check("no gnuplot: JSON written", json.load(open(js))["command"] == "sweep")
        eq("no gnuplot: the old chart kept", open(svg, "rb").read(), old)
        # --csv: the line said 'the table was written' of the CSV.
        p = run("sweep", *SMALL, *rates, "--csv", "--plot", svg, code=3, env=env)
        eq("no gnuplot, --csv: the line", p.stderr.decode(), f"netloom sweep: --plot {svg}: gnuplot not found; expected "
           "gnuplot on PATH (Debian: apt-get install gnuplot-nox); the CSV was written\n")
        # A --json that cannot be written after the points (status 1) left
        # the chart undrawn without a word; it is drawn all the same.
        if os.path.exists("/dev/full"):
            open(svg, "w").write("old")
            p = run("sweep", *SMALL, *rates, "--json", "/dev/full", "--plot", svg, code=1)
            eq("--json /dev/full: stderr", p.stderr.decode(),
               "netloom sweep: --json: /dev/full: write failed: No space left on device\n")
            check("--json /dev/full: the chart drawn", open(svg).read().rstrip().endswith("</svg>"))


def case_sweep_plot_signal():
    """SIGTERM, SIGINT or SIGHUP while sweep's gnuplot draws (or run's JSON is
    staged): netloom removes the staged chart, ends by the signal, and the
    JSON written before the chart is whole. sweep and run installed no
    handler, so the signal left c.svg.tmpXXXXXX beside the results. The
    fake gnuplot reads the script, notes its PID and sleeps."""
    import signal
    with tempfile.TemporaryDirectory() as tmp:
        gp_dir = os.path.join(tmp, "gp")
        os.mkdir(gp_dir)
        write(os.path.join(gp_dir, "gnuplot"),
              '#!/bin/sh\ncat > /dev/null\necho $$ > "$GP_PID.tmp" && mv "$GP_PID.tmp" "$GP_PID"\nexec sleep 120\n')
        os.chmod(os.path.join(gp_dir, "gnuplot"), 0o755)
        for sig, code in ((signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, -signal.SIGINT),
                          (signal.SIGHUP, -signal.SIGHUP)):
            name = signal.Signals(sig).name
            out = os.path.join(tmp, name)
            os.mkdir(out)
            gp_pid = os.path.join(out, "gp.pid")
            env = dict(ENV, PATH=gp_dir + os.pathsep + ENV.get("PATH", ""), GP_PID=gp_pid)
            js, svg = os.path.join(out, "c.json"), os.path.join(out, "c.svg")
            # SIGINT and SIGHUP at their default action in the child (a
            # background job of a script may start with SIGINT ignored, one
            # under nohup with SIGHUP, which netloom keeps).
            p = subprocess.Popen([os.path.abspath(NETLOOM), "sweep", *SMALL, "--rates", "0.1:0.2:0.1",
                                  "--json", js, "--plot", svg], env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL)
                                                                             for s in (signal.SIGINT, signal.SIGHUP)])
            try:
                for _ in range(1200):
                    if os.path.exists(gp_pid) or p.poll() is not None:
                        break
                    time.sleep(0.05)
                check(f"{name}: the fake gnuplot started", os.path.exists(gp_pid))
                staged = sorted(f for f in os.listdir(out) if f.startswith("c.svg"))
                eq(f"{name}: staged while gnuplot draws", len(staged) == 1 and staged[0].startswith("c.svg.tmp"), True)
                p.send_signal(sig)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    raise Fail(f"{name}: sweep still running 20 s after the signal")
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
                gp = open(gp_pid).read().strip() if os.path.exists(gp_pid) else ""
                if gp:
                    try:
                        os.kill(int(gp), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            eq(f"{name}: exit status", p.returncode, code)
            eq(f"{name}: stderr", p.stderr.read(), b"")
            eq(f"{name}: files left", sorted(f for f in os.listdir(out) if f not in ("gp.pid",)), ["c.json"])
            with open(js) as f:
                check(f"{name}: the JSON whole", len(json.load(f)["results"]["points"]) == 2)


def case_sweep_table():
    p = run("sweep", *SMALL, "--rates", "0.1:0.3:0.1")
    lines = p.stdout.decode().splitlines()
    check(f"header line: {lines[0]}", lines[0].startswith("netloom ") and "mesh:k=4x4" in lines[0]
          and "routing dor, traffic uniform, 16 routers, 16 endpoints, seed 0" in lines[0])
    eq("column heads", lines[1].split(), ["offered", "injected", "accepted", "lat.mean", "p50", "p99", "max",
                                          "net.mean", "hops", "stable"])
    eq("rows", [l.split()[0] for l in lines[2:5]], ["0.1000", "0.2000", "0.3000"])
    check(f"no saturation line: {lines[-1]}", lines[-1].startswith("no saturation up to 0.3, max accepted 0."))
    eq("stderr", p.stderr, b"")
    # No stable point at all: the saturation line says 'none' (it printed
    # 'last stable rate -1'; the JSON has null).
    p = run("sweep", *SMALL, "-s", "latency_thres=1", "--rates", "0.5:0.6:0.1")
    last = p.stdout.decode().splitlines()[-1]
    check(f"saturation line without a stable rate: {last!r}",
          last.startswith("saturation: last stable rate none, first unstable 0.5, max accepted "))
    # sim_type = throughput has no latency threshold: every point that
    # measured is stable, so the line said 'no saturation up to 1' while
    # accepted stayed at ~0.57 from offered 0.6. It says saturation is not
    # judged, with what the JSON holds (last_stable_rate 1, max_accepted).
    args = ("sweep", "-s", "topology=mesh:k=4x4", "-s", "num_vcs=2", "-s", "sim_type=throughput",
            "--rates", "0.4:1:0.2")
    lines = run(*args).stdout.decode().splitlines()
    d = run_json(*args, "--json", "-")["results"]
    pts, sat = d["points"], d["saturation"]
    eq("throughput: every point stable", [pt["stable"] for pt in pts], [True] * 4)
    check(f"throughput: accepted below offered at 1: {pts[-1]['throughput']}",
          pts[-1]["throughput"]["accepted"] < 0.7)
    eq("throughput: JSON saturation", (sat["last_stable_rate"], sat["first_unstable_rate"]), (1.0, None))
    best = max(pts, key=lambda pt: pt["throughput"]["accepted"])
    eq("throughput: last line", lines[-1],
       "sim_type = throughput: saturation is not judged (stable only says the point measured); last stable rate 1, "
       f"max accepted {sat['max_accepted']:.4f} at offered {best['throughput']['offered']:.4g}")
    check("throughput: no 'no saturation' claim", not any(l.startswith("no saturation") for l in lines))


def stdout_full(*args):
    """Run netloom with stdout on /dev/full: (exit status, stderr)."""
    with open("/dev/full", "wb") as full:
        p = subprocess.run([NETLOOM, *args], stdout=full, stderr=subprocess.PIPE, env=ENV)
    return p.returncode, p.stderr.decode()


def case_command_prefix():
    """Every command's error names the command: one line on stderr that
    starts 'netloom CMD: ' (with the subcommand for trace, topo and
    design), exit 2, nothing on stdout. The helpers that report a
    library's error said 'netloom: ' whatever the command, so a script
    running several could not tell which one failed."""
    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "missing")
        for args, prefix, msg in (
                (("run", "-s", "foo=1"), "run", "-s: unknown key 'foo'"),
                (("sweep", "-s", "foo=1", "--rates", "0.1:0.2:0.1"), "sweep", "-s: unknown key 'foo'"),
                (("config", "-s", "foo=1"), "config", "-s: unknown key 'foo'"),
                (("trace", "info", missing + ".nlt"), "trace info", f"{missing}.nlt: cannot open"),
                (("topo", "describe", "nosuch"), "topo describe", "unknown topology 'nosuch'"),
                (("design", "hyperx", "--terminals", "64", "--radix", "16", "--bisection", "0.5", "-o",
                  os.path.join(missing, "x")), "design hyperx", f"--output: {missing}/x: {missing}: no such directory"),
                (("replay", missing + ".nlt"), "replay", f"{missing}.nlt: cannot open"),
                (("serve", "--ranks", "2", "--listen", "ipc://"), "serve", "--listen: 'ipc://': empty ipc path"),
                (("cost", "nosuch"), "cost", "unknown topology 'nosuch'"),
                (("layout", "nosuch", "--svg", os.path.join(tmp, "x.svg")), "layout", "unknown topology 'nosuch'"),
                (("interfere", missing + ".ini"), "interfere", f"{missing}.ini: cannot open workload file"),
                (("compare", missing + ".ini", "-o", os.path.join(tmp, "c")), "compare",
                 f"{missing}.ini: cannot open study file"),
                # A message that already names the command says it once.
                (("replay",), "replay", "missing TRACE (see 'netloom replay --help')")):
            p = run(*args, code=2)
            eq(f"{' '.join(args)}: stdout", p.stdout, b"")
            err = p.stderr.decode()
            eq(f"{' '.join(args)}: one line", err.count("\n"), 1)
            check(f"{' '.join(args)}: starts 'netloom {prefix}: {msg}': {err!r}",
                  err.startswith(f"netloom {prefix}: {msg}"))
        # A file named as the command keeps its name in the line.
        p = subprocess.run([os.path.abspath(NETLOOM), "run", "-c", "run"], capture_output=True, env=ENV, cwd=tmp)
        eq("run -c run: exit", p.returncode, 2)
        eq("run -c run: the file named", p.stderr.decode(),
           "netloom run: run: cannot open config file: No such file or directory\n")
        # Lines not tied to a command keep 'netloom: '.
        one_line_error(run("bogus", code=2), "netloom: unknown command 'bogus'")
        # A word holding a newline is quoted escaped: the refusal stays one
        # line (it was two for every command's usage errors).
        for args, msg in ((("run", "a\nb"), "netloom run: unknown option 'a\\nb'"),
                          (("topo", "describe", "torus:k=4x4", "a\nb"),
                           "netloom topo describe: unexpected argument 'a\\nb' after SPEC"),
                          (("cost", "torus:k=4x4", "a\nb"), "netloom cost: unexpected argument 'a\\nb'"),
                          (("interfere", "w.ini", "a\nb"), "netloom interfere: unexpected argument 'a\\nb' after"),
                          (("design", "hyperx", "a\nb"), "netloom design hyperx: unexpected argument 'a\\nb';")):
            one_line_error(run(*args, code=2), msg)


def case_one_write():
    """Each line on stderr leaves in one write(2): stderr is unbuffered,
    and cli_say wrote the prefix, the message and the newline apart, so
    under mpirun two ranks' lines interleaved mid-line ("netloom run:
    netloom run: warning: MPI rank 1 of 2: ..."). Counted with strace
    (skipped without it): a warning (cli_say), an error (cli_report) and a
    study's problem lines (cli_say_lines), each line one write."""
    strace = shutil.which("strace")
    if not strace:
        print("SKIP: strace not on PATH")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        study = os.path.join(tmp, "s.ini")
        with open(study, "w") as f:
            f.write("[system a]\ntopology = torus:k=2\n[system b]\ntopology = nosuch\n"
                    "[workload w]\ntrace = missing.nlt\n")
        log = os.path.join(tmp, "strace.log")
        for args, code in ((("run", "-s", "topology=torus:k=2x2", "-s", "max_samples=1", "-s",
                             "sample_period=100"), 0),
                           (("run", "-s", "foo=1"), 2),
                           (("compare", study, "-o", os.path.join(tmp, "out")), 2)):
            p = subprocess.run([strace, "-f", "-qq", "-e", "trace=write", "-e", "signal=none", "-o", log,
                                NETLOOM, *args], capture_output=True)
            eq(f"{' '.join(args)}: exit", p.returncode, code)
            lines = p.stderr.decode().splitlines()
            with open(log) as f:
                writes = [l for l in f if re.match(r"^(\d+ +)?write\(2,", l)]
            check(f"{' '.join(args)}: some lines said: {lines}", len(lines) >= 1 + (args[0] == "compare"))
            eq(f"{' '.join(args)}: writes to stderr for {len(lines)} lines", len(writes), len(lines))


def case_stdout_full():
    """Results that cannot be written to stdout fail the command: exit 1
    (the work failed, not bad input: docs/analysis.md, docs/results.md),
    one line, whatever the command, since main.c checks stdout after every
    one. Before, run, sweep and config said so with exit 2, and every other
    command printing its result (cost, replay, trace info, topo list,
    version, --help) lost it with exit 0 and nothing said."""
    if not os.access("/dev/full", os.W_OK):
        print("skip: /dev/full is not writable")
        sys.exit(77)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    nlt = os.path.join(root, "tests", "data", "traces", "nlt", "lammps-lj-2-one-core.nlt")
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "b.cfg")
        write(cfg, "topology = torus;\nk = 4;\nn = 2;\nnum_vcs = 2;\nrouting_function = dim_order;\n")
        run("config", "--from-booksim", cfg)  # exit 0 where stdout takes it
        cj = os.path.join(tmp, "cj.json")
        for args in (("sweep", *SMALL, "--rates", "0.1:0.2:0.1", "--csv"),
                     ("sweep", *SMALL, "--rates", "0.1:0.2:0.1"),
                     ("run", *SMALL), ("run", *SMALL, "--csv"), ("run", *SMALL, "--json", "-"),
                     ("config", "--from-booksim", cfg), ("config", "--dump"), ("config", "--json"),
                     ("config", "--keys"),
                     # the text report, with and without a JSON file beside it
                     ("cost", "torus:k=4x4"), ("cost", "torus:k=4x4", "--json", cj), ("cost", "torus:k=4x4", "--json", "-"),
                     ("cost", "--list-presets"), ("layout", "torus:k=4x4", "--lengths", "-"),
                     ("replay", nlt, "-s", "topology=torus:k=4x4", "-s", "link_model=links"), ("replay", nlt, "--json", "-"),
                     ("trace", "info", nlt),
                     ("topo", "list"), ("topo", "describe", "torus:k=4x4"), ("topo", "describe", "torus:k=4x4", "--json"),
                     ("topo", "export", "torus:k=4x4", "--format", "edgelist"),
                     ("design", "hyperx", "--terminals", "64", "--radix", "16", "--bisection", "0.5"),
                     ("version",), ("--version",), ("--help",), ("cost", "--help"), ("replay", "--help")):
            rc, err = stdout_full(*args)
            eq(f"{' '.join(args)} > /dev/full: exit status", rc, 1)
            # Said by the command (topo's, design's and trace's with their
            # subcommand); what no command runs (--version, --help) by netloom.
            cmd = ("" if args[0].startswith("-") else
                   " " + " ".join(args[:2]) if args[0] in ("topo", "design", "trace") else " " + args[0])
            eq(f"{' '.join(args)} > /dev/full: stderr", err.splitlines(),
               [f"netloom{cmd}: stdout: write failed: No space left on device"])
        check("cost --json FILE still written beside the lost text", os.path.getsize(cj) > 0)


def case_deadlock():
    # A ring without dateline classes deadlocks under tornado traffic
    # (each packet holds its VC while waiting for the next one around).
    # Nothing else runs: the global check finds it as the ring freezes.
    args = ("run", "-s", "topology=torus:k=8", "-s", "routing_function=dor:dateline=0", "-s", "num_vcs=1",
            "-s", "vc_buf_size=2", "-s", "packet_size=8", "-s", "traffic=tornado", "-s", "injection_rate=0.9",
            "-s", "sim_type=throughput")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        p = run(*args, "--json", out, "--reproducible", code=1)
        d = json.load(open(out))
    rows = p.stdout.decode().splitlines()
    check(f"table row: {rows[-1]!r}", re.fullmatch(r" +0\.9000( +-){8}  deadlock at cycle \d+", rows[-1]))
    lines = p.stderr.decode().splitlines()
    m = re.fullmatch(r"netloom run: network deadlock at cycle (\d+): (\d+) flits stuck in (\d+) input VCs that wait on "
                     r"each other: router 0 in-port \d VC 0 waits for (a VC 0 on out-port 0|out-port 0 VC 0), "
                     r".*, \.\.\. \(\d+ more\) \(global check: nothing in the network can move\)", lines[0])
    check(f"first line: {lines[0]!r}", m)
    cycle, flits, n_vcs = int(m.group(1)), int(m.group(2)), int(m.group(3))
    check(f"found at once (cycle {cycle}), not after a timeout", cycle < 200)
    eq("second line", lines[1], "deadlocked input VCs:")
    report = lines[2:]
    eq("one line per deadlocked VC", len(report), n_vcs)
    vc_re = re.compile(r"  router (\d) in-port ([12]) VC 0: (vc_alloc|active), (\d+) flits?, packet (\d)->(\d)"
                       r"( waits for a VC 0 on out-port 0 \(VC 0 held by in-port [12] VC 0\)"
                       r"| waits on out-port 0 VC 0 \(2/2 credits used\))")
    total = 0
    for line in report:
        mm = vc_re.fullmatch(line)
        check(f"report line: {line!r}", mm)
        total += int(mm.group(4))
        # Tornado on an 8-ring: 3 hops on.
        eq(f"tornado destination in {line!r}", (int(mm.group(5)) + 3) % 8, int(mm.group(6)))
    eq("flits in the report", total, flits)
    check("every router is in the cycle", sorted({int(l.split()[1]) for l in report}) == list(range(8)))
    r = d["results"]
    eq("JSON deadlock", r["deadlock"], True)
    eq("JSON stuck", (r["stuck"]["cycle"], r["stuck"]["flits"], r["stuck"]["input_vcs"], r["stuck"]["check"]),
       (cycle, flits, n_vcs, "global"))
    check("no latency figures", "latency" not in r and "hops" not in r and "accepted" not in r["throughput"])
    eq("first waiting VC", (r["stuck"]["waiting"][0]["router"], r["stuck"]["waiting"][0]["out_port"]), (0, 0))
    # A VC holding one flit says "1 flit" (it said "1 flits"): with
    # 1-flit buffers every deadlocked VC holds one.
    p = run("run", "-s", "topology=torus:k=4x4", "-s", "routing_function=min:classes=none", "-s", "num_vcs=1",
            "-s", "vc_buf_size=1", "-s", "injection_rate=0.9", code=1)
    report = p.stderr.decode().splitlines()[2:]
    check(f"1-flit buffers: a report of VCs ({len(report)} lines)", len(report) > 1)
    for line in report:
        check(f"one flit, singular: {line!r}", re.match(r"  router \d+ in-port \d+ VC 0: \w+, 1 flit, packet ", line))
    # A one-VC range reads "a VC 0" in the per-VC lines as in the first
    # line (they said "a VC 0..0" under a first line's "a VC 0").
    first = p.stderr.decode().splitlines()[0]
    m = re.search(r": (router \d+ in-port \d+ VC 0) waits for a VC 0 on out-port (\d+), ", first)
    check(f"1-flit buffers: first line waits for a VC: {first!r}", m)
    waits = [l for l in report if " waits for a VC " in l]
    check("1-flit buffers: per-VC lines wait for a VC", waits)
    for line in waits:
        check(f"one-VC range: {line!r}", re.search(r" waits for a VC 0 on out-port \d+ \(", line))
    check(f"per-VC line agrees with the first line ({m.group(1)})",
          any(l.startswith(f"  {m.group(1)}: ") and f" waits for a VC 0 on out-port {m.group(2)} " in l for l in waits))
    # No false freeze: pipelined_stages = 1 with an internal speedup and a
    # multi-cycle VC or switch allocation granted one output VC to two
    # heads (an assertion in this debug build) and, with
    # hold_switch_for_packet, held one crossbar input for two VCs, which
    # froze the release build at 0.0065 of 0.2 with no deadlock report.
    # Deadlock-free DOR on a mesh: each runs and carries what is offered.
    mesh = ("-s", "topology=mesh:k=4x4")
    for args in (("-s", "num_vcs=2", "-s", "internal_speedup=2.0", "-s", "pipelined_stages=1", "-s", "vc_alloc_delay=2"),
                 ("-s", "num_vcs=4", "-s", "internal_speedup=1.5", "-s", "pipelined_stages=1", "-s", "vc_alloc_delay=2",
                  "-s", "vc_allocator=separable_input_first", "-s", "injection_rate=0.3"),
                 ("-s", "num_vcs=4", "-s", "packet_size=4", "-s", "injection_rate=0.2", "-s", "internal_speedup=2.0",
                  "-s", "pipelined_stages=1", "-s", "sw_alloc_delay=2", "-s", "hold_switch_for_packet=1"),
                 ("-s", "num_vcs=4", "-s", "packet_size=4", "-s", "injection_rate=0.2", "-s", "internal_speedup=2.0",
                  "-s", "pipelined_stages=1", "-s", "sw_alloc_delay=2", "-s", "hold_switch_for_packet=1",
                  "-s", "sim_type=throughput")):
        r = run_json("run", *mesh, *args, "--json", "-")["results"]
        what = " ".join(args[1::2])
        eq(f"{what}: no deadlock", r["deadlock"], False)
        tp = r["throughput"]
        near(f"{what}: accepted vs offered", tp["accepted"], tp["offered"], 0.05 * tp["offered"])


FLATFLY = ("-s", "topology=hyperx:s=4x4x4,t=4", "-s", "num_vcs=4", "-s", "vc_buf_size=8",
           "-s", "routing_function=min:select=hash,classes=none")


def case_deadlock_flatfly():
    # Issue 9: BookSim's flatfly k=4 n=3 c=4 with minimal routing and no
    # VC classes deadlocks; it used to print "stable: yes" with 0 accepted
    # (throughput) or "no (saturated)" (latency), exit 0.
    for sim in ("throughput", "latency"):
        p = run("run", *FLATFLY, "-s", "injection_rate=1.0", "-s", f"sim_type={sim}", "--json", "-",
                "--reproducible", code=1)
        d = json.loads(p.stdout)
        eq(f"{sim}: deadlock", d["results"]["deadlock"], True)
        check(f"{sim}: no latency figures", "latency" not in d["results"])
        first = p.stderr.decode().splitlines()[0]
        m = re.fullmatch(r"netloom run: network deadlock at cycle (\d+): (\d+) flits stuck in (\d+) input VCs that wait "
                         r"on each other: (router \d+ in-port \d+ VC \d+ waits for [^,]+, ){3}\.\.\. \(\d+ more\) "
                         r"\(local check: a front flit waited (\d+) cycles, bound 268\)", first)
        check(f"{sim}: one-line report: {first!r}", m)
        check(f"{sim}: found within a few bounds", int(m.group(1)) < 2000)
        eq(f"{sim}: JSON agrees", (d["results"]["stuck"]["cycle"], d["results"]["stuck"]["flits"]),
           (int(m.group(1)), int(m.group(2))))
        eq(f"{sim}: reproducible wall_seconds", d["results"]["wall_seconds"], 0.0)
        # Minimal routing without classes offers all 4 VCs: a range.
        waits = [l for l in p.stderr.decode().splitlines()[2:] if " waits for a VC " in l]
        check(f"{sim}: per-VC lines wait for a VC", waits)
        for line in waits:
            check(f"{sim}: several-VC range: {line!r}", re.search(r" waits for a VC 0\.\.3 on out-port \d+ ", line))
        # Same configuration, same report, byte for byte.
        q = run("run", *FLATFLY, "-s", "injection_rate=1.0", "-s", f"sim_type={sim}", "--json", "-",
                "--reproducible", code=1)
        eq(f"{sim}: deterministic", (q.stdout, q.stderr), (p.stdout, p.stderr))
    # Hop classes (the default) make it deadlock-free.
    d = run_json("run", *FLATFLY[:-2], "-s", "routing_function=min:select=hash", "-s", "injection_rate=1.0",
                 "-s", "sim_type=throughput", "--json", "-")
    eq("with hop classes: no deadlock", d["results"]["deadlock"], False)


def case_deadlock_sweep():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s.json")
        p = run("sweep", *FLATFLY, "--rates", "0.2:1:0.2", "--continue", "--json", out, "--reproducible", code=1)
        d = json.load(open(out))
    pts = d["results"]["points"]
    eq("deadlock flags", [pt["deadlock"] for pt in pts], [False] * (len(pts) - 1) + [True])
    check("stops at the deadlocked point despite --continue", len(pts) < 5)
    sat = d["results"]["saturation"]
    eq("deadlock_rate", sat["deadlock_rate"], pts[-1]["throughput"]["offered"])
    lines = p.stdout.decode().splitlines()
    check(f"last line: {lines[-1]!r}", re.fullmatch(r"deadlock at rate [0-9.]+: the sweep stops \(last stable rate "
                                                   r"[0-9.]+\)", lines[-1]))
    check("deadlock row", lines[-2].endswith(f"deadlock at cycle {pts[-1]['stuck']['cycle']}"))
    # CSV: the deadlocked row keeps its columns, the measurements empty.
    p = run("sweep", *FLATFLY, "--rates", "0.2:1:0.2", "--csv", "--reproducible", code=1)
    rows = p.stdout.decode().splitlines()
    eq("CSV rows", len(rows), 1 + len(pts))
    f = rows[-1].split(",")
    eq("CSV deadlocked row", (len(f), f[1:9], f[9], f[10], f[12]),
       (13, [""] * 8, "0", str(pts[-1]["cycles"]), "0.000"))


def case_progress():
    env = {k: v for k, v in os.environ.items() if k != "NETLOOM_PROGRESS"}
    # Long enough (about a second here; progress redraws at most every
    # 0.2 s, at the end of sample periods) that a terminal sees progress.
    args = ("run", "-s", "topology=torus:k=16x16", "-s", "num_vcs=2", "-s", "injection_rate=0.1",
            "-s", "warmup_periods=1", "-s", "max_samples=3", "-s", "sample_period=5000", "--csv")
    p = run(*args, env=env)
    eq("stderr when not a terminal", p.stderr, b"")
    p = run("sweep", *SMALL, "--rates", "0.1:0.3:0.1", env=env)
    eq("sweep stderr when not a terminal", p.stderr, b"")
    # On a terminal, progress is drawn and cleared; stdout is unchanged.
    out, tty = run_tty(args, env)
    check(f"progress on a terminal: {tty[:200]!r}", b"rate 0.1: " in tty and b"cycle " in tty)
    check("line cleared at the end", tty.endswith(b"\r\x1b[K"))
    eq("stdout is the CSV", out.decode().splitlines()[0].split(",")[0], "offered")
    # A sweep's points on threads draw one line for the sweep, not one
    # per point on top of each other: "sweep: points k/n (m running)".
    sweep = ("sweep", *args[1:5], "-s", "warmup_periods=1", "-s", "max_samples=2", "-s", "sample_period=2000",
             "--rates", "0.05:0.15:0.05", "--csv", "--spread", "points", "-s", "threads=2")
    out, tty = run_tty(sweep, env)
    drawn = [d for d in tty.split(b"\r\x1b[K") if d]
    eq("points on threads: the lines drawn", drawn, [b"sweep: points 0/3 (2 running)", b"sweep: points 2/3 (1 running)"])
    eq("points on threads: CSV rows", len(out.decode().splitlines()), 4)
    # NETLOOM_PROGRESS=0 silences it even on a terminal.
    _, tty = run_tty(args, dict(env, NETLOOM_PROGRESS="0"))
    eq("NETLOOM_PROGRESS=0 on a terminal", tty, b"")
    # A run that cannot converge (stopping threshold 0) runs every one of
    # max_samples: its percentage counts to 100 over all of them (it read
    # past 100% and lost its percentage after warm-up + 3 samples).
    args = ("run", "-s", "topology=torus:k=16x16", "-s", "num_vcs=2", "-s", "injection_rate=0.1",
            "-s", "sim_type=throughput", "-s", "acc_stopping_thres=0", "-s", "warmup_periods=1",
            "-s", "max_samples=6", "-s", "sample_period=8000", "--csv")
    _, tty = run_tty(args, env)
    drawn = [d for d in tty.split(b"\r\x1b[K") if d.startswith(b"rate 0.1: ")]
    # Redraws are at least 0.2 s apart, so a machine several times faster
    # than ours (0.3 s a period) draws fewer than the 7 periods: 2 keep it
    # a test of the percentages without timing it.
    check(f"every sample drawn with its share of max_samples: {drawn!r}",
          len(drawn) >= 2 and all(re.search(rb": +[0-9]+\.[0-9]%  ", d) for d in drawn))
    pcts = [float(re.search(rb"([0-9.]+)%", d).group(1)) for d in drawn]
    check(f"percentages within 0-100 and rising: {pcts}", pcts == sorted(pcts) and pcts[-1] <= 100.0)
    # On a terminal a sample period runs in slices, the line redrawn
    # between them (a period of the largest runs takes minutes): the
    # results are the same byte for byte, on two partitions too.
    args = ("run", "-s", "topology=torus:k=16x16", "-s", "num_vcs=2", "-s", "injection_rate=0.08",
            "-s", "partitions=2", "-s", "warmup_periods=1", "-s", "max_samples=2", "-s", "sample_period=30000",
            "--reproducible", "--json", "-")
    plain = run(*args, env=env).stdout
    t0 = time.monotonic()
    out, tty = run_tty(args, env)
    took = time.monotonic() - t0
    eq("the same JSON with the progress line on", out, plain)
    cycles = [int(c) for c in re.findall(rb"cycle ([0-9]+)", tty)]
    # Redraws are at least 0.2 s apart and a slice takes at most about
    # 0.1 s, so a period of 0.3 s or more holds one (0.6 s each here; a
    # much faster machine skips the check).
    if took / 3 >= 0.3:
        check(f"redrawn inside sample periods ({took:.2f} s): cycles {cycles}", any(c % 30000 for c in cycles))


def case_help():
    for args in (("run", "--help"), ("sweep", "--help"), ("config", "--help")):
        p = run(*args)
        check(f"{' '.join(args)}: usage", p.stdout.decode().startswith(f"usage: netloom {args[0]}"))
        eq(f"{' '.join(args)}: stderr", p.stderr, b"")
    # Each help lists every option its command takes, and the exit
    # statuses (config's lacked -h and its statuses 1, 2 and 3).
    common = ("-c, --config", "-s, --set", "-h, --help", "Exit status: 0")
    opts = {"run": common + ("--json", "--csv", "--reproducible"),
            "sweep": common + ("--json", "--csv", "--reproducible", "--rates", "--continue", "--spread"),
            "config": common + ("--dump", "--json", "--keys", "--from-booksim", "\n3 ")}
    for cmd, names in opts.items():
        text = run(cmd, "--help").stdout.decode()
        for name in names:
            check(f"{cmd} --help lists {name!r}", name in text)
    # min's select=auto is dimension order on the whole untrunked HyperX
    # family (emu/route/min.c, docs/engine.md); the help named only
    # "HyperX/flatfly", and a hypercube or full graph user read "else hash".
    text = run("run", "--help").stdout.decode()
    check("run --help: min's select=auto names the HyperX family",
          "auto: first (dimension order) on the untrunked HyperX family (hyperx with every k = 1, flatfly, "
          "hypercube, full), else hash" in text)
    # replay's listed 0, 1 and 2, not the 3 of a timeline (--svg, --otf2)
    # not written after the report and --json were ('--svg /dev/full').
    text = run("replay", "--help").stdout.decode()
    check("replay --help lists exit status 3", "\n3 the report and --json" in text)
    # Its status 1 named a timeout, which no replay has, and of the
    # deadlocks only the flit network's, not the ranks' (docs/replay.md).
    check("replay --help: status 1 without a timeout", "timeout" not in text)
    check("replay --help: status 1 names the ranks' deadlock", "\n1 the replay failed: a deadlock, of the ranks" in text)
    # interfere's and the top-level help named a timeout too: no command
    # but serve (every rank evicted after --timeout-ms) has one.
    text = run("interfere", "--help").stdout.decode()
    check("interfere --help: status 1 without a timeout", "timeout" not in text)
    check("interfere --help: status 1 names the deadlock", "1 the run failed (a deadlock, out of memory)" in text)
    for cmd in ("run", "sweep"):
        text = run(cmd, "--help").stdout.decode()
        check(f"{cmd} --help: status 1 without a timeout", "timeout" not in text)
        check(f"{cmd} --help: status 1 names the deadlock",
              f"\n1 the {cmd} failed: a deadlock (reported, its JSON written), or --json could not be\n" in text)
        # Out of memory is 2 in run and sweep (run_exit_code, docs/results.md):
        # a network this machine cannot hold; the help listed it under 1.
        check(f"{cmd} --help: out of memory under status 2",
              "\n2 a bad command line or configuration (a network too large for the memory available\n"
              "  included: out of memory)" in text)
    text = " ".join(run("--help").stdout.decode().split())
    check("netloom --help: status 1 without a timeout but serve's", "a timeout" not in text and
          "1 the work failed (a deadlock, out of memory, an output that could not be written after the work; "
          "for serve also every rank evicted after its timeout)" in text)
    # Every command with options lists -h, --help among them (interfere's
    # and serve's did not, though both take it).
    for args in (("replay",), ("interfere",), ("serve",), ("cost",), ("layout",), ("compare",),
                 ("topo", "describe"), ("topo", "export"), ("design", "hyperx"), ("design", "equality")):
        text = run(*args, "--help").stdout.decode()
        check(f"{' '.join(args)} --help lists -h, --help", re.search(r"^  -h, --help +this text", text, flags=re.M))
    # --help prints the usage whatever follows it, in every command (replay
    # went on and refused the next word: 'replay --help --bogus', status 2).
    for args in (("run",), ("replay",), ("interfere",), ("serve",), ("cost",), ("compare",), ("topo", "describe")):
        want = run(*args, "--help").stdout
        for more in (("--bogus",), ("-s", "bogus=1")):
            eq(f"{' '.join(args)} --help {' '.join(more)}", run(*args, "--help", *more).stdout, want)
    # 'netloom help CMD' is 'netloom CMD --help'; it printed netloom's usage,
    # and ignored a command that does not exist.
    for args in (("help", "run"), ("--help", "sweep"), ("-h", "config"), ("help", "topo")):
        eq(f"netloom {' '.join(args)}", run(*args).stdout, run(args[1], "--help").stdout)
    one_line_error(run("help", "bogus", code=2), "netloom: unknown command 'bogus' (see 'netloom --help')")
    # Its extra word was refused as netloom's ("netloom: unexpected
    # argument"), not help's, where every command names itself.
    one_line_error(run("help", "run", "x", code=2),
                   "netloom help: unexpected argument 'x' after 'help run'; expected 'netloom run --help'")
    # 'netloom help topo describe' is 'netloom topo describe --help' (it was
    # refused, naming 'netloom topo --help'); an unknown subcommand is its
    # command's refusal.
    for args in (("topo", "describe"), ("design", "hyperx"), ("trace", "info")):
        eq(f"netloom help {' '.join(args)}", run("help", *args).stdout, run(*args, "--help").stdout)
    one_line_error(run("help", "topo", "nosuch", code=2), "netloom topo: unknown subcommand 'nosuch'")
    one_line_error(run("help", "topo", "describe", "x", code=2),
                   "netloom help: unexpected argument 'x' after 'help topo describe'; expected 'netloom topo describe "
                   "--help'")
    one_line_error(run("--help", "sweep", "x", code=2),
                   "netloom help: unexpected argument 'x' after '--help sweep'; expected 'netloom sweep --help'")
    # version took any arguments and printed the version (exit 0).
    check("version --help: usage", run("version", "--help").stdout.decode().startswith("usage: netloom version"))
    p = run("version", "--bogus", "extra", code=2)
    one_line_error(p, "netloom version: unknown option '--bogus' (see 'netloom version --help')")
    p = run("version", "extra", code=2)
    one_line_error(p, "netloom version: unexpected argument 'extra'")
    text = run("run", "--help").stdout.decode()
    # The default routing is the family's: the help said "dor" alone, and
    # 'run -s topology=fly:k=4' ran min.
    for cmd in ("run", "sweep"):
        check(f"{cmd} --help: default routing per family",
              "Defaults: torus:k=8x8, dor (min on topologies other than tori, meshes and the\ncmesh), uniform "
              "traffic at 0.1 flits/cycle/endpoint." in run(cmd, "--help").stdout.decode())
    head = run("run", "-s", "topology=fly:k=4", "-s", "sample_period=100").stdout.decode().split("\n")[0]
    check(f"fly's default routing is min: {head!r}", ", routing min:" in head)
    for name in ("dor", "valiant", "min", "uniform", "bitcomp", "bitrev", "shuffle", "transpose", "bitrot",
                 "hotspot", "randperm", "asymmetric", "neighbor", "tornado", "swap2"):
        check(f"run --help lists {name}", re.search(rf"^  {name} ", text, flags=re.M))
    # Every setting that lets a function deadlock says so in its help
    # (min:classes=none did not: torus:k=4x4, num_vcs=1, vc_buf_size=1
    # deadlocks at cycle 306).
    warnings = {"dor": ("dateline", "which can deadlock a torus"),
                "duato": ("dateline", "can close a cycle"),
                "min": ("classes", "none (every VC on every hop, which can deadlock"),
                "min_anynet": ("classes", "every VC on every hop, which can deadlock"),
                "ugal": ("mode", "so it can deadlock")}
    for name, (key, needle) in warnings.items():
        block = re.search(rf"^  {name} .*?(?=^  \S)", text, flags=re.M | re.S)
        line = re.search(rf"^      {key} .*$", block.group(0) if block else "", flags=re.M)
        check(f"run --help: {name}:{key} warns '{needle}'", line and needle in line.group(0))


def case_option_prefixes():
    """A long option abbreviated to the start of several (the commands' own,
    from their --help) is said to be ambiguous, naming them: it was
    reported as an unknown option, which getopt_long users read as a
    misspelling. run, sweep and config, read without getopt_long, take a
    unique abbreviation as the others do (they refused every one)."""
    for args, msg in (
            (("replay", "--s", "x"), "netloom replay: option '--s' is ambiguous (--set, --svg)"),
            (("sweep", "--s", "x"), "netloom sweep: option '--s' is ambiguous (--set, --spread)"),
            (("sweep", "--r=0.1:0.1:0.1"), "netloom sweep: option '--r' is ambiguous (--reproducible, --rates)"),
            (("serve", "--m", "1"), "netloom serve: option '--m' is ambiguous (--max-lag-ms, --messages, --max-payload)"),
            (("topo", "describe", "--s", "torus:k=4"),
             "netloom topo describe: option '--s' is ambiguous (--seed, --sampled, --samples)"),
            (("layout", "--l", "x", "torus:k=4"), "netloom layout: option '--l' is ambiguous (--layout, --longest, --lengths)"),
            (("config", "--c"), "netloom config: option '--c' is ambiguous (--config, --check)"),
            (("config", "--co"), "netloom config: option '--config' needs a value"),
            # The rest of getopt_long's complaints, each naming the option
            # as given or in full: '--bis=3' was an unknown option, '-xq'
            # named the word before it, '--o' lacked its full name.
            (("topo", "describe", "--bis=3", "torus:k=4"),
             "netloom topo describe: option '--bisection' takes no value (got '--bis=3')"),
            (("serve", "--ranks", "2", "-xq"), "netloom serve: unknown option '-x' (see 'netloom serve --help')"),
            (("replay", "--o"), "netloom replay: option '--otf2' needs a value"),
            (("compare", "--x"), "netloom compare: unknown option '--x' (see 'netloom compare --help')"),
            (("run", "--jsn", "x"), "netloom run: unknown option '--jsn' (did you mean '--json'? see 'netloom run --help')")):
        p = run(*args, code=2)
        one_line_error(p, msg)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.json")
        run("run", *SMALL, "--rep", f"--js={out}")
        d = json.load(open(out))
        eq("run --rep: wall_seconds", d["results"]["wall_seconds"], 0)
        p = run("sweep", *SMALL, "--ra", "0.1:0.2:0.1", "--sp=points", "--cs")
        eq("sweep --ra, --sp=, --cs rows", len(p.stdout.decode().splitlines()), 3)
        eq("config --se num_vcs=3 --j", run_json("config", "--se", "num_vcs=3", "--j")["num_vcs"], 3)


def case_option_forms():
    """run, sweep and config, read without getopt_long, take the forms the
    other commands take from it: -cFILE and -sKEY=VAL (refused as unknown
    options '-cFILE'), and '--' ending the options (refused as an unknown
    option '--'); they take no arguments, so a word after '--' is refused."""
    with tempfile.TemporaryDirectory() as tmp:
        ini = os.path.join(tmp, "my.ini")
        write(ini, "topology = mesh:k=4x4\nnum_vcs = 2\nsample_period = 300\n")
        want = run("run", "-c", ini, "-s", "injection_rate=0.2", "--reproducible").stdout
        for args in ((f"-c{ini}", "-sinjection_rate=0.2", "--reproducible"),
                     ("-c", ini, "-s", "injection_rate=0.2", "--reproducible", "--")):
            eq(f"run {' '.join(args)}", run("run", *args).stdout, want)
        want = run("sweep", "-c", ini, "--rates", "0.1:0.2:0.1", "--csv", "--reproducible").stdout
        eq("sweep -cFILE ... --", run("sweep", f"-c{ini}", "--rates", "0.1:0.2:0.1", "--csv", "--reproducible",
                                     "--").stdout, want)
        eq("config -snum_vcs=3 --json --", run_json("config", "-snum_vcs=3", "--json", "--")["num_vcs"], 3)
        for args, msg in ((("run", "--", "-c", ini), "netloom run: unexpected argument '-c' after '--'"),
                          (("sweep", "-c", ini, "--rates", "0.1:0.1:0.1", "--", "x"),
                           "netloom sweep: unexpected argument 'x' after '--'"),
                          (("config", "--", "--keys"), "netloom config: unexpected argument '--keys' after '--'")):
            p = run(*args, code=2)
            one_line_error(p, msg)
    # version and topo list, read without getopt_long too, alike ('topo
    # list --bogus' said "unexpected argument").
    eq("version --", run("version", "--").stdout, run("version").stdout)
    eq("topo list --", run("topo", "list", "--").stdout, run("topo", "list").stdout)
    one_line_error(run("topo", "list", "--bogus", code=2),
                   "netloom topo list: unknown option '--bogus' (see 'netloom topo list --help')")
    one_line_error(run("topo", "list", "--", "x", code=2), "netloom topo list: unexpected argument 'x' after '--'")


def case_trace_option_forms():
    """trace's subcommands take their options as the getopt_long commands
    do: '--opt=value', a unique abbreviation, -oFILE and '--' ending the
    options. Each was refused as an unknown option ('--rank=1', '--js',
    '--output=X', '--otf2=D', '--')."""
    trace = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "samples",
                         "pingpong-2.nlt")
    meta = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "traces", "dumpi",
                        "testbgp.meta")
    want = run("trace", "dump", trace, "--rank", "1").stdout
    for args in (("--rank=1",), ("--ra", "1"), ("--r=1",)):
        eq(f"trace dump {' '.join(args)}", run("trace", "dump", trace, *args).stdout, want)
    want = run("trace", "info", trace, "--json").stdout
    eq("trace info --js", run("trace", "info", trace, "--js").stdout, want)
    eq("trace info -- FILE", run("trace", "info", "--", trace).stdout, run("trace", "info", trace).stdout)
    eq("trace info --he", run("trace", "info", "--he").stdout, run("trace", "info", "--help").stdout)
    with tempfile.TemporaryDirectory() as tmp:
        for i, args in enumerate((("--output=%s",), ("--out", "%s"), ("-o%s",))):
            out = os.path.join(tmp, f"i{i}.nlt")
            run("trace", "import", meta, *(a.replace("%s", out) for a in args))
            check(f"trace import {args[0]}: {out} written", os.path.isfile(out))
        for i, args in enumerate((("--otf2=%s",), ("--ot", "%s"))):
            out = os.path.join(tmp, f"x{i}.otf2")
            run("trace", "export", trace, *(a.replace("%s", out) for a in args))
            check(f"trace export {args[0]}: {out} made", os.path.isfile(os.path.join(out, "traces.otf2")))
        ini = os.path.join(tmp, "system.ini")
        write(ini, "topology = mesh:k=4x4\n")
        out = os.path.join(tmp, "b.nlb")
        eq("trace pack --conf=INI", run("trace", "pack", out, trace, f"--conf={ini}").stdout.decode(),
           f"{out}: 1 trace + config\n")
        for args, msg in (
                (("info", trace, "--json=1"),
                 "netloom trace info: option '--json' takes no value (got '--json=1') (usage: netloom trace info "
                 "FILE [--json])"),
                (("dump", trace, "--ra"),
                 "netloom trace dump: option '--rank' needs a value (usage: netloom trace dump FILE [--rank R])"),
                (("dump", trace, "--rank=x"),
                 "netloom trace dump: --rank 'x': expected a rank number (usage: netloom trace dump FILE [--rank R])"),
                (("import", meta, "--output=a.nlt", "--out", "b.nlt"),
                 "netloom trace import: option '--output' given twice (usage: netloom trace import IN -o OUT.nlt)"),
                (("import", meta, "-oa.nlt", "-o", "b.nlt"),
                 "netloom trace import: option '-o' given twice (usage: netloom trace import IN -o OUT.nlt)"),
                (("export", trace, "--otf2=a", "--otf2=b"),
                 "netloom trace export: option '--otf2' given twice (usage: netloom trace export FILE --otf2 DIR)"),
                # A required option left out is named with what it takes,
                # as serve's --ranks is ("missing arguments" said neither).
                (("import", meta),
                 "netloom trace import: -o OUT.nlt is required, the archive to write (usage: netloom trace import "
                 "IN -o OUT.nlt)"),
                (("import", "-o", "a.nlt"),
                 "netloom trace import: missing IN, the trace to import (usage: netloom trace import IN -o OUT.nlt)"),
                (("export", trace),
                 "netloom trace export: --otf2 DIR is required, a new directory to write the OTF2 archive to "
                 "(usage: netloom trace export FILE --otf2 DIR)"),
                (("export", "--otf2", "d"),
                 "netloom trace export: missing FILE, the archive to export (usage: netloom trace export FILE "
                 "--otf2 DIR)"),
                (("encode",),
                 "netloom trace encode: missing TEXT, the text trace to encode (usage: netloom trace encode TEXT "
                 "OUT.nlt)"),
                (("convert", meta),
                 "netloom trace convert: missing OUT.nlt, the archive to write (usage: netloom trace convert IN "
                 "OUT.nlt)"),
                (("unpack", out),
                 "netloom trace unpack: missing DIR, the directory to unpack it into (made if missing) (usage: "
                 "netloom trace unpack BUNDLE DIR)"),
                (("verify", "-x", trace),
                 "netloom trace verify: unknown option '-x' (usage: netloom trace verify FILE)"),
                (("info", "--", trace, "x"),
                 "netloom trace info: unexpected argument 'x' (usage: netloom trace info FILE [--json])")):
            one_line_error(run("trace", *args, code=2), msg)
        check("refused options wrote nothing", sorted(os.listdir(tmp)) ==
              ["b.nlb", "i0.nlt", "i1.nlt", "i2.nlt", "system.ini", "x0.otf2", "x1.otf2"])


def case_directory_inputs():
    """A directory given where a file is read: one line saying so, exit 2,
    nothing written. fopen opens a directory and only its first read
    fails, which read as 'cannot read config file' (no reason), 'larger
    than 64 KiB, not a BookSim config', 'unknown trace format', or an
    empty study/tokens file."""
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "adir")
        os.mkdir(d)
        out = os.path.join(tmp, "out")
        cases = [
            (("config", "--from-booksim", d), "is a directory, not a BookSim config"),
            (("run", "-c", d), "is a directory, not a config file"),
            (("sweep", "-c", d, "--rates", "0.1:0.2:0.1"), "is a directory, not a config file"),
            (("config", "-c", d), "is a directory, not a config file"),
            (("replay", d), "is a directory, not a trace file (an OTF2 archive is given by its anchor file, NAME.otf2, or the directory holding traces.otf2)"),
            (("trace", "convert", d, out), "is a directory, not a trace file"),
            (("trace", "import", d, "-o", out), "is a directory, not a trace file"),
            (("trace", "encode", d, out), "is a directory, not a text trace"),
            (("trace", "unpack", d, out), "is a directory, not a netloom bundle"),
            (("compare", d, "-o", out), "is a directory, not a study file"),
            (("serve", "--ranks", "2", "--tokens", d), "--tokens: " + d + ": is a directory, not a tokens file"),
            # As replay says it (they said "not a regular file").
            (("serve", "--ranks", "2", "--listen", "ipc://" + os.path.join(tmp, "s"), "--trace", d),
             "--trace: " + d + ": is a directory, not a trace file"),
            (("trace", "info", d), "is a directory, not a trace file"),
            (("interfere", d, "-c", d), "is a directory, not a config file"),
        ]
        for args, needle in cases:
            p = run(*args, code=2)
            one_line_error(p, d + ": " + needle if not needle.startswith("--") else needle)
            check(f"{' '.join(args)}: nothing written", not os.path.exists(out))
        # An empty name likewise: it read ": cannot open WHAT: No such file
        # or directory", the name shown as nothing.
        for args, what in ((("config", "--from-booksim", ""), "BookSim config"),
                           (("replay", "x.nlt", "-c", ""), "config file"),
                           (("compare", "", "-o", out), "study file"),
                           (("serve", "--ranks", "2", "--tokens", ""), "tokens file"),
                           (("interfere", "", "-s", "topology=torus:k=4x4", "-s", "link_model=links"), "workload file")):
            p = run(*args, code=2)
            one_line_error(p, f"'': empty file name; expected a {what} to read")
            check(f"{' '.join(args)}: nothing written", not os.path.exists(out))


def case_special_inputs():
    """A FIFO given where a trace is read, or in place of a DUMPI or SimGrid
    rank file, and a directory in place of a rank file: one line saying
    what the file is, exit 2, at once. The commands opened a FIFO and
    waited for a writer forever; a rank file that was a directory or a
    FIFO was 'not found'."""
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "traces")
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "f")
        os.mkfifo(fifo)
        out = os.path.join(tmp, "out")
        for args, what in ((("trace", "import", fifo, "-o", out), "trace file"),
                           (("trace", "convert", fifo, out), "trace file"),
                           (("trace", "info", fifo), "trace file"),
                           (("trace", "dump", fifo), "trace file"),
                           (("trace", "verify", fifo), "trace file"),
                           (("trace", "export", fifo, "--otf2", out), "trace file"),
                           (("trace", "pack", out, fifo), "trace file"),
                           (("trace", "unpack", fifo, out), "netloom bundle"),
                           (("replay", fifo), "trace file")):
            p = run(*args, code=2, timeout=20)
            one_line_error(p, f"{fifo}: is not a regular file (a FIFO), not a {what}")
            check(f"{' '.join(args)}: nothing written", not os.path.exists(out))
        # pack's --config, read twice (checked, then packed).
        sample = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "samples",
                              "pingpong-2.nlt")
        p = run("trace", "pack", out, sample, "--config", fifo, code=2, timeout=20)
        one_line_error(p, f"netloom trace pack: --config: {fifo}: is not a regular file (a FIFO); expected the system "
                          "configuration's file")
        check("pack --config FIFO: nothing written", not os.path.exists(out))
        # A DUMPI trace whose rank 2 file is a directory, then a FIFO.
        dumpi = os.path.join(tmp, "dumpi")
        os.mkdir(dumpi)
        for name in ("testtrace.meta", "testtrace-0000.bin", "testtrace-0001.bin", "testtrace-0003.bin"):
            with open(os.path.join(data, "dumpi", name), "rb") as src, open(os.path.join(dumpi, name), "wb") as dst:
                dst.write(src.read())
        meta = os.path.join(dumpi, "testtrace.meta")
        rank2 = os.path.join(dumpi, "testtrace-0002.bin")
        import_refuses_kinds(meta, out, rank2, "dumpi", lambda kind: f"{meta}: rank 2's file '{rank2}' {kind}, "
                             "not a DUMPI rank file")
        # A SimGrid index whose rank 1 file is a directory, then a FIFO.
        sg = os.path.join(tmp, "sg")
        os.mkdir(sg)
        index = os.path.join(sg, "index")
        with open(index, "w") as f:
            f.write("actions0.txt\nactions1.txt\n")
        with open(os.path.join(data, "simgrid", "replay", "actions0.txt"), "rb") as src, \
                open(os.path.join(sg, "actions0.txt"), "wb") as dst:
            dst.write(src.read())
        rank1 = os.path.join(sg, "actions1.txt")
        import_refuses_kinds(index, out, rank1, "simgrid", lambda kind: f"{index}:2: rank 1 trace "
                             f"'{sg}/actions1.txt' {kind}, not a SimGrid trace file")



def import_refuses_kinds(trace, out, rank_file, label, want):
    """`trace import TRACE -o OUT` with rank_file a directory, then a FIFO:
    refused at once with want(kind), nothing written."""
    for make, kind in ((os.mkdir, "is a directory"), (os.mkfifo, "is not a regular file (a FIFO)")):
        make(rank_file)
        p = run("trace", "import", trace, "-o", out, code=2, timeout=20)
        one_line_error(p, want(kind))
        check(f"{label} rank file {kind}: nothing written", not os.path.exists(out))
        os.rmdir(rank_file) if make is os.mkdir else os.unlink(rank_file)

if __name__ == "__main__":
    main(globals())
