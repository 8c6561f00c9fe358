/*
 * The library's copy kernels (copy-kernels.h).
 * SPDX-License-Identifier: MIT
 */
#include "base.h"
#include "loader/cuda-loader.h"
#include "cuda/copy-kernels.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_NVCC
/* copy_kernels_fatbin[]: copy-kernels.cu, built by nvcc (lib/local.mk). */
#include "lib/cuda/copy-kernels-fatbin.h"
#endif

int
copy_kernels_load(struct error_sink *errors, struct copy_kernels *k)
{
#ifdef HAVE_NVCC
	CUresult res;

	if (k->tried)
		return k->module ? 0 : 1;
	k->tried = true;
	res = CU_CALL(cuModuleLoadData, &k->module, copy_kernels_fatbin);
	if (res != CUDA_SUCCESS) {
		char buf[160];

		k->module = NULL;
		err_info(errors, "the copy kernels were not loaded (cuModuleLoadData: %s): "
			 "copies go through the copy engine\n",
			 cuda_result_string(res, buf, sizeof(buf)));
		return 1;
	}
	for (unsigned int i = 0; i < 5; i++) {
		char name[32];

		snprintf(name, sizeof(name), "copy_kernels_%u", 1u << i);
		res = CU_CALL(cuModuleGetFunction, &k->fn[i], k->module, name);
		if (res != CUDA_SUCCESS) {
			char buf[160];

			err_info(errors, "the copy kernels were not loaded "
				 "(cuModuleGetFunction %s: %s): copies go through the "
				 "copy engine\n", name,
				 cuda_result_string(res, buf, sizeof(buf)));
			copy_kernels_unload(k);
			k->tried = true;
			return 1;
		}
	}
	return 0;
#else
	(void)errors;
	k->tried = true;
	return 1;
#endif
}

void
copy_kernels_unload(struct copy_kernels *k)
{
	if (k->module)
		CU_CALL(cuModuleUnload, k->module);
	memset(k, 0, sizeof(*k));
}

int
copy_kernels_launch(struct error_sink *errors, const struct copy_kernels *k,
		    CUsurfObject surface, bool layered, unsigned int bpp, unsigned int width,
		    unsigned int height, unsigned int first, unsigned int count,
		    CUdeviceptr linear, size_t row_pitch, size_t layer_pitch, bool to_linear,
		    CUstream stream)
{
	unsigned long long surf = surface;
	char *lin = (char *)(uintptr_t)linear;
	int w = (int)width, h = (int)height, f = (int)first, lay = layered, to = to_linear;
	void *args[] = { &surf, &lin, &row_pitch, &layer_pitch, &w, &h, &f, &lay, &to };
	unsigned int i = 0;
	CUresult res;

	while (i < 5 && (1u << i) != bpp)
		i++;
	if (i == 5 || !k->module)
		return -ENOTSUP;
	res = CU_CALL(cuLaunchKernel, k->fn[i], (width + 31) / 32, (height + 7) / 8, count,
		      32, 8, 1, 0, stream, args, NULL);
	if (res != CUDA_SUCCESS)
		return cuda_call_fail(errors, res, "cuLaunchKernel", "(a copy kernel)");
	return 0;
}
