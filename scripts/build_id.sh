#!/bin/sh
# The build's identity (emu/core/meson.build's vcs_tag; `netloom compare`
# keys its cache with it, report.json's execution.build): `git describe
# --always --dirty` of the source tree ROOT, and for a tree with
# uncommitted changes a hash of those in the code built into netloom (the
# diff against HEAD and the untracked files' contents under emu, traces,
# adapters, include and the meson files), so two builds of one commit with
# different edits have different identities, and an edit of a test or a
# document alone leaves the commit's identity (nothing relinked). Fails
# outside a git checkout: meson then uses the project version.
set -eu
root=$1
g() { git --git-dir="$root/.git" --work-tree="$root" "$@"; }
id=$(g describe --always --dirty 2>/dev/null)
case $id in
*-dirty)
  code="emu traces adapters include meson.build meson_options.txt"
  # shellcheck disable=SC2086 # $code: the paths, one word each
  edits=$( (cd "$root" && g diff HEAD -- $code && g ls-files -o --exclude-standard -z -- $code | xargs -0 -r cat) |
    sha1sum | cut -c1-12)
  # No edit to the code (a test or a document edited): the code built is
  # the commit's, and so is the identity (it read -dirty-da39a3ee5e6b, the
  # hash of nothing).
  if [ "$edits" = da39a3ee5e6b ]; then id=${id%-dirty}; else id="$id-$edits"; fi
  ;;
esac
echo "$id"
