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
 * The lists fill arrays of structs the caller allocates. Each element
 * struct starts with a size member, as the other structs the caller
 * allocates (<glcuda/glcuda.h>, "Structs the caller allocates"): set it in
 * the array's first element at least, with the struct's _init() function
 * (or to sizeof the struct), and glcuda takes it as the size of every
 * element, fills the members it covers and leaves the size of each element
 * it fills set. A later glcuda that reports more appends members. Strings
 * are NUL-terminated and cut to fit.
 *
 * Return shape: like snprintf(), a list returns the number of items there
 * are, whatever max is, and fills at most max of them: a return value
 * above max means the array was too small. Call with max 0 (out may then
 * be NULL) to count. A negative return is an error: the message is the
 * thread's last error (glcuda_get_last_error()), as for the other calls
 * that have no device, and is logged at info priority only, since a
 * missing driver is a finding here, not a failure of the program.
 *
 * Thread safety: like glcuda_device_new() (the process-wide state behind
 * them is locked).
 */
#ifndef GLCUDA_DIAG_H
#define GLCUDA_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <glcuda/glcuda.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An EGL device (EGL_EXT_device_enumeration).
 *  @since 0.3; the size member since 1.0 */
struct glcuda_diag_egl_device {
	/** sizeof(struct glcuda_diag_egl_device), as the caller was compiled
	 *  with. @since 1.0 */
	size_t size;
	/** The device's extension string ("" when it has none). */
	char extensions[512];
	/** The CUDA ordinal the device says it is (EGL_NV_device_cuda), or
	 *  -1 when it does not say. An int since 1.0 (a long in 0.3), as
	 *  CUDA ordinals are everywhere else. */
	int cuda_device;
	/** EGL_DRM_DEVICE_FILE_EXT ("/dev/dri/card0"), "" if not known. */
	char drm_device[128];
	/** EGL_DRM_RENDER_NODE_FILE_EXT ("/dev/dri/renderD128"), "" if not
	 *  known. */
	char drm_render_node[128];
};

/** Zero @p d and set its size. @since 1.0 */
static inline void
glcuda_diag_egl_device_init(struct glcuda_diag_egl_device *d)
{
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
}

/**
 * List the EGL devices, filling at most max into out (see "Return shape"
 * above).
 * @return the number of EGL devices, or -EINVAL (out NULL with max > 0,
 *   out[0].size not set or unknown), -ENOMEM,
 *   GLCUDA_ERROR_MISSING_EGL_EXTENSION (libEGL cannot list devices),
 *   GLCUDA_ERROR_EGL (eglQueryDevicesEXT failed)
 * @since 1.0 (0.3: glcuda_diag_egl_devices, which returned at most max
 *   and wrote its message into a buffer)
 */
int glcuda_diag_list_egl_devices(struct glcuda_diag_egl_device *out,
				 unsigned int max);

/** A Vulkan physical device, as glcuda sees it when it picks one.
 *  @since 0.3; the size member since 1.0 */
struct glcuda_diag_vk_device {
	/** sizeof(struct glcuda_diag_vk_device), as the caller was compiled
	 *  with. @since 1.0 */
	size_t size;
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

/** Zero @p d and set its size. @since 1.0 */
static inline void
glcuda_diag_vk_device_init(struct glcuda_diag_vk_device *d)
{
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
}

/**
 * List the Vulkan physical devices, filling at most max into out (see
 * "Return shape" above).
 * @return the number of physical devices, or -EINVAL (out NULL with
 *   max > 0, out[0].size not set or unknown), -ENOMEM,
 *   GLCUDA_ERROR_NO_VULKAN (no loader, no instance)
 * @since 1.0 (0.3: glcuda_diag_vk_devices)
 */
int glcuda_diag_list_vk_devices(struct glcuda_diag_vk_device *out,
				unsigned int max);

/** A CUDA device. @since 0.3; the size member since 1.0 */
struct glcuda_diag_cuda_device {
	/** sizeof(struct glcuda_diag_cuda_device), as the caller was compiled
	 *  with. @since 1.0 */
	size_t size;
	/** cuDeviceGetName, or "(unknown)" / "(cuDeviceGet failed)". */
	char name[256];
	bool has_uuid;
	uint8_t uuid[16];
};

/** Zero @p d and set its size. @since 1.0 */
static inline void
glcuda_diag_cuda_device_init(struct glcuda_diag_cuda_device *d)
{
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
}

/**
 * Load the CUDA driver the way glcuda_device_new() does (libcuda.so.1 or
 * $GLCUDA_LIBCUDA, then cuInit) and list its devices, filling at most max
 * into out (see "Return shape" above). driver_version (may be NULL) gets
 * cuDriverGetVersion (12040 for 12.4).
 * @return the number of CUDA devices, or -EINVAL (out NULL with max > 0,
 *   out[0].size not set or unknown), GLCUDA_ERROR_NO_CUDA_DRIVER,
 *   GLCUDA_ERROR_CUDA
 * @since 1.0 (0.3: glcuda_diag_cuda_devices)
 */
int glcuda_diag_list_cuda_devices(int *driver_version,
				  struct glcuda_diag_cuda_device *out,
				  unsigned int max);

#ifdef __cplusplus
}
#endif

#endif
