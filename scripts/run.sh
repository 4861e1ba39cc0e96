#!/usr/bin/env bash
# Quick start: install what is missing, build, and run netloom's default job.
# Extra arguments are passed to `netloom run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
exec build/netloom run "$@"
