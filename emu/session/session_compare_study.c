/* `netloom compare`'s study file (docs/procurement.md): its [study],
 * [system NAME] and [workload NAME] sections read into struct cmp, each
 * problem kept as one line (cmp_problem) so that a user sees every
 * mistake of the file at once, not the first alone. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/param.h"
#include "core/path.h"
#include "session/session.h"

#include "session/session_compare_internal.h"

void cmp_problem(struct cmp *c, const char *fmt, ...)
{
	char line[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	char *p = realloc(c->problems, c->len_problems + n + 2);
	if (!p)
		return;
	memcpy(p + c->len_problems, line, n);
	p[c->len_problems + n] = '\n';
	p[c->len_problems + n + 1] = 0;
	c->problems = p;
	c->len_problems += n + 1;
	c->n_problems++;
}

/* A path the study names, read from the study file's folder. */
static char *cmp_path(const struct cmp *c, const char *v)
{
	return path_in_dir(c->dir, v);
}

static bool cmp_parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t x;
	if (!param_strtou_in(v, lo, hi, &x))
		return false;
	*out = (uint32_t)x;
	return true;
}

/* A section of the study begins (its header at line, the index-th header
 * of the file): registered even when no key follows, so an empty
 * [system NAME] or [workload NAME] is refused for what it lacks rather
 * than dropped, and an unknown or second [study] is refused. Sets
 * cur_sys or cur_wl to the system or workload it defines (NULL: neither,
 * or refused). False when there are too many of its kind (reported). */
static bool cmp_section(struct cmp *c, const char *section, int line, int index)
{
	const char *f = c->path;
	char name[sizeof c->section];
	snprintf(c->section, sizeof c->section, "%s", section);
	c->section_headers = index;
	c->cur_sys = NULL;
	c->cur_wl = NULL;
	ini_keys_release(&c->sec_keys);
	if (!strcmp(section, "study")) {
		if (c->study_line)
			cmp_problem(c, "%s:%d: [study] given twice (first at line %d); expected one [study] section", f,
				    line, c->study_line);
		else
			c->study_line = line;
	} else if (ini_lines_section_name(section, "system", name, sizeof name) && name[0]) {
		for (uint32_t i = 0; i < c->n_sys; i++)
			if (!strcmp(c->sys[i].name, name))
				cmp_problem(c, "%s:%d: [%s]: system '%s' defined twice; expected one section per system", f,
					    line, section, name);
		if (c->n_sys == CMP_MAX_SYS) {
			cmp_problem(c, "%s:%d: [%s]: more than %d systems", f, line, section, CMP_MAX_SYS);
			return false;
		}
		c->cur_sys = &c->sys[c->n_sys++];
		c->cur_sys->line = line;
		c->cur_sys->name = strdup(name);
	} else if (ini_lines_section_name(section, "workload", name, sizeof name) && name[0]) {
		for (uint32_t i = 0; i < c->n_wl; i++)
			if (!strcmp(c->wl[i].name, name))
				cmp_problem(c, "%s:%d: [%s]: workload '%s' defined twice; expected one section per workload",
					    f, line, section, name);
		if (c->n_wl == CMP_MAX_WL) {
			cmp_problem(c, "%s:%d: [%s]: more than %d workloads", f, line, section, CMP_MAX_WL);
			return false;
		}
		struct cmp_wl *w = c->cur_wl = &c->wl[c->n_wl++];
		w->name = strdup(name);
		w->line = line;
		w->weight = 1;
	} else {
		static const char *const kinds[] = {"study", "system NAME", "workload NAME"};
		char near[INI_LINES_NAME_MAX + 8];
		bool has_near = ini_lines_section_near(section, kinds, 3, near, sizeof near);
		cmp_problem(c, "%s:%d: section [%s]: expected [study], [system NAME] or [workload NAME]%s%s%s", f, line,
			    section, has_near ? " (did you mean " : "", has_near ? near : "", has_near ? "?)" : "");
	}
	return true;
}

/* A path a topology spec names (file=, @FILE), from the study's folder
 * made absolute, as a -c file's are (docs/configuration.md): the spec
 * the study records (report.json, report.md) then reruns from any
 * directory. */
static char *cmp_spec_path(void *ctx, const char *v)
{
	const struct cmp *c = ctx;
	return !v[0] ? strdup(v) : c->abs_dir ? path_in_dir(c->abs_dir, v) : cmp_path(c, v);
}

/* inih's handler: every problem is noted, reading goes on. */
static int cmp_ini(struct cmp *c, const char *section, const char *name, const char *value)
{
	const char *f = c->path;
	int line = c->src.line;
	/* a new section (inih reports sections with their first key) */
	if ((strcmp(section, c->section) || c->src.headers != c->section_headers) &&
	    !cmp_section(c, section, c->src.header_line, c->src.headers))
		return 1;
	/* The section as messages name it: a system's or workload's name
	 * trimmed, whatever blanks its header has. */
	char sec[sizeof c->section + 16];
	if (c->cur_sys)
		snprintf(sec, sizeof sec, "system %s", c->cur_sys->name);
	else if (c->cur_wl)
		snprintf(sec, sizeof sec, "workload %s", c->cur_wl->name);
	else
		snprintf(sec, sizeof sec, "%s", section);
	if (c->src.is_misindented) {
		char msg[NL_ERR_MSG_MAX];
		ini_lines_misindented_msg(msg, sizeof msg, sec, name, value);
		cmp_problem(c, "%s:%d: %s", f, line, msg);
		return 1;
	}
	/* inih also splits at ':', so "topology torus:k=4" (no '=') reads as
	 * key "topology torus": a key with a blank in it is refused. */
	if (name[strcspn(name, " \t")]) {
		cmp_problem(c, "%s:%d: expected 'key = value' with one word before '=', got key '%s'", f, line, name);
		return 1;
	}
	/* A key given twice in one section: the last one won, silently,
	 * where a system or workload defined twice is refused. */
	int first = ini_keys_seen(&c->sec_keys, section, name, line);
	if (first > 0) {
		cmp_problem(c, "%s:%d: [%s] key '%s' given twice (first at line %d); expected each key once", f, line,
			    sec, name, first);
		return 1;
	}
	if (!strcmp(section, "study")) {
		if (!strcmp(name, "backend")) {
			free(c->backend);
			c->backend = strdup(value);
			c->backend_line = line;
		} else if (!strcmp(name, "preset")) {
			free(c->preset);
			c->preset = strdup(value);
			c->preset_line = line;
		} else if (!strcmp(name, "reference")) {
			free(c->reference);
			c->reference = strdup(value);
			c->reference_line = line;
		} else if (!strcmp(name, "seeds")) {
			if (!cmp_parse_u32(value, 1, CMP_MAX_SEEDS, &c->n_seeds))
				cmp_problem(c, "%s:%d: [study] key 'seeds': value '%s': expected an integer in [1, %d]", f,
					    line, value, CMP_MAX_SEEDS);
		} else {
			cmp_problem(c, "%s:%d: [study]: unknown key '%s'; expected backend, seeds, preset or reference", f,
				    line, name);
		}
		return 1;
	}
	if (c->cur_sys) {
		struct cmp_sys *s = c->cur_sys;
		if (!strcmp(name, "config")) {
			free(s->config);
			s->config = cmp_path(c, value);
			s->config_line = line;
		} else if (s->n_kv == CMP_MAX_KEYS) {
			cmp_problem(c, "%s:%d: [%s]: more than %d keys", f, line, sec, CMP_MAX_KEYS);
		} else {
			bool is_topo = !strcmp(name, "topology");
			char *v = cmp_is_file_key(name) ? cmp_path(c, value)
				  : is_topo		 ? path_spec_files(value, cmp_spec_path, c)
							 : strdup(value);
			char *given = is_topo && v && strcmp(v, value) ? strdup(value) : NULL;
			s->kv[s->n_kv++] = (struct cmp_kv){strdup(name), v, given, line};
		}
		return 1;
	}
	if (c->cur_wl) {
		struct cmp_wl *w = c->cur_wl;
		char *end;
		if (!strcmp(name, "trace")) {
			free(w->trace);
			free(w->trace_given);
			w->trace = cmp_path(c, value);
			w->trace_given = strdup(value);
			w->trace_line = line;
		} else if (!strcmp(name, "ranks")) {
			w->ranks_line = line;
			/* The range said: 4294967304, a positive integer, was
			 * refused as not one. */
			if (!cmp_parse_u32(value, 1, UINT32_MAX, &w->ranks))
				cmp_problem(c, "%s:%d: [%s] key 'ranks': value '%s': expected an integer in [1, %" PRIu32
					       "] (the trace's ranks)", f, line, sec, value, UINT32_MAX);
		} else if (!strcmp(name, "weight")) {
			w->weight = param_strtod(value, &end);
			/* 1e309 reads as inf, 1e-330 as 0: "> 0" alone read as wrong
			 * for both, so the range is said. */
			if (end == value || *end || !(w->weight > 0) || !isfinite(w->weight))
				cmp_problem(c,
					    "%s:%d: [%s] key 'weight': value '%s': expected a finite decimal number > 0 "
					    "(a double: 4.9e-324 .. 1.8e308)",
					    f, line, sec, value);
		} else if (!strcmp(name, "placement")) {
			free(w->placement);
			w->placement = strdup(value);
			w->placement_line = line;
		} else {
			cmp_problem(c, "%s:%d: [%s]: unknown key '%s'; expected trace, ranks, weight or placement", f,
				    line, sec, name);
		}
		return 1;
	}
	/* A key before the first header belongs to no section: it was
	 * dropped silently ("foo = 1", or "seeds = 3" above [study]). */
	if (!c->src.headers)
		cmp_problem(c, "%s:%d: key '%s' before any section; expected it under [study], [system NAME] or "
			    "[workload NAME]", f, line, name);
	return 1; /* keys of a section already reported */
}

/* ini_lines' empty_section: a header with no keys (inih never reports it). */
void cmp_empty_section(void *ctx, const char *name, int line, int index)
{
	(void)cmp_section(ctx, name, line, index);
}

int cmp_ini_any(void *user, const char *section, const char *name, const char *value)
{
	return cmp_ini(user, section, name, value);
}

bool cmp_backend_ok(const char *backend)
{
	return !strcmp(backend, "analytic") || !strcmp(backend, "flit");
}
