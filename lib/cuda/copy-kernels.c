/*
 * The library's copy kernels (copy-kernels.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "error.h"
#include "loader/cuda-loader.h"
#include "cuda/copy-kernels.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_NVCC
/* copy_kernels_fatbin[]: copy-kernels.cu, built by nvcc (lib/local.mk). */
#include "lib/cuda/copy-kernels-fatbin.h"
#endif

/* By log2 of the bytes per pixel: copy_kernels_1 .. copy_kernels_16. */
#define COPY_KERNEL_COUNT 5

/* The process's kernels. A CUlibrary belongs to no context, so one load
 * serves every device, and it is never unloaded: a module loaded and
 * unloaded per device moved the CUDA free memory of the context at every
 * device (the leak checks of tests/test-faults saw it on the H200), and
 * libcuda itself stays loaded for the life of the process
 * (loader/cuda-loader.c). Written under kernels_lock; `loaded` is set
 * last and read without the lock by every copy. */
#ifdef HAVE_NVCC
static pthread_mutex_t kernels_lock = PTHREAD_MUTEX_INITIALIZER;
static CUlibrary library;
#endif
static CUkernel kernels[COPY_KERNEL_COUNT];
static bool loaded;

static bool
unavailable(const struct copy_kernels *k)
{
	return __atomic_load_n(&k->unavailable, __ATOMIC_RELAXED);
}

/* The device's copies go through the copy engine from now on. */
static void
set_unavailable(struct copy_kernels *k)
{
	__atomic_store_n(&k->unavailable, true, __ATOMIC_RELAXED);
}

#ifdef HAVE_NVCC
/* What the process lacks yet, with kernels_lock held: the library, then
 * each kernel not had. A failure keeps what was had, and the next device
 * asks for the rest. Returns the result of the last call, named in *call
 * (name: the kernel it asked for). */
static CUresult
load_locked(const char **call, char *name, size_t size)
{
	CUresult res;

	name[0] = '\0';
	if (!library) {
		/* No JIT or library options: the driver's defaults, lazy
		 * loading into each context included. */
		*call = "cuLibraryLoadData";
		res = CU_CALL(cuLibraryLoadData, &library, copy_kernels_fatbin,
			      NULL, NULL, 0, NULL, NULL, 0);
		if (res != CUDA_SUCCESS) {
			library = NULL;
			return res;
		}
	}
	for (unsigned int i = 0; i < COPY_KERNEL_COUNT; i++) {
		if (kernels[i])
			continue;
		snprintf(name, size, "copy_kernels_%u", 1u << i);
		*call = "cuLibraryGetKernel";
		res = CU_CALL(cuLibraryGetKernel, &kernels[i], library, name);
		if (res != CUDA_SUCCESS) {
			kernels[i] = NULL;
			return res;
		}
	}
	return CUDA_SUCCESS;
}
#endif

int
copy_kernels_load(struct error_sink *errors, struct copy_kernels *k)
{
#ifdef HAVE_NVCC
	const char *call = "";
	char name[32], buf[160];
	CUresult res = CUDA_SUCCESS;
	int version = cuda_loader_table.driver_version;

	if (unavailable(k))
		return 1;
	if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE))
		return 0;
	if (!cuda_loader_table.cuLibraryLoadData ||
	    !cuda_loader_table.cuLibraryGetKernel) {
		set_unavailable(k);
		err_info(errors, "the copy kernels need CUDA 12.0's "
			 "cuLibraryLoadData, which this driver (CUDA %d.%d) "
			 "lacks: copies go through the copy engine\n",
			 version / 1000, version % 1000 / 10);
		return 1;
	}
	pthread_mutex_lock(&kernels_lock);
	if (!loaded) {
		res = load_locked(&call, name, sizeof(name));
		if (res == CUDA_SUCCESS)
			__atomic_store_n(&loaded, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&kernels_lock);
	if (res == CUDA_SUCCESS)
		return 0;
	/* Once per device: the next device tries again, so that a failure
	 * that passes (memory that was short) does not cost the process
	 * its kernels. */
	set_unavailable(k);
	err_info(errors, "the copy kernels were not loaded (%s%s%s: %s): "
		 "copies go through the copy engine\n", call,
		 name[0] ? " " : "", name,
		 cuda_result_string(res, buf, sizeof(buf)));
	return 1;
#else
	(void)errors;
	set_unavailable(k);
	return 1;
#endif
}

/* The results of a launch whose kernel the driver could not load into
 * the context (lazily, at the first launch there): no code for this GPU,
 * or PTX this driver cannot compile. The copy engine copies instead. */
static bool
kernel_not_loadable(CUresult res)
{
	switch (res) {
	case CUDA_ERROR_INVALID_IMAGE:
	case CUDA_ERROR_NO_BINARY_FOR_GPU:
	case CUDA_ERROR_INVALID_PTX:
	case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
	case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
		return true;
	default:
		return false;
	}
}

int
copy_kernels_launch(struct error_sink *errors, struct copy_kernels *k,
		    const struct copy_kernel_args *a, CUstream stream)
{
	unsigned long long surf = a->surface;
	char *lin = (char *)(uintptr_t)a->linear;
	size_t row_pitch = a->row_pitch, layer_pitch = a->layer_pitch;
	int w = (int)a->width, h = (int)a->height, f = (int)a->first;
	int lay = a->layered, to = a->to_linear, flip = a->flip;
	int depth_mode = a->depth_mode;
	double znear = a->znear, zfar = a->zfar;
	void *args[] = { &surf,	      &lin,  &row_pitch, &layer_pitch,
			 &w,	      &h,    &f,	 &lay,
			 &to,	      &flip, &depth_mode, &znear,
			 &zfar };
	unsigned int i = 0;
	char buf[160];
	CUresult res;

	while (i < COPY_KERNEL_COUNT && (1u << i) != a->bpp)
		i++;
	if (i == COPY_KERNEL_COUNT || unavailable(k) ||
	    !__atomic_load_n(&loaded, __ATOMIC_ACQUIRE))
		return -ENOTSUP;
	/* A CUkernel launches in the current context (CUDA 12.0). */
	res = CU_CALL(cuLaunchKernel, (CUfunction)kernels[i],
		      (a->width + 31) / 32, (a->height + 7) / 8, a->count, 32,
		      8, 1, 0, stream, args, NULL);
	if (kernel_not_loadable(res)) {
		set_unavailable(k);
		err_info(errors, "the copy kernels cannot run on this device "
			 "(cuLaunchKernel: %s): copies go through the copy "
			 "engine\n", cuda_result_string(res, buf, sizeof(buf)));
		return -ENOTSUP;
	}
	if (res != CUDA_SUCCESS)
		return cuda_call_fail(errors, res, "cuLaunchKernel",
				      "(a copy kernel)");
	return 0;
}
