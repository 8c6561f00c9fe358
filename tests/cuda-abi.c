/*
 * glcuda's declarations of the CUDA driver API (lib/loader/cuda-driver-api.h)
 * against the CUDA toolkit's headers; built and run by
 * tests/test-cuda-abi.sh, in two translation units:
 *
 *  - without CUDA_ABI_TOOLKIT: glcuda's declarations alone; records the
 *    sizes, offsets, values and names of tests/cuda-abi.def;
 *  - with CUDA_ABI_TOOLKIT: <cuda.h>, <cudaGL.h> and <cudaEGL.h>, then
 *    cuda-driver-api.h, which then declares its prototypes only: one that does
 *    not match the toolkit's declaration is a compile error. It records the
 *    same list from the toolkit's headers and compares the two.
 *
 * SPDX-License-Identifier: MIT
 */
#ifdef CUDA_ABI_TOOLKIT
#include <cuda.h>
#include <cudaGL.h>
#include <cudaEGL.h>
#endif
#include "loader/cuda-driver-api.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct abi_entry {
	const char *what;
	unsigned long long value;
	const char *name; /* NAME(): the symbol */
};

#define ABI_STR(x) #x
#define ABI_XSTR(x) ABI_STR(x)
#define SIZE(type) { "sizeof(" #type ")", sizeof(type), NULL },
#define FIELD(type, member) \
	{ "offsetof(" #type ", " #member ")", offsetof(type, member), NULL }, \
	{ "sizeof(" #type "." #member ")", sizeof(((type *)0)->member), NULL },
#define VALUE(name) { #name, (unsigned long long)(uintptr_t)(name), NULL },
#define NAME(name) { "symbol of " #name, 0, ABI_XSTR(name) },

#ifdef CUDA_ABI_TOOLKIT
#define ABI_TABLE cuda_abi_toolkit
#else
#define ABI_TABLE cuda_abi_glcuda
#endif

size_t ABI_TABLE(const struct abi_entry **out);
size_t
ABI_TABLE(const struct abi_entry **out)
{
	/* Automatic: CU_STREAM_LEGACY is a pointer, not a constant. */
	const struct abi_entry table[] = {
#include "cuda-abi.def"
	};
	static struct abi_entry copy[sizeof(table) / sizeof(table[0])];

	memcpy(copy, table, sizeof(table));
	*out = copy;
	return sizeof(table) / sizeof(table[0]);
}

#ifdef CUDA_ABI_TOOLKIT
size_t cuda_abi_glcuda(const struct abi_entry **out);

int
main(void)
{
	const struct abi_entry *ours, *theirs;
	size_t n = cuda_abi_glcuda(&ours), m = cuda_abi_toolkit(&theirs);
	unsigned int bad = 0, names = 0;

	if (n != m) {
		printf("FAIL: %zu entries against %zu\n", n, m);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (ours[i].name) {
			/* An older toolkit maps fewer names to newer ABIs. */
			if (CUDA_VERSION < GLCUDA_CUDA_API_VERSION)
				continue;
			names++;
			if (strcmp(ours[i].name, theirs[i].name) != 0) {
				printf("FAIL: %s: %s in glcuda, %s in cuda.h "
				       "%d\n",
				       ours[i].what, ours[i].name,
				       theirs[i].name, CUDA_VERSION);
				bad++;
			}
		} else if (ours[i].value != theirs[i].value) {
			printf("FAIL: %s: %llu in glcuda, %llu in cuda.h %d\n",
			       ours[i].what, ours[i].value, theirs[i].value,
			       CUDA_VERSION);
			bad++;
		}
	}
	printf("%zu checks (%u of names), %u mismatches, against the headers "
	       "of CUDA %d.%d\n",
	       n, names, bad, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
	return bad ? 1 : 0;
}
#endif
