/* Fuzz target: the workload file of `netloom interfere` (place/place.h,
 * docs/placement.md "Workload files"), read as a user's file. A refusal
 * must have a message (the one-line error users see) and leave no job; a
 * file that is read must hold 1..PLACE_MAX_JOBS jobs, each a trace or a
 * synthetic job with its ranks, never both, as the reader promises. */
#include <string.h>

#include "core/error.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "fuzz_file.h"
#include "place/place.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = size <= (1u << 16) ? fuzz_file(data, size) : NULL;
	if (!path)
		return 0;
	struct place_workload w;
	struct nl_err err = {0};
	int rc = place_workload_read(path, &w, &err);
	if (rc < 0) {
		fuzz_refusal(&err, rc, "place_workload_read");
		if (w.n_jobs)
			NL_BUG("refused, but %u jobs kept", w.n_jobs);
		return 0;
	}
	if (w.n_jobs < 1 || w.n_jobs > PLACE_MAX_JOBS)
		NL_BUG("a workload read with %u jobs", w.n_jobs);
	for (uint32_t i = 0; i < w.n_jobs; i++) {
		const struct place_job_spec *j = &w.jobs[i];
		if (!j->trace == (j->synthetic < 0) || (j->synthetic >= 0 && !j->synth_ranks))
			NL_BUG("job %u ('%s'): trace %s, synthetic %d with %u ranks", i, j->name, j->trace ? "set" : "unset",
			       j->synthetic, j->synth_ranks);
	}
	place_workload_release(&w);
	return 0;
}
