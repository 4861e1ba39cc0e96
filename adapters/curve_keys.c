/* CURVE key files (curve_keys.h). */
#include "adapters/curve_keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

#include "core/error.h"

int zp_curve_valid(const char *s)
{
	uint8_t raw[32];
	return strlen(s) == ZP_Z85_KEY && zmq_z85_decode(raw, s) != NULL;
}

/* "  name = VALUE  " -> VALUE when the line names `name`, else NULL. */
static char *curve_field(char *line, const char *name)
{
	while (*line == ' ' || *line == '\t')
		line++;
	size_t n = strlen(name);
	if (strncmp(line, name, n))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line++ != '=')
		return NULL;
	while (*line == ' ' || *line == '\t')
		line++;
	char *end = line + strlen(line);
	while (end > line && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return line;
}

int zp_curve_read(const char *path, char pub[ZP_Z85_KEY + 1], char sec[ZP_Z85_KEY + 1], struct nl_err *err)
{
	FILE *f;
	NL_CHECK(nl_open_input(path, "CURVE key file", &f, err));
	char line[256];
	unsigned lineno = 0;
	int have_pub = 0, have_sec = 0, rc = 0;
	while (rc == 0 && fgets(line, sizeof line, f)) {
		lineno++;
		char *v;
		int is_sec = 0;
		if (!(v = curve_field(line, "public")) && !(is_sec = 1, v = curve_field(line, "secret")))
			continue; /* comments and anything else */
		if (!zp_curve_valid(v))
			rc = nl_errf(err, NL_ECONFIG, "CURVE key file '%s' line %u: %s key '%.48s', expected %d Z85 characters",
				     path, lineno, is_sec ? "secret" : "public", v, ZP_Z85_KEY);
		else if (is_sec) {
			if (sec)
				memcpy(sec, v, ZP_Z85_KEY + 1);
			have_sec = 1;
		} else {
			memcpy(pub, v, ZP_Z85_KEY + 1);
			have_pub = 1;
		}
	}
	fclose(f);
	if (rc == 0 && (!have_pub || (sec && !have_sec)))
		rc = nl_errf(err, NL_ECONFIG, "CURVE key file '%s': no %s line, expected 'public = KEY'%s", path,
			     have_pub ? "secret" : "public", sec ? " and 'secret = KEY'" : "");
	return rc;
}
