/*
 * handoff: one image, GL -> CUDA kernel -> GL, with timeline semaphores.
 * GL clears the image, a CUDA kernel inverts it in place through its surface
 * object, and GL reads a pixel back through a framebuffer. No call here
 * waits on the CPU for the GPU except the final glReadPixels.
 *
 * The kernel is hand-written PTX (the driver compiles it for the GPU at
 * load time), so the program needs no nvcc. Its CUDA calls go through
 * example-cuda.h, which opens libcuda at run time like glcuda does:
 * EXAMPLE_CU(name) is the driver API function `name`. A program of your own may
 * link -lcuda and call cuModuleLoadData() etc. directly.
 *
 * Build:  cc handoff.c $(pkg-config --cflags --libs glcuda epoxy) \
 *             -I/usr/local/cuda/include -ldl
 *
 * Run: examples/handoff   (exits 1 with the reason where CUDA is missing)
 * SPDX-License-Identifier: MIT
 */
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <stdio.h>

#include <glcuda/glcuda-cuda.h>
#include "example-cuda.h"

/* invert(surface, width, height): RGB = 255 - RGB for an RGBA8 image. */
static const char invert_ptx[] =
	".version 6.0\n.target sm_52\n.address_size 64\n"
	".visible .entry invert(.param .u64 surf, .param .u32 w,\n"
	"                       .param .u32 h)\n{\n"
	"  .reg .pred %p<3>; .reg .b16 %rs<5>; .reg .b32 %r<8>;\n"
	"  .reg .b64 %rd<2>;\n"
	"  ld.param.u64 %rd1, [surf];\n"
	"  ld.param.u32 %r1, [w]; ld.param.u32 %r2, [h];\n"
	"  mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x;\n"
	"  mad.lo.s32 %r6, %r3, %r4, %r5;\n" /* x */
	"  mov.u32 %r3, %ctaid.y; mov.u32 %r4, %ntid.y; mov.u32 %r5, %tid.y;\n"
	"  mad.lo.s32 %r7, %r3, %r4, %r5;\n" /* y */
	"  setp.ge.u32 %p1, %r6, %r1; setp.ge.u32 %p2, %r7, %r2;\n"
	"  or.pred %p1, %p1, %p2; @%p1 bra DONE;\n"
	"  shl.b32 %r6, %r6, 2;\n" /* x in bytes */
	"  suld.b.2d.v4.b8.trap {%rs1, %rs2, %rs3, %rs4}, [%rd1, {%r6, %r7}];\n"
	"  xor.b16 %rs1, %rs1, 255; xor.b16 %rs2, %rs2, 255;\n"
	"  xor.b16 %rs3, %rs3, 255;\n"
	"  sust.b.2d.v4.b8.trap [%rd1, {%r6, %r7}], {%rs1, %rs2, %rs3, %rs4};\n"
	"DONE:\n  ret;\n}\n";

#define W 256
#define H 256

int
main(void)
{
	struct glcuda_device_options opts = { .size = sizeof(opts),
					      .sync_mode =
						      GLCUDA_SYNC_TIMELINE };
	struct glcuda_image_desc desc = { .size = sizeof(desc),
					  .width = W,
					  .height = H,
					  .format = GLCUDA_FORMAT_RGBA8 };
	struct glcuda_headless *hl = NULL;
	struct glcuda_device *dev = NULL;
	struct glcuda_image *img = NULL;
	CUmodule module = NULL;
	CUfunction invert;
	CUstream stream = NULL;
	CUsurfObject surf;
	unsigned int w = W, h = H;
	void *args[] = { &surf, &w, &h };
	GLuint fbo = 0;
	unsigned char px[4] = { 0 };
	int ret, status = 1;

	/* A compositor passes its own display and context; AUTO (the default)
	 * picks the best sync mode, TIMELINE insists on timeline semaphores. */
	if ((ret = glcuda_headless_new(-1, GLCUDA_HEADLESS_FLAG_NONE, &hl)) <
		    0 ||
	    (ret = glcuda_device_new(glcuda_headless_get_display(hl),
				     glcuda_headless_get_context(hl), &opts,
				     &dev)) < 0 ||
	    (ret = glcuda_image_new(dev, &desc, &img)) < 0) {
		fprintf(stderr, "handoff: %s\n%s\n", glcuda_error_get_name(ret),
			glcuda_get_last_error());
		goto out;
	}
	surf = glcuda_image_get_cuda_surface(img);
	/* glcuda has loaded the driver: open it for this program's calls. */
	if (example_cuda_open() < 0)
		goto out;

	/* CUDA calls need glcuda's CUDA context current on this thread. */
	EXAMPLE_CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(dev));
	if (EXAMPLE_CU(cuModuleLoadData)(&module, invert_ptx) != CUDA_SUCCESS ||
	    EXAMPLE_CU(cuModuleGetFunction)(&invert, module, "invert") !=
		    CUDA_SUCCESS ||
	    EXAMPLE_CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING) !=
		    CUDA_SUCCESS) {
		fprintf(stderr, "handoff: cannot load the kernel or create a "
				"stream\n");
		goto out_cuda;
	}

	/* 1. GL writes: clear the image's texture to (64, 128, 191, 255). */
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, glcuda_image_get_gl_texture(img),
			       0);
	glClearColor(64 / 255.f, 128 / 255.f, 191 / 255.f, 1.f);
	glClear(GL_COLOR_BUFFER_BIT);

	/* 2. GL -> CUDA: GL signals and flushes; the stream waits on the GPU.
	 */
	if ((ret = glcuda_handoff_to_cuda(dev, &img, 1, stream)) < 0)
		goto fail;
	/* 3. CUDA writes: the kernel, enqueued after that wait. */
	if (EXAMPLE_CU(cuLaunchKernel)(invert, W / 16, H / 16, 1, 16, 16, 1, 0,
				       stream, args, NULL) != CUDA_SUCCESS) {
		fprintf(stderr, "handoff: cuLaunchKernel failed\n");
		goto out_cuda;
	}
	/* 4. CUDA -> GL: the stream signals; GL's next commands wait on the
	 * GPU. */
	if ((ret = glcuda_handoff_to_gl(dev, &img, 1, stream)) < 0)
		goto fail;

	/* 5. GL reads through the framebuffer (not glGetTexImage: see
	 *    doc/nvidia-notes.md). Expect (191, 127, 64, 255). */
	glReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
	printf("pixel (0,0) after CUDA: %u %u %u %u, sync mode %s\n", px[0],
	       px[1], px[2], px[3],
	       glcuda_sync_mode_get_name(
		       glcuda_device_get_caps(dev)->sync_mode));
	status = px[0] == 191 && px[1] == 127 && px[2] == 64 && px[3] == 255
			 ? 0
			 : 1;
	goto out_cuda;
fail:
	fprintf(stderr, "handoff: %s\n%s\n", glcuda_error_get_name(ret),
		glcuda_device_get_last_error(dev));
out_cuda:
	/* Teardown, context current: GL objects, the image (it waits for the
	 * CUDA work on it), CUDA objects, then the device and the context. */
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glDeleteFramebuffers(1, &fbo);
	glcuda_image_destroy(img);
	img = NULL;
	if (stream)
		EXAMPLE_CU(cuStreamDestroy)(stream);
	if (module)
		EXAMPLE_CU(cuModuleUnload)(module);
	EXAMPLE_CU(cuCtxPopCurrent)(NULL);
out:
	glcuda_image_destroy(img);
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
	return status;
}
