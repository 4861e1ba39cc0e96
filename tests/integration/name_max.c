/* A preloaded pathconf(3) that gives one folder a smaller file name limit,
 * as a folder on another file system has (eCryptfs 143, some NFS and
 * Lustre setups): when NL_TEST_NAME_MAX_DIR is the folder asked about and
 * NL_TEST_NAME_MAX is set, _PC_NAME_MAX is that number. Any other call
 * is libc's (record-archive-names.sh). RTLD_NEXT: _GNU_SOURCE, which the
 * build defines. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long pathconf(const char *path, int name)
{
	const char *dir = getenv("NL_TEST_NAME_MAX_DIR");
	const char *limit = getenv("NL_TEST_NAME_MAX");
	if (name == _PC_NAME_MAX && dir && limit && !strcmp(path, dir))
		return strtol(limit, NULL, 10);
	long (*next)(const char *, int) = (long (*)(const char *, int))dlsym(RTLD_NEXT, "pathconf");
	return next ? next(path, name) : -1;
}
