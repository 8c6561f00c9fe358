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
 */
#ifndef GLCUDA_FAKE_CUDA_H
#define GLCUDA_FAKE_CUDA_H

/* Close (1) or open (0) the gate of the fake GPU. While it is closed, work
 * enqueued on streams (host functions, event records, kernel launches,
 * async copies) is queued instead of run; opening it runs the queue in
 * order, on the calling thread. Synchronising on queued work does not
 * block: it returns CUDA_ERROR_NOT_READY (not CUDA_ERROR_LAUNCH_TIMEOUT,
 * which on the real driver is a sticky error that breaks the context).
 * A destroyed stream's queued work still runs, as on the real driver. */
void fake_cuda_gate(int closed);
typedef void (*fake_cuda_gate_fn)(int closed);

/* Objects alive: external memory, mipmapped arrays and their levels,
 * surface and texture objects, external semaphores, streams, events, and
 * memory from cuMemAlloc / cuMemAllocHost / cuMemHostAlloc. */
unsigned int fake_cuda_live_objects(void);
typedef unsigned int (*fake_cuda_count_fn)(void);

/* References held on the primary context. */
unsigned int fake_cuda_primary_refs(void);

/* Objects freed by the destruction of a primary context that still held
 * them (a leak, unless the context was broken), since load. */
unsigned int fake_cuda_reclaimed_objects(void);

/* The context's sticky error, or 0 (CUDA_SUCCESS) while it works. */
int fake_cuda_sticky_error(void);

/* Work items queued behind the closed gate. */
unsigned int fake_cuda_pending(void);

/* Kernel launches and host functions run since load. */
unsigned int fake_cuda_launches(void);
unsigned int fake_cuda_host_fns_run(void);

#endif
