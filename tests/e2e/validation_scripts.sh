#!/usr/bin/env bash
# The scripts docs/validation.md runs by path (benchmarks/validation/...):
# each one with a #! line is executable, as the doc invokes them
# ("benchmarks/validation/booksim/anynet_side_by_side.py --netloom ..."),
# and a repro/ script given no arguments prints its usage, not a Python
# traceback; -h/--help prints the usage and an unknown option is refused;
# a failed netloom run, bad SIZES, an OUTDIR that is a file, a bad
# environment variable and a failing gnuplot are one line each. Nothing is
# simulated (stand-ins for netloom and gnuplot).
# usage: validation_scripts.sh SOURCE_ROOT
set -uo pipefail
root=$1
. "$(dirname "$0")/lib.sh"

for f in "$root"/benchmarks/validation/*.py "$root"/benchmarks/validation/*.sh \
         "$root"/benchmarks/validation/booksim/*.py "$root"/benchmarks/validation/booksim/*.sh \
         "$root"/benchmarks/validation/repro/*.py; do
  [ "$(head -c 2 "$f")" = '#!' ] || continue
  [ -x "$f" ] || fail "${f#"$root"/}: has a #! line but is not executable"
done

# Without NETLOOM OUTDIR a repro script says how to call it (as reproduce.sh
# does), exit 1, and writes nothing.
for f in "$root"/benchmarks/validation/repro/*.py; do
  name=${f##*/}
  (cd "$dir" && python3 "$f" > out 2> err)
  rc=$?
  expect_eq "$name without arguments: exit status" "$rc" 1
  grep -q Traceback "$dir/err" && fail "$name without arguments: a traceback: $(tail -1 "$dir/err")"
  grep -qi "^usage: $name NETLOOM OUTDIR" "$dir/err" ||
    fail "$name without arguments: stderr '$(head -1 "$dir/err")', expected 'usage: $name NETLOOM OUTDIR ...'"
  expect_eq "$name without arguments: stdout" "$(cat "$dir/out")" ""
done

# The scripts that take NETLOOM as their first argument (two_router.sh
# ran '--help' as netloom: "line 38: --help: command not found", exit
# 127; a repro script given '--help OUT' ran it too), and reproduce.sh:
# -h and --help print the usage on stdout, exit 0; an unknown option,
# first or after NETLOOM OUTDIR, is one line on stderr naming it with the
# usage, exit 2, before anything runs (/bin/true as NETLOOM: nothing to run).
for f in "$root"/benchmarks/validation/booksim/two_router.sh "$root"/benchmarks/validation/repro/*.py \
         "$root"/benchmarks/validation/reproduce.sh; do
  name=${f##*/}
  for h in -h --help "/bin/true $dir/o --help"; do
    # shellcheck disable=SC2086 # the third is NETLOOM OUTDIR --help
    (cd "$dir" && "$f" $h > out 2> err)
    rc=$?
    expect_eq "$name $h: exit status" "$rc" 0
    grep -qi "usage: *$name \|^ *$name \[\{0,1\}[-A-Z]" "$dir/out" ||
      fail "$name $h: stdout '$(head -1 "$dir/out")' holds no usage of $name"
    expect_eq "$name $h: stderr" "$(cat "$dir/err")" ""
  done
  case $name in
  reproduce.sh) want="reproduce.sh: unknown option '--bogus' (expected --netloom, --out, --list)" ;;
  two_router.sh) want="two_router.sh: unknown option '--bogus' (usage: two_router.sh NETLOOM [BOOKSIM] [L ...])" ;;
  *) want="$name: unknown option '--bogus' ($(cd "$dir" && "$f" 2>&1 >/dev/null | head -1))" ;;
  esac
  for args in "--bogus" "/bin/true $dir/o --bogus"; do
    # shellcheck disable=SC2086
    (cd "$dir" && "$f" $args > out 2> err)
    rc=$?
    expect_eq "$name $args: exit status" "$rc" 2
    expect_eq "$name $args: stderr" "$(cat "$dir/err")" "$want"
    expect_eq "$name $args: stdout" "$(cat "$dir/out")" ""
  done
  [ -e "$dir/o" ] && fail "$name: OUTDIR made before its arguments were checked"
done

# A closed stdout (`--help | head -1`, the reader gone before the write)
# ends a repro script as it ends netloom: by SIGPIPE, nothing on stderr,
# where it was a BrokenPipeError traceback. The pipe's read end is closed
# before the script starts, so the write always fails.
out=$(python3 -c '
import os, subprocess, sys
for f in sys.argv[1:]:
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run([f, "--help"], stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    print(os.path.basename(f), p.returncode, p.stderr.decode().strip()[-200:])' "$root"/benchmarks/validation/repro/*.py)
expect_eq "repro scripts' --help into a closed pipe: status (minus the signal), stderr" "$out" \
  "$(for f in "$root"/benchmarks/validation/repro/*.py; do echo "${f##*/} -13 "; done)"

# A netloom run that fails: one line on stderr naming the script, the
# netloom command (abbreviated) and netloom's own last stderr line, exit
# 1, where it was a Python traceback (subprocess.CalledProcessError). A
# stand-in netloom that says a warning, then refuses.
cat > "$dir/refusing-netloom" <<'EOF'
#!/bin/sh
echo "netloom: warning: an earlier line" >&2
echo "netloom $1: stand-in refusal" >&2
exit 2
EOF
chmod +x "$dir/refusing-netloom"
for f in "$root"/benchmarks/validation/repro/*.py; do
  name=${f##*/}
  (cd "$dir" && "$f" "$dir/refusing-netloom" "$dir/fo" > out 2> err)
  rc=$?
  expect_eq "$name, netloom fails: exit status" "$rc" 1
  grep -q Traceback "$dir/err" && fail "$name, netloom fails: a traceback: $(tail -1 "$dir/err")"
  expect_eq "$name, netloom fails: stderr lines" "$(wc -l < "$dir/err")" 1
  [[ "$(cat "$dir/err")" == "$name: netloom failed: $dir/refusing-netloom "[a-z]*" -"*": netloom "[a-z]*": stand-in refusal" ]] ||
    fail "$name, netloom fails: stderr '$(cat "$dir/err")', expected '$name: netloom failed: NETLOOM CMD ...: netloom CMD: stand-in refusal'"
  rm -rf "$dir/fo"
done
# The command is abbreviated: a long one ends in "..." within 120 characters.
(cd "$dir" && FLEX_TS=10 "$root/benchmarks/validation/repro/flex_fig14.py" "$dir/refusing-netloom" "$dir/fo" 2> err)
cmd=$(sed 's/^flex_fig14.py: netloom failed: //; s/: netloom sweep: stand-in refusal$//' "$dir/err")
[[ ${#cmd} -le 120 && "$cmd" == *... ]] || fail "flex_fig14.py, netloom fails: command '$cmd', expected at most 120 characters ending in '...'"
# On a terminal netloom's stderr goes straight to it (its progress line is
# drawn only there; captured, the long sweeps showed none): its lines as
# it writes them, then the script's line pointing at them.
/usr/bin/python3 - "$root/benchmarks/validation/repro/flex_fig14.py" "$dir/refusing-netloom" "$dir/fo" > "$dir/tty" <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode().replace("\r\n", "\n"))
sys.stdout.write("exit %d\n" % os.waitstatus_to_exitcode(status))
PY
expect_eq "flex_fig14.py on a terminal, netloom fails" "$(sed 's/: netloom failed: .*: exit status/: netloom failed: CMD: exit status/' "$dir/tty")" \
  "netloom: warning: an earlier line
netloom sweep: stand-in refusal
flex_fig14.py: netloom failed: CMD: exit status 2 (its message is above)
exit 1"
rm -rf "$dir/fo"
# A netloom that cannot be started: one line too.
(cd "$dir" && "$root/benchmarks/validation/repro/flex_fig14.py" "$dir/no-netloom" "$dir/fo" > out 2> err)
rc=$?
expect_eq "flex_fig14.py, no netloom: exit status" "$rc" 1
expect_eq "flex_fig14.py, no netloom: stderr" "$(cat "$dir/err")" \
  "flex_fig14.py: cannot run netloom: $dir/no-netloom: No such file or directory"
# reproduce.sh passes the script's line on, exit 1.
(cd "$dir" && "$root/benchmarks/validation/reproduce.sh" --netloom "$dir/refusing-netloom" --out "$dir/fo" flex_fig14 > out 2> err)
rc=$?
expect_eq "reproduce.sh, netloom fails: exit status" "$rc" 1
expect_eq "reproduce.sh, netloom fails: stderr" "$(grep -v '^== ' "$dir/err" | sed 's/: netloom failed: .*: netloom/: ... netloom/')" \
  "flex_fig14.py: ... netloom sweep: stand-in refusal"
rm -rf "$dir/fo"

# SIZES that are not sizes of the table (a word: ValueError; 100:
# KeyError): one line naming it, the sizes and the usage, exit 2, before
# anything runs.
for args in "ndt_table1.py abc" "ndt_table1.py 256 100" "swap_sec62.py abc" "swap_sec62.py 64 1e2"; do
  name=${args%% *} size=${args##* }
  case $name in ndt_table1.py) known="256 512 1024" ;; *) known="64 256 512" ;; esac
  # shellcheck disable=SC2086 # the sizes
  (cd "$dir" && "$root/benchmarks/validation/repro/$name" "$dir/refusing-netloom" "$dir/fo" ${args#* } > out 2> err)
  rc=$?
  expect_eq "$args: exit status" "$rc" 2
  expect_eq "$args: stderr" "$(cat "$dir/err")" \
    "$name: size '$size': expected one of $known (usage: $name NETLOOM OUTDIR [SIZES...])"
  [ -e "$dir/fo" ] && fail "$args: OUTDIR made before the sizes were checked"
done

# An OUTDIR that is a file (or under one): one line naming it, exit 2,
# before any run (the refusing stand-in is not reached); it was a Python
# traceback (FileExistsError), in equality_sec5.py, ndt_table1.py and
# swap_sec62.py after every run. reproduce.sh checks OUT and OUT/NAME.
: > "$dir/afile"
for f in "$root"/benchmarks/validation/repro/*.py; do
  name=${f##*/}
  for outdir in "$dir/afile" "$dir/afile/sub"; do
    (cd "$dir" && "$f" "$dir/refusing-netloom" "$outdir" > out 2> err)
    rc=$?
    expect_eq "$name, OUTDIR $outdir: exit status" "$rc" 2
    why=""
    [ "$outdir" = "$dir/afile" ] || why=" ('$dir/afile' is not a directory)"
    expect_eq "$name, OUTDIR $outdir: stderr" "$(cat "$dir/err")" \
      "$name: OUTDIR '$outdir': not a directory$why; expected a directory, or a path where one can be made, for the tables and plots"
  done
done
for outdir in "$dir/afile" "$dir/od"; do
  mkdir -p "$dir/od" && : > "$dir/od/flex_fig14"
  want=$outdir
  [ "$outdir" = "$dir/od" ] && want=$outdir/flex_fig14
  (cd "$dir" && "$root/benchmarks/validation/reproduce.sh" --netloom "$dir/refusing-netloom" --out "$outdir" flex_fig14 > out 2> err)
  rc=$?
  expect_eq "reproduce.sh --out $outdir: exit status" "$rc" 2
  expect_eq "reproduce.sh --out $outdir: stderr" "$(cat "$dir/err")" \
    "reproduce.sh: --out: '$want': not a directory; expected a directory, or a path where one can be made"
done
rm -rf "$dir/afile" "$dir/od"

# An environment variable of the wrong form: one line naming it, its
# value and the form expected, exit 2, before any run (the refusing
# stand-in is not reached) and before OUTDIR is made; reproduce.sh checks
# them before its first figure.
rates="expected START:STOP:STEP, numbers with 0 <= START <= STOP <= 1 and STEP > 0, e.g. 0.3:0.9:0.2"
while IFS='|' read -r name var value want; do
  (cd "$dir" && env "$var=$value" "$root/benchmarks/validation/repro/$name" "$dir/refusing-netloom" "$dir/fo" > out 2> err)
  rc=$?
  expect_eq "$var=$value $name: exit status" "$rc" 2
  expect_eq "$var=$value $name: stderr" "$(cat "$dir/err")" "$name: $var='$value': $want"
  [ -e "$dir/fo" ] && fail "$var=$value $name: OUTDIR made before the environment was checked"
  (cd "$dir" && env "$var=$value" "$root/benchmarks/validation/reproduce.sh" --netloom "$dir/refusing-netloom" \
    --out "$dir/fo" "${name%.py}" > out 2> err)
  rc=$?
  expect_eq "$var=$value reproduce.sh: exit status" "$rc" 2
  expect_eq "$var=$value reproduce.sh: stderr" "$(cat "$dir/err")" "reproduce.sh: $var='$value': $want"
  rm -rf "$dir/fo"
done <<EOF
flex_fig14.py|FLEX_RATES|0.3|$rates
flex_fig14.py|FLEX_RATES|0.3:0.1:0.1|$rates
flex_fig8_10.py|FLEX_RATES|0.1:0.9|$rates
flex_fig14.py|FLEX_TS|10,x|expected comma-separated positive integers, e.g. 10,100
flex_fig8_10.py|FLEX_FROM_TSV|$dir/none.tsv|expected an existing TSV file of an earlier flex_fig8_10.py run (empty: none)
hyperx_fig6.py|HYPERX_FIG6_SAMPLES|three|expected a positive integer
hyperx_fig6.py|HYPERX_FIG6_LOADS|0.1,1.5|expected comma-separated offered loads in (0, 1], e.g. 0.1,0.5 (empty: none)
hyperx_fig6.py|HYPERX_FIG6_CACHED|yes|expected 0 or 1
hyperx_fig7.py|HYPERX_FIG7_SAMPLES|0|expected a positive integer
hyperx_fig7.py|HYPERX_FIG7_LOADS|x|expected comma-separated offered loads in (0, 1], e.g. 0.1,0.5 (empty: none)
hyperx_fig7.py|HYPERX_FIG7_CACHED|true|expected 0 or 1
hyperx_fig7.py|HYPERX_FIG7_SET|internal_speedup|expected comma-separated KEY=VALUE settings, e.g. internal_speedup=2
swap_sec62.py|SWAP_SEC62_THROUGHPUT|no|expected 0 or 1
hyperx_fig6.py|HYPERX_FIG6_SIZE|huge|expected paper or small
hyperx_fig7.py|HYPERX_FIG7_SIZE||expected paper or small
hyperx_fig6.py|HYPERX_ROUTER|slow|expected paper or fast (empty: paper)
hyperx_fig7.py|HYPERX_ROUTER|Fast|expected paper or fast (empty: paper)
hyperx_fig7.py|HYPERX_FIG7_NETS|hx05,torus|expected comma-separated names of hx05, hx025, clos
hyperx_fig7.py|HYPERX_FIG7_PATTERNS|uniform|expected comma-separated names of bitcomp, bitrot, transpose, swap2
flex_fig8_10.py|FLEX_SYSTEMS|FleX,bogus|expected comma-separated names of FleX, dragonfly, HyperX, SlimFly, fattree (empty: all)
flex_fig8_10.py|FLEX_PATTERNS|tornado|expected comma-separated names of uniform, bitcomp, randperm (empty: all)
EOF
# Those naming a script's own choices: the names netloom_run.py (and so
# reproduce.sh) accepts are the keys of the scripts' tables.
PYTHONDONTWRITEBYTECODE=1 python3 - "$root/benchmarks/validation/repro" > "$dir/names" 2>&1 <<'PY' ||
import sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/lib"]
import flex_fig8_10, hyperx_common, hyperx_fig6, hyperx_fig7, netloom_run as n
pairs = [(n.HYPERX_SIZES, hyperx_fig6.SIZES), (n.HYPERX_SIZES, hyperx_fig7.SIZES),
         (n.HYPERX_ROUTERS, hyperx_common.ROUTERS), (n.HYPERX_FIG7_NETS, hyperx_fig7.NETS),
         (n.HYPERX_PATTERNS, hyperx_fig7.PATTERNS), (n.HYPERX_PATTERNS, hyperx_fig6.PATTERNS),
         (n.FLEX_SYSTEMS, [x[0] for x in flex_fig8_10.SYSTEMS]),
         (n.FLEX_PATTERNS, [x[0] for x in flex_fig8_10.PATTERNS])]
bad = [(a, list(b)) for a, b in pairs if sorted(a) != sorted(b)]
sys.exit("names differ from the tables: %s" % bad if bad else 0)
PY
  fail "netloom_run.py's names of the scripts' choices: $(cat "$dir/names")"

# flex_fig8_10.py reprinting docs/validation/flex_fig8_10.tsv (no runs):
# the tables docs/validation.md shows, where a routing with no stable
# load reads '-' (the dragonfly's min on bitcomp, unstable at 0.1), not a
# load of 0.0.
FLEX_FROM_TSV="$root/docs/validation/flex_fig8_10.tsv" \
  python3 "$root/benchmarks/validation/repro/flex_fig8_10.py" "$dir/false-netloom" "$dir/flex" > "$dir/flex.out" 2> "$dir/flex.err" ||
  fail "flex_fig8_10.py FLEX_FROM_TSV: exit status $?: $(tail -1 "$dir/flex.err")"
row() { awk -v pat="$1" -v sys="$2" '/^[a-z]+: Fig/ { p = ($1 == pat ":") } p && $1 == sys { print $6 }' "$dir/flex.out"; }
expect_eq "flex_fig8_10 bitcomp dragonfly: stable to min/UGAL/LBR" "$(row bitcomp dragonfly)" "-/0.3/0.3"
expect_eq "flex_fig8_10 bitcomp FleX: stable to min/UGAL/LBR" "$(row bitcomp FleX)" "0.1/0.3/0.5"
expect_eq "flex_fig8_10 uniform fattree: stable to min/UGAL/LBR" "$(row uniform fattree)" "0.9/0.9/0.5"

# A plot of a single load (FLEX_RATES A:A:STEP) or a single network size
# (swap_sec62.py's x axis) draws its point with an x range around it:
# gnuplot said "Warning: empty x range [0.3:0.3], adjusting to
# [0.297:0.303]" (and [64:64]) on stderr and drew a window 1 % wide. A
# stand-in netloom answers a run, and a sweep, with a stable point at
# each load asked for, so nothing is simulated.
cat > "$dir/netloom" <<'EOF'
#!/usr/bin/env python3
import json
import sys
a = sys.argv
rates = [0.1]
if "--rates" in a:
    lo, hi, step = (float(x) for x in a[a.index("--rates") + 1].split(":"))
    rates = [lo + i * step for i in range(int((hi - lo) / step + 1e-9) + 1)]
for kv in a:
    if kv.startswith("injection_rate="):
        rates = [float(kv.split("=")[1])]
points = [{"throughput": {"offered": r, "accepted": r}, "latency": {"packet": {"mean": 20.0 + r},
           "network": {"mean": 15.0}}, "hops": {"mean": 2.0}, "stable": True, "deadlock": False} for r in rates]
with open(a[a.index("--json") + 1], "w") as f:
    json.dump({"results": {"points": points}}, f)
EOF
chmod +x "$dir/netloom"

# gnuplot failing: one line naming the SVG not drawn and gnuplot's last
# stderr line, the tables printed and written, exit 3 (as netloom's own
# charts: 3, the chart not drawn), where it was a Python traceback
# (subprocess.CalledProcessError), exit 1; an SVG of an earlier run is
# removed, as without gnuplot. gnuplot exiting 0 with its output cut (a
# full disk) is one line too. A stand-in gnuplot on PATH.
mkdir -p "$dir/gpbin"
cat > "$dir/gpbin/gnuplot" <<'EOF'
#!/usr/bin/env python3
import os, re, sys
script = sys.stdin.read()
out = re.search(r"set output '([^']*)'", script).group(1)
if os.environ.get("GNUPLOT_STANDIN") == "cut":
    open(out, "w").write("<svg>\n<g>\n")
    sys.exit(0)
sys.stderr.write("\nset terminal svg\n             ^\n"
                 '         line 0: unknown or ambiguous terminal type; type just "set terminal" for a list\n\n')
sys.exit(1)
EOF
chmod +x "$dir/gpbin/gnuplot"
gp_failed='line 0: unknown or ambiguous terminal type; type just "set terminal" for a list'
for args in "flex_fig14.py|f14" "swap_sec62.py|sw 64" "flex_table6_routing.py|t6"; do
  name=${args%%|*} rest=${args#*|}
  outdir=$dir/gp-${rest%% *} svg=$dir/gp-${rest%% *}/${name%.py}.svg
  mkdir -p "$outdir" && echo stale > "$svg"
  # shellcheck disable=SC2086 # OUTDIR and SIZES
  (cd "$dir" && PATH="$dir/gpbin:$PATH" FLEX_TS=10 FLEX_RATES=0.3:0.5:0.2 SWAP_SEC62_THROUGHPUT=0 \
    "$root/benchmarks/validation/repro/$name" "$dir/netloom" "$dir/gp-"$rest > out 2> err)
  rc=$?
  expect_eq "$name, gnuplot fails: exit status" "$rc" 3
  expect_eq "$name, gnuplot fails: stderr" "$(grep -v '^  ' "$dir/err")" "$name: $svg not drawn: gnuplot failed: $gp_failed"
  [ -s "$outdir/${name%.py}.tsv" ] || fail "$name, gnuplot fails: no table written"
  [ -s "$dir/out" ] || fail "$name, gnuplot fails: no table printed"
  if [ -e "$svg" ] || [ -e "$svg.tmp" ]; then fail "$name, gnuplot fails: $svg or its .tmp left"; fi
done
(cd "$dir" && PATH="$dir/gpbin:$PATH" GNUPLOT_STANDIN=cut FLEX_TS=10 FLEX_RATES=0.3:0.5:0.2 \
  "$root/benchmarks/validation/repro/flex_fig14.py" "$dir/netloom" "$dir/gp-cut" > out 2> err)
rc=$?
expect_eq "flex_fig14.py, gnuplot's output cut: exit status" "$rc" 3
expect_eq "flex_fig14.py, gnuplot's output cut: stderr" "$(grep -v '^  ' "$dir/err")" \
  "flex_fig14.py: $dir/gp-cut/flex_fig14.svg not drawn: gnuplot's output is cut (10 bytes, no closing </svg>; a full disk?)"
# reproduce.sh: 3, the figure's table written.
(cd "$dir" && PATH="$dir/gpbin:$PATH" FLEX_TS=10 FLEX_RATES=0.3:0.5:0.2 \
  "$root/benchmarks/validation/reproduce.sh" --netloom "$dir/netloom" --out "$dir/gp-r" flex_fig14 > out 2> err)
rc=$?
expect_eq "reproduce.sh, gnuplot fails: exit status" "$rc" 3
expect_eq "reproduce.sh, gnuplot fails: stderr" "$(grep -v '^  \|^== ' "$dir/err")" \
  "flex_fig14.py: $dir/gp-r/flex_fig14/flex_fig14.svg not drawn: gnuplot failed: $gp_failed"
[ -s "$dir/gp-r/flex_fig14/flex_fig14.tsv" ] || fail "reproduce.sh, gnuplot fails: no table written"
rm -rf "$dir"/gp-*

# booksim_side_by_side.py: --help says what it needs (not BookSim2) and
# how long it takes; bad arguments and a netloom that is not there are
# one line, exit 2, before OUT is made (a bad --seeds was a traceback, a
# missing netloom one after OUT was made); a failed run is one line, exit
# 1; a failing gnuplot leaves the tables, no SVG and no temporary file,
# exit 3 (it was "gnuplot failed for CURVE", exit 1, before the tables,
# with OUT/CURVE.svg.tmp left); a drawn plot leaves no temporary file
# (its CURVE.dat stayed in OUT). A stand-in netloom converts any cfg and
# answers each run with a point, stable below 0.5.
sbs=$root/benchmarks/validation/booksim_side_by_side.py
cat > "$dir/sbs-netloom" <<'EOF'
#!/usr/bin/env python3
import sys
a = sys.argv
if a[1] == "config":
    print("[network]\ntopology = fly:k=10,n=1")
    sys.exit(0)
r = float([x for x in a if x.startswith("injection_rate=")][0].split("=")[1])
print("stable,latency_mean,network_latency_mean,accepted,hops_mean,cycles,wall_seconds")
print("%d,%.3f,10.0,%.4f,1.0,4000,0.01" % (r < 0.5, 20 + r, r))
EOF
chmod +x "$dir/sbs-netloom"
"$sbs" --help > "$dir/out" 2> "$dir/err"; rc=$?
expect_eq "booksim_side_by_side.py --help: status, stderr" "$rc:$(cat "$dir/err")" "0:"
grep -q "not BookSim2" "$dir/out" && grep -q "^Exit status: 0 done" "$dir/out" && grep -q "the netloom binary (default build/netloom)" "$dir/out" ||
  fail "booksim_side_by_side.py --help: no needs, exit status or defaults: $(head -2 "$dir/out")"
touch "$dir/sbs-file"
for args in "--seeds a|--seeds 'a': expected whole numbers separated by commas, e.g. 0,1,2" \
            "--curves nope|--curves: unknown curve 'nope'; expected one of ff_ranmin_uniform," \
            "--netloom $dir/no-netloom|--netloom $dir/no-netloom: not an executable (build with scripts/build.sh or pass --netloom)"; do
  # shellcheck disable=SC2086 # the options
  "$sbs" --netloom "$dir/sbs-netloom" --out "$dir/sbs-o" ${args%%|*} > "$dir/out" 2> "$dir/err"; rc=$?
  expect_eq "booksim_side_by_side.py ${args%%|*}: status, lines" "$rc:$(wc -l < "$dir/err")" "2:1"
  [[ "$(cat "$dir/err")" == "booksim_side_by_side.py: ${args#*|}"* ]] ||
    fail "booksim_side_by_side.py ${args%%|*}: stderr '$(cat "$dir/err")'"
  [ -e "$dir/sbs-o" ] && fail "booksim_side_by_side.py ${args%%|*}: OUT made before the arguments were checked"
done
"$sbs" --netloom "$dir/sbs-netloom" --out "$dir/sbs-file" > "$dir/out" 2> "$dir/err"; rc=$?
expect_eq "booksim_side_by_side.py --out FILE" "$rc:$(cat "$dir/err")" \
  "2:booksim_side_by_side.py: --out '$dir/sbs-file': not a directory; expected a directory, or a path where one can be made"
sed 's/^r = float/sys.stderr.write("netloom run: stand-in refusal\\n"); sys.exit(2)\nr = float/' "$dir/sbs-netloom" > "$dir/sbs-refusing"
chmod +x "$dir/sbs-refusing"
"$sbs" --netloom "$dir/sbs-refusing" --out "$dir/sbs-o" --curves single_uniform --seeds 0 --no-sat > "$dir/out" 2> "$dir/err"; rc=$?
expect_eq "booksim_side_by_side.py, netloom fails: status, lines" "$rc:$(wc -l < "$dir/err")" "1:1"
[[ "$(cat "$dir/err")" == "booksim_side_by_side.py: netloom failed: $dir/sbs-refusing run -c "*": netloom run: stand-in refusal" ]] ||
  fail "booksim_side_by_side.py, netloom fails: stderr '$(cat "$dir/err")'"
rm -rf "$dir/sbs-o"
mkdir -p "$dir/sbs-gp" && echo stale > "$dir/sbs-gp/single_uniform.svg"
PATH="$dir/gpbin:$PATH" "$sbs" --netloom "$dir/sbs-netloom" --out "$dir/sbs-gp" --curves single_uniform --seeds 0 \
  --no-sat > "$dir/out" 2> "$dir/err"; rc=$?
expect_eq "booksim_side_by_side.py, gnuplot fails: status, stderr" "$rc:$(cat "$dir/err")" \
  "3:booksim_side_by_side.py: $dir/sbs-gp/single_uniform.svg not drawn: gnuplot failed: $gp_failed"
expect_eq "booksim_side_by_side.py, gnuplot fails: files left" "$(cd "$dir/sbs-gp" && echo *)" \
  "points.tsv saturation.tsv side_by_side.tsv single_uniform.ini tables.md"
grep -qx "| 0.10 | [0-9.]* (3) | 20.10 (1) | [-+0-9.]*% | yes |" "$dir/sbs-gp/tables.md" ||
  fail "booksim_side_by_side.py, gnuplot fails: tables.md: $(head -3 "$dir/sbs-gp/tables.md")"
rm -rf "$dir/sbs-gp"

# The BookSim2 runners: --help says what they need, a BookSim2 that is not
# there is one line, exit 2, before anything is written (it was a
# traceback, FileNotFoundError, after OUT was made, or "booksim failed
# (127)" and nice's message after the graph files were rewritten).
for f in anynet_side_by_side.py eq_small_min.py; do
  "$root/benchmarks/validation/booksim/$f" --help > "$dir/out" 2> "$dir/err"; rc=$?
  expect_eq "$f --help: status, stderr" "$rc:$(cat "$dir/err")" "0:"
  grep -q "^Needs a built netloom and a BookSim2 binary" "$dir/out" || fail "$f --help: needs not said"
  "$root/benchmarks/validation/booksim/$f" --netloom "$dir/sbs-netloom" --booksim "$dir/no-booksim" --out "$dir/bk-o" \
    > "$dir/out" 2> "$dir/err"; rc=$?
  expect_eq "$f, no BookSim2" "$rc:$(cat "$dir/err")" \
    "2:$f: --booksim $dir/no-booksim: not an executable; expected a BookSim2 binary (github booksim/booksim2, commit 28f43299, built with its own Makefile; docs/validation.md)"
  [ -e "$dir/bk-o" ] && fail "$f, no BookSim2: OUT written"
done

# anynet_from_netloom.py on a topology with unconnected ports (a mesh's
# edges: null in the JSON export, docs/analysis.md): the ports are
# skipped, where it was a traceback (TypeError: argument of type
# 'NoneType' is not iterable). A stand-in netloom exporting a two-router
# line whose routers each have one null port.
cat > "$dir/line-netloom" <<'EOF2'
#!/bin/sh
case "$5" in
json) echo '{"n_routers": 2, "n_endpoints": 2, "routers": [
  {"id": 0, "ports": [{"router": 1, "port": 0}, {"endpoint": 0}, null]},
  {"id": 1, "ports": [{"router": 0, "port": 0}, null, {"endpoint": 1}]}]}' ;;
*) printf '# netloom edgelist line\n# router_a router_b parallel_links\n0 1 1\n' ;;
esac
EOF2
chmod +x "$dir/line-netloom"
"$root/benchmarks/validation/booksim/anynet_from_netloom.py" --netloom "$dir/line-netloom" --spec line "$dir/line.anynet" \
  > "$dir/out" 2> "$dir/err"; rc=$?
expect_eq "anynet_from_netloom.py, null ports: status, stderr, file" "$rc:$(cat "$dir/err")
$(cat "$dir/line.anynet" 2>&1)" "0:
router 0 node 0 router 1
router 1 node 1 router 0"
# ... and a netloom that refuses the spec: one line naming the export
# and netloom's own reason, exit 1, no file, where it was a traceback
# (subprocess.CalledProcessError) that hid netloom's message.
rm -f "$dir/line.anynet"
"$root/benchmarks/validation/booksim/anynet_from_netloom.py" --netloom "$dir/refusing-netloom" --spec torus:k=1 \
  "$dir/line.anynet" > "$dir/out" 2> "$dir/err"; rc=$?
expect_eq "anynet_from_netloom.py, netloom refuses: status, stderr, files" "$rc:$(cat "$dir/err"):$(ls "$dir" | grep -c '^line\.anynet')" \
  "1:anynet_from_netloom.py: netloom failed: $dir/refusing-netloom topo export torus:k=1 --format json: netloom topo: stand-in refusal:0"

if command -v gnuplot > /dev/null; then
  "$sbs" --netloom "$dir/sbs-netloom" --out "$dir/sbs-ok" --curves single_uniform --seeds 0 --no-sat > "$dir/out" 2> "$dir/err"
  expect_eq "booksim_side_by_side.py with gnuplot: status, stderr" "$?:$(cat "$dir/err")" "0:"
  expect_eq "booksim_side_by_side.py with gnuplot: files" "$(cd "$dir/sbs-ok" && echo *)" \
    "points.tsv saturation.tsv side_by_side.tsv single_uniform.ini single_uniform.svg tables.md"
  rm -rf "$dir/sbs-ok"
  # xtics SVG: the tick labels (and titles) gnuplot wrote, one line.
  xtics() { grep -o '<tspan[^>]*>[^<]*</tspan>' "$1" | sed 's/<[^>]*>//g; s/^ *//' | tr '\n' ' '; }
  FLEX_TS=10 FLEX_RATES=0.3:0.3:0.1 python3 "$root/benchmarks/validation/repro/flex_fig14.py" "$dir/netloom" "$dir/f14" \
    > "$dir/f14.out" 2> "$dir/f14.err" || fail "flex_fig14.py, one load: exit status $?: $(tail -1 "$dir/f14.err")"
  grep -qi "empty x range" "$dir/f14.err" &&
    fail "flex_fig14.py, one load: gnuplot warned: $(grep -i "empty x range" "$dir/f14.err")"
  [[ " $(xtics "$dir/f14/flex_fig14.svg")" == *" 0.15 "*" 0.3 "*" 0.45 "* ]] ||
    fail "flex_fig14.py, one load: labels '$(xtics "$dir/f14/flex_fig14.svg")', expected x tics 0.15 .. 0.3 .. 0.45"
  SWAP_SEC62_THROUGHPUT=0 python3 "$root/benchmarks/validation/repro/swap_sec62.py" "$dir/netloom" "$dir/sw" 64 \
    > "$dir/sw.out" 2> "$dir/sw.err" || fail "swap_sec62.py, one size: exit status $?: $(tail -1 "$dir/sw.err")"
  grep -qi "empty x range" "$dir/sw.err" &&
    fail "swap_sec62.py, one size: gnuplot warned: $(grep -i "empty x range" "$dir/sw.err")"
  [[ " $(xtics "$dir/sw/swap_sec62.svg")" == *" 32 64 128 "* ]] ||
    fail "swap_sec62.py, one size: labels '$(xtics "$dir/sw/swap_sec62.svg")', expected x tics 32 64 128"
  # More than one load: gnuplot's own range, and nothing said, as before.
  FLEX_TS=10 FLEX_RATES=0.3:0.5:0.2 python3 "$root/benchmarks/validation/repro/flex_fig14.py" "$dir/netloom" "$dir/f14b" \
    > /dev/null 2> "$dir/f14b.err" || fail "flex_fig14.py, two loads: exit status $?: $(tail -1 "$dir/f14b.err")"
  expect_eq "flex_fig14.py, two loads: stderr" "$(grep -v '^  T=' "$dir/f14b.err")" ""
else
  echo "validation_scripts: gnuplot not found, single-load plots not checked"
fi

[ $fails -eq 0 ] && echo "validation_scripts: all checks passed"
exit $((fails > 0))
