/*
 * Diagnosis (glcuda-diag.h): what the EGL, Vulkan and CUDA drivers offer,
 * as the layers of glcuda see them, for doctors such as glcuda-info.
 * SPDX-License-Identifier: MIT
 */
#include "device.h"
#include "vk/vk-exporter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glcuda/glcuda-diag.h>

#ifndef EGL_DRM_RENDER_NODE_FILE_EXT
#define EGL_DRM_RENDER_NODE_FILE_EXT 0x337C
#endif

static void
copy_string(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/*
 * The caller's array: elements of the size it set in the first one (its
 * stride), of which glcuda fills the members that size covers, through a
 * full element of this glcuda's.
 */
struct diag_array {
	unsigned char *base;
	size_t size;
};

static void
diag_array_put(const struct diag_array *a, unsigned int i, const void *full)
{
	sized_copy_out(a->base + (size_t)i * a->size, full, a->size);
}

/* out NULL with max > 0 is -EINVAL; max 0 counts only. */
#define DIAG_ARRAY_INIT(call, a, out, max, check)                     \
	do {                                                          \
		(a)->base = (unsigned char *)(out);                   \
		(a)->size = 0;                                        \
		if ((max) > 0) {                                      \
			int ret_;                                     \
			if (!(out))                                   \
				return device_fail(NULL, -EINVAL,     \
						   "%s: out is NULL " \
						   "and max is %u",   \
						   call, (max));      \
			ret_ = check(out);                            \
			if (ret_ < 0)                                 \
				return ret_;                          \
			(a)->size = (out)->size;                      \
		}                                                     \
	} while (0)

GLCUDA_EXPORT int
glcuda_diag_list_egl_devices(struct glcuda_diag_egl_device *out,
			     unsigned int max)
{
	const char *call = "glcuda_diag_list_egl_devices";
	const char *client;
	struct diag_array array;
	EGLDeviceEXT *devices;
	EGLint count = 0, listed = 0;

	error_clear();
	DIAG_ARRAY_INIT(call, &array, out, max, diag_egl_device_check);
	client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	if (!client)
		(void)eglGetError();
	if (!(extension_list_has(client, "EGL_EXT_device_enumeration") ||
	      extension_list_has(client, "EGL_EXT_device_base")))
		return error_note(GLCUDA_ERROR_MISSING_EGL_EXTENSION,
				  "the EGL library lacks "
				  "EGL_EXT_device_enumeration");
	/* The total first, as the other lists return it. */
	if (!eglQueryDevicesEXT(0, NULL, &count))
		return error_note(GLCUDA_ERROR_EGL,
				  "eglQueryDevicesEXT failed: %s",
				  egl_error_name(eglGetError()));
	if (max == 0 || count <= 0)
		return count;
	devices = calloc((size_t)count, sizeof(*devices));
	if (!devices)
		return device_fail(NULL, -ENOMEM, "%s: out of memory", call);
	if (!eglQueryDevicesEXT(count, devices, &listed)) {
		EGLint err = eglGetError();

		free(devices);
		return error_note(GLCUDA_ERROR_EGL,
				  "eglQueryDevicesEXT failed: %s",
				  egl_error_name(err));
	}
	for (EGLint i = 0; i < listed && (unsigned int)i < max; i++) {
		struct glcuda_diag_egl_device d;
		const char *exts =
			eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
		EGLAttrib value;

		glcuda_diag_egl_device_init(&d);
		d.cuda_device = -1;
		copy_string(d.extensions, sizeof(d.extensions), exts);
		if (extension_list_has(exts, "EGL_NV_device_cuda") &&
		    eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV,
					    &value))
			d.cuda_device = (int)value;
		if (extension_list_has(exts, "EGL_EXT_device_drm"))
			copy_string(d.drm_device, sizeof(d.drm_device),
				    eglQueryDeviceStringEXT(
					    devices[i],
					    EGL_DRM_DEVICE_FILE_EXT));
		if (extension_list_has(exts, "EGL_EXT_device_drm_render_node"))
			copy_string(d.drm_render_node,
				    sizeof(d.drm_render_node),
				    eglQueryDeviceStringEXT(
					    devices[i],
					    EGL_DRM_RENDER_NODE_FILE_EXT));
		/* A device without a queried string leaves an error behind. */
		(void)eglGetError();
		diag_array_put(&array, (unsigned int)i, &d);
	}
	free(devices);
	return listed;
}

GLCUDA_EXPORT int
glcuda_diag_list_vk_devices(struct glcuda_diag_vk_device *out, unsigned int max)
{
	const char *call = "glcuda_diag_list_vk_devices";
	struct vk_physical_info *info = NULL;
	struct diag_array array;
	char message[512] = "";
	int n;

	error_clear();
	DIAG_ARRAY_INIT(call, &array, out, max, diag_vk_device_check);
	if (max > 0) {
		info = calloc(max, sizeof(*info));
		if (!info)
			return device_fail(NULL, -ENOMEM, "%s: out of memory",
					   call);
	}
	n = vk_list_physical_devices(info, max, message, sizeof(message));
	if (n < 0) {
		free(info);
		return error_note(n, "%s", message);
	}
	for (int i = 0; i < n && (unsigned int)i < max; i++) {
		const struct vk_physical_info *p = &info[i];
		struct glcuda_diag_vk_device d;

		glcuda_diag_vk_device_init(&d);
		copy_string(d.name, sizeof(d.name), p->name);
		d.api_major = VK_API_VERSION_MAJOR(p->api_version);
		d.api_minor = VK_API_VERSION_MINOR(p->api_version);
		d.api_patch = VK_API_VERSION_PATCH(p->api_version);
		d.driver_version = p->driver_version;
		d.vendor_id = p->vendor_id;
		memcpy(d.device_uuid, p->device_uuid, sizeof(d.device_uuid));
		memcpy(d.driver_uuid, p->driver_uuid, sizeof(d.driver_uuid));
		copy_string(d.driver_name, sizeof(d.driver_name),
			    p->driver_name);
		copy_string(d.driver_info, sizeof(d.driver_info),
			    p->driver_info);
		d.external_memory_fd = p->has_external_memory_fd;
		d.rgba8_exportable = p->rgba8_exportable;
		d.external_semaphore_fd = p->has_external_semaphore_fd;
		d.binary_exportable = p->binary_exportable;
		d.timeline_semaphore = p->has_timeline_semaphore;
		d.timeline_exportable = p->timeline_exportable;
		diag_array_put(&array, (unsigned int)i, &d);
	}
	free(info);
	return n;
}

GLCUDA_EXPORT int
glcuda_diag_list_cuda_devices(int *driver_version,
			      struct glcuda_diag_cuda_device *out,
			      unsigned int max)
{
	const char *call = "glcuda_diag_list_cuda_devices";
	struct diag_array array;
	char message[512] = "";
	char buf[160];
	CUresult res;
	int count = 0;
	int ret;

	error_clear();
	DIAG_ARRAY_INIT(call, &array, out, max, diag_cuda_device_check);
	ret = cuda_loader_load(message, sizeof(message));
	if (ret)
		return error_note(ret, "%s", message);
	if (driver_version)
		*driver_version = cuda_loader_table.driver_version;
	res = CU_CALL(cuDeviceGetCount, &count);
	if (res != CUDA_SUCCESS) {
		cuda_loader_unload();
		return error_note(GLCUDA_ERROR_CUDA,
				  "cuDeviceGetCount failed: %s",
				  cuda_result_string(res, buf, sizeof(buf)));
	}
	for (int i = 0; i < count && (unsigned int)i < max; i++) {
		struct glcuda_diag_cuda_device d;
		CUdevice dev;
		CUuuid uuid;

		glcuda_diag_cuda_device_init(&d);
		if (CU_CALL(cuDeviceGet, &dev, i) != CUDA_SUCCESS) {
			copy_string(d.name, sizeof(d.name),
				    "(cuDeviceGet failed)");
		} else {
			if (CU_CALL(cuDeviceGetName, d.name, sizeof(d.name),
				    dev) != CUDA_SUCCESS)
				copy_string(d.name, sizeof(d.name),
					    "(unknown)");
			if (CU_CALL(cuDeviceGetUuid, &uuid, dev) ==
			    CUDA_SUCCESS) {
				memcpy(d.uuid, uuid.bytes, sizeof(d.uuid));
				d.has_uuid = true;
			}
		}
		diag_array_put(&array, (unsigned int)i, &d);
	}
	cuda_loader_unload();
	return count;
}
