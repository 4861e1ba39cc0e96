/* Fuzz targets share this entry point (libFuzzer's): fuzz_driver.c calls it
 * in the normal test suite, clang's -fsanitize=fuzzer links its own main.
 * A target must return 0 for any input: malformed input is an error
 * return, never a crash, a leak or a hang. */
#ifndef NETLOOM_TESTS_FUZZ_FUZZ_H
#define NETLOOM_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
