/*
 * Error codes, their names and texts, and the detailed last-error messages.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "export.h"
#include "array-length.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static __thread char thread_last_error[1024];

struct error_text {
	int code;
	const char *name;
	const char *text;
};

static const struct error_text error_texts[] = {
	{ GLCUDA_SUCCESS, "GLCUDA_SUCCESS", "Success" },
	{ GLCUDA_ERROR_NO_CUDA_DRIVER, "GLCUDA_ERROR_NO_CUDA_DRIVER",
	  "No CUDA driver (libcuda.so.1) could be loaded or initialised" },
	{ GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE,
	  "GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE",
	  "No CUDA device is the GPU the GL context renders on" },
	{ GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE,
	  "GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE",
	  "No Vulkan device is the GPU the GL context renders on" },
	{ GLCUDA_ERROR_DRIVER_MISMATCH, "GLCUDA_ERROR_DRIVER_MISMATCH",
	  "GL and Vulkan use different drivers for the same GPU" },
	{ GLCUDA_ERROR_MISSING_EGL_EXTENSION,
	  "GLCUDA_ERROR_MISSING_EGL_EXTENSION",
	  "A required EGL extension is missing" },
	{ GLCUDA_ERROR_MISSING_GL_EXTENSION,
	  "GLCUDA_ERROR_MISSING_GL_EXTENSION",
	  "A required GL extension is missing" },
	{ GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
	  "GLCUDA_ERROR_MISSING_VULKAN_EXTENSION",
	  "A required Vulkan extension or feature is missing" },
	{ GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE,
	  "GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE",
	  "The driver cannot export or import this external handle type" },
	{ GLCUDA_ERROR_UNSUPPORTED_FORMAT, "GLCUDA_ERROR_UNSUPPORTED_FORMAT",
	  "The driver cannot share images of this format" },
	{ GLCUDA_ERROR_GL_TOO_OLD, "GLCUDA_ERROR_GL_TOO_OLD",
	  "The GL context is older than GL 4.5 core or GLES 3.0" },
	{ GLCUDA_ERROR_NO_CURRENT_CONTEXT, "GLCUDA_ERROR_NO_CURRENT_CONTEXT",
	  "The device's EGL context is not current on this thread" },
	{ GLCUDA_ERROR_NO_VULKAN, "GLCUDA_ERROR_NO_VULKAN",
	  "No Vulkan loader or driver is available" },
	{ GLCUDA_ERROR_GL, "GLCUDA_ERROR_GL", "A GL call failed" },
	{ GLCUDA_ERROR_VULKAN, "GLCUDA_ERROR_VULKAN", "A Vulkan call failed" },
	{ GLCUDA_ERROR_CUDA, "GLCUDA_ERROR_CUDA", "A CUDA call failed" },
	{ GLCUDA_ERROR_EGL, "GLCUDA_ERROR_EGL", "An EGL call failed" },
	{ GLCUDA_ERROR_BAD_STATE, "GLCUDA_ERROR_BAD_STATE",
	  "The object is not in a state that allows this call" },
	{ GLCUDA_ERROR_WRONG_DEVICE, "GLCUDA_ERROR_WRONG_DEVICE",
	  "The object belongs to another glcuda device" },
	{ GLCUDA_ERROR_DEVICE_LOST, "GLCUDA_ERROR_DEVICE_LOST",
	  "The GPU was lost or reset; recreate the device" },
	{ GLCUDA_ERROR_NO_DISPLAY, "GLCUDA_ERROR_NO_DISPLAY",
	  "No usable EGL display or context" },
};

static const struct error_text *
find_error(int code)
{
	for (size_t i = 0; i < ARRAY_LENGTH(error_texts); i++)
		if (error_texts[i].code == code)
			return &error_texts[i];
	return NULL;
}

GLCUDA_EXPORT const char *
glcuda_strerror(int error)
{
	const struct error_text *e = find_error(error);

	if (e)
		return e->text;
	if (error < 0 && error > -4096)
		return strerror(-error);
	return "Unknown error";
}

GLCUDA_EXPORT const char *
glcuda_error_get_name(int error)
{
	const struct error_text *e = find_error(error);

	if (e)
		return e->name;
	/* Not switch (-error): -INT_MIN overflows. */
	switch (error) {
	case -EINVAL: return "EINVAL";
	case -ENOMEM: return "ENOMEM";
	case -EAGAIN: return "EAGAIN";
	case -ETIMEDOUT: return "ETIMEDOUT";
	case -EBADF: return "EBADF";
	case -EBUSY: return "EBUSY";
	case -EMFILE: return "EMFILE";
	default: return "UNKNOWN";
	}
}

GLCUDA_EXPORT const char *
glcuda_get_last_error(void)
{
	return thread_last_error;
}

GLCUDA_EXPORT const char *
glcuda_get_version(void)
{
	return GLCUDA_VERSION_STRING;
}

void
error_clear(void)
{
	thread_last_error[0] = '\0';
}

int
error_note(int code, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(thread_last_error, sizeof(thread_last_error), fmt, args);
	va_end(args);
	error_log(NULL, GLCUDA_LOG_PRIORITY_INFO, "%s: %s\n",
		  glcuda_error_get_name(code), thread_last_error);
	return code;
}

int
error_fail(struct error_sink *sink, int code, const char *fmt, ...)
{
	va_list args;

	if (sink && sink->buf) {
		if (sink->bufsize) {
			va_start(args, fmt);
			vsnprintf(sink->buf, sink->bufsize, fmt, args);
			va_end(args);
		}
		return code;
	}
	va_start(args, fmt);
	vsnprintf(thread_last_error, sizeof(thread_last_error), fmt, args);
	va_end(args);
	if (sink) {
		memcpy(sink->last_error, thread_last_error,
		       sizeof(sink->last_error));
		if (code == GLCUDA_ERROR_DEVICE_LOST && !sink->lost) {
			/* Later calls quote the first sentence: what failed. */
			const char *end = strstr(thread_last_error, ". ");
			int len = end ? (int)(end - thread_last_error)
				      : (int)strlen(thread_last_error);
			snprintf(sink->lost_reason, sizeof(sink->lost_reason),
				 "%.*s", len, thread_last_error);
			sink->lost = true;
		}
	}
	error_log(sink, GLCUDA_LOG_PRIORITY_ERROR, "%s: %s\n",
		  glcuda_error_get_name(code), thread_last_error);
	return code;
}

const char *
gl_error_name(GLenum err)
{
	switch (err) {
	case GL_NO_ERROR: return "GL_NO_ERROR";
	case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
	case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
	case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
	case GL_INVALID_FRAMEBUFFER_OPERATION:
		return "GL_INVALID_FRAMEBUFFER_OPERATION";
	case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
	case GL_CONTEXT_LOST: return "GL_CONTEXT_LOST";
	default: return "GL error";
	}
}

const char *
egl_error_name(EGLint err)
{
	switch (err) {
	case EGL_SUCCESS: return "EGL_SUCCESS";
	case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
	case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
	case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
	case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
	case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
	case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
	case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
	case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
	case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
	case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
	case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
	case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
	case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
	case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
	default: return "EGL error";
	}
}
