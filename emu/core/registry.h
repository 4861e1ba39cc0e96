/* Lookup in plug-in registries.
 *
 * Every pluggable family (topologies, routing, traffic, backends, ...) is
 * a static array of pointers to `const struct <family>_ops` whose first
 * member is `const char *name` (C11 6.7.2.1: a pointer to a structure
 * points to its first member), so one lookup serves them all.
 */
#ifndef NETLOOM_CORE_REGISTRY_H
#define NETLOOM_CORE_REGISTRY_H

#include <stddef.h>

struct nl_err;

/* The entry called `name`, or NULL with *err = "unknown <what> 'name'
 * (valid: a, b, c)". */
const void *registry_find(const void *const *items, size_t n, const char *name, const char *what,
			  struct nl_err *err);

#endif
