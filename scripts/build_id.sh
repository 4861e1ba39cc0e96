#!/bin/sh
# The build's identity (emu/core/meson.build's vcs_tag; `netloom compare`
# keys its cache with it, report.json's execution.build): `git describe
# --always --dirty` of the source tree ROOT, and for a tree with
# uncommitted changes a hash of them (the diff against HEAD and the
# untracked files' contents), so two builds of one commit with different
# edits have different identities. Fails outside a git checkout: meson
# then uses the project version.
set -eu
root=$1
g() { git --git-dir="$root/.git" --work-tree="$root" "$@"; }
id=$(g describe --always --dirty 2>/dev/null)
case $id in
*-dirty)
  sum=$( (g diff HEAD && cd "$root" && g ls-files -o --exclude-standard -z | xargs -0 -r cat) | sha1sum | cut -c1-12)
  id="$id-$sum"
  ;;
esac
echo "$id"
