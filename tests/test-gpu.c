/*
 * Shared set-up of the GPU suites.
 * SPDX-License-Identifier: MIT
 */
#include "test-gpu.h"
#include "image.h"
#include "vk-copy.h"

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
	struct glcuda_device_options opts = { .size = sizeof(opts),
					      .sync_mode = mode };
	static const int sizes[] = { 1, 2, 4, 8, 16 };
	int ret;

	memset(g, 0, sizeof(*g));
	g->hl = test_headless(gles);
	ret = glcuda_device_new(glcuda_headless_get_display(g->hl),
				glcuda_headless_get_context(g->hl), &opts,
				&g->dev);
	ck_assert_msg(ret == 0, "glcuda_device_new (%s, %s): %s: %s",
		      gles ? "GLES" : "GL", glcuda_sync_mode_get_name(mode),
		      glcuda_error_get_name(ret), glcuda_get_last_error());
	ck_cu(CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(g->dev)));
	ck_cu(CU(cuModuleLoadData)(&g->module, glcuda_test_fatbin));
	for (size_t i = 0; i < ARRAY_LENGTH(sizes); i++) {
		char name[32];
		snprintf(name, sizeof(name), "check_and_fill_%d", sizes[i]);
		ck_cu(CU(cuModuleGetFunction)(&g->check_and_fill[sizes[i]],
					      g->module, name));
	}
	ck_cu(CU(cuModuleGetFunction)(&g->spin_gate, g->module, "spin_gate"));
	ck_cu(CU(cuModuleGetFunction)(&g->ring_transform, g->module,
				      "ring_transform"));
	ck_cu(CU(cuModuleGetFunction)(&g->busy, g->module, "busy"));
	ck_cu(CU(cuModuleGetFunction)(&g->xor_rgba8, g->module, "xor_rgba8"));
}

void
gpu_teardown(struct gpu *g)
{
	CUcontext ctx;

	CU(cuCtxSynchronize)();
	CU(cuModuleUnload)(g->module);
	CU(cuCtxPopCurrent)(&ctx);
	glcuda_device_destroy(g->dev);
	glcuda_headless_destroy(g->hl);
}

void
gpu_check_and_fill(struct gpu *g, struct glcuda_image *img, CUdeviceptr expect,
		   CUdeviceptr fill, CUdeviceptr dcount, CUstream stream)
{
	CUsurfObject surf = glcuda_image_get_cuda_surface(img);
	int w = (int)glcuda_image_get_width(img),
	    h = (int)glcuda_image_get_height(img);
	CUdeviceptr first = dcount + 4;
	void *args[] = { &surf, &w, &h, &expect, &fill, &dcount, &first };
	unsigned int bpp =
		glcuda_format_get_bytes_per_pixel(glcuda_image_get_format(img));

	ck_cu(CU(cuLaunchKernel)(g->check_and_fill[bpp],
				 (unsigned)(w + 15) / 16,
				 (unsigned)(h + 15) / 16, 1, 16, 16, 1, 0,
				 stream, args, NULL));
}

size_t
gpu_free_memory(void)
{
	size_t free_b = 0, total = 0;

	glFinish();
	ck_cu(CU(cuCtxSynchronize)());
	ck_cu(CU(cuMemGetInfo)(&free_b, &total));
	return free_b;
}

bool
gpu_free_memory_exact(void)
{
	const char *env = getenv("GLCUDA_TEST_SANITIZER");

	return !env || !*env;
}

CUdeviceptr
gpu_upload(const void *data, size_t size)
{
	CUdeviceptr p;
	ck_cu(CU(cuMemAlloc)(&p, size));
	if (data)
		ck_cu(CU(cuMemcpyHtoD)(p, data, size));
	else
		ck_cu(CU(cuMemsetD8)(p, 0, size));
	return p;
}

void
gpu_patterns_init(struct gpu_patterns *p, const struct format_info *fmt,
		  uint32_t w, uint32_t h, uint32_t seed)
{
	p->size = (size_t)w * h * fmt->bytes_per_pixel;
	p->a = malloc(p->size);
	p->b = malloc(p->size);
	p->got = malloc(p->size);
	ck_assert(p->a && p->b && p->got);
	test_fill_pattern(fmt, w, h, seed, p->a);
	test_fill_pattern(fmt, w, h, seed + 1, p->b);
	p->da = gpu_upload(p->a, p->size);
	p->db = gpu_upload(p->b, p->size);
	p->dcount = gpu_upload(NULL, 16);
}

void
gpu_patterns_fini(struct gpu_patterns *p)
{
	CU(cuMemFree)(p->da);
	CU(cuMemFree)(p->db);
	CU(cuMemFree)(p->dcount);
	free(p->a);
	free(p->b);
	free(p->got);
}

void
gpu_roundtrip(struct gpu *g, struct glcuda_image *img, GLuint tex,
	      const struct format_info *fmt, uint32_t seed, CUstream stream,
	      const char *tag)
{
	const uint32_t w = glcuda_image_get_width(img),
		       h = glcuda_image_get_height(img);
	struct gpu_patterns p;
	uint32_t count[2];

	gpu_patterns_init(&p, fmt, w, h, seed);
	ck_assert_msg(test_gl_upload(tex, fmt, w, h, p.a), "%s: upload", tag);

	ck_ok(glcuda_handoff_to_cuda(g->dev, &img, 1, stream));
	gpu_check_and_fill(g, img, p.da, p.db, p.dcount, stream);
	ck_ok(glcuda_handoff_to_gl(g->dev, &img, 1, stream));

	if (test_gl_readback(tex, fmt, w, h, p.got)) {
		long bad = test_first_mismatch(p.b, p.got, fmt, w, h);
		ck_assert_msg(bad < 0, "%s: GL read pixel %ld wrong", tag, bad);
	} else if (img->kind == GLCUDA_IMAGE_KIND_SHARED) {
		/* GLES cannot read every format back: check the memory
		 * through Vulkan instead, after GL is done. */
		glFinish();
		ck_assert_int_eq(vk_image_read(g->dev->vk, &img->vk, fmt, p.got,
					       p.size),
				 0);
		ck_assert_msg(test_first_mismatch(p.b, p.got, fmt, w, h) < 0,
			      "%s: Vulkan read wrong", tag);
	} else {
		/* A wrapped image has no Vulkan view: hand it to CUDA once
		 * more and check there that GL's copy is what CUDA wrote. */
		ck_ok(glcuda_handoff_to_cuda(g->dev, &img, 1, stream));
		gpu_check_and_fill(g, img, p.db, 0, p.dcount + 8, stream);
		ck_ok(glcuda_handoff_to_gl(g->dev, &img, 1, stream));
	}
	ck_cu(CU(cuStreamSynchronize)(stream));
	ck_cu(CU(cuMemcpyDtoH)(count, p.dcount, 8));
	ck_assert_msg(count[0] == 0, "%s: CUDA saw %u wrong pixels, first %u",
		      tag, count[0], count[1]);
	ck_cu(CU(cuMemcpyDtoH)(count, p.dcount + 8, 8));
	ck_assert_msg(count[0] == 0,
		      "%s: CUDA saw %u wrong pixels of its own write, first %u",
		      tag, count[0], count[1]);
	gpu_patterns_fini(&p);
}
