/*
 * Logging: a per-sink handler with priorities (libinput-style); the
 * device's public setters are in device.c.
 * SPDX-License-Identifier: MIT
 */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

void
glcuda_log_default(enum glcuda_log_priority prio, void *user_data,
		   const char *fmt, va_list args)
{
	const char *tag = prio >= GLCUDA_LOG_PRIORITY_ERROR ? "error"
			  : prio >= GLCUDA_LOG_PRIORITY_INFO ? "info"
							     : "debug";
	fprintf(stderr, "glcuda %s: ", tag);
	vfprintf(stderr, fmt, args);
}

enum glcuda_log_priority
glcuda_log_priority_from_env(enum glcuda_log_priority fallback)
{
	const char *env = getenv("GLCUDA_LOG");

	if (!env || !*env)
		return fallback;
	if (!strcasecmp(env, "debug"))
		return GLCUDA_LOG_PRIORITY_DEBUG;
	if (!strcasecmp(env, "info"))
		return GLCUDA_LOG_PRIORITY_INFO;
	if (!strcasecmp(env, "error"))
		return GLCUDA_LOG_PRIORITY_ERROR;
	return fallback;
}

void
error_log(struct error_sink *sink, enum glcuda_log_priority prio, const char *fmt, ...)
{
	glcuda_log_func func = glcuda_log_default;
	void *user_data = NULL;
	enum glcuda_log_priority threshold;
	va_list args;

	if (sink) {
		threshold = sink->log_priority;
		if (sink->log_func) {
			func = sink->log_func;
			user_data = sink->log_user_data;
		}
	} else {
		threshold = glcuda_log_priority_from_env(GLCUDA_LOG_PRIORITY_ERROR);
	}
	/* Check before formatting: debug messages sit in per-frame paths. */
	if (prio < threshold)
		return;

	va_start(args, fmt);
	func(prio, user_data, fmt, args);
	va_end(args);
}
