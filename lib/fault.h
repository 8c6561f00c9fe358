/*
 * Fault injection: one engine for every driver API glcuda calls through a
 * function table (CUDA, Vulkan). Compiled only into the library the tests
 * link (GLCUDA_FAULT_INJECTION, lib/local.mk); in the installed library the
 * hooks expand to nothing.
 * SPDX-License-Identifier: MIT
 *
 * The rule, the same for every API: while armed, every call through the
 * API's seam (CU_CALL, VK) is counted and the n-th one fails with the
 * injected error, once; n = 0 only counts. Calls that release or unwind
 * (their names contain Destroy, Free, Unload, PopCurrent, Release,
 * Unregister, or they name an error) are neither counted nor failed: a
 * real driver does not fail them, and a failed release would only leak.
 * The state is process-wide and locked: the calls of every thread count,
 * so a test that wants one object's n-th call fails runs one at a time.
 */
#ifndef GLCUDA_FAULT_H
#define GLCUDA_FAULT_H

#include <stdbool.h>

enum fault_api {
	FAULT_CUDA,
	FAULT_VULKAN,
	FAULT_API_COUNT
};

/* Defined only in the tests' build (lib/libglcuda-test.la). */
void fault_inject(enum fault_api api, unsigned long n, int err);
void fault_disarm(enum fault_api api);
/* Calls counted from the last fault_inject() to fault_disarm(). */
unsigned long fault_calls(enum fault_api api);

/* Whether this call (name: the API's own spelling) is the one to fail;
 * then fault_result() is its error. */
bool fault_check(enum fault_api api, const char *name);
/* The error of the call that fault_check failed last on this thread. */
int fault_result(void);
/* The name of the call that fault_check failed since the last
 * fault_inject(), or NULL: which entry point a test made to fail. */
const char *fault_failed_call(void);
extern int fault_armed[FAULT_API_COUNT];

#ifdef GLCUDA_FAULT_INJECTION
/* Cheap when disarmed: an atomic load (relaxed: free on x86-64 and
 * AArch64) before any lock. */
#define FAULT_HIT(api, name) \
	(__atomic_load_n(&fault_armed[(api)], __ATOMIC_RELAXED) && fault_check((api), (name)))
#define FAULT_RESULT() fault_result()
#else
/* The installed library: no hook, and no reference to fault.c even at -O0. */
#define FAULT_HIT(api, name) 0
#define FAULT_RESULT() 0
#endif

#endif
