/* How many threads a side-by-side job runs on: the processors this
 * machine has online, and a `threads` setting resolved against them. */
#ifndef NETLOOM_CORE_CPUS_H
#define NETLOOM_CORE_CPUS_H

#include <stdint.h>

/* Processors online, at least 1 (1 when the system cannot say). */
uint32_t nl_online_cpus(void);

/* A `threads` setting for n_items independent items (annealing trials, a
 * sweep's points): `threads` itself, or for 0 one per online processor,
 * never more than n_items. */
uint32_t nl_threads_for_items(int64_t threads, uint32_t n_items);

#endif
