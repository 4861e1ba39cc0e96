# Shared set-up of the replay e2e scripts (sourced, not run): a scratch
# directory $dir removed on exit, no progress lines, a failure counter and
# the comparison helpers every check uses.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0
fails=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# json FILE EXPR: evaluate a Python expression over the document `d`.
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

expect_eq() { # what got want
  if [ "$2" != "$3" ]; then fail "$1: got '$2', expected '$3'"; fi
}

# sig_run OUT SIG SECS COMMAND...: runs COMMAND (in the background: `&`)
# with SIG at its default action (a script's background job starts with
# SIGINT ignored, which netloom keeps ignored), stdout and stderr in
# OUT.out and OUT.err, its PID in OUT.pid once started; in OUT.end how it
# ended: "signal SIGINT" only when the signal itself ended it (an
# _exit(130) reads "exit 130": `wait` gives 130 for both, but a shell
# running netloom in a loop stops only on the first), "exit N", or
# "running after SECS s" (then killed).
sig_run() {
  python3 - "$@" <<'EOP'
import os, signal, subprocess, sys
out, sig, secs = sys.argv[1], getattr(signal, "SIG" + sys.argv[2]), float(sys.argv[3])
signal.signal(sig, signal.SIG_DFL)
with open(out + ".out", "wb") as o, open(out + ".err", "wb") as e:
    p = subprocess.Popen(sys.argv[4:], stdin=subprocess.DEVNULL, stdout=o, stderr=e)
with open(out + ".pid.tmp", "w") as f:
    f.write("%d\n" % p.pid)
os.replace(out + ".pid.tmp", out + ".pid")
try:
    rc = p.wait(timeout=secs)
    end = "signal " + signal.Signals(-rc).name if rc < 0 else "exit %d" % rc
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    end = "running after %g s" % secs
with open(out + ".end", "w") as f:
    f.write(end)
EOP
}
# sig_pid OUT: the PID sig_run noted in OUT.pid, waited for (60 s at most).
sig_pid() {
  for _ in $(seq 600); do [ -s "$1.pid" ] && break; sleep 0.1; done
  cat "$1.pid" 2> /dev/null
}
