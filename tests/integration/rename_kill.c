/* A preloaded rename(2) that ends the process by SIGKILL, as a rank 0
 * killed while it writes the archive (mpirun ending the job, the OOM
 * killer, a node lost) is ended: when NL_TEST_KILL_RENAME is set and the
 * file renamed to is named so (its last component), the process is
 * killed just before the rename, its temporary archive whole and left
 * behind. Any other rename is libc's (record-killed.sh). RTLD_NEXT:
 * _GNU_SOURCE, which the build defines. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rename(const char *from, const char *to)
{
	const char *name = getenv("NL_TEST_KILL_RENAME");
	const char *base = strrchr(to, '/');
	base = base ? base + 1 : to;
	if (name && !strcmp(base, name))
		raise(SIGKILL);
	int (*next)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	return next ? next(from, to) : -1;
}
