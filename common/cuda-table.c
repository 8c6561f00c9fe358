/*
 * The tools' table of CUDA driver functions (see cuda-table.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda-table.h"

struct tools_cuda tools_cuda;
static bool loaded;

/* The driver-API version whose ABI the declarations describe: the
 * toolkit's, or that of glcuda's own declarations without the toolkit. */
#ifdef CUDA_VERSION
#define TOOLS_CUDA_API_VERSION CUDA_VERSION
#else
#define TOOLS_CUDA_API_VERSION GLCUDA_CUDA_API_VERSION
#endif

/*
 * The version to ask cuGetProcAddress for, so that it returns the ABI the
 * header's declaration describes: TOOLS_CUDA_API_VERSION, except for the two calls
 * CUDA 13 gave a context argument without redirecting the plain names
 * (lib/loader/cuda-loader.c has the story).
 */
static int
abi_version(const char *name)
{
	if (!strcmp(name, "cuCtxSynchronize") || !strcmp(name, "cuCtxGetDevice"))
		return TOOLS_CUDA_API_VERSION < 12000 ? TOOLS_CUDA_API_VERSION : 12000;
	return TOOLS_CUDA_API_VERSION;
}

static int
resolve_all(struct tools_cuda *table, void *handle, char *msg, size_t size)
{
	/* cuda.h maps cuGetProcAddress to cuGetProcAddress_v2 (CUDA 12+). */
	__typeof__(cuGetProcAddress) *get_proc;
	CUdriverProcAddressQueryResult status;
	CUresult res;

	get_proc = (__typeof__(get_proc))dlsym(handle, "cuGetProcAddress_v2");
	if (!get_proc) {
		snprintf(msg, size, "libcuda.so.1 has no cuGetProcAddress_v2: the NVIDIA "
			 "driver is older than CUDA 12. Install driver 525 or newer.");
		return -1;
	}
#define RESOLVE(name)                                                          \
	res = get_proc(#name, (void **)&table->name, abi_version(#name),      \
		       CU_GET_PROC_ADDRESS_DEFAULT, &status);                  \
	if (res != CUDA_SUCCESS || !table->name) {                             \
		snprintf(msg, size,                                            \
			 "cuGetProcAddress(\"%s\", version %d) failed: result %d, " \
			 "status %d. The NVIDIA driver is older than the CUDA "    \
			 "%d.%d API the tools were built for; update the driver.", \
			 #name, abi_version(#name), (int)res, (int)status,     \
			 TOOLS_CUDA_API_VERSION / 1000,                        \
			 TOOLS_CUDA_API_VERSION % 1000 / 10);                  \
		return -1;                                                     \
	}
	TOOLS_CUDA_FUNCTIONS(RESOLVE)
	RESOLVE(cuGraphicsGLRegisterImage)
#undef RESOLVE
#define RESOLVE_OPTIONAL(name)                                                 \
	if (get_proc(#name, (void **)&table->name, abi_version(#name),        \
		     CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS)   \
		table->name = NULL;
	TOOLS_CUDA_OPTIONAL_FUNCTIONS(RESOLVE_OPTIONAL)
#undef RESOLVE_OPTIONAL
	return 0;
}

int
tools_cuda_load(char *msg, size_t size)
{
	const char *path = getenv("GLCUDA_LIBCUDA");
	struct tools_cuda table;
	char buf[160];
	void *handle;
	CUresult res;

	if (loaded)
		return 0;
	if (!path || !*path)
		path = "libcuda.so.1";
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		const char *why = dlerror();
		snprintf(msg, size, "no CUDA driver: dlopen(\"%s\") failed: %s", path,
			 why ? why : "unknown error");
		return -1;
	}
	memset(&table, 0, sizeof(table));
	if (resolve_all(&table, handle, msg, size) < 0) {
		dlclose(handle);
		return -1;
	}
	res = table.cuInit(0);
	if (res != CUDA_SUCCESS) {
		tools_cuda = table; /* for the error's name */
		snprintf(msg, size, "cuInit failed: %s", tools_cuda_result(res, buf, sizeof(buf)));
		memset(&tools_cuda, 0, sizeof(tools_cuda));
		return -1;
	}
	tools_cuda = table;
	loaded = true;
	return 0;
}

bool
tools_cuda_loaded(void)
{
	return loaded;
}

static const char *
fallback_name(CUresult res)
{
	switch (res) {
	case CUDA_SUCCESS: return "CUDA_SUCCESS";
	case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
	case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
	case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
	case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
	case CUDA_ERROR_INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
	case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
	default: return "CUDA error";
	}
}

const char *
tools_cuda_result(CUresult res, char *buf, size_t size)
{
	const char *name = NULL, *desc = NULL;

	if (tools_cuda.cuGetErrorName)
		tools_cuda.cuGetErrorName(res, &name);
	if (tools_cuda.cuGetErrorString)
		tools_cuda.cuGetErrorString(res, &desc);
	if (!name)
		name = fallback_name(res);
	snprintf(buf, size, "%s (%d)%s%s", name, (int)res, desc ? ": " : "",
		 desc ? desc : "");
	return buf;
}
