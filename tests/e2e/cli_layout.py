#!/usr/bin/env python3
"""End-to-end checks of `netloom cost` and `netloom layout` (docs/layout.md).

Usage: cli_layout.py NETLOOM CASE. Exit 0 pass, 1 fail.
"""
import os
import subprocess
import tempfile

from clitest import run_tty, ENV, NETLOOM, Fail, check, eq, main, near, one_line_error, run, run_json, disk_full_at_64k, sigterm_while_staged


def case_table6():
    # FleX Table 6 (seed 000 §IV-A) with the flex preset and each family's
    # packaging rule: structure and power exact, cost within 10%.
    # fill: the fullest cabinet's modules, as docs/layout.md states them
    # (it said FleX's racks hold 60 to 126; FleX's hold 66, dragonfly's 40).
    rows = (("fattree:k=10,n=3", 300, 20, 2000, 6.88e6, None, 120),
            ("dragonfly:a=8,p=4,h=4", 264, 15, 1452, 5.16e6, 11088, 40),
            ("hyperx:s=10x10,k=1x1,t=10", 100, 28, 900, 2.75e6, 7840, 110),
            ("slimfly:q=9,p=6", 162, 19, 1053, 3.48e6, 8618.4, 126),
            ("flex:nx=6,ny=6,nz=3,p=10", 108, 30, 1080, 3.05e6, 9072, 66))
    for spec, routers, radix, links, cost, power, fill in rows:
        # HyperX and FleX keep their rule's floor order: nothing to anneal.
        budget = () if spec.startswith(("hyperx", "flex")) else ("--iterations", "100000")
        d = run_json("cost", spec, "--json", "-", *budget)
        eq(f"{spec} routers", d["routers"], routers)
        eq(f"{spec} fullest cabinet (docs/layout.md)", d["cabinets"]["max_units"], fill)
        eq(f"{spec} radix", d["radix"], radix)
        eq(f"{spec} links", d["links"], links)
        if power is not None:
            near(f"{spec} power", d["power_w"], power, 1e-6)
        rel = d["cost_usd"]["total"] / cost - 1
        check(f"{spec}: cost {d['cost_usd']['total']:.0f} vs {cost:.0f} ({100 * rel:+.1f}%)", abs(rel) <= 0.10)
        eq(f"{spec} classes sum", sum(c["cables"] for c in d["length_classes"]), links)


def case_reproducible():
    a = run("cost", "torus:k=8x8x4", "--json", "-", "--layout", "anneal", "--seed", "3").stdout
    b = run("cost", "torus:k=8x8x4", "--json", "-", "--layout", "anneal", "--seed", "3").stdout
    eq("same seed, same bytes", a, b)
    # Every output of an annealed layout records its seed, whose placement
    # differs from another seed's (--json had the iterations and trials
    # only, the text and the --lengths header none of them).
    spec = "dln:n=64,d=4"
    j7, j8 = (run_json("cost", spec, "--seed", s, "--iterations", "100", "--trials", "1", "--json", "-")
              for s in ("7", "8"))
    check("seeds 7 and 8 price differently", j7["length_m"] != j8["length_m"])
    eq("json seed", (j7["seed"], j8["seed"]), (7, 8))
    # One trial is "1 trial" (the text said "1 trials"), one move "1 move".
    check("1 trial", "annealed (1 move x 1 trial, seed 1, best trial 0)" in
          run("cost", spec, "--iterations", "1", "--trials", "1").stdout.decode())
    check("text seed", "(1000000 moves x 5 trials, seed 7, best trial" in run("cost", spec, "--seed", "7").stdout.decode())
    with tempfile.TemporaryDirectory() as d:
        lens = os.path.join(d, "l.len")
        run("layout", spec, "--seed", "7", "--iterations", "1000", "--lengths", lens)
        eq("lengths header", open(lens).readline(), "# dln:n=64,d=4,p=1,seed=1 preset=flex rule=canonical "
           "layout_iterations=1000 layout_trials=5 layout_seed=7: router port router port metres\n")
        run("layout", "torus:k=4x4", "--lengths", lens)
        eq("no annealing, no seed", open(lens).readline(),
           "# torus:k=4x4,p=1 preset=flex rule=canonical: router port router port metres\n")
        # The header holds every [layout] key a replay needs beyond its
        # defaults for the same cables: it gave the annealing's alone, so
        # a replay given them packed hypercube:n=8 in 16 cabinets of 16
        # (2,572.8 m) where --per-cabinet 4 had 64 (4,211.2 m), annealed
        # hypercube:n=8 laid out in rule order, and refused flex's
        # (layout_iterations without layout_placement = anneal).
        for args, keys in ((("hypercube:n=8", "--per-cabinet", "4", "--iterations", "10"),
                            "rule=canonical layout_per_cabinet=4 layout_iterations=10 layout_trials=5 layout_seed=1"),
                           (("hypercube:n=8", "--layout", "rule"), "rule=canonical layout_placement=rule"),
                           (("hypercube:n=6", "--per-cabinet", "8", "--layout", "rule"),
                            "rule=canonical layout_placement=rule"),
                           (("flex:nx=3,ny=3,nz=3,p=2", "--layout", "anneal", "--iterations", "10"),
                            "rule=flex-fig7 layout_placement=anneal layout_iterations=10 layout_trials=5 layout_seed=1"),
                           (("torus:k=8x8", "--pack", "canonical", "--per-cabinet", "4", "--layout", "rule"),
                            "rule=canonical layout_placement=rule layout_per_cabinet=4"),
                           (("flex:nx=3,ny=3,nz=3,p=2",), "rule=flex-fig7")):
            run("layout", *args, "--lengths", lens)
            head = open(lens).readline()
            eq(f"lengths header of {' '.join(args)}", head[head.index(" preset=flex ") + 13:],
               keys + ": router port router port metres\n")
    # A JSON integer holds the seed recorded (--seed 2^64 - 1 was taken).
    j = run_json("cost", spec, "--seed", "9200000000000000000", "--iterations", "10", "--json", "-")
    eq("largest seed recorded", j["seed"], 9200000000000000000)
    one_line_error(run("cost", spec, "--seed", "18446744073709551615", code=2),
                   "--seed: expected an integer in 0..9200000000000000000, got '18446744073709551615'")
    # A long annealing shows its progress on a terminal (trial, moves, ETA),
    # cleared at the end; nothing when stderr is not a terminal. The first
    # line comes after 0.2 s: 2 x 1.5 x 10^6 moves took 0.18 s once the
    # delta loop stopped dividing, so the budget is 2 x 5 x 10^6 (0.6 s).
    # One thread names its trial and move; on two, the caller's thread
    # draws the trials done over all of them (and keeps drawing while the
    # other finishes).
    env = {k: v for k, v in os.environ.items() if k != "NETLOOM_PROGRESS"}
    for threads, said in (("1", b"trial 1/2, move "), ("2", b"/2 trials done, 2 threads")):
        args = ("cost", "torus:k=4x4x4x4x4", "--layout", "anneal", "--iterations", "5000000", "--trials", "2",
                "--threads", threads, "--json", "-")
        eq(f"stderr when not a terminal, {threads} thread(s)", run(*args, env=env).stderr, b"")
        out, tty = run_tty(args, env)
        check(f"annealing progress on a terminal, {threads} thread(s): {tty[:200]!r}",
              b"annealing: " in tty and said in tty)
        check("line cleared at the end", tty.endswith(b"\r\x1b[K"))
        eq("stdout unchanged", out, run(*args).stdout)


def case_threads():
    # The trials on threads give one thread's bytes: the same best trial,
    # placement, lengths and JSON for any --threads (0 = one per processor,
    # more than the trials included). On the 5D torus at 10^4 moves x 7
    # trials the shortest is trial 4; on the dragonfly trials tie and the
    # earliest, 0, is kept (tests/unit/test_layout.c).
    for spec, iters, trials, best in (("torus:k=4x4x4x4x4", "10000", "7", 4),
                                      ("dragonfly:a=8,p=4,h=4", "3000", "8", 0)):
        base = ("cost", spec, "--layout", "anneal", "--iterations", iters, "--trials", trials)
        one = run(*base, "--threads", "1", "--json", "-").stdout
        eq(f"{spec}: best trial", run_json(*base, "--threads", "1", "--json", "-")["best_trial"], best)
        for t in ("2", "3", "4", "5", "8", "0"):
            eq(f"{spec}: --json - with --threads {t} against 1", run(*base, "--threads", t, "--json", "-").stdout, one)
        eq(f"{spec}: --json - with no --threads", run(*base, "--json", "-").stdout, one)
        eq(f"{spec}: text with --threads 4 against 1", run(*base, "--threads", "4").stdout,
           run(*base, "--threads", "1").stdout)
        lay = ("layout", spec, "--layout", "anneal", "--iterations", iters, "--trials", trials, "--lengths", "-")
        eq(f"{spec}: --lengths with --threads 3 against 1", run(*lay, "--threads", "3").stdout,
           run(*lay, "--threads", "1").stdout)
    # Bad values: one line naming the option and the value, nothing run.
    for cmd, out in (("cost", ()), ("layout", ("--lengths", "-"))):
        for v in ("1025", "-1", "x", ""):
            one_line_error(run(cmd, "dragonfly:a=4,p=2,h=2", "--threads", v, *out, code=2),
                           f"netloom {cmd}: --threads: expected an integer in 0..1024, got '{v}'")
    # The key, as every [layout] key: its name and value.
    one_line_error(run("config", "-s", "layout_threads=1025", code=2),
                   "netloom config: -s: key 'layout_threads': value '1025': out of range: expected a value in 0..1024")


def case_outputs():
    with tempfile.TemporaryDirectory() as d:
        svg, lens, js = (os.path.join(d, n) for n in ("f.svg", "f.len", "f.json"))
        run("layout", "flex:nx=6,ny=6,nz=3,p=10", "--svg", svg, "--longest", "5", "--lengths", lens)
        text = open(svg).read()
        check("svg document", text.startswith("<?xml") and text.rstrip().endswith("</svg>"))
        eq("cabinets drawn", text.count("<rect ") - 1, 18)
        eq("cables drawn", text.count("<polyline "), 5)
        lines = open(lens).read().splitlines()
        eq("one line per link", len(lines), 1 + 1080)
        # The drawn cables are the longest, longest first (they are kept in
        # a heap of --longest entries, not picked from a sort of all).
        import re
        drawn_m = [float(x) for x in re.findall(r"<title>routers \d+-\d+: ([0-9.]+) m</title>", text)]
        top = sorted((float(x.split()[4]) for x in lines[1:]), reverse=True)[:5]
        eq("drawn: the 5 longest, longest first", drawn_m, [round(x, 2) for x in top])
        near("mean length (Fig. 7: 7/6 0.6 + 4/3 2.1 + 2)", sum(float(x.split()[4]) for x in lines[1:]) / 1080,
             5.5, 1e-9)
        out = run("cost", "dragonfly:a=4,p=2,h=2", "--json", js).stdout.decode()
        check("text report alongside --json FILE", "cost " in out and "power " in out)
        eq("json written", run_json("cost", "dragonfly:a=4,p=2,h=2", "--json", "-")["routers"], 36)
        eq("file has it", __import__("json").load(open(js))["routers"], 36)
        # One cabinet is "1 cabinet", in the text and the plan's title.
        one = run("cost", "torus:k=4x4", "--layout", "rule").stdout.decode()
        check("1 cabinet: cost text", "canonical: 1 cabinet, floor 1 x 1," in one)
        check("18 cabinets: cost text", "flex-fig7: 18 cabinets, floor" in run("cost", "flex:nx=6,ny=6,nz=3,p=10").stdout.decode())
        run("layout", "torus:k=4x4", "--layout", "rule", "--svg", svg)
        check("1 cabinet: plan title", ">1 cabinet (canonical, rule order)" in open(svg).read())
        check("18 cabinets: plan title", ">18 cabinets (flex-fig7" in text)
        # One cabinet anneals nothing: the text claimed 1000000 moves x 5 trials.
        auto = run("cost", "torus:k=4x4").stdout.decode()
        check("1 cabinet: nothing annealed", "canonical: 1 cabinet, floor 1 x 1, one cabinet, nothing to anneal\n" in auto)
        check("18 cabinets annealed", "annealed (1000" in run("cost", "dragonfly:a=8,p=4,h=4", "--iterations", "1000",
                                                             "--trials", "1").stdout.decode())
        # --iterations 0 moves nothing ("no annealing", docs/layout.md): the
        # text said "annealed (0 moves x 5 trials ...)" and the JSON true.
        zero = run("cost", "dln:n=64,d=4", "--iterations", "0").stdout.decode()
        check(f"0 moves: cost text {zero[:300]!r}",
              "canonical: 8 cabinets, floor 3 x 3, not annealed (0 moves), row-major on the square grid\n" in zero)
        d = run_json("cost", "dln:n=64,d=4", "--iterations", "0", "--json", "-")
        eq("0 moves: JSON", (d["placement"], d["annealed"], d["iterations"]), ("anneal", False, 0))
        run("layout", "dln:n=64,d=4", "--iterations", "0", "--svg", svg)
        check("0 moves: plan title", ">8 cabinets (canonical, 0 annealing moves), red:" in open(svg).read())
        head = run("layout", "dln:n=64,d=4", "--iterations", "0", "--lengths", "-").stdout.decode().split("\n")[0]
        check(f"0 moves: --lengths header keeps the keys {head!r}", " layout_iterations=0 layout_trials=5 layout_seed=1:" in head)
        run("layout", "torus:k=4x4", "--svg", svg)
        check("1 cabinet: plan title, auto", ">1 cabinet (canonical, nothing to anneal), red:" in open(svg).read())
        # --longest 0 draws no cable: the title said "the 0 longest".
        run("layout", "flex:nx=6,ny=6,nz=3,p=10", "--svg", svg, "--longest", "0")
        drawn = open(svg).read()
        check("--longest 0 title", "flex-fig7, rule order), 1080 cables, none drawn</text>" in drawn)
        # One cable is "1 cable" (the title said "the 1 longest of 1 cables").
        run("layout", "dragonfly:a=1,p=1,h=1", "--svg", svg)
        check("1 cable title", "annealed), red: the 1 longest of 1 cable</text>" in open(svg).read())
        run("layout", "full:n=2", "--svg", svg, "--longest", "0")
        check("1 cable, none drawn", "rule order), 1 cable, none drawn</text>" in open(svg).read())
        eq("--longest 0 draws none", drawn.count("<polyline "), 0)
    # Money to the cent and lengths to the micrometre in --json: 2 terminal
    # cables of 39.40 $ read 78.79999999999998, 5 of 1.04445 m
    # 5.222250000000001 m (docs/layout.md).
    d = run_json("cost", "fattree:k=2,n=1", "--preset", "besta", "--json", "-")
    eq("besta terminal cables $", (d["cost_usd"]["terminal_cables"], d["cost_usd"]["total"]), (78.8, 78.8))
    d = run_json("cost", "full:n=5", "--preset", "equality", "--json", "-")
    eq("equality terminal length", d["terminal_length_m"], 5.22225)
    for spec, preset in (("full:n=5", "equality"), ("dragonfly:a=4,h=2,p=2", "flex"), ("torus:k=6x6", "equality"),
                         ("slimfly:q=5,p=3", "besta"), ("hyperx:s=4x4,t=2", "fujiwara")):
        d = run_json("cost", spec, "--preset", preset, "--json", "-")
        for k, v in d["cost_usd"].items():
            if k != "router_price_floored":
                eq(f"{spec} {preset} cost_usd.{k} to the cent", v, round(v, 2))
        for k in ("length_m", "max_length_m", "copper_length_m", "fibre_length_m", "terminal_length_m"):
            eq(f"{spec} {preset} {k} to the micrometre", d[k], round(d[k], 6))


def case_errors():
    one_line_error(run("cost", code=2), "missing topology SPEC")
    # Every option error of cost and layout names the command, as run's,
    # replay's and topo's do (--preset, --pack, --radix and --per-cabinet
    # said 'netloom: ...', --iterations 'netloom cost: ...').
    for opts, said in ((("--iterations", "x"), "--iterations: expected an integer"),
                       (("--preset", "nosuch"), "--preset: unknown cost preset 'nosuch'"),
                       (("--pack", "nosuch"), "--pack: unknown packaging rule 'nosuch'"),
                       (("--pack", "flex-fig7"), "--pack: rule 'flex-fig7' does not apply"),
                       (("--radix", "4"), "--radix: value 4: expected at least 5"),
                       (("--per-cabinet", "2"), "--per-cabinet 2: only the canonical rule takes it")):
        spec = "dragonfly:a=4,p=2,h=2" if opts[0] == "--per-cabinet" else "torus:k=4x4"
        for cmd, out in (("cost", ()), ("layout", ("--lengths", "-"))):
            p = run(cmd, spec, *opts, *out, code=2)
            one_line_error(p, f"netloom {cmd}: {said}")
    one_line_error(run("cost", "torus:k=4x4", "--preset", "nosuch", code=2), "unknown cost preset 'nosuch'")
    one_line_error(run("cost", "torus:k=4x4", "--pack", "flex-fig7", code=2), "does not apply")
    one_line_error(run("cost", "torus:k=4x4", "--layout", "foo", code=2), "--layout")
    one_line_error(run("cost", "torus:k=4x4", "--trials", "0", code=2), "--trials")
    # A budget past an hour of work is refused before the annealing: 2^40
    # moves (the range's top) x 5 trials on 8 cabinets ran for about 90
    # hours of CPU; seed 003's 10^8 x 5 on torus:k=4x4x4x4x4 fits.
    for cmd, out in (("cost", ()), ("layout", ("--lengths", "-"))):
        p = run(cmd, "dln:n=64,d=4", "--layout", "anneal", "--iterations", "1099511627776", *out, code=2, timeout=30)
        one_line_error(p, f"netloom {cmd}: annealing: 1099511627776 moves x 5 trials on 8 cabinets (22 steps a move")
        one_line_error(p, "about 336 hours of work at 1e+08 steps a second; expected at most 3.6e+11 (about 60 "
                          "minutes): 3272727272 moves a trial or fewer")
    trace = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "samples", "lammps-lj-8.nlt")
    p = run("replay", trace, "-s", "topology=dln:n=64,d=4",
            "-s", "cable_latency=1", "-s", "layout_placement=anneal", "-s", "layout_trials=1000", "-s",
            "layout_iterations=100000000", code=2, timeout=30)
    one_line_error(p, "netloom replay: annealing: 100000000 moves x 1000 trials on 8 cabinets")
    one_line_error(run("cost", "nosuch:k=1", code=2), "unknown topology 'nosuch'")
    one_line_error(run("cost", "slimfly:q=9,p=6", "--radix", "18", code=2), "--radix: value 18: expected at least 19")
    # layout takes cost's options: a part too small for the routers, which
    # cost refuses, was accepted (exit 0, the plan drawn).
    with tempfile.TemporaryDirectory() as d:
        svg = os.path.join(d, "r.svg")
        one_line_error(run("layout", "slimfly:q=9,p=6", "--radix", "18", "--svg", svg, code=2),
                       "--radix: value 18: expected at least 19")
        eq("nothing written", os.listdir(d), [])
        run("layout", "slimfly:q=9,p=6", "--radix", "20", "--svg", svg)
    one_line_error(run("layout", "torus:k=4x4", code=2), "--svg")
    # An output's value left out: the option took the next one for its
    # file, and the argument left over was reported ("unexpected argument
    # 'besta'", "unexpected argument 'l.len'"), not the option at fault.
    for args, opt, taken in ((("cost", "torus:k=4x4", "--json", "--preset", "besta"), "--json", "--preset"),
                             (("layout", "torus:k=4x4", "--svg", "--lengths", "l.len"), "--svg", "--lengths"),
                             (("layout", "torus:k=4x4", "--lengths", "--svg", "a.svg"), "--lengths", "--svg")):
        one_line_error(run(*args, code=2),
                       f"netloom {args[0]}: {opt} '{taken}': an option, not a file name (a value left out?); "
                       f"expected a file to write (./{taken} for a file of that name)")
    # A second SPEC said only "unexpected argument 'X'".
    for args in (("cost", "torus:k=4", "torus:k=8"), ("layout", "torus:k=4", "torus:k=8", "--svg", "a.svg")):
        one_line_error(run(*args, code=2),
                       f"netloom {args[0]}: unexpected argument 'torus:k=8' after SPEC; expected one SPEC (options "
                       "begin with '-')")
    # --list-presets listed and exited 0 whatever else the line said.
    one_line_error(run("cost", "--list-presets", "extra", code=2),
                   "netloom cost: unexpected argument 'extra' with --list-presets")
    one_line_error(run("cost", "--list-presets", "--seed", "5", code=2),
                   "netloom cost: --list-presets prints the presets alone; expected no other option with it")
    # --per-cabinet was ignored unless the rule is canonical.
    one_line_error(run("cost", "dragonfly:a=4,p=2,h=2", "--per-cabinet", "2", code=2),
                   "--per-cabinet 2: only the canonical rule takes it")
    eq("--per-cabinet with --pack canonical",
       run_json("cost", "dragonfly:a=4,p=2,h=2", "--pack", "canonical", "--per-cabinet", "2", "--json", "-")
       ["cabinets"]["count"], 18)
    # --layout rule anneals nothing: the annealing's options were ignored
    # (it printed "rule order"); so does auto on a rule with its own floor
    # order (FleX, HyperX), and there they were ignored too.
    for opt, v in (("--iterations", "7"), ("--trials", "2"), ("--seed", "3"), ("--threads", "2")):
        for args in (("cost", "flex:nx=6,ny=6,nz=3,p=10"), ("layout", "hyperx:s=10x10,k=1x1,t=10", "--lengths", "-")):
            spec = args[1] if args[0] == "cost" else "hyperx:s=10x10,k=1x1,t=10,r=0"
            rule = "flex-fig7" if args[0] == "cost" else "hyperx-enclosure"
            for layout, said in (((), " (the default)"), (("--layout", "auto"), "")):
                one_line_error(run(*args, *layout, opt, v, code=2),
                               f"netloom {args[0]}: {opt} with --layout auto{said}: only the annealing uses it, and "
                               f"auto keeps the floor order of rule '{rule}' ({spec}); expected --layout anneal with "
                               f"it, or no {opt}")
        run("cost", "flex:nx=6,ny=6,nz=3,p=10", "--layout", "anneal", opt, v)  # taken there (exit 0)
        run("cost", "dragonfly:a=4,p=2,h=2", opt, v)  # auto anneals a dragonfly (exit 0)
        for args in (("cost", "dragonfly:a=4,p=2,h=2"), ("layout", "dragonfly:a=4,p=2,h=2", "--lengths", "-")):
            one_line_error(run(*args, "--layout", "rule", opt, v, code=2),
                           f"netloom {args[0]}: {opt} with --layout rule: only the annealing uses it (rule keeps the "
                           f"packaging rule's floor order); expected --layout anneal or auto with it, or no {opt}")
        run("cost", "dragonfly:a=4,p=2,h=2", "--layout", "anneal", opt, v)  # taken there (exit 0)
        # Auto is suggested only where it anneals: on a rule with its own
        # floor order it refuses them too (it was suggested there).
        for args in (("cost", "flex:nx=6,ny=6,nz=3,p=10"), ("layout", "torus:k=8x8", "--lengths", "-")):
            one_line_error(run(*args, "--layout", "rule", opt, v, code=2),
                           f"netloom {args[0]}: {opt} with --layout rule: only the annealing uses it (rule keeps the "
                           f"packaging rule's floor order); expected --layout anneal with it, or no {opt}")
    # --longest counts the cables drawn: with --lengths alone it was ignored.
    with tempfile.TemporaryDirectory() as d:
        lens = os.path.join(d, "l.txt")
        one_line_error(run("layout", "torus:k=4x4", "--lengths", lens, "--longest", "5", code=2),
                       "netloom layout: --longest 5 without --svg: only the drawing uses it (--lengths lists every "
                       "link); expected --svg with it, or no --longest")
        check("--longest without --svg: nothing written", not os.path.exists(lens))
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "no", "such", "dir", "x.svg")
        p = run("layout", "torus:k=4x4", "--svg", bad, code=2)
        check("error names the file", bad in p.stderr.decode() or "no/such" in p.stderr.decode())
        check("nothing written", not os.path.exists(bad))


def case_svg_escape():
    # A spec holding & and < (a graph file name) is escaped in the SVG, which
    # parses as XML and shows the spec as written.
    import xml.dom.minidom
    with tempfile.TemporaryDirectory() as d:
        edges = os.path.join(d, 'a&b<c>"q\'.edges')
        with open(edges, "w") as f:
            f.write("0 1\n1 2\n2 3\n3 0\n")
        svg = os.path.join(d, "amp.svg")
        run("layout", f"graph:file={edges}", "--svg", svg)
        doc = xml.dom.minidom.parse(svg)
        title = doc.getElementsByTagName("text")[0].firstChild.data
        check(f"spec shown as written: {title!r}", title.startswith(f"graph:file={edges}"))
        # A name that is not UTF-8 (and holds a control character): the SVG
        # still parses, and the JSON keeps "spec", the bad bytes as U+FFFD.
        raw = os.fsdecode(os.path.join(os.fsencode(d), b"ring\xff\xfe\x01.edges"))
        with open(raw, "w") as f:
            f.write("0 1\n1 2\n2 3\n3 0\n")
        run("layout", f"graph:file={raw}", "--svg", svg)
        title = xml.dom.minidom.parse(svg).getElementsByTagName("text")[0].firstChild.data
        check(f"non-UTF-8 name in the SVG: {title!r}", title.endswith("ring\ufffd\ufffd\ufffd.edges,p=1,labels=0"))
        spec = run_json("cost", f"graph:file={raw}", "--json", "-").get("spec", "")
        check(f"non-UTF-8 name in the JSON: {spec!r}", spec.endswith("ring\ufffd\ufffd\x01.edges,p=1,labels=0"))
        # A newline in the name: cost's 'topology' line and the --lengths
        # header stay one line each (both were cut in two), escaped as
        # topo describe's text and the errors escape it.
        nl = os.path.join(d, "a\nb.edges")
        with open(nl, "w") as f:
            f.write("0 1\n1 2\n2 3\n3 0\n")
        text = run("cost", f"graph:file={nl}").stdout.decode().splitlines()
        eq("cost topology line", text[0], f"topology     graph:file={d}/a\\nb.edges,p=1,labels=0")
        check(f"next line the preset: {text[1]!r}", text[1].startswith("preset "))
        lens = os.path.join(d, "l.len")
        run("layout", f"graph:file={nl}", "--lengths", lens)
        lines = open(lens).read().splitlines()
        eq("lengths header", lines[0], f"# graph:file={d}/a\\nb.edges,p=1,labels=0 preset=flex rule=canonical: "
           "router port router port metres")
        eq("then the links", lines[1:], ["0 0 1 0 1.00000", "0 1 3 1 1.00000", "1 1 2 0 1.00000", "2 1 3 0 1.00000"])


def case_atomic_outputs():
    # Every output is checked before any is written: a bad --lengths leaves
    # no SVG, and a bad --svg no lengths file; nor any temporary file.
    with tempfile.TemporaryDirectory() as d:
        svg, lens = os.path.join(d, "ok.svg"), os.path.join(d, "ok.len")
        p = run("layout", "torus:k=4x4", "--svg", svg, "--lengths", "/nonexistent/x.len", code=2)
        one_line_error(p, "/nonexistent/x.len")
        check("no svg written", not os.path.exists(svg))
        p = run("layout", "torus:k=4x4", "--svg", "/nonexistent/x.svg", "--lengths", lens, code=2)
        one_line_error(p, "/nonexistent/x.svg")
        check("no lengths written", not os.path.exists(lens))
        eq("no temporary files left", os.listdir(d), [])
        # An existing file is kept as it was when another output fails.
        with open(svg, "w") as f:
            f.write("old")
        run("layout", "torus:k=4x4", "--svg", svg, "--lengths", "/nonexistent/x.len", code=2)
        eq("old svg kept", open(svg).read(), "old")
        one_line_error(run("layout", "torus:k=4x4", "--svg", svg, "--lengths", svg, code=2), "same file")
        # The same file under other names: DIR/./NAME, DIR/../DIR/NAME, a
        # link, and a file that does not exist yet.
        os.symlink(svg, os.path.join(d, "link.svg"))
        sub = os.path.basename(d)
        for other in (f"{d}/./ok.svg", f"{d}/../{sub}/ok.svg", f"{d}/link.svg"):
            one_line_error(run("layout", "torus:k=4x4", "--svg", svg, "--lengths", other, code=2), "same file")
        one_line_error(run("layout", "torus:k=4x4", "--svg", f"{d}/new.svg", "--lengths", f"{d}/./new.svg", code=2),
                       "same file")
        eq("old svg kept after same-file refusals", open(svg).read(), "old")
        os.unlink(os.path.join(d, "link.svg"))
        run("layout", "torus:k=4x4", "--svg", svg, "--lengths", lens)
        check("both written", open(svg).read().startswith("<?xml") and len(open(lens).read().splitlines()) == 1 + 32)
        eq("only the outputs", sorted(os.listdir(d)), ["ok.len", "ok.svg"])
    # A device or standard output is written in place, so it goes before
    # any file is renamed: one that fails leaves no file behind. A write
    # failing after the work is the work failing, exit 1, not 2 (bad
    # input: /dev/full was accepted before the work).
    if os.access("/dev/full", os.W_OK):
        with tempfile.TemporaryDirectory() as d:
            svg = os.path.join(d, "ok.svg")
            p = run("layout", "torus:k=4x4", "--svg", svg, "--lengths", "/dev/full", code=1)
            one_line_error(p, "--lengths: /dev/full: write failed")
            eq("--lengths /dev/full: nothing left", os.listdir(d), [])
            with open("/dev/full", "wb") as full:
                p = subprocess.run([NETLOOM, "layout", "torus:k=4x4", "--svg", svg, "--lengths", "-"], stdout=full,
                                   stderr=subprocess.PIPE, env=ENV)
            eq("--lengths - > /dev/full: exit", p.returncode, 1)
            eq("--lengths - > /dev/full: stderr", p.stderr.decode(),
               "netloom layout: stdout: write failed: No space left on device\n")
            eq("--lengths - > /dev/full: nothing left", os.listdir(d), [])
            with open(svg, "w") as f:
                f.write("old")
            run("layout", "torus:k=4x4", "--svg", svg, "--lengths", "/dev/full", code=1)
            eq("--lengths /dev/full: old svg kept", open(svg).read(), "old")
    # A reader gone (| head): a failed write, said, not SIGPIPE with the
    # SVG already renamed. 64x64: lengths past a pipe's buffer.
    with tempfile.TemporaryDirectory() as d:
        svg = os.path.join(d, "big.svg")
        r, w = os.pipe()
        os.close(r)
        p = subprocess.run([NETLOOM, "layout", "torus:k=64x64", "--layout", "rule", "--svg", svg, "--lengths",
                            "/dev/stdout"], stdout=w, stderr=subprocess.PIPE, env=ENV)
        os.close(w)
        eq("reader gone: exit", p.returncode, 1)
        eq("reader gone: stderr", p.stderr.decode(), "netloom layout: --lengths: /dev/stdout: write failed: Broken pipe\n")
        eq("reader gone: nothing left", os.listdir(d), [])


def case_clos_pack():
    # Seed 001 §4.1: l=3, r=32, N=4096, taper 2:1 has 495 logical switches,
    # its 160 13-port core switches packaged two to a 32-port switch: P =
    # 415 priced (flex preset: 128 $ per port + 15,029 $), 495 with pack=0.
    part = 128 * 32 + 15029
    for spec, parts in (("clos:l=3,r=32,n=4096,taper=2x1", 415), ("clos:l=3,r=32,n=4096,taper=2x1,pack=1", 415),
                        ("clos:l=3,r=32,n=4096,taper=2x1,pack=0", 495)):
        d = run_json("cost", spec, "--iterations", "0", "--json", "-")
        eq(f"{spec} routers", d["routers"], 495)
        eq(f"{spec} router parts", d["router_parts"], parts)
        near(f"{spec} router cost", d["cost_usd"]["routers"], parts * part, 1e-6)
        near(f"{spec} power of the parts", d["power_part_w"], parts * 32 * 4 * 0.7, 1e-6)
        out = run("topo", "describe", spec).stdout.decode()
        check(f"{spec}: describe shows {parts} physical switches", f"physical        {parts} switches" in out)
        eq(f"{spec} describe json", run_json("topo", "describe", spec, "--json")["physical_switches"], parts)


def case_myriclos_table1():
    # Seed 003 Table 1: 2, 2, 2, 4, 7, 14, 28, 56 cabinets for 32 .. 4096
    # nodes; cost uses them, as export does and as the permuted copy does.
    for n, cabs in ((32, 2), (64, 2), (128, 2), (256, 4), (512, 7), (1024, 14), (2048, 28), (4096, 56)):
        d = run_json("cost", f"myriclos:n={n}", "--iterations", "1000", "--json", "-")
        eq(f"n={n} rule", d["rule"], "family-cabinets")
        eq(f"n={n} cabinets", d["cabinets"]["count"], cabs)
    e = run_json("topo", "export", "myriclos:n=1024", "--format", "json")
    eq("export cabinets", e["cabinets"], 14)
    a = run_json("cost", "myriclos:n=256", "--layout", "rule", "--json", "-")
    b = run_json("cost", "p1(myriclos:n=256):frac=0", "--layout", "rule", "--json", "-")
    eq("same graph, same length", a["length_m"], b["length_m"])
    near("length (4 cabinets, 2 x 2)", a["length_m"], 921.6, 1e-9)


def case_help():
    for args in (("cost", "--help"), ("layout", "--help")):
        check(f"{args}: usage", run(*args).stdout.decode().startswith("usage: netloom"))
        check(f"{args}: lists --radix (accepted by both)", "--radix K" in run(*args).stdout.decode())
    # --svg is not required: --lengths alone is a layout's output too.
    eq("layout usage line", run("layout", "--help").stdout.decode().splitlines()[0],
       "usage: netloom layout SPEC [--svg FILE] [--lengths FILE] [options]")
    eq("--lengths alone", len(run("layout", "torus:k=4x4", "--lengths", "-").stdout.decode().splitlines()), 1 + 32)
    # cable_latency's help says what the code does: the flit backend takes
    # it (issue 11 part 1), run and sweep refuse it.
    keys = run("config", "--keys").stdout.decode()
    line = next(x for x in keys.splitlines() if x.strip().startswith("cable_latency "))
    check(f"cable_latency help: {line!r}", "flit" in line and "issue 11" not in line and "run and sweep" in line)
    # (tests/unit/test_cable.c test_flit_cables checks that it does.)
    out = run("cost", "--list-presets").stdout.decode()
    for p in ("flex", "besta", "equality", "fujiwara", "hyperx"):
        check(f"preset {p} listed", f"\n{p} " in "\n" + out)


def case_swap_cables():
    # Seed 003 §7.2 at 256 switches (fujiwara preset, annealed as §7.1):
    # RING-4 needs 27.6% more cable than P2-2DTORUS, RING-8 43.1% more than
    # P2-HYPERCUBE, RING-10 89.4% more than P2-5DTORUS (the 4x4x4x2x2 torus
    # with one link per radix-2 ring, as the paper's figures fit; netloom's
    # torus has two: docs/layout.md). Default seeds and budget; within 1.5
    # points (27.8%, 44.4%, 90.5% here).
    def total(spec):
        return run_json("cost", spec, "--preset", "fujiwara", "--layout", "anneal", "--json", "-")["length_m"]
    with tempfile.TemporaryDirectory() as d:
        edges = os.path.join(d, "t1.edges")
        text = run("topo", "export", "torus:k=4x4x4x2x2", "--format", "edgelist").stdout.decode()
        with open(edges, "w") as f:
            for line in text.splitlines():
                f.write(line + "\n" if line.startswith("#") else " ".join(line.split()[:2] + ["1"]) + "\n")
        for ring, p2, want in (("dln:n=256,d=4", "p2(torus:k=16x16)", 0.276),
                               ("dln:n=256,d=8", "p2(hypercube:n=8)", 0.431),
                               ("dln:n=256,d=10", f"p2(graph:file={edges})", 0.894)):
            rel = total(ring) / total(p2) - 1
            check(f"{ring} over {p2}: {100 * rel:+.1f}% (paper {100 * want:+.1f}%)", abs(rel - want) <= 0.015)


def case_streamed():
    # The outputs are streamed into files staged beside them (in TMPDIR
    # for standard output, a device or a FIFO), never held whole in memory
    # (--lengths of foldedhypercube:n=20 is 304 MB), and the staged files
    # are registered: a SIGTERM while they were being written removed
    # nothing, leaving x.len.tmpXXXXXX (a cut copy) beside the old x.len.
    # Now the signal removes it, the old files stay and the status is the
    # signal's.
    import re
    import signal
    with tempfile.TemporaryDirectory() as d:
        svg, lens = os.path.join(d, "x.svg"), os.path.join(d, "x.len")
        for path in (svg, lens):
            with open(path, "w") as f:
                f.write("old\n")
        # foldedhypercube:n=17: 31 MB of lengths. The staged file is
        # awaited non-empty: the outputs' writability checks make and
        # remove empty ones before the work.
        seen, status, err = sigterm_while_staged(
            ["layout", "foldedhypercube:n=17", "--svg", svg, "--lengths", lens], lens + ".tmp*", 240)
        check(f"the staged file was seen being written (exit {status})", seen)
        eq("SIGTERM while writing: status", status, -signal.SIGTERM)
        eq("SIGTERM while writing: stderr", err, b"")
        eq("SIGTERM while writing: files left", sorted(os.listdir(d)), ["x.len", "x.svg"])
        eq("SIGTERM while writing: the old files kept", [open(svg).read(), open(lens).read()], ["old\n", "old\n"])

        # A full disk (a file size limit, SIGXFSZ ignored: EFBIG as ENOSPC)
        # while streaming the lengths: one line naming them, status 1, both
        # old files as they were (the SVG, finished first, not put in
        # place), nothing staged left; for standard output the staged file
        # in TMPDIR is named and nothing reaches stdout.
        tmpdir = os.path.join(d, "tmpdir")
        os.mkdir(tmpdir)
        env = {**ENV, "TMPDIR": tmpdir}
        small = ("layout", "torus:k=64x64", "--layout", "rule")
        full = subprocess.run([NETLOOM, *small, "--svg", svg, "--longest", "0", "--lengths", lens],
                              capture_output=True, env=env, preexec_fn=disk_full_at_64k)
        eq("full disk: status", full.returncode, 1)
        eq("full disk: message", full.stderr.decode(), f"netloom layout: --lengths: {lens}: write failed: File too large\n")
        eq("full disk: files left", sorted(os.listdir(d)), ["tmpdir", "x.len", "x.svg"])
        eq("full disk: the old files kept", [open(svg).read(), open(lens).read()], ["old\n", "old\n"])
        full = subprocess.run([NETLOOM, *small, "--lengths", "-"], capture_output=True, env=env, preexec_fn=disk_full_at_64k)
        eq("full TMPDIR, stdout: status", full.returncode, 1)
        check(f"full TMPDIR, stdout: message {full.stderr!r}",
              re.fullmatch(re.escape(tmpdir) + r"/netloom-out\.tmp\w{6}: write failed: File too large\n",
                           full.stderr.decode().removeprefix("netloom layout: ")) is not None)
        eq("full TMPDIR, stdout: nothing on stdout", full.stdout, b"")
        eq("full TMPDIR, stdout: nothing left in TMPDIR", os.listdir(tmpdir), [])
        # A TMPDIR that cannot take standard output's staged file is
        # refused before the work, naming the output staged there (the
        # line began with "$TMPDIR/netloom-out", neither option named).
        for opt, other in (("--lengths", "--svg"), ("--svg", "--lengths")):
            gone = run(*small, opt, "-", other, os.path.join(d, "kept"), code=2,
                       env={**ENV, "TMPDIR": os.path.join(d, "none")})
            eq(f"TMPDIR gone, {opt} -: message", gone.stderr.decode(),
               f"netloom layout: {opt}: {d}/none/netloom-out: {d}/none: no such directory; "
               "expected an existing folder to write to; TMPDIR names that folder\n")
            eq(f"TMPDIR gone, {opt} -: {other} not written", os.path.exists(os.path.join(d, "kept")), False)

        # The same bytes to a file, to standard output and to a pipe named
        # as a file (/dev/stdout: written in place), for outputs of several
        # 1 MiB buffers (foldedhypercube:n=15: 6.5 MB of lengths); nothing
        # staged is left in TMPDIR.
        big = ("layout", "foldedhypercube:n=15")
        run(*big, "--svg", svg, "--lengths", lens, env=env)
        with open(svg, "rb") as f:
            svg_doc = f.read()
        with open(lens, "rb") as f:
            lens_doc = f.read()
        check(f"several buffers: {len(lens_doc)} bytes", len(lens_doc) > 4 << 20)
        for opt, doc, other in (("--svg", svg_doc, "--lengths"), ("--lengths", lens_doc, "--svg")):
            keep = os.path.join(d, "other")
            eq(f"{opt} -: stdout = FILE", run(*big, opt, "-", other, keep, env=env).stdout, doc)
            eq(f"{opt} /dev/stdout: = FILE", run(*big, opt, "/dev/stdout", other, keep, env=env).stdout, doc)
            with open(keep, "rb") as f:
                eq(f"{other} beside {opt} -: = alone", f.read(), svg_doc if other == "--svg" else lens_doc)
            eq(f"{opt}: nothing left in TMPDIR", os.listdir(tmpdir), [])


if __name__ == "__main__":
    main(globals())
