/*
 * glcuda-compositor: client buffers to GL textures, every path.
 *
 * A wl_shm buffer's damaged pixels are copied into the surface's texture,
 * or for a large buffer a column of textures (struct strips), at once
 * (texture_upload_shm); a copy larger than UPLOAD_BYTES_PER_REFRESH is
 * spread over refreshes instead (texture_upload_begin/step/finish), so
 * that one client's huge buffer does not stall the others' frames.
 *
 * A dma-buf buffer's EGLImage (dmabuf.c imports it) becomes a texture
 * that samples it in place: no copy (texture_set_dmabuf).
 *
 * The protocol side (which buffer, which damage, errors, releases) is
 * surface.c's: nothing here speaks to a client.
 * SPDX-License-Identifier: MIT
 */
#include "buffer/buffer.h"
#include "comp.h"
#include "surface/surface.h"

#include <string.h>

/* A texture with immutable storage for w x h pixels. */
static GLuint
texture_new(struct comp *c, int32_t w, int32_t h)
{
	GLuint tex;

	glGenTextures(1, &tex);
	c->textures_alive++;
	glBindTexture(GL_TEXTURE_2D, tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	glBindTexture(GL_TEXTURE_2D, 0);
	return tex;
}

/* Strips for a w x h shm buffer, none made yet: one when the buffer is
 * small, else as many rows each as UPLOAD_BYTES_PER_REFRESH holds. */
static void
strips_init(struct strips *st, int32_t w, int32_t h)
{
	uint64_t row_bytes = (uint64_t)w * 4;

	memset(st, 0, sizeof(*st));
	st->rows = row_bytes * (uint64_t)h <= UPLOAD_BYTES_PER_REFRESH ? h
		   : (int32_t)(UPLOAD_BYTES_PER_REFRESH / row_bytes);
	st->rows = st->rows < 1 ? 1 : st->rows;
	/* 8192 rows of at least 256 (8192 x 4 bytes per row): 32. */
	st->n = (h + st->rows - 1) / st->rows;
}

static int32_t
strip_height(const struct strips *st, int i, int32_t h)
{
	return i == st->n - 1 ? h - i * st->rows : st->rows;
}

/* Strip i of a w x h buffer, made if it was not. */
static GLuint
strip_get(struct comp *c, struct strips *st, int i, int32_t w, int32_t h)
{
	if (!st->tex[i])
		st->tex[i] = texture_new(c, w, strip_height(st, i, h));
	return st->tex[i];
}

static void
strips_free(struct comp *c, struct strips *st)
{
	for (int i = 0; i < st->n; i++)
		if (st->tex[i]) {
			glDeleteTextures(1, &st->tex[i]);
			c->textures_alive--;
		}
	memset(st, 0, sizeof(*st));
}

/* Rectangles of the buffer into the strips, each from its place in the
 * buffer: the row length is the stride, the skips its corner. Uploaded as
 * RGBA bytes: the shader swizzles BGRA (the memory order of ARGB8888 on
 * little-endian) back, so no GL extension is needed. begin/end_access
 * turn a SIGBUS from a pool the client shrank into a protocol error
 * instead of a crash. The unpack state is GL's default again afterwards,
 * for whoever uploads next. */
static void
upload_rects(struct comp *c, struct strips *st, struct wl_shm_buffer *shm,
	     const struct rect *r, int n)
{
	int32_t w = wl_shm_buffer_get_width(shm),
		h = wl_shm_buffer_get_height(shm);

	glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
	glPixelStorei(GL_UNPACK_ROW_LENGTH, wl_shm_buffer_get_stride(shm) / 4);
	wl_shm_buffer_begin_access(shm);
	for (int i = 0; i < n; i++) {
		/* The strips the rectangle crosses, each its part. */
		for (int k = r[i].y / st->rows;
		     k < st->n && k * st->rows < r[i].y + r[i].h; k++) {
			int32_t y0 = k * st->rows,
				y1 = y0 + strip_height(st, k, h);
			int32_t ry0 = r[i].y > y0 ? r[i].y : y0;
			int32_t ry1 =
				r[i].y + r[i].h < y1 ? r[i].y + r[i].h : y1;

			glBindTexture(GL_TEXTURE_2D, strip_get(c, st, k, w, h));
			glPixelStorei(GL_UNPACK_SKIP_PIXELS, r[i].x);
			glPixelStorei(GL_UNPACK_SKIP_ROWS, ry0);
			glTexSubImage2D(GL_TEXTURE_2D, 0, r[i].x, ry0 - y0,
					r[i].w, ry1 - ry0, GL_RGBA,
					GL_UNSIGNED_BYTE,
					wl_shm_buffer_get_data(shm));
		}
	}
	wl_shm_buffer_end_access(shm);
	glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
	glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
	glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
	glBindTexture(GL_TEXTURE_2D, 0);
}

/* The surface now shows a shm buffer from the strips st (moved in). */
static void
surface_set_shm_strips(struct surface *s, struct strips *st,
		       struct wl_shm_buffer *shm)
{
	if (st != &s->tex) {
		strips_free(s->comp, &s->tex);
		s->tex = *st;
		memset(st, 0, sizeof(*st));
	}
	s->tex_image = false;
	s->tex_width = s->buffer_width = (uint32_t)wl_shm_buffer_get_width(shm);
	s->tex_height = s->buffer_height =
		(uint32_t)wl_shm_buffer_get_height(shm);
	s->opaque = wl_shm_buffer_get_format(shm) == WL_SHM_FORMAT_XRGB8888;
	s->has_content = true;
}

/* Whether the surface's strips can take a w x h buffer's damage: they
 * exist, are the size, are not a dma-buf's and hold content. */
static bool
strips_reusable(const struct surface *s, int32_t w, int32_t h)
{
	return s->tex.n && !s->tex_image && s->has_content &&
	       s->tex_width == (uint32_t)w && s->tex_height == (uint32_t)h;
}

void
texture_upload_shm(struct surface *s, struct wl_shm_buffer *shm,
		   const struct damage *damage)
{
	int32_t w = wl_shm_buffer_get_width(shm),
		h = wl_shm_buffer_get_height(shm);
	struct strips fresh;

	if (strips_reusable(s, w, h)) {
		upload_rects(s->comp, &s->tex, shm, damage->r, damage->n);
		surface_set_shm_strips(s, &s->tex, shm);
		return;
	}
	/* Immutable storage: new textures when the size changes. They hold
	 * no content that undamaged parts could keep. */
	strips_init(&fresh, w, h);
	upload_rects(s->comp, &fresh, shm, &(struct rect){ 0, 0, w, h }, 1);
	surface_set_shm_strips(s, &fresh, shm);
}

uint64_t
texture_upload_bytes(const struct surface *s, struct wl_shm_buffer *shm,
		     const struct damage *damage)
{
	int32_t w = wl_shm_buffer_get_width(shm),
		h = wl_shm_buffer_get_height(shm);
	uint64_t bytes = 0;

	if (!strips_reusable(s, w, h))
		return (uint64_t)w * (uint64_t)h * 4;
	for (int i = 0; i < damage->n; i++)
		bytes +=
			(uint64_t)damage->r[i].w * (uint64_t)damage->r[i].h * 4;
	return bytes;
}

void
texture_upload_begin(struct surface *s, struct wl_shm_buffer *shm)
{
	strips_init(&s->upload->strips, wl_shm_buffer_get_width(shm),
		    wl_shm_buffer_get_height(shm));
	s->upload->row = 0;
}

bool
texture_upload_step(struct surface *s, struct wl_shm_buffer *shm,
		    uint64_t *budget)
{
	struct upload *u = s->upload;
	uint32_t w = (uint32_t)wl_shm_buffer_get_width(shm);
	uint32_t h = (uint32_t)wl_shm_buffer_get_height(shm);
	uint32_t rows = (uint32_t)(*budget / ((uint64_t)w * 4));
	/* Not past the strip's end: at most one strip made a step. */
	uint32_t end = ((u->row / (uint32_t)u->strips.rows) + 1) *
		       (uint32_t)u->strips.rows;

	end = end > h ? h : end;
	if (rows < 1)
		rows = 1;
	else if (rows > end - u->row)
		rows = end - u->row;
	upload_rects(s->comp, &u->strips, shm,
		     &(struct rect){ 0, (int32_t)u->row, (int32_t)w,
				     (int32_t)rows },
		     1);
	*budget -= *budget < (uint64_t)rows * w * 4 ? *budget
						    : (uint64_t)rows * w * 4;
	u->row += rows;
	return u->row == h;
}

void
texture_upload_finish(struct surface *s, struct wl_shm_buffer *shm)
{
	surface_set_shm_strips(s, &s->upload->strips, shm);
}

void
texture_upload_cancel(struct surface *s)
{
	strips_free(s->comp, &s->upload->strips);
}

bool
texture_set_dmabuf(struct surface *s, const struct dmabuf_buffer *b)
{
	GLuint tex = 0;

	while (glGetError() != GL_NO_ERROR)
		;
	glGenTextures(1, &tex);
	glBindTexture(GL_TEXTURE_2D, tex);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	glEGLImageTargetTexture2DOES(GL_TEXTURE_2D, (GLeglImageOES)b->image);
	glBindTexture(GL_TEXTURE_2D, 0);
	if (glGetError() != GL_NO_ERROR) {
		glDeleteTextures(1, &tex);
		return false;
	}
	strips_free(s->comp, &s->tex);
	s->tex.n = 1;
	s->tex.rows = b->height;
	s->tex.tex[0] = tex;
	s->comp->textures_alive++;
	s->tex_image = true;
	s->tex_width = s->buffer_width = (uint32_t)b->width;
	s->tex_height = s->buffer_height = (uint32_t)b->height;
	s->opaque = b->opaque;
	s->has_content = true;
	return true;
}

void
texture_surface_fini(struct surface *s)
{
	if (s->upload)
		strips_free(s->comp, &s->upload->strips);
	strips_free(s->comp, &s->tex);
}
