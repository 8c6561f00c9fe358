/*
 * Counting fault-injection coverage (fault-coverage.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"
#include "fault-coverage.h"

#include <stdio.h>
#include <string.h>

struct site_range {
	enum fault_api api;
	const char *file; /* relative to the source tree: "lib/device.c" */
	int first, last;
	const char *name;
	const char *function;
};

static const struct site_range sites[] = {
#define FAULT_SITE(api, file, first, last, name, function) \
	{ api, file, first, last, #name, #function },
#include "tests/fault-sites.h"
#undef FAULT_SITE
};

#define MAX_INJECTED 512

/* __FILE__ is relative to the build directory ("lib/x.c", or "../lib/x.c"
 * in a VPATH build), so it names the source file site if it ends with "/"
 * site or is site. */
static bool
same_file(const char *compiled, const char *site)
{
	size_t a = strlen(compiled), b = strlen(site);

	if (a == b)
		return !strcmp(compiled, site);
	return a > b && compiled[a - b - 1] == '/' &&
	       !strcmp(compiled + a - b, site);
}

/* Whether a file the compiler named is one of lib/. */
static bool
in_lib(const char *compiled)
{
	return !strncmp(compiled, "lib/", 4) || strstr(compiled, "/lib/");
}

static const struct fault_exception *
exception_of(const struct site_range *s,
	     const struct fault_exception *exceptions, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(exceptions[i].file, s->file) &&
		    !strcmp(exceptions[i].function, s->function) &&
		    !strcmp(exceptions[i].name, s->name))
			return &exceptions[i];
	return NULL;
}

/* Whether the site is one the report counts, and whether it was injected. */
static bool
counted(const struct site_range *s, enum fault_api api,
	const struct fault_exception *exceptions, size_t count)
{
	return s->api == api && !fault_never_fails(s->name) &&
	       !exception_of(s, exceptions, count);
}

static bool
injected_at(const struct site_range *s, const struct fault_site *injected,
	    size_t ninjected)
{
	for (size_t j = 0; j < ninjected; j++)
		if (same_file(injected[j].file, s->file) &&
		    injected[j].line >= s->first && injected[j].line <= s->last)
			return true;
	return false;
}

size_t
fault_coverage_missing(enum fault_api api,
		       const struct fault_exception *exceptions, size_t count,
		       struct fault_target *out, size_t max)
{
	static struct fault_site injected[MAX_INJECTED];
	size_t ninjected = fault_sites_injected(api, injected, MAX_INJECTED),
	       n = 0;

	if (ninjected > MAX_INJECTED)
		ninjected = MAX_INJECTED;
	for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
		const struct site_range *s = &sites[i];

		if (!counted(s, api, exceptions, count) ||
		    injected_at(s, injected, ninjected))
			continue;
		if (n < max)
			out[n] = (struct fault_target){ s->file, s->first,
							s->last, s->name,
							s->function };
		n++;
	}
	return n;
}

size_t
fault_coverage_sites(enum fault_api api, const struct fault_exception *which,
		     size_t count, struct fault_target *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
		const struct site_range *s = &sites[i];

		if (s->api != api || !exception_of(s, which, count))
			continue;
		if (n < max)
			out[n] = (struct fault_target){ s->file, s->first,
							s->last, s->name,
							s->function };
		n++;
	}
	return n;
}

bool
fault_coverage_report(enum fault_api api, const char *label,
		      const struct fault_exception *exceptions, size_t count)
{
	static struct fault_site injected[MAX_INJECTED];
	size_t ninjected = fault_sites_injected(api, injected, MAX_INJECTED);
	unsigned int total = 0, covered = 0, excepted = 0;
	bool ok = true;

	if (ninjected > MAX_INJECTED) {
		printf("FAIL: %zu %s sites injected, more than the %d this "
		       "report reads\n",
		       ninjected, label, MAX_INJECTED);
		return false;
	}
	for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
		const struct site_range *s = &sites[i];
		bool hit = false;

		if (s->api != api || fault_never_fails(s->name))
			continue;
		if (exception_of(s, exceptions, count)) {
			excepted++;
			continue;
		}
		total++;
		for (size_t j = 0; j < ninjected && !hit; j++)
			hit = same_file(injected[j].file, s->file) &&
			      injected[j].line >= s->first &&
			      injected[j].line <= s->last;
		if (hit) {
			covered++;
		} else {
			printf("not injected: %s:%d %s in %s()\n", s->file,
			       s->first, s->name, s->function);
			ok = false;
		}
	}
	/* The other way round: a failure injected in lib/ at a site the list
	 * lacks means scripts/fault-sites.sh missed a call. */
	for (size_t j = 0; j < ninjected; j++) {
		bool listed = false;

		if (!in_lib(injected[j].file))
			continue;
		for (size_t i = 0;
		     i < sizeof(sites) / sizeof(sites[0]) && !listed; i++)
			listed = sites[i].api == api &&
				 same_file(injected[j].file, sites[i].file) &&
				 injected[j].line >= sites[i].first &&
				 injected[j].line <= sites[i].last;
		if (!listed) {
			printf("FAIL: %s failed at %s:%d, a site "
			       "scripts/fault-sites.sh did not list\n",
			       injected[j].name, injected[j].file,
			       injected[j].line);
			ok = false;
		}
	}
	for (size_t e = 0; e < count; e++) {
		bool found = false;

		for (size_t i = 0;
		     i < sizeof(sites) / sizeof(sites[0]) && !found; i++)
			found = sites[i].api == api &&
				!strcmp(sites[i].file, exceptions[e].file) &&
				!strcmp(sites[i].function,
					exceptions[e].function) &&
				!strcmp(sites[i].name, exceptions[e].name);
		if (!found) {
			printf("FAIL: the exception %s %s() %s (%s) names no "
			       "site of lib/: remove it\n",
			       exceptions[e].file, exceptions[e].function,
			       exceptions[e].name, exceptions[e].reason);
			ok = false;
		}
	}
	printf("%u of %u %s call sites injected (%u excepted, listed in the "
	       "test; release calls, which the engine never fails, not "
	       "counted)\n",
	       covered, total, label, excepted);
	fflush(stdout);
	return ok;
}
