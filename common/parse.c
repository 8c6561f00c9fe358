/*
 * Number parsing for the tools' options (see parse.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

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
	char *end;
	float v;

	if (!s)
		return false;
	errno = 0;
	v = strtof(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		return false;
	*out = v;
	return true;
}
