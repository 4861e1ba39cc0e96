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
srcs=(traces/*.c emu/core/error.c emu/core/text.c emu/core/output.c adapters/proto.c)
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
