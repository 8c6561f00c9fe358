/*
 * Clocks of the tools (see clock.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <sys/resource.h>
#include <time.h>

#include "clock.h"

static uint64_t
read_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
clock_now_ns(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

uint64_t
clock_thread_cpu_ns(void)
{
	return read_clock(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t
clock_process_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
		       1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
		       1000u;
}

double
clock_now_s(void)
{
	return (double)clock_now_ns() * 1e-9;
}

double
clock_process_cpu_s(void)
{
	return (double)clock_process_cpu_ns() * 1e-9;
}
