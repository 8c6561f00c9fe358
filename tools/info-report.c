/*
 * The glcuda-info report (see info-report.h). Facts are gathered first into
 * struct report, then printed as text or JSON, so both forms say the same.
 * SPDX-License-Identifier: MIT
 */
#include "private.h"
#include "vk/vk-exporter.h"
#include "info-report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef EGL_DRM_RENDER_NODE_FILE_EXT
#define EGL_DRM_RENDER_NODE_FILE_EXT 0x337C
#endif

#define MAX_EGL_DEVICES 16
#define MAX_VK_DEVICES 16
#define MAX_CUDA_DEVICES 16

/* Extensions that matter, with why. */
struct ext_info {
	const char *name;
	const char *why;
};

static const struct ext_info egl_client_exts[] = {
	{ "EGL_EXT_platform_base", "displays without a window system" },
	{ "EGL_EXT_platform_device", "headless display on a GPU" },
	{ "EGL_EXT_device_base", "list and query EGL devices" },
	{ "EGL_EXT_device_enumeration", "list EGL devices" },
	{ "EGL_EXT_device_query", "query EGL devices" },
	{ "EGL_MESA_platform_surfaceless", "Mesa headless display" },
};

static const struct ext_info egl_display_exts[] = {
	{ "EGL_KHR_no_config_context", "context without a config" },
	{ "EGL_KHR_surfaceless_context", "context without a surface" },
	{ "EGL_KHR_create_context", "GL version and profile (EGL < 1.5)" },
	{ "EGL_KHR_image_base", "EGLImages (wrap path)" },
	{ "EGL_KHR_gl_texture_2D_image", "EGLImage from a GL texture" },
	{ "EGL_EXT_image_dma_buf_import", "dma-buf import" },
	{ "EGL_MESA_image_dma_buf_export", "dma-buf export" },
	{ "EGL_KHR_fence_sync", "EGL fences" },
};

enum {
	GL_EXT_MEMORY_OBJECT,
	GL_EXT_MEMORY_OBJECT_FD,
	GL_EXT_SEMAPHORE,
	GL_EXT_SEMAPHORE_FD,
	GL_NV_TIMELINE_SEMAPHORE,
	GL_EXT_COUNT,
};

static const struct ext_info gl_exts[GL_EXT_COUNT] = {
	{ "GL_EXT_memory_object", "required: shared memory" },
	{ "GL_EXT_memory_object_fd", "required: import Vulkan memory" },
	{ "GL_EXT_semaphore", "GPU-side sync" },
	{ "GL_EXT_semaphore_fd", "GPU-side sync (binary); without it, CPU waits" },
	{ "GL_NV_timeline_semaphore", "GPU-side sync (timeline)" },
};

struct egl_device_facts {
	char extensions[512];
	bool has_cuda;
	long cuda_ordinal;
	char drm_node[128];
	char render_node[128];
};

struct context_facts {
	bool tried;
	int error; /* 0: the context was made */
	char message[1024];
	char description[384];
	char egl_vendor[128];
	char egl_version[128];
	bool egl_ext[ARRAY_LENGTH(egl_display_exts)];
	char gl_version[160];
	char gl_renderer[160];
	char gl_vendor[160];
	int major, minor;
	bool ext[GL_EXT_COUNT];
	bool has_uuids;
	uint8_t device_uuid[16];
	uint8_t driver_uuid[16];
};

struct cuda_device_facts {
	char name[256];
	uint8_t uuid[16];
	bool has_uuid;
};

static const char *
image_kind_name(int kind)
{
	switch (kind) {
	case GLCUDA_IMAGE_KIND_SHARED: return "shared images";
	case GLCUDA_IMAGE_KIND_GL_TEXTURE: return "wrapped GL textures";
	case GLCUDA_IMAGE_KIND_EGL_IMAGE: return "wrapped EGLImages";
	}
	return "?";
}

struct verdict {
	bool ok;
	enum glcuda_sync_mode sync_mode;
	uint32_t sync_modes_supported;
	uint32_t image_kinds_supported, image_kinds_cpu_wait;
	int error;
	char message[1024];
	const char *advice;
	const char *stage; /* "glcuda_headless_new" or "glcuda_device_new" */
};

struct report {
	bool gles;
	int cuda_ordinal;

	bool client_ext[ARRAY_LENGTH(egl_client_exts)];
	int egl_device_error; /* < 0: devices could not be listed */
	char egl_device_message[256];
	int egl_device_count;
	struct egl_device_facts egl_devices[MAX_EGL_DEVICES];

	struct context_facts gl, gles_ctx;

	int vk_error;
	char vk_message[512];
	int vk_count;
	struct vk_physical_info vk[MAX_VK_DEVICES];

	int cuda_error;
	char cuda_message[512];
	int cuda_driver_version;
	int cuda_count;
	struct cuda_device_facts cuda[MAX_CUDA_DEVICES];

	struct verdict verdict;
};

/* ---------------------------------------------------------------------- */
/* Gathering                                                                */

static void
copy_string(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

static void
collect_egl(struct report *r)
{
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	EGLDeviceEXT devices[MAX_EGL_DEVICES];
	EGLint count = 0;

	if (!client)
		(void)eglGetError();
	for (size_t i = 0; i < ARRAY_LENGTH(egl_client_exts); i++)
		r->client_ext[i] = extension_list_has(client, egl_client_exts[i].name);

	if (!(extension_list_has(client, "EGL_EXT_device_enumeration") || extension_list_has(client, "EGL_EXT_device_base"))) {
		r->egl_device_error = GLCUDA_ERROR_MISSING_EGL_EXTENSION;
		copy_string(r->egl_device_message, sizeof(r->egl_device_message),
			    "the EGL library lacks EGL_EXT_device_enumeration");
		return;
	}
	if (!eglQueryDevicesEXT(MAX_EGL_DEVICES, devices, &count)) {
		EGLint err = eglGetError();

		r->egl_device_error = GLCUDA_ERROR_EGL;
		snprintf(r->egl_device_message, sizeof(r->egl_device_message),
			 "eglQueryDevicesEXT failed: %s", egl_error_name(err));
		return;
	}
	r->egl_device_count = count;
	for (EGLint i = 0; i < count; i++) {
		struct egl_device_facts *d = &r->egl_devices[i];
		const char *exts = eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
		EGLAttrib value;

		copy_string(d->extensions, sizeof(d->extensions), exts);
		if (extension_list_has(exts, "EGL_NV_device_cuda") &&
		    eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV, &value)) {
			d->has_cuda = true;
			d->cuda_ordinal = (long)value;
		}
		if (extension_list_has(exts, "EGL_EXT_device_drm"))
			copy_string(d->drm_node, sizeof(d->drm_node),
				    eglQueryDeviceStringEXT(devices[i], EGL_DRM_DEVICE_FILE_EXT));
		if (extension_list_has(exts, "EGL_EXT_device_drm_render_node"))
			copy_string(d->render_node, sizeof(d->render_node),
				    eglQueryDeviceStringEXT(devices[i],
							    EGL_DRM_RENDER_NODE_FILE_EXT));
		(void)eglGetError();
	}
}

static void
collect_context(struct context_facts *f, bool gles, int cuda_ordinal)
{
	struct glcuda_headless *hl;
	EGLDisplay dpy;
	const char *exts;
	int version;

	f->tried = true;
	f->error = glcuda_headless_new(cuda_ordinal,
				       gles ? GLCUDA_HEADLESS_FLAG_GLES : 0, &hl);
	if (f->error) {
		copy_string(f->message, sizeof(f->message), glcuda_get_last_error());
		return;
	}
	copy_string(f->description, sizeof(f->description),
		    glcuda_headless_get_description(hl));
	dpy = glcuda_headless_get_display(hl);
	copy_string(f->egl_vendor, sizeof(f->egl_vendor), eglQueryString(dpy, EGL_VENDOR));
	copy_string(f->egl_version, sizeof(f->egl_version), eglQueryString(dpy, EGL_VERSION));
	exts = eglQueryString(dpy, EGL_EXTENSIONS);
	for (size_t i = 0; i < ARRAY_LENGTH(egl_display_exts); i++)
		f->egl_ext[i] = extension_list_has(exts, egl_display_exts[i].name);

	copy_string(f->gl_version, sizeof(f->gl_version),
		    (const char *)glGetString(GL_VERSION));
	copy_string(f->gl_renderer, sizeof(f->gl_renderer),
		    (const char *)glGetString(GL_RENDERER));
	copy_string(f->gl_vendor, sizeof(f->gl_vendor),
		    (const char *)glGetString(GL_VENDOR));
	version = epoxy_gl_version();
	f->major = version / 10;
	f->minor = version % 10;
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

static void
collect_vulkan(struct report *r)
{
	int n = vk_list_physical_devices(r->vk, MAX_VK_DEVICES, r->vk_message,
					 sizeof(r->vk_message));

	if (n < 0) {
		r->vk_error = n;
		return;
	}
	r->vk_count = n < MAX_VK_DEVICES ? n : MAX_VK_DEVICES;
}

static void
collect_cuda(struct report *r)
{
	char buf[160];
	CUresult res;
	int count = 0;

	r->cuda_error = cuda_loader_load(r->cuda_message, sizeof(r->cuda_message));
	if (r->cuda_error)
		return;
	r->cuda_driver_version = glcuda_cuda.driver_version;
	res = CU(cuDeviceGetCount)(&count);
	if (res != CUDA_SUCCESS) {
		r->cuda_error = GLCUDA_ERROR_CUDA;
		snprintf(r->cuda_message, sizeof(r->cuda_message),
			 "cuDeviceGetCount failed: %s",
			 cuda_result_string(res, buf, sizeof(buf)));
		cuda_loader_unload();
		return;
	}
	r->cuda_count = count < MAX_CUDA_DEVICES ? count : MAX_CUDA_DEVICES;
	for (int i = 0; i < r->cuda_count; i++) {
		struct cuda_device_facts *d = &r->cuda[i];
		CUdevice dev;
		CUuuid uuid;

		if (CU(cuDeviceGet)(&dev, i) != CUDA_SUCCESS) {
			copy_string(d->name, sizeof(d->name), "(cuDeviceGet failed)");
			continue;
		}
		if (CU(cuDeviceGetName)(d->name, sizeof(d->name), dev) != CUDA_SUCCESS)
			copy_string(d->name, sizeof(d->name), "(unknown)");
		if (CU(cuDeviceGetUuid)(&uuid, dev) == CUDA_SUCCESS) {
			memcpy(d->uuid, uuid.bytes, sizeof(d->uuid));
			d->has_uuid = true;
		}
	}
	cuda_loader_unload();
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
		return "Install the NVIDIA driver (it provides libcuda.so.1) and check "
		       "that nvidia-smi sees the GPU; set GLCUDA_LIBCUDA to the "
		       "library's path if it lives outside the loader's path.";
	case GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE:
		return "GL renders on a GPU that CUDA does not see (a PRIME laptop, or "
		       "GL on Mesa while CUDA is on NVIDIA). Make GL run on the NVIDIA "
		       "GPU: pass --device N (the CUDA ordinal) to use its EGL device, "
		       "or set __EGL_VENDOR_LIBRARY_FILENAMES=/usr/share/glvnd/"
		       "egl_vendor.d/10_nvidia.json.";
	case GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE:
		return "Install the Vulkan driver of the GPU GL renders on (NVIDIA: the "
		       "driver's nvidia_icd.json; Mesa: mesa-vulkan-drivers) and check "
		       "VK_ICD_FILENAMES / VK_DRIVER_FILES do not hide it.";
	case GLCUDA_ERROR_DRIVER_MISMATCH:
		return "GL and Vulkan come from different drivers for the same GPU: "
		       "install matching versions of the GL and Vulkan parts of one "
		       "driver.";
	case GLCUDA_ERROR_MISSING_EGL_EXTENSION:
		return "Update libEGL (libglvnd) and the GPU driver.";
	case GLCUDA_ERROR_MISSING_GL_EXTENSION:
		return "The GL driver lacks an extension glcuda needs (named above): "
		       "update it (NVIDIA 470 or newer, Mesa 21 or newer).";
	case GLCUDA_ERROR_MISSING_VULKAN_EXTENSION:
	case GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE:
		return "The Vulkan driver cannot export what glcuda needs: update it.";
	case GLCUDA_ERROR_GL_TOO_OLD:
		return "glcuda needs OpenGL 4.5 core or OpenGL ES 3.0: update the "
		       "driver, or try --gles.";
	case GLCUDA_ERROR_NO_VULKAN:
		return "Install the Vulkan loader (libvulkan1) and the GPU's Vulkan "
		       "driver.";
	case GLCUDA_ERROR_NO_DISPLAY:
		return "No headless EGL display could make a context: install the "
		       "NVIDIA EGL library (libEGL_nvidia.so.0) or Mesa, and check "
		       "/usr/share/glvnd/egl_vendor.d; with --device, check the CUDA "
		       "ordinal.";
	case GLCUDA_ERROR_CUDA:
		return "A CUDA call failed: check the NVIDIA kernel module and the "
		       "driver version (nvidia-smi).";
	default:
		return "See the message.";
	}
}

static void
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
		copy_string(v->message, sizeof(v->message), glcuda_get_last_error());
		v->advice = advice_for(ret);
		return;
	}
	v->stage = "glcuda_device_new";
	glcuda_device_options_init(&options);
	options.log_func = quiet_log;
	ret = glcuda_device_new(glcuda_headless_get_display(hl),
				glcuda_headless_get_context(hl), &options, &dev);
	if (ret) {
		v->error = ret;
		copy_string(v->message, sizeof(v->message), glcuda_get_last_error());
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

/* ---------------------------------------------------------------------- */
/* Matching                                                                 */

static const struct context_facts *
verdict_context(const struct report *r)
{
	return r->gles ? &r->gles_ctx : &r->gl;
}

static const struct context_facts *
uuid_context(const struct report *r)
{
	/* The UUIDs of the context the verdict uses, else of the other. */
	const struct context_facts *f = verdict_context(r);

	if (f->error == 0 && f->has_uuids)
		return f;
	f = r->gles ? &r->gl : &r->gles_ctx;
	return f->error == 0 && f->has_uuids ? f : NULL;
}

static void
format_uuid(const uint8_t u[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	char *p = out;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex[u[i] >> 4];
		*p++ = hex[u[i] & 15];
	}
	*p = '\0';
}

static const char *
yes_no(bool b)
{
	return b ? "yes" : "no";
}

/* ---------------------------------------------------------------------- */
/* Text                                                                     */

static void
print_exts(FILE *out, int indent, const struct ext_info *exts, const bool *present,
	   size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%*s%-32s %-7s  %s\n", indent, "", exts[i].name,
			present[i] ? "present" : "MISSING", exts[i].why);
}

static void
print_context_text(FILE *out, const struct report *r, const struct context_facts *f,
		   const char *api, bool with_egl)
{
	char u[37];

	fprintf(out, "\n%s context", api);
	if (f->error) {
		fprintf(out, ": cannot be made\n    %s: %s\n",
			glcuda_error_get_name(f->error), f->message);
		return;
	}
	fprintf(out, ": %d.%d\n", f->major, f->minor);
	fprintf(out, "    display   %s\n", f->description);
	fprintf(out, "    version   %s\n", f->gl_version);
	fprintf(out, "    renderer  %s (%s)\n", f->gl_renderer, f->gl_vendor);
	if (with_egl) {
		fprintf(out, "    EGL %s, vendor %s; display extensions:\n",
			f->egl_version, f->egl_vendor);
		print_exts(out, 8, egl_display_exts, f->egl_ext, ARRAY_LENGTH(egl_display_exts));
	}
	fprintf(out, "    interop extensions:\n");
	print_exts(out, 8, gl_exts, f->ext, GL_EXT_COUNT);
	if (f->has_uuids) {
		format_uuid(f->device_uuid, u);
		fprintf(out, "    device UUID  %s\n", u);
		format_uuid(f->driver_uuid, u);
		fprintf(out, "    driver UUID  %s\n", u);
	} else {
		fprintf(out, "    device UUID  unknown (no GL_EXT_memory_object or "
			"GL_EXT_semaphore)\n");
	}
}

static void
print_matches_text(FILE *out, const struct report *r)
{
	const struct context_facts *f = uuid_context(r);
	bool any_vk = false, any_cuda = false;

	fprintf(out, "\nDevice matching (by device UUID)\n");
	if (!f) {
		fprintf(out, "    no GL context reports a device UUID: nothing to match\n");
		return;
	}
	fprintf(out, "    GL (%s):\n", f->gl_renderer);
	for (int i = 0; i < r->vk_count; i++) {
		if (memcmp(r->vk[i].device_uuid, f->device_uuid, 16) != 0)
			continue;
		any_vk = true;
		fprintf(out, "      = Vulkan device %d (%s), driver UUID %s\n", i,
			r->vk[i].name,
			memcmp(r->vk[i].driver_uuid, f->driver_uuid, 16) == 0
			? "matches too" : "DIFFERS (different drivers: no sharing)");
	}
	if (!any_vk)
		fprintf(out, "      no Vulkan device has this UUID\n");
	for (int i = 0; i < r->cuda_count; i++) {
		if (!r->cuda[i].has_uuid ||
		    memcmp(r->cuda[i].uuid, f->device_uuid, 16) != 0)
			continue;
		any_cuda = true;
		fprintf(out, "      = CUDA device %d (%s)\n", i, r->cuda[i].name);
	}
	if (!any_cuda)
		fprintf(out, "      no CUDA device has this UUID%s\n",
			r->cuda_error ? " (no CUDA driver)" : "");
}

static void
print_text(FILE *out, const struct report *r)
{
	const struct verdict *v = &r->verdict;
	char u[37], d[37];

	fprintf(out, "glcuda %s\n", glcuda_get_version());

	fprintf(out, "\nEGL client extensions\n");
	print_exts(out, 4, egl_client_exts, r->client_ext, ARRAY_LENGTH(egl_client_exts));

	if (r->egl_device_error)
		fprintf(out, "\nEGL devices: cannot be listed: %s\n", r->egl_device_message);
	else
		fprintf(out, "\nEGL devices: %d\n", r->egl_device_count);
	for (int i = 0; i < r->egl_device_count; i++) {
		const struct egl_device_facts *e = &r->egl_devices[i];

		fprintf(out, "    device %d: %s\n", i,
			e->extensions[0] ? e->extensions : "(no extensions)");
		if (e->has_cuda)
			fprintf(out, "        CUDA device %ld (EGL_NV_device_cuda)\n",
				e->cuda_ordinal);
		else
			fprintf(out, "        CUDA device: not said (no EGL_NV_device_cuda)\n");
		if (e->drm_node[0] || e->render_node[0])
			fprintf(out, "        DRM: %s%s%s\n", e->drm_node,
				e->drm_node[0] && e->render_node[0] ? ", " : "",
				e->render_node);
	}

	print_context_text(out, r, &r->gl, "OpenGL (core)", true);
	print_context_text(out, r, &r->gles_ctx, "OpenGL ES", r->gl.error != 0);

	if (r->vk_error)
		fprintf(out, "\nVulkan: %s: %s\n", glcuda_error_get_name(r->vk_error),
			r->vk_message);
	else
		fprintf(out, "\nVulkan physical devices: %d\n", r->vk_count);
	for (int i = 0; i < r->vk_count; i++) {
		const struct vk_physical_info *p = &r->vk[i];

		format_uuid(p->device_uuid, u);
		format_uuid(p->driver_uuid, d);
		fprintf(out, "    device %d: %s (Vulkan %u.%u.%u, driver %s%s%s)\n", i,
			p->name, VK_API_VERSION_MAJOR(p->api_version),
			VK_API_VERSION_MINOR(p->api_version),
			VK_API_VERSION_PATCH(p->api_version),
			p->driver_name[0] ? p->driver_name : "?",
			p->driver_info[0] ? " " : "", p->driver_info);
		fprintf(out, "        device UUID  %s\n        driver UUID  %s\n", u, d);
		fprintf(out, "        external memory fd %s, image export (RGBA8) %s; "
			"external semaphore fd %s, binary export %s, timeline %s, "
			"timeline export %s\n",
			yes_no(p->has_external_memory_fd), yes_no(p->rgba8_exportable),
			yes_no(p->has_external_semaphore_fd), yes_no(p->binary_exportable),
			yes_no(p->has_timeline_semaphore), yes_no(p->timeline_exportable));
	}

	if (r->cuda_error) {
		fprintf(out, "\nCUDA: %s\n    %s\n",
			r->cuda_error == GLCUDA_ERROR_NO_CUDA_DRIVER
			? "no CUDA driver found" : glcuda_error_get_name(r->cuda_error),
			r->cuda_message);
	} else {
		fprintf(out, "\nCUDA driver %d.%d: %d device%s\n",
			r->cuda_driver_version / 1000, r->cuda_driver_version % 1000 / 10,
			r->cuda_count, r->cuda_count == 1 ? "" : "s");
		for (int i = 0; i < r->cuda_count; i++) {
			if (r->cuda[i].has_uuid)
				format_uuid(r->cuda[i].uuid, u);
			else
				copy_string(u, sizeof(u), "unknown");
			fprintf(out, "    device %d: %s, UUID %s\n", i, r->cuda[i].name, u);
		}
	}

	print_matches_text(out, r);

	fprintf(out, "\nVerdict (%s context%s): ", r->gles ? "OpenGL ES" : "OpenGL",
		r->cuda_ordinal >= 0 ? ", requested CUDA device" : "");
	if (v->ok) {
		fprintf(out, "interop works, sync mode %s", glcuda_sync_mode_get_name(v->sync_mode));
		if (v->sync_mode == GLCUDA_SYNC_CPU)
			fprintf(out, " (GL has no semaphores: hand-offs wait on the CPU; "
				"a driver with GL_EXT_semaphore_fd avoids that)");
		else
			fprintf(out, " (GPU-side waits, no CPU blocking)");
		fprintf(out, "\n");
		for (int k = GLCUDA_IMAGE_KIND_SHARED; k <= GLCUDA_IMAGE_KIND_EGL_IMAGE; k++)
			fprintf(out, "    %s: %s\n", image_kind_name(k),
				!(v->image_kinds_supported & (1u << k))
					? "not available (the CUDA driver lacks the interop)"
				: v->image_kinds_cpu_wait & (1u << k)
					? "no copy; hand-offs wait on the CPU"
					: "no copy, no CPU wait");
		if (r->cuda_ordinal >= 0)
			fprintf(out, "    CUDA device %d\n", r->cuda_ordinal);
	} else {
		fprintf(out, "interop cannot work\n");
		fprintf(out, "    %s: %s\n", v->stage, glcuda_error_get_name(v->error));
		fprintf(out, "    %s\n", v->message[0] ? v->message : glcuda_strerror(v->error));
		fprintf(out, "    What to do: %s\n", v->advice);
	}
}

/* ---------------------------------------------------------------------- */
/* JSON                                                                     */

struct json {
	FILE *out;
	int depth;
	bool first[16];
};

static void
json_string_value(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

static void
json_key(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->out);
		j->first[j->depth] = false;
		fprintf(j->out, "\n%*s", 2 * j->depth, "");
	}
	if (key) {
		json_string_value(j->out, key);
		fputs(": ", j->out);
	}
}

static void
json_open(struct json *j, const char *key, char bracket)
{
	json_key(j, key);
	fputc(bracket, j->out);
	j->depth++;
	j->first[j->depth] = true;
}

static void
json_close(struct json *j, char bracket)
{
	bool empty = j->first[j->depth];

	j->depth--;
	if (!empty)
		fprintf(j->out, "\n%*s", 2 * j->depth, "");
	fputc(bracket, j->out);
}

static void
json_str(struct json *j, const char *key, const char *value)
{
	json_key(j, key);
	json_string_value(j->out, value);
}

static void
json_bool(struct json *j, const char *key, bool value)
{
	json_key(j, key);
	fputs(value ? "true" : "false", j->out);
}

static void
json_int(struct json *j, const char *key, long value)
{
	json_key(j, key);
	fprintf(j->out, "%ld", value);
}

static void
json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->out);
}

static void
json_uuid(struct json *j, const char *key, const uint8_t uuid[16])
{
	char u[37];

	format_uuid(uuid, u);
	json_str(j, key, u);
}

static void
json_exts(struct json *j, const char *key, const struct ext_info *exts,
	  const bool *present, size_t n)
{
	json_open(j, key, '{');
	for (size_t i = 0; i < n; i++)
		json_bool(j, exts[i].name, present[i]);
	json_close(j, '}');
}

static void
json_error(struct json *j, int error, const char *message)
{
	json_str(j, "error", glcuda_error_get_name(error));
	json_str(j, "message", message);
}

static void
json_context(struct json *j, const char *key, const struct context_facts *f)
{
	json_open(j, key, '{');
	json_bool(j, "ok", f->error == 0);
	if (f->error) {
		json_error(j, f->error, f->message);
		json_close(j, '}');
		return;
	}
	json_str(j, "display", f->description);
	json_str(j, "egl_version", f->egl_version);
	json_str(j, "egl_vendor", f->egl_vendor);
	json_exts(j, "egl_extensions", egl_display_exts, f->egl_ext,
		  ARRAY_LENGTH(egl_display_exts));
	json_int(j, "major", f->major);
	json_int(j, "minor", f->minor);
	json_str(j, "version", f->gl_version);
	json_str(j, "renderer", f->gl_renderer);
	json_str(j, "vendor", f->gl_vendor);
	json_exts(j, "extensions", gl_exts, f->ext, GL_EXT_COUNT);
	if (f->has_uuids) {
		json_uuid(j, "device_uuid", f->device_uuid);
		json_uuid(j, "driver_uuid", f->driver_uuid);
	} else {
		json_null(j, "device_uuid");
		json_null(j, "driver_uuid");
	}
	json_close(j, '}');
}

static void
print_json(FILE *out, const struct report *r)
{
	const struct context_facts *uf = uuid_context(r);
	const struct verdict *v = &r->verdict;
	struct json j = { .out = out };

	json_open(&j, NULL, '{');
	json_str(&j, "glcuda_get_version", glcuda_get_version());
	json_str(&j, "api", r->gles ? "gles" : "gl");
	if (r->cuda_ordinal >= 0)
		json_int(&j, "requested_cuda_device", r->cuda_ordinal);
	else
		json_null(&j, "requested_cuda_device");

	json_open(&j, "egl", '{');
	json_exts(&j, "client_extensions", egl_client_exts, r->client_ext,
		  ARRAY_LENGTH(egl_client_exts));
	if (r->egl_device_error)
		json_str(&j, "devices_error", r->egl_device_message);
	json_open(&j, "devices", '[');
	for (int i = 0; i < r->egl_device_count; i++) {
		const struct egl_device_facts *e = &r->egl_devices[i];

		json_open(&j, NULL, '{');
		json_int(&j, "index", i);
		json_str(&j, "extensions", e->extensions);
		if (e->has_cuda)
			json_int(&j, "cuda_device", e->cuda_ordinal);
		else
			json_null(&j, "cuda_device");
		json_str(&j, "drm_device", e->drm_node[0] ? e->drm_node : NULL);
		json_str(&j, "drm_render_node", e->render_node[0] ? e->render_node : NULL);
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_close(&j, '}');

	json_context(&j, "gl", &r->gl);
	json_context(&j, "gles", &r->gles_ctx);

	json_open(&j, "vulkan", '{');
	json_bool(&j, "ok", r->vk_error == 0);
	if (r->vk_error)
		json_error(&j, r->vk_error, r->vk_message);
	json_open(&j, "devices", '[');
	for (int i = 0; i < r->vk_count; i++) {
		const struct vk_physical_info *p = &r->vk[i];
		char ver[32];

		snprintf(ver, sizeof(ver), "%u.%u.%u", VK_API_VERSION_MAJOR(p->api_version),
			 VK_API_VERSION_MINOR(p->api_version),
			 VK_API_VERSION_PATCH(p->api_version));
		json_open(&j, NULL, '{');
		json_int(&j, "index", i);
		json_str(&j, "name", p->name);
		json_str(&j, "api_version", ver);
		json_str(&j, "driver_name", p->driver_name);
		json_str(&j, "driver_info", p->driver_info);
		json_uuid(&j, "device_uuid", p->device_uuid);
		json_uuid(&j, "driver_uuid", p->driver_uuid);
		json_bool(&j, "external_memory_fd", p->has_external_memory_fd);
		json_bool(&j, "rgba8_exportable", p->rgba8_exportable);
		json_bool(&j, "external_semaphore_fd", p->has_external_semaphore_fd);
		json_bool(&j, "binary_exportable", p->binary_exportable);
		json_bool(&j, "timeline_semaphore", p->has_timeline_semaphore);
		json_bool(&j, "timeline_exportable", p->timeline_exportable);
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_close(&j, '}');

	json_open(&j, "cuda", '{');
	json_bool(&j, "ok", r->cuda_error == 0);
	if (r->cuda_error) {
		json_error(&j, r->cuda_error, r->cuda_message);
	} else {
		json_int(&j, "driver_version", r->cuda_driver_version);
	}
	json_open(&j, "devices", '[');
	for (int i = 0; i < r->cuda_count; i++) {
		json_open(&j, NULL, '{');
		json_int(&j, "ordinal", i);
		json_str(&j, "name", r->cuda[i].name);
		if (r->cuda[i].has_uuid)
			json_uuid(&j, "uuid", r->cuda[i].uuid);
		else
			json_null(&j, "uuid");
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_close(&j, '}');

	json_open(&j, "matches", '{');
	if (uf) {
		json_uuid(&j, "gl_device_uuid", uf->device_uuid);
		json_open(&j, "vulkan", '[');
		for (int i = 0; i < r->vk_count; i++) {
			if (memcmp(r->vk[i].device_uuid, uf->device_uuid, 16) != 0)
				continue;
			json_open(&j, NULL, '{');
			json_int(&j, "index", i);
			json_bool(&j, "driver_uuid_matches",
				  memcmp(r->vk[i].driver_uuid, uf->driver_uuid, 16) == 0);
			json_close(&j, '}');
		}
		json_close(&j, ']');
		json_open(&j, "cuda", '[');
		for (int i = 0; i < r->cuda_count; i++)
			if (r->cuda[i].has_uuid &&
			    memcmp(r->cuda[i].uuid, uf->device_uuid, 16) == 0)
				json_int(&j, NULL, i);
		json_close(&j, ']');
	} else {
		json_null(&j, "gl_device_uuid");
	}
	json_close(&j, '}');

	json_open(&j, "verdict", '{');
	json_bool(&j, "ok", v->ok);
	if (v->ok) {
		json_str(&j, "sync_mode", glcuda_sync_mode_get_name(v->sync_mode));
		json_open(&j, "sync_modes_supported", '[');
		for (int m = GLCUDA_SYNC_TIMELINE; m <= GLCUDA_SYNC_CPU; m++)
			if (v->sync_modes_supported & (1u << m))
				json_str(&j, NULL, glcuda_sync_mode_get_name(m));
		json_close(&j, ']');
		json_open(&j, "image_kinds", '{');
		for (int k = GLCUDA_IMAGE_KIND_SHARED; k <= GLCUDA_IMAGE_KIND_EGL_IMAGE; k++)
			json_str(&j, k == GLCUDA_IMAGE_KIND_SHARED ? "shared"
				     : k == GLCUDA_IMAGE_KIND_GL_TEXTURE ? "gl_texture" : "egl_image",
				 !(v->image_kinds_supported & (1u << k)) ? "unavailable"
				 : v->image_kinds_cpu_wait & (1u << k) ? "cpu-wait" : "gpu");
		json_close(&j, '}');
		json_null(&j, "error");
		json_null(&j, "message");
		json_null(&j, "advice");
	} else {
		json_null(&j, "sync_mode");
		json_str(&j, "stage", v->stage);
		json_str(&j, "error", glcuda_error_get_name(v->error));
		json_str(&j, "message", v->message[0] ? v->message
						     : glcuda_strerror(v->error));
		json_str(&j, "advice", v->advice);
	}
	json_close(&j, '}');
	json_close(&j, '}');
	fputc('\n', out);
}

/* ---------------------------------------------------------------------- */

int
glcuda_info_report(FILE *out, bool json, bool gles, int cuda_ordinal)
{
	struct report *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		fprintf(out, json ? "{\"verdict\": {\"ok\": false, \"sync_mode\": null, "
			"\"error\": \"ENOMEM\", \"message\": \"out of memory\"}}\n"
			: "glcuda-info: out of memory\n");
		return 1;
	}
	r->gles = gles;
	r->cuda_ordinal = cuda_ordinal;

	collect_egl(r);
	collect_context(&r->gl, false, cuda_ordinal);
	collect_context(&r->gles_ctx, true, cuda_ordinal);
	collect_vulkan(r);
	collect_cuda(r);
	collect_verdict(r);

	if (json)
		print_json(out, r);
	else
		print_text(out, r);
	fflush(out);
	ret = r->verdict.ok ? 0 : 1;
	free(r);
	return ret;
}
