/*
 * glcuda-info: gathering the facts (info-facts.h), through the public API
 * and glcuda's diagnosis calls (glcuda-diag.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "info-facts.h"

void
collect_egl(struct report *r)
{
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	int n;

	if (!client)
		(void)eglGetError();
	for (size_t i = 0; i < ARRAY_LENGTH(egl_client_exts); i++)
		r->client_ext[i] =
			extension_list_has(client, egl_client_exts[i].name);

	glcuda_diag_egl_device_init(&r->egl_devices[0]);
	n = glcuda_diag_list_egl_devices(r->egl_devices, MAX_EGL_DEVICES);
	if (n < 0) {
		r->egl_device_error = n;
		copy_string(r->egl_device_message,
			    sizeof(r->egl_device_message),
			    glcuda_get_last_error());
		return;
	}
	r->egl_device_count = n < MAX_EGL_DEVICES ? n : MAX_EGL_DEVICES;
}

void
collect_context(struct context_facts *f, uint32_t flags, int cuda_ordinal)
{
	struct glcuda_headless *hl;
	EGLDisplay dpy;
	const char *exts;
	int version;

	f->tried = true;
	f->error = glcuda_headless_new(cuda_ordinal, flags, &hl);
	if (f->error) {
		copy_string(f->message, sizeof(f->message),
			    glcuda_get_last_error());
		return;
	}
	copy_string(f->description, sizeof(f->description),
		    glcuda_headless_get_description(hl));
	dpy = glcuda_headless_get_display(hl);
	copy_string(f->egl_vendor, sizeof(f->egl_vendor),
		    eglQueryString(dpy, EGL_VENDOR));
	copy_string(f->egl_version, sizeof(f->egl_version),
		    eglQueryString(dpy, EGL_VERSION));
	exts = eglQueryString(dpy, EGL_EXTENSIONS);
	for (size_t i = 0; i < ARRAY_LENGTH(egl_display_exts); i++)
		f->egl_ext[i] =
			extension_list_has(exts, egl_display_exts[i].name);

	copy_string(f->gl_version, sizeof(f->gl_version),
		    (const char *)glGetString(GL_VERSION));
	copy_string(f->gl_renderer, sizeof(f->gl_renderer),
		    (const char *)glGetString(GL_RENDERER));
	copy_string(f->gl_vendor, sizeof(f->gl_vendor),
		    (const char *)glGetString(GL_VENDOR));
	version = epoxy_gl_version();
	f->major = version / 10;
	f->minor = version % 10;
	f->profile = "";
	if (epoxy_is_desktop_gl() && version >= 32) {
		GLint mask = 0;

		glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
		f->profile = mask & GL_CONTEXT_CORE_PROFILE_BIT ? "core"
			     : mask & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT
				     ? "compatibility"
				     : "none";
	}
	for (int i = 0; i < GL_EXT_COUNT; i++)
		f->ext[i] = epoxy_has_gl_extension(gl_exts[i].name);
	/* GL_DEVICE_UUID_EXT comes with either EXT_memory_object or
	 * EXT_semaphore. */
	if (f->ext[GL_EXT_MEMORY_OBJECT] || f->ext[GL_EXT_SEMAPHORE]) {
		glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, f->device_uuid);
		glGetUnsignedBytevEXT(GL_DRIVER_UUID_EXT, f->driver_uuid);
		f->has_uuids = glGetError() == GL_NO_ERROR;
	}
	glcuda_headless_destroy(hl);
}

void
collect_vulkan(struct report *r)
{
	int n;

	glcuda_diag_vk_device_init(&r->vk[0]);
	n = glcuda_diag_list_vk_devices(r->vk, MAX_VK_DEVICES);
	if (n < 0) {
		r->vk_error = n;
		copy_string(r->vk_message, sizeof(r->vk_message),
			    glcuda_get_last_error());
		return;
	}
	r->vk_count = n < MAX_VK_DEVICES ? n : MAX_VK_DEVICES;
}

void
collect_cuda(struct report *r)
{
	int n;

	glcuda_diag_cuda_device_init(&r->cuda[0]);
	n = glcuda_diag_list_cuda_devices(&r->cuda_driver_version, r->cuda,
					  MAX_CUDA_DEVICES);
	if (n < 0) {
		r->cuda_error = n;
		copy_string(r->cuda_message, sizeof(r->cuda_message),
			    glcuda_get_last_error());
		return;
	}
	r->cuda_count = n < MAX_CUDA_DEVICES ? n : MAX_CUDA_DEVICES;
}

static void GLCUDA_PRINTF(3, 0)
quiet_log(enum glcuda_log_priority priority, void *user_data,
	  const char *format, va_list args)
{
	/* The report prints the failure itself. */
}

static const char *
advice_for(int error)
{
	switch (error) {
	case GLCUDA_ERROR_NO_CUDA_DRIVER:
		return "Install the NVIDIA driver (it provides libcuda.so.1) "
		       "and check that nvidia-smi sees the GPU; set "
		       "GLCUDA_LIBCUDA to the library's path if it lives "
		       "outside the loader's path.";
	case GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE:
		return "GL renders on a GPU that CUDA does not see (a PRIME "
		       "laptop, or GL on Mesa while CUDA is on NVIDIA). Make "
		       "GL run on the NVIDIA GPU: pass --cuda-device N (the "
		       "CUDA ordinal) to use its EGL device, or set "
		       "__EGL_VENDOR_LIBRARY_FILENAMES=/usr/share/glvnd/"
		       "egl_vendor.d/10_nvidia.json.";
	case GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE:
		return "Install the Vulkan driver of the GPU GL renders on "
		       "(NVIDIA: the driver's nvidia_icd.json; Mesa: "
		       "mesa-vulkan-drivers) and check VK_ICD_FILENAMES / "
		       "VK_DRIVER_FILES do not hide it.";
	case GLCUDA_ERROR_DRIVER_MISMATCH:
		return "GL and Vulkan come from different drivers for the same "
		       "GPU: install matching versions of the GL and Vulkan "
		       "parts of one driver.";
	case GLCUDA_ERROR_MISSING_EGL_EXTENSION:
		return "Update libEGL (libglvnd) and the GPU driver.";
	case GLCUDA_ERROR_MISSING_GL_EXTENSION:
		return "The GL driver lacks an extension glcuda needs (named "
		       "above): update it (NVIDIA 470 or newer, Mesa 21 or "
		       "newer).";
	case GLCUDA_ERROR_MISSING_VULKAN_EXTENSION:
	case GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE:
		return "The Vulkan driver cannot export what glcuda needs: "
		       "update it.";
	case GLCUDA_ERROR_GL_TOO_OLD:
		return "glcuda needs OpenGL 4.5 core or OpenGL ES 3.0: update "
		       "the driver, or try --gles.";
	case GLCUDA_ERROR_NO_VULKAN:
		return "Install the Vulkan loader (libvulkan1) and the GPU's "
		       "Vulkan driver.";
	case GLCUDA_ERROR_NO_DISPLAY:
		return "No headless EGL display could make a context: install "
		       "the NVIDIA EGL library (libEGL_nvidia.so.0) or Mesa, "
		       "and check /usr/share/glvnd/egl_vendor.d; with "
		       "--cuda-device, check the CUDA ordinal.";
	case GLCUDA_ERROR_CUDA:
		return "A CUDA call failed: check the NVIDIA kernel module and "
		       "the driver version (nvidia-smi).";
	default:
		return "See the message.";
	}
}

void
collect_verdict(struct report *r)
{
	struct verdict *v = &r->verdict;
	struct glcuda_device_options options;
	struct glcuda_headless *hl;
	struct glcuda_device *dev;
	int ret;

	v->stage = "glcuda_headless_new";
	ret = glcuda_headless_new(r->cuda_ordinal,
				  r->gles ? GLCUDA_HEADLESS_FLAG_GLES : 0, &hl);
	if (ret) {
		v->error = ret;
		copy_string(v->message, sizeof(v->message),
			    glcuda_get_last_error());
		v->advice = advice_for(ret);
		return;
	}
	v->stage = "glcuda_device_new";
	glcuda_device_options_init(&options);
	options.log_func = quiet_log;
	ret = glcuda_device_new(glcuda_headless_get_display(hl),
				glcuda_headless_get_context(hl), &options,
				&dev);
	if (ret) {
		v->error = ret;
		copy_string(v->message, sizeof(v->message),
			    glcuda_get_last_error());
		v->advice = advice_for(ret);
	} else {
		const struct glcuda_caps *caps = glcuda_device_get_caps(dev);

		v->ok = true;
		v->sync_mode = caps->sync_mode;
		v->sync_modes_supported = caps->sync_modes_supported;
		v->image_kinds_supported = caps->image_kinds_supported;
		v->image_kinds_cpu_wait = caps->image_kinds_cpu_wait;
		glcuda_device_destroy(dev);
	}
	glcuda_headless_destroy(hl);
}

/* A context of the verdict's API on one EGL device's display, current
 * without a surface, the way glcuda_headless_new() makes it (the public
 * API opens a display by CUDA ordinal only, and a device CUDA cannot see
 * has none). Returns the context, or EGL_NO_CONTEXT with the reason. */
static EGLContext
device_context(EGLDisplay dpy, bool gles, char *why, size_t whysize)
{
	static const EGLint gl_attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 4,
		EGL_CONTEXT_MINOR_VERSION, 5,
		EGL_CONTEXT_OPENGL_PROFILE_MASK,
		EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
	};
	static const EGLint gles_attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0,
		EGL_NONE,
	};
	const char *exts = eglQueryString(dpy, EGL_EXTENSIONS);
	EGLConfig config = EGL_NO_CONFIG_KHR;
	EGLContext ctx;

	if (!extension_list_has(exts, "EGL_KHR_no_config_context") &&
	    !extension_list_has(exts, "EGL_MESA_configless_context")) {
		const EGLint attribs[] = {
			EGL_RENDERABLE_TYPE,
			gles ? EGL_OPENGL_ES3_BIT_KHR : EGL_OPENGL_BIT,
			EGL_SURFACE_TYPE, EGL_DONT_CARE,
			EGL_NONE,
		};
		EGLint n = 0;

		if (!eglChooseConfig(dpy, attribs, &config, 1, &n) || n < 1) {
			snprintf(why, whysize, "no EGL config for %s (0x%04x)",
				 gles ? "OpenGL ES 3" : "OpenGL",
				 (unsigned)eglGetError());
			return EGL_NO_CONTEXT;
		}
	}
	if (!eglBindAPI(gles ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) {
		snprintf(why, whysize, "eglBindAPI failed (0x%04x)",
			 (unsigned)eglGetError());
		return EGL_NO_CONTEXT;
	}
	ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT,
			       gles ? gles_attribs : gl_attribs);
	if (ctx == EGL_NO_CONTEXT) {
		snprintf(why, whysize, "eglCreateContext(%s) failed (0x%04x)",
			 gles ? "OpenGL ES 3.0" : "OpenGL 4.5 core",
			 (unsigned)eglGetError());
		return EGL_NO_CONTEXT;
	}
	if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
		snprintf(why, whysize,
			 "eglMakeCurrent without a surface failed (0x%04x)",
			 (unsigned)eglGetError());
		eglDestroyContext(dpy, ctx);
		return EGL_NO_CONTEXT;
	}
	return ctx;
}

static void
device_verdict(struct device_verdict *v, EGLDeviceEXT device, bool gles)
{
	struct glcuda_device_options options;
	struct glcuda_device *dev;
	EGLDisplay dpy;
	EGLContext ctx;
	EGLint major, minor;
	bool was_initialized;

	v->tried = true;
	v->stage = "context";
	v->cuda_ordinal = -1;
	dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, device, NULL);
	if (dpy == EGL_NO_DISPLAY) {
		v->error = GLCUDA_ERROR_EGL;
		snprintf(v->message, sizeof(v->message),
			 "eglGetPlatformDisplayEXT failed (0x%04x)",
			 (unsigned)eglGetError());
		return;
	}
	/* EGL displays are per-process singletons: terminate only one that
	 * this call initialised. */
	was_initialized = eglQueryString(dpy, EGL_VENDOR) != NULL;
	(void)eglGetError();
	if (!eglInitialize(dpy, &major, &minor)) {
		v->error = GLCUDA_ERROR_EGL;
		snprintf(v->message, sizeof(v->message),
			 "eglInitialize failed (0x%04x)",
			 (unsigned)eglGetError());
		return;
	}
	ctx = device_context(dpy, gles, v->message, sizeof(v->message));
	if (ctx == EGL_NO_CONTEXT) {
		v->error = GLCUDA_ERROR_EGL;
		if (!was_initialized)
			eglTerminate(dpy);
		return;
	}
	copy_string(v->renderer, sizeof(v->renderer),
		    (const char *)glGetString(GL_RENDERER));

	v->stage = "glcuda_device_new";
	glcuda_device_options_init(&options);
	options.log_func = quiet_log;
	v->error = glcuda_device_new(dpy, ctx, &options, &dev);
	if (v->error) {
		copy_string(v->message, sizeof(v->message),
			    glcuda_get_last_error());
	} else {
		v->cuda_ordinal = glcuda_device_get_caps(dev)->cuda_ordinal;
		v->sync_mode = glcuda_device_get_caps(dev)->sync_mode;
		glcuda_device_destroy(dev);
	}
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglDestroyContext(dpy, ctx);
	if (!was_initialized)
		eglTerminate(dpy);
	(void)eglGetError();
}

void
collect_device_verdicts(struct report *r)
{
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	EGLDeviceEXT devices[MAX_EGL_DEVICES];
	const char *why = NULL;
	EGLint n = 0;

	if (!client)
		(void)eglGetError();
	if (r->egl_device_error || r->egl_device_count == 0)
		return;
	/* The same list, in the same order, as collect_egl's. */
	if (!extension_list_has(client, "EGL_EXT_platform_device"))
		why = "the EGL library lacks EGL_EXT_platform_device: no "
		      "display on a device";
	else if (!eglQueryDevicesEXT(MAX_EGL_DEVICES, devices, &n))
		why = "eglQueryDevicesEXT failed";
	(void)eglGetError();
	for (int i = 0; i < r->egl_device_count; i++) {
		struct device_verdict *v = &r->egl_verdicts[i];

		if (why || i >= n) {
			v->tried = true;
			v->stage = "context";
			v->cuda_ordinal = -1;
			v->error = GLCUDA_ERROR_MISSING_EGL_EXTENSION;
			copy_string(v->message, sizeof(v->message),
				    why ? why
					: "the device is no longer listed");
			continue;
		}
		device_verdict(v, devices[i], r->gles);
	}
}
