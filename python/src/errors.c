/*
 * glcuda's errors as Python exceptions: glcuda.Error carries the code, its
 * name ("GLCUDA_ERROR_CUDA") and glcuda's full message (what failed, the
 * driver's code, what to do). Each glcuda_error code has a subclass named
 * after it (GLCUDA_ERROR_NO_CUDA_DRIVER: NoCUDADriverError), made from
 * glcuda_error_get_name() so that codes the library gains get theirs;
 * -EINVAL is also a ValueError and -ENOMEM a MemoryError.
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The first glcuda_error code and the last one that may exist: the
 * subclasses are made for the codes between that glcuda has a name for. */
#define FIRST_CODE GLCUDA_ERROR_NO_CUDA_DRIVER
#define LAST_CODE (GLCUDA_ERROR_NO_CUDA_DRIVER - 99)

static PyObject *error_base, *error_by_code, *error_closed;

/* "GLCUDA_ERROR_NO_CUDA_DRIVER" -> "NoCUDADriverError": words capitalised,
 * the API names kept in capitals. */
static void
class_name(const char *code_name, char *out, size_t room)
{
	static const char *const acronyms[] = { "GL", "EGL", "CUDA" };
	const char *p = code_name + strlen("GLCUDA_ERROR_");
	size_t n = 0;

	while (*p && n + 1 < room) {
		size_t len = strcspn(p, "_"), i, k;
		int upper = 0;

		for (k = 0; k < sizeof(acronyms) / sizeof(acronyms[0]); k++)
			if (strlen(acronyms[k]) == len &&
			    !strncmp(p, acronyms[k], len))
				upper = 1;
		for (i = 0; i < len && n + 1 < room; i++)
			out[n++] = (char)(upper || i == 0 ? p[i] :
					  tolower(p[i]));
		p += len;
		if (*p == '_')
			p++;
	}
	snprintf(out + n, room - n, "Error");
}

static int
add_class(PyObject *module, const char *name, PyObject *bases, const char *doc,
	  int code)
{
	char qualified[96];
	PyObject *cls, *key;
	int ret;

	snprintf(qualified, sizeof(qualified), "glcuda.%s", name);
	cls = PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
	if (!cls)
		return -1;
	if (PyModule_AddObjectRef(module, name, cls) < 0) {
		Py_DECREF(cls);
		return -1;
	}
	key = PyLong_FromLong(code);
	ret = key ? PyDict_SetItem(error_by_code, key, cls) : -1;
	Py_XDECREF(key);
	Py_DECREF(cls);
	return ret;
}

/* A subclass of Error and @also, for an errno code. */
static int
add_errno_class(PyObject *module, const char *name, PyObject *also, int code)
{
	PyObject *bases = PyTuple_Pack(2, error_base, also);
	int ret;

	if (!bases)
		return -1;
	ret = add_class(module, name, bases, glcuda_strerror(code), code);
	Py_DECREF(bases);
	return ret;
}

int
py_errors_init(PyObject *module)
{
	PyObject *bases;
	char name[64];
	int code;

	error_base = PyErr_NewExceptionWithDoc("glcuda.Error",
		"A glcuda call failed. code: glcuda's error code (negative); "
		"name: its name, e.g. 'GLCUDA_ERROR_CUDA'; message: glcuda's "
		"message (what failed, the driver's code, what to do).",
		NULL, NULL);
	error_by_code = PyDict_New();
	if (!error_base || !error_by_code ||
	    PyModule_AddObjectRef(module, "Error", error_base) < 0)
		return -1;
	for (code = FIRST_CODE; code >= LAST_CODE; code--) {
		const char *code_name = glcuda_error_get_name(code);

		if (!strcmp(code_name, "UNKNOWN"))
			break;
		class_name(code_name, name, sizeof(name));
		if (add_class(module, name, error_base, glcuda_strerror(code),
			      code) < 0)
			return -1;
	}
	if (add_errno_class(module, "InvalidArgumentError", PyExc_ValueError,
			    -EINVAL) < 0 ||
	    add_errno_class(module, "OutOfMemoryError", PyExc_MemoryError,
			    -ENOMEM) < 0)
		return -1;
	/* Closed objects: a ValueError, as for a closed file. */
	bases = PyTuple_Pack(2, error_base, PyExc_ValueError);
	if (!bases)
		return -1;
	error_closed = PyErr_NewExceptionWithDoc("glcuda.ClosedError",
		"The device or image was closed.", bases, NULL);
	Py_DECREF(bases);
	if (!error_closed ||
	    PyModule_AddObjectRef(module, "ClosedError", error_closed) < 0)
		return -1;
	return 0;
}

/* Set code, name and message on @exc; 0 or -1 with the exception set. */
static int
set_fields(PyObject *exc, PyObject *code, const char *name, const char *message)
{
	PyObject *n = PyUnicode_FromString(name);
	PyObject *m = PyUnicode_FromString(message);
	int ret = -1;

	if (n && m && PyObject_SetAttrString(exc, "code", code) == 0 &&
	    PyObject_SetAttrString(exc, "name", n) == 0 &&
	    PyObject_SetAttrString(exc, "message", m) == 0)
		ret = 0;
	Py_XDECREF(n);
	Py_XDECREF(m);
	return ret;
}

PyObject *
py_raise_message(int code, const char *message)
{
	const char *name = glcuda_error_get_name(code);
	PyObject *key = NULL, *cls, *exc = NULL, *saved, *raised;

	if (!message || !*message)
		message = glcuda_strerror(code);
	/* Kept: a logging handler may call glcuda, which changes the
	 * thread's last error. */
	saved = PyUnicode_FromString(message);
	raised = PyUnicode_FromFormat("%s: %s", name, message);
	if (!saved || !raised)
		goto out;
	message = PyUnicode_AsUTF8AndSize(saved, NULL);
	/* glcuda logged this failure: the exception reports it. */
	py_log_flush(PyUnicode_AsUTF8AndSize(raised, NULL));
	key = PyLong_FromLong(code);
	if (!key || !message)
		goto out;
	cls = PyDict_GetItemWithError(error_by_code, key);
	if (!cls && PyErr_Occurred())
		goto out;
	exc = PyObject_CallFunction(cls ? cls : error_base, "O", raised);
	if (exc && set_fields(exc, key, name, message) == 0)
		PyErr_SetObject(cls ? cls : error_base, exc);
out:
	Py_XDECREF(exc);
	Py_XDECREF(key);
	Py_XDECREF(raised);
	Py_XDECREF(saved);
	return NULL;
}

PyObject *
py_raise(int code)
{
	return py_raise_message(code, glcuda_get_last_error());
}

PyObject *
py_raise_closed(const char *what)
{
	PyErr_Format(error_closed, "the %s is closed", what);
	return NULL;
}
