/*
 * The CUDA driver API, loaded at run time.
 * SPDX-License-Identifier: MIT
 *
 * libcuda.so.1 is opened with dlopen() when the first device is created,
 * never at library load, so a program linked with glcuda starts on a machine
 * without an NVIDIA driver. Entry points are resolved with cuGetProcAddress
 * for GLCUDA_CUDA_API_VERSION, which hands back the ABI that glcuda's
 * declarations describe (cuda-driver-api.h; a plain dlsym("cuMemAlloc") would
 * return the legacy v1 ABI). No CUDA toolkit is needed to build it.
 *
 * Every call of the library goes through CU_CALL(name, args): the function
 * table is the seam the fault-injection tests use (fault.h). The table
 * holds what the library calls and nothing else; the programs of the tree
 * (tools, benchmarks, tests) call CUDA through a table of their own
 * (common/cuda-table.h: CU), and the examples through theirs
 * (examples/example-cuda.h: EXAMPLE_CU).
 */
#ifndef GLCUDA_CUDA_LOADER_H
#define GLCUDA_CUDA_LOADER_H

#include "cuda-driver-api.h"

#include "fault.h"

/* The functions the library calls; every one must resolve. name: the API
 * name as <cuda.h> spells it (cuda-driver-api.h maps it to the versioned
 * symbol, and __typeof__ picks that declaration's type). */
#define GLCUDA_CUDA_FUNCTIONS(X) \
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
	X(cuDevicePrimaryCtxSetFlags) \
	X(cuDevicePrimaryCtxGetState) \
	X(cuCtxPushCurrent) \
	X(cuCtxPopCurrent) \
	X(cuCtxGetDevice) \
	X(cuCtxSynchronize) \
	X(cuImportExternalMemory) \
	X(cuDestroyExternalMemory) \
	X(cuExternalMemoryGetMappedMipmappedArray) \
	X(cuMipmappedArrayGetLevel) \
	X(cuMipmappedArrayDestroy) \
	X(cuSurfObjectCreate) \
	X(cuSurfObjectDestroy) \
	X(cuTexObjectCreate) \
	X(cuTexObjectDestroy) \
	X(cuImportExternalSemaphore) \
	X(cuDestroyExternalSemaphore) \
	X(cuSignalExternalSemaphoresAsync) \
	X(cuWaitExternalSemaphoresAsync) \
	X(cuStreamCreate) \
	X(cuStreamDestroy) \
	X(cuStreamSynchronize) \
	X(cuLaunchHostFunc) \
	X(cuEventCreate) \
	X(cuEventDestroy) \
	X(cuEventRecord) \
	X(cuEventQuery) \
	X(cuEventSynchronize) \
	X(cuEventElapsedTime) \
	X(cuGraphicsMapResources) \
	X(cuGraphicsUnmapResources) \
	X(cuGraphicsSubResourceGetMappedArray) \
	X(cuGraphicsUnregisterResource) \
	X(cuMemcpy3DAsync) \
	X(cuMemAlloc) \
	X(cuMemFree) \
	X(cuDeviceGetAttribute) \
	X(cuStreamWaitEvent) \
	X(cuLaunchKernel)

/* Functions of cudaGL.h / cudaEGL.h, resolved the same way (cuda-driver-api.h
 * declares them with GL's and EGL's types spelt out, so this header needs
 * no GL headers). */
typedef __typeof__(cuGraphicsGLRegisterImage)
	*cuda_loader_PFN_cuGraphicsGLRegisterImage;
typedef __typeof__(cuGraphicsEGLRegisterImage)
	*cuda_loader_PFN_cuGraphicsEGLRegisterImage;
typedef __typeof__(cuGraphicsResourceGetMappedEglFrame)
	*cuda_loader_PFN_cuGraphicsResourceGetMappedEglFrame;

struct cuda_loader_table {
#define GLCUDA_CUDA_MEMBER(name) __typeof__(name) *name;
	GLCUDA_CUDA_FUNCTIONS(GLCUDA_CUDA_MEMBER)
#undef GLCUDA_CUDA_MEMBER
	cuda_loader_PFN_cuGraphicsGLRegisterImage cuGraphicsGLRegisterImage;
	/* Optional: NULL when the driver lacks them (wrapping EGLImages and
	 * describing wrapped arrays then fail with a message saying so). */
	cuda_loader_PFN_cuGraphicsEGLRegisterImage cuGraphicsEGLRegisterImage;
	cuda_loader_PFN_cuGraphicsResourceGetMappedEglFrame
		cuGraphicsResourceGetMappedEglFrame;
	__typeof__(cuArray3DGetDescriptor) *cuArray3DGetDescriptor;
	/* Optional (CUDA 12.0): NULL on older drivers, whose copies between
	 * images and linear memory then go through the copy engine
	 * (cuda/copy-kernels.c). */
	__typeof__(cuLibraryLoadData) *cuLibraryLoadData;
	__typeof__(cuLibraryGetKernel) *cuLibraryGetKernel;

	void *handle;
	int driver_version;
};

/* The process-wide table; valid between a successful cuda_loader_load() and
 * the matching cuda_loader_unload(). */
extern struct cuda_loader_table cuda_loader_table;

/* Load libcuda.so.1 (or $GLCUDA_LIBCUDA) and call cuInit(0). Reference
 * counted. Returns 0, GLCUDA_ERROR_NO_CUDA_DRIVER (with a message in buf) or
 * GLCUDA_ERROR_CUDA. */
int cuda_loader_load(char *buf, size_t bufsize);
void cuda_loader_unload(void);

/* Call a driver function through the table: CU_CALL(cuMemAlloc, &ptr, size).
 * In the tests' build, the seam of fault injection (fault.h): the injected
 * call returns the injected error without reaching the driver. */
#define CU_CALL(name, ...) \
	(FAULT_HIT(FAULT_CUDA, #name) ? (CUresult)FAULT_RESULT() \
				      : cuda_loader_table.name(__VA_ARGS__))

/* "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" into buf. Works without a
 * loaded driver. */
const char *cuda_result_string(CUresult res, char *buf, size_t size);

struct error_sink;
/* Record a failed CUDA call on errors: maps CUDA_ERROR_ILLEGAL_ADDRESS & co.
 * to device loss, names the call and the code, adds hint (may be NULL).
 * Returns the glcuda error. */
int cuda_call_fail(struct error_sink *errors, CUresult res, const char *call,
		   const char *hint);

#endif
