/* Lookup in plug-in registries (see registry.h). */
#include "core/registry.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"

static const char *registry_name(const void *item)
{
	return *(const char *const *)item;
}

const void *registry_find(const void *const *items, size_t n, const char *name, const char *what,
			  struct nl_err *err)
{
	char names[2048] = "";
	size_t used = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(registry_name(items[i]), name))
			return items[i];
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(names + used, used < sizeof names ? sizeof names - used : 0, "%s%s",
					 i ? ", " : "", registry_name(items[i]));
	nl_errf(err, NL_ENOTFOUND, "unknown %s '%s' (valid: %s)", what, name, names);
	return NULL;
}
