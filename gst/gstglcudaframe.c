/*
 * glcudafilter's buffers: each plane's route to CUDA (a pool's image, a
 * wrapped texture, a copy through a shared image, CUDA memory), the
 * frame's hand-offs and copies (gstglcudafilterpriv.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>

#include "gstglcudafilterpriv.h"

#ifndef GL_READ_FRAMEBUFFER
#define GL_READ_FRAMEBUFFER 0x8CA8
#endif
#ifndef GL_DRAW_FRAMEBUFFER
#define GL_DRAW_FRAMEBUFFER 0x8CA9
#endif

static const char *const route_names[ROUTE_COUNT] = {
	"pooled", "wrapped", "copied", "cuda"
};

#define MS(t0, t1) ((double)((t1) - (t0)) / 1000.0)

/* GL thread: a copy of one texture into another, on the GPU (the copy
 * path only). The framebuffers are the element's; 0 is bound after. */
static int
blit(GstGlcudaFilter *self, guint src, guint dst, int w, int h, GError **error)
{
	const GstGLFuncs *gl = GST_GL_BASE_FILTER(self)->context->gl_vtable;

	if (!gl->BlitFramebuffer)
		return gcf_set_error(error, GLCUDA_ERROR_MISSING_GL_EXTENSION,
				 "the copy path needs glBlitFramebuffer "
				 "(GL 3.0 / GLES 3.0)");
	if (!self->fbo[0])
		gl->GenFramebuffers(2, self->fbo);
	gl->BindFramebuffer(GL_READ_FRAMEBUFFER, self->fbo[0]);
	gl->FramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
				 GL_TEXTURE_2D, src, 0);
	gl->BindFramebuffer(GL_DRAW_FRAMEBUFFER, self->fbo[1]);
	gl->FramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
				 GL_TEXTURE_2D, dst, 0);
	gl->BlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT,
			    GL_NEAREST);
	gl->FramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
				 GL_TEXTURE_2D, 0, 0);
	gl->FramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
				 GL_TEXTURE_2D, 0, 0);
	gl->BindFramebuffer(GL_FRAMEBUFFER, 0);
	return 0;
}

/* GL thread: one of the copy path's shared images, at this size and
 * format. */
static int
ensure_stage(GstGlcudaFilter *self, struct glcuda_image **stage,
	     enum glcuda_format format, uint32_t w, uint32_t h, GError **error)
{
	struct glcuda_image_desc desc;
	int ret;

	if (*stage && glcuda_image_get_width(*stage) == w &&
	    glcuda_image_get_height(*stage) == h &&
	    glcuda_image_get_format(*stage) == format)
		return 0;
	glcuda_image_destroy(*stage);
	*stage = NULL;
	glcuda_image_desc_init(&desc);
	desc.width = w;
	desc.height = h;
	desc.format = format;
	ret = glcuda_image_new(self->device->dev, &desc, stage);
	if (ret < 0)
		gcf_set_error(error, ret, "glcuda_image_new(%ux%u %s): %s", w,
			      h, glcuda_format_get_name(format),
			      glcuda_device_get_last_error(self->device->dev));
	return ret;
}

/* The image of @mem if it is a pooled memory of @d; NULL for NULL. */
static struct glcuda_image *
pooled_image(struct gcf_device *d, GstGLMemory *mem)
{
	return mem ? gcf_pooled_image(d, mem) : NULL;
}

/* A texture route=wrap asked to wrap is copied: the device does not
 * register GL textures (no GL interop: the fake driver of the tests), or
 * not of this format. Said once. */
static void
say_no_wrap(GstGlcudaFilter *self, const struct gcf_frame *f)
{
	if (f->route != TEXTURE_ROUTE_WRAP || self->said_no_wrap)
		return;
	self->said_no_wrap = TRUE;
	GST_WARNING_OBJECT(self,
			   "route=wrap: this device does not register GL "
			   "textures of %s with CUDA; copying them into and "
			   "out of shared images on the GPU instead",
			   gst_video_format_to_string(f->fmt->video));
}

/* GL thread: every plane's images in CUDA's sight, for f->mem_in and
 * f->mem_out: a pool's image as it is; else, as the route property says,
 * a shared image the input is copied into or the output copied out of
 * (copy; auto where the driver registers no GL texture), or the texture
 * wrapped (auto, wrap), the copy where the driver or the format refuses
 * registration. CUDA
 * memory goes through a shared image too, copied by CUDA (cuda_work). */
static int
choose_routes(GstGlcudaFilter *self, struct gcf_frame *f, GError **error)
{
	const struct gcf_format *fmt = f->fmt;
	struct gcf_device *d = self->device;
	const guint format_bit = 1u << (guint)(fmt - gcf_formats);
	/* Whether the driver registers this format's textures: also where
	 * CUDA copies between arrays ("none", below). */
	gboolean can_wrap =
		!(d->wrap_refused & format_bit) &&
		(glcuda_device_get_caps(d->dev)->image_kinds_supported &
		 (1u << GLCUDA_IMAGE_KIND_GL_TEXTURE));
	gboolean wrap = can_wrap && f->route != TEXTURE_ROUTE_COPY;
	gboolean identity = !self->function && self->run_filter == FILTER_NONE;
	GstGLMemory *refused = NULL;
	guint p;
	int ret = 0;

	for (p = 0; p < f->n; p++) {
		GstGLMemory *min = f->mem_in[p], *mout = f->mem_out[p];
		GstGLMemory *gl = min ? min : mout;

		f->w[p] = (uint32_t)gst_gl_memory_get_texture_width(gl);
		f->h[p] = (uint32_t)gst_gl_memory_get_texture_height(gl);
		if (min && mout &&
		    (f->w[p] !=
			     (uint32_t)gst_gl_memory_get_texture_width(mout) ||
		     f->h[p] !=
			     (uint32_t)gst_gl_memory_get_texture_height(mout)))
			return gcf_set_error(
				error, -EINVAL,
				"plane %u: input "
				"%ux%u and output %dx%d differ",
				p, f->w[p], f->h[p],
				gst_gl_memory_get_texture_width(mout),
				gst_gl_memory_get_texture_height(mout));
		/* Images of a glcuda pool (ours or another glcudafilter's
		 * on this device) go to CUDA as they are. */
		f->in[p] = pooled_image(d, min);
		f->out[p] = pooled_image(d, mout);
		f->in_routes[p] = f->out_routes[p] = ROUTE_POOLED;
	}
	for (p = 0; p < f->n && wrap && ret == 0; p++) {
		if (!f->in[p] && f->mem_in[p]) {
			f->in_routes[p] = ROUTE_WRAPPED;
			ret = gcf_wrap_get(d, f->mem_in[p], 0, &f->in[p]);
			refused = f->mem_in[p];
		}
		if (ret == 0 && !f->out[p] && f->mem_out[p]) {
			f->out_routes[p] = ROUTE_WRAPPED;
			ret = gcf_wrap_get(d, f->mem_out[p],
					   GLCUDA_WRAP_FLAG_WRITE_DISCARD,
					   &f->out[p]);
			refused = f->mem_out[p];
		}
	}
	if (ret < 0) {
		/* The driver or the format refuses registration: copies from
		 * now on, for what is not a pool's image. A warning where
		 * route=wrap asked for the wrap; auto's copy is no surprise
		 * (RGB10A2: CUDA registers no such texture). */
		GST_CAT_LEVEL_LOG(
			GST_CAT_DEFAULT,
			f->route == TEXTURE_ROUTE_WRAP ? GST_LEVEL_WARNING :
							 GST_LEVEL_INFO,
			self,
			"cannot wrap GL texture %u (%s): %s (%s); copying %s "
			"into and out of shared images on the GPU instead",
			gst_gl_memory_get_texture_id(refused),
			gst_video_format_to_string(fmt->video),
			glcuda_strerror(ret),
			glcuda_device_get_last_error(d->dev),
			gst_video_format_to_string(fmt->video));
		d->wrap_refused |= format_bit;
		can_wrap = FALSE;
		self->said_no_wrap = TRUE;
		for (p = 0; p < f->n; p++) {
			f->in[p] = pooled_image(d, f->mem_in[p]);
			f->out[p] = pooled_image(d, f->mem_out[p]);
			f->in_routes[p] = f->out_routes[p] = ROUTE_POOLED;
		}
	}
	for (p = 0; p < f->n; p++) {
		if (f->in[p])
			continue;
		f->in_routes[p] = f->mem_in[p] ? ROUTE_COPIED : ROUTE_CUDA;
		if (f->mem_in[p])
			say_no_wrap(self, f);
		ret = ensure_stage(self, &self->stage_in[p], fmt->planes[p],
				   f->w[p], f->h[p], error);
		if (ret == 0 && f->mem_in[p])
			ret = blit(
				self,
				gst_gl_memory_get_texture_id(f->mem_in[p]),
				glcuda_image_get_gl_texture(self->stage_in[p]),
				(int)f->w[p], (int)f->h[p], error);
		if (ret < 0)
			return ret;
		f->in[p] = self->stage_in[p];
	}
	/* "none" is a copy: CUDA's, array to array, where CUDA registers GL
	 * textures. Elsewhere (CUDA may not copy between the arrays of
	 * shared images: the fake driver) the input's images alone are
	 * handed to CUDA and back, the frame's hand-off as for any filter,
	 * and GL copies them into the output textures. Into CUDA memory,
	 * CUDA copies the input's images. */
	f->hand_out = TRUE;
	f->in_route = f->out_route = ROUTE_POOLED;
	for (p = 0; p < f->n; p++) {
		if (identity && (!can_wrap || f->cuda_out)) {
			f->hand_out = FALSE;
			f->out_routes[p] = f->cuda_out ? ROUTE_CUDA :
							 ROUTE_COPIED;
		} else if (!f->out[p]) {
			f->out_routes[p] = f->cuda_out ? ROUTE_CUDA :
							 ROUTE_COPIED;
			if (!f->cuda_out)
				say_no_wrap(self, f);
			ret = ensure_stage(self, &self->stage_out[p],
					   fmt->planes[p], f->w[p], f->h[p],
					   error);
			if (ret < 0)
				return ret;
			f->out[p] = self->stage_out[p];
		}
		f->in_route = MAX(f->in_route, f->in_routes[p]);
		f->out_route = MAX(f->out_route, f->out_routes[p]);
	}
	return 0;
}

/* Every plane of the CUDA memory frame into the input's images
 * (@to_memory FALSE), or of the output's images (the input's for "none")
 * into the CUDA memory frame: one copy each of the frame's
 * glcuda_copy_linear() batch, appended to @copies. */
static void
cuda_memory_copies(const struct gcf_frame *f, gboolean to_memory,
		   struct glcuda_linear_copy *copies, unsigned int *count)
{
	GstVideoFrame *frame = to_memory ? f->cuda_out : f->cuda_in;
	guint p;

	for (p = 0; p < f->n; p++) {
		struct glcuda_linear_copy *c = &copies[(*count)++];
		CUdeviceptr mem =
			(CUdeviceptr)GST_VIDEO_FRAME_PLANE_DATA(frame, p);
		size_t pitch = (size_t)GST_VIDEO_FRAME_PLANE_STRIDE(frame, p);

		memset(c, 0, sizeof(*c));
		c->image = !to_memory ? f->in[p] :
			   f->hand_out ? f->out[p] : f->in[p];
		c->plane = 0;
		c->layer = 0;
		c->linear = mem;
		c->row_pitch = pitch;
		c->direction = to_memory ? GLCUDA_COPY_TO_LINEAR :
					   GLCUDA_COPY_FROM_LINEAR;
	}
}

/* The frame's filter, between the copies out of CUDA memory and into it:
 * glcuda_copy_linear()'s callback. */
struct cuda_work {
	GstGlcudaFilter *self;
	const struct gcf_frame *f;
	gboolean timed;
	gint64 *t;
	GError **error;
	gboolean error_set; /* *error says what failed */
};

static int
cuda_work_enqueue(void *data, CUstream stream)
{
	struct cuda_work *w = data;
	GstGlcudaFilter *self = w->self;
	const struct gcf_frame *f = w->f;
	int ret = 0;

	g_assert(stream == self->work_stream);
	if (w->timed) {
		w->t[2] = g_get_monotonic_time();
		gcf_gpu_timing_start(self);
	}
	if (f->hand_out)
		ret = gcf_run_cuda(self, f->fmt, f->in, f->out, f->w, f->h,
				   w->error);
	w->error_set = ret < 0;
	if (w->timed) {
		if (ret == 0)
			gcf_gpu_timing_end(self);
		w->t[3] = g_get_monotonic_time();
	}
	return ret;
}

/* GL thread: the frame's CUDA work between its two hand-offs, in one
 * glcuda_copy_linear() on the frame's stream: every plane of input and
 * output handed to CUDA, the copies out of the input's CUDA memory, the
 * filter, the copies into the output's CUDA memory, and every image
 * handed back to GL, whatever the work did. t[1..4] (when @timed): the GL
 * thread's times before the call, at the filter's start (the hand-off
 * and the copies in enqueued), after it and after the call. */
static int
cuda_work(GstGlcudaFilter *self, const struct gcf_frame *f, gboolean timed,
	  gint64 *t, GError **error)
{
	struct glcuda_device *dev = self->device->dev;
	struct glcuda_linear_copy copies[2 * GCF_MAX_PLANES];
	struct glcuda_copy_desc desc;
	struct glcuda_image *images[2 * GCF_MAX_PLANES];
	struct cuda_work w = { self, f, timed, t, error, FALSE };
	unsigned int count = 0, n_images = 0;
	guint p;
	int ret;

	if (f->cuda_in)
		cuda_memory_copies(f, FALSE, copies, &count);
	if (f->cuda_out)
		cuda_memory_copies(f, TRUE, copies, &count);
	glcuda_copy_desc_init(&desc);
	desc.copies = copies;
	desc.copy_count = count;
	/* The input's images are handed off even when no copy names them,
	 * and the output's when the filter writes them. */
	for (p = 0; p < f->n; p++)
		images[n_images++] = f->in[p];
	for (p = 0; p < f->n && f->hand_out; p++)
		images[n_images++] = f->out[p];
	desc.images = images;
	desc.image_count = n_images;
	desc.stream = self->work_stream;
	desc.enqueue = cuda_work_enqueue;
	desc.enqueue_data = &w;
	if (timed)
		t[1] = g_get_monotonic_time();
	ret = glcuda_copy_linear(dev, &desc);
	if (timed)
		t[4] = g_get_monotonic_time();
	if (ret < 0 && !w.error_set)
		gcf_set_error(error, ret, "glcuda_copy_linear: %s: %s",
			      glcuda_strerror(ret),
			      glcuda_device_get_last_error(dev));
	return ret;
}

/* GL thread, the images handed back to GL: the planes whose output route
 * is a copy, from CUDA's result (or the input, for "none" on the copy
 * path) into the output textures. */
static int
copy_out(GstGlcudaFilter *self, const struct gcf_frame *f, GError **error)
{
	int ret = 0;

	for (guint p = 0; p < f->n && ret == 0; p++) {
		struct glcuda_image *from = f->hand_out ? f->out[p] : f->in[p];

		if (f->out_routes[p] == ROUTE_COPIED)
			ret = blit(self, glcuda_image_get_gl_texture(from),
				   gst_gl_memory_get_texture_id(f->mem_out[p]),
				   (int)f->w[p], (int)f->h[p], error);
	}
	return ret;
}

#if defined(HAVE_GST_CUDA) && GCF_CUDA_STREAMS
/* GStreamer 1.24 and later: @waiter's later work after what @signaller
 * has enqueued so far, on the GPU (the element's event). */
static int
order_streams(GstGlcudaFilter *self, CUstream waiter, CUstream signaller,
	      GError **error)
{
	CUcontext dummy;
	CUresult res;
	char buf[256];
	const char *what = "cuEventCreate";

	if (CU(cuCtxPushCurrent)(self->cuda_ctx) != CUDA_SUCCESS)
		return gcf_set_error(error, GLCUDA_ERROR_CUDA,
				 "cuCtxPushCurrent failed");
	res = self->order_event ? CUDA_SUCCESS
				: CU(cuEventCreate)(&self->order_event,
						    CU_EVENT_DISABLE_TIMING);
	if (res == CUDA_SUCCESS) {
		what = "cuEventRecord";
		res = CU(cuEventRecord)(self->order_event, signaller);
	}
	if (res == CUDA_SUCCESS) {
		what = "cuStreamWaitEvent";
		res = CU(cuStreamWaitEvent)(waiter, self->order_event, 0);
	}
	CU(cuCtxPopCurrent)(&dummy);
	if (res != CUDA_SUCCESS)
		return gcf_set_error(error, GLCUDA_ERROR_CUDA, "%s: %s", what,
				 tools_cuda_result(res, buf, sizeof(buf)));
	return 0;
}

/* Waits on the CPU for the frame's CUDA work (GStreamer 1.24 and later,
 * CUDA memory out without a stream: see gcf_process()). */
static int
finish_frame(GstGlcudaFilter *self, GError **error)
{
	gint64 t0 = g_get_monotonic_time();
	CUcontext dummy;
	CUresult res;
	char buf[256];

	if (CU(cuCtxPushCurrent)(self->cuda_ctx) != CUDA_SUCCESS)
		return gcf_set_error(error, GLCUDA_ERROR_CUDA,
				 "cuCtxPushCurrent failed");
	res = CU(cuStreamSynchronize)(self->work_stream);
	CU(cuCtxPopCurrent)(&dummy);
	GST_DEBUG_OBJECT(self, "frame %" G_GUINT64_FORMAT ": waited %.3f ms "
			 "for the CUDA work before the push", self->frames,
			 MS(t0, g_get_monotonic_time()));
	if (res != CUDA_SUCCESS)
		return gcf_set_error(error, GLCUDA_ERROR_CUDA,
				 "cuStreamSynchronize: %s",
				 tools_cuda_result(res, buf, sizeof(buf)));
	return 0;
}
#endif

/* @mem's texture; 0 for NULL (CUDA memory). */
static guint
texture_id(GstGLMemory *mem)
{
	return mem ? gst_gl_memory_get_texture_id(mem) : 0;
}

/* One buffer: the planes of f->mem_in to f->mem_out. */
int
gcf_process(GstGlcudaFilter *self, struct gcf_frame *f, GError **error)
{
	const char *video = gst_video_format_to_string(f->fmt->video);
	/* The GL thread's time in each stage: inputs ready (wraps, copies
	 * in), hand-off to CUDA, CUDA work enqueued, hand-off to GL, outputs
	 * (copies out). The CPU's, not the GPU's, but for the CUDA work's. */
	const gboolean timed = gst_debug_category_get_threshold(
				       GST_CAT_DEFAULT) >= GST_LEVEL_DEBUG;
	gint64 t[6] = { 0 };
	int routes, ret;
#if defined(HAVE_GST_CUDA) && GCF_CUDA_STREAMS
	CUstream in_stream = NULL, out_stream = NULL;
#endif

	if (timed)
		t[0] = g_get_monotonic_time();
#if defined(HAVE_GST_CUDA) && GCF_CUDA_STREAMS
	/* The output memory's stream (downstream's, or the element's own),
	 * else the input's (upstream's), else the element's: consumers on
	 * that stream need no wait. An input on another stream is ordered
	 * on the GPU, both ways (below). */
	if (f->cuda_in)
		in_stream = gcf_cuda_frame_stream(f->cuda_in);
	if (f->cuda_out)
		out_stream = gcf_cuda_frame_stream(f->cuda_out);
	self->work_stream = out_stream ? out_stream
			  : in_stream  ? in_stream
				       : self->stream;
	if (in_stream && in_stream != self->work_stream) {
		ret = order_streams(self, self->work_stream, in_stream, error);
		if (ret < 0)
			return ret;
	}
#elif defined(HAVE_GST_CUDA)
	self->work_stream = f->cuda_in || f->cuda_out ?
			    GCF_CUDA_MEMORY_STREAM : self->stream;
#endif
	ret = choose_routes(self, f, error);
	if (ret < 0)
		return ret;
	routes = (int)(f->in_route * ROUTE_COUNT + f->out_route);
	if (self->logged_routes != routes) {
		GST_INFO_OBJECT(
			self, "%ux%u %s (%u planes): input %s, output %s",
			f->w[0], f->h[0], video, f->n, route_names[f->in_route],
			route_names[f->out_route]);
		self->logged_routes = routes;
	}
	ret = cuda_work(self, f, timed, t, error);
	if (ret == 0)
		ret = copy_out(self, f, error);
#if defined(HAVE_GST_CUDA) && GCF_CUDA_STREAMS
	/* Upstream's later work (a new frame into the same memory) after
	 * the element's reads. */
	if (ret == 0 && in_stream && in_stream != self->work_stream)
		ret = order_streams(self, in_stream, self->work_stream, error);
	/* A memory without a stream: its consumers wait for nothing, so
	 * the frame is finished before it is pushed (a CPU wait, in the
	 * timings below). */
	if (ret == 0 && f->cuda_out && !out_stream)
		ret = finish_frame(self, error);
#endif
	if (ret < 0)
		return ret;
	if (timed) {
		t[5] = g_get_monotonic_time();
		GST_DEBUG_OBJECT(self, "frame %" G_GUINT64_FORMAT ": GL thread "
				 "%.3f ms: inputs %.3f (%s), to CUDA %.3f, "
				 "CUDA work enqueued %.3f, to GL %.3f, outputs "
				 "%.3f (%s)", self->frames, MS(t[0], t[5]),
				 MS(t[0], t[1]), route_names[f->in_route],
				 MS(t[1], t[2]), MS(t[2], t[3]), MS(t[3], t[4]),
				 MS(t[4], t[5]), route_names[f->out_route]);
	}
	GST_LOG_OBJECT(self, "frame %" G_GUINT64_FORMAT ": %s, textures %u -> "
		       "%u (plane 0; 0: CUDA memory), input %s, output %s, "
		       "hand-offs of %u images on stream %p", self->frames,
		       video, texture_id(f->mem_in[0]),
		       texture_id(f->mem_out[0]),
		       route_names[f->in_route], route_names[f->out_route],
		       f->n * (f->hand_out ? 2 : 1),
		       (void *)self->work_stream);
	self->frames++;
	GST_OBJECT_LOCK(self);
	self->stat_frames++;
	self->stat_in[f->in_route]++;
	self->stat_out[f->out_route]++;
	GST_OBJECT_UNLOCK(self);
	return 0;
}
