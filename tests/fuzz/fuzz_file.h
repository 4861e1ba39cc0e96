/* For targets whose reader takes a path: the input as a file, written anew
 * for each input into one in-memory file (memfd) named through
 * /proc/self/fd, so no input touches the disk. */
#ifndef NETLOOM_TESTS_FUZZ_FUZZ_FILE_H
#define NETLOOM_TESTS_FUZZ_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"

/* The path of a file holding data[0..size), or NULL when it cannot be
 * written. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("nl-fuzz-input", 0);
		if (fd < 0)
			NL_BUG("memfd_create failed");
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	return ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size ? path : NULL;
}

#endif
