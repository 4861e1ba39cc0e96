#!/usr/bin/env bash
# benchmarks/validation/repro/equality_sec5.py's saturation table when no
# point of a sweep was stable (last_stable_rate null in the JSON): "none",
# as `netloom sweep` prints it (docs/results.md), where it printed "last
# stable 0.00", a rate. A stand-in netloom answers every sweep with one
# unstable point, so nothing is simulated.
# usage: repro_equality_sec5.sh SOURCE_ROOT
set -uo pipefail
root=$1
. "$(dirname "$0")/lib.sh"

cat > "$dir/netloom" <<'EOF'
#!/usr/bin/env python3
import json
import sys
point = {"throughput": {"offered": 0.1, "accepted": 0.05}, "latency": {"packet": {"mean": 900.0}},
         "hops": {"mean": 2.0}, "stable": False}
with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
    json.dump({"results": {"points": [point], "saturation": {"last_stable_rate": None, "max_accepted": 0.05}}}, f)
EOF
chmod +x "$dir/netloom"
out=$(python3 "$root/benchmarks/validation/repro/equality_sec5.py" "$dir/netloom" "$dir/out" --quick 2> /dev/null) ||
  fail "exit status $?"
expect_eq "no stable point: last stable, max accepted" \
  "$(printf '%s\n' "$out" | awk '$1 == "small" && $2 == "uniform" && $3 == "amin" { print $4, $5 }')" "none 0.050"
expect_eq "no stable point: rows" "$(printf '%s\n' "$out" | grep -c ' none ')" 18
# The TSV has the points, not the saturation: the point's stable column 0.
expect_eq "no stable point: TSV" "$(awk -F'\t' 'NR == 2 { print $8 }' "$dir/out/equality_sec5.tsv")" 0

[ $fails -eq 0 ] && echo "repro_equality_sec5: all checks passed"
exit $((fails > 0))
