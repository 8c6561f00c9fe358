/**
 * @file
 * The version of the glcuda headers, for compile-time checks
 * (glcuda_get_version() gives the library's at run time). Included by
 * <glcuda/glcuda.h>.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_VERSION_H
#define GLCUDA_VERSION_H

/** Major version of the headers: incompatible API changes. */
#define GLCUDA_VERSION_MAJOR 1
/** Minor version of the headers: additions. */
#define GLCUDA_VERSION_MINOR 1
/** Micro version of the headers: fixes. */
#define GLCUDA_VERSION_MICRO 0
/** The version of the headers as a string, "MAJOR.MINOR.MICRO". */
#define GLCUDA_VERSION_STRING "1.1.0"

/** True if the headers are at least version major.minor.micro. */
#define GLCUDA_CHECK_VERSION(major, minor, micro) \
	(GLCUDA_VERSION_MAJOR > (major) || \
	 (GLCUDA_VERSION_MAJOR == (major) && GLCUDA_VERSION_MINOR > (minor)) || \
	 (GLCUDA_VERSION_MAJOR == (major) && GLCUDA_VERSION_MINOR == (minor) && \
	  GLCUDA_VERSION_MICRO >= (micro)))

#endif
