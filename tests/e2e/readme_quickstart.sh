#!/usr/bin/env bash
# The README's quick start says what `scripts/run.sh` prints: check that
# the job scripts/run.sh runs by default prints exactly the README's
# block, so neither the README nor the script drifts from what a user
# sees (the predicted times are the model's, to the nanosecond: an engine
# change that moves them must update the README).
#   1. the default job is the last `exec build/netloom ...` command of
#      scripts/run.sh (continuation lines joined), run from the
#      repository root with this build's netloom;
#   2. the README's fenced block after "prints:" in the quick start equals
#      the first lines of its output, byte for byte.
# usage: readme_quickstart.sh NETLOOM SOURCE_ROOT
set -uo pipefail
netloom=$1
root=$2
case "$netloom" in /*) ;; */*) netloom=$PWD/$netloom ;; esac # the job runs from $root
. "$(dirname "$0")/lib.sh"

cmd=$(sed -n '/^exec build\/netloom /,/[^\\]$/p' "$root/scripts/run.sh" | sed 's/\\$//' | tr '\n' ' ')
case "$cmd" in
  "exec build/netloom "*) ;;
  *) echo "FAIL: scripts/run.sh has no 'exec build/netloom ...' default job" >&2; exit 1 ;;
esac
read -r -a words <<< "${cmd#exec build/netloom }"

awk '/^## Quick start/ { q = 1 } q && /prints:$/ { p = 1; next }
     p && /^```/ { if (in_block) exit; in_block = 1; next }
     in_block { print }' "$root/README.md" > "$dir/readme.txt"
want=$(wc -l < "$dir/readme.txt")
[ "$want" -ge 5 ] || { echo "FAIL: README.md: no quick-start block after 'prints:' (found $want lines)" >&2; exit 1; }

(cd "$root" && "$netloom" "${words[@]}") > "$dir/out.txt" 2> "$dir/err.txt"
rc=$?
expect_eq "default job exit status (stderr: $(head -c 300 "$dir/err.txt"))" "$rc" 0
head -n "$want" "$dir/out.txt" > "$dir/got.txt"
if ! cmp -s "$dir/readme.txt" "$dir/got.txt"; then
  fail "README.md's quick-start block differs from what scripts/run.sh's default job prints (- README, + now):"
  diff -u "$dir/readme.txt" "$dir/got.txt" | tail -n +3 >&2
fi
# The block is followed by the full report the README promises next.
grep -q "^  comm_share: " "$dir/out.txt" || fail "the default job printed no report after its table"

[ "$fails" -eq 0 ] || exit 1
echo "README quick start: $want lines as printed by: netloom ${words[*]}"
