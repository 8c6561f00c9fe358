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
 *
 * Each hook passes its call site (__FILE__, __LINE__ of the CU_CALL or VK
 * that expanded it), and the engine keeps the sites where it injected a
 * failure, so that a test can compare them with every site of lib/
 * (scripts/fault-sites.sh lists them from the sources).
 *
 * The Vulkan seam also counts live objects: a successful vkCreate* or
 * vkAllocate* through VK() adds one of its type, each release
 * (FAULT_VK_RELEASED next to the vkDestroy* or vkFree* call) takes one
 * away. Memory and fd counts cannot see a leaked VkImage; this can.
 */
#ifndef GLCUDA_FAULT_H
#define GLCUDA_FAULT_H

#include <stdbool.h>
#include <stddef.h>

enum fault_api {
	FAULT_CUDA,
	FAULT_VULKAN,
	FAULT_API_COUNT
};

/* Defined only in the tests' build (lib/libglcuda-test.la). */
void fault_inject(enum fault_api api, unsigned long n, int err);
/* Instead of the n-th call: the first call at a site, file (the end of
 * __FILE__: "lib/ring/ring.c") between lines first and last, fails with err.
 * For a site the n-th-call sweep missed because the calls before it vary
 * in number from run to run (a query that finds work done or not). */
void fault_inject_at(enum fault_api api, const char *file, int first, int last,
		     int err);
void fault_disarm(enum fault_api api);
/* Calls counted from the last fault_inject() to fault_disarm(). */
unsigned long fault_calls(enum fault_api api);

/* Whether this call (name: the API's own spelling, without Vulkan's "vk";
 * file and line: its call site) is the one to fail; then fault_result() is
 * its error. */
bool fault_check(enum fault_api api, const char *name, const char *file,
		 int line);
/* The engine's rule: calls that release or unwind are never failed. */
bool fault_never_fails(const char *name);
/* The error of the call that fault_check failed last on this thread. */
int fault_result(void);
/* The name of the call that fault_check failed since the last
 * fault_inject(), or NULL: which entry point a test made to fail. */
const char *fault_failed_call(void);
extern int fault_armed[FAULT_API_COUNT];

/* A call site where a failure was injected. file: as the compiler spelt it
 * (__FILE__: relative to the build directory, so "../lib/x.c" in a VPATH
 * build); line: __LINE__ of the macro, which for a call spanning lines is
 * its first line with GCC and its last with Clang. */
struct fault_site {
	enum fault_api api;
	const char *file;
	int line;
	const char *name;
};

/* The sites where a failure of api was injected since the last
 * fault_sites_reset(), in the order of their first failure: copies up to
 * max into out and returns how many there are. */
size_t fault_sites_injected(enum fault_api api, struct fault_site *out,
			    size_t max);
void fault_sites_reset(void);
/* Adds sites injected in a child process (fork: the names and files are
 * the same string literals at the same addresses). */
void fault_sites_add(const struct fault_site *sites, size_t count);

/* Vulkan objects alive by type ("Image", "Memory", "Semaphore", "Device",
 * "Instance", ...): created through VK() minus released. */
long fault_vk_live(const char *type);
/* The sum over every type. */
long fault_vk_live_total(void);
/* name: the VK() call; counts the object a successful create or allocate
 * made. Returns res. */
int fault_vk_created(const char *name, int res);
/* name: the vkDestroy* / vkFree* entry point that just released one
 * object (never called for VK_NULL_HANDLE). */
void fault_vk_released(const char *name);

#ifdef GLCUDA_FAULT_INJECTION
/* Cheap when disarmed: an atomic load (relaxed: free on x86-64 and
 * AArch64) before any lock. */
#define FAULT_HIT(api, name) \
	(__atomic_load_n(&fault_armed[(api)], __ATOMIC_RELAXED) && \
	 fault_check((api), (name), __FILE__, __LINE__))
#define FAULT_RESULT() fault_result()
#define FAULT_VK_CREATED(name, res) fault_vk_created((name), (res))
#define FAULT_VK_RELEASED(name) fault_vk_released(name)
#else
/* The installed library: no hook, and no reference to fault.c even at -O0. */
#define FAULT_HIT(api, name) 0
#define FAULT_RESULT() 0
#define FAULT_VK_CREATED(name, res) (res)
#define FAULT_VK_RELEASED(name) ((void)0)
#endif

#endif
