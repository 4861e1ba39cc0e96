/* Shared by the flit-model unit tests that compare whole runs byte for
 * byte (partitions, holds, VOQ, traffic classes, output-queue view): one
 * synthetic operating point's JSON, as `netloom run --json
 * --reproducible` writes it. */
#ifndef NETLOOM_TESTS_POINT_JSON_H
#define NETLOOM_TESTS_POINT_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "net_config.h"

/* The point of the configuration kv as a JSON string (malloc'd), NULL
 * with e set on error; drop_config leaves out the echoed configuration
 * (for runs whose keys differ by design). */
static inline char *point_json_kv(const char *const *kv, bool drop_config, struct nl_err *e)
{
	struct net_point pt;
	if (run_point_kv(kv, &pt, e) != 0)
		return NULL;
	json_t *j = net_point_json(&pt, NULL, true);
	if (drop_config && json_object_get(j, "config"))
		json_object_del(j, "config");
	char *s = json_dumps(j, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(j);
	net_point_release(&pt);
	return s;
}

#endif
