/*
 * Opening the CUDA driver: the part that libglcuda's loader
 * (cuda-loader.c) and the table of the tools, glcuda-compositor, the
 * GStreamer plugin and the benchmarks (common/cuda-table.c) share.
 * SPDX-License-Identifier: MIT
 *
 * libcuda.so.1 (or $GLCUDA_LIBCUDA) is opened with dlopen() and every
 * entry point is resolved with its cuGetProcAddress_v2, for the driver-API
 * version whose ABI the caller's declarations describe. Internal: part of
 * lib/loader/libglcuda-shared.la, linked into libglcuda (whose version
 * script keeps it unexported) and into common/libglcuda-common.la. No CUDA
 * type appears here, so that a file may include it next to either the
 * toolkit's <cuda.h> or glcuda's cuda-driver-api.h: results are ints
 * (CUresult's values), functions void pointers.
 */
#ifndef GLCUDA_CUDA_DRIVER_H
#define GLCUDA_CUDA_DRIVER_H

#include <stddef.h>

struct cuda_driver {
	void *handle;    /* dlopen()'s */
	void *get_proc;  /* its cuGetProcAddress_v2 */
	int api_version; /* the ABI of the caller's declarations */
};

/* Open the driver and find cuGetProcAddress_v2. Returns 0, or -1 with what
 * failed and what to do in msg (then drv holds nothing). */
int cuda_driver_open(struct cuda_driver *drv, int api_version, char *msg,
		     size_t size);
/* Undo cuda_driver_open() after a failure to use it; a driver in use is
 * never closed (libcuda keeps threads and atexit handlers that would then
 * point at unmapped code). */
void cuda_driver_close(struct cuda_driver *drv);

/* The version to ask cuGetProcAddress for name (see cuda-driver.c). */
int cuda_driver_abi_version(const struct cuda_driver *drv, const char *name);
/* *fn = name's entry point. Returns 0, or -1 with the call, its result and
 * what to do in msg (*fn is then NULL). */
int cuda_driver_resolve(const struct cuda_driver *drv, const char *name,
			void **fn, char *msg, size_t size);
/* name's entry point, or NULL when the driver has none (an optional one). */
void *cuda_driver_find(const struct cuda_driver *drv, const char *name);

/* One slot of a caller's table of entry points: the API name as <cuda.h>
 * spells it and where the function goes. The caller's X-macro writes
 * { #name, (void **)&table->name } itself: #name must stand in the macro
 * that the list calls, or the argument is first expanded to the versioned
 * symbol (cuMemGetInfo_v2) that <cuda.h> maps the name to. */
struct cuda_driver_entry {
	const char *name;
	void **fn;
};
/* Fill a table: every one of the count_required entries must resolve
 * (0, or -1 with the first that did not in msg, the table then half
 * written), each of the count_optional ones gets its function or NULL. */
int cuda_driver_resolve_table(const struct cuda_driver *drv,
			      const struct cuda_driver_entry *required,
			      size_t count_required,
			      const struct cuda_driver_entry *optional,
			      size_t count_optional, char *msg, size_t size);

/* "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" into buf, from what the
 * driver's cuGetErrorName and cuGetErrorString said (name and desc, NULL
 * where they said nothing or the driver is not loaded: the name then
 * comes from a short list of the common codes). Returns buf. */
const char *cuda_driver_result_format(int res, const char *name,
				      const char *desc, char *buf, size_t size);
/* The same, asking the driver: get_name and get_string are the caller's
 * table's cuGetErrorName and cuGetErrorString (NULL before it is loaded). */
const char *cuda_driver_result_string(int res, void *get_name, void *get_string,
				      char *buf, size_t size);

#endif
