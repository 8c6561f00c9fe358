/*
 * Logging: a per-device handler with priorities (libinput-style).
 * SPDX-License-Identifier: MIT
 */
#include "private.h"

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
glcuda_log(struct glcuda_device *dev, enum glcuda_log_priority prio,
	   const char *fmt, ...)
{
	glcuda_log_func func = glcuda_log_default;
	void *user_data = NULL;
	enum glcuda_log_priority threshold;
	va_list args;

	if (dev) {
		threshold = dev->log_priority;
		if (dev->log_func) {
			func = dev->log_func;
			user_data = dev->log_user_data;
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

GLCUDA_EXPORT void
glcuda_device_set_log_handler(struct glcuda_device *dev, glcuda_log_func func,
			      void *user_data)
{
	if (!dev)
		return;
	dev->log_func = func;
	dev->log_user_data = user_data;
}

GLCUDA_EXPORT void
glcuda_device_set_log_priority(struct glcuda_device *dev,
			       enum glcuda_log_priority priority)
{
	if (dev)
		dev->log_priority = priority;
}

GLCUDA_EXPORT enum glcuda_log_priority
glcuda_device_get_log_priority(const struct glcuda_device *dev)
{
	return dev ? dev->log_priority : GLCUDA_LOG_PRIORITY_ERROR;
}
