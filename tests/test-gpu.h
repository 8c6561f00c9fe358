/*
 * Shared set-up of the GPU suites: a headless context, a glcuda device in a
 * given sync mode, and the test kernels.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TEST_GPU_H
#define GLCUDA_TEST_GPU_H

#include "test-common.h"
#include <glcuda/glcuda-cuda.h>

extern const unsigned char glcuda_test_fatbin[];
extern const unsigned long glcuda_test_fatbin_size;

struct gpu {
	struct glcuda_headless *hl;
	struct glcuda_device *dev;
	CUmodule module;
	CUfunction check_and_fill[17]; /* by bytes per pixel */
	CUfunction spin_gate, ring_transform, busy, xor_rgba8;
};

/* Everything set up, the CUDA context pushed on this thread. */
void gpu_setup(struct gpu *g, bool gles, enum glcuda_sync_mode mode);
void gpu_teardown(struct gpu *g);


/* Launch check_and_fill for the image: compare with expect (device
 * pointer or 0) and write fill (or 0); counters at dcount[0..1]. */
void gpu_check_and_fill(struct gpu *g, struct glcuda_image *img,
			CUdeviceptr expect, CUdeviceptr fill,
			CUdeviceptr dcount, CUstream stream);

/* GL uploads a pattern into tex (the image's texture, or the one a wrapped
 * EGLImage was made from) -> CUDA checks it exactly and writes another ->
 * GL reads that back exactly (where GL cannot read the format: Vulkan for
 * shared images, one more CUDA check for wrapped ones). */
void gpu_roundtrip(struct gpu *g, struct glcuda_image *img, GLuint tex,
		   const struct format_info *fmt, uint32_t seed,
		   CUstream stream, const char *tag);

/* CUDA's free device memory once GL and the current CUDA context are idle
 * (glFinish: GL releases what it deleted only when its work is done). The
 * leak checks compare it exactly, before and after, with the baseline taken
 * after the measured cycle has already run (the drivers grow their pools
 * on first use, and keep them). */
size_t gpu_free_memory(void);

/* Whether free memory tells leaks apart: not under NVIDIA's
 * compute-sanitizer (scripts/gpu-sanitizer.sh sets GLCUDA_TEST_SANITIZER),
 * whose own device allocations come and go while the program runs. There,
 * memcheck's leak check at each context's teardown is the witness, and the
 * suites print the numbers without comparing them. */
bool gpu_free_memory_exact(void);

/* Two patterns of w x h pixels of fmt (test_fill_pattern's seed and
 * seed + 1) on the host (a, b) and the device (da, db), a host buffer of
 * their size to read back into (got), and zeroed device counters for two
 * gpu_check_and_fill() runs (dcount, dcount + 8). */
struct gpu_patterns {
	size_t size;
	uint8_t *a, *b, *got;
	CUdeviceptr da, db, dcount;
};
void gpu_patterns_init(struct gpu_patterns *p, const struct format_info *fmt,
		       uint32_t w, uint32_t h, uint32_t seed);
void gpu_patterns_fini(struct gpu_patterns *p);

/* Device copy of a host buffer. */
CUdeviceptr gpu_upload(const void *data, size_t size);

/* Exit 77 with one line unless libcuda.so.1 is present. */
void gpu_require_cuda(void);

#endif
