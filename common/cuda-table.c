/*
 * The tools' table of CUDA driver functions (see cuda-table.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cuda-driver.h"
#include "cuda-table.h"

struct tools_cuda tools_cuda;
static struct cuda_driver driver;
static bool loaded;

/* The driver-API version whose ABI the declarations describe: the
 * toolkit's, or that of glcuda's own declarations without the toolkit. */
#ifdef CUDA_VERSION
#define TOOLS_CUDA_API_VERSION CUDA_VERSION
#else
#define TOOLS_CUDA_API_VERSION GLCUDA_CUDA_API_VERSION
#endif

static int
resolve_all(struct tools_cuda *table, char *msg, size_t size)
{
	/* #name: the API name (see struct cuda_driver_entry). */
#define ENTRY(name) { #name, (void **)&table->name },
	const struct cuda_driver_entry required[] = {
		TOOLS_CUDA_FUNCTIONS(ENTRY)
		ENTRY(cuGraphicsGLRegisterImage)
	};
	const struct cuda_driver_entry optional[] = {
		TOOLS_CUDA_OPTIONAL_FUNCTIONS(ENTRY)
	};
#undef ENTRY

	return cuda_driver_resolve_table(&driver, required, sizeof(required) / sizeof(required[0]),
					 optional, sizeof(optional) / sizeof(optional[0]), msg,
					 size);
}

int
tools_cuda_load(char *msg, size_t size)
{
	struct tools_cuda table;
	char buf[160];
	CUresult res;

	if (loaded)
		return 0;
	if (cuda_driver_open(&driver, TOOLS_CUDA_API_VERSION, msg, size) < 0)
		return -1;
	memset(&table, 0, sizeof(table));
	if (resolve_all(&table, msg, size) < 0) {
		cuda_driver_close(&driver);
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

void *
tools_cuda_find(const char *name)
{
	return loaded ? cuda_driver_find(&driver, name) : NULL;
}

const char *
tools_cuda_result(CUresult res, char *buf, size_t size)
{
	return cuda_driver_result_string((int)res, (void *)tools_cuda.cuGetErrorName,
					 (void *)tools_cuda.cuGetErrorString, buf, size);
}
