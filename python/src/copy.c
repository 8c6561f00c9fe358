/*
 * Image.copy_to() and Image.copy_from(): copies between the image and a
 * CUDA tensor the caller made, each one glcuda_copy_linear() (the hand-off,
 * the copy, in the row order asked for, and the hand-back on one stream). The
 * tensor is any object with __dlpack__ (torch, CuPy, JAX) or
 * __cuda_array_interface__ (CuPy, Numba, torch), of the image's shape and
 * dtype, with its pixels packed (rows and layers may be padded).
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_DIMS 8

/* A caller's tensor, as the copy needs it. */
struct tensor {
	CUdeviceptr data;
	int ndim;
	int64_t shape[MAX_DIMS];
	int64_t strides[MAX_DIMS]; /* in bytes */
	DLDataType dtype;
	/* The DLPack tensor taken from its capsule, whose deleter we call. */
	DLManagedTensorVersioned *versioned;
	DLManagedTensor *unversioned;
	/* The stream __cuda_array_interface__ names (1: the legacy one). */
	PyObject *cai_stream;
};

static void
tensor_release(struct tensor *t)
{
	PyObject *type, *value, *traceback;

	/* A producer's deleter may run Python code (torch's drops its
	 * tensor): not with our exception set. */
	PyErr_Fetch(&type, &value, &traceback);
	if (t->versioned && t->versioned->deleter)
		t->versioned->deleter(t->versioned);
	if (t->unversioned && t->unversioned->deleter)
		t->unversioned->deleter(t->unversioned);
	Py_CLEAR(t->cai_stream);
	PyErr_Restore(type, value, traceback);
}

static int
from_dltensor(const DLTensor *dl, struct tensor *t, int ordinal)
{
	int64_t tight;
	int i;

	if (dl->device.device_type != kDLCUDA ||
	    dl->device.device_id != ordinal) {
		PyErr_Format(PyExc_ValueError,
			     "expected a tensor on CUDA device %d (DLPack "
			     "device (%d, %d)), got device (%d, %d)", ordinal,
			     kDLCUDA, ordinal, (int)dl->device.device_type,
			     (int)dl->device.device_id);
		return -1;
	}
	if (dl->ndim < 0 || dl->ndim > MAX_DIMS) {
		PyErr_Format(PyExc_ValueError, "a tensor of %d dimensions",
			     (int)dl->ndim);
		return -1;
	}
	t->data = (CUdeviceptr)(uintptr_t)dl->data + dl->byte_offset;
	t->ndim = dl->ndim;
	t->dtype = dl->dtype;
	tight = dl->dtype.bits / 8;
	for (i = dl->ndim - 1; i >= 0; i--) {
		t->shape[i] = dl->shape[i];
		t->strides[i] = dl->strides ?
			dl->strides[i] * (dl->dtype.bits / 8) : tight;
		tight *= dl->shape[i];
	}
	return 0;
}

/* A DLPack producer: its device first (a CPU array is refused before it
 * exports anything), then its capsule, made for @stream. */
static int
from_dlpack(PyObject *obj, CUstream stream, int writable, int ordinal,
	    struct tensor *t)
{
	PyObject *device, *capsule, *stream_obj, *kwargs;
	int type = 0, id = 0, ret = -1;

	device = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
	if (!device || !PyArg_ParseTuple(device, "ii", &type, &id)) {
		Py_XDECREF(device);
		return -1;
	}
	Py_DECREF(device);
	if (type != kDLCUDA || id != ordinal) {
		PyErr_Format(PyExc_ValueError,
			     "expected a tensor on CUDA device %d (DLPack "
			     "device (%d, %d)), got a %R on device (%d, %d)",
			     ordinal, kDLCUDA, ordinal,
			     (PyObject *)Py_TYPE(obj), type, id);
		return -1;
	}
	stream_obj = py_stream_build(stream);
	kwargs = Py_BuildValue("{s:O,s:(ii)}", "stream", stream_obj,
			       "max_version", DLPACK_MAJOR_VERSION,
			       DLPACK_MINOR_VERSION);
	capsule = NULL;
	if (kwargs) {
		PyObject *method = PyObject_GetAttrString(obj, "__dlpack__");
		PyObject *empty = PyTuple_New(0);

		if (method && empty) {
			capsule = PyObject_Call(method, empty, kwargs);
			/* A producer before DLPack 1.0 takes no max_version. */
			if (!capsule &&
			    PyErr_ExceptionMatches(PyExc_TypeError)) {
				PyErr_Clear();
				PyDict_DelItemString(kwargs, "max_version");
				capsule = PyObject_Call(method, empty, kwargs);
			}
		}
		Py_XDECREF(method);
		Py_XDECREF(empty);
		Py_DECREF(kwargs);
	}
	Py_XDECREF(stream_obj);
	if (!capsule)
		return -1;
	if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
		DLManagedTensorVersioned *v =
			PyCapsule_GetPointer(capsule, "dltensor_versioned");

		PyCapsule_SetName(capsule, "used_dltensor_versioned");
		t->versioned = v;
		/* Another major version lays the struct out otherwise: only
		 * its deleter may be used (dlpack.h, DLPackVersion). */
		if (v->version.major != DLPACK_MAJOR_VERSION)
			PyErr_Format(PyExc_BufferError,
				     "expected a DLPack %d.x tensor, got a %R "
				     "of DLPack %u.%u", DLPACK_MAJOR_VERSION,
				     (PyObject *)Py_TYPE(obj),
				     (unsigned int)v->version.major,
				     (unsigned int)v->version.minor);
		else if (writable &&
			 (v->flags & DLPACK_FLAG_BITMASK_READ_ONLY))
			PyErr_Format(PyExc_ValueError,
				     "expected a writable tensor, got a "
				     "read-only %R", (PyObject *)Py_TYPE(obj));
		else
			ret = from_dltensor(&v->dl_tensor, t, ordinal);
	} else if (PyCapsule_IsValid(capsule, "dltensor")) {
		DLManagedTensor *u = PyCapsule_GetPointer(capsule, "dltensor");

		PyCapsule_SetName(capsule, "used_dltensor");
		t->unversioned = u;
		ret = from_dltensor(&u->dl_tensor, t, ordinal);
	} else {
		PyErr_Format(PyExc_TypeError,
			     "%R.__dlpack__() returned no DLPack capsule",
			     (PyObject *)Py_TYPE(obj));
	}
	Py_DECREF(capsule);
	return ret;
}

/* A tuple of integers, into @out. */
static int
int_tuple(PyObject *tuple, int64_t *out, int n, const char *what)
{
	int i;

	if (!PyTuple_Check(tuple) || PyTuple_Size(tuple) != n) {
		PyErr_Format(PyExc_ValueError,
			     "__cuda_array_interface__: %s is not a tuple "
			     "of %d",
			     what, n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		out[i] = PyLong_AsLongLong(PyTuple_GetItem(tuple, i));
		if (out[i] == -1 && PyErr_Occurred())
			return -1;
	}
	return 0;
}

/* typestr "|u1", "<f4", ...: a little-endian (or byte) number. */
static int
parse_typestr(PyObject *obj, DLDataType *out)
{
	const char *s = PyUnicode_Check(obj) ?
		PyUnicode_AsUTF8AndSize(obj, NULL) : NULL;
	int size;

	if (!s || (s[0] != '<' && s[0] != '|') ||
	    !strchr("uif", s[1]) || sscanf(s + 2, "%d", &size) != 1 ||
	    size < 1 || size > 8) {
		if (!PyErr_Occurred())
			PyErr_Format(PyExc_ValueError,
				     "__cuda_array_interface__: typestr %R is "
				     "not a little-endian number", obj);
		return -1;
	}
	out->code = s[1] == 'f' ? kDLFloat : s[1] == 'i' ? kDLInt : kDLUInt;
	out->bits = (uint8_t)(size * 8);
	out->lanes = 1;
	return 0;
}

static int
from_cai(PyObject *obj, int writable, struct tensor *t)
{
	PyObject *cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
	PyObject *shape, *typestr, *data, *strides, *stream;
	int64_t tight;
	int ret = -1, i, readonly;

	if (!cai)
		return -1;
	if (!PyDict_Check(cai)) {
		PyErr_SetString(PyExc_TypeError,
				"__cuda_array_interface__ is not a dict");
		goto out;
	}
	shape = PyDict_GetItemString(cai, "shape");
	typestr = PyDict_GetItemString(cai, "typestr");
	data = PyDict_GetItemString(cai, "data");
	strides = PyDict_GetItemString(cai, "strides");
	stream = PyDict_GetItemString(cai, "stream");
	if (!shape || !typestr || !data || !PyTuple_Check(shape) ||
	    PyTuple_Size(shape) > MAX_DIMS) {
		PyErr_SetString(PyExc_ValueError,
				"__cuda_array_interface__ lacks shape, typestr "
				"or data");
		goto out;
	}
	t->ndim = (int)PyTuple_Size(shape);
	if (int_tuple(shape, t->shape, t->ndim, "shape") < 0 ||
	    parse_typestr(typestr, &t->dtype) < 0 ||
	    !PyArg_ParseTuple(data, "Kp", &t->data, &readonly))
		goto out;
	if (writable && readonly) {
		PyErr_Format(PyExc_ValueError,
			     "expected a writable tensor, got a read-only %R",
			     (PyObject *)Py_TYPE(obj));
		goto out;
	}
	if (strides && strides != Py_None) {
		if (int_tuple(strides, t->strides, t->ndim, "strides") < 0)
			goto out;
	} else {
		tight = t->dtype.bits / 8;
		for (i = t->ndim - 1; i >= 0; i--) {
			t->strides[i] = tight;
			tight *= t->shape[i];
		}
	}
	if (stream && stream != Py_None)
		t->cai_stream = Py_NewRef(stream);
	ret = 0;
out:
	Py_DECREF(cai);
	return ret;
}

static int
has_attr(PyObject *obj, const char *name)
{
	PyObject *attr = PyObject_GetAttrString(obj, name);

	/* torch raises for a CPU tensor's __cuda_array_interface__. */
	if (!attr) {
		PyErr_Clear();
		return 0;
	}
	Py_DECREF(attr);
	return 1;
}

static PyObject *
shape_string(const int64_t *shape, int ndim)
{
	PyObject *tuple = PyTuple_New(ndim), *s;
	int i;

	for (i = 0; tuple && i < ndim; i++)
		PyTuple_SetItem(tuple, i, PyLong_FromLongLong(shape[i]));
	s = tuple ? PyObject_Repr(tuple) : NULL;
	Py_XDECREF(tuple);
	return s;
}

/* The tensor has the layout, pixels packed; its row and layer pitches. */
static int
check_layout(const struct tensor *t, const struct py_layout *want,
	     const char *call, size_t *row_pitch, size_t *layer_pitch)
{
	int64_t pixel = want->itemsize * want->shape[want->ndim - 1];
	int n = want->ndim, ok = t->ndim == n, i;

	for (i = 0; ok && i < n; i++)
		ok = t->shape[i] == want->shape[i];
	ok = ok && t->dtype.code == want->dtype.code &&
	     t->dtype.bits == want->dtype.bits && t->dtype.lanes == 1;
	if (!ok) {
		PyObject *a = shape_string(want->shape, want->ndim);
		PyObject *b = shape_string(t->shape, t->ndim);
		const char *got = py_dtype_name(t->dtype);

		if (a && b)
			PyErr_Format(PyExc_ValueError,
				     "%s: expected a %s tensor of shape %S, "
				     "got %s %S", call,
				     py_dtype_name(want->dtype), a,
				     got ? got : "another dtype", b);
		Py_XDECREF(a);
		Py_XDECREF(b);
		return -1;
	}
	if (t->strides[n - 1] != (int64_t)want->itemsize ||
	    t->strides[n - 2] != pixel || t->strides[n - 3] <= 0 ||
	    (n == 4 && t->strides[0] <= 0)) {
		PyErr_Format(PyExc_ValueError,
			     "%s: expected the pixels packed (strides of %d "
			     "and %d bytes for channels and pixels, positive "
			     "for rows and layers)", call, (int)want->itemsize,
			     (int)pixel);
		return -1;
	}
	*row_pitch = (size_t)t->strides[n - 3];
	*layer_pitch = n == 4 ? (size_t)t->strides[0] : 0;
	return 0;
}

/* Hand the image to CUDA, copy, hand it back, all on @stream, in one
 * glcuda_copy_linear(): the first failure is raised, with its message. */
static int
copy_on_stream(struct py_image *self, int to_tensor, unsigned int plane,
	       int layer, const struct tensor *t, size_t row_pitch,
	       size_t layer_pitch, enum glcuda_origin origin,
	       const struct glcuda_depth_conversion *depth, CUstream stream,
	       struct py_profile *prof, enum py_stage stages)
{
	struct glcuda_linear_copy copy;
	struct glcuda_copy_desc desc;
	struct glcuda_image *img;
	struct py_call call;
	int ret;

	if (!(img = py_image_call_begin(&call, self)))
		return -1;
	py_profile_mark(prof, stages + PY_COPY_LOCK);
	memset(&copy, 0, sizeof(copy));
	copy.image = img;
	copy.plane = plane;
	copy.layer = layer;
	copy.linear = t->data;
	copy.row_pitch = row_pitch;
	copy.layer_pitch = layer_pitch;
	copy.direction = to_tensor ? GLCUDA_COPY_TO_LINEAR
				   : GLCUDA_COPY_FROM_LINEAR;
	glcuda_copy_desc_init(&desc);
	desc.copies = &copy;
	desc.copy_count = 1;
	desc.stream = stream;
	desc.origin = origin;
	desc.depth = *depth;
	ret = glcuda_copy_linear(self->device->dev, &desc);
	py_profile_mark(prof, stages + PY_COPY_LIBRARY);
	py_call_end(&call, ret);
	py_profile_mark(prof, stages + PY_COPY_UNLOCK);
	if (ret < 0) {
		py_raise(ret);
		return -1;
	}
	return 0;
}

static PyObject *
image_copy(PyObject *obj, PyObject *args, PyObject *kwargs, int to_tensor)
{
	static char *keywords[] = { "tensor", "layer", "plane", "stream",
				    "origin", "depth", NULL };
	const char *call = to_tensor ? "copy_to" : "copy_from";
	struct py_image *self = (struct py_image *)obj;
	PyObject *tensor, *layer_obj = Py_None, *stream_obj = Py_None;
	PyObject *origin_obj = Py_None, *depth_obj = Py_None;
	struct glcuda_depth_conversion depth;
	enum glcuda_origin origin;
	struct tensor t = { 0 };
	struct glcuda_image *img;
	struct py_layout want;
	size_t row_pitch, layer_pitch;
	int plane = 0, layer = GLCUDA_ALL_LAYERS, ordinal, ret = -1;
	const enum py_stage stages =
		to_tensor ? PY_STAGE_COPY_TO : PY_STAGE_COPY_FROM;
	struct py_profile prof;
	CUstream stream;

	py_profile_begin(&prof);
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OiOOO", keywords,
					 &tensor, &layer_obj, &plane,
					 &stream_obj, &origin_obj,
					 &depth_obj))
		return NULL;
	py_profile_mark(&prof, stages + PY_COPY_ARGS);
	if (py_stream_parse(stream_obj, &stream) < 0)
		return NULL;
	py_profile_mark(&prof, stages + PY_COPY_STREAM);
	if (!(img = py_image_get(self)) ||
	    py_origin_parse(origin_obj, self->origin, &origin) < 0 ||
	    py_depth_parse(depth_obj, &depth) < 0)
		return NULL;
	if (py_check_plane(img, call, plane) < 0)
		return NULL;
	if (layer_obj != Py_None) {
		long value = PyLong_AsLong(layer_obj);

		if (value == -1 && PyErr_Occurred())
			return NULL;
		layer = value < INT_MIN ? INT_MIN :
			value > INT_MAX ? INT_MAX : (int)value;
		/* -1 too: it is not taken for all of them. */
		if (py_check_layer(img, call, layer, " (or None for all)") < 0)
			return NULL;
	}
	if (py_image_layout(img, call, plane, layer, NULL, &want) < 0)
		return NULL;
	ordinal = glcuda_device_get_caps(self->device->dev)->cuda_ordinal;
	py_profile_mark(&prof, stages + PY_COPY_CHECKS);
	if (has_attr(tensor, "__dlpack__"))
		ret = from_dlpack(tensor, stream, to_tensor, ordinal, &t);
	else if (has_attr(tensor, "__cuda_array_interface__"))
		ret = from_cai(tensor, to_tensor, &t);
	else
		PyErr_Format(PyExc_TypeError,
			     "%s: expected a CUDA tensor (an object with "
			     "__dlpack__ or __cuda_array_interface__), got %R",
			     call, (PyObject *)Py_TYPE(tensor));
	/* The work is ordered after the tensor's producer: on the stream
	 * its interface names, unless the caller chose one. */
	if (ret == 0 && t.cai_stream && stream_obj == Py_None)
		ret = py_stream_parse(t.cai_stream, &stream);
	py_profile_mark(&prof, stages + PY_COPY_TENSOR);
	if (ret == 0)
		ret = check_layout(&t, &want, call, &row_pitch, &layer_pitch);
	py_profile_mark(&prof, stages + PY_COPY_LAYOUT);
	if (ret == 0)
		ret = copy_on_stream(self, to_tensor, (unsigned int)plane,
				     layer, &t,
				     row_pitch, layer_pitch, origin, &depth,
				     stream, &prof, stages);
	tensor_release(&t);
	if (ret < 0)
		return NULL;
	py_profile_mark(&prof, stages + PY_COPY_RELEASE);
	py_profile_total(&prof, stages + PY_COPY_TOTAL);
	Py_RETURN_NONE;
}

PyObject *
py_image_copy_to(PyObject *obj, PyObject *args, PyObject *kwargs)
{
	return image_copy(obj, args, kwargs, 1);
}

PyObject *
py_image_copy_from(PyObject *obj, PyObject *args, PyObject *kwargs)
{
	return image_copy(obj, args, kwargs, 0);
}
