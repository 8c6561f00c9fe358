/*
 * The pixel suites' set-up on the fake CUDA driver (see fake-cuda-env.h).
 * SPDX-License-Identifier: MIT
 */
#include "fake-cuda-env.h"
#include "fake-cuda-test.h"

#include <string.h>

static struct {
	unsigned int (*live_objects)(void);
	unsigned int (*primary_refs)(void);
	int (*sticky_error)(void);
} fake;

void
fake_env_push(const struct fake_env *e)
{
	ck_cu(CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(e->dev)));
}

void
fake_env_pop(void)
{
	CUcontext c;

	ck_cu(CU(cuCtxPopCurrent)(&c));
}

void
fake_env_setup(struct fake_env *e, bool gles)
{
	struct glcuda_device_options opts = { .size = sizeof(opts),
					      .sync_mode = GLCUDA_SYNC_CPU };

	memset(e, 0, sizeof(*e));
	e->gles = gles;
	e->hl = test_headless(gles);
	ck_assert_int_eq(fake_cuda_set_uuid_from_gl(), GL_NO_ERROR);
	ck_ok(glcuda_device_new(glcuda_headless_get_display(e->hl),
				glcuda_headless_get_context(e->hl), &opts,
				&e->dev));
	ck_assert_int_eq(glcuda_device_get_caps(e->dev)->sync_mode,
			 GLCUDA_SYNC_CPU);
	fake.live_objects = (unsigned int (*)(void))fake_cuda_control(
		"fake_cuda_live_objects");
	fake.primary_refs = (unsigned int (*)(void))fake_cuda_control(
		"fake_cuda_primary_refs");
	fake.sticky_error =
		(int (*)(void))fake_cuda_control("fake_cuda_sticky_error");
	ck_assert_msg(fake.live_objects && fake.primary_refs &&
			      fake.sticky_error,
		      "the fake CUDA driver %s is not loaded", fake_cuda_path);
	e->live0 = fake.live_objects();
	fake_env_push(e);
	/* The fake loads any image: its functions are the CPU versions. */
	ck_cu(CU(cuModuleLoadData)(&e->module, "tests/test-kernels.cu"));
	ck_cu(CU(cuModuleGetFunction)(&e->invert, e->module, "ring_transform"));
	ck_cu(CU(cuStreamCreate)(&e->stream, CU_STREAM_NON_BLOCKING));
	fake_env_pop();
}

void
fake_env_teardown(struct fake_env *e)
{
	fake_env_push(e);
	ck_cu(CU(cuStreamDestroy)(e->stream));
	ck_cu(CU(cuModuleUnload)(e->module));
	fake_env_pop();
	ck_assert_uint_eq(fake.live_objects(), e->live0);
	ck_assert_int_eq(fake.sticky_error(), 0);
	glcuda_device_destroy(e->dev);
	ck_assert_uint_eq(fake.primary_refs(), 0);
	glcuda_headless_destroy(e->hl);
}

void
fake_env_launch_invert(const struct fake_env *e, CUsurfObject in,
		       CUsurfObject out, uint32_t w, uint32_t h,
		       CUstream stream)
{
	int iw = (int)w, ih = (int)h;
	void *args[] = { &in, &out, &iw, &ih };

	fake_env_push(e);
	ck_cu(CU(cuLaunchKernel)(e->invert, (w + 15) / 16, (h + 15) / 16, 1, 16,
				 16, 1, 0, stream, args, NULL));
	fake_env_pop();
}
