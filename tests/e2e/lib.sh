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
