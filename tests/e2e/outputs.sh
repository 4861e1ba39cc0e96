#!/usr/bin/env bash
# Where results go (emu/core/output.c, nl_output_target in core/error.c):
# a file is replaced atomically; a symbolic link keeps pointing at its file,
# which is the one replaced; a FIFO or a device is written in place, never
# replaced by a regular file (as root, '--json /dev/null' once deleted
# /dev/null); a directory, dangling link or socket is refused before the
# work. The device case runs on a private device node made with mknod (a
# null device in the scratch directory), skipped where mknod is refused.
# Usage: outputs.sh NETLOOM SOURCE_ROOT
set -uo pipefail
netloom=$(realpath "$1")
root=$2
. "$root/tests/e2e/lib.sh"
cd "$dir" || exit 1
run=(run -s topology=torus:k=4x4 -s sample_period=100 -s max_samples=3 -s warmup_periods=1)

# A link to a file: the file gets the JSON, the link stays a link.
echo old >real.json
ln -s real.json link.json
"$netloom" "${run[@]}" --json link.json >/dev/null || fail "run --json LINK: exit $?"
[ -L link.json ] || fail "run --json LINK: the link was replaced"
expect_eq "run --json LINK: JSON in the file" "$(json real.json 'd["results"]["stable"]')" True
"$netloom" cost torus:k=4x4 --json link.json >/dev/null || fail "cost --json LINK: exit $?"
[ -L link.json ] && grep -q '"preset"' real.json || fail "cost --json LINK: link replaced or file not written"
ln -s real.svg link.svg
touch real.svg
"$netloom" layout torus:k=4x4 --svg link.svg >/dev/null || fail "layout --svg LINK: exit $?"
[ -L link.svg ] && grep -q '<svg' real.svg || fail "layout --svg LINK: link replaced or file not written"
"$netloom" trace dump "$root/traces/samples/pingpong-2.nlt" >pp.txt
touch real.nlt
ln -s real.nlt link.nlt
"$netloom" trace encode pp.txt link.nlt >/dev/null || fail "trace encode LINK: exit $?"
[ -L link.nlt ] && "$netloom" trace verify link.nlt >/dev/null || fail "trace encode LINK: link replaced or archive bad"

# Modes: a new result gets what creating it would under the umask, and a
# replaced one keeps its own (results were 0644 whatever the umask, so a
# umask 077 user's results were world-readable).
(umask 077 && "$netloom" "${run[@]}" --json m1.json >/dev/null) || fail "run under umask 077: exit $?"
expect_eq "new result under umask 077" "$(stat -c %a m1.json)" 600
(umask 022 && "$netloom" "${run[@]}" --json m2.json >/dev/null) || fail "run under umask 022: exit $?"
expect_eq "new result under umask 022" "$(stat -c %a m2.json)" 644
chmod 640 m2.json
"$netloom" "${run[@]}" --json m2.json >/dev/null || fail "run over a 0640 result: exit $?"
expect_eq "replaced result keeps its mode" "$(stat -c %a m2.json)" 640
(umask 077 && "$netloom" trace encode pp.txt m.nlt >/dev/null) || fail "trace encode under umask 077: exit $?"
expect_eq "new archive under umask 077" "$(stat -c %a m.nlt)" 600
(umask 077 && "$netloom" layout torus:k=4x4 --svg m.svg >/dev/null) || fail "layout under umask 077: exit $?"
expect_eq "new SVG under umask 077" "$(stat -c %a m.svg)" 600

# A FIFO: the reader gets the JSON, the FIFO stays a FIFO.
mkfifo fifo
timeout 60 cat fifo >from-fifo &
reader=$!
"$netloom" "${run[@]}" --json fifo >/dev/null || fail "run --json FIFO: exit $?"
wait "$reader"
[ -p fifo ] || fail "run --json FIFO: the FIFO was replaced"
expect_eq "run --json FIFO: JSON through the FIFO" "$(json from-fifo 'd["results"]["stable"]')" True
# layout's outputs are staged and committed together (out_stage/out_commit).
timeout 60 cat fifo >svg-fifo &
reader=$!
"$netloom" layout torus:k=4x4 --svg fifo >/dev/null || fail "layout --svg FIFO: exit $?"
wait "$reader"
[ -p fifo ] && grep -q '<svg' svg-fifo || fail "layout --svg FIFO: FIFO replaced or nothing read"

# /dev/stdout into a pipe (a link to pipe:[...], which realpath cannot resolve).
"$netloom" "${run[@]}" --json /dev/stdout 2>err | cat >piped
grep -q '"netloom_version"' piped || fail "run --json /dev/stdout | ...: $(cat err)"

# A device: written in place.
if mknod nulldev c 1 3 2>/dev/null; then
  "$netloom" "${run[@]}" --json nulldev >/dev/null || fail "run --json DEVICE: exit $?"
  [ -c nulldev ] || fail "run --json DEVICE: the device node was replaced"
  "$netloom" cost torus:k=4x4 --json nulldev >/dev/null && [ -c nulldev ] || fail "cost --json DEVICE: node replaced"
  out=$("$netloom" trace encode pp.txt nulldev 2>&1)
  expect_eq "trace encode DEVICE: exit" "$?" 2
  expect_eq "trace encode DEVICE" "$out" "netloom trace encode: nulldev: a device or FIFO; expected a file name for the archive"
  [ -c nulldev ] || fail "trace encode DEVICE: the device node was replaced"
else
  echo "outputs: mknod refused here; the device case is skipped"
fi
# A full device: the write error after the work, exit 1, the table kept.
if [ -w /dev/full ]; then
  out=$("$netloom" "${run[@]}" --json /dev/full 2>err)
  expect_eq "run --json /dev/full: exit" "$?" 1
  expect_eq "run --json /dev/full" "$(cat err)" "netloom run: --json: /dev/full: write failed: No space left on device"
  grep -q '^ *offered' <<<"$out" || fail "run --json /dev/full: no table on stdout: '$out'"
  out=$("$netloom" sweep "${run[@]:1}" --rates 0.1:0.2:0.1 --json /dev/full 2>err)
  expect_eq "sweep --json /dev/full: exit" "$?" 1
  expect_eq "sweep --json /dev/full" "$(cat err)" "netloom sweep: --json: /dev/full: write failed: No space left on device"
  grep -q '^saturation\|^no saturation' <<<"$out" || fail "sweep --json /dev/full: no summary on stdout: '$out'"
  # A result that cannot be written after the work (its path accepted
  # before it) is the work failing: exit 1, not 2 ('nothing written'),
  # and what went to stdout stays there. The line names the option whose
  # file it is (cli_report_unwritten), as serve's (live.py).
  out=$("$netloom" cost torus:k=4x4 --json /dev/full 2>err)
  expect_eq "cost --json /dev/full: exit" "$?" 1
  expect_eq "cost --json /dev/full" "$(cat err)" "netloom cost: --json: /dev/full: write failed: No space left on device"
  grep -q '^topology     torus:k=4x4' <<<"$out" || fail "cost --json /dev/full: no table on stdout: '$out'"
  for c in "layout torus:k=4x4 --svg /dev/full" "layout torus:k=4x4 --lengths /dev/full" \
           "layout torus:k=4x4 --svg /dev/full --lengths ok.txt" "layout torus:k=4x4 --svg ok.svg --lengths /dev/full" \
           "topo export torus:k=4x4 --format json -o /dev/full" "topo describe torus:k=4x4 -o /dev/full" \
           "design hyperx --terminals 64 --radix 16 --bisection 0.5 -o /dev/full" \
           "design equality --routers 8 --radix 3 --generations 2 -o /dev/full" \
           "design flex --terminals 64 --radix 16 --json -o /dev/full"; do
    opt=${c%% /dev/full*}
    opt=${opt##* }
    [ "$opt" = -o ] && opt=--output
    cmd=${c%% *}  # the line names the command, and topo's and design's subcommand
    case $cmd in topo | design) cmd=$(cut -d' ' -f1-2 <<<"$c") ;; esac
    $netloom $c >/dev/null 2>err
    expect_eq "$c: exit" "$?" 1
    expect_eq "$c" "$(cat err)" "netloom $cmd: $opt: /dev/full: write failed: No space left on device"
  done
  [ -e ok.txt ] || [ -e ok.svg ] && fail "layout, one output on /dev/full: the other written"
  # Standard output, the default of -o, is named as such, with no option.
  "$netloom" design flex --terminals 64 --radix 16 >/dev/full 2>err
  expect_eq "design flex >/dev/full: exit" "$?" 1
  expect_eq "design flex >/dev/full" "$(cat err)" "netloom design flex: stdout: write failed: No space left on device"
  out=$("$netloom" replay "$root/traces/samples/pingpong-2.nlt" --json /dev/full 2>err)
  expect_eq "replay --json /dev/full: exit" "$?" 1
  expect_eq "replay --json /dev/full" "$(cat err)" "netloom replay: --json: /dev/full: write failed: No space left on device"
  grep -q '^  predicted runtime' <<<"$out" || fail "replay --json /dev/full: no report on stdout: '$out'"
  # A drawing that cannot be written takes neither the report nor the
  # JSON with it: one line, exit 3 (interfere's for its --plot).
  out=$("$netloom" replay "$root/traces/samples/pingpong-2.nlt" --svg /dev/full --json rep.json 2>err)
  expect_eq "replay --svg /dev/full: exit" "$?" 3
  expect_eq "replay --svg /dev/full" "$(cat err)" \
    "netloom replay: --svg /dev/full: not written: /dev/full: write failed: No space left on device; the report and --json were written"
  grep -q '^  predicted runtime' <<<"$out" || fail "replay --svg /dev/full: no report on stdout: '$out'"
  expect_eq "replay --svg /dev/full: JSON written" "$(json rep.json 'd["results"]["status"]')" ok
  printf '[job A]\ntrace = %s\n[job B]\ntrace = %s\n' "$root/traces/samples/pingpong-2.nlt" \
    "$root/traces/samples/lammps-lj-2.nlt" >jobs.ini
  out=$("$netloom" interfere jobs.ini -s topology=torus:k=4x4 -s link_model=links --json /dev/full 2>err)
  expect_eq "interfere --json /dev/full: exit" "$?" 1
  expect_eq "interfere --json /dev/full" "$(cat err)" "netloom interfere: --json: /dev/full: write failed: No space left on device"
  grep -q '^netloom interfere: jobs.ini, 2 jobs' <<<"$out" || fail "interfere --json /dev/full: no table on stdout: '$out'"
fi

# A full disk, here a file size limit (SIGXFSZ ignored: a write past it
# fails with EFBIG, as one on a full disk with ENOSPC), while an archive is
# written: the work failing, exit 1, one line naming the output (not an
# input line), nothing left behind.
limited() { (trap '' XFSZ; ulimit -f "$1"; shift; exec "$netloom" "$@"); }
out=$(limited 100 trace encode pp.txt enc-full.nlt 2>err)
expect_eq "trace encode, disk full: exit" "$?" 1
expect_eq "trace encode, disk full" "$(cat err)" "netloom trace encode: enc-full.nlt: write failed: File too large"
out=$(limited 100 trace pack full.bundle "$root/traces/samples/pingpong-2.nlt" 2>err)
expect_eq "trace pack, disk full: exit" "$?" 1
expect_eq "trace pack, disk full" "$(cat err)" "netloom trace pack: full.bundle: write failed: File too large"
"$netloom" trace pack pp.bundle "$root/traces/samples/pingpong-2.nlt" >/dev/null || fail "trace pack: exit $?"
out=$(limited 100 trace unpack pp.bundle unpacked 2>err)
expect_eq "trace unpack, disk full: exit" "$?" 1
expect_eq "trace unpack, disk full" "$(cat err)" "netloom trace unpack: unpacked/pingpong-2.nlt: write failed: File too large"
[ -e enc-full.nlt ] || [ -e full.bundle ] || [ -e unpacked/pingpong-2.nlt ] && fail "disk full: a cut output left"
# OTF2 (a build with the library): the writer's buffers go to their files
# when closed, where OTF2 raises the error without returning it; the
# archive must not be moved into place cut, with status 0.
if "$netloom" trace export "$root/traces/samples/lammps-lj-2.nlt" --otf2 lj.otf2 >/dev/null 2>&1; then
  out=$(limited 100 trace export "$root/traces/samples/pingpong-2.nlt" --otf2 otf2full 2>err)
  expect_eq "trace export --otf2, disk full: exit" "$?" 1
  expect_eq "trace export --otf2, disk full" "$(cat err)" \
    "netloom trace export: otf2full: cannot write the OTF2 archive (events): File is too large"
  expect_eq "trace export --otf2, disk full: stdout" "$out" ""
  out=$(limited 4 trace convert lj.otf2/traces.otf2 conv.nlt 2>err)
  expect_eq "trace convert, disk full: exit" "$?" 1
  expect_eq "trace convert, disk full" "$(cat err)" "netloom trace convert: conv.nlt: write failed: File too large"
  # replay's timeline (docs/replay.md): the report and --json written, 3.
  out=$(limited 100 replay "$root/traces/samples/pingpong-2.nlt" --otf2 otf2rep --json rep2.json 2>err)
  expect_eq "replay --otf2, disk full: exit" "$?" 3
  expect_eq "replay --otf2, disk full" "$(cat err)" \
    "netloom replay: --otf2 otf2rep: not written: otf2rep: cannot write the OTF2 archive (events): File is too large; the report and --json were written"
  grep -q '^  predicted runtime' <<<"$out" || fail "replay --otf2, disk full: no report on stdout: '$out'"
  expect_eq "replay --otf2, disk full: JSON written" "$(json rep2.json 'd["results"]["status"]')" ok
  ls -d otf2full* otf2rep* conv.nlt 2>/dev/null && fail "OTF2, disk full: a cut archive left"
else
  echo "outputs: no OTF2 export in this build; its full-disk case is skipped"
fi

# A directory or a dangling link: refused before the run, nothing on stdout.
mkdir outdir
out=$("$netloom" "${run[@]}" --json outdir 2>err)
expect_eq "run --json DIR: exit" "$?" 2
expect_eq "run --json DIR: stdout" "$out" ""
expect_eq "run --json DIR" "$(cat err)" "netloom run: --json: outdir: is a directory; expected a file name to write"
ln -s missing/x.json dangling.json
out=$("$netloom" "${run[@]}" --json dangling.json 2>err)
expect_eq "run --json DANGLING: exit" "$?" 2
expect_eq "run --json DANGLING: stdout" "$out" ""
grep -q "^netloom run: --json: dangling.json: a symbolic link to a missing file" err || fail "run --json DANGLING: $(cat err)"
[ -L dangling.json ] || fail "run --json DANGLING: the link was replaced"
# Another user's file in a sticky folder (/tmp): the rename that replaces
# it is refused (EPERM) whatever the file's mode, so it is refused before
# the work, status 2, not after it with status 1. Needs a second user:
# run as root, netloom runs as nobody (setpriv), skipped elsewhere.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
   chmod 711 "$dir" && mkdir sticky && chmod 1777 sticky &&
   setpriv --reuid=nobody --regid=nogroup --clear-groups "$netloom" version >/dev/null 2>&1; then
  as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$netloom" "$@"; }
  echo old >sticky/root.dot
  chmod 666 sticky/root.dot
  out=$(as_nobody topo export torus:k=4x4 --format dot -o sticky/root.dot 2>err)
  expect_eq "topo export -o ANOTHER'S FILE IN /tmp: exit" "$?" 2
  expect_eq "topo export -o ANOTHER'S FILE IN /tmp: stdout" "$out" ""
  expect_eq "topo export -o ANOTHER'S FILE IN /tmp" "$(cat err)" "netloom topo export: --output: sticky/root.dot: \
cannot replace another user's file in sticky folder sticky (only its owner or the folder's may); \
expected a file of yours or a new name"
  expect_eq "topo export -o ANOTHER'S FILE IN /tmp: file kept" "$(cat sticky/root.dot)" old
  # The user's own file there, and root replacing anyone's, are written.
  as_nobody topo export torus:k=4x4 --format dot -o sticky/own.dot >/dev/null &&
    as_nobody topo export torus:k=4x4 --format dot -o sticky/own.dot >/dev/null || fail "-o own file in /tmp: exit $?"
  "$netloom" topo export torus:k=4x4 --format dot -o sticky/own.dot >/dev/null || fail "root -o in /tmp: exit $?"
  grep -q '^graph\|^digraph' sticky/own.dot || fail "-o own file in /tmp: no DOT written"
else
  echo "outputs: not root or no setpriv to run as nobody; the sticky-folder case is skipped"
fi
# Every command with output options checks each before its work: the
# work here would fail on its own (a bad SPEC, a search past the work
# limit, a design too large to build), so the line naming the output
# shows that it came first. (An odd router count is a bad value now,
# refused with the other options before any output is looked at.) The line names the option (the long form of -o), so a
# command with two outputs says which one it refused.
for c in "cost torus:k=0 --json" "layout torus:k=0 --svg" "layout torus:k=0 --svg ok.svg --lengths" \
         "topo export torus:k=0 --format json -o" "topo describe torus:k=0 -o" \
         "design equality --routers 16777216 --radix 16777215 --population 2 --generations 1 -o" "design slimfly --terminals 100000 --radix 300 -o" \
         "design hyperx --terminals 64 --radix 16 --bisection 0.5 -o"; do
  opt=${c##* }
  [ "$opt" = -o ] && opt=--output
  cmd=${c%% *}
  case $cmd in topo | design) cmd=$(cut -d' ' -f1-2 <<<"$c") ;; esac
  out=$($netloom $c outdir 2>err)
  expect_eq "$c DIR: exit" "$?" 2
  expect_eq "$c DIR: stdout" "$out" ""
  expect_eq "$c DIR" "$(cat err)" "netloom $cmd: $opt: outdir: is a directory; expected a file name to write"
  out=$($netloom $c dangling.json 2>err)
  expect_eq "$c DANGLING: exit" "$?" 2
  expect_eq "$c DANGLING: stdout" "$out" ""
  grep -q "^netloom $cmd: $opt: dangling.json: a symbolic link to a missing file" err || fail "$c DANGLING: $(cat err)"
done
[ -L dangling.json ] || fail "DANGLING: the link was replaced"
[ -e ok.svg ] && fail "layout --svg ok.svg --lengths DIR: ok.svg written"
ls -a | grep -q '\.tmp' && fail "temporary files left: $(ls -a)"

# An output naming an input (docs/results.md): refused before the work,
# status 2, one line, the input untouched (it was replaced by the JSON,
# exit 0), as trace convert refuses an OUT that is its input.
cp "$root/traces/samples/pingpong-2.nlt" orig.nlt
"$netloom" topo export torus:k=4x4 --format edgelist -o orig.txt || fail "topo export -o orig.txt: exit $?"
inputs() { # fresh inputs for each case: a case failing leaves the next its own
  cp orig.nlt p.nlt && cp orig.txt g.txt
  printf '%s\n' "[network]" "topology = torus:k=4x4" "[analytic]" "link_model = links" "[replay]" "backend = analytic" >sys.ini
  printf '%s\n' "[job A]" "trace = p.nlt" >wl.ini
  printf '%s\n' "[network]" "topology = torus:k=4x4" >run.ini
  echo "graph:file=g.txt" >spec.txt
  printf '0 0\n1 1\n' >map.txt
  cp "$root/traces/samples/calibration-shm.json" cal.json
}
same() { # NAME FILE WANT_LINE COMMAND...: exit 2, WANT_LINE, FILE unchanged
  local name=$1 f=$2 want=$3; shift 3
  inputs
  local before; before=$(cksum <"$f")
  out=$("$netloom" "$@" 2>err)
  expect_eq "$name: exit" "$?" 2
  expect_eq "$name: stdout" "$out" ""
  expect_eq "$name" "$(cat err)" "$want"
  expect_eq "$name: $f untouched" "$(cksum <"$f")" "$before"
}
same "replay TRACE --json TRACE" p.nlt \
  "netloom replay: --json 'p.nlt': the same file as TRACE 'p.nlt', an input; expected another file" \
  replay p.nlt -s topology=torus:k=4x4 --json p.nlt
same "replay -c FILE --svg FILE" sys.ini \
  "netloom replay: --svg './sys.ini': the same file as -c 'sys.ini', an input; expected another file" \
  replay p.nlt -c sys.ini --svg ./sys.ini
same "run -c FILE --json FILE" run.ini \
  "netloom run: --json 'run.ini': the same file as -c 'run.ini', an input; expected another file" \
  "${run[@]}" -c run.ini --json run.ini
same "sweep -c FILE --json FILE" run.ini \
  "netloom sweep: --json 'run.ini': the same file as -c 'run.ini', an input; expected another file" \
  sweep "${run[@]:1}" -c run.ini --rates 0.1:0.2:0.1 --json run.ini
same "interfere WORKLOAD --json WORKLOAD" wl.ini \
  "netloom interfere: --json 'wl.ini': the same file as WORKLOAD 'wl.ini', an input; expected another file" \
  interfere wl.ini -c sys.ini --json wl.ini
same "interfere -c FILE --plot FILE" sys.ini \
  "netloom interfere: --plot 'sys.ini': the same file as -c 'sys.ini', an input; expected another file" \
  interfere wl.ini -c sys.ini --plot sys.ini
same "topo describe graph:file=F -o F" g.txt \
  "netloom topo describe: --output 'g.txt': the same file as graph:file= 'g.txt', an input; expected another file" \
  topo describe graph:file=g.txt -o g.txt
same "topo export graph:file=F -o F" g.txt \
  "netloom topo export: --output 'g.txt': the same file as graph:file= 'g.txt', an input; expected another file" \
  topo export graph:file=g.txt --format json -o g.txt
same "cost graph:file=F --json F" g.txt \
  "netloom cost: --json 'g.txt': the same file as graph:file= 'g.txt', an input; expected another file" \
  cost graph:file=g.txt --json g.txt
same "layout graph:file=F --svg F" g.txt \
  "netloom layout: --svg 'g.txt': the same file as graph:file= 'g.txt', an input; expected another file" \
  layout graph:file=g.txt --svg g.txt
same "topo describe @SPEC -o SPEC" spec.txt \
  "netloom topo describe: --output 'spec.txt': the same file as SPEC 'spec.txt', an input; expected another file" \
  topo describe @spec.txt -o spec.txt
# The files named inside an @FILE's spec too (the graph was replaced, exit 0).
same "topo describe @SPEC -o its graph:file=" g.txt \
  "netloom topo describe: --output 'g.txt': the same file as graph:file= in @spec.txt 'g.txt' (resolved to $(pwd -P)/g.txt, relative to the spec file spec.txt), an input; expected another file" \
  topo describe @spec.txt -o g.txt
same "cost @SPEC --json its graph:file=" g.txt \
  "netloom cost: --json './g.txt': the same file as graph:file= in @spec.txt 'g.txt' (resolved to $(pwd -P)/g.txt, relative to the spec file spec.txt), an input; expected another file" \
  cost @spec.txt --json ./g.txt
# A nested spec's files, found through the base's own parameters (the
# text scan took "g.txt):trials=1" for the graph and missed an @FILE as
# the base: both were replaced, exit 0).
same "topo describe p2(graph:file=F) -o F" g.txt \
  "netloom topo describe: --output 'g.txt': the same file as graph:file= 'g.txt', an input; expected another file" \
  topo describe 'p2(graph:file=g.txt):trials=1' -o g.txt
same "topo describe p2(@SPEC) -o SPEC" spec.txt \
  "netloom topo describe: --output 'spec.txt': the same file as p2:base=@FILE 'spec.txt', an input; expected another file" \
  topo describe 'p2(@spec.txt):trials=1' -o spec.txt
same "cost p2(@SPEC) --json its graph:file=" g.txt \
  "netloom cost: --json 'g.txt': the same file as graph:file= in @spec.txt 'g.txt' (resolved to $(pwd -P)/g.txt, relative to the spec file spec.txt), an input; expected another file" \
  cost 'p2(@spec.txt)' --json g.txt
# A file a configuration key names (-s or -c), or a --topology SPEC reads:
# the graph, map or calibration was replaced, exit 0.
same "run -s topology=graph:file=F --json F" g.txt \
  "netloom run: --json 'g.txt': the same file as -s topology graph:file= 'g.txt', an input; expected another file" \
  "${run[@]}" -s topology=graph:file=g.txt --json g.txt
same "run -s topology=@SPEC --json SPEC" spec.txt \
  "netloom run: --json 'spec.txt': the same file as -s topology @FILE 'spec.txt', an input; expected another file" \
  "${run[@]}" -s topology=@spec.txt --json spec.txt
printf '%s\n' "[network]" "topology = graph:file=g.txt" >graph.ini
same "sweep -c FILE (topology = graph:file=F) --json F" g.txt \
  "netloom sweep: --json './g.txt': the same file as graph.ini:2 topology graph:file= 'g.txt' (resolved to $(pwd -P)/g.txt, relative to the config graph.ini), an input; expected another file" \
  sweep "${run[@]:3}" -c graph.ini --rates 0.1:0.2:0.1 --json ./g.txt
# The same read from a pipe: an @FILE that is /dev/stdin, a FIFO or a
# <(...), and a -c /dev/stdin (the graph was replaced, exit 0). The pipe's
# text is read once, for the check and the build alike.
same "topo describe @/dev/stdin -o its graph:file=" g.txt \
  "netloom topo describe: --output 'g.txt': the same file as graph:file= in @/dev/stdin 'g.txt', an input; expected another file" \
  topo describe @/dev/stdin -o g.txt < <(echo 'graph:file=g.txt')
same "topo describe p2(@/dev/stdin) -o its graph:file=" g.txt \
  "netloom topo describe: --output 'g.txt': the same file as graph:file= in @/dev/stdin 'g.txt', an input; expected another file" \
  topo describe 'p2(@/dev/stdin):trials=1' -o g.txt < <(echo 'graph:file=g.txt')
exec {piped}< <(echo 'p2(graph:file=g.txt):trials=1')
same "topo describe @<(...) -o its graph:file=" g.txt \
  "netloom topo describe: --output 'g.txt': the same file as graph:file= in @/dev/fd/$piped 'g.txt', an input; expected another file" \
  topo describe @/dev/fd/$piped -o g.txt
exec {piped}<&-
same "run -s topology=@/dev/stdin --json its graph:file=" g.txt \
  "netloom run: --json 'g.txt': the same file as -s topology graph:file= in @/dev/stdin 'g.txt', an input; expected another file" \
  run "${run[@]:3}" -s topology=@/dev/stdin --json g.txt < <(echo 'graph:file=g.txt')
same "run -c /dev/stdin (topology = graph:file=F) --json F" g.txt \
  "netloom run: --json 'g.txt': the same file as /dev/stdin:2 topology graph:file= 'g.txt', an input; expected another file" \
  run "${run[@]:3}" -c /dev/stdin --json g.txt < <(cat graph.ini)
same "sweep -c /dev/stdin (topology = graph:file=F) --json F" g.txt \
  "netloom sweep: --json 'g.txt': the same file as /dev/stdin:2 topology graph:file= 'g.txt', an input; expected another file" \
  sweep "${run[@]:3}" -c /dev/stdin --rates 0.1:0.2:0.1 --json g.txt < <(cat graph.ini)
mkfifo spec.fifo
timeout 60 sh -c 'echo "graph:file=g.txt" >spec.fifo' &
writer=$!
same "cost @FIFO --json its graph:file=" g.txt \
  "netloom cost: --json 'g.txt': the same file as graph:file= in @spec.fifo 'g.txt', an input; expected another file" \
  cost @spec.fifo --json g.txt
wait "$writer" || fail "cost @FIFO: the writer's text was not read (status $?)"
# What was read for the check is what is built, and recorded ("@FILE" as
# the spec it read, docs/configuration.md; '@/dev/stdin' before, its
# second read finding the pipe empty).
out=$(echo 'torus:k=4' | "$netloom" topo describe @/dev/stdin 2>&1)
expect_eq "topo describe @/dev/stdin: the spec piped" "$(echo "$out" | sed -n 's/^topology *//p')" "torus:k=4,p=1"
echo 'torus:k=4' | "$netloom" topo describe 'p2(@/dev/stdin):trials=1' -o piped.txt 2>err ||
  fail "topo describe p2(@/dev/stdin) -o F: exit $?: $(cat err)"
expect_eq "topo describe p2(@/dev/stdin) -o F: the spec piped" "$(sed -n 's/^topology *//p' piped.txt)" \
  "p2(torus:k=4,p=1):trials=1,cab=0,frac=1,seed=1"
echo 'torus:k=4x4' | "$netloom" run "${run[@]:3}" -s topology=@/dev/stdin --json piped.json >/dev/null 2>err ||
  fail "run -s topology=@/dev/stdin --json F: exit $?: $(cat err)"
expect_eq "run -s topology=@/dev/stdin: the spec recorded" "$(json piped.json 'd["config"]["topology"]')" "torus:k=4x4"
same "replay -s placement_map=F --json F" map.txt \
  "netloom replay: --json 'map.txt': the same file as -s placement_map 'map.txt', an input; expected another file" \
  replay p.nlt -s topology=torus:k=4x4 -s placement=map -s placement_map=map.txt --json map.txt
same "replay -s calibration=F --svg F" cal.json \
  "netloom replay: --svg 'cal.json': the same file as -s calibration 'cal.json', an input; expected another file" \
  replay p.nlt -s calibration=cal.json --svg cal.json
same "replay --topology graph:file=F --json F" g.txt \
  "netloom replay: --json 'g.txt': the same file as graph:file= 'g.txt', an input; expected another file" \
  replay p.nlt -t torus:k=4x4 -t graph:file=g.txt --json g.txt
# replay's outputs against each other, as interfere's and layout's: the
# JSON went into out.svg, exit 0; '-' twice mixed both on stdout.
inputs
out=$("$netloom" replay p.nlt -s topology=torus:k=4x4 --svg out.svg --json out.svg 2>err)
expect_eq "replay --svg F --json F: exit" "$?" 2
expect_eq "replay --svg F --json F: stdout" "$out" ""
expect_eq "replay --svg F --json F" "$(cat err)" \
  "netloom replay: --svg 'out.svg': the same file as --json; expected another file"
[ -e out.svg ] && fail "replay --svg F --json F: out.svg written"
out=$("$netloom" replay p.nlt -s topology=torus:k=4x4 --svg - --json - 2>err)
expect_eq "replay --svg - --json -: exit" "$?" 2
expect_eq "replay --svg - --json -: stdout" "$out" ""
expect_eq "replay --svg - --json -" "$(cat err)" \
  "netloom replay: --svg - and --json -: both on standard output; expected a file for one of them"
out=$("$netloom" replay p.nlt -s topology=torus:k=4x4 --svg tl --otf2 ./tl 2>err)
expect_eq "replay --svg F --otf2 F: exit" "$?" 2
expect_eq "replay --svg F --otf2 F" "$(cat err)" \
  "netloom replay: --otf2 './tl': the same file as --svg; expected another file"
[ -e tl ] && fail "replay --svg F --otf2 F: tl written"
# interfere's outputs against the files its workload's jobs read (a
# trace, a placement_map, against the workload's folder) and its keys'.
printf '%s\n' "[job A]" "trace = p.nlt" "placement = map" "placement_map = map.txt" "[job B]" "trace = p.nlt" >wl2.ini
same "interfere: a job's trace as --json" p.nlt \
  "netloom interfere: --json 'p.nlt': the same file as wl2.ini:2 [job A] trace 'p.nlt', an input; expected another file" \
  interfere wl2.ini -c sys.ini --json p.nlt
same "interfere: a job's placement_map as --plot" map.txt \
  "netloom interfere: --plot './map.txt': the same file as wl2.ini:4 [job A] placement_map 'map.txt', an input; expected another file" \
  interfere wl2.ini -c sys.ini --plot ./map.txt
same "interfere -s topology=graph:file=F --json F" g.txt \
  "netloom interfere: --json 'g.txt': the same file as -s topology graph:file= 'g.txt', an input; expected another file" \
  interfere wl.ini -c sys.ini -s topology=graph:file=g.txt --json g.txt
# serve's outputs against its inputs (-c, --trace, --tokens, a key's
# file): the session ran (here: no client came, 1 s) and replaced them.
serve=(serve --ranks 2 --connect-timeout-ms 1000 --listen "ipc://$dir/serve.sock")
same "serve -c FILE --json FILE" sys.ini \
  "netloom serve: --json 'sys.ini': the same file as -c 'sys.ini', an input; expected another file" \
  "${serve[@]}" -c sys.ini --json sys.ini
same "serve --trace F --record F" p.nlt \
  "netloom serve: --record './p.nlt': the same file as --trace 'p.nlt', an input; expected another file" \
  "${serve[@]}" --trace p.nlt --record ./p.nlt
printf '1\n2\n' >tokens.txt
same "serve --tokens F --messages F" tokens.txt \
  "netloom serve: --messages 'tokens.txt': the same file as --tokens 'tokens.txt', an input; expected another file" \
  "${serve[@]}" --tokens tokens.txt --messages tokens.txt
same "serve -s topology=graph:file=F --json F" g.txt \
  "netloom serve: --json 'g.txt': the same file as -s topology graph:file= 'g.txt', an input; expected another file" \
  "${serve[@]}" -s topology=graph:file=g.txt --json g.txt
# An output naming serve's ipc:// socket file (--listen ipc://s.nlt,
# which the bind creates): the session ran, then the output was lost
# (--record, --json: exit 1) or refused only once bound (--messages).
for opt in --record --json --messages; do
  for path in s.nlt ./s.nlt; do
    out=$("$netloom" serve --ranks 2 --connect-timeout-ms 1000 --listen ipc://s.nlt $opt $path 2>err)
    expect_eq "serve --listen ipc://F $opt $path: exit" "$?" 2
    expect_eq "serve --listen ipc://F $opt $path: stdout" "$out" ""
    expect_eq "serve --listen ipc://F $opt $path" "$(cat err)" \
      "netloom serve: $opt '$path': the same file as --listen 'ipc://s.nlt', the socket it creates; expected another file"
    ls s.nlt* >/dev/null 2>&1 && fail "serve --listen ipc://F $opt $path: s.nlt written or bound"
    rm -f s.nlt*
  done
done
# An output option of serve given twice (the last one won silently).
for opt in --json --messages --record --curve-keygen; do
  out=$("$netloom" "${serve[@]}" $opt a1.json $opt a2.json 2>err)
  expect_eq "serve $opt twice: exit" "$?" 2
  expect_eq "serve $opt twice" "$(cat err)" "netloom serve: option '$opt' given twice"
  ls a1.json* a2.json* >/dev/null 2>&1 && fail "serve $opt twice: written"
  rm -f a1.json* a2.json*
done
# --listen twice: one endpoint is bound, the second replaced the first
# silently (exit 0, listening on b.sock only).
"$netloom" serve --ranks 2 --connect-timeout-ms 1000 --listen "ipc://$dir/a.sock" --listen "ipc://$dir/b.sock" > /dev/null 2> err
expect_eq "serve --listen twice: exit" "$?" 2
expect_eq "serve --listen twice" "$(cat err)" "netloom serve: option '--listen' given twice"
ls "$dir"/a.sock "$dir"/b.sock >/dev/null 2>&1 && fail "serve --listen twice: a socket was bound"
# replay --svg - alone: the SVG is all there is on stdout, as --json -
# and interfere's --plot - (the report followed it there, exit 0).
inputs
"$netloom" replay p.nlt -s topology=torus:k=4x4 --svg - >tl.svg 2>err
expect_eq "replay --svg -: exit" "$?" 0
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' tl.svg 2>/dev/null ||
  fail "replay --svg -: stdout is not the SVG alone: $(grep -v '^<' tl.svg | head -2)"
out=$("$netloom" replay p.nlt -s topology=torus:k=4x4 --svg - --csv 2>err)
expect_eq "replay --svg - --csv: exit" "$?" 2
expect_eq "replay --svg - --csv: stdout" "$out" ""
expect_eq "replay --svg - --csv" "$(cat err)" \
  "netloom replay: --csv and --svg -: both on standard output; expected a file for --svg"
# An output option given twice is refused, as run's --json (the last one
# won silently, the first file never written; compare's -o too).
printf '[study]\nbackend = analytic\n[system torus]\ntopology = torus:k=4x4\n[workload pp]\ntrace = %s\n' \
  "$root/traces/samples/pingpong-2.nlt" >study.ini
for c in "compare study.ini -o a1.json -o" "cost torus:k=4x4 --json a1.json --json" "layout torus:k=4x4 --svg a1.json --svg" \
         "layout torus:k=4x4 --lengths a1.json --lengths" "replay p.nlt -s topology=torus:k=4x4 --json a1.json --json" \
         "replay p.nlt -s topology=torus:k=4x4 --svg a1.json --svg" "replay p.nlt -s topology=torus:k=4x4 --otf2 a1.json --otf2" \
         "interfere wl.ini -c sys.ini --json a1.json --json" "interfere wl.ini -c sys.ini --plot a1.json --plot" \
         "topo describe torus:k=4x4 -o a1.json --output" "topo export torus:k=4x4 --format json -o a1.json -o" \
         "design hyperx --terminals 64 --radix 16 --bisection 0.5 -o a1.json -o" "design equality --routers 8 --radix 4 -o a1.json -o" \
         "design slimfly --terminals 100 --radix 30 -o a1.json -o"; do
  out=$($netloom $c a2.json 2>err)
  expect_eq "$c twice: exit" "$?" 2
  expect_eq "$c twice: stdout" "$out" ""
  opt=${c##* }; [ "$opt" = -o ] && opt=--output
  case $c in replay*) pre="netloom replay:" ;; *) pre="netloom ${c%% torus*}:" ;; esac
  case $c in design*) pre="netloom $(cut -d' ' -f1-2 <<<"$c"):" ;; interfere*) pre="netloom interfere:" ;;
    compare*) pre="netloom compare:" ;; esac
  expect_eq "$c twice" "$(cat err)" "$pre option '$opt' given twice"
  [ -e a1.json ] || [ -e a2.json ] && fail "$c twice: written"
  rm -rf a1.json a2.json
done

# compare's report (DIR/report.json, report.md, index.html) against the
# files its study reads: the study, a workload's trace, a system's config
# file and the files its keys name (a trace named report.md and
# 'compare study.ini -o .': the trace replaced by the report, exit 0).
# Nothing run, no report, no cache.
same_compare() { # as same; then nothing of the report written beside FILE
  same "$@"
  local d f
  d=$(dirname "$2")
  for f in report.json report.md index.html cache; do
    [ "$d/$f" = "./$2" ] || [ "$d/$f" = "$2" ] || [ ! -e "$d/$f" ] || fail "$1: $d/$f written"
    rm -rf "${d:?}/$f"
  done
}
cmp_study() { # STUDY TRACE [SYSTEM KEY LINES...]: a study of torus:k=4x4 (or the keys given) and TRACE
  local f=$1 t=$2; shift 2
  { printf '%s\n' "[study]" "[system a]"; [ $# -gt 0 ] && printf '%s\n' "$@" || echo "topology = torus:k=4x4"
    printf '%s\n' "[workload w]" "trace = $t"; } >"$f"
}
cp orig.nlt report.md
cmp_study cmp.ini report.md
same_compare "compare: a trace as DIR/report.md" report.md \
  "netloom compare: -o './report.md': the same file as cmp.ini:5 [workload w] trace 'report.md', an input; expected another file" \
  compare cmp.ini -o .
cmp_study report.json p.nlt
same_compare "compare: the study as DIR/report.json" report.json \
  "netloom compare: -o './report.json': the same file as STUDY 'report.json', an input; expected another file" \
  compare report.json -o .
printf '%s\n' "[network]" "topology = torus:k=4x4" >report.md
cmp_study cmp.ini p.nlt "config = report.md"
same_compare "compare: a system's config file as DIR/report.md" report.md \
  "netloom compare: -o './report.md': the same file as cmp.ini:3 [system a] config 'report.md', an input; expected another file" \
  compare cmp.ini -o .
printf '0 0\n1 1\n' >index.html
cmp_study cmp.ini p.nlt "topology = torus:k=4x4" "placement_map = index.html"
same_compare "compare: a system's placement_map as DIR/index.html" index.html \
  "netloom compare: -o './index.html': the same file as cmp.ini:4: [system a] placement_map 'index.html', an input; expected another file" \
  compare cmp.ini -o .
cp orig.txt report.md
printf '%s\n' "[network]" "topology = graph:file=report.md" >gsys.ini
cmp_study cmp.ini p.nlt "config = gsys.ini"
same_compare "compare: a config file's graph:file= as DIR/report.md" report.md \
  "netloom compare: -o './report.md': the same file as gsys.ini:2 topology graph:file= 'report.md' (resolved to $(pwd -P)/report.md, relative to the config gsys.ini), an input; expected another file" \
  compare cmp.ini -o .
echo "graph:file=g.txt" >index.html
cmp_study cmp.ini p.nlt "topology = @index.html"
# A system's inline topology files are kept absolute (3331170e), so the
# refusal names the file by that name.
same_compare "compare: a system's @FILE spec as DIR/index.html" index.html \
  "netloom compare: -o './index.html': the same file as cmp.ini:3: [system a] topology @FILE '$(pwd -P)/index.html', an input; expected another file" \
  compare cmp.ini -o .
# A study in another folder: its paths are read from there.
mkdir -p st && cp orig.nlt st/report.md
cmp_study st/cmp.ini report.md
same_compare "compare: a trace as DIR/report.md, from another folder" st/report.md \
  "netloom compare: -o 'st/report.md': the same file as st/cmp.ini:5 [workload w] trace 'st/report.md', an input; expected another file" \
  compare st/cmp.ini -o st/
# A report.md the study does not read is the report's to replace.
inputs
echo old >report.md
cmp_study cmp.ini p.nlt
"$netloom" compare cmp.ini -o . >/dev/null 2>err || fail "compare -o . over an unread report.md: exit $?: $(cat err)"
grep -q '^# ' report.md || fail "compare -o . over an unread report.md: not replaced"
rm -rf report.json report.md index.html cache

[ "$fails" -eq 0 ] || exit 1
echo "outputs: all checks passed"
