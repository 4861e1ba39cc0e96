/* Progress on stderr when it is a terminal. */
#include "core/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double nl_wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(struct progress *p, const char *label)
{
	const char *env = getenv("NETLOOM_PROGRESS");
	p->enabled = isatty(STDERR_FILENO) && !(env && !strcmp(env, "0"));
	p->drawn = false;
	p->t0_s = p->last_s = nl_wall_seconds();
	p->label = label;
}

void progress_update(struct progress *p, double fraction, const char *detail)
{
	if (!p->enabled)
		return;
	double now = nl_wall_seconds();
	if (now - p->last_s < 0.2)
		return;
	p->last_s = now;
	double el = now - p->t0_s;
	if (fraction > 0 && fraction <= 1) {
		double eta = el * (1 - fraction) / fraction;
		fprintf(stderr, "\r\033[K%s: %5.1f%%  %s  elapsed %.0fs  ETA %.0fs", p->label,
			100 * fraction, detail ? detail : "", el, eta);
	} else {
		fprintf(stderr, "\r\033[K%s: %s  elapsed %.0fs", p->label, detail ? detail : "", el);
	}
	p->drawn = true;
}

void progress_show(struct progress *p, const char *detail)
{
	if (!p->enabled)
		return;
	fprintf(stderr, "\r\033[K%s: %s", p->label, detail);
	p->drawn = true;
}

void progress_done(struct progress *p)
{
	if (p->enabled && p->drawn)
		fprintf(stderr, "\r\033[K");
	p->drawn = false;
}
