/*
 * The number of elements of an array, for the programs built on the public
 * API (the tools, glcuda-compositor, the benchmarks): their one
 * definition, as lib/array-length.h is the library's and the test suites'.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_ARRAY_LENGTH_H
#define GLCUDA_TOOLS_ARRAY_LENGTH_H

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

#endif
