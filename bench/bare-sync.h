/*
 * The bare paths' own semaphores (glcuda-bench's ring, glcuda-tensor-bench's
 * copies): Vulkan timeline semaphores exported as OPAQUE_FD and imported
 * into GL (GL_NV_timeline_semaphore) and CUDA, as glcuda imports its own,
 * and GL's semaphore call as glcuda makes it. Nothing of glcuda's: the bare
 * paths make by hand the driver calls glcuda makes, on these.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_BENCH_BARE_SYNC_H
#define GLCUDA_BENCH_BARE_SYNC_H

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <vulkan/vulkan.h>

#include "cuda-table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most textures one GL semaphore call names here. */
#define BARE_MAX_TEXTURES 4

/* The Vulkan device the semaphores come from. */
struct bare_vulkan {
	VkInstance instance;
	VkDevice device;
	PFN_vkGetSemaphoreFdKHR get_fd;
};

/* One direction of a hand-off: a Vulkan timeline imported into GL and
 * CUDA, and the last value signalled on it. */
struct bare_semaphore {
	VkSemaphore vk;
	GLuint gl;
	CUexternalSemaphore cu;
	uint64_t value;
};

/* What the bare paths need of GL: 0, or -1 with the reason in msg. */
int bare_gl_check_extensions(char *msg, size_t size);

/* The Vulkan device with the GL context's UUID (16 bytes), with exportable
 * timeline semaphores: 0, or -1 with the reason in msg (what is made is
 * left for bare_vulkan_free). */
int bare_vulkan_new(struct bare_vulkan *v, const uint8_t *uuid, char *msg,
		    size_t size);
void bare_vulkan_free(struct bare_vulkan *v);

/* A timeline semaphore, one exported fd imported into GL and another into
 * CUDA (the CUDA context current): 0, or -1 with the reason in msg (what is
 * made is left for bare_semaphore_free). */
int bare_semaphore_new(struct bare_vulkan *v, struct bare_semaphore *s,
		       char *msg, size_t size);
/* With GL current; nothing may still wait on or signal it. */
void bare_semaphore_free(struct bare_vulkan *v, struct bare_semaphore *s);

/* GL's semaphore call as glcuda makes it: the value (s->value), then the
 * signal or the wait naming the textures, each in the GENERAL layout. */
void bare_gl_semaphore(bool signal, const struct bare_semaphore *s,
		       const GLuint *textures, unsigned int count);

#endif
