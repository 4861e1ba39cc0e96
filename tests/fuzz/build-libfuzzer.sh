#!/usr/bin/env bash
# Build the fuzz targets with clang's libFuzzer (+ ASan/UBSan) into
# build-fuzz/, for open-ended fuzzing beyond the bounded runs of the test
# suite. Needs Debian's clang and libclang-rt-14-dev (scripts/deps.sh);
# libxxhash is linked statically, as in meson.build.
#
#   tests/fuzz/build-libfuzzer.sh
#   build-fuzz/fuzz_trace_reader -max_total_time=300 build-fuzz/corpus/trace_reader tests/fuzz/corpus/trace_reader
#
# (the first corpus directory receives new inputs; the repo's is read-only
# seed material). Crashes are written as crash-* files in the current dir.
# scripts/fuzz.sh runs every target this builds (it reads the paths printed
# below): add a new target to the list here.
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-clang}
command -v "$CC" >/dev/null ||
	{ echo "tests/fuzz/build-libfuzzer.sh: CC: '$CC' not found (needs clang with libFuzzer: scripts/deps.sh)" >&2; exit 1; }
out=build-fuzz
mkdir -p "$out"
flags=(-g -O1 -std=c11 -D_GNU_SOURCE -DNETLOOM_VERSION=\"fuzz\" -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -Iemu -I. -Iinclude)
srcs=(traces/*.c emu/core/error.c emu/core/text.c emu/core/output.c emu/core/staged.c adapters/proto.c)
targets=(trace_reader import_dumpi import_simgrid zmq_frame)
libs=(-lzstd -l:libxxhash.a -ljansson -lm)
# The OTF2 importer, when the OTF2 library is installed (its files need it).
if pkg-config --exists otf2; then
	flags+=(-DNETLOOM_HAVE_OTF2 $(pkg-config --cflags otf2))
	libs+=($(pkg-config --libs otf2))
	targets+=(import_otf2)
else
	srcs=($(printf '%s\n' "${srcs[@]}" | grep -vE 'traces/(import_otf2|otf2_events|otf2_infer|export_otf2)\.c$'))
fi
for t in "${targets[@]}"; do
	"$CC" "${flags[@]}" -o "$out/fuzz_$t" "tests/fuzz/fuzz_$t.c" "${srcs[@]}" "${libs[@]}"
	mkdir -p "$out/corpus/$t"
	echo "$out/fuzz_$t"
done

# The targets that read through the whole library (configuration tables,
# topology families, placement, compare): libnetloom.a built by meson with
# the same compiler, sanitizers and libFuzzer's coverage, in $out/lib
# (set up once; its build log in $out/lib-setup.log), and linked with
# each. The BookSim converter is the command line's: its file is compiled
# into its target.
lib=$out/lib
if [ ! -f "$lib/build.ninja" ]; then
	CC="$CC" meson setup "$lib" -Dbuildtype=debug -Doptimization=1 -Db_sanitize=address,undefined -Dmpi=disabled \
		"-Dc_args=-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined" >"$out/lib-setup.log" 2>&1 ||
		{ cat "$out/lib-setup.log" >&2; exit 1; }
fi
ninja -C "$lib" libnetloom.a >"$out/lib-build.log" 2>&1 || { cat "$out/lib-build.log" >&2; exit 1; }
lib_libs=(-l:libxxhash.a $(pkg-config --libs libzstd jansson inih) -ldl -lpthread -lm)
pkg-config --exists metis && lib_libs+=($(pkg-config --libs metis))
pkg-config --exists otf2 && lib_libs+=($(pkg-config --libs otf2))
# metis.pc may be missing where the library is installed (Debian's is):
# meson then finds it by name, and so does the linker here.
pkg-config --exists metis || ! ldconfig -p 2>/dev/null | grep -q libmetis || lib_libs+=(-lmetis)
for t in config_ini topo_spec topo_file workload calibration compare place_map booksim; do
	extra=()
	[ "$t" = booksim ] && extra=(emu/cli/cli_booksim.c)
	"$CC" "${flags[@]}" -I"$lib" -o "$out/fuzz_$t" "tests/fuzz/fuzz_$t.c" "${extra[@]}" "$lib/libnetloom.a" "${lib_libs[@]}"
	mkdir -p "$out/corpus/$t"
	echo "$out/fuzz_$t"
done
