/*
 * The device layer's declarations: struct glcuda_device, which the layers
 * above it use, and the functions of struct-size.c and device.c.
 * SPDX-License-Identifier: MIT
 *
 * The device layer (lib/layers.txt lists the layers of lib/ and the order
 * in which their files may call each other; doc/design.md says what each
 * is): struct-size.c, the size checks of the caller's structs, and
 * device.c, which binds one GL context, Vulkan device and CUDA context and
 * owns the error sink it hands down. Nothing calls upwards: where a lower
 * layer must reach something above, the upper one hands it a hook (the
 * device's orphans.reap, an image's kind ops).
 */
#ifndef GLCUDA_DEVICE_H
#define GLCUDA_DEVICE_H

#include "config.h"

#include "export.h"
#include "array-length.h"
#include "error.h"
#include "log.h"
#include "format.h"
#include "uuid.h"
#include "extensions.h"
#include "egl-binding.h"
#include "loader/cuda-loader.h"
#include "gl/gl-importer.h"
#include "cuda/copy-kernels.h"

struct vk_exporter;

/* A device: the caller's EGL context bound to one Vulkan device and one
 * CUDA device with the same UUID. */
struct glcuda_device {
	EGLDisplay display;
	/* The caller's, untouched by glcuda (glcuda_device_set_user_data). */
	void *user_data;
	EGLContext context;
	struct glcuda_caps caps;

	/* Log handler, last error and loss: handed down to the layers
	 * below, which report through it. */
	struct error_sink errors;

	struct gl_state gl;
	struct vk_exporter *vk;

	/* CUDA. has_cuda is false only for the GL+Vulkan devices that the
	 * CUDA-free internal tests make (device_new_internal). */
	bool has_cuda;
	CUdevice cu_device;
	CUcontext cu_context;
	bool cu_context_is_primary;
	/* Whether this device's copies between an image and linear memory
	 * may use the process's copy kernels (cuda/copy-kernels.h). */
	struct copy_kernels copy_kernels;

	unsigned int live_images;
	unsigned int live_rings;
	/* What objects of the layers above left behind for the CUDA context:
	 * the completion blocks of destroyed rings whose host functions had
	 * not all run. Their owner (ring.c) keeps the list and installs reap;
	 * the device only calls reap around releasing the context, so it
	 * never depends on the rings. */
	struct device_orphans {
		void *head;
		/* Free what may go; context_gone: the CUDA context was
		 * destroyed, so nothing queued on it will ever run. Returns
		 * how many remain. */
		unsigned int (*reap)(struct glcuda_device *dev,
				     bool context_gone);
	} orphans;
	/* GL objects the layers above keep from one call to the next (the
	 * captures' resolve buffers and depth pass: capture.c). Their owner
	 * installs release, which glcuda_device_destroy calls with whether
	 * the device's context is current (if not, the objects leak). */
	struct device_gl_cache {
		void *data;
		void (*release)(struct glcuda_device *dev, bool gl_current);
	} gl_cache;
};

/* The layers above the device report through the device's sink. */
static inline struct error_sink *
device_errors(const struct glcuda_device *dev)
{
	return dev ? (struct error_sink *)&dev->errors : NULL;
}

#define device_fail(dev, ...) error_fail(device_errors(dev), __VA_ARGS__)
#define device_log(dev, ...) error_log(device_errors(dev), __VA_ARGS__)
#define log_debug(dev, ...) \
	device_log((dev), GLCUDA_LOG_PRIORITY_DEBUG, __VA_ARGS__)
#define log_info(dev, ...) \
	device_log((dev), GLCUDA_LOG_PRIORITY_INFO, __VA_ARGS__)
#define log_error(dev, ...) \
	device_log((dev), GLCUDA_LOG_PRIORITY_ERROR, __VA_ARGS__)

/* device.c --------------------------------------------------------------- */

/* glcuda_device_new with the CUDA part optional: want_cuda=false makes a
 * GL+Vulkan device for the internal tests that run without a CUDA driver.
 * Public callers always get want_cuda=true. */
int device_new_internal(EGLDisplay display, EGLContext context,
			const struct glcuda_device_options *options,
			bool want_cuda, struct glcuda_device **out);

/* Check the device's context is current and the device usable. Returns 0 or
 * a recorded error. Every public call that touches GL starts with it. */
int device_check_gl(struct glcuda_device *dev, const char *what);
/* GLCUDA_ERROR_DEVICE_LOST (recorded) once the device was lost, else 0:
 * for the public calls that do work without GL. */
int device_check_lost(struct glcuda_device *dev, const char *what);

/* Push/pop the device's CUDA context. A public call that calls CUDA pushes
 * it once, after its argument checks, and pops it on every way out; the
 * functions below it expect it current and never push (doc/design.md,
 * "The CUDA context"). device_push_cuda records a failure naming what
 * (the public call). */
int device_push_cuda(struct glcuda_device *dev, const char *what);
/* The push of the destroy calls, which record nothing (the caller's last
 * error, often why it destroys, must outlive them): whether the context
 * is now pushed. False on a device without CUDA. */
bool device_push_cuda_quietly(struct glcuda_device *dev);
void device_pop_cuda(struct glcuda_device *dev);

/* A CUDA failure, recorded on the device (cuda_call_fail says how). */
#define device_cuda_fail(dev, ...) \
	cuda_call_fail(device_errors(dev), __VA_ARGS__)

/* struct-size.c ---------------------------------------------------------- */

/* Where a member of a caller's struct lies. A struct's table lists every
 * member but `size`, in order: a member appended to the struct is appended
 * to its table too (STRUCT_SIZE_ENDS fails until it is). */
struct member_span {
	size_t offset, size;
};

#define MEMBER_SPAN(type, member) \
	{ offsetof(type, member), sizeof(((type *)0)->member) }

/* size is the struct's first member, a size_t: the copies rely on it. */
#define STRUCT_SIZE_FIRST(type)                                           \
	_Static_assert(offsetof(type, size) == 0 &&                       \
			       sizeof(((type *)0)->size) == sizeof(size_t), \
		       #type ".size")

/* The last member ends the struct (no tail padding), so a newer glcuda
 * that appends a member cannot place it in padding that an older caller's
 * sizeof already covers. */
#define STRUCT_SIZE_ENDS(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member) == sizeof(type))

/* Check the size of a caller's struct in (struct-size.c says which sizes
 * are accepted: members, count is its table) and copy it into out, a
 * struct of full bytes whose members past the caller's are zero and whose
 * size is full. call and type name the public call and the struct in the
 * message. Returns 0 or a recorded -EINVAL. */
int struct_size_copy_in(struct glcuda_device *dev, const char *call,
			const char *type, const void *in,
			const struct member_span *members, size_t count,
			void *out, size_t full);

/* Check the size member of a caller's struct (struct-size.c says which
 * sizes are accepted) and copy it into *out, a struct of this glcuda's
 * size whose members past the caller's are zero. Returns 0 or a recorded
 * -EINVAL. */
int device_options_copy(const struct glcuda_device_options *in,
			struct glcuda_device_options *out);
/* The same check for a struct glcuda fills for the caller. */
struct glcuda_cuda_plane;
int cuda_plane_check(struct glcuda_device *dev,
		     const struct glcuda_cuda_plane *out);
int image_desc_copy(struct glcuda_device *dev,
		    const struct glcuda_image_desc *in,
		    struct glcuda_image_desc *out);
struct glcuda_diag_egl_device;
struct glcuda_diag_vk_device;
struct glcuda_diag_cuda_device;
int diag_egl_device_check(const struct glcuda_diag_egl_device *out);
int diag_vk_device_check(const struct glcuda_diag_vk_device *out);
int diag_cuda_device_check(const struct glcuda_diag_cuda_device *out);
int frame_timings_check(struct glcuda_device *dev,
			const struct glcuda_frame_timings *out);
/* Copy a struct glcuda filled in full (of this glcuda's size) out to the
 * caller's, whose checked size is size: the members that size covers, and
 * the size member left as the caller set it. */
void sized_copy_out(void *out, const void *full, size_t size);

#endif
