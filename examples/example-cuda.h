/*
 * The few CUDA driver functions the examples call, opened at run time.
 * SPDX-License-Identifier: MIT
 *
 * glcuda loads libcuda.so.1 itself when a device is made, so a program
 * linked with it starts on a machine without an NVIDIA driver. These
 * examples keep that property for their own CUDA calls: they dlopen() the
 * driver too (a second reference to the same library) and look the
 * functions up with cuGetProcAddress for the CUDA_VERSION of the toolkit's
 * <cuda.h>, which returns the ABI that header declares (dlsym("cuMemAlloc")
 * would return the legacy v1 entry point). Call example_cuda_open() after
 * glcuda_device_new() has succeeded, then EXAMPLE_CU(cuLaunchKernel)(...).
 *
 * A program that may require the driver at link time does without this
 * file: it includes <cuda.h>, links -lcuda and calls cuLaunchKernel()
 * directly.
 */
#ifndef GLCUDA_EXAMPLE_CUDA_H
#define GLCUDA_EXAMPLE_CUDA_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda.h>

/* A program that needs more of the driver defines
 * EXAMPLE_CUDA_MORE_FUNCTIONS(X) before including this file, in the form of
 * the list below. */
#ifndef EXAMPLE_CUDA_MORE_FUNCTIONS
#define EXAMPLE_CUDA_MORE_FUNCTIONS(X)
#endif

/* Only calls whose ABI did not change up to CUDA 13: cuCtxSynchronize and
 * cuCtxGetDevice gained a context argument there without a new name. */
#define EXAMPLE_CUDA_FUNCTIONS(X) \
	X(cuCtxPushCurrent) \
	X(cuCtxPopCurrent) \
	X(cuModuleLoadData) \
	X(cuModuleGetFunction) \
	X(cuModuleUnload) \
	X(cuLaunchKernel) \
	X(cuStreamCreate) \
	X(cuStreamDestroy) \
	EXAMPLE_CUDA_MORE_FUNCTIONS(X)

static struct {
#define EXAMPLE_CUDA_MEMBER(name) __typeof__(name) *name;
	EXAMPLE_CUDA_FUNCTIONS(EXAMPLE_CUDA_MEMBER)
#undef EXAMPLE_CUDA_MEMBER
} example_cuda;

/* Named for the example, so that it is not taken for glcuda's: a copy
 * may call it what it likes. */
#define EXAMPLE_CU(name) (example_cuda.name)

/* 0, or -1 after printing why. $GLCUDA_LIBCUDA names another driver
 * library, as it does for glcuda. */
static int
example_cuda_open(void)
{
	const char *path = getenv("GLCUDA_LIBCUDA");
	__typeof__(cuGetProcAddress) *get_proc;
	CUdriverProcAddressQueryResult status;
	void *handle;

	if (!path || !*path)
		path = "libcuda.so.1";
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		fprintf(stderr, "cannot open the CUDA driver: %s\n", dlerror());
		return -1;
	}
	/* cuda.h (CUDA 12+) maps cuGetProcAddress to cuGetProcAddress_v2. */
	get_proc = (__typeof__(get_proc))dlsym(handle, "cuGetProcAddress_v2");
	if (!get_proc) {
		fprintf(stderr, "the CUDA driver is older than CUDA 12\n");
		return -1;
	}
#define EXAMPLE_CUDA_RESOLVE(name)                                             \
	if (get_proc(#name, (void **)&example_cuda.name, CUDA_VERSION,         \
		     CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS ||  \
	    !example_cuda.name) {                                              \
		fprintf(stderr, "the CUDA driver has no %s\n", #name);         \
		return -1;                                                     \
	}
	EXAMPLE_CUDA_FUNCTIONS(EXAMPLE_CUDA_RESOLVE)
#undef EXAMPLE_CUDA_RESOLVE
	/* The handle stays open: the driver is never unloaded. */
	return 0;
}

#endif
