#!/usr/bin/env python3
"""Install netloom into a temporary DESTDIR, build tests/api/example_run.c
against the installed tree with `pkg-config --cflags --libs netloom`, run
it, and check it prints what `netloom run --json - --reproducible` prints
for the same configuration and seed (docs/api.md). Before that, the
installed netloom is used as a user without a clone would (README.md,
"Installing"): its --help names the installed samples, examples and docs,
it replays a sample from an empty directory, the examples' traces are
found, and the man page (MAN_PAGE: yes when help2man made one) renders.

usage: install.py BUILD_DIR SOURCE_DIR NETLOOM_EXE MAN_PAGE"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

build, src, netloom, man_page = sys.argv[1:5]

CONFIGS = [
    [],
    ["topology=mesh:k=4x4", "injection_rate=0.3", "seed=7"],
    ["topology=dragonfly:a=4,p=2,h=2", "routing_function=min", "injection_rate=0.2", "seed=3"],
]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def sh(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        fail(f"{' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def ring_session(label, rank_cmd, env):
    """netloom serve for 2 ranks on a fresh ipc endpoint, and the two ranks
    rank_cmd(endpoint, rank) run under env: every one must exit 0."""
    with tempfile.TemporaryDirectory() as sd:
        ep = "ipc://" + os.path.join(sd, "s")
        srv = subprocess.Popen([netloom, "serve", "--ranks", "2", "-s", "backend=analytic", "--listen", ep],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ranks = [subprocess.Popen(rank_cmd(ep, r), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env) for r in range(2)]
        outs = [p.communicate(timeout=60) for p in ranks]
        _, serr = srv.communicate(timeout=60)
    if any(p.returncode for p in ranks) or srv.returncode != 0:
        fail(f"{label}: exits {[p.returncode for p in ranks]}, serve {srv.returncode}\n"
             f"{[o[1][-300:] for o in outs]}\n{serr[-300:]}")


def installed_dir(help_text, what, dest):
    """The directory the installed netloom's --help gives for `what`
    ("sample traces  /usr/local/share/netloom/samples"), under DESTDIR."""
    m = re.search(r"^\s*(?:Installed:)?\s*" + re.escape(what) + r"\s+(/\S+)$", help_text, re.M)
    if not m:
        fail(f"netloom --help names no installed '{what}' directory:\n{help_text}")
    return dest + m.group(1)


def run_made_first(ini, traces, exe, dest):
    """An installed example whose traces are not installed says what to run
    first: its comment's commands, run as written in an empty folder (the
    installed paths under DESTDIR, `netloom` the installed one), make them
    and the example runs. The tiling count is 2 rather than 60 (60 copies
    take 30 s to tile and minutes to compare)."""
    name = ini[len(dest):]
    text = open(ini).read()
    m = re.search(r"^; .*This installed copy reads (.*)\n; .*\n((?:;   .*\n)+)", text, re.M)
    if not m:
        fail(f"{name}: traces {traces} are not installed, and it says not what to run first")
    commands = [l[4:] for l in m.group(2).splitlines()]
    for t in traces:
        if t not in m.group(1):
            fail(f"{name}: trace {t} is not installed, and its 'This installed copy reads' line names not it")
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, NETLOOM_PROGRESS="0",
                   PATH=os.path.dirname(exe) + os.pathsep + os.environ.get("PATH", ""))
        for cmd in commands:
            for p in re.findall(r"(?<=\s)/\S+", cmd):
                if not os.path.exists(dest + p):
                    fail(f"{name}: command '{cmd}': {p} is not installed")
            run = re.sub(r"(?<=\s)/(?=\S)", dest + "/", cmd).replace(" 60 ", " 2 ")
            p = subprocess.run(["bash", "-c", run], cwd=work, env=env, capture_output=True, text=True,
                               timeout=120)
            if p.returncode != 0:
                fail(f"{name}: its command '{cmd}', run in an empty folder: exit {p.returncode}\n"
                     f"{p.stderr[-500:]}")
        for t in traces:
            if not os.path.isfile(os.path.join(work, t)):
                fail(f"{name}: its commands made no {t}")
        reports = glob.glob(os.path.join(work, "*", "report.json"))
        if "netloom compare" in text and len(reports) != 1:
            fail(f"{name}: its netloom compare command wrote no report.json: {os.listdir(work)}")
    print(f"ok: {name}: its traces made as it says, in an empty folder; it then runs")


def check_installed_data(dest):
    """A user of the installed netloom, in an empty directory: samples,
    example configurations, docs and the man page are where --help says."""
    exes = glob.glob(os.path.join(dest, "**", "bin", "netloom"), recursive=True)
    if len(exes) != 1:
        fail(f"expected one installed bin/netloom, found {exes}")
    help_text = sh([exes[0], "--help"]).stdout
    samples = installed_dir(help_text, "sample traces", dest)
    examples = installed_dir(help_text, "example configs", dest)
    docs = installed_dir(help_text, "docs (docs/X.md)", dest)
    lj16 = os.path.join(samples, "lammps-lj-16.nlt")
    for f in (lj16, os.path.join(samples, "calibration-shm.json"), os.path.join(samples, "README.md"),
              os.path.join(docs, "README.md"), os.path.join(docs, "docs", "replay.md"),
              os.path.join(examples, "interfere-workload.ini")):
        if not os.path.isfile(f):
            fail(f"not installed: {f[len(dest):]}")
    with tempfile.TemporaryDirectory() as empty:
        p = subprocess.run([exes[0], "replay", lj16, "-s", "backend=analytic"], capture_output=True, text=True,
                           cwd=empty, env=dict(os.environ, NETLOOM_PROGRESS="0"))
        first = p.stdout.split("\n")[0]
        if p.returncode != 0 or first != f"netloom replay: {lj16} (lmp, 16 ranks) on backend analytic":
            fail(f"installed replay of the installed sample: exit {p.returncode}, first line {first!r}\n"
                 f"{p.stderr[-300:]}")
    print(f"ok: the installed netloom replays {lj16[len(dest):]} from an empty directory")
    # The examples name their traces relative to themselves: installed,
    # each must name an installed sample, or be one the example says how
    # to make (table6-study.ini's tiled trace: it named ../../build/, a
    # clone's build, and said to run from the repository root).
    for ini in sorted(glob.glob(os.path.join(examples, "*.ini"))):
        missing = set()
        for line in open(ini):
            m = re.match(r"\s*trace\s*=\s*(\S+)", line)
            if m and not os.path.isfile(os.path.join(examples, m.group(1))):
                if "samples" in m.group(1):
                    fail(f"{ini[len(dest):]}: trace {m.group(1)} not found beside the installed example")
                missing.add(m.group(1))
        if missing:
            run_made_first(ini, sorted(missing), exes[0], dest)
    print("ok: the installed examples' traces are the installed samples, or made as the example says")
    mans = glob.glob(os.path.join(dest, "**", "man1", "netloom.1"), recursive=True)
    if man_page != "yes":
        print("skip: no man page (help2man was not found at setup)")
        return
    if len(mans) != 1:
        fail(f"expected one installed man1/netloom.1, found {mans}")
    env = dict(os.environ, MANWIDTH="100", LC_ALL="C.UTF-8")
    if shutil.which("man"):
        page = sh(["man", "-l", "-P", "cat", mans[0]], env=env).stdout
    elif shutil.which("groff"):
        page = sh(["groff", "-man", "-Tutf8", mans[0]], env=env).stdout
    else:
        print("skip: the man page is installed; neither man nor groff to render it")
        return
    page = re.sub(".\b", "", page)  # overstrike bold and underline
    for want in ("NAME", "SYNOPSIS", "netloom - ", "commands:", "replay", "EXIT STATUS", "FILES", "SEE ALSO",
                 "netloom help", samples[len(dest):]):
        if want not in page:
            fail(f"the installed man page, rendered, lacks {want!r}:\n{page[:1500]}")
    # Its EXIT STATUS said errors read 'netloom: ...' for an input or
    # output, which every command's line has named since the prefix
    # became the command's ('netloom run: x.ini: cannot open ...').
    status = page.split("EXIT STATUS", 1)[1].split("\nFILES", 1)[0]
    status = re.sub(r"\s+", " ", re.sub("\u2010\\s+", "", status))  # the renderer's hyphenation undone
    for want in ("starts with the command", "netloom trace convert: ...", "unknown command"):
        if want not in status:
            fail(f"the installed man page's EXIT STATUS lacks {want!r}: {status!r}")
    if "for an input or output" in status:
        fail(f"the installed man page's EXIT STATUS gives inputs and outputs their own prefix: {status!r}")
    # The DESCRIPTION is --help's text without what the page's own
    # sections say (scripts/man-page.py): the exit statuses once, the
    # installed paths in FILES only, not also mangled in running text.
    desc = page.split("DESCRIPTION", 1)[1].split("EXIT STATUS", 1)[0]
    for dup in ("usage:", "Exit status", "installed by", "/usr/local/share", samples[len(dest):]):
        if dup in desc:
            fail(f"the installed man page's DESCRIPTION repeats {dup!r}, which its own sections give: {desc!r}")
    print(f"ok: the installed man page renders ({len(page.splitlines())} lines)")


# docs/api.md shows the example as it is.
example = open(os.path.join(src, "tests", "api", "example_run.c")).read()
body = example[example.index("#include <netloom/netloom.h>"):]
if body not in open(os.path.join(src, "docs", "api.md")).read():
    fail("docs/api.md's example differs from tests/api/example_run.c")

with tempfile.TemporaryDirectory() as dest:
    sh(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", dest])
    check_installed_data(dest)
    pcs = glob.glob(os.path.join(dest, "**", "pkgconfig", "netloom.pc"), recursive=True)
    if len(pcs) != 1:
        fail(f"expected one installed netloom.pc, found {pcs}")
    libs = glob.glob(os.path.join(dest, "**", "libnetloom.so.0"), recursive=True)
    if len(libs) != 1:
        fail(f"expected the installed SONAME libnetloom.so.0, found {libs}")
    hdr = glob.glob(os.path.join(dest, "**", "include", "netloom", "netloom.h"), recursive=True)
    if len(hdr) != 1:
        fail(f"expected the installed header netloom/netloom.h, found {hdr}")
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]), PKG_CONFIG_SYSROOT_DIR=dest)
    flags = sh(["pkg-config", "--cflags", "--libs", "netloom"], env=env).stdout.split()
    if not any(f.startswith("-I" + dest) for f in flags) or "-lnetloom" not in flags:
        fail(f"pkg-config flags do not point into the installed tree: {flags}")
    exe = os.path.join(dest, "example_run")
    cc = os.environ.get("CC", "cc")
    sh([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", os.path.join(src, "tests", "api", "example_run.c"),
        *flags, "-o", exe])
    # The installed header on its own, as an embedder's compiler takes it:
    # C99 with -pedantic, and C++ (its extern "C" block).
    hsrc = os.path.join(dest, "use_header.c")
    with open(hsrc, "w") as f:
        f.write("#include <netloom/netloom.h>\n"
                "int main(void) { struct nl_err e; nl_sim *s = 0; int rc = nl_sim_new(&s, &e);\n"
                "  nl_sim_free(s); return rc == NL_EINVAL; }\n")
    sh([cc, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", hsrc, *flags, "-o", hsrc + ".c99"])
    if shutil.which("g++"):
        sh(["g++", "-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-pedantic", "-Werror", hsrc, "-x", "none",
            *flags, "-o", hsrc + ".cxx"])
        print("ok: the installed header compiles as C99 (-pedantic) and as C++")
    else:
        print("ok: the installed header compiles as C99 (-pedantic); no g++ for C++")
    # Only the public symbols are exported: the example links with them.
    nm = sh(["nm", "-D", "--defined-only", libs[0]]).stdout.split("\n")
    exported = sorted(l.split()[-1] for l in nm if " T " in l)
    bad = [s for s in exported if not s.startswith("nl_")]
    if bad:
        fail(f"libnetloom.so exports non-API symbols: {bad[:10]}")
    # The live client exports client.h only: libnetloom's nl_err_name and
    # nl_strerror, compiled into it too, stayed exported (two definitions in
    # a program linking both libraries).
    clibs = glob.glob(os.path.join(dest, "**", "libnetloom-client.so.*"), recursive=True)
    clibs = [c for c in clibs if not os.path.islink(c)]
    if len(clibs) != 1:
        fail(f"expected one installed libnetloom-client.so, found {clibs}")
    cnm = sh(["nm", "-D", "--defined-only", clibs[0]]).stdout.split("\n")
    cexported = sorted(l.split()[-1] for l in cnm if " T " in l)
    cbad = [s for s in cexported if not s.startswith("nl_client_")]
    if cbad or not cexported:
        fail(f"libnetloom-client.so exports {cbad[:10] or 'nothing'} beyond client.h's nl_client_*")
    # NULL arguments: -1 with one line, never libzmq's abort
    # ("Assertion failed: uri_ != NULL") or a NULL dereference. In a child
    # process, so an abort fails the check instead of the test runner.
    null_check = r'''
import ctypes, sys
L = ctypes.CDLL(sys.argv[1])
P, V = ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p
L.nl_client_connect.argtypes = [P, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_uint64,
                                ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
L.nl_client_error.argtypes = [V]
L.nl_client_error.restype = ctypes.c_char_p
for f in ("nl_client_send", "nl_client_barrier", "nl_client_compute", "nl_client_rank", "nl_client_job_first",
          "nl_client_job_size"):
    getattr(L, f).argtypes = {"nl_client_send": [V, ctypes.c_uint32, ctypes.c_int32, V, ctypes.c_size_t],
                              "nl_client_compute": [V, ctypes.c_uint64]}.get(f, [V])
c, err = ctypes.c_void_p(1), ctypes.create_string_buffer(256)
rc = L.nl_client_connect(ctypes.byref(c), None, 0, 1, 0, 500, err, 256)
print(rc, c.value, err.value.decode())
rc = L.nl_client_connect(None, b"ipc:///nonexistent/x", 0, 1, 0, 500, err, 256)
print(rc, err.value.decode())
print(L.nl_client_send(None, 0, 0, None, 8), L.nl_client_barrier(None), L.nl_client_compute(None, 1),
      L.nl_client_rank(None), L.nl_client_job_first(None), L.nl_client_job_size(None),
      L.nl_client_error(None).decode())
# An endpoint holding a carriage return is quoted escaped: one line.
rc = L.nl_client_connect(ctypes.byref(c), b"tcp://a\rb", 0, 1, 0, 500, err, 256)
print(rc, err.value.decode())
# Connected: NULL buffers and request pointers are refused locally and the
# connection goes on (the BYE completes).
L.nl_client_isend.argtypes = [V, ctypes.c_uint32, ctypes.c_int32, V, ctypes.c_size_t, V]
L.nl_client_irecv.argtypes = [V, ctypes.c_int32, ctypes.c_int32, V, ctypes.c_size_t, V]
L.nl_client_waitall.argtypes = [V, V, ctypes.c_size_t, V]
L.nl_client_close.argtypes = [V]
c = ctypes.c_void_p()
if L.nl_client_connect(ctypes.byref(c), sys.argv[2].encode(), 0, 1, 0, 20000, err, 256) < 0:
    sys.exit("connect: " + err.value.decode())
one = ctypes.create_string_buffer(8)
for call in (lambda: L.nl_client_send(c, 0, 0, None, 8), lambda: L.nl_client_isend(c, 0, 0, one, 8, None),
             lambda: L.nl_client_irecv(c, 0, 0, None, 8, ctypes.byref(ctypes.c_uint32())),
             lambda: L.nl_client_waitall(c, None, 2, None)):
    rc = call()
    print(rc, L.nl_client_error(c).decode())
# A session of one job (no --jobs): the job is every rank, 0 and size.
print("job", L.nl_client_job_first(c), L.nl_client_job_size(c))
print("close", L.nl_client_close(c))
'''
    with tempfile.TemporaryDirectory() as sd:
        ep = "ipc://" + os.path.join(sd, "s")
        srv = subprocess.Popen([netloom, "serve", "--ranks", "1", "-s", "backend=analytic", "--listen", ep],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            nc = subprocess.run([sys.executable, "-c", null_check, clibs[0], ep], capture_output=True, text=True,
                                timeout=60)
        finally:
            try:
                srv.wait(timeout=20)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait()
    want = ["-1 None connect: NULL endpoint, expected tcp://HOST:PORT or ipc://PATH",
            "-1 connect: NULL client pointer, expected where to store the client",
            "-1 -1 -1 0 0 0 NULL client, expected one from nl_client_connect",
            "-1 connect 'tcp://a\\rb': Invalid argument, expected tcp://HOST:PORT or ipc://PATH (as netloom serve "
            "--listen gives it)",
            "-1 send: NULL buf with 8 bytes, expected a buffer",
            "-1 isend: NULL req, expected where to store the request",
            "-1 irecv: NULL buf with 8 bytes, expected a buffer",
            "-1 waitall: NULL reqs with 2 requests, expected an array",
            "job 0 1",
            "close 0"]
    if nc.returncode != 0 or nc.stdout.splitlines() != want:
        fail(f"client NULL arguments: exit {nc.returncode}, got {nc.stdout.splitlines()}, expected {want}\n"
             f"{nc.stderr[-500:]}")
    print("ok: client NULL arguments refused with one line")
    # The live client builds from its own installed pkg-config file
    # (there was none: docs/live.md gave -I/-L/-rpath by hand).
    cpcs = glob.glob(os.path.join(dest, "**", "pkgconfig", "netloom-client.pc"), recursive=True)
    if len(cpcs) != 1:
        fail(f"expected one installed netloom-client.pc, found {cpcs}")
    cflags = sh(["pkg-config", "--cflags", "--libs", "netloom-client"], env=env).stdout.split()
    if not any(f.startswith("-I" + dest) for f in cflags) or "-lnetloom-client" not in cflags:
        fail(f"netloom-client pkg-config flags do not point into the installed tree: {cflags}")
    ring = os.path.join(dest, "live_ring")
    sh([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", os.path.join(src, "adapters", "examples", "ring.c"),
        *cflags, "-o", ring])
    ring_session("ring built with netloom-client.pc", lambda ep, r: [ring, ep, str(r), "2", "16", "2"],
                 dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(clibs[0])))
    print("ok: the live ring builds with netloom-client.pc and runs against serve")
    # The Python client is installed too (it was not): ring.py, copied
    # alone so that its own folder holds no client, imports it from
    # PYTHONPATH=PREFIX/share/netloom/python under Debian's interpreter.
    pyc = glob.glob(os.path.join(dest, "**", "share", "netloom", "python", "netloom_client.py"), recursive=True)
    if len(pyc) != 1:
        fail(f"expected one installed share/netloom/python/netloom_client.py, found {pyc}")
    with tempfile.TemporaryDirectory() as sd:
        pyring = os.path.join(sd, "ring.py")
        with open(os.path.join(src, "adapters", "python", "ring.py")) as f, open(pyring, "w") as g:
            g.write(f.read())
        ring_session("ring.py with the installed client",
                     lambda ep, r: ["/usr/bin/python3", pyring, ep, str(r), "2", "16"],
                     dict(os.environ, PYTHONPATH=os.path.dirname(pyc[0])))
    print("ok: ring.py runs with the installed Python client")
    run_env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(libs[0]))
    for cfg in CONFIGS:
        ex = subprocess.run([exe, *cfg], capture_output=True, text=True, env=run_env)
        sets = [a for kv in cfg for a in ("-s", kv)]
        cli = subprocess.run([netloom, "run", *sets, "--json", "-", "--reproducible"], capture_output=True,
                             text=True)
        if ex.returncode != cli.returncode:
            fail(f"{cfg}: exit {ex.returncode} (example) vs {cli.returncode} (netloom run)\n{ex.stderr}")
        if ex.stdout != cli.stdout or not ex.stdout.startswith("{"):
            fail(f"{cfg}: the example's JSON differs from netloom run's ({len(ex.stdout)} vs "
                 f"{len(cli.stdout)} bytes)")
        print(f"ok {cfg or ['defaults']}: {len(ex.stdout)} bytes identical")
    print(f"ok: {len(exported)} exported symbols, all nl_*; client: {len(cexported)}, all nl_client_*")
# The build tree's own netloom.pc (meson-uninstalled) builds the example
# too, without installing (docs/api.md).
with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(build, "meson-uninstalled"))
    flags = sh(["pkg-config", "--cflags", "--libs", "netloom"], env=env).stdout.split()
    exe = os.path.join(tmp, "example_run")
    sh([os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Wextra", "-Werror",
        os.path.join(src, "tests", "api", "example_run.c"), *flags, "-o", exe])
    ex = subprocess.run([exe], capture_output=True, text=True, env=dict(os.environ, LD_LIBRARY_PATH=build))
    if ex.returncode != 0 or not ex.stdout.startswith("{"):
        fail(f"example built with meson-uninstalled's netloom.pc: exit {ex.returncode}\n{ex.stderr}")
    print("ok: the example builds and runs with meson-uninstalled's netloom.pc")
