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
 *   GLCUDA_FAKE_CUDA_FAIL  name:N — the N-th call (1-based) of the entry
 *                          point `name` (e.g. cuEventCreate) fails with
 *                          CUDA_ERROR_OUT_OF_MEMORY.
 */
#ifndef GLCUDA_FAKE_CUDA_H
#define GLCUDA_FAKE_CUDA_H

/* Close (1) or open (0) the gate of the fake GPU. While it is closed, work
 * enqueued on streams (host functions, event records, kernel launches,
 * async copies) is queued instead of run; opening it runs the queue in
 * order, on the calling thread. Synchronising on queued work does not
 * block: it returns CUDA_ERROR_LAUNCH_TIMEOUT. */
void fake_cuda_gate(int closed);
typedef void (*fake_cuda_gate_fn)(int closed);

/* Objects alive: external memory, mipmapped arrays and their levels,
 * surface and texture objects, external semaphores, streams, events, and
 * memory from cuMemAlloc / cuMemAllocHost / cuMemHostAlloc. */
unsigned int fake_cuda_live_objects(void);
typedef unsigned int (*fake_cuda_count_fn)(void);

/* References held on the primary context. */
unsigned int fake_cuda_primary_refs(void);

/* Work items queued behind the closed gate. */
unsigned int fake_cuda_pending(void);

/* Kernel launches and host functions run since load. */
unsigned int fake_cuda_launches(void);
unsigned int fake_cuda_host_fns_run(void);

#endif
