/*
 * Fault injection (fault.h says the rule). Only in the tests' build.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fault.h"

#ifndef GLCUDA_FAULT_INJECTION
#error "fault.c belongs to the tests' build only (GLCUDA_FAULT_INJECTION)"
#endif

/* fault_armed is read by every hooked call; the rest only while armed,
 * under fault_lock, so that devices on other threads may keep calling
 * their drivers while a test arms or disarms injection. */
int fault_armed[FAULT_API_COUNT];
static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	unsigned long at; /* 0: count only */
	unsigned long count;
	int error;
	/* fault_inject_at: the site to fail (file NULL: none). */
	const char *file;
	int first, last;
} faults[FAULT_API_COUNT];
/* The error of the call failed on this thread. */
static __thread int fault_pending;
/* The entry point that fault_check failed last (names are string literals). */
static const char *fault_failed_name;
/* Where failures were injected (fault_sites_injected). Far more than lib/
 * has sites; one past the end is dropped, and the comparison with the
 * generated list then reports the sites it lacks. */
#define FAULT_MAX_SITES 512
static struct fault_site injected_sites[FAULT_MAX_SITES];
static size_t injected_count;
/* Live Vulkan objects by type: few types, so a short array. */
#define FAULT_MAX_VK_TYPES 32
static struct {
	char type[40];
	long live;
} vk_objects[FAULT_MAX_VK_TYPES];

/* Arm api: fail the nth call (at > 0) or, with file, the calls made from
 * its lines first..last. */
static void
arm(enum fault_api api, unsigned long at, const char *file, int first, int last,
    int err)
{
	pthread_mutex_lock(&fault_lock);
	faults[api].at = at;
	faults[api].count = 0;
	faults[api].error = err;
	faults[api].file = file;
	faults[api].first = first;
	faults[api].last = last;
	fault_failed_name = NULL;
	__atomic_store_n(&fault_armed[api], 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&fault_lock);
}

void
fault_inject(enum fault_api api, unsigned long n, int err)
{
	arm(api, n, NULL, 0, 0, err);
}

void
fault_inject_at(enum fault_api api, const char *file, int first, int last,
		int err)
{
	arm(api, 0, file, first, last, err);
}

void
fault_disarm(enum fault_api api)
{
	pthread_mutex_lock(&fault_lock);
	__atomic_store_n(&fault_armed[api], 0, __ATOMIC_RELEASE);
	faults[api].at = 0;
	faults[api].file = NULL;
	pthread_mutex_unlock(&fault_lock);
}

unsigned long
fault_calls(enum fault_api api)
{
	unsigned long n;

	pthread_mutex_lock(&fault_lock);
	n = faults[api].count;
	pthread_mutex_unlock(&fault_lock);
	return n;
}

bool
fault_never_fails(const char *name)
{
	static const char *const never[] = { "Destroy",	     "Free",
					     "Unload",	     "PopCurrent",
					     "Release",	     "Unregister",
					     "GetErrorName", "GetErrorString" };

	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (strstr(name, never[i]))
			return true;
	return false;
}

/* __FILE__ (relative to the build directory: "../lib/x.c" in a VPATH
 * build) names the source file `file` ("lib/x.c"). */
static bool
same_file(const char *compiled, const char *file)
{
	size_t a = strlen(compiled), b = strlen(file);

	if (a == b)
		return !strcmp(compiled, file);
	return a > b && compiled[a - b - 1] == '/' &&
	       !strcmp(compiled + a - b, file);
}

static void
record_site(enum fault_api api, const char *name, const char *file, int line)
{
	for (size_t i = 0; i < injected_count; i++)
		if (injected_sites[i].api == api &&
		    injected_sites[i].line == line &&
		    !strcmp(injected_sites[i].file, file))
			return;
	if (injected_count < FAULT_MAX_SITES)
		injected_sites[injected_count++] = (struct fault_site){
			.api = api, .file = file, .line = line, .name = name
		};
}

bool
fault_check(enum fault_api api, const char *name, const char *file, int line)
{
	bool hit = false;

	if (fault_never_fails(name))
		return false;
	pthread_mutex_lock(&fault_lock);
	/* Disarmed between FAULT_HIT's check and here: not counted. */
	if (__atomic_load_n(&fault_armed[api], __ATOMIC_RELAXED)) {
		faults[api].count++;
		if ((faults[api].at && faults[api].count == faults[api].at) ||
		    (faults[api].file && line >= faults[api].first &&
		     line <= faults[api].last &&
		     same_file(file, faults[api].file))) {
			faults[api].at = 0;
			faults[api].file = NULL;
			fault_pending = faults[api].error;
			fault_failed_name = name;
			record_site(api, name, file, line);
			hit = true;
		}
	}
	pthread_mutex_unlock(&fault_lock);
	return hit;
}

int
fault_result(void)
{
	return fault_pending;
}

const char *
fault_failed_call(void)
{
	const char *name;

	pthread_mutex_lock(&fault_lock);
	name = fault_failed_name;
	pthread_mutex_unlock(&fault_lock);
	return name;
}

size_t
fault_sites_injected(enum fault_api api, struct fault_site *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&fault_lock);
	for (size_t i = 0; i < injected_count; i++) {
		if (injected_sites[i].api != api)
			continue;
		if (n < max)
			out[n] = injected_sites[i];
		n++;
	}
	pthread_mutex_unlock(&fault_lock);
	return n;
}

void
fault_sites_add(const struct fault_site *sites, size_t count)
{
	pthread_mutex_lock(&fault_lock);
	for (size_t i = 0; i < count; i++)
		record_site(sites[i].api, sites[i].name, sites[i].file,
			    sites[i].line);
	pthread_mutex_unlock(&fault_lock);
}

void
fault_sites_reset(void)
{
	pthread_mutex_lock(&fault_lock);
	injected_count = 0;
	pthread_mutex_unlock(&fault_lock);
}

/* The object type a create, allocate or release call names: "CreateImage"
 * and "DestroyImage" both name "Image", "AllocateMemory" and "FreeMemory"
 * "Memory". NULL for a call that makes or releases nothing. */
static const char *
vk_object_type(const char *name)
{
	static const char *const verbs[] = { "Create", "Allocate", "Destroy",
					     "Free" };

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strncmp(name, verbs[i], strlen(verbs[i])) &&
		    name[strlen(verbs[i])])
			return name + strlen(verbs[i]);
	return NULL;
}

/* Under fault_lock. */
static long *
vk_live_slot(const char *type)
{
	for (size_t i = 0; i < FAULT_MAX_VK_TYPES; i++) {
		if (!vk_objects[i].type[0]) {
			snprintf(vk_objects[i].type, sizeof(vk_objects[i].type),
				 "%s", type);
			return &vk_objects[i].live;
		}
		if (!strcmp(vk_objects[i].type, type))
			return &vk_objects[i].live;
	}
	return NULL;
}

static void
vk_count(const char *name, long delta)
{
	const char *type = vk_object_type(name);
	long *live;

	if (!type)
		return;
	pthread_mutex_lock(&fault_lock);
	live = vk_live_slot(type);
	if (live)
		*live += delta;
	pthread_mutex_unlock(&fault_lock);
}

int
fault_vk_created(const char *name, int res)
{
	/* VK_SUCCESS only: no create or allocate glcuda calls returns
	 * another success code with an object made. */
	if (res == 0)
		vk_count(name, 1);
	return res;
}

void
fault_vk_released(const char *name)
{
	vk_count(name, -1);
}

long
fault_vk_live(const char *type)
{
	long n = 0;

	pthread_mutex_lock(&fault_lock);
	for (size_t i = 0; i < FAULT_MAX_VK_TYPES && vk_objects[i].type[0]; i++)
		if (!strcmp(vk_objects[i].type, type))
			n = vk_objects[i].live;
	pthread_mutex_unlock(&fault_lock);
	return n;
}

long
fault_vk_live_total(void)
{
	long n = 0;

	pthread_mutex_lock(&fault_lock);
	for (size_t i = 0; i < FAULT_MAX_VK_TYPES && vk_objects[i].type[0]; i++)
		n += vk_objects[i].live;
	pthread_mutex_unlock(&fault_lock);
	return n;
}
