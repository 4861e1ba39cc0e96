#!/usr/bin/env bash
# Acceptance on the recorded samples (traces/samples/*.nlt).
#
#   replay_samples.sh ideal    NETLOOM SAMPLES_DIR
#   replay_samples.sh accuracy NETLOOM SAMPLES_DIR [TOLERANCE]   (default 0.15)
#
# ideal: on the ideal network (zero latency, infinite bandwidth) each
#   rank's replayed compute time equals the sum of its recorded compute
#   intervals, to the picosecond (summed here from `netloom trace dump`,
#   independently of replay: their wall-clock `dur`, or their CPU time
#   `cpu` when the replay says it used CPU time, which it must do exactly
#   for the samples whose manifest says ranks shared cores and that carry
#   CPU time), communication costs nothing, and the predicted runtime, the
#   trace's compute-only time, lies between the busiest rank's compute time
#   and the recorded runtime. A compute interval's CPU time never exceeds
#   its wall-clock length.
# accuracy: on the analytical backend calibrated to the recording machine's
#   shared-memory transport (calibration=calibration-shm.json: the measured
#   one-way time per size of the ping-pong run with the sample's rank
#   count; link_model=endpoint: a rank's copies share its channels), the
#   predicted runtime is within TOLERANCE of the recorded one, for every
#   sample recorded with at most one rank per core (format 2: the
#   manifest's ranks per host and cores per host, which replay reports as
#   recorded_comparable; format 1: the CPU count in the machine
#   description). Samples recorded with more ranks than cores are reported
#   but not judged: their recorded time is mostly the operating system
#   sharing the cores. Prints one line per sample, then the worst relative
#   error.
# Exit 77 (skipped) when there are no samples.
set -uo pipefail
mode=$1
netloom=$2
samples=$3
tol=${4:-0.15}
shopt -s nullglob
files=("$samples"/*.nlt)
if [ ${#files[@]} -eq 0 ]; then
  echo "no samples in $samples" >&2
  exit 77
fi
. "$(dirname "$0")/lib.sh"

if [ "$mode" = ideal ]; then
  for f in "${files[@]}"; do
    name=$(basename "$f" .nlt)
    "$netloom" replay "$f" -s ideal=yes --json "$dir/$name.json" > /dev/null 2> "$dir/$name.err" || { fail "$name: $(head -1 "$dir/$name.err")"; continue; }
    "$netloom" trace dump "$f" > "$dir/$name.txt" || { fail "$name: dump"; continue; }
    python3 - "$name" "$dir/$name.txt" "$dir/$name.json" <<'PY' || fails=$((fails + 1))
import json, sys
name, dump, res = sys.argv[1:]
d = json.load(open(res))
field = {"wall": "dur", "cpu": "cpu"}[d["results"]["compute_time"]]
compute = {}
rank = None
header = {}
bad = []
for line in open(dump):
    if line.startswith("rank "):
        rank = int(line.split()[1])
        compute[rank] = 0
    elif rank is not None and line.startswith("compute "):
        f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        compute[rank] += int(f.get(field, 0))
        if int(f.get("cpu", 0)) > int(f["dur"]):
            bad.append(f"rank {rank}: compute cpu {f['cpu']} > dur {f['dur']}")
    elif rank is None and " " in line and not line.startswith("#"):
        k, v = line.split(" ", 1)
        header[k] = v.strip()
shared = int(header.get("ranks_per_host", 0)) > int(header.get("cores_per_host", 0)) > 0
want = "cpu" if shared and header.get("compute_cpu_time") == "1" else "wall"
if d["results"]["compute_time"] != want:
    bad.append(f"compute_time {d['results']['compute_time']}, expected {want} (auto)")
ranks = d["results"]["ranks"]
for r in ranks:
    got = round(r["compute_s"] * 1e12)
    if got != compute[r["rank"]]:
        bad.append(f"rank {r['rank']} compute {got} ps, recorded {compute[r['rank']]} ps")
    if r["comm_s"] != 0:
        bad.append(f"rank {r['rank']} comm_s {r['comm_s']} on the ideal network")
pred = d["results"]["runtime"]["predicted_s"]
rec = d["results"]["runtime"]["recorded_s"]
busiest = max(compute.values()) * 1e-12
if not (busiest - 1e-12 <= pred <= rec + 1e-12):
    bad.append(f"compute-only time {pred} s outside [{busiest}, {rec}] s")
for b in bad:
    print(f"FAIL: {name}: {b}", file=sys.stderr)
print(f"{name}: {len(ranks)} ranks, compute-only time {pred:.6f} s (busiest rank computes {busiest:.6f} s of {d['results']['compute_time']} time, recorded {rec:.6f} s)")
sys.exit(1 if bad else 0)
PY
  done
elif [ "$mode" = accuracy ]; then
  cal=$samples/calibration-shm.json
  [ -f "$cal" ] || { echo "no $cal" >&2; exit 77; }
  worst=0
  judged=0
  for f in "${files[@]}"; do
    name=$(basename "$f" .nlt)
    # Ranks, and the recording machine's CPU count from the manifest.
    read -r ranks cpus < <(python3 -c '
import json, re, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "trace", "info", sys.argv[2], "--json"], capture_output=True, text=True).stdout)
m = re.search(r"(\d+) CPUs", d.get("machine", ""))
print(d["ranks"], m.group(1) if m else 0)' "$netloom" "$f")
    calranks=$(python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
n = int(sys.argv[2])
print(min(runs, key=lambda r: (abs(r["ranks"] - n), -r["ranks"]))["ranks"])' "$cal" "$ranks")
    # One configuration for every sample: the measured one-way times of
    # the calibration run with the same rank count, endpoint sharing.
    "$netloom" replay "$f" -s calibration="$cal" -s calibration_ranks="$calranks" -s link_model=endpoint \
      --json "$dir/$name.json" > /dev/null 2> "$dir/$name.err" || { fail "$name: $(head -1 "$dir/$name.err")"; continue; }
    line=$(python3 - "$dir/$name.json" "$name" "$tol" "$calranks" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
name, tol, calranks = sys.argv[2], float(sys.argv[3]), sys.argv[4]
rt = d["results"]["runtime"]
err = rt["predicted_s"] / rt["recorded_s"] - 1
ok = "ok" if abs(err) <= tol else "OUTSIDE"
# recorded_comparable: true / false from the manifest, null when it does not say.
c = {True: "yes", False: "no", None: "unknown"}[rt["recorded_comparable"]]
print(f"{abs(err):.6f} {c} {name}: predicted {rt['predicted_s']:.6f} s ({d['results']['compute_time']} compute), recorded {rt['recorded_s']:.6f} s, predicted/recorded {rt['predicted_s'] / rt['recorded_s']:.4f} ({err:+.1%}, {ok}; calibration of {calranks} ranks, link_model endpoint)")
PY
)
    e=${line%% *}
    line=${line#* }
    comparable=${line%% *}
    # The manifest decides when it says; format-1 archives fall back on
    # the machine description's CPU count.
    if [ "$comparable" = yes ] || { [ "$comparable" = unknown ] && [ "$cpus" -gt 0 ] && [ "$ranks" -le "$cpus" ]; }; then
      echo "${line#* }"
      judged=$((judged + 1))
      worst=$(python3 -c "print(max($worst, $e))")
      python3 -c "import sys; sys.exit(0 if $e <= $tol else 1)" || fail "$name outside ${tol}"
    else
      # More ranks than CPUs: the recorded runtime is mostly the OS
      # sharing the cores, not the transport; reported, not judged.
      echo "${line#* } [not judged: $ranks ranks on $cpus CPUs; manifest says comparable: $comparable]"
    fi
  done
  [ $judged -gt 0 ] || { echo "no sample was recorded with at most one rank per CPU" >&2; exit 77; }
  echo "worst relative error of the calibrated prediction over the $judged samples with one rank per CPU: $worst (tolerance $tol)"
else
  echo "usage: replay_samples.sh ideal|accuracy NETLOOM SAMPLES_DIR [TOLERANCE]" >&2
  exit 2
fi
[ $fails -eq 0 ] || { echo "$fails sample checks failed" >&2; exit 1; }
