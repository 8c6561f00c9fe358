/*
 * Images as DLPack tensors (<glcuda/glcuda-dlpack.h>): a copy of a plane
 * into a block of the image's pool, ordered on the consumer's stream.
 * SPDX-License-Identifier: MIT
 */
#include "copy.h"
#include "cuda/tensor-pool.h"
#include <glcuda/glcuda-dlpack.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One exported tensor: the DLPack struct the consumer holds (versioned or
 * not), its shape and strides, and the block it lends. */
struct export {
	union {
		DLManagedTensorVersioned versioned;
		DLManagedTensor unversioned;
	} m;
	int64_t shape[4], strides[4];
	struct tensor_pool *pool;
	CUdeviceptr block;
	CUstream stream;
};

/* The DLPack type of a plane's channels. */
static DLDataType
plane_dtype(const struct cuda_plane *p)
{
	DLDataType t = { kDLUInt, 8, 1 };

	switch (p->format) {
	case CU_AD_FORMAT_UNSIGNED_INT8: t.bits = 8; break;
	case CU_AD_FORMAT_UNSIGNED_INT16: t.bits = 16; break;
	case CU_AD_FORMAT_UNSIGNED_INT32: t.bits = 32; break;
	case CU_AD_FORMAT_SIGNED_INT8: t.code = kDLInt; t.bits = 8; break;
	case CU_AD_FORMAT_SIGNED_INT16: t.code = kDLInt; t.bits = 16; break;
	case CU_AD_FORMAT_SIGNED_INT32: t.code = kDLInt; t.bits = 32; break;
	case CU_AD_FORMAT_HALF: t.code = kDLFloat; t.bits = 16; break;
	default: t.code = kDLFloat; t.bits = 32; break;
	}
	return t;
}

/* Shape (layers, height, width, channels), or without layers for one;
 * tight C-contiguous strides in elements. Returns ndim. */
static int32_t
plane_shape(const struct cuda_plane *p, int64_t *shape, int64_t *strides)
{
	const uint32_t layers = cuda_plane_layers(p);
	int32_t n = 0;

	if (layers > 1)
		shape[n++] = layers;
	shape[n++] = p->height;
	shape[n++] = p->width;
	shape[n++] = p->channels;
	strides[n - 1] = 1;
	for (int32_t i = n - 2; i >= 0; i--)
		strides[i] = strides[i + 1] * shape[i + 1];
	return n;
}

static void
export_free(struct export *e)
{
	tensor_pool_put(e->pool, e->block, e->stream);
	free(e);
}

static void
delete_versioned(DLManagedTensorVersioned *self)
{
	if (self)
		export_free(self->manager_ctx);
}

static void
delete_unversioned(DLManagedTensor *self)
{
	if (self)
		export_free(self->manager_ctx);
}

/* The image's pool for a plane, made on its first export. With the CUDA
 * context pushed. */
static int
plane_pool(struct glcuda_image *img, unsigned int plane, size_t size,
	   struct tensor_pool **out)
{
	struct glcuda_device *dev = img->dev;
	int ret;

	if (!img->pools[plane]) {
		ret = tensor_pool_new(&dev->errors, dev->cu_context,
				      dev->cu_device,
				      dev->cu_context_is_primary, size,
				      &img->pools[plane]);
		if (ret < 0)
			return ret;
	}
	*out = img->pools[plane];
	return 0;
}

/* The copy of the block, handed over and back when GL owns the image (one
 * glcuda_copy_linear() batch), else only copied. With the CUDA context
 * pushed. */
static int
copy_into_block(struct glcuda_image *img, unsigned int plane,
		const struct linear_block *b, const struct copy_options *o,
		CUstream stream, const char *what)
{
	const struct glcuda_linear_copy copy = {
		.image = img,
		.plane = plane,
		.layer = GLCUDA_ALL_LAYERS,
		.linear = b->pointer,
		.row_pitch = b->row_pitch,
		.layer_pitch = b->layer_pitch,
		.direction = GLCUDA_COPY_TO_LINEAR,
	};
	struct glcuda_copy_desc desc;

	if (img->owner != IMAGE_OWNER_GL)
		return copy_enqueue(img, plane, GLCUDA_ALL_LAYERS, b, true, o,
				    stream, what);
	glcuda_copy_desc_init(&desc);
	desc.copies = &copy;
	desc.copy_count = 1;
	desc.stream = stream;
	desc.origin = o->flip ? GLCUDA_ORIGIN_TOP_LEFT
			      : GLCUDA_ORIGIN_BOTTOM_LEFT;
	desc.depth = o->depth;
	return copy_batch_pushed(img->dev, &desc, what);
}

/* The copy of the export, on the stream, into a block of the pool: the
 * image is handed to CUDA and back around it when GL owns it. */
static int
export_copy(struct glcuda_image *img, unsigned int plane,
	    const struct copy_options *o, CUstream stream, struct export *e,
	    const char *what)
{
	const struct cuda_plane *p = &img->planes[plane];
	const size_t row = (size_t)p->width * cuda_plane_bytes_per_pixel(p);
	struct linear_block b;
	int ret;

	ret = device_push_cuda(img->dev, what);
	if (ret < 0)
		return ret;
	ret = plane_pool(img, plane, row * p->height * cuda_plane_layers(p),
			 &e->pool);
	if (ret == 0)
		ret = tensor_pool_get(e->pool, &img->dev->errors, stream,
				      &e->block);
	if (ret == 0) {
		b.pointer = e->block;
		b.row_pitch = row;
		b.layer_pitch = row * p->height;
		ret = copy_into_block(img, plane, &b, o, stream, what);
		if (ret < 0) {
			tensor_pool_put(e->pool, e->block, stream);
			e->block = 0;
		}
	}
	device_pop_cuda(img->dev);
	return ret;
}

/* Hand over (when GL owns the image), copy, hand back: all on the stream,
 * with one push of the CUDA context. On failure the image keeps its owner
 * and *out is untouched. */
static int
export_image(struct glcuda_image *img, unsigned int plane,
	     const struct copy_options *o, CUstream stream, const char *what,
	     struct export **out)
{
	struct glcuda_device *dev;
	struct export *e;
	int ret;

	error_clear();
	if (!img)
		return device_fail(NULL, -EINVAL, "%s: img is NULL", what);
	dev = img->dev;
	if (img->kind != GLCUDA_IMAGE_KIND_SHARED)
		return device_fail(
			dev, -EINVAL,
			"%s: only shared images (glcuda_image_new) "
			"are exported; a wrapped image's plane can be copied "
			"with glcuda_image_copy_to_linear()",
			what);
	if (plane >= img->plane_count)
		return device_fail(dev, -EINVAL,
				   "%s: plane %u of an image with %u plane%s",
				   what, plane, img->plane_count,
				   img->plane_count == 1 ? "" : "s");
	if (img->private_flags & IMAGE_PRIVATE_RING_MANAGED)
		return device_fail(
			dev, -EINVAL,
			"%s: a ring frame's image is handed off "
			"by its frame; copy it with "
			"glcuda_image_copy_to_linear() "
			"between glcuda_frame_submit() and _complete()",
			what);
	if (img->owner == IMAGE_OWNER_CUDA_DONE)
		return device_fail(
			dev, GLCUDA_ERROR_BAD_STATE,
			"%s: the image waits for GL's half of a hand-back to "
			"GL, which failed; retry the hand-back first",
			what);
	if (o->depth.mode != GLCUDA_DEPTH_AS_STORED &&
	    !copy_plane_is_depth(img, plane))
		return device_fail(dev, -EINVAL,
				   "%s: depth.mode asks for distances of "
				   "plane %u, which is not a depth plane",
				   what, plane);
	ret = device_check_lost(dev, what);
	if (ret < 0)
		return ret;
	e = calloc(1, sizeof(*e));
	if (!e)
		return device_fail(dev, -ENOMEM, "%s: out of memory", what);
	e->stream = stream;

	ret = export_copy(img, plane, o, stream, e, what);
	if (ret < 0)
		goto fail;
	*out = e;
	return 0;

fail:
	if (e->block)
		tensor_pool_put(e->pool, e->block, stream);
	free(e);
	return ret;
}

static void
fill_tensor(const struct glcuda_image *img, unsigned int plane,
	    struct export *e, DLTensor *t)
{
	const struct cuda_plane *p = &img->planes[plane];

	t->data = (void *)(uintptr_t)e->block;
	t->device.device_type = kDLCUDA;
	t->device.device_id = img->dev->caps.cuda_ordinal;
	t->dtype = plane_dtype(p);
	t->ndim = plane_shape(p, e->shape, e->strides);
	t->shape = e->shape;
	t->strides = e->strides;
	t->byte_offset = 0;
}

/* The tensor of an export, versioned (DLPack 1.x) or not. */
static void
finish_versioned(struct glcuda_image *img, unsigned int plane,
		 struct export *e, DLManagedTensorVersioned **out)
{
	e->m.versioned.version.major = DLPACK_MAJOR_VERSION;
	e->m.versioned.version.minor = DLPACK_MINOR_VERSION;
	e->m.versioned.manager_ctx = e;
	e->m.versioned.deleter = delete_versioned;
	e->m.versioned.flags = DLPACK_FLAG_BITMASK_IS_COPIED;
	fill_tensor(img, plane, e, &e->m.versioned.dl_tensor);
	*out = &e->m.versioned;
}

static void
finish_unversioned(struct glcuda_image *img, unsigned int plane,
		   struct export *e, DLManagedTensor **out)
{
	e->m.unversioned.manager_ctx = e;
	e->m.unversioned.deleter = delete_unversioned;
	fill_tensor(img, plane, e, &e->m.unversioned.dl_tensor);
	*out = &e->m.unversioned;
}

/* Every member but `size`, in order (struct-size.c). */
static const struct member_span export_desc_members[] = {
	MEMBER_SPAN(struct glcuda_export_desc, plane),
	MEMBER_SPAN(struct glcuda_export_desc, stream),
	MEMBER_SPAN(struct glcuda_export_desc, origin),
	MEMBER_SPAN(struct glcuda_export_desc, depth),
};

STRUCT_SIZE_FIRST(struct glcuda_export_desc);
_Static_assert(STRUCT_SIZE_ENDS(struct glcuda_export_desc, depth),
	       "struct glcuda_export_desc: tail padding, or a new member");

/* An export with the caller's desc: its members read in and checked. */
static int
export_desc(struct glcuda_image *img, const struct glcuda_export_desc *desc,
	    const void *out, const char *what, struct glcuda_export_desc *d,
	    struct export **e)
{
	struct glcuda_device *dev = img ? img->dev : NULL;
	struct copy_options o;
	int ret;

	error_clear();
	if (!img || !desc || !out)
		return device_fail(dev, -EINVAL, "%s: %s is NULL", what,
				   !img ? "img" : !desc ? "desc" : "out");
	ret = struct_size_copy_in(dev, what, "glcuda_export_desc", desc,
				  export_desc_members,
				  ARRAY_LENGTH(export_desc_members), d,
				  sizeof(*d));
	if (ret == 0)
		ret = copy_options_check(dev, d->origin, &d->depth, what, &o);
	if (ret == 0)
		ret = export_image(img, d->plane, &o, d->stream, what, e);
	return ret;
}

GLCUDA_EXPORT int
glcuda_image_export_dlpack(struct glcuda_image *img, unsigned int plane,
			   CUstream stream, DLManagedTensorVersioned **out)
{
	const struct copy_options none = { 0 };
	struct export *e;
	int ret;

	if (!out)
		return device_fail(img ? img->dev : NULL, -EINVAL,
				   "glcuda_image_export_dlpack: out is NULL");
	ret = export_image(img, plane, &none, stream,
			   "glcuda_image_export_dlpack", &e);
	if (ret < 0)
		return ret;
	finish_versioned(img, plane, e, out);
	return 0;
}

GLCUDA_EXPORT int
glcuda_image_export_dlpack_unversioned(struct glcuda_image *img,
				       unsigned int plane, CUstream stream,
				       DLManagedTensor **out)
{
	const struct copy_options none = { 0 };
	struct export *e;
	int ret;

	if (!out)
		return device_fail(
			img ? img->dev : NULL, -EINVAL,
			"glcuda_image_export_dlpack_unversioned: out is NULL");
	ret = export_image(img, plane, &none, stream,
			   "glcuda_image_export_dlpack_unversioned", &e);
	if (ret < 0)
		return ret;
	finish_unversioned(img, plane, e, out);
	return 0;
}

GLCUDA_EXPORT int
glcuda_image_export_dlpack_desc(struct glcuda_image *img,
				const struct glcuda_export_desc *desc,
				DLManagedTensorVersioned **out)
{
	struct glcuda_export_desc d;
	struct export *e;
	int ret = export_desc(img, desc, out, "glcuda_image_export_dlpack_desc",
			      &d, &e);

	if (ret < 0)
		return ret;
	finish_versioned(img, d.plane, e, out);
	return 0;
}

GLCUDA_EXPORT int
glcuda_image_export_dlpack_unversioned_desc(
	struct glcuda_image *img, const struct glcuda_export_desc *desc,
	DLManagedTensor **out)
{
	struct glcuda_export_desc d;
	struct export *e;
	int ret = export_desc(img, desc, out,
			      "glcuda_image_export_dlpack_unversioned_desc",
			      &d, &e);

	if (ret < 0)
		return ret;
	finish_unversioned(img, d.plane, e, out);
	return 0;
}
