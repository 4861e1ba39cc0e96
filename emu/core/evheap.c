/* Timed events in (time, insertion) order; evheap.h. */
#include "core/evheap.h"

#include <stdbool.h>
#include <stdlib.h>

#include "core/error.h"

static bool evheap_less(const struct evheap_ev *x, const struct evheap_ev *y)
{
	return x->t_ps < y->t_ps || (x->t_ps == y->t_ps && x->seq < y->seq);
}

int evheap_push(struct evheap *h, uint64_t t_ps, uint64_t data)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 256;
		struct evheap_ev *v = realloc(h->v, cap * sizeof *v);
		if (!v)
			return NL_ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	struct evheap_ev ev = {t_ps, h->seq++, data};
	size_t i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!evheap_less(&ev, &h->v[up]))
			break;
		h->v[i] = h->v[up];
		i = up;
	}
	h->v[i] = ev;
	return 0;
}

struct evheap_ev evheap_pop(struct evheap *h)
{
	struct evheap_ev top = h->v[0], last = h->v[--h->n];
	size_t i = 0, n = h->n;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && evheap_less(&h->v[c + 1], &h->v[c]))
			c++;
		if (!evheap_less(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (n)
		h->v[i] = last;
	return top;
}

void evheap_free(struct evheap *h)
{
	free(h->v);
	*h = (struct evheap){0};
}
