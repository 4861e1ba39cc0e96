/* Library version (public API). */
#include "netloom/netloom.h"

#ifndef NETLOOM_VERSION
#define NETLOOM_VERSION "0.0.0"
#endif

const char *nl_version(void)
{
	return NETLOOM_VERSION;
}
