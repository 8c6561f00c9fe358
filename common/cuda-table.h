/*
 * The tools' own table of CUDA driver functions, loaded at run time.
 * SPDX-License-Identifier: MIT
 *
 * glcuda-demo, glcuda-bench and glcuda-soak launch kernels, copy memory and
 * time events: more of CUDA than libglcuda uses, so they keep their own
 * table rather than the library's. It is loaded like the library loads
 * its own: dlopen("libcuda.so.1") (or $GLCUDA_LIBCUDA, so the tools run on
 * the fake driver of the tests) and cuGetProcAddress for the CUDA_VERSION
 * of the headers we build against, so a tool starts on a machine without
 * an NVIDIA driver and says so instead of failing to link. The opening
 * itself is the library's (lib/loader/cuda-driver.h, a convenience
 * library linked into both).
 */
#ifndef GLCUDA_TOOLS_CUDA_TABLE_H
#define GLCUDA_TOOLS_CUDA_TABLE_H

#include <stdbool.h>
#include <stddef.h>
/* The toolkit's <cuda.h> where configure found it; without the toolkit,
 * glcuda's own declarations of the driver API (lib/loader/cuda-types.h),
 * which the library itself builds with. */
#ifdef GLCUDA_TOOLS_OWN_CUDA_DECLS
#include "cuda-types.h"
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
	X(cuDeviceGetName) \
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
	X(cuGraphicsMapResources) \
	X(cuGraphicsUnmapResources) \
	X(cuGraphicsSubResourceGetMappedArray) \
	X(cuGraphicsUnregisterResource)

/* Resolved when the driver has them, NULL otherwise (the test suite's
 * fake driver does not): callers check. */
#define TOOLS_CUDA_OPTIONAL_FUNCTIONS(X) \
	X(cuStreamCreateWithPriority) \
	X(cuCtxGetStreamPriorityRange) \
	X(cuLaunchHostFunc)

/* Declared in cudaGL.h, typed by hand so that this header needs no GL
 * headers (the bench's legacy registration path). */
typedef CUresult (*tools_PFN_cuGraphicsGLRegisterImage)(CUgraphicsResource *, unsigned int,
							 unsigned int, unsigned int);

struct tools_cuda {
#define TOOLS_CUDA_MEMBER(name) __typeof__(name) *name;
	TOOLS_CUDA_FUNCTIONS(TOOLS_CUDA_MEMBER)
	TOOLS_CUDA_OPTIONAL_FUNCTIONS(TOOLS_CUDA_MEMBER)
#undef TOOLS_CUDA_MEMBER
	tools_PFN_cuGraphicsGLRegisterImage cuGraphicsGLRegisterImage;
};

/* Valid after a successful tools_cuda_load(); never unloaded (libcuda
 * keeps threads and atexit handlers that would point at unmapped code). */
extern struct tools_cuda tools_cuda;

/* Every CUDA call of the tools: CU(cuMemAlloc)(&ptr, size). */
#define CU(name) (tools_cuda.name)

/* Load the driver and resolve the table; calls cuInit(0). Returns 0, or -1
 * with the reason (no libcuda.so.1, a driver older than the toolkit) in
 * msg. Loading again after a success does nothing. */
int tools_cuda_load(char *msg, size_t size);
bool tools_cuda_loaded(void);
/* An entry point outside the table, from the loaded driver by its API
 * name (cudaEGL.h's, say): the function, or NULL when the driver has none
 * or is not loaded. The caller casts it to the declaration's type. */
void *tools_cuda_find(const char *name);

/* "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" into buf; works before the
 * table is loaded (the name then comes from a short list). */
const char *tools_cuda_result(CUresult res, char *buf, size_t size);

#endif
