/*
 * Parsing of the tools' options (see parse.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

bool
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* strtoull() takes "-1" as ULLONG_MAX. */
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool
parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out)
{
	uint64_t v;

	if (!parse_u64(s, min, max, &v))
		return false;
	*out = (unsigned int)v;
	return true;
}

bool
parse_int(const char *s, int min, int max, int *out)
{
	char *end;
	long v;

	if (!s)
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = (int)v;
	return true;
}

bool
parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s)
		return false;
	errno = 0;
	v = strtod(s, &end);
	/* !(in range) also refuses NaN. */
	if (errno || end == s || *end || !(v >= min && v <= max))
		return false;
	*out = v;
	return true;
}

bool
parse_float(const char *s, float min, float max, float *out)
{
	double v;
	float f;

	/* The range in float: "0.1" is 0.1f, which a double 0.1 is not. */
	if (!parse_double(s, -HUGE_VAL, HUGE_VAL, &v))
		return false;
	f = (float)v;
	if (!(f >= min && f <= max))
		return false;
	*out = f;
	return true;
}

bool
parse_no_operands(const char *prog, int argc, char *const *argv, int first)
{
	if (first >= argc)
		return true;
	fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[first]);
	return false;
}

/* One side of a size: digits only (no sign, no space), min..max. */
static bool
parse_side(const char *s, unsigned int min, unsigned int max, unsigned int *out,
	   const char **end)
{
	char *e;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || v < min || v > max)
		return false;
	*out = (unsigned int)v;
	*end = e;
	return true;
}

bool
parse_size_prefix(const char *s, unsigned int min, unsigned int max,
		  unsigned int *w, unsigned int *h, const char **rest)
{
	unsigned int pw, ph;
	const char *e;

	if (!s || !parse_side(s, min, max, &pw, &e) ||
	    (*e != 'x' && *e != 'X') || !parse_side(e + 1, min, max, &ph, &e))
		return false;
	*w = pw;
	*h = ph;
	*rest = e;
	return true;
}

bool
parse_size(const char *s, unsigned int min, unsigned int max, unsigned int *w,
	   unsigned int *h)
{
	unsigned int pw, ph;
	const char *rest;

	if (!parse_size_prefix(s, min, max, &pw, &ph, &rest) || *rest)
		return false;
	*w = pw;
	*h = ph;
	return true;
}

bool
parse_sync_mode(const char *s, enum glcuda_sync_mode *out)
{
	static const enum glcuda_sync_mode modes[] = {
		GLCUDA_SYNC_AUTO,
		GLCUDA_SYNC_TIMELINE,
		GLCUDA_SYNC_BINARY,
		GLCUDA_SYNC_CPU,
	};

	if (!s)
		return false;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(s, glcuda_sync_mode_get_name(modes[i])) == 0) {
			*out = modes[i];
			return true;
		}
	return false;
}
