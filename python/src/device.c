/*
 * glcuda.Device (bound to the caller's current EGL context) and
 * glcuda.Headless (a Device on an EGL display and context of its own).
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <EGL/egl.h>
#include <string.h>

PyTypeObject *py_device_type, *py_headless_type;

struct glcuda_device *
py_device_get(struct py_device *dev)
{
	if (!dev->dev)
		py_raise_closed("device");
	return dev->dev;
}

struct glcuda_device *
py_call_begin(struct py_call *call, struct py_device *dev)
{
	struct glcuda_device *d;

	if (!py_device_get(dev))
		return NULL;
	call->lock = dev->lock;
	call->state = PyEval_SaveThread();
	PyThread_acquire_lock(call->lock, WAIT_LOCK);
	d = dev->dev;
	if (!d) {
		py_call_end(call, 0);
		py_raise_closed("device");
	}
	return d;
}

void
py_call_end(struct py_call *call, int ret)
{
	PyThread_release_lock(call->lock);
	PyEval_RestoreThread(call->state);
	if (ret >= 0)
		py_log_flush(NULL);
}

/* None or a name of enum glcuda_sync_mode ("timeline", ...). */
static int
parse_sync_mode(PyObject *obj, enum glcuda_sync_mode *out)
{
	const char *name;
	int mode;

	*out = GLCUDA_SYNC_AUTO;
	if (obj == Py_None)
		return 0;
	name = PyUnicode_Check(obj) ? PyUnicode_AsUTF8AndSize(obj, NULL) : NULL;
	for (mode = GLCUDA_SYNC_AUTO; name && mode <= GLCUDA_SYNC_CPU; mode++)
		if (!strcmp(name, glcuda_sync_mode_get_name(mode))) {
			*out = mode;
			return 0;
		}
	if (!PyErr_Occurred())
		PyErr_Format(PyExc_ValueError,
			     "sync_mode: expected None, 'auto', 'timeline', "
			     "'binary' or 'cpu', got %R", obj);
	return -1;
}

static PyObject *
device_make(PyTypeObject *type, struct glcuda_headless *hl, void *display,
	    void *context, enum glcuda_sync_mode sync_mode)
{
	struct glcuda_device_options options;
	struct glcuda_device *dev = NULL;
	PyThread_type_lock lock;
	struct py_device *self;
	int ret;

	glcuda_device_options_init(&options);
	options.sync_mode = sync_mode;
	Py_BEGIN_ALLOW_THREADS
	ret = glcuda_device_new(display, context, &options, &dev);
	Py_END_ALLOW_THREADS
	if (ret < 0) {
		py_raise(ret);
		Py_BEGIN_ALLOW_THREADS
		glcuda_headless_destroy(hl);
		Py_END_ALLOW_THREADS
		return NULL;
	}
	lock = PyThread_allocate_lock();
	self = lock ? (struct py_device *)PyType_GenericAlloc(type, 0) : NULL;
	if (!self) {
		if (lock)
			PyThread_free_lock(lock);
		else
			PyErr_NoMemory();
		Py_BEGIN_ALLOW_THREADS
		glcuda_device_destroy(dev);
		glcuda_headless_destroy(hl);
		Py_END_ALLOW_THREADS
		return NULL;
	}
	self->dev = dev;
	self->hl = hl;
	self->lock = lock;
	py_log_flush(NULL);
	return (PyObject *)self;
}

static PyObject *
device_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
	PyErr_SetString(PyExc_TypeError,
			"use glcuda.Device.from_current() or "
			"glcuda.Headless()");
	return NULL;
}

static PyObject *
device_from_current(PyObject *cls, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = { "sync_mode", NULL };
	enum glcuda_sync_mode sync_mode;
	PyObject *mode = Py_None;
	void *context;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O", keywords,
					 &mode) ||
	    parse_sync_mode(mode, &sync_mode) < 0)
		return NULL;
	/* eglGetCurrentContext answers for the bound API: a GLES
	 * renderer's context is current under EGL_OPENGL_ES_API. */
	context = eglGetCurrentContext();
	if (context == EGL_NO_CONTEXT && eglQueryAPI() != EGL_OPENGL_ES_API) {
		eglBindAPI(EGL_OPENGL_ES_API);
		context = eglGetCurrentContext();
		if (context == EGL_NO_CONTEXT)
			eglBindAPI(EGL_OPENGL_API);
	}
	if (context == EGL_NO_CONTEXT)
		return py_raise_message(GLCUDA_ERROR_NO_CURRENT_CONTEXT,
			"Device.from_current: no EGL context is current on "
			"this thread. Make the renderer's EGL context current "
			"first (or use glcuda.Headless(), which makes one).");
	return device_make((PyTypeObject *)cls, NULL, eglGetCurrentDisplay(),
			   context, sync_mode);
}

static PyObject *
headless_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = { "cuda_device", "gles", "sync_mode", NULL };
	struct glcuda_headless *hl = NULL;
	enum glcuda_sync_mode sync_mode;
	PyObject *mode = Py_None;
	int ordinal = -1, gles = 0, ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|i$pO", keywords,
					 &ordinal, &gles, &mode) ||
	    parse_sync_mode(mode, &sync_mode) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = glcuda_headless_new(ordinal, gles ? GLCUDA_HEADLESS_FLAG_GLES : 0,
				  &hl);
	Py_END_ALLOW_THREADS
	if (ret < 0)
		return py_raise(ret);
	return device_make(type, hl, glcuda_headless_get_display(hl),
			   glcuda_headless_get_context(hl), sync_mode);
}

/* Close the images, then the device, then the headless context: under
 * the lock (taken with the GIL held: see struct py_call), destroyed
 * without the GIL. */
static void
device_close(struct py_device *self)
{
	struct glcuda_headless *hl = self->hl;
	struct glcuda_device *dev = self->dev;
	PyThreadState *state;

	while (self->images)
		py_image_close(self->images);
	if (!dev && !hl)
		return;
	PyThread_acquire_lock(self->lock, WAIT_LOCK);
	self->dev = NULL;
	self->hl = NULL;
	state = PyEval_SaveThread();
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
	PyThread_release_lock(self->lock);
	PyEval_RestoreThread(state);
	py_log_flush(NULL);
}

static void
device_dealloc(PyObject *obj)
{
	struct py_device *self = (struct py_device *)obj;

	if (self->lock) {
		device_close(self);
		PyThread_free_lock(self->lock);
	}
	py_object_free(obj);
}

static PyObject *
device_close_method(PyObject *self, PyObject *unused)
{
	device_close((struct py_device *)self);
	Py_RETURN_NONE;
}

static PyObject *
device_enter(PyObject *self, PyObject *unused)
{
	if (!py_device_get((struct py_device *)self))
		return NULL;
	return Py_NewRef(self);
}

static PyObject *
device_exit(PyObject *self, PyObject *args)
{
	device_close((struct py_device *)self);
	Py_RETURN_NONE;
}

static PyObject *
headless_make_current(PyObject *obj, PyObject *unused)
{
	struct py_device *self = (struct py_device *)obj;
	struct py_call call;
	int ret;

	if (!py_call_begin(&call, self))
		return NULL;
	ret = glcuda_headless_make_current(self->hl);
	py_call_end(&call, ret);
	if (ret < 0)
		return py_raise(ret);
	Py_RETURN_NONE;
}

/* A format name or None (GLCUDA_FORMAT_INVALID) from a Python string. */
static int
parse_format_arg(PyObject *obj, enum glcuda_format *out, const char *what)
{
	if (obj == Py_None) {
		*out = GLCUDA_FORMAT_INVALID;
		return 0;
	}
	return py_format_parse(obj, out, what);
}

static PyObject *
device_image(PyObject *obj, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = { "width", "height", "layers", "format",
				    "depth", "cuda_linear_filter", "origin",
				    NULL };
	struct py_device *self = (struct py_device *)obj;
	struct glcuda_image_desc desc;
	struct glcuda_image *img = NULL;
	struct glcuda_device *dev;
	struct py_call call;
	PyObject *format = NULL, *depth = Py_None, *origin_obj = Py_None;
	PyObject *result;
	unsigned int width, height, layers = 1;
	enum glcuda_origin origin;
	int linear = 0, ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "II|IO$OpO", keywords,
					 &width, &height, &layers, &format,
					 &depth, &linear, &origin_obj) ||
	    py_origin_parse(origin_obj, GLCUDA_ORIGIN_TOP_LEFT, &origin) < 0)
		return NULL;
	glcuda_image_desc_init(&desc);
	desc.width = width;
	desc.height = height;
	desc.layers = layers;
	desc.format = GLCUDA_FORMAT_RGBA8;
	if (linear)
		desc.flags |= GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER;
	if ((format && py_format_parse(format, &desc.format, "format") < 0) ||
	    parse_format_arg(depth, &desc.depth_format, "depth") < 0 ||
	    !(dev = py_call_begin(&call, self)))
		return NULL;
	ret = glcuda_image_new(dev, &desc, &img);
	py_call_end(&call, ret);
	if (ret < 0)
		return py_raise(ret);
	result = py_image_wrap(self, img);
	if (result)
		((struct py_image *)result)->origin = origin;
	return result;
}

static PyObject *
device_wrap_texture(PyObject *obj, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = { "texture", "target", "read_only",
				    "write_discard", NULL };
	struct py_device *self = (struct py_device *)obj;
	unsigned int texture, target = 0x0DE1; /* GL_TEXTURE_2D */
	struct glcuda_image *img = NULL;
	int read_only = 0, discard = 0, ret;
	struct glcuda_device *dev;
	struct py_call call;
	uint32_t flags = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "I|I$pp", keywords,
					 &texture, &target, &read_only,
					 &discard))
		return NULL;
	if (read_only)
		flags |= GLCUDA_WRAP_FLAG_READ_ONLY;
	if (discard)
		flags |= GLCUDA_WRAP_FLAG_WRITE_DISCARD;
	if (!(dev = py_call_begin(&call, self)))
		return NULL;
	ret = glcuda_image_wrap_gl_texture(dev, texture, target, flags, &img);
	py_call_end(&call, ret);
	if (ret < 0)
		return py_raise(ret);
	return py_image_wrap(self, img);
}

static PyObject *
device_has_format(PyObject *obj, PyObject *arg)
{
	struct py_device *self = (struct py_device *)obj;
	enum glcuda_format format;

	if (py_format_parse(arg, &format, "format") < 0 || !py_device_get(self))
		return NULL;
	return PyBool_FromLong(glcuda_device_has_format(self->dev, format));
}

static PyObject *
device_get_closed(PyObject *obj, void *closure)
{
	return PyBool_FromLong(!((struct py_device *)obj)->dev);
}

/* The capabilities, as a dict: one getter, so that a closed device
 * raises once. */
static PyObject *
device_get_caps(PyObject *obj, void *closure)
{
	struct py_device *self = (struct py_device *)obj;
	const struct glcuda_caps *caps;

	if (!py_device_get(self))
		return NULL;
	caps = glcuda_device_get_caps(self->dev);
	return Py_BuildValue("{s:s,s:s,s:(ii),s:s,s:s,s:s,s:i,s:s,s:i,s:I,s:I}",
		"sync_mode", glcuda_sync_mode_get_name(caps->sync_mode),
		"gl_api", caps->gl_api == GLCUDA_GL_API_GLES ? "gles" : "gl",
		"gl_version", caps->gl_major, caps->gl_minor,
		"gl_vendor", caps->gl_vendor,
		"gl_renderer", caps->gl_renderer,
		"vulkan_device_name", caps->vulkan_device_name,
		"cuda_driver_version", caps->cuda_driver_version,
		"cuda_device_name", caps->cuda_device_name,
		"cuda_device", caps->cuda_ordinal,
		"max_image_size", caps->max_image_size,
		"max_image_layers", caps->max_image_layers);
}

static PyObject *
device_get_cuda_device(PyObject *obj, void *closure)
{
	struct py_device *self = (struct py_device *)obj;

	if (!py_device_get(self))
		return NULL;
	return PyLong_FromLong(glcuda_device_get_caps(self->dev)->cuda_ordinal);
}

/* GL_DEVICE_UUID_EXT of the context, which glcuda matched to the CUDA
 * device's (cuDeviceGetUuid), as text: "xxxxxxxx-xxxx-xxxx-xxxx-..."
 * in lower case, as Python's uuid.UUID writes it. */
static PyObject *
device_get_device_uuid(PyObject *obj, void *closure)
{
	struct py_device *self = (struct py_device *)obj;
	static const char hex[] = "0123456789abcdef";
	const uint8_t *uuid;
	char text[37];
	int i, n = 0;

	if (!py_device_get(self))
		return NULL;
	uuid = glcuda_device_get_caps(self->dev)->device_uuid;
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			text[n++] = '-';
		text[n++] = hex[uuid[i] >> 4];
		text[n++] = hex[uuid[i] & 15];
	}
	return PyUnicode_FromStringAndSize(text, n);
}

static PyObject *
device_get_cuda_context(PyObject *obj, void *closure)
{
	struct py_device *self = (struct py_device *)obj;

	if (!py_device_get(self))
		return NULL;
	return PyLong_FromVoidPtr(glcuda_device_get_cuda_context(self->dev));
}

static PyObject *
headless_get_description(PyObject *obj, void *closure)
{
	struct py_device *self = (struct py_device *)obj;

	if (!py_device_get(self))
		return NULL;
	return PyUnicode_FromString(glcuda_headless_get_description(self->hl));
}

static PyMethodDef device_methods[] = {
	{ "from_current", (PyCFunction)(void (*)(void))device_from_current,
	  METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	  "from_current(*, sync_mode=None) -> Device\n\n"
	  "Bind glcuda to the EGL display and context current on this "
	  "thread (a moderngl EGL context, PyOpenGL's, ...). The context "
	  "must stay alive and current for the device's calls." },
	{ "image", (PyCFunction)(void (*)(void))device_image,
	  METH_VARARGS | METH_KEYWORDS,
	  "image(width, height, layers=1, format='rgba8', *, depth=None, "
	  "cuda_linear_filter=False, origin='top-left') -> Image\n\n"
	  "A GL texture shared with CUDA: a 2D texture, or a 2D array of "
	  "layers, with a framebuffer per layer and a layered one. "
	  "depth='depth32f' adds a depth buffer to every framebuffer. "
	  "origin: row 0 of its tensors (Image.origin)." },
	{ "capture", (PyCFunction)(void (*)(void))py_device_capture,
	  METH_VARARGS | METH_KEYWORDS,
	  "capture(items, *, color=True, depth=False, origin='bottom-left')"
	  "\n\n"
	  "Many captures in one call (Image.capture() for each): items are "
	  "(framebuffer, image, layer) or (framebuffer, image, layer, x, y). "
	  "Then one __dlpack__ or copy_to per image takes them all to CUDA "
	  "in one hand-off." },
	{ "wrap_texture", (PyCFunction)(void (*)(void))device_wrap_texture,
	  METH_VARARGS | METH_KEYWORDS,
	  "wrap_texture(texture, target=GL_TEXTURE_2D, *, read_only=False, "
	  "write_discard=False) -> Image\n\n"
	  "Hand a GL texture the caller owns (a moderngl texture's glo) to "
	  "CUDA. Close the image before deleting the texture." },
	{ "has_format", device_has_format, METH_O,
	  "has_format(format) -> bool: whether images of the format can be "
	  "made on this device." },
	{ "close", device_close_method, METH_NOARGS,
	  "Close the device's images, then the device (and a Headless "
	  "device's EGL context). Closing again does nothing." },
	{ "__enter__", device_enter, METH_NOARGS, NULL },
	{ "__exit__", device_exit, METH_VARARGS, NULL },
	{ NULL }
};

static PyGetSetDef device_getset[] = {
	{ "closed", device_get_closed, NULL, "Whether the device was closed." },
	{ "caps", device_get_caps, NULL,
	  "What the device can do: sync mode, GL API and version, CUDA "
	  "device, the largest image and layer count." },
	{ "cuda_device", device_get_cuda_device, NULL,
	  "The CUDA device ordinal of the GPU GL renders on." },
	{ "device_uuid", device_get_device_uuid, NULL,
	  "The UUID of the GPU GL renders on (GL_DEVICE_UUID_EXT, the same "
	  "as the CUDA device's cuDeviceGetUuid), as text in uuid.UUID's "
	  "form." },
	{ "cuda_context", device_get_cuda_context, NULL,
	  "The CUcontext glcuda uses (the device's primary context), as an "
	  "integer." },
	{ NULL }
};

static PyType_Slot device_slots[] = {
	{ Py_tp_doc, "A glcuda device: glcuda bound to an EGL context.\n\n"
		     "Use it from the thread on which its context is current. "
		     "A context manager: closing it closes its images." },
	{ Py_tp_new, device_new },
	{ Py_tp_dealloc, device_dealloc },
	{ Py_tp_methods, device_methods },
	{ Py_tp_getset, device_getset },
	{ 0, NULL }
};

static PyType_Spec device_spec = {
	.name = "glcuda.Device",
	.basicsize = sizeof(struct py_device),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.slots = device_slots,
};

static PyMethodDef headless_methods[] = {
	{ "make_current", headless_make_current, METH_NOARGS,
	  "Make the headless context current on this thread." },
	{ NULL }
};

static PyGetSetDef headless_getset[] = {
	{ "description", headless_get_description, NULL,
	  "The EGL device or platform used, and how it was picked." },
	{ NULL }
};

static PyType_Slot headless_slots[] = {
	{ Py_tp_doc, "Headless(cuda_device=-1, *, gles=False, sync_mode=None)"
		     "\n\nA Device on an EGL display of its own: the EGL "
		     "device of CUDA device cuda_device (-1: one CUDA can "
		     "see), with a GL 4.5+ core (or, with gles, GLES 3) "
		     "context made current on this thread." },
	{ Py_tp_new, headless_new },
	{ Py_tp_methods, headless_methods },
	{ Py_tp_getset, headless_getset },
	{ 0, NULL }
};

static PyType_Spec headless_spec = {
	.name = "glcuda.Headless",
	.basicsize = sizeof(struct py_device),
	.flags = Py_TPFLAGS_DEFAULT,
	.slots = headless_slots,
};

int
py_device_init(PyObject *module)
{
	py_device_type = (PyTypeObject *)PyType_FromSpec(&device_spec);
	if (!py_device_type ||
	    PyModule_AddObjectRef(module, "Device",
				  (PyObject *)py_device_type) < 0)
		return -1;
	py_headless_type = (PyTypeObject *)PyType_FromSpecWithBases(
		&headless_spec, (PyObject *)py_device_type);
	if (!py_headless_type ||
	    PyModule_AddObjectRef(module, "Headless",
				  (PyObject *)py_headless_type) < 0)
		return -1;
	return 0;
}
