/*
 * glcuda_capture_framebuffers(): rectangles of the caller's framebuffers
 * (a renderer's colour and depth) copied into layers of shared images, on
 * the GPU, with GL commands only. Colour is blitted; depth, which GL
 * cannot blit between formats, is blitted into a texture of the source's
 * own format and written into the image's depth plane by a small pass.
 * The resolve buffers and the pass are kept per device (the device's
 * gl_cache) for the next call.
 * SPDX-License-Identifier: MIT
 */
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every member but `size`, in order (struct-size.c). */
static const struct member_span capture_desc_members[] = {
	MEMBER_SPAN(struct glcuda_capture_desc, captures),
	MEMBER_SPAN(struct glcuda_capture_desc, count),
	MEMBER_SPAN(struct glcuda_capture_desc, origin),
};

STRUCT_SIZE_FIRST(struct glcuda_capture_desc);
_Static_assert(STRUCT_SIZE_ENDS(struct glcuda_capture_desc, origin),
	       "struct glcuda_capture_desc: tail padding, or a new member");

#define CAPTURE_FLAGS (GLCUDA_CAPTURE_COLOR | GLCUDA_CAPTURE_DEPTH)

#define SUPPORTED_FORMATS                                                   \
	"glcuda captures colour of GL_RGBA8, GL_RGB8 or GL_SRGB8_ALPHA8 "   \
	"and depth of GL_DEPTH_COMPONENT16, GL_DEPTH_COMPONENT24, "        \
	"GL_DEPTH_COMPONENT32F, GL_DEPTH24_STENCIL8 or "                    \
	"GL_DEPTH32F_STENCIL8: render into one of them, or blit into one " \
	"first"

/* A buffer of glcuda's in one format and size, attached to its own
 * framebuffer: a multisampled colour source's resolve (a renderbuffer), or
 * the depth pass's copy of the source's depth (a texture). */
struct cache_buffer {
	GLuint fbo, object;
	GLenum format;
	GLsizei width, height;
};

/* One buffer per format: cameras of different formats captured in turn
 * never make one again. */
#define CACHE_FORMATS 8

struct capture_cache {
	/* The draw framebuffer the image's layer is attached to. */
	GLuint image_fbo;
	struct cache_buffer resolve[CACHE_FORMATS], depth[CACHE_FORMATS];
	/* Depth as glReadPixels reads it: the buffer it is read into and
	 * the GL_DEPTH_COMPONENT32F texture it is copied into, on the GPU. */
	GLuint read_buffer;
	GLsizeiptr read_buffer_size;
	struct cache_buffer read_depth;
	/* GLES's sRGB colour, blitted as stored (enqueue_color). */
	struct cache_buffer srgb;
	/* The depth pass: its program, its uniforms and an empty vertex
	 * array (a core profile draws nothing without one). */
	GLuint program, vertex_array;
	GLint offset_location, flip_location;
};

/* What a capture reads of its framebuffer. */
struct source_buffer {
	/* The attachment point asked about (GL_COLOR_ATTACHMENTi, GL_BACK_LEFT,
	 * GL_DEPTH_ATTACHMENT, GL_DEPTH). */
	GLenum attachment;
	/* One of the formats of SUPPORTED_FORMATS, or 0. */
	GLenum format;
	uint32_t width, height;
};

struct source {
	GLint samples;
	struct source_buffer color, depth;
};

static void
cache_buffer_delete(struct cache_buffer *b, bool texture)
{
	if (b->fbo)
		glDeleteFramebuffers(1, &b->fbo);
	if (b->object && texture)
		glDeleteTextures(1, &b->object);
	else if (b->object)
		glDeleteRenderbuffers(1, &b->object);
	memset(b, 0, sizeof(*b));
}

static void
cache_release(struct glcuda_device *dev, bool gl_current)
{
	struct capture_cache *c = dev->gl_cache.data;

	if (c && gl_current) {
		for (unsigned int i = 0; i < CACHE_FORMATS; i++) {
			cache_buffer_delete(&c->resolve[i], false);
			cache_buffer_delete(&c->depth[i], true);
		}
		cache_buffer_delete(&c->read_depth, true);
		cache_buffer_delete(&c->srgb, true);
		if (c->read_buffer)
			glDeleteBuffers(1, &c->read_buffer);
		if (c->image_fbo)
			glDeleteFramebuffers(1, &c->image_fbo);
		if (c->program)
			glDeleteProgram(c->program);
		if (c->vertex_array)
			glDeleteVertexArrays(1, &c->vertex_array);
	}
	free(c);
	dev->gl_cache.data = NULL;
	dev->gl_cache.release = NULL;
}

static struct capture_cache *
cache_get(struct glcuda_device *dev, const char *what)
{
	struct capture_cache *c = dev->gl_cache.data;

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c) {
		device_fail(dev, -ENOMEM, "%s: out of memory", what);
		return NULL;
	}
	glGenFramebuffers(1, &c->image_fbo);
	dev->gl_cache.data = c;
	dev->gl_cache.release = cache_release;
	return c;
}

/* The depth pass's shaders: a triangle that covers the viewport, and a
 * fragment that writes the copy's depth at the rectangle's offset, its
 * rows flipped when flip is the last row (-1: not flipped). */
static const char vertex_source[] =
	"void main()\n"
	"{\n"
	"	gl_Position = vec4(gl_VertexID == 1 ? 3.0 : -1.0,\n"
	"			   gl_VertexID == 2 ? 3.0 : -1.0, 0.0, 1.0);\n"
	"}\n";
static const char fragment_source[] =
	"uniform highp sampler2D source;\n"
	"uniform ivec2 offset;\n"
	"uniform int flip;\n"
	"void main()\n"
	"{\n"
	"	ivec2 p = ivec2(gl_FragCoord.xy);\n"
	"	if (flip >= 0)\n"
	"		p.y = flip - p.y;\n"
	"	gl_FragDepth = texelFetch(source, offset + p, 0).r;\n"
	"}\n";

static GLuint
compile(struct glcuda_device *dev, GLenum type, const char *body,
	const char *what)
{
	const char *header = dev->gl.is_gles
				     ? "#version 300 es\n"
				       "precision highp float;\n"
				       "precision highp int;\n"
				     : "#version 330 core\n";
	const char *sources[2] = { header, body };
	GLuint shader = glCreateShader(type);
	GLint ok = GL_FALSE;
	char log[512] = "";

	glShaderSource(shader, 2, sources, NULL);
	glCompileShader(shader);
	glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
	if (ok)
		return shader;
	glGetShaderInfoLog(shader, sizeof(log), NULL, log);
	glDeleteShader(shader);
	device_fail(dev, GLCUDA_ERROR_GL,
		    "%s: the depth pass's %s shader does not compile: %s",
		    what, type == GL_VERTEX_SHADER ? "vertex" : "fragment",
		    log);
	return 0;
}

/* The depth pass's program, made on the first depth capture. Leaves it
 * in use (the caller's is restored at the end of the call). */
static int
cache_program(struct glcuda_device *dev, struct capture_cache *c,
	      const char *what)
{
	GLuint vs, fs, program;
	GLint ok = GL_FALSE;
	char log[512] = "";

	if (c->program)
		return 0;
	vs = compile(dev, GL_VERTEX_SHADER, vertex_source, what);
	if (!vs)
		return GLCUDA_ERROR_GL;
	fs = compile(dev, GL_FRAGMENT_SHADER, fragment_source, what);
	if (!fs) {
		glDeleteShader(vs);
		return GLCUDA_ERROR_GL;
	}
	program = glCreateProgram();
	glAttachShader(program, vs);
	glAttachShader(program, fs);
	glLinkProgram(program);
	glDeleteShader(vs);
	glDeleteShader(fs);
	glGetProgramiv(program, GL_LINK_STATUS, &ok);
	if (!ok) {
		glGetProgramInfoLog(program, sizeof(log), NULL, log);
		glDeleteProgram(program);
		return device_fail(dev, GLCUDA_ERROR_GL,
				   "%s: the depth pass's program does not "
				   "link: %s",
				   what, log);
	}
	glUseProgram(program);
	glUniform1i(glGetUniformLocation(program, "source"), 0);
	c->offset_location = glGetUniformLocation(program, "offset");
	c->flip_location = glGetUniformLocation(program, "flip");
	glGenVertexArrays(1, &c->vertex_array);
	c->program = program;
	return gl_check_error(&dev->errors, "making the depth pass");
}

/* The buffer of format among buffers, of at least width x height: the
 * one kept when it is large enough, else a new one (the larger of the
 * sizes asked so far). The renderbuffer binding is restored; the texture
 * binding of the active unit is the pass's. */
static int
cache_buffer_get(struct glcuda_device *dev, struct cache_buffer *buffers,
		 unsigned int count, bool texture, GLenum format, GLsizei width,
		 GLsizei height, struct cache_buffer **out, const char *what)
{
	struct cache_buffer *b = &buffers[count - 1];
	GLint prev_renderbuffer = 0;
	GLenum point;

	for (unsigned int i = 0; i < count; i++)
		if (buffers[i].format == format || !buffers[i].object) {
			b = &buffers[i];
			break;
		}
	*out = b;
	if (b->object && b->format == format && b->width >= width &&
	    b->height >= height)
		return 0;
	if (b->format == format) {
		width = width > b->width ? width : b->width;
		height = height > b->height ? height : b->height;
	}
	cache_buffer_delete(b, texture);
	glGenFramebuffers(1, &b->fbo);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, b->fbo);
	if (format == GL_DEPTH24_STENCIL8 || format == GL_DEPTH32F_STENCIL8)
		point = GL_DEPTH_STENCIL_ATTACHMENT;
	else if (format == GL_DEPTH_COMPONENT16 ||
		 format == GL_DEPTH_COMPONENT24 ||
		 format == GL_DEPTH_COMPONENT32F)
		point = GL_DEPTH_ATTACHMENT;
	else
		point = GL_COLOR_ATTACHMENT0;
	if (texture) {
		glGenTextures(1, &b->object);
		glBindTexture(GL_TEXTURE_2D, b->object);
		glTexStorage2D(GL_TEXTURE_2D, 1, format, width, height);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER,
				GL_NEAREST);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER,
				GL_NEAREST);
		glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, point,
				       GL_TEXTURE_2D, b->object, 0);
	} else {
		glGetIntegerv(GL_RENDERBUFFER_BINDING, &prev_renderbuffer);
		glGenRenderbuffers(1, &b->object);
		glBindRenderbuffer(GL_RENDERBUFFER, b->object);
		glRenderbufferStorage(GL_RENDERBUFFER, format, width, height);
		glFramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, point,
					  GL_RENDERBUFFER, b->object);
		glBindRenderbuffer(GL_RENDERBUFFER, (GLuint)prev_renderbuffer);
	}
	b->format = format;
	b->width = width;
	b->height = height;
	if (glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) !=
	    GL_FRAMEBUFFER_COMPLETE) {
		cache_buffer_delete(b, texture);
		return device_fail(dev, GLCUDA_ERROR_GL,
				   "%s: GL cannot render into a %dx%d buffer "
				   "of format 0x%04x to resolve or copy into",
				   what, width, height, format);
	}
	return gl_check_error(&dev->errors, what);
}

/* Inspecting the source -------------------------------------------------- */

static GLint
attachment_int(GLenum attachment, GLenum pname)
{
	GLint v = 0;

	glGetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment,
					      pname, &v);
	return v;
}

/* The level-0 size of a texture of the source, and whether GL could say
 * (GLES 3.0 cannot). Desktop GL by name; GLES through the binding of its
 * target, which is found by binding it (GL refuses another target) and
 * restored. */
static bool
texture_size(const struct gl_state *gl, GLuint texture, GLint level,
	     GLenum face, GLint *width, GLint *height)
{
	static const GLenum targets[][2] = {
		{ GL_TEXTURE_2D, GL_TEXTURE_BINDING_2D },
		{ GL_TEXTURE_2D_MULTISAMPLE,
		  GL_TEXTURE_BINDING_2D_MULTISAMPLE },
		{ GL_TEXTURE_2D_ARRAY, GL_TEXTURE_BINDING_2D_ARRAY },
		{ GL_TEXTURE_3D, GL_TEXTURE_BINDING_3D },
		{ GL_TEXTURE_CUBE_MAP, GL_TEXTURE_BINDING_CUBE_MAP },
		{ GL_TEXTURE_2D_MULTISAMPLE_ARRAY,
		  GL_TEXTURE_BINDING_2D_MULTISAMPLE_ARRAY },
	};

	if (!gl->is_gles) {
		glGetTextureLevelParameteriv(texture, level, GL_TEXTURE_WIDTH,
					     width);
		glGetTextureLevelParameteriv(texture, level,
					     GL_TEXTURE_HEIGHT, height);
		return true;
	}
	if (gl->major == 3 && gl->minor < 1)
		return false;
	for (size_t i = 0; i < ARRAY_LENGTH(targets); i++) {
		GLint prev = 0;
		GLenum query = targets[i][0];

		if (face && targets[i][0] != GL_TEXTURE_CUBE_MAP)
			continue;
		gl_take_error();
		glGetIntegerv(targets[i][1], &prev);
		if (glGetError() != GL_NO_ERROR)
			continue; /* a target this context lacks */
		glBindTexture(targets[i][0], texture);
		if (glGetError() != GL_NO_ERROR)
			continue;
		if (face)
			query = face;
		glGetTexLevelParameteriv(query, level, GL_TEXTURE_WIDTH,
					 width);
		glGetTexLevelParameteriv(query, level, GL_TEXTURE_HEIGHT,
					 height);
		glBindTexture(targets[i][0], (GLuint)prev);
		return true;
	}
	return false;
}

/* The size of the bound read framebuffer's attachment (the surface's for
 * the default framebuffer); 0 x 0 where GL cannot say. */
static void
attachment_size(const struct gl_state *gl, GLuint framebuffer,
		GLenum attachment, uint32_t *width, uint32_t *height)
{
	GLint type = attachment_int(attachment,
				    GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE);
	GLint name = attachment_int(attachment,
				    GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME);
	GLint w = 0, h = 0;

	if (framebuffer == 0) {
		EGLDisplay dpy = eglGetCurrentDisplay();
		EGLSurface surface = eglGetCurrentSurface(EGL_READ);

		if (surface != EGL_NO_SURFACE) {
			eglQuerySurface(dpy, surface, EGL_WIDTH, &w);
			eglQuerySurface(dpy, surface, EGL_HEIGHT, &h);
		}
	} else if (type == GL_RENDERBUFFER) {
		GLint prev = 0;

		glGetIntegerv(GL_RENDERBUFFER_BINDING, &prev);
		glBindRenderbuffer(GL_RENDERBUFFER, (GLuint)name);
		glGetRenderbufferParameteriv(GL_RENDERBUFFER,
					     GL_RENDERBUFFER_WIDTH, &w);
		glGetRenderbufferParameteriv(GL_RENDERBUFFER,
					     GL_RENDERBUFFER_HEIGHT, &h);
		glBindRenderbuffer(GL_RENDERBUFFER, (GLuint)prev);
	} else if (type == GL_TEXTURE) {
		GLint level = attachment_int(
			attachment, GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL);
		GLint face = attachment_int(
			attachment,
			GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_CUBE_MAP_FACE);

		if (!texture_size(gl, (GLuint)name, level, (GLenum)face, &w,
				  &h))
			w = h = 0;
	}
	*width = w > 0 ? (uint32_t)w : 0;
	*height = h > 0 ? (uint32_t)h : 0;
}

/* The format of the bound read framebuffer's attachment, from what GL
 * says of its components (the same queries for textures, renderbuffers
 * and the default framebuffer's buffers, on GL and GLES), into what the
 * message says of an unsupported one. Returns the format or 0. */
static GLenum
attachment_format(GLenum attachment, bool depth, char *says, size_t size)
{
	const GLint type = attachment_int(
		attachment, GL_FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE);

	if (depth) {
		GLint d = attachment_int(attachment,
					 GL_FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE);
		GLint s = attachment_int(
			attachment, GL_FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE);

		snprintf(says, size, "%d depth bits (%s), %d stencil bits", d,
			 type == GL_FLOAT ? "float" : "normalized", s);
		if (type == GL_FLOAT && d == 32)
			return s == 8 ? GL_DEPTH32F_STENCIL8
			       : s == 0 ? GL_DEPTH_COMPONENT32F
					: 0;
		if (type != GL_UNSIGNED_NORMALIZED || (s != 0 && s != 8))
			return 0;
		if (d == 24)
			return s ? GL_DEPTH24_STENCIL8 : GL_DEPTH_COMPONENT24;
		return d == 16 && s == 0 ? GL_DEPTH_COMPONENT16 : 0;
	} else {
		const GLint r = attachment_int(
			attachment, GL_FRAMEBUFFER_ATTACHMENT_RED_SIZE);
		const GLint g = attachment_int(
			attachment, GL_FRAMEBUFFER_ATTACHMENT_GREEN_SIZE);
		const GLint b = attachment_int(
			attachment, GL_FRAMEBUFFER_ATTACHMENT_BLUE_SIZE);
		const GLint a = attachment_int(
			attachment, GL_FRAMEBUFFER_ATTACHMENT_ALPHA_SIZE);
		const GLint encoding = attachment_int(
			attachment, GL_FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING);

		snprintf(says, size, "R%dG%dB%dA%d, %s%s", r, g, b, a,
			 type == GL_UNSIGNED_NORMALIZED ? "normalized"
			 : type == GL_FLOAT	       ? "float"
						       : "integer",
			 encoding == GL_SRGB ? ", sRGB" : "");
		if (type != GL_UNSIGNED_NORMALIZED || r != 8 || g != 8 ||
		    b != 8 || (a != 8 && a != 0))
			return 0;
		if (encoding == GL_SRGB)
			return a == 8 ? GL_SRGB8_ALPHA8 : 0;
		return a == 8 ? GL_RGBA8 : GL_RGB8;
	}
}

/* The exact internal format GL gives of a texture or renderbuffer (0
 * where it cannot say), for the message. */
static GLint
attachment_internal_format(const struct gl_state *gl, GLenum attachment)
{
	GLint type = attachment_int(attachment,
				    GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE);
	GLint name = attachment_int(attachment,
				    GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME);
	GLint format = 0, prev = 0;

	if (type == GL_RENDERBUFFER) {
		glGetIntegerv(GL_RENDERBUFFER_BINDING, &prev);
		glBindRenderbuffer(GL_RENDERBUFFER, (GLuint)name);
		glGetRenderbufferParameteriv(GL_RENDERBUFFER,
					     GL_RENDERBUFFER_INTERNAL_FORMAT,
					     &format);
		glBindRenderbuffer(GL_RENDERBUFFER, (GLuint)prev);
	} else if (type == GL_TEXTURE && !gl->is_gles) {
		glGetTextureLevelParameteriv(
			(GLuint)name,
			attachment_int(attachment,
				       GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL),
			GL_TEXTURE_INTERNAL_FORMAT, &format);
	}
	return format;
}

static const char *
status_name(GLenum status)
{
	switch (status) {
	case GL_FRAMEBUFFER_UNDEFINED:
		return "GL_FRAMEBUFFER_UNDEFINED (no default framebuffer: "
		       "the context has no surface)";
	case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT:
		return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
	case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT:
		return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
	case GL_FRAMEBUFFER_UNSUPPORTED:
		return "GL_FRAMEBUFFER_UNSUPPORTED";
	case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE:
		return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
	default:
		return "incomplete";
	}
}

/* One attachment of the bound source: present, of a supported format,
 * its size. */
static int
inspect_buffer(struct glcuda_device *dev, const struct glcuda_capture *c,
	       unsigned int i, bool depth, struct source_buffer *out,
	       const char *what)
{
	const char *kind = depth ? "depth" : "colour";
	char says[96];
	GLint read_buffer = GL_NONE, internal;

	if (depth) {
		out->attachment = c->framebuffer ? GL_DEPTH_ATTACHMENT
						 : GL_DEPTH;
	} else {
		glGetIntegerv(GL_READ_BUFFER, &read_buffer);
		out->attachment = (GLenum)read_buffer;
		/* Desktop GL names the default framebuffer's buffers by
		 * side; GLES by GL_BACK. */
		if (!dev->gl.is_gles && read_buffer == GL_BACK)
			out->attachment = GL_BACK_LEFT;
		else if (!dev->gl.is_gles && read_buffer == GL_FRONT)
			out->attachment = GL_FRONT_LEFT;
	}
	if (out->attachment == GL_NONE ||
	    attachment_int(out->attachment,
			   GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) == GL_NONE)
		return device_fail(
			dev, GLCUDA_ERROR_UNSUPPORTED_FORMAT,
			"%s: captures[%u]: framebuffer %u has no %s buffer to "
			"read (%s); attach one, or leave "
			"GLCUDA_CAPTURE_%s out of the capture's flags",
			what, i, c->framebuffer, kind,
			depth ? "no depth attachment"
			      : "its read buffer is GL_NONE or not attached",
			depth ? "DEPTH" : "COLOR");
	out->format = attachment_format(out->attachment, depth, says,
					sizeof(says));
	if (!out->format) {
		internal = attachment_internal_format(&dev->gl,
						      out->attachment);
		return device_fail(dev, GLCUDA_ERROR_UNSUPPORTED_FORMAT,
				   "%s: captures[%u]: the %s buffer of "
				   "framebuffer %u is of format 0x%04x (%s), "
				   "which glcuda cannot capture; "
				   SUPPORTED_FORMATS,
				   what, i, kind, c->framebuffer,
				   (unsigned)internal, says);
	}
	attachment_size(&dev->gl, c->framebuffer, out->attachment,
			&out->width, &out->height);
	if (out->width == 0 && out->height == 0)
		return 0; /* GLES 3.0: GL cannot say; the blit clips */
	if (c->x < 0 || c->y < 0 ||
	    (uint64_t)c->x + c->image->width > out->width ||
	    (uint64_t)c->y + c->image->height > out->height)
		return device_fail(dev, -EINVAL,
				   "%s: captures[%u]: the rectangle %ux%u at "
				   "(%d, %d) (the image's size) is not inside "
				   "the %s buffer of framebuffer %u, %ux%u: "
				   "move it, or capture into a smaller image",
				   what, i, c->image->width, c->image->height,
				   c->x, c->y, kind, c->framebuffer,
				   out->width, out->height);
	return 0;
}

/* The source of a capture, bound as the read and draw framebuffer (GL
 * says the samples of the draw one). */
static int
inspect_source(struct glcuda_device *dev, const struct glcuda_capture *c,
	       unsigned int i, struct source *src, const char *what)
{
	GLenum status;
	int ret;

	memset(src, 0, sizeof(*src));
	if (c->framebuffer && !glIsFramebuffer(c->framebuffer))
		return device_fail(dev, -EINVAL,
				   "%s: captures[%u]: %u is not a framebuffer "
				   "of the current context",
				   what, i, c->framebuffer);
	gl_take_error();
	glBindFramebuffer(GL_READ_FRAMEBUFFER, c->framebuffer);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, c->framebuffer);
	status = glCheckFramebufferStatus(GL_READ_FRAMEBUFFER);
	if (status != GL_FRAMEBUFFER_COMPLETE)
		return device_fail(dev, GLCUDA_ERROR_GL,
				   "%s: captures[%u]: framebuffer %u is "
				   "incomplete: glCheckFramebufferStatus "
				   "0x%04x, %s. Capture a complete one.",
				   what, i, c->framebuffer, status,
				   status_name(status));
	glGetIntegerv(GL_SAMPLES, &src->samples);
	if (c->flags & GLCUDA_CAPTURE_COLOR) {
		ret = inspect_buffer(dev, c, i, false, &src->color, what);
		if (ret < 0)
			return ret;
	}
	if (c->flags & GLCUDA_CAPTURE_DEPTH) {
		ret = inspect_buffer(dev, c, i, true, &src->depth, what);
		if (ret < 0)
			return ret;
	}
	return gl_check_error(&dev->errors, what);
}

/* The checks of a capture that need no GL. */
static int
check_capture(struct glcuda_device *dev, const struct glcuda_capture *c,
	      unsigned int i, const char *what)
{
	const struct glcuda_image *img = c->image;

	if (!img)
		return device_fail(dev, -EINVAL, "%s: captures[%u].image is "
				   "NULL", what, i);
	if (img->dev != dev)
		return device_fail(dev, GLCUDA_ERROR_WRONG_DEVICE,
				   "%s: captures[%u]: the image belongs to "
				   "another glcuda device",
				   what, i);
	if (img->kind != GLCUDA_IMAGE_KIND_SHARED || !img->fmt)
		return device_fail(dev, -EINVAL,
				   "%s: captures[%u]: the image wraps the "
				   "caller's texture or EGLImage; capture into "
				   "a shared image (glcuda_image_new())",
				   what, i);
	if (img->owner != IMAGE_OWNER_GL)
		return device_fail(dev, GLCUDA_ERROR_BAD_STATE,
				   "%s: captures[%u]: the image is handed to "
				   "CUDA; hand it back to GL first "
				   "(glcuda_handoff_to_gl())",
				   what, i);
	if (c->layer >= img->layers)
		return device_fail(dev, -EINVAL,
				   "%s: captures[%u]: layer %u of an image of "
				   "%u layers",
				   what, i, c->layer, img->layers);
	if (!c->flags || (c->flags & ~(unsigned int)CAPTURE_FLAGS))
		return device_fail(dev, -EINVAL,
				   "%s: captures[%u]: flags 0x%x; set "
				   "GLCUDA_CAPTURE_COLOR, GLCUDA_CAPTURE_DEPTH "
				   "or both, and nothing else",
				   what, i, c->flags);
	if ((c->flags & GLCUDA_CAPTURE_COLOR) && img->fmt->is_depth)
		return device_fail(dev, -EINVAL,
				   "%s: captures[%u]: colour asked of a %s "
				   "image, which has no colour plane",
				   what, i, img->fmt->name);
	if ((c->flags & GLCUDA_CAPTURE_DEPTH) && !img->fmt->is_depth &&
	    !img->depth_fmt)
		return device_fail(dev, -EINVAL,
				   "%s: captures[%u]: depth asked of a %s "
				   "image without a depth plane; make it with "
				   "desc.depth_format GLCUDA_FORMAT_DEPTH32F",
				   what, i, img->fmt->name);
	return 0;
}

/* Enqueuing --------------------------------------------------------------- */

/* Attach the image's layer to glcuda's draw framebuffer: its colour, or
 * its depth plane, alone. */
static void
attach_image(GLuint fbo, const struct glcuda_image *img, unsigned int layer,
	     bool depth)
{
	GLuint texture = depth && !img->fmt->is_depth ? img->depth_texture
						      : img->texture;
	GLenum point = depth ? GL_DEPTH_ATTACHMENT : GL_COLOR_ATTACHMENT0;
	GLenum other = depth ? GL_COLOR_ATTACHMENT0 : GL_DEPTH_ATTACHMENT;

	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, other, GL_TEXTURE_2D, 0,
			       0);
	if (img->layers > 1)
		glFramebufferTextureLayer(GL_DRAW_FRAMEBUFFER, point, texture,
					  0, (GLint)layer);
	else
		glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, point,
				       GL_TEXTURE_2D, texture, 0);
}

static int
enqueue_color(struct glcuda_device *dev, struct capture_cache *cache,
	      const struct glcuda_capture *c, const struct source *src,
	      bool top_left, const char *what)
{
	const GLint w = (GLint)c->image->width, h = (GLint)c->image->height;
	struct cache_buffer *resolve;
	int ret;

	if (src->samples > 0) {
		/* A resolve takes the same rectangle on both sides (and, on
		 * GLES, the same format): into glcuda's buffer of the
		 * source's format first, then flipped from there. */
		ret = cache_buffer_get(dev, cache->resolve, CACHE_FORMATS,
				       false, src->color.format,
				       (GLsizei)(c->x + w),
				       (GLsizei)(c->y + h), &resolve, what);
		if (ret < 0)
			return ret;
		glBindFramebuffer(GL_READ_FRAMEBUFFER, c->framebuffer);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve->fbo);
		glBlitFramebuffer(c->x, c->y, c->x + w, c->y + h, c->x, c->y,
				  c->x + w, c->y + h, GL_COLOR_BUFFER_BIT,
				  GL_NEAREST);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, resolve->fbo);
	} else {
		glBindFramebuffer(GL_READ_FRAMEBUFFER, c->framebuffer);
	}
	if (dev->gl.is_gles && src->color.format == GL_SRGB8_ALPHA8 &&
	    !c->image->fmt->is_srgb) {
		/* GLES blits decode an sRGB source into a linear buffer, and
		 * cannot be told not to: blit between sRGB buffers, then
		 * copy the bytes as stored. */
		ret = cache_buffer_get(dev, &cache->srgb, 1, true,
				       GL_SRGB8_ALPHA8, w, h, &resolve, what);
		if (ret < 0)
			return ret;
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve->fbo);
		glBlitFramebuffer(c->x, c->y, c->x + w, c->y + h, 0,
				  top_left ? h : 0, w, top_left ? 0 : h,
				  GL_COLOR_BUFFER_BIT, GL_NEAREST);
		glCopyImageSubData(resolve->object, GL_TEXTURE_2D, 0, 0, 0, 0,
				   c->image->texture,
				   glcuda_image_get_gl_target(c->image), 0, 0,
				   0, (GLint)c->layer, w, h, 1);
		return 0;
	}
	attach_image(cache->image_fbo, c->image, c->layer, false);
	glBlitFramebuffer(c->x, c->y, c->x + w, c->y + h, 0,
			  top_left ? h : 0, w, top_left ? 0 : h,
			  GL_COLOR_BUFFER_BIT, GL_NEAREST);
	return 0;
}

static int
enqueue_depth(struct glcuda_device *dev, struct capture_cache *cache,
	      const struct glcuda_capture *c, const struct source *src,
	      bool top_left, const char *what)
{
	const GLint w = (GLint)c->image->width, h = (GLint)c->image->height;
	const GLenum format = src->depth.format;
	/* A normalized depth sampled is converted by the sampler, whose
	 * float arithmetic may round otherwise than glReadPixels (Mesa's
	 * llvmpipe: one bit of D16 and D24 values). glReadPixels itself,
	 * into a buffer and on into a float texture, on the GPU, gives its
	 * values; GLES reads float depth only, whose sampling is exact. */
	const bool read_pixels = !dev->gl.is_gles ||
				 format == GL_DEPTH_COMPONENT32F ||
				 format == GL_DEPTH32F_STENCIL8;
	struct cache_buffer *copy = NULL, *read_depth = &cache->read_depth;
	GLuint read_fbo = c->framebuffer;
	GLint x = c->x, y = c->y;
	int ret;

	if (src->samples > 0 || !read_pixels) {
		/* The same rectangle on both sides: a multisampled source
		 * is resolved (one sample). Not otherwise: Mesa's blit of
		 * GL_DEPTH24_STENCIL8 rounds some values. */
		ret = cache_buffer_get(dev, cache->depth, CACHE_FORMATS, true,
				       format, (GLsizei)(c->x + w),
				       (GLsizei)(c->y + h), &copy, what);
		if (ret < 0)
			return ret;
		glBindFramebuffer(GL_READ_FRAMEBUFFER, c->framebuffer);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, copy->fbo);
		glBlitFramebuffer(c->x, c->y, c->x + w, c->y + h, c->x, c->y,
				  c->x + w, c->y + h, GL_DEPTH_BUFFER_BIT,
				  GL_NEAREST);
		read_fbo = copy->fbo;
	}
	if (read_pixels) {
		ret = cache_buffer_get(dev, read_depth, 1, true,
				       GL_DEPTH_COMPONENT32F, w, h,
				       &read_depth, what);
		if (ret < 0)
			return ret;
		if (cache->read_buffer_size < (GLsizeiptr)w * h * 4) {
			if (!cache->read_buffer)
				glGenBuffers(1, &cache->read_buffer);
			cache->read_buffer_size = (GLsizeiptr)w * h * 4;
			glBindBuffer(GL_PIXEL_PACK_BUFFER, cache->read_buffer);
			glBufferData(GL_PIXEL_PACK_BUFFER,
				     cache->read_buffer_size, NULL,
				     GL_STREAM_COPY);
		}
		glBindFramebuffer(GL_READ_FRAMEBUFFER, read_fbo);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, cache->read_buffer);
		glReadPixels(c->x, c->y, w, h, GL_DEPTH_COMPONENT, GL_FLOAT,
			     NULL);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
		glBindBuffer(GL_PIXEL_UNPACK_BUFFER, cache->read_buffer);
		glBindTexture(GL_TEXTURE_2D, read_depth->object);
		glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h,
				GL_DEPTH_COMPONENT, GL_FLOAT, NULL);
		glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
		copy = read_depth;
		x = y = 0;
	}

	attach_image(cache->image_fbo, c->image, c->layer, true);
	glUseProgram(cache->program);
	glUniform2i(cache->offset_location, x, y);
	glUniform1i(cache->flip_location, top_left ? h - 1 : -1);
	glBindVertexArray(cache->vertex_array);
	glBindTexture(GL_TEXTURE_2D, copy->object);
	glViewport(0, 0, w, h);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	return 0;
}

/* The state of the depth pass, set once per call (blits ignore it). */
static void
set_pass_state(const struct gl_state *gl)
{
	glDisable(GL_SCISSOR_TEST);
	glDisable(GL_RASTERIZER_DISCARD);
	/* Bytes as stored: no sRGB encoding (desktop GL; GLES blits
	 * convert only between sRGB and linear buffers, never here). */
	if (!gl->is_gles)
		glDisable(GL_FRAMEBUFFER_SRGB);
	glEnable(GL_DEPTH_TEST);
	glDepthFunc(GL_ALWAYS);
	glDepthMask(GL_TRUE);
	glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
	glDisable(GL_STENCIL_TEST);
	glDisable(GL_BLEND);
	glDisable(GL_CULL_FACE);
	if (!gl->is_gles)
		glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
	glPixelStorei(GL_PACK_ALIGNMENT, 4);
	glPixelStorei(GL_PACK_ROW_LENGTH, 0);
	glPixelStorei(GL_PACK_SKIP_ROWS, 0);
	glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
	glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
	glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
	glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
	glActiveTexture(GL_TEXTURE0);
	glBindSampler(0, 0);
}

/* Every capture checked (GL's part with the sources bound), the pass made
 * if a depth capture needs it; then every capture enqueued in order. */
static int
capture_all(struct glcuda_device *dev, const struct glcuda_capture_desc *d,
	    const char *what)
{
	const bool top_left = d->origin == GLCUDA_ORIGIN_TOP_LEFT;
	struct capture_cache *cache;
	struct source *sources;
	bool depth = false;
	int ret = 0;

	sources = calloc(d->count, sizeof(*sources));
	if (!sources)
		return device_fail(dev, -ENOMEM, "%s: out of memory", what);
	for (unsigned int i = 0; i < d->count && ret == 0; i++) {
		ret = inspect_source(dev, &d->captures[i], i, &sources[i],
				     what);
		depth |= d->captures[i].flags & GLCUDA_CAPTURE_DEPTH;
	}
	cache = ret == 0 ? cache_get(dev, what) : NULL;
	if (ret == 0 && !cache)
		ret = -ENOMEM;
	if (ret == 0 && depth)
		ret = cache_program(dev, cache, what);
	if (ret < 0)
		goto out;

	set_pass_state(&dev->gl);
	for (unsigned int i = 0; i < d->count && ret == 0; i++) {
		const struct glcuda_capture *c = &d->captures[i];

		if (c->flags & GLCUDA_CAPTURE_COLOR)
			ret = enqueue_color(dev, cache, c, &sources[i],
					    top_left, what);
		if (ret == 0 && (c->flags & GLCUDA_CAPTURE_DEPTH))
			ret = enqueue_depth(dev, cache, c, &sources[i],
					    top_left, what);
	}
	if (ret == 0)
		ret = gl_check_error(&dev->errors, what);
out:
	free(sources);
	return ret;
}

GLCUDA_EXPORT int
glcuda_capture_framebuffers(struct glcuda_device *dev,
			    const struct glcuda_capture_desc *desc)
{
	const char *what = "glcuda_capture_framebuffers";
	struct glcuda_capture_desc d;
	struct gl_saved_state saved;
	struct gl_saved_draw_state saved_draw;
	int ret;

	error_clear();
	if (!dev || !desc)
		return device_fail(dev, -EINVAL, "%s: %s is NULL", what,
				   !dev ? "dev" : "desc");
	ret = struct_size_copy_in(dev, what, "glcuda_capture_desc", desc,
				  capture_desc_members,
				  ARRAY_LENGTH(capture_desc_members), &d,
				  sizeof(d));
	if (ret < 0)
		return ret;
	if (d.count == 0 || !d.captures)
		return device_fail(dev, -EINVAL,
				   "%s: %s; pass at least one capture", what,
				   d.count ? "desc.captures is NULL"
					   : "desc.count is 0");
	if (d.origin != GLCUDA_ORIGIN_BOTTOM_LEFT &&
	    d.origin != GLCUDA_ORIGIN_TOP_LEFT)
		return device_fail(dev, -EINVAL,
				   "%s: desc.origin %d is neither "
				   "GLCUDA_ORIGIN_BOTTOM_LEFT nor "
				   "GLCUDA_ORIGIN_TOP_LEFT",
				   what, (int)d.origin);
	for (unsigned int i = 0; i < d.count; i++) {
		ret = check_capture(dev, &d.captures[i], i, what);
		if (ret < 0)
			return ret;
	}
	ret = device_check_gl(dev, what);
	if (ret < 0)
		return ret;

	gl_take_error();
	gl_save_state(&saved);
	gl_save_draw_state(&dev->gl, &saved_draw);
	ret = capture_all(dev, &d, what);
	gl_restore_draw_state(&dev->gl, &saved_draw);
	gl_restore_state(&saved);
	return ret;
}
