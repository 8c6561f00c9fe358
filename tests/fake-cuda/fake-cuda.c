/*
 * A fake CUDA driver for tests: libfakecuda.so stands in for libcuda.so.1
 * (GLCUDA_LIBCUDA=.../libfakecuda.so), so that glcuda's public API runs end
 * to end on a machine without an NVIDIA GPU, in the "cpu" sync mode.
 * SPDX-License-Identifier: MIT
 *
 * Everything happens on the CPU and is deterministic: one device (ordinal
 * 0), a primary context with a reference count, a per-thread context
 * stack, handle objects with a live count for leak tests, streams whose
 * work runs at enqueue time unless the test closes the "gate"
 * (fake-cuda.h), events stamped by a fake clock that advances 100 us per
 * record. Imports take ownership of their fd and close it on destroy, like
 * the real driver, so fd accounting in tests stays meaningful.
 *
 * Like the real driver, an injected "sticky" error (CUDA_ERROR_ILLEGAL_ADDRESS,
 * CUDA_ERROR_LAUNCH_FAILED, ...) breaks the context: every later call that
 * uses it returns the same error, its objects can no longer be destroyed one
 * by one, and queued host functions never run. Releasing the last reference
 * to the primary context destroys it with everything it still holds; the
 * next retain gets a fresh, working context.
 *
 * Only cuGetProcAddress_v2 (what glcuda's loader looks up) and the test
 * controls are exported; every entry point has the ABI the loader's
 * __typeof__ of the cuda.h declaration expects.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/cuda-loader.h"
#include "fake-cuda.h"

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
};

struct CUarray_st {
	struct obj o;
	struct CUmipmappedArray_st *parent;
};

struct CUmipmappedArray_st {
	struct obj o;
	CUDA_ARRAY3D_DESCRIPTOR desc;
	unsigned int levels;
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
};

struct CUstream_st {
	struct obj o;
	unsigned int flags;
};

struct CUevent_st {
	struct obj o;
	unsigned int flags;
	unsigned int pending; /* records queued behind the gate */
	bool recorded;
	uint64_t time_us;
};

struct alloc {
	struct obj o;
	void *ptr;
	size_t size;
};

/* Work queued behind the closed gate, in enqueue order. */
enum op_kind { OP_HOST_FN, OP_EVENT, OP_KERNEL, OP_MEMCPY, OP_MEMCPY2D };

struct op {
	struct op *next;
	enum op_kind kind;
	CUstream stream;
	CUhostFn fn;
	void *data;
	CUevent event;
	void *dst;
	const void *src;
	size_t n;
	CUDA_MEMCPY2D m2d;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct obj live = { &live, &live, 0 };
static unsigned int live_count;
static bool initialized;
static struct CUctx_st primary;
static bool gate_closed;
static struct op *queue_head, *queue_tail;
static unsigned int queue_len;
static bool draining;
static uint64_t clock_us;
static unsigned int launches, host_fns_run;
static size_t device_bytes;
/* The context's sticky error (CUDA_SUCCESS: healthy), and the objects
 * freed by the destruction of a context that still held them. */
static CUresult sticky;
static unsigned int reclaimed;
/* Work of a destroyed stream still runs (as with the real driver); its ops
 * point here so that a new stream at the same address is not busy. */
static struct CUstream_st destroyed_stream;

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
		fail_at = 0; /* unknown code: inject nothing rather than success */
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
		"cuInit", "cuDriverGetVersion", "cuCtxPushCurrent", "cuCtxPopCurrent",
		"cuCtxGetCurrent", "cuCtxGetDevice",
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

/* The queue --------------------------------------------------------------- */

static void
event_complete(CUevent ev)
{
	clock_us += FAKE_EVENT_TICK_US;
	ev->time_us = clock_us;
	ev->recorded = true;
}

static void
memcpy2d_run(const CUDA_MEMCPY2D *m)
{
	const uint8_t *src = m->srcMemoryType == CU_MEMORYTYPE_HOST
				     ? (const uint8_t *)m->srcHost
				     : (const uint8_t *)(uintptr_t)m->srcDevice;
	uint8_t *dst = m->dstMemoryType == CU_MEMORYTYPE_HOST ? (uint8_t *)m->dstHost
							      : (uint8_t *)(uintptr_t)m->dstDevice;

	for (size_t y = 0; y < m->Height; y++)
		memmove(dst + (m->dstY + y) * m->dstPitch + m->dstXInBytes,
			src + (m->srcY + y) * m->srcPitch + m->srcXInBytes, m->WidthInBytes);
}

/* Run one op. Called with the lock held; host functions run unlocked. */
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
		op->event->pending--;
		event_complete(op->event);
		break;
	case OP_KERNEL:
		break;
	case OP_MEMCPY:
		memmove(op->dst, op->src, op->n);
		break;
	case OP_MEMCPY2D:
		memcpy2d_run(&op->m2d);
		break;
	}
}

/* Run the queue in order while the gate is open. Lock held. */
static void
queue_drain(void)
{
	if (draining)
		return;
	draining = true;
	while (!gate_closed && queue_head) {
		struct op *op = queue_head;
		queue_head = op->next;
		if (!queue_head)
			queue_tail = NULL;
		queue_len--;
		op_run(op);
		free(op);
	}
	draining = false;
}

/* Enqueue work on a stream: run now, or queue it behind the gate (or
 * behind earlier queued work). Lock held. Takes op (heap or stack). */
static CUresult
enqueue(struct op *op)
{
	struct op *q;

	if (!gate_closed && !queue_head && !draining) {
		if (op->kind == OP_EVENT)
			op->event->pending++;
		op_run(op);
		return CUDA_SUCCESS;
	}
	q = malloc(sizeof(*q));
	if (!q)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*q = *op;
	q->next = NULL;
	if (q->kind == OP_EVENT)
		q->event->pending++;
	if (queue_tail)
		queue_tail->next = q;
	else
		queue_head = q;
	queue_tail = q;
	queue_len++;
	return CUDA_SUCCESS;
}

/* Queued work on a stream (NULL/legacy: any). */
static bool
stream_busy(CUstream s)
{
	for (struct op *op = queue_head; op; op = op->next)
		if (!s || s == CU_STREAM_LEGACY || op->stream == s)
			return true;
	return false;
}

/* Drop the queued records of an event being destroyed (they would touch
 * it; nothing else observes them). */
static void
queue_purge_event(CUevent ev)
{
	struct op **pp = &queue_head, *op;

	queue_tail = NULL;
	while ((op = *pp)) {
		if (op->kind == OP_EVENT && op->event == ev) {
			*pp = op->next;
			if (op->kind == OP_EVENT)
				op->event->pending--;
			queue_len--;
			free(op);
			continue;
		}
		queue_tail = op;
		pp = &op->next;
	}
}

/* Initialisation, errors, device ------------------------------------------ */

#define FAKE_FUNCTION_DECL(name) static __typeof__(name) fake_##name;
GLCUDA_CUDA_FUNCTIONS(FAKE_FUNCTION_DECL)
GLCUDA_CUDA_PROGRAM_FUNCTIONS(FAKE_FUNCTION_DECL)
#undef FAKE_FUNCTION_DECL
static CUresult fake_cuGraphicsGLRegisterImage(CUgraphicsResource *, unsigned int,
					       unsigned int, unsigned int);
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

static const struct {
	CUresult res;
	const char *name, *desc;
} error_table[] = {
	{ CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
	{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
	{ CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
	{ CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
	  "the launch timed out and was terminated" },
	{ CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
	  "an illegal memory access was encountered" },
	{ CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
	  "unspecified launch failure" },
	{ CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered" },
	{ CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE",
	  "uncorrectable ECC error encountered" },
	{ CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	  "context is destroyed" },
	{ CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
	{ CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static CUresult
result_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(error_table) / sizeof(error_table[0]); i++)
		if (!strcmp(error_table[i].name, name))
			return error_table[i].res;
	return CUDA_SUCCESS;
}

static CUresult
fake_cuGetErrorName(CUresult error, const char **str)
{
	if (!str)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof(error_table) / sizeof(error_table[0]); i++)
		if (error_table[i].res == error) {
			*str = error_table[i].name;
			return CUDA_SUCCESS;
		}
	*str = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult
fake_cuGetErrorString(CUresult error, const char **str)
{
	if (!str)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof(error_table) / sizeof(error_table[0]); i++)
		if (error_table[i].res == error) {
			*str = error_table[i].desc;
			return CUDA_SUCCESS;
		}
	*str = NULL;
	return CUDA_ERROR_INVALID_VALUE;
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
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
	case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *pi = 0; break;
	default: *pi = 0; break;
	}
	LEAVE(CUDA_SUCCESS);
}

/* Contexts ------------------------------------------------------------------ */

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
	case K_EXT_MEMORY: {
		struct CUextMemory_st *m = (struct CUextMemory_st *)o;
		device_bytes -= m->size;
		close(m->fd);
		break;
	}
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
	while (queue_head) {
		struct op *op = queue_head;
		queue_head = op->next;
		free(op);
	}
	queue_tail = NULL;
	queue_len = 0;
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
	if (ctx != &primary || primary.refs == 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	queue_drain();
	return queue_head ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
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
	*free_bytes = device_bytes < FAKE_TOTAL_MEMORY ? FAKE_TOTAL_MEMORY - device_bytes : 0;
	LEAVE(CUDA_SUCCESS);
}

/* External memory, arrays, surfaces, textures ----------------------------- */

static bool
fd_is_open(int fd)
{
	return fd >= 0 && fcntl(fd, F_GETFD) != -1;
}

static CUresult
fake_cuImportExternalMemory(CUexternalMemory *out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *desc)
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
	device_bytes -= mem->size;
	close(mem->fd);
	free(mem);
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuExternalMemoryGetMappedMipmappedArray(CUmipmappedArray *out, CUexternalMemory mem,
					     const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *desc)
{
	struct CUmipmappedArray_st *a;
	ENTER("cuExternalMemoryGetMappedMipmappedArray");
	if (!out || !desc || desc->numLevels == 0 || desc->arrayDesc.Width == 0 ||
	    desc->arrayDesc.NumChannels == 0 || desc->arrayDesc.NumChannels == 3 ||
	    desc->arrayDesc.NumChannels > 4)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (!obj_is_live(mem, K_EXT_MEMORY))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	if (desc->offset >= mem->size)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	a = calloc(1, sizeof(*a));
	if (!a)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	a->desc = desc->arrayDesc;
	a->levels = desc->numLevels;
	obj_add(&a->o, K_MIPMAP);
	*out = a;
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuMipmappedArrayGetLevel(CUarray *out, CUmipmappedArray mip, unsigned int level)
{
	ENTER("cuMipmappedArrayGetLevel");
	if (!out)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!obj_is_live(mip, K_MIPMAP))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	if (level >= mip->levels || level > 0)
		LEAVE(level >= mip->levels ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_SUPPORTED);
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
view_create(const CUDA_RESOURCE_DESC *desc, enum obj_kind kind, unsigned long long *out)
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
		       const CUDA_TEXTURE_DESC *tex, const CUDA_RESOURCE_VIEW_DESC *view)
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

/* External semaphores -------------------------------------------------------- */

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
	    desc->type != CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD)
		LEAVE(CUDA_ERROR_NOT_SUPPORTED);
	if (!fd_is_open(desc->handle.fd))
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	s = calloc(1, sizeof(*s));
	if (!s)
		LEAVE(CUDA_ERROR_OUT_OF_MEMORY);
	s->fd = desc->handle.fd;
	s->timeline = desc->type == CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
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
	obj_remove(&sem->o);
	close(sem->fd);
	free(sem);
	LEAVE(CUDA_SUCCESS);
}

/* Semaphore operations are recorded, not modelled: the CPU sync mode never
 * uses them, and a GPU-side wait cannot be run on the CPU. */
static CUresult
fake_cuSignalExternalSemaphoresAsync(const CUexternalSemaphore *sems,
				     const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *params,
				     unsigned int count, CUstream stream)
{
	ENTER("cuSignalExternalSemaphoresAsync");
	if (!sems || !params || count == 0)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	for (unsigned int i = 0; i < count; i++)
		if (!obj_is_live(sems[i], K_SEMAPHORE))
			LEAVE(CUDA_ERROR_INVALID_HANDLE);
	for (unsigned int i = 0; i < count; i++) {
		sems[i]->signals++;
		if (sems[i]->timeline)
			sems[i]->value = params[i].params.fence.value;
	}
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuWaitExternalSemaphoresAsync(const CUexternalSemaphore *sems,
				   const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *params,
				   unsigned int count, CUstream stream)
{
	ENTER("cuWaitExternalSemaphoresAsync");
	if (!sems || !params || count == 0)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	for (unsigned int i = 0; i < count; i++)
		if (!obj_is_live(sems[i], K_SEMAPHORE))
			LEAVE(CUDA_ERROR_INVALID_HANDLE);
	for (unsigned int i = 0; i < count; i++)
		sems[i]->waits++;
	LEAVE(CUDA_SUCCESS);
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
	s->flags = flags;
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
	 * completed all work in hStream"): so does the fake. */
	for (struct op *op = queue_head; op; op = op->next)
		if (op->stream == stream)
			op->stream = &destroyed_stream;
	obj_remove(&stream->o);
	free(stream);
	LEAVE(CUDA_SUCCESS);
}

/* Never blocks: queued work behind the closed gate would never finish. */
static CUresult
fake_cuStreamSynchronize(CUstream stream)
{
	ENTER("cuStreamSynchronize");
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	queue_drain();
	LEAVE(stream_busy(stream) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS);
}

static CUresult
fake_cuStreamQuery(CUstream stream)
{
	ENTER("cuStreamQuery");
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	LEAVE(stream_busy(stream) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS);
}

/* One queue in enqueue order: every earlier record is already ahead. */
static CUresult
fake_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags)
{
	ENTER("cuStreamWaitEvent");
	if (!stream_ok(stream) || !obj_is_live(event, K_EVENT))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	LEAVE(CUDA_SUCCESS);
}

static CUresult
fake_cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
			 unsigned int flags)
{
	ENTER("cuStreamWaitValue32");
	LEAVE(CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult
fake_cuLaunchHostFunc(CUstream stream, CUhostFn fn, void *data)
{
	struct op op = { .kind = OP_HOST_FN, .stream = stream, .fn = fn, .data = data };
	ENTER("cuLaunchHostFunc");
	if (!fn)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	LEAVE(enqueue(&op));
}

/* Kernels are recorded; modules cannot be loaded, so the function handle
 * is not checked. */
static CUresult
fake_cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		    unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
		    CUstream stream, void **params, void **extra)
{
	struct op op = { .kind = OP_KERNEL, .stream = stream };
	ENTER("cuLaunchKernel");
	if (!gx || !gy || !gz || !bx || !by || !bz)
		LEAVE(CUDA_ERROR_INVALID_VALUE);
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	if (!stream_ok(stream))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	launches++;
	LEAVE(enqueue(&op));
}

/* Events ------------------------------------------------------------------- */

static CUresult
fake_cuEventCreate(CUevent *out, unsigned int flags)
{
	struct CUevent_st *e;
	ENTER("cuEventCreate");
	if (!out || (flags & ~(unsigned int)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
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
	ENTER("cuEventSynchronize");
	if (!obj_is_live(event, K_EVENT))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	queue_drain();
	LEAVE(event->pending ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS);
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
	if (!start->recorded || !end->recorded || (start->flags & CU_EVENT_DISABLE_TIMING) ||
	    (end->flags & CU_EVENT_DISABLE_TIMING))
		LEAVE(CUDA_ERROR_INVALID_HANDLE);
	*ms = (float)((double)((int64_t)end->time_us - (int64_t)start->time_us) / 1000.0);
	LEAVE(CUDA_SUCCESS);
}

/* Modules: none can be loaded (there is no GPU code to run). ---------------- */

static CUresult
fake_cuModuleLoadData(CUmodule *module, const void *image)
{
	ENTER("cuModuleLoadData");
	LEAVE(CUDA_ERROR_NOT_SUPPORTED);
}

static CUresult
fake_cuModuleUnload(CUmodule module)
{
	ENTER("cuModuleUnload");
	LEAVE(CUDA_ERROR_INVALID_HANDLE);
}

static CUresult
fake_cuModuleGetFunction(CUfunction *f, CUmodule module, const char *name)
{
	ENTER("cuModuleGetFunction");
	LEAVE(CUDA_ERROR_INVALID_HANDLE);
}

static CUresult
fake_cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule module, const char *name)
{
	ENTER("cuModuleGetGlobal");
	LEAVE(CUDA_ERROR_INVALID_HANDLE);
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
	struct op op = { .kind = OP_MEMCPY, .stream = stream, .dst = dst, .src = src, .n = n };

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
fake_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream stream)
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
	if ((m->srcMemoryType != CU_MEMORYTYPE_HOST && m->srcMemoryType != CU_MEMORYTYPE_DEVICE) ||
	    (m->dstMemoryType != CU_MEMORYTYPE_HOST && m->dstMemoryType != CU_MEMORYTYPE_DEVICE))
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

static CUresult
fake_cuMemcpy2D(const CUDA_MEMCPY2D *m)
{
	CUresult res;
	ENTER("cuMemcpy2D");
	if (!have_context())
		LEAVE(CUDA_ERROR_INVALID_CONTEXT);
	res = memcpy2d_check(m);
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

static CUresult
fake_cuGraphicsMapResources(unsigned int count, CUgraphicsResource *resources, CUstream stream)
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
fake_cuGraphicsSubResourceGetMappedArray(CUarray *array, CUgraphicsResource resource,
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

/* cuGetProcAddress ------------------------------------------------------------ */

static const struct {
	const char *name;
	void *fn;
} proc_table[] = {
#define FAKE_PROC_ENTRY(name) { #name, (void *)fake_##name },
	GLCUDA_CUDA_FUNCTIONS(FAKE_PROC_ENTRY)
	GLCUDA_CUDA_PROGRAM_FUNCTIONS(FAKE_PROC_ENTRY)
	FAKE_PROC_ENTRY(cuGraphicsGLRegisterImage)
#undef FAKE_PROC_ENTRY
	{ "cuGetProcAddress", (void *)cuGetProcAddress_v2 },
};

FAKE_EXPORT CUresult
cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
		    CUdriverProcAddressQueryResult *status)
{
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
	for (size_t i = 0; !*pfn && i < sizeof(proc_table) / sizeof(proc_table[0]); i++)
		if (!strcmp(symbol, proc_table[i].name))
			*pfn = proc_table[i].fn;
	if (!*pfn)
		return CUDA_ERROR_NOT_FOUND;
	if (status)
		*status = CU_GET_PROC_ADDRESS_SUCCESS;
	return CUDA_SUCCESS;
}

/* Test controls ------------------------------------------------------------------ */

FAKE_EXPORT void
fake_cuda_gate(int closed)
{
	pthread_mutex_lock(&lock);
	gate_closed = closed != 0;
	queue_drain();
	pthread_mutex_unlock(&lock);
}

FAKE_EXPORT unsigned int
fake_cuda_live_objects(void)
{
	unsigned int n;
	pthread_mutex_lock(&lock);
	n = live_count;
	pthread_mutex_unlock(&lock);
	return n;
}

FAKE_EXPORT unsigned int
fake_cuda_reclaimed_objects(void)
{
	unsigned int n;
	pthread_mutex_lock(&lock);
	n = reclaimed;
	pthread_mutex_unlock(&lock);
	return n;
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
	unsigned int n;
	pthread_mutex_lock(&lock);
	n = primary.refs;
	pthread_mutex_unlock(&lock);
	return n;
}

FAKE_EXPORT unsigned int
fake_cuda_pending(void)
{
	unsigned int n;
	pthread_mutex_lock(&lock);
	n = queue_len;
	pthread_mutex_unlock(&lock);
	return n;
}

FAKE_EXPORT unsigned int
fake_cuda_launches(void)
{
	unsigned int n;
	pthread_mutex_lock(&lock);
	n = launches;
	pthread_mutex_unlock(&lock);
	return n;
}

FAKE_EXPORT unsigned int
fake_cuda_host_fns_run(void)
{
	unsigned int n;
	pthread_mutex_lock(&lock);
	n = host_fns_run;
	pthread_mutex_unlock(&lock);
	return n;
}
