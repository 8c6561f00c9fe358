/*
 * glcuda.Image: a shared image (Device.image()) or a wrapped GL texture
 * (Device.wrap_texture()), with the GL names a renderer needs and its
 * tensor interfaces (dlpack.c, copy.c).
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <errno.h>
#include <stdio.h>

PyTypeObject *py_image_type;

struct glcuda_image *
py_image_get(struct py_image *img)
{
	if (!img->img)
		py_raise_closed("image (or its device)");
	return img->img;
}

struct glcuda_image *
py_image_call_begin(struct py_call *call, struct py_image *img)
{
	struct glcuda_image *handle;

	if (!py_image_get(img) || !py_call_begin(call, img->device))
		return NULL;
	handle = img->img;
	if (!handle) {
		py_call_end(call, 0);
		py_raise_closed("image (or its device)");
	}
	return handle;
}

PyObject *
py_image_wrap(struct py_device *dev, struct glcuda_image *img)
{
	struct py_image *self;

	self = (struct py_image *)PyType_GenericAlloc(py_image_type, 0);
	if (!self) {
		Py_BEGIN_ALLOW_THREADS
		glcuda_image_destroy(img);
		Py_END_ALLOW_THREADS
		return NULL;
	}
	self->img = img;
	self->origin = GLCUDA_ORIGIN_TOP_LEFT;
	self->device = (struct py_device *)Py_NewRef((PyObject *)dev);
	self->next = dev->images;
	if (dev->images)
		dev->images->prev = self;
	dev->images = self;
	return (PyObject *)self;
}

/* Destroy the glcuda image and leave the device's list. The tensors
 * exported from it stay valid (their memory is freed by their deleters).
 * Detached under the device's lock, taken with the GIL held, and
 * destroyed without the GIL (struct py_call). */
void
py_image_close(struct py_image *self)
{
	struct py_device *dev = self->device;
	struct glcuda_image *img;
	PyThreadState *state;

	if (!dev)
		return;
	PyThread_acquire_lock(dev->lock, WAIT_LOCK);
	img = self->img;
	self->img = NULL;
	py_image_cai_release(self);
	state = PyEval_SaveThread();
	glcuda_image_destroy(img);
	PyThread_release_lock(dev->lock);
	PyEval_RestoreThread(state);
	py_log_flush(NULL);
	if (self->prev)
		self->prev->next = self->next;
	else
		dev->images = self->next;
	if (self->next)
		self->next->prev = self->prev;
	self->prev = self->next = NULL;
	self->device = NULL;
	Py_DECREF((PyObject *)dev);
}

static void
image_dealloc(PyObject *obj)
{
	py_image_close((struct py_image *)obj);
	py_object_free(obj);
}

const char *
py_dtype_name(DLDataType dtype)
{
	static const struct {
		uint8_t code, bits;
		const char *name;
	} names[] = {
		{ kDLUInt, 8, "uint8" }, { kDLUInt, 16, "uint16" },
		{ kDLUInt, 32, "uint32" }, { kDLInt, 8, "int8" },
		{ kDLInt, 16, "int16" }, { kDLInt, 32, "int32" },
		{ kDLFloat, 16, "float16" }, { kDLFloat, 32, "float32" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == dtype.code &&
		    names[i].bits == dtype.bits && dtype.lanes == 1)
			return names[i].name;
	return NULL;
}

/* The dtype of one channel of a CUDA array format. */
static int
dtype_of(CUarray_format format, DLDataType *out)
{
	static const struct {
		CUarray_format format;
		uint8_t code, bits;
	} dtypes[] = {
		{ CU_AD_FORMAT_UNSIGNED_INT8, kDLUInt, 8 },
		{ CU_AD_FORMAT_UNSIGNED_INT16, kDLUInt, 16 },
		{ CU_AD_FORMAT_UNSIGNED_INT32, kDLUInt, 32 },
		{ CU_AD_FORMAT_SIGNED_INT8, kDLInt, 8 },
		{ CU_AD_FORMAT_SIGNED_INT16, kDLInt, 16 },
		{ CU_AD_FORMAT_SIGNED_INT32, kDLInt, 32 },
		{ CU_AD_FORMAT_HALF, kDLFloat, 16 },
		{ CU_AD_FORMAT_FLOAT, kDLFloat, 32 },
	};
	size_t i;

	for (i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (dtypes[i].format == format) {
			out->code = dtypes[i].code;
			out->bits = dtypes[i].bits;
			out->lanes = 1;
			return 0;
		}
	return -1;
}

int
py_check_plane(struct glcuda_image *img, const char *what, int plane)
{
	unsigned int n = glcuda_image_get_plane_count(img);
	char message[160];

	if (plane >= 0 && (unsigned int)plane < n)
		return 0;
	snprintf(message, sizeof(message), "%s: plane %d of an image with %u "
		 "plane%s", what, plane, n, n == 1 ? "" : "s");
	py_raise_message(-EINVAL, message);
	return -1;
}

int
py_check_layer(struct glcuda_image *img, const char *what, int layer,
	       const char *all)
{
	unsigned int n = glcuda_image_get_layer_count(img);
	char message[200];

	if (n < 1)
		n = 1;
	if (layer >= 0 && (unsigned int)layer < n)
		return 0;
	snprintf(message, sizeof(message), "%s: layer %d of an image with %u "
		 "layer%s%s", what, layer, n, n == 1 ? "" : "s",
		 all ? all : "");
	py_raise_message(-EINVAL, message);
	return -1;
}

int
py_image_layout(struct glcuda_image *img, const char *what, int plane,
		int layer, const char *all, struct py_layout *out)
{
	struct glcuda_cuda_plane p;
	int n = 0;

	if (py_check_plane(img, what, plane) < 0 ||
	    (layer != GLCUDA_ALL_LAYERS &&
	     py_check_layer(img, what, layer, all) < 0))
		return -1;
	glcuda_cuda_plane_init(&p);
	n = glcuda_image_get_cuda_plane(img, (unsigned int)plane, &p);
	if (n < 0) {
		py_raise(n);
		return -1;
	}
	if (p.layers < 1)
		p.layers = 1;
	if (dtype_of(p.format, &out->dtype) < 0) {
		char message[160];

		snprintf(message, sizeof(message), "%s: plane %d has CUDA "
			 "array format 0x%x, which has no tensor dtype", what,
			 plane, (unsigned int)p.format);
		py_raise_message(-EINVAL, message);
		return -1;
	}
	if (layer == GLCUDA_ALL_LAYERS && p.layers > 1)
		out->shape[n++] = p.layers;
	out->shape[n++] = p.height;
	out->shape[n++] = p.width;
	out->shape[n++] = p.channels;
	out->ndim = n;
	out->itemsize = out->dtype.bits / 8;
	return 0;
}

static PyObject *
image_close_method(PyObject *self, PyObject *unused)
{
	py_image_close((struct py_image *)self);
	Py_RETURN_NONE;
}

static PyObject *
image_enter(PyObject *self, PyObject *unused)
{
	if (!py_image_get((struct py_image *)self))
		return NULL;
	return Py_NewRef(self);
}

static PyObject *
image_exit(PyObject *self, PyObject *args)
{
	py_image_close((struct py_image *)self);
	Py_RETURN_NONE;
}

static PyObject *
image_framebuffer(PyObject *obj, PyObject *args)
{
	struct glcuda_image *img = py_image_get((struct py_image *)obj);
	int layer = 0;

	if (!img || !PyArg_ParseTuple(args, "|i", &layer) ||
	    py_check_layer(img, "framebuffer", layer, NULL) < 0)
		return NULL;
	return PyLong_FromUnsignedLong(
		glcuda_image_get_gl_framebuffer(img, (unsigned int)layer));
}

/* The getters: each reads one value of an open image. */
enum image_value {
	VALUE_WIDTH, VALUE_HEIGHT, VALUE_LAYERS, VALUE_FORMAT, VALUE_DEPTH,
	VALUE_TEXTURE, VALUE_TARGET, VALUE_DEPTH_TEXTURE, VALUE_LAYERED_FBO,
	VALUE_KIND, VALUE_PLANES, VALUE_SHAPE, VALUE_DTYPE, VALUE_DEVICE,
};

static PyObject *
image_get(PyObject *obj, void *closure)
{
	static const char *const kinds[] = { "shared", "gl_texture",
					     "egl_image" };
	struct py_image *self = (struct py_image *)obj;
	struct glcuda_image *img = py_image_get(self);
	struct py_layout layout;
	enum glcuda_image_kind kind;
	PyObject *shape;
	int i;

	if (!img)
		return NULL;
	switch ((enum image_value)(intptr_t)closure) {
	case VALUE_WIDTH:
		return PyLong_FromUnsignedLong(glcuda_image_get_width(img));
	case VALUE_HEIGHT:
		return PyLong_FromUnsignedLong(glcuda_image_get_height(img));
	case VALUE_LAYERS:
		return PyLong_FromUnsignedLong(
			glcuda_image_get_layer_count(img));
	case VALUE_FORMAT:
		return py_format_build(glcuda_image_get_format(img));
	case VALUE_DEPTH:
		return py_format_build(glcuda_image_get_depth_format(img));
	case VALUE_TEXTURE:
		return PyLong_FromUnsignedLong(
			glcuda_image_get_gl_texture(img));
	case VALUE_TARGET:
		return PyLong_FromUnsignedLong(glcuda_image_get_gl_target(img));
	case VALUE_DEPTH_TEXTURE:
		return PyLong_FromUnsignedLong(
			glcuda_image_get_gl_depth_texture(img));
	case VALUE_LAYERED_FBO:
		return PyLong_FromUnsignedLong(
			glcuda_image_get_gl_layered_framebuffer(img));
	case VALUE_KIND:
		kind = glcuda_image_get_kind(img);
		return PyUnicode_FromString((unsigned int)kind < 3 ?
					    kinds[kind] : "unknown");
	case VALUE_PLANES:
		return PyLong_FromUnsignedLong(
			glcuda_image_get_plane_count(img));
	case VALUE_SHAPE:
	case VALUE_DTYPE:
		if (py_image_layout(img, "shape", 0, GLCUDA_ALL_LAYERS, NULL,
				    &layout) < 0)
			return NULL;
		if ((intptr_t)closure == VALUE_DTYPE)
			return PyUnicode_FromString(
				py_dtype_name(layout.dtype));
		shape = PyTuple_New(layout.ndim);
		for (i = 0; shape && i < layout.ndim; i++)
			PyTuple_SetItem(shape, i,
					PyLong_FromLongLong(layout.shape[i]));
		return shape;
	case VALUE_DEVICE:
		return Py_NewRef((PyObject *)self->device);
	}
	Py_RETURN_NONE;
}

static PyObject *
image_get_closed(PyObject *obj, void *closure)
{
	return PyBool_FromLong(!((struct py_image *)obj)->img);
}

static PyObject *
image_get_origin(PyObject *obj, void *closure)
{
	(void)closure;
	return py_origin_build(((struct py_image *)obj)->origin);
}

static int
image_set_origin(PyObject *obj, PyObject *value, void *closure)
{
	struct py_image *self = (struct py_image *)obj;
	enum glcuda_origin origin;

	(void)closure;
	if (!value) {
		PyErr_SetString(PyExc_AttributeError,
				"origin cannot be deleted");
		return -1;
	}
	if (value == Py_None || py_origin_parse(value, self->origin,
						  &origin) < 0) {
		if (!PyErr_Occurred())
			py_raise_message(-EINVAL,
					 "origin: expected 'top-left' or "
					 "'bottom-left'");
		return -1;
	}
	self->origin = origin;
	return 0;
}

/* Image.depth_in_metres(): a glcuda.Plane of the depth plane, converted. */
static PyObject *
image_depth_in_metres(PyObject *obj, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = { "znear", "zfar", "projection", NULL };
	struct py_image *self = (struct py_image *)obj;
	const char *projection = "perspective";
	PyObject *module, *plane_type, *depth, *result = NULL;
	struct glcuda_depth_conversion check;
	struct glcuda_image *img;
	unsigned int plane;
	double znear, zfar;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "dd|$s", keywords,
					 &znear, &zfar, &projection) ||
	    !(img = py_image_get(self)))
		return NULL;
	if (glcuda_image_get_depth_format(img) != GLCUDA_FORMAT_INVALID)
		plane = 1;
	else if (glcuda_image_get_format(img) == GLCUDA_FORMAT_DEPTH32F)
		plane = 0;
	else
		return py_raise_message(-EINVAL,
					"depth_in_metres: the image has no "
					"depth plane (make it with "
					"depth='depth32f', or of format "
					"'depth32f')");
	depth = Py_BuildValue("(sdd)", projection, znear, zfar);
	if (!depth || py_depth_parse(depth, &check) < 0) {
		Py_XDECREF(depth);
		return NULL;
	}
	module = PyImport_ImportModule("glcuda");
	plane_type = module ? PyObject_GetAttrString(module, "Plane") : NULL;
	if (plane_type) {
		PyObject *pargs = Py_BuildValue("(OI)", obj, plane);
		PyObject *pkw = Py_BuildValue("{s:O}", "depth", depth);

		if (pargs && pkw)
			result = PyObject_Call(plane_type, pargs, pkw);
		Py_XDECREF(pargs);
		Py_XDECREF(pkw);
	}
	Py_XDECREF(plane_type);
	Py_XDECREF(module);
	Py_DECREF(depth);
	return result;
}

#define GETTER(name, value, doc) \
	{ name, image_get, NULL, doc, (void *)(intptr_t)(value) }

static PyGetSetDef image_getset[] = {
	{ "origin", image_get_origin, image_set_origin,
	  "Row 0 of the image's tensors (__dlpack__, "
	  "__cuda_array_interface__, copy_to, copy_from): 'top-left', the "
	  "picture's top row, as image files, PIL, torchvision and networks "
	  "trained on photographs expect (the default), or 'bottom-left', "
	  "GL's order (glReadPixels'). Settable; each copy can also choose "
	  "with origin=.",
	  NULL },
	GETTER("width", VALUE_WIDTH, "Width in pixels."),
	GETTER("height", VALUE_HEIGHT, "Height in pixels."),
	GETTER("layers", VALUE_LAYERS, "Layers: 1 for a 2D image."),
	GETTER("format", VALUE_FORMAT,
	       "The format ('rgba8', ...); None for a wrapped texture of a "
	       "format glcuda has no name for."),
	GETTER("depth", VALUE_DEPTH,
	       "The depth buffer's format ('depth32f'), or None."),
	GETTER("texture", VALUE_TEXTURE, "The GL texture name."),
	GETTER("target", VALUE_TARGET,
	       "The GL texture target: GL_TEXTURE_2D, or GL_TEXTURE_2D_ARRAY "
	       "for an image of layers."),
	GETTER("depth_texture", VALUE_DEPTH_TEXTURE,
	       "The depth buffer's GL texture; 0 without one."),
	GETTER("layered_framebuffer", VALUE_LAYERED_FBO,
	       "The layered framebuffer: one draw fills every layer, each "
	       "primitive going to the layer its shader writes to gl_Layer. "
	       "0 for a wrapped texture."),
	GETTER("kind", VALUE_KIND,
	       "'shared' (Device.image()) or 'gl_texture' (wrap_texture())."),
	GETTER("planes", VALUE_PLANES,
	       "Planes for CUDA: 2 with a depth buffer (plane 1)."),
	GETTER("shape", VALUE_SHAPE,
	       "The tensor's shape: (layers, height, width, channels), or "
	       "(height, width, channels) for one layer."),
	GETTER("dtype", VALUE_DTYPE, "The tensor's dtype name ('uint8', ...)."),
	GETTER("device", VALUE_DEVICE, "The Device the image belongs to."),
	{ "closed", image_get_closed, NULL, "Whether the image was closed." },
	{ "__cuda_array_interface__", py_image_cai_get, NULL,
	  "The image as a CUDA array (version 3): a copy of its pixels, "
	  "made on the legacy default stream (the 'stream' entry), kept "
	  "alive by the image until the next access or close()." },
	{ NULL }
};

static PyMethodDef image_methods[] = {
	{ "framebuffer", image_framebuffer, METH_VARARGS,
	  "framebuffer(layer=0) -> int: the GL framebuffer that renders "
	  "into one layer (with the depth buffer, if any)." },
	{ "__dlpack__", (PyCFunction)(void (*)(void))py_image_dlpack,
	  METH_VARARGS | METH_KEYWORDS,
	  "__dlpack__(*, stream=None, max_version=None, dl_device=None, "
	  "copy=None, plane=0, origin=None, depth=None)\n\n"
	  "A DLPack capsule of a copy of the image, ready in the order of "
	  "the consumer's stream with no CPU wait (the array API's stream "
	  "convention: None or 1 the legacy default stream, 2 the "
	  "per-thread one, else a CUstream). A 'dltensor_versioned' "
	  "capsule for max_version >= (1, 0), else 'dltensor'." },
	{ "__dlpack_device__", py_image_dlpack_device, METH_NOARGS,
	  "(2, ordinal): kDLCUDA and the CUDA device." },
	{ "cuda_array_interface", (PyCFunction)(void (*)(void))py_image_cai,
	  METH_VARARGS | METH_KEYWORDS,
	  "cuda_array_interface(plane=0) -> dict: __cuda_array_interface__ "
	  "of a plane (1: the depth buffer)." },
	{ "copy_to", (PyCFunction)(void (*)(void))py_image_copy_to,
	  METH_VARARGS | METH_KEYWORDS,
	  "copy_to(dst, *, layer=None, plane=0, stream=None, origin=None, "
	  "depth=None)\n\n"
	  "Copy the image into a CUDA tensor the caller made (any object "
	  "with __dlpack__ or __cuda_array_interface__) of the image's "
	  "shape and dtype, on the stream: nothing waits on the CPU. "
	  "layer: one layer, into a (height, width, channels) tensor. "
	  "origin: 'top-left' or 'bottom-left' (None: Image.origin). "
	  "depth: for a depth plane, ('perspective' or 'orthographic', "
	  "znear, zfar): distances instead of depth values." },
	{ "copy_from", (PyCFunction)(void (*)(void))py_image_copy_from,
	  METH_VARARGS | METH_KEYWORDS,
	  "copy_from(src, *, layer=None, plane=0, stream=None, "
	  "origin=None)\n\n"
	  "Copy a CUDA tensor of the image's shape and dtype into the "
	  "image, on the stream; GL's next command waits for it on the GPU. "
	  "origin: the tensor's row 0 (None: Image.origin)." },
	{ "depth_in_metres",
	  (PyCFunction)(void (*)(void))image_depth_in_metres,
	  METH_VARARGS | METH_KEYWORDS,
	  "depth_in_metres(znear, zfar, *, projection='perspective') -> "
	  "Plane\n\n"
	  "The depth plane as distances from the eye along the view axis, "
	  "in the units of znear and zfar, computed during the copy: "
	  "znear*zfar/(zfar - d*(zfar - znear)) for 'perspective', "
	  "znear + d*(zfar - znear) for 'orthographic' (d the stored depth). "
	  "A float32 tensor through torch.from_dlpack() or copy_to(). For "
	  "reversed depth (1 at the near plane) pass the planes swapped." },
	{ "capture", (PyCFunction)(void (*)(void))py_image_capture,
	  METH_VARARGS | METH_KEYWORDS,
	  "capture(framebuffer=0, *, layer=0, x=0, y=0, color=True, "
	  "depth=False, origin='bottom-left')\n\n"
	  "Copy the image's size of a framebuffer the caller owns (a "
	  "renderer's: moderngl's fbo.glo, PyOpenGL's) from (x, y) into "
	  "one layer, on the GPU (glcuda_capture_framebuffers()): colour "
	  "from its read buffer, depth from its depth attachment; "
	  "multisampled sources are resolved. The context must be current. "
	  "origin='bottom-left' keeps GL's order in the image, so that "
	  "tensors of Image.origin come out as usual." },
	{ "close", image_close_method, METH_NOARGS,
	  "Destroy the image (its GL objects too). Exported tensors stay "
	  "valid. Closing again does nothing." },
	{ "__enter__", image_enter, METH_NOARGS, NULL },
	{ "__exit__", image_exit, METH_VARARGS, NULL },
	{ NULL }
};

static PyObject *
image_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
	PyErr_SetString(PyExc_TypeError,
			"use Device.image() or Device.wrap_texture()");
	return NULL;
}

static PyType_Slot image_slots[] = {
	{ Py_tp_doc, "An image GL renders into and CUDA reads, as a tensor "
		     "(DLPack, __cuda_array_interface__) or by copies.\n\n"
		     "Calls that touch GL need the device's context current." },
	{ Py_tp_new, image_new },
	{ Py_tp_dealloc, image_dealloc },
	{ Py_tp_methods, image_methods },
	{ Py_tp_getset, image_getset },
	{ 0, NULL }
};

static PyType_Spec image_spec = {
	.name = "glcuda.Image",
	.basicsize = sizeof(struct py_image),
	.flags = Py_TPFLAGS_DEFAULT,
	.slots = image_slots,
};

int
py_image_init(PyObject *module)
{
	py_image_type = (PyTypeObject *)PyType_FromSpec(&image_spec);
	if (!py_image_type ||
	    PyModule_AddObjectRef(module, "Image",
				  (PyObject *)py_image_type) < 0)
		return -1;
	return 0;
}
