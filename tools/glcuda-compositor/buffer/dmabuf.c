/*
 * glcuda-compositor: zwp_linux_dmabuf_v1, version 3 (formats and
 * modifiers as events; no feedback objects). Advertised only when the EGL
 * display imports dma-bufs (EGL_EXT_image_dma_buf_import) and GL can make
 * a texture of an EGLImage (GL_OES_EGL_image); the modifiers come from
 * EGL_EXT_image_dma_buf_import_modifiers where it exists, else only the
 * implicit one (DRM_FORMAT_MOD_INVALID) is offered.
 *
 * A buffer is imported at creation (eglCreateImageKHR with
 * EGL_LINUX_DMA_BUF_EXT; the fds are closed after it, the image holds the
 * memory), and a surface samples it through a texture made with
 * glEGLImageTargetTexture2DOES (texture.c): no copy. Such a buffer stays the
 * compositor's until another buffer replaces it on the surface.
 * SPDX-License-Identifier: MIT
 */
#include "buffer/buffer.h"
#include "comp.h"
#include "resource.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux-dmabuf-unstable-v1-server-protocol.h"

/* drm_fourcc.h's, without a libdrm dependency. */
#define FOURCC(a, b, c, d)                                          \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | \
	 (uint32_t)(d) << 24)
#define DRM_FORMAT_ARGB8888 FOURCC('A', 'R', '2', '4')
#define DRM_FORMAT_XRGB8888 FOURCC('X', 'R', '2', '4')
#define DRM_FORMAT_MOD_INVALID 0x00ffffffffffffffull

#define MAX_PLANES 4
#define MAX_MODIFIERS 64

static const uint32_t formats[] = { DRM_FORMAT_ARGB8888, DRM_FORMAT_XRGB8888 };

struct params {
	struct comp *comp;
	struct wl_resource *resource;
	bool used;
	int fd[MAX_PLANES];
	uint32_t offset[MAX_PLANES], stride[MAX_PLANES];
	uint64_t modifier[MAX_PLANES];
};

/* wl_buffer -------------------------------------------------------------- */

static const struct wl_buffer_interface buffer_impl = {
	.destroy = resource_destroy_request,
};

static void
buffer_destroyed(struct wl_resource *resource)
{
	struct dmabuf_buffer *b = wl_resource_get_user_data(resource);

	/* A texture made from the image keeps its memory. */
	eglDestroyImageKHR(glcuda_headless_get_display(b->comp->headless),
			   b->image);
	free(b);
}

struct dmabuf_buffer *
dmabuf_buffer_get(struct wl_resource *resource)
{
	if (!resource || !wl_resource_instance_of(
				 resource, &wl_buffer_interface, &buffer_impl))
		return NULL;
	return wl_resource_get_user_data(resource);
}

/* zwp_linux_buffer_params_v1 --------------------------------------------- */

static void
params_add(struct wl_client *client, struct wl_resource *resource, int32_t fd,
	   uint32_t plane, uint32_t offset, uint32_t stride,
	   uint32_t modifier_hi, uint32_t modifier_lo)
{
	struct params *p = wl_resource_get_user_data(resource);

	if (p->used) {
		close(fd);
		wl_resource_post_error(
			resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED,
			"the params were already used");
		return;
	}
	if (plane >= MAX_PLANES) {
		close(fd);
		wl_resource_post_error(
			resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_IDX,
			"plane %u: at most %d planes", plane, MAX_PLANES);
		return;
	}
	if (p->fd[plane] >= 0) {
		close(fd);
		wl_resource_post_error(
			resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_SET,
			"plane %u was already set", plane);
		return;
	}
	p->fd[plane] = fd;
	p->offset[plane] = offset;
	p->stride[plane] = stride;
	p->modifier[plane] = (uint64_t)modifier_hi << 32 | modifier_lo;
}

static bool
format_supported(uint32_t format)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i] == format)
			return true;
	return false;
}

/* Validate and import. NULL after a protocol error (posted) or when EGL
 * refused the import (*failed set: the client is told, no error). */
static struct dmabuf_buffer *
params_import(struct params *p, int32_t width, int32_t height, uint32_t format,
	      bool *failed)
{
	static const EGLint plane_attrs[MAX_PLANES][5] = {
		{ EGL_DMA_BUF_PLANE0_FD_EXT, EGL_DMA_BUF_PLANE0_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE0_PITCH_EXT,
		  EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE1_FD_EXT, EGL_DMA_BUF_PLANE1_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE1_PITCH_EXT,
		  EGL_DMA_BUF_PLANE1_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE1_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE2_FD_EXT, EGL_DMA_BUF_PLANE2_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE2_PITCH_EXT,
		  EGL_DMA_BUF_PLANE2_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE2_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE3_FD_EXT, EGL_DMA_BUF_PLANE3_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE3_PITCH_EXT,
		  EGL_DMA_BUF_PLANE3_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE3_MODIFIER_HI_EXT },
	};
	EGLint attribs[7 + MAX_PLANES * 10];
	struct dmabuf_buffer *b;
	int n = 0, nplanes = 0;

	*failed = false;
	if (p->used) {
		wl_resource_post_error(
			p->resource,
			ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED,
			"the params were already used");
		return NULL;
	}
	p->used = true;
	while (nplanes < MAX_PLANES && p->fd[nplanes] >= 0)
		nplanes++;
	for (int i = nplanes; i < MAX_PLANES; i++)
		if (p->fd[i] >= 0)
			nplanes = 0; /* a gap */
	if (nplanes == 0) {
		wl_resource_post_error(
			p->resource,
			ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INCOMPLETE,
			"no plane 0, or planes missing in between");
		return NULL;
	}
	if (width <= 0 || height <= 0) {
		wl_resource_post_error(
			p->resource,
			ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_DIMENSIONS,
			"size %dx%d", width, height);
		return NULL;
	}
	if (!format_supported(format)) {
		wl_resource_post_error(
			p->resource,
			ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT,
			"format 0x%08x is not advertised", format);
		return NULL;
	}
	for (int i = 0; i < nplanes; i++) {
		off_t size;

		if (p->modifier[i] != p->modifier[0]) {
			wl_resource_post_error(
				p->resource,
				ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT,
				"planes with different modifiers");
			return NULL;
		}
		/* Plane 0 must fit in its dma-buf, where the size can be known
		 * (lseek on a dma-buf gives it). Other planes (auxiliary
		 * planes of a modifier) have layouts of their own. */
		if (i > 0)
			continue;
		size = lseek(p->fd[i], 0, SEEK_END);
		if (size >= 0 &&
		    (uint64_t)p->offset[i] +
				    (uint64_t)p->stride[i] * (uint64_t)height >
			    (uint64_t)size) {
			wl_resource_post_error(
				p->resource,
				ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS,
				"plane 0: offset %u + stride %u x %d is past "
				"the dma-buf's %lld bytes",
				p->offset[i], p->stride[i], height,
				(long long)size);
			return NULL;
		}
	}

	attribs[n++] = EGL_WIDTH;
	attribs[n++] = width;
	attribs[n++] = EGL_HEIGHT;
	attribs[n++] = height;
	attribs[n++] = EGL_LINUX_DRM_FOURCC_EXT;
	attribs[n++] = (EGLint)format;
	for (int i = 0; i < nplanes; i++) {
		attribs[n++] = plane_attrs[i][0];
		attribs[n++] = p->fd[i];
		attribs[n++] = plane_attrs[i][1];
		attribs[n++] = (EGLint)p->offset[i];
		attribs[n++] = plane_attrs[i][2];
		attribs[n++] = (EGLint)p->stride[i];
		if (p->modifier[i] != DRM_FORMAT_MOD_INVALID) {
			attribs[n++] = plane_attrs[i][3];
			attribs[n++] = (EGLint)(p->modifier[i] & 0xffffffffu);
			attribs[n++] = plane_attrs[i][4];
			attribs[n++] = (EGLint)(p->modifier[i] >> 32);
		}
	}
	attribs[n++] = EGL_NONE;

	b = calloc(1, sizeof(*b));
	if (!b) {
		wl_client_post_no_memory(wl_resource_get_client(p->resource));
		return NULL;
	}
	b->comp = p->comp;
	b->width = width;
	b->height = height;
	b->opaque = format == DRM_FORMAT_XRGB8888;
	b->image = eglCreateImageKHR(
		glcuda_headless_get_display(p->comp->headless), EGL_NO_CONTEXT,
		EGL_LINUX_DMA_BUF_EXT, NULL, attribs);
	/* The image holds the memory: the fds are no longer needed. */
	for (int i = 0; i < MAX_PLANES; i++) {
		if (p->fd[i] >= 0)
			close(p->fd[i]);
		p->fd[i] = -1;
	}
	if (b->image == EGL_NO_IMAGE_KHR) {
		if (p->comp->opt.verbose)
			fprintf(stderr,
				COMP_NAME
				": a dma-buf import failed (EGL error "
				"0x%04x)\n",
				eglGetError());
		free(b);
		*failed = true;
		return NULL;
	}
	return b;
}

/* A wl_buffer for an imported buffer; id 0: a new server-side id. */
static bool
buffer_create(struct dmabuf_buffer *b, struct wl_client *client, uint32_t id)
{
	b->resource = resource_new(client, &wl_buffer_interface, 1, id,
				   &buffer_impl, b, buffer_destroyed);
	if (!b->resource) {
		eglDestroyImageKHR(
			glcuda_headless_get_display(b->comp->headless),
			b->image);
		free(b);
		return false;
	}
	return true;
}

static void
params_create(struct wl_client *client, struct wl_resource *resource,
	      int32_t width, int32_t height, uint32_t format, uint32_t flags)
{
	struct params *p = wl_resource_get_user_data(resource);
	bool failed;
	struct dmabuf_buffer *b =
		params_import(p, width, height, format, &failed);

	if (!b) {
		if (failed)
			zwp_linux_buffer_params_v1_send_failed(resource);
		return;
	}
	if (buffer_create(b, client, 0))
		zwp_linux_buffer_params_v1_send_created(resource, b->resource);
}

static void
params_create_immed(struct wl_client *client, struct wl_resource *resource,
		    uint32_t id, int32_t width, int32_t height, uint32_t format,
		    uint32_t flags)
{
	struct params *p = wl_resource_get_user_data(resource);
	bool failed;
	struct dmabuf_buffer *b =
		params_import(p, width, height, format, &failed);

	/* The id names no buffer: the protocol makes that an error. */
	if (!b && failed)
		wl_resource_post_error(
			resource,
			ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER,
			"the dma-buf import failed");
	if (b)
		buffer_create(b, client, id);
}

static const struct zwp_linux_buffer_params_v1_interface params_impl = {
	.destroy = resource_destroy_request,
	.add = params_add,
	.create = params_create,
	.create_immed = params_create_immed,
};

static void
params_destroyed(struct wl_resource *resource)
{
	struct params *p = wl_resource_get_user_data(resource);

	for (int i = 0; i < MAX_PLANES; i++)
		if (p->fd[i] >= 0)
			close(p->fd[i]);
	free(p);
}

/* zwp_linux_dmabuf_v1 ---------------------------------------------------- */

static void
dmabuf_create_params(struct wl_client *client, struct wl_resource *resource,
		     uint32_t id)
{
	struct params *p = calloc(1, sizeof(*p));

	if (!p) {
		wl_client_post_no_memory(client);
		return;
	}
	for (int i = 0; i < MAX_PLANES; i++)
		p->fd[i] = -1;
	p->comp = wl_resource_get_user_data(resource);
	p->resource =
		resource_new(client, &zwp_linux_buffer_params_v1_interface,
			     wl_resource_get_version(resource), id,
			     &params_impl, p, params_destroyed);
	if (!p->resource) {
		free(p);
		return;
	}
}

static const struct zwp_linux_dmabuf_v1_interface dmabuf_impl = {
	.destroy = resource_destroy_request,
	.create_params = dmabuf_create_params,
};

static void
bind_dmabuf(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct comp *c = data;
	EGLDisplay dpy = glcuda_headless_get_display(c->headless);
	bool modifiers = epoxy_has_egl_extension(
		dpy, "EGL_EXT_image_dma_buf_import_modifiers");
	struct wl_resource *r =
		resource_new(client, &zwp_linux_dmabuf_v1_interface,
			     (int)version, id, &dmabuf_impl, c, NULL);

	if (!r)
		return;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		EGLuint64KHR mods[MAX_MODIFIERS];
		EGLint n = 0;

		if (version < ZWP_LINUX_DMABUF_V1_MODIFIER_SINCE_VERSION) {
			zwp_linux_dmabuf_v1_send_format(r, formats[i]);
			continue;
		}
		if (!modifiers ||
		    !eglQueryDmaBufModifiersEXT(dpy, (EGLint)formats[i],
						MAX_MODIFIERS, mods, NULL, &n))
			n = 0;
		for (EGLint j = 0; j < n; j++)
			zwp_linux_dmabuf_v1_send_modifier(
				r, formats[i], (uint32_t)(mods[j] >> 32),
				(uint32_t)mods[j]);
		/* The implicit modifier: the driver picks the layout. */
		zwp_linux_dmabuf_v1_send_modifier(
			r, formats[i], (uint32_t)(DRM_FORMAT_MOD_INVALID >> 32),
			(uint32_t)DRM_FORMAT_MOD_INVALID);
	}
}

bool
dmabuf_init(struct comp *c)
{
	EGLDisplay dpy = glcuda_headless_get_display(c->headless);
	const char *missing = NULL;

	if (!epoxy_has_egl_extension(dpy, "EGL_EXT_image_dma_buf_import"))
		missing = "EGL_EXT_image_dma_buf_import";
	else if (!epoxy_has_gl_extension("GL_OES_EGL_image"))
		missing = "GL_OES_EGL_image";
	if (missing) {
		/* Not an error: clients use wl_shm. */
		if (c->opt.verbose)
			fprintf(stderr,
				COMP_NAME
				": zwp_linux_dmabuf_v1 not advertised: no %s\n",
				missing);
		return true;
	}
	if (!wl_global_create(c->display, &zwp_linux_dmabuf_v1_interface, 3, c,
			      bind_dmabuf)) {
		fprintf(stderr, COMP_NAME
			": cannot create the zwp_linux_dmabuf_v1 global\n");
		return false;
	}
	if (c->opt.verbose)
		fprintf(stderr, COMP_NAME ": zwp_linux_dmabuf_v1 advertised\n");
	return true;
}
