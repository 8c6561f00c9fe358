/*
 * glcuda-compositor: wl_compositor, wl_surface, wl_region and a minimal
 * wl_subcompositor. Buffers are wl_shm only (ARGB8888 and XRGB8888): the
 * pixels are copied into the surface's GL texture at commit and the buffer
 * released at once, so a client may reuse it as soon as it likes.
 * SPDX-License-Identifier: MIT
 */
#include "compositor.h"

#include <stdlib.h>
#include <string.h>

#include "presentation-time-server-protocol.h"
#include "xdg-shell-server-protocol.h"

static void
resource_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

/* A callback or feedback in one of our lists: unlink it when the client
 * goes away or it has been sent. */
static void
unlink_resource(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void
pending_buffer_gone(struct wl_listener *listener, void *data)
{
	struct surface *s = wl_container_of(listener, s, pending_buffer_destroy);

	/* The client destroyed an attached buffer before the commit: the
	 * commit then attaches nothing (as if NULL). */
	s->pending_buffer = NULL;
	wl_list_remove(&s->pending_buffer_destroy.link);
	wl_list_init(&s->pending_buffer_destroy.link);
}

static void
surface_attach(struct wl_client *client, struct wl_resource *resource,
	       struct wl_resource *buffer, int32_t x, int32_t y)
{
	struct surface *s = surface_from_resource(resource);

	wl_list_remove(&s->pending_buffer_destroy.link);
	wl_list_init(&s->pending_buffer_destroy.link);
	s->pending_buffer = buffer;
	s->pending_attached = true;
	if (buffer)
		wl_resource_add_destroy_listener(buffer, &s->pending_buffer_destroy);
}

static void
surface_damage(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y,
	       int32_t w, int32_t h)
{
	/* Damage is whole-surface: every commit with a buffer uploads all of
	 * it (cheap at the sizes of a headless output). */
}

static void
surface_frame(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct surface *s = surface_from_resource(resource);
	struct wl_resource *cb = wl_resource_create(client, &wl_callback_interface, 1, id);

	if (!cb) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(cb, NULL, NULL, unlink_resource);
	wl_list_insert(s->pending_frames.prev, wl_resource_get_link(cb));
}

static void
surface_set_region(struct wl_client *client, struct wl_resource *resource,
		   struct wl_resource *region)
{
	/* Opaque and input regions: no input devices, and blending is cheap. */
}

/* Copy a shm buffer into the surface's texture. Errors are the client's:
 * a protocol error, the surface keeps its previous content. */
static bool
upload_shm(struct surface *s, struct wl_resource *buffer)
{
	struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer);
	int32_t w, h, stride;
	uint32_t format;

	if (!shm) {
		/* Only wl_shm is advertised: anything else is a client bug. */
		wl_resource_post_error(s->resource, WL_DISPLAY_ERROR_INVALID_OBJECT,
				       "buffer is not a wl_shm buffer");
		return false;
	}
	w = wl_shm_buffer_get_width(shm);
	h = wl_shm_buffer_get_height(shm);
	stride = wl_shm_buffer_get_stride(shm);
	format = wl_shm_buffer_get_format(shm);
	if (format != WL_SHM_FORMAT_ARGB8888 && format != WL_SHM_FORMAT_XRGB8888) {
		wl_resource_post_error(buffer, WL_SHM_ERROR_INVALID_FORMAT,
				       "format 0x%08x is not ARGB8888 or XRGB8888", format);
		return false;
	}
	if (w <= 0 || h <= 0 || stride < w * 4 || stride % 4) {
		wl_resource_post_error(buffer, WL_SHM_ERROR_INVALID_STRIDE,
				       "buffer %dx%d with stride %d", w, h, stride);
		return false;
	}
	if (w % s->scale || h % s->scale) {
		wl_resource_post_error(s->resource, WL_SURFACE_ERROR_INVALID_SIZE,
				       "buffer %dx%d is not a multiple of the scale %d", w, h,
				       s->scale);
		return false;
	}
	if (w > 8192 || h > 8192) {
		wl_resource_post_error(s->resource, WL_SURFACE_ERROR_INVALID_SIZE,
				       "buffer %dx%d is larger than 8192x8192", w, h);
		return false;
	}
	if (!s->texture || s->tex_width != (uint32_t)w || s->tex_height != (uint32_t)h) {
		/* Immutable storage: a new texture when the size changes. */
		if (s->texture) {
			glDeleteTextures(1, &s->texture);
			s->comp->textures_alive--;
		}
		glGenTextures(1, &s->texture);
		s->comp->textures_alive++;
		glBindTexture(GL_TEXTURE_2D, s->texture);
		glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
		s->tex_width = (uint32_t)w;
		s->tex_height = (uint32_t)h;
	} else {
		glBindTexture(GL_TEXTURE_2D, s->texture);
	}
	/* Uploaded as RGBA bytes: the shader swizzles BGRA (the memory order
	 * of ARGB8888 on little-endian) back, so no GL extension is needed.
	 * begin/end_access turn a SIGBUS from a pool the client shrank into
	 * a protocol error instead of a crash. */
	glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
	glPixelStorei(GL_UNPACK_ROW_LENGTH, stride / 4);
	wl_shm_buffer_begin_access(shm);
	glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE,
			wl_shm_buffer_get_data(shm));
	wl_shm_buffer_end_access(shm);
	glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
	glBindTexture(GL_TEXTURE_2D, 0);
	s->buffer_width = (uint32_t)w;
	s->buffer_height = (uint32_t)h;
	s->opaque = format == WL_SHM_FORMAT_XRGB8888;
	s->has_content = true;
	return true;
}

static void
surface_commit(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *s = surface_from_resource(resource);
	struct wl_resource *buffer = s->pending_buffer;

	s->scale = s->pending_scale;
	if (s->pending_attached) {
		if (buffer && s->xdg_surface && !s->configured) {
			wl_resource_post_error(s->xdg_surface,
					       XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
					       "buffer attached before the first configure was acked");
			return;
		}
		if (buffer) {
			if (!upload_shm(s, buffer))
				return;
			/* Copied: the client may reuse it now. */
			wl_buffer_send_release(buffer);
		} else {
			s->has_content = false;
		}
		wl_list_remove(&s->pending_buffer_destroy.link);
		wl_list_init(&s->pending_buffer_destroy.link);
		s->pending_buffer = NULL;
		s->pending_attached = false;
	}
	wl_list_insert_list(s->frames.prev, &s->pending_frames);
	wl_list_init(&s->pending_frames);
	wl_list_insert_list(s->feedback.prev, &s->pending_feedback);
	wl_list_init(&s->pending_feedback);
	if (s->xdg_surface)
		shell_surface_commit(s);
	s->comp->damaged = true;
}

static void
surface_set_buffer_transform(struct wl_client *client, struct wl_resource *resource,
			     int32_t transform)
{
	if (transform != WL_OUTPUT_TRANSFORM_NORMAL)
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_TRANSFORM,
				       "only the normal transform is supported");
}

static void
surface_set_buffer_scale(struct wl_client *client, struct wl_resource *resource, int32_t scale)
{
	struct surface *s = surface_from_resource(resource);

	if (scale < 1) {
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_SCALE,
				       "scale %d is not positive", scale);
		return;
	}
	s->pending_scale = scale;
}

static const struct wl_surface_interface surface_impl = {
	.destroy = resource_destroy,
	.attach = surface_attach,
	.damage = surface_damage,
	.frame = surface_frame,
	.set_opaque_region = surface_set_region,
	.set_input_region = surface_set_region,
	.commit = surface_commit,
	.set_buffer_transform = surface_set_buffer_transform,
	.set_buffer_scale = surface_set_buffer_scale,
	.damage_buffer = surface_damage,
};

static void
destroy_all(struct wl_list *list)
{
	struct wl_resource *r, *tmp;

	/* wl_resource_destroy runs unlink_resource. */
	wl_resource_for_each_safe(r, tmp, list)
		wl_resource_destroy(r);
}

static void
surface_destroyed(struct wl_resource *resource)
{
	struct surface *s = surface_from_resource(resource);

	/* The client destroyed it or went away, perhaps while a frame with
	 * it is in the ring: the ring holds its own copy of the pixels, so
	 * only our texture and lists go. */
	shell_surface_destroyed(s);
	wl_list_remove(&s->link);
	wl_list_remove(&s->pending_buffer_destroy.link);
	destroy_all(&s->pending_frames);
	destroy_all(&s->frames);
	destroy_all(&s->pending_feedback);
	feedback_discard_all(&s->feedback);
	if (s->texture) {
		glDeleteTextures(1, &s->texture);
		s->comp->textures_alive--;
	}
	s->comp->surfaces_alive--;
	s->comp->damaged = true;
	free(s);
}

struct surface *
surface_from_resource(struct wl_resource *resource)
{
	return wl_resource_get_user_data(resource);
}

static void
compositor_create_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct comp *c = wl_resource_get_user_data(resource);
	struct surface *s = calloc(1, sizeof(*s));

	if (!s) {
		wl_client_post_no_memory(client);
		return;
	}
	s->resource = wl_resource_create(client, &wl_surface_interface,
					 wl_resource_get_version(resource), id);
	if (!s->resource) {
		free(s);
		wl_client_post_no_memory(client);
		return;
	}
	s->comp = c;
	s->scale = s->pending_scale = 1;
	wl_list_init(&s->pending_frames);
	wl_list_init(&s->frames);
	wl_list_init(&s->pending_feedback);
	wl_list_init(&s->feedback);
	wl_list_init(&s->pending_buffer_destroy.link);
	s->pending_buffer_destroy.notify = pending_buffer_gone;
	wl_list_insert(c->surfaces.prev, &s->link);
	c->surfaces_alive++;
	wl_resource_set_implementation(s->resource, &surface_impl, s, surface_destroyed);
}

static void
region_add(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y,
	   int32_t w, int32_t h)
{
}

static const struct wl_region_interface region_impl = {
	.destroy = resource_destroy,
	.add = region_add,
	.subtract = region_add,
};

static void
compositor_create_region(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct wl_resource *r = wl_resource_create(client, &wl_region_interface,
						   wl_resource_get_version(resource), id);

	if (!r) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(r, &region_impl, NULL, NULL);
}

static const struct wl_compositor_interface compositor_impl = {
	.create_surface = compositor_create_surface,
	.create_region = compositor_create_region,
};

static void
bind_compositor(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *r = wl_resource_create(client, &wl_compositor_interface, version, id);

	if (!r) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(r, &compositor_impl, data, NULL);
}

/* Subsurfaces: the objects exist so that toolkits that make them work,
 * but their content is not composited (a first milestone). */
static void
subsurface_set_position(struct wl_client *client, struct wl_resource *resource, int32_t x,
			int32_t y)
{
}

static void
subsurface_place(struct wl_client *client, struct wl_resource *resource,
		 struct wl_resource *sibling)
{
}

static void
subsurface_noop(struct wl_client *client, struct wl_resource *resource)
{
}

static const struct wl_subsurface_interface subsurface_impl = {
	.destroy = resource_destroy,
	.set_position = subsurface_set_position,
	.place_above = subsurface_place,
	.place_below = subsurface_place,
	.set_sync = subsurface_noop,
	.set_desync = subsurface_noop,
};

static void
subcompositor_get_subsurface(struct wl_client *client, struct wl_resource *resource,
			     uint32_t id, struct wl_resource *surface,
			     struct wl_resource *parent)
{
	struct wl_resource *r;

	if (surface == parent) {
		wl_resource_post_error(resource, WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE,
				       "a surface cannot be its own parent");
		return;
	}
	r = wl_resource_create(client, &wl_subsurface_interface, 1, id);
	if (!r) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(r, &subsurface_impl, NULL, NULL);
}

static const struct wl_subcompositor_interface subcompositor_impl = {
	.destroy = resource_destroy,
	.get_subsurface = subcompositor_get_subsurface,
};

static void
bind_subcompositor(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *r = wl_resource_create(client, &wl_subcompositor_interface, 1, id);

	if (!r) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(r, &subcompositor_impl, data, NULL);
}

bool
compositor_globals_init(struct comp *c)
{
	/* Version 4: damage_buffer; not 5 (wl_surface.offset). */
	return wl_global_create(c->display, &wl_compositor_interface, 4, c, bind_compositor) &&
	       wl_global_create(c->display, &wl_subcompositor_interface, 1, c,
				bind_subcompositor);
}
