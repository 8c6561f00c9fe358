/*
 * The programs' table of CUDA driver functions (see cuda-table.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda-driver.h"
#include "cuda-table.h"

struct tools_cuda tools_cuda;
bool tools_cuda_ready;
static struct cuda_driver driver;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

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

	return cuda_driver_resolve_table(&driver, required,
					 sizeof(required) / sizeof(required[0]),
					 optional,
					 sizeof(optional) / sizeof(optional[0]),
					 msg, size);
}

/* With load_lock held, the first time. */
static int
load_locked(char *msg, size_t size)
{
	struct tools_cuda table;
	char buf[160];
	CUresult res;

	if (cuda_driver_open(&driver, TOOLS_CUDA_API_VERSION, msg, size) < 0)
		return -1;
	memset(&table, 0, sizeof(table));
	if (resolve_all(&table, msg, size) < 0) {
		cuda_driver_close(&driver);
		return -1;
	}
	res = table.cuInit(0);
	if (res != CUDA_SUCCESS) {
		/* libcuda stays open once cuInit ran in it (see
		 * tools_cuda); the next load opens it again and retries. */
		snprintf(msg, size, "cuInit failed: %s",
			 cuda_driver_result_string(
				 (int)res, (void *)table.cuGetErrorName,
				 (void *)table.cuGetErrorString, buf,
				 sizeof(buf)));
		return -1;
	}
	tools_cuda = table;
	__atomic_store_n(&tools_cuda_ready, true, __ATOMIC_RELEASE);
	return 0;
}

int
tools_cuda_load(char *msg, size_t size)
{
	int ret = 0;

	pthread_mutex_lock(&load_lock);
	if (!tools_cuda_ready)
		ret = load_locked(msg, size);
	pthread_mutex_unlock(&load_lock);
	return ret;
}

bool
tools_cuda_loaded(void)
{
	return __atomic_load_n(&tools_cuda_ready, __ATOMIC_ACQUIRE);
}

const struct tools_cuda *
tools_cuda_load_or_exit(void)
{
	char msg[512];

	if (tools_cuda_load(msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s: a CUDA call needs the CUDA driver, which "
			"cannot be loaded: %s\n", program_invocation_short_name,
			msg);
		exit(EXIT_FAILURE);
	}
	return &tools_cuda;
}

void *
tools_cuda_find(const char *name)
{
	return tools_cuda_loaded() ? cuda_driver_find(&driver, name) : NULL;
}

const char *
tools_cuda_result(CUresult res, char *buf, size_t size)
{
	return cuda_driver_result_string((int)res,
					 (void *)tools_cuda.cuGetErrorName,
					 (void *)tools_cuda.cuGetErrorString,
					 buf, size);
}
