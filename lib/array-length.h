/*
 * The number of elements of an array: the library's and the test suites'
 * one definition (common/array-length.h is the programs').
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_ARRAY_LENGTH_H
#define GLCUDA_ARRAY_LENGTH_H

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

#endif
