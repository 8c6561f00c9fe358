/*
 * CUDA streams as the Python array API and __cuda_array_interface__ write
 * them: None or 1 is the legacy default stream, 2 the per-thread default
 * stream, any other positive integer a CUstream (torch's
 * Stream.cuda_stream, CuPy's Stream.ptr). 0, which the standard leaves
 * out as ambiguous, is what torch.cuda.current_stream().cuda_stream is
 * for the default stream, so it means the legacy default stream too; -1
 * ("do not synchronise") has nothing to skip here (the export is a copy
 * that must be ordered somewhere) and takes the legacy default stream.
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <stdint.h>

int
py_stream_parse(PyObject *obj, CUstream *out)
{
	long long value;

	if (obj == Py_None) {
		*out = NULL;
		return 0;
	}
	if (!PyLong_Check(obj)) {
		PyErr_Format(PyExc_TypeError,
			     "stream: expected None or an integer (a CUstream, "
			     "1 or 2), got %R", (PyObject *)Py_TYPE(obj));
		return -1;
	}
	value = PyLong_AsLongLong(obj);
	if (value == -1 && PyErr_Occurred()) {
		PyErr_Clear();
		/* A pointer above LLONG_MAX. */
		*out = (CUstream)(uintptr_t)PyLong_AsUnsignedLongLong(obj);
		return PyErr_Occurred() ? -1 : 0;
	}
	if (value < -1) {
		PyErr_Format(PyExc_ValueError,
			     "stream: expected None, -1, 1, 2 or a CUstream, "
			     "got %lld",
			     value);
		return -1;
	}
	*out = value == 2 ? CU_STREAM_PER_THREAD :
	       value <= 1 ? NULL : (CUstream)(uintptr_t)value;
	return 0;
}

PyObject *
py_stream_build(CUstream stream)
{
	if (!stream)
		return PyLong_FromLong(1);
	return PyLong_FromUnsignedLongLong((uintptr_t)stream);
}
