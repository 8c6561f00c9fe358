/*
 * Image.capture() and Device.capture(): rectangles of the caller's
 * framebuffers (a renderer's) into layers of images, on the GPU
 * (glcuda_capture_framebuffers()).
 * SPDX-License-Identifier: MIT
 */
#include "module.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The flags of color= and depth=. */
static int
capture_flags(int color, int depth, unsigned int *out)
{
	*out = (color ? GLCUDA_CAPTURE_COLOR : 0) |
	       (depth ? GLCUDA_CAPTURE_DEPTH : 0);
	if (!*out) {
		py_raise_message(-EINVAL,
				 "capture: color and depth are both False: "
				 "nothing to capture");
		return -1;
	}
	return 0;
}

/* One batch, the device's context current, without the GIL. */
static PyObject *
run_captures(struct py_device *device, const struct glcuda_capture *captures,
	     unsigned int count, enum glcuda_origin origin)
{
	struct glcuda_capture_desc desc;
	struct glcuda_device *dev;
	struct py_call call;
	int ret;

	if (!(dev = py_call_begin(&call, device)))
		return NULL;
	glcuda_capture_desc_init(&desc);
	desc.captures = captures;
	desc.count = count;
	desc.origin = origin;
	ret = glcuda_capture_framebuffers(dev, &desc);
	py_call_end(&call, ret);
	if (ret < 0)
		return py_raise(ret);
	Py_RETURN_NONE;
}

PyObject *
py_image_capture(PyObject *obj, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = { "framebuffer", "layer", "x", "y",
				    "color", "depth", "origin", NULL };
	struct py_image *self = (struct py_image *)obj;
	struct glcuda_capture c = { 0 };
	PyObject *origin_obj = Py_None;
	enum glcuda_origin origin;
	int color = 1, depth = 0, layer = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|I$iiippO", keywords,
					 &c.framebuffer, &layer, &c.x, &c.y,
					 &color, &depth, &origin_obj) ||
	    !(c.image = py_image_get(self)) ||
	    py_check_layer(c.image, "capture", layer, NULL) < 0 ||
	    py_origin_parse(origin_obj, GLCUDA_ORIGIN_BOTTOM_LEFT, &origin) <
		    0 ||
	    capture_flags(color, depth, &c.flags) < 0)
		return NULL;
	c.layer = (unsigned int)layer;
	return run_captures(self->device, &c, 1, origin);
}

/* items[i]: (framebuffer, image, layer) or (framebuffer, image, layer, x,
 * y), images of `device`. */
static int
parse_item(struct py_device *device, PyObject *item, Py_ssize_t i,
	   unsigned int flags, struct glcuda_capture *c)
{
	char what[48];
	PyObject *image;
	int layer;

	c->x = c->y = 0;
	if (!PyTuple_Check(item) ||
	    !PyArg_ParseTuple(item, "IOi|ii", &c->framebuffer, &image,
			      &layer, &c->x, &c->y)) {
		PyErr_Clear();
		py_raise_message(-EINVAL,
				 "capture: each item is (framebuffer, image, "
				 "layer) or (framebuffer, image, layer, x, y)");
		return -1;
	}
	if (!PyObject_TypeCheck(image, py_image_type)) {
		PyErr_Format(PyExc_TypeError,
			     "capture: item %zd: expected a glcuda.Image, got "
			     "%R",
			     i, (PyObject *)Py_TYPE(image));
		return -1;
	}
	if (((struct py_image *)image)->device != device) {
		py_raise_message(GLCUDA_ERROR_WRONG_DEVICE,
				 "capture: an image of another device");
		return -1;
	}
	if (!(c->image = py_image_get((struct py_image *)image)))
		return -1;
	snprintf(what, sizeof(what), "capture: item %zd", i);
	if (py_check_layer(c->image, what, layer, NULL) < 0)
		return -1;
	c->layer = (unsigned int)layer;
	c->flags = flags;
	return 0;
}

PyObject *
py_device_capture(PyObject *obj, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = { "items", "color", "depth", "origin", NULL };
	struct py_device *self = (struct py_device *)obj;
	PyObject *items, *origin_obj = Py_None, *result = NULL;
	struct glcuda_capture *captures;
	enum glcuda_origin origin;
	int color = 1, depth = 0;
	unsigned int flags;
	Py_ssize_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$ppO", keywords,
					 &items, &color, &depth,
					 &origin_obj) ||
	    py_origin_parse(origin_obj, GLCUDA_ORIGIN_BOTTOM_LEFT, &origin) <
		    0 ||
	    capture_flags(color, depth, &flags) < 0)
		return NULL;
	n = PySequence_Size(items);
	if (n < 0)
		return NULL;
	if (n == 0 || (size_t)n > UINT32_MAX)
		return py_raise_message(-EINVAL, "capture: no items");
	captures = calloc((size_t)n, sizeof(*captures));
	if (!captures)
		return PyErr_NoMemory();
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *item = PySequence_GetItem(items, i);
		int ret = item ? parse_item(self, item, i, flags, &captures[i])
			       : -1;

		Py_XDECREF(item);
		if (ret < 0)
			goto out;
	}
	result = run_captures(self, captures, (unsigned int)n, origin);
out:
	free(captures);
	return result;
}
