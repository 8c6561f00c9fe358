/*
 * An opt-in profile of the module's export and copy paths: with
 * GLCUDA_PY_PROFILE=1 in the environment (read once, when the module is
 * imported), __dlpack__, __dlpack_device__, copy_to and copy_from add the
 * wall (CLOCK_MONOTONIC) and thread CPU (CLOCK_THREAD_CPUTIME_ID) time of
 * each stage of a call to a per-process table, which glcuda._profile()
 * returns and resets. Unset, a call costs a test of a flag per stage.
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int py_profile_on;

/* By enum py_stage. */
static const char *const stage_names[PY_STAGE_COUNT] = {
	[PY_STAGE_DLPACK_ARGS] = "dlpack.args",
	[PY_STAGE_DLPACK_STREAM] = "dlpack.stream",
	[PY_STAGE_DLPACK_CHECKS] = "dlpack.checks",
	[PY_STAGE_DLPACK_LOCK] = "dlpack.lock",
	[PY_STAGE_DLPACK_EXPORT] = "dlpack.export",
	[PY_STAGE_DLPACK_UNLOCK] = "dlpack.unlock",
	[PY_STAGE_DLPACK_CAPSULE] = "dlpack.capsule",
	[PY_STAGE_DLPACK_TOTAL] = "dlpack.total",
	[PY_STAGE_DLPACK_DEVICE] = "dlpack_device.total",
	[PY_STAGE_CAPSULE_FREE] = "dlpack.capsule_free",
#define COPY_NAMES(base, prefix)                               \
	[base + PY_COPY_ARGS] = prefix ".args",                \
	[base + PY_COPY_STREAM] = prefix ".stream",            \
	[base + PY_COPY_CHECKS] = prefix ".checks",            \
	[base + PY_COPY_TENSOR] = prefix ".tensor",            \
	[base + PY_COPY_LAYOUT] = prefix ".layout",            \
	[base + PY_COPY_LOCK] = prefix ".lock",                \
	[base + PY_COPY_LIBRARY] = prefix ".library",          \
	[base + PY_COPY_UNLOCK] = prefix ".unlock",            \
	[base + PY_COPY_RELEASE] = prefix ".release",          \
	[base + PY_COPY_TOTAL] = prefix ".total"
	COPY_NAMES(PY_STAGE_COPY_TO, "copy_to"),
	COPY_NAMES(PY_STAGE_COPY_FROM, "copy_from"),
#undef COPY_NAMES
};

/* Totals in nanoseconds, added to from any thread (the library's stage
 * runs without the GIL). */
static struct {
	uint64_t count, wall_ns, cpu_ns;
} table[PY_STAGE_COUNT];

static uint64_t
clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
py_profile_init(void)
{
	const char *e = getenv("GLCUDA_PY_PROFILE");

	py_profile_on = e && !strcmp(e, "1");
}

void
py_profile_start(struct py_profile *p)
{
	p->wall0 = p->wall = clock_ns(CLOCK_MONOTONIC);
	p->cpu0 = p->cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void
add(enum py_stage stage, uint64_t wall_ns, uint64_t cpu_ns)
{
	__atomic_fetch_add(&table[stage].count, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&table[stage].wall_ns, wall_ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&table[stage].cpu_ns, cpu_ns, __ATOMIC_RELAXED);
}

void
py_profile_record(struct py_profile *p, enum py_stage stage)
{
	uint64_t wall = clock_ns(CLOCK_MONOTONIC);
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	add(stage, wall - p->wall, cpu - p->cpu);
	p->wall = wall;
	p->cpu = cpu;
}

void
py_profile_record_total(struct py_profile *p, enum py_stage stage)
{
	add(stage, clock_ns(CLOCK_MONOTONIC) - p->wall0,
	    clock_ns(CLOCK_THREAD_CPUTIME_ID) - p->cpu0);
}

/* glcuda._profile(): {stage: {"count", "wall_us", "cpu_us"}} of the
 * stages run since the last call, which it resets; None when off. */
PyObject *
py_profile_take(PyObject *module, PyObject *unused)
{
	PyObject *result;

	if (!py_profile_on)
		Py_RETURN_NONE;
	result = PyDict_New();
	for (int s = 0; result && s < PY_STAGE_COUNT; s++) {
		uint64_t n = __atomic_exchange_n(&table[s].count, 0,
						 __ATOMIC_RELAXED);
		uint64_t wall = __atomic_exchange_n(&table[s].wall_ns, 0,
						    __ATOMIC_RELAXED);
		uint64_t cpu = __atomic_exchange_n(&table[s].cpu_ns, 0,
						   __ATOMIC_RELAXED);
		PyObject *entry;

		if (!n)
			continue;
		entry = Py_BuildValue("{s:K,s:d,s:d}", "count",
				      (unsigned long long)n, "wall_us",
				      wall / 1e3, "cpu_us", cpu / 1e3);
		if (!entry || PyDict_SetItemString(result, stage_names[s],
						   entry) < 0)
			Py_CLEAR(result);
		Py_XDECREF(entry);
	}
	return result;
}
