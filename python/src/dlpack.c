/*
 * The image as a tensor for its consumers: __dlpack__ and
 * __dlpack_device__ as the Python array API defines them, and
 * __cuda_array_interface__ (version 3). Each is a glcuda export
 * (glcuda_image_export_dlpack()): a copy into linear device memory from
 * the image's pool, ordered on the consumer's stream.
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <stdint.h>

static const char versioned_name[] = "dltensor_versioned";
static const char unversioned_name[] = "dltensor";

/* A capsule the consumer never took ("used_dltensor..." once it did)
 * still owns its tensor. */
static void
capsule_free(PyObject *capsule)
{
	struct py_profile prof;

	py_profile_begin(&prof);
	if (PyCapsule_IsValid(capsule, versioned_name)) {
		DLManagedTensorVersioned *t =
			PyCapsule_GetPointer(capsule, versioned_name);

		if (t->deleter)
			t->deleter(t);
	} else if (PyCapsule_IsValid(capsule, unversioned_name)) {
		DLManagedTensor *t =
			PyCapsule_GetPointer(capsule, unversioned_name);

		if (t->deleter)
			t->deleter(t);
	} else {
		return;
	}
	py_profile_total(&prof, PY_STAGE_CAPSULE_FREE);
}

/* max_version: None (a consumer before DLPack 1.0) or (major, minor). */
static int
wants_versioned(PyObject *max_version, int *out)
{
	long major;

	*out = 0;
	if (max_version == Py_None)
		return 0;
	if (!PyTuple_Check(max_version) || PyTuple_Size(max_version) != 2) {
		PyErr_Format(PyExc_TypeError,
			     "max_version: expected None or (major, minor), "
			     "got %R",
			     max_version);
		return -1;
	}
	major = PyLong_AsLong(PyTuple_GetItem(max_version, 0));
	if (major == -1 && PyErr_Occurred())
		return -1;
	*out = major >= DLPACK_MAJOR_VERSION;
	return 0;
}

/* dl_device: None or the image's own (kDLCUDA, ordinal); copy: None or
 * True, the export being a copy always. */
static int
check_device_and_copy(struct py_image *self, PyObject *dl_device,
		      PyObject *copy)
{
	int ordinal = glcuda_device_get_caps(self->device->dev)->cuda_ordinal;

	if (dl_device != Py_None) {
		int type = -1, id = -1;

		if (!PyArg_ParseTuple(dl_device, "ii", &type, &id))
			return -1;
		if (type != kDLCUDA || id != ordinal) {
			PyErr_Format(PyExc_BufferError,
				     "dl_device: glcuda exports to the image's "
				     "own device (%d, %d), not (%d, %d)",
				     kDLCUDA, ordinal, type, id);
			return -1;
		}
	}
	if (copy == Py_False) {
		PyErr_SetString(PyExc_BufferError,
				"copy=False: a GL image is tiled memory, so "
				"its tensor is always a copy (one GPU copy, "
				"no CPU wait)");
		return -1;
	}
	return 0;
}

PyObject *
py_image_dlpack(PyObject *obj, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = { "stream", "max_version", "dl_device",
				    "copy", "plane", "origin", "depth", NULL };
	struct py_image *self = (struct py_image *)obj;
	PyObject *stream_obj = Py_None, *max_version = Py_None;
	PyObject *dl_device = Py_None, *copy = Py_None, *capsule;
	PyObject *origin = Py_None, *depth = Py_None;
	struct glcuda_export_desc desc;
	struct glcuda_image *img;
	struct py_profile prof;
	struct py_call call;
	CUstream stream;
	int plane = 0;
	int versioned, ret;

	py_profile_begin(&prof);
	glcuda_export_desc_init(&desc);
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOOiOO", keywords,
					 &stream_obj, &max_version, &dl_device,
					 &copy, &plane, &origin, &depth))
		return NULL;
	py_profile_mark(&prof, PY_STAGE_DLPACK_ARGS);
	if (py_stream_parse(stream_obj, &stream) < 0)
		return NULL;
	py_profile_mark(&prof, PY_STAGE_DLPACK_STREAM);
	if (wants_versioned(max_version, &versioned) < 0 ||
	    !py_image_get(self) ||
	    /* glcuda's planes are unsigned: it refuses those past the last
	     * one itself, in the same words, and these. */
	    (plane < 0 && py_check_plane(self->img, "__dlpack__", plane) < 0) ||
	    py_origin_parse(origin, self->origin, &desc.origin) < 0 ||
	    py_depth_parse(depth, &desc.depth) < 0 ||
	    check_device_and_copy(self, dl_device, copy) < 0)
		return NULL;
	py_profile_mark(&prof, PY_STAGE_DLPACK_CHECKS);
	if (!(img = py_image_call_begin(&call, self)))
		return NULL;
	py_profile_mark(&prof, PY_STAGE_DLPACK_LOCK);
	desc.plane = (unsigned int)plane;
	desc.stream = stream;
	if (versioned) {
		DLManagedTensorVersioned *t = NULL;

		ret = glcuda_image_export_dlpack_desc(img, &desc, &t);
		py_profile_mark(&prof, PY_STAGE_DLPACK_EXPORT);
		py_call_end(&call, ret);
		py_profile_mark(&prof, PY_STAGE_DLPACK_UNLOCK);
		if (ret < 0)
			return py_raise(ret);
		capsule = PyCapsule_New(t, versioned_name, capsule_free);
		if (!capsule)
			t->deleter(t);
	} else {
		DLManagedTensor *t = NULL;

		ret = glcuda_image_export_dlpack_unversioned_desc(img, &desc,
								  &t);
		py_profile_mark(&prof, PY_STAGE_DLPACK_EXPORT);
		py_call_end(&call, ret);
		py_profile_mark(&prof, PY_STAGE_DLPACK_UNLOCK);
		if (ret < 0)
			return py_raise(ret);
		capsule = PyCapsule_New(t, unversioned_name, capsule_free);
		if (!capsule)
			t->deleter(t);
	}
	py_profile_mark(&prof, PY_STAGE_DLPACK_CAPSULE);
	py_profile_total(&prof, PY_STAGE_DLPACK_TOTAL);
	return capsule;
}

PyObject *
py_image_dlpack_device(PyObject *obj, PyObject *unused)
{
	struct py_image *self = (struct py_image *)obj;
	const struct glcuda_caps *caps;
	struct py_profile prof;
	PyObject *result;

	py_profile_begin(&prof);
	if (!py_image_get(self))
		return NULL;
	caps = glcuda_device_get_caps(self->device->dev);
	result = Py_BuildValue("(ii)", kDLCUDA, caps->cuda_ordinal);
	py_profile_total(&prof, PY_STAGE_DLPACK_DEVICE);
	return result;
}

void
py_image_cai_release(struct py_image *self)
{
	DLManagedTensorVersioned *t = self->cai_export;

	self->cai_export = NULL;
	if (t && t->deleter)
		t->deleter(t);
}

/* numpy's array-interface type string of a dtype: "|u1", "<f2", ... */
static PyObject *
typestr(DLDataType dtype)
{
	char kind = dtype.code == kDLFloat ? 'f' :
		    dtype.code == kDLInt ? 'i' : 'u';

	return PyUnicode_FromFormat("%c%c%d", dtype.bits == 8 ? '|' : '<', kind,
				    dtype.bits / 8);
}

/* The shape, and the strides in bytes (None when C-contiguous). */
static int
shape_and_strides(const DLTensor *t, PyObject **shape, PyObject **strides)
{
	int64_t tight = t->dtype.bits / 8;
	int i, contiguous = 1;

	*shape = PyTuple_New(t->ndim);
	*strides = PyTuple_New(t->ndim);
	if (!*shape || !*strides)
		return -1;
	for (i = t->ndim - 1; i >= 0; i--) {
		int64_t stride = t->strides ?
			t->strides[i] * (t->dtype.bits / 8) : tight;

		if (stride != tight)
			contiguous = 0;
		PyTuple_SetItem(*shape, i, PyLong_FromLongLong(t->shape[i]));
		PyTuple_SetItem(*strides, i, PyLong_FromLongLong(stride));
		tight *= t->shape[i];
	}
	if (contiguous) {
		Py_DECREF(*strides);
		*strides = Py_NewRef(Py_None);
	}
	return 0;
}

static PyObject *
cai_of(struct py_image *self, int plane, PyObject *origin,
       PyObject *depth)
{
	DLManagedTensorVersioned *t = NULL;
	PyObject *shape = NULL, *strides = NULL, *result = NULL;
	struct glcuda_export_desc desc;
	struct glcuda_image *img;
	struct py_call call;
	int ret;

	glcuda_export_desc_init(&desc);
	desc.plane = (unsigned int)plane;
	if (!py_image_get(self) ||
	    (plane < 0 &&
	     py_check_plane(self->img, "cuda_array_interface", plane) < 0) ||
	    py_origin_parse(origin, self->origin, &desc.origin) < 0 ||
	    py_depth_parse(depth, &desc.depth) < 0 ||
	    !(img = py_image_call_begin(&call, self)))
		return NULL;
	/* On the legacy default stream: the "stream" entry says so, and
	 * the consumer orders its own stream after it. */
	ret = glcuda_image_export_dlpack_desc(img, &desc, &t);
	py_call_end(&call, ret);
	if (ret < 0)
		return py_raise(ret);
	py_image_cai_release(self);
	self->cai_export = t;
	if (shape_and_strides(&t->dl_tensor, &shape, &strides) == 0)
		result = Py_BuildValue("{s:O,s:N,s:(KO),s:O,s:i,s:N}",
			"shape", shape, "typestr", typestr(t->dl_tensor.dtype),
			"data", (unsigned long long)(uintptr_t)
				t->dl_tensor.data + t->dl_tensor.byte_offset,
				Py_False,
			"strides", strides, "version", 3,
			"stream", py_stream_build(NULL));
	Py_XDECREF(shape);
	Py_XDECREF(strides);
	return result;
}

PyObject *
py_image_cai(PyObject *obj, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = { "plane", "origin", "depth", NULL };
	PyObject *origin = Py_None, *depth = Py_None;
	int plane = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|i$OO", keywords,
					 &plane, &origin, &depth))
		return NULL;
	return cai_of((struct py_image *)obj, plane, origin, depth);
}

PyObject *
py_image_cai_get(PyObject *obj, void *closure)
{
	return cai_of((struct py_image *)obj, 0, Py_None, Py_None);
}
