/*
 * The CUDA driver API, loaded at run time.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glcuda/glcuda.h>
#include "cuda-driver.h"
#include "cuda-loader.h"
#include "error.h"

struct cuda_loader_table cuda_loader_table;

static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int loader_refs;

const char *
cuda_result_string(CUresult res, char *buf, size_t size)
{
	return cuda_driver_result_string(
		res, (void *)cuda_loader_table.cuGetErrorName,
		(void *)cuda_loader_table.cuGetErrorString, buf, size);
}

/* CUDA errors after which the context is unusable ("sticky" errors: cuda.h
 * says "any further CUDA work will return the same error" for each). */
static bool
cuda_result_is_fatal(CUresult res)
{
	switch (res) {
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_FAILED:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_CONTAINED:
	case CUDA_ERROR_ECC_UNCORRECTABLE:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_CONTEXT_IS_DESTROYED:
		return true;
	default:
		return false;
	}
}

int
cuda_call_fail(struct error_sink *errors, CUresult res, const char *call,
	       const char *hint)
{
	char buf[256];

	cuda_result_string(res, buf, sizeof(buf));
	if (cuda_result_is_fatal(res))
		return error_fail(errors, GLCUDA_ERROR_DEVICE_LOST,
				  "%s: %s. The CUDA context is unusable (a "
				  "kernel faulted or the GPU was reset): "
				  "destroy every glcuda object and the device, "
				  "then create them again.",
				  call, buf);
	if (res == CUDA_ERROR_OUT_OF_MEMORY)
		return error_fail(errors, GLCUDA_ERROR_CUDA,
				  "%s: %s. The GPU is out of memory: free "
				  "images or use smaller ones.",
				  call, buf);
	return error_fail(errors, GLCUDA_ERROR_CUDA, "%s: %s%s%s", call, buf,
			  hint ? ". " : "", hint ? hint : "");
}

/* Every entry point of the table from the driver: 0, or
 * GLCUDA_ERROR_NO_CUDA_DRIVER with the reason in buf. */
static int
resolve_all(struct cuda_loader_table *table, const struct cuda_driver *drv,
	    char *buf, size_t bufsize)
{
	/* #name: the API name (see struct cuda_driver_entry). */
#define ENTRY(name) { #name, (void **)&table->name },
	const struct cuda_driver_entry required[] = {
		GLCUDA_CUDA_FUNCTIONS(ENTRY)
		ENTRY(cuGraphicsGLRegisterImage)
	};
	const struct cuda_driver_entry optional[] = {
		ENTRY(cuGraphicsEGLRegisterImage)
		ENTRY(cuGraphicsResourceGetMappedEglFrame)
		ENTRY(cuArray3DGetDescriptor)
		ENTRY(cuLibraryLoadData)
		ENTRY(cuLibraryGetKernel)
	};
#undef ENTRY

	if (cuda_driver_resolve_table(drv, required,
				      sizeof(required) / sizeof(required[0]),
				      optional,
				      sizeof(optional) / sizeof(optional[0]),
				      buf, bufsize) < 0)
		return GLCUDA_ERROR_NO_CUDA_DRIVER;
	return 0;
}

int
cuda_loader_load(char *buf, size_t bufsize)
{
	struct cuda_driver drv;
	struct cuda_loader_table table;
	char resbuf[160];
	int version;
	CUresult res;
	int ret = 0;

	pthread_mutex_lock(&loader_lock);
	if (loader_refs > 0) {
		loader_refs++;
		goto out;
	}

	if (cuda_driver_open(&drv, GLCUDA_CUDA_API_VERSION, buf, bufsize) < 0) {
		ret = GLCUDA_ERROR_NO_CUDA_DRIVER;
		goto out;
	}
	memset(&table, 0, sizeof(table));
	ret = resolve_all(&table, &drv, buf, bufsize);
	if (ret < 0) {
		cuda_driver_close(&drv);
		goto out;
	}
	table.handle = cuda_loader_table.handle;
	table.driver_version = cuda_loader_table.driver_version;
	/* A load after the last unload resolves the same functions (libcuda
	 * is never unloaded): leave the table as it is then, so that a thread
	 * still calling through it (code holding a CUDA context of its own)
	 * never sees it rewritten. */
	if (memcmp(&table, &cuda_loader_table, sizeof(table)) != 0)
		memcpy(&cuda_loader_table, &table, sizeof(table));

	res = CU_CALL(cuInit, 0);
	if (res != CUDA_SUCCESS) {
		snprintf(buf, bufsize, "cuInit failed: %s. %s",
			 cuda_result_string(res, resbuf, sizeof(resbuf)),
			 res == CUDA_ERROR_NO_DEVICE
				 ? "No CUDA-capable GPU is visible (check "
				   "CUDA_VISIBLE_DEVICES and /dev/nvidia*)."
				 : "The NVIDIA kernel module and libcuda.so.1 "
				   "may not match; reload the driver.");
		ret = res == CUDA_ERROR_NO_DEVICE ? GLCUDA_ERROR_NO_CUDA_DRIVER
						  : GLCUDA_ERROR_CUDA;
		/* Keep the resolved table (libcuda is never unloaded): code
		 * that holds a CUDA context of its own may still use it. */
		goto out;
	}
	res = CU_CALL(cuDriverGetVersion, &version);
	if (res != CUDA_SUCCESS)
		version = 0;
	if (cuda_loader_table.driver_version != version)
		cuda_loader_table.driver_version = version;
	if (cuda_loader_table.handle != drv.handle)
		cuda_loader_table.handle = drv.handle;
	loader_refs = 1;
out:
	pthread_mutex_unlock(&loader_lock);
	return ret;
}

void
cuda_loader_unload(void)
{
	/* The last reference only lets the next load resolve the table and
	 * call cuInit again: libcuda is never dlclose()d (the driver keeps
	 * threads and atexit handlers that would then point at unmapped
	 * code), and the table stays as it is (see cuda_loader_load). */
	pthread_mutex_lock(&loader_lock);
	if (loader_refs > 0)
		loader_refs--;
	pthread_mutex_unlock(&loader_lock);
}
