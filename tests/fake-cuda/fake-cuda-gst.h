/*
 * The fake CUDA driver's entry points for GStreamer's CUDA library
 * (fake-cuda-gst.c) that glcuda's declarations of the driver API
 * (loader/cuda-driver-api.h) lack, with the ABI of cuda.h and cudaGL.h, and
 * the hook through which the fake logs the work it enqueues.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_FAKE_CUDA_GST_H
#define GLCUDA_FAKE_CUDA_GST_H

#include <stddef.h>

#include "loader/cuda-driver-api.h"

/* cuda.h's values, which cuda-driver-api.h does not name. */
#define FAKE_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED ((CUresult)217)
#define FAKE_CUDA_ERROR_PEER_ACCESS_NOT_ENABLED ((CUresult)705)

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxDestroy_v2(CUcontext ctx);
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags);
CUresult cuCtxDisablePeerAccess(CUcontext peer);
CUresult cuDeviceCanAccessPeer(int *can_access, CUdevice dev, CUdevice peer);
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width,
			    size_t height, unsigned int element_size);
CUresult cuGraphicsGLRegisterBuffer(CUgraphicsResource *res,
				    unsigned int buffer, unsigned int flags);
CUresult cuGraphicsResourceSetMapFlags_v2(CUgraphicsResource res,
					  unsigned int flags);
CUresult cuGraphicsResourceGetMappedPointer_v2(CUdeviceptr *dptr,
					       size_t *size,
					       CUgraphicsResource res);
/* CUGLDeviceList: 1 all, 2 current frame, 3 next frame. */
CUresult cuGLGetDevices_v2(unsigned int *count, CUdevice *devices,
			   unsigned int max_devices, int list);
/* fake-cuda.c, as it enqueues work on @stream: @call the entry point,
 * @kernel the function of a launch (else NULL). */
__attribute__((visibility("hidden"))) void
fake_cuda_work_logged(const char *call, const char *kernel, CUstream stream);

#endif
