/*
 * The fake CUDA driver's test controls (tests/fake-cuda/fake-cuda.h) as
 * the suites that drive it call them: `fake`, filled in by resolve_fake()
 * once glcuda has loaded the fake. Included by those suites.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TEST_FAKE_CONTROLS_H
#define GLCUDA_TEST_FAKE_CONTROLS_H

#include "test-common.h"
#include "fake-cuda/fake-cuda-test.h"
#include "fake-cuda/fake-cuda.h"

static struct {
	void (*gate)(int closed);
	void (*settle)(void);
	fake_cuda_count_fn live_objects, primary_refs, pending, host_fns_run,
		reclaimed;
	fake_cuda_count_fn library_launches, memcpy3d_calls, libraries;
	int (*sticky_error)(void);
	fake_cuda_stream_hold_fn hold;
	fake_cuda_stream_pending_fn stream_pending;
	fake_cuda_semaphore_signal_fn sem_signal;
	fake_cuda_semaphore_state_fn sem_state;
} fake;

/* Every control; the test fails, naming the first one missing, where the
 * fake is not loaded. */
static void
resolve_fake(void)
{
#define CONTROL(member, name)                                                  \
	do {                                                                   \
		fake.member =                                                  \
			(__typeof__(fake.member))fake_cuda_control(name);      \
		ck_assert_msg(fake.member,                                     \
			      "the fake CUDA driver %s is not loaded (no %s)", \
			      fake_cuda_path, name);                           \
	} while (0)
	CONTROL(gate, "fake_cuda_gate");
	CONTROL(settle, "fake_cuda_settle");
	CONTROL(live_objects, "fake_cuda_live_objects");
	CONTROL(primary_refs, "fake_cuda_primary_refs");
	CONTROL(pending, "fake_cuda_pending");
	CONTROL(host_fns_run, "fake_cuda_host_fns_run");
	CONTROL(reclaimed, "fake_cuda_reclaimed_objects");
	CONTROL(library_launches, "fake_cuda_library_launches");
	CONTROL(memcpy3d_calls, "fake_cuda_memcpy3d_calls");
	CONTROL(libraries, "fake_cuda_libraries");
	CONTROL(sticky_error, "fake_cuda_sticky_error");
	CONTROL(hold, "fake_cuda_stream_hold");
	CONTROL(stream_pending, "fake_cuda_stream_pending");
	CONTROL(sem_signal, "fake_cuda_semaphore_signal");
	CONTROL(sem_state, "fake_cuda_semaphore_state");
#undef CONTROL
}

#endif
