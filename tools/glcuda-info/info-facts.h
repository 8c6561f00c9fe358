/*
 * The facts glcuda-info gathers (info-collect.c) and prints as text
 * (info-text.c) or JSON (info-json.c): gathered first into struct report,
 * so both forms say the same.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_INFO_FACTS_H
#define GLCUDA_INFO_FACTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <glcuda/glcuda.h>
#include <glcuda/glcuda-diag.h>

#include "array-length.h"
#include "extensions.h"


#define MAX_EGL_DEVICES 16
#define MAX_VK_DEVICES 16
#define MAX_CUDA_DEVICES 16
#define N_EGL_CLIENT_EXTS 6
#define N_EGL_DISPLAY_EXTS 8

/* Extensions that matter, with why. */
struct ext_info {
	const char *name;
	const char *why;
};

extern const struct ext_info egl_client_exts[N_EGL_CLIENT_EXTS];
extern const struct ext_info egl_display_exts[N_EGL_DISPLAY_EXTS];

enum {
	GL_EXT_MEMORY_OBJECT,
	GL_EXT_MEMORY_OBJECT_FD,
	GL_EXT_SEMAPHORE,
	GL_EXT_SEMAPHORE_FD,
	GL_NV_TIMELINE_SEMAPHORE,
	GL_EXT_COUNT,
};

extern const struct ext_info gl_exts[GL_EXT_COUNT];

struct context_facts {
	bool tried;
	int error; /* 0: the context was made */
	char message[1024];
	char description[384];
	char egl_vendor[128];
	char egl_version[128];
	bool egl_ext[ARRAY_LENGTH(egl_display_exts)];
	char gl_version[160];
	char gl_renderer[160];
	char gl_vendor[160];
	int major, minor;
	/* "core", "compatibility" (GL_CONTEXT_PROFILE_MASK), "" for ES. */
	const char *profile;
	bool ext[GL_EXT_COUNT];
	bool has_uuids;
	uint8_t device_uuid[16];
	uint8_t driver_uuid[16];
};

struct verdict {
	bool ok;
	enum glcuda_sync_mode sync_mode;
	uint32_t sync_modes_supported;
	uint32_t image_kinds_supported, image_kinds_cpu_wait;
	int error;
	char message[1024];
	const char *advice;
	const char *stage; /* "glcuda_headless_new" or "glcuda_device_new" */
};

/* Whether interop works on one EGL device: a context of the verdict's API
 * made on it here, then glcuda_device_new(). */
struct device_verdict {
	bool tried;
	int error; /* 0: interop works */
	const char *stage; /* "context" or "glcuda_device_new" */
	char message[1024];
	char renderer[160];
	int cuda_ordinal; /* the device's CUDA ordinal when it works */
	enum glcuda_sync_mode sync_mode;
};

struct report {
	bool gles;
	int cuda_ordinal;

	bool client_ext[ARRAY_LENGTH(egl_client_exts)];
	int egl_device_error; /* < 0: devices could not be listed */
	char egl_device_message[256];
	int egl_device_count;
	struct glcuda_diag_egl_device egl_devices[MAX_EGL_DEVICES];
	struct device_verdict egl_verdicts[MAX_EGL_DEVICES];

	/* The contexts glcuda_headless_new() makes: OpenGL core, OpenGL ES,
	 * OpenGL compatibility (GLCUDA_HEADLESS_FLAG_COMPATIBILITY, for
	 * legacy renderers). */
	struct context_facts gl, gles_ctx, compat;

	int vk_error;
	char vk_message[512];
	int vk_count;
	struct glcuda_diag_vk_device vk[MAX_VK_DEVICES];

	int cuda_error;
	char cuda_message[512];
	int cuda_driver_version;
	int cuda_count;
	struct glcuda_diag_cuda_device cuda[MAX_CUDA_DEVICES];

	struct verdict verdict;
};

static inline void
copy_string(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* info-collect.c */
void collect_egl(struct report *r);
void collect_context(struct context_facts *f, uint32_t flags,
		     int cuda_ordinal);
void collect_vulkan(struct report *r);
void collect_cuda(struct report *r);
void collect_verdict(struct report *r);
void collect_device_verdicts(struct report *r);

/* info-report.c: the context whose UUIDs are matched against Vulkan's and
 * CUDA's, NULL when no context reports them. */
const struct context_facts *uuid_context(const struct report *r);
/* The EGL device has EGL_NV_device_cuda but names no CUDA device: a GPU
 * CUDA cannot see (CUDA_VISIBLE_DEVICES hides it). */
bool egl_device_hidden_from_cuda(const struct glcuda_diag_egl_device *e);
/* The first EGL device on which interop works, or -1. */
int first_working_egl_device(const struct report *r);

void print_text(FILE *out, const struct report *r);
void print_json(FILE *out, const struct report *r);

#endif
