/*
 * The options of the copies into and out of tensors: the row order
 * ("top-left", "bottom-left") and depth to distance (("perspective",
 * znear, zfar), ("orthographic", znear, zfar)), from Python's values.
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <errno.h>
#include <string.h>

int
py_origin_parse(PyObject *obj, enum glcuda_origin fallback,
		enum glcuda_origin *out)
{
	const char *s;

	if (!obj || obj == Py_None) {
		*out = fallback;
		return 0;
	}
	s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8AndSize(obj, NULL) : NULL;
	if (s && !strcmp(s, "top-left")) {
		*out = GLCUDA_ORIGIN_TOP_LEFT;
		return 0;
	}
	if (s && !strcmp(s, "bottom-left")) {
		*out = GLCUDA_ORIGIN_BOTTOM_LEFT;
		return 0;
	}
	if (!PyErr_Occurred())
		py_raise_message(-EINVAL,
				 "origin: expected 'top-left' (row 0 is the "
				 "picture's top row) or 'bottom-left' (GL's "
				 "order)");
	return -1;
}

PyObject *
py_origin_build(enum glcuda_origin origin)
{
	return PyUnicode_FromString(origin == GLCUDA_ORIGIN_TOP_LEFT
					    ? "top-left"
					    : "bottom-left");
}

int
py_depth_parse(PyObject *obj, struct glcuda_depth_conversion *out)
{
	const char *projection;
	double znear, zfar;

	memset(out, 0, sizeof(*out));
	if (!obj || obj == Py_None)
		return 0;
	if (!PyTuple_Check(obj) ||
	    !PyArg_ParseTuple(obj, "sdd", &projection, &znear, &zfar)) {
		PyErr_Clear();
		py_raise_message(-EINVAL,
				 "depth: expected None or (projection, znear, "
				 "zfar), projection 'perspective' or "
				 "'orthographic'");
		return -1;
	}
	if (!strcmp(projection, "perspective"))
		out->mode = GLCUDA_DEPTH_PERSPECTIVE;
	else if (!strcmp(projection, "orthographic"))
		out->mode = GLCUDA_DEPTH_ORTHOGRAPHIC;
	else {
		py_raise_message(-EINVAL,
				 "depth: the projection is 'perspective' or "
				 "'orthographic'");
		return -1;
	}
	out->znear = znear;
	out->zfar = zfar;
	return 0;
}
