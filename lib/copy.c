/*
 * Copies between a plane of an image and linear device memory, enqueued on
 * a stream: how a GL frame becomes a tensor (GL refuses linear tiling on
 * imported memory, so CUDA never sees a frame as a plain pointer).
 * SPDX-License-Identifier: MIT
 */
#include "copy.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The 3D copy of `count` layers from `first` between the plane and the
 * linear block at `linear`, whose layers are `slice_rows` rows apart. */
static void
describe_layers(const struct cuda_plane *p, const struct linear_block *b,
		uint32_t first, uint32_t count, CUdeviceptr linear,
		size_t slice_rows, bool to_linear, CUDA_MEMCPY3D *m)
{
	memset(m, 0, sizeof(*m));
	m->WidthInBytes = (size_t)p->width * cuda_plane_bytes_per_pixel(p);
	m->Height = p->height;
	m->Depth = count;
	if (!p->array) {
		/* A pitch-linear plane (a wrapped EGLImage's): one layer. */
		m->srcMemoryType = CU_MEMORYTYPE_DEVICE;
		m->dstMemoryType = CU_MEMORYTYPE_DEVICE;
		m->srcDevice = to_linear ? p->pointer : linear;
		m->srcPitch = to_linear ? p->pitch : b->row_pitch;
		m->dstDevice = to_linear ? linear : p->pointer;
		m->dstPitch = to_linear ? b->row_pitch : p->pitch;
	} else if (to_linear) {
		m->srcMemoryType = CU_MEMORYTYPE_ARRAY;
		m->srcArray = p->array;
		m->srcZ = first;
		m->dstMemoryType = CU_MEMORYTYPE_DEVICE;
		m->dstDevice = linear;
		m->dstPitch = b->row_pitch;
		m->dstHeight = slice_rows;
	} else {
		m->dstMemoryType = CU_MEMORYTYPE_ARRAY;
		m->dstArray = p->array;
		m->dstZ = first;
		m->srcMemoryType = CU_MEMORYTYPE_DEVICE;
		m->srcDevice = linear;
		m->srcPitch = b->row_pitch;
		m->srcHeight = slice_rows;
	}
}

/* The copy of one row between the plane and linear memory: the plane's
 * row `image_row` of layer `z`, the block's row at `linear`. */
static void
describe_row(const struct cuda_plane *p, const struct linear_block *b,
	     uint32_t z, uint32_t image_row, CUdeviceptr linear,
	     bool to_linear, CUDA_MEMCPY3D *m)
{
	const size_t row_bytes =
		(size_t)p->width * cuda_plane_bytes_per_pixel(p);
	CUdeviceptr plane_row = p->pointer + (CUdeviceptr)image_row * p->pitch;

	memset(m, 0, sizeof(*m));
	m->WidthInBytes = row_bytes;
	m->Height = 1;
	m->Depth = 1;
	if (!p->array) {
		m->srcMemoryType = CU_MEMORYTYPE_DEVICE;
		m->dstMemoryType = CU_MEMORYTYPE_DEVICE;
		m->srcDevice = to_linear ? plane_row : linear;
		m->dstDevice = to_linear ? linear : plane_row;
		m->srcPitch = to_linear ? p->pitch : b->row_pitch;
		m->dstPitch = to_linear ? b->row_pitch : p->pitch;
	} else if (to_linear) {
		m->srcMemoryType = CU_MEMORYTYPE_ARRAY;
		m->srcArray = p->array;
		m->srcY = image_row;
		m->srcZ = z;
		m->dstMemoryType = CU_MEMORYTYPE_DEVICE;
		m->dstDevice = linear;
		m->dstPitch = b->row_pitch;
	} else {
		m->dstMemoryType = CU_MEMORYTYPE_ARRAY;
		m->dstArray = p->array;
		m->dstY = image_row;
		m->dstZ = z;
		m->srcMemoryType = CU_MEMORYTYPE_DEVICE;
		m->srcDevice = linear;
		m->srcPitch = b->row_pitch;
	}
}

int
copy_options_check(struct glcuda_device *dev, enum glcuda_origin origin,
		   const struct glcuda_depth_conversion *depth,
		   const char *what, struct copy_options *out)
{
	const double n = depth->znear, f = depth->zfar;

	memset(out, 0, sizeof(*out));
	if (origin != GLCUDA_ORIGIN_BOTTOM_LEFT &&
	    origin != GLCUDA_ORIGIN_TOP_LEFT)
		return device_fail(dev, -EINVAL,
				   "%s: origin %d is neither "
				   "GLCUDA_ORIGIN_BOTTOM_LEFT nor "
				   "GLCUDA_ORIGIN_TOP_LEFT",
				   what, (int)origin);
	switch (depth->mode) {
	case GLCUDA_DEPTH_AS_STORED:
		break;
	case GLCUDA_DEPTH_PERSPECTIVE:
		if (!(n > 0 && f > 0 && n != f && isfinite(n) && isfinite(f)))
			return device_fail(
				dev, -EINVAL,
				"%s: depth.znear %g and depth.zfar %g are "
				"not the planes of a perspective projection: "
				"both above 0, finite and different (swapped "
				"for reversed depth)",
				what, n, f);
		break;
	case GLCUDA_DEPTH_ORTHOGRAPHIC:
		if (!(n != f && isfinite(n) && isfinite(f)))
			return device_fail(
				dev, -EINVAL,
				"%s: depth.znear %g and depth.zfar %g are "
				"not the planes of an orthographic "
				"projection: finite and different",
				what, n, f);
		break;
	default:
		return device_fail(dev, -EINVAL,
				   "%s: depth.mode %d is none of "
				   "GLCUDA_DEPTH_AS_STORED, _PERSPECTIVE and "
				   "_ORTHOGRAPHIC",
				   what, (int)depth->mode);
	}
	out->flip = origin == GLCUDA_ORIGIN_TOP_LEFT;
	out->depth = *depth;
	return 0;
}

bool
copy_plane_is_depth(const struct glcuda_image *img, unsigned int plane)
{
	if (plane == 1)
		return img->depth_fmt != NULL;
	return plane == 0 && img->fmt && img->fmt->is_depth;
}

int
copy_check_layout(struct glcuda_image *img, unsigned int plane, int layer,
		  const struct linear_block *b, const char *what)
{
	struct glcuda_device *dev = img->dev;
	const struct cuda_plane *p;
	size_t row_bytes;
	uint32_t layers;

	if (plane >= img->plane_count)
		return device_fail(dev, -EINVAL,
				   "%s: plane %u of an image with %u "
				   "plane%s",
				   what, plane, img->plane_count,
				   img->plane_count == 1 ? "" : "s");
	p = &img->planes[plane];
	layers = cuda_plane_layers(p);
	if (layer != GLCUDA_ALL_LAYERS &&
	    (layer < 0 || (uint32_t)layer >= layers))
		return device_fail(dev, -EINVAL,
				   "%s: layer %d of an image with %u "
				   "layer%s (or GLCUDA_ALL_LAYERS for all)",
				   what, layer, layers, layers == 1 ? "" : "s");
	if (!b->pointer)
		return device_fail(dev, -EINVAL, "%s: the device pointer is 0",
				   what);
	row_bytes = (size_t)p->width * cuda_plane_bytes_per_pixel(p);
	if (b->row_pitch < row_bytes)
		return device_fail(
			dev, -EINVAL,
			"%s: a row pitch of %zu bytes is too "
			"small for plane %u: its rows are %u pixels of %u "
			"bytes, %zu bytes at least",
			what, b->row_pitch, plane, p->width,
			cuda_plane_bytes_per_pixel(p), row_bytes);
	if (layer == GLCUDA_ALL_LAYERS && layers > 1 &&
	    b->layer_pitch < b->row_pitch * p->height)
		return device_fail(
			dev, -EINVAL,
			"%s: a layer pitch of %zu bytes is too "
			"small for plane %u: %u rows of %zu bytes, %zu bytes "
			"at "
			"least",
			what, b->layer_pitch, plane, p->height, b->row_pitch,
			b->row_pitch * p->height);
	return 0;
}

int
copy_check(struct glcuda_image *img, unsigned int plane, int layer,
	   const struct linear_block *b, const char *what)
{
	struct glcuda_device *dev = img->dev;
	int ret = copy_check_layout(img, plane, layer, b, what);

	if (ret < 0)
		return ret;
	/* A ring frame's images are handed off by the frame, between
	 * glcuda_frame_submit() and _complete(). */
	if (img->owner == IMAGE_OWNER_GL &&
	    !(img->private_flags & IMAGE_PRIVATE_RING_MANAGED))
		return device_fail(
			dev, GLCUDA_ERROR_BAD_STATE,
			"%s: the image is owned "
			"by GL; hand it to CUDA first "
			"(glcuda_handoff_to_cuda())",
			what);
	if (img->owner == IMAGE_OWNER_CUDA_DONE)
		return device_fail(
			dev, GLCUDA_ERROR_BAD_STATE,
			"%s: the image was handed "
			"back to GL and waits for GL's half of the hand-off; "
			"retry glcuda_handoff_to_gl() first",
			what);
	return device_check_lost(dev, what);
}

/* GLCUDA_COPY, read once per process: "engine" or "kernel" forces one way
 * for every copy; unset (or any other value), the way measured faster. */
enum copy_way {
	COPY_WAY_MEASURED,
	COPY_WAY_ENGINE,
	COPY_WAY_KERNEL,
};

static enum copy_way
copy_way_asked(void)
{
	static int asked = -1;
	int way = __atomic_load_n(&asked, __ATOMIC_RELAXED);

	if (way < 0) {
		const char *e = getenv("GLCUDA_COPY");

		way = !e ? COPY_WAY_MEASURED
		    : !strcmp(e, "engine") ? COPY_WAY_ENGINE
		    : !strcmp(e, "kernel") ? COPY_WAY_KERNEL
		    : COPY_WAY_MEASURED;
		__atomic_store_n(&asked, way, __ATOMIC_RELAXED);
	}
	return (enum copy_way)way;
}

/* Whether a copy of `layers` layers of the plane goes through the copy
 * kernels, which need a surface object (an image's plane, not a wrapped
 * pitch-linear one) and a build and driver that have them. The rule is
 * what bench/glcuda-tensor-bench measured on the H200 (doc/performance.md):
 * for a single layer (one layer of a layered image, or an image of one)
 * the kernel is about 3x faster than the copy engine (7.1 against 21.7 us
 * for a 1080p RGBA8 layer, 79 % of a plain device copy against 21 %); for
 * several layers both reach the same ~55 % of a plain copy, reading the
 * layered array being the bound, and the engine needs no launch. With the
 * CUDA context current. */
static bool
copy_by_kernel(struct glcuda_image *img, const struct cuda_plane *p,
	       uint32_t layers, bool flip)
{
	const enum copy_way way = copy_way_asked();

	if (way == COPY_WAY_ENGINE || !p->array || !p->surface)
		return false;
	/* Flipped, the copy engine copies row by row: the kernel, which
	 * flips for free, wins at every size. */
	if (way == COPY_WAY_MEASURED && layers > 1 && !flip)
		return false;
	/* Loaded by the process's first such copy (a few milliseconds,
	 * once); a device that could not have them copies with the
	 * engine. */
	return copy_kernels_load(&img->dev->errors, &img->dev->copy_kernels) ==
	       0;
}

/* A depth conversion asked where no kernel can run it. */
static int
fail_no_kernel(struct glcuda_image *img, const char *what)
{
	return device_fail(img->dev, GLCUDA_ERROR_CUDA,
			   "%s: depth to distance runs in glcuda's copy "
			   "kernels, which this build, driver or plane cannot "
			   "have (GLCUDA_LOG=info says why); copy the depth "
			   "as stored and convert it yourself",
			   what);
}

/* Flipped through the copy engine: one 3D copy a row. */
static int
copy_rows_flipped(struct glcuda_image *img, const struct cuda_plane *p,
		  uint32_t first, uint32_t layers, const struct linear_block *b,
		  bool to_linear, CUstream stream, const char *what)
{
	CUDA_MEMCPY3D m;
	CUresult res;

	for (uint32_t l = 0; l < layers; l++)
		for (uint32_t y = 0; y < p->height; y++) {
			describe_row(p, b, first + l, p->height - 1 - y,
				     b->pointer +
					     (CUdeviceptr)(l * b->layer_pitch +
							   y * b->row_pitch),
				     to_linear, &m);
			res = CU_CALL(cuMemcpy3DAsync, &m, stream);
			if (res != CUDA_SUCCESS)
				return device_cuda_fail(img->dev, res,
							"cuMemcpy3DAsync",
							what);
		}
	return 0;
}

/* Through the copy kernels where copy_by_kernel() says so, and always for
 * a depth conversion; otherwise, or where no kernel can copy the plane,
 * as 3D copies of the copy engine: one for every layer when the layer
 * pitch is a whole number of rows (CUDA_MEMCPY3D describes the block by
 * rows per layer), one per layer otherwise, one per row flipped. */
int
copy_enqueue(struct glcuda_image *img, unsigned int plane, int layer,
	     const struct linear_block *b, bool to_linear,
	     const struct copy_options *o, CUstream stream, const char *what)
{
	const struct cuda_plane *p = &img->planes[plane];
	const uint32_t first = layer == GLCUDA_ALL_LAYERS ? 0 : (uint32_t)layer;
	const uint32_t layers =
		layer == GLCUDA_ALL_LAYERS ? cuda_plane_layers(p) : 1;
	const bool one_copy = layers == 1 || b->layer_pitch % b->row_pitch == 0;
	const uint32_t count = one_copy ? layers : 1;
	const size_t slice_rows = count > 1 ? b->layer_pitch / b->row_pitch
					    : p->height;
	const bool flip = o && o->flip;
	const int depth_mode = o && to_linear && copy_plane_is_depth(img, plane)
				       ? (int)o->depth.mode
				       : 0;
	CUDA_MEMCPY3D m;
	CUresult res;
	int ret;

	if (depth_mode && (!p->array || !p->surface ||
			   copy_kernels_load(&img->dev->errors,
					     &img->dev->copy_kernels) != 0))
		return fail_no_kernel(img, what);
	if (depth_mode || copy_by_kernel(img, p, layers, flip)) {
		const struct copy_kernel_args a = {
			.surface = p->surface,
			.layered = p->layers > 1,
			.bpp = cuda_plane_bytes_per_pixel(p),
			.width = p->width,
			.height = p->height,
			.first = first,
			.count = layers,
			.linear = b->pointer,
			.row_pitch = b->row_pitch,
			.layer_pitch = layers > 1 ? b->layer_pitch : 0,
			.to_linear = to_linear,
			.flip = flip,
			.depth_mode = depth_mode,
			.znear = depth_mode ? o->depth.znear : 0,
			.zfar = depth_mode ? o->depth.zfar : 0,
		};

		ret = copy_kernels_launch(&img->dev->errors,
					  &img->dev->copy_kernels, &a, stream);
		if (ret != -ENOTSUP)
			return ret;
		if (depth_mode)
			return fail_no_kernel(img, what);
	}
	if (flip)
		return copy_rows_flipped(img, p, first, layers, b, to_linear,
					 stream, what);
	for (uint32_t l = 0; l < layers; l += count) {
		describe_layers(p, b, first + l, count,
				b->pointer + (CUdeviceptr)(l * b->layer_pitch),
				slice_rows, to_linear, &m);
		res = CU_CALL(cuMemcpy3DAsync, &m, stream);
		if (res != CUDA_SUCCESS)
			return device_cuda_fail(img->dev, res,
						"cuMemcpy3DAsync", what);
	}
	return 0;
}

static int
copy_public(struct glcuda_image *img, unsigned int plane, int layer,
	    CUdeviceptr pointer, size_t row_pitch, size_t layer_pitch,
	    CUstream stream, bool to_linear)
{
	const char *what = to_linear ? "glcuda_image_copy_to_linear"
				     : "glcuda_image_copy_from_linear";
	const struct linear_block b = { pointer, row_pitch, layer_pitch };
	int ret;

	error_clear();
	if (!img)
		return device_fail(NULL, -EINVAL, "%s: img is NULL", what);
	ret = copy_check(img, plane, layer, &b, what);
	if (ret < 0)
		return ret;
	/* One push for the whole call (doc/design.md, "The CUDA context"). */
	ret = device_push_cuda(img->dev, what);
	if (ret < 0)
		return ret;
	ret = copy_enqueue(img, plane, layer, &b, to_linear, NULL, stream,
			   what);
	device_pop_cuda(img->dev);
	return ret;
}

GLCUDA_EXPORT int
glcuda_image_copy_to_linear(struct glcuda_image *img, unsigned int plane,
			    int layer, CUdeviceptr dst, size_t row_pitch,
			    size_t layer_pitch, CUstream stream)
{
	return copy_public(img, plane, layer, dst, row_pitch, layer_pitch,
			   stream, true);
}

GLCUDA_EXPORT int
glcuda_image_copy_from_linear(struct glcuda_image *img, unsigned int plane,
			      int layer, CUdeviceptr src, size_t row_pitch,
			      size_t layer_pitch, CUstream stream)
{
	return copy_public(img, plane, layer, src, row_pitch, layer_pitch,
			   stream, false);
}
