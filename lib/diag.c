/*
 * Diagnosis (glcuda-diag.h): what the EGL, Vulkan and CUDA drivers offer,
 * as the layers of glcuda see them, for doctors such as glcuda-info.
 * SPDX-License-Identifier: MIT
 */
#include "private.h"
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

GLCUDA_EXPORT bool
glcuda_diag_extension_list_has(const char *list, const char *name)
{
	return extension_list_has(list, name);
}

GLCUDA_EXPORT int
glcuda_diag_egl_devices(struct glcuda_diag_egl_device *out, unsigned int max,
			char *message, size_t message_size)
{
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	EGLDeviceEXT *devices;
	EGLint count = 0;

	if (!client)
		(void)eglGetError();
	if (!(extension_list_has(client, "EGL_EXT_device_enumeration") ||
	      extension_list_has(client, "EGL_EXT_device_base"))) {
		copy_string(message, message_size,
			    "the EGL library lacks EGL_EXT_device_enumeration");
		return GLCUDA_ERROR_MISSING_EGL_EXTENSION;
	}
	if (max == 0)
		return 0;
	devices = calloc(max, sizeof(*devices));
	if (!devices) {
		copy_string(message, message_size, "out of memory");
		return -ENOMEM;
	}
	if (!eglQueryDevicesEXT((EGLint)max, devices, &count)) {
		EGLint err = eglGetError();

		snprintf(message, message_size, "eglQueryDevicesEXT failed: %s",
			 egl_error_name(err));
		free(devices);
		return GLCUDA_ERROR_EGL;
	}
	for (EGLint i = 0; i < count; i++) {
		struct glcuda_diag_egl_device *d = &out[i];
		const char *exts = eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
		EGLAttrib value;

		memset(d, 0, sizeof(*d));
		d->cuda_device = -1;
		copy_string(d->extensions, sizeof(d->extensions), exts);
		if (extension_list_has(exts, "EGL_NV_device_cuda") &&
		    eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV, &value))
			d->cuda_device = (long)value;
		if (extension_list_has(exts, "EGL_EXT_device_drm"))
			copy_string(d->drm_device, sizeof(d->drm_device),
				    eglQueryDeviceStringEXT(devices[i], EGL_DRM_DEVICE_FILE_EXT));
		if (extension_list_has(exts, "EGL_EXT_device_drm_render_node"))
			copy_string(d->drm_render_node, sizeof(d->drm_render_node),
				    eglQueryDeviceStringEXT(devices[i],
							    EGL_DRM_RENDER_NODE_FILE_EXT));
		/* A device without a queried string leaves an error behind. */
		(void)eglGetError();
	}
	free(devices);
	return count;
}

GLCUDA_EXPORT int
glcuda_diag_vk_devices(struct glcuda_diag_vk_device *out, unsigned int max,
		       char *message, size_t message_size)
{
	struct vk_physical_info *info = NULL;
	int n;

	if (max > 0) {
		info = calloc(max, sizeof(*info));
		if (!info) {
			copy_string(message, message_size, "out of memory");
			return -ENOMEM;
		}
	}
	n = vk_list_physical_devices(info, max, message, message_size);
	for (int i = 0; i < n && (unsigned int)i < max; i++) {
		const struct vk_physical_info *p = &info[i];
		struct glcuda_diag_vk_device *d = &out[i];

		memset(d, 0, sizeof(*d));
		copy_string(d->name, sizeof(d->name), p->name);
		d->api_major = VK_API_VERSION_MAJOR(p->api_version);
		d->api_minor = VK_API_VERSION_MINOR(p->api_version);
		d->api_patch = VK_API_VERSION_PATCH(p->api_version);
		d->driver_version = p->driver_version;
		d->vendor_id = p->vendor_id;
		memcpy(d->device_uuid, p->device_uuid, sizeof(d->device_uuid));
		memcpy(d->driver_uuid, p->driver_uuid, sizeof(d->driver_uuid));
		copy_string(d->driver_name, sizeof(d->driver_name), p->driver_name);
		copy_string(d->driver_info, sizeof(d->driver_info), p->driver_info);
		d->external_memory_fd = p->has_external_memory_fd;
		d->rgba8_exportable = p->rgba8_exportable;
		d->external_semaphore_fd = p->has_external_semaphore_fd;
		d->binary_exportable = p->binary_exportable;
		d->timeline_semaphore = p->has_timeline_semaphore;
		d->timeline_exportable = p->timeline_exportable;
	}
	free(info);
	return n;
}

GLCUDA_EXPORT int
glcuda_diag_cuda_devices(int *driver_version, struct glcuda_diag_cuda_device *out,
			 unsigned int max, char *message, size_t message_size)
{
	char buf[160];
	CUresult res;
	int count = 0;
	int ret;

	ret = cuda_loader_load(message, message_size);
	if (ret)
		return ret;
	if (driver_version)
		*driver_version = glcuda_cuda.driver_version;
	res = CU(cuDeviceGetCount)(&count);
	if (res != CUDA_SUCCESS) {
		snprintf(message, message_size, "cuDeviceGetCount failed: %s",
			 cuda_result_string(res, buf, sizeof(buf)));
		cuda_loader_unload();
		return GLCUDA_ERROR_CUDA;
	}
	for (int i = 0; i < count && (unsigned int)i < max; i++) {
		struct glcuda_diag_cuda_device *d = &out[i];
		CUdevice dev;
		CUuuid uuid;

		memset(d, 0, sizeof(*d));
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
	return count;
}
