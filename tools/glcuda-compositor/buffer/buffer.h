/*
 * glcuda-compositor's client buffers: dma-bufs imported as EGLImages
 * (dmabuf.c, zwp_linux_dmabuf_v1) and every path from a client buffer to
 * a surface's GL textures (texture.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_BUFFER_H
#define GLCUDA_COMPOSITOR_BUFFER_H

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <stdbool.h>
#include <stdint.h>

#include <wayland-server-core.h>

struct comp;
struct damage;
struct surface;

/* dmabuf.c */
/* An imported dma-buf buffer: its EGLImage holds the memory. */
struct dmabuf_buffer {
	struct comp *comp;
	struct wl_resource *resource;
	EGLImageKHR image;
	int32_t width, height;
	bool opaque;                    /* XRGB8888: alpha ignored */
};
/* Advertise zwp_linux_dmabuf_v1 if EGL and GL can import dma-bufs; false
 * only on failure (not when they cannot). */
bool dmabuf_init(struct comp *c);
/* The dma-buf buffer of a wl_buffer resource, NULL if it is not one. */
struct dmabuf_buffer *dmabuf_buffer_get(struct wl_resource *resource);

/* texture.c: client buffers to GL textures. */
/* Copy the damage (buffer coordinates, clipped) of a checked shm buffer
 * into the surface's strips at once; all of the buffer when the strips
 * cannot take it (none yet, another size, a dma-buf's). */
void texture_upload_shm(struct surface *s, struct wl_shm_buffer *shm,
			const struct damage *damage);
/* The bytes texture_upload_shm would copy. */
uint64_t texture_upload_bytes(const struct surface *s,
			      struct wl_shm_buffer *shm,
			      const struct damage *damage);
/* A large upload into s->upload's strips, all of the buffer: begun (once
 * s->upload is set), then a step
 * at each refresh within *budget bytes (at least one row; true once the
 * last row is in), then finished (the surface shows it) or cancelled. */
void texture_upload_begin(struct surface *s, struct wl_shm_buffer *shm);
bool texture_upload_step(struct surface *s, struct wl_shm_buffer *shm,
			 uint64_t *budget);
void texture_upload_finish(struct surface *s, struct wl_shm_buffer *shm);
void texture_upload_cancel(struct surface *s);
/* The surface samples the buffer's EGLImage in place; false on a GL
 * error (the surface keeps what it showed). */
bool texture_set_dmabuf(struct surface *s, const struct dmabuf_buffer *b);
/* The surface's textures, and those of an upload in progress, freed. */
void texture_surface_fini(struct surface *s);

#endif
