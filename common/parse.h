/*
 * Parsing of the tools' options: numbers (the whole string must be a
 * number in range, no sign on unsigned values, no trailing text), sizes
 * and sync modes.
 * Callers print their own message, naming the option.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_PARSE_H
#define GLCUDA_TOOLS_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include <glcuda/glcuda.h>

bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
bool parse_uint(const char *s, unsigned int min, unsigned int max,
		unsigned int *out);
bool parse_int(const char *s, int min, int max, int *out);
bool parse_double(const char *s, double min, double max, double *out);
bool parse_float(const char *s, float min, float max, float *out);

/* "WxH" (or "WXH"): width and height each min..max. parse_size_prefix
 * allows text after the size and points *rest at it; parse_size does
 * not. */
bool parse_size_prefix(const char *s, unsigned int min, unsigned int max,
		       unsigned int *w, unsigned int *h, const char **rest);
bool parse_size(const char *s, unsigned int min, unsigned int max,
		unsigned int *w, unsigned int *h);

/* After getopt_long(), with first its optind: true when no argument is
 * left; false after "PROG: unexpected argument 'ARG'" on stderr. */
bool parse_no_operands(const char *prog, int argc, char *const *argv,
		       int first);

/* A sync mode by the name glcuda_sync_mode_get_name() gives it: auto,
 * timeline, binary or cpu. */
#define PARSE_SYNC_MODE_NAMES "auto, timeline, binary or cpu"
bool parse_sync_mode(const char *s, enum glcuda_sync_mode *out);

#endif
