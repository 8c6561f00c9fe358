/*
 * Logging: a per-sink handler with priorities (libinput-style), and a
 * process-wide one for messages without a sink (glcuda_device_new's early
 * failures, the headless helper) and for sinks without their own handler.
 * The device's public setters are in device.c.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "export.h"
#include "error.h"
#include "log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/*
 * The process-wide handler. Messages reach it with this lock held, so that
 * glcuda_set_log_handler() can promise that the old handler is not running
 * once it returns (the caller may then free its user data), and so that a
 * handler is never called on two threads at once. Recursive: a handler may
 * call glcuda, and glcuda may log, on the same thread.
 */
static pthread_once_t global_log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t global_log_lock;
static glcuda_log_func global_log_func;
static void *global_log_user_data;
/* 0 until glcuda_set_log_priority(): GLCUDA_LOG, or error. Atomic: read
 * before deciding whether to format a message at all. */
static _Atomic int global_log_priority;

static void
global_log_init(void)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&global_log_lock, &attr);
	pthread_mutexattr_destroy(&attr);
}

static void
global_log_lock_take(void)
{
	pthread_once(&global_log_once, global_log_init);
	pthread_mutex_lock(&global_log_lock);
}

void
log_default(enum glcuda_log_priority prio, void *user_data,
		   const char *fmt, va_list args)
{
	const char *tag = prio >= GLCUDA_LOG_PRIORITY_ERROR ? "error"
			  : prio >= GLCUDA_LOG_PRIORITY_INFO ? "info"
							     : "debug";
	fprintf(stderr, "glcuda %s: ", tag);
	vfprintf(stderr, fmt, args);
}

enum glcuda_log_priority
log_priority_from_env(enum glcuda_log_priority fallback)
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
error_log(struct error_sink *sink, enum glcuda_log_priority prio,
	  const char *fmt, ...)
{
	enum glcuda_log_priority threshold;
	va_list args;

	threshold = sink ? sink->log_priority : glcuda_get_log_priority();
	/* Check before formatting: debug messages sit in per-frame paths. */
	if (prio < threshold)
		return;

	va_start(args, fmt);
	if (sink && sink->log_func) {
		/* The device's handler wins for its messages. */
		sink->log_func(prio, sink->log_user_data, fmt, args);
	} else {
		global_log_lock_take();
		if (global_log_func)
			global_log_func(prio, global_log_user_data, fmt, args);
		else
			log_default(prio, NULL, fmt, args);
		pthread_mutex_unlock(&global_log_lock);
	}
	va_end(args);
}

GLCUDA_EXPORT void
glcuda_set_log_handler(glcuda_log_func func, void *user_data)
{
	global_log_lock_take();
	global_log_func = func;
	global_log_user_data = user_data;
	pthread_mutex_unlock(&global_log_lock);
}

GLCUDA_EXPORT void
glcuda_set_log_priority(enum glcuda_log_priority priority)
{
	atomic_store(&global_log_priority, (int)priority);
}

GLCUDA_EXPORT enum glcuda_log_priority
glcuda_get_log_priority(void)
{
	int prio = atomic_load(&global_log_priority);

	if (prio)
		return (enum glcuda_log_priority)prio;
	return log_priority_from_env(GLCUDA_LOG_PRIORITY_ERROR);
}
