/*
 * A fake CUDA driver for tests: libfakecuda.so stands in for libcuda.so.1
 * (GLCUDA_LIBCUDA=.../libfakecuda.so), so that glcuda's public API runs end
 * to end on a machine without an NVIDIA GPU, in the "cpu" sync mode.
 * SPDX-License-Identifier: MIT
 *
 * Everything happens on the CPU: one device (ordinal 0), a primary context
 * with a reference count, a per-thread context stack, handle objects with a
 * live count for leak tests, events stamped by a fake clock that advances
 * 100 us per record. Imports take ownership of their fd and close it on
 * destroy, like the real driver, so fd accounting in tests stays
 * meaningful.
 *
 * Work behaves as on a GPU where ordering matters: each stream is an
 * in-order queue, run by the fake's own driver thread (host functions run
 * there, never on the caller's), the legacy NULL stream synchronises with
 * blocking streams, stream waits on events and external semaphores hold
 * the stream until they are satisfied, synchronising calls wait (bounded),
 * and kernels of tests/test-kernels.cu, of glcudafilter and of the tools'
 * filters (fake-filters.c) run on the CPU on the imported memory, mapped,
 * so that they read and write what GL renders. Kernels come from modules
 * (cuModuleLoadData, a context's) or from libraries (cuLibraryLoadData,
 * CUDA 12.0: the process's, launched in the current context), as glcuda's
 * own copy kernels are. Tests hold streams or the
 * whole GPU, and signal semaphores, with the controls of fake-cuda.h.
 *
 * Like the real driver, an injected "sticky" error (CUDA_ERROR_ILLEGAL_ADDRESS,
 * CUDA_ERROR_LAUNCH_FAILED, ...) breaks the context: every later call that
 * uses it returns the same error, its objects can no longer be destroyed one
 * by one, and queued host functions never run. Releasing the last reference
 * to the primary context destroys it with everything it still holds; the
 * next retain gets a fresh, working context.
 *
 * Only cuGetProcAddress_v2 (what glcuda's loader looks up) and the test
 * controls are exported here; every entry point has the ABI the loader's
 * __typeof__ of the cuda.h declaration expects. fake-cuda-gst.c exports
 * the entry points GStreamer's CUDA library resolves by name, and keeps
 * the log of the work enqueued (work_log below).
 */
#include "config.h" /* _GNU_SOURCE: pthread_cond_clockwait */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glcuda/glcuda.h>

#include "loader/cuda-loader.h"
#include "fake-cuda.h"
#include "fake-cuda-gst.h"
#include "fake-filters.h"

#define FAKE_EXPORT __attribute__((visibility("default")))
#define FAKE_DEVICE_NAME "glcuda fake CUDA device"
#define FAKE_DRIVER_VERSION 13000
#define FAKE_TOTAL_MEMORY ((size_t)1 << 30)
#define FAKE_EVENT_TICK_US 100

/* Objects --------------------------------------------------------------- */

enum obj_kind {
	K_EXT_MEMORY = 1,
	K_MIPMAP,
	K_ARRAY,
	K_SURFACE,
	K_TEXTURE,
	K_SEMAPHORE,
	K_STREAM,
	K_EVENT,
	K_DEVICE_MEM,
	K_HOST_MEM,
	K_MODULE,
};

struct obj {
	struct obj *prev, *next;
	enum obj_kind kind;
};

struct CUctx_st {
	unsigned int refs;
	unsigned int flags;
};

struct CUextMemory_st {
	struct obj o;
	int fd;
	unsigned long long size;
	/* The exported bytes themselves: the fd mapped (lavapipe's OPAQUE_FD
	 * is a memfd that GL imported too; ext_memory_map), or host memory
	 * where it cannot be mapped (then CUDA does not see what GL
	 * renders). */
	uint8_t *bytes;
	void *map;
	size_t map_len;
};

struct CUarray_st {
	struct obj o;
	struct CUmipmappedArray_st *parent;
};

struct CUmipmappedArray_st {
	struct obj o;
	CUDA_ARRAY3D_DESCRIPTOR desc;
	unsigned int levels;
	struct CUextMemory_st *memory;
	unsigned long long offset;
	size_t bpp, pitch;
	/* Layered arrays: layers, and the bytes from one layer to the next. */
	size_t layers, layer_stride;
	struct CUarray_st *level0; /* made on first cuMipmappedArrayGetLevel */
};

struct view {
	struct obj o;
	struct CUarray_st *array;
};

struct CUextSemaphore_st {
	struct obj o;
	int fd;
	bool timeline;
	unsigned long long signals, waits, value;
	/* Binary: signals not yet consumed by a wait. */
	unsigned long long pending;
};

/* One in-order queue per stream; the legacy NULL stream and the
 * per-thread default stream have theirs. */
struct queue {
	struct queue *next_q;
	struct op *head, *tail;
	unsigned int len;
	bool blocking; /* synchronises with the legacy NULL stream */
	bool orphan;   /* its stream was destroyed: freed once empty */
	bool running;  /* its head is being run by the driver thread */
	int hold; /* FAKE_CUDA_RUN, FAKE_CUDA_HOLD, FAKE_CUDA_HOLD_UNTIL_SYNC,
			* FAKE_CUDA_HOLD_UNTIL_WAITED */
	/* release_waited_holds: a synchronising call needs its work */
	bool waited;
};

struct CUstream_st {
	struct obj o;
	unsigned int flags;
	struct queue *q;
};

struct CUevent_st {
	struct obj o;
	unsigned int flags;
	unsigned int pending; /* records queued, not yet run */
	uint64_t recorded_count, done_count;
	bool recorded;
	uint64_t time_us;
};

struct alloc {
	struct obj o;
	void *ptr;
	size_t size;
};

struct CUmod_st {
	struct obj o;
};

/* A library belongs to no context (CUDA 12.0): it is not on the live list,
 * whose objects a context's destruction reclaims, and
 * fake_cuda_live_objects does not count it; fake_cuda_libraries does. */
struct CUlib_st {
	struct CUlib_st *next;
};

/* The kernels of tests/test-kernels.cu and of glcudafilter's
 * gst/glcudafilter-kernels.cu (the built-in invert per plane format) that
 * the fake runs on the CPU, and the tools' filters (common/filters.cu,
 * fake-filters.c). args: the parameters' sizes in order (S: a 64-bit
 * surface object or pointer, i: a 32-bit int or float). */
enum kernel_id {
	KERNEL_RING_TRANSFORM,
	KERNEL_CHECK_AND_FILL,
	KERNEL_INVERT_8, /* every byte: 255 - v */
	/* every 16-bit word: the 10 high bits inverted, low 6 zero */
	KERNEL_INVERT_P010,
	/* a 32-bit word: bits 0-29 inverted, alpha kept */
	KERNEL_INVERT_RGB10A2,
	KERNEL_FILTER, /* fake-filters.c */
	/* examples/gstreamer/invert-planes.cu: by the plane's glcuda format */
	KERNEL_INVERT_PLANES,
	KERNEL_COPY, /* lib/cuda/copy-kernels.cu: surface <-> linear */
};

struct CUfunc_st {
	const char *name;
	enum kernel_id id;
	size_t elem;
	const char *args;
	enum fake_filter filter;
};

static struct CUfunc_st functions[] = {
	{ "ring_transform", KERNEL_RING_TRANSFORM, 4, "SSii" },
	{ "check_and_fill_1", KERNEL_CHECK_AND_FILL, 1, "SiiSSSS" },
	{ "check_and_fill_2", KERNEL_CHECK_AND_FILL, 2, "SiiSSSS" },
	{ "check_and_fill_4", KERNEL_CHECK_AND_FILL, 4, "SiiSSSS" },
	{ "check_and_fill_8", KERNEL_CHECK_AND_FILL, 8, "SiiSSSS" },
	{ "check_and_fill_16", KERNEL_CHECK_AND_FILL, 16, "SiiSSSS" },
	{ "glcudafilter_invert_r8", KERNEL_INVERT_8, 1, "SSii" },
	{ "glcudafilter_invert_rg8", KERNEL_INVERT_8, 2, "SSii" },
	{ "glcudafilter_invert_p010_r16", KERNEL_INVERT_P010, 2, "SSii" },
	{ "glcudafilter_invert_p010_rg16", KERNEL_INVERT_P010, 4, "SSii" },
	{ "glcudafilter_invert_rgb10a2", KERNEL_INVERT_RGB10A2, 4, "SSii" },
	{ "invert_planes", KERNEL_INVERT_PLANES, 0, "SSiiii" },
	/* (surface, linear, row_pitch, layer_pitch, w, h, first, layered,
	 * to_linear, flip, depth_mode, znear, zfar); a layer per block of the
	 * grid's z. */
	{ "copy_kernels_1", KERNEL_COPY, 1, "SSSSiiiiiiiSS" },
	{ "copy_kernels_2", KERNEL_COPY, 2, "SSSSiiiiiiiSS" },
	{ "copy_kernels_4", KERNEL_COPY, 4, "SSSSiiiiiiiSS" },
	{ "copy_kernels_8", KERNEL_COPY, 8, "SSSSiiiiiiiSS" },
	{ "copy_kernels_16", KERNEL_COPY, 16, "SSSSiiiiiiiSS" },
};

/* The kernels of libraries: a CUkernel per function above, the same for
 * every library (the fake's libraries all hold every kernel it knows).
 * cuLaunchKernel takes one cast to a CUfunction. */
struct CUkern_st {
	CUfunction function;
};

static struct CUkern_st
	library_kernels[sizeof(functions) / sizeof(functions[0])];

/* The filters' kernels, made on first look-up (common/filters.c looks up
 * every format pair's), never freed: a fixed number of names. */
#define FILTER_FUNCTIONS 64
static struct CUfunc_st filter_functions[FILTER_FUNCTIONS];
static char filter_names[FILTER_FUNCTIONS][32];
static size_t filter_count;

#define KERNEL_MAX_ARGS 13

struct sem_ref {
	CUexternalSemaphore sem;
	unsigned long long value;
};

/* Work on a stream, in enqueue order. */
enum op_kind {
	OP_HOST_FN,
	OP_EVENT,
	OP_KERNEL,
	OP_MEMCPY,
	OP_MEMCPY2D,
	OP_MEMCPY3D,
	OP_WAIT_EVENT,
	OP_SEM_WAIT,
	OP_SEM_SIGNAL,
};

struct op {
	struct op *next;
	enum op_kind kind;
	CUstream stream;
	uint64_t seq;
	CUhostFn fn;
	void *data;
	CUevent event;
	uint64_t target;
	void *dst;
	const void *src;
	size_t n;
	CUDA_MEMCPY2D m2d;
	CUDA_MEMCPY3D m3d;
	const struct CUfunc_st *kernel;
	unsigned int grid[3];
	uint64_t args[KERNEL_MAX_ARGS];
	struct sem_ref *sems;
	unsigned int sem_count;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Signalled when work is enqueued or may have become runnable (the driver
 * thread waits on it), and when work is done (synchronising calls and the
 * test controls wait on it). */
static pthread_cond_t work_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static struct obj live = { &live, &live, 0 };
static unsigned int live_count;
static bool initialized;
static struct CUctx_st primary;
static bool gate_closed;
static struct queue pt_q = { .blocking = true };
static struct queue null_q = { .next_q = &pt_q, .blocking = true };
static struct queue *queues = &null_q;
static unsigned int queue_len;
static uint64_t next_seq = 1;
static bool worker_started, worker_busy;
static pthread_t worker_thread;
static uint64_t clock_us;
static unsigned int launches, host_fns_run;
/* Launches of library kernels (CUkernel), and 3D copies enqueued. */
static unsigned int library_launches, memcpy3d_calls;
static struct CUlib_st *libraries;
static unsigned int library_count;
static size_t device_bytes;
static bool warned_unmapped;
/* The context's sticky error (CUDA_SUCCESS: healthy), and the objects
 * freed by the destruction of a context that still held them. */
static CUresult sticky;
static unsigned int reclaimed;

static __thread CUcontext ctx_stack[32];
static __thread int ctx_depth;

static void
obj_add(struct obj *o, enum obj_kind kind)
{
	o->kind = kind;
	o->next = &live;
	o->prev = live.prev;
	live.prev->next = o;
	live.prev = o;
	live_count++;
}

static void
obj_remove(struct obj *o)
{
	o->prev->next = o->next;
	o->next->prev = o->prev;
	o->prev = o->next = NULL;
	live_count--;
}

/* Handles are validated against the live list, never dereferenced first:
 * a stale or foreign handle is an error, as with the real driver. */
static bool
obj_is_live(const void *p, enum obj_kind kind)
{
	if (!p)
		return false;
	for (struct obj *o = live.next; o != &live; o = o->next)
		if ((const void *)o == p)
			return o->kind == kind;
	return false;
}

static struct alloc *
alloc_find(uintptr_t addr, size_t n)
{
	for (struct obj *o = live.next; o != &live; o = o->next) {
		struct alloc *a = (struct alloc *)o;
		if (o->kind != K_DEVICE_MEM && o->kind != K_HOST_MEM)
			continue;
		if (addr >= (uintptr_t)a->ptr && n <= a->size &&
		    addr - (uintptr_t)a->ptr <= a->size - n)
			return a;
	}
	return NULL;
}

/* Entry checks ----------------------------------------------------------- */

static char fail_env[128], fail_name[64];
static unsigned long fail_at, fail_calls;
static CUresult fail_code;

static CUresult result_from_name(const char *name);

/* GLCUDA_FAKE_CUDA_FAIL=name:N[:code], read at every call so that a test
 * can change it between calls; the call count restarts when it changes.
 * code is a CUresult name (CUDA_ERROR_LAUNCH_FAILED) or number; default
 * CUDA_ERROR_OUT_OF_MEMORY. */
static void
fail_parse(const char *env)
{
	const char *colon = strchr(env, ':'), *code;
	char *end;

	snprintf(fail_env, sizeof(fail_env), "%s", env);
	fail_calls = 0;
	fail_at = 0;
	fail_code = CUDA_ERROR_OUT_OF_MEMORY;
	if (!colon || (size_t)(colon - env) >= sizeof(fail_name))
		return;
	memcpy(fail_name, env, (size_t)(colon - env));
	fail_name[colon - env] = '\0';
	fail_at = strtoul(colon + 1, &end, 10);
	if (*end != ':')
		return;
	code = end + 1;
	fail_code = (CUresult)strtoul(code, &end, 10);
	if (end == code || *end)
		fail_code = result_from_name(code);
	if (fail_code == CUDA_SUCCESS)
		fail_at =
			/* unknown code: inject nothing rather than success */
			0;
}

/* Called with the lock held. */
static bool
fail_now(const char *name)
{
	const char *env = getenv("GLCUDA_FAKE_CUDA_FAIL");

	if (!env)
		env = "";
	if (strncmp(env, fail_env, sizeof(fail_env) - 1) != 0)
		fail_parse(env);
	if (!fail_at || strcmp(name, fail_name) != 0)
		return false;
	return ++fail_calls == fail_at;
}

/* Errors after which the real driver's context is unusable: every later
 * call on it returns the same error (cuda.h: "any further CUDA work will
 * return the same error"). */
static bool
result_is_sticky(CUresult res)
{
	switch (res) {
	case CUDA_ERROR_ECC_UNCORRECTABLE:
	case CUDA_ERROR_CONTAINED:
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_FAILED:
		return true;
	default:
		return false;
	}
}

/* Calls that do not use a context keep working on a broken one: the
 * driver, the device, the context stack and the primary context's
 * reference count (releasing it is how a program recovers). */
static bool
call_needs_context(const char *name)
{
	static const char *const free_calls[] = {
		"cuInit",
		"cuDriverGetVersion",
		"cuCtxPushCurrent",
		"cuCtxPopCurrent",
		"cuCtxGetCurrent",
		"cuCtxGetDevice",
		"cuLibraryLoadData",
		"cuLibraryGetKernel",
	};

	if (!strncmp(name, "cuDevice", 8))
		return false;
	for (size_t i = 0; i < sizeof(free_calls) / sizeof(free_calls[0]); i++)
		if (!strcmp(name, free_calls[i]))
			return false;
	return true;
}

static CUresult
enter(const char *name)
{
	if (!initialized)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (sticky != CUDA_SUCCESS && call_needs_context(name))
		return sticky;
	if (fail_now(name)) {
		if (result_is_sticky(fail_code) && call_needs_context(name))
			sticky = fail_code;
		return fail_code;
	}
	return CUDA_SUCCESS;
}

/* Lock, then run the entry checks; on failure unlock and return. */
#define ENTER(name)                                  \
	CUresult res_;                               \
	pthread_mutex_lock(&lock);                   \
	res_ = enter(name);                          \
	if (res_ != CUDA_SUCCESS) {                  \
		pthread_mutex_unlock(&lock);         \
		return res_;                         \
	}
/* Evaluate res under the lock, then unlock and return it. */
#define LEAVE(res) do { CUresult leave_ = (res); pthread_mutex_unlock(&lock); \
	return leave_; } while (0)

static CUcontext
current_ctx(void)
{
	return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL;
}

/* Creating objects needs a current, live context. */
static bool
have_context(void)
{
	return current_ctx() == &primary && primary.refs > 0;
}

static bool
stream_ok(CUstream s)
{
	return !s || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD ||
	       obj_is_live(s, K_STREAM);
}

/* The queues --------------------------------------------------------------- */

static struct queue *
queue_of(CUstream s)
{
	if (!s || s == CU_STREAM_LEGACY)
		return &null_q;
	if (s == CU_STREAM_PER_THREAD)
		return &pt_q;
	return s->q;
}

static void
op_free(struct op *op)
{
	free(op->sems);
	free(op);
}

static void
queue_unlink(struct queue *q)
{
	for (struct queue **pp = &queues; *pp; pp = &(*pp)->next_q)
		if (*pp == q) {
			*pp = q->next_q;
			return;
		}
}

/* Drop a queue's work (a destroyed context's: it never runs). */
static void
queue_clear(struct queue *q)
{
	while (q->head) {
		struct op *op = q->head;
		q->head = op->next;
		if (op->kind == OP_EVENT && op->event)
			op->event->pending--;
		queue_len--;
		op_free(op);
	}
	q->tail = NULL;
	q->len = 0;
}

static void
queue_free(struct queue *q)
{
	queue_clear(q);
	queue_unlink(q);
	free(q);
}

static void
event_complete(CUevent ev)
{
	clock_us += FAKE_EVENT_TICK_US;
	ev->time_us = clock_us;
	ev->recorded = true;
	ev->pending--;
	ev->done_count++;
}

static void
memcpy2d_run(const CUDA_MEMCPY2D *m)
{
	const uint8_t *src = m->srcMemoryType == CU_MEMORYTYPE_HOST
				     ? (const uint8_t *)m->srcHost
				     : (const uint8_t *)(uintptr_t)m->srcDevice;
	uint8_t *dst = m->dstMemoryType == CU_MEMORYTYPE_HOST
			       ? (uint8_t *)m->dstHost
			       : (uint8_t *)(uintptr_t)m->dstDevice;

	for (size_t y = 0; y < m->Height; y++)
		memmove(dst + (m->dstY + y) * m->dstPitch + m->dstXInBytes,
			src + (m->srcY + y) * m->srcPitch + m->srcXInBytes,
			m->WidthInBytes);
}

/* Where a 3D copy's side starts: row 0 of slice 0 of an array (its
 * memory, laid out as lavapipe lays it out) or of linear memory, with the
 * bytes from row to row and from slice to slice; NULL for an array that is
 * gone (a real GPU would fault). */
static uint8_t *
memcpy3d_side(CUmemorytype type, CUarray array, CUdeviceptr device,
	      const void *host, size_t x, size_t y, size_t z, size_t pitch,
	      size_t height, size_t *row, size_t *slice)
{
	if (type == CU_MEMORYTYPE_ARRAY) {
		struct CUmipmappedArray_st *mip;

		if (!obj_is_live(array, K_ARRAY) || !(mip = array->parent) ||
		    !obj_is_live(mip->memory, K_EXT_MEMORY))
			return NULL;
		*row = mip->pitch;
		*slice = mip->layer_stride;
		return mip->memory->bytes + mip->offset +
		       z * mip->layer_stride + y * mip->pitch + x;
	}
	*row = pitch;
	*slice = pitch * height;
	return (type == CU_MEMORYTYPE_HOST ? (uint8_t *)host
					   : (uint8_t *)(uintptr_t)device) +
	       z * *slice + y * pitch + x;
}

static void
memcpy3d_run(const CUDA_MEMCPY3D *m)
{
	size_t srow, sslice, drow, dslice;
	const uint8_t *src =
		memcpy3d_side(m->srcMemoryType, m->srcArray, m->srcDevice,
			      m->srcHost, m->srcXInBytes, m->srcY, m->srcZ,
			      m->srcPitch, m->srcHeight, &srow, &sslice);
	uint8_t *dst = memcpy3d_side(m->dstMemoryType, m->dstArray,
				     m->dstDevice, m->dstHost, m->dstXInBytes,
				     m->dstY, m->dstZ, m->dstPitch,
				     m->dstHeight, &drow, &dslice);

	if (!src || !dst)
		return;
	for (size_t z = 0; z < m->Depth; z++)
		for (size_t y = 0; y < m->Height; y++)
			memmove(dst + z * dslice + y * drow,
				src + z * sslice + y * srow, m->WidthInBytes);
}

/* The bounds of one side of a 3D copy, as the driver checks them. */
static CUresult
memcpy3d_check_side(CUmemorytype type, CUarray array, CUdeviceptr device,
		    const void *host, size_t x, size_t y, size_t z,
		    size_t pitch, size_t height, const CUDA_MEMCPY3D *m)
{
	if (type == CU_MEMORYTYPE_ARRAY) {
		struct CUmipmappedArray_st *mip;

		if (!obj_is_live(array, K_ARRAY))
			return CUDA_ERROR_INVALID_HANDLE;
		mip = array->parent;
		if (x + m->WidthInBytes > mip->desc.Width * mip->bpp ||
		    y + m->Height > (mip->desc.Height ? mip->desc.Height : 1) ||
		    z + m->Depth > mip->layers)
			return CUDA_ERROR_INVALID_VALUE;
		return CUDA_SUCCESS;
	}
	if (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_HOST)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (m->WidthInBytes + x > pitch ||
	    (m->Depth > 1 && m->Height + y > height))
		return CUDA_ERROR_INVALID_VALUE;
	if (type == CU_MEMORYTYPE_HOST)
		return host ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	if (!alloc_find((uintptr_t)device + z * pitch * height + y * pitch + x,
			(m->Depth - 1) * pitch * height +
				(m->Height - 1) * pitch + m->WidthInBytes))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* The texel at byte column xbytes of row y of a surface, or NULL where a
 * real GPU would fault (a stale object, out of bounds with the default
 * trapping boundary mode). */
static uint8_t *
surf_texel(uint64_t surf, int xbytes, int y, size_t size)
{
	struct view *v = (struct view *)(uintptr_t)surf;
	struct CUmipmappedArray_st *mip;

	if (!obj_is_live(v, K_SURFACE) || !v->array ||
	    !(mip = v->array->parent) ||
	    !obj_is_live(mip->memory, K_EXT_MEMORY))
		return NULL;
	if (xbytes < 0 || y < 0 || size != mip->bpp ||
	    (size_t)xbytes + size > mip->desc.Width * mip->bpp ||
	    (size_t)y >= (mip->desc.Height ? mip->desc.Height : 1))
		return NULL;
	return mip->memory->bytes + mip->offset + (size_t)y * mip->pitch +
	       (size_t)xbytes;
}

static uint8_t *
device_ptr(uint64_t p, size_t n)
{
	return alloc_find((uintptr_t)p, n) ? (uint8_t *)(uintptr_t)p : NULL;
}

/* glcudafilter's invert of one texel of elem bytes, in place
 * (little-endian words, as on the GPU). */
static void
invert_texel(enum kernel_id id, uint8_t *v, size_t elem)
{
	if (id == KERNEL_INVERT_8) {
		for (size_t i = 0; i < elem; i++)
			v[i] = (uint8_t)(255 - v[i]);
	} else if (id == KERNEL_INVERT_P010) {
		for (size_t i = 0; i + 1 < elem; i += 2) {
			uint16_t u = (uint16_t)(v[i] | v[i + 1] << 8);
			u = (uint16_t)(~u & 0xffc0u);
			v[i] = (uint8_t)u;
			v[i + 1] = (uint8_t)(u >> 8);
		}
	} else if (id == KERNEL_INVERT_PLANES) {
		/* RGBA8: RGB inverted, alpha kept. */
		for (size_t i = 0; i < 3; i++)
			v[i] = (uint8_t)(255 - v[i]);
	} else {
		uint32_t u = (uint32_t)v[0] | (uint32_t)v[1] << 8 |
			     (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24;
		u ^= 0x3fffffffu;
		for (int i = 0; i < 4; i++)
			v[i] = (uint8_t)(u >> (8 * i));
	}
}

/* A kernel on the CPU, every thread of the grid in turn. A fault breaks
 * the context as on the GPU (CUDA_ERROR_ILLEGAL_ADDRESS, sticky). */
/* The library's copy between a surface (of a layered array or not) and
 * linear memory, for the layers of the grid's z. false where a GPU would
 * fault. */
static bool
copy_kernel_run(const uint64_t *a, size_t elem, unsigned int layers)
{
	struct view *v = (struct view *)(uintptr_t)a[0];
	struct CUmipmappedArray_st *mip;
	const int w = (int)(int32_t)a[4], h = (int)(int32_t)a[5];
	const size_t first = (size_t)(int32_t)a[6];
	const bool to_linear = (int32_t)a[8] != 0;
	const bool flip = (int32_t)a[9] != 0;
	const int depth_mode = (int32_t)a[10];
	double znear, zfar;

	memcpy(&znear, &a[11], sizeof(znear));
	memcpy(&zfar, &a[12], sizeof(zfar));
	if (!obj_is_live(v, K_SURFACE) || !v->array ||
	    !(mip = v->array->parent) ||
	    !obj_is_live(mip->memory, K_EXT_MEMORY) || elem != mip->bpp ||
	    first + layers > mip->layers || (size_t)w > mip->desc.Width ||
	    (size_t)h > (mip->desc.Height ? mip->desc.Height : 1))
		return false;
	for (size_t l = 0; l < layers; l++)
		for (int y = 0; y < h; y++) {
			const int sy = flip ? h - 1 - y : y;
			uint8_t *t = mip->memory->bytes + mip->offset +
				     (first + l) * mip->layer_stride +
				     (size_t)sy * mip->pitch;
			uint8_t *p =
				device_ptr(a[1] + l * a[3] + (size_t)y * a[2],
					   (size_t)w * elem);

			if (!p)
				return false;
			if (!to_linear) {
				memcpy(t, p, (size_t)w * elem);
				continue;
			}
			memcpy(p, t, (size_t)w * elem);
			/* The kernel's depth to distance (copy-kernels.cu):
			 * float32 texels, in double. */
			for (int x = 0; depth_mode && elem == 4 && x < w;
			     x++) {
				float f;
				double d, z;

				memcpy(&f, p + (size_t)x * 4, 4);
				d = f;
				if (depth_mode == 1)
					z = znear * zfar /
					    (zfar - d * (zfar - znear));
				else
					z = znear + d * (zfar - znear);
				f = (float)z;
				memcpy(p + (size_t)x * 4, &f, 4);
			}
		}
	return true;
}

static void
kernel_run(const struct op *op)
{
	static const struct fake_filter_memory filter_memory = { surf_texel,
								 device_ptr };
	const uint64_t *a = op->args;
	/* (in, out, width, height) but for check_and_fill (surface, width,
	 * height, ...). */
	bool in_out = op->kernel->id != KERNEL_CHECK_AND_FILL;
	int w = (int)(int32_t)a[in_out ? 2 : 1];
	int h = (int)(int32_t)a[in_out ? 3 : 2];
	int gw = (int)op->grid[0], gh = (int)op->grid[1];
	size_t elem = op->kernel->elem;

	enum kernel_id id = op->kernel->id;

	if (id == KERNEL_FILTER) {
		if (!fake_filter_run(op->kernel->filter, a, gw, gh,
				     &filter_memory))
			goto fault;
		return;
	}
	if (id == KERNEL_COPY) {
		if (!copy_kernel_run(a, elem, op->grid[2]))
			goto fault;
		return;
	}
	/* invert_planes: the built-in invert of the plane's glcuda format. */
	if (id == KERNEL_INVERT_PLANES) {
		switch ((int32_t)a[5]) {
		case GLCUDA_FORMAT_RGBA8: elem = 4; break;
		case GLCUDA_FORMAT_RGB10_A2:
			id = KERNEL_INVERT_RGB10A2;
			elem = 4;
			break;
		case GLCUDA_FORMAT_R8: id = KERNEL_INVERT_8; elem = 1; break;
		case GLCUDA_FORMAT_RG8: id = KERNEL_INVERT_8; elem = 2; break;
		case GLCUDA_FORMAT_R16:
			id = KERNEL_INVERT_P010;
			elem = 2;
			break;
		case GLCUDA_FORMAT_RG16:
			id = KERNEL_INVERT_P010;
			elem = 4;
			break;
		default: goto fault;
		}
	}
	for (int y = 0; y < h && y < gh; y++) {
		for (int x = 0; x < w && x < gw; x++) {
			if (id == KERNEL_INVERT_8 || id == KERNEL_INVERT_P010 ||
			    id == KERNEL_INVERT_RGB10A2 ||
			    id == KERNEL_INVERT_PLANES) {
				uint8_t *in = surf_texel(a[0], x * (int)elem, y,
							 elem);
				uint8_t *out = surf_texel(a[1], x * (int)elem,
							  y, elem);
				uint8_t v[4];
				if (!in || !out)
					goto fault;
				memcpy(v, in, elem);
				invert_texel(id, v, elem);
				memcpy(out, v, elem);
			} else if (op->kernel->id == KERNEL_RING_TRANSFORM) {
				uint8_t *in = surf_texel(a[0], x * 4, y, 4);
				uint8_t *out = surf_texel(a[1], x * 4, y, 4);
				uint8_t v[4];
				if (!in || !out)
					goto fault;
				memcpy(v, in, 4);
				out[0] = (uint8_t)(255 - v[0]);
				out[1] = (uint8_t)(255 - v[1]);
				out[2] = v[2] ^ 0xff;
				out[3] = v[3];
			} else {
				size_t i = (size_t)y * (size_t)w + (size_t)x;
				uint8_t *t = surf_texel(a[0], x * (int)elem, y,
							elem);
				uint8_t *expect =
					a[3] ? device_ptr(a[3] + i * elem, elem)
					     : NULL;
				uint8_t *fill =
					a[4] ? device_ptr(a[4] + i * elem, elem)
					     : NULL;
				uint8_t *mis = device_ptr(a[5], 4),
					*first = device_ptr(a[6], 4);
				if (!t || (a[3] && !expect) ||
				    (a[4] && !fill) || !mis || !first)
					goto fault;
				if (expect && memcmp(t, expect, elem)) {
					uint32_t n, f = (uint32_t)i;
					memcpy(&n, mis, 4);
					if (n == 0)
						memcpy(first, &f, 4);
					n++;
					memcpy(mis, &n, 4);
				}
				if (fill)
					memcpy(t, fill, elem);
			}
		}
	}
	return;
fault:
	fprintf(stderr, "fake-cuda: kernel %s: illegal address\n",
		op->kernel->name);
	sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
}

/* Run one op. Called with the lock held, on the driver thread; host
 * functions run unlocked. */
static void
op_run(struct op *op)
{
	switch (op->kind) {
	case OP_HOST_FN:
		host_fns_run++;
		pthread_mutex_unlock(&lock);
		op->fn(op->data);
		pthread_mutex_lock(&lock);
		break;
	case OP_EVENT:
		if (op->event)
			event_complete(op->event);
		break;
	case OP_KERNEL:
		kernel_run(op);
		break;
	case OP_MEMCPY:
		memmove(op->dst, op->src, op->n);
		break;
	case OP_MEMCPY2D:
		memcpy2d_run(&op->m2d);
		break;
	case OP_MEMCPY3D:
		memcpy3d_run(&op->m3d);
		break;
	case OP_WAIT_EVENT:
		break;
	case OP_SEM_WAIT:
		for (unsigned int i = 0; i < op->sem_count; i++)
			if (op->sems[i].sem && !op->sems[i].sem->timeline)
				op->sems[i].sem->pending--;
		break;
	case OP_SEM_SIGNAL:
		for (unsigned int i = 0; i < op->sem_count; i++) {
			CUexternalSemaphore s = op->sems[i].sem;
			if (!s)
				continue;
			if (!s->timeline)
				s->pending++;
			else if (op->sems[i].value > s->value)
				s->value = op->sems[i].value;
		}
		break;
	}
}

/* The legacy NULL stream waits for the earlier work of every blocking
 * stream, and blocking streams wait for its earlier work; streams made
 * with CU_STREAM_NON_BLOCKING do neither. */
static bool
legacy_blocked(const struct queue *q, uint64_t seq)
{
	if (q == &null_q) {
		for (struct queue *b = queues; b; b = b->next_q)
			if (b != &null_q && b->blocking && b->head &&
			    b->head->seq < seq)
				return true;
		return false;
	}
	return q->blocking && null_q.head && null_q.head->seq < seq;
}

static bool
op_ready(const struct op *op)
{
	switch (op->kind) {
	case OP_WAIT_EVENT:
		return !op->event || op->event->done_count >= op->target;
	case OP_SEM_WAIT:
		for (unsigned int i = 0; i < op->sem_count; i++) {
			CUexternalSemaphore s = op->sems[i].sem;
			if (s && (s->timeline ? s->value < op->sems[i].value
					      : s->pending == 0))
				return false;
		}
		return true;
	default:
		return true;
	}
}

static bool
queue_runnable(const struct queue *q)
{
	return q->head && !q->running && q->hold == FAKE_CUDA_RUN &&
	       !legacy_blocked(q, q->head->seq) && op_ready(q->head);
}

/* The queue whose head runs next: the oldest runnable work, as a GPU that
 * is free runs what was submitted first. */
static struct queue *
next_runnable(void)
{
	struct queue *best = NULL;

	if (gate_closed || sticky != CUDA_SUCCESS)
		return NULL;
	for (struct queue *q = queues; q; q = q->next_q)
		if (queue_runnable(q) &&
		    (!best || q->head->seq < best->head->seq))
			best = q;
	return best;
}

static bool
any_hold(void)
{
	if (gate_closed)
		return true;
	for (struct queue *q = queues; q; q = q->next_q)
		if (q->hold != FAKE_CUDA_RUN && q->head)
			return true;
	return false;
}

/* The driver thread: runs the queues' work in stream order. Host
 * functions run here, never on the thread that launched them. */
static void *
worker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		struct queue *q = next_runnable();
		struct op *op;

		if (!q) {
			pthread_cond_wait(&work_cond, &lock);
			continue;
		}
		op = q->head;
		q->running = true;
		worker_busy = true;
		op_run(op);
		q->running = false;
		q->head = op->next;
		if (!q->head)
			q->tail = NULL;
		q->len--;
		queue_len--;
		op_free(op);
		if (q->orphan && !q->head)
			queue_free(q);
		worker_busy = false;
		pthread_cond_broadcast(&done_cond);
	}
	return NULL;
}

/* Lock held. */
static bool
worker_start(void)
{
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;
	int err;

	if (worker_started)
		return true;
	/* Signals are the program's threads' business, not the driver's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&thread, &attr, worker_main, NULL);
	if (err == 0)
		worker_thread = thread;
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	worker_started = err == 0;
	return worker_started;
}

/* Fork keeps only the calling thread: the child starts its own driver
 * thread when it first enqueues work. */
static void
fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void
fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void
fork_child(void)
{
	worker_started = false;
	worker_busy = false;
	for (struct queue *q = queues; q; q = q->next_q)
		q->running = false;
	pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void
fake_cuda_load(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* The log of work (fake-cuda-gst.c): each op as the entry point that
 * enqueued it. ------------------------------------------------------------ */
static void
work_log(const struct op *op)
{
	static const char *const calls[] = {
		[OP_HOST_FN] = "cuLaunchHostFunc",
		[OP_EVENT] = "cuEventRecord",
		[OP_KERNEL] = "cuLaunchKernel",
		[OP_MEMCPY] = "cuMemcpyAsync",
		[OP_MEMCPY2D] = "cuMemcpy2DAsync",
		[OP_MEMCPY3D] = "cuMemcpy3DAsync",
		[OP_WAIT_EVENT] = "cuStreamWaitEvent",
		[OP_SEM_WAIT] = "cuWaitExternalSemaphoresAsync",
		[OP_SEM_SIGNAL] = "cuSignalExternalSemaphoresAsync",
	};

	fake_cuda_work_logged(calls[op->kind],
			      op->kind == OP_KERNEL ? op->kernel->name : NULL,
			      op->stream);
}

/* -------------------------------------------------------------------------- */

/* Enqueue work on a stream (it runs on the driver thread). Lock held.
 * Copies op. */
static CUresult
enqueue(struct op *op)
{
	struct queue *q = queue_of(op->stream);
	struct op *c;

	if (!worker_start())
		return CUDA_ERROR_OUT_OF_MEMORY;
	c = malloc(sizeof(*c));
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*c = *op;
	c->next = NULL;
	c->seq = next_seq++;
	if (c->kind == OP_EVENT) {
		c->event->pending++;
		c->event->recorded_count++;
	}
	if (q->tail)
		q->tail->next = c;
	else
		q->head = c;
	q->tail = c;
	q->len++;
	queue_len++;
	work_log(c);
	/* Taken by the queued op. */
	op->sems = NULL;
	pthread_cond_broadcast(&work_cond);
	return CUDA_SUCCESS;
}

/* Work enqueued before seq (or at all, seq 0) still on q. */
static bool
queue_has_before(const struct queue *q, uint64_t seq)
{
	return q->head && (!seq || q->head->seq < seq);
}

static bool
queue_busy(const struct queue *q)
{
	return q->head != NULL;
}

/* Queued work on a stream (NULL/legacy: any). */
static bool
stream_busy(CUstream s)
{
	if (!s || s == CU_STREAM_LEGACY) {
		for (struct queue *q = queues; q; q = q->next_q)
			if (queue_busy(q))
				return true;
		return false;
	}
	return queue_busy(queue_of(s));
}

/* What a synchronising call waits for. */
struct wait_target {
	const struct queue *q; /* one stream's work... */
	bool legacy; /* ...and, for the NULL stream, blocking streams' */
	bool all;              /* every stream's (the context) */
	CUevent event;         /* or an event's records */
	uint64_t seq, event_count;
};

static bool
target_done(const struct wait_target *t)
{
	if (t->event)
		return !obj_is_live(t->event, K_EVENT) ||
		       t->event->done_count >= t->event_count;
	for (struct queue *q = queues; q; q = q->next_q) {
		bool mine = t->all || q == t->q || (t->legacy && q->blocking);
		if (mine && queue_has_before(q, t->seq))
			return false;
	}
	return true;
}

static unsigned int
timeout_ms(void)
{
	const char *env = getenv("GLCUDA_FAKE_CUDA_TIMEOUT_MS");
	unsigned long v = env ? strtoul(env, NULL, 10) : 0;
	return v ? (unsigned int)v : 10000;
}

/* A deadline on the monotonic clock (waited for with
 * pthread_cond_clockwait): a step of the wall clock, as when a virtual
 * machine is resumed or NTP corrects it, must not end a wait early. */
static void
deadline_in(struct timespec *ts, unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Lock held. A synchronising call starts waiting: the holds that last
 * only until then end. */
static void
release_sync_holds(void)
{
	for (struct queue *q = queues; q; q = q->next_q)
		if (q->hold == FAKE_CUDA_HOLD_UNTIL_SYNC)
			q->hold = FAKE_CUDA_RUN;
	pthread_cond_broadcast(&work_cond);
}

/* Whether q holds a queued record of ev. */
static bool
queue_records(const struct queue *q, CUevent ev)
{
	for (const struct op *op = q->head; op; op = op->next)
		if (op->kind == OP_EVENT && op->event == ev)
			return true;
	return false;
}

/* Mark q as waited for; true if it was not yet. */
static bool
queue_mark_waited(struct queue *q)
{
	if (q->waited || !q->head)
		return false;
	q->waited = true;
	return true;
}

/* Lock held. A synchronising call waits for t: the streams held until
 * someone waits for their work run, if t needs that work. t needs the
 * streams it names (the event's queued records, the stream, the
 * context's every stream) and, in turn, what their queued work waits
 * for: the streams recording the events they wait for, and the legacy
 * stream's order (the NULL stream waits for blocking streams, they for
 * it). Streams t does not need stay held, as on a GPU that is slow to
 * run them: a synchronisation on the wrong stream or event shows. */
static void
release_waited_holds(const struct wait_target *t)
{
	bool more = false;

	for (struct queue *q = queues; q; q = q->next_q) {
		q->waited = false;
		if (t->all || q == t->q || (t->legacy && q->blocking) ||
		    (t->event && queue_records(q, t->event)))
			more |= queue_mark_waited(q);
	}
	while (more) {
		more = false;
		for (struct queue *q = queues; q; q = q->next_q) {
			if (!q->waited)
				continue;
			for (struct queue *r = queues; r; r = r->next_q) {
				if (r->waited || !r->head)
					continue;
				if ((q == &null_q && r->blocking) ||
				    (q->blocking && r == &null_q))
					more |= queue_mark_waited(r);
				for (const struct op *op = q->head;
				     op && !r->waited; op = op->next)
					if (op->kind == OP_WAIT_EVENT &&
					    op->event &&
					    queue_records(r, op->event))
						more |= queue_mark_waited(r);
			}
		}
	}
	for (struct queue *q = queues; q; q = q->next_q)
		if (q->waited && q->hold == FAKE_CUDA_HOLD_UNTIL_WAITED)
			q->hold = FAKE_CUDA_RUN;
	pthread_cond_broadcast(&work_cond);
}

/* Wait until the work of t is done. Lock held. Never waits forever: where
 * the test holds the GPU (gate, hold) and nothing else can run, the work
 * cannot finish and the call returns CUDA_ERROR_NOT_READY at once (not
 * CUDA_ERROR_LAUNCH_TIMEOUT, which is sticky on the real driver); else it
 * gives up after GLCUDA_FAKE_CUDA_TIMEOUT_MS (10 s) with the same code. */
static CUresult
wait_for(const struct wait_target *t, const char *call)
{
	struct timespec deadline;
	unsigned int ms = timeout_ms();

	release_sync_holds();
	release_waited_holds(t);
	deadline_in(&deadline, ms);
	for (;;) {
		if (sticky != CUDA_SUCCESS)
			return sticky;
		if (target_done(t))
			return CUDA_SUCCESS;
		if (!worker_busy && !next_runnable() && any_hold())
			return CUDA_ERROR_NOT_READY;
		if (pthread_cond_clockwait(&done_cond, &lock, CLOCK_MONOTONIC,
					   &deadline) == ETIMEDOUT &&
		    !target_done(t)) {
			fprintf(stderr,
				"fake-cuda: %s: the work is not done after %u "
				"ms "
				"(a wait that is never signalled?)\n",
				call, ms);
			return CUDA_ERROR_NOT_READY;
		}
	}
}

/* Until the driver thread has nothing left that it can run. Lock held.
 * No deadline: work that can run always finishes (what cannot, held or
 * waiting, is not waited for), however long a loaded machine takes to run
 * it. A deadline here once ended the wait early and silently on a busy
 * machine, and a test then saw work still pending that it had settled;
 * a test that truly hangs is ended by its own time limit (Check's), which
 * says so. */
static void
settle(void)
{
	/* A control called from a host function: the driver thread cannot
	 * wait for itself. */
	if (worker_started && pthread_equal(pthread_self(), worker_thread))
		return;
	while (worker_busy || next_runnable())
		pthread_cond_wait(&done_cond, &lock);
}

/* Drop the queued records of an event being destroyed (they would touch
 * it); stream waits on it stop waiting. */
static void
queue_purge_event(CUevent ev)
{
	for (struct queue *q = queues; q; q = q->next_q)
		for (struct op *op = q->head; op; op = op->next)
			if (op->event == ev &&
			    (op->kind == OP_EVENT || op->kind == OP_WAIT_EVENT))
				op->event = NULL;
	ev->pending = 0;
	pthread_cond_broadcast(&work_cond);
}

/* A semaphore being destroyed: queued operations on it do nothing. */
static void
queue_purge_semaphore(CUexternalSemaphore sem)
{
	for (struct queue *q = queues; q; q = q->next_q)
		for (struct op *op = q->head; op; op = op->next)
			for (unsigned int i = 0; i < op->sem_count; i++)
				if (op->sems[i].sem == sem)
					op->sems[i].sem = NULL;
	pthread_cond_broadcast(&work_cond);
}

static void ext_memory_free(struct CUextMemory_st *m);

/* Initialisation, errors, device ------------------------------------------ */

/* Beyond the library's table (GLCUDA_CUDA_FUNCTIONS), what the programs
 * that run on the fake call through theirs (common/cuda-table.h): the
 * tools, the benchmarks and the test suites. */
#define FAKE_PROGRAM_FUNCTIONS(X) \
	X(cuDeviceGetAttribute) \
	X(cuCtxGetCurrent) \
	X(cuMemGetInfo) \
	X(cuStreamQuery) \
	X(cuStreamWaitEvent) \
	X(cuStreamWaitValue32) \
	X(cuModuleLoadData) \
	X(cuModuleUnload) \
	X(cuModuleGetFunction) \
	X(cuModuleGetGlobal) \
	X(cuLibraryLoadData) \
	X(cuLibraryGetKernel) \
	X(cuLaunchKernel) \
	X(cuMemAlloc) \
	X(cuMemFree) \
	X(cuMemAllocHost) \
	X(cuMemFreeHost) \
	X(cuMemHostGetDevicePointer) \
	X(cuMemHostAlloc) \
	X(cuMemcpyHtoD) \
	X(cuMemcpyDtoH) \
	X(cuMemcpyHtoDAsync) \
	X(cuMemcpyDtoHAsync) \
	X(cuMemcpy2D) \
	X(cuMemcpy2DAsync) \
	X(cuMemsetD32) \
	X(cuMemsetD8)

#define FAKE_FUNCTION_DECL(name) static __typeof__(name) fake_##name;
GLCUDA_CUDA_FUNCTIONS(FAKE_FUNCTION_DECL)
FAKE_PROGRAM_FUNCTIONS(FAKE_FUNCTION_DECL)
#undef FAKE_FUNCTION_DECL
static CUresult fake_cuGraphicsGLRegisterImage(CUgraphicsResource *,
					       unsigned int, unsigned int,
					       unsigned int);
static CUresult fake_cuCtxSynchronize_v2(CUcontext ctx);
static CUresult fake_cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx);

static CUresult
fake_cuInit(unsigned int flags)
{
	pthread_mutex_lock(&lock);
	if (fail_now("cuInit"))
		LEAVE(fail_code);
	if (flags != 0)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	initialized = true;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuDriverGetVersion(int *version)
{
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = FAKE_DRIVER_VERSION;
	return CUDA_SUCCESS;
}

static const struct error_entry {
	CUresult res;
	const char *name, *desc;
} error_table[] = {
	{ CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
	{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE",
	  "invalid argument" },
	{ CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY",
	  "out of memory" },
	{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED",
	  "initialization error" },
	{ CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
	  "no CUDA-capable device is detected" },
	{ CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
	  "invalid device ordinal" },
	{ CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
	  "invalid device context" },
	{ CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
	  "no kernel image is available for execution on the device" },
	{ CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
	  "invalid resource handle" },
	{ CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND",
	  "named symbol not found" },
	{ CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
	{ CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
	  "the launch timed out and was terminated" },
	{ CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
	  "an illegal memory access was encountered" },
	{ CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
	  "unspecified launch failure" },
	{ CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT",
	  "device-side assert triggered" },
	{ CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE",
	  "uncorrectable ECC error encountered" },
	{ CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	  "context is destroyed" },
	{ CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
	  "operation not supported" },
	{ CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static CUresult
result_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(error_table) / sizeof(error_table[0]);
	     i++)
		if (!strcmp(error_table[i].name, name))
			return error_table[i].res;
	return CUDA_SUCCESS;
}

/* The error_table entry of error, or NULL. */
static const struct error_entry *
error_entry(CUresult error)
{
	for (size_t i = 0; i < sizeof(error_table) / sizeof(error_table[0]);
	     i++)
		if (error_table[i].res == error)
			return &error_table[i];
	return NULL;
}

static CUresult
fake_cuGetErrorName(CUresult error, const char **str)
{
	const struct error_entry *e = error_entry(error);
	if (!str)
		return CUDA_ERROR_INVALID_VALUE;
	*str = e ? e->name : NULL;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult
fake_cuGetErrorString(CUresult error, const char **str)
{
	const struct error_entry *e = error_entry(error);
	if (!str)
		return CUDA_ERROR_INVALID_VALUE;
	*str = e ? e->desc : NULL;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult
fake_cuDeviceGetCount(int *count)
{
	ENTER("cuDeviceGetCount");
	if (!count)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	*count = 1;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuDeviceGet(CUdevice *device, int ordinal)
{
	ENTER("cuDeviceGet");
	if (!device)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (ordinal != 0)
		LEAVE(CUDA_ERROR_INVALID_DEVICE);
	*device = 0;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuDeviceGetName(char *name, int len, CUdevice dev)
{
	ENTER("cuDeviceGetName");
	if (!name || len <= 0)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		LEAVE(CUDA_ERROR_INVALID_DEVICE);
	snprintf(name, (size_t)len, "%s", FAKE_DEVICE_NAME);
	LEAVE(CUDA_SUCCESS);
}

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* GLCUDA_FAKE_CUDA_UUID, or "glcuda fake cuda" when unset or malformed. */
static void
device_uuid(unsigned char out[16])
{
	const char *env = getenv("GLCUDA_FAKE_CUDA_UUID");
	unsigned char u[16];
	int n = 0;

	memcpy(out, "glcuda fake cuda", 16);
	if (!env)
		return;
	for (const char *p = env; *p; p++) {
		int hi, lo;
		if (*p == '-')
			continue;
		if (n == 16 || (hi = hex_value(p[0])) < 0 || !p[1] ||
		    (lo = hex_value(p[1])) < 0)
			return;
		u[n++] = (unsigned char)(hi << 4 | lo);
		p++;
	}
	if (n == 16)
		memcpy(out, u, 16);
}

static CUresult
fake_cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	ENTER("cuDeviceGetUuid");
	if (!uuid)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		LEAVE(CUDA_ERROR_INVALID_DEVICE);
	device_uuid((unsigned char *)uuid->bytes);
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	ENTER("cuDeviceGetAttribute");
	if (!pi)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		LEAVE(CUDA_ERROR_INVALID_DEVICE);
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = 0; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = 1; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *pi = 32; break;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT: *pi = 32768; break;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS:
		*pi = 2048;
		break;
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
	case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *pi = 0; break;
	default: *pi = 0; break;
	}
	LEAVE(CUDA_SUCCESS);
}

/* Contexts ----------------------------------------------------------------- */

static CUresult
fake_cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxRetain");
	if (!pctx)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		LEAVE(CUDA_ERROR_INVALID_DEVICE);
	primary.refs++;
	*pctx = &primary;
	LEAVE(CUDA_SUCCESS);
}

/* Free an object of a context being destroyed, as its destroy call would
 * (fds of imports closed; a mipmapped array's level goes with it). */
static void
obj_reclaim(struct obj *o)
{
	obj_remove(o);
	reclaimed++;
	switch (o->kind) {
	case K_EXT_MEMORY:
		ext_memory_free((struct CUextMemory_st *)o);
		return;
	case K_STREAM:
		queue_free(((struct CUstream_st *)o)->q);
		break;
	case K_MIPMAP: {
		struct CUmipmappedArray_st *a = (struct CUmipmappedArray_st *)o;
		if (a->level0)
			a->level0->parent = NULL;
		break;
	}
	case K_ARRAY: {
		struct CUarray_st *a = (struct CUarray_st *)o;
		if (a->parent)
			a->parent->level0 = NULL;
		break;
	}
	case K_SEMAPHORE:
		close(((struct CUextSemaphore_st *)o)->fd);
		break;
	case K_DEVICE_MEM:
	case K_HOST_MEM: {
		struct alloc *a = (struct alloc *)o;
		if (o->kind == K_DEVICE_MEM)
			device_bytes -= a->size;
		free(a->ptr);
		break;
	}
	default:
		break;
	}
	free(o);
}

/* The last reference to the primary context is gone: the context is
 * destroyed with its queued work (which never runs) and every object it
 * still holds, and the next retain makes a fresh one. Lock held. */
static void
primary_destroy(void)
{
	struct queue **pp = &queues;

	/* A host function still running finishes first (it makes no CUDA
	 * call, so it cannot wait for this one). */
	while (worker_busy)
		pthread_cond_wait(&done_cond, &lock);
	while (*pp) {
		struct queue *q = *pp;
		if (q->orphan) {
			*pp = q->next_q;
			queue_clear(q);
			free(q);
			continue;
		}
		queue_clear(q);
		q->hold = FAKE_CUDA_RUN;
		pp = &q->next_q;
	}
	while (live.next != &live)
		obj_reclaim(live.next);
	sticky = CUDA_SUCCESS;
}

static CUresult
fake_cuDevicePrimaryCtxRelease(CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxRelease");
	if (dev != 0)
		LEAVE(CUDA_ERROR_INVALID_DEVICE);
	if (primary.refs == 0)
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (--primary.refs == 0)
		primary_destroy();
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
	ENTER("cuDevicePrimaryCtxGetState");
	if (!flags || !active)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		LEAVE(CUDA_ERROR_INVALID_DEVICE);
	*flags = primary.flags;
	*active = primary.refs > 0;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
	ENTER("cuDevicePrimaryCtxSetFlags");
	if (dev != 0)
		LEAVE(CUDA_ERROR_INVALID_DEVICE);
	primary.flags = flags;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuCtxPushCurrent(CUcontext ctx)
{
	ENTER("cuCtxPushCurrent");
	if (ctx != &primary || primary.refs == 0)
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (ctx_depth == (int)(sizeof(ctx_stack) / sizeof(ctx_stack[0])))
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	ctx_stack[ctx_depth++] = ctx;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuCtxPopCurrent(CUcontext *pctx)
{
	ENTER("cuCtxPopCurrent");
	if (ctx_depth == 0)
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	ctx_depth--;
	if (pctx)
		*pctx = ctx_stack[ctx_depth];
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuCtxGetCurrent(CUcontext *pctx)
{
	ENTER("cuCtxGetCurrent");
	if (!pctx)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	*pctx = current_ctx();
	LEAVE(CUDA_SUCCESS);
}

static CUresult
ctx_get_device(CUdevice *device, CUcontext ctx)
{
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (ctx != &primary || primary.refs == 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = 0;
	return CUDA_SUCCESS;
}

/* The pre-13 ABI, what glcuda's loader asks for. */
static CUresult
fake_cuCtxGetDevice(CUdevice *device)
{
	ENTER("cuCtxGetDevice");
	LEAVE(ctx_get_device(device, current_ctx()));
}

/* The CUDA 13 ABI, returned for cudaVersion >= 13000. */
static CUresult
fake_cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
	ENTER("cuCtxGetDevice");
	LEAVE(ctx_get_device(device, ctx ? ctx : current_ctx()));
}

static CUresult
ctx_synchronize(CUcontext ctx)
{
	struct wait_target t = { .all = true, .seq = next_seq };

	if (ctx != &primary || primary.refs == 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	return wait_for(&t, "cuCtxSynchronize");
}

static CUresult
fake_cuCtxSynchronize(void)
{
	ENTER("cuCtxSynchronize");
	LEAVE(ctx_synchronize(current_ctx()));
}

static CUresult
fake_cuCtxSynchronize_v2(CUcontext ctx)
{
	ENTER("cuCtxSynchronize");
	LEAVE(ctx_synchronize(ctx ? ctx : current_ctx()));
}

static CUresult
fake_cuMemGetInfo(size_t *free_bytes, size_t *total)
{
	ENTER("cuMemGetInfo");
	if (!free_bytes || !total)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	*total = FAKE_TOTAL_MEMORY;
	*free_bytes = device_bytes < FAKE_TOTAL_MEMORY
			      ? FAKE_TOTAL_MEMORY - device_bytes
			      : 0;
	LEAVE(CUDA_SUCCESS);
}

/* External memory, arrays, surfaces, textures ----------------------------- */

static bool
fd_is_open(int fd)
{
	return fd >= 0 && fcntl(fd, F_GETFD) != -1;
}

static void
ext_memory_free(struct CUextMemory_st *m)
{
	device_bytes -= m->size;
	if (m->map)
		munmap(m->map, m->map_len);
	else
		free(m->bytes);
	close(m->fd);
	free(m);
}

/* Map the exported memory, so that kernels work on the bytes GL renders.
 * lavapipe exports a memfd made by Mesa's os_malloc_aligned_fd, which llvmpipe
 * (GL) maps on import: the file starts with a header, { uint64 file size,
 * uint64 offset of the data (a page), the driver's UUID }, and the data
 * follows at that offset. A plain memfd or dma-buf (no such header) is
 * mapped from offset 0. Anything that cannot be mapped gets host memory,
 * said once: CUDA then sees none of GL's pixels. */
static void
ext_memory_map(struct CUextMemory_st *m)
{
	struct stat st;
	uint64_t header[2];
	size_t len = m->size, offset = 0;
	void *p = MAP_FAILED;

	if (fstat(m->fd, &st) == 0 && st.st_size > 0 &&
	    (uint64_t)st.st_size >= m->size &&
	    pread(m->fd, header, sizeof(header), 0) ==
		    (ssize_t)sizeof(header) &&
	    header[0] == (uint64_t)st.st_size && header[1] >= sizeof(header) &&
	    header[1] <= (uint64_t)st.st_size &&
	    (uint64_t)st.st_size - header[1] >= m->size) {
		len = (size_t)st.st_size;
		offset = (size_t)header[1];
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (p != MAP_FAILED) {
		m->map = p;
		m->map_len = len;
		m->bytes = (uint8_t *)p + offset;
		return;
	}
	if (!warned_unmapped)
		fprintf(stderr,
			"fake-cuda: the imported memory cannot be mapped (%s): "
			"arrays are backed by host memory, not by what GL "
			"renders\n",
			strerror(errno));
	warned_unmapped = true;
	m->bytes = calloc(1, m->size);
}

static CUresult
fake_cuImportExternalMemory(CUexternalMemory *out,
			    const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *desc)
{
	struct CUextMemory_st *m;
	ENTER("cuImportExternalMemory");
	if (!out || !desc || desc->size == 0)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD)
		LEAVE(CUDA_ERROR_NOT_SUPPORTED);
	if (!fd_is_open(desc->handle.fd))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (desc->size > FAKE_TOTAL_MEMORY - device_bytes)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	m = calloc(1, sizeof(*m));
	if (!m)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	/* On success the driver owns the fd. */
	m->fd = desc->handle.fd;
	m->size = desc->size;
	ext_memory_map(m);
	if (!m->bytes) {
		free(m);
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	}
	device_bytes += desc->size;
	obj_add(&m->o, K_EXT_MEMORY);
	*out = m;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuDestroyExternalMemory(CUexternalMemory mem)
{
	ENTER("cuDestroyExternalMemory");
	if (!obj_is_live(mem, K_EXT_MEMORY))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	obj_remove(&mem->o);
	ext_memory_free(mem);
	LEAVE(CUDA_SUCCESS);
}

static size_t
format_bytes(CUarray_format f)
{
	switch (f) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
		return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
		return 2;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT:
		return 4;
	default:
		return 0;
	}
}

/* The row pitch of a level-0 image in the exporter's memory. lavapipe
 * (and llvmpipe, which imports the same memory into GL) lays out an
 * optimal-tiling 2D image linearly from the start of the data: rows of the
 * width aligned to the 4-pixel raster block, padded to a 64-byte cache
 * line, the height aligned to 4 rows (llvmpipe_texture_layout; a 61x37
 * RGBA8 image takes 256 x 40 = 10240 bytes, what Vulkan asks for).
 * tests/test-pixels-cpu checks it texel by texel for every format. */
static size_t
image_pitch(size_t width, size_t bpp)
{
	size_t bytes = ((width + 3) & ~(size_t)3) * bpp;
	return (bytes + 63) & ~(size_t)63;
}

static CUresult
fake_cuExternalMemoryGetMappedMipmappedArray(
	CUmipmappedArray *out, CUexternalMemory mem,
	const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *desc)
{
	struct CUmipmappedArray_st *a;
	size_t bpp, pitch, height, layers, stride;
	ENTER("cuExternalMemoryGetMappedMipmappedArray");
	if (!out || !desc || desc->numLevels == 0 ||
	    desc->arrayDesc.Width == 0 || desc->arrayDesc.NumChannels == 0 ||
	    desc->arrayDesc.NumChannels == 3 || desc->arrayDesc.NumChannels > 4)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (!obj_is_live(mem, K_EXT_MEMORY))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	if (desc->offset >= mem->size)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	bpp = format_bytes(desc->arrayDesc.Format) *
	      desc->arrayDesc.NumChannels;
	if (!bpp)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	height = desc->arrayDesc.Height ? desc->arrayDesc.Height : 1;
	pitch = image_pitch(desc->arrayDesc.Width, bpp);
	/* Layers one after the other, each of the height aligned to 4 rows
	 * (llvmpipe_texture_layout's image stride). */
	layers = desc->arrayDesc.Flags & CUDA_ARRAY3D_LAYERED
			 ? desc->arrayDesc.Depth
			 : 1;
	if (layers == 0 || (!(desc->arrayDesc.Flags & CUDA_ARRAY3D_LAYERED) &&
			    desc->arrayDesc.Depth > 0))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	stride = pitch * ((height + 3) & ~(size_t)3);
	if ((layers - 1) * stride + (height - 1) * pitch +
		    desc->arrayDesc.Width * bpp >
	    mem->size - desc->offset)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	a = calloc(1, sizeof(*a));
	if (!a)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	a->desc = desc->arrayDesc;
	a->levels = desc->numLevels;
	a->memory = mem;
	a->offset = desc->offset;
	a->bpp = bpp;
	a->pitch = pitch;
	a->layers = layers;
	a->layer_stride = stride;
	obj_add(&a->o, K_MIPMAP);
	*out = a;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuMipmappedArrayGetLevel(CUarray *out, CUmipmappedArray mip,
			      unsigned int level)
{
	ENTER("cuMipmappedArrayGetLevel");
	if (!out)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!obj_is_live(mip, K_MIPMAP))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	if (level >= mip->levels || level > 0)
		LEAVE(level >= mip->levels ? CUDA_ERROR_INVALID_VALUE
					   : CUDA_ERROR_NOT_SUPPORTED);
	if (!mip->level0) {
		mip->level0 = calloc(1, sizeof(*mip->level0));
		if (!mip->level0)
			LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
		mip->level0->parent = mip;
		obj_add(&mip->level0->o, K_ARRAY);
	}
	*out = mip->level0;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuMipmappedArrayDestroy(CUmipmappedArray mip)
{
	ENTER("cuMipmappedArrayDestroy");
	if (!obj_is_live(mip, K_MIPMAP))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	/* The levels belong to the mipmapped array. */
	if (mip->level0) {
		obj_remove(&mip->level0->o);
		free(mip->level0);
	}
	obj_remove(&mip->o);
	free(mip);
	LEAVE(CUDA_SUCCESS);
}

static CUresult
view_create(const CUDA_RESOURCE_DESC *desc, enum obj_kind kind,
	    unsigned long long *out)
{
	struct view *v;

	if (!out || !desc)
		return CUDA_ERROR_INVALID_VALUE;
	if (!have_context())
		return CUDA_ERROR_INVALID_CONTEXT;
	if (desc->resType != CU_RESOURCE_TYPE_ARRAY)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (!obj_is_live(desc->res.array.hArray, K_ARRAY))
		return CUDA_ERROR_INVALID_HANDLE;
	v = calloc(1, sizeof(*v));
	if (!v)
		return CUDA_ERROR_OUT_OF_MEMORY;
	v->array = desc->res.array.hArray;
	obj_add(&v->o, kind);
	*out = (unsigned long long)(uintptr_t)v;
	return CUDA_SUCCESS;
}

static CUresult
view_destroy(unsigned long long handle, enum obj_kind kind)
{
	struct view *v = (struct view *)(uintptr_t)handle;

	if (!obj_is_live(v, kind))
		return CUDA_ERROR_INVALID_HANDLE;
	obj_remove(&v->o);
	free(v);
	return CUDA_SUCCESS;
}

static CUresult
fake_cuSurfObjectCreate(CUsurfObject *out, const CUDA_RESOURCE_DESC *desc)
{
	ENTER("cuSurfObjectCreate");
	LEAVE(view_create(desc, K_SURFACE, out));
}

static CUresult
fake_cuSurfObjectDestroy(CUsurfObject surf)
{
	ENTER("cuSurfObjectDestroy");
	LEAVE(view_destroy(surf, K_SURFACE));
}

static CUresult
fake_cuTexObjectCreate(CUtexObject *out, const CUDA_RESOURCE_DESC *desc,
		       const CUDA_TEXTURE_DESC *tex,
		       const CUDA_RESOURCE_VIEW_DESC *view)
{
	ENTER("cuTexObjectCreate");
	if (!tex)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	LEAVE(view_create(desc, K_TEXTURE, out));
}

static CUresult
fake_cuTexObjectDestroy(CUtexObject tex)
{
	ENTER("cuTexObjectDestroy");
	LEAVE(view_destroy(tex, K_TEXTURE));
}

/* External semaphores ------------------------------------------------------ */

static CUresult
fake_cuImportExternalSemaphore(CUexternalSemaphore *out,
			       const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *desc)
{
	struct CUextSemaphore_st *s;
	ENTER("cuImportExternalSemaphore");
	if (!out || !desc)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (desc->type != CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD &&
	    desc->type !=
		    CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD)
		LEAVE(CUDA_ERROR_NOT_SUPPORTED);
	if (!fd_is_open(desc->handle.fd))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	s = calloc(1, sizeof(*s));
	if (!s)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	s->fd = desc->handle.fd;
	s->timeline = desc->type ==
		      CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
	obj_add(&s->o, K_SEMAPHORE);
	*out = s;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuDestroyExternalSemaphore(CUexternalSemaphore sem)
{
	ENTER("cuDestroyExternalSemaphore");
	if (!obj_is_live(sem, K_SEMAPHORE))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	queue_purge_semaphore(sem);
	obj_remove(&sem->o);
	close(sem->fd);
	free(sem);
	LEAVE(CUDA_SUCCESS);
}

/* The most semaphores one signal or wait call takes. */
#define SEM_OP_MAX 64

/* The semaphore's other side (GL, Vulkan) is not here: a test signals
 * with fake_cuda_semaphore_signal. A stream's wait holds it until the
 * semaphore is signalled (binary: a signal not yet waited for; timeline:
 * the value reached). */
static CUresult
sem_op(struct op *op, const CUexternalSemaphore *sems,
       const unsigned long long *values, unsigned int count, CUstream stream)
{
	if (!sems || count == 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (!have_context())
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!stream_ok(stream))
		return CUDA_ERROR_INVALID_HANDLE;
	for (unsigned int i = 0; i < count; i++)
		if (!obj_is_live(sems[i], K_SEMAPHORE))
			return CUDA_ERROR_INVALID_HANDLE;
	op->sems = calloc(count, sizeof(*op->sems));
	if (!op->sems)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->sem_count = count;
	op->stream = stream;
	for (unsigned int i = 0; i < count; i++) {
		op->sems[i].sem = sems[i];
		op->sems[i].value = values[i];
	}
	return CUDA_SUCCESS;
}

/* What cuSignalExternalSemaphoresAsync and cuWaitExternalSemaphoresAsync
 * share, once the caller has read the fence values out of its parameters
 * (values: NULL where the parameters were NULL): checks, queues the op of
 * the kind given on the stream, and counts it on each semaphore. */
static CUresult
sem_async(const char *name, enum op_kind kind, const CUexternalSemaphore *sems,
	  const unsigned long long *values, unsigned int count, CUstream stream)
{
	struct op op = { .kind = kind };
	CUresult res;
	ENTER(name);
	if (!values || count > SEM_OP_MAX)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	res = sem_op(&op, sems, values, count, stream);
	if (res == CUDA_SUCCESS)
		res = enqueue(&op);
	free(op.sems);
	if (res == CUDA_SUCCESS)
		for (unsigned int i = 0; i < count; i++) {
			if (kind == OP_SEM_SIGNAL)
				sems[i]->signals++;
			else
				sems[i]->waits++;
		}
	LEAVE(res);
}

static CUresult
fake_cuSignalExternalSemaphoresAsync(
	const CUexternalSemaphore *sems,
	const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *params, unsigned int count,
	CUstream stream)
{
	unsigned long long values[SEM_OP_MAX];
	for (unsigned int i = 0; params && i < count && i < SEM_OP_MAX; i++)
		values[i] = params[i].params.fence.value;
	return sem_async("cuSignalExternalSemaphoresAsync", OP_SEM_SIGNAL, sems,
			 params ? values : NULL, count, stream);
}

static CUresult
fake_cuWaitExternalSemaphoresAsync(
	const CUexternalSemaphore *sems,
	const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *params, unsigned int count,
	CUstream stream)
{
	unsigned long long values[SEM_OP_MAX];
	for (unsigned int i = 0; params && i < count && i < SEM_OP_MAX; i++)
		values[i] = params[i].params.fence.value;
	return sem_async("cuWaitExternalSemaphoresAsync", OP_SEM_WAIT, sems,
			 params ? values : NULL, count, stream);
}

/* Streams ------------------------------------------------------------------ */

static CUresult
fake_cuStreamCreate(CUstream *out, unsigned int flags)
{
	struct CUstream_st *s;
	ENTER("cuStreamCreate");
	if (!out || (flags & ~(unsigned int)CU_STREAM_NON_BLOCKING))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	s = calloc(1, sizeof(*s));
	if (!s)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	s->q = calloc(1, sizeof(*s->q));
	if (!s->q) {
		free(s);
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	}
	s->flags = flags;
	s->q->blocking = !(flags & CU_STREAM_NON_BLOCKING);
	s->q->next_q = queues;
	queues = s->q;
	obj_add(&s->o, K_STREAM);
	*out = s;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuStreamDestroy(CUstream stream)
{
	ENTER("cuStreamDestroy");
	if (!obj_is_live(stream, K_STREAM))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	/* The real driver returns at once and runs the stream's queued work
	 * later ("resources ... released automatically once the device has
	 * completed all work in hStream"): so does the fake. A hold on it
	 * ends with it. */
	stream->q->hold = FAKE_CUDA_RUN;
	if (stream->q->head || stream->q->running) {
		stream->q->orphan = true;
		pthread_cond_broadcast(&work_cond);
	} else {
		queue_free(stream->q);
	}
	obj_remove(&stream->o);
	free(stream);
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuStreamSynchronize(CUstream stream)
{
	struct wait_target t = { .seq = next_seq };
	ENTER("cuStreamSynchronize");
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	t.q = queue_of(stream);
	t.legacy = t.q == &null_q;
	LEAVE(wait_for(&t, "cuStreamSynchronize"));
}

static CUresult
fake_cuStreamQuery(CUstream stream)
{
	ENTER("cuStreamQuery");
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	LEAVE(stream_busy(stream) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS);
}

/* The stream waits for the event's records enqueued so far. */
static CUresult
fake_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags)
{
	struct op op = { .kind = OP_WAIT_EVENT,
			 .stream = stream,
			 .event = event };
	ENTER("cuStreamWaitEvent");
	if (!stream_ok(stream) || !obj_is_live(event, K_EVENT))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	if (flags != 0)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	op.target = event->recorded_count;
	LEAVE(enqueue(&op));
}

static CUresult
fake_cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
			 unsigned int flags)
{
	ENTER("cuStreamWaitValue32");
	LEAVE(CUDA_ERROR_NOT_SUPPORTED);
}

/* Runs on the driver thread, in stream order. */
static CUresult
fake_cuLaunchHostFunc(CUstream stream, CUhostFn fn, void *data)
{
	struct op op = {
		.kind = OP_HOST_FN, .stream = stream, .fn = fn, .data = data
	};
	ENTER("cuLaunchHostFunc");
	if (!fn)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	LEAVE(enqueue(&op));
}

/* What cuLaunchKernel runs for f: a module's function, or a library's
 * kernel cast to a CUfunction (*library set); NULL for neither. */
static CUfunction
launch_target(CUfunction f, bool *library)
{
	const struct CUkern_st *k = (const struct CUkern_st *)(const void *)f;
	const size_t n = sizeof(functions) / sizeof(functions[0]);

	*library = false;
	for (size_t i = 0; i < n; i++)
		if (f == &functions[i])
			return f;
	for (size_t i = 0; i < filter_count; i++)
		if (f == &filter_functions[i])
			return f;
	for (size_t i = 0; i < n; i++)
		if (k == &library_kernels[i] && k->function) {
			*library = true;
			return k->function;
		}
	return NULL;
}

/* The parameters are copied at launch, as the driver does. */
static CUresult
fake_cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
		    unsigned int gz, unsigned int bx, unsigned int by,
		    unsigned int bz, unsigned int shmem, CUstream stream,
		    void **params, void **extra)
{
	struct op op = { .kind = OP_KERNEL, .stream = stream };
	bool library;
	ENTER("cuLaunchKernel");
	if (!gx || !gy || !gz || !bx || !by || !bz)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	f = launch_target(f, &library);
	if (!f)
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	if (!params || extra)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	op.kernel = f;
	op.grid[0] = gx * bx;
	op.grid[1] = gy * by;
	op.grid[2] = gz;
	for (size_t i = 0; f->args[i]; i++) {
		if (!params[i])
			LEAVE(CUDA_ERROR_INVALID_VALUE);
		if (f->args[i] == 'S') {
			memcpy(&op.args[i], params[i], 8);
		} else {
			int32_t v;
			memcpy(&v, params[i], 4);
			op.args[i] = (uint64_t)(uint32_t)v;
		}
	}
	launches++;
	if (library)
		library_launches++;
	LEAVE(enqueue(&op));
}

/* Events ------------------------------------------------------------------- */

static CUresult
fake_cuEventCreate(CUevent *out, unsigned int flags)
{
	struct CUevent_st *e;
	ENTER("cuEventCreate");
	if (!out || (flags & ~(unsigned int)(CU_EVENT_BLOCKING_SYNC |
					     CU_EVENT_DISABLE_TIMING |
					     CU_EVENT_INTERPROCESS)))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	e = calloc(1, sizeof(*e));
	if (!e)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	e->flags = flags;
	obj_add(&e->o, K_EVENT);
	*out = e;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuEventDestroy(CUevent event)
{
	ENTER("cuEventDestroy");
	if (!obj_is_live(event, K_EVENT))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	queue_purge_event(event);
	obj_remove(&event->o);
	free(event);
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuEventRecord(CUevent event, CUstream stream)
{
	struct op op = { .kind = OP_EVENT, .stream = stream, .event = event };
	ENTER("cuEventRecord");
	if (!obj_is_live(event, K_EVENT) || !stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	LEAVE(enqueue(&op));
}

static CUresult
fake_cuEventQuery(CUevent event)
{
	ENTER("cuEventQuery");
	if (!obj_is_live(event, K_EVENT))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	LEAVE(event->pending ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS);
}

static CUresult
fake_cuEventSynchronize(CUevent event)
{
	struct wait_target t = { .event = event };
	ENTER("cuEventSynchronize");
	if (!obj_is_live(event, K_EVENT))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	t.event_count = event->recorded_count;
	LEAVE(wait_for(&t, "cuEventSynchronize"));
}

static CUresult
fake_cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
	ENTER("cuEventElapsedTime");
	if (!ms)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!obj_is_live(start, K_EVENT) || !obj_is_live(end, K_EVENT))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	if (start->pending || end->pending)
		LEAVE(CUDA_ERROR_NOT_READY);
	if (!start->recorded || !end->recorded ||
	    (start->flags & CU_EVENT_DISABLE_TIMING) ||
	    (end->flags & CU_EVENT_DISABLE_TIMING))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	*ms = (float)((double)((int64_t)end->time_us -
			       (int64_t)start->time_us) /
		      1000.0);
	LEAVE(CUDA_SUCCESS);
}

/* Modules: any image loads; its functions are the CPU versions of the
 * kernels of tests/test-kernels.cu that the fake knows. ----------------- */

static CUresult
fake_cuModuleLoadData(CUmodule *module, const void *image)
{
	struct CUmod_st *m;
	ENTER("cuModuleLoadData");
	if (!module || !image)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	m = calloc(1, sizeof(*m));
	if (!m)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	obj_add(&m->o, K_MODULE);
	*module = m;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuModuleUnload(CUmodule module)
{
	ENTER("cuModuleUnload");
	if (!obj_is_live(module, K_MODULE))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	obj_remove(&module->o);
	free(module);
	LEAVE(CUDA_SUCCESS);
}

/* A filter kernel of common/filters.cu by name (lock held). */
static CUresult
filter_function(const char *name, CUfunction *f)
{
	const char *args = NULL;
	enum fake_filter id = fake_filter_find(name, &args);
	struct CUfunc_st *fn;

	if (id == FAKE_FILTER_NONE || strlen(name) >= sizeof(filter_names[0]))
		return CUDA_ERROR_NOT_FOUND;
	for (size_t i = 0; i < filter_count; i++)
		if (!strcmp(filter_names[i], name)) {
			*f = &filter_functions[i];
			return CUDA_SUCCESS;
		}
	if (filter_count == FILTER_FUNCTIONS)
		return CUDA_ERROR_OUT_OF_MEMORY;
	snprintf(filter_names[filter_count], sizeof(filter_names[0]), "%s",
		 name);
	fn = &filter_functions[filter_count++];
	fn->name = filter_names[filter_count - 1];
	fn->id = KERNEL_FILTER;
	fn->elem = 4;
	fn->args = args;
	fn->filter = id;
	*f = fn;
	return CUDA_SUCCESS;
}

static CUresult
fake_cuModuleGetFunction(CUfunction *f, CUmodule module, const char *name)
{
	ENTER("cuModuleGetFunction");
	if (!f || !name)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!obj_is_live(module, K_MODULE))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
		if (!strcmp(functions[i].name, name)) {
			*f = &functions[i];
			LEAVE(CUDA_SUCCESS);
		}
	LEAVE(filter_function(name, f));
}

static CUresult
fake_cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule module,
		       const char *name)
{
	ENTER("cuModuleGetGlobal");
	if (!obj_is_live(module, K_MODULE))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	LEAVE(CUDA_ERROR_NOT_FOUND);
}

/* Libraries (CUDA 12.0): any code loads, with no context current too; its
 * kernels are those of functions[]. ---------------------------------------- */

static CUresult
fake_cuLibraryLoadData(CUlibrary *library, const void *code,
		       CUjit_option *jit_options, void **jit_values,
		       unsigned int jit_count, CUlibraryOption *library_options,
		       void **library_values, unsigned int library_option_count)
{
	struct CUlib_st *l;
	ENTER("cuLibraryLoadData");
	if (!library || !code || (jit_count && (!jit_options || !jit_values)) ||
	    (library_option_count && (!library_options || !library_values)))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	l = calloc(1, sizeof(*l));
	if (!l)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	l->next = libraries;
	libraries = l;
	library_count++;
	*library = l;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuLibraryGetKernel(CUkernel *kernel, CUlibrary library, const char *name)
{
	bool known = false;
	ENTER("cuLibraryGetKernel");
	if (!kernel || !name)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	for (struct CUlib_st *l = libraries; l; l = l->next)
		known = known || l == library;
	if (!known)
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
		if (!strcmp(functions[i].name, name)) {
			library_kernels[i].function = &functions[i];
			*kernel = &library_kernels[i];
			LEAVE(CUDA_SUCCESS);
		}
	LEAVE(CUDA_ERROR_NOT_FOUND);
}

/* Memory: malloc-backed; a device pointer is the host address. ----------- */

static CUresult
mem_alloc(void **out, size_t size, enum obj_kind kind)
{
	struct alloc *a;

	if (!out || size == 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (!have_context())
		return CUDA_ERROR_INVALID_CONTEXT;
	if (kind == K_DEVICE_MEM && size > FAKE_TOTAL_MEMORY - device_bytes)
		return CUDA_ERROR_OUT_OF_MEMORY;
	a = calloc(1, sizeof(*a));
	if (!a)
		return CUDA_ERROR_OUT_OF_MEMORY;
	a->ptr = calloc(1, size);
	if (!a->ptr) {
		free(a);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	a->size = size;
	if (kind == K_DEVICE_MEM)
		device_bytes += size;
	obj_add(&a->o, kind);
	*out = a->ptr;
	return CUDA_SUCCESS;
}

static CUresult
mem_free(void *ptr, enum obj_kind kind)
{
	for (struct obj *o = live.next; o != &live; o = o->next) {
		struct alloc *a = (struct alloc *)o;
		if (o->kind == kind && a->ptr == ptr) {
			obj_remove(o);
			if (kind == K_DEVICE_MEM)
				device_bytes -= a->size;
			free(a->ptr);
			free(a);
			return CUDA_SUCCESS;
		}
	}
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult
fake_cuMemAlloc(CUdeviceptr *dptr, size_t size)
{
	void *p = NULL;
	CUresult res;
	ENTER("cuMemAlloc");
	if (!dptr)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	res = mem_alloc(&p, size, K_DEVICE_MEM);
	if (res == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)(uintptr_t)p;
	LEAVE(res);
}

static CUresult
fake_cuMemFree(CUdeviceptr dptr)
{
	ENTER("cuMemFree");
	if (!dptr)
		LEAVE(CUDA_SUCCESS);
	LEAVE(mem_free((void *)(uintptr_t)dptr, K_DEVICE_MEM));
}

static CUresult
fake_cuMemAllocHost(void **pp, size_t size)
{
	ENTER("cuMemAllocHost");
	LEAVE(mem_alloc(pp, size, K_HOST_MEM));
}

static CUresult
fake_cuMemHostAlloc(void **pp, size_t size, unsigned int flags)
{
	ENTER("cuMemHostAlloc");
	LEAVE(mem_alloc(pp, size, K_HOST_MEM));
}

static CUresult
fake_cuMemFreeHost(void *p)
{
	ENTER("cuMemFreeHost");
	LEAVE(mem_free(p, K_HOST_MEM));
}

static CUresult
fake_cuMemHostGetDevicePointer(CUdeviceptr *dptr, void *p, unsigned int flags)
{
	struct alloc *a;
	ENTER("cuMemHostGetDevicePointer");
	if (!dptr || flags != 0)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	a = alloc_find((uintptr_t)p, 1);
	if (!a || a->o.kind != K_HOST_MEM)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	*dptr = (CUdeviceptr)(uintptr_t)p;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
copy_op(void *dst, const void *src, size_t n, CUstream stream, bool async)
{
	struct op op = { .kind = OP_MEMCPY,
			 .stream = stream,
			 .dst = dst,
			 .src = src,
			 .n = n };

	if (!have_context())
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!stream_ok(stream))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!async) {
		memmove(dst, src, n);
		return CUDA_SUCCESS;
	}
	return enqueue(&op);
}

static CUresult
fake_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n)
{
	ENTER("cuMemcpyHtoD");
	if (!src || !alloc_find(dst, n))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	LEAVE(copy_op((void *)(uintptr_t)dst, src, n, NULL, false));
}

static CUresult
fake_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
	ENTER("cuMemcpyDtoH");
	if (!dst || !alloc_find(src, n))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	LEAVE(copy_op(dst, (const void *)(uintptr_t)src, n, NULL, false));
}

static CUresult
fake_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n,
		       CUstream stream)
{
	ENTER("cuMemcpyHtoDAsync");
	if (!src || !alloc_find(dst, n))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	LEAVE(copy_op((void *)(uintptr_t)dst, src, n, stream, true));
}

static CUresult
fake_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream stream)
{
	ENTER("cuMemcpyDtoHAsync");
	if (!dst || !alloc_find(src, n))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	LEAVE(copy_op(dst, (const void *)(uintptr_t)src, n, stream, true));
}

/* Linear memory only: arrays have no contents in the fake. */
static CUresult
memcpy2d_check(const CUDA_MEMCPY2D *m)
{
	uintptr_t src, dst;

	if (!m)
		return CUDA_ERROR_INVALID_VALUE;
	if ((m->srcMemoryType != CU_MEMORYTYPE_HOST &&
	     m->srcMemoryType != CU_MEMORYTYPE_DEVICE) ||
	    (m->dstMemoryType != CU_MEMORYTYPE_HOST &&
	     m->dstMemoryType != CU_MEMORYTYPE_DEVICE))
		return CUDA_ERROR_NOT_SUPPORTED;
	if (m->Height == 0 || m->WidthInBytes == 0)
		return CUDA_SUCCESS;
	if (m->WidthInBytes > m->srcPitch || m->WidthInBytes > m->dstPitch)
		return CUDA_ERROR_INVALID_VALUE;
	src = m->srcMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)m->srcHost
						     : (uintptr_t)m->srcDevice;
	dst = m->dstMemoryType == CU_MEMORYTYPE_HOST ? (uintptr_t)m->dstHost
						     : (uintptr_t)m->dstDevice;
	if (!src || !dst)
		return CUDA_ERROR_INVALID_VALUE;
	if (m->srcMemoryType == CU_MEMORYTYPE_DEVICE &&
	    !alloc_find(src + m->srcY * m->srcPitch + m->srcXInBytes,
			(m->Height - 1) * m->srcPitch + m->WidthInBytes))
		return CUDA_ERROR_INVALID_VALUE;
	if (m->dstMemoryType == CU_MEMORYTYPE_DEVICE &&
	    !alloc_find(dst + m->dstY * m->dstPitch + m->dstXInBytes,
			(m->Height - 1) * m->dstPitch + m->WidthInBytes))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* Synchronous, and on the legacy NULL stream, as the driver's: after
 * the work enqueued before it there and on blocking streams (what a
 * consumer of GStreamer 1.22's CUDA memory, which maps it for the CPU
 * with this copy, relies on). */
static CUresult
fake_cuMemcpy2D(const CUDA_MEMCPY2D *m)
{
	struct wait_target t = { .q = &null_q, .legacy = true };
	CUresult res;
	ENTER("cuMemcpy2D");
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	res = memcpy2d_check(m);
	t.seq = next_seq;
	if (res == CUDA_SUCCESS)
		res = wait_for(&t, "cuMemcpy2D");
	if (res == CUDA_SUCCESS)
		memcpy2d_run(m);
	LEAVE(res);
}

static CUresult
fake_cuMemcpy2DAsync(const CUDA_MEMCPY2D *m, CUstream stream)
{
	struct op op = { .kind = OP_MEMCPY2D, .stream = stream };
	CUresult res;
	ENTER("cuMemcpy2DAsync");
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	res = memcpy2d_check(m);
	if (res != CUDA_SUCCESS)
		LEAVE(res);
	op.m2d = *m;
	LEAVE(enqueue(&op));
}

static CUresult
fake_cuMemcpy3DAsync(const CUDA_MEMCPY3D *m, CUstream stream)
{
	struct op op = { .kind = OP_MEMCPY3D, .stream = stream };
	CUresult res;
	ENTER("cuMemcpy3DAsync");
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	if (!m || m->reserved0 || m->reserved1 || m->srcLOD || m->dstLOD)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (m->WidthInBytes == 0 || m->Height == 0 || m->Depth == 0)
		LEAVE(CUDA_SUCCESS);
	res = memcpy3d_check_side(m->srcMemoryType, m->srcArray, m->srcDevice,
				  m->srcHost, m->srcXInBytes, m->srcY, m->srcZ,
				  m->srcPitch, m->srcHeight, m);
	if (res == CUDA_SUCCESS)
		res = memcpy3d_check_side(m->dstMemoryType, m->dstArray,
					  m->dstDevice, m->dstHost,
					  m->dstXInBytes, m->dstY, m->dstZ,
					  m->dstPitch, m->dstHeight, m);
	if (res != CUDA_SUCCESS)
		LEAVE(res);
	op.m3d = *m;
	memcpy3d_calls++;
	LEAVE(enqueue(&op));
}

static CUresult
fake_cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t n)
{
	uint32_t *p = (uint32_t *)(uintptr_t)dst;
	ENTER("cuMemsetD32");
	if ((dst & 3) || n > SIZE_MAX / 4 || !alloc_find(dst, n * 4))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	for (size_t i = 0; i < n; i++)
		p[i] = value;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t n)
{
	ENTER("cuMemsetD8");
	if (!alloc_find(dst, n))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	memset((void *)(uintptr_t)dst, value, n);
	LEAVE(CUDA_SUCCESS);
}

/* GL interop registration: the fake has no GL driver to share with. ------- */

static CUresult
fake_cuGraphicsGLRegisterImage(CUgraphicsResource *res, unsigned int image,
			       unsigned int target, unsigned int flags)
{
	ENTER("cuGraphicsGLRegisterImage");
	LEAVE(CUDA_ERROR_NOT_SUPPORTED);
}

/* Offered only with GLCUDA_FAKE_CUDA_GL_INTEROP=1 (read when the loader
 * looks it up): glcuda then counts GL textures among the image kinds it
 * can wrap, tries the registration above, and is refused, as the real
 * driver refuses a format it does not register. */
static CUresult
fake_cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR *desc, CUarray array)
{
	ENTER("cuArray3DGetDescriptor");
	LEAVE(CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult
fake_cuGraphicsMapResources(unsigned int count, CUgraphicsResource *resources,
			    CUstream stream)
{
	ENTER("cuGraphicsMapResources");
	LEAVE(CUDA_ERROR_INVALID_HANDLE);
}

static CUresult
fake_cuGraphicsUnmapResources(unsigned int count, CUgraphicsResource *resources,
			      CUstream stream)
{
	ENTER("cuGraphicsUnmapResources");
	LEAVE(CUDA_ERROR_INVALID_HANDLE);
}

static CUresult
fake_cuGraphicsSubResourceGetMappedArray(CUarray *array,
					 CUgraphicsResource resource,
					 unsigned int index, unsigned int level)
{
	ENTER("cuGraphicsSubResourceGetMappedArray");
	LEAVE(CUDA_ERROR_INVALID_HANDLE);
}

static CUresult
fake_cuGraphicsUnregisterResource(CUgraphicsResource resource)
{
	ENTER("cuGraphicsUnregisterResource");
	LEAVE(CUDA_ERROR_INVALID_HANDLE);
}

/* cuGetProcAddress --------------------------------------------------------- */

static const struct {
	const char *name;
	void *fn;
} proc_table[] = {
#define FAKE_PROC_ENTRY(name) { #name, (void *)fake_##name },
	GLCUDA_CUDA_FUNCTIONS(FAKE_PROC_ENTRY)
	FAKE_PROGRAM_FUNCTIONS(FAKE_PROC_ENTRY)
	FAKE_PROC_ENTRY(cuGraphicsGLRegisterImage)
#undef FAKE_PROC_ENTRY
	{ "cuGetProcAddress", (void *)cuGetProcAddress_v2 },
};

FAKE_EXPORT CUresult
cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
		    cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	const char *gl_interop = getenv("GLCUDA_FAKE_CUDA_GL_INTEROP");

	if (status)
		*status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	if (!symbol || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	if (cudaVersion > FAKE_DRIVER_VERSION) {
		if (status)
			*status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
		return CUDA_ERROR_NOT_FOUND;
	}
	/* CUDA 13 gave these two a context argument under the same name. */
	if (cudaVersion >= 13000 && !strcmp(symbol, "cuCtxSynchronize"))
		*pfn = (void *)fake_cuCtxSynchronize_v2;
	else if (cudaVersion >= 13000 && !strcmp(symbol, "cuCtxGetDevice"))
		*pfn = (void *)fake_cuCtxGetDevice_v2;
	for (size_t i = 0;
	     !*pfn && i < sizeof(proc_table) / sizeof(proc_table[0]); i++)
		if (!strcmp(symbol, proc_table[i].name))
			*pfn = proc_table[i].fn;
	if (!*pfn && !strcmp(symbol, "cuArray3DGetDescriptor") && gl_interop &&
	    !strcmp(gl_interop, "1"))
		*pfn = (void *)fake_cuArray3DGetDescriptor;
	if (!*pfn)
		return CUDA_ERROR_NOT_FOUND;
	if (status)
		*status = CU_GET_PROC_ADDRESS_SUCCESS;
	return CUDA_SUCCESS;
}

/* Test controls ------------------------------------------------------------ */

/* Work enqueued before a control call runs first: the controls settle. */
FAKE_EXPORT void
fake_cuda_gate(int closed)
{
	pthread_mutex_lock(&lock);
	settle();
	gate_closed = closed != 0;
	pthread_cond_broadcast(&work_cond);
	settle();
	pthread_mutex_unlock(&lock);
}

FAKE_EXPORT int
fake_cuda_stream_hold(CUstream stream, int hold)
{
	struct queue *q;

	pthread_mutex_lock(&lock);
	if (!stream_ok(stream) || hold < FAKE_CUDA_RUN ||
	    (hold > FAKE_CUDA_HOLD_UNTIL_SYNC &&
	     hold != FAKE_CUDA_HOLD_UNTIL_WAITED)) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	settle();
	q = queue_of(stream);
	q->hold = hold;
	pthread_cond_broadcast(&work_cond);
	settle();
	pthread_mutex_unlock(&lock);
	return 0;
}

FAKE_EXPORT unsigned int
fake_cuda_stream_pending(CUstream stream)
{
	unsigned int n = 0;

	pthread_mutex_lock(&lock);
	settle();
	if (stream_ok(stream))
		n = queue_of(stream)->len;
	pthread_mutex_unlock(&lock);
	return n;
}

FAKE_EXPORT int
fake_cuda_semaphore_signal(CUexternalSemaphore sem, unsigned long long value)
{
	pthread_mutex_lock(&lock);
	if (!obj_is_live(sem, K_SEMAPHORE)) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	if (!sem->timeline)
		sem->pending++;
	else if (value > sem->value)
		sem->value = value;
	pthread_cond_broadcast(&work_cond);
	settle();
	pthread_mutex_unlock(&lock);
	return 0;
}

FAKE_EXPORT int
fake_cuda_semaphore_state(CUexternalSemaphore sem, unsigned long long *value,
			  unsigned long long *waits,
			  unsigned long long *signals)
{
	pthread_mutex_lock(&lock);
	settle();
	if (!obj_is_live(sem, K_SEMAPHORE)) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	if (value)
		*value = sem->timeline ? sem->value : sem->pending;
	if (waits)
		*waits = sem->waits;
	if (signals)
		*signals = sem->signals;
	pthread_mutex_unlock(&lock);
	return 0;
}

FAKE_EXPORT void
fake_cuda_settle(void)
{
	pthread_mutex_lock(&lock);
	settle();
	pthread_mutex_unlock(&lock);
}

/* A counter's value, read under the lock; with settle_first, once the work
 * that can run has run (what a test that waits for the GPU would see). */
static unsigned int
counter_read(const unsigned int *counter, bool settle_first)
{
	unsigned int n;
	pthread_mutex_lock(&lock);
	if (settle_first)
		settle();
	n = *counter;
	pthread_mutex_unlock(&lock);
	return n;
}

FAKE_EXPORT unsigned int
fake_cuda_live_objects(void)
{
	return counter_read(&live_count, false);
}

FAKE_EXPORT unsigned int
fake_cuda_reclaimed_objects(void)
{
	return counter_read(&reclaimed, false);
}

FAKE_EXPORT int
fake_cuda_sticky_error(void)
{
	int n;
	pthread_mutex_lock(&lock);
	n = (int)sticky;
	pthread_mutex_unlock(&lock);
	return n;
}

FAKE_EXPORT unsigned int
fake_cuda_primary_refs(void)
{
	return counter_read(&primary.refs, false);
}

FAKE_EXPORT unsigned int
fake_cuda_pending(void)
{
	return counter_read(&queue_len, true);
}

FAKE_EXPORT unsigned int
fake_cuda_launches(void)
{
	return counter_read(&launches, true);
}

FAKE_EXPORT unsigned int
fake_cuda_library_launches(void)
{
	return counter_read(&library_launches, true);
}

FAKE_EXPORT unsigned int
fake_cuda_memcpy3d_calls(void)
{
	return counter_read(&memcpy3d_calls, true);
}

FAKE_EXPORT unsigned int
fake_cuda_libraries(void)
{
	return counter_read(&library_count, false);
}

FAKE_EXPORT unsigned int
fake_cuda_host_fns_run(void)
{
	return counter_read(&host_fns_run, true);
}
