/*
 * glcuda diagnosis: what a "doctor" (glcuda-info, or a program's own
 * support report) needs to say why interop does or does not work here.
 *
 * SPDX-License-Identifier: MIT
 *
 * glcuda_device_new() says whether interop works; these calls list what
 * the drivers offer on the way there, the way glcuda itself sees it: the
 * EGL devices (and which CUDA device each is), the Vulkan physical
 * devices with their UUIDs and external memory and semaphore support, and
 * the CUDA driver with its devices and UUIDs. None needs a device or a
 * current context; none changes which context is current.
 *
 * The structures have a fixed layout (this is the 0.3 interface): a later
 * version that reports more adds functions rather than changing them.
 * Strings in them are NUL-terminated and cut to fit.
 *
 * Thread safety: like glcuda_device_new() (the process-wide state behind
 * them is locked).
 */
#ifndef GLCUDA_DIAG_H
#define GLCUDA_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glcuda/glcuda.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Whether a space-separated extension list (eglQueryString(...,
 * EGL_EXTENSIONS), a GL extension string) names an extension: a whole-word
 * match, so "EGL_KHR_image" does not match "EGL_KHR_image_base". list may
 * be NULL (then false).
 * @since 0.3
 */
bool glcuda_diag_extension_list_has(const char *list, const char *name);

/** An EGL device (EGL_EXT_device_enumeration). @since 0.3 */
struct glcuda_diag_egl_device {
	/** The device's extension string ("" when it has none). */
	char extensions[512];
	/** The CUDA ordinal the device says it is (EGL_NV_device_cuda), or
	 *  -1 when it does not say. */
	long cuda_device;
	/** EGL_DRM_DEVICE_FILE_EXT ("/dev/dri/card0"), "" if not known. */
	char drm_device[128];
	/** EGL_DRM_RENDER_NODE_FILE_EXT ("/dev/dri/renderD128"), "" if not
	 *  known. */
	char drm_render_node[128];
};

/**
 * List the EGL devices: up to max into out. Returns the number listed (at
 * most max), or GLCUDA_ERROR_MISSING_EGL_EXTENSION (libEGL cannot list
 * devices) or GLCUDA_ERROR_EGL (eglQueryDevicesEXT failed), with the
 * reason in message.
 * @since 0.3
 */
int glcuda_diag_egl_devices(struct glcuda_diag_egl_device *out, unsigned int max,
			    char *message, size_t message_size);

/** A Vulkan physical device, as glcuda sees it when it picks one. @since 0.3 */
struct glcuda_diag_vk_device {
	char name[256];
	/** VkPhysicalDeviceProperties::apiVersion, decoded. */
	unsigned int api_major, api_minor, api_patch;
	uint32_t driver_version;
	uint32_t vendor_id;
	uint8_t device_uuid[16];
	uint8_t driver_uuid[16];
	/** VkPhysicalDeviceDriverProperties ("" when not reported). */
	char driver_name[256];
	char driver_info[256];
	/** VK_KHR_external_memory_fd. */
	bool external_memory_fd;
	/** An RGBA8 image that glcuda would make can be exported as an
	 *  OPAQUE_FD. */
	bool rgba8_exportable;
	/** VK_KHR_external_semaphore_fd. */
	bool external_semaphore_fd;
	/** A binary semaphore can be exported as an OPAQUE_FD. */
	bool binary_exportable;
	/** The timelineSemaphore feature. */
	bool timeline_semaphore;
	/** A timeline semaphore can be exported as an OPAQUE_FD. */
	bool timeline_exportable;
};

/**
 * List the Vulkan physical devices: up to max into out. Returns the number
 * found (may be more than max), or GLCUDA_ERROR_NO_VULKAN (no loader, no
 * instance) with the reason in message.
 * @since 0.3
 */
int glcuda_diag_vk_devices(struct glcuda_diag_vk_device *out, unsigned int max,
			   char *message, size_t message_size);

/** A CUDA device. @since 0.3 */
struct glcuda_diag_cuda_device {
	/** cuDeviceGetName, or "(unknown)" / "(cuDeviceGet failed)". */
	char name[256];
	bool has_uuid;
	uint8_t uuid[16];
};

/**
 * Load the CUDA driver the way glcuda_device_new() does (libcuda.so.1 or
 * $GLCUDA_LIBCUDA, then cuInit) and list its devices: up to max into out.
 * driver_version (may be NULL) gets cuDriverGetVersion (12040 for 12.4).
 * Returns the number of devices (may be more than max), or
 * GLCUDA_ERROR_NO_CUDA_DRIVER / GLCUDA_ERROR_CUDA with the reason in
 * message.
 * @since 0.3
 */
int glcuda_diag_cuda_devices(int *driver_version, struct glcuda_diag_cuda_device *out,
			     unsigned int max, char *message, size_t message_size);

#ifdef __cplusplus
}
#endif

#endif
