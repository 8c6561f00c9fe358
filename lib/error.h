/*
 * The error sink: where the layers below the device report failures and
 * log. A device owns one (struct glcuda_device.errors) and hands it down to
 * the GL, Vulkan and CUDA layers, which so never see the device.
 * The thread's last error and the names of GL and EGL error codes are
 * here too (error.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_ERROR_H
#define GLCUDA_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <glcuda/glcuda.h>

struct error_sink {
	glcuda_log_func log_func;
	void *log_user_data;
	enum glcuda_log_priority log_priority;
	char last_error[1024];
	/* Set once a device loss was seen; every later call fails. */
	bool lost;
	/* What was lost, from the first failure that said so. */
	char lost_reason[512];
	/* When set, failures only go into this buffer: for the calls that
	 * have no device and whose caller prints the message itself
	 * (vk_list_physical_devices). */
	char *buf;
	size_t bufsize;
};

/* Record a failure: formats the message into the thread's last error and
 * (when sink is not NULL) the sink's, logs it at error priority and returns
 * code. Messages say what failed, the raw code, and what to do. */
int error_fail(struct error_sink *sink, int code, const char *fmt, ...)
	GLCUDA_PRINTF(3, 4);
/* Record a finding of a call without a device (the diagnosis lists): the
 * message goes into the thread's last error like error_fail's, but is
 * logged at info priority only, since a missing driver is what such a
 * call reports rather than a failure. Returns code. */
int error_note(int code, const char *fmt, ...) GLCUDA_PRINTF(2, 3);
/* Log through the sink's handler and priority; sink NULL: stderr, at the
 * priority GLCUDA_LOG asks for (error by default). */
void error_log(struct error_sink *sink, enum glcuda_log_priority prio,
	       const char *fmt, ...) GLCUDA_PRINTF(3, 4);

/* Clear the thread's last error at the start of a public call. */
void error_clear(void);

const char *gl_error_name(GLenum err);
const char *egl_error_name(EGLint err);

#define err_debug(sink, ...) \
	error_log((sink), GLCUDA_LOG_PRIORITY_DEBUG, __VA_ARGS__)
#define err_info(sink, ...) \
	error_log((sink), GLCUDA_LOG_PRIORITY_INFO, __VA_ARGS__)
#define err_error(sink, ...) \
	error_log((sink), GLCUDA_LOG_PRIORITY_ERROR, __VA_ARGS__)

#endif
