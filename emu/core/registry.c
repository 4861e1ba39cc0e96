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

/* The length of the entry name that `name` is, or else starts with
 * followed by ',' or a blank; 0 when there is none. */
static size_t registry_spec_name(const void *const *items, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(registry_name(items[i]), name))
			return strlen(name);
	return registry_colon_typo(items, n, name);
}

const void *registry_find_spec(const void *const *items, size_t n, const char *name, const char *what,
			       struct nl_err *err)
{
	const void *item = registry_find(items, n, name, what, err);
	if (item)
		return item;
	/* Blanks before the name, or parameters after a ',' or a blank, were
	 * read as part of it, so the family list (and a "did you mean" for
	 * '  torus') did not say what was wrong. */
	size_t lead = strspn(name, " \t");
	const char *base = name + lead;
	size_t len = registry_spec_name(items, n, base);
	if (!len)
		return NULL;
	const char *rest = base + len + strspn(base + len, ", \t");
	if (*rest)
		nl_errf(err, NL_ENOTFOUND, "unknown %s '%s': expected '%.*s:%s' (%sparameters follow %s after a ':')",
			what, name, (int)len, base, rest, lead ? "nothing before the name; " : "",
			lead ? "it" : "the name");
	else if (!base[len])
		nl_errf(err, NL_ENOTFOUND, "unknown %s '%s': expected '%.*s' (nothing before the name)", what, name,
			(int)len, base);
	else
		nl_errf(err, NL_ENOTFOUND, "unknown %s '%s': expected '%.*s' (%s after %s but ':' and its parameters)",
			what, name, (int)len, base, lead ? "nothing before the name, nothing" : "nothing",
			lead ? "it" : "the name");
	return NULL;
}
