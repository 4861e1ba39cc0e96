# Shared by the engine benchmark scripts (sourced): helpers over
# `netloom run`'s output.

# Flit-hops per second from the "N cycles, F flit-hops in S s" line on
# standard input, recomputed in full (the line rounds it); $1 names the
# calling script in the error.
flit_hops_rate() {
  python3 -c '
import re, sys
m = re.search(r"(\d+) flit-hops in ([0-9.]+) s", sys.stdin.read())
if not m:
    sys.exit(sys.argv[1] + ": no flit-hops line in the output")
print(f"{int(m.group(1)) / float(m.group(2)):.0f}")' "$1"
}

# Arguments and environment values are checked before the first run, each
# refusal one line naming the value and what was expected, exit status 2
# (a usage error): $1 names the calling script, $2 the argument as the
# usage writes it.
# `bench_count SCRIPT NAME VALUE [MIN]`: VALUE must be an integer of MIN
# (1 unless given, or 0) or more, written without leading zeros, of at
# most 18 digits: past 2^63 - 1 (19 digits) `[ -ge ]` fails with its own
# line ("integer expression expected") before the refusal.
bench_count() {
  local min=${4:-1} want="a positive integer"
  [ "$min" -eq 1 ] || want="an integer, $min or more"
  case $3 in
  '' | *[!0-9]* | 0?*) echo "$1: $2 '$3': expected $want" >&2; exit 2 ;;
  esac
  [ "${#3}" -le 18 ] || { echo "$1: $2 '$3': expected $want (at most 18 digits)" >&2; exit 2; }
  [ "$3" -ge "$min" ] || { echo "$1: $2 '$3': expected $want" >&2; exit 2; }
}
# `bench_exe SCRIPT NAME PATH`: PATH must be an executable (a bare name is
# looked up in PATH).
bench_exe() {
  case $3 in
  */*) [ -f "$3" ] && [ -x "$3" ] || { echo "$1: $2 '$3': not an executable" >&2; exit 2; } ;;
  *) command -v -- "$3" >/dev/null || { echo "$1: $2 '$3': not found in PATH" >&2; exit 2; } ;;
  esac
}

# `bench_peak_kib SCRIPT WORDS CMD...`: the peak resident memory (KiB) of
# one command, via getrusage of the child; its standard output dropped. A
# command that fails ends the calling script with one line naming its
# first WORDS words (it has said why on its standard error).
bench_peak_kib() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys
script, words, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
if rc != 0:
    sys.exit(f"{script}: {' '.join(cmd[:words])} failed (exit status {rc})")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
