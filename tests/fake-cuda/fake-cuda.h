/*
 * The test controls of the fake CUDA driver (tests/fake-cuda/libfakecuda.so).
 * SPDX-License-Identifier: MIT
 *
 * The fake is loaded by glcuda's CUDA loader with dlopen(RTLD_LOCAL), so a
 * test reaches these with dlopen(same path, RTLD_NOLOAD) and dlsym().
 *
 * Environment:
 *   GLCUDA_FAKE_CUDA_UUID  the device UUID, 32 hex digits (dashes allowed);
 *                          set it to GL's GL_DEVICE_UUID_EXT so that glcuda
 *                          binds the fake device to the GL context.
 *   GLCUDA_FAKE_CUDA_FAIL  name:N[:code] — the N-th call (1-based) of the
 *                          entry point `name` (e.g. cuEventCreate) fails
 *                          with `code`, a CUresult name or number
 *                          (default CUDA_ERROR_OUT_OF_MEMORY). A sticky
 *                          code (CUDA_ERROR_LAUNCH_FAILED,
 *                          CUDA_ERROR_ILLEGAL_ADDRESS, ...) breaks the
 *                          context as on the real driver: every later call
 *                          that uses it fails with the same code, its
 *                          objects cannot be destroyed and queued host
 *                          functions never run, until the last reference
 *                          to the primary context is released (which
 *                          destroys the context and all it holds).
 *   GLCUDA_FAKE_CUDA_GL_INTEROP  1: the fake also offers
 *                          cuArray3DGetDescriptor, so that glcuda counts
 *                          GL textures among the images it can wrap; the
 *                          registration (cuGraphicsGLRegisterImage) is
 *                          still refused, as the real driver refuses a
 *                          format it does not register.
 */
#ifndef GLCUDA_FAKE_CUDA_H
#define GLCUDA_FAKE_CUDA_H

/* CUstream, CUexternalSemaphore: glcuda's declarations of the driver API. */
#include "loader/cuda-driver-api.h"

/* The fake GPU: one in-order queue per stream, run by a driver thread of
 * the fake (host functions run there, never on the caller's thread), with
 * the legacy NULL stream's semantics (it waits for the earlier work of
 * blocking streams, and they for its; CU_STREAM_NON_BLOCKING streams do
 * not synchronise with it). Kernels of tests/test-kernels.cu that the fake
 * knows (ring_transform, check_and_fill_N) run on the CPU on the imported
 * memory itself, which is mapped: the bytes GL renders.
 *
 * Every control lets the work enqueued before it that can run finish
 * first ("settles"), so counts read after it are exact.
 *
 * Synchronising calls wait for the work. Where it cannot finish because
 * the test holds the GPU (the gate, a stream hold) they return
 * CUDA_ERROR_NOT_READY at once (not CUDA_ERROR_LAUNCH_TIMEOUT, which on the
 * real driver is a sticky error that breaks the context); any other wait
 * gives up after GLCUDA_FAKE_CUDA_TIMEOUT_MS milliseconds (10000) with
 * CUDA_ERROR_NOT_READY and a line on stderr, so that a test never hangs. */

/* Close (1) or open (0) the gate of the fake GPU: while it is closed no
 * stream runs anything. A destroyed stream's queued work still runs, as
 * on the real driver. */
void fake_cuda_gate(int closed);
typedef void (*fake_cuda_gate_fn)(int closed);

/* Hold one stream (NULL: the legacy stream): its work stays queued.
 * FAKE_CUDA_HOLD_UNTIL_SYNC holds it only until some thread makes a
 * synchronising call (cuStreamSynchronize, cuEventSynchronize,
 * cuCtxSynchronize): a GPU whose work finishes only when someone waits for
 * it, so that a missing wait shows deterministically. Returns -1 for a
 * stream the fake does not know. */
enum { FAKE_CUDA_RUN = 0, FAKE_CUDA_HOLD = 1, FAKE_CUDA_HOLD_UNTIL_SYNC = 2 };
int fake_cuda_stream_hold(CUstream stream, int hold);
typedef int (*fake_cuda_stream_hold_fn)(CUstream stream, int hold);

/* fake_cuda_stream_hold's FAKE_CUDA_HOLD_UNTIL_WAITED holds a stream only
 * until a synchronising call waits for work that needs the stream's: a
 * cuEventSynchronize of an event recorded on it, a cuStreamSynchronize of
 * it, a cuCtxSynchronize, or one of these on work that waits for the
 * stream's (cuStreamWaitEvent, the legacy NULL stream's order). A
 * synchronisation on another stream, or on an event recorded on one that
 * does not wait for this one, leaves it held: a GPU still busy with it,
 * so that waiting for the wrong work shows deterministically. */
enum { FAKE_CUDA_HOLD_UNTIL_WAITED = 3 };

/* Work items queued on one stream. */
unsigned int fake_cuda_stream_pending(CUstream stream);
typedef unsigned int (*fake_cuda_stream_pending_fn)(CUstream stream);

/* Signal an imported semaphore as its other side (GL, Vulkan) would:
 * binary, one signal; timeline, the value. Returns -1 for a stale one. */
int fake_cuda_semaphore_signal(CUexternalSemaphore sem,
			       unsigned long long value);
typedef int (*fake_cuda_semaphore_signal_fn)(CUexternalSemaphore sem,
					     unsigned long long value);

/* A semaphore's state: binary, the signals not yet waited for; timeline,
 * its value; and the waits and signals enqueued on it. */
int fake_cuda_semaphore_state(CUexternalSemaphore sem,
			      unsigned long long *value,
			      unsigned long long *waits,
			      unsigned long long *signals);
typedef int (*fake_cuda_semaphore_state_fn)(CUexternalSemaphore sem,
					    unsigned long long *value,
					    unsigned long long *waits,
					    unsigned long long *signals);

/* Let everything that can run, run. */
void fake_cuda_settle(void);

/* Objects alive: external memory, mipmapped arrays and their levels,
 * surface and texture objects, external semaphores, streams, events,
 * modules, and memory from cuMemAlloc / cuMemAllocHost / cuMemHostAlloc.
 * Not libraries (cuLibraryLoadData), which belong to no context:
 * fake_cuda_libraries counts them. */
unsigned int fake_cuda_live_objects(void);
typedef unsigned int (*fake_cuda_count_fn)(void);

/* References held on the primary context. */
unsigned int fake_cuda_primary_refs(void);

/* Objects freed by the destruction of a primary context that still held
 * them (a leak, unless the context was broken), since load. */
unsigned int fake_cuda_reclaimed_objects(void);

/* The context's sticky error, or 0 (CUDA_SUCCESS) while it works. */
int fake_cuda_sticky_error(void);

/* Work items queued on all streams (held, gated or waiting). */
unsigned int fake_cuda_pending(void);

/* Kernel launches and host functions run since load. */
unsigned int fake_cuda_launches(void);
unsigned int fake_cuda_host_fns_run(void);
/* Of the launches, those of a library's kernel (a CUkernel); and the 3D
 * copies (cuMemcpy3DAsync) enqueued, since load. */
unsigned int fake_cuda_library_launches(void);
unsigned int fake_cuda_memcpy3d_calls(void);
/* Libraries loaded (cuLibraryLoadData), since load: the fake never
 * unloads one. */
unsigned int fake_cuda_libraries(void);

/* The log of work enqueued on the fake's streams (fake-cuda-gst.c), in
 * enqueue order, since load: @call the entry point (cuMemcpy3DAsync,
 * cuLaunchKernel, cuEventRecord, cuWaitExternalSemaphoresAsync, ...),
 * @kernel a launch's function, @stream its stream (NULL: the legacy
 * default stream, CU_STREAM_LEGACY too). A mark (fake_cuda_work_mark)
 * has @mark set and @call its text: a point on the CPU between two
 * enqueues. The log keeps the last 65536 entries. */
struct fake_cuda_work {
	const char *call;
	const char *kernel;
	CUstream stream;
	int mark;
};
/* Entries logged since load. */
unsigned int fake_cuda_work_count(void);
/* Entry @i (0: the first since load) in *out; -1 if it is not (or no
 * longer) kept. */
int fake_cuda_work_get(unsigned int i, struct fake_cuda_work *out);
typedef int (*fake_cuda_work_get_fn)(unsigned int i,
				     struct fake_cuda_work *out);
/* Logs a mark; @what must outlive the log (a string literal). */
void fake_cuda_work_mark(const char *what);
typedef void (*fake_cuda_work_mark_fn)(const char *what);

#endif
