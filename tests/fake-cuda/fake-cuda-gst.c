/*
 * The fake CUDA driver as GStreamer's CUDA library loads it: the entry
 * points of libgstcuda-1.0 (gst-plugins-bad 1.22, gstcudaloader.c), which
 * opens libcuda.so.1 with g_module_open and resolves each by its exported
 * name (the _v2 names where cuda.h maps the API to them), failing when
 * any one is missing. The tests point it at the fake through
 * tests/fake-cuda/libcuda/libcuda.so.1, a link to libfakecuda.so on
 * LD_LIBRARY_PATH: the dynamic loader knows the file, so glcuda (through
 * GLCUDA_LIBCUDA) and GStreamer share one fake and its state.
 *
 * The entry points the fake already has are the ones cuGetProcAddress_v2
 * returns; those it lacked behave as the real driver does on a machine of
 * one device, whose GL registrations the fake always refuses (as
 * cuGraphicsGLRegisterImage): two devices never, so no peer access; the
 * primary context the only one (cuCtxCreate_v2 refused: every object of
 * the fake belongs to the primary context).
 *
 * Also here: the log of the work enqueued on the fake's streams, in
 * order, with marks a test adds (fake_cuda_work_mark: a point on the CPU
 * between two enqueues, such as GL's work found finished), so that a test
 * reads which stream each copy ran on and what came before it.
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "loader/cuda-driver-api.h"
#include "fake-cuda.h"
#include "fake-cuda-gst.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

/* The row alignment of cuMemAllocPitch (what the driver returns on
 * current NVIDIA GPUs). */
#define FAKE_PITCH_ALIGN 512

/* The log of work ------------------------------------------------------- */

#define WORK_LOG_SIZE 65536u

static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_cuda_work work_log[WORK_LOG_SIZE];
static unsigned int work_count;

static void
work_append(const char *call, const char *kernel, CUstream stream, int mark)
{
	pthread_mutex_lock(&work_lock);
	work_log[work_count % WORK_LOG_SIZE] = (struct fake_cuda_work){
		.call = call, .kernel = kernel, .stream = stream, .mark = mark
	};
	work_count++;
	pthread_mutex_unlock(&work_lock);
}

void
fake_cuda_work_logged(const char *call, const char *kernel, CUstream stream)
{
	work_append(call, kernel, stream == CU_STREAM_LEGACY ? NULL : stream,
		    0);
}

FAKE_EXPORT void
fake_cuda_work_mark(const char *what)
{
	work_append(what, NULL, NULL, 1);
}

FAKE_EXPORT unsigned int
fake_cuda_work_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&work_lock);
	n = work_count;
	pthread_mutex_unlock(&work_lock);
	return n;
}

FAKE_EXPORT int
fake_cuda_work_get(unsigned int i, struct fake_cuda_work *out)
{
	int ret = -1;

	pthread_mutex_lock(&work_lock);
	if (i < work_count && work_count - i <= WORK_LOG_SIZE) {
		*out = work_log[i % WORK_LOG_SIZE];
		ret = 0;
	}
	pthread_mutex_unlock(&work_lock);
	return ret;
}

/* The entry points the fake has ----------------------------------------- */

/* The fake's own function for @name (cuGetProcAddress_v2, the pre-13
 * ABI, as libgstcuda 1.22 expects); every name below is in its table. */
static void *
proc(const char *name)
{
	void *fn = NULL;

	cuGetProcAddress_v2(name, &fn, 12000, 0, NULL);
	return fn;
}

#define CALL(name, ...) ((__typeof__(name) *)proc(#name))(__VA_ARGS__)

FAKE_EXPORT CUresult
cuInit(unsigned int flags)
{
	return CALL(cuInit, flags);
}

FAKE_EXPORT CUresult
cuDriverGetVersion(int *version)
{
	return CALL(cuDriverGetVersion, version);
}

FAKE_EXPORT CUresult
cuGetErrorName(CUresult error, const char **str)
{
	return CALL(cuGetErrorName, error, str);
}

FAKE_EXPORT CUresult
cuGetErrorString(CUresult error, const char **str)
{
	return CALL(cuGetErrorString, error, str);
}

FAKE_EXPORT CUresult
cuDeviceGet(CUdevice *device, int ordinal)
{
	return CALL(cuDeviceGet, device, ordinal);
}

FAKE_EXPORT CUresult
cuDeviceGetCount(int *count)
{
	return CALL(cuDeviceGetCount, count);
}

FAKE_EXPORT CUresult
cuDeviceGetName(char *name, int len, CUdevice dev)
{
	return CALL(cuDeviceGetName, name, len, dev);
}

FAKE_EXPORT CUresult
cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	return CALL(cuDeviceGetAttribute, pi, attrib, dev);
}

FAKE_EXPORT CUresult
cuCtxPushCurrent_v2(CUcontext ctx)
{
	return CALL(cuCtxPushCurrent, ctx);
}

FAKE_EXPORT CUresult
cuCtxPopCurrent_v2(CUcontext *pctx)
{
	return CALL(cuCtxPopCurrent, pctx);
}

FAKE_EXPORT CUresult
cuGraphicsMapResources(unsigned int count, CUgraphicsResource *resources,
		       CUstream stream)
{
	return CALL(cuGraphicsMapResources, count, resources, stream);
}

FAKE_EXPORT CUresult
cuGraphicsUnmapResources(unsigned int count, CUgraphicsResource *resources,
			 CUstream stream)
{
	return CALL(cuGraphicsUnmapResources, count, resources, stream);
}

FAKE_EXPORT CUresult
cuGraphicsSubResourceGetMappedArray(CUarray *array, CUgraphicsResource res,
				    unsigned int index, unsigned int level)
{
	return CALL(cuGraphicsSubResourceGetMappedArray, array, res, index,
		    level);
}

FAKE_EXPORT CUresult
cuGraphicsUnregisterResource(CUgraphicsResource res)
{
	return CALL(cuGraphicsUnregisterResource, res);
}

FAKE_EXPORT CUresult
cuGraphicsGLRegisterImage(CUgraphicsResource *res, unsigned int image,
			  unsigned int target, unsigned int flags)
{
	return CALL(cuGraphicsGLRegisterImage, res, image, target, flags);
}

FAKE_EXPORT CUresult
cuMemAlloc_v2(CUdeviceptr *dptr, size_t size)
{
	return CALL(cuMemAlloc, dptr, size);
}

FAKE_EXPORT CUresult
cuMemFree_v2(CUdeviceptr dptr)
{
	return CALL(cuMemFree, dptr);
}

FAKE_EXPORT CUresult
cuMemAllocHost_v2(void **pp, size_t size)
{
	return CALL(cuMemAllocHost, pp, size);
}

FAKE_EXPORT CUresult
cuMemFreeHost(void *p)
{
	return CALL(cuMemFreeHost, p);
}

FAKE_EXPORT CUresult
cuMemcpy2D_v2(const CUDA_MEMCPY2D *m)
{
	return CALL(cuMemcpy2D, m);
}

FAKE_EXPORT CUresult
cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *m, CUstream stream)
{
	return CALL(cuMemcpy2DAsync, m, stream);
}

FAKE_EXPORT CUresult
cuStreamCreate(CUstream *stream, unsigned int flags)
{
	return CALL(cuStreamCreate, stream, flags);
}

/* libgstcuda 1.22 resolves the unversioned name (the pre-_v2 ABI, the
 * same arguments). */
#undef cuStreamDestroy
CUresult cuStreamDestroy(CUstream stream);

FAKE_EXPORT CUresult
cuStreamDestroy(CUstream stream)
{
	return ((__typeof__(cuStreamDestroy_v2) *)proc("cuStreamDestroy"))(
		stream);
}

FAKE_EXPORT CUresult
cuStreamSynchronize(CUstream stream)
{
	return CALL(cuStreamSynchronize, stream);
}

FAKE_EXPORT CUresult
cuModuleLoadData(CUmodule *module, const void *image)
{
	return CALL(cuModuleLoadData, module, image);
}

FAKE_EXPORT CUresult
cuModuleUnload(CUmodule module)
{
	return CALL(cuModuleUnload, module);
}

FAKE_EXPORT CUresult
cuModuleGetFunction(CUfunction *f, CUmodule module, const char *name)
{
	return CALL(cuModuleGetFunction, f, module, name);
}

FAKE_EXPORT CUresult
cuTexObjectCreate(CUtexObject *tex, const CUDA_RESOURCE_DESC *res,
		  const CUDA_TEXTURE_DESC *desc,
		  const CUDA_RESOURCE_VIEW_DESC *view)
{
	return CALL(cuTexObjectCreate, tex, res, desc, view);
}

FAKE_EXPORT CUresult
cuTexObjectDestroy(CUtexObject tex)
{
	return CALL(cuTexObjectDestroy, tex);
}

FAKE_EXPORT CUresult
cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
	       unsigned int gz, unsigned int bx, unsigned int by,
	       unsigned int bz, unsigned int shmem, CUstream stream,
	       void **params, void **extra)
{
	return CALL(cuLaunchKernel, f, gx, gy, gz, bx, by, bz, shmem, stream,
		    params, extra);
}

/* The entry points the fake lacked --------------------------------------- */

/* Whether the driver is initialised and @dev a device (the first error
 * of the real driver's checks otherwise). */
static CUresult
device_check(CUdevice dev)
{
	CUdevice d;

	return CALL(cuDeviceGet, &d, dev);
}

/* The current context, checked: CUDA_ERROR_INVALID_CONTEXT without one. */
static CUresult
current_check(void)
{
	CUcontext ctx = NULL;
	CUresult res = CALL(cuCtxGetCurrent, &ctx);

	if (res == CUDA_SUCCESS && !ctx)
		res = CUDA_ERROR_INVALID_CONTEXT;
	return res;
}

/* The fake has the primary context only: every object it makes belongs
 * to that one context, so a second cannot be told from it. A program
 * that needs its own context gets the real driver's refusal of one it
 * cannot make. */
FAKE_EXPORT CUresult
cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	CUresult res = device_check(dev);

	(void)flags;
	if (res != CUDA_SUCCESS)
		return res;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = NULL;
	return CUDA_ERROR_NOT_SUPPORTED;
}

/* No context comes from cuCtxCreate_v2, and the primary context is not
 * destroyed this way. */
FAKE_EXPORT CUresult
cuCtxDestroy_v2(CUcontext ctx)
{
	CUresult res = device_check(0);

	(void)ctx;
	return res != CUDA_SUCCESS ? res : CUDA_ERROR_INVALID_CONTEXT;
}

/* One device: it is not its own peer. */
FAKE_EXPORT CUresult
cuDeviceCanAccessPeer(int *can_access, CUdevice dev, CUdevice peer)
{
	CUresult res = device_check(dev);

	if (res == CUDA_SUCCESS)
		res = device_check(peer);
	if (res != CUDA_SUCCESS)
		return res;
	if (!can_access)
		return CUDA_ERROR_INVALID_VALUE;
	*can_access = 0;
	return CUDA_SUCCESS;
}

/* A current context, and @peer a context (the CUDA 13 cuCtxGetDevice,
 * which takes one, checks it). */
static CUresult
peer_check(CUcontext peer)
{
	CUresult (*get_device)(CUdevice *, CUcontext) = NULL;
	CUdevice dev;
	CUresult res = current_check();

	if (res == CUDA_SUCCESS &&
	    cuGetProcAddress_v2("cuCtxGetDevice", (void **)&get_device, 13000,
				0, NULL) == CUDA_SUCCESS)
		res = get_device(&dev, peer);
	return res;
}

FAKE_EXPORT CUresult
cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
	CUresult res = peer_check(peer);

	if (res != CUDA_SUCCESS)
		return res;
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	return FAKE_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
}

FAKE_EXPORT CUresult
cuCtxDisablePeerAccess(CUcontext peer)
{
	CUresult res = peer_check(peer);

	if (res != CUDA_SUCCESS)
		return res;
	return FAKE_CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}

/* Rows of @width bytes at a pitch aligned to FAKE_PITCH_ALIGN; the
 * element size (4, 8 or 16 bytes) only bounds the alignment on the real
 * driver. */
FAKE_EXPORT CUresult
cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width,
		   size_t height, unsigned int element_size)
{
	size_t p;
	CUresult res;

	if (!dptr || !pitch || !width || !height ||
	    (element_size != 4 && element_size != 8 && element_size != 16))
		return CUDA_ERROR_INVALID_VALUE;
	if (width > SIZE_MAX - FAKE_PITCH_ALIGN)
		return CUDA_ERROR_OUT_OF_MEMORY;
	p = (width + FAKE_PITCH_ALIGN - 1) / FAKE_PITCH_ALIGN *
	    FAKE_PITCH_ALIGN;
	if (height > SIZE_MAX / p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	res = cuMemAlloc_v2(dptr, p * height);
	if (res == CUDA_SUCCESS)
		*pitch = p;
	return res;
}

/* GL buffers, as GL textures (cuGraphicsGLRegisterImage): refused. */
FAKE_EXPORT CUresult
cuGraphicsGLRegisterBuffer(CUgraphicsResource *res, unsigned int buffer,
			   unsigned int flags)
{
	CUresult r = current_check();

	(void)buffer;
	(void)flags;
	if (r != CUDA_SUCCESS)
		return r;
	if (!res)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_ERROR_NOT_SUPPORTED;
}

/* No resource is ever registered: every handle is invalid. */
FAKE_EXPORT CUresult
cuGraphicsResourceSetMapFlags_v2(CUgraphicsResource res, unsigned int flags)
{
	CUresult r = current_check();

	(void)res;
	(void)flags;
	return r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_HANDLE;
}

FAKE_EXPORT CUresult
cuGraphicsResourceGetMappedPointer_v2(CUdeviceptr *dptr, size_t *size,
				      CUgraphicsResource res)
{
	CUresult r = current_check();

	(void)res;
	if (r != CUDA_SUCCESS)
		return r;
	if (!dptr || !size)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_ERROR_INVALID_HANDLE;
}

/* The CUDA devices of the current GL context: the fake's one device,
 * whose UUID the tests make GL's (GLCUDA_FAKE_CUDA_UUID). */
FAKE_EXPORT CUresult
cuGLGetDevices_v2(unsigned int *count, CUdevice *devices,
		  unsigned int max_devices, int list)
{
	CUresult res = device_check(0);

	if (res != CUDA_SUCCESS)
		return res;
	if (!count || (max_devices && !devices) || list < 1 || list > 3)
		return CUDA_ERROR_INVALID_VALUE;
	*count = 1;
	if (max_devices)
		devices[0] = 0;
	return CUDA_SUCCESS;
}
