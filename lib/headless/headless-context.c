/*
 * The headless helper's context: a surfaceless GL 4.5+ core, GL
 * compatibility-profile or GLES 3.x context, made current on a display it
 * references.
 * SPDX-License-Identifier: MIT
 */
#include "headless/headless.h"

#include <stdio.h>

/* A context that failed after being made current: release and destroy it. */
static void
context_discard(EGLDisplay dpy, EGLContext ctx)
{
	if (eglGetCurrentContext() == ctx)
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
			       EGL_NO_CONTEXT);
	driver_lifecycle_lock();
	eglDestroyContext(dpy, ctx);
	driver_lifecycle_unlock();
	(void)eglGetError();
}

/* A GL version to ask for. */
struct context_version {
	int major, minor;
};

/* The context that flags ask for, on a display of a given EGL version. */
struct context_request {
	bool gles, compat, debug;
	EGLint egl_major, egl_minor;
	bool egl15;
	/* The versions to try, newest first. */
	const struct context_version *versions;
	unsigned int nversions;
};

static void
context_request_init(struct context_request *req, EGLDisplay dpy,
		     uint32_t flags)
{
	static const struct context_version core[] = { { 4, 6 }, { 4, 5 } };
	static const struct context_version gles[] = {
		{ 3, 2 }, { 3, 1 }, { 3, 0 },
	};
	/* A compatibility context of 4.5 or newer is what glcuda_device_new
	 * takes; an older one is still a context a legacy renderer draws
	 * with (EGL_KHR_create_context: profiles exist from 3.2 up). */
	static const struct context_version compat[] = {
		{ 4, 6 }, { 4, 5 }, { 4, 4 }, { 4, 3 }, { 4, 2 },
		{ 4, 1 }, { 4, 0 }, { 3, 3 }, { 3, 2 },
	};
	const char *ver = eglQueryString(dpy, EGL_VERSION);

	req->gles = flags & GLCUDA_HEADLESS_FLAG_GLES;
	req->compat = flags & GLCUDA_HEADLESS_FLAG_COMPATIBILITY;
	req->debug = flags & GLCUDA_HEADLESS_FLAG_DEBUG;
	req->egl_major = 1;
	req->egl_minor = 4;
	if (ver)
		sscanf(ver, "%d.%d", &req->egl_major, &req->egl_minor);
	req->egl15 = req->egl_major > 1 ||
		     (req->egl_major == 1 && req->egl_minor >= 5);
	if (req->gles) {
		req->versions = gles;
		req->nversions = ARRAY_LENGTH(gles);
	} else if (req->compat) {
		req->versions = compat;
		req->nversions = ARRAY_LENGTH(compat);
	} else {
		req->versions = core;
		req->nversions = ARRAY_LENGTH(core);
	}
}

/* "OpenGL ES", "OpenGL core" or "OpenGL compatibility". */
static const char *
context_request_name(const struct context_request *req)
{
	if (req->gles)
		return "OpenGL ES";
	return req->compat ? "OpenGL compatibility" : "OpenGL core";
}

/* What the display must offer for a context without a window, and the
 * config to make it with (EGL_NO_CONFIG_KHR where configless contexts are
 * supported). */
static int
context_config(EGLDisplay dpy, const struct context_request *req,
	       EGLConfig *config, char *why, size_t whysize)
{
	const char *exts = eglQueryString(dpy, EGL_EXTENSIONS);

	*config = EGL_NO_CONFIG_KHR;
	if (!extension_list_has(exts, "EGL_KHR_surfaceless_context")) {
		snprintf(why, whysize,
			 "the display lacks EGL_KHR_surfaceless_context "
			 "(needed for a context without a window)");
		return GLCUDA_ERROR_MISSING_EGL_EXTENSION;
	}
	if (!req->egl15 &&
	    !extension_list_has(exts, "EGL_KHR_create_context")) {
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
			EGL_RENDERABLE_TYPE,
			req->gles ? EGL_OPENGL_ES3_BIT_KHR : EGL_OPENGL_BIT,
			EGL_SURFACE_TYPE, EGL_DONT_CARE,
			EGL_NONE,
		};
		EGLint n = 0;

		if (!eglChooseConfig(dpy, attribs, config, 1, &n) || n < 1) {
			EGLint err = eglGetError();

			*config = EGL_NO_CONFIG_KHR;
			snprintf(why, whysize,
				 "the display lacks EGL_KHR_no_config_context "
				 "and eglChooseConfig found no %s config (%s)",
				 req->gles ? "GLES 3" : "OpenGL",
				 egl_error_name(err));
			return GLCUDA_ERROR_MISSING_EGL_EXTENSION;
		}
	}
	return 0;
}

/* The newest version the request allows that the driver makes. */
static int
context_make(EGLDisplay dpy, const struct context_request *req,
	     EGLConfig config, EGLContext *out, char *why, size_t whysize)
{
	const EGLint compat = EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT;
	const EGLint profile =
		req->compat ? compat : EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT;
	EGLContext ctx = EGL_NO_CONTEXT;
	EGLint err = EGL_SUCCESS;

	for (unsigned int i = 0; i < req->nversions && ctx == EGL_NO_CONTEXT;
	     i++) {
		EGLint attribs[16];
		unsigned int n = 0;

		attribs[n++] = EGL_CONTEXT_MAJOR_VERSION;
		attribs[n++] = req->versions[i].major;
		attribs[n++] = EGL_CONTEXT_MINOR_VERSION;
		attribs[n++] = req->versions[i].minor;
		if (!req->gles) {
			attribs[n++] = EGL_CONTEXT_OPENGL_PROFILE_MASK;
			attribs[n++] = profile;
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
		snprintf(why, whysize,
			 "eglCreateContext(%s %d.%d down to %d.%d%s) failed: "
			 "%s (0x%04x)",
			 context_request_name(req), req->versions[0].major,
			 req->versions[0].minor,
			 req->versions[req->nversions - 1].major,
			 req->versions[req->nversions - 1].minor,
			 req->debug ? ", debug" : "", egl_error_name(err),
			 (unsigned)err);
		return GLCUDA_ERROR_EGL;
	}
	*out = ctx;
	return 0;
}

/* Drivers may hand back another version or profile than asked for (an ES
 * 2.0 request returns ES 3.2 on NVIDIA): check what the current context
 * is. */
static int
context_check_version(const struct context_request *req, char *why,
		      size_t whysize)
{
	const GLint want = req->compat ? GL_CONTEXT_COMPATIBILITY_PROFILE_BIT
				       : GL_CONTEXT_CORE_PROFILE_BIT;
	int version = epoxy_gl_version();
	bool profile = req->gles;

	if (!req->gles && version >= 32) {
		GLint mask = 0;

		glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
		profile = mask & want;
	}
	if (req->compat && (version < 32 || !profile)) {
		snprintf(why, whysize,
			 "the context is OpenGL %d.%d%s; a compatibility "
			 "context was asked for (OpenGL 3.2 or newer)",
			 version / 10, version % 10,
			 profile ? "" : " (not compatibility profile)");
		return GLCUDA_ERROR_GL_TOO_OLD;
	}
	if (!req->compat && (version < (req->gles ? 30 : 45) || !profile)) {
		snprintf(why, whysize,
			 "the context is %s %d.%d%s; glcuda needs OpenGL 4.5 "
			 "core or OpenGL ES 3.0",
			 req->gles ? "OpenGL ES" : "OpenGL", version / 10,
			 version % 10, profile ? "" : " (not core profile)");
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
		snprintf(why, whysize,
			 "eglBindAPI(%s) failed: %s (the EGL implementation "
			 "has no %s)",
			 req.gles ? "EGL_OPENGL_ES_API" : "EGL_OPENGL_API",
			 egl_error_name(err),
			 req.gles ? "OpenGL ES" : "desktop OpenGL");
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
		snprintf(why, whysize,
			 "eglMakeCurrent(EGL_NO_SURFACE) failed: %s (0x%04x)",
			 egl_error_name(err), (unsigned)err);
		return GLCUDA_ERROR_EGL;
	}

	ret = context_check_version(&req, why, whysize);
	if (ret) {
		context_discard(dpy, ctx);
		return ret;
	}
	*out = ctx;
	return 0;
}

/* Open, initialise and make a context on a display. On success the display
 * is referenced and the context current. */
int
headless_context_open(EGLenum platform, void *native, EGLDisplay *dpy_out,
		      EGLContext *ctx_out, uint32_t flags, char *why,
		      size_t whysize)
{
	EGLDisplay dpy;
	EGLContext ctx;
	int ret;

	dpy = eglGetPlatformDisplayEXT(platform, native, NULL);
	if (dpy == EGL_NO_DISPLAY) {
		EGLint err = eglGetError();

		snprintf(why, whysize,
			 "eglGetPlatformDisplayEXT failed: %s (0x%04x)",
			 egl_error_name(err), (unsigned)err);
		return GLCUDA_ERROR_EGL;
	}
	ret = headless_display_acquire(dpy, why, whysize);
	if (ret)
		return ret;
	ret = context_create(dpy, flags, &ctx, why, whysize);
	if (ret) {
		headless_display_release(dpy);
		return ret;
	}
	*dpy_out = dpy;
	*ctx_out = ctx;
	return 0;
}

void
headless_context_close(EGLDisplay dpy, EGLContext ctx)
{
	context_discard(dpy, ctx);
	headless_display_release(dpy);
}
