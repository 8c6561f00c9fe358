/*
 * Shared set-up of the GPU suites.
 * SPDX-License-Identifier: MIT
 */
#include "test-gpu.h"
#include "image.h"

#include <stdio.h>
#include <stdlib.h>

void
gpu_require_cuda(void)
{
	if (!test_have_cuda()) {
		printf("SKIP: no CUDA driver (libcuda.so.1 cannot be loaded): "
		       "run on a machine with an NVIDIA GPU\n");
		exit(77);
	}
}

void
gpu_setup(struct gpu *g, bool gles, enum glcuda_sync_mode mode)
{
	struct glcuda_device_options opts = { .sync_mode = mode };
	static const int sizes[] = { 1, 2, 4, 8, 16 };
	int ret;

	memset(g, 0, sizeof(*g));
	g->hl = test_headless(gles);
	ret = glcuda_device_new(glcuda_headless_display(g->hl), glcuda_headless_context(g->hl),
				&opts, &g->dev);
	ck_assert_msg(ret == 0, "glcuda_device_new (%s, %s): %s: %s",
		      gles ? "GLES" : "GL", glcuda_sync_mode_name(mode),
		      glcuda_error_name(ret), glcuda_last_error());
	ck_cu(glcuda_cuda.cuCtxPushCurrent(glcuda_device_cuda_context(g->dev)));
	ck_cu(glcuda_cuda.cuModuleLoadData(&g->module, glcuda_test_fatbin));
	for (size_t i = 0; i < ARRAY_LENGTH(sizes); i++) {
		char name[32];
		snprintf(name, sizeof(name), "check_and_fill_%d", sizes[i]);
		ck_cu(glcuda_cuda.cuModuleGetFunction(&g->check_and_fill[sizes[i]], g->module, name));
	}
	ck_cu(glcuda_cuda.cuModuleGetFunction(&g->spin_gate, g->module, "spin_gate"));
	ck_cu(glcuda_cuda.cuModuleGetFunction(&g->ring_transform, g->module, "ring_transform"));
	ck_cu(glcuda_cuda.cuModuleGetFunction(&g->busy, g->module, "busy"));
}

void
gpu_teardown(struct gpu *g)
{
	CUcontext ctx;

	glcuda_cuda.cuCtxSynchronize();
	glcuda_cuda.cuModuleUnload(g->module);
	glcuda_cuda.cuCtxPopCurrent(&ctx);
	glcuda_device_destroy(g->dev);
	glcuda_headless_destroy(g->hl);
}

void
gpu_check_and_fill(struct gpu *g, struct glcuda_image *img, CUdeviceptr expect,
		   CUdeviceptr fill, CUdeviceptr dcount, CUstream stream)
{
	CUsurfObject surf = glcuda_image_cuda_surface(img);
	int w = (int)glcuda_image_width(img), h = (int)glcuda_image_height(img);
	CUdeviceptr first = dcount + 4;
	void *args[] = { &surf, &w, &h, &expect, &fill, &dcount, &first };
	unsigned int bpp = glcuda_format_bytes_per_pixel(glcuda_image_format(img));

	ck_cu(glcuda_cuda.cuLaunchKernel(g->check_and_fill[bpp], (unsigned)(w + 15) / 16,
					 (unsigned)(h + 15) / 16, 1, 16, 16, 1, 0, stream, args,
					 NULL));
}

CUdeviceptr
gpu_upload(const void *data, size_t size)
{
	CUdeviceptr p;
	ck_cu(glcuda_cuda.cuMemAlloc(&p, size));
	if (data)
		ck_cu(glcuda_cuda.cuMemcpyHtoD(p, data, size));
	else
		ck_cu(glcuda_cuda.cuMemsetD8(p, 0, size));
	return p;
}
