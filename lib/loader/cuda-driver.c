/*
 * Opening the CUDA driver (see cuda-driver.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda-driver-api.h"
#include "cuda-driver.h"

typedef __typeof__(cuGetProcAddress) *get_proc_fn;
typedef __typeof__(cuGetErrorName) *get_error_name_fn;
typedef __typeof__(cuGetErrorString) *get_error_string_fn;

int
cuda_driver_open(struct cuda_driver *drv, int api_version, char *msg,
		 size_t size)
{
	const char *path = getenv("GLCUDA_LIBCUDA");
	void *handle;

	memset(drv, 0, sizeof(*drv));
	if (!path || !*path)
		path = "libcuda.so.1";
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		const char *why = dlerror();
		snprintf(msg, size,
			 "no CUDA driver: dlopen(\"%s\") failed: %s. Install "
			 "the NVIDIA driver (it provides libcuda.so.1), or "
			 "check that the loader can find it (ldconfig -p | "
			 "grep libcuda).",
			 path, why ? why : "unknown error");
		return -1;
	}
	/* <cuda.h> maps cuGetProcAddress to cuGetProcAddress_v2 (CUDA 12+). */
	drv->get_proc = dlsym(handle, "cuGetProcAddress_v2");
	if (!drv->get_proc) {
		snprintf(msg, size,
			 "%s has no cuGetProcAddress_v2: the NVIDIA driver is "
			 "older than CUDA 12. Install driver 525 or newer.",
			 path);
		dlclose(handle);
		drv->get_proc = NULL;
		return -1;
	}
	drv->handle = handle;
	drv->api_version = api_version;
	return 0;
}

void
cuda_driver_close(struct cuda_driver *drv)
{
	if (drv->handle)
		dlclose(drv->handle);
	memset(drv, 0, sizeof(*drv));
}

/*
 * The version to ask cuGetProcAddress for, so that it returns the ABI that
 * the caller's declarations describe: its API version (where an ABI
 * changed, cuda-driver-api.h and <cuda.h> #define the name to that variant).
 * CUDA 13 added cuCtxSynchronize_v2(CUcontext) and cuCtxGetDevice_v2(CUdevice
 * *, CUcontext) without redirecting the plain names, so asking for 13000
 * returns a function that takes a context the caller never passes (seen as
 * CUDA_ERROR_CONTEXT_IS_DESTROYED from cuCtxSynchronize()).
 */
int
cuda_driver_abi_version(const struct cuda_driver *drv, const char *name)
{
	static const char *const pre13[] = {
		"cuCtxSynchronize",
		"cuCtxGetDevice",
	};

	for (size_t i = 0; i < sizeof(pre13) / sizeof(pre13[0]); i++)
		if (!strcmp(name, pre13[i]))
			return drv->api_version < 12000 ? drv->api_version
							: 12000;
	return drv->api_version;
}

int
cuda_driver_resolve(const struct cuda_driver *drv, const char *name, void **fn,
		    char *msg, size_t size)
{
	get_proc_fn get_proc = (get_proc_fn)drv->get_proc;
	CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
	int version = cuda_driver_abi_version(drv, name);
	CUresult res;

	*fn = NULL;
	res = get_proc(name, fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
	if (res == CUDA_SUCCESS && *fn)
		return 0;
	*fn = NULL;
	snprintf(msg, size,
		 "cuGetProcAddress(\"%s\", version %d) failed: result %d, "
		 "status %d. The NVIDIA driver is older than CUDA %d.%d, whose "
		 "driver API glcuda and its programs were built for; update "
		 "the driver.",
		 name, version, (int)res, (int)status, drv->api_version / 1000,
		 drv->api_version % 1000 / 10);
	return -1;
}

void *
cuda_driver_find(const struct cuda_driver *drv, const char *name)
{
	get_proc_fn get_proc = (get_proc_fn)drv->get_proc;
	CUdriverProcAddressQueryResult status;
	void *fn = NULL;

	if (!get_proc ||
	    get_proc(name, &fn, cuda_driver_abi_version(drv, name),
		     CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS)
		return NULL;
	return fn;
}

int
cuda_driver_resolve_table(const struct cuda_driver *drv,
			  const struct cuda_driver_entry *required,
			  size_t count_required,
			  const struct cuda_driver_entry *optional,
			  size_t count_optional, char *msg, size_t size)
{
	for (size_t i = 0; i < count_required; i++)
		if (cuda_driver_resolve(drv, required[i].name, required[i].fn,
					msg, size) < 0)
			return -1;
	for (size_t i = 0; i < count_optional; i++)
		*optional[i].fn = cuda_driver_find(drv, optional[i].name);
	return 0;
}

static const char *
fallback_result_name(int res)
{
	switch (res) {
	case CUDA_SUCCESS: return "CUDA_SUCCESS";
	case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
	case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
	case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
	case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
	case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
	case CUDA_ERROR_INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
	case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
	case CUDA_ERROR_UNKNOWN: return "CUDA_ERROR_UNKNOWN";
	default: return "CUDA error";
	}
}

const char *
cuda_driver_result_format(int res, const char *name, const char *desc,
			  char *buf, size_t size)
{
	snprintf(buf, size, "%s (%d)%s%s",
		 name ? name : fallback_result_name(res), res, desc ? ": " : "",
		 desc ? desc : "");
	return buf;
}

const char *
cuda_driver_result_string(int res, void *get_name, void *get_string, char *buf,
			  size_t size)
{
	const char *name = NULL, *desc = NULL;

	if (get_name)
		((get_error_name_fn)get_name)((CUresult)res, &name);
	if (get_string)
		((get_error_string_fn)get_string)((CUresult)res, &desc);
	return cuda_driver_result_format(res, name, desc, buf, size);
}
