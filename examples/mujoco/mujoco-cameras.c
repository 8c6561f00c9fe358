/*
 * mujoco-cameras: many cameras of a MuJoCo scene rendered by MuJoCo's own
 * renderer and handed to CUDA as tensors by glcuda, without a round trip
 * through the CPU.
 *
 * MuJoCo 2.x draws with fixed-function OpenGL, so the context is a
 * compatibility-profile one (GLCUDA_HEADLESS_FLAG_COMPATIBILITY). For
 * each camera MuJoCo renders into its offscreen framebuffer (con.offFBO,
 * multisampled when the model's offsamples is not 0), and
 * glcuda_capture_framebuffers() copies its colour and depth, on the GPU,
 * into one layer of a glcuda image; the segmentation render (MuJoCo's
 * id colours) goes into the layers of a second image. After the last
 * camera, one glcuda_copy_linear() hands both images to CUDA and copies
 * every layer into linear device memory: colour as RGBA8 rows, top row
 * first (GLCUDA_ORIGIN_TOP_LEFT), depth as float32 metres (the copy turns
 * window depth into distance, GLCUDA_DEPTH_PERSPECTIVE), and the id
 * colours, which a small CUDA kernel of this file turns into int32 geom
 * ids. The capture reads the multisampled framebuffer directly; glcuda
 * resolves it as glBlitFramebuffer does, which is what MuJoCo's own
 * mjr_readPixels reads (it blits into con.offFBO_r first).
 *
 *   mujoco-cameras [--model FILE] [--cameras N] [--size WxH] [--steps S]
 *   mujoco-cameras --check      compare with mjr_readPixels, exit 1 if not
 *                               the same
 *   mujoco-cameras --bench      glcuda against mjr_readPixels and CUDA's
 *                               GL registration, and the loop with
 *                               physics
 *
 * Build (with an installed glcuda and MuJoCo 2.2):
 *   cc mujoco-cameras.c $(pkg-config --cflags --libs glcuda epoxy) \
 *       -I/usr/local/cuda/include -lmujoco -ldl -lm
 * (with example-cuda.h one folder up, as in glcuda's tree).
 * SPDX-License-Identifier: MIT
 */
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#include <glcuda/glcuda-cuda.h>

#define EXAMPLE_CUDA_MORE_FUNCTIONS(X) \
	X(cuMemAlloc) \
	X(cuMemFree) \
	X(cuMemAllocHost) \
	X(cuMemFreeHost) \
	X(cuMemcpyDtoH) \
	X(cuMemcpyHtoD) \
	X(cuMemcpyHtoDAsync) \
	X(cuStreamSynchronize)
#include "../example-cuda.h"

/* The legacy path of --bench: CUDA's own GL interop (cudaGL.h), looked up
 * only for it. */
#include <cudaGL.h>
#define BENCH_CUDA_FUNCTIONS(X) \
	X(cuGraphicsGLRegisterImage) \
	X(cuGraphicsGLRegisterBuffer) \
	X(cuGraphicsMapResources) \
	X(cuGraphicsUnmapResources) \
	X(cuGraphicsSubResourceGetMappedArray) \
	X(cuGraphicsResourceGetMappedPointer) \
	X(cuGraphicsUnregisterResource) \
	X(cuMemcpy2DAsync) \
	X(cuMemcpyDtoDAsync)

static struct {
#define BENCH_CUDA_MEMBER(name) __typeof__(name) *name;
	BENCH_CUDA_FUNCTIONS(BENCH_CUDA_MEMBER)
#undef BENCH_CUDA_MEMBER
} bench_cuda;

#define BENCH_CU(name) (bench_cuda.name)

#ifndef MUJOCO_CAMERAS_MODEL
#define MUJOCO_CAMERAS_MODEL "scene.xml"
#endif

/*
 * mujoco_segment_ids(rgba, ids, width, rows, lut, lut_size): one thread
 * per pixel of `rows` rows of `width` RGBA8 pixels (every layer, one after
 * the other). MuJoCo 2.2's id colour (mjRND_SEGMENT with mjRND_IDCOLOR) is
 * the scene geom's index plus one in R + 256 G + 65536 B, 0 where nothing
 * was drawn; ids gets lut[index], -1 for the background.
 */
static const char segment_ptx[] =
	".version 6.0\n.target sm_52\n.address_size 64\n"
	".visible .entry mujoco_segment_ids(.param .u64 rgba,\n"
	"    .param .u64 ids, .param .u32 width, .param .u32 rows,\n"
	"    .param .u64 lut, .param .u32 lut_size)\n{\n"
	"  .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<9>;\n"
	"  ld.param.u64 %rd1, [rgba]; cvta.to.global.u64 %rd1, %rd1;\n"
	"  ld.param.u64 %rd2, [ids]; cvta.to.global.u64 %rd2, %rd2;\n"
	"  ld.param.u64 %rd3, [lut]; cvta.to.global.u64 %rd3, %rd3;\n"
	"  ld.param.u32 %r1, [width]; ld.param.u32 %r2, [rows];\n"
	"  ld.param.u32 %r3, [lut_size];\n"
	"  mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ntid.x; mov.u32 %r6, %tid.x;\n"
	"  mad.lo.s32 %r7, %r4, %r5, %r6;\n" /* x */
	"  mov.u32 %r4, %ctaid.y; mov.u32 %r5, %ntid.y; mov.u32 %r6, %tid.y;\n"
	"  mad.lo.s32 %r8, %r4, %r5, %r6;\n" /* y */
	"  setp.ge.u32 %p1, %r7, %r1; setp.ge.u32 %p2, %r8, %r2;\n"
	"  or.pred %p1, %p1, %p2; @%p1 bra DONE;\n"
	"  mad.lo.s32 %r9, %r8, %r1, %r7;\n" /* pixel index */
	"  mul.wide.u32 %rd4, %r9, 4;\n"
	"  add.s64 %rd5, %rd1, %rd4; ld.global.u32 %r10, [%rd5];\n"
	"  and.b32 %r10, %r10, 16777215;\n" /* R + 256 G + 65536 B */
	"  mov.b32 %r11, -1;\n"
	"  setp.eq.u32 %p3, %r10, 0; @%p3 bra STORE;\n"
	"  sub.u32 %r10, %r10, 1;\n"
	"  setp.ge.u32 %p3, %r10, %r3; @%p3 bra STORE;\n"
	"  mul.wide.u32 %rd6, %r10, 4; add.s64 %rd7, %rd3, %rd6;\n"
	"  ld.global.u32 %r11, [%rd7];\n"
	"STORE:\n"
	"  add.s64 %rd8, %rd2, %rd4; st.global.u32 [%rd8], %r11;\n"
	"DONE:\n  ret;\n}\n";

struct options {
	const char *model;
	int cameras, width, height, steps;
	bool check, bench;
	/* --cameras and --size given: --bench measures only those. */
	bool cameras_set, size_set;
	int device;
};

/* MuJoCo's side: the model, one mjData per environment, one scene and
 * one rendering context, and the cameras. */
struct scene {
	mjModel *m;
	mjData **data;
	int envs;
	mjvScene scn;
	mjvOption opt;
	mjrContext con;
	bool have_scene, have_context;
	mjvCamera *cams;
	int cameras, width, height;
	/* The projection's planes, in metres (MuJoCo's units). */
	double znear, zfar;
};

/* glcuda's and CUDA's side: one image of colour and depth and one of id
 * colours, N layers each, and their linear copies. */
struct frames {
	struct glcuda_device *dev;
	struct glcuda_image *color, *segment;
	unsigned int layers;
	CUstream stream;
	CUdeviceptr rgba, depth, ids_rgba, ids, lut;
	unsigned int lut_size;
	CUfunction segment_ids;
};

static double
now_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool
cu_ok(CUresult res, const char *what)
{
	if (res == CUDA_SUCCESS)
		return true;
	fprintf(stderr, "mujoco-cameras: %s failed: CUDA error %d\n", what,
		(int)res);
	return false;
}

static int
glcuda_fail(struct glcuda_device *dev, int ret, const char *what)
{
	fprintf(stderr, "mujoco-cameras: %s: %s\n%s\n", what,
		glcuda_error_get_name(ret),
		dev ? glcuda_device_get_last_error(dev)
		    : glcuda_get_last_error());
	return ret;
}

/* Camera i of n: free cameras around the scene, at different azimuths,
 * distances and elevations. */
static void
camera_place(mjvCamera *cam, int i, int n)
{
	mjv_defaultCamera(cam);
	cam->type = mjCAMERA_FREE;
	cam->lookat[0] = 0.0;
	cam->lookat[1] = 0.0;
	cam->lookat[2] = 0.55;
	cam->distance = 2.6 + 0.4 * (i % 3);
	cam->azimuth = 360.0 * i / n;
	cam->elevation = -15.0 - 10.0 * (i % 3);
}

static void
scene_close(struct scene *s)
{
	if (s->have_context)
		mjr_freeContext(&s->con);
	if (s->have_scene)
		mjv_freeScene(&s->scn);
	for (int e = 0; s->data && e < s->envs; e++)
		mj_deleteData(s->data[e]);
	free(s->data);
	free(s->cams);
	if (s->m)
		mj_deleteModel(s->m);
	memset(s, 0, sizeof(*s));
}

/* Loads the model, makes envs copies of its state (each nudged a little
 * differently, so that the environments differ) and MuJoCo's rendering
 * context in the current GL context, drawing offscreen at width x
 * height. */
static int
scene_open(struct scene *s, const char *path, int cameras, int envs,
	   int width, int height)
{
	char error[1000] = "";

	memset(s, 0, sizeof(*s));
	s->m = mj_loadXML(path, NULL, error, sizeof(error));
	if (!s->m) {
		fprintf(stderr, "mujoco-cameras: cannot load %s: %s\n", path,
			error);
		return -1;
	}
	s->envs = envs;
	s->cameras = cameras;
	s->width = width;
	s->height = height;
	s->data = calloc((size_t)envs, sizeof(*s->data));
	s->cams = calloc((size_t)cameras, sizeof(*s->cams));
	if (!s->data || !s->cams)
		goto fail;
	for (int e = 0; e < envs; e++) {
		s->data[e] = mj_makeData(s->m);
		if (!s->data[e])
			goto fail;
		for (int k = 0; k < s->m->nv; k++)
			s->data[e]->qvel[k] = 0.3 * sin(1.7 * e + k);
		mj_forward(s->m, s->data[e]);
	}
	for (int i = 0; i < cameras; i++)
		camera_place(&s->cams[i], i, cameras);

	/* The offscreen buffer is made with the model's size. */
	s->m->vis.global.offwidth = width;
	s->m->vis.global.offheight = height;
	mjv_defaultOption(&s->opt);
	mjv_defaultScene(&s->scn);
	mjv_makeScene(s->m, &s->scn, 1000);
	s->have_scene = true;
	mjr_defaultContext(&s->con);
	mjr_makeContext(s->m, &s->con, mjFONTSCALE_100);
	s->have_context = true;
	mjr_setBuffer(mjFB_OFFSCREEN, &s->con);
	if (s->con.currentBuffer != mjFB_OFFSCREEN ||
	    s->con.offWidth < width || s->con.offHeight < height) {
		fprintf(stderr, "mujoco-cameras: MuJoCo has no offscreen "
				"buffer of %dx%d\n",
			width, height);
		goto fail;
	}
	/* MuJoCo's clipping planes are fractions of the model's extent. */
	s->znear = s->m->vis.map.znear * s->m->stat.extent;
	s->zfar = s->m->vis.map.zfar * s->m->stat.extent;
	return 0;
fail:
	scene_close(s);
	return -1;
}

/* Renders camera cam of environment env into MuJoCo's offscreen buffer:
 * the picture, or with segment the id colours. */
static void
scene_render(struct scene *s, int env, int cam, bool segment)
{
	const mjrRect viewport = { 0, 0, s->width, s->height };

	mjv_updateScene(s->m, s->data[env], &s->opt, NULL, &s->cams[cam],
			mjCAT_ALL, &s->scn);
	s->scn.flags[mjRND_SEGMENT] = segment;
	s->scn.flags[mjRND_IDCOLOR] = segment;
	mjr_render(viewport, &s->scn, &s->con);
}

/* The object an id colour's index names: the model's geom id, -1 for
 * what is not a geom of the model (decorations). */
static int32_t
scene_geom_id(const mjvScene *scn, uint32_t index)
{
	if (index >= (uint32_t)scn->ngeom ||
	    scn->geoms[index].objtype != mjOBJ_GEOM)
		return -1;
	return scn->geoms[index].objid;
}

static void
frames_close(struct frames *f)
{
	CUdeviceptr *blocks[] = { &f->rgba, &f->depth, &f->ids_rgba, &f->ids,
				  &f->lut };

	if (f->stream)
		EXAMPLE_CU(cuStreamSynchronize)(f->stream);
	for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++)
		if (*blocks[i])
			EXAMPLE_CU(cuMemFree)(*blocks[i]);
	glcuda_image_destroy(f->color);
	glcuda_image_destroy(f->segment);
	f->color = f->segment = NULL;
	f->rgba = f->depth = f->ids_rgba = f->ids = f->lut = 0;
}

/* The images and the linear blocks of n layers of width x height, and
 * the table from id colours to geom ids of the scene's last update. */
static int
frames_open(struct frames *f, struct scene *s, unsigned int n)
{
	struct glcuda_image_desc desc;
	const size_t plane = (size_t)s->width * (size_t)s->height * 4;
	int32_t *lut;
	int ret;

	glcuda_image_desc_init(&desc);
	desc.width = (uint32_t)s->width;
	desc.height = (uint32_t)s->height;
	desc.format = GLCUDA_FORMAT_RGBA8;
	desc.layers = n;
	desc.depth_format = GLCUDA_FORMAT_DEPTH32F;
	ret = glcuda_image_new(f->dev, &desc, &f->color);
	if (ret)
		return glcuda_fail(f->dev, ret, "glcuda_image_new (colour)");
	desc.depth_format = GLCUDA_FORMAT_INVALID;
	ret = glcuda_image_new(f->dev, &desc, &f->segment);
	if (ret)
		return glcuda_fail(f->dev, ret, "glcuda_image_new (ids)");
	f->layers = n;

	/* The scene's geoms come in the same order at every update of this
	 * model with these options (the check compares every camera's). */
	scene_render(s, 0, 0, true);
	f->lut_size = (unsigned int)s->scn.maxgeom;
	lut = malloc(f->lut_size * sizeof(*lut));
	if (!lut)
		return -1;
	for (uint32_t i = 0; i < f->lut_size; i++)
		lut[i] = scene_geom_id(&s->scn, i);
	if (!cu_ok(EXAMPLE_CU(cuMemAlloc)(&f->rgba, plane * n), "cuMemAlloc") ||
	    !cu_ok(EXAMPLE_CU(cuMemAlloc)(&f->depth, plane * n),
		   "cuMemAlloc") ||
	    !cu_ok(EXAMPLE_CU(cuMemAlloc)(&f->ids_rgba, plane * n),
		   "cuMemAlloc") ||
	    !cu_ok(EXAMPLE_CU(cuMemAlloc)(&f->ids, plane * n), "cuMemAlloc") ||
	    !cu_ok(EXAMPLE_CU(cuMemAlloc)(&f->lut, f->lut_size * sizeof(*lut)),
		   "cuMemAlloc") ||
	    !cu_ok(EXAMPLE_CU(cuMemcpyHtoD)(f->lut, lut,
					    f->lut_size * sizeof(*lut)),
		   "cuMemcpyHtoD")) {
		free(lut);
		return -1;
	}
	free(lut);
	return 0;
}

/* MuJoCo's offscreen framebuffer into layer i of an image: colour and
 * depth, or the id colours. Enqueued on the GPU; nothing waits. */
static int
capture(struct frames *f, struct scene *s, struct glcuda_image *img,
	unsigned int layer, unsigned int flags)
{
	const struct glcuda_capture one = {
		.framebuffer = s->con.offFBO,
		.image = img,
		.layer = layer,
		.flags = flags,
	};
	struct glcuda_capture_desc desc;
	int ret;

	glcuda_capture_desc_init(&desc);
	desc.captures = &one;
	desc.count = 1;
	/* GL's row order here; the copy below flips the rows. */
	desc.origin = GLCUDA_ORIGIN_BOTTOM_LEFT;
	ret = glcuda_capture_framebuffers(f->dev, &desc);
	if (ret)
		glcuda_fail(f->dev, ret, "glcuda_capture_framebuffers");
	return ret;
}

/* Every layer of both images into linear memory, in one hand-off: colour
 * (and ids) with the picture's top row first, depth in metres, then the
 * kernel that turns id colours into ids, on the same stream. With
 * stored_depth, depth goes there as stored instead (window depth in
 * [0, 1]) and nothing else is copied. */
static int
frames_copy(struct frames *f, struct scene *s, bool segment,
	    CUdeviceptr stored_depth)
{
	const size_t row = (size_t)s->width * 4;
	const size_t layer = row * (size_t)s->height;
	const struct glcuda_linear_copy copies[] = {
		{ f->color, 1, GLCUDA_ALL_LAYERS,
		  stored_depth ? stored_depth : f->depth, row, layer,
		  GLCUDA_COPY_TO_LINEAR },
		{ f->color, 0, GLCUDA_ALL_LAYERS, f->rgba, row, layer,
		  GLCUDA_COPY_TO_LINEAR },
		{ f->segment, 0, GLCUDA_ALL_LAYERS, f->ids_rgba, row, layer,
		  GLCUDA_COPY_TO_LINEAR },
	};
	struct glcuda_copy_desc desc;
	unsigned int width = (unsigned int)s->width;
	unsigned int rows = (unsigned int)s->height * f->layers;
	void *args[] = { &f->ids_rgba, &f->ids, &width, &rows, &f->lut,
			 &f->lut_size };
	int ret;

	glcuda_copy_desc_init(&desc);
	desc.copies = copies;
	desc.copy_count = stored_depth ? 1 : segment ? 3 : 2;
	desc.stream = f->stream;
	desc.origin = GLCUDA_ORIGIN_TOP_LEFT;
	if (!stored_depth) {
		desc.depth.mode = GLCUDA_DEPTH_PERSPECTIVE;
		desc.depth.znear = s->znear;
		desc.depth.zfar = s->zfar;
	}
	ret = glcuda_copy_linear(f->dev, &desc);
	if (ret)
		return glcuda_fail(f->dev, ret, "glcuda_copy_linear");
	if (!segment || stored_depth)
		return 0;
	if (!cu_ok(EXAMPLE_CU(cuLaunchKernel)(f->segment_ids,
					      (width + 15) / 16,
					      (rows + 15) / 16, 1, 16, 16, 1,
					      0, f->stream, args, NULL),
		   "cuLaunchKernel(mujoco_segment_ids)"))
		return -1;
	return 0;
}

/* One step of every camera of environment 0: colour, depth and ids. */
static int
frames_step(struct frames *f, struct scene *s, bool segment)
{
	for (int i = 0; i < s->cameras; i++) {
		scene_render(s, 0, i, false);
		if (capture(f, s, f->color, (unsigned int)i,
			    GLCUDA_CAPTURE_COLOR | GLCUDA_CAPTURE_DEPTH))
			return -1;
		if (!segment)
			continue;
		scene_render(s, 0, i, true);
		if (capture(f, s, f->segment, (unsigned int)i,
			    GLCUDA_CAPTURE_COLOR))
			return -1;
	}
	return frames_copy(f, s, segment, 0);
}

/* ---------------------------------------------------------------------- */
/* --check: the same cameras read back by MuJoCo (mjr_readPixels, bottom
 * row first, RGB) against the tensors glcuda made. */

struct reference {
	uint8_t *rgb, *id_rgb;
	float *depth;
	int32_t *ids;
};

struct results {
	uint8_t *rgba;
	float *depth, *metres;
	int32_t *ids;
};

/* The distance of window depth d, computed here in double as the rule
 * says, independently of what was asked of glcuda. */
static double
expected_metres(const mjModel *m, float d)
{
	const double n = m->vis.map.znear * m->stat.extent;
	const double f = m->vis.map.zfar * m->stat.extent;

	return n * f / (f - (double)d * (f - n));
}

/* The mismatches of one kind in a step: how many, and the first. */
struct mismatch {
	const char *what;
	size_t count;
	char first[160];
};

static void
mismatch_add(struct mismatch *m, int c, int x, int y, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void
mismatch_add(struct mismatch *m, int c, int x, int y, const char *fmt, ...)
{
	va_list args;
	int n;

	if (m->count++)
		return;
	n = snprintf(m->first, sizeof(m->first), "camera %d pixel (%d, %d) "
		     "from the top: ", c, x, y);
	va_start(args, fmt);
	vsnprintf(m->first + n, sizeof(m->first) - (size_t)n, fmt, args);
	va_end(args);
}

/* Each kind is judged on its own, so that one wrong kind does not hide
 * another: colour and depth as stored against mjr_readPixels, metres
 * against the formula applied to the depth glcuda stored, ids against
 * those decoded from mjr_readPixels. */
static int
check_step(struct scene *s, const struct reference *ref,
	   const struct results *got, int step)
{
	const int w = s->width, h = s->height, n = s->cameras;
	struct mismatch kinds[] = {
		{ "colour bytes" }, { "depth values (as stored)" },
		{ "distances (metres)" }, { "ids" }, { "cameras" },
	};
	double worst = 0;
	int failed = 0, objects = 0;
	bool seen[1024] = { false };

	for (int c = 0; c < n; c++) {
		int distinct = 0;
		bool here[1024] = { false };

		for (int y = 0; y < h; y++) {
			/* Row y from the top is MuJoCo's row h - 1 - y. */
			const size_t t = ((size_t)c * h + y) * w;
			const size_t b = ((size_t)c * h + (h - 1 - y)) * w;

			for (int x = 0; x < w; x++) {
				const uint8_t *g = got->rgba + 4 * (t + x);
				const uint8_t *r = ref->rgb + 3 * (b + x);
				const float dg = got->depth[t + x];
				const float dr = ref->depth[b + x];
				const double want = expected_metres(s->m, dg);
				const double err =
					fabs(got->metres[t + x] - want) /
					fabs(want);
				const int32_t id = got->ids[t + x];

				if (memcmp(g, r, 3))
					mismatch_add(&kinds[0], c, x, y,
						     "%u %u %u, mjr_readPixels "
						     "%u %u %u",
						     g[0], g[1], g[2], r[0],
						     r[1], r[2]);
				if (memcmp(&dg, &dr, sizeof(dg)))
					mismatch_add(&kinds[1], c, x, y,
						     "%.9g, mjr_readPixels "
						     "%.9g",
						     dg, dr);
				if (!(err <= 1e-6))
					mismatch_add(&kinds[2], c, x, y,
						     "%.9g m, expected %.9g m "
						     "(depth %.9g)",
						     got->metres[t + x], want,
						     dg);
				if (id != ref->ids[b + x])
					mismatch_add(&kinds[3], c, x, y,
						     "%d, decoded from "
						     "mjr_readPixels %d",
						     id, ref->ids[b + x]);
				if (err > worst)
					worst = err;
				if (id >= 0 && id < 1024 && !here[id]) {
					here[id] = seen[id] = true;
					distinct++;
				}
			}
		}
		/* Equal but empty would prove nothing. */
		if (distinct < 2)
			mismatch_add(&kinds[4], c, 0, 0,
				     "%d object(s) in view: the scene is not "
				     "in view",
				     distinct);
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (!kinds[k].count)
			continue;
		printf("FAIL: step %d: %zu %s differ; the first: %s\n", step,
		       kinds[k].count, kinds[k].what, kinds[k].first);
		failed = 1;
	}
	for (int i = 0; i < 1024; i++)
		objects += seen[i];
	if (failed)
		return -1;
	printf("check: step %d: %d cameras of %dx%d: colour %zu bytes and "
	       "depth %zu values equal to mjr_readPixels, metres within "
	       "%.1e (relative), %zu ids equal, %d geoms seen\n",
	       step, n, w, h, (size_t)w * h * n * 3, (size_t)w * h * n,
	       worst, (size_t)w * h * n, objects);
	return 0;
}

static int
run_check(struct frames *f, struct scene *s, int steps)
{
	const size_t px = (size_t)s->width * s->height * s->cameras;
	const mjrRect viewport = { 0, 0, s->width, s->height };
	const size_t one = (size_t)s->width * s->height;
	struct reference ref = {
		malloc(px * 3), malloc(px * 3), malloc(px * 4), malloc(px * 4),
	};
	struct results got = { malloc(px * 4), malloc(px * 4), malloc(px * 4),
			       malloc(px * 4) };
	CUdeviceptr stored = 0;
	int status = -1;

	if (!ref.rgb || !ref.id_rgb || !ref.depth || !ref.ids || !got.rgba ||
	    !got.depth || !got.metres || !got.ids ||
	    !cu_ok(EXAMPLE_CU(cuMemAlloc)(&stored, px * 4), "cuMemAlloc"))
		goto out;
	for (int step = 0; step < steps; step++) {
		mj_step(s->m, s->data[0]);
		for (int c = 0; c < s->cameras; c++) {
			scene_render(s, 0, c, false);
			if (capture(f, s, f->color, (unsigned int)c,
				    GLCUDA_CAPTURE_COLOR |
					    GLCUDA_CAPTURE_DEPTH))
				goto out;
			mjr_readPixels(ref.rgb + 3 * one * c,
				       ref.depth + one * c, viewport, &s->con);
			scene_render(s, 0, c, true);
			if (capture(f, s, f->segment, (unsigned int)c,
				    GLCUDA_CAPTURE_COLOR))
				goto out;
			mjr_readPixels(ref.id_rgb + 3 * one * c, NULL, viewport,
				       &s->con);
			/* The id colours decoded here, with this camera's
			 * own scene. */
			for (size_t i = one * c; i < one * (c + 1); i++) {
				const uint8_t *p = ref.id_rgb + 3 * i;
				uint32_t segid = p[0] | p[1] << 8 | p[2] << 16;

				ref.ids[i] = segid ? scene_geom_id(&s->scn,
								   segid - 1)
						   : -1;
			}
		}
		if (frames_copy(f, s, true, 0) ||
		    frames_copy(f, s, true, stored))
			goto out;
		if (!cu_ok(EXAMPLE_CU(cuStreamSynchronize)(f->stream),
			   "cuStreamSynchronize") ||
		    !cu_ok(EXAMPLE_CU(cuMemcpyDtoH)(got.rgba, f->rgba, px * 4),
			   "cuMemcpyDtoH") ||
		    !cu_ok(EXAMPLE_CU(cuMemcpyDtoH)(got.metres, f->depth,
						    px * 4),
			   "cuMemcpyDtoH") ||
		    !cu_ok(EXAMPLE_CU(cuMemcpyDtoH)(got.depth, stored, px * 4),
			   "cuMemcpyDtoH") ||
		    !cu_ok(EXAMPLE_CU(cuMemcpyDtoH)(got.ids, f->ids, px * 4),
			   "cuMemcpyDtoH"))
			goto out;
		if (check_step(s, &ref, &got, step))
			goto out;
	}
	printf("check: PASS\n");
	status = 0;
out:
	if (status)
		printf("check: FAIL\n");
	if (stored)
		EXAMPLE_CU(cuMemFree)(stored);
	free(ref.rgb);
	free(ref.id_rgb);
	free(ref.depth);
	free(ref.ids);
	free(got.rgba);
	free(got.depth);
	free(got.metres);
	free(got.ids);
	return status;
}

/* ---------------------------------------------------------------------- */
/* --bench */

struct measure {
	double wall, cpu; /* seconds, for all steps */
	long frames, steps;
	/* glcuda's path: the CPU in mjr_render and in the captures, and in
	 * the one copy per step (seconds, for all steps). */
	double render_cpu, capture_cpu, copy_cpu;
};

static void
measure_start(struct measure *m, double t[2])
{
	memset(m, 0, sizeof(*m));
	t[0] = now_s(CLOCK_MONOTONIC);
	t[1] = now_s(CLOCK_THREAD_CPUTIME_ID);
}

/* After the steps: wait for the GPU, then the totals. */
static void
measure_stop(struct measure *m, const double t[2], CUstream stream,
	     long steps, long frames)
{
	glFinish();
	EXAMPLE_CU(cuStreamSynchronize)(stream);
	m->wall = now_s(CLOCK_MONOTONIC) - t[0];
	m->cpu = now_s(CLOCK_THREAD_CPUTIME_ID) - t[1];
	m->steps = steps;
	m->frames = frames;
}

static void
measure_print(const struct measure *m, int cameras, const struct scene *s,
	      const char *method)
{
	if (!m->steps) {
		printf("%7d  %4dx%-4d  %-34s %12s %12s\n", cameras, s->width,
		       s->height, method, "n/a", "n/a");
		return;
	}
	printf("%7d  %4dx%-4d  %-34s %12.0f %12.0f\n", cameras, s->width,
	       s->height, method, (double)m->frames / m->wall,
	       m->cpu / (double)m->steps * 1e6);
	if (m->capture_cpu > 0)
		printf("%7s  %9s    of which CPU us: mjr_render %.1f and "
		       "capture %.1f a camera, the copy %.1f a step\n",
		       "", "", m->render_cpu / (double)m->frames * 1e6,
		       m->capture_cpu / (double)m->frames * 1e6,
		       m->copy_cpu / (double)m->steps * 1e6);
}

/* (b): MuJoCo's readback of each camera into pinned host memory, then one
 * upload of all of them. */
struct readback {
	uint8_t *rgb;
	float *depth;
	CUdeviceptr rgb_dev, depth_dev;
};

static int
readback_step(struct readback *r, struct scene *s, CUstream stream, int n,
	      bool physics)
{
	const mjrRect viewport = { 0, 0, s->width, s->height };
	const size_t one = (size_t)s->width * s->height;

	for (int i = 0; i < n; i++) {
		scene_render(s, physics ? i : 0, i, false);
		mjr_readPixels(r->rgb + 3 * one * i, r->depth + one * i,
			       viewport, &s->con);
	}
	return cu_ok(EXAMPLE_CU(cuMemcpyHtoDAsync)(r->rgb_dev, r->rgb,
						   3 * one * n, stream),
		     "cuMemcpyHtoDAsync") &&
			       cu_ok(EXAMPLE_CU(cuMemcpyHtoDAsync)(
					     r->depth_dev, r->depth,
					     4 * one * n, stream),
				     "cuMemcpyHtoDAsync")
		       ? 0
		       : -1;
}

/* (c): CUDA's GL registration, as a program without glcuda would do it:
 * each camera's colour blitted (resolving the samples) into a layer of a
 * registered texture array and its depth resolved into MuJoCo's
 * single-sampled buffer and read into a registered pixel buffer (GL to
 * GL, no CPU wait); once per step both are mapped, every layer copied
 * into linear memory, and unmapped. */
struct legacy {
	GLuint texture, pbo, *fbos;
	int n;
	CUgraphicsResource res[2];
	CUdeviceptr rgba_dev, depth_dev;
};

static void
legacy_close(struct legacy *l)
{
	for (int i = 0; i < 2; i++)
		if (l->res[i])
			BENCH_CU(cuGraphicsUnregisterResource)(l->res[i]);
	if (l->fbos)
		glDeleteFramebuffers(l->n, l->fbos);
	free(l->fbos);
	glDeleteTextures(1, &l->texture);
	glDeleteBuffers(1, &l->pbo);
	memset(l, 0, sizeof(*l));
}

static int
legacy_open(struct legacy *l, struct scene *s, int n, CUdeviceptr rgba,
	    CUdeviceptr depth)
{
	const size_t one = (size_t)s->width * s->height;

	memset(l, 0, sizeof(*l));
	l->n = n;
	l->rgba_dev = rgba;
	l->depth_dev = depth;
	l->fbos = calloc((size_t)n, sizeof(*l->fbos));
	if (!l->fbos)
		return -1;
	glGenTextures(1, &l->texture);
	glBindTexture(GL_TEXTURE_2D_ARRAY, l->texture);
	glTexStorage3D(GL_TEXTURE_2D_ARRAY, 1, GL_RGBA8, s->width, s->height,
		       n);
	glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
	glGenFramebuffers(n, l->fbos);
	for (int i = 0; i < n; i++) {
		glBindFramebuffer(GL_FRAMEBUFFER, l->fbos[i]);
		glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
					  l->texture, 0, i);
	}
	glGenBuffers(1, &l->pbo);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, l->pbo);
	glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)(4 * one * n), NULL,
		     GL_STREAM_READ);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	mjr_restoreBuffer(&s->con);
	if (glGetError() != GL_NO_ERROR)
		return -1;
	if (!cu_ok(BENCH_CU(cuGraphicsGLRegisterImage)(
			   &l->res[0], l->texture, GL_TEXTURE_2D_ARRAY,
			   CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY),
		   "cuGraphicsGLRegisterImage") ||
	    !cu_ok(BENCH_CU(cuGraphicsGLRegisterBuffer)(
			   &l->res[1], l->pbo,
			   CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY),
		   "cuGraphicsGLRegisterBuffer"))
		return -1;
	return 0;
}

static int
legacy_step(struct legacy *l, struct scene *s, CUstream stream, int n,
	    bool physics)
{
	const int w = s->width, h = s->height;
	const size_t one = (size_t)w * h;
	CUdeviceptr pbo;
	size_t size;
	int ret = -1;

	for (int i = 0; i < n; i++) {
		scene_render(s, physics ? i : 0, i, false);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, s->con.offFBO);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, l->fbos[i]);
		glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT,
				  GL_NEAREST);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, s->con.offFBO_r);
		glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_DEPTH_BUFFER_BIT,
				  GL_NEAREST);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, s->con.offFBO_r);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, l->pbo);
		glReadPixels(0, 0, w, h, GL_DEPTH_COMPONENT, GL_FLOAT,
			     (void *)(uintptr_t)(4 * one * i));
		glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
		mjr_restoreBuffer(&s->con);
	}
	if (!cu_ok(BENCH_CU(cuGraphicsMapResources)(2, l->res, stream),
		   "cuGraphicsMapResources"))
		return -1;
	for (int i = 0; i < n; i++) {
		CUDA_MEMCPY2D m = {
			.srcMemoryType = CU_MEMORYTYPE_ARRAY,
			.dstMemoryType = CU_MEMORYTYPE_DEVICE,
			.dstDevice = l->rgba_dev + 4 * one * i,
			.dstPitch = 4 * (size_t)w,
			.WidthInBytes = 4 * (size_t)w,
			.Height = (size_t)h,
		};

		if (!cu_ok(BENCH_CU(cuGraphicsSubResourceGetMappedArray)(
				   &m.srcArray, l->res[0], (unsigned int)i, 0),
			   "cuGraphicsSubResourceGetMappedArray") ||
		    !cu_ok(BENCH_CU(cuMemcpy2DAsync)(&m, stream),
			   "cuMemcpy2DAsync"))
			goto unmap;
	}
	if (!cu_ok(BENCH_CU(cuGraphicsResourceGetMappedPointer)(&pbo, &size,
								l->res[1]),
		   "cuGraphicsResourceGetMappedPointer") ||
	    !cu_ok(BENCH_CU(cuMemcpyDtoDAsync)(l->depth_dev, pbo, 4 * one * n,
					       stream),
		   "cuMemcpyDtoDAsync"))
		goto unmap;
	ret = 0;
unmap:
	if (!cu_ok(BENCH_CU(cuGraphicsUnmapResources)(2, l->res, stream),
		   "cuGraphicsUnmapResources"))
		ret = -1;
	return ret;
}

/* 0, or -1 where the driver lacks CUDA's GL interop (the legacy path is
 * then left out). */
static int
bench_cuda_open(void)
{
	const char *path = getenv("GLCUDA_LIBCUDA");
	__typeof__(cuGetProcAddress) *get_proc;
	CUdriverProcAddressQueryResult status;
	void *handle;

	handle = dlopen(path && *path ? path : "libcuda.so.1",
			RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return -1;
	get_proc = (__typeof__(get_proc))dlsym(handle, "cuGetProcAddress_v2");
	if (!get_proc)
		return -1;
#define BENCH_CUDA_RESOLVE(name)                                               \
	if (get_proc(#name, (void **)&bench_cuda.name, CUDA_VERSION,           \
		     CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS ||  \
	    !bench_cuda.name) {                                                \
		fprintf(stderr, "the CUDA driver has no %s: the legacy path "  \
				"is left out\n",                               \
			#name);                                                \
		return -1;                                                     \
	}
	BENCH_CUDA_FUNCTIONS(BENCH_CUDA_RESOLVE)
#undef BENCH_CUDA_RESOLVE
	return 0;
}

enum method {
	METHOD_GLCUDA,
	METHOD_READPIXELS,
	METHOD_LEGACY,
};

/* One method over steps steps of n cameras; with physics, n environments
 * stepped on the CPU first, each seen by one camera. */
static int
bench_method(enum method method, struct frames *f, struct scene *s,
	     struct readback *r, struct legacy *l, int n, int steps,
	     bool physics, struct measure *out)
{
	double t[2] = { 0, 0 };
	const int warmup = 2;

	for (int k = -warmup; k < steps; k++) {
		if (k == 0) {
			glFinish();
			EXAMPLE_CU(cuStreamSynchronize)(f->stream);
			measure_start(out, t);
		}
		if (physics)
			for (int e = 0; e < n; e++)
				mj_step(s->m, s->data[e]);
		switch (method) {
		case METHOD_GLCUDA: {
			/* Where the CPU goes, from the measured steps on. */
			double c0 = now_s(CLOCK_THREAD_CPUTIME_ID), c1;

			for (int i = 0; i < n; i++) {
				scene_render(s, physics ? i : 0, i, false);
				c1 = now_s(CLOCK_THREAD_CPUTIME_ID);
				if (capture(f, s, f->color, (unsigned int)i,
					    GLCUDA_CAPTURE_COLOR |
						    GLCUDA_CAPTURE_DEPTH))
					return -1;
				if (k >= 0) {
					out->render_cpu += c1 - c0;
					c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
					out->capture_cpu += c0 - c1;
				} else {
					c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
				}
			}
			if (frames_copy(f, s, false, 0))
				return -1;
			if (k >= 0)
				out->copy_cpu +=
					now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
			break;
		}
		case METHOD_READPIXELS:
			if (readback_step(r, s, f->stream, n, physics))
				return -1;
			break;
		case METHOD_LEGACY:
			if (legacy_step(l, s, f->stream, n, physics))
				return -1;
			break;
		}
	}
	measure_stop(out, t, f->stream, steps, (long)steps * n);
	return 0;
}

static int
run_bench(struct frames *f, struct glcuda_headless *hl,
	  const struct options *o)
{
	static const int all_counts[] = { 64, 256, 1024 };
	static const int all_sizes[] = { 64, 128 };
	const int *counts = o->cameras_set ? &o->cameras : all_counts;
	const int *sizes = o->size_set ? &o->width : all_sizes;
	const size_t ncounts = o->cameras_set ? 1 : 3;
	const size_t nsizes = o->size_set ? 1 : 2;
	const uint32_t max_layers = glcuda_device_get_caps(f->dev)
					    ->max_image_layers;
	bool have_legacy = bench_cuda_open() == 0;

	printf("MuJoCo %s, GL %s, %s\n", mj_versionString(),
	       (const char *)glGetString(GL_VERSION),
	       glcuda_headless_get_description(hl));
	printf("colour (RGBA8; RGB for mjr_readPixels) and depth (float32) "
	       "of every camera in CUDA memory each step\n");
	printf("%7s  %-9s  %-34s %12s %12s\n", "cameras", "size", "method",
	       "frames/s", "CPU us/step");
	for (size_t si = 0; si < nsizes; si++) {
		const int maxn = counts[ncounts - 1];
		const int w = sizes[si], h = o->size_set ? o->height : w;
		struct scene s;

		if (scene_open(&s, o->model, maxn, maxn, w, h))
			return -1;
		for (size_t ci = 0; ci < ncounts; ci++) {
			const int n = counts[ci];
			const size_t one = (size_t)w * h;
			/* Enough steps for about 4096 frames. */
			const int steps = n >= 1024 ? 4 : 4096 / n;
			struct readback r = { 0 };
			struct legacy l = { 0 };
			struct measure m[5];
			static const char *const names[] = {
				"(a) glcuda capture + one copy",
				"(b) mjr_readPixels + one upload",
				"(c) GL registration, map per step",
				"(d) physics + glcuda (env-steps/s)",
				"(d) physics + mjr_readPixels",
			};
			int ret = 0;

			if ((uint32_t)n > max_layers) {
				printf("%7d  %d layers is more than the "
				       "device's %u\n",
				       n, n, max_layers);
				continue;
			}
			memset(m, 0, sizeof(m));
			s.cameras = n;
			if (frames_open(f, &s, (unsigned int)n) ||
			    !cu_ok(EXAMPLE_CU(cuMemAllocHost)((void **)&r.rgb,
							      3 * one * n),
				   "cuMemAllocHost") ||
			    !cu_ok(EXAMPLE_CU(cuMemAllocHost)(
					   (void **)&r.depth, 4 * one * n),
				   "cuMemAllocHost")) {
				ret = -1;
				goto next;
			}
			r.rgb_dev = f->rgba;
			r.depth_dev = f->depth;
			ret = bench_method(METHOD_GLCUDA, f, &s, &r, &l, n,
					   steps, false, &m[0]);
			ret = ret ? ret
				  : bench_method(METHOD_READPIXELS, f, &s, &r,
						 &l, n, steps, false, &m[1]);
			if (!ret && have_legacy &&
			    legacy_open(&l, &s, n, f->rgba, f->depth) == 0)
				ret = bench_method(METHOD_LEGACY, f, &s, &r,
						   &l, n, steps, false, &m[2]);
			ret = ret ? ret
				  : bench_method(METHOD_GLCUDA, f, &s, &r, &l,
						 n, steps, true, &m[3]);
			ret = ret ? ret
				  : bench_method(METHOD_READPIXELS, f, &s, &r,
						 &l, n, steps, true, &m[4]);
			for (int i = 0; !ret && i < 5; i++)
				measure_print(&m[i], n, &s, names[i]);
		next:
			legacy_close(&l);
			if (r.rgb)
				EXAMPLE_CU(cuMemFreeHost)(r.rgb);
			if (r.depth)
				EXAMPLE_CU(cuMemFreeHost)(r.depth);
			frames_close(f);
			if (ret) {
				scene_close(&s);
				return -1;
			}
		}
		scene_close(&s);
	}
	printf("frames/s: camera frames in CUDA memory per second, the GPU "
	       "waited for; (d): environment steps per second (one camera "
	       "each, physics on one CPU thread). CPU us/step: this "
	       "thread's CPU time per step. Depth: metres for (a) and (d) "
	       "with glcuda (converted in the copy), as stored for the "
	       "others. (b) reads RGB, 3 bytes a pixel.\n");
	return 0;
}

/* ---------------------------------------------------------------------- */

static int
run_steps(struct frames *f, struct scene *s, int steps)
{
	const size_t px = (size_t)s->width * s->height * s->cameras;
	int32_t *ids = malloc(px * sizeof(*ids));
	float *metres = malloc(px * sizeof(*metres));
	int status = -1;

	if (!ids || !metres)
		goto out;
	for (int step = 0; step < steps; step++) {
		int counts[1024] = { 0 };
		double nearest = INFINITY;
		int objects = 0;

		mj_step(s->m, s->data[0]);
		if (frames_step(f, s, true))
			goto out;
		/* A consumer would launch its network on f->stream here; the
		 * program looks at the tensors on the CPU, once the stream
		 * (non-blocking: not ordered with cuMemcpyDtoH's) is done. */
		if (!cu_ok(EXAMPLE_CU(cuStreamSynchronize)(f->stream),
			   "cuStreamSynchronize") ||
		    !cu_ok(EXAMPLE_CU(cuMemcpyDtoH)(ids, f->ids,
						    px * sizeof(*ids)),
			   "cuMemcpyDtoH") ||
		    !cu_ok(EXAMPLE_CU(cuMemcpyDtoH)(metres, f->depth,
						    px * sizeof(*metres)),
			   "cuMemcpyDtoH"))
			goto out;
		for (size_t i = 0; i < px; i++) {
			if (ids[i] >= 0 && ids[i] < 1024 && !counts[ids[i]]++)
				objects++;
			if (metres[i] < nearest)
				nearest = metres[i];
		}
		printf("step %d (t = %.3f s): %d cameras of %dx%d, %d geoms "
		       "in view, nearest point %.3f m\n",
		       step, s->data[0]->time, s->cameras, s->width,
		       s->height, objects, nearest);
	}
	status = 0;
out:
	free(ids);
	free(metres);
	return status;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: mujoco-cameras [--model FILE] [--cameras N] "
		"[--size WxH] [--steps S]\n"
		"                      [--device N] [--check | --bench]\n"
		"\n"
		"MuJoCo renders N cameras of a scene; glcuda captures each "
		"camera's colour,\n"
		"depth and segmentation into layers of images and copies them "
		"into CUDA\n"
		"memory in one call: RGBA8 rows top first, depth in metres, "
		"int32 geom ids.\n"
		"\n"
		"  --model FILE  the MJCF model (default: %s)\n"
		"  --cameras N   cameras around the scene (default: 8)\n"
		"  --size WxH    pixels per camera (default: 128x96)\n"
		"  --steps S     steps to simulate and render (default: 5)\n"
		"  --device N    the CUDA device (default: any)\n"
		"  --check       compare the first steps with mjr_readPixels "
		"of the same\n"
		"                cameras: colour byte for byte, depth value "
		"for value and in\n"
		"                metres, the ids; exit 1 on a difference\n"
		"  --bench       camera frames per second and CPU time per "
		"step: glcuda,\n"
		"                mjr_readPixels and one upload, CUDA's GL "
		"registration;\n"
		"                64, 256 and 1024 cameras at 64x64 and "
		"128x128\n",
		MUJOCO_CAMERAS_MODEL);
}

static int
parse_options(int argc, char **argv, struct options *o)
{
	static const struct option long_options[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "cameras", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "steps", required_argument, NULL, 't' },
		{ "device", required_argument, NULL, 'd' },
		{ "check", no_argument, NULL, 'c' },
		{ "bench", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ .model = MUJOCO_CAMERAS_MODEL,
			       .cameras = 8,
			       .width = 128,
			       .height = 96,
			       .steps = 5,
			       .device = -1 };
	while ((c = getopt_long(argc, argv, "m:n:s:t:d:cbh", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'm': o->model = optarg; break;
		case 'n':
			o->cameras = atoi(optarg);
			o->cameras_set = true;
			break;
		case 's':
			if (sscanf(optarg, "%dx%d", &o->width, &o->height) !=
			    2)
				o->width = 0;
			o->size_set = true;
			break;
		case 't': o->steps = atoi(optarg); break;
		case 'd': o->device = atoi(optarg); break;
		case 'c': o->check = true; break;
		case 'b': o->bench = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc || o->cameras < 1 || o->width < 1 ||
	    o->height < 1 || o->steps < 1 || o->device < -1 ||
	    (o->check && o->bench)) {
		usage(stderr);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct glcuda_headless *hl = NULL;
	struct frames f = { 0 };
	struct scene s = { 0 };
	CUmodule module = NULL;
	struct options o;
	bool pushed = false;
	int ret, status = 1;

	if (parse_options(argc, argv, &o))
		return 2;
	/* MuJoCo 2.x draws with the fixed-function pipeline. */
	ret = glcuda_headless_new(o.device, GLCUDA_HEADLESS_FLAG_COMPATIBILITY,
				  &hl);
	if (ret) {
		glcuda_fail(NULL, ret, "glcuda_headless_new");
		goto out;
	}
	ret = glcuda_device_new(glcuda_headless_get_display(hl),
				glcuda_headless_get_context(hl), NULL, &f.dev);
	if (ret) {
		glcuda_fail(NULL, ret, "glcuda_device_new");
		goto out;
	}
	/* glcuda has loaded the driver: open it for this program's calls,
	 * made in glcuda's CUDA context. */
	if (example_cuda_open() < 0)
		goto out;
	EXAMPLE_CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(f.dev));
	pushed = true;
	if (!cu_ok(EXAMPLE_CU(cuModuleLoadData)(&module, segment_ptx),
		   "cuModuleLoadData") ||
	    !cu_ok(EXAMPLE_CU(cuModuleGetFunction)(&f.segment_ids, module,
						   "mujoco_segment_ids"),
		   "cuModuleGetFunction") ||
	    !cu_ok(EXAMPLE_CU(cuStreamCreate)(&f.stream,
					      CU_STREAM_NON_BLOCKING),
		   "cuStreamCreate"))
		goto out;

	if (o.bench) {
		status = run_bench(&f, hl, &o) ? 1 : 0;
		goto out;
	}
	if (scene_open(&s, o.model, o.cameras, 1, o.width, o.height) ||
	    frames_open(&f, &s, (unsigned int)o.cameras))
		goto out;
	printf("%s: %d cameras of %dx%d, MuJoCo %s, %s; depth from %.4g m "
	       "to %.4g m\n",
	       o.model, o.cameras, o.width, o.height, mj_versionString(),
	       glcuda_headless_get_description(hl), s.znear, s.zfar);
	if (o.check)
		status = run_check(&f, &s, o.steps) ? 1 : 0;
	else
		status = run_steps(&f, &s, o.steps) ? 1 : 0;
out:
	/* Teardown, the GL context current: the images and CUDA memory,
	 * MuJoCo's context, CUDA's objects, the device, the context. */
	frames_close(&f);
	scene_close(&s);
	if (f.stream)
		EXAMPLE_CU(cuStreamDestroy)(f.stream);
	if (module)
		EXAMPLE_CU(cuModuleUnload)(module);
	if (pushed)
		EXAMPLE_CU(cuCtxPopCurrent)(NULL);
	glcuda_device_destroy(f.dev);
	glcuda_headless_destroy(hl);
	return status;
}
