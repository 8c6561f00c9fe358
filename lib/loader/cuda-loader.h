/*
 * The CUDA driver API, loaded at run time.
 * SPDX-License-Identifier: MIT
 *
 * libcuda.so.1 is opened with dlopen() when the first device is created,
 * never at library load, so a program linked with glcuda starts on a machine
 * without an NVIDIA driver. Entry points are resolved with cuGetProcAddress
 * for the CUDA_VERSION of the toolkit headers we build against, which hands
 * back the ABI version the header's declaration describes (a plain
 * dlsym("cuMemAlloc") would return the legacy v1 ABI).
 *
 * Every call goes through CU(name)(args): the function table is the seam
 * the fault-injection tests use.
 */
#ifndef GLCUDA_CUDA_LOADER_H
#define GLCUDA_CUDA_LOADER_H

#include <stdbool.h>
#include <cuda.h>

/* name: the API name as the header spells it (cuda.h maps it to the
 * versioned symbol, and __typeof__ picks that declaration's type). */
#define GLCUDA_CUDA_FUNCTIONS(X) \
	X(cuInit) \
	X(cuDriverGetVersion) \
	X(cuGetErrorName) \
	X(cuGetErrorString) \
	X(cuDeviceGetCount) \
	X(cuDeviceGet) \
	X(cuDeviceGetName) \
	X(cuDeviceGetUuid) \
	X(cuDeviceGetAttribute) \
	X(cuDevicePrimaryCtxRetain) \
	X(cuDevicePrimaryCtxRelease) \
	X(cuDevicePrimaryCtxSetFlags) \
	X(cuDevicePrimaryCtxGetState) \
	X(cuCtxPushCurrent) \
	X(cuCtxPopCurrent) \
	X(cuCtxGetCurrent) \
	X(cuCtxGetDevice) \
	X(cuCtxSynchronize) \
	X(cuMemGetInfo) \
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
	X(cuStreamQuery) \
	X(cuStreamWaitEvent) \
	X(cuStreamWaitValue32) \
	X(cuLaunchHostFunc) \
	X(cuEventCreate) \
	X(cuEventDestroy) \
	X(cuEventRecord) \
	X(cuEventQuery) \
	X(cuEventSynchronize) \
	X(cuEventElapsedTime) \
	X(cuModuleLoadData) \
	X(cuModuleUnload) \
	X(cuModuleGetFunction) \
	X(cuModuleGetGlobal) \
	X(cuLaunchKernel) \
	X(cuMemAlloc) \
	X(cuMemFree) \
	X(cuMemAllocHost) \
	X(cuMemFreeHost) \
	X(cuMemHostGetDevicePointer) \
	X(cuMemHostAlloc) \
	X(cuMemcpyHtoD) \
	X(cuMemcpyDtoH) \
	X(cuMemcpyHtoDAsync) \
	X(cuMemcpyDtoHAsync) \
	X(cuMemcpy2D) \
	X(cuMemcpy2DAsync) \
	X(cuMemsetD32) \
	X(cuMemsetD8) \
	X(cuGraphicsMapResources) \
	X(cuGraphicsUnmapResources) \
	X(cuGraphicsSubResourceGetMappedArray) \
	X(cuGraphicsUnregisterResource)

/* Functions declared in cudaGL.h / cudaEGL.h, resolved the same way but
 * typed by hand so this header needs no GL headers. */
typedef CUresult (*glcuda_PFN_cuGraphicsGLRegisterImage)(CUgraphicsResource *, unsigned int, unsigned int, unsigned int);
typedef CUresult (*glcuda_PFN_cuGraphicsEGLRegisterImage)(CUgraphicsResource *, void *, unsigned int);
struct CUeglFrame_st;
typedef CUresult (*glcuda_PFN_cuGraphicsResourceGetMappedEglFrame)(struct CUeglFrame_st *, CUgraphicsResource, unsigned int, unsigned int);

struct glcuda_cuda {
#define GLCUDA_CUDA_MEMBER(name) __typeof__(name) *name;
	GLCUDA_CUDA_FUNCTIONS(GLCUDA_CUDA_MEMBER)
#undef GLCUDA_CUDA_MEMBER
	glcuda_PFN_cuGraphicsGLRegisterImage cuGraphicsGLRegisterImage;
	/* Optional: NULL when the driver lacks them (wrapping EGLImages and
	 * describing wrapped arrays then fail with a message saying so). */
	glcuda_PFN_cuGraphicsEGLRegisterImage cuGraphicsEGLRegisterImage;
	glcuda_PFN_cuGraphicsResourceGetMappedEglFrame cuGraphicsResourceGetMappedEglFrame;
	__typeof__(cuArray3DGetDescriptor) *cuArray3DGetDescriptor;

	void *handle;
	int driver_version;
};

/* The process-wide table; valid between a successful cuda_loader_load() and
 * the matching cuda_loader_unload(). */
extern struct glcuda_cuda glcuda_cuda;

/* Load libcuda.so.1 (or $GLCUDA_LIBCUDA) and call cuInit(0). Reference
 * counted. Returns 0, GLCUDA_ERROR_NO_CUDA_DRIVER (with a message in buf) or
 * GLCUDA_ERROR_CUDA. */
int cuda_loader_load(char *buf, size_t bufsize);
void cuda_loader_unload(void);
bool cuda_loader_is_loaded(void);

/* Fault injection (tests): make the n-th CUDA call from now on (1-based)
 * fail with err; n = 0 only counts. cuda_fault_calls() counts the calls
 * made through CU() from the last cuda_fault_inject() to
 * cuda_fault_disarm(). Process-wide and locked: the calls of every thread
 * count. */
void cuda_fault_inject(unsigned long n, CUresult err);
void cuda_fault_disarm(void);
unsigned long cuda_fault_calls(void);
CUresult cuda_fault_check(const char *name);
extern unsigned long cuda_fault_armed;

/* Call a driver function through the table, with fault injection: when the
 * injected call comes up, a stub that returns the injected error runs
 * instead (it ignores its arguments, which the x86-64 and AArch64 calling
 * conventions allow). */
CUresult cuda_fault_return(void);
#define CU(name) ((__atomic_load_n(&cuda_fault_armed, __ATOMIC_RELAXED) && \
			  cuda_fault_check(#name) != CUDA_SUCCESS) \
	? (__typeof__(glcuda_cuda.name))(void *)cuda_fault_return : glcuda_cuda.name)

/* "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" into buf. Works without a
 * loaded driver. */
const char *cuda_result_string(CUresult res, char *buf, size_t size);

struct error_sink;
/* Record a failed CUDA call on errors: maps CUDA_ERROR_ILLEGAL_ADDRESS & co.
 * to device loss, names the call and the code, adds hint (may be NULL).
 * Returns the glcuda error. */
int cuda_call_fail(struct error_sink *errors, CUresult res, const char *call, const char *hint);

#endif
