/*
 * The base layer of libglcuda: what every other layer may use, and which
 * itself uses nothing of glcuda but its own files: error.c, log.c, util.c,
 * driver-lock.c and format.c (declared here), fault.c and seam.c (the
 * tests' build only: fault.h, seam.h) and loader/cuda-driver.c (the
 * opening of libcuda that the library and the programs share:
 * loader/cuda-driver.h). lib/layers.txt lists the layers and the order in
 * which their files may call each other.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_BASE_H
#define GLCUDA_BASE_H

#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>
/* glcuda's own declarations of the CUDA driver API (no toolkit needed). */
#include "loader/cuda-driver-api.h"

#include <glcuda/glcuda.h>

#include "error.h"
#include "util.h"

#define GLCUDA_EXPORT __attribute__((visibility("default")))
#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

/* error.c ---------------------------------------------------------------- */

/* Clear the thread's last error at the start of a public call. */
void error_clear(void);

const char *gl_error_name(GLenum err);
const char *egl_error_name(EGLint err);

/* driver-lock.c ---------------------------------------------------------- */

/* Around the driver calls that create or destroy EGL displays, EGL
 * contexts and Vulkan devices (driver-lock.c says why). */
void driver_lifecycle_lock(void);
void driver_lifecycle_unlock(void);

/* log.c ------------------------------------------------------------------ */

/* The priority GLCUDA_LOG asks for, or fallback. */
enum glcuda_log_priority
log_priority_from_env(enum glcuda_log_priority fallback);
void log_default(enum glcuda_log_priority prio, void *user_data,
			const char *fmt, va_list args) GLCUDA_PRINTF(3, 0);

/* format.c --------------------------------------------------------------- */

struct format_info {
	enum glcuda_format format;
	const char *name;
	GLenum gl_internal_format;
	/* GL format/type for glReadPixels/glTexSubImage2D of this format. */
	GLenum gl_format, gl_type;
	int vk_format; /* VkFormat */
	CUarray_format cu_format;
	unsigned int cu_channels;
	unsigned int bytes_per_pixel;
	bool is_float, is_srgb;
	/* A depth format: a depth attachment in GL and Vulkan, one float
	 * channel in CUDA. */
	bool is_depth;
};

const struct format_info *format_info(enum glcuda_format format);
/* The format of a GL sized internal format, or of a CUDA array layout
 * (never sRGB or RGB10_A2, which CUDA arrays cannot tell apart); NULL if
 * glcuda has no name for it. */
const struct format_info *format_info_from_gl(GLenum internal_format);
const struct format_info *format_info_from_cuda(CUarray_format format,
						unsigned int channels);

#endif
