/*
 * glcuda-compositor: wl_region, a pixman region (as weston and wlroots
 * keep them). Surfaces copy a region when it is set as their input or
 * opaque region (surface.c): the wl_region may be destroyed or changed
 * afterwards without changing theirs.
 * SPDX-License-Identifier: MIT
 */
#include "surface/surface.h"
#include "resource.h"

#include <stdint.h>
#include <stdlib.h>

static pixman_region32_t *
region_get(struct wl_resource *resource)
{
	return wl_resource_get_user_data(resource);
}

static void
region_add(struct wl_client *client, struct wl_resource *resource,
	   int32_t x, int32_t y, int32_t w, int32_t h)
{
	pixman_region32_t *r = region_get(resource);

	/* A rectangle of no area adds nothing (pixman would make it an
	 * empty box all the same; a negative size would wrap). */
	if (w <= 0 || h <= 0)
		return;
	pixman_region32_union_rect(r, r, x, y, (unsigned int)w,
				   (unsigned int)h);
}

static void
region_subtract(struct wl_client *client, struct wl_resource *resource,
		int32_t x, int32_t y, int32_t w, int32_t h)
{
	pixman_region32_t *r = region_get(resource), rect;

	if (w <= 0 || h <= 0)
		return;
	pixman_region32_init_rect(&rect, x, y, (unsigned int)w,
				  (unsigned int)h);
	pixman_region32_subtract(r, r, &rect);
	pixman_region32_fini(&rect);
}

static const struct wl_region_interface region_impl = {
	.destroy = resource_destroy_request,
	.add = region_add,
	.subtract = region_subtract,
};

static void
region_destroyed(struct wl_resource *resource)
{
	pixman_region32_t *r = region_get(resource);

	pixman_region32_fini(r);
	free(r);
}

void
region_create(struct wl_client *client, int version, uint32_t id)
{
	pixman_region32_t *r = malloc(sizeof(*r));

	if (!r) {
		wl_client_post_no_memory(client);
		return;
	}
	pixman_region32_init(r);
	if (!resource_new(client, &wl_region_interface, version, id,
			  &region_impl, r, region_destroyed)) {
		pixman_region32_fini(r);
		free(r);
	}
}

void
region_copy(pixman_region32_t *dst, struct wl_resource *resource)
{
	pixman_region32_copy(dst, region_get(resource));
}

void
region_init_infinite(pixman_region32_t *r)
{
	/* What weston does: pixman's coordinates are int32_t, its box the
	 * whole of them. */
	pixman_region32_init_rect(r, INT32_MIN, INT32_MIN, UINT32_MAX,
				  UINT32_MAX);
}
