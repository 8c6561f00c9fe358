/*
 * What the suites on the fake CUDA driver share: finding and loading it,
 * binding it to the GL context's device, reaching its test controls.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_FAKE_CUDA_TEST_H
#define GLCUDA_FAKE_CUDA_TEST_H

#include <limits.h>
#include <epoxy/gl.h>

/* The absolute path of libfakecuda.so, once fake_cuda_test_setup() found
 * it. */
extern char fake_cuda_path[PATH_MAX];

/* In main(), before the suites run: find the fake (GLCUDA_FAKE_CUDA_LIB,
 * or tests/fake-cuda/.libs next to the program; exit 99 if it is not
 * there), make it glcuda's CUDA driver (GLCUDA_LIBCUDA, inherited by
 * Check's children), and exit 77 with one line where no EGL display or no
 * glcuda device can be made at all (probed in child processes). */
void fake_cuda_test_setup(void);

/* Give the fake device the current GL context's device UUID
 * (GLCUDA_FAKE_CUDA_UUID), so that glcuda binds it to the context.
 * Returns the GL error of the query, if any. */
GLenum fake_cuda_set_uuid_from_gl(void);

/* A test control of the loaded fake (fake-cuda.h), or NULL if glcuda has
 * not loaded it yet. */
void *fake_cuda_control(const char *name);

#endif
