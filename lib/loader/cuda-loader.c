/*
 * The CUDA driver API, loaded at run time.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glcuda/glcuda.h>
#include "cuda-loader.h"
#include "error.h"

struct glcuda_cuda glcuda_cuda;
#ifdef GLCUDA_TEST_BUILD
struct glcuda_test_cuda glcuda_test_cuda;
#endif

static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int loader_refs;

static const char *
fallback_result_name(CUresult res)
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
cuda_result_string(CUresult res, char *buf, size_t size)
{
	const char *name = NULL, *desc = NULL;

	if (glcuda_cuda.cuGetErrorName)
		glcuda_cuda.cuGetErrorName(res, &name);
	if (glcuda_cuda.cuGetErrorString)
		glcuda_cuda.cuGetErrorString(res, &desc);
	if (!name)
		name = fallback_result_name(res);
	snprintf(buf, size, "%s (%d)%s%s", name, (int)res, desc ? ": " : "",
		 desc ? desc : "");
	return buf;
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
cuda_call_fail(struct error_sink *errors, CUresult res, const char *call, const char *hint)
{
	char buf[256];

	cuda_result_string(res, buf, sizeof(buf));
	if (cuda_result_is_fatal(res))
		return error_fail(errors, GLCUDA_ERROR_DEVICE_LOST,
				  "%s: %s. The CUDA context is unusable (a kernel "
				  "faulted or the GPU was reset): destroy every glcuda "
				  "object and the device, then create them again.",
				  call, buf);
	if (res == CUDA_ERROR_OUT_OF_MEMORY)
		return error_fail(errors, GLCUDA_ERROR_CUDA,
				  "%s: %s. The GPU is out of memory: free images or use "
				  "smaller ones.", call, buf);
	return error_fail(errors, GLCUDA_ERROR_CUDA, "%s: %s%s%s", call, buf,
			  hint ? ". " : "", hint ? hint : "");
}

/*
 * The version to ask cuGetProcAddress for, so that it returns the ABI that
 * cuda-types.h declares: GLCUDA_CUDA_API_VERSION (where an ABI changed,
 * cuda-types.h #defines the name to that variant, as cuda.h does). CUDA 13 added
 * cuCtxSynchronize_v2(CUcontext) and cuCtxGetDevice_v2(CUdevice *, CUcontext)
 * without redirecting the plain names, so asking for 13000 returns a
 * function that takes a context the caller never passes (seen as
 * CUDA_ERROR_CONTEXT_IS_DESTROYED from cuCtxSynchronize()).
 */
static int
abi_version(const char *name)
{
	static const char *const pre13[] = { "cuCtxSynchronize", "cuCtxGetDevice" };

	for (size_t i = 0; i < sizeof(pre13) / sizeof(pre13[0]); i++)
		if (!strcmp(name, pre13[i]))
			return GLCUDA_CUDA_API_VERSION < 12000 ? GLCUDA_CUDA_API_VERSION : 12000;
	return GLCUDA_CUDA_API_VERSION;
}

static int
resolve_all(struct glcuda_cuda *table, void *handle, char *buf, size_t bufsize)
{
	/* cuGetProcAddress is cuGetProcAddress_v2 (CUDA 12+). */
	__typeof__(cuGetProcAddress) *get_proc;
	CUdriverProcAddressQueryResult status;
	CUresult res;

	get_proc = (__typeof__(get_proc))dlsym(handle, "cuGetProcAddress_v2");
	if (!get_proc) {
		snprintf(buf, bufsize,
			 "libcuda.so.1 has no cuGetProcAddress_v2: the NVIDIA driver is "
			 "older than CUDA 12. Install driver 525 or newer.");
		return GLCUDA_ERROR_NO_CUDA_DRIVER;
	}

#define RESOLVE(name)                                                          \
	res = get_proc(#name, (void **)&table->name, abi_version(#name),      \
		       CU_GET_PROC_ADDRESS_DEFAULT, &status);                  \
	if (res != CUDA_SUCCESS || !table->name) {                             \
		snprintf(buf, bufsize,                                         \
			 "cuGetProcAddress(\"%s\", version %d) failed: result %d, " \
			 "status %d. The NVIDIA driver is older than CUDA %d.%d, "  \
			 "whose driver API glcuda uses; update the driver.",   \
			 #name, abi_version(#name), (int)res, (int)status,     \
			 GLCUDA_CUDA_API_VERSION / 1000,                       \
			 GLCUDA_CUDA_API_VERSION % 1000 / 10);                 \
		return GLCUDA_ERROR_NO_CUDA_DRIVER;                            \
	}
	GLCUDA_CUDA_FUNCTIONS(RESOLVE)
	RESOLVE(cuGraphicsGLRegisterImage)
#undef RESOLVE
#define RESOLVE_OPTIONAL(name)                                                  \
	if (get_proc(#name, (void **)&table->name, abi_version(#name),          \
		     CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS)      \
		table->name = NULL;
	RESOLVE_OPTIONAL(cuGraphicsEGLRegisterImage)
	RESOLVE_OPTIONAL(cuGraphicsResourceGetMappedEglFrame)
	RESOLVE_OPTIONAL(cuArray3DGetDescriptor)
#ifdef GLCUDA_TEST_BUILD
	/* Directly: through another macro, name would be expanded to the
	 * versioned symbol (cuMemGetInfo_v2) before it is stringified. The
	 * tests' table is written once, on the first load: the functions of
	 * libcuda never move (it is never unloaded). */
#undef RESOLVE_OPTIONAL
#define RESOLVE_OPTIONAL(name)                                                  \
	if (!glcuda_test_cuda.name &&                                           \
	    get_proc(#name, (void **)&glcuda_test_cuda.name, abi_version(#name), \
		     CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS)      \
		glcuda_test_cuda.name = NULL;
	GLCUDA_CUDA_PROGRAM_FUNCTIONS(RESOLVE_OPTIONAL)
#endif
#undef RESOLVE_OPTIONAL
	return 0;
}

int
cuda_loader_load(char *buf, size_t bufsize)
{
	const char *path = getenv("GLCUDA_LIBCUDA");
	struct glcuda_cuda table;
	char resbuf[160];
	void *handle;
	int version;
	CUresult res;
	int ret = 0;

	pthread_mutex_lock(&loader_lock);
	if (loader_refs > 0) {
		loader_refs++;
		goto out;
	}

	if (!path || !*path)
		path = "libcuda.so.1";
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		const char *why = dlerror();
		snprintf(buf, bufsize,
			 "no CUDA driver: dlopen(\"%s\") failed: %s. Install the "
			 "NVIDIA driver (it provides libcuda.so.1), or check that "
			 "the loader can find it (ldconfig -p | grep libcuda).",
			 path, why ? why : "unknown error");
		ret = GLCUDA_ERROR_NO_CUDA_DRIVER;
		goto out;
	}

	memset(&table, 0, sizeof(table));
	ret = resolve_all(&table, handle, buf, bufsize);
	if (ret < 0) {
		dlclose(handle);
		goto out;
	}
	table.handle = glcuda_cuda.handle;
	table.driver_version = glcuda_cuda.driver_version;
	/* A load after the last unload resolves the same functions (libcuda
	 * is never unloaded): leave the table as it is then, so that a thread
	 * still calling through it (code holding a CUDA context of its own)
	 * never sees it rewritten. */
	if (memcmp(&table, &glcuda_cuda, sizeof(table)) != 0)
		memcpy(&glcuda_cuda, &table, sizeof(table));

	res = CU_CALL(cuInit, 0);
	if (res != CUDA_SUCCESS) {
		snprintf(buf, bufsize,
			 "cuInit failed: %s. %s", cuda_result_string(res, resbuf, sizeof(resbuf)),
			 res == CUDA_ERROR_NO_DEVICE
				 ? "No CUDA-capable GPU is visible (check CUDA_VISIBLE_DEVICES and /dev/nvidia*)."
				 : "The NVIDIA kernel module and libcuda.so.1 may not match; reload the driver.");
		ret = res == CUDA_ERROR_NO_DEVICE ? GLCUDA_ERROR_NO_CUDA_DRIVER
						  : GLCUDA_ERROR_CUDA;
		/* Keep the resolved table (libcuda is never unloaded): code
		 * that holds a CUDA context of its own may still use it. */
		goto out;
	}
	res = CU_CALL(cuDriverGetVersion, &version);
	if (res != CUDA_SUCCESS)
		version = 0;
	if (glcuda_cuda.driver_version != version)
		glcuda_cuda.driver_version = version;
	if (glcuda_cuda.handle != handle)
		glcuda_cuda.handle = handle;
	loader_refs = 1;
out:
	pthread_mutex_unlock(&loader_lock);
	return ret;
}

void
cuda_loader_unload(void)
{
	pthread_mutex_lock(&loader_lock);
	if (loader_refs > 0 && --loader_refs == 0) {
		/* libcuda is never dlclose()d: the driver keeps threads and
		 * atexit handlers that would then point at unmapped code. The
		 * table stays as it is (see cuda_loader_load). */
	}
	pthread_mutex_unlock(&loader_lock);
}

bool
cuda_loader_is_loaded(void)
{
	bool loaded;

	pthread_mutex_lock(&loader_lock);
	loaded = loader_refs > 0;
	pthread_mutex_unlock(&loader_lock);
	return loaded;
}
