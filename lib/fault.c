/*
 * Fault injection (fault.h says the rule). Only in the tests' build.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
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
} faults[FAULT_API_COUNT];
/* The error of the call failed on this thread. */
static __thread int fault_pending;
/* The entry point that fault_check failed last (names are string literals). */
static const char *fault_failed_name;

void
fault_inject(enum fault_api api, unsigned long n, int err)
{
	pthread_mutex_lock(&fault_lock);
	faults[api].at = n;
	faults[api].count = 0;
	faults[api].error = err;
	fault_failed_name = NULL;
	__atomic_store_n(&fault_armed[api], 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&fault_lock);
}

void
fault_disarm(enum fault_api api)
{
	pthread_mutex_lock(&fault_lock);
	__atomic_store_n(&fault_armed[api], 0, __ATOMIC_RELEASE);
	faults[api].at = 0;
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

static bool
never_fails(const char *name)
{
	static const char *const never[] = { "Destroy", "Free", "Unload", "PopCurrent",
					     "Release", "Unregister", "GetErrorName",
					     "GetErrorString" };

	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (strstr(name, never[i]))
			return true;
	return false;
}

bool
fault_check(enum fault_api api, const char *name)
{
	bool hit = false;

	if (never_fails(name))
		return false;
	pthread_mutex_lock(&fault_lock);
	/* Disarmed between FAULT_HIT's check and here: not counted. */
	if (__atomic_load_n(&fault_armed[api], __ATOMIC_RELAXED)) {
		faults[api].count++;
		if (faults[api].at && faults[api].count == faults[api].at) {
			faults[api].at = 0;
			fault_pending = faults[api].error;
			fault_failed_name = name;
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
