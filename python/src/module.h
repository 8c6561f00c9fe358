/*
 * The glcuda Python module (_glcuda): a thin layer over libglcuda, written
 * against CPython's limited API (the stable ABI of Python 3.11 and later),
 * so that one build works on every later Python.
 *
 * Every rule stays in the C library: this module converts arguments,
 * keeps Python objects from outliving what they wrap, and turns glcuda's
 * error codes and messages into exceptions.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_PY_MODULE_H
#define GLCUDA_PY_MODULE_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "cuda-types.h"
#include <glcuda/glcuda-dlpack.h>

struct py_image;

/* glcuda.Device, and glcuda.Headless (a Device that owns its EGL display
 * and context). The images made from the device are linked here, so that
 * closing the device closes them first: glcuda refuses to destroy a
 * device that still has images. */
struct py_device {
	PyObject_HEAD
	struct glcuda_device *dev;
	struct glcuda_headless *hl;
	struct py_image *images;
	/* Held by every call into libglcuda for this device and its
	 * images, and by their closing (struct py_call). */
	PyThread_type_lock lock;
};

/* glcuda.Image. It holds a reference to its device (the device outlives
 * its images); img is NULL once closed, by itself or by the device. */
struct py_image {
	PyObject_HEAD
	struct glcuda_image *img;
	struct py_device *device;
	struct py_image *prev, *next;
	/* The export behind __cuda_array_interface__, and its plane: the
	 * image keeps the memory alive until the next such export or its
	 * close. */
	DLManagedTensorVersioned *cai_export;
	/* The row order of its tensors (Image.origin): top-left unless the
	 * caller chose GL's. */
	enum glcuda_origin origin;
};

extern PyTypeObject *py_device_type;
extern PyTypeObject *py_headless_type;
extern PyTypeObject *py_image_type;

/* module.c: formats by their lower-case names ("rgba8", "depth32f"). */
int py_format_parse(PyObject *obj, enum glcuda_format *out, const char *what);
PyObject *py_format_build(enum glcuda_format format);
/* The end of a dealloc of our heap types: free the object, drop its
 * type's reference. */
void py_object_free(PyObject *obj);

/* What a plane of an image (or one layer of it) is as a tensor: the shape
 * and dtype of glcuda_image_export_dlpack(), from the plane's CUDA
 * layout. */
struct py_layout {
	int ndim;
	int64_t shape[4];
	DLDataType dtype;
	size_t itemsize;
};

/* errors.c */
int py_errors_init(PyObject *module);
/* Raise the exception of glcuda error @code, with the message of the
 * thread's last failed glcuda call; returns NULL. */
PyObject *py_raise(int code);
/* The same, for a code whose message was saved before later glcuda calls
 * cleared it. */
PyObject *py_raise_message(int code, const char *message);
/* glcuda.ClosedError naming what is closed; returns NULL. */
PyObject *py_raise_closed(const char *what);

/* Calls into libglcuda, and through it into EGL, GL and CUDA, run
 * without the GIL and under the device's lock.
 *
 * Without the GIL, because the drivers have locks of their own: a thread
 * that holds the GIL and waits in the driver for a lock that another
 * thread holds, while that thread waits for the GIL (it returns from a
 * ctypes GL call or a torch call, which release the GIL), deadlocks the
 * process. Every call that enters a driver must let the GIL go.
 *
 * Under the device's lock, because without the GIL another thread could
 * close the image or the device in the middle of the call. Closing takes
 * the lock while it holds the GIL: no holder of the lock ever waits for
 * the GIL (py_call_end releases the lock first), so that cannot
 * deadlock. It detaches the glcuda objects from their Python objects
 * under the lock, which py_call_begin checks once it holds it. */
struct py_call {
	PyThread_type_lock lock;
	PyThreadState *state;
};

/* log.c: glcuda's log in Python's logging (logger "glcuda"). */
int py_log_init(PyObject *module);
/* Hand this thread's queued messages (and those of threads Python does
 * not know) to logging; the error message equal to @raised ("NAME:
 * message", the exception being raised; NULL: none) at DEBUG. Needs the
 * GIL; keeps the exception set, if any. */
void py_log_flush(const char *raised);

/* device.c */
int py_device_init(PyObject *module);
/* Let the GIL go and take @dev's lock. Returns @dev's glcuda device, or
 * NULL, with the GIL back, the lock released and ClosedError set, when
 * the device is closed (before or meanwhile). */
struct glcuda_device *py_call_begin(struct py_call *call,
				    struct py_device *dev);
/* Release the lock and take the GIL back; @ret: what the call returned.
 * After a success, hands the messages glcuda logged meanwhile to logging
 * (py_log_flush()); after a failure, py_raise() does. */
void py_call_end(struct py_call *call, int ret);
/* The open device of @dev, or NULL with ClosedError set. */
struct glcuda_device *py_device_get(struct py_device *dev);

/* image.c */
int py_image_init(PyObject *module);
void py_image_close(struct py_image *img);
PyObject *py_image_wrap(struct py_device *dev, struct glcuda_image *img);
/* The open image of @img, or NULL with ClosedError set. */
struct glcuda_image *py_image_get(struct py_image *img);
/* py_call_begin for a call on @img: its glcuda image, or NULL (GIL back,
 * ClosedError set) when the image or its device is closed. */
struct glcuda_image *py_image_call_begin(struct py_call *call,
					 struct py_image *img);
/* Refusals of a plane or a layer out of range, as glcuda words them:
 * glcuda.InvalidArgumentError (-EINVAL), "@what: plane 2 of an image with
 * 1 plane", @all appended to a layer's (what selects all layers, " (or
 * None for all)"). 0 when in range, or -1 with the exception set. */
int py_check_plane(struct glcuda_image *img, const char *what, int plane);
int py_check_layer(struct glcuda_image *img, const char *what, int layer,
		   const char *all);
/* The layout of @plane, all layers (@layer GLCUDA_ALL_LAYERS) or one; 0,
 * or -1 with InvalidArgumentError set (a plane or layer out of range, as
 * py_check_plane() and py_check_layer(), or a format without a dtype). */
int py_image_layout(struct glcuda_image *img, const char *what, int plane,
		    int layer, const char *all, struct py_layout *out);
/* numpy's name of a dtype ("uint8", "float16"), NULL for others. */
const char *py_dtype_name(DLDataType dtype);

/* stream.c: the CUDA stream convention of the Python array API. */
/* None, 0, 1 and -1: the legacy default stream; 2: the per-thread default
 * stream; any other positive integer: a CUstream. 0 on success, -1 with
 * ValueError or TypeError set. */
int py_stream_parse(PyObject *obj, CUstream *out);
/* The stream as the array API writes it (1 for the legacy default). */
PyObject *py_stream_build(CUstream stream);

/* dlpack.c: the image as a tensor. */
PyObject *py_image_dlpack(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_image_dlpack_device(PyObject *self, PyObject *unused);
PyObject *py_image_cai(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_image_cai_get(PyObject *self, void *closure);
void py_image_cai_release(struct py_image *img);

/* copy.c: copies between the image and a caller's tensor. */
PyObject *py_image_copy_to(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_image_copy_from(PyObject *self, PyObject *args, PyObject *kwargs);

/* options.c: "top-left"/"bottom-left" (None: fallback), and depth to
 * distance from None or (projection, znear, zfar); -1 with
 * InvalidArgumentError raised. */
int py_origin_parse(PyObject *obj, enum glcuda_origin fallback,
		    enum glcuda_origin *out);
PyObject *py_origin_build(enum glcuda_origin origin);
int py_depth_parse(PyObject *obj, struct glcuda_depth_conversion *out);

/* capture.c: Image.capture() and Device.capture(). */
PyObject *py_image_capture(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_device_capture(PyObject *self, PyObject *args, PyObject *kwargs);

/* profile.c: the stages of the export and copy paths, timed where
 * GLCUDA_PY_PROFILE=1 (doc/python.md, "Performance"). */
enum py_copy_stage {
	PY_COPY_ARGS,    /* the arguments parsed */
	PY_COPY_STREAM,  /* the stream parsed */
	PY_COPY_CHECKS,  /* the image, origin, depth, layer and layout */
	PY_COPY_TENSOR,  /* the caller's tensor from its producer */
	PY_COPY_LAYOUT,  /* its shape and strides checked */
	PY_COPY_LOCK,    /* the GIL released, the device's lock taken */
	PY_COPY_LIBRARY, /* glcuda_copy_linear() */
	PY_COPY_UNLOCK,  /* the lock released, the GIL taken back */
	PY_COPY_RELEASE, /* the producer's deleter */
	PY_COPY_TOTAL,   /* the whole call */
	PY_COPY_STAGES
};
enum py_stage {
	PY_STAGE_DLPACK_ARGS,
	PY_STAGE_DLPACK_STREAM,
	PY_STAGE_DLPACK_CHECKS,
	PY_STAGE_DLPACK_LOCK,
	PY_STAGE_DLPACK_EXPORT,
	PY_STAGE_DLPACK_UNLOCK,
	PY_STAGE_DLPACK_CAPSULE,
	PY_STAGE_DLPACK_TOTAL,
	PY_STAGE_DLPACK_DEVICE,
	PY_STAGE_CAPSULE_FREE,
	PY_STAGE_COPY_TO,
	PY_STAGE_COPY_FROM = PY_STAGE_COPY_TO + PY_COPY_STAGES,
	PY_STAGE_COUNT = PY_STAGE_COPY_FROM + PY_COPY_STAGES
};
/* A call's clock: the last mark and the start. */
struct py_profile {
	int on;
	uint64_t wall, cpu, wall0, cpu0;
};
/* GLCUDA_PY_PROFILE=1 at import. */
extern int py_profile_on;
void py_profile_init(void);
void py_profile_start(struct py_profile *p);
/* The time since the last mark, added to @stage. */
void py_profile_record(struct py_profile *p, enum py_stage stage);
/* The time since the start, added to @stage. */
void py_profile_record_total(struct py_profile *p, enum py_stage stage);
/* glcuda._profile(). */
PyObject *py_profile_take(PyObject *module, PyObject *unused);

static inline void
py_profile_begin(struct py_profile *p)
{
	p->on = py_profile_on;
	if (p->on)
		py_profile_start(p);
}

static inline void
py_profile_mark(struct py_profile *p, enum py_stage stage)
{
	if (p->on)
		py_profile_record(p, stage);
}

static inline void
py_profile_total(struct py_profile *p, enum py_stage stage)
{
	if (p->on)
		py_profile_record_total(p, stage);
}

#endif
