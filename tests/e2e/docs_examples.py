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

QUOTED below adds what no code block runs: a command of a doc's prose, or
one that makes a message the doc quotes, with its exit status and the
texts the doc quotes from its output. Each runs as `bash -c` in a fresh
temporary directory like a block's, after the files its entry names are
written there, and passes when the status is the one given and every
quote is both in the doc and in one line of the command's stdout or
stderr (blanks collapsed, as the doc's lines break anywhere; `...` in a
quote stands for any text, as the doc elides a list or a path). With
`in_doc`, the command itself must be in the doc too, as written there.

OPTION_LISTS below names a doc's list of a command's options, checked
against the command's `--help` and the C getopt table: the list is the
bullets (`- ` lines with their indented continuations) of a section that
begin with the options in backquotes (`- `-n`, `--ranks N`: ...`). The
long options of the list, of `--help` and of the table must be the same
sets, a short option must stand beside its long one in `--help`, the table
and the list, and each range (`1..3600000`, `1e-6..1e6`), numeric default
(`default 500`, `default port 5555`) and `required` in an option's `--help`
text must be in its bullet too. It runs nothing but `--help`.
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
    "netloom cost SPEC [--preset P] [--layout auto|rule|anneal] [--json FILE]": "usage synopsis",
    "netloom layout SPEC [--svg FILE] [--longest N] [--lengths FILE] [cost's options but --json, --list-presets]":
        "usage synopsis",
    "netloom replay TRACE -s topology=SPEC -s cable_latency=1 [-s propagation_ns_per_m=5.0]": "usage synopsis",
    "netloom interfere WORKLOAD -c SYSTEM.ini [-s key=value]... [-j N] [--json FILE] [--plot FILE.svg] [--top N]":
        "usage synopsis",
    "netloom compare STUDY.ini -o DIR [-j N]": "usage synopsis",
    "netloom replay TRACE [-c SYSTEM.ini]... [-s key=value]... [--topology SPEC]... [-j N] [--json FILE] [--csv] "
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

# What the docs quote that no code block runs (see the module's text):
# doc -> [(command, exit status, quotes, {file: text}, in_doc)]. Each takes
# milliseconds to a few tenths of a second (the deadlock run, the interfere
# and sweep loops, ulimit -n's 1100 ranks): about 5 s in all. Commands that
# need mpirun, gnuplot or a live session's clients are checked by hand.
_RING5 = "".join(f"router {r} node {r} router {(r + 1) % 5}\n" for r in range(5))
_BIG_TORUS_CFG = "topology = torus;\nk = 4;\nn = 2;\nrouting_function = valiant;\n"
_DEADLOCK_TXT = "netloom-trace 2\nranks 2\n" + "".join(
    f"rank {r}\ninit t=0 dur=0\ncompute t=0 dur=1000000\nsend t=0 dur=0 peer={1 - r} tag=7 bytes=1048576\n"
    f"recv t=0 dur=0 peer={1 - r} tag=7 bytes=1048576\nfinalize t=0 dur=0\n" for r in range(2))
_CUT_TXT = ("netloom-trace 2\nranks 2\nrank 0\ninit t=0 dur=0\nrecv t=0 dur=0 peer=1 tag=7 bytes=8\n"
            "finalize t=0 dur=0\nrank 1\ninit t=0 dur=0\n" + "compute t=0 dur=10\n" * 28)
_CAL_RUN = '{"ranks": %d, "one_way": [{"bytes": 0, "median_seconds": 1e-06}, {"bytes": 8, "median_seconds": 2e-06}]}'
_CAL_TWICE_8 = '{"runs": [' + ", ".join(_CAL_RUN % n for n in (2, 8, 16, 4, 8)) + "]}\n"
_LJ8 = "traces/samples/lammps-lj-8.nlt"
_LJ2 = "traces/samples/lammps-lj-2.nlt"
_DUMPI = "tests/data/traces/dumpi"
_TXT2 = "netloom-trace 2\nranks 2\n"
# lammps-lj-2.nlt as x.nlt with byte OFFSET set to the octal BYTE.
_PATCH = ("cp traces/samples/lammps-lj-2.nlt x.nlt && printf '\\{1}' | "
          "dd of=x.nlt bs=1 seek={0} conv=notrunc status=none")
_SG_RANK = "".join(f"R {w}\n" for w in ("init", "compute 10", "compute 10", "compute 10", "compute 10",
                                             "comm_size 32", "finalize"))
_COL = "# router_a router_b parallel_links\n"
# Each (file text, graph parameters) makes one error topologies.md quotes.
_EDGES = [("0 1\n1 2\n1 1\n", ""), ("0 1\n0 1 2\n", ""), (_COL + "0 1 2 3\n", ""), (_COL + "0 1\n1 2 0\n", ""),
          ("0 1\nx2 1\n", ""), ("0 1\n1 3\n", ""), (_COL + "a b\nx\n", ",labels=1"), ("0 1\n2 3\n", ""),
          ("", ""), (_COL + "0\n1\n", "")]
_NETS = ["router 0 node 0 router 1\nrouter 1 node 1 switch 2\n", "router 0 node 0 router 1\nrouter 1 node 0\n",
         "router 0 node 0 router 1\nrouter 1 node 1\nrouter 2 node 2\n",
         "router 0 node 0 router 1 0\nrouter 1 node 1\n", "router 0 node 0 router 0\n",
         "node 0 router 1 5\nrouter 1 node 1 router 0\n", "router 0 node 0 router 1\nrouter 1 node 2\n"]
_LINKS_SYS = "[network]\ntopology = torus:k=4x4\n[analytic]\nlink_model = links\n"
_JOB = "trace = traces/samples/lammps-lj-8.nlt\n"
_INTERFERE = "netloom interfere w.ini -c s.ini"
_SWEEP1 = "netloom sweep -s topology=torus:k=4x4 --rates 0.05:0.05:0.05"
QUOTED = {
    "docs/engine.md": [
        ("netloom run -s topology=hyperx:s=4x4x4,t=4 -s num_vcs=4 -s vc_buf_size=8 "
         "-s routing_function=min:select=hash,classes=none -s injection_rate=1.0 -s sim_type=throughput", 1,
         ["netloom run: network deadlock at cycle 536: 15920 flits stuck in 2151 input VCs that wait on each "
          "other: router 0 in-port 1 VC 0 waits for a VC 0..3 on out-port 3, router 0 in-port 1 VC 1 waits for "
          "out-port 3 VC 2, router 0 in-port 3 VC 0 waits for out-port 8 VC 0, ... (2148 more) (local check: a "
          "front flit waited 268 cycles, bound 268)",
          "router 0 in-port 1 VC 0: vc_alloc, 1 flit, packet 200->19 waits for a VC 0..3 on out-port 3 "
          "(VC 0 held by in-port 7 VC 2)"], {}, True),
        ("netloom run -s topology=hyperx:s=4x4,t=2 -s routing_function=dal -s vc_allocator=separable_input_first "
         "-s injection_rate=0.001", 0, ["14.42", "1.48"], {}, True),
        ("netloom config -s topology=hyperx:s=4x4 -s routing_function=dal --check", 2,
         ["routing_function 'dal:block=1,queue=0,dqueue=0' takes a deroute, a blocked port or its escape VCs only "
          "when no higher-priority candidate has a free VC, which only a by-priority VC allocator does; expected "
          "vc_allocator = separable_input_first or separable_output_first, got islip (the default)"], {}, False),
        ("netloom config -s topology=dragonfly:a=4,p=2,h=2 -s routing_function=ugal:mode=global -s partitions=2 "
         "--check", 2,
         ["routing_function 'ugal:mode=global,inter=router,threshold=0,snapshot=0,queue=credit' reads the live "
          "global congestion view, which partitions = 2 cannot give (other partitions' channels change "
          "meanwhile); expected partitions = 1 and threads = 1"], {}, False),
        ("netloom config --from-booksim v.cfg", 3,
         ["cannot map 'routing_function = valiant': BookSim's valiant_torus aborts on a torus with k >= 4 "
          "(routefunc.cpp:1391: assertion 'ring_part == 1' failed: dor_next_torus leaves ring_part unset on a "
          "hop that continues in the same dimension); valiant on a mesh runs"], {"v.cfg": _BIG_TORUS_CFG}, False),
        ("netloom config -s routing_function=dim_order", 2,
         ["unknown routing function 'dim_order': BookSim2's name; netloom's is 'dor' ('netloom config "
          "--from-booksim FILE' converts a BookSim2 configuration)"], {}, False),
        ("netloom config -s topology=hypercube:n=16 -s routing_function=min:table=always --check", 2,
         ["routing function 'min': table=always on 65536 routers is more than its 32768-router table allows "
          "(n^2 bytes); expected table=auto, which routes this topology in closed form"], {}, False),
        ("netloom config -s topology=anynet:file=ring5 -s routing_function=min_anynet -s num_vcs=1 --check", 2,
         ["routing function 'min_anynet' needs num_vcs >= 2 (one VC class per hop of its longest route), got 1: "
          "its routes' channel dependencies are cyclic; classes=none runs BookSim's rule, which can deadlock"],
         {"ring5": _RING5}, False),
        ("netloom config -s topology=dragonfly:a=4,p=2,h=2 -s routing_function=ugal -s num_vcs=5 --check", 2,
         ["routing function 'ugal' needs num_vcs >= 2 x the diameter = 6 (one VC class per hop of the longest "
          "Valiant path), got 5"], {}, False),
        ("netloom config -s topology=hyperx:s=4x4 -s routing_function=ugal:mode=booksim,threshold=30 --check", 2,
         ["routing function 'ugal': threshold=30 applies to mode=local and mode=global only (mode=booksim keeps "
          "BookSim's own bias); expected threshold=0"], {}, False),
        ("netloom config -s topology=fattree:k=4,n=2 -s routing_function=anca:queue=output,choices=1 --check", 2,
         ["routing function 'anca': queue=output compares up-ports and choices=1 draws one (nca); expected "
          "queue=credit or choices other than 1"], {}, False),
    ],
    "docs/configuration.md": [
        # The automatic partition count is one with UGAL-G's live view
        # on a network of 2,048 routers, where it would be 8 otherwise.
        ("netloom config -s topology=hyperx:s=64x32 -s routing_function=ugal:mode=global -s num_vcs=4 --check", 0,
         ["runs: hyperx:s=64x32", "ugal:mode=global"], {}, False),
        ("netloom run -s injection_rate=0x1p-4", 2, ["-s: key 'injection_rate': value '0x1p-4': expected a number"],
         {}, False),
        ("netloom run -c exp/run.ini", 2,
         ["netloom run: exp/run.ini:1: topology '@spec.txt' (resolved to .../exp/spec.txt, relative to the config "
          "exp/run.ini): cannot open spec file: No such file or directory"],
         {"exp/run.ini": "topology = @spec.txt\n"}, True),
        ("netloom run -s topology=@exp/spec.txt", 2,
         ["netloom run: -s: topology 'graph': parameter 'file': cannot open 'g.txt' (resolved to .../exp/g.txt, "
          "relative to the spec file exp/spec.txt): No such file or directory"],
         {"exp/spec.txt": "graph:file=g.txt\n"}, True),
        ("sed 's/^network_file = .*/network_file = net;/' tests/data/booksim/anynet_config > anynet_config && "
         "netloom config --from-booksim anynet_config", 3,
         ["anynet_config:32: cannot map 'topology = anynet': topology 'anynet': .../net:2: unknown word 'switch'; "
          "expected 'router ID', 'node ID' or a latency"],
         {"net": "router 0 node 0 router 1\nrouter 1 node 1 switch 2\n"}, False),
        ("netloom config --from-booksim odd.cfg > odd.ini", 3,
         ["netloom config: odd.cfg:6: cannot map 'router = event': netloom models BookSim's iq router only",
          "netloom config: odd.cfg:10: cannot map 'num_vc = 4': not a BookSim key (BookSim stops on it); did you "
          "mean 'num_vcs'?"],
         {"odd.cfg": "topology = torus;\nk = 4;\nn = 2;\nrouting_function = dim_order;\nsw_allocator = "
                     "max_size;\nrouter = event;\nspeculative = 1;\nseed = time;\ninjection_rate = 0.5;\n"
                     "num_vc = 4;\npacket_size = 4;\n"}, True),
        ("netloom config -c sys.ini --check", 2,
         ["netloom config: sys.ini:5: routing function 'ugal' needs num_vcs >= 2 x the diameter = 4 (one VC class "
          "per hop of the longest Valiant path), got 2"],
         {"sys.ini": "[network]\ntopology = dragonfly:a=4,p=2,h=2,g=3\nrouting_function = ugal\n[router]\n"
                     "num_vcs = 2\n"}, False),
        ("netloom config -s topology=dragonfly:a=4,p=2,h=2,g=3 -s routing_function=ugal --check", 0,
         ["runs: dragonfly:a=4,p=2,h=2,g=3, routing ugal:mode=local,inter=router,threshold=0,snapshot=0,"
          "queue=credit, traffic uniform, 12 routers, 24 endpoints"], {}, False),
    ],
    "docs/layout.md": [
        ("netloom layout torus:k=4x4 --lengths /dev/full", 1,
         ["netloom layout: --lengths: /dev/full: write failed: No space left on device"], {}, False),
        ("TMPDIR=/nonexist netloom layout torus:k=4x4 --lengths -", 2,
         ["netloom layout: --lengths: /nonexist/netloom-out: /nonexist: no such directory; expected an existing "
          "folder to write to; TMPDIR names that folder"], {}, False),
        ("netloom cost flex:nx=6,ny=6,nz=3,p=10 --iterations 10", 2,
         ["netloom cost: --iterations with --layout auto (the default): only the annealing uses it, and auto keeps "
          "the floor order of rule 'flex-fig7' (flex:nx=6,ny=6,nz=3,p=10); expected --layout anneal with it, or "
          "no --iterations"], {}, False),
        ("netloom cost hyperx:s=32x16x16,k=1x2x2,t=16 --preset hyperx", 0,
         ["cabinet fill largest 32U of 42U (0 cabinets over)"], {}, True),
        ("netloom cost dln:n=64,d=4 --layout anneal --iterations 1099511627776", 2,
         ["annealing: 1099511627776 moves x 5 trials on 8 cabinets (22 steps a move: ...) is 1.2095e+14 steps, about "
          "336 hours of work at 1e+08 steps a second; expected at most 3.6e+11 (about 60 minutes): 3272727272 moves a "
          "trial or fewer (--iterations, layout_iterations) or fewer trials"], {}, True),
    ],
    "docs/replay.md": [
        ("cp tests/data/traces/dumpi/testtrace.meta t.meta && TMPDIR=/scratch/x netloom replay t.meta", 2,
         ["netloom replay: t.meta: cannot create a temporary archive in TMPDIR '/scratch/x' to convert it into: No "
          "such file or directory; expected TMPDIR to name a folder that can be written in"], {}, False),
        ("netloom replay halo.txt", 2,
         ["netloom replay: halo.txt: a netloom trace in text form, not an archive: expected a .nlt or a foreign "
          "trace; encode it first (netloom trace encode halo.txt OUT.nlt)"], {"halo.txt": _CUT_TXT}, False),
        (f"netloom replay {_LJ8} --json /dev/full", 1,
         ["netloom replay: --json: /dev/full: write failed: No space left on device"], {}, False),
        (f"netloom replay {_LJ8} --json ''", 2,
         ["netloom replay: --json '': empty file name; expected a file to write, or '-' for standard output"],
         {}, False),
        (f"netloom replay {_LJ8} --otf2 ''; netloom replay {_LJ8} --otf2 -", 2,
         ["empty directory name", "not a directory name"], {}, False),
        (f"netloom replay {_LJ8} --svg /dev/full --json x.json", 3,
         ["netloom replay: --svg /dev/full: not written: /dev/full: write failed: No space left on device; the "
          "report and --json were written"], {}, False),
        (f"netloom replay {_LJ8} --svg /dev/full", 3, ["the report was written"], {}, False),
        (f"netloom replay {_LJ8} -s placement_map=any.map", 2,
         ["netloom replay: -s: key 'placement_map': value 'any.map': only placement = map reads it, and the "
          "placement in force is linear (unset); expected placement = map with it, or placement_map unset"],
         {}, False),
        (f"netloom replay {_LJ8} -c r.ini", 2,
         ["netloom replay: r.ini:4: key 'placement_map': missing; expected a map file for placement = map"],
         {"r.ini": "[network]\ntopology = torus:k=4x4\n[replay]\nplacement = map\n"}, False),
        (f"netloom replay {_LJ8} -s placement_seed=7", 0,
         ["netloom replay: warning: -s placement_seed=7: key 'placement_seed' of [replay] is not read by replay "
          "(placement = linear (unset) draws nothing; random-node and random-router do); it has no effect"],
         {}, False),
        (f"netloom replay {_LJ8} -s topology=torus:k=4x4 -s placement=map -s placement_map=ranks.map "
         "-s ranks_per_node=2", 0,
         ["netloom replay: warning: -s ranks_per_node=2: key 'ranks_per_node' of [replay] is not read by replay "
          "(placement = map gives each rank its endpoint from the map file); it has no effect",
          "map (file ranks.map)"], {"ranks.map": "".join(f"{r} {2 * r}\n" for r in range(8))}, False),
        (f"netloom replay {_LJ8} -s topology=torus:k=4x4 -s placement=random-node; "
         f"netloom replay {_LJ8} -s topology=torus:k=4x4 -s placement=contiguous", 0,
         ["placement random-node (seed 1, 1 rank per node)", "contiguous (1 rank per node)"], {}, False),
        (f"netloom replay {_LJ8} -s placement=contiguous --topology torus:k=4x4 --topology torus:k=2", 2,
         ["netloom replay: -s: key 'placement': value 'contiguous': on --topology 'torus:k=2': the job needs 8 "
          "endpoints (8 ranks, 1 per node), only 2 of 2 free"], {}, False),
        ("netloom trace encode c.txt app.nlt && netloom replay app.nlt -s cpu_factor=1000000", 2,
         ["netloom replay: app.nlt: rank 0 op 1 (compute): compute of ... ps at ... ps: expected to end by "
          "4611686018427387904 ps ..."],
         {"c.txt": "netloom-trace 2\nranks 1\nrank 0\ninit t=0 dur=0\ncompute t=0 dur=5000000000000\n"
                   "finalize t=0 dur=0\n"}, False),
        ("netloom replay traces/samples/hpcc-8.nlt", 0,
         ["3750 requests named by waits/tests (counted once per id named; start, cancel, request_free too) had "
          "already been completed by the replay (sooner than in the recorded run, as when a program polls with "
          "MPI_Test)", "bcast 3160 calls: knomial 192 binary 2464 zero-count 504"], {}, False),
        ("netloom trace encode w.txt w.nlt && netloom replay w.nlt", 0,
         ["warning: 1 request named by a wait/test (counted once per id named; start, cancel, request_free too) "
          "was never created by the trace (ignored: the trace lacks the call that made it); first: rank 0, op 5 "
          "(wait of request 7)"],
         {"w.txt": "netloom-trace 2\nranks 1\nrank 0\ninit t=0 dur=0\n" + "compute t=0 dur=5\n" * 4
                   + "wait t=0 dur=0 req=7\nfinalize t=0 dur=0\n"}, False),
        ("netloom trace encode big.txt big.nlt && netloom replay big.nlt -s backend=flit", 2,
         ["netloom replay: key 'topology' (unset): 'torus:k=8x8' has 64 endpoints, the trace needs 100 ..."],
         {"big.txt": "netloom-trace 2\nranks 100\n"
                     + "".join(f"rank {r}\ninit t=0 dur=0\nfinalize t=0 dur=0\n" for r in range(100))}, False),
        (f"netloom replay {_LJ8} -s num_vcs=4", 0,
         ["netloom replay: warning: -s num_vcs=4: key 'num_vcs' of [router] is not read by replay (backend "
          "analytic); it has no effect"], {}, False),
        (f"netloom replay {_LJ8} -t torus:k=4x4 -t mesh:k=4x4", 0,
         ["netloom replay: warning: backend analytic with link_model = none and hop_latency_ns = 0 does not see "
          "the topology: the 2 networks predict the same runtime (...)"], {}, False),
        (f"netloom replay {_LJ8} -s link_model=bus -s hop_latency_ns=50", 2,
         ["hop_latency_ns = 50: key 'link_model' is 'bus': expected none, endpoint or links (a bus has no router "
          "hops)"], {}, False),
        (f"netloom replay {_LJ8} -s ideal=yes -s hop_latency_ns=50", 2,
         ["hop_latency_ns = 50: key 'ideal' is 'yes': expected hop_latency_ns = 0 or ideal = no (the ideal network "
          "has no latency)"], {}, False),
        (f"netloom replay {_LJ8} -s calibration=/tmp", 2,
         ["key 'calibration': /tmp: is a directory, not a calibration file (netloom-pingpong's JSON)"], {}, False),
        ("cd traces/samples && netloom replay lammps-lj-8.nlt -s calibration=calibration-shm.json "
         "-s calibration_ranks=4", 2,
         ["calibration calibration-shm.json: no run with 4 ranks (calibration_ranks); expected calibration_ranks = "
          "the ranks of one of its runs: 2, 8, 16"], {}, False),
        (f"netloom replay {_LJ8} -s calibration=cal.json -s calibration_ranks=8", 2,
         ["calibration cal.json: runs[1] and runs[4] both have 8 ranks; expected one run per rank count"],
         {"cal.json": _CAL_TWICE_8}, False),
        ("netloom replay traces/samples/lammps-lj-16.nlt; netloom replay traces/samples/lammps-lj-2.nlt", 0,
         ["s: NOT COMPARABLE with a prediction, no ratio given",
          "(recorded with 16 ranks on 1 host of 2 cores (8 per core), ...)", "s (comparable: ...)"], {}, False),
        ("netloom trace encode dl.txt dl.nlt && netloom replay dl.nlt", 1,
         ["netloom replay: replay deadlock at t=0.000002000 s: 2 of 2 ranks wait forever (rank 0 in op 2 send)",
          "rank 0: blocked in op 2 send to 1 tag 7 comm 0 (1048576 bytes)",
          "waits for: send to 1 tag 7 comm 0, 1048576 bytes, rendezvous: no matching receive posted at world rank 1",
          "rank 1: blocked in op 2 send to 0 tag 7 comm 0 (1048576 bytes)",
          "waits for: send to 0 tag 7 comm 0, 1048576 bytes, rendezvous: no matching receive posted at world rank 0"],
         {"dl.txt": _DEADLOCK_TXT}, False),
        ("netloom trace encode cut.txt cut.nlt && netloom replay cut.nlt", 1,
         ["no matching message from world rank 1, whose trace ended after 29 ops without finalize",
          "; 1 rank ended without finalize (rank 1 after 29 ops): a cut trace?"], {"cut.txt": _CUT_TXT}, False),
    ],
    "docs/trace-format.md": [
        (_PATCH.format(8, "003") + " && netloom trace info x.nlt; netloom trace verify x.nlt", 2,
         ["x.nlt: offset 8: format version 3 is newer than this netloom reads (up to 2), or the header is damaged "
          "(the version comes before the header hash, so the two cannot be told apart); expected version <= 2"],
         {}, False),
        (f"cp {_DUMPI}/testtrace.meta t.meta && netloom trace verify t.meta", 2,
         ["t.meta: a DUMPI trace, not a netloom trace archive: expected a .nlt; convert it first (netloom trace "
          "convert t.meta OUT.nlt)"], {}, False),
        ("netloom trace info sys.ini", 2,
         ["sys.ini:1: rank 0 trace '[network]' not found (the file was read as a SimGrid index, ...)"],
         {"sys.ini": "[network]\ntopology = torus:k=4x4\n"}, False),
        (f"netloom trace pack b.nlb {_LJ2} && netloom trace info b.nlb", 2,
         ["b.nlb: a netloom bundle, not a trace: expected a .nlt; unpack it first (netloom trace "
          "unpack b.nlb DIR)"], {}, False),
        ("netloom trace dump t.txt", 2,
         ["t.txt: a netloom trace in text form, not an archive: expected a .nlt; encode it first "
          "(netloom trace encode t.txt OUT.nlt)"], {"t.txt": _CUT_TXT}, False),
        ("printf '\\x28\\xb5\\x2f\\xfd\\x24\\x05\\x29\\x00more' > x.zst && netloom trace info x.zst", 2,
         ["x.zst: offset 0: not a netloom trace archive (bad magic): its first bytes are 28 b5 2f fd 24 05 29 00; "
          "expected 89 4e 4c 54 0d 0a 1a 0a"], {}, False),
        (": > e.nlt && netloom trace verify e.nlt", 2, ["empty file (expected a netloom trace archive)"], {}, False),
        (_PATCH.format(29082, "121") + " && netloom trace verify x.nlt", 1,
         ["netloom trace verify: FAILED: x.nlt: rank ..., offset ...: hash mismatch: ...",
          "hash mismatch: stream hashes to ..., end chunk says ..., manifest ..."], {}, False),
        ("netloom trace encode t.txt o.nlt", 2,
         ["t.txt:9: compute op without dur=: expected t=PS dur=PS after the kind (start and duration in "
          "picoseconds, as 'netloom trace dump' writes every op; t=0 dur=0 when unknown)"],
         {"t.txt": _TXT2 + "# a\n# b\n# c\n# d\nrank 0\ninit t=0 dur=0\ncompute t=0\n"}, False),
        ("netloom trace encode f.txt o.nlt", 2,
         ["flags 'in_place|0x8': unknown bits 0x8; expected nonblocking (0x1), in_place (0x2), no_outcome (0x4) or "
          "their sum, joined by '|'"], {"f.txt": _TXT2 + "rank 0\ninit t=0 dur=0 flags=in_place|0x8\n"}, False),
        ("netloom trace encode bad.txt o.nlt", 2,
         ["bad.txt:25: comm=7: not a communicator of the trace (defined: 0 (world), 1 (self), 3, 9; a 'comm ID "
          "RANKS...' line before the first rank section defines one)"],
         {"bad.txt": _TXT2 + "comm 3 0 1\ncomm 9 0 1\nrank 0\ninit t=0 dur=0\n" + "compute t=0 dur=1\n" * 18
                     + "barrier t=0 dur=0 comm=7\n"}, False),
        ("netloom trace encode b.txt o.nlt", 2,
         ["b.txt:9: comm=4: rank 2 is not a member of communicator 4 (...)"],
         {"b.txt": "netloom-trace 2\nranks 3\ncomm 4 0 1\nrank 0\ninit t=0 dur=0\nrank 1\ninit t=0 dur=0\n"
                   "rank 2\nbarrier t=0 dur=0 comm=4\n"}, False),
        ("netloom trace encode bad.txt o.nlt", 2,
         ["bad.txt:4: peer=5: not a rank of communicator 0 (size 2): expected 0 .. 1 or null"],
         {"bad.txt": _TXT2 + "rank 0\nsend t=0 dur=0 peer=5 tag=1 bytes=8\n"}, False),
        ("netloom trace encode c.txt o.nlt", 2, ["comm 2: member '0': world rank 0 is listed twice"],
         {"c.txt": _TXT2 + "comm 2 0 0\n"}, False),
        ("netloom trace encode u.txt o.nlt", 2, ["cpu=10: expected at most dur=5"],
         {"u.txt": _TXT2 + "compute_cpu_time 1\nrank 0\ncompute t=0 dur=5 cpu=10\n"}, False),
        ("awk 'BEGIN { print \"netloom-trace 2\"; print \"ranks 1\"; for (i = 2; i < 65536; i++) print \"comm \" i "
         "\" 0\"; print \"rank 0\" }' > t.txt && netloom trace encode t.txt o.nlt", 2,
         ["t.txt: trace manifest: 65536 communicators (...); expected at most 65535, replay's limit"], {}, False),
        (f"cp {_LJ2} x.nlt && netloom trace encode x.nlt o.nlt", 2,
         ["x.nlt: a netloom trace archive, not its text form: expected the text 'netloom trace dump' writes "
          "(netloom trace dump x.nlt > TEXT)"], {}, False),
        (f"mkdir a b && cp {_LJ2} a/t.nlt && cp {_LJ2} b/t.nlt && netloom trace pack x.nlb a/t.nlt b/t.nlt", 2,
         ["b/t.nlt: a second file named 't.nlt' (the first: a/t.nlt; a bundle keeps names, not folders); expected "
          "files of distinct names"], {}, False),
        (f"cp {_LJ2} t.nlt && netloom trace unpack t.nlt D", 2,
         ["t.nlt: a netloom trace archive, not a bundle: expected a bundle that 'netloom trace pack' wrote; ..."],
         {}, False),
        (": > b.nlb && netloom trace unpack b.nlb D", 2, ["b.nlb: offset 0: empty file (expected a netloom bundle)"],
         {}, False),
        ("printf '\\x89NLB\\r' > b.nlb && netloom trace unpack b.nlb D", 2,
         ["b.nlb: offset 5: truncated netloom bundle: 5 bytes, expected at least 64 (a 32-byte header and a "
          "32-byte trailer)"], {}, False),
        ("netloom trace unpack sys.ini D", 2, ["offset 0: not a netloom bundle (bad magic)"],
         {"sys.ini": "[network]\n" * 8}, False),
        (f"mkfifo f && netloom trace pack b.nlb {_LJ2} --config f", 2,
         ["--config: f: is not a regular file (a FIFO); expected the system configuration's file"], {}, False),
        (f"mkdir x && cp {_LJ2} x/B.nlb && netloom trace pack B.nlb x/B.nlb && netloom trace unpack B.nlb .", 2,
         ["B.nlb: entry 'B.nlb': './B.nlb' is the bundle itself, which it would replace; expected another DIR"],
         {}, False),
        (f"for i in 0 1 2 3; do cp {_DUMPI}/testtrace-000$i.bin t-000$i.bin; done && "
         f"sed s/=testtrace/=t/ {_DUMPI}/testtrace.meta > t.meta && netloom trace convert t.meta t-0003.bin", 2,
         ["OUT.nlt 't-0003.bin': the same file as IN t.meta's rank 3 file './t-0003.bin', an input"], {}, False),
        ("mkfifo f && mkdir d && netloom trace convert f o.nlt; netloom replay d", 2,
         ["f: is not a regular file (a FIFO), not a trace file", "d: is a directory, not a trace file"], {}, False),
        (f"netloom trace convert {_DUMPI}/testtrace.meta o.nlt", 0,
         ["not converted: MPI_Comm_rank x...(no netloom operation; its time counts as compute)"], {}, False),
        (f"mkdir DIR && cp {_DUMPI}/testtrace* DIR && sed s/numprocs=4/numprocs=2/ {_DUMPI}/testtrace.meta > t.meta "
         "&& cp t.meta DIR && netloom trace convert DIR/t.meta o.nlt", 2,
         ["numprocs=2, though rank file 'DIR/testtrace-0002.bin' exists: fewer than the trace has ranks: ...: "
          "MPI_Recv: peer 3 outside its communicator (size 2)"], {}, False),
        (f"mkdir DIR && cp {_DUMPI}/testtrace* DIR && rm DIR/testtrace-0002.bin && mkfifo DIR/testtrace-0002.bin "
         "&& netloom trace convert DIR/testtrace.meta o.nlt", 2,
         ["rank 2's file 'DIR/testtrace-0002.bin' is not a regular file (a FIFO), not a DUMPI rank file"], {}, False),
        (f"for i in 0 1 2 3; do cp {_DUMPI}/testtrace-000$i.bin t-000$i.bin; done && cp t-0002.bin t-0001.bin && "
         f"sed s/=testtrace/=t/ {_DUMPI}/testtrace.meta > t.meta && netloom trace convert t.meta o.nlt", 2,
         ["t-0001.bin: rank 1, offset 58: MPI_Comm_rank on MPI_COMM_WORLD gave 2: the file of world rank 2, found "
          "as rank 1's; expected rank 1's (a rank file renamed or copied over?)"], {}, False),
        ("for r in 0 1 2 3 4 5 6 7; do sed s/R/$r/ r.txt > ti_trace$r.txt; echo ti_trace$r.txt; done > idx && "
         "netloom trace convert idx o.nlt", 2,
         ["idx: lists 8 rank files, but the trace has at least 32 ranks ('./ti_trace0.txt' line 6: comm_size 32): "
          "expected one file per rank of the trace, line i naming rank i's"], {"r.txt": _SG_RANK}, False),
        ("sed s/R/0/ r.txt > ti_trace0.txt && netloom trace convert ti_trace0.txt o.nlt", 2,
         ["ti_trace0.txt: actions of rank 0 only, but line 6 says comm_size 32"], {"r.txt": _SG_RANK}, False),
        ("netloom trace convert a.txt o.nlt", 2, ["a.txt:2: bcast size '0x1p3': expected a number of elements 0 .. 9.2e18"],
         {"a.txt": "0 init\n0 bcast 0x1p3\n"}, False),
        ("awk 'BEGIN { for (r = 0; r < 1100; r++) print r, \"init\" }' > a.txt && ulimit -n 1024 && "
         "netloom trace convert a.txt OUT", 2,
         ["OUT: 1100 ranks need up to 1164 open files (a temporary stream file per rank while the trace's ranks "
          "interleave, and 64 for the rest), above the limit of 1024 (ulimit -n, which netloom raises to the hard "
          "limit, ulimit -Hn); raise ulimit -n to at least 1164"], {}, False),
        ("awk 'BEGIN { print \"netloom-trace 2\"; print \"ranks 1\"; print \"rank 0\"; for (i = 0; i < 20000; i++) "
         "print \"compute t=\" 7 * i \" dur=\" 13 * i }' > t.txt && ulimit -f 1 && netloom trace encode t.txt OUT.nlt",
         1, ["netloom trace encode: OUT.nlt: write failed: File too large"], {}, False),
        (f"netloom trace dump {_LJ2} --rank $'1\\n2'", 2,
         ["netloom trace dump: --rank '1\\n2': expected a rank number ..."], {}, False),
    ],
    "docs/topologies.md": [
        ("for t in slimfly:q=6 dragonfly:a=4,p=2,h=2,g=10 'equality:n=14,sa=-1/1/3/9,sb=4,k=7' torus,k=4 "
         "'  torus:k=4' hyperx:S=8x8 hyperx:s=4x4,p=2 'torus:k=4x4, p=2' equality:n=14,sa=-1,1,3,9,sb=4 "
         "torus:k=65535x65535 cmesh:k=32768,c=4 dln:n=16777216,d=4096,p=1 fly:k=4,n=2 "
         "clos:l=3,r=16,n=300,down=4,up=10 clos:l=3,r=16,down=0,up=10 'N14K6(-1,1,3,9)[4]' 'N14K[-1,1,3,9](4)' "
         "p1:base=fattree:k=2,n=2 graph:file=my,net.edges; do netloom topo describe \"$t\"; done", 2,
         ["topology 'slimfly': parameter 'q': 6 is not a prime power (the MMS construction needs q = p^m = 4w + "
          "delta, delta in {-1, 0, 1})",
          "topology 'dragonfly': parameter 'g': 10 groups, expected 2 .. a*h+1 = 9 so that every pair of groups has "
          "a global link",
          "topology 'equality': parameter 'k': the offsets give network radix K = 6 (eq. 1: |S_A| + 2|S_B| - [N/2 "
          "in S_B]), not 7",
          "unknown topology 'torus,k=4': expected 'torus:k=4' (parameters follow the name after a ':')",
          "unknown topology '  torus': expected 'torus' (nothing before the name)",
          "unknown parameter 'S' (did you mean 's'? valid: s, k, t, r)",
          "unknown parameter 'p' (the endpoints per router are 't' here; valid: s, k, t, r)",
          "unknown parameter ' p': expected 'p' (no blanks around a parameter's name or value)",
          "expected key=value, got '1' (parameters are split at ','; the values of 'sa' are joined by '/': "
          "sa=-1/1/3/9)",
          "topology 'torus': parameter 'k' = 65535x65535: 4294836225 routers; expected at most 2^30 (1073741824)",
          "topology 'cmesh': parameter 'c' = 4 on 1073741824 routers (k = 32768x32768): 4294967296 endpoints; "
          "expected fewer than 2^31 (2147483648)",
          "topology 'dln': parameters n=16777216, d=4096, p=1 give 16777216 routers, 68736253952 ports and 16777216 "
          "endpoints; expected at most 2^30 (1073741824) routers and fewer than 2^31 (2147483648) ports and "
          "endpoints",
          "parameter 'n' value '2': expected 1 (...)",
          "300 terminals need more than the 256 that 3 levels of radix-16 switches serve (r x the down ports of "
          "each level below the core: 16 x 4 x 4); ...",
          "parameter 'down' value '0': level 1 has no down port",
          "expected 'N14K6[-1,1,3,9](4)' (the odd offsets S_A in [...], then the even offsets S_B in (...))",
          "cannot read 'N14K[-1,1,3,9](4)': 'K' is not followed by the network radix; expected "
          "N<routers>K<radix>...",
          "unknown parameter 'n' (valid: base, trials, cab, frac, seed; a ',' ends the value of 'base': ...)",
          "expected key=value, got 'net.edges' (parameters are split at ','; the path of 'file' cannot hold one)"],
         {}, False),
        ("printf 'torus:k=4x4\\ntorus\\0004x4\\n' > FILE && netloom topo describe @FILE; "
         "netloom topo describe @exp/spec.txt", 2,
         ["FILE:2: unexpected NUL byte; expected a text spec file",
          "cannot open 'g.txt' (resolved to .../exp/g.txt, relative to the spec file exp/spec.txt)"],
         {"exp/spec.txt": "graph:file=g.txt\n"}, False),
        ("for i in " + " ".join(str(i) for i in range(len(_EDGES))) + "; do cp x$i.edges x.edges; "
         "netloom topo describe graph:file=x.edges$(cat p$i); done; printf '0 1\\n1\\0002\\n' > x.edges; "
         "netloom topo describe graph:file=x.edges", 2,
         ["x.edges:3: self-loop on router '1' (a link joins two different routers)",
          "x.edges:2: expected two router ids 'a b', got 3 fields (...)",
          "x.edges:2: expected 'a b' or 'a b links', got 4 fields (...)",
          "x.edges:3: link count '0' is not an integer 1..65536 (the third field of 'a b links')",
          "x.edges:2: router id 'x2' is not an integer 0..n-1 (labels=1 reads arbitrary names)",
          "x.edges: router 2 has no links (ids must run 0..n-1 without gaps; largest is 3)",
          "x.edges: router 'x' has no links (a router without links must be the only one)",
          "x.edges: graph is not connected: router 2 cannot be reached from router 0",
          "x.edges: no links (expected lines 'a b')",
          "x.edges: no links, but router ids up to 1 (a router without links must be the only one, id 0)",
          "x.edges:2: unexpected NUL byte; expected a text file"],
         {**{f"x{i}.edges": e for i, (e, _) in enumerate(_EDGES)},
          **{f"p{i}": p for i, (_, p) in enumerate(_EDGES)}}, False),
        ("for i in " + " ".join(str(i) for i in range(len(_NETS))) + "; do cp net$i net; netloom topo describe "
         "anynet:file=net; done; printf 'router 0 node 0 router 1\\nrouter 1 no\\000de 1\\n' > net; "
         "netloom topo describe anynet:file=net; rm net; netloom topo describe anynet:file=net", 2,
         ["net:2: unknown word 'switch'; expected 'router ID', 'node ID' or a latency",
          "net:2: node 0 attached to router 1, but line 1 attached it to router 0; expected each node on one router",
          "net:3: router 2 cannot be reached from router 0; expected a connected network (BookSim's routing table "
          "needs one)",
          "net:1: latency '0'; expected 1..65535 cycles",
          "net:1: router 0 linked to itself; expected another router",
          "net:1: latency '5' after 'node 0 router 1' (BookSim files it under a bogus entry); expected it on the "
          "router's line: 'router 1 node 0 5'",
          "net: node 1 is missing; expected node ids 0..2 without gaps (largest 2, line 2)",
          "net:2: unexpected NUL byte; expected a text file",
          "parameter 'file': cannot open 'net': No such file or directory; expected a BookSim anynet network_file"],
         {f"net{i}": n for i, n in enumerate(_NETS)}, False),
    ],
    "docs/analysis.md": [
        # Two triangles: graph refuses them at build time, so describe never
        # reports "connected": false (the doc said it did).
        ("netloom topo describe graph:file=g.txt --json", 2,
         ["graph is not connected: router 3 cannot be reached from router 0"],
         {"g.txt": "0 1\n1 2\n2 0\n3 4\n4 5\n5 3\n"}, False),
        ("netloom topo export torus:k=4x4 --format json -o /dev/full", 1,
         ["netloom topo export: --output: /dev/full: write failed: No space left on device"], {}, False),
        ("netloom topo export torus:k=4x4 --format json > /dev/full", 1,
         ["netloom topo export: stdout: write failed: No space left on device"], {}, False),
        ("netloom topo describe mesh:k=1000", 0,
         ["1:999 ... 16:984 ... 979 more (--json lists all) ... 996:4 ... 999:1"], {}, False),
        ("netloom topo describe torus:k=256x256 --faults --trials 1000000", 2,
         ["--faults: 1000000 trials x (65536 routers + 131072 links) is 1.9661e+11 steps, about 5 hours of work at "
          "1e+07 steps a second; expected at most 3.6e+10 (about 60 minutes): --trials 183105 or fewer"], {}, True),
        ("netloom topo describe torus:k=256x256 --bisection --metis-runs 10000", 2, ["--metis-runs 5493 or fewer"],
         {}, False),
        ("netloom topo describe fly:k=12 --bisection", 0,
         ["bisection 6 endpoint links (one router: endpoints 6 | 6, ...)", "B_r not defined"], {}, False),
        ("netloom design hyperx --terminals 131072 --radix 128 --bisection 100", 1,
         ["no configuration meets the request"], {}, False),
        ("netloom design equality --routers 14 --endpoints 65537", 2,
         ["netloom design equality: --endpoints: expected an integer in 0..65536, got '65537'"], {}, False),
        ("netloom design equality --radix 2 --routers 14", 2,
         ["netloom design equality: --radix: expected an integer in 3..13 for 14 routers, got '2'"], {}, False),
        ("netloom design dragonfly --terminals 100 --radix 2", 1,
         ["netloom design dragonfly: no configuration meets the request: the smallest dragonfly with full global "
          "bandwidth has radix 3; expected --radix 3 or more"], {}, False),
        ("netloom design dragonfly --terminals 2551 --radix 20", 1,
         ["... no configuration meets the request: within radix 20 the most terminals are 2550 "
          "(dragonfly:a=10,p=5,h=5,g=51); expected --terminals 2550 or fewer, or a larger --radix"], {}, False),
        ("netloom design flex --terminals 40000000 --radix 40", 1,
         ["the most terminals are 4166568 (flex:nx=7,ny=7,nz=7086,p=12)"], {}, False),
        ("netloom design flex --terminals 100000000000 --radix 400", 1,
         ["within radix 400 every listing builds more than 50000000 router ports (the limit); at radix 341 the most "
          "terminals are 45600 (flex:nx=4,ny=4,nz=475,p=6); expected --radix 341 with --terminals 45600 or fewer"],
         {}, False),
        ("netloom design flex --terminals 100 --radix 400; netloom design dragonfly --terminals 1000 --radix 2000; "
         "netloom design flex --terminals 38534580 --radix 40", 2,
         ["--radix 341 lists --terminals 100 within it", "--radix 842",
          "--terminals 4166568 or fewer (flex:nx=7,ny=7,nz=7086,p=12) at this radix"], {}, False),
    ],
    "docs/placement.md": [
        ("netloom replay traces/samples/lammps-lj-16.nlt -s topology=torus:k=2x2 -s placement=contiguous", 2,
         ["netloom replay: -s: key 'placement': value 'contiguous': the job needs 16 endpoints (16 ranks, 1 per "
          "node), only 4 of 4 free"], {}, True),
        ("for i in 1 2 3 4 5 6 7 8 9 10; do cp w$i.ini w.ini; " + _INTERFERE + "; done", 2,
         ["w.ini:2: section [jb A]: expected [workload] or [job NAME] (did you mean [job A]?)",
          "w.ini:3: [job A] key 'placment': value 'spread': expected a job key: trace, placement, ...; or for a "
          "synthetic job synthetic, ... (did you mean 'placement'?)",
          "value 'sprad': expected one of contiguous, ..., map (did you mean 'spread'?)",
          "value 'Ring': expected a synthetic pattern: alltoall, shift or ring (did you mean 'ring'?)",
          "w.ini:1: key 'trace' before any section; expected it under [workload] or [job NAME]",
          "w.ini:4: [job A] indented line 'repeat = 2' reads as 'name = value' after key 'placement'; expected keys "
          "unindented ...",
          "netloom interfere: w.ini:3: [job A] key 'ranks_per_node': value 'two': expected an integer 1..1048576",
          "netloom interfere: w.ini:6: section [job A]: job 'A' given twice; expected one section per job",
          "netloom interfere: w.ini:9: [job B] key 'placement' given twice (first at line 8); expected each key "
          "once",
          "netloom interfere: w.ini:12: [job C] key 'placement' (unset: contiguous): the job needs 8 endpoints (8 "
          "ranks, 1 per node), only 0 of 16 free"],
         {"s.ini": _LINKS_SYS, "w1.ini": "[workload]\n[jb A]\n", "w2.ini": "[job A]\n" + _JOB + "placment = spread\n",
          "w3.ini": "[job A]\n" + _JOB + "placement = sprad\n", "w4.ini": "[job A]\nsynthetic = Ring\n",
          "w5.ini": _JOB, "w6.ini": "[job A]\n" + _JOB + "placement = contiguous\n    repeat = 2\n",
          "w7.ini": "[job A]\n" + _JOB + "ranks_per_node = two\n",
          "w8.ini": "[job A]\n" + _JOB + "\n\n\n[job A]\n" + _JOB,
          "w9.ini": "[job A]\n" + _JOB + "\n\n\n\n[job B]\nplacement = map\nplacement = spread\n",
          "w10.ini": "[job A]\n" + _JOB + "\n\n\n\n[job B]\n" + _JOB + "\n\n[job C]\n" + _JOB}, False),
        (_INTERFERE, 2,
         ["netloom interfere: w.ini:10: [job B] key 'placement_map': even.map: rank 0: endpoint 0 is taken by "
          "another job"],
         {"s.ini": _LINKS_SYS, "even.map": "".join(f"{r} {2 * r}\n" for r in range(8)),
          "w.ini": "[job A]\n" + _JOB + "placement = contiguous\n\n\n\n[job B]\n" + _JOB
                   + "placement = map\nplacement_map = even.map\n"}, False),
        (_INTERFERE, 0,
         ["netloom interfere: warning: w.ini:4: [job A] key 'placement_seed': value '7' is not read by interfere "
          "(placement = contiguous draws nothing; random-node and random-router do); it has no effect",
          "netloom interfere: warning: w.ini:8: [job B] key 'placement_inner': value 'round_robin' is not read by "
          "interfere (ranks_per_node = 1 (unset): one rank per node, in either order); it has no effect",
          "netloom interfere: warning: w.ini:14: [job M] key 'ranks_per_node': value '2' is not read by interfere "
          "(placement = map gives each rank its endpoint from the map file); it has no effect",
          "netloom interfere: warning: w.ini:2: [workload] key 'seed': value '7' is not read by interfere (no job's "
          "placement draws from it; random-node and random-router do); it has no effect"],
         {"s.ini": _LINKS_SYS.replace("4x4", "8x8"), "m.map": "".join(f"{r} {40 + r}\n" for r in range(8)),
          "w.ini": "[workload]\nseed = 7\n[job A]\nplacement_seed = 7\n" + _JOB + "placement = contiguous\n"
                   "[job B]\nplacement_inner = round_robin\n" + _JOB + "[job M]\nplacement = map\n" + _JOB
                   + "placement_map = m.map\nranks_per_node = 2\n"}, False),
        (_INTERFERE, 0, ["(each job whose placement draws sets its own placement_seed)"],
         {"s.ini": _LINKS_SYS, "w.ini": "[workload]\nseed = 7\n[job A]\n" + _JOB
                                        + "placement = random-node\nplacement_seed = 3\n"}, False),
        ("PATH=${PATH%%:*}; " + _INTERFERE + " --plot out.svg --json o.json; " + _INTERFERE + " --plot out.svg; "
         + _INTERFERE + " --plot out.svg --json -; " + _INTERFERE + " --plot -", 3,
         ["netloom interfere: --plot out.svg: gnuplot not found; expected gnuplot on PATH (Debian: apt-get install "
          "gnuplot-nox); the table and JSON were written", "the table was written", "the JSON was written",
          "nothing was written"], {"s.ini": _LINKS_SYS, "w.ini": "[job A]\n" + _JOB}, False),
        (_INTERFERE + " --json /dev/full", 1,
         ["netloom interfere: --json: /dev/full: write failed: No space left on device"],
         {"s.ini": _LINKS_SYS, "w.ini": "[job A]\n" + _JOB}, False),
        ("TMPDIR=/nonexist " + _INTERFERE + " --plot -", 2,
         ["netloom interfere: --plot: /nonexist/netloom-out: /nonexist: no such directory; expected an existing "
          "folder to write to; TMPDIR names that folder"], {"s.ini": _LINKS_SYS, "w.ini": "[job A]\n" + _JOB}, False),
        ("cp traces/samples/lammps-lj-2.nlt a.nlt && printf '\\377' | dd of=a.nlt bs=1 seek=280 conv=notrunc "
         "status=none && " + _INTERFERE, 2,
         ["netloom interfere: w.ini:2: [job A] key 'trace': a.nlt: rank 0, offset 251: frame does not decompress: "
          "Data corruption detected"], {"s.ini": _LINKS_SYS, "w.ini": "[job A]\ntrace = a.nlt\n"}, False),
    ],
    "docs/results.md": [
        ("touch afile; netloom run --json out/r.json; netloom run --json afile/r.json", 2,
         ["netloom run: --json: out/r.json: out: no such directory; expected an existing folder to write to",
          "...: not a directory; expected a folder to write to"], {}, False),
        (f"for i in 0 1 2 3; do cp {_DUMPI}/testtrace-000$i.bin t-000$i.bin; done && "
         f"sed s/=testtrace/=t/ {_DUMPI}/testtrace.meta > t.meta && netloom replay t.meta --json t-0001.bin", 2,
         ["the same file as TRACE t.meta's rank 1 file './t-0001.bin'"], {}, False),
        ("netloom run -s topology=graph:file=g.txt --json g.txt", 2,
         ["netloom run: --json 'g.txt': the same file as -s topology graph:file= 'g.txt', an input; expected another "
          "file"], {"g.txt": "0 1\n1 2\n2 0\n"}, False),
        (f"cp {_LJ2} p.nlt && netloom replay p.nlt --json p.nlt", 2,
         ["netloom replay: --json 'p.nlt': the same file as TRACE 'p.nlt', an input; expected another file"],
         {}, False),
        ("echo graph:file=g.txt | netloom topo describe @/dev/stdin -o g.txt", 2,
         ["the same file as graph:file= in @/dev/stdin 'g.txt'"], {"g.txt": "0 1\n1 2\n2 0\n"}, True),
        ("printf '[network]\\ntopology = graph:file=g.txt\\n' | netloom run -c /dev/stdin --json g.txt", 2,
         ["netloom run: --json 'g.txt': the same file as /dev/stdin:2 topology graph:file= 'g.txt', an input; "
          "expected another file"], {"g.txt": "0 1\n1 2\n2 0\n"}, False),
        (f"netloom replay {_LJ2} --svg out.svg --json out.svg", 2,
         ["netloom replay: --svg 'out.svg': the same file as --json; expected another file"], {}, False),
        ("netloom cost torus:k=4x4 --json a.json --json b.json", 2, ["netloom cost: option '--json' given twice"],
         {}, False),
        ("netloom run --json --csv", 2,
         ["netloom run: --json '--csv': an option, not a file name (a value left out?); expected a file to write "
          "(./--csv for a file of that name)"], {}, False),
        ("netloom topo describe torus:k=4x4 -o --samples 3", 2, ["--output '--samples': ..."], {}, False),
        ("netloom replay -", 2,
         ["netloom replay: '-': standard input is not read here; expected a trace file's path"], {}, False),
        ("netloom run -s topology=torus:k=8x4 -s traffic=transpose -s injection_rate=0.01", 0,
         ["32 endpoints (16 active: transpose needs a power of four)"], {}, False),
        ("netloom run --plot c.svg", 2,
         ["netloom run: option '--plot' is sweep's, not run's (run simulates one rate); expected 'netloom sweep "
          "--rates A:B:STEP' with it (see 'netloom sweep --help')"], {}, False),
        ("PATH=${PATH%%:*}; " + "; ".join(_SWEEP1 + " " + o for o in (
            "--plot curve.svg", "--plot curve.svg --json j.json", "--plot curve.svg --csv",
            "--plot curve.svg --csv --json j.json", "--plot curve.svg --json -", "--plot -")), 3,
         ["netloom sweep: --plot curve.svg: gnuplot not found; expected gnuplot on PATH (Debian: apt-get install "
          "gnuplot-nox); the table was written", "the table and JSON were written", "the CSV was written",
          "the CSV and JSON ...", "the JSON was written", "nothing was written"], {}, False),
        (_SWEEP1 + " --plot /dev/full", 3,
         ["netloom sweep: --plot: /dev/full: write failed: No space left on device"], {}, False),
        ("netloom run -s topology=torus:k=4x4 --json /dev/full", 1,
         ["netloom run: --json: /dev/full: write failed: No space left on device"], {}, False),
        ("netloom run -s topology=torus:k=4x4 > /dev/full", 1,
         ["netloom run: stdout: write failed: No space left on device"], {}, False),
    ],
    "docs/scaling.md": [
        ("NETLOOM_TEST_FAIL_THREAD=all netloom run -s topology=torus:k=4x4 -s threads=3 -s injection_rate=0.05", 0,
         ["netloom run: warning: 1 of 3 threads started for a network's partitions (pthread_create: Resource "
          "temporarily unavailable); running on 1"], {}, False),
    ],
    # serve's refusals come before it binds or waits; --connect-timeout-ms
    # bounds a session should one start all the same.
    "docs/live.md": [
        ("S='netloom serve --ranks 2 --listen ipc://s.sock --connect-timeout-ms 200'; "
         f"cp {_LJ2} p.nlt; $S --json same.x --messages ./same.x; $S --trace p.nlt --record ./p.nlt; "
         "netloom serve --ranks 2 --listen ipc://s.nlt --record s.nlt; $S --json a.json --json b.json; "
         "$S --trace traces; netloom serve --ranks 4 --curve-keygen k",
         2, ["--messages './same.x': the same file as --json; expected another file",
             "--record './p.nlt': the same file as --trace 'p.nlt', an input; expected another file",
             "--record 's.nlt': the same file as --listen 'ipc://s.nlt', the socket it creates; expected another "
             "file", "option '--json' given twice",
             "netloom serve: --trace: traces: is a directory, not a trace file",
             "--curve-keygen FILE writes a key pair and exits, serving nothing; expected it alone, got --ranks too "
             "..."], {}, False),
    ],
}

# A doc's list of a command's options (the docstring): command, doc,
# section title, C file, name of its `struct option` table.
OPTION_LISTS = [
    ("serve", "docs/live.md", "Start a session", "emu/cli/cli_serve.c", "serve_longopts"),
]

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


def blanks_collapsed(text):
    return " ".join(text.split())


def quote_pattern(quote):
    """A regular expression for a quote, its `...` standing for any text."""
    return re.compile(".*?".join(re.escape(part) for part in blanks_collapsed(quote).split("...")))


def run_quoted(top, root, netloom, fixtures, env, listing):
    """Runs (or lists) QUOTED; (failures, commands run)."""
    fails = []
    n_run = 0
    for doc, entries in QUOTED.items():
        with open(os.path.join(root, doc), encoding="utf-8") as fh:
            text = blanks_collapsed(fh.read())
        for cmd, status, quotes, files, in_doc in entries:
            where = f"{doc} (quoted)"
            n_run += 1
            if listing:
                print(f"{where}: run, exit {status}{', in the doc' if in_doc else ''}: {cmd}")
                continue
            if in_doc and blanks_collapsed(cmd) not in text:
                fails.append(f"{where}: {cmd}: the command is no longer in the doc (update QUOTED)")
            for q in quotes:
                if not quote_pattern(q).search(text):
                    fails.append(f"{where}: {cmd}: the doc no longer quotes {q!r} (update QUOTED)")
            d = make_dir(top, root, netloom, fixtures)
            for name, content in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
                with open(os.path.join(d, name), "w", encoding="utf-8") as fh:
                    fh.write(content)
            t0 = time.monotonic()
            try:
                p = subprocess.run(["bash", "-c", cmd], cwd=d, env=env, capture_output=True, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                fails.append(f"{where}: {cmd}: still running after {TIMEOUT_S} s")
                shutil.rmtree(d)
                continue
            print(f"{time.monotonic() - t0:6.1f} s  exit {p.returncode}  {where}: {cmd}", flush=True)
            out = p.stdout.decode(errors="replace") + "\n" + p.stderr.decode(errors="replace")
            if p.returncode != status:
                fails.append(f"{where}: {cmd}: exit {p.returncode}, the doc says {status}\n    stderr: "
                             + p.stderr.decode(errors="replace")[:600].rstrip())
            lines = [blanks_collapsed(line) for line in out.split("\n")]
            for q in quotes:
                pat = quote_pattern(q)
                if not any(pat.search(line) for line in lines):
                    fails.append(f"{where}: {cmd}: no line of its output holds {q!r}\n    output: "
                                 + out[:600].rstrip())
            shutil.rmtree(d)
    return fails, n_run


def help_options(text):
    """--help's options: {long: (short or None, its text, blanks collapsed)}."""
    opts = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"  (?:-(\w), )?\s*--([\w-]+)", line)
        if m:
            cur = m.group(2)
            opts[cur] = (m.group(1), line)
        elif cur and line.startswith("      ") and line.strip():
            opts[cur] = (opts[cur][0], opts[cur][1] + " " + line)
        else:
            cur = None
    return {k: (sh, blanks_collapsed(t)) for k, (sh, t) in opts.items()}


def getopt_table(path, name):
    """The C `struct option NAME[]` table: {long: short or None}."""
    with open(path, encoding="utf-8") as fh:
        src = fh.read()
    m = re.search(re.escape(name) + r"\[\]\s*=\s*\{(.*?)\n\};", src, re.S)
    if not m:
        return None
    return {lo: (sh or None) for lo, sh in
            re.findall(r'\{"([\w-]+)",\s*\w+,\s*NULL,\s*(?:\'(\w)\'|\w+)\}', m.group(1))}


def doc_option_list(path, section):
    """The section's option bullets: [(longs, shorts, text, line)]."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    bullets, inside = [], False
    for i, line in enumerate(lines, 1):
        if line.startswith("## "):
            inside = line[3:].strip() == section
            continue
        if not inside:
            continue
        if line.startswith("- "):
            bullets.append([line, i])
        elif bullets and line.startswith("  ") and line.strip() and bullets[-1][1] > 0:
            bullets[-1][0] += " " + line
        else:
            if bullets:
                bullets[-1][1] = -abs(bullets[-1][1])  # closed: later indented lines are not its own
    out = []
    for text, i in bullets:
        head = re.match(r"- ((?:`[^`]+`(?:, )?)+)", text)
        if not head:
            continue
        words = [w.split()[0] for w in re.findall(r"`([^`]+)`", head.group(1))]
        longs = [w[2:] for w in words if w.startswith("--")]
        shorts = [w[1:] for w in words if re.fullmatch(r"-\w", w)]
        out.append((longs, shorts, blanks_collapsed(text), abs(i)))
    return out


def check_option_lists(root, netloom, env):
    """OPTION_LISTS (the docstring); a list of failures."""
    fails = []
    for cmd, doc, section, csrc, table in OPTION_LISTS:
        p = subprocess.run([netloom, cmd, "--help"], env=env, capture_output=True, timeout=TIMEOUT_S)
        helps = help_options(p.stdout.decode(errors="replace"))
        getopts = getopt_table(os.path.join(root, csrc), table)
        bullets = doc_option_list(os.path.join(root, doc), section)
        what = f"{doc} \"{section}\" vs netloom {cmd} --help"
        if not helps or not getopts or not bullets:
            fails.append(f"{what}: cannot read the options (--help: {len(helps)}, {csrc} {table}: "
                         f"{len(getopts or {})}, {doc}: {len(bullets)} bullets)")
            continue
        in_doc = {lo: b for b in bullets for lo in b[0]}
        for name, names in ((f"{cmd} --help", set(helps)), (f"{csrc} {table}", set(getopts)),
                            (doc, set(in_doc))):
            for lo in sorted(set(getopts) - names):
                fails.append(f"{what}: --{lo} is in {csrc} {table} but not in {name}")
            for lo in sorted(names - set(getopts)):
                fails.append(f"{what}: --{lo} is in {name} but not in {csrc} {table}")
        for lo, (short, text) in sorted(helps.items()):
            if lo not in in_doc:
                continue
            longs, shorts, btext, line = in_doc[lo]
            where = f"{doc}:{line} (--{lo})"
            if short != getopts.get(lo, short):
                fails.append(f"{what}: --{lo}'s short option is -{short} in --help, -{getopts.get(lo)} in {csrc}")
            if short and short not in shorts:
                fails.append(f"{where}: no `-{short}` beside `--{lo}` at the bullet's start, as --help has")
            wants = re.findall(r"\d[\w^.+-]*?\.\.\d[\w^+-]*(?:\.\d+)?", text)
            wants += re.findall(r"default(?: port)? (\d+)", text)
            wants += ["required"] if re.search(r"\brequired\b", text) else []
            for w in wants:
                if not re.search(r"(?<![\w.^])" + re.escape(w) + r"(?![\w^]|\.\d)", btext):
                    fails.append(f"{where}: '{w}' is in --help's text of the option but not in its bullet")
        for longs, shorts, btext, line in bullets:
            for sh in shorts:
                if not any(helps.get(lo, (None,))[0] == sh for lo in longs):
                    fails.append(f"{doc}:{line}: `-{sh}` stands beside none of its long option in --help")
    return fails


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
    q_fails, q_run = run_quoted(top, root, netloom, fixtures, env, listing)
    fails += q_fails
    if not listing:
        fails += check_option_lists(root, netloom, env)
    n_run += q_run
    for cmd in SKIP:
        if cmd not in used:
            fails.append(f"SKIP entry matches no documented command (the doc changed: update or remove it): {cmd}")
    return fails, n_run, n_skip


if __name__ == "__main__":
    main()
