/*
 * The _glcuda module: its types, its exceptions, and glcuda's formats by
 * their lower-case names.
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <ctype.h>
#include <string.h>

PyMODINIT_FUNC PyInit__glcuda(void);

/* glcuda_format_get_name() in lower case: "RGBA8" -> "rgba8". */
static void
lower_name(enum glcuda_format format, char *out, size_t room)
{
	const char *name = glcuda_format_get_name(format);
	size_t i;

	for (i = 0; name[i] && i + 1 < room; i++)
		out[i] = (char)tolower((unsigned char)name[i]);
	out[i] = '\0';
}

int
py_format_parse(PyObject *obj, enum glcuda_format *out, const char *what)
{
	const char *name = PyUnicode_Check(obj) ?
		PyUnicode_AsUTF8AndSize(obj, NULL) : NULL;
	char known[32];
	int f;

	for (f = 1; name && f < GLCUDA_FORMAT_COUNT; f++) {
		lower_name(f, known, sizeof(known));
		if (!strcmp(name, known)) {
			*out = f;
			return 0;
		}
	}
	if (!PyErr_Occurred())
		PyErr_Format(PyExc_ValueError,
			     "%s: expected a format name (see glcuda.FORMATS), "
			     "got %R", what, obj);
	return -1;
}

PyObject *
py_format_build(enum glcuda_format format)
{
	char name[32];

	if (format == GLCUDA_FORMAT_INVALID)
		Py_RETURN_NONE;
	lower_name(format, name, sizeof(name));
	return PyUnicode_FromString(name);
}

void
py_object_free(PyObject *obj)
{
	PyTypeObject *type = Py_TYPE(obj);
	freefunc free_func = (freefunc)PyType_GetSlot(type, Py_tp_free);

	free_func(obj);
	Py_DECREF(type);
}

static PyObject *
formats_tuple(void)
{
	PyObject *t = PyTuple_New(GLCUDA_FORMAT_COUNT - 1);
	int f;

	for (f = 1; t && f < GLCUDA_FORMAT_COUNT; f++)
		PyTuple_SetItem(t, f - 1, py_format_build(f));
	return t;
}

static PyMethodDef module_methods[] = {
	{ "_profile", py_profile_take, METH_NOARGS,
	  "_profile() -> dict or None\n\nWith GLCUDA_PY_PROFILE=1 at import: "
	  "{stage: {'count', 'wall_us', 'cpu_us'}} of the export and copy "
	  "paths' stages since the last call, which it resets. None when "
	  "off." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "glcuda._glcuda",
	.m_doc = "glcuda's C library, for Python: GL frames as CUDA tensors.",
	.m_size = -1,
	.m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__glcuda(void)
{
	PyObject *m;

	py_profile_init();
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	if (py_errors_init(m) < 0 || py_log_init(m) < 0 ||
	    py_device_init(m) < 0 ||
	    py_image_init(m) < 0 ||
	    PyModule_AddStringConstant(m, "library_version",
				       glcuda_get_version()) < 0 ||
	    PyModule_AddObject(m, "FORMATS", formats_tuple()) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
