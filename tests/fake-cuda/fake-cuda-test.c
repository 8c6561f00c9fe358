/*
 * What the suites on the fake CUDA driver share.
 * SPDX-License-Identifier: MIT
 */
#include "../test-common.h"
#include "fake-cuda-test.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_LIB "fake-cuda/.libs/libfakecuda.so"

char fake_cuda_path[PATH_MAX];

/* tests/fake-cuda/.libs/libfakecuda.so next to this program (tests run
 * from top_builddir; the program may be libtool's lt- copy in .libs). */
static bool
find_fake_lib(void)
{
	char exe[PATH_MAX], cand[PATH_MAX + 64];
	const char *env = getenv("GLCUDA_FAKE_CUDA_LIB");
	ssize_t n;

	if (env && realpath(env, fake_cuda_path))
		return true;
	if (realpath("tests/" FAKE_LIB, fake_cuda_path))
		return true;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(cand, sizeof(cand), "%s/%s", exe, FAKE_LIB);
	if (realpath(cand, fake_cuda_path))
		return true;
	snprintf(cand, sizeof(cand), "%s/../%s", exe, FAKE_LIB);
	return realpath(cand, fake_cuda_path) != NULL;
}

GLenum
fake_cuda_set_uuid_from_gl(void)
{
	uint8_t uuid[GL_UUID_SIZE_EXT] = { 0 };
	char hex[33];
	GLenum err;

	glGetError();
	glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, uuid);
	err = glGetError();
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", uuid[i]);
	setenv("GLCUDA_FAKE_CUDA_UUID", hex, 1);
	return err;
}

void *
fake_cuda_control(const char *name)
{
	void *h = dlopen(fake_cuda_path, RTLD_NOW | RTLD_NOLOAD);
	void *fn;

	if (!h)
		return NULL;
	fn = dlsym(h, name);
	/* glcuda's loader keeps its own reference; this one is not needed. */
	dlclose(h);
	return fn;
}

/* Skip (77) where glcuda cannot make a device at all (no Vulkan, GL without
 * GL_EXT_memory_object_fd): probed in a child, like test_require_egl. */
static int
probe_device(void)
{
	struct glcuda_headless *hl = NULL;
	struct glcuda_device *dev = NULL;
	int ret = glcuda_headless_new(-1, 0, &hl);

	if (ret == 0 && !epoxy_has_gl_extension("GL_EXT_memory_object")) {
		printf("SKIP: GL has no GL_EXT_memory_object\n");
		return 77;
	}
	if (ret == 0) {
		fake_cuda_set_uuid_from_gl();
		ret = glcuda_device_new(glcuda_headless_get_display(hl),
					glcuda_headless_get_context(hl), NULL,
					&dev);
	}
	if (ret < 0) {
		bool skip = ret == GLCUDA_ERROR_MISSING_GL_EXTENSION ||
			    ret == GLCUDA_ERROR_GL_TOO_OLD ||
			    ret == GLCUDA_ERROR_NO_VULKAN ||
			    ret == GLCUDA_ERROR_MISSING_VULKAN_EXTENSION ||
			    ret == GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE ||
			    ret == GLCUDA_ERROR_DRIVER_MISMATCH;
		printf("%s: glcuda_device_new with the fake CUDA driver: %s: "
		       "%s\n",
		       skip ? "SKIP" : "FAIL", glcuda_error_get_name(ret),
		       glcuda_get_last_error());
		return skip ? 77 : 1;
	}
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
	return 0;
}

void
fake_cuda_test_setup(void)
{
	if (!find_fake_lib()) {
		fprintf(stderr,
			"FAIL: the fake CUDA driver tests/%s was not found "
			"(build it with make check, or set "
			"GLCUDA_FAKE_CUDA_LIB)\n",
			FAKE_LIB);
		exit(99);
	}
	/* Before anything loads CUDA: Check's children inherit it. */
	setenv("GLCUDA_LIBCUDA", fake_cuda_path, 1);
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
	test_require_egl();
	test_require(probe_device);
}
