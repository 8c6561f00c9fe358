/*
 * glcuda_copy_linear(): a batch of images handed to CUDA, copied between
 * their planes and linear device memory, and handed back to GL, all on one
 * stream with one push of the CUDA context: the sequence the Python
 * binding's copies, the DLPack export and the GStreamer element's frames
 * make.
 * SPDX-License-Identifier: MIT
 */
#include "copy.h"
#include "handoff.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Every member but `size`, in order (struct-size.c): a member appended to
 * struct glcuda_copy_desc is appended here too. */
static const struct member_span copy_desc_members[] = {
	MEMBER_SPAN(struct glcuda_copy_desc, copies),
	MEMBER_SPAN(struct glcuda_copy_desc, copy_count),
	MEMBER_SPAN(struct glcuda_copy_desc, image_count),
	MEMBER_SPAN(struct glcuda_copy_desc, images),
	MEMBER_SPAN(struct glcuda_copy_desc, stream),
	MEMBER_SPAN(struct glcuda_copy_desc, enqueue),
	MEMBER_SPAN(struct glcuda_copy_desc, enqueue_data),
	MEMBER_SPAN(struct glcuda_copy_desc, origin),
	MEMBER_SPAN(struct glcuda_copy_desc, depth),
};

STRUCT_SIZE_FIRST(struct glcuda_copy_desc);
_Static_assert(STRUCT_SIZE_ENDS(struct glcuda_copy_desc, depth),
	       "struct glcuda_copy_desc: tail padding, or a new member");

/* The batch's distinct images: those of the copies, then the desc's. */
struct batch_images {
	struct glcuda_image *list[SYNC_MAX_IMAGES];
	unsigned int count;
};

static int
add_image(struct glcuda_device *dev, struct batch_images *b,
	  struct glcuda_image *img, const char *what, const char *where,
	  unsigned int i)
{
	if (!img)
		return device_fail(dev, -EINVAL, "%s: %s[%u] is NULL", what,
				   where, i);
	if (img->dev != dev)
		return device_fail(dev, GLCUDA_ERROR_WRONG_DEVICE,
				   "%s: the image of %s[%u] belongs to "
				   "another glcuda device",
				   what, where, i);
	for (unsigned int j = 0; j < b->count; j++)
		if (b->list[j] == img)
			return 0;
	if (b->count == SYNC_MAX_IMAGES)
		return device_fail(dev, -EINVAL,
				   "%s: more than %d distinct images "
				   "(GLCUDA_HANDOFF_MAX_IMAGES)",
				   what, SYNC_MAX_IMAGES);
	b->list[b->count++] = img;
	return 0;
}

/* The checks of the batch, before anything is enqueued, then the split of
 * its images for the hand-off. */
static int
check_batch(struct glcuda_device *dev, const struct glcuda_copy_desc *d,
	    const char *what, struct batch_images *b, struct copy_options *o,
	    struct image_handoff *h)
{
	char where[96];
	int ret;

	b->count = 0;
	ret = copy_options_check(dev, d->origin, &d->depth, what, o);
	if (ret < 0)
		return ret;
	if (d->copy_count > 0 && !d->copies)
		return device_fail(dev, -EINVAL,
				   "%s: desc.copies is NULL with a count of %u",
				   what, d->copy_count);
	if (d->image_count > 0 && !d->images)
		return device_fail(dev, -EINVAL,
				   "%s: desc.images is NULL with a count of %u",
				   what, d->image_count);
	if (d->copy_count == 0 && d->image_count == 0)
		return device_fail(dev, -EINVAL,
				   "%s: no copy and no image in the batch",
				   what);
	for (unsigned int i = 0; i < d->copy_count; i++) {
		const struct glcuda_linear_copy *c = &d->copies[i];
		const struct linear_block block = { c->linear, c->row_pitch,
						    c->layer_pitch };

		ret = add_image(dev, b, c->image, what, "copies", i);
		if (ret < 0)
			return ret;
		if (c->direction != GLCUDA_COPY_TO_LINEAR &&
		    c->direction != GLCUDA_COPY_FROM_LINEAR)
			return device_fail(dev, -EINVAL,
					   "%s: copies[%u]: direction %d is "
					   "neither GLCUDA_COPY_TO_LINEAR nor "
					   "GLCUDA_COPY_FROM_LINEAR",
					   what, i, (int)c->direction);
		snprintf(where, sizeof(where), "%s: copies[%u]", what, i);
		ret = copy_check_layout(c->image, c->plane, c->layer, &block,
					where);
		if (ret < 0)
			return ret;
		if (c->direction == GLCUDA_COPY_FROM_LINEAR &&
		    o->depth.mode != GLCUDA_DEPTH_AS_STORED &&
		    copy_plane_is_depth(c->image, c->plane))
			return device_fail(dev, -EINVAL,
					   "%s: a copy into depth plane %u "
					   "with desc.depth set: distances "
					   "are not converted back to depth; "
					   "copy it in a batch without "
					   "desc.depth",
					   where, c->plane);
	}
	for (unsigned int i = 0; i < d->image_count; i++) {
		ret = add_image(dev, b, d->images[i], what, "images", i);
		if (ret < 0)
			return ret;
	}
	return handoff_begin(dev, b->list, b->count, IMAGE_OWNER_GL, what, h);
}

/* The copies of one direction, in the array's order, until one fails. */
static int
enqueue_copies(const struct glcuda_copy_desc *d, const struct copy_options *o,
	       enum glcuda_copy_direction direction, const char *what)
{
	int ret;

	for (unsigned int i = 0; i < d->copy_count; i++) {
		const struct glcuda_linear_copy *c = &d->copies[i];
		const struct linear_block block = { c->linear, c->row_pitch,
						    c->layer_pitch };

		if (c->direction != direction)
			continue;
		/* Never before the hand-off: the copy would not wait for
		 * GL's work on the image. */
		if (c->image->owner != IMAGE_OWNER_CUDA)
			return device_fail(c->image->dev,
					   GLCUDA_ERROR_BAD_STATE,
					   "%s: copies[%u]: the image is not "
					   "handed to CUDA",
					   what, i);
		ret = copy_enqueue(c->image, c->plane, c->layer, &block,
				   direction == GLCUDA_COPY_TO_LINEAR, o,
				   d->stream, what);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Step 3 of glcuda_copy_linear(): the caller's callback, if any. */
static int
enqueue_callback(struct glcuda_device *dev, const struct glcuda_copy_desc *d,
		 const char *what)
{
	int ret;

	if (!d->enqueue)
		return 0;
	ret = d->enqueue(d->enqueue_data, d->stream);
	if (ret > 0)
		ret = -EINVAL;
	if (ret < 0)
		return device_fail(dev, ret, "%s: desc.enqueue failed (%d: %s)",
				   what, ret, glcuda_strerror(ret));
	return 0;
}

/* Steps 1 to 5, the batch checked and the CUDA context pushed. */
static int
run_batch(struct glcuda_device *dev, const struct glcuda_copy_desc *d,
	  const struct copy_options *o, const char *what,
	  struct batch_images *b, struct image_handoff *h)
{
	char first[sizeof(dev->errors.last_error)];
	int ret;

	ret = handoff_to_cuda_pushed(dev, b->list, b->count, h, d->stream);
	if (ret < 0)
		return ret;
	ret = enqueue_copies(d, o, GLCUDA_COPY_FROM_LINEAR, what);
	if (ret == 0)
		ret = enqueue_callback(dev, d, what);
	if (ret == 0)
		ret = enqueue_copies(d, o, GLCUDA_COPY_TO_LINEAR, what);
	if (ret == 0)
		return handoff_to_gl_pushed(dev, b->list, b->count, h,
					    d->stream);
	/* Back to GL whatever the work did, the first error kept. */
	memcpy(first, dev->errors.last_error, sizeof(first));
	if (handoff_to_gl_pushed(dev, b->list, b->count, h, d->stream) < 0)
		device_fail(dev, ret, "%s", first);
	return ret;
}

int
copy_batch_pushed(struct glcuda_device *dev, const struct glcuda_copy_desc *d,
		  const char *what)
{
	struct batch_images b;
	struct copy_options o;
	struct image_handoff h;
	int ret = check_batch(dev, d, what, &b, &o, &h);

	return ret < 0 ? ret : run_batch(dev, d, &o, what, &b, &h);
}

GLCUDA_EXPORT int
glcuda_copy_linear(struct glcuda_device *dev,
		   const struct glcuda_copy_desc *desc)
{
	const char *what = "glcuda_copy_linear";
	struct glcuda_copy_desc d;
	struct batch_images b;
	struct copy_options o;
	struct image_handoff h;
	int ret;

	error_clear();
	if (!dev || !desc)
		return device_fail(dev, -EINVAL, "%s: %s is NULL", what,
				   !dev ? "dev" : "desc");
	ret = struct_size_copy_in(dev, what, "glcuda_copy_desc", desc,
				  copy_desc_members,
				  ARRAY_LENGTH(copy_desc_members), &d,
				  sizeof(d));
	if (ret < 0)
		return ret;
	ret = check_batch(dev, &d, what, &b, &o, &h);
	if (ret < 0)
		return ret;
	/* One push for the whole batch (doc/design.md, "The CUDA
	 * context"). */
	ret = device_push_cuda(dev, what);
	if (ret < 0)
		return ret;
	ret = run_batch(dev, &d, &o, what, &b, &h);
	device_pop_cuda(dev);
	return ret;
}
