/*
 * glcuda-trace: the table of the driver calls glcuda makes per frame, on
 * their own.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "trace.h"

/*
 * What the driver calls glcuda makes per frame cost the CPU on their own
 * (thread CPU time, median of 500): the floor under glcuda's in-call CPU.
 */
static void CUDA_CB
empty_host_fn(void *data)
{
	(void)data;
}

void
driver_call_costs(CUstream stream)
{
	enum { N = 500 };
	struct stats s[5] = { { 0 } };
	static const char *const names[5] = {
		"cuCtxPushCurrent + cuCtxPopCurrent",
		"eglGetCurrentContext",
		"glFlush after a clear",
		"cuEventRecord",
		"cuLaunchHostFunc (an empty function)",
	};
	CUcontext ctx = NULL, popped;
	CUevent ev = NULL;

	if (CU(cuEventCreate)(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
		ev = NULL;
	CU(cuCtxPopCurrent)(&ctx);
	for (int i = 0; i < N; i++) {
		uint64_t c0 = clock_thread_cpu_ns();
		CU(cuCtxPushCurrent)(ctx);
		CU(cuCtxPopCurrent)(&popped);
		stats_add(&s[0], (double)(clock_thread_cpu_ns() - c0) / 1e3);
		c0 = clock_thread_cpu_ns();
		(void)eglGetCurrentContext();
		stats_add(&s[1], (double)(clock_thread_cpu_ns() - c0) / 1e3);
		glClear(GL_COLOR_BUFFER_BIT);
		c0 = clock_thread_cpu_ns();
		glFlush();
		stats_add(&s[2], (double)(clock_thread_cpu_ns() - c0) / 1e3);
		if (ev) {
			CU(cuCtxPushCurrent)(ctx);
			c0 = clock_thread_cpu_ns();
			CU(cuEventRecord)(ev, stream);
			stats_add(&s[3],
				  (double)(clock_thread_cpu_ns() - c0) / 1e3);
			if (CU(cuLaunchHostFunc)) {
				c0 = clock_thread_cpu_ns();
				CU(cuLaunchHostFunc)
				(stream, empty_host_fn, NULL);
				stats_add(&s[4],
					  (double)(clock_thread_cpu_ns() - c0) /
						  1e3);
			}
			CU(cuCtxPopCurrent)(&popped);
		}
	}
	glFinish();
	CU(cuCtxPushCurrent)(ctx);
	CU(cuStreamSynchronize)(stream);
	if (ev)
		CU(cuEventDestroy)(ev);
	printf("\nDriver calls on their own, thread CPU µs per call (median of "
	       "%d):\n\n",
	       N);
	printf("| call | µs |\n|---|--:|\n");
	for (int i = 0; i < 5; i++) {
		double mean, p50, p99;
		if (!s[i].n)
			continue;
		qsort(s[i].v, s[i].n, sizeof(double), stats_cmp_double);
		stats_summary(&s[i], &mean, &p50, &p99);
		printf("| %s | %.2f |\n", names[i], p50);
		stats_free(&s[i]);
	}
}
