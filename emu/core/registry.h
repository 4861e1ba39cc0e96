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
 * (valid: a, b, c)", or "(did you mean 'b'? valid: a, b, c)" when name is
 * a typo of one entry's (config_name_near: 'tors' of torus). */
const void *registry_find(const void *const *items, size_t n, const char *name, const char *what,
			  struct nl_err *err);

/* registry_find for the name of a spec, "family:key=value,...": a name
 * that is an entry's followed by ',' or a blank ("dor,dateline=1", the
 * ':' mistyped) is refused with the spec it meant instead of the list,
 * "unknown <what> 'dor,dateline=1': expected 'dor:dateline=1' (...)". */
const void *registry_find_spec(const void *const *items, size_t n, const char *name, const char *what,
			       struct nl_err *err);

#endif
