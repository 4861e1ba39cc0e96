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
