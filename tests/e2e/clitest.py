"""Shared helpers of the end-to-end CLI checks (cli_engine.py, cli_analyze.py).

A check script is `SCRIPT NETLOOM CASE [...]`: it defines `case_<name>()`
functions that raise Fail, and ends with `clitest.main(globals())`. Exit 0
pass, 1 fail, 77 skip (the case calls sys.exit(77) itself).
"""
import json
import os
import subprocess
import sys

NETLOOM = sys.argv[1]
ENV = dict(os.environ, NETLOOM_PROGRESS="0")


class Fail(Exception):
    pass


def run(*args, code=0, env=None, timeout=None, cwd=None, stdin=None):
    """Run netloom with args; its exit status must be `code`; a run past
    `timeout` seconds (None: no limit) fails as a hang. `cwd`: the
    directory it runs in (None: this one); `stdin`: an open file for its
    standard input (None: this one's)."""
    exe = os.path.abspath(NETLOOM) if os.sep in NETLOOM else NETLOOM  # the same from any cwd
    try:
        p = subprocess.run([exe, *args], capture_output=True, env=env or ENV,
                           timeout=timeout, cwd=cwd, stdin=stdin)
    except subprocess.TimeoutExpired:
        raise Fail(f"netloom {' '.join(args)}: still running after {timeout} s (a hang)")
    if p.returncode != code:
        raise Fail(f"netloom {' '.join(args)}: exit {p.returncode}, expected {code}\n"
                   f"stdout: {p.stdout.decode()[:2000]}\nstderr: {p.stderr.decode()[:2000]}")
    return p


def run_json(*args):
    return json.loads(run(*args).stdout)


def eq(what, got, want):
    if got != want:
        raise Fail(f"{what}: got {got!r}, expected {want!r}")


def near(what, got, want, tol):
    if abs(got - want) > tol:
        raise Fail(f"{what}: got {got!r}, expected {want!r} +- {tol}")


def check(what, cond):
    if not cond:
        raise Fail(what)


def one_line_error(p, needle):
    """A failed run's error: one line on stderr starting 'netloom', holding
    `needle`, and nothing on stdout."""
    err = p.stderr.decode()
    if err.count("\n") != 1 or not err.startswith("netloom"):
        raise Fail(f"error is not one line starting 'netloom': {err!r}")
    if needle not in err:
        raise Fail(f"error {err!r} lacks {needle!r}")
    if p.stdout:
        raise Fail(f"stdout not empty on error: {p.stdout!r}")


def run_tty(args, env):
    """Run netloom with stderr on a pseudo-terminal (progress lines are drawn
    only there); returns (stdout, what the terminal got). Exit status 0."""
    import pty
    import select
    master, slave = pty.openpty()
    p = subprocess.Popen([NETLOOM, *args], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    got = b""
    while select.select([master], [], [], 60)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    out = p.stdout.read()
    p.wait()
    os.close(master)
    if p.returncode != 0:
        raise Fail(f"netloom {' '.join(args)}: exit {p.returncode}")
    return out, got


def disk_full_at_64k():
    """A preexec_fn that makes writes past 64 KiB fail as on a full disk:
    a file size limit with SIGXFSZ ignored, so write() fails with EFBIG
    where a full disk gives ENOSPC."""
    import resource
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))


def sigterm_while_staged(args, staged, timeout):
    """Run netloom ARGS, wait until a staged file (a name matching the glob
    STAGED, e.g. OUT + ".tmp*") has bytes in it, send SIGTERM and return
    (whether one was seen, exit status, stderr). Awaited non-empty: the
    outputs' writability checks make and remove empty staged files before
    the work. A staged file may go between the listing and the size (a
    probe removed, the rename at the end), so a vanished one is not seen."""
    import glob
    import signal
    import time

    def has_bytes(f):
        try:
            return os.path.getsize(f) > 0
        except OSError:
            return False

    p = subprocess.Popen([NETLOOM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    t0, seen = time.time(), False
    while not seen and p.poll() is None and time.time() - t0 < timeout:
        seen = any(has_bytes(f) for f in glob.glob(staged))
        time.sleep(0.002)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=timeout)
    return seen, p.returncode, err


def main(namespace):
    """Run the case named by argv[2] among namespace's case_* functions."""
    cases = {k[5:]: v for k, v in namespace.items() if k.startswith("case_")}
    name = sys.argv[2]
    if name not in cases:
        print(f"FAIL {name}: no such case (have: {', '.join(sorted(cases))})")
        sys.exit(1)
    try:
        cases[name]()
    except Fail as e:
        print(f"FAIL {name}: {e}")
        sys.exit(1)
    print(f"ok {name}")
