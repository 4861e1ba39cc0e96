#!/usr/bin/env bash
# scripts/build_id.sh, the build identity compare keys its cache with
# (docs/procurement.md): a clean commit is its `git describe`; uncommitted
# edits to the code built into netloom add a hash of them, different for
# different edits (two dirty builds of one commit once shared cache
# entries), none for an edit of a document alone; not a git checkout fails
# (meson then uses the project version).
# usage: build_id.sh SOURCE_ROOT
set -uo pipefail
. "$(dirname "$0")/lib.sh"
script=$1/scripts/build_id.sh
command -v git >/dev/null || { echo "SKIP: no git"; exit 77; }
repo=$dir/repo
mkdir -p "$repo"
g() { git -C "$repo" -c user.name=t -c user.email=t@t "$@"; }
mkdir -p "$repo/emu" "$repo/docs"
g init -q && echo a > "$repo/emu/model.c" && echo d > "$repo/docs/a.md" && g add emu docs && g commit -q -m one
head=$(g rev-parse --short HEAD)
expect_eq "clean tree" "$(sh "$script" "$repo")" "$head"
echo e >> "$repo/docs/a.md"
expect_eq "only a document edited: the commit's code, its identity" "$(sh "$script" "$repo")" "$head"
g checkout -q docs/a.md
echo b >> "$repo/emu/model.c"
one=$(sh "$script" "$repo")
[[ $one =~ ^$head-dirty-[0-9a-f]{12}$ ]] || fail "edited tree: '$one', expected $head-dirty-<12 hex>"
expect_eq "the same edit, the same identity" "$(sh "$script" "$repo")" "$one"
echo c >> "$repo/emu/model.c"
two=$(sh "$script" "$repo")
[ "$two" != "$one" ] || fail "another edit of the same commit: the same identity '$two'"
echo x > "$repo/emu/new.c"
three=$(sh "$script" "$repo")
[ "$three" != "$two" ] || fail "an untracked file added: the same identity '$three'"
echo e >> "$repo/docs/a.md"
expect_eq "a document edited too: the code's identity" "$(sh "$script" "$repo")" "$three"
g checkout -q emu/model.c docs/a.md && rm "$repo/emu/new.c"
expect_eq "edits undone" "$(sh "$script" "$repo")" "$head"
mkdir "$dir/plain"
sh "$script" "$dir/plain" > "$dir/out" 2> "$dir/err" && fail "not a git checkout: exit 0 ($(cat "$dir/out"))"
expect_eq "not a git checkout: nothing on stderr" "$(cat "$dir/err")" ""
[ "$fails" -eq 0 ] && echo "build_id: all passed"
exit $((fails > 0))
