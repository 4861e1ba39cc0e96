/* emu/app containers: a u64 -> u32 hash map and chunked record pools.
 *
 * The map is open addressing with linear probing and backward-shift
 * deletion (no tombstones), grown at half load, so lookups stay O(1)
 * whatever the insert/delete history. Pool records never move: pools grow
 * by whole chunks of APP_CHUNK records.
 */
#include <stdlib.h>
#include <string.h>

#include "app/app_internal.h"
#include "core/error.h"
#include "core/rng.h"

static inline uint32_t app_map_slot(const struct app_map *m, uint64_t key)
{
	return (uint32_t)rng_mix64(key) & m->mask;
}

int app_map_init(struct app_map *m, uint32_t cap)
{
	uint32_t c = 16;
	while (c < cap)
		c *= 2;
	m->keys = malloc((size_t)c * sizeof *m->keys);
	m->vals = malloc((size_t)c * sizeof *m->vals);
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		m->keys = NULL;
		m->vals = NULL;
		return NL_ENOMEM;
	}
	memset(m->keys, 0xff, (size_t)c * sizeof *m->keys);
	m->mask = c - 1;
	m->n = 0;
	return 0;
}

void app_map_release(struct app_map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->n = 0;
}

uint32_t app_map_get(const struct app_map *m, uint64_t key)
{
	for (uint32_t i = app_map_slot(m, key);; i = (i + 1) & m->mask) {
		if (m->keys[i] == key)
			return m->vals[i];
		if (m->keys[i] == APP_MAP_EMPTY)
			return APP_NONE;
	}
}

static int app_map_grow(struct app_map *m)
{
	struct app_map g;
	NL_CHECK(app_map_init(&g, 2 * (m->mask + 1)));
	for (uint32_t i = 0; i <= m->mask; i++) {
		if (m->keys[i] == APP_MAP_EMPTY)
			continue;
		uint32_t j = app_map_slot(&g, m->keys[i]);
		while (g.keys[j] != APP_MAP_EMPTY)
			j = (j + 1) & g.mask;
		g.keys[j] = m->keys[i];
		g.vals[j] = m->vals[i];
	}
	g.n = m->n;
	app_map_release(m);
	*m = g;
	return 0;
}

int app_map_put(struct app_map *m, uint64_t key, uint32_t val)
{
	NL_ASSERT(key != APP_MAP_EMPTY);
	if (2 * (m->n + 1) > m->mask + 1)
		NL_CHECK(app_map_grow(m));
	uint32_t i = app_map_slot(m, key);
	while (m->keys[i] != APP_MAP_EMPTY && m->keys[i] != key)
		i = (i + 1) & m->mask;
	if (m->keys[i] == APP_MAP_EMPTY) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}

static void app_map_del_at(struct app_map *m, uint32_t i);

void app_map_del(struct app_map *m, uint64_t key)
{
	uint32_t i = app_map_slot(m, key);
	while (m->keys[i] != key) {
		if (m->keys[i] == APP_MAP_EMPTY)
			return;
		i = (i + 1) & m->mask;
	}
	app_map_del_at(m, i);
}

void app_map_del_val(struct app_map *m, uint64_t key, uint32_t val)
{
	uint32_t i = app_map_slot(m, key);
	while (m->keys[i] != key) {
		if (m->keys[i] == APP_MAP_EMPTY)
			return;
		i = (i + 1) & m->mask;
	}
	if (m->vals[i] == val)
		app_map_del_at(m, i);
}

static void app_map_del_at(struct app_map *m, uint32_t i)
{
	/* Backward shift: move later members of the probe run into the hole
	 * when their home slot does not lie cyclically in (hole, j]. */
	uint32_t hole = i;
	for (uint32_t j = (i + 1) & m->mask; m->keys[j] != APP_MAP_EMPTY; j = (j + 1) & m->mask) {
		uint32_t home = app_map_slot(m, m->keys[j]);
		bool in_between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (in_between)
			continue;
		m->keys[hole] = m->keys[j];
		m->vals[hole] = m->vals[j];
		hole = j;
	}
	m->keys[hole] = APP_MAP_EMPTY;
	m->n--;
}

uint32_t app_map_sweep(struct app_map *m, struct app_pool *p, bool (*idle)(const void *rec))
{
	struct app_map g;
	if (app_map_init(&g, m->mask + 1) < 0)
		return 0; /* keep everything: correct, only larger */
	uint32_t gone = 0;
	for (uint32_t i = 0; i <= m->mask; i++) {
		if (m->keys[i] == APP_MAP_EMPTY)
			continue;
		if (idle(app_pool_at(p, m->vals[i]))) {
			app_pool_free(p, m->vals[i]);
			gone++;
			continue;
		}
		uint32_t j = app_map_slot(&g, m->keys[i]);
		while (g.keys[j] != APP_MAP_EMPTY)
			j = (j + 1) & g.mask;
		g.keys[j] = m->keys[i];
		g.vals[j] = m->vals[i];
		g.n++;
	}
	app_map_release(m);
	*m = g;
	return gone;
}

void app_pool_init(struct app_pool *p, uint32_t elem)
{
	memset(p, 0, sizeof *p);
	p->elem = elem;
	p->free_head = APP_NONE;
}

void app_pool_release(struct app_pool *p)
{
	for (uint32_t i = 0; i < p->n_chunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	uint32_t elem = p->elem;
	app_pool_init(p, elem);
}

uint32_t app_pool_alloc(struct app_pool *p)
{
	uint32_t i;
	if (p->free_head != APP_NONE) {
		i = p->free_head;
		void *r = app_pool_at(p, i);
		memcpy(&p->free_head, r, sizeof p->free_head);
	} else {
		if (p->top == APP_NONE - 1)
			return APP_NONE;
		if ((p->top >> APP_CHUNK_BITS) == p->n_chunks) {
			if (p->n_chunks == p->cap_chunks) {
				uint32_t cap = p->cap_chunks ? 2 * p->cap_chunks : 8;
				char **c = realloc(p->chunks, cap * sizeof *c);
				if (!c)
					return APP_NONE;
				p->chunks = c;
				p->cap_chunks = cap;
			}
			p->chunks[p->n_chunks] = malloc((size_t)APP_CHUNK * p->elem);
			if (!p->chunks[p->n_chunks])
				return APP_NONE;
			p->n_chunks++;
		}
		i = p->top++;
	}
	memset(app_pool_at(p, i), 0, p->elem);
	p->live++;
	return i;
}

void app_pool_free(struct app_pool *p, uint32_t i)
{
	memcpy(app_pool_at(p, i), &p->free_head, sizeof p->free_head);
	p->free_head = i;
	p->live--;
}
