/* Progress on stderr for long work: shown only when stderr is a terminal
 * (and NETLOOM_PROGRESS is not "0"), redrawn at most 5 times a second,
 * silent otherwise so logs and pipes stay clean. */
#ifndef NETLOOM_CORE_PROGRESS_H
#define NETLOOM_CORE_PROGRESS_H

#include <stdbool.h>

struct progress {
	bool enabled;
	bool drawn;       /* something is on the line now */
	double t0_s;      /* wall clock at start */
	double last_s;    /* wall clock of the last redraw */
	const char *label;
};

/* Monotonic wall clock in seconds. */
double nl_wall_seconds(void);

void progress_init(struct progress *p, const char *label);

/* Redraw if due: `fraction` in [0,1] (negative = unknown), `detail` a short
 * text such as "cycle 12000". Cheap when not due: call it freely. */
void progress_update(struct progress *p, double fraction, const char *detail);

/* Draw `detail` now, not waiting for a redraw to fall due: for a phase
 * that is one long call (writing a file of hundreds of megabytes), where
 * no later update comes to draw it. */
void progress_show(struct progress *p, const char *detail);

/* Clear the line. */
void progress_done(struct progress *p);

#endif
