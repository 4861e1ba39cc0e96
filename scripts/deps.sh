#!/usr/bin/env bash
# Install the Debian packages netloom needs that are not installed yet.
# Safe to run repeatedly: does nothing when everything is present.
set -euo pipefail

pkgs=(
  gcc pkg-config meson ninja-build python3   # build
  libzmq3-dev                                # live emulation adapter (ZeroMQ)
  python3-zmq                                # Python live client (adapters/python) and its e2e tests
  libzstd-dev                                # trace archives (zstd frames)
  libxxhash-dev                              # XXH64 digests of trace archives (the reference implementation, linked statically)
  libinih-dev                                # INI configuration files
  libjansson-dev                             # JSON results and configs
  libmetis-dev                               # graph bisection (METIS)
  openmpi-bin libopenmpi-dev                 # trace recorder (PMPI) and MPI tests
  clang libclang-rt-14-dev                   # libFuzzer builds of the trace fuzz targets (tests/fuzz/build-libfuzzer.sh)
  libotf2-trace-dev otf2-tools               # OTF2 import (Score-P/EZTrace archives); optional at build time; otf2-print checks counts in tests
  eztrace                                    # records the EZTrace-dialect OTF2 test archive (tests/integration/eztrace-compare.sh)
  gnuplot-nox                                # `netloom sweep --plot` and `netloom interfere --plot` charts and `netloom compare`'s index.html plots (SVG); optional at run time: without it the command says so
  chromium                                   # test suite only: tests/e2e/compare_html.py renders compare's index.html headless (skipped, 77, without it)
  help2man                                   # the man page netloom(1), from netloom --help (docs/meson.build); optional: without it, no man page
  time                                       # /usr/bin/time: peak RSS in benchmarks/engine/booksim_topos.sh
  strace                                     # test suite only: engine_one_write counts the writes of each stderr line (skipped, 77, without it)
)

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "netloom: installing missing packages: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "netloom: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
