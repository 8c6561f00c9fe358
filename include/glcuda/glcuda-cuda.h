/**
 * @file
 * glcuda — typed CUDA accessors and the GL <-> CUDA hand-off.
 *
 * SPDX-License-Identifier: MIT
 *
 * Include after <cuda.h> (the CUDA driver API header of the toolkit). The
 * program does not need to link libcuda: these functions return objects
 * glcuda created through the driver it loaded at run time, and any CUDA
 * call the program makes itself needs the driver API, linked or loaded.
 */
#ifndef GLCUDA_CUDA_H
#define GLCUDA_CUDA_H

/* glcuda's own sources declare the part of the driver API they use
 * (GLCUDA_CUDA_TYPES_H) and build without the CUDA toolkit. */
#ifndef GLCUDA_CUDA_TYPES_H
#include <cuda.h>
#endif
#include <glcuda/glcuda.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The CUDA context glcuda uses (the primary context of the matching
 *  device, retained by the device, unless the options gave one). Push it
 *  with cuCtxPushCurrent around your own CUDA calls, or make it current on
 *  your thread; do not release or destroy it. NULL for a NULL device.
 *  @since 0.3 (0.1 to 0.2: glcuda_device_cuda_context) */
CUcontext glcuda_device_get_cuda_context(const struct glcuda_device *dev);

/** The CUDA device that matches the GL context; -1 for a NULL device.
 *  @since 0.3 (0.1 to 0.2: glcuda_device_cuda_device) */
CUdevice glcuda_device_get_cuda_device(const struct glcuda_device *dev);

/** Level 0 of the image (plane 0) as a CUDA array. Owned by the image;
 *  use it while the image is handed to CUDA. For a wrapped GL texture it
 *  may change at each glcuda_handoff_to_cuda(); NULL for a pitch-linear
 *  EGLImage plane. @since 0.3 (0.1 to 0.2: glcuda_image_cuda_array) */
CUarray glcuda_image_get_cuda_array(const struct glcuda_image *img);

/** A surface object for kernels that read and write the image (plane 0;
 *  surf2Dread/surf2Dwrite, x in bytes). Owned by the image; use it while
 *  the image is handed to CUDA. 0 with GLCUDA_WRAP_FLAG_READ_ONLY.
 *  @since 0.3 (0.1 to 0.2: glcuda_image_cuda_surface) */
CUsurfObject glcuda_image_get_cuda_surface(const struct glcuda_image *img);

/** A texture object for kernels that sample the image (plane 0;
 *  normalised reads for UNORM formats, unnormalised coordinates, clamp to
 *  edge). Owned by the image; use it while the image is handed to CUDA. 0
 *  if the image was made with GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE.
 *  @since 0.3 (0.1 to 0.2: glcuda_image_cuda_texture) */
CUtexObject glcuda_image_get_cuda_texture(const struct glcuda_image *img);

/**
 * One plane of an image as CUDA sees it, filled by
 * glcuda_image_get_cuda_plane(). The caller allocates it and sets size
 * (glcuda_cuda_plane_init()); glcuda fills the members that size covers.
 * @since 0.2; the size member since 0.3
 */
struct glcuda_cuda_plane {
	/** sizeof(struct glcuda_cuda_plane), as the caller was compiled with:
	 *  see "Structs the caller allocates" in <glcuda/glcuda.h>.
	 *  @since 0.3 */
	size_t size;
	/** The plane's CUDA array, or NULL for a pitch-linear EGLImage plane
	 *  (then pointer and pitch). */
	CUarray array;
	/** Read/write surface object; 0 with GLCUDA_WRAP_FLAG_READ_ONLY or
	 *  for pitch-linear planes. */
	CUsurfObject surface;
	/** Sampling texture object; 0 with GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE
	 *  or for pitch-linear planes. */
	CUtexObject texture;
	/** Pitch-linear planes: device address of the first row. */
	CUdeviceptr pointer;
	/** Pitch-linear planes: bytes per row. */
	size_t pitch;
	uint32_t width,  /**< Width of the plane, in pixels. */
		 height; /**< Height of the plane, in pixels. */
	/** Channel type (e.g. CU_AD_FORMAT_UNSIGNED_INT8). */
	CUarray_format format;
	/** Channel count (e.g. 4). */
	unsigned int channels;
	/** Layers: 1, or N for a layered array (CUDA_ARRAY3D_LAYERED; the
	 *  surface and texture objects are then layered too: surf2DLayered*,
	 *  tex2DLayered). @since 1.1 */
	uint32_t layers;
	/** Bytes per pixel: channels times the size of the channel type
	 *  (a row of the plane in linear memory is width times this).
	 *  @since 1.1 */
	uint32_t bytes_per_pixel;
};

/**
 * Zero @p plane and set its size. Inline, so that the size is the one the
 * caller was compiled with.
 * @since 0.3
 */
static inline void
glcuda_cuda_plane_init(struct glcuda_cuda_plane *plane)
{
	memset(plane, 0, sizeof(*plane));
	plane->size = sizeof(*plane);
}

/**
 * Describe plane @p plane of an image (0 to
 * glcuda_image_get_plane_count() - 1). The objects are owned by the image.
 * For a wrapped GL texture the array and objects are valid while the image
 * is handed to CUDA; read them after each glcuda_handoff_to_cuda().
 * Touches neither GL nor CUDA: no context need be current.
 * @param[in,out] out the caller's struct, with size set
 *   (glcuda_cuda_plane_init()); the members its size covers are filled
 * @return 0, -EINVAL (NULL, plane out of range, out->size not set or
 *   unknown).
 * @since 0.3 (0.2: glcuda_image_cuda_plane, without the size member)
 */
int glcuda_image_get_cuda_plane(const struct glcuda_image *img,
				unsigned int plane,
				struct glcuda_cuda_plane *out);

/** The most images one hand-off call takes. @since 0.3 */
#define GLCUDA_HANDOFF_MAX_IMAGES 64

/**
 * Hand images from GL to CUDA, on the GPU.
 *
 * GL stops using the images: GL signals the images' GL→CUDA semaphore after
 * every GL command issued so far, and flushes; @p stream waits for that
 * signal before any work enqueued on it afterwards. In the timeline and
 * binary modes nothing blocks the calling thread. In the CPU mode this
 * waits for GL to finish (a GL fence) before returning.
 *
 * Every image must be owned by GL (new, or handed back with
 * glcuda_handoff_to_gl()). One call takes 1 to GLCUDA_HANDOFF_MAX_IMAGES
 * (64) images, all of @p dev; hand more over in several calls.
 *
 * Wrapped GL textures are mapped on @p stream instead (the driver orders
 * GL's earlier work ahead of the stream on the GPU, whatever the sync
 * mode); wrapped EGLImages use semaphores like shared images. Images of
 * all kinds can be mixed in one call.
 *
 * GL: the device's context must be current. The CUDA context need not be.
 * @param images the images (the array is read during the call only)
 * @param count 1 .. GLCUDA_HANDOFF_MAX_IMAGES
 * @param stream the stream that will use the images (0 = the NULL stream)
 * @return 0, -EINVAL (NULL, a NULL image, @p count 0 or above
 *   GLCUDA_HANDOFF_MAX_IMAGES), GLCUDA_ERROR_WRONG_DEVICE,
 *   GLCUDA_ERROR_BAD_STATE (an image already owned by CUDA),
 *   GLCUDA_ERROR_NO_CURRENT_CONTEXT, GLCUDA_ERROR_GL, GLCUDA_ERROR_CUDA,
 *   GLCUDA_ERROR_DEVICE_LOST.
 * @since 0.1
 */
int glcuda_handoff_to_cuda(struct glcuda_device *dev,
			   struct glcuda_image *const *images,
			   unsigned int count, CUstream stream);

/**
 * Hand images from CUDA back to GL, on the GPU.
 *
 * @p stream signals the images' CUDA→GL semaphore after the work enqueued
 * on it so far; GL's command stream waits for it before any GL command
 * issued afterwards. In the timeline and binary modes nothing blocks the
 * calling thread. In the CPU mode this synchronises @p stream.
 * Wrapped GL textures are unmapped on @p stream instead.
 *
 * If CUDA's half succeeded but GL's failed (in the CPU mode, the
 * cuEventSynchronize that waits for the stream; otherwise a GL error), the
 * call returns that error and the images stay "handed back by CUDA, GL not
 * waiting": call glcuda_handoff_to_gl() again with the same images to retry
 * GL's half only (@p stream is then not used), or destroy them. Images
 * whose binary semaphores are out of step fail with GLCUDA_ERROR_BAD_STATE
 * and must be destroyed.
 *
 * GL: the device's context must be current.
 * @param count 1 .. GLCUDA_HANDOFF_MAX_IMAGES, as for
 *   glcuda_handoff_to_cuda()
 * @return as glcuda_handoff_to_cuda(); GLCUDA_ERROR_BAD_STATE if an image is
 *   owned by GL, or if some images are owned by CUDA and others await the
 *   retry.
 * @since 0.1
 */
int glcuda_handoff_to_gl(struct glcuda_device *dev,
			 struct glcuda_image *const *images, unsigned int count,
			 CUstream stream);

/** With glcuda_image_copy_to_linear() and _from_linear(): every layer of
 *  the plane. @since 1.1 */
#define GLCUDA_ALL_LAYERS (-1)

/**
 * Copy a plane of an image into linear device memory the caller owns,
 * enqueued on @p stream: nothing waits on the CPU, in every sync mode.
 *
 * GL images cannot be plain pointers for CUDA (GL refuses linear tiling on
 * imported memory), so a frame becomes a tensor with this one GPU copy.
 * The image must be handed to CUDA (glcuda_handoff_to_cuda()); the copy
 * runs in @p stream's order, so hand the image off on the same stream, or
 * order the two streams yourself, and hand it back to GL after the copy
 * (glcuda_handoff_to_gl() on @p stream).
 *
 * Layout of @p dst: row y of layer l of the copy starts at
 * dst + l * layer_pitch + y * row_pitch, and holds width * bytes per pixel
 * of the plane's format (rows are tight when row_pitch is exactly that).
 * Copying a single layer (@p layer >= 0) writes layer 0 of that layout.
 *
 * glcuda picks how to copy by what was measured faster on the H200
 * (doc/performance.md): a copy of a single layer (@p layer >= 0, or an
 * image of one layer) goes through glcuda's copy kernel, about 3x faster
 * there for a 1080p layer; a copy of several layers through the copy
 * engine (cuMemcpy3DAsync), as fast as the kernel there and without a
 * launch. The kernels are loaded once per process, by its first copy of
 * one layer (CUDA 12.0's cuLibraryLoadData; a few milliseconds); where
 * they are not built (no nvcc), the driver is older or they cannot be
 * loaded, the copy engine copies everything. The environment variable
 * GLCUDA_COPY, read once per process, forces one way for every copy:
 * "engine" or "kernel". The result is the same bytes either way.
 *
 * The CUDA context need not be current; GL is not touched.
 * @param plane 0, or 1 for the depth buffer of an image with
 *   desc.depth_format; the planes of wrapped EGLImages
 * @param layer a layer, or GLCUDA_ALL_LAYERS
 * @param dst device memory of the device's CUDA context, at least
 *   (layers - 1) * layer_pitch + (height - 1) * row_pitch + width * bpp
 *   bytes
 * @param row_pitch bytes from one row to the next, >= width * bpp
 * @param layer_pitch bytes from one layer to the next, >= height *
 *   row_pitch (ignored for a single layer)
 * @return 0, -EINVAL (NULL image, 0 @p dst, plane or layer out of range,
 *   pitch too small; the message says which and the smallest that fits),
 *   GLCUDA_ERROR_BAD_STATE (the image is owned by GL),
 *   GLCUDA_ERROR_NO_CUDA_DRIVER (a device without CUDA),
 *   GLCUDA_ERROR_CUDA (the copy was refused: the message has the CUDA
 *   code), GLCUDA_ERROR_DEVICE_LOST.
 * @since 1.1
 */
int glcuda_image_copy_to_linear(struct glcuda_image *img, unsigned int plane,
				int layer, CUdeviceptr dst, size_t row_pitch,
				size_t layer_pitch, CUstream stream);

/**
 * Copy linear device memory into a plane of an image (the other direction
 * of glcuda_image_copy_to_linear(), with the same layout, rules and
 * errors): for a network's output drawn by GL. Hand the image back to GL
 * with glcuda_handoff_to_gl() on @p stream afterwards.
 * @since 1.1
 */
int glcuda_image_copy_from_linear(struct glcuda_image *img, unsigned int plane,
				  int layer, CUdeviceptr src, size_t row_pitch,
				  size_t layer_pitch, CUstream stream);

/**
 * Which way a struct glcuda_linear_copy copies.
 * @since 1.2
 */
enum glcuda_copy_direction {
	/** From the image's plane into linear memory (as
	 *  glcuda_image_copy_to_linear()). */
	GLCUDA_COPY_TO_LINEAR = 0,
	/** From linear memory into the image's plane (as
	 *  glcuda_image_copy_from_linear()). */
	GLCUDA_COPY_FROM_LINEAR = 1,
};

/**
 * One copy of a glcuda_copy_linear() batch: a plane (one layer or all)
 * of an image and a block of linear device memory, one way. The members
 * and their rules are the arguments of glcuda_image_copy_to_linear().
 *
 * This struct has no size member and never grows: it is an element of the
 * caller's array. What a later glcuda adds to the batch goes into struct
 * glcuda_copy_desc, whose size says which members the caller has.
 * @since 1.2
 */
struct glcuda_linear_copy {
	/** The image, of the call's device; owned by GL before the call. */
	struct glcuda_image *image;
	/** 0, or 1 for the depth buffer of an image with desc.depth_format;
	 *  the planes of wrapped EGLImages. */
	unsigned int plane;
	/** A layer, or GLCUDA_ALL_LAYERS. */
	int layer;
	/** Device memory of the device's CUDA context: row y of layer l of
	 *  the copy at linear + l * layer_pitch + y * row_pitch. */
	CUdeviceptr linear;
	/** Bytes from one row to the next, >= width * bytes per pixel. */
	size_t row_pitch;
	/** Bytes from one layer to the next, >= height * row_pitch (ignored
	 *  for a single layer). */
	size_t layer_pitch;
	/** Into linear memory or out of it. */
	enum glcuda_copy_direction direction;
};

/**
 * What a copy into linear memory makes of a depth plane's values (window
 * depth d in [0, 1], as glReadPixels reads them). @since 1.2
 */
enum glcuda_depth_mode {
	/** d as stored. */
	GLCUDA_DEPTH_AS_STORED = 0,
	/** The distance from the eye along the view axis, in the units of
	 *  znear and zfar (metres for MuJoCo and most renderers), for a
	 *  perspective projection (glFrustum, gluPerspective, MuJoCo's):
	 *  znear * zfar / (zfar - d * (zfar - znear)). */
	GLCUDA_DEPTH_PERSPECTIVE = 1,
	/** The same for an orthographic projection (glOrtho):
	 *  znear + d * (zfar - znear). */
	GLCUDA_DEPTH_ORTHOGRAPHIC = 2,
};

/**
 * Depth to distance, during the copy (no extra pass): computed in double
 * precision and stored as float32, the depth plane's type. It applies to
 * the copies into linear memory of depth planes (plane 1 of an image with
 * desc.depth_format, plane 0 of a GLCUDA_FORMAT_DEPTH32F image) and to no
 * other plane. Both planes are the projection's: znear > 0 and zfar > 0
 * for a perspective, and znear != zfar. A renderer with reversed depth (1
 * at the near plane, 0 at the far one: MuJoCo 3) passes its planes
 * swapped, znear its far plane and zfar its near one.
 * @since 1.2
 */
struct glcuda_depth_conversion {
	/** enum glcuda_depth_mode; GLCUDA_DEPTH_AS_STORED (0): no
	 *  conversion. */
	enum glcuda_depth_mode mode;
	/** The near plane's distance. */
	double znear;
	/** The far plane's distance. */
	double zfar;
};

/**
 * A batch for glcuda_copy_linear(): the copies, the stream, the images
 * only a callback touches, the callback, and the options of every copy.
 * The caller allocates it and sets size (glcuda_copy_desc_init()), as for
 * every struct that starts with a size: see "Structs the caller
 * allocates" in <glcuda/glcuda.h>. Later versions append options here,
 * and only here.
 * @since 1.2
 */
struct glcuda_copy_desc {
	/** sizeof(struct glcuda_copy_desc), as the caller was compiled
	 *  with. */
	size_t size;
	/** The copies (the array is read during the call only); NULL when
	 *  copy_count is 0. */
	const struct glcuda_linear_copy *copies;
	/** How many copies. */
	unsigned int copy_count;
	/** How many images in images. */
	unsigned int image_count;
	/** Images handed off with those of the copies though no copy names
	 *  them: those that only enqueue touches (a filter's output). An
	 *  image listed here and in a copy is handed off once. NULL when
	 *  image_count is 0. */
	struct glcuda_image *const *images;
	/** The stream everything is enqueued on (0 = the NULL stream). */
	CUstream stream;
	/** Optional: called once, with the device's CUDA context current,
	 *  after the copies out of linear memory were enqueued and before the
	 *  copies into it: enqueue the batch's own CUDA work on @p stream
	 *  there (a kernel from the images the copies filled, into the images
	 *  the copies read). Return 0, or a negative error, which the call
	 *  returns. It must not pop the context or call glcuda on the
	 *  batch's images. */
	int (*enqueue)(void *data, CUstream stream);
	/** Passed to enqueue. */
	void *enqueue_data;
	/** The row order of linear memory, for every copy of the batch:
	 *  GLCUDA_ORIGIN_BOTTOM_LEFT (0), GL's, or GLCUDA_ORIGIN_TOP_LEFT,
	 *  the image's rows flipped on the way, in both directions (no second
	 *  pass: the copy kernel reads or writes the rows flipped; without the
	 *  kernels, the copy engine copies row by row). */
	enum glcuda_origin origin;
	/** For the copies into linear memory of depth planes; zeroed:
	 *  depth as stored. A copy out of linear memory into a depth plane
	 *  with a conversion set is refused (-EINVAL). The conversion runs in
	 *  glcuda's copy kernel: where the kernels are missing (a build without
	 *  nvcc, a driver before CUDA 12.0), it fails with
	 *  GLCUDA_ERROR_CUDA and says so. */
	struct glcuda_depth_conversion depth;
};

/**
 * Zero @p desc and set its size. Inline, so that the size is the one the
 * caller was compiled with.
 * @since 1.2
 */
static inline void
glcuda_copy_desc_init(struct glcuda_copy_desc *desc)
{
	memset(desc, 0, sizeof(*desc));
	desc->size = sizeof(*desc);
}

/**
 * Hand a batch of images to CUDA, copy between their planes and linear
 * device memory, and hand them back to GL: the sequence of
 * glcuda_handoff_to_cuda(), glcuda_image_copy_from_linear() and _to_linear()
 * and glcuda_handoff_to_gl(), in one call that pushes the CUDA context once
 * and enqueues everything on desc->stream, in this order:
 *
 *  1. the hand-off to CUDA of the distinct images of the copies, then of
 *     desc->images (one hand-off: at most GLCUDA_HANDOFF_MAX_IMAGES
 *     images in all);
 *  2. the copies with GLCUDA_COPY_FROM_LINEAR, in the order of the array;
 *  3. desc->enqueue, if set;
 *  4. the copies with GLCUDA_COPY_TO_LINEAR, in the order of the array;
 *  5. the hand-off back to GL of every image of step 1.
 *
 * The copies are those of glcuda_image_copy_to_linear() (same layout,
 * same choice of copy kernel or copy engine), and the hand-offs those of
 * the hand-off calls, so the sync modes behave as there: in the timeline
 * and binary modes nothing blocks the calling thread; in the CPU mode
 * step 1 waits for GL's earlier work (a GL fence) and step 5 for the
 * stream (everything enqueued in steps 1 to 4) before returning.
 *
 * Every image must be owned by GL when the call starts, and is owned by GL
 * again when it returns, unless the hand-back's GL half failed (as for
 * glcuda_handoff_to_gl(): call that again to retry it). A copy or the
 * callback that fails stops the batch: no later copy or callback is
 * enqueued, the images are handed back to GL all the same (GL's commands
 * after the call wait for what was enqueued), and the call returns the
 * error of the first step that failed, whose message glcuda_get_last_error()
 * keeps. Arguments are checked before anything is enqueued: an error there
 * enqueues nothing and leaves every image as it was.
 *
 * GL: the device's context must be current (it is not changed). CUDA: the
 * device's context is pushed once and popped before the call returns; the
 * caller's need not be current.
 * @param desc the batch, size set (glcuda_copy_desc_init()); read during
 *   the call only
 * @return 0; -EINVAL (NULL, desc->size not a version of the struct, no
 *   copy and no image, a NULL image or array, a bad direction, plane,
 *   layer, pointer or pitch: the message names the copy and says which,
 *   and the smallest pitch that fits; more than GLCUDA_HANDOFF_MAX_IMAGES
 *   images), GLCUDA_ERROR_WRONG_DEVICE (an image of another device),
 *   GLCUDA_ERROR_BAD_STATE (an image not owned by GL, or a ring frame's),
 *   GLCUDA_ERROR_NO_CURRENT_CONTEXT, GLCUDA_ERROR_NO_CUDA_DRIVER,
 *   GLCUDA_ERROR_GL, GLCUDA_ERROR_CUDA, GLCUDA_ERROR_DEVICE_LOST, or what
 *   desc->enqueue returned.
 * @since 1.2
 */
int glcuda_copy_linear(struct glcuda_device *dev,
		       const struct glcuda_copy_desc *desc);

/** The CUDA stream of a ring frame: the slot's own, owned by the ring, or
 *  the caller's desc.cuda_stream. Enqueue the frame's CUDA work on it
 *  between glcuda_frame_submit() and glcuda_frame_complete().
 *  @since 0.3 (0.1 to 0.2: glcuda_frame_stream) */
CUstream glcuda_frame_get_stream(const struct glcuda_frame *frame);

/** The surface object of the frame's input image (inline).
 *  @since 0.3 (0.1 to 0.2: glcuda_frame_input_surface) */
static inline CUsurfObject
glcuda_frame_get_input_surface(const struct glcuda_frame *frame)
{
	return glcuda_image_get_cuda_surface(glcuda_frame_get_input(frame));
}

/** The surface object of the frame's output image (inline).
 *  @since 0.3 (0.1 to 0.2: glcuda_frame_output_surface) */
static inline CUsurfObject
glcuda_frame_get_output_surface(const struct glcuda_frame *frame)
{
	return glcuda_image_get_cuda_surface(glcuda_frame_get_output(frame));
}

#ifdef __cplusplus
}
#endif

#endif /* GLCUDA_CUDA_H */
