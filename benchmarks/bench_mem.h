/* Peak memory for the benchmarks: one reader of VmHWM shared by every
 * benchmark that reports peak resident memory. */
#ifndef NETLOOM_BENCH_MEM_H
#define NETLOOM_BENCH_MEM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Peak resident set size of this process in kB (VmHWM from
 * /proc/self/status; getrusage's ru_maxrss survives exec and would count
 * the launcher), or -1 when it cannot be read. */
static inline long bench_vmhwm_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

#endif
