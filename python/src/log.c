/*
 * glcuda's log in Python's logging, on the logger "glcuda": the module
 * installs glcuda's process-wide log handler (glcuda_set_log_handler()),
 * which the devices it makes use (they have no handler of their own).
 *
 * The handler never takes the GIL. glcuda calls it with its own log lock
 * held, and on the thread making the glcuda call, which in this module
 * holds the device's lock without the GIL (struct py_call); a thread that
 * holds the GIL may be waiting for either lock (closing a device takes its
 * lock with the GIL held), so waiting for the GIL there could deadlock.
 * The handler formats the message and queues it; the thread that made the
 * call hands its messages to logging once it has the GIL back
 * (py_call_end(), py_raise_message()). Messages of threads that Python
 * does not know (a C renderer's thread calling glcuda) are handed over by
 * a pending call (Py_AddPendingCall) that the main thread runs.
 *
 * A failure that becomes an exception is not reported twice: its message,
 * logged by glcuda at error priority, goes to logging at DEBUG instead, so
 * that the exception says it once (doc/python.md, "Logging").
 *
 * Once the interpreter exits (atexit), the messages are dropped: a handler
 * called during or after finalization has no Python to talk to.
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough for a burst; beyond, messages of a thread that never comes back
 * to Python are dropped rather than piled up. */
#define MAX_QUEUED 1024

struct entry {
	struct entry *next;
	enum glcuda_log_priority priority;
	/* The Python thread that logged it; NULL: a thread Python does not
	 * know. */
	PyThreadState *owner;
	char text[];
};

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *queue_head, **queue_tail = &queue_head;
static unsigned int queued;
static atomic_int alive, pending;

static int flush_pending(void *unused);
static void queue_message(enum glcuda_log_priority priority, void *user_data,
			  const char *format, va_list args) GLCUDA_PRINTF(3, 0);

static void
queue_message(enum glcuda_log_priority priority, void *user_data,
	      const char *format, va_list args)
{
	struct entry *e;
	va_list copy;
	int len;

	(void)user_data;
	if (!atomic_load(&alive))
		return;
	va_copy(copy, args);
	len = vsnprintf(NULL, 0, format, copy);
	va_end(copy);
	if (len < 0 || !(e = malloc(sizeof(*e) + (size_t)len + 1)))
		return;
	vsnprintf(e->text, (size_t)len + 1, format, args);
	while (len > 0 && e->text[len - 1] == '\n')
		e->text[--len] = '\0';
	e->priority = priority;
	e->owner = PyGILState_GetThisThreadState();
	e->next = NULL;
	pthread_mutex_lock(&queue_lock);
	if (queued >= MAX_QUEUED) {
		pthread_mutex_unlock(&queue_lock);
		free(e);
		return;
	}
	*queue_tail = e;
	queue_tail = &e->next;
	queued++;
	pthread_mutex_unlock(&queue_lock);
	if (!e->owner && !atomic_exchange(&pending, 1) &&
	    Py_AddPendingCall(flush_pending, NULL) < 0)
		atomic_store(&pending, 0);
}

static void
drop_message(enum glcuda_log_priority priority, void *user_data,
	     const char *format, va_list args)
{
	(void)priority;
	(void)user_data;
	(void)format;
	(void)args;
}

/* logging's level for a glcuda priority. */
static int
level_of(enum glcuda_log_priority priority)
{
	if (priority >= GLCUDA_LOG_PRIORITY_ERROR)
		return 40; /* logging.ERROR */
	if (priority > GLCUDA_LOG_PRIORITY_INFO)
		return 30; /* logging.WARNING */
	if (priority >= GLCUDA_LOG_PRIORITY_INFO)
		return 20; /* logging.INFO */
	return 10;	   /* logging.DEBUG */
}

/* Take this thread's messages and those of threads Python does not know,
 * in order. */
static struct entry *
take_messages(PyThreadState *me)
{
	struct entry *taken = NULL, **taken_tail = &taken, **link;

	pthread_mutex_lock(&queue_lock);
	link = &queue_head;
	while (*link) {
		struct entry *e = *link;

		if (e->owner && e->owner != me) {
			link = &e->next;
			continue;
		}
		*link = e->next;
		e->next = NULL;
		*taken_tail = e;
		taken_tail = &e->next;
		queued--;
	}
	queue_tail = link;
	pthread_mutex_unlock(&queue_lock);
	return taken;
}

void
py_log_flush(const char *raised)
{
	PyObject *type, *value, *traceback, *logging = NULL, *logger = NULL;
	struct entry *e = take_messages(PyGILState_GetThisThreadState());
	int demoted = 0;

	if (!e)
		return;
	PyErr_Fetch(&type, &value, &traceback);
	logging = PyImport_ImportModule("logging");
	if (logging)
		logger = PyObject_CallMethod(logging, "getLogger", "s",
					     "glcuda");
	while (e) {
		struct entry *next = e->next;
		int level = level_of(e->priority);
		PyObject *r;

		if (raised && !demoted && level >= 40 &&
		    !strcmp(e->text, raised)) {
			level = 10;
			demoted = 1;
		}
		if (logger) {
			r = PyObject_CallMethod(logger, "log", "iss", level,
						"%s", e->text);
			Py_XDECREF(r);
		}
		PyErr_Clear();
		free(e);
		e = next;
	}
	PyErr_Clear();
	Py_XDECREF(logger);
	Py_XDECREF(logging);
	PyErr_Restore(type, value, traceback);
}

static int
flush_pending(void *unused)
{
	(void)unused;
	atomic_store(&pending, 0);
	py_log_flush(NULL);
	return 0;
}

/* atexit: drop the messages from now on. glcuda_set_log_handler()
 * returns once no call of the handler is running. */
static PyObject *
log_shutdown(PyObject *module, PyObject *unused)
{
	(void)module;
	(void)unused;
	py_log_flush(NULL);
	atomic_store(&alive, 0);
	glcuda_set_log_handler(drop_message, NULL);
	Py_RETURN_NONE;
}

static PyMethodDef shutdown_def = {
	"_log_shutdown", log_shutdown, METH_NOARGS,
	"Stop handing glcuda's log to logging (at exit)."
};

int
py_log_init(PyObject *module)
{
	PyObject *atexit, *func, *r = NULL;

	func = PyCFunction_NewEx(&shutdown_def, NULL, NULL);
	atexit = PyImport_ImportModule("atexit");
	if (func && atexit)
		r = PyObject_CallMethod(atexit, "register", "O", func);
	Py_XDECREF(atexit);
	Py_XDECREF(func);
	if (!r)
		return -1;
	Py_DECREF(r);
	(void)module;
	atomic_store(&alive, 1);
	glcuda_set_log_handler(queue_message, NULL);
	return 0;
}
