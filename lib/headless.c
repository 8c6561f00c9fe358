/*
 * The headless helper: an EGL display without a window system and a
 * surfaceless GL 4.5+ core or GLES 3.x context on it, on the EGL device of a
 * given CUDA device when asked, else on that of a CUDA device CUDA can see.
 * SPDX-License-Identifier: MIT
 *
 * EGL displays are per-platform singletons: eglGetPlatformDisplayEXT hands
 * every caller in the process the same EGLDisplay for the same device, and
 * eglTerminate on it ends it for all of them. So this file only terminates a
 * display that was not initialised before it first opened it, and counts its
 * own users of each display (two headless objects on one device share the
 * display; the last one out terminates it). A caller that initialises the
 * same display on its own while a headless object holds it, and keeps using
 * it after glcuda_headless_destroy(), must eglInitialize it again: EGL gives
 * no way to see that from here (EGL_KHR_display_reference would, where the
 * caller opts in to it).
 */
#include "base.h"
#include "loader/cuda-loader.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* EGL_EXT_device_drm_render_node; older epoxy headers lack it. */
#ifndef EGL_DRM_RENDER_NODE_FILE_EXT
#define EGL_DRM_RENDER_NODE_FILE_EXT 0x337C
#endif

#define MAX_EGL_DEVICES 32

struct glcuda_headless {
	EGLDisplay display;
	EGLContext context;
	EGLenum api; /* EGL_OPENGL_API or EGL_OPENGL_ES_API */
	/* enum glcuda_headless_cuda_match: how the display relates to CUDA's
	 * devices, set by the step that picked it. */
	int cuda_match;
	char description[384];
};

/* ---------------------------------------------------------------------- */
/* Process-wide count of the headless objects using each display.          */

struct display_ref {
	EGLDisplay display;
	unsigned int refs;
	/* The display was not initialised when we first opened it: the last
	 * of our users terminates it. */
	bool owned;
};

static pthread_mutex_t display_lock = PTHREAD_MUTEX_INITIALIZER;
static struct display_ref display_refs[MAX_EGL_DEVICES + 4];

static bool
display_is_initialized(EGLDisplay dpy)
{
	/* eglQueryString fails with EGL_NOT_INITIALIZED on a display that is
	 * not initialised, and needs nothing else. */
	const char *vendor = eglQueryString(dpy, EGL_VENDOR);

	if (!vendor) {
		(void)eglGetError();
		return false;
	}
	return true;
}

/* Initialise dpy (if needed) and take a reference. Returns 0, or
 * GLCUDA_ERROR_EGL with the reason in why. */
static int
display_acquire(EGLDisplay dpy, char *why, size_t whysize)
{
	struct display_ref *slot = NULL;
	EGLint major, minor;
	bool was_initialized;
	EGLBoolean ok;

	pthread_mutex_lock(&display_lock);
	for (size_t i = 0; i < ARRAY_LENGTH(display_refs); i++) {
		if (display_refs[i].refs && display_refs[i].display == dpy) {
			display_refs[i].refs++;
			pthread_mutex_unlock(&display_lock);
			return 0;
		}
		if (!slot && !display_refs[i].refs)
			slot = &display_refs[i];
	}
	if (!slot) {
		pthread_mutex_unlock(&display_lock);
		snprintf(why, whysize, "too many EGL displays open at once");
		return -ENOMEM;
	}
	was_initialized = display_is_initialized(dpy);
	driver_lifecycle_lock();
	ok = eglInitialize(dpy, &major, &minor);
	driver_lifecycle_unlock();
	if (!ok) {
		EGLint err = eglGetError();

		pthread_mutex_unlock(&display_lock);
		snprintf(why, whysize, "eglInitialize failed: %s (0x%04x)",
			 egl_error_name(err), (unsigned)err);
		return GLCUDA_ERROR_EGL;
	}
	slot->display = dpy;
	slot->refs = 1;
	slot->owned = !was_initialized;
	pthread_mutex_unlock(&display_lock);
	return 0;
}

static void
display_release(EGLDisplay dpy)
{
	pthread_mutex_lock(&display_lock);
	for (size_t i = 0; i < ARRAY_LENGTH(display_refs); i++) {
		struct display_ref *ref = &display_refs[i];

		if (!ref->refs || ref->display != dpy)
			continue;
		if (--ref->refs == 0) {
			if (ref->owned) {
				driver_lifecycle_lock();
				eglTerminate(dpy);
				driver_lifecycle_unlock();
			}
			ref->display = EGL_NO_DISPLAY;
		}
		break;
	}
	pthread_mutex_unlock(&display_lock);
}

/* ---------------------------------------------------------------------- */

static bool
has_client_extension(const char *name)
{
	const char *exts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);

	if (!exts) {
		/* EGL_EXT_client_extensions missing: no client extensions. */
		(void)eglGetError();
		return false;
	}
	return extension_list_has(exts, name);
}

/* Append "; " and a formatted text to a bounded string. */
static void GLCUDA_PRINTF(3, 4)
append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list args;

	if (len + 1 >= size)
		return;
	if (len) {
		snprintf(buf + len, size - len, "; ");
		len = strlen(buf);
	}
	va_start(args, fmt);
	vsnprintf(buf + len, size - len, fmt, args);
	va_end(args);
}

/* A context that failed after being made current: release and destroy it. */
static void
context_discard(EGLDisplay dpy, EGLContext ctx)
{
	if (eglGetCurrentContext() == ctx)
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	driver_lifecycle_lock();
	eglDestroyContext(dpy, ctx);
	driver_lifecycle_unlock();
	(void)eglGetError();
}

/* The context that flags ask for, on a display of a given EGL version. */
struct context_request {
	bool gles, debug;
	EGLint egl_major, egl_minor;
	bool egl15;
	int major;              /* 4: OpenGL core; 3: OpenGL ES */
	const int *minors;      /* the minor versions to try, newest first */
	unsigned int nminors;
};

static void
context_request_init(struct context_request *req, EGLDisplay dpy, uint32_t flags)
{
	static const int gl_minors[] = { 6, 5 };
	static const int gles_minors[] = { 2, 1, 0 };
	const char *ver = eglQueryString(dpy, EGL_VERSION);

	req->gles = flags & GLCUDA_HEADLESS_FLAG_GLES;
	req->debug = flags & GLCUDA_HEADLESS_FLAG_DEBUG;
	req->egl_major = 1;
	req->egl_minor = 4;
	if (ver)
		sscanf(ver, "%d.%d", &req->egl_major, &req->egl_minor);
	req->egl15 = req->egl_major > 1 || (req->egl_major == 1 && req->egl_minor >= 5);
	req->major = req->gles ? 3 : 4;
	req->minors = req->gles ? gles_minors : gl_minors;
	req->nminors = req->gles ? ARRAY_LENGTH(gles_minors) : ARRAY_LENGTH(gl_minors);
}

/* What the display must offer for a context without a window, and the
 * config to make it with (EGL_NO_CONFIG_KHR where configless contexts are
 * supported). */
static int
context_config(EGLDisplay dpy, const struct context_request *req, EGLConfig *config,
	       char *why, size_t whysize)
{
	const char *exts = eglQueryString(dpy, EGL_EXTENSIONS);

	*config = EGL_NO_CONFIG_KHR;
	if (!extension_list_has(exts, "EGL_KHR_surfaceless_context")) {
		snprintf(why, whysize, "the display lacks EGL_KHR_surfaceless_context "
			 "(needed for a context without a window)");
		return GLCUDA_ERROR_MISSING_EGL_EXTENSION;
	}
	if (!req->egl15 && !extension_list_has(exts, "EGL_KHR_create_context")) {
		snprintf(why, whysize, "the display is EGL %d.%d without "
			 "EGL_KHR_create_context: cannot ask for a GL version",
			 req->egl_major, req->egl_minor);
		return GLCUDA_ERROR_MISSING_EGL_EXTENSION;
	}
	if (!extension_list_has(exts, "EGL_KHR_no_config_context") &&
	    !extension_list_has(exts, "EGL_MESA_configless_context")) {
		/* Without configless contexts any config of the right API
		 * will do: the context never gets a surface. */
		const EGLint attribs[] = {
			EGL_RENDERABLE_TYPE, req->gles ? EGL_OPENGL_ES3_BIT_KHR : EGL_OPENGL_BIT,
			EGL_SURFACE_TYPE, EGL_DONT_CARE,
			EGL_NONE,
		};
		EGLint n = 0;

		if (!eglChooseConfig(dpy, attribs, config, 1, &n) || n < 1) {
			EGLint err = eglGetError();

			*config = EGL_NO_CONFIG_KHR;
			snprintf(why, whysize, "the display lacks EGL_KHR_no_config_context "
				 "and eglChooseConfig found no %s config (%s)",
				 req->gles ? "GLES 3" : "OpenGL", egl_error_name(err));
			return GLCUDA_ERROR_MISSING_EGL_EXTENSION;
		}
	}
	return 0;
}

/* The newest version the request allows that the driver makes. */
static int
context_make(EGLDisplay dpy, const struct context_request *req, EGLConfig config,
	     EGLContext *out, char *why, size_t whysize)
{
	EGLContext ctx = EGL_NO_CONTEXT;
	EGLint err = EGL_SUCCESS;

	for (unsigned int i = 0; i < req->nminors && ctx == EGL_NO_CONTEXT; i++) {
		EGLint attribs[16];
		unsigned int n = 0;

		attribs[n++] = EGL_CONTEXT_MAJOR_VERSION;
		attribs[n++] = req->major;
		attribs[n++] = EGL_CONTEXT_MINOR_VERSION;
		attribs[n++] = req->minors[i];
		if (!req->gles) {
			attribs[n++] = EGL_CONTEXT_OPENGL_PROFILE_MASK;
			attribs[n++] = EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT;
		}
		if (req->debug && req->egl15) {
			attribs[n++] = EGL_CONTEXT_OPENGL_DEBUG;
			attribs[n++] = EGL_TRUE;
		} else if (req->debug) {
			attribs[n++] = EGL_CONTEXT_FLAGS_KHR;
			attribs[n++] = EGL_CONTEXT_OPENGL_DEBUG_BIT_KHR;
		}
		attribs[n++] = EGL_NONE;
		driver_lifecycle_lock();
		ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, attribs);
		driver_lifecycle_unlock();
		if (ctx == EGL_NO_CONTEXT)
			err = eglGetError();
	}
	if (ctx == EGL_NO_CONTEXT) {
		snprintf(why, whysize, "eglCreateContext(%s %d.%d down to %d.%d%s) "
			 "failed: %s (0x%04x)",
			 req->gles ? "OpenGL ES" : "OpenGL core", req->major, req->minors[0],
			 req->major, req->minors[req->nminors - 1], req->debug ? ", debug" : "",
			 egl_error_name(err), (unsigned)err);
		return GLCUDA_ERROR_EGL;
	}
	*out = ctx;
	return 0;
}

/* Drivers may hand back another version than asked for (an ES 2.0 request
 * returns ES 3.2 on NVIDIA): check what the current context is. */
static int
context_check_version(bool gles, char *why, size_t whysize)
{
	int version = epoxy_gl_version();
	bool core = gles;

	if (!gles && version >= 32) {
		GLint mask = 0;

		glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
		core = mask & GL_CONTEXT_CORE_PROFILE_BIT;
	}
	if (version < (gles ? 30 : 45) || !core) {
		snprintf(why, whysize, "the context is %s %d.%d%s; glcuda needs "
			 "OpenGL 4.5 core or OpenGL ES 3.0",
			 gles ? "OpenGL ES" : "OpenGL", version / 10, version % 10,
			 core ? "" : " (not core profile)");
		return GLCUDA_ERROR_GL_TOO_OLD;
	}
	return 0;
}

/*
 * Create a context of the kind flags ask for on an initialised display and
 * make it current without a surface. Returns 0 with *out set, or an error
 * code with the reason in why (nothing left behind).
 */
static int
context_create(EGLDisplay dpy, uint32_t flags, EGLContext *out,
	       char *why, size_t whysize)
{
	struct context_request req;
	EGLConfig config;
	EGLContext ctx;
	EGLint err;
	int ret;

	context_request_init(&req, dpy, flags);
	ret = context_config(dpy, &req, &config, why, whysize);
	if (ret)
		return ret;

	if (!eglBindAPI(req.gles ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) {
		err = eglGetError();
		snprintf(why, whysize, "eglBindAPI(%s) failed: %s (the EGL "
			 "implementation has no %s)",
			 req.gles ? "EGL_OPENGL_ES_API" : "EGL_OPENGL_API",
			 egl_error_name(err), req.gles ? "OpenGL ES" : "desktop OpenGL");
		return GLCUDA_ERROR_EGL;
	}

	ret = context_make(dpy, &req, config, &ctx, why, whysize);
	if (ret)
		return ret;

	if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
		err = eglGetError();
		driver_lifecycle_lock();
		eglDestroyContext(dpy, ctx);
		driver_lifecycle_unlock();
		snprintf(why, whysize, "eglMakeCurrent(EGL_NO_SURFACE) failed: %s (0x%04x)",
			 egl_error_name(err), (unsigned)err);
		return GLCUDA_ERROR_EGL;
	}

	ret = context_check_version(req.gles, why, whysize);
	if (ret) {
		context_discard(dpy, ctx);
		return ret;
	}
	*out = ctx;
	return 0;
}

/* Open, initialise and make a context on a display. On success the display
 * is referenced and the context current. */
static int
open_on(EGLenum platform, void *native, EGLDisplay *dpy_out, EGLContext *ctx_out,
	uint32_t flags, char *why, size_t whysize)
{
	EGLDisplay dpy;
	EGLContext ctx;
	int ret;

	dpy = eglGetPlatformDisplayEXT(platform, native, NULL);
	if (dpy == EGL_NO_DISPLAY) {
		EGLint err = eglGetError();

		snprintf(why, whysize, "eglGetPlatformDisplayEXT failed: %s (0x%04x)",
			 egl_error_name(err), (unsigned)err);
		return GLCUDA_ERROR_EGL;
	}
	ret = display_acquire(dpy, why, whysize);
	if (ret)
		return ret;
	ret = context_create(dpy, flags, &ctx, why, whysize);
	if (ret) {
		display_release(dpy);
		return ret;
	}
	*dpy_out = dpy;
	*ctx_out = ctx;
	return 0;
}

static void
close_on(EGLDisplay dpy, EGLContext ctx)
{
	context_discard(dpy, ctx);
	display_release(dpy);
}

static void
describe(struct glcuda_headless *hl, const char *where)
{
	const char *renderer = (const char *)glGetString(GL_RENDERER);

	snprintf(hl->description, sizeof(hl->description), "%s: %s", where,
		 renderer ? renderer : "(no GL_RENDERER)");
}

/* A short description of an EGL device: "EGL device 0 (EGL_NV_device_cuda,
 * CUDA 0, /dev/dri/renderD128)". */
static void
device_label(EGLDeviceEXT dev, int index, char *buf, size_t size)
{
	const char *exts = eglQueryDeviceStringEXT(dev, EGL_EXTENSIONS);
	const char *node = NULL;
	EGLAttrib cuda = -1;
	char info[96] = "";

	if (extension_list_has(exts, "EGL_NV_device_cuda") &&
	    eglQueryDeviceAttribEXT(dev, EGL_CUDA_DEVICE_NV, &cuda))
		append(info, sizeof(info), "EGL_NV_device_cuda, CUDA %ld", (long)cuda);
	else if (extension_list_has(exts, "EGL_MESA_device_software"))
		append(info, sizeof(info), "EGL_MESA_device_software");
	if (extension_list_has(exts, "EGL_EXT_device_drm_render_node"))
		node = eglQueryDeviceStringEXT(dev, EGL_DRM_RENDER_NODE_FILE_EXT);
	if (!node && extension_list_has(exts, "EGL_EXT_device_drm"))
		node = eglQueryDeviceStringEXT(dev, EGL_DRM_DEVICE_FILE_EXT);
	(void)eglGetError();
	if (node)
		append(info, sizeof(info), "%s", node);
	/* append() separates with "; "; a label reads better with ", ". */
	for (char *p = info; (p = strstr(p, "; ")); p++)
		*p = ',';
	if (info[0])
		snprintf(buf, size, "EGL device %d (%s)", index, info);
	else
		snprintf(buf, size, "EGL device %d", index);
}

static int
query_devices(EGLDeviceEXT *devices, EGLint *count, char *why, size_t whysize)
{
	*count = 0;
	if (!(has_client_extension("EGL_EXT_device_enumeration") || has_client_extension("EGL_EXT_device_base")) ||
	    !has_client_extension("EGL_EXT_platform_device")) {
		snprintf(why, whysize, "the EGL library lacks %s",
			 (has_client_extension("EGL_EXT_device_enumeration") || has_client_extension("EGL_EXT_device_base"))
			 ? "EGL_EXT_platform_device" : "EGL_EXT_device_enumeration");
		return GLCUDA_ERROR_MISSING_EGL_EXTENSION;
	}
	if (!eglQueryDevicesEXT(MAX_EGL_DEVICES, devices, count)) {
		EGLint err = eglGetError();

		snprintf(why, whysize, "eglQueryDevicesEXT failed: %s (0x%04x)",
			 egl_error_name(err), (unsigned)err);
		*count = 0;
		return GLCUDA_ERROR_EGL;
	}
	return 0;
}

/* The current GL context's device UUID (GL_DEVICE_UUID_EXT): 0, or -1
 * with the reason in why. */
static int
gl_context_uuid(GLubyte uuid[GL_UUID_SIZE_EXT], char *why, size_t whysize)
{
	if (!epoxy_has_gl_extension("GL_EXT_memory_object") &&
	    !epoxy_has_gl_extension("GL_EXT_semaphore")) {
		snprintf(why, whysize, "no GL_EXT_memory_object, cannot read "
			 "GL_DEVICE_UUID_EXT");
		return -1;
	}
	memset(uuid, 0, GL_UUID_SIZE_EXT);
	glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, uuid);
	return 0;
}

/* The UUID of CUDA device ordinal, with CUDA loaded for the query only. */
static int
cuda_device_uuid(int ordinal, CUuuid *uuid)
{
	char cuerr[512];
	CUdevice cudev;
	CUresult res;
	int ret;

	ret = cuda_loader_load(cuerr, sizeof(cuerr));
	if (ret)
		return error_fail(NULL, ret, "no EGL device says it is CUDA device %d "
				  "(EGL_NV_device_cuda), and matching by UUID needs CUDA: %s",
				  ordinal, cuerr);
	res = CU_CALL(cuDeviceGet, &cudev, ordinal);
	if (res == CUDA_SUCCESS)
		res = CU_CALL(cuDeviceGetUuid, uuid, cudev);
	if (res != CUDA_SUCCESS) {
		int ndev = 0;

		cuda_result_string(res, cuerr, sizeof(cuerr));
		CU_CALL(cuDeviceGetCount, &ndev);
		cuda_loader_unload();
		return error_fail(NULL, GLCUDA_ERROR_NO_DISPLAY,
				  "CUDA device %d: cuDeviceGet/cuDeviceGetUuid failed: %s. "
				  "CUDA sees %d device%s; pass an ordinal below that.",
				  ordinal, cuerr, ndev, ndev == 1 ? "" : "s");
	}
	cuda_loader_unload();
	return 0;
}

/* The first of the candidate EGL devices whose GL context has the UUID of
 * CUDA device ordinal. */
static int
open_by_uuid(const EGLDeviceEXT *devices, const bool *candidate, EGLint count,
	     int ordinal, uint32_t flags, struct glcuda_headless *hl,
	     char *tried, size_t triedsize)
{
	char why[384], label[128];
	CUuuid uuid;
	int ret;

	ret = cuda_device_uuid(ordinal, &uuid);
	if (ret)
		return ret;
	for (EGLint i = 0; i < count; i++) {
		EGLDisplay dpy;
		EGLContext ctx;
		GLubyte gl_uuid[GL_UUID_SIZE_EXT];

		if (!candidate[i])
			continue;
		device_label(devices[i], i, label, sizeof(label));
		ret = open_on(EGL_PLATFORM_DEVICE_EXT, devices[i], &dpy, &ctx, flags,
			      why, sizeof(why));
		if (ret) {
			append(tried, triedsize, "%s: %s", label, why);
			continue;
		}
		if (gl_context_uuid(gl_uuid, why, sizeof(why)) < 0) {
			append(tried, triedsize, "%s: %s", label, why);
			close_on(dpy, ctx);
			continue;
		}
		/* memcmp: a UUID may contain a zero byte. */
		if (memcmp(gl_uuid, uuid.bytes, sizeof(gl_uuid)) != 0) {
			append(tried, triedsize, "%s: another device UUID", label);
			close_on(dpy, ctx);
			continue;
		}
		hl->display = dpy;
		hl->context = ctx;
		snprintf(label, sizeof(label), "EGL device %d (UUID of CUDA %d)", i, ordinal);
		hl->cuda_match = GLCUDA_HEADLESS_CUDA_MATCHED;
		describe(hl, label);
		return 0;
	}
	return error_fail(NULL, GLCUDA_ERROR_NO_DISPLAY,
			  "no EGL device is CUDA device %d: %s. GL must run on the "
			  "NVIDIA driver of that GPU (check the EGL vendor ICDs in "
			  "/usr/share/glvnd/egl_vendor.d).", ordinal, tried);
}

/* cuda_ordinal >= 0: the EGL device of that CUDA device. */
static int
open_cuda_device(int ordinal, uint32_t flags, struct glcuda_headless *hl)
{
	EGLDeviceEXT devices[MAX_EGL_DEVICES];
	bool candidate[MAX_EGL_DEVICES] = { false };
	unsigned int ncandidates = 0;
	char tried[1024] = "", why[384], label[128];
	EGLint count;
	int ret;

	ret = query_devices(devices, &count, why, sizeof(why));
	if (ret)
		return error_fail(NULL, ret, "cannot look for the EGL device of CUDA "
				  "device %d: %s. Use a libEGL with EGL device support "
				  "(libglvnd with the NVIDIA driver, or Mesa).", ordinal, why);

	/* EGL_NV_device_cuda says it directly. */
	for (EGLint i = 0; i < count; i++) {
		const char *exts = eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
		EGLAttrib value = -1;

		device_label(devices[i], i, label, sizeof(label));
		if (!extension_list_has(exts, "EGL_NV_device_cuda")) {
			candidate[i] = true;
			ncandidates++;
			continue;
		}
		if (!eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV, &value)) {
			EGLint err = eglGetError();

			append(tried, sizeof(tried), "%s: eglQueryDeviceAttribEXT"
			       "(EGL_CUDA_DEVICE_NV) failed: %s", label, egl_error_name(err));
			continue;
		}
		if (value != ordinal) {
			append(tried, sizeof(tried), "%s: another CUDA device", label);
			continue;
		}
		ret = open_on(EGL_PLATFORM_DEVICE_EXT, devices[i], &hl->display,
			      &hl->context, flags, why, sizeof(why));
		if (ret)
			return error_fail(NULL, ret, "%s is CUDA device %d, but no context "
					  "could be made on it: %s. Update the NVIDIA driver "
					  "or ask for another context kind.", label, ordinal, why);
		hl->cuda_match = GLCUDA_HEADLESS_CUDA_MATCHED;
		describe(hl, label);
		return 0;
	}

	if (ncandidates == 0)
		return error_fail(NULL, GLCUDA_ERROR_NO_DISPLAY,
				  "no EGL device is CUDA device %d (%d EGL device%s%s%s). "
				  "Check the CUDA ordinal (CUDA_VISIBLE_DEVICES renumbers "
				  "devices) and that the NVIDIA EGL driver is installed.",
				  ordinal, count, count == 1 ? "" : "s",
				  tried[0] ? ": " : "", tried);

	/* The others: compare the GL context's device UUID with CUDA's. */
	return open_by_uuid(devices, candidate, count, ordinal, flags, hl, tried,
			    sizeof(tried));
}

/* The CUDA devices CUDA can see, with their UUIDs: what cuda_ordinal -1
 * matches EGL displays against. */
#define MAX_CUDA_DEVICES 16

struct cuda_devices {
	int count; /* 0: no CUDA driver or no device (why says which) */
	bool has_uuid[MAX_CUDA_DEVICES];
	CUuuid uuid[MAX_CUDA_DEVICES];
	char why[512];
};

static void
cuda_devices_list(struct cuda_devices *c)
{
	CUresult res;
	int n = 0;

	memset(c, 0, sizeof(*c));
	/* Loads libcuda.so.1 (or $GLCUDA_LIBCUDA) and runs cuInit: fails
	 * without a driver, and with CUDA_ERROR_NO_DEVICE where CUDA sees no
	 * device (CUDA_VISIBLE_DEVICES empty or naming none). */
	if (cuda_loader_load(c->why, sizeof(c->why)))
		return;
	res = CU_CALL(cuDeviceGetCount, &n);
	if (res != CUDA_SUCCESS) {
		char cuerr[160];

		snprintf(c->why, sizeof(c->why), "cuDeviceGetCount failed: %s",
			 cuda_result_string(res, cuerr, sizeof(cuerr)));
		n = 0;
	} else if (n <= 0) {
		snprintf(c->why, sizeof(c->why), "CUDA sees no device");
		n = 0;
	}
	if (n > MAX_CUDA_DEVICES)
		n = MAX_CUDA_DEVICES;
	for (int i = 0; i < n; i++) {
		CUdevice dev;

		if (CU_CALL(cuDeviceGet, &dev, i) == CUDA_SUCCESS &&
		    CU_CALL(cuDeviceGetUuid, &c->uuid[i], dev) == CUDA_SUCCESS)
			c->has_uuid[i] = true;
	}
	c->count = n;
	cuda_loader_unload();
}

/* The CUDA ordinal whose UUID the current GL context reports as
 * GL_DEVICE_UUID_EXT, or -1 (with the reason in why). */
static int
cuda_device_of_context(const struct cuda_devices *c, char *why, size_t whysize)
{
	GLubyte gl_uuid[GL_UUID_SIZE_EXT];

	if (gl_context_uuid(gl_uuid, why, whysize) < 0)
		return -1;
	for (int i = 0; i < c->count; i++)
		/* memcmp: a UUID may contain a zero byte. */
		if (c->has_uuid[i] && memcmp(gl_uuid, c->uuid[i].bytes, sizeof(gl_uuid)) == 0)
			return i;
	snprintf(why, whysize, "its GL device UUID is no CUDA device's (CUDA "
		 "sees %d)", c->count);
	return -1;
}

/* The first display of the EGL devices, then of Mesa's surfaceless
 * platform, on which the context can be made; "note" is added to its
 * description. */
static int
open_first(const EGLDeviceEXT *devices, EGLint count, uint32_t flags,
	   struct glcuda_headless *hl, const char *note, char *tried, size_t triedsize)
{
	char why[384], label[128], where[256];
	int ret;

	for (EGLint i = 0; i < count; i++) {
		device_label(devices[i], i, label, sizeof(label));
		ret = open_on(EGL_PLATFORM_DEVICE_EXT, devices[i], &hl->display,
			      &hl->context, flags, why, sizeof(why));
		if (ret == 0) {
			snprintf(where, sizeof(where), "%s%s", label, note);
			describe(hl, where);
			return 0;
		}
		append(tried, triedsize, "%s: %s", label, why);
	}

	if (!has_client_extension("EGL_MESA_platform_surfaceless")) {
		append(tried, triedsize, "Mesa surfaceless platform: the EGL "
		       "library lacks EGL_MESA_platform_surfaceless");
	} else {
		ret = open_on(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
			      &hl->display, &hl->context, flags, why, sizeof(why));
		if (ret == 0) {
			snprintf(where, sizeof(where), "Mesa surfaceless platform%s", note);
			describe(hl, where);
			return 0;
		}
		append(tried, triedsize, "Mesa surfaceless platform: %s", why);
	}
	return error_fail(NULL, GLCUDA_ERROR_NO_DISPLAY,
			  "no EGL display could make an %s context: %s. Install the "
			  "NVIDIA driver's EGL library, or Mesa for a software "
			  "renderer; EGL_LOG_LEVEL=debug shows why Mesa fails.",
			  flags & GLCUDA_HEADLESS_FLAG_GLES ? "OpenGL ES 3.0+"
			  : "OpenGL 4.5 core", tried);
}

/*
 * cuda_ordinal == -1: the EGL display of a CUDA device that CUDA can see.
 * EGL lists every GPU whatever CUDA_VISIBLE_DEVICES says, so the first EGL
 * device may be one CUDA cannot use; EGL_NV_device_cuda's ordinal follows
 * CUDA_VISIBLE_DEVICES (the NVIDIA driver fails the query for a hidden
 * GPU). So: the first EGL device that names a CUDA device, then the first
 * EGL device (or Mesa's surfaceless display) whose GL device UUID is a CUDA
 * device's. Only without a CUDA driver or device, or when no display is
 * any CUDA device's, the first display that works (GL without interop; then
 * glcuda_device_new() says GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE).
 */
static int
open_any(uint32_t flags, struct glcuda_headless *hl)
{
	EGLDeviceEXT devices[MAX_EGL_DEVICES];
	/* Not tried again by UUID: the EGL_NV_device_cuda devices. */
	bool said[MAX_EGL_DEVICES] = { false };
	char tried[1024] = "", why[384], label[128], note[160];
	struct cuda_devices *cuda;
	EGLint count = 0;
	int ret;

	ret = query_devices(devices, &count, why, sizeof(why));
	if (ret)
		append(tried, sizeof(tried), "EGL devices: %s", why);
	else if (count == 0)
		append(tried, sizeof(tried), "EGL devices: none");

	for (EGLint i = 0; i < count; i++) {
		const char *exts = eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
		EGLAttrib value = -1;

		if (!extension_list_has(exts, "EGL_NV_device_cuda"))
			continue;
		said[i] = true;
		device_label(devices[i], i, label, sizeof(label));
		if (!eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV, &value)) {
			(void)eglGetError();
			err_debug(NULL, "glcuda_headless_new(-1): EGL device %d is no "
				  "CUDA device CUDA can see (CUDA_VISIBLE_DEVICES)\n", i);
			continue;
		}
		ret = open_on(EGL_PLATFORM_DEVICE_EXT, devices[i], &hl->display,
			      &hl->context, flags, why, sizeof(why));
		if (ret == 0) {
			hl->cuda_match = GLCUDA_HEADLESS_CUDA_MATCHED;
			describe(hl, label);
			return 0;
		}
		append(tried, sizeof(tried), "%s: %s", label, why);
	}

	/* The others by UUID: Mesa's devices, and EGL without
	 * EGL_NV_device_cuda. */
	cuda = malloc(sizeof(*cuda));
	if (!cuda)
		return error_fail(NULL, -ENOMEM, "glcuda_headless_new: out of memory");
	cuda_devices_list(cuda);
	if (cuda->count == 0) {
		err_debug(NULL, "glcuda_headless_new(-1): no CUDA device (%s): the "
			  "first EGL display that works\n", cuda->why);
		free(cuda);
		return open_first(devices, count, flags, hl, "", tried, sizeof(tried));
	}
	for (EGLint i = 0; i <= count; i++) {
		/* i == count: Mesa's surfaceless platform. */
		const bool surfaceless = i == count;
		EGLDisplay dpy;
		EGLContext ctx;
		int ordinal;

		if (!surfaceless && said[i])
			continue;
		if (surfaceless && !has_client_extension("EGL_MESA_platform_surfaceless"))
			break;
		if (surfaceless)
			snprintf(label, sizeof(label), "Mesa surfaceless platform");
		else
			device_label(devices[i], i, label, sizeof(label));
		ret = open_on(surfaceless ? EGL_PLATFORM_SURFACELESS_MESA
			      : EGL_PLATFORM_DEVICE_EXT,
			      surfaceless ? EGL_DEFAULT_DISPLAY : devices[i],
			      &dpy, &ctx, flags, why, sizeof(why));
		if (ret) {
			append(tried, sizeof(tried), "%s: %s", label, why);
			continue;
		}
		ordinal = cuda_device_of_context(cuda, why, sizeof(why));
		if (ordinal < 0) {
			append(tried, sizeof(tried), "%s: %s", label, why);
			close_on(dpy, ctx);
			continue;
		}
		free(cuda);
		hl->display = dpy;
		hl->context = ctx;
		if (surfaceless)
			snprintf(label, sizeof(label), "Mesa surfaceless platform "
				 "(UUID of CUDA %d)", ordinal);
		else
			snprintf(label, sizeof(label), "EGL device %d (UUID of CUDA %d)",
				 (int)i, ordinal);
		hl->cuda_match = GLCUDA_HEADLESS_CUDA_MATCHED;
		describe(hl, label);
		return 0;
	}

	/*
	 * CUDA sees devices, and no EGL display is one of them (GL on Mesa or
	 * another GPU, CUDA on NVIDIA). A context on another GPU is still a
	 * GL context, and what a caller that wants GL only, or a diagnosis,
	 * asks for; interop cannot work on it, and glcuda_device_new() fails
	 * with GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE. The description says so,
	 * so that the pick is never silent.
	 */
	err_info(NULL, "glcuda_headless_new(-1): no EGL display is one of the %d "
		 "CUDA device%s (%s): the first display that works, without interop\n",
		 cuda->count, cuda->count == 1 ? "" : "s", tried);
	snprintf(note, sizeof(note), " [none of the %d CUDA device%s: no interop]",
		 cuda->count, cuda->count == 1 ? "" : "s");
	free(cuda);
	hl->cuda_match = GLCUDA_HEADLESS_CUDA_NONE;
	tried[0] = '\0';
	return open_first(devices, count, flags, hl, note, tried, sizeof(tried));
}

GLCUDA_EXPORT int
glcuda_headless_new(int cuda_ordinal, uint32_t flags, struct glcuda_headless **out)
{
	const uint32_t known = GLCUDA_HEADLESS_FLAG_GLES | GLCUDA_HEADLESS_FLAG_DEBUG;
	/* A failure leaves the thread as it found it. */
	struct egl_binding saved;
	struct glcuda_headless *hl;
	int ret;

	glcuda_clear_error();
	if (!out)
		return error_fail(NULL, -EINVAL, "glcuda_headless_new: out is NULL");
	if (cuda_ordinal < -1)
		return error_fail(NULL, -EINVAL, "glcuda_headless_new: cuda_ordinal %d: "
				  "pass a CUDA device ordinal or -1 for any device",
				  cuda_ordinal);
	if (flags & ~known)
		return error_fail(NULL, -EINVAL, "glcuda_headless_new: unknown flags 0x%x",
				  flags & ~known);
	if (!has_client_extension("EGL_EXT_platform_base"))
		return error_fail(NULL, GLCUDA_ERROR_MISSING_EGL_EXTENSION,
				  "the EGL library lacks EGL_EXT_platform_base: it cannot "
				  "open a display without a window system. Use libglvnd's "
				  "libEGL with the NVIDIA driver or Mesa 17 or newer.");

	hl = calloc(1, sizeof(*hl));
	if (!hl)
		return error_fail(NULL, -ENOMEM, "glcuda_headless_new: out of memory");
	hl->api = flags & GLCUDA_HEADLESS_FLAG_GLES ? EGL_OPENGL_ES_API : EGL_OPENGL_API;

	egl_binding_save(&saved);
	if (cuda_ordinal >= 0)
		ret = open_cuda_device(cuda_ordinal, flags, hl);
	else
		ret = open_any(flags, hl);
	if (ret) {
		egl_binding_restore(&saved);
		free(hl);
		return ret;
	}
	*out = hl;
	return 0;
}

GLCUDA_EXPORT void
glcuda_headless_destroy(struct glcuda_headless *hl)
{
	EGLenum api;

	if (!hl)
		return;
	/* eglGetCurrentContext answers for the bound API only. */
	api = eglQueryAPI();
	eglBindAPI(hl->api);
	if (eglGetCurrentContext() == hl->context)
		eglMakeCurrent(hl->display, EGL_NO_SURFACE, EGL_NO_SURFACE,
			       EGL_NO_CONTEXT);
	eglBindAPI(api);
	driver_lifecycle_lock();
	eglDestroyContext(hl->display, hl->context);
	driver_lifecycle_unlock();
	(void)eglGetError();
	display_release(hl->display);
	free(hl);
}

GLCUDA_EXPORT EGLDisplay
glcuda_headless_get_display(const struct glcuda_headless *hl)
{
	return hl ? hl->display : EGL_NO_DISPLAY;
}

GLCUDA_EXPORT EGLContext
glcuda_headless_get_context(const struct glcuda_headless *hl)
{
	return hl ? hl->context : EGL_NO_CONTEXT;
}

GLCUDA_EXPORT int
glcuda_headless_make_current(const struct glcuda_headless *hl)
{
	glcuda_clear_error();
	if (!hl)
		return error_fail(NULL, -EINVAL, "glcuda_headless_make_current: NULL");
	if (!eglBindAPI(hl->api) ||
	    !eglMakeCurrent(hl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, hl->context)) {
		EGLint err = eglGetError();

		return error_fail(NULL, GLCUDA_ERROR_EGL,
				  "eglMakeCurrent of the headless context failed: %s "
				  "(0x%04x). Is the context current on another thread? "
				  "Release it there first.", egl_error_name(err),
				  (unsigned)err);
	}
	return 0;
}

GLCUDA_EXPORT const char *
glcuda_headless_get_description(const struct glcuda_headless *hl)
{
	return hl ? hl->description : "";
}

GLCUDA_EXPORT enum glcuda_headless_cuda_match
glcuda_headless_get_cuda_match(const struct glcuda_headless *hl)
{
	return hl ? (enum glcuda_headless_cuda_match)hl->cuda_match
		  : GLCUDA_HEADLESS_CUDA_UNKNOWN;
}
