#!/usr/bin/env bash
# Sweeps and compare over MPI ranks, whole points side by side (issue 16
# part 2, docs/scaling.md "Sweeps and compare over ranks"): `mpirun -np K
# netloom sweep --spread points` for K = 1..3 prints and writes what the
# sequential sweep does, byte for byte (--reproducible JSON, table, CSV,
# the deadlock report on stderr), including sweeps that stop at an
# unstable point or a deadlock in the middle of a round of K points and a
# last round with fewer points than ranks; `mpirun -np 2 netloom compare`
# writes the sequential report, and its cache serves a second run. A
# failure on one rank only (a file missing in its working directory, a
# point that fails there, a report rank 0 cannot write) gives one line
# and a non-zero exit on every rank, without a hang.
# usage: mpi_points.sh NETLOOM SOURCE_ROOT   (exit 77: no MPI)
set -uo pipefail
netloom=$(realpath "$1")
root=$(realpath "$2")
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/../mpi_env.sh"
mpi_require "$netloom"

short=(-s sample_period=200 -s warmup_periods=2 -s max_samples=6)
torus=(-s topology=torus:k=4x4 -s num_vcs=2 -s latency_thres=100 "${short[@]}") # first unstable rate 0.6
dl=(-s topology=torus:k=8 -s routing_function=min:select=first,classes=none -s num_vcs=1 -s vc_buf_size=2
    -s packet_size=8 -s traffic=tornado "${short[@]}")                             # deadlock at rate 0.06
# name|rates and options|keys (an array name)
sweeps=(
  "stops|--rates 0.2:0.7:0.1|torus"            # unstable at the 5th of 6: dropped points at 2 and 3 ranks
  "short|--rates 0.5:0.6:0.1|torus"            # 2 points, 3 ranks: stops in a round with an idle rank
  "continue|--rates 0.4:0.7:0.1 --continue|torus"
  "csv|--rates 0.3:0.8:0.1 --csv|torus"
  "deadlock|--rates 0.02:0.1:0.01 --continue|dl" # a deadlock ends it even with --continue
)
for c in "${sweeps[@]}"; do
  IFS='|' read -r name opts arr <<<"$c"
  read -r -a o <<<"$opts"
  declare -n keys=$arr
  "$netloom" sweep "${keys[@]}" "${o[@]}" --reproducible --json "$dir/$name-seq.json" \
    >"$dir/$name-seq.out" 2>"$dir/$name-seq.err"
  seq_rc=$?
  for k in 1 2 3; do
    mpi "$k" "$netloom" sweep "${keys[@]}" "${o[@]}" --spread points --reproducible --json "$dir/$name-$k.json" \
      >"$dir/$name-$k.out" 2>"$dir/$name-$k.err"
    expect_eq "$name: exit at $k ranks" "$?" "$seq_rc"
    cmp -s "$dir/$name-seq.json" "$dir/$name-$k.json" || fail "$name: --spread points at $k ranks: JSON differs"
    cmp -s "$dir/$name-seq.out" "$dir/$name-$k.out" || fail "$name: --spread points at $k ranks: stdout differs"
    # stderr: netloom's lines as in one process, then mpirun's own notice
    # of a non-zero exit (a deadlock exits 1).
    n=$(wc -l <"$dir/$name-seq.err")
    cmp -s "$dir/$name-seq.err" <(head -n "$n" "$dir/$name-$k.err") \
      && ! tail -n +$((n + 1)) "$dir/$name-$k.err" | grep -q '^netloom' \
      || fail "$name: --spread points at $k ranks: stderr differs"
  done
  unset -n keys
done
# sweep --plot: rank 0 draws the chart one process draws, byte for byte,
# with the points side by side or the network spread.
if command -v gnuplot > /dev/null; then
  "$netloom" sweep "${torus[@]}" --rates 0.2:0.7:0.1 --continue --plot "$dir/plot-seq.svg" > /dev/null 2>&1 || fail "plot: sequential"
  for spread in points network; do
    mpi 2 "$netloom" sweep "${torus[@]}" --rates 0.2:0.7:0.1 --continue --spread $spread --plot "$dir/plot-$spread.svg" \
      > /dev/null 2>&1 || fail "plot: --spread $spread exit $?"
    cmp -s "$dir/plot-seq.svg" "$dir/plot-$spread.svg" || fail "plot: --spread $spread: the chart differs"
  done
fi
# NETLOOM_MPI_STATS=1 where no network is spread over the ranks: it said
# "lookahead 0 cycles, window up to 0 cycles; 0 windows of 0.00 cycles".
out=$(NETLOOM_MPI_STATS=1 mpi 2 "$netloom" sweep "${torus[@]}" --rates 0.5:0.6:0.1 --spread points 2>&1 >/dev/null)
expect_eq "NETLOOM_MPI_STATS=1 with --spread points" "$out" \
  "netloom mpi: 2 ranks, no network spread over them (whole simulations per rank, or none built): no windows, nothing exchanged"
expect_eq "stops: points" "$(json "$dir/stops-seq.json" 'len(d["results"]["points"])')" 5
expect_eq "short: points" "$(json "$dir/short-seq.json" 'len(d["results"]["points"])')" 2
expect_eq "deadlock: points" "$(json "$dir/deadlock-seq.json" 'len(d["results"]["points"])')" 5
"$netloom" sweep "${dl[@]}" --rates 0.02:0.1:0.01 >/dev/null 2>&1
expect_eq "deadlock: sequential exit" "$?" 1
grep -q "deadlocked input VCs" "$dir/deadlock-3.err" || fail "deadlock: no report of the waiting VCs at 3 ranks"
# --spread network (the default under mpirun) is still the partitioned run.
mpi 2 "$netloom" sweep "${torus[@]}" --rates 0.2:0.7:0.1 --spread network --reproducible --json "$dir/net-2.json" \
  >/dev/null 2>&1 || fail "--spread network at 2 ranks: exit $?"
cmp -s "$dir/stops-seq.json" "$dir/net-2.json" || fail "--spread network at 2 ranks: JSON differs"
# A deadlock spread over the ranks is reported without the list of waiting
# VCs (not made under MPI, as the message says), so without its heading.
mpi 2 "$netloom" sweep "${dl[@]}" --rates 0.02:0.1:0.01 --spread network >/dev/null 2>"$dir/dl-net-2.err"
expect_eq "deadlock --spread network: exit" "$?" 1
grep -q "under MPI the list of which VCs wait on which is not made" "$dir/dl-net-2.err" \
  || fail "deadlock --spread network: no deadlock line: $(head -c 300 "$dir/dl-net-2.err")"
! grep -q "deadlocked input VCs" "$dir/dl-net-2.err" || fail "deadlock --spread network: a heading over an empty list"
out=$("$netloom" sweep --rates 0.1:0.2:0.1 --spread rows 2>&1)
expect_eq "--spread rows: exit" "$?" 2
expect_eq "--spread rows" "$out" "netloom sweep: --spread 'rows': expected network or points"

# compare: a 2 x 2 study, 2 seeds, its 8 replays over 2 ranks.
s=$root/traces/samples
mkdir -p "$dir/study"
cat > "$dir/study/study.ini" <<EOS
[study]
backend = analytic
seeds = 2
reference = torus
[system torus]
topology = torus:k=4x4
routing_function = dor
link_model = links
[system fattree]
topology = fattree:k=4,n=2
[workload lammps]
trace = lammps.nlt
weight = 2
[workload hpcc]
trace = $s/hpcc-8.nlt
placement = random-node
EOS
cp "$s/lammps-lj-8.nlt" "$dir/study/lammps.nlt"
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("execution"); print(json.dumps(d, indent=1))' "$1"; }
"$netloom" compare "$dir/study/study.ini" -o "$dir/cseq" >/dev/null || fail "compare: sequential exit $?"
mpi 2 "$netloom" compare "$dir/study/study.ini" -o "$dir/c2" -j 2 >"$dir/c2.out" 2>"$dir/c2.err" \
  || fail "compare at 2 ranks: exit $?: $(head -3 "$dir/c2.err")"
[ -n "$(strip "$dir/cseq/report.json")" ] || fail "compare: report.json unreadable"
[ "$(strip "$dir/cseq/report.json")" = "$(strip "$dir/c2/report.json")" ] || fail "compare at 2 ranks: report.json differs"
cmp -s "$dir/cseq/report.md" "$dir/c2/report.md" || fail "compare at 2 ranks: report.md differs"
[ "$(sed '/<h2>Execution/,$d' "$dir/cseq/index.html")" = "$(sed '/<h2>Execution/,$d' "$dir/c2/index.html")" ] \
  || fail "compare at 2 ranks: index.html differs"
expect_eq "compare at 2 ranks: one summary line" "$(wc -l <"$dir/c2.out")" 1
expect_eq "compare at 2 ranks: executed" "$(json "$dir/c2/report.json" '[d["execution"][k] for k in ("executed_runs", "reused_runs")]')" "[6, 2]"
# Rank 0 wrote every replay's cache file (its own and rank 1's), as one
# process does; a second run under 2 ranks reads them all.
expect_eq "compare at 2 ranks: cache files" "$(ls "$dir/c2/cache" | sort)" "$(ls "$dir/cseq/cache" | sort)"
mpi 2 "$netloom" compare "$dir/study/study.ini" -o "$dir/c2" >/dev/null 2>&1 || fail "compare again at 2 ranks: exit $?"
expect_eq "compare again: executed" "$(json "$dir/c2/report.json" 'd["execution"]["executed_runs"]')" 0
[ "$(strip "$dir/cseq/report.json")" = "$(strip "$dir/c2/report.json")" ] || fail "compare from the cache: report differs"

# Usage, the version and an unknown command under a launcher: what one
# process says, said once (by rank 0), with its exit status. Before, an
# unknown command was refused as a command that does not use the ranks
# (exit 1), and --version and the usage came once per rank; and so did
# run's, sweep's, replay's and compare's --help; and so did their usage
# errors (every rank failing the same check), as N copies of one line.
for a in bogus --version version --help help "" "run --help" "sweep -h" "sweep --rates 0.1:0.2:0.1 --help" \
  "replay --help" "replay -h $dir/study/lammps.nlt" "compare --help" "compare -o $dir/nowhere -h" \
  "run --csv x.csv" "sweep --rates 0.3:0.1:0.1" "replay" "replay $dir/study/lammps.nlt --bogus" "compare"; do
  read -r -a w <<<"$a"
  "$netloom" "${w[@]}" >"$dir/one.out" 2>"$dir/one.err"
  want=$?
  mpi 2 "$netloom" "${w[@]}" >"$dir/two.out" 2>"$dir/two.err"
  expect_eq "'netloom $a' under 2 ranks: exit" "$?" "$want"
  cmp -s "$dir/one.out" "$dir/two.out" || fail "'netloom $a' under 2 ranks: stdout: $(head -c 300 "$dir/two.out")"
  # stderr: netloom's lines as in one process, mpirun's notices of a
  # non-zero exit (blocks between lines of dashes) aside.
  sed '/^-\{20,\}$/,/^-\{20,\}$/d' "$dir/two.err" >"$dir/two-own.err"
  cmp -s "$dir/one.err" "$dir/two-own.err" || fail "'netloom $a' under 2 ranks: stderr: $(head -c 300 "$dir/two-own.err")"
  [ "$a" != bogus ] || expect_eq "bogus under 2 ranks" "$(cat "$dir/two-own.err")" \
    "netloom: unknown command 'bogus' (see 'netloom --help')"
done

# One rank fails alone. Each rank runs in a directory of its own (an MPMD
# launch): rank 0's holds the file, the others' do not, as a node would
# that cannot see it. mpirun is told not to kill the others when one exits,
# and every rank writes its status: all must fail, at once, and rank 0
# says why in one line.
export OMPI_MCA_orte_abort_on_non_zero_status=0
mkdir -p "$dir/n0" "$dir/n1"
printf '[network]\ntopology = torus:k=4x4\n' >"$dir/n0/my.ini"
cp "$dir/study/study.ini" "$dir/n0/study.ini"
cp "$dir/study/study.ini" "$dir/n1/study.ini"
cp "$dir/study/lammps.nlt" "$dir/n0/lammps.nlt"
one_fails() { # what expected-regex ranks command...
  local what=$1 re=$2 n=$3
  shift 3
  # A file of its own: exits-$RANDOM could name an earlier launch's (15
  # bits, some twenty launches), whose lines then counted too.
  EXITS=$(mktemp "$dir/exits.XXXXXX")
  export EXITS
  local out
  out=$(timeout 60 mpirun --oversubscribe -np 1 --wdir "$dir/n0" "${ranked[@]}" "$@" : \
        -np $((n - 1)) --wdir "$dir/n1" "${ranked[@]}" "$@" </dev/null 2>&1 >/dev/null)
  [ $? -ne 124 ] || fail "$what: hung"
  expect_eq "$what: ranks that failed" "$(awk '$2 != 0' "$EXITS" 2>/dev/null | wc -l)" "$n"
  expect_eq "$what: error lines" "$(grep -c '^netloom' <<<"$out")" 1
  grep -qE "$re" <<<"$out" || fail "$what: got '$out'"
}
one_fails "sweep --spread points, a config missing on ranks 1-2" \
  '^netloom sweep: MPI rank 1 of 3: my.ini: cannot open config file' 3 \
  "$netloom" sweep -c my.ini "${short[@]}" --rates 0.1:0.3:0.1 --spread points
one_fails "sweep over the network, a config missing on rank 1" \
  '^netloom sweep: MPI rank 1 of 2: my.ini: cannot open config file' 2 \
  "$netloom" sweep -c my.ini "${short[@]}" --rates 0.1:0.3:0.1
one_fails "run, a config missing on rank 1" '^netloom run: MPI rank 1 of 2: my.ini: cannot open config file' 2 \
  "$netloom" run -c my.ini "${short[@]}"
one_fails "compare, a trace missing on rank 1" \
  "^netloom compare: MPI rank 1 of 2: study.ini:[0-9]+: \[workload lammps\] key 'trace'" 2 \
  "$netloom" compare study.ini -o "$dir/cfail"
[ ! -e "$dir/cfail" ] || fail "compare, a trace missing on rank 1: wrote $dir/cfail"
# Another trace under the same name on rank 1's node: refused, not mixed.
cp "$s/lammps-lj-2.nlt" "$dir/n1/lammps.nlt"
one_fails "compare, another trace on rank 1" \
  "^netloom compare: MPI rank 1 of 2: its study file, a system's configuration file or a trace differs from rank 0's" 2 \
  "$netloom" compare study.ini -o "$dir/cother"
[ ! -e "$dir/cother" ] || fail "compare, another trace on rank 1: wrote $dir/cother"
printf '[network]\ntopology = torus:k=8x8\n' >"$dir/n1/my.ini"
one_fails "run, another config on rank 1" \
  "^netloom run: MPI rank 1 of 2: its resolved configuration \(-c, -s\) differs from rank 0's" 2 \
  "$netloom" run -c my.ini "${short[@]}"
rm "$dir/n1/lammps.nlt" "$dir/n1/my.ini"
# A point that fails on its rank alone under --spread points (out of
# memory: rank 1 has too little for a 256x256 torus, rank 0 enough): rank
# 0 names that rank, as net_mpi_agree names a rank's failure, after the
# rows of the points taken before it (a sweep prints its rows as they
# come, with or without mpirun); no summary line, no JSON, exit 2 on every
# rank. Before, the line came without "MPI rank 1 of 2: ". Skipped where
# netloom cannot start under the limit (a sanitizer's reservations).
big=(sweep -s topology=torus:k=256x256 -s num_vcs=2 -s sample_period=20 -s max_samples=2 -s warmup_periods=1
     -s seed=1 -s sim_type=throughput --rates 0.01:0.02:0.01 --spread points --json "$dir/oom.json")
if (ulimit -v 250000 && "$netloom" version) >/dev/null 2>&1; then
  export EXITS=$dir/exits-oom
  out=$(mpi_rank1_limited 250000 "$dir/oom.out" "${big[@]}")
  [ $? -ne 124 ] || fail "--spread points, out of memory on rank 1: hung"
  expect_eq "--spread points, out of memory on rank 1: statuses" "$(awk '{print $2}' "$EXITS" | tr '\n' ' ')" "2 2 "
  expect_eq "--spread points, out of memory on rank 1: error lines" "$(grep -c '^netloom' <<<"$out")" 1
  grep -q '^netloom sweep: MPI rank 1 of 2: out of memory building the network model (65536 routers' <<<"$out" \
    || fail "--spread points, out of memory on rank 1: got '$out'"
  expect_eq "--spread points, out of memory on rank 1: rows" "$(grep -c '^ *0\.0' "$dir/oom.out")" 1
  expect_eq "--spread points, out of memory on rank 1: stdout lines" "$(wc -l <"$dir/oom.out")" 3
  [ ! -e "$dir/oom.json" ] || fail "--spread points, out of memory on rank 1: wrote the JSON"
fi
# Rank 0 cannot write the report (its name is taken by a directory): every
# rank exits with rank 0's status, not "some cells failed".
mkdir -p "$dir/cw/report.json"
"$netloom" compare "$dir/study/study.ini" -o "$dir/cw" >/dev/null 2>&1
want=$?
[ "$want" -ne 0 ] && [ "$want" -ne 3 ] || fail "compare, report.json a directory: sequential exit $want"
export EXITS=$dir/exits-write
out=$(timeout 60 mpirun --oversubscribe -np 2 "${ranked[@]}" "$netloom" compare "$dir/study/study.ini" -o "$dir/cw" \
      </dev/null 2>&1 >/dev/null)
[ $? -ne 124 ] || fail "compare, report.json a directory: hung"
expect_eq "compare, report.json a directory: statuses" "$(awk '{print $2}' "$EXITS" | sort | tr '\n' ' ')" "$want $want "
expect_eq "compare, report.json a directory: error lines" "$(grep -c '^netloom' <<<"$out")" 1
grep -q '^netloom compare: .*report.json' <<<"$out" || fail "compare, report.json a directory: got '$out'"
# An MPMD launch whose rank 1 was given another command line than rank 0
# (docs/scaling.md, "Failures on one rank"): refused before any collective
# on every rank, exit 2, in one line naming what differs, within seconds.
# Before, other --rates printed rank 0's table and then died in
# MPI_ERR_TRUNCATE (exit 15), --spread points on one rank hung, and a
# point failing on rank 1 alone under other -s ran a round first.
mpmd_fails "other --rates on rank 1" "'--rates 0.1:0.5:0.1' where rank 0 has '--rates 0.1:0.3:0.1'" \
  sweep "${torus[@]}" --rates 0.1:0.3:0.1 -- sweep "${torus[@]}" --rates 0.1:0.5:0.1
mpmd_fails "--spread points on rank 1 only" "'--spread points' where rank 0 has nothing more" \
  sweep "${torus[@]}" --rates 0.1:0.3:0.1 -- sweep "${torus[@]}" --rates 0.1:0.3:0.1 --spread points
mpmd_fails "--continue on rank 0 only" "'--spread points' where rank 0 has '--continue'" \
  sweep "${torus[@]}" --rates 0.5:0.7:0.1 --continue --spread points -- sweep "${torus[@]}" --rates 0.5:0.7:0.1 --spread points
mpmd_fails "other settings on rank 1" "'-s flow_control=vct' where rank 0 has '--rates 0.1:0.4:0.1'" \
  sweep "${torus[@]}" --rates 0.1:0.4:0.1 --spread points -- \
  sweep "${torus[@]}" -s flow_control=vct -s packet_size=8 -s vc_buf_size=4 --rates 0.1:0.4:0.1 --spread points
mpmd_fails "sweep on rank 1, run on rank 0" "'sweep' where rank 0 has 'run'" \
  run "${torus[@]}" -- sweep "${torus[@]}" --rates 0.1:0.3:0.1
mpmd_fails "a command that does not use the ranks on rank 1" "'topo' where rank 0 has 'run'" \
  run "${torus[@]}" -- topo list
mpmd_fails "--help on rank 1 (it ran nothing, said nothing)" "'--help' where rank 0 has '--rates 0.1:0.3:0.1'" \
  sweep --rates 0.1:0.3:0.1 "${torus[@]}" -- sweep --help
mpmd_fails "--help on rank 0 only" "'-s topology=torus:k=4x4' where rank 0 has '--help'" \
  run --help -- run "${torus[@]}"
mpmd_fails "compare, another -o on rank 1" "'-o $dir/cb' where rank 0 has '-o $dir/ca'" \
  compare "$dir/study/study.ini" -o "$dir/ca" -- compare "$dir/study/study.ini" -o "$dir/cb"
[ ! -e "$dir/ca" ] && [ ! -e "$dir/cb" ] || fail "compare, another -o on rank 1: wrote a report"
# The same command lines: the refusal of a command that does not use the
# ranks is still rank 0's one line.
out=$(mpi 2 "$netloom" topo list 2>&1 >/dev/null)
expect_eq "topo list under 2 ranks: lines" "$(grep -c . <<<"$out")" 1
grep -q "^netloom topo: started by an MPI launcher with 2 ranks" <<<"$out" || fail "topo list under 2 ranks: got '$out'"
mpmd_fails "--version on rank 1" "'--version' where rank 0 has 'run'" run "${torus[@]}" -- --version

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "ok: sweeps and compare over MPI ranks equal the sequential ones; one rank's failure fails all"
