#!/usr/bin/env bash
# scripts/build_id.sh, the build identity compare keys its cache with
# (docs/procurement.md): a clean commit is its `git describe`; uncommitted
# edits add a hash of them, different for different edits (two dirty
# builds of one commit once shared cache entries); not a git checkout
# fails (meson then uses the project version).
# usage: build_id.sh SOURCE_ROOT
set -uo pipefail
. "$(dirname "$0")/lib.sh"
script=$1/scripts/build_id.sh
command -v git >/dev/null || { echo "SKIP: no git"; exit 77; }
repo=$dir/repo
mkdir -p "$repo"
g() { git -C "$repo" -c user.name=t -c user.email=t@t "$@"; }
g init -q && echo a > "$repo/model.c" && g add model.c && g commit -q -m one
head=$(g rev-parse --short HEAD)
expect_eq "clean tree" "$(sh "$script" "$repo")" "$head"
echo b >> "$repo/model.c"
one=$(sh "$script" "$repo")
[[ $one =~ ^$head-dirty-[0-9a-f]{12}$ ]] || fail "edited tree: '$one', expected $head-dirty-<12 hex>"
expect_eq "the same edit, the same identity" "$(sh "$script" "$repo")" "$one"
echo c >> "$repo/model.c"
two=$(sh "$script" "$repo")
[ "$two" != "$one" ] || fail "another edit of the same commit: the same identity '$two'"
echo x > "$repo/new.c"
three=$(sh "$script" "$repo")
[ "$three" != "$two" ] || fail "an untracked file added: the same identity '$three'"
g checkout -q model.c && rm "$repo/new.c"
expect_eq "edits undone" "$(sh "$script" "$repo")" "$head"
mkdir "$dir/plain"
sh "$script" "$dir/plain" > "$dir/out" 2> "$dir/err" && fail "not a git checkout: exit 0 ($(cat "$dir/out"))"
expect_eq "not a git checkout: nothing on stderr" "$(cat "$dir/err")" ""
[ "$fails" -eq 0 ] && echo "build_id: all passed"
exit $((fails > 0))
