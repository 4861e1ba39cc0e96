/* Lookup in plug-in registries (see registry.h). */
#include "core/registry.h"

#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"

static const char *registry_name(const void *item)
{
	return *(const char *const *)item;
}

/* The entry name that `name` is a typo of ('tors': torus), by the rule
 * the CLI uses for options and subcommands, or NULL. Registries hold a
 * few dozen entries; past REGISTRY_NEAR_MAX the rest are not weighed. */
#define REGISTRY_NEAR_MAX 128
static const char *registry_name_near(const void *const *items, size_t n, const char *name)
{
	const char *names[REGISTRY_NEAR_MAX];
	if (n > REGISTRY_NEAR_MAX)
		n = REGISTRY_NEAR_MAX;
	for (size_t i = 0; i < n; i++)
		names[i] = registry_name(items[i]);
	return config_name_near(name, strlen(name), names, n);
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
	const char *near = registry_name_near(items, n, name);
	nl_errf(err, NL_ENOTFOUND, "unknown %s '%s' (%s%s%svalid: %s)", what, name, near ? "did you mean '" : "",
		near ? near : "", near ? "'? " : "", names);
	return NULL;
}

/* The length of the longest entry name that `name` starts with, followed
 * by ',' or a blank; 0 when there is none. */
static size_t registry_colon_typo(const void *const *items, size_t n, const char *name)
{
	size_t best = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(registry_name(items[i]));
		if (len > best && !strncmp(name, registry_name(items[i]), len) && name[len] &&
		    strchr(", \t", name[len]))
			best = len;
	}
	return best;
}

const void *registry_find_spec(const void *const *items, size_t n, const char *name, const char *what,
			       struct nl_err *err)
{
	const void *item = registry_find(items, n, name, what, err);
	size_t len = item ? 0 : registry_colon_typo(items, n, name);
	if (!len)
		return item;
	/* Parameters after a ',' or a blank were read as part of the name,
	 * so the family list alone did not say what was wrong. */
	const char *rest = name + len + strspn(name + len, ", \t");
	if (!*rest)
		nl_errf(err, NL_ENOTFOUND, "unknown %s '%s': expected '%.*s' (nothing after the name but ':' and its parameters)",
			what, name, (int)len, name);
	else
		nl_errf(err, NL_ENOTFOUND, "unknown %s '%s': expected '%.*s:%s' (parameters follow the name after a ':')",
			what, name, (int)len, name, rest);
	return NULL;
}
