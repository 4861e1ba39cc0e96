#!/usr/bin/env bash
# Build the fuzz targets with clang's libFuzzer (+ ASan/UBSan) into
# build-fuzz/, for open-ended fuzzing beyond the bounded runs of the test
# suite. Needs Debian's clang and libclang-rt-14-dev (scripts/deps.sh).
#
#   tests/fuzz/build-libfuzzer.sh
#   build-fuzz/fuzz_trace_reader -max_total_time=300 build-fuzz/corpus/trace_reader tests/fuzz/corpus/trace_reader
#
# (the first corpus directory receives new inputs; the repo's is read-only
# seed material). Crashes are written as crash-* files in the current dir.
# scripts/fuzz.sh runs every target this builds (it reads the paths printed
# below).
#
# Every target links libnetloom.a as meson builds it, with the same
# compiler, sanitizers and libFuzzer's coverage (build-fuzz/lib, set up
# once; its logs in build-fuzz/lib-*.log), and the targets are the
# tests/fuzz/fuzz_*.c files: nothing here lists the library's sources or
# the targets, so neither can drift from meson.build. (A hand-kept list of
# source files lacked emu/core/staged.c once output staging moved there,
# and this script failed to link until 2026-12-03.)
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-clang}
command -v "$CC" >/dev/null ||
	{ echo "tests/fuzz/build-libfuzzer.sh: CC: '$CC' not found (needs clang with libFuzzer: scripts/deps.sh)" >&2; exit 1; }
out=build-fuzz
mkdir -p "$out"
flags=(-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -Iemu -I. -Iinclude)

lib=$out/lib
if [ ! -f "$lib/build.ninja" ]; then
	CC="$CC" meson setup "$lib" -Dbuildtype=debug -Doptimization=1 -Db_sanitize=address,undefined -Dmpi=disabled \
		"-Dc_args=-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined" >"$out/lib-setup.log" 2>&1 ||
		{ cat "$out/lib-setup.log" >&2; exit 1; }
fi
ninja -C "$lib" libnetloom.a >"$out/lib-build.log" 2>&1 || { cat "$out/lib-build.log" >&2; exit 1; }
libs=(-l:libxxhash.a $(pkg-config --libs libzstd jansson inih) -ldl -lpthread -lm)
# METIS is required (meson.build), found by pkg-config or, where metis.pc
# is missing (Debian's package has none), by name, as the linker does here.
# (An 'ldconfig -p | grep -q libmetis' test decided this once: under
# pipefail, grep -q leaving at the first match failed ldconfig on a broken
# pipe about as often as not, and the targets then did not link.)
if pkg-config --exists metis; then
	libs+=($(pkg-config --libs metis))
else
	libs+=(-lmetis)
fi
# The OTF2 importer is in the library when meson found OTF2 (meson.build
# then compiles traces/import_otf2.c into it), and so is its target.
otf2=no
[ -n "$(find "$lib" -name '*import_otf2.c.o' -print -quit)" ] && otf2=yes
if [ $otf2 = yes ]; then
	flags+=(-DNETLOOM_HAVE_OTF2 $(pkg-config --cflags otf2))
	libs+=($(pkg-config --libs otf2))
fi

for src in tests/fuzz/fuzz_*.c; do
	t=${src#tests/fuzz/fuzz_}
	t=${t%.c}
	extra=()
	case $t in
	driver) continue ;; # the suite's replay driver, not a target
	import_otf2) [ $otf2 = yes ] || continue ;;
	# The BookSim converter is the command line's (emu/cli), not the
	# library's: its files are compiled into its target, as in tests/meson.build.
	booksim) extra=(emu/cli/cli_booksim.c emu/cli/cli_booksim_read.c emu/cli/cli_booksim_spec.c) ;;
	esac
	"$CC" "${flags[@]}" -I"$lib" -o "$out/fuzz_$t" "$src" "${extra[@]}" "$lib/libnetloom.a" "${libs[@]}"
	mkdir -p "$out/corpus/$t"
	echo "$out/fuzz_$t"
done
