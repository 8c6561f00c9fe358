/*
 * Fault injection at every CUDA driver call glcuda makes: for N = 1, 2, ...
 * the N-th call fails, and the scenario (device -> images of two formats ->
 * a wrapped GL texture and a wrapped EGLImage -> ring of 3 -> 20 frames ->
 * copies and exports with rows flipped and depth turned into distance ->
 * a device on the caller's CUDA context, one in the CPU sync mode, images
 * destroyed while CUDA owns them, a ring on the caller's stream -> destroy
 * everything) must return an error from the public call that hit it, name
 * the failing call and its code, and leave fds, GL names and CUDA memory
 * where they were. Then every CUDA call site of lib/ must have failed once:
 * it prints "N of M CUDA call sites injected" against the list
 * scripts/fault-sites.sh makes from the sources.
 *
 * Built twice: tests/test-faults on the GPU machine, and
 * tests/test-faults-cpu (FAULTS_FAKE_CUDA; CI) on the fake CUDA driver
 * (tests/fake-cuda), where the fake's live objects stand in for CUDA free
 * memory and the sites the fake cannot reach are excepted by what the
 * device says it supports.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"
#ifdef FAULTS_FAKE_CUDA
#include "test-common.h"
#include "fake-cuda/fake-cuda-test.h"
#include <glcuda/glcuda-dlpack.h>
#else
#include "test-gpu.h"
#include <glcuda/glcuda-dlpack.h>
#endif
#include "fault-coverage.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const CUresult injected[] = {
	CUDA_ERROR_OUT_OF_MEMORY,
	CUDA_ERROR_INVALID_HANDLE,
	CUDA_ERROR_INVALID_VALUE,
};

/* msg names the CUDA call: the name as a whole word ("cuDeviceGet" is not
 * named by "cuDeviceGetCount: ..."). */
static bool
names_call(const char *msg, const char *call)
{
	size_t len = strlen(call);

	for (const char *p = strstr(msg, call); p; p = strstr(p + 1, call)) {
		char before = p == msg ? ' ' : p[-1], after = p[len];
		if (!isalnum((unsigned char)before) && before != '_' &&
		    !isalnum((unsigned char)after) && after != '_')
			return true;
	}
	return false;
}

/* The calling thread's CUDA context stack: its depth and its top (NULL
 * when empty), read by popping it to the bottom and pushing it back (the
 * test's own calls, not injected). */
struct ctx_stack {
	int depth;
	CUcontext top;
};

static struct ctx_stack
ctx_stack_now(void)
{
	CUcontext popped[64];
	struct ctx_stack s = { 0, NULL };

	while (s.depth < (int)ARRAY_LENGTH(popped) &&
	       CU(cuCtxPopCurrent)(&popped[s.depth]) == CUDA_SUCCESS)
		s.depth++;
	for (int i = s.depth; i-- > 0;)
		ck_cu(CU(cuCtxPushCurrent)(popped[i]));
	s.top = s.depth ? popped[0] : NULL;
	return s;
}

/* The thread's context stack is what it was before `call`, failed or not
 * (doc/design.md, "The CUDA context": every push is popped). */
static void
ctx_stack_assert(const struct ctx_stack *before, const char *call, int ret)
{
	const struct ctx_stack after = ctx_stack_now();

	ck_assert_msg(after.depth == before->depth &&
			      after.top == before->top,
		      "%s returned %d (%s failing): the thread's CUDA context "
		      "stack was %d deep (top %p) before it, %d deep (top %p) "
		      "after",
		      call, ret,
		      fault_failed_call() ? fault_failed_call() : "nothing",
		      before->depth, (void *)before->top, after.depth,
		      (void *)after.top);
}

/* Returns the first failing public call's error, or 0 if all succeeded.
 * wrap: the device can wrap GL textures and EGLImages. */
static int
scenario(struct glcuda_headless *hl, bool wrap, const char **failed_call)
{
	struct glcuda_device *dev = NULL, *dev_ctx = NULL, *dev_cpu = NULL;
	struct glcuda_image *a = NULL, *b = NULL, *wt = NULL, *we = NULL,
			    *c = NULL, *d = NULL;
	struct glcuda_image *layered = NULL;
	DLManagedTensorVersioned *t = NULL;
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	EGLContext egl_ctx = glcuda_headless_get_context(hl);
	EGLImage eimg = EGL_NO_IMAGE;
	GLuint tex[2];
	struct glcuda_ring *ring = NULL, *ring_stream = NULL;
	struct glcuda_ring_desc desc = { .size = sizeof(desc),
					 .width = 128,
					 .height = 72,
					 .slots = 3,
					 .input_format = GLCUDA_FORMAT_RGBA8,
					 .flags = GLCUDA_RING_FLAG_TIMINGS };
	struct glcuda_device_options opts;
	CUstream stream = NULL;
	CUcontext popped;
	struct ctx_stack ctx_before;
	bool app_pushed = false;
	int ret;

#define STEP(call)                            \
	do {                                  \
		ret = (call);                 \
		if (ret < 0) {                \
			*failed_call = #call; \
			goto out;             \
		}                             \
	} while (0)
/* A STEP after which the thread's context stack is as it was before,
 * whether the call failed or not. */
#define STEP_CTX(call)                                       \
	do {                                                 \
		ctx_before = ctx_stack_now();                \
		ret = (call);                                \
		ctx_stack_assert(&ctx_before, #call, ret);   \
		if (ret < 0) {                               \
			*failed_call = #call;                \
			goto out;                            \
		}                                            \
	} while (0)
	STEP(glcuda_device_new(dpy, egl_ctx, NULL, &dev));
	STEP(test_image_new(dev, 64, 64, GLCUDA_FORMAT_RGBA8, 0, &a));
	STEP(test_image_new(dev, 64, 64, GLCUDA_FORMAT_RGBA16F, 0, &b));
	{
		struct glcuda_image *both[2] = { a, b };
		STEP(glcuda_handoff_to_cuda(dev, both, 2, NULL));
		STEP(glcuda_handoff_to_gl(dev, both, 2, NULL));
	}
	/* A DLPack export of a (the image's pool, its hand-off and copy),
	 * then copies to and from linear memory (the export's): of one
	 * layer, which the copy kernels make (lib/copy.c), then of every
	 * layer of a layered image, which the copy engine makes. */
	{
		struct glcuda_image_desc desc_layered;
		CUdeviceptr data;

		/* The export with no context current, the copies with the
		 * application's own pushed (here the same context: the
		 * depth tells). */
		STEP_CTX(glcuda_image_export_dlpack(a, 0, NULL, &t));
		data = (CUdeviceptr)(uintptr_t)t->dl_tensor.data;
		STEP(glcuda_handoff_to_cuda(dev, &a, 1, NULL));
		ck_cu(CU(cuCtxPushCurrent)(
			glcuda_device_get_cuda_context(dev)));
		app_pushed = true;
		STEP_CTX(glcuda_image_copy_from_linear(a, 0, GLCUDA_ALL_LAYERS,
						       data, 256, 0, NULL));
		STEP_CTX(glcuda_image_copy_to_linear(a, 0, 0, data, 256, 0,
						     NULL));
		STEP(glcuda_handoff_to_gl(dev, &a, 1, NULL));
		glcuda_image_desc_init(&desc_layered);
		desc_layered.width = 16;
		desc_layered.height = 16;
		desc_layered.format = GLCUDA_FORMAT_RGBA8;
		desc_layered.layers = 2;
		desc_layered.depth_format = GLCUDA_FORMAT_DEPTH32F;
		STEP(glcuda_image_new(dev, &desc_layered, &layered));
		STEP(glcuda_handoff_to_cuda(dev, &layered, 1, NULL));
		STEP_CTX(glcuda_image_copy_to_linear(layered, 0,
						     GLCUDA_ALL_LAYERS, data,
						     64, 64 * 16, NULL));
		STEP(glcuda_handoff_to_gl(dev, &layered, 1, NULL));
		/* A batch (glcuda_copy_linear): a and b handed off with the
		 * layered image, every layer of it copied in, then one layer
		 * of a out (the kernel), with one push. */
		{
			struct glcuda_linear_copy copies[2] = {
				{ .image = layered, .layer = GLCUDA_ALL_LAYERS,
				  .linear = data, .row_pitch = 64,
				  .layer_pitch = 64 * 16,
				  .direction = GLCUDA_COPY_FROM_LINEAR },
				{ .image = a, .layer = 0, .linear = data,
				  .row_pitch = 256,
				  .direction = GLCUDA_COPY_TO_LINEAR },
			};
			struct glcuda_image *both[2] = { a, b };
			struct glcuda_copy_desc batch;

			glcuda_copy_desc_init(&batch);
			batch.copies = copies;
			batch.copy_count = 2;
			batch.images = both;
			batch.image_count = 2;
			STEP_CTX(glcuda_copy_linear(dev, &batch));
		}
		/* Rows flipped (GLCUDA_ORIGIN_TOP_LEFT), both ways: by the
		 * copy kernel, or one 3D copy a row where the copy engine
		 * copies (GLCUDA_COPY=engine, no kernels). */
		{
			struct glcuda_linear_copy copies[2] = {
				{ .image = layered, .layer = 0, .linear = data,
				  .row_pitch = 64,
				  .direction = GLCUDA_COPY_FROM_LINEAR },
				{ .image = layered, .layer = 1, .linear = data,
				  .row_pitch = 64,
				  .direction = GLCUDA_COPY_TO_LINEAR },
			};
			struct glcuda_copy_desc batch;

			glcuda_copy_desc_init(&batch);
			batch.copies = copies;
			batch.copy_count = 2;
			batch.origin = GLCUDA_ORIGIN_TOP_LEFT;
			STEP_CTX(glcuda_copy_linear(dev, &batch));
		}
		/* With the application's context current, an export of an
		 * image GL owns (hand-off, copy, hand-off back). */
		t->deleter(t);
		t = NULL;
		STEP_CTX(glcuda_image_export_dlpack(layered, 0, NULL, &t));
		/* Its depth as distances, rows flipped: the copy kernel's
		 * (refused, and said so, where no kernel can run: a build
		 * without nvcc, a device whose kernels failed to load). */
		t->deleter(t);
		t = NULL;
		{
			struct glcuda_export_desc x;

			glcuda_export_desc_init(&x);
			x.plane = 1;
			x.origin = GLCUDA_ORIGIN_TOP_LEFT;
			x.depth.mode = GLCUDA_DEPTH_PERSPECTIVE;
			x.depth.znear = 0.1;
			x.depth.zfar = 100;
			ctx_before = ctx_stack_now();
			ret = glcuda_image_export_dlpack_desc(layered, &x, &t);
			ctx_stack_assert(&ctx_before, "export_dlpack_desc",
					 ret);
			if (ret == GLCUDA_ERROR_CUDA &&
			    strstr(glcuda_get_last_error(),
				   "depth to distance runs in glcuda's copy "
				   "kernels, which this build, driver or "
				   "plane cannot have"))
				ret = 0;
			if (ret < 0) {
				*failed_call = "glcuda_image_export_dlpack_desc"
					       "(layered, &x, &t)";
				goto out;
			}
		}
		ck_cu(CU(cuCtxPopCurrent)(&popped));
		app_pushed = false;
		glcuda_image_destroy(layered);
		layered = NULL;
		if (t)
			t->deleter(t);
		t = NULL;
	}
	/* The caller's own texture and EGLImage, wrapped. */
	glGenTextures(2, tex);
	for (int i = 0; i < 2; i++) {
		glBindTexture(GL_TEXTURE_2D, tex[i]);
		glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, 32, 32);
	}
	glBindTexture(GL_TEXTURE_2D, 0);
	eimg = eglCreateImage(dpy, egl_ctx, EGL_GL_TEXTURE_2D,
			      (EGLClientBuffer)(uintptr_t)tex[1], NULL);
	ck_assert_ptr_ne(eimg, EGL_NO_IMAGE);
	if (wrap) {
		STEP(glcuda_image_wrap_gl_texture(dev, tex[0], GL_TEXTURE_2D, 0,
						  &wt));
		STEP(glcuda_image_wrap_egl_image(dev, eimg, 0, &we));
		struct glcuda_image *both[2] = { wt, we };
		STEP(glcuda_handoff_to_cuda(dev, both, 2, NULL));
		STEP(glcuda_handoff_to_gl(dev, both, 2, NULL));
	}
	STEP(glcuda_ring_new(dev, &desc, &ring));
	for (int n = 0; n < 20; n++) {
		struct glcuda_frame *f, *t;
		struct glcuda_frame_timings tm = {
			.size = sizeof(struct glcuda_frame_timings)
		};
		ret = glcuda_ring_acquire(ring, &f);
		if (ret == -EAGAIN) {
			ret = glcuda_ring_take_newest(ring, &t);
			if (ret != -EAGAIN) {
				STEP(ret);
				STEP(glcuda_frame_release(t));
			}
			n--;
			continue;
		}
		STEP(ret);
		STEP(glcuda_frame_submit(f));
		STEP(glcuda_frame_complete(f));
		STEP(glcuda_ring_read_timings(ring, &tm));
	}

	/* A device on the caller's CUDA context (checked by UUID). */
	glcuda_device_options_init(&opts);
	opts.cuda_context = glcuda_device_get_cuda_context(dev);
	STEP(glcuda_device_new(dpy, egl_ctx, &opts, &dev_ctx));
	/* The CPU sync mode: the hand-off back to GL waits on the CPU. */
	glcuda_device_options_init(&opts);
	opts.sync_mode = GLCUDA_SYNC_CPU;
	STEP(glcuda_device_new(dpy, egl_ctx, &opts, &dev_cpu));
	STEP(test_image_new(dev_cpu, 32, 32, GLCUDA_FORMAT_RGBA8, 0, &c));
	STEP(glcuda_handoff_to_cuda(dev_cpu, &c, 1, NULL));
	STEP(glcuda_handoff_to_gl(dev_cpu, &c, 1, NULL));
	/* Images destroyed while CUDA owns them: destroy waits for the
	 * context, and unmaps a wrapped texture. */
	STEP(test_image_new(dev, 32, 32, GLCUDA_FORMAT_RGBA8, 0, &d));
	STEP(glcuda_handoff_to_cuda(dev, &d, 1, NULL));
	glcuda_image_destroy(d);
	d = NULL;
	if (wrap) {
		STEP(glcuda_handoff_to_cuda(dev, &wt, 1, NULL));
		glcuda_image_destroy(wt);
		wt = NULL;
	}
	/* A ring on the caller's stream (the test's own calls: not
	 * injected), destroyed with a frame done on it. */
	ck_cu(CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(dev)));
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	ck_cu(CU(cuCtxPopCurrent)(&popped));
	desc.cuda_stream = stream;
	STEP(glcuda_ring_new(dev, &desc, &ring_stream));
	{
		struct glcuda_frame *f;
		STEP(glcuda_ring_acquire(ring_stream, &f));
		STEP(glcuda_frame_submit(f));
		STEP(glcuda_frame_complete(f));
	}
	ret = 0;
out:
#undef STEP_CTX
#undef STEP
	if (app_pushed)
		ck_cu(CU(cuCtxPopCurrent)(&popped));
	glcuda_ring_destroy(ring_stream);
	if (stream) {
		ck_cu(CU(cuCtxPushCurrent)(
			glcuda_device_get_cuda_context(dev)));
		ck_cu(CU(cuStreamDestroy)(stream));
		ck_cu(CU(cuCtxPopCurrent)(&popped));
	}
	glcuda_ring_destroy(ring);
	glcuda_image_destroy(d);
	glcuda_image_destroy(c);
	glcuda_device_destroy(dev_cpu);
	glcuda_device_destroy(dev_ctx);
	glcuda_image_destroy(we);
	glcuda_image_destroy(wt);
	if (eimg != EGL_NO_IMAGE) {
		eglDestroyImage(dpy, eimg);
		glDeleteTextures(2, tex);
	}
	glcuda_image_destroy(layered);
	if (t)
		t->deleter(t);
	glcuda_image_destroy(b);
	glcuda_image_destroy(a);
	glcuda_device_destroy(dev);
	return ret;
}

#ifdef FAULTS_FAKE_CUDA
/* The fake's live CUDA objects (memory, arrays, events, streams, ...):
 * what free memory is on the GPU. */
static size_t
cuda_footprint(CUcontext ctx)
{
	unsigned int (*live)(void) = (unsigned int (*)(void))fake_cuda_control(
		"fake_cuda_live_objects");

	(void)ctx;
	ck_assert_ptr_nonnull(live);
	return live();
}
#define FOOTPRINT "the fake's live CUDA objects"
#else
/* CUDA free memory, read in the test's own reference to the context.
 * Under compute-sanitizer, whose own allocations move it, a constant:
 * memcheck's leak check is the witness there (test-gpu.h). */
static size_t
cuda_footprint(CUcontext ctx)
{
	size_t free_bytes;

	if (!gpu_free_memory_exact())
		return 0;
	ck_cu(CU(cuCtxPushCurrent)(ctx));
	free_bytes = gpu_free_memory();
	CU(cuCtxPopCurrent)(&ctx);
	return free_bytes;
}
#define FOOTPRINT "CUDA free memory"
#endif

/* CUDA call sites no run of the scenario can make fail, by rule: each is
 * called only after another call of the same run failed, and the engine
 * fails one call per run. Plus glcuda_headless_new's match by UUID, which
 * the scenario does not call (it is given its context; test-headless
 * covers the helper), and glcuda_diag_list_cuda_devices, a diagnosis
 * outside the scenario (test-device covers it).
 * fault_coverage_report checks that each still names a site of lib/. */
static const struct fault_exception after_a_failure[] = {
	{ "lib/device.c", "glcuda_device_destroy", "cuCtxSynchronize",
	  "waits for orphaned host functions, left only when a ring's destroy "
	  "could not wait" },
	{ "lib/device.c", "device_release_drivers",
	  "cuDevicePrimaryCtxGetState",
	  "asked only with orphaned host functions" },
	{ "lib/sync.c", "handoff_sync_drain", "cuCtxSynchronize",
	  "the fallback when cuEventSynchronize failed" },
	{ "lib/wrap.c", "glcuda_image_wrap_gl_texture",
	  "cuGraphicsUnmapResources",
	  "unwinds a wrap whose plane or objects failed" },
	{ "lib/handoff.c", "map_textures", "cuGraphicsUnmapResources",
	  "unwinds a hand-off whose mapped array could not be read" },
	{ "lib/headless/headless-devices.c", "cuda_device_uuid",
	  "cuDeviceGet", "glcuda_headless_new, not called" },
	{ "lib/headless/headless-devices.c", "cuda_device_uuid",
	  "cuDeviceGetUuid", "glcuda_headless_new, not called" },
	{ "lib/headless/headless-devices.c", "cuda_device_uuid",
	  "cuDeviceGetCount", "glcuda_headless_new, not called" },
	/* glcuda_headless_new(-1) asks which CUDA devices exist; a failure
	 * there means "none seen" and falls back by design (no error). */
	{ "lib/headless/headless-devices.c", "cuda_devices_list",
	  "cuDeviceGetCount", "glcuda_headless_new, not called" },
	{ "lib/headless/headless-devices.c", "cuda_devices_list",
	  "cuDeviceGet", "glcuda_headless_new, not called" },
	{ "lib/headless/headless-devices.c", "cuda_devices_list",
	  "cuDeviceGetUuid", "glcuda_headless_new, not called" },
	{ "lib/diag.c", "glcuda_diag_list_cuda_devices", "cuDeviceGetCount",
	  "a diagnosis, not called" },
	{ "lib/diag.c", "glcuda_diag_list_cuda_devices", "cuDeviceGet",
	  "a diagnosis, not called" },
	{ "lib/diag.c", "glcuda_diag_list_cuda_devices", "cuDeviceGetName",
	  "a diagnosis, not called" },
	{ "lib/diag.c", "glcuda_diag_list_cuda_devices", "cuDeviceGetUuid",
	  "a diagnosis, not called" },
};
/* Where the device cannot wrap GL textures and EGLImages (the fake CUDA
 * driver has no cuArray3DGetDescriptor). */
static const struct fault_exception no_wrap[] = {
	{ "lib/cuda/cuda-interop.c", "cuda_register_gl_texture",
	  "cuGraphicsGLRegisterImage", "no wrap" },
	{ "lib/cuda/cuda-interop.c", "cuda_register_egl_image",
	  "cuGraphicsEGLRegisterImage", "no wrap" },
	{ "lib/cuda/cuda-interop.c", "cuda_map", "cuGraphicsMapResources",
	  "no wrap" },
	{ "lib/cuda/cuda-interop.c", "cuda_unmap", "cuGraphicsUnmapResources",
	  "no wrap" },
	{ "lib/cuda/cuda-interop.c", "describe_array", "cuArray3DGetDescriptor",
	  "no wrap" },
	{ "lib/cuda/cuda-interop.c", "cuda_gl_resource_plane",
	  "cuGraphicsSubResourceGetMappedArray", "no wrap" },
	{ "lib/cuda/cuda-interop.c", "cuda_egl_resource_planes",
	  "cuGraphicsResourceGetMappedEglFrame", "no wrap" },
	{ "lib/wrap.c", "wrap_unmap_cuda", "cuGraphicsUnmapResources",
	  "no wrap" },
	{ "lib/wrap.c", "wrap_refresh_mapped",
	  "cuGraphicsSubResourceGetMappedArray", "no wrap" },
};
/* The scenario copies one layer, which the copy kernels copy, and every
 * layer of a layered image, which the copy engine copies (lib/copy.c).
 * GLCUDA_COPY forces one way for both: with GLCUDA_COPY=kernel the copy
 * engine is only the kernels' fallback; with GLCUDA_COPY=engine the
 * kernels run only the depth to distance of the export; in a build
 * without nvcc (no kernels) they are never called. Rows flipped, the
 * copy kernel copies wherever it may, so the copy engine's per-row
 * copies run only with GLCUDA_COPY=engine (the third run) or without
 * kernels. */
static const char *
copy_asked(void)
{
	const char *e = getenv("GLCUDA_COPY");

	return e ? e : "";
}
static const struct fault_exception copy_kernel_only[] = {
	{ "lib/copy.c", "copy_enqueue", "cuMemcpy3DAsync",
	  "GLCUDA_COPY=kernel: the copy kernels copy; the copy engine is "
	  "their fallback" },
};
static const struct fault_exception copy_flipped_by_kernel[] = {
	{ "lib/copy.c", "copy_rows_flipped", "cuMemcpy3DAsync",
	  "rows flipped, the copy kernel copies; the copy engine's per-row "
	  "copies run with GLCUDA_COPY=engine (the third run)" },
};
#define ENGINE_ONLY "a build without nvcc has no copy kernels"
static const struct fault_exception copy_engine_only[] = {
	{ "lib/cuda/copy-kernels.c", "copy_kernels_launch", "cuLaunchKernel",
	  ENGINE_ONLY },
	{ "lib/cuda/copy-kernels.c", "load_locked", "cuLibraryLoadData",
	  ENGINE_ONLY },
	{ "lib/cuda/copy-kernels.c", "load_locked", "cuLibraryGetKernel",
	  ENGINE_ONLY },
};
#undef ENGINE_ONLY
/* Whether the scenario runs the copy kernels: with nvcc, always (depth to
 * distance runs in them whatever GLCUDA_COPY says). */
static bool
copy_kernels_used(void)
{
#ifdef HAVE_NVCC
	return true;
#else
	return false;
#endif
}
/* The copy kernels' load (lib/cuda/copy-kernels.c), which the process's
 * first copy of one layer makes, once: the sweep, which runs after the
 * clean runs that loaded them, never reaches it (fail_first_loads). */
#define LOADED_EARLIER \
	"loaded once per process, by an earlier test of this process " \
	"(CK_FORK=no)"
static const struct fault_exception once_per_process[] = {
	{ "lib/cuda/copy-kernels.c", "load_locked", "cuLibraryLoadData",
	  LOADED_EARLIER },
	{ "lib/cuda/copy-kernels.c", "load_locked", "cuLibraryGetKernel",
	  LOADED_EARLIER },
};
#undef LOADED_EARLIER
/* Where the CPU sync mode is all there is (Mesa without
 * GL_EXT_semaphore_fd): no semaphore is imported, waited on or signalled. */
static const struct fault_exception cpu_only[] = {
	{ "lib/cuda/cuda-importer.c", "cuda_import_semaphore",
	  "cuImportExternalSemaphore", "CPU sync mode only" },
	{ "lib/sync.c", "sync_to_cuda", "cuWaitExternalSemaphoresAsync",
	  "CPU sync mode only" },
	{ "lib/sync.c", "sync_cuda_signal", "cuSignalExternalSemaphoresAsync",
	  "CPU sync mode only" },
};

/* What every run is compared with. */
struct run_state {
	struct glcuda_headless *hl;
	bool wrap;
	CUcontext ctx;
	int fds;
	struct gl_names before;
	size_t free0;
	long vk_live; /* Vulkan objects alive (lib/fault.h counts them) */
	struct ctx_stack stack; /* the thread's CUDA context stack */
	unsigned long repeats;
};

static void
arm(unsigned long n, const struct fault_target *t, CUresult err)
{
	if (t)
		fault_inject_at(FAULT_CUDA, t->file, t->first, t->last,
				(int)err);
	else
		fault_inject(FAULT_CUDA, n, (int)err);
}

/* One run of the scenario with the n-th CUDA call failing (t NULL) or the
 * first call at site t. Checks the error, its message and that nothing
 * leaked. Returns false if no call was made to fail. */
static bool
failing_run(struct run_state *st, unsigned long n, const struct fault_target *t,
	    CUresult err)
{
	struct gl_names after;
	const char *call = NULL;
	char label[160];
	size_t free1;
	int ret;

	if (t)
		snprintf(label, sizeof(label), "%s at %s:%d", t->name, t->file,
			 t->first);
	else
		snprintf(label, sizeof(label), "N=%lu", n);
	arm(n, t, err);
	ret = scenario(st->hl, st->wrap, &call);
	fault_disarm(FAULT_CUDA);
	if (t ? !fault_failed_call() : fault_calls(FAULT_CUDA) < n) {
		/* Nothing failed: the scenario made fewer than n calls, or
		 * none at the site. */
		ck_assert_msg(ret == 0, "%s: nothing injected, yet %s: %s: %s",
			      label, call, glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		return false;
	}
	/* Calls whose failure glcuda tolerates by design (e.g. a flag that
	 * is already set) may let the run succeed. */
	if (ret < 0) {
		const char *cu_call = fault_failed_call() ? fault_failed_call()
							  : "cuInit";
		char code[64];
		snprintf(code, sizeof(code), "(%d)", (int)err);
		ck_assert_msg(
			strstr(glcuda_get_last_error(), code) ||
				ret == GLCUDA_ERROR_DEVICE_LOST,
			"%s: %s failed with %s but the message does not name "
			"the CUDA "
			"code %s: %s",
			label, call, glcuda_error_get_name(ret), code,
			glcuda_get_last_error());
		/* The entry point that was made to fail, by name (glcuda's
		 * messages start "cuEventCreate: ..."). */
		ck_assert_msg(
			names_call(glcuda_get_last_error(), cu_call) ||
				(!fault_failed_call() &&
				 names_call(glcuda_get_last_error(),
					    "cuDriverGetVersion")),
			"%s: %s failed, but the message does not name the "
			"failed CUDA "
			"call %s: %s",
			label, call, cu_call, glcuda_get_last_error());
	}
	glFinish();
	{
		const struct ctx_stack now = ctx_stack_now();

		ck_assert_msg(now.depth == st->stack.depth &&
				      now.top == st->stack.top,
			      "%s (%s): the thread's CUDA context stack %d "
			      "deep (top %p) -> %d deep (top %p)",
			      label, call ? call : "-", st->stack.depth,
			      (void *)st->stack.top, now.depth,
			      (void *)now.top);
	}
	ck_assert_msg(fault_vk_live_total() == st->vk_live,
		      "%s (%s): live Vulkan objects %ld -> "
		      "%ld",
		      label, call ? call : "-", st->vk_live,
		      fault_vk_live_total());
	ck_assert_msg(test_count_fds() == st->fds, "%s (%s): fds %d -> %d",
		      label, call ? call : "-", st->fds, test_count_fds());
	test_count_gl_names(&after, 4096);
	ck_assert_msg(
		memcmp(&st->before, &after, sizeof(after)) == 0,
		"%s (%s): GL names leaked (textures %d->%d, memory objects "
		"%d->%d, "
		"semaphores %d->%d, fbos %d->%d, queries %d->%d)",
		label, call ? call : "-", st->before.textures, after.textures,
		st->before.memory_objects, after.memory_objects,
		st->before.semaphores, after.semaphores,
		st->before.framebuffers, after.framebuffers, st->before.queries,
		after.queries);
	/* CUDA memory: the run must leave free memory exactly where it found
	 * it. The driver caches and gives back memory on its own schedule,
	 * though: on the H200 (driver 580) free memory rose by 4.5 MiB some
	 * 25 runs after the baseline and fell by 4 MiB a few runs later, in
	 * runs that leaked nothing. So where a run changed it, the same
	 * failure runs again, up to three times: a leak loses memory on every
	 * run and never settles, the driver's caching changes it once. */
	free1 = cuda_footprint(st->ctx);
	for (int again = 0; free1 != st->free0 && again < 3; again++) {
		st->repeats++;
		st->free0 = free1;
		arm(n, t, err);
		ret = scenario(st->hl, st->wrap, &call);
		fault_disarm(FAULT_CUDA);
		free1 = cuda_footprint(st->ctx);
	}
	ck_assert_msg(free1 == st->free0,
		      "%s (%s, %s failed): " FOOTPRINT " changed on each "
		      "of 4 runs of this failure (last %zu -> %zu)",
		      label, call ? call : "-",
		      fault_failed_call() ? fault_failed_call() : "-",
		      st->free0, free1);
	return true;
}

/* The copy kernels are loaded once per process and kept, so the sweep,
 * which runs after the clean runs that loaded them, never reaches their
 * load. Before anything is loaded, each site of the load fails once, by
 * its site, in a run of the scenario: the load is given up for that run's
 * device, whose copies go through the copy engine without an error, and
 * the next run's device loads again (cuLibraryGetKernel failing leaves
 * the library loaded, and the next device asks for the kernels only).
 * Returns false where an earlier test of this process (CK_FORK=no) has
 * loaded them: then nothing fails there. */
static bool
fail_first_loads(struct glcuda_headless *hl, bool wrap)
{
	struct fault_target sites[8];
	const char *call = NULL;
	size_t n;
	int ret;

	n = fault_coverage_sites(FAULT_CUDA, once_per_process,
				 ARRAY_LENGTH(once_per_process), sites,
				 ARRAY_LENGTH(sites));
	ck_assert_uint_ge(n, ARRAY_LENGTH(once_per_process));
	ck_assert_uint_le(n, ARRAY_LENGTH(sites));
	for (size_t i = 0; i < n; i++) {
		const struct fault_target *t = &sites[i];

		fault_inject_at(FAULT_CUDA, t->file, t->first, t->last,
				(int)injected[i % ARRAY_LENGTH(injected)]);
		ret = scenario(hl, wrap, &call);
		fault_disarm(FAULT_CUDA);
		ck_assert_msg(ret == 0, "%s failing at %s:%d: %s: %s: %s",
			      t->name, t->file, t->first, call,
			      glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		if (!fault_failed_call()) {
			ck_assert_msg(i == 0, "%s at %s:%d was not reached, "
				      "though the kernels were not loaded",
				      t->name, t->file, t->first);
			return false;
		}
		printf("%s at %s:%d, loaded once per process: failed by its "
		       "site before the first load; the copies went through "
		       "the copy engine\n", t->name, t->file, t->first);
	}
	return true;
}

static bool
by_site(void)
{
	const char *v = getenv("GLCUDA_FAULTS_BY_SITE");

	return v && strcmp(v, "1") == 0;
}

/* _i: GL, GLES, and GL with GLCUDA_COPY=engine (which the library reads
 * once per process: Check forks each run). */
START_TEST(every_cuda_call)
{
	struct run_state st;
	struct glcuda_headless *hl;
	const char *label = _i == 0 ? "GL" : _i == 1 ? "GLES"
						     : "GL, GLCUDA_COPY=engine";
	struct fault_exception exceptions[ARRAY_LENGTH(after_a_failure) +
					  ARRAY_LENGTH(no_wrap) +
					  ARRAY_LENGTH(cpu_only) +
					  ARRAY_LENGTH(copy_kernel_only) +
					  ARRAY_LENGTH(copy_engine_only) +
					  ARRAY_LENGTH(copy_flipped_by_kernel) +
					  ARRAY_LENGTH(once_per_process)];
	struct fault_target missed[128];
	size_t nexceptions = 0, nmissed;
	unsigned long points = 0;
	const char *call = NULL;
	int ret;

	if (_i == 2) {
		const char *fork = getenv("CK_FORK");

		if (fork && !strcmp(fork, "no") &&
		    strcmp(copy_asked(), "engine") != 0) {
			printf("%s: not run with CK_FORK=no: the copy way was "
			       "read by an earlier run of this process\n",
			       label);
			return;
		}
		setenv("GLCUDA_COPY", "engine", 1);
	}
	memset(&st, 0, sizeof(st));
	st.hl = hl = test_headless(_i == 1);
#ifdef FAULTS_FAKE_CUDA
	ck_assert_int_eq(fake_cuda_set_uuid_from_gl(), GL_NO_ERROR);
#endif
	/* What the device can do decides what the scenario does, and which
	 * sites it cannot reach. */
	{
		struct glcuda_device *dev = NULL;
		const struct glcuda_caps *caps;
		uint32_t kinds;

		ret = glcuda_device_new(glcuda_headless_get_display(hl),
					glcuda_headless_get_context(hl), NULL,
					&dev);
		ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		caps = glcuda_device_get_caps(dev);
		kinds = (1u << GLCUDA_IMAGE_KIND_GL_TEXTURE) |
			(1u << GLCUDA_IMAGE_KIND_EGL_IMAGE);
		st.wrap = (caps->image_kinds_supported & kinds) == kinds;
		for (size_t i = 0; i < ARRAY_LENGTH(after_a_failure); i++)
			exceptions[nexceptions++] = after_a_failure[i];
		for (size_t i = 0; !st.wrap && i < ARRAY_LENGTH(no_wrap); i++)
			exceptions[nexceptions++] = no_wrap[i];
		for (size_t i = 0;
		     caps->sync_modes_supported == 1u << GLCUDA_SYNC_CPU &&
		     i < ARRAY_LENGTH(cpu_only);
		     i++)
			exceptions[nexceptions++] = cpu_only[i];
		if (!strcmp(copy_asked(), "kernel"))
			exceptions[nexceptions++] = copy_kernel_only[0];
		if (copy_kernels_used() && strcmp(copy_asked(), "engine") != 0)
			exceptions[nexceptions++] = copy_flipped_by_kernel[0];
		for (size_t i = 0; !copy_kernels_used() &&
				   i < ARRAY_LENGTH(copy_engine_only); i++)
			exceptions[nexceptions++] = copy_engine_only[i];
		glcuda_device_destroy(dev);
	}
	/* Sites are counted from here: the failures of this test only. */
	fault_sites_reset();
	if (copy_kernels_used() && !fail_first_loads(hl, st.wrap))
		for (size_t i = 0; i < ARRAY_LENGTH(once_per_process); i++)
			exceptions[nexceptions++] = once_per_process[i];

	/* One clean run loads the CUDA driver (the test's calls below go
	 * through glcuda's table of it). */
	ret = scenario(hl, st.wrap, &call);
	ck_assert_msg(ret == 0, "clean run: %s: %s: %s", call,
		      glcuda_error_get_name(ret), glcuda_get_last_error());
	glFinish();
	/* Keep the primary context alive across runs to read free memory
	 * (and count fds after it: the context holds some of its own). */
	{
		CUdevice d;
		ck_cu(CU(cuDeviceGet)(&d, 0));
		ck_cu(CU(cuDevicePrimaryCtxRetain)(&st.ctx, d));
	}
	/* Then the scenario twice more in that context, before the baseline:
	 * the drivers' first-use allocations in it (pools that grow and are
	 * kept) are made by now, so the baseline can be compared exactly.
	 * Among them the copy kernels': their library is the process's
	 * (lib/cuda/copy-kernels.c), loaded by now, but the driver loads it
	 * into a context at the first launch there, once, and it stays while
	 * the context lives (the test holds it); the scenario's copy of one
	 * layer is that launch, so no copy of its own is needed here. */
	for (int warm = 0; warm < 2; warm++) {
		ret = scenario(hl, st.wrap, &call);
		ck_assert_msg(ret == 0, "clean run: %s: %s: %s", call,
			      glcuda_error_get_name(ret),
			      glcuda_get_last_error());
	}
	st.free0 = cuda_footprint(st.ctx);
	st.fds = test_count_fds();
	st.vk_live = fault_vk_live_total();
	st.stack = ctx_stack_now();
	ck_assert_int_eq(st.stack.depth, 0);
	test_count_gl_names(&st.before, 4096);

	/* GLCUDA_FAULTS_BY_SITE=1 skips the sweep: each site then fails once,
	 * by where it is, below (scripts/gpu-sanitizer.sh: under the
	 * sanitizer the sweep takes over ten minutes). */
	for (unsigned long n = 1; !by_site(); n++) {
		if (!failing_run(&st, n, NULL,
				 injected[n % ARRAY_LENGTH(injected)]))
			break;
		points++;
	}
	/* The number of calls before a site may vary from run to run (a
	 * timing query finds its frame done or not): a site the sweep
	 * stepped over is made to fail by where it is. */
	nmissed = fault_coverage_missing(FAULT_CUDA, exceptions, nexceptions,
					 missed, ARRAY_LENGTH(missed));
	ck_assert_uint_le(nmissed, ARRAY_LENGTH(missed));
	for (size_t i = 0; i < nmissed; i++)
		if (failing_run(&st, 0, &missed[i],
				injected[i % ARRAY_LENGTH(injected)]))
			printf("%s: %s at %s:%d, %sfailed by its site\n",
			       label, missed[i].name,
			       missed[i].file, missed[i].first,
			       by_site() ? "" : "stepped over by the sweep, ");
	printf("%s: %lu CUDA calls in the scenario%s, each failed once; every "
	       "failure unwound "
	       "cleanly (%lu runs repeated because " FOOTPRINT
	       " had changed)\n",
	       label, points,
	       by_site() ? " (the sweep skipped: each site failed by its site)"
			 : "",
	       st.repeats);
	ck_assert_msg(
		fault_coverage_report(FAULT_CUDA, "CUDA", exceptions,
				      nexceptions),
		"a CUDA call site of lib/ was never made to fail (listed "
		"above)");
	{
		CUdevice d;
		CU(cuDeviceGet)(&d, 0);
		CU(cuDevicePrimaryCtxRelease)(d);
	}
	glcuda_headless_destroy(hl);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("cuda", 600), TEST_LOOP(every_cuda_call, 3),
	};

#ifdef FAULTS_FAKE_CUDA
	fake_cuda_test_setup();
#else
	gpu_require_cuda();
	test_require_egl();
#endif
	return test_run_cases("faults", cases);
}
