/*
 * The headless helper's choice of display: the EGL device of a given CUDA
 * device, or of any device CUDA can see, by EGL_NV_device_cuda or by the
 * device UUIDs of GL and CUDA; Mesa's surfaceless platform after the EGL
 * devices.
 * SPDX-License-Identifier: MIT
 */
#include "headless/headless.h"
#include "loader/cuda-loader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* EGL_EXT_device_drm_render_node; older epoxy headers lack it. */
#ifndef EGL_DRM_RENDER_NODE_FILE_EXT
#define EGL_DRM_RENDER_NODE_FILE_EXT 0x337C
#endif

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
		append(info, sizeof(info), "EGL_NV_device_cuda, CUDA %ld",
		       (long)cuda);
	else if (extension_list_has(exts, "EGL_MESA_device_software"))
		append(info, sizeof(info), "EGL_MESA_device_software");
	if (extension_list_has(exts, "EGL_EXT_device_drm_render_node"))
		node = eglQueryDeviceStringEXT(dev,
					       EGL_DRM_RENDER_NODE_FILE_EXT);
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
	bool enumeration =
		egl_has_client_extension("EGL_EXT_device_enumeration") ||
		egl_has_client_extension("EGL_EXT_device_base");

	*count = 0;
	if (!enumeration ||
	    !egl_has_client_extension("EGL_EXT_platform_device")) {
		snprintf(why, whysize, "the EGL library lacks %s",
			 enumeration ? "EGL_EXT_platform_device"
				     : "EGL_EXT_device_enumeration");
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
		return error_fail(NULL, ret,
				  "no EGL device says it is CUDA device %d "
				  "(EGL_NV_device_cuda), and matching by UUID "
				  "needs CUDA: %s",
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
				  "CUDA device %d: cuDeviceGet/cuDeviceGetUuid "
				  "failed: %s. CUDA sees %d device%s; pass an "
				  "ordinal below that.",
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
		ret = headless_context_open(EGL_PLATFORM_DEVICE_EXT, devices[i],
					    &dpy, &ctx, flags, why,
					    sizeof(why));
		if (ret) {
			append(tried, triedsize, "%s: %s", label, why);
			continue;
		}
		if (gl_context_uuid(gl_uuid, why, sizeof(why)) < 0) {
			append(tried, triedsize, "%s: %s", label, why);
			headless_context_close(dpy, ctx);
			continue;
		}
		/* memcmp: a UUID may contain a zero byte. */
		if (memcmp(gl_uuid, uuid.bytes, sizeof(gl_uuid)) != 0) {
			append(tried, triedsize, "%s: another device UUID",
			       label);
			headless_context_close(dpy, ctx);
			continue;
		}
		hl->display = dpy;
		hl->context = ctx;
		snprintf(label, sizeof(label),
			 "EGL device %d (UUID of CUDA %d)", i, ordinal);
		hl->cuda_match = GLCUDA_HEADLESS_CUDA_MATCHED;
		describe(hl, label);
		return 0;
	}
	return error_fail(NULL, GLCUDA_ERROR_NO_DISPLAY,
			  "no EGL device is CUDA device %d: %s. GL must run on "
			  "the NVIDIA driver of that GPU (check the EGL vendor "
			  "ICDs in /usr/share/glvnd/egl_vendor.d).",
			  ordinal, tried);
}

/* cuda_ordinal >= 0: the EGL device of that CUDA device. */
int
headless_devices_open_cuda(int ordinal, uint32_t flags,
			   struct glcuda_headless *hl)
{
	EGLDeviceEXT devices[MAX_EGL_DEVICES];
	bool candidate[MAX_EGL_DEVICES] = { false };
	unsigned int ncandidates = 0;
	char tried[1024] = "", why[384], label[128];
	EGLint count;
	int ret;

	ret = query_devices(devices, &count, why, sizeof(why));
	if (ret)
		return error_fail(NULL, ret,
				  "cannot look for the EGL device of CUDA "
				  "device %d: %s. Use a libEGL with EGL device "
				  "support (libglvnd with the NVIDIA driver, "
				  "or Mesa).",
				  ordinal, why);

	/* EGL_NV_device_cuda says it directly. */
	for (EGLint i = 0; i < count; i++) {
		const char *exts =
			eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
		EGLAttrib value = -1;

		device_label(devices[i], i, label, sizeof(label));
		if (!extension_list_has(exts, "EGL_NV_device_cuda")) {
			candidate[i] = true;
			ncandidates++;
			continue;
		}
		if (!eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV,
					     &value)) {
			EGLint err = eglGetError();

			append(tried, sizeof(tried),
			       "%s: "
			       "eglQueryDeviceAttribEXT(EGL_CUDA_DEVICE_NV) "
			       "failed: %s",
			       label, egl_error_name(err));
			continue;
		}
		if (value != ordinal) {
			append(tried, sizeof(tried), "%s: another CUDA device",
			       label);
			continue;
		}
		ret = headless_context_open(EGL_PLATFORM_DEVICE_EXT, devices[i],
					    &hl->display, &hl->context, flags,
					    why, sizeof(why));
		if (ret)
			return error_fail(NULL, ret,
					  "%s is CUDA device %d, but no "
					  "context could be made on it: %s. "
					  "Update the NVIDIA driver or ask for "
					  "another context kind.",
					  label, ordinal, why);
		hl->cuda_match = GLCUDA_HEADLESS_CUDA_MATCHED;
		describe(hl, label);
		return 0;
	}

	if (ncandidates == 0)
		return error_fail(NULL, GLCUDA_ERROR_NO_DISPLAY,
				  "no EGL device is CUDA device %d (%d EGL "
				  "device%s%s%s). Check the CUDA ordinal "
				  "(CUDA_VISIBLE_DEVICES renumbers devices) "
				  "and that the NVIDIA EGL driver is "
				  "installed.",
				  ordinal, count, count == 1 ? "" : "s",
				  tried[0] ? ": " : "", tried);

	/* The others: compare the GL context's device UUID with CUDA's. */
	return open_by_uuid(devices, candidate, count, ordinal, flags, hl,
			    tried, sizeof(tried));
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
		if (c->has_uuid[i] &&
		    memcmp(gl_uuid, c->uuid[i].bytes, sizeof(gl_uuid)) == 0)
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
	   struct glcuda_headless *hl, const char *note, char *tried,
	   size_t triedsize)
{
	char why[384], label[128], where[256];
	int ret;

	for (EGLint i = 0; i < count; i++) {
		device_label(devices[i], i, label, sizeof(label));
		ret = headless_context_open(EGL_PLATFORM_DEVICE_EXT, devices[i],
					    &hl->display, &hl->context, flags,
					    why, sizeof(why));
		if (ret == 0) {
			snprintf(where, sizeof(where), "%s%s", label, note);
			describe(hl, where);
			return 0;
		}
		append(tried, triedsize, "%s: %s", label, why);
	}

	if (!egl_has_client_extension("EGL_MESA_platform_surfaceless")) {
		append(tried, triedsize, "Mesa surfaceless platform: the EGL "
		       "library lacks EGL_MESA_platform_surfaceless");
	} else {
		ret = headless_context_open(EGL_PLATFORM_SURFACELESS_MESA,
					    EGL_DEFAULT_DISPLAY, &hl->display,
					    &hl->context, flags, why,
					    sizeof(why));
		if (ret == 0) {
			snprintf(where, sizeof(where),
				 "Mesa surfaceless platform%s", note);
			describe(hl, where);
			return 0;
		}
		append(tried, triedsize, "Mesa surfaceless platform: %s", why);
	}
	return error_fail(NULL, GLCUDA_ERROR_NO_DISPLAY,
			  "no EGL display could make an %s context: %s. "
			  "Install the NVIDIA driver's EGL library, or Mesa "
			  "for a software renderer; EGL_LOG_LEVEL=debug shows "
			  "why Mesa fails.",
			  flags & GLCUDA_HEADLESS_FLAG_GLES
				  ? "OpenGL ES 3.0+"
			  : flags & GLCUDA_HEADLESS_FLAG_COMPATIBILITY
				  ? "OpenGL compatibility"
				  : "OpenGL 4.5 core",
			  tried);
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
int
headless_devices_open_any(uint32_t flags, struct glcuda_headless *hl)
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
		const char *exts =
			eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
		EGLAttrib value = -1;

		if (!extension_list_has(exts, "EGL_NV_device_cuda"))
			continue;
		said[i] = true;
		device_label(devices[i], i, label, sizeof(label));
		if (!eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV,
					     &value)) {
			(void)eglGetError();
			err_debug(NULL,
				  "glcuda_headless_new(-1): EGL device %d is "
				  "no CUDA device CUDA can see "
				  "(CUDA_VISIBLE_DEVICES)\n",
				  i);
			continue;
		}
		ret = headless_context_open(EGL_PLATFORM_DEVICE_EXT, devices[i],
					    &hl->display, &hl->context, flags,
					    why, sizeof(why));
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
		return error_fail(NULL, -ENOMEM,
				  "glcuda_headless_new: out of memory");
	cuda_devices_list(cuda);
	if (cuda->count == 0) {
		err_debug(NULL,
			  "glcuda_headless_new(-1): no CUDA device (%s): the "
			  "first EGL display that works\n",
			  cuda->why);
		free(cuda);
		return open_first(devices, count, flags, hl, "", tried,
				  sizeof(tried));
	}
	for (EGLint i = 0; i <= count; i++) {
		/* i == count: Mesa's surfaceless platform. */
		const bool surfaceless = i == count;
		EGLDisplay dpy;
		EGLContext ctx;
		int ordinal;

		if (!surfaceless && said[i])
			continue;
		if (surfaceless &&
		    !egl_has_client_extension(
			    "EGL_MESA_platform_surfaceless"))
			break;
		if (surfaceless)
			snprintf(label, sizeof(label),
				 "Mesa surfaceless platform");
		else
			device_label(devices[i], i, label, sizeof(label));
		ret = headless_context_open(
			surfaceless ? EGL_PLATFORM_SURFACELESS_MESA
				    : EGL_PLATFORM_DEVICE_EXT,
			surfaceless ? EGL_DEFAULT_DISPLAY : devices[i], &dpy,
			&ctx, flags, why, sizeof(why));
		if (ret) {
			append(tried, sizeof(tried), "%s: %s", label, why);
			continue;
		}
		ordinal = cuda_device_of_context(cuda, why, sizeof(why));
		if (ordinal < 0) {
			append(tried, sizeof(tried), "%s: %s", label, why);
			headless_context_close(dpy, ctx);
			continue;
		}
		free(cuda);
		hl->display = dpy;
		hl->context = ctx;
		if (surfaceless)
			snprintf(label, sizeof(label),
				 "Mesa surfaceless platform (UUID of CUDA %d)",
				 ordinal);
		else
			snprintf(label, sizeof(label),
				 "EGL device %d (UUID of CUDA %d)", (int)i,
				 ordinal);
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
	err_info(NULL,
		 "glcuda_headless_new(-1): no EGL display is one of the %d "
		 "CUDA device%s (%s): the first display that works, without "
		 "interop\n",
		 cuda->count, cuda->count == 1 ? "" : "s", tried);
	snprintf(note, sizeof(note),
		 " [none of the %d CUDA device%s: no interop]", cuda->count,
		 cuda->count == 1 ? "" : "s");
	free(cuda);
	hl->cuda_match = GLCUDA_HEADLESS_CUDA_NONE;
	tried[0] = '\0';
	return open_first(devices, count, flags, hl, note, tried,
			  sizeof(tried));
}
