/*
 * Users' own CUDA kernels (user-kernel.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user-kernel.h"

#define BLOCK 16

/* The whole file, NUL-terminated (PTX is text and needs it), in *data and
 * *len. 0 or -errno; @msg says what failed. */
static int
read_file(const char *path, char **data, size_t *len, char *msg, size_t size)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	long n;
	int err;

	if (!fp) {
		err = errno;
		snprintf(msg, size, "cannot read the kernel file %s: %s", path,
			 strerror(err));
		return -err;
	}
	if (fseek(fp, 0, SEEK_END) < 0 || (n = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) < 0) {
		err = errno;
		snprintf(msg, size, "cannot read the kernel file %s: %s", path,
			 strerror(err));
		fclose(fp);
		return -err;
	}
	buf = calloc(1, (size_t)n + 1);
	if (!buf) {
		snprintf(msg, size,
			 "cannot read the kernel file %s: out of memory (%ld "
			 "bytes)",
			 path, n);
		fclose(fp);
		return -ENOMEM;
	}
	errno = 0;
	if (fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		err = errno ? errno : EIO;
		snprintf(msg, size, "cannot read the kernel file %s: %s", path,
			 errno ? strerror(err) : "it changed while read");
		free(buf);
		fclose(fp);
		return -err;
	}
	fclose(fp);
	*data = buf;
	*len = (size_t)n;
	return 0;
}

int
user_kernel_load(const char *path, const char *name, CUmodule *module,
		 CUfunction *function, char *msg, size_t size)
{
	CUmodule mod = NULL;
	CUfunction fn = NULL;
	char *data = NULL, buf[256];
	size_t len = 0;
	CUresult res;
	int ret;

	ret = read_file(path, &data, &len, msg, size);
	if (ret < 0)
		return ret;
	/* Said here: CUDA's word for it depends on the driver. */
	if (len == 0) {
		free(data);
		snprintf(msg, size, "the kernel file %s is empty", path);
		return -EINVAL;
	}
	res = CU(cuModuleLoadData)(&mod, data);
	free(data);
	if (res != CUDA_SUCCESS) {
		snprintf(msg, size, "cuModuleLoadData(%s): %s", path,
			 tools_cuda_result(res, buf, sizeof(buf)));
		return GLCUDA_ERROR_CUDA;
	}
	res = CU(cuModuleGetFunction)(&fn, mod, name);
	if (res != CUDA_SUCCESS) {
		snprintf(msg, size, "cuModuleGetFunction(%s) in %s: %s", name,
			 path, tools_cuda_result(res, buf, sizeof(buf)));
		CU(cuModuleUnload)(mod);
		return GLCUDA_ERROR_CUDA;
	}
	*module = mod;
	*function = fn;
	return 0;
}

int
user_kernel_launch(CUfunction function, CUstream stream, CUsurfObject in,
		   CUsurfObject out, uint32_t width, uint32_t height, int plane,
		   enum glcuda_format format, char *msg, size_t size)
{
	int w = (int)width, h = (int)height, f = (int)format;
	void *args[] = { &in, &out, &w, &h, &plane, &f };
	char buf[256];
	CUresult res;

	res = CU(cuLaunchKernel)(function, (width + BLOCK - 1) / BLOCK,
				 (height + BLOCK - 1) / BLOCK, 1, BLOCK, BLOCK,
				 1, 0, stream, args, NULL);
	if (res != CUDA_SUCCESS) {
		snprintf(msg, size, "cuLaunchKernel (plane %d of %ux%u): %s",
			 plane, width, height,
			 tools_cuda_result(res, buf, sizeof(buf)));
		return GLCUDA_ERROR_CUDA;
	}
	return 0;
}
