/*
 * The programs' table of CUDA driver functions, loaded at run time.
 * SPDX-License-Identifier: MIT
 *
 * Every program of the tree that calls CUDA itself calls it through this
 * table: glcuda-demo, glcuda-compositor, the GStreamer plugin, the
 * benchmarks and the test suites, with CU(cuMemAlloc)(&ptr, size). The
 * library has its own (lib/loader/cuda-loader.h: CU_CALL, which holds what
 * the library calls and nothing else), and so do the examples
 * (examples/example-cuda.h: EXAMPLE_CU, for users to copy).
 *
 * It is loaded like the library loads its own: dlopen("libcuda.so.1") (or
 * $GLCUDA_LIBCUDA, so that the programs run on the fake driver of the
 * tests) and cuGetProcAddress for the driver-API version of the
 * declarations the program builds with, so a program starts on a machine
 * without an NVIDIA driver and says so instead of failing to link. The
 * opening itself is the library's (lib/loader/cuda-driver.h, a convenience
 * library linked into both).
 *
 * A program that wants to report a missing driver its own way calls
 * tools_cuda_load() first. Without that, the first CU() loads the table,
 * and where the driver cannot be loaded it prints why and exits the
 * program: a call through the table never reaches a NULL entry of a table
 * that was not loaded.
 */
#ifndef GLCUDA_TOOLS_CUDA_TABLE_H
#define GLCUDA_TOOLS_CUDA_TABLE_H

#include <stdbool.h>
#include <stddef.h>
/* The toolkit's <cuda.h> where configure found it; without the toolkit,
 * and in the test suites, which build with the library's headers, glcuda's
 * own declarations of the driver API (lib/loader/cuda-driver-api.h), which the
 * library itself builds with. */
#ifdef GLCUDA_TOOLS_OWN_CUDA_DECLS
#include "../lib/loader/cuda-driver-api.h"
#else
#include <cuda.h>
#endif

/* name: the API name as the header spells it (cuda.h maps it to the
 * versioned symbol, and __typeof__ picks that declaration's type). */
#define TOOLS_CUDA_FUNCTIONS(X) \
	X(cuInit) \
	X(cuDriverGetVersion) \
	X(cuGetErrorName) \
	X(cuGetErrorString) \
	X(cuDeviceGetCount) \
	X(cuDeviceGet) \
	X(cuDeviceGetName) \
	X(cuDeviceGetUuid) \
	X(cuDevicePrimaryCtxRetain) \
	X(cuDevicePrimaryCtxRelease) \
	X(cuCtxPushCurrent) \
	X(cuCtxPopCurrent) \
	X(cuCtxSynchronize) \
	X(cuMemGetInfo) \
	X(cuSurfObjectCreate) \
	X(cuSurfObjectDestroy) \
	X(cuStreamCreate) \
	X(cuStreamDestroy) \
	X(cuStreamSynchronize) \
	X(cuStreamWaitEvent) \
	X(cuStreamQuery) \
	X(cuEventCreate) \
	X(cuEventDestroy) \
	X(cuEventRecord) \
	X(cuEventQuery) \
	X(cuEventSynchronize) \
	X(cuEventElapsedTime) \
	X(cuModuleLoadData) \
	X(cuModuleUnload) \
	X(cuModuleGetFunction) \
	X(cuLaunchKernel) \
	X(cuMemAlloc) \
	X(cuMemFree) \
	X(cuMemAllocHost) \
	X(cuMemFreeHost) \
	X(cuMemcpyHtoD) \
	X(cuMemcpy2DAsync) \
	X(cuImportExternalSemaphore) \
	X(cuDestroyExternalSemaphore) \
	X(cuSignalExternalSemaphoresAsync) \
	X(cuWaitExternalSemaphoresAsync) \
	X(cuGraphicsMapResources) \
	X(cuGraphicsUnmapResources) \
	X(cuGraphicsSubResourceGetMappedArray) \
	X(cuGraphicsUnregisterResource)

/* Resolved when the driver has them, NULL otherwise (the test suite's
 * fake driver lacks some): callers check, or need a real driver. */
#define TOOLS_CUDA_OPTIONAL_FUNCTIONS(X) \
	X(cuStreamCreateWithPriority) \
	X(cuCtxGetStreamPriorityRange) \
	X(cuLaunchHostFunc) \
	X(cuMemHostAlloc) \
	X(cuMemHostGetDevicePointer) \
	X(cuMemcpyDtoH) \
	X(cuMemsetD32) \
	X(cuMemsetD8)

/* Declared in cudaGL.h, typed by hand so that this header needs no GL
 * headers (the bench's legacy registration path). */
typedef CUresult (*tools_PFN_cuGraphicsGLRegisterImage)(
	CUgraphicsResource *, unsigned int, unsigned int, unsigned int);

struct tools_cuda {
#define TOOLS_CUDA_MEMBER(name) __typeof__(name) *name;
	TOOLS_CUDA_FUNCTIONS(TOOLS_CUDA_MEMBER)
	TOOLS_CUDA_OPTIONAL_FUNCTIONS(TOOLS_CUDA_MEMBER)
#undef TOOLS_CUDA_MEMBER
	tools_PFN_cuGraphicsGLRegisterImage cuGraphicsGLRegisterImage;
};

/* Filled by the first successful load; never unloaded (libcuda keeps
 * threads and atexit handlers that would point at unmapped code). Read it
 * through CU(), which loads it first. */
extern struct tools_cuda tools_cuda;
/* Set, after the table, by the first successful load. */
extern bool tools_cuda_ready;

/* Load the driver and resolve the table; calls cuInit(0). Returns 0, or -1
 * with the reason (no libcuda.so.1, a driver older than the toolkit) in
 * msg. Loading again after a success does nothing. Thread-safe. */
int tools_cuda_load(char *msg, size_t size);
bool tools_cuda_loaded(void);
/* The table, loaded; where the driver cannot be loaded, prints why and
 * exits the program. */
const struct tools_cuda *tools_cuda_load_or_exit(void);

static inline const struct tools_cuda *
tools_cuda_table(void)
{
	if (__atomic_load_n(&tools_cuda_ready, __ATOMIC_ACQUIRE))
		return &tools_cuda;
	return tools_cuda_load_or_exit();
}

/* Every CUDA call of the programs: CU(cuMemAlloc)(&ptr, size). */
#define CU(name) (tools_cuda_table()->name)

/* An entry point outside the table, from the loaded driver by its API
 * name (cudaEGL.h's, say): the function, or NULL when the driver has none
 * or is not loaded. The caller casts it to the declaration's type. */
void *tools_cuda_find(const char *name);

/* "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" into buf; works before the
 * table is loaded (the name then comes from a short list). */
const char *tools_cuda_result(CUresult res, char *buf, size_t size);

#endif
