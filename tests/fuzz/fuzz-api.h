/*
 * The API fuzzing harness, shared by the libFuzzer target and the corpus
 * replay (tests/fuzz/replay.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_FUZZ_API_H
#define GLCUDA_FUZZ_API_H

#include <stddef.h>
#include <stdint.h>

/* Exit status of LLVMFuzzerInitialize when no EGL display or GL context can
 * be made: automake's SKIP. */
#define FUZZ_API_NO_CONTEXT 77

/* libFuzzer's entry points. Initialize makes the process's GL context
 * current; TestOneInput runs one input and destroys all it made. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the inputs run so far got done: calls that succeeded. The replay
 * prints them, and checks that the corpus still reaches rings and
 * hand-offs where a CUDA driver (the fake, tests/fake-cuda) is loaded. */
struct fuzz_api_reached {
	unsigned long cuda_devices, images, handoffs_to_cuda, handoffs_to_gl,
		rings, submits, completes, gl_waits, releases;
};
extern struct fuzz_api_reached fuzz_api_reached;

/* Release the GL context (the replay's exit; libFuzzer never returns). */
void fuzz_api_fini(void);

#endif
