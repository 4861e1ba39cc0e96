/* Timed events in (time, insertion) order: a binary min-heap.
 *
 * Events at the same time come out in the order they were pushed, so a
 * simulation that pushes in a deterministic order pops in one too. Used
 * by replay (rank resumptions, local deliveries) and by the analytical
 * network backend (message completions).
 */
#ifndef NETLOOM_CORE_EVHEAP_H
#define NETLOOM_CORE_EVHEAP_H

#include <stddef.h>
#include <stdint.h>

struct evheap_ev {
	uint64_t t_ps;
	uint64_t seq;  /* push order: the tie-break */
	uint64_t data; /* the user's */
};

struct evheap {
	struct evheap_ev *v;
	size_t n, cap;
	uint64_t seq;
};

/* Add an event; 0, or NL_ENOMEM with the heap unchanged. */
int evheap_push(struct evheap *h, uint64_t t_ps, uint64_t data);

/* Remove and return the earliest event; the heap must not be empty. */
struct evheap_ev evheap_pop(struct evheap *h);

/* Time of the earliest event, UINT64_MAX when empty. */
static inline uint64_t evheap_next(const struct evheap *h)
{
	return h->n ? h->v[0].t_ps : UINT64_MAX;
}

void evheap_free(struct evheap *h);

#endif
