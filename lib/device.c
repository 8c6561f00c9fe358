/*
 * Device binding: the caller's EGL context, the Vulkan device and the CUDA
 * device with the same UUID, and the capabilities they share.
 * SPDX-License-Identifier: MIT
 */
#include "device.h"
#include "vk/vk-exporter.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_CUDA_TIMELINE_VERSION 11020 /* TIMELINE_SEMAPHORE_FD */

GLCUDA_EXPORT const char *
glcuda_sync_mode_get_name(enum glcuda_sync_mode mode)
{
	switch (mode) {
	case GLCUDA_SYNC_AUTO: return "auto";
	case GLCUDA_SYNC_TIMELINE: return "timeline";
	case GLCUDA_SYNC_BINARY: return "binary";
	case GLCUDA_SYNC_CPU: return "cpu";
	}
	return "invalid";
}

int
device_check_lost(struct glcuda_device *dev, const char *what)
{
	if (!dev->errors.lost)
		return 0;
	return device_fail(dev, GLCUDA_ERROR_DEVICE_LOST,
			   "%s: the device was lost earlier (%s). Destroy its "
			   "rings, images and the device (after a GL reset, "
			   "the GL context too), then create them again.",
			   what, dev->errors.lost_reason);
}

int
device_check_gl(struct glcuda_device *dev, const char *what)
{
	GLenum status;

	if (dev->errors.lost)
		return device_check_lost(dev, what);
	if (eglGetCurrentContext() != dev->context)
		return device_fail(dev, GLCUDA_ERROR_NO_CURRENT_CONTEXT,
				   "%s needs the device's EGL context %p "
				   "current on this thread, but %p is current. "
				   "Call eglMakeCurrent first.",
				   what, (void *)dev->context,
				   (void *)eglGetCurrentContext());
	/* Cheap: no round trip to the GPU. GL_NO_ERROR without reset
	 * notification (gl_reset_status). */
	status = gl_reset_status(&dev->gl);
	if (status != GL_NO_ERROR)
		return device_fail(dev, GLCUDA_ERROR_DEVICE_LOST,
				   "%s: glGetGraphicsResetStatus returned %s "
				   "(0x%04x): the GL context was reset. "
				   "Destroy every glcuda object, the device "
				   "and the GL context, then create them "
				   "again.",
				   what, gl_reset_status_name(status), status);
	return 0;
}

int
device_push_cuda(struct glcuda_device *dev, const char *what)
{
	CUresult res;

	if (!dev->has_cuda)
		return device_fail(dev, GLCUDA_ERROR_NO_CUDA_DRIVER,
				   "%s needs CUDA, and this device was made "
				   "without it",
				   what);
	res = CU_CALL(cuCtxPushCurrent, dev->cu_context);
	if (res != CUDA_SUCCESS)
		return device_cuda_fail(dev, res, "cuCtxPushCurrent", what);
	return 0;
}

bool
device_push_cuda_quietly(struct glcuda_device *dev)
{
	return dev->has_cuda &&
	       CU_CALL(cuCtxPushCurrent, dev->cu_context) == CUDA_SUCCESS;
}

void
device_pop_cuda(struct glcuda_device *dev)
{
	CUcontext ctx;
	CU_CALL(cuCtxPopCurrent, &ctx);
}

/* Find the CUDA device with the GL context's UUID, or check the caller's
 * context is on it. */
static int
bind_cuda(struct glcuda_device *dev,
	  const struct glcuda_device_options *options)
{
	char msg[2048], gl_uuid[UUID_STRING_SIZE], uuid[UUID_STRING_SIZE];
	int count = 0, layers = 0, ret, len;
	CUresult res;
	CUuuid cu_uuid;

	ret = cuda_loader_load(msg, sizeof(msg));
	if (ret < 0)
		return device_fail(dev, ret, "%s", msg);
	dev->caps.cuda_driver_version = cuda_loader_table.driver_version;
	uuid_format(dev->caps.device_uuid, gl_uuid);

	if (options && options->cuda_context) {
		CUcontext ctx = options->cuda_context, popped;
		const char *call = "cuCtxPushCurrent of options.cuda_context";
		res = CU_CALL(cuCtxPushCurrent, ctx);
		if (res == CUDA_SUCCESS) {
			call = "cuCtxGetDevice on options.cuda_context";
			res = CU_CALL(cuCtxGetDevice, &dev->cu_device);
			CU_CALL(cuCtxPopCurrent, &popped);
		}
		if (res != CUDA_SUCCESS) {
			ret = device_cuda_fail(dev, res, call,
					       "Pass a valid CUcontext or "
					       "NULL.");
			goto fail;
		}
		res = CU_CALL(cuDeviceGetUuid, &cu_uuid, dev->cu_device);
		if (res != CUDA_SUCCESS) {
			ret = device_cuda_fail(dev, res, "cuDeviceGetUuid",
					       NULL);
			goto fail;
		}
		if (memcmp(cu_uuid.bytes, dev->caps.device_uuid, 16) != 0) {
			uuid_format((const uint8_t *)cu_uuid.bytes, uuid);
			ret = device_fail(dev,
					  GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE,
					  "options.cuda_context is on CUDA "
					  "device %d (UUID %s), but the GL "
					  "context renders on \"%s\" (UUID "
					  "%s). Pass a context of the CUDA "
					  "device with GL's UUID, or NULL.",
					  (int)dev->cu_device, uuid,
					  dev->caps.gl_renderer, gl_uuid);
			goto fail;
		}
		dev->cu_context = ctx;
		dev->cu_context_is_primary = false;
	} else {
		res = CU_CALL(cuDeviceGetCount, &count);
		if (res != CUDA_SUCCESS) {
			ret = device_cuda_fail(dev, res, "cuDeviceGetCount",
					       NULL);
			goto fail;
		}
		len = snprintf(msg, sizeof(msg),
			       "the GL context renders on \"%s\" (device UUID "
			       "%s), and no CUDA device has that UUID. CUDA "
			       "devices:",
			       dev->caps.gl_renderer, gl_uuid);
		dev->cu_device = -1;
		for (int i = 0; i < count; i++) {
			CUdevice d;
			char name[256] = "?";
			res = CU_CALL(cuDeviceGet, &d, i);
			if (res == CUDA_SUCCESS)
				res = CU_CALL(cuDeviceGetUuid, &cu_uuid, d);
			if (res != CUDA_SUCCESS) {
				ret = device_cuda_fail(dev, res,
						       "cuDeviceGet/"
						       "cuDeviceGetUuid",
						       NULL);
				goto fail;
			}
			CU_CALL(cuDeviceGetName, name, sizeof(name), d);
			uuid_format((const uint8_t *)cu_uuid.bytes, uuid);
			if (len < (int)sizeof(msg))
				len += snprintf(msg + len, sizeof(msg) - len,
						" %d \"%s\" (%s);", i, name,
						uuid);
			if (memcmp(cu_uuid.bytes, dev->caps.device_uuid,
				   16) == 0) {
				dev->cu_device = d;
				break;
			}
		}
		if (dev->cu_device < 0) {
			const char *hint =
				" On a PRIME laptop, run GL on the NVIDIA GPU "
				"(__NV_PRIME_RENDER_OFFLOAD=1 "
				"__GLX_VENDOR_LIBRARY_NAME=nvidia, or the EGL "
				"device with EGL_NV_device_cuda); GL on Mesa "
				"cannot share memory with CUDA on NVIDIA.";

			if (len < (int)sizeof(msg))
				snprintf(msg + len, sizeof(msg) - len, "%s",
					 count == 0 ? " none." : hint);
			ret = device_fail(dev,
					  GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE,
					  "%s", msg);
			goto fail;
		}
		/* Blocking sync: the CPU fallback's waits sleep instead of
		 * spinning. Fails harmlessly if the context is already active
		 * with other flags. */
		CU_CALL(cuDevicePrimaryCtxSetFlags, dev->cu_device,
			CU_CTX_SCHED_BLOCKING_SYNC);
		res = CU_CALL(cuDevicePrimaryCtxRetain, &dev->cu_context,
			      dev->cu_device);
		if (res != CUDA_SUCCESS) {
			ret = device_cuda_fail(dev, res,
					       "cuDevicePrimaryCtxRetain",
					       NULL);
			goto fail;
		}
		dev->cu_context_is_primary = true;
	}

	/* Layered images need CUDA's layered surfaces (and textures). */
	res = CU_CALL(cuDeviceGetAttribute, &layers,
		      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS,
		      dev->cu_device);
	if (res != CUDA_SUCCESS) {
		ret = device_cuda_fail(dev, res, "cuDeviceGetAttribute",
				       "(MAXIMUM_SURFACE2D_LAYERED_LAYERS)");
		goto fail_context;
	}
	if (layers > 0 && (uint32_t)layers < dev->caps.max_image_layers)
		dev->caps.max_image_layers = (uint32_t)layers;

	dev->caps.cuda_ordinal = (int)dev->cu_device;
	CU_CALL(cuDeviceGetName, dev->caps.cuda_device_name,
		sizeof(dev->caps.cuda_device_name), dev->cu_device);
	dev->has_cuda = true;
	return 0;

fail_context:
	if (dev->cu_context_is_primary) {
		CU_CALL(cuDevicePrimaryCtxRelease, dev->cu_device);
		dev->cu_context = NULL;
		dev->cu_context_is_primary = false;
	}
fail:
	cuda_loader_unload();
	return ret;
}

static int
choose_sync_mode(struct glcuda_device *dev, enum glcuda_sync_mode requested)
{
	struct glcuda_caps *caps = &dev->caps;
	bool cuda_timeline = dev->has_cuda && caps->cuda_driver_version >=
						      MIN_CUDA_TIMELINE_VERSION;

	caps->sync_modes_supported = 1u << GLCUDA_SYNC_CPU;
	if (dev->gl.has_semaphore_fd && vk_exporter_has_binary(dev->vk))
		caps->sync_modes_supported |= 1u << GLCUDA_SYNC_BINARY;
	if (dev->gl.has_timeline_nv && vk_exporter_has_timeline(dev->vk) &&
	    cuda_timeline)
		caps->sync_modes_supported |= 1u << GLCUDA_SYNC_TIMELINE;

	if (requested == GLCUDA_SYNC_AUTO) {
		if (caps->sync_modes_supported & (1u << GLCUDA_SYNC_TIMELINE))
			caps->sync_mode = GLCUDA_SYNC_TIMELINE;
		else if (caps->sync_modes_supported &
			 (1u << GLCUDA_SYNC_BINARY))
			caps->sync_mode = GLCUDA_SYNC_BINARY;
		else
			caps->sync_mode = GLCUDA_SYNC_CPU;
		if (caps->sync_mode == GLCUDA_SYNC_CPU)
			log_info(dev, "GL has no GL_EXT_semaphore_fd: "
				      "hand-offs wait on the CPU (sync mode "
				      "\"cpu\")\n");
		return 0;
	}
	if (requested < GLCUDA_SYNC_TIMELINE || requested > GLCUDA_SYNC_CPU)
		return device_fail(dev, -EINVAL,
				   "options.sync_mode %d is not a sync mode",
				   (int)requested);
	if (!(caps->sync_modes_supported & (1u << requested))) {
		if (!dev->gl.has_semaphore_fd)
			return device_fail(dev,
					   GLCUDA_ERROR_MISSING_GL_EXTENSION,
					   "sync mode \"%s\" needs "
					   "GL_EXT_semaphore_fd, which \"%s\" "
					   "lacks. Use GLCUDA_SYNC_AUTO or "
					   "GLCUDA_SYNC_CPU.",
					   glcuda_sync_mode_get_name(requested),
					   caps->gl_renderer);
		if (requested == GLCUDA_SYNC_TIMELINE &&
		    !dev->gl.has_timeline_nv)
			return device_fail(dev,
					   GLCUDA_ERROR_MISSING_GL_EXTENSION,
					   "sync mode \"timeline\" needs "
					   "GL_NV_timeline_semaphore, which "
					   "\"%s\" lacks. Use "
					   "GLCUDA_SYNC_BINARY.",
					   caps->gl_renderer);
		if (requested == GLCUDA_SYNC_TIMELINE && !cuda_timeline &&
		    dev->has_cuda)
			return device_fail(dev,
					   GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE,
					   "sync mode \"timeline\" needs CUDA "
					   "11.2 timeline semaphore fds; the "
					   "driver is CUDA %d.%d. Update the "
					   "driver or use GLCUDA_SYNC_BINARY.",
					   caps->cuda_driver_version / 1000,
					   caps->cuda_driver_version % 1000 /
						   10);
		return device_fail(dev, GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
				   "sync mode \"%s\": the Vulkan driver cannot "
				   "export %s semaphores as OPAQUE_FD. Use "
				   "GLCUDA_SYNC_AUTO.",
				   glcuda_sync_mode_get_name(requested),
				   requested == GLCUDA_SYNC_TIMELINE
					   ? "timeline"
					   : "binary");
	}
	caps->sync_mode = requested;
	return 0;
}

/* What each kind of image costs here (doc/which-path.md): the semaphore
 * kinds wait on the CPU only in the cpu mode; map/unmap never does. */
static void
fill_image_kinds(struct glcuda_device *dev)
{
	struct glcuda_caps *caps = &dev->caps;

	caps->image_kinds_supported = 1u << GLCUDA_IMAGE_KIND_SHARED;
	if (dev->has_cuda && cuda_loader_table.cuGraphicsGLRegisterImage &&
	    cuda_loader_table.cuArray3DGetDescriptor)
		caps->image_kinds_supported |= 1u
					       << GLCUDA_IMAGE_KIND_GL_TEXTURE;
	if (dev->has_cuda && cuda_loader_table.cuGraphicsEGLRegisterImage &&
	    cuda_loader_table.cuGraphicsResourceGetMappedEglFrame &&
	    cuda_loader_table.cuArray3DGetDescriptor)
		caps->image_kinds_supported |= 1u
					       << GLCUDA_IMAGE_KIND_EGL_IMAGE;
	caps->image_kinds_cpu_wait = 0;
	if (caps->sync_mode == GLCUDA_SYNC_CPU)
		caps->image_kinds_cpu_wait =
			(1u << GLCUDA_IMAGE_KIND_SHARED) |
			(1u << GLCUDA_IMAGE_KIND_EGL_IMAGE);
}

static void
fill_formats(struct glcuda_device *dev)
{
	dev->caps.formats_supported = 0;
	for (int f = 1; f < GLCUDA_FORMAT_COUNT; f++) {
		const struct format_info *fmt =
			format_info((enum glcuda_format)f);
		if (fmt &&
		    vk_exporter_check_format(dev->vk, fmt, 64, 64, false) == 0)
			dev->caps.formats_supported |= 1u << f;
	}
}

/* Tearing down the drivers may release the caller's EGL context
 * (egl-binding.h): put it back, and say so. */
static void
restore_binding(struct glcuda_device *dev, const struct egl_binding *b,
		const char *what)
{
	int ret = egl_binding_restore(b);

	if (ret == 1)
		log_debug(dev,
			  "%s released the current EGL context; made it "
			  "current again\n",
			  what);
	else if (ret < 0)
		log_error(dev,
			  "%s released the current EGL context, and "
			  "eglMakeCurrent failed: %s (0x%04x). Make the "
			  "context current again.\n",
			  what, egl_error_name(-ret), (unsigned)-ret);
}

static unsigned int
device_reap_orphans(struct glcuda_device *dev, bool context_gone)
{
	return dev->orphans.reap ? dev->orphans.reap(dev, context_gone) : 0;
}

/* Release the CUDA and Vulkan parts of a device (not the struct). */
static void
device_release_drivers(struct glcuda_device *dev)
{
	struct egl_binding b;

	egl_binding_save(&b);
	if (dev->has_cuda) {
		bool context_gone = false;

		device_reap_orphans(dev, false);
		if (dev->cu_context_is_primary) {
			unsigned int flags;
			int active = 1;
			CU_CALL(cuDevicePrimaryCtxRelease, dev->cu_device);
			/* Inactive: the context is destroyed, and with it every
			 * host function still queued (none will ever run). */
			if (dev->orphans.head &&
			    CU_CALL(cuDevicePrimaryCtxGetState, dev->cu_device,
				    &flags, &active) == CUDA_SUCCESS)
				context_gone = !active;
		}
		if (dev->orphans.head &&
		    device_reap_orphans(dev, context_gone) > 0)
			/* The context lives on (the caller's, or a primary
			 * context the program retains too): its host functions
			 * may still run and use the blocks. */
			log_error(dev, "glcuda_device_destroy: the CUDA "
				       "context outlives the device and still "
				       "has host functions of destroyed rings "
				       "queued; their completion blocks (and "
				       "eventfds) are left allocated for "
				       "them.\n");
		cuda_loader_unload();
		restore_binding(dev, &b, "releasing the CUDA primary context");
	}
	vk_exporter_destroy(dev->vk);
	dev->vk = NULL;
	restore_binding(dev, &b, "destroying the Vulkan device");
}

int
device_new_internal(EGLDisplay display, EGLContext context,
		    const struct glcuda_device_options *options, bool want_cuda,
		    struct glcuda_device **out)
{
	struct glcuda_device *dev;
	const struct vk_physical_info *vkinfo;
	enum glcuda_log_priority prio;
	struct glcuda_device_options copied;
	int ret;

	error_clear();
	if (!out)
		return device_fail(NULL, -EINVAL,
				   "glcuda_device_new: out is NULL");
	/* From here on options is a struct of this glcuda's size, whatever
	 * the size the caller was built with. */
	if (options) {
		ret = device_options_copy(options, &copied);
		if (ret < 0)
			return ret;
		options = &copied;
	}
	if (display == EGL_NO_DISPLAY || context == EGL_NO_CONTEXT)
		return device_fail(NULL, -EINVAL,
				   "glcuda_device_new: %s is EGL_NO_%s; pass "
				   "the display and context you render with",
				   display == EGL_NO_DISPLAY ? "display"
							     : "context",
				   display == EGL_NO_DISPLAY ? "DISPLAY"
							     : "CONTEXT");

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return device_fail(NULL, -ENOMEM,
				   "glcuda_device_new: out of memory");
	dev->display = display;
	dev->context = context;
	prio = options && options->log_priority ? options->log_priority
						: GLCUDA_LOG_PRIORITY_ERROR;
	dev->errors.log_priority = log_priority_from_env(prio);
	if (options) {
		dev->errors.log_func = options->log_func;
		dev->errors.log_user_data = options->log_user_data;
	}

	if (eglGetCurrentContext() != context ||
	    eglGetCurrentDisplay() != display) {
		ret = device_fail(dev, GLCUDA_ERROR_NO_CURRENT_CONTEXT,
				  "glcuda_device_new: the context %p of "
				  "display %p must be current on the calling "
				  "thread (current: context %p, display %p). "
				  "Call eglMakeCurrent first.",
				  (void *)context, (void *)display,
				  (void *)eglGetCurrentContext(),
				  (void *)eglGetCurrentDisplay());
		goto fail;
	}

	ret = gl_state_init(&dev->gl, &dev->errors);
	if (ret < 0)
		goto fail;
	dev->caps.gl_api =
		dev->gl.is_gles ? GLCUDA_GL_API_GLES : GLCUDA_GL_API_GL;
	dev->caps.gl_major = dev->gl.major;
	dev->caps.gl_minor = dev->gl.minor;
	memcpy(dev->caps.gl_vendor, dev->gl.vendor,
	       sizeof(dev->caps.gl_vendor));
	memcpy(dev->caps.gl_renderer, dev->gl.renderer,
	       sizeof(dev->caps.gl_renderer));
	memcpy(dev->caps.gl_version, dev->gl.version,
	       sizeof(dev->caps.gl_version));
	memcpy(dev->caps.device_uuid, dev->gl.device_uuid,
	       sizeof(dev->caps.device_uuid));
	memcpy(dev->caps.driver_uuid, dev->gl.driver_uuid,
	       sizeof(dev->caps.driver_uuid));
	log_debug(dev, "GL: %s %d.%d, \"%s\", \"%s\"\n",
		  dev->gl.is_gles ? "OpenGL ES" : "OpenGL", dev->gl.major,
		  dev->gl.minor, dev->caps.gl_renderer, dev->caps.gl_version);

	ret = vk_exporter_new(&dev->errors, dev->caps.device_uuid,
			      dev->caps.driver_uuid,
			      options && (options->flags &
					  GLCUDA_DEVICE_FLAG_VULKAN_VALIDATION),
			      &dev->vk);
	if (ret < 0)
		goto fail;
	vkinfo = vk_exporter_info(dev->vk);
	snprintf(dev->caps.vulkan_device_name,
		 sizeof(dev->caps.vulkan_device_name), "%s", vkinfo->name);
	dev->caps.vulkan_api_version = vkinfo->api_version;
	dev->caps.max_image_size = vk_exporter_max_image_size(dev->vk);
	if ((uint32_t)dev->gl.max_texture_size < dev->caps.max_image_size)
		dev->caps.max_image_size = (uint32_t)dev->gl.max_texture_size;
	dev->caps.max_image_layers = vk_exporter_max_image_layers(dev->vk);
	if ((uint32_t)dev->gl.max_array_layers < dev->caps.max_image_layers)
		dev->caps.max_image_layers = (uint32_t)dev->gl.max_array_layers;
	fill_formats(dev);

	dev->caps.cuda_ordinal = -1;
	if (want_cuda) {
		ret = bind_cuda(dev, options);
		if (ret < 0)
			goto fail;
	}

	ret = choose_sync_mode(dev,
			       options ? options->sync_mode : GLCUDA_SYNC_AUTO);
	if (ret < 0)
		goto fail;
	fill_image_kinds(dev);

	{
		char uuid[UUID_STRING_SIZE];
		uuid_format(dev->caps.device_uuid, uuid);
		log_info(dev,
			 "bound \"%s\" (GL) = \"%s\" (Vulkan) = \"%s\" (CUDA "
			 "%d), UUID %s, sync mode %s\n",
			 dev->caps.gl_renderer, dev->caps.vulkan_device_name,
			 dev->has_cuda ? dev->caps.cuda_device_name : "none",
			 dev->caps.cuda_ordinal, uuid,
			 glcuda_sync_mode_get_name(dev->caps.sync_mode));
	}
	*out = dev;
	return 0;

fail:
	device_release_drivers(dev);
	free(dev);
	return ret;
}

GLCUDA_EXPORT int
glcuda_device_new(EGLDisplay display, EGLContext context,
		  const struct glcuda_device_options *options,
		  struct glcuda_device **out)
{
	return device_new_internal(display, context, options, true, out);
}

GLCUDA_EXPORT void
glcuda_device_destroy(struct glcuda_device *dev)
{
	bool wait;

	if (!dev)
		return;
	/* No error_clear(): destroy is what a caller's unwind calls
	 * after a failure, and the failure's message must outlive it. */
	if (dev->live_images || dev->live_rings) {
		/* Freeing now would leave those objects pointing at freed
		 * memory. Refuse: the device stays whole and usable, and the
		 * caller can destroy the children and call again (glcuda.h). */
		device_fail(dev, -EBUSY,
			    "glcuda_device_destroy: %u images and %u rings of "
			    "this device are still alive; destroy them first. "
			    "The device is not destroyed and stays usable.",
			    dev->live_images, dev->live_rings);
		return;
	}
	/* Let the host functions of destroyed rings run, so that their
	 * blocks can go (destroy may wait; not on a lost device, where the
	 * wait might never return). The copy kernels stay: they are the
	 * process's (copy-kernels.h). */
	wait = dev->has_cuda && dev->orphans.head && !dev->errors.lost;
	if (wait && device_push_cuda_quietly(dev)) {
		CU_CALL(cuCtxSynchronize);
		device_pop_cuda(dev);
	}
	if (dev->gl_cache.release) {
		bool gl_current = eglGetCurrentContext() == dev->context;

		if (!gl_current)
			log_error(dev,
				  "glcuda_device_destroy: the device's context "
				  "is not current; the GL objects of its "
				  "captures leak. Make the context current "
				  "before destroying the device.\n");
		dev->gl_cache.release(dev, gl_current);
	}
	device_release_drivers(dev);
	free(dev);
}

GLCUDA_EXPORT void
glcuda_device_set_user_data(struct glcuda_device *dev, void *user_data)
{
	if (dev)
		dev->user_data = user_data;
}

GLCUDA_EXPORT void *
glcuda_device_get_user_data(const struct glcuda_device *dev)
{
	return dev ? dev->user_data : NULL;
}

/* The caps' masks hold the first 32 values of an enum; these queries are
 * what the API promises, so a value past 31 only needs them changed. */
static int
mask_has(uint32_t mask, int value)
{
	return value >= 0 && value < 32 && (mask & (1u << value)) ? 1 : 0;
}

GLCUDA_EXPORT int
glcuda_device_has_format(const struct glcuda_device *dev,
			 enum glcuda_format format)
{
	return dev ? mask_has(dev->caps.formats_supported, (int)format) : 0;
}

GLCUDA_EXPORT int
glcuda_device_has_sync_mode(const struct glcuda_device *dev,
			    enum glcuda_sync_mode mode)
{
	if (!dev || mode == GLCUDA_SYNC_AUTO)
		return 0;
	return mask_has(dev->caps.sync_modes_supported, (int)mode);
}

GLCUDA_EXPORT int
glcuda_device_has_image_kind(const struct glcuda_device *dev,
			     enum glcuda_image_kind kind)
{
	return dev ? mask_has(dev->caps.image_kinds_supported, (int)kind) : 0;
}

GLCUDA_EXPORT int
glcuda_device_image_kind_waits_on_cpu(const struct glcuda_device *dev,
				      enum glcuda_image_kind kind)
{
	return dev ? mask_has(dev->caps.image_kinds_cpu_wait, (int)kind) : 0;
}

GLCUDA_EXPORT const struct glcuda_caps *
glcuda_device_get_caps(const struct glcuda_device *dev)
{
	static const struct glcuda_caps empty;
	return dev ? &dev->caps : &empty;
}

GLCUDA_EXPORT const char *
glcuda_device_get_last_error(const struct glcuda_device *dev)
{
	return dev ? dev->errors.last_error : "";
}

GLCUDA_EXPORT CUcontext
glcuda_device_get_cuda_context(const struct glcuda_device *dev)
{
	return dev && dev->has_cuda ? dev->cu_context : NULL;
}

GLCUDA_EXPORT CUdevice
glcuda_device_get_cuda_device(const struct glcuda_device *dev)
{
	return dev && dev->has_cuda ? dev->cu_device : -1;
}

GLCUDA_EXPORT void
glcuda_device_set_log_handler(struct glcuda_device *dev, glcuda_log_func func,
			      void *user_data)
{
	if (!dev)
		return;
	dev->errors.log_func = func;
	dev->errors.log_user_data = user_data;
}

GLCUDA_EXPORT void
glcuda_device_set_log_priority(struct glcuda_device *dev,
			       enum glcuda_log_priority priority)
{
	if (dev)
		dev->errors.log_priority = priority;
}

GLCUDA_EXPORT enum glcuda_log_priority
glcuda_device_get_log_priority(const struct glcuda_device *dev)
{
	return dev ? dev->errors.log_priority : GLCUDA_LOG_PRIORITY_ERROR;
}
