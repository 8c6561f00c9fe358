/*
 * Logging (log.c): the priority GLCUDA_LOG asks for, and the default
 * handler. The per-sink logging calls are in error.h.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_LOG_H
#define GLCUDA_LOG_H

#include <stdarg.h>

#include <glcuda/glcuda.h>

/* The priority GLCUDA_LOG asks for, or fallback. */
enum glcuda_log_priority
log_priority_from_env(enum glcuda_log_priority fallback);
void log_default(enum glcuda_log_priority prio, void *user_data,
			const char *fmt, va_list args) GLCUDA_PRINTF(3, 0);

#endif
