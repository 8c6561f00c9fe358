/*
 * Number parsing for the tools' options: the whole string must be a
 * number in range (no sign on unsigned values, no trailing text).
 * Callers print their own message, naming the option.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_PARSE_H
#define GLCUDA_TOOLS_PARSE_H

#include <stdbool.h>
#include <stdint.h>

bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
bool parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out);
bool parse_int(const char *s, int min, int max, int *out);
bool parse_double(const char *s, double min, double max, double *out);
bool parse_float(const char *s, float min, float max, float *out);

#endif
