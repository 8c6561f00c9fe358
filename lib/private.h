/*
 * Internal declarations shared by the layers of libglcuda.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_PRIVATE_H
#define GLCUDA_PRIVATE_H

#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <glcuda/glcuda.h>

#include "error.h"
#include "util.h"
#include "loader/cuda-loader.h"
#include "gl/gl-importer.h"

#define GLCUDA_EXPORT __attribute__((visibility("default")))
#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

struct vk_exporter;

/* A device: the caller's EGL context bound to one Vulkan device and one
 * CUDA device with the same UUID. */
struct glcuda_device {
	EGLDisplay display;
	EGLContext context;
	struct glcuda_caps caps;

	/* Log handler, last error and loss: handed down to the layers
	 * below, which report through it. */
	struct error_sink errors;

	struct gl_state gl;
	struct vk_exporter *vk;

	/* CUDA. has_cuda is false only for the GL+Vulkan devices that the
	 * CUDA-free internal tests make (device_new_internal). */
	bool has_cuda;
	CUdevice cu_device;
	CUcontext cu_context;
	bool cu_context_is_primary;

	unsigned int live_images;
	unsigned int live_rings;
	/* What objects of the layers above left behind for the CUDA context:
	 * the completion blocks of destroyed rings whose host functions had
	 * not all run. Their owner (ring.c) keeps the list and installs reap;
	 * the device only calls reap around releasing the context, so it
	 * never depends on the rings. */
	struct device_orphans {
		void *head;
		/* Free what may go; context_gone: the CUDA context was
		 * destroyed, so nothing queued on it will ever run. Returns
		 * how many remain. */
		unsigned int (*reap)(struct glcuda_device *dev, bool context_gone);
	} orphans;
};

/* error.c ---------------------------------------------------------------- */

/* Clear the thread's last error at the start of a public call. */
void glcuda_clear_error(void);

const char *gl_error_name(GLenum err);
const char *egl_error_name(EGLint err);

/* driver-lock.c ---------------------------------------------------------- */

/* Around the driver calls that create or destroy EGL displays, EGL
 * contexts and Vulkan devices (driver-lock.c says why). */
void driver_lifecycle_lock(void);
void driver_lifecycle_unlock(void);

/* log.c ------------------------------------------------------------------ */

/* The priority GLCUDA_LOG asks for, or fallback. */
enum glcuda_log_priority glcuda_log_priority_from_env(enum glcuda_log_priority fallback);
void glcuda_log_default(enum glcuda_log_priority prio, void *user_data,
			const char *fmt, va_list args) GLCUDA_PRINTF(3, 0);

/* The layers above the device report through the device's sink. */
static inline struct error_sink *
device_errors(const struct glcuda_device *dev)
{
	return dev ? (struct error_sink *)&dev->errors : NULL;
}

#define glcuda_fail(dev, ...) error_fail(device_errors(dev), __VA_ARGS__)
#define glcuda_log(dev, ...) error_log(device_errors(dev), __VA_ARGS__)
#define log_debug(dev, ...) glcuda_log((dev), GLCUDA_LOG_PRIORITY_DEBUG, __VA_ARGS__)
#define log_info(dev, ...) glcuda_log((dev), GLCUDA_LOG_PRIORITY_INFO, __VA_ARGS__)
#define log_error(dev, ...) glcuda_log((dev), GLCUDA_LOG_PRIORITY_ERROR, __VA_ARGS__)

/* device.c --------------------------------------------------------------- */

/* glcuda_device_new with the CUDA part optional: want_cuda=false makes a
 * GL+Vulkan device for the internal tests that run without a CUDA driver.
 * Public callers always get want_cuda=true. */
int device_new_internal(EGLDisplay display, EGLContext context,
			const struct glcuda_device_options *options,
			bool want_cuda, struct glcuda_device **out);

/* Check the device's context is current and the device usable. Returns 0 or
 * a recorded error. Every public call that touches GL starts with it. */
int device_check_gl(struct glcuda_device *dev, const char *what);
/* GLCUDA_ERROR_DEVICE_LOST (recorded) once the device was lost, else 0:
 * for the public calls that do work without GL. */
int device_check_lost(struct glcuda_device *dev, const char *what);

/* Push/pop the device's CUDA context around CUDA calls. */
int device_push_cuda(struct glcuda_device *dev, const char *what);
void device_pop_cuda(struct glcuda_device *dev);

/* A CUDA failure, recorded on the device (cuda_call_fail says how). */
#define device_cuda_fail(dev, ...) cuda_call_fail(device_errors(dev), __VA_ARGS__)

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
};

const struct format_info *format_info(enum glcuda_format format);
/* The format of a GL sized internal format, or of a CUDA array layout
 * (never sRGB or RGB10_A2, which CUDA arrays cannot tell apart); NULL if
 * glcuda has no name for it. */
const struct format_info *format_info_from_gl(GLenum internal_format);
const struct format_info *format_info_from_cuda(CUarray_format format, unsigned int channels);

#endif
