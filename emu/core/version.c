/* Library version (public API) and the build's identity. */
#include "core/version.h"

#include "core/build_id.h"
#include "netloom/netloom.h"

#ifndef NETLOOM_VERSION
#define NETLOOM_VERSION "0.0.0"
#endif

const char *nl_version(void)
{
	return NETLOOM_VERSION;
}

const char *version_build(void)
{
	return NETLOOM_BUILD_ID;
}
