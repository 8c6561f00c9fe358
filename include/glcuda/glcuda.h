/**
 * @file
 * glcuda — zero-copy, GPU-synchronised hand-off of OpenGL / OpenGL ES frames
 * to CUDA and back.
 *
 * SPDX-License-Identifier: MIT
 *
 * This is the core header. It uses no CUDA and no Vulkan types: a program
 * that only renders with GL and hands images to code in another module can
 * include it alone. The typed CUDA accessors (CUarray, CUsurfObject,
 * CUtexObject, CUstream) are in <glcuda/glcuda-cuda.h>.
 *
 * Conventions used throughout:
 *  - Return shapes. Functions that can fail return an int: 0 on success or
 *    a negative error code (enum glcuda_error, or a negative errno value
 *    such as -EINVAL, -ENOMEM, -EAGAIN). Output pointers are left untouched
 *    on failure. Three kinds of call return a non-negative value other
 *    than 0, and say so: calls that count (glcuda_ring_dispatch() returns
 *    the number of frames ready), calls that report whether they produced
 *    something (glcuda_ring_read_timings() returns 1 when it filled its
 *    output and 0 when nothing was ready), and the diagnosis lists of
 *    <glcuda/glcuda-diag.h>, which return the total count and fill at most
 *    the room given, as snprintf() does. Queries named _has_ return 1 or 0
 *    and never fail. Getters (below) and _destroy functions do not fail.
 *  - Every failure also leaves a detailed message — what failed, the raw
 *    EGL/GL/Vulkan/CUDA code, and what to do — retrievable with
 *    glcuda_device_get_last_error() (per device) or glcuda_get_last_error()
 *    (per thread, for calls made before a device exists).
 *  - Calls marked "GL:" touch GL and need the device's EGL context current on
 *    the calling thread. glcuda never changes which context is current and
 *    restores every GL binding it changes.
 *  - _destroy functions accept NULL.
 *  - Structs the caller allocates and glcuda reads or fills
 *    (struct glcuda_device_options, struct glcuda_ring_desc,
 *    struct glcuda_image_desc, struct glcuda_cuda_plane,
 *    struct glcuda_frame_timings, and the element structs of
 *    <glcuda/glcuda-diag.h>) start with a size member: set it to
 *    sizeof the struct, or initialise the struct with its _init() function
 *    (glcuda_device_options_init(), ...), which zeroes it and sets the
 *    size. New members are only ever appended, so a program built against
 *    an older glcuda keeps working with a newer one: the members its size
 *    does not cover take their defaults. A size of 0 (not set), of a newer
 *    glcuda's struct, or that ends inside a member fails with -EINVAL and a
 *    message saying so.
 *  - Names: glcuda_OBJECT_VERB(). A function that returns what an
 *    object, the thread or the library holds, without doing work, is a
 *    getter named _get_ (glcuda_image_get_width() or
 *    glcuda_get_last_error()) and pairs with a _set_ where the value can
 *    be changed (glcuda_device_set_log_priority()), as in libinput and
 *    libevdev. Getters accept NULL (and return an empty value), do no
 *    work, and touch neither GL nor CUDA: no context need be current.
 *    What a getter returns is owned by the object it came from and lives
 *    as long as it, unless its documentation says otherwise.
 *    glcuda_strerror() keeps the name of the C library function it mirrors.
 *    A call that does work (queries a driver, needs a context current) is
 *    named for the work: glcuda_ring_read_timings().
 *  - User data: devices, images, rings and frames each hold one pointer of
 *    the caller's (_set_user_data()/_get_user_data()), NULL when made,
 *    never read or freed by glcuda.
 *
 * EGL types: this header includes no EGL header, so that it can come before
 * or after <EGL/egl.h> or <epoxy/egl.h> (epoxy refuses to follow
 * <EGL/egl.h>, and C99 forbids declaring EGLDisplay a second time). The
 * EGL handles it takes and returns are written void *: EGLDisplay,
 * EGLContext and EGLImage are typedefs of void * in every EGL header, so
 * they pass and convert without casts, in C and C++. Include the EGL
 * header you use (<EGL/egl.h> or <epoxy/egl.h>) yourself.
 *
 * Thread safety:
 *  - Per device: a glcuda_device and everything made from it (images,
 *    rings, frames) are used from one thread at a time: the thread on
 *    which the device's EGL context is current. Another thread may take
 *    over once the context is released on the first and made current on
 *    it, with the hand-over synchronised by the caller (glcuda keeps no
 *    CUDA context current between calls). The device's last error and its
 *    log handler belong to that thread too: the handler is called on the
 *    thread making the glcuda call, never on a driver thread.
 *  - Per ring: a ring is its device's, as above; only its ready fd
 *    (glcuda_ring_get_fd()) may be polled from any thread.
 *  - Across devices: different devices may be used concurrently from
 *    different threads, on different GPUs or on the same one (they then
 *    share the CUDA primary context, and their headless helpers share the
 *    EGL display). glcuda_device_new(), glcuda_device_destroy(),
 *    glcuda_headless_new() and glcuda_headless_destroy() may run on
 *    several threads at once: the process-wide state behind them (the
 *    CUDA driver loader, the one Vulkan instance, the headless helper's
 *    display references) is locked, and glcuda never makes two of the
 *    driver calls that create or destroy EGL displays, EGL contexts or
 *    Vulkan devices at once. With devices on two GPUs, NVIDIA's driver 580
 *    hung when two threads tore their devices and contexts down at the same
 *    moment, and may still (doc/nvidia-notes.md): tear down from one
 *    thread at a time there.
 *  - Global functions: glcuda_strerror(), glcuda_error_get_name(),
 *    glcuda_get_version(), glcuda_sync_mode_get_name(), the glcuda_format_*()
 *    queries and the process-wide log handler and priority
 *    (glcuda_set_log_handler() & co.) are thread-safe; glcuda_get_last_error()
 *    is per thread (each thread reads the message of its own last failed
 *    call).
 */
#ifndef GLCUDA_H
#define GLCUDA_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <glcuda/glcuda-version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks a printf-like function (format string argument f, first value
 *  argument a) for the compiler's format checks; empty for other compilers. */
#if defined(__GNUC__)
#define GLCUDA_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GLCUDA_PRINTF(f, a)
#endif

/** Marks a declaration deprecated: it keeps working until the next major
 *  version, and the compiler warns where it is used (doc/versioning.md);
 *  empty for other compilers. @since 1.0 */
#if defined(__GNUC__)
#define GLCUDA_DEPRECATED __attribute__((deprecated))
#else
#define GLCUDA_DEPRECATED
#endif

/**
 * Error codes. Generic failures are negative errno values (-EINVAL for a bad
 * argument, -ENOMEM when host memory runs out, -EAGAIN when a ring has no
 * free slot, -ETIMEDOUT when a timed wait expires); the codes below name the
 * root causes specific to GL/Vulkan/CUDA interop. All are negative.
 * @since 0.1
 */
enum glcuda_error {
	GLCUDA_SUCCESS = 0,
	/** libcuda.so.1 could not be loaded, or cuInit failed: no NVIDIA
	 *  driver. */
	GLCUDA_ERROR_NO_CUDA_DRIVER = -1000,
	/** No CUDA device has the device UUID of the GL context (PRIME laptop,
	 *  or GL running on Mesa while CUDA runs on NVIDIA). */
	GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE = -1001,
	/** No Vulkan physical device has the device UUID of the GL context. */
	GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE = -1002,
	/** GL and Vulkan report the same device but different driver UUIDs:
	 *  memory cannot be shared between them. */
	GLCUDA_ERROR_DRIVER_MISMATCH = -1003,
	/** An EGL extension glcuda needs is missing (named in the message). */
	GLCUDA_ERROR_MISSING_EGL_EXTENSION = -1004,
	/** A GL extension glcuda needs is missing (named in the message). */
	GLCUDA_ERROR_MISSING_GL_EXTENSION = -1005,
	/** A Vulkan extension or feature glcuda needs is missing (named). */
	GLCUDA_ERROR_MISSING_VULKAN_EXTENSION = -1006,
	/** The driver cannot export or import the external handle type
	 *  (OPAQUE_FD memory or semaphore) for this object. */
	GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE = -1007,
	/** The driver cannot share images of this format. */
	GLCUDA_ERROR_UNSUPPORTED_FORMAT = -1008,
	/** The GL context is older than GL 4.5 core / GLES 3.0. */
	GLCUDA_ERROR_GL_TOO_OLD = -1009,
	/** The device's EGL context is not current on the calling thread. */
	GLCUDA_ERROR_NO_CURRENT_CONTEXT = -1010,
	/** The Vulkan loader or a Vulkan driver is not available. */
	GLCUDA_ERROR_NO_VULKAN = -1011,
	/** A GL call failed (the GL error is in the message). */
	GLCUDA_ERROR_GL = -1012,
	/** A Vulkan call failed (the VkResult is in the message). */
	GLCUDA_ERROR_VULKAN = -1013,
	/** A CUDA call failed (the CUresult is in the message). */
	GLCUDA_ERROR_CUDA = -1014,
	/** An EGL call failed (the EGL error is in the message). */
	GLCUDA_ERROR_EGL = -1015,
	/** An object was used in a state that does not allow the call
	 *  (a frame submitted twice, released before completion, ...). */
	GLCUDA_ERROR_BAD_STATE = -1016,
	/** An object belongs to another glcuda_device. */
	GLCUDA_ERROR_WRONG_DEVICE = -1017,
	/** The GPU was lost or reset: a sticky CUDA error (a kernel faulted:
	 *  CUDA_ERROR_ILLEGAL_ADDRESS, _LAUNCH_FAILED, ...), a GL context reset
	 *  (glGetGraphicsResetStatus, GL_CONTEXT_LOST; reported only for a
	 *  context made with reset notification, see glcuda_device_new()), or
	 *  VK_ERROR_DEVICE_LOST. The message names the failing call and its
	 *  code. From then on every call on the device, its images and its
	 *  rings that does work returns this (getters keep returning what they
	 *  hold). To recover: destroy the rings, the images and the device
	 *  (nothing waits on the lost GPU, and they free what they own); after
	 *  a GL reset also destroy the GL context (GL_KHR_robustness: a reset
	 *  context stays unusable) and make a new one; then create the device
	 *  again. */
	GLCUDA_ERROR_DEVICE_LOST = -1018,
	/** No EGL device or GL context that glcuda can use was found. */
	GLCUDA_ERROR_NO_DISPLAY = -1019,
};

/**
 * Short description of an error code (a glcuda_error or a negative errno).
 * Never NULL; unknown codes get a generic text. A static string;
 * thread-safe.
 * @since 0.1
 */
const char *glcuda_strerror(int error);

/**
 * Symbolic name of an error code, e.g. "GLCUDA_ERROR_NO_CUDA_DRIVER" or
 * "EAGAIN". Never NULL ("UNKNOWN" for codes glcuda does not return). A
 * static string; thread-safe.
 * @since 0.3 (0.1 to 0.2: glcuda_error_name)
 */
const char *glcuda_error_get_name(int error);

/**
 * The detailed message of the last failure of a glcuda call on this thread:
 * what failed, the raw driver code, and what to do. Use it for failures that
 * happen before a device exists (glcuda_device_new, glcuda_headless_new).
 * Empty string if nothing failed yet. Owned by glcuda, per thread; valid
 * until the next glcuda call on this thread (calls that can fail clear it
 * when they start).
 * @since 0.3 (0.1 to 0.2: glcuda_last_error)
 */
const char *glcuda_get_last_error(void);

/**
 * The version of the library that runs, e.g. "1.0.0" (GLCUDA_VERSION_STRING
 * is the version of the headers a program was built with). A static
 * string; thread-safe.
 * @since 0.3 (0.1 to 0.2: glcuda_version)
 */
const char *glcuda_get_version(void);

/* ---------------------------------------------------------------------- */
/* Logging                                                                  */

/** Log priorities: a handler receives the messages at or above the
 *  priority set. @since 0.1 */
enum glcuda_log_priority {
	GLCUDA_LOG_PRIORITY_DEBUG = 10,
	GLCUDA_LOG_PRIORITY_INFO = 20,
	GLCUDA_LOG_PRIORITY_ERROR = 30,
};

/**
 * Log handler. The message is a printf format with its arguments; it ends in
 * a newline.
 * @since 0.1
 */
typedef void (*glcuda_log_func)(enum glcuda_log_priority priority,
				void *user_data, const char *format,
				va_list args) GLCUDA_PRINTF(3, 0);

/**
 * Set the process-wide log handler: it receives the messages that have no
 * device (the failures of glcuda_device_new() before the device exists,
 * the headless helper's) and those of devices without a handler of their
 * own (glcuda_device_set_log_handler(), options.log_func). A device's own
 * handler wins for that device's messages.
 *
 * Thread-safe. glcuda calls the handler on the thread making the glcuda
 * call, and on one thread at a time (a lock is held around the call): the
 * handler need not be thread-safe itself, and may call glcuda. Once this
 * returns, the previous handler is not running and will not be called
 * again, so its @p user_data may be freed.
 *
 * @param func the handler; NULL: stderr (the default)
 * @param user_data passed to @p func
 * @since 0.3
 */
void glcuda_set_log_handler(glcuda_log_func func, void *user_data);

/**
 * Set the lowest priority of the messages without a device that reach the
 * process-wide handler (devices have their own,
 * glcuda_device_set_log_priority()). Thread-safe.
 * @param priority a priority; 0 restores the default: what the GLCUDA_LOG
 *   environment variable says ("debug", "info", "error"), or
 *   GLCUDA_LOG_PRIORITY_ERROR
 * @since 0.3
 */
void glcuda_set_log_priority(enum glcuda_log_priority priority);

/** The lowest priority of messages without a device that are logged
 *  (glcuda_set_log_priority()). Thread-safe. @since 0.3 */
enum glcuda_log_priority glcuda_get_log_priority(void);

/* ---------------------------------------------------------------------- */
/* Device                                                                   */

struct glcuda_device;

/** How hand-offs are synchronised. @since 0.1 */
enum glcuda_sync_mode {
	/** Options only: choose the best mode the drivers allow. */
	GLCUDA_SYNC_AUTO = 0,
	/** Timeline semaphores (GL_NV_timeline_semaphore + CUDA timeline
	 *  fd): GPU-side waits, no CPU blocking. */
	GLCUDA_SYNC_TIMELINE = 1,
	/** Binary semaphore pairs (GL_EXT_semaphore_fd): GPU-side waits,
	 *  no CPU blocking. */
	GLCUDA_SYNC_BINARY = 2,
	/** GL has no semaphores: GL→CUDA waits on a GL fence on the CPU,
	 *  CUDA→GL synchronises the stream on the CPU. Blocks. */
	GLCUDA_SYNC_CPU = 3,
};

/** Name of a sync mode ("timeline", "binary", "cpu", "auto"; "invalid"
 *  otherwise). A static string; thread-safe.
 *  @since 0.3 (0.1 to 0.2: glcuda_sync_mode_name) */
const char *glcuda_sync_mode_get_name(enum glcuda_sync_mode mode);

/** Flags for struct glcuda_device_options. @since 0.1 */
enum glcuda_device_flags {
	GLCUDA_DEVICE_FLAG_NONE = 0,
	/** Enable the Vulkan validation layer if it is installed
	 *  (debugging). */
	GLCUDA_DEVICE_FLAG_VULKAN_VALIDATION = 1 << 0,
};

/**
 * Options for glcuda_device_new(): initialise with
 * glcuda_device_options_init() (or zero it and set size), then set what you
 * need; every member's zero is its default, and a NULL options pointer
 * means all defaults. The caller owns the struct; glcuda copies what it
 * needs during glcuda_device_new().
 * @since 0.1; the size member since 0.3
 */
struct glcuda_device_options {
	/** sizeof(struct glcuda_device_options), as the caller was compiled
	 *  with: see "Structs the caller allocates" at the top. @since 0.3 */
	size_t size;
	/** Force a sync mode (GLCUDA_SYNC_AUTO = best available). Forcing a
	 *  mode the drivers do not support fails with the missing extension. */
	enum glcuda_sync_mode sync_mode;
	/** A CUcontext to use instead of the device's primary context. It must
	 *  belong to the CUDA device that matches the GL context. NULL: glcuda
	 *  retains the primary context of the matching device. */
	void *cuda_context;
	/** Log handler; NULL: the process-wide one (glcuda_set_log_handler(),
	 *  by default stderr). */
	glcuda_log_func log_func;
	/** Passed to log_func as is. */
	void *log_user_data;
	/** Lowest priority logged; 0: GLCUDA_LOG_PRIORITY_ERROR, or what the
	 *  GLCUDA_LOG environment variable says ("debug", "info", "error"). */
	enum glcuda_log_priority log_priority;
	/** enum glcuda_device_flags */
	uint32_t flags;
};

/**
 * Zero @p options and set its size: all defaults. Inline, so that the size
 * is the one the caller was compiled with.
 * @since 0.3
 */
static inline void
glcuda_device_options_init(struct glcuda_device_options *options)
{
	memset(options, 0, sizeof(*options));
	options->size = sizeof(*options);
}

/** Which GL API a context implements. @since 0.1 */
enum glcuda_gl_api {
	GLCUDA_GL_API_GL = 1,   /**< desktop OpenGL (core or compatibility
				 *   profile) */
	GLCUDA_GL_API_GLES = 2, /**< OpenGL ES */
};

/**
 * What a device can do, filled by glcuda_device_new().
 * @since 0.1
 */
struct glcuda_caps {
	/** The sync mode hand-offs use. */
	enum glcuda_sync_mode sync_mode;
	/** Modes the drivers support (bit 1 << enum glcuda_sync_mode). Bit
	 *  masks hold the first 32 values of an enum only: query a value with
	 *  glcuda_device_has_sync_mode(), which has no such limit. */
	uint32_t sync_modes_supported;
	/** Desktop GL or GLES: the API of the device's GL context. */
	enum glcuda_gl_api gl_api;
	int gl_major, /**< GL version of the context: major */
	    gl_minor; /**< GL version of the context: minor */
	/** GL_VENDOR. */
	char gl_vendor[128];
	/** GL_RENDERER. */
	char gl_renderer[128];
	/** GL_VERSION. */
	char gl_version[128];
	/** GL_DEVICE_UUID_EXT == Vulkan deviceUUID == cuDeviceGetUuid. */
	uint8_t device_uuid[16];
	/** GL_DRIVER_UUID_EXT == Vulkan driverUUID. */
	uint8_t driver_uuid[16];
	/** The Vulkan physical device's deviceName. */
	char vulkan_device_name[256];
	/** Its apiVersion (VK_MAKE_API_VERSION encoding). */
	uint32_t vulkan_api_version;
	/** cuDeviceGetName of the matching CUDA device. */
	char cuda_device_name[256];
	/** The matching CUDA device's ordinal (cuDeviceGet). */
	int cuda_ordinal;
	/** cuDriverGetVersion, e.g. 13000. */
	int cuda_driver_version;
	/** Largest image side (min of GL_MAX_TEXTURE_SIZE and Vulkan). */
	uint32_t max_image_size;
	/** Formats that can be shared (bit 1 << enum glcuda_format), for the
	 *  first 32 formats; glcuda_device_has_format() answers for any. */
	uint32_t formats_supported;
	/** Kinds of images this device makes (bit 1 << enum glcuda_image_kind):
	 *  shared always; wrapped GL textures and EGLImages with a CUDA driver
	 *  that has the GL and EGL interop. glcuda_device_has_image_kind()
	 *  answers for any kind. @since 0.2 */
	uint32_t image_kinds_supported;
	/** Kinds whose hand-offs wait on the CPU in this device's sync mode
	 *  (bit 1 << enum glcuda_image_kind): shared images and wrapped
	 *  EGLImages in the cpu mode, nothing otherwise; wrapped GL textures
	 *  never. No kind copies pixels.
	 *  glcuda_device_image_kind_waits_on_cpu() answers for any kind.
	 *  @since 0.2 */
	uint32_t image_kinds_cpu_wait;
	/** Most layers of an image (struct glcuda_image_desc.layers): the
	 *  smallest of GL_MAX_ARRAY_TEXTURE_LAYERS, Vulkan's
	 *  maxImageArrayLayers and CUDA's layered surface limit. @since 1.1 */
	uint32_t max_image_layers;
};

/**
 * Bind glcuda to the caller's EGL display and context.
 *
 * GL: @p context must be current on the calling thread (it is checked), and
 * be GL >= 4.5 core or GLES >= 3.0 with GL_EXT_memory_object_fd. glcuda
 * finds the Vulkan physical device and the CUDA device whose device UUID
 * equals GL's GL_DEVICE_UUID_EXT, loads libcuda.so.1 (only now, never at
 * library load), and picks the best sync mode. The context stays current;
 * no GL state changes.
 *
 * GPU resets that GL sees are detected only if @p context was made with
 * reset notification: EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY (EGL
 * 1.5; for GLES, EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT of
 * EGL_EXT_create_context_robustness) set to EGL_LOSE_CONTEXT_ON_RESET.
 * glcuda then checks glGetGraphicsResetStatus in every call that touches GL
 * and reports GLCUDA_ERROR_DEVICE_LOST; without it the reset goes unnoticed
 * until a later failure (glcuda logs this at info priority).
 *
 * @param display the caller's EGLDisplay (see "EGL types" at the top)
 * @param context the caller's EGLContext, current on this thread
 * @param options NULL for defaults; read during the call only
 * @param[out] out the new device, owned by the caller
 *   (glcuda_device_destroy())
 * @return 0, or -EINVAL (NULL argument, options->size not set or unknown,
 *   options->sync_mode not a mode), -ENOMEM,
 *   GLCUDA_ERROR_NO_CURRENT_CONTEXT, GLCUDA_ERROR_GL_TOO_OLD,
 *   GLCUDA_ERROR_MISSING_GL_EXTENSION, GLCUDA_ERROR_NO_VULKAN,
 *   GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
 *   GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE, GLCUDA_ERROR_DRIVER_MISMATCH,
 *   GLCUDA_ERROR_NO_CUDA_DRIVER, GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE,
 *   GLCUDA_ERROR_CUDA, GLCUDA_ERROR_VULKAN. glcuda_get_last_error() says more.
 * @since 0.1
 */
int glcuda_device_new(void *display /* EGLDisplay */,
		      void *context /* EGLContext */,
		      const struct glcuda_device_options *options,
		      struct glcuda_device **out);

/**
 * Destroy a device. GL: the device's context must be current. NULL is a
 * no-op.
 *
 * Every image and ring made from the device must be destroyed first.
 * Destroying a device that still has some is a programming error that
 * glcuda refuses rather than turns into a use after free: the device is
 * not destroyed and stays fully usable, with its images and rings; the
 * refusal is logged at error priority, naming the number of images and
 * rings alive, and is the device's last error
 * (glcuda_device_get_last_error()) and the thread's
 * (glcuda_get_last_error()). Destroy the images and rings, then call
 * this again. (Deferring the destruction to the last child would leave a
 * device nobody may use but that still holds a GL context's objects, to
 * be freed at some later call that may not have the context current.)
 * Otherwise it leaves the thread's last error as it was, like every
 * _destroy call: an unwind after a failure keeps the failure's message.
 *
 * After GLCUDA_ERROR_DEVICE_LOST it does not wait on the GPU. It releases
 * the CUDA primary context it retained: when that was the last reference,
 * the broken context is destroyed, and with it the CUDA objects of the
 * device's images and rings that a broken context does not let glcuda
 * destroy one by one. A program that retains the primary context itself
 * must release it too (or call cuDevicePrimaryCtxReset) before CUDA works
 * again; with options.cuda_context, destroying that context is the
 * caller's job.
 * @since 0.1
 */
void glcuda_device_destroy(struct glcuda_device *dev);

/** The device's capabilities, owned by the device and fixed for its
 *  life. Never NULL (all zero for a NULL device). @since 0.1 */
const struct glcuda_caps *
glcuda_device_get_caps(const struct glcuda_device *dev);

/** Detailed message of the last failure of a call on the device, its
 *  images or its rings ("" if none); unlike glcuda_get_last_error(), a
 *  later call that succeeds does not clear it. Owned by the device; the
 *  text changes at the next failure. @since 0.3 (0.1 to 0.2:
 *  glcuda_device_get_last_error) */
const char *glcuda_device_get_last_error(const struct glcuda_device *dev);

/** Replace the device's log handler (NULL: the process-wide handler of
 *  glcuda_set_log_handler(), by default stderr). Called on the thread that
 *  uses the device (see Thread safety). NULL @p dev is a no-op.
 *  @since 0.1 */
void glcuda_device_set_log_handler(struct glcuda_device *dev,
				   glcuda_log_func func, void *user_data);

/** Set the lowest priority of the device's messages that reach its
 *  handler (overrides GLCUDA_LOG). NULL @p dev is a no-op. @since 0.1 */
void glcuda_device_set_log_priority(struct glcuda_device *dev,
				    enum glcuda_log_priority priority);

/** The lowest priority of the device's messages that reach its handler;
 *  GLCUDA_LOG_PRIORITY_ERROR for a NULL device. @since 0.1 */
enum glcuda_log_priority
glcuda_device_get_log_priority(const struct glcuda_device *dev);

/**
 * Attach a pointer of the caller's to the device (NULL when the device is
 * made), e.g. the output or GPU it serves. glcuda never reads or frees it.
 * Touches neither GL nor CUDA. NULL @p dev is a no-op.
 * @since 1.0
 */
void glcuda_device_set_user_data(struct glcuda_device *dev, void *user_data);

/** The device's user data (glcuda_device_set_user_data()); NULL for a
 *  NULL device. @since 1.0 */
void *glcuda_device_get_user_data(const struct glcuda_device *dev);

/** Whether the drivers support sync mode @p mode on this device (a
 *  device_options.sync_mode that glcuda_device_new() would accept): 1 or
 *  0; 0 for NULL, GLCUDA_SYNC_AUTO and values that are no mode.
 *  @since 1.0 */
int glcuda_device_has_sync_mode(const struct glcuda_device *dev,
				enum glcuda_sync_mode mode);

/* ---------------------------------------------------------------------- */
/* Shared images                                                            */

struct glcuda_image;

/**
 * Pixel formats of shared images. Each names the GL internal format, and
 * the layout CUDA sees through the surface object (per pixel):
 * @since 0.1
 */
enum glcuda_format {
	GLCUDA_FORMAT_INVALID = 0,
	GLCUDA_FORMAT_RGBA8 = 1,    /**< GL_RGBA8; CUDA uchar4 */
	/** GL_SRGB8_ALPHA8; CUDA uchar4 (encoded) */
	GLCUDA_FORMAT_SRGB8_A8 = 2,
	/** GL_RGB10_A2; CUDA uint, R in bits 0-9 */
	GLCUDA_FORMAT_RGB10_A2 = 3,
	GLCUDA_FORMAT_RGBA16F = 4,  /**< GL_RGBA16F; CUDA 4 x half (ushort4) */
	GLCUDA_FORMAT_RGBA32F = 5,  /**< GL_RGBA32F; CUDA float4 */
	GLCUDA_FORMAT_R8 = 6,       /**< GL_R8; CUDA uchar (NV12 luma plane) */
	GLCUDA_FORMAT_RG8 = 7,      /**< GL_RG8; CUDA uchar2 (NV12 chroma) */
	GLCUDA_FORMAT_R16 = 8,      /**< GL_R16; CUDA ushort (P010 luma) */
	GLCUDA_FORMAT_RG16 = 9,     /**< GL_RG16; CUDA ushort2 (P010 chroma) */
	GLCUDA_FORMAT_R32F = 10,    /**< GL_R32F; CUDA float */
	/** GL_DEPTH_COMPONENT32F (Vulkan D32_SFLOAT); CUDA float, the depth
	 *  GL wrote (0..1 with the default depth range). A depth image is
	 *  a depth attachment, not a colour one: use it as the image's
	 *  struct glcuda_image_desc.depth_format, or alone for depth-only
	 *  rendering. @since 1.1 */
	GLCUDA_FORMAT_DEPTH32F = 11,
};
/** The number of enum glcuda_format values (GLCUDA_FORMAT_INVALID included):
 *  one more than the largest. @since 0.1 (12 since 1.1) */
#define GLCUDA_FORMAT_COUNT 12

/** Name of a format ("RGBA8", ...), or "INVALID". A static string;
 *  thread-safe. @since 0.3 (0.1 to 0.2: glcuda_format_name) */
const char *glcuda_format_get_name(enum glcuda_format format);

/** Bytes per pixel of a format, 0 for an invalid one. Thread-safe.
 *  @since 0.3 (0.1 to 0.2: glcuda_format_bytes_per_pixel) */
unsigned int glcuda_format_get_bytes_per_pixel(enum glcuda_format format);

/** The GL sized internal format of a format (GL_RGBA8, ...), 0 if
 *  invalid. Thread-safe.
 *  @since 0.3 (0.1 to 0.2: glcuda_format_gl_internal_format) */
unsigned int glcuda_format_get_gl_internal_format(enum glcuda_format format);

/**
 * Whether the device shares images of @p format (glcuda_image_new()
 * accepts it): 1 or 0, and 0 for a NULL device or a value that is not a
 * format. Unlike the bit mask caps.formats_supported, it answers for every
 * value an enum may gain. Touches neither GL nor CUDA. @since 1.0
 */
int glcuda_device_has_format(const struct glcuda_device *dev,
			     enum glcuda_format format);

/** Flags for struct glcuda_image_desc. @since 0.1 */
enum glcuda_image_flags {
	GLCUDA_IMAGE_FLAG_NONE = 0,
	/** Do not create the CUDA texture object (only the surface object). */
	GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE = 1 << 0,
	/** CUDA texture object samples with linear filtering (float formats
	 *  and normalised integer formats). Default: point sampling. */
	GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER = 1 << 1,
};

/**
 * Description of a shared image: initialise with glcuda_image_desc_init()
 * (or zero it and set size), then fill width, height and format. The
 * caller owns the struct; glcuda_image_new() reads it during the call
 * only. New parameters of images are appended here, so that they need no
 * new function.
 * @since 1.0 (0.1 to 0.3: positional arguments of glcuda_image_new())
 */
struct glcuda_image_desc {
	/** sizeof(struct glcuda_image_desc), as the caller was compiled
	 *  with: see "Structs the caller allocates" at the top. */
	size_t size;
	/** Width in pixels, 1..caps.max_image_size. */
	uint32_t width;
	/** Height in pixels, 1..caps.max_image_size. */
	uint32_t height;
	/** The pixel format. */
	enum glcuda_format format;
	/** enum glcuda_image_flags */
	uint32_t flags;
	/** Layers: 0 or 1 for a 2D image (GL_TEXTURE_2D), 2 to
	 *  caps.max_image_layers for a 2D array of that many layers
	 *  (GL_TEXTURE_2D_ARRAY; CUDA sees a layered array, with layered
	 *  surface and texture objects). One hand-off moves every layer.
	 *  @since 1.1 */
	uint32_t layers;
	/** A depth buffer that goes with the image: GLCUDA_FORMAT_INVALID
	 *  (0, none) or GLCUDA_FORMAT_DEPTH32F. It has the image's size and
	 *  layers, is attached to every framebuffer of the image
	 *  (glcuda_image_get_gl_framebuffer()), so that one draw fills
	 *  colour and depth together, is handed off with the image in the
	 *  same call, and is the image's plane 1 for CUDA
	 *  (glcuda_image_get_cuda_plane(), the copies and the DLPack
	 *  export). @since 1.1 */
	enum glcuda_format depth_format;
};

/**
 * Zero @p desc and set its size. Inline, so that the size is the one the
 * caller was compiled with.
 * @since 1.0
 */
static inline void
glcuda_image_desc_init(struct glcuda_image_desc *desc)
{
	memset(desc, 0, sizeof(*desc));
	desc->size = sizeof(*desc);
}

/**
 * Allocate a 2D image, or a 2D array of layers, shared by GL and CUDA: one
 * Vulkan allocation, imported into GL as a texture (glTexStorageMem2DEXT or
 * glTexStorageMem3DEXT; usable as a framebuffer attachment and for
 * sampling) and into CUDA as a level-0 CUarray (layered for arrays) with a
 * surface object (read/write) and a texture object (sampling). glcuda also
 * makes the framebuffers a renderer needs: one per layer and one layered
 * (glcuda_image_get_gl_framebuffer()), with the depth buffer of
 * desc->depth_format attached beside the colour.
 *
 * The image starts owned by GL. Hand it to CUDA with
 * glcuda_handoff_to_cuda() and back with glcuda_handoff_to_gl().
 *
 * GL: the device's context must be current.
 * @param desc read during the call only
 * @param[out] out the new image, owned by the caller
 *   (glcuda_image_destroy())
 * @return 0, -EINVAL (NULL argument, desc->size not set or unknown, zero
 *   or oversized dimensions, unknown format or flags), -ENOMEM,
 *   GLCUDA_ERROR_NO_CURRENT_CONTEXT, GLCUDA_ERROR_UNSUPPORTED_FORMAT
 *   (the message names the format and the API that refused it),
 *   GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE, GLCUDA_ERROR_VULKAN,
 *   GLCUDA_ERROR_GL, GLCUDA_ERROR_CUDA, GLCUDA_ERROR_DEVICE_LOST.
 * @since 0.1; takes a struct glcuda_image_desc since 1.0
 */
int glcuda_image_new(struct glcuda_device *dev,
		     const struct glcuda_image_desc *desc,
		     struct glcuda_image **out);

/** The GL texture target: GL_TEXTURE_2D, GL_TEXTURE_2D_ARRAY for an image
 *  of layers, the wrapped texture's target (GL_TEXTURE_2D or
 *  GL_TEXTURE_RECTANGLE); 0 for a wrapped EGLImage and for NULL.
 *  @since 1.1 */
unsigned int glcuda_image_get_gl_target(const struct glcuda_image *img);

/** Layers of the image: 1 for a 2D image (and every wrapped one), N for a
 *  2D array; 0 for NULL. @since 1.1 */
uint32_t glcuda_image_get_layer_count(const struct glcuda_image *img);

/** The depth buffer's format (struct glcuda_image_desc.depth_format):
 *  GLCUDA_FORMAT_INVALID when the image has none. @since 1.1 */
enum glcuda_format
glcuda_image_get_depth_format(const struct glcuda_image *img);

/** The depth buffer's GL texture (same target and layers as the image);
 *  0 when the image has none. For a depth-only image (format
 *  GLCUDA_FORMAT_DEPTH32F) this is glcuda_image_get_gl_texture().
 *  @since 1.1 */
unsigned int glcuda_image_get_gl_depth_texture(const struct glcuda_image *img);

/**
 * The GL framebuffer that renders into one layer of a shared image: the
 * layer of the colour texture as GL_COLOR_ATTACHMENT0 (none for a
 * depth-only image) and the same layer of the depth buffer as
 * GL_DEPTH_ATTACHMENT (when the image has one). Complete, made with the
 * image, owned by it; bind it, set the viewport to the image's size and
 * draw. 0 for @p layer out of range, wrapped images and NULL.
 * @since 1.1
 */
unsigned int glcuda_image_get_gl_framebuffer(const struct glcuda_image *img,
					     uint32_t layer);

/**
 * The layered GL framebuffer of a shared image: the whole colour texture
 * and depth buffer attached (glFramebufferTexture), so that one draw call
 * fills every layer, each primitive going to the layer its shader writes to
 * gl_Layer (a geometry shader; or the vertex shader, with
 * GL_ARB_shader_viewport_layer_array or GL_NV_viewport_array2). For a 2D
 * image this is the framebuffer of layer 0. 0 for wrapped images and NULL.
 * @since 1.1
 */
unsigned int
glcuda_image_get_gl_layered_framebuffer(const struct glcuda_image *img);

/**
 * Destroy an image. Safe with hand-offs still in flight: GL objects are
 * deleted at once (GL keeps them alive until its queued commands finish),
 * and the CUDA and Vulkan parts are released after the GPU work queued on
 * the image has completed (glcuda waits for the CUDA work that touches the
 * image, which can block if such work is still running). After
 * GLCUDA_ERROR_DEVICE_LOST nothing waits (the work may never finish) and
 * everything is released at once; on a broken CUDA context the CUDA
 * objects go with the context (glcuda_device_destroy()).
 * GL: the device's context must be current. NULL is a no-op.
 * @since 0.1
 */
void glcuda_image_destroy(struct glcuda_image *img);

/** The GL texture name (GL_TEXTURE_2D). Owned by the image, except for a
 *  wrapped texture (the caller's own name); 0 for a wrapped EGLImage.
 *  @since 0.3 (0.1 to 0.2: glcuda_image_gl_texture) */
unsigned int glcuda_image_get_gl_texture(const struct glcuda_image *img);
/** Width in pixels (of plane 0 for planar EGLImages).
 *  @since 0.3 (0.1 to 0.2: glcuda_image_width) */
uint32_t glcuda_image_get_width(const struct glcuda_image *img);
/** Height in pixels (of plane 0 for planar EGLImages).
 *  @since 0.3 (0.1 to 0.2: glcuda_image_height) */
uint32_t glcuda_image_get_height(const struct glcuda_image *img);
/** The image's format; GLCUDA_FORMAT_INVALID for a wrapped texture or
 *  EGLImage whose format glcuda has no name for (see
 *  glcuda_image_wrap_gl_texture()). @since 0.3 (0.1 to 0.2:
 *  glcuda_image_get_format) */
enum glcuda_format glcuda_image_get_format(const struct glcuda_image *img);
/** The device the image belongs to (not a reference: the device must
 *  outlive its images). @since 0.3 (0.1 to 0.2: glcuda_image_device) */
struct glcuda_device *glcuda_image_get_device(const struct glcuda_image *img);

/**
 * Attach a pointer of the caller's to the image (NULL when the image is
 * made, wrapped or part of a ring), e.g. the client buffer it holds.
 * glcuda never reads or frees it. Touches neither GL nor CUDA. NULL @p img
 * is a no-op.
 * @since 1.0
 */
void glcuda_image_set_user_data(struct glcuda_image *img, void *user_data);

/** The image's user data (glcuda_image_set_user_data()); NULL for a NULL
 *  image. @since 1.0 */
void *glcuda_image_get_user_data(const struct glcuda_image *img);

/* ---------------------------------------------------------------------- */
/* Row order, and captures from the caller's framebuffers                  */

/**
 * Which row comes first. GL's window coordinates start at the bottom: row
 * 0 of an image, of what a renderer drew and of what glReadPixels returns
 * is the bottom row of the picture. Image files, image libraries and
 * networks trained on photographs start at the top.
 *
 * Every copy between an image and linear memory (glcuda_copy_linear(),
 * the DLPack export) and every capture (glcuda_capture_framebuffers())
 * takes one; the flip is part of that copy, never a second pass.
 * glcuda_image_copy_to_linear() and _from_linear() and the 1.1 DLPack
 * calls copy in GL's order (GLCUDA_ORIGIN_BOTTOM_LEFT).
 * @since 1.2
 */
enum glcuda_origin {
	/** GL's order: row 0 of linear memory is row 0 of the image, the
	 *  bottom row of what GL drew (window y = 0). The default in C. */
	GLCUDA_ORIGIN_BOTTOM_LEFT = 0,
	/** Row 0 of linear memory is the image's last row, the top of the
	 *  picture, as images and networks expect. */
	GLCUDA_ORIGIN_TOP_LEFT = 1,
};

/** What a capture copies (struct glcuda_capture.flags). @since 1.2 */
enum glcuda_capture_flags {
	/** The framebuffer's read buffer (glReadBuffer(), as glReadPixels
	 *  reads it) into the image's colour plane: plane 0 of an image of a
	 *  colour format. */
	GLCUDA_CAPTURE_COLOR = 1 << 0,
	/** The framebuffer's depth attachment into the image's depth plane:
	 *  plane 1 of an image made with desc.depth_format, or plane 0 of a
	 *  GLCUDA_FORMAT_DEPTH32F image. The values are those glReadPixels(
	 *  GL_DEPTH_COMPONENT, GL_FLOAT) reads: window depth in [0, 1]. */
	GLCUDA_CAPTURE_DEPTH = 1 << 1,
};

/**
 * One capture of a glcuda_capture_framebuffers() batch: a rectangle of a
 * framebuffer the caller owns into one layer of an image. This struct has
 * no size member and never grows: it is an element of the caller's array.
 * @since 1.2
 */
struct glcuda_capture {
	/** The caller's framebuffer object, in the current context; 0 is the
	 *  default framebuffer (a window's, or a pbuffer's). Single-sampled
	 *  or multisampled; colour in textures or renderbuffers of
	 *  GL_RGBA8, GL_RGB8 or GL_SRGB8_ALPHA8 (copied as stored, without
	 *  sRGB decoding, as glReadPixels reads them), depth of
	 *  GL_DEPTH_COMPONENT16, _24, _32F, GL_DEPTH24_STENCIL8 or
	 *  GL_DEPTH32F_STENCIL8 (MuJoCo 3's). A
	 *  multisampled source is resolved as glBlitFramebuffer resolves it
	 *  (colour: the samples' average; depth: one sample). */
	unsigned int framebuffer;
	/** The lower left corner of the rectangle, in the framebuffer's
	 *  window coordinates (as glReadPixels takes it). The rectangle is the
	 *  image's width and height and must lie inside the framebuffer. */
	int x;
	/** The lower left corner's row (see x). */
	int y;
	/** The image, of the call's device, owned by GL: a shared image
	 *  (glcuda_image_new()). */
	struct glcuda_image *image;
	/** The layer of the image to write. */
	unsigned int layer;
	/** enum glcuda_capture_flags: colour, depth, or both. */
	unsigned int flags;
};

/**
 * A batch for glcuda_capture_framebuffers(). The caller allocates it and
 * sets size (glcuda_capture_desc_init()): see "Structs the caller
 * allocates" at the top.
 * @since 1.2
 */
struct glcuda_capture_desc {
	/** sizeof(struct glcuda_capture_desc), as the caller was compiled
	 *  with. */
	size_t size;
	/** The captures (read during the call only). */
	const struct glcuda_capture *captures;
	/** How many. */
	unsigned int count;
	/** GLCUDA_ORIGIN_BOTTOM_LEFT (0): the image holds the rectangle in
	 *  GL's order, its row 0 the rectangle's bottom row, and a copy in GL's
	 *  order gives what glReadPixels would. GLCUDA_ORIGIN_TOP_LEFT: the
	 *  rows are flipped on the way, the image's row 0 is the rectangle's
	 *  top row, and a copy in GL's order gives a picture top row first (do
	 *  not flip it a second time). */
	enum glcuda_origin origin;
};

/**
 * Zero @p desc and set its size (inline).
 * @since 1.2
 */
static inline void
glcuda_capture_desc_init(struct glcuda_capture_desc *desc)
{
	memset(desc, 0, sizeof(*desc));
	desc->size = sizeof(*desc);
}

/**
 * Copy rectangles of framebuffers the caller owns (a renderer's: MuJoCo's,
 * moderngl's, a game engine's) into layers of glcuda images, on the GPU:
 * the GL commands are enqueued, nothing waits on the CPU. Hand the images
 * to CUDA afterwards (glcuda_copy_linear(), the DLPack export, or
 * glcuda_handoff_to_cuda()): the hand-off orders CUDA after these
 * commands, so many captures (one per camera) go to CUDA in one hand-off.
 *
 * Colour is copied with glBlitFramebuffer (a multisampled source resolved
 * first into a single-sampled buffer of its own format, which glcuda keeps
 * for the next capture of that size and format). Depth cannot be blitted
 * between formats: it is resolved or copied into a depth texture of the
 * source's format and written into the image's depth plane by a GL pass,
 * with the values glReadPixels reads. The pixels are those the renderer's
 * own readback (glReadPixels) would return: byte for byte for colour,
 * value for value for depth.
 *
 * GL: the device's context, the renderer's, must be current; it is not
 * changed, and the GL state the call touches (framebuffer bindings, the
 * read and draw buffers of glcuda's framebuffers, scissor, sRGB, the
 * pass's program, vertex array, viewport, depth and colour state, texture
 * unit 0) is restored. Errors are checked before anything is enqueued:
 * an error enqueues nothing.
 * @param desc the batch, size set (glcuda_capture_desc_init())
 * @return 0; -EINVAL (NULL, desc->size not a version of the struct, no
 *   capture, a NULL image, a wrapped image, a layer out of range, no or
 *   unknown flags, a rectangle not inside the framebuffer, colour asked
 *   of an image without a colour plane or depth of one without a depth
 *   plane: the message names the capture), GLCUDA_ERROR_WRONG_DEVICE,
 *   GLCUDA_ERROR_BAD_STATE (an image not owned by GL),
 *   GLCUDA_ERROR_UNSUPPORTED_FORMAT (a source attachment of a format not
 *   listed above, or a framebuffer without the attachment asked for),
 *   GLCUDA_ERROR_NO_CURRENT_CONTEXT, GLCUDA_ERROR_GL (an incomplete
 *   framebuffer: the message has its status; or a GL error, named).
 * @since 1.2
 */
int glcuda_capture_framebuffers(struct glcuda_device *dev,
				const struct glcuda_capture_desc *desc);

/* ---------------------------------------------------------------------- */
/* Wrapped textures and EGLImages                                           */

/** What an image is made of. @since 0.2 */
enum glcuda_image_kind {
	/** glcuda_image_new(): memory glcuda allocated and shares. */
	GLCUDA_IMAGE_KIND_SHARED = 0,
	/** glcuda_image_wrap_gl_texture(): the caller's GL texture. */
	GLCUDA_IMAGE_KIND_GL_TEXTURE = 1,
	/** glcuda_image_wrap_egl_image(): the caller's EGLImage. */
	GLCUDA_IMAGE_KIND_EGL_IMAGE = 2,
};

/** Flags for the wrap calls, besides GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE and
 *  GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER. @since 0.2 */
enum glcuda_wrap_flags {
	/** CUDA only reads the image: no surface object is made, only the
	 *  texture object. The driver may skip write-backs. */
	GLCUDA_WRAP_FLAG_READ_ONLY = 1 << 8,
	/** CUDA overwrites the whole image and never reads what GL left in
	 *  it: the driver may skip preserving the contents. */
	GLCUDA_WRAP_FLAG_WRITE_DISCARD = 1 << 9,
};

/**
 * Hand an existing GL texture to CUDA through glcuda: registers it with
 * CUDA (cuGraphicsGLRegisterImage) and returns an image with the same CUDA
 * accessors and hand-off calls as a shared image. Neither copy nor CPU wait:
 * glcuda_handoff_to_cuda() maps the texture on the stream and
 * glcuda_handoff_to_gl() unmaps it, and the driver orders GL and CUDA work
 * on the GPU (measured: neither call waits for a busy GPU; see
 * doc/which-path.md).
 *
 * The image does not own the texture: glcuda_image_destroy() unregisters
 * it only, and the caller must destroy the image before deleting the
 * texture. While the image is handed to CUDA, GL must not use the texture.
 * CUDA's array and the surface/texture objects are valid while the image is
 * handed to CUDA; read them after each glcuda_handoff_to_cuda() (glcuda
 * makes new ones in the unlikely case the driver moves the texture).
 *
 * The texture needs storage (glTexStorage2D or glTexImage2D) and an
 * internal format CUDA registers (doc/which-path.md has the table; e.g.
 * not GL_RGB10_A2, GL_RGB565 or depth formats). glcuda_image_get_format()
 * names the format where glcuda has a name for it and returns
 * GLCUDA_FORMAT_INVALID otherwise (glcuda_image_get_cuda_plane() still
 * describes the layout).
 *
 * GL: the device's context must be current; @p texture must be a texture
 * of that context (or of one sharing objects with it).
 * @param texture a GL texture name
 * @param target GL_TEXTURE_2D, or GL_TEXTURE_RECTANGLE on desktop GL
 * @param flags GLCUDA_WRAP_FLAG_* and GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE,
 *   GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER
 * @return 0, -EINVAL (NULL, texture 0, unknown flags or target, a name that
 *   is not a texture of the current context, a texture of another target
 *   or without storage), -ENOMEM, GLCUDA_ERROR_NO_CURRENT_CONTEXT,
 *   GLCUDA_ERROR_NO_CUDA_DRIVER (a device made without CUDA),
 *   GLCUDA_ERROR_CUDA (the message names the CUDA call and its code, e.g.
 *   CUDA_ERROR_INVALID_VALUE for a format CUDA cannot register),
 *   GLCUDA_ERROR_GL, GLCUDA_ERROR_DEVICE_LOST.
 * @since 0.2
 */
int glcuda_image_wrap_gl_texture(struct glcuda_device *dev,
				 unsigned int texture, unsigned int target,
				 uint32_t flags, struct glcuda_image **out);

/**
 * Hand an existing EGLImage to CUDA through glcuda: registers it with CUDA
 * (cuGraphicsEGLRegisterImage) and returns an image with the CUDA accessors
 * and hand-off calls of a shared image. CUDA accesses the EGLImage's memory
 * directly (no map: the desktop driver refuses to map EGL resources, and
 * needs none), so glcuda orders the two APIs itself with the device's
 * semaphores, as for shared images: no copy, and no CPU wait except in the
 * cpu sync mode.
 *
 * Planar EGLImages (NV12, P010 from dma-bufs) have one CUDA plane per
 * image plane: glcuda_image_get_plane_count() and
 * glcuda_image_get_cuda_plane(). glcuda_image_get_gl_texture() is 0: the
 * EGLImage may back any number of GL textures, or none.
 *
 * The image does not own the EGLImage: destroy the image before
 * eglDestroyImage(). While the image is handed to CUDA, GL must not use
 * textures made from the EGLImage.
 *
 * GL: the device's context must be current.
 * @param image an EGLImage of the device's display
 * @param flags as for glcuda_image_wrap_gl_texture()
 * @return as glcuda_image_wrap_gl_texture(); -EINVAL for EGL_NO_IMAGE;
 *   GLCUDA_ERROR_CUDA with CUDA_ERROR_INVALID_VALUE or
 *   CUDA_ERROR_NOT_SUPPORTED for formats CUDA cannot register;
 *   GLCUDA_ERROR_UNSUPPORTED_FORMAT for more than 3 planes.
 * @since 0.2
 */
int glcuda_image_wrap_egl_image(struct glcuda_device *dev,
				void *image /* EGLImage */, uint32_t flags,
				struct glcuda_image **out);

/** What the image is made of; GLCUDA_IMAGE_KIND_SHARED for NULL.
 *  @since 0.3 (0.2: glcuda_image_kind) */
enum glcuda_image_kind glcuda_image_get_kind(const struct glcuda_image *img);

/** Planes of the image: 1, or 2-3 for planar EGLImages; 0 for NULL.
 *  @since 0.3 (0.2: glcuda_image_plane_count) */
unsigned int glcuda_image_get_plane_count(const struct glcuda_image *img);

/** Whether the device makes images of @p kind (see
 *  caps.image_kinds_supported): 1 or 0; 0 for NULL and unknown kinds.
 *  @since 1.0 */
int glcuda_device_has_image_kind(const struct glcuda_device *dev,
				 enum glcuda_image_kind kind);

/** Whether hand-offs of images of @p kind wait on the CPU in the device's
 *  sync mode (see caps.image_kinds_cpu_wait): 1 or 0; 0 for NULL and
 *  unknown kinds. @since 1.0 */
int glcuda_device_image_kind_waits_on_cpu(const struct glcuda_device *dev,
					  enum glcuda_image_kind kind);

/* ---------------------------------------------------------------------- */
/* Frame ring                                                               */

struct glcuda_ring;
struct glcuda_frame;

/** Flags for struct glcuda_ring_desc. @since 0.1 */
enum glcuda_ring_flags {
	GLCUDA_RING_FLAG_NONE = 0,
	/** One image per slot, processed in place: the output is the input. */
	GLCUDA_RING_FLAG_IN_PLACE = 1 << 0,
	/** Measure per-frame GPU timings (GL timer queries, CUDA events). */
	GLCUDA_RING_FLAG_TIMINGS = 1 << 1,
};

/** The most slots a ring has (struct glcuda_ring_desc.slots). @since 1.0 */
#define GLCUDA_RING_MAX_SLOTS 4

/**
 * Description of a ring: initialise with glcuda_ring_desc_init() (or zero
 * it and set size), then fill width, height and input_format at least. The
 * caller owns the struct; glcuda_ring_new() copies it.
 * @since 0.1; the size member since 0.3
 */
struct glcuda_ring_desc {
	/** sizeof(struct glcuda_ring_desc), as the caller was compiled with:
	 *  see "Structs the caller allocates" at the top. @since 0.3 */
	size_t size;
	/** Width of the ring's images, in pixels. */
	uint32_t width;
	/** Height of the ring's images, in pixels. */
	uint32_t height;
	/** Number of slots, 2..GLCUDA_RING_MAX_SLOTS (0: 3). */
	uint32_t slots;
	/** Format of the input images (what GL renders into). */
	enum glcuda_format input_format;
	/** Output format (ignored with GLCUDA_RING_FLAG_IN_PLACE;
	 *  GLCUDA_FORMAT_INVALID: same as input). */
	enum glcuda_format output_format;
	/** enum glcuda_ring_flags */
	uint32_t flags;
	/** A CUstream every slot uses instead of its own (NULL: one stream
	 *  per slot, created by the ring). */
	void *cuda_stream;
};

/**
 * Zero @p desc and set its size. Inline, so that the size is the one the
 * caller was compiled with.
 * @since 0.3
 */
static inline void
glcuda_ring_desc_init(struct glcuda_ring_desc *desc)
{
	memset(desc, 0, sizeof(*desc));
	desc->size = sizeof(*desc);
}

/**
 * Create a ring of frames for GL → CUDA → GL processing: desc->slots
 * slots, each with an input image (and an output image unless
 * GLCUDA_RING_FLAG_IN_PLACE), a framebuffer and a CUDA stream.
 *
 * Each switch of the GPU between GL's work and CUDA's costs time of its
 * own (on an H200, about 170 µs each way, whatever the sync mode). A
 * program that wants throughput more than latency pays it once for
 * several frames by calling the frame functions in batch order: acquire
 * and render every frame of the batch, then glcuda_frame_submit() each and
 * launch its kernel, then glcuda_frame_complete() each, then
 * glcuda_frame_wait_gl() each, and only then composite them
 * (doc/performance.md).
 *
 * GL: the device's context must be current.
 * @param desc read during the call only
 * @param[out] out the new ring, owned by the caller (glcuda_ring_destroy())
 * @return 0, -EINVAL (NULL argument, desc->size not set or unknown, bad
 *   slots, formats or flags), -ENOMEM, GLCUDA_ERROR_NO_CUDA_DRIVER (a device
 *   without CUDA), GLCUDA_ERROR_MISSING_GL_EXTENSION (timings without GL
 *   timer queries), and the errors of glcuda_image_new().
 * @since 0.1
 */
int glcuda_ring_new(struct glcuda_device *dev,
		    const struct glcuda_ring_desc *desc,
		    struct glcuda_ring **out);

/**
 * Destroy a ring, with frames in flight or not. GL: context current.
 * NULL is a no-op.
 *
 * It waits for the ring's CUDA work to finish, except after
 * GLCUDA_ERROR_DEVICE_LOST. Work that has not finished when it returns
 * (the wait failed, or was skipped) is safe: the ring's completion
 * callbacks only touch a small block that glcuda frees, with the ready fd,
 * once they have run or their CUDA context is gone (at the next ring call
 * on the device or at glcuda_device_destroy()). Until then the ready fd
 * stays open: remove it from your event loop before destroying the ring.
 * @since 0.1
 */
void glcuda_ring_destroy(struct glcuda_ring *ring);

/**
 * Take the next free slot, in order. Never blocks.
 * If the slot's previous frame is still waiting for GL, GL's wait on it is
 * enqueued now (on the GPU).
 * GL: context current.
 * @return 0, or -EAGAIN when every slot is in flight (acquired, submitted,
 *   completed or presented but not released), -EINVAL,
 *   GLCUDA_ERROR_NO_CURRENT_CONTEXT, GLCUDA_ERROR_DEVICE_LOST (also when
 *   every slot is in flight: their frames will never complete).
 * @since 0.1
 */
int glcuda_ring_acquire(struct glcuda_ring *ring, struct glcuda_frame **out);

/**
 * A pollable file descriptor (an eventfd) that becomes readable when a
 * frame's CUDA stage has finished on the GPU. Add it to an epoll or
 * wl_event_loop; call glcuda_ring_dispatch() when it fires. Owned by the
 * ring.
 * @since 0.1
 */
int glcuda_ring_get_fd(const struct glcuda_ring *ring);

/**
 * Drain the ready fd and update which frames are ready. Never blocks.
 *
 * Only frames that glcuda_ring_take_newest() can still return are counted,
 * so a caller that latches when the count is above 0 gets a frame from
 * glcuda_ring_take_newest(). A frame older than
 * the last frame taken is not counted (it is never returned, see
 * glcuda_ring_take_newest()), although its completion also makes the fd
 * readable: the next glcuda_ring_take_newest() frees its slot and counts it
 * in glcuda_ring_get_dropped(). Nothing here needs the GL context.
 * @return the number of frames whose CUDA stage is done, that were not
 *   yet taken and that are newer than the last frame taken (>= 0), or a
 *   negative error (-EINVAL, GLCUDA_ERROR_DEVICE_LOST).
 * @since 0.1; frames older than the last frame taken are not counted
 *   since 0.3
 */
int glcuda_ring_dispatch(struct glcuda_ring *ring);

/**
 * Take the newest frame whose CUDA stage is done. Older ready frames that
 * were never taken are dropped: they become free for reuse without being
 * presented (their GL waits are still enqueued so that the semaphores stay
 * balanced). Enqueues GL's GPU-side wait for the frame taken, so GL
 * commands issued afterwards see CUDA's output. The frame is then
 * "presented" until glcuda_frame_release(). Never blocks.
 *
 * Frames are taken in order: the numbers of the frames returned (and of
 * those presented with glcuda_frame_wait_gl()) only increase. CUDA work
 * of different lengths finishes out of order, so a frame can become ready
 * after a newer one was taken; such a frame is never returned. It is
 * dropped like the others, by the first call after it became ready (also
 * one that returns -EAGAIN, so that its slot comes back), and
 * glcuda_ring_get_dropped() counts it. Every frame completed is thus
 * either taken, presented with glcuda_frame_wait_gl(), released by the
 * caller with glcuda_frame_release(), or dropped.
 * GL: context current.
 * @param[out] out the frame, owned by the ring; untouched unless 0 is
 *   returned
 * @return 0; -EAGAIN when no frame is ready (not a failure: nothing is
 *   recorded as the last error; wait for the ready fd); or -EINVAL (NULL
 *   argument), GLCUDA_ERROR_NO_CURRENT_CONTEXT, GLCUDA_ERROR_DEVICE_LOST,
 *   GLCUDA_ERROR_GL (GL's wait failed), GLCUDA_ERROR_CUDA (the cpu sync
 *   mode's wait failed): glcuda_device_get_last_error() says more.
 * @since 0.1; returns an error code and the frame in @p out since 0.3
 *   (it returned the frame, or NULL for both "none ready" and failures)
 */
int glcuda_ring_take_newest(struct glcuda_ring *ring,
			    struct glcuda_frame **out);

/** Number of frames dropped by glcuda_ring_take_newest() since the ring
 *  was made: ready frames older than the one it returned, and frames that
 *  became ready after a newer frame was taken or presented (never
 *  returned). Frames the caller released with glcuda_frame_release()
 *  without presenting them are not counted.
 *  @since 0.3 (0.1 to 0.2: glcuda_ring_dropped) */
uint64_t glcuda_ring_get_dropped(const struct glcuda_ring *ring);

/**
 * Hand the frame's input image to CUDA: GL signals and flushes, the frame's
 * stream waits on the GPU. Call after rendering into the input.
 * GL: context current.
 * @return 0, GLCUDA_ERROR_BAD_STATE if the frame is not acquired, or a
 *   driver error. Once the device is lost, GLCUDA_ERROR_DEVICE_LOST
 *   whatever the frame's state (so for the frame calls below too).
 * @since 0.1
 */
int glcuda_frame_submit(struct glcuda_frame *frame);

/**
 * Mark the frame's CUDA work as enqueued: CUDA signals the hand-off back to
 * GL on the frame's stream and the ready fd will fire when the work is done.
 * Nothing waits. GL's wait is enqueued by glcuda_ring_take_newest() or
 * glcuda_frame_wait_gl().
 * @return 0, GLCUDA_ERROR_BAD_STATE if the frame was not submitted.
 * @since 0.1
 */
int glcuda_frame_complete(struct glcuda_frame *frame);

/**
 * Enqueue GL's GPU-side wait for this frame's CUDA work now, and mark the
 * frame presented (the explicit alternative to glcuda_ring_take_newest()).
 * It counts as taken: glcuda_ring_take_newest() never returns a frame
 * older than it afterwards.
 * GL: context current.
 * @return 0, GLCUDA_ERROR_BAD_STATE if the frame was not completed.
 * @since 0.1
 */
int glcuda_frame_wait_gl(struct glcuda_frame *frame);

/**
 * Return the frame's slot to the ring. GL may still be reading the output:
 * the slot's next submit is ordered after it on the GPU. A completed frame
 * that GL never waited for has its wait enqueued.
 * GL: context current.
 * @return 0, GLCUDA_ERROR_BAD_STATE if the frame was not completed.
 * @since 0.1
 */
int glcuda_frame_release(struct glcuda_frame *frame);

/** Frame number of the frame's current use: 0, 1, 2, ... in the order
 *  of glcuda_ring_acquire() on the ring.
 *  @since 0.3 (0.1 to 0.2: glcuda_frame_number) */
uint64_t glcuda_frame_get_number(const struct glcuda_frame *frame);
/** The frame's slot index, 0..slots-1: a frame is its slot, used again
 *  after glcuda_frame_release(). @since 0.3 (0.1 to 0.2:
 *  glcuda_frame_get_slot) */
uint32_t glcuda_frame_get_slot(const struct glcuda_frame *frame);
/** The image GL renders into. Owned by the ring, which hands it off with
 *  the frame (glcuda_handoff_to_cuda/_to_gl refuse ring images with
 *  GLCUDA_ERROR_BAD_STATE). @since 0.3 (0.1 to 0.2: glcuda_frame_input) */
struct glcuda_image *glcuda_frame_get_input(const struct glcuda_frame *frame);
/** The image CUDA writes and GL presents (the input for in-place
 *  rings). Owned by the ring, like the input. @since 0.3 (0.1 to 0.2:
 *  glcuda_frame_get_output) */
struct glcuda_image *glcuda_frame_get_output(const struct glcuda_frame *frame);
/** A framebuffer object with the input texture as GL_COLOR_ATTACHMENT0,
 *  made in the device's context and owned by the ring: bind it there to
 *  render the frame while it is acquired.
 *  @since 0.3 (0.1 to 0.2: glcuda_frame_input_fbo) */
unsigned int glcuda_frame_get_input_fbo(const struct glcuda_frame *frame);
/** The output image's GL texture name (GL_TEXTURE_2D), owned by the
 *  ring: sample it in the device's context (or one sharing objects with
 *  it) while the frame is presented. @since 0.3 (0.1 to 0.2:
 *  glcuda_frame_get_output_texture) */
unsigned int glcuda_frame_get_output_texture(const struct glcuda_frame *frame);

/**
 * Attach a pointer of the caller's to the ring (NULL when the ring is
 * made), e.g. the output or surface it serves, to find it again from the
 * ring in an event handler. glcuda never reads or frees it. Touches
 * neither GL nor CUDA. NULL @p ring is a no-op.
 * @since 0.3
 */
void glcuda_ring_set_user_data(struct glcuda_ring *ring, void *user_data);

/** The ring's user data (glcuda_ring_set_user_data()); NULL for a NULL
 *  ring. @since 0.3 */
void *glcuda_ring_get_user_data(const struct glcuda_ring *ring);

/**
 * Attach a pointer of the caller's to a frame (NULL when the ring is
 * made), e.g. the client buffer or the metadata of the picture in it. A
 * frame is its ring's slot and is used again after glcuda_frame_release():
 * the pointer stays with the frame across its uses until set again, and
 * goes with the ring. glcuda never reads or frees it. Touches neither GL
 * nor CUDA. NULL @p frame is a no-op.
 * @since 0.3
 */
void glcuda_frame_set_user_data(struct glcuda_frame *frame, void *user_data);

/** The frame's user data (glcuda_frame_set_user_data()); NULL for a NULL
 *  frame. @since 0.3 */
void *glcuda_frame_get_user_data(const struct glcuda_frame *frame);

/**
 * Per-frame GPU timings in nanoseconds. Stages:
 *  - gl_render: GL commands between acquire and submit (GL timer query);
 *  - handoff_to_cuda: from the end of GL's render to the start of the CUDA
 *    stage;
 *  - cuda: the caller's CUDA work between submit and complete (events);
 *  - handoff_to_gl: from the end of the CUDA stage to GL passing its wait;
 *  - total: from the start of GL's render to GL passing its wait.
 * The caller allocates it: initialise it with glcuda_frame_timings_init()
 * (or set size) before glcuda_ring_read_timings(), which fills the members
 * its size covers.
 * @since 0.1; the size member since 1.0
 */
struct glcuda_frame_timings {
	/** sizeof(struct glcuda_frame_timings), as the caller was compiled
	 *  with: see "Structs the caller allocates" at the top. @since 1.0 */
	size_t size;
	/** The frame these timings are of (glcuda_frame_get_number()). */
	uint64_t frame_number;
	/** gl_render stage. */
	uint64_t gl_render_ns;
	/** handoff_to_cuda stage. */
	uint64_t handoff_to_cuda_ns;
	/** cuda stage. */
	uint64_t cuda_ns;
	/** handoff_to_gl stage. */
	uint64_t handoff_to_gl_ns;
	/** total, first to last stage. */
	uint64_t total_ns;
};

/**
 * Zero @p timings and set its size. Inline, so that the size is the one
 * the caller was compiled with.
 * @since 1.0
 */
static inline void
glcuda_frame_timings_init(struct glcuda_frame_timings *timings)
{
	memset(timings, 0, sizeof(*timings));
	timings->size = sizeof(*timings);
}

/**
 * Read the timings of the oldest finished frame not yet read, without
 * stalling: results are available a frame or two after the frame was
 * presented. The ring needs GLCUDA_RING_FLAG_TIMINGS. It queries GL's
 * timer queries and CUDA's events (hence not a getter).
 * GL: context current.
 * @param[in,out] out its size set (glcuda_frame_timings_init()); the
 *   members the size covers are filled when 1 is returned
 * @return 1 and fills @p out, 0 if none is available yet (@p out
 *   untouched), or a negative error: -EINVAL (NULL argument, out->size not
 *   set or unknown, a ring without GLCUDA_RING_FLAG_TIMINGS),
 *   GLCUDA_ERROR_NO_CURRENT_CONTEXT, GLCUDA_ERROR_CUDA, GLCUDA_ERROR_GL,
 *   GLCUDA_ERROR_DEVICE_LOST.
 * @since 1.0 (0.1 to 0.3: glcuda_ring_get_timings, without the size)
 */
int glcuda_ring_read_timings(struct glcuda_ring *ring,
			     struct glcuda_frame_timings *out);

/* ---------------------------------------------------------------------- */
/* Headless helper                                                          */

struct glcuda_headless;

/** Flags for glcuda_headless_new(). @since 0.1 */
enum glcuda_headless_flags {
	GLCUDA_HEADLESS_FLAG_NONE = 0,
	/** Create an OpenGL ES 3.x context instead of GL 4.x core. */
	GLCUDA_HEADLESS_FLAG_GLES = 1 << 0,
	/** Request a debug context. */
	GLCUDA_HEADLESS_FLAG_DEBUG = 1 << 1,
	/** A desktop GL context of the compatibility profile (4.6 or 4.5,
	 *  else the newest the driver gives from 3.2 up) instead of the core
	 *  profile, for renderers written for it: MuJoCo 2.x's fixed-function
	 *  drawing, legacy scenes. Not with GLCUDA_HEADLESS_FLAG_GLES.
	 *  @since 1.2 */
	GLCUDA_HEADLESS_FLAG_COMPATIBILITY = 1 << 2,
};

/**
 * Open an EGL display without a window system and create a surfaceless
 * context on it, current on the calling thread (this replaces whatever was
 * current there; on failure the previous context is current again).
 *
 * The context is OpenGL 4.6 or 4.5 core profile, or with
 * GLCUDA_HEADLESS_FLAG_GLES OpenGL ES 3.2, 3.1 or 3.0 (the newest the driver
 * gives), made with EGL_KHR_no_config_context and current without a surface
 * (EGL_KHR_surfaceless_context). The EGL API bound on the thread is left set
 * to the context's.
 *
 * With @p cuda_ordinal >= 0, the EGL device whose CUDA device is that
 * ordinal is used: the device that says so through EGL_NV_device_cuda, or,
 * for EGL devices without that extension, the one whose GL context reports
 * the CUDA device's UUID as GL_DEVICE_UUID_EXT (this loads libcuda.so.1 for
 * the duration of the call).
 * With -1: the EGL display of some CUDA device that CUDA can see (CUDA
 * devices are those CUDA_VISIBLE_DEVICES leaves; EGL lists every GPU
 * whatever it says, so the first EGL device may be one CUDA cannot use):
 *  1. the first EGL device that names a CUDA device through
 *     EGL_NV_device_cuda (the NVIDIA driver's ordinal follows
 *     CUDA_VISIBLE_DEVICES and names none for a hidden GPU);
 *  2. else the first EGL device without that extension, then Mesa's
 *     surfaceless platform, whose GL context reports a CUDA device's UUID
 *     as GL_DEVICE_UUID_EXT (this loads libcuda.so.1, or $GLCUDA_LIBCUDA,
 *     for the duration of the call);
 *  3. only when there is no CUDA driver, CUDA sees no device, or no
 *     display is any CUDA device's: the first EGL device on which the
 *     context can be made, then Mesa's surfaceless platform. A context
 *     there is a GL context without interop: glcuda_device_new() on it
 *     fails with GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE (or
 *     GLCUDA_ERROR_NO_CUDA_DRIVER), which names the GL and CUDA devices.
 *     When CUDA has devices, glcuda_headless_get_description() marks such
 *     a display "[none of the N CUDA devices: no interop]", and
 *     GLCUDA_LOG=info logs why. It is not an error here because GL alone
 *     (a renderer, a diagnosis, a GL-only baseline) still works on it.
 * glcuda_headless_get_description() says which step picked the display:
 * "EGL device 1 (EGL_NV_device_cuda, CUDA 0, ...)", "EGL device 0 (UUID of
 * CUDA 0)".
 *
 * The display is initialised if it was not, and terminated by
 * glcuda_headless_destroy() only if this helper initialised it. EGL displays
 * are per-process singletons: do not keep using the same display after the
 * headless object is destroyed unless you initialised it yourself first.
 *
 * @param cuda_ordinal a CUDA device ordinal, or -1 for the display of a
 *   CUDA device CUDA can see (see above)
 * @param flags enum glcuda_headless_flags
 * @param[out] out the new helper, owned by the caller
 * @return 0, or
 *   -EINVAL (NULL @p out, @p cuda_ordinal < -1, unknown flags,
 *     GLCUDA_HEADLESS_FLAG_COMPATIBILITY with GLCUDA_HEADLESS_FLAG_GLES),
 *   -ENOMEM;
 *   GLCUDA_ERROR_NO_CUDA_DRIVER: @p cuda_ordinal >= 0, no EGL device
 *     identifies itself through EGL_NV_device_cuda, and libcuda.so.1 cannot
 *     be loaded to match by UUID (a machine without the NVIDIA driver);
 *   GLCUDA_ERROR_CUDA: libcuda.so.1 loaded but cuInit failed;
 *   GLCUDA_ERROR_NO_DISPLAY: no EGL device is that CUDA device (or, with
 *     -1, no display at all could make the context); the message lists
 *     every device and platform tried and why each failed;
 *   GLCUDA_ERROR_MISSING_EGL_EXTENSION: the EGL library lacks
 *     EGL_EXT_platform_base, or (@p cuda_ordinal >= 0) EGL device
 *     enumeration, or the matching device's display lacks
 *     EGL_KHR_surfaceless_context;
 *   GLCUDA_ERROR_EGL, GLCUDA_ERROR_GL_TOO_OLD: the matching CUDA device's
 *     display could not make the context.
 *   glcuda_get_last_error() says more.
 * @since 0.1
 */
int glcuda_headless_new(int cuda_ordinal, uint32_t flags,
			struct glcuda_headless **out);

/** Release the context (if current on this thread) and display. NULL is a
 *  no-op. @since 0.1 */
void glcuda_headless_destroy(struct glcuda_headless *hl);

/** The helper's EGLDisplay (as void *, see "EGL types" at the top),
 *  owned by the helper. @since 0.3 (0.1 to 0.2: glcuda_headless_display) */
void *glcuda_headless_get_display(const struct glcuda_headless *hl);
/** The helper's EGLContext (as void *), owned by the helper.
 *  @since 0.3 (0.1 to 0.2: glcuda_headless_context) */
void *glcuda_headless_get_context(const struct glcuda_headless *hl);
/** Make the headless context current on the calling thread, without a
 *  surface (it replaces what was current there).
 *  @return 0, -EINVAL (NULL), GLCUDA_ERROR_EGL (eglMakeCurrent failed:
 *    the message has the EGL error, e.g. the context is current on
 *    another thread). @since 0.1 */
int glcuda_headless_make_current(const struct glcuda_headless *hl);
/** A description of the EGL device or platform used, owned by the
 *  helper; "" for NULL. @since 0.3 (0.1 to 0.2:
 *  glcuda_headless_get_description) */
const char *glcuda_headless_get_description(const struct glcuda_headless *hl);

/** How a headless helper's display relates to CUDA's devices. @since 1.1 */
enum glcuda_headless_cuda_match {
	/** Not known: there is no CUDA driver, or CUDA sees no device, so
	 *  the first display that works was taken (step 3 of
	 *  glcuda_headless_new() without CUDA devices). */
	GLCUDA_HEADLESS_CUDA_UNKNOWN = 0,
	/** The display is a CUDA device's, found through EGL_NV_device_cuda
	 *  or by UUID: glcuda_device_new() can share memory on it. */
	GLCUDA_HEADLESS_CUDA_MATCHED = 1,
	/** CUDA has devices and the display is none of them (step 3): GL
	 *  works, interop does not (the description then ends
	 *  "[none of the N CUDA devices: no interop]"). */
	GLCUDA_HEADLESS_CUDA_NONE = 2,
};

/** How the helper's display relates to CUDA's devices: what a program
 *  that wants interop, not only GL, checks before it relies on the
 *  display. GLCUDA_HEADLESS_CUDA_UNKNOWN for NULL. @since 1.1 */
enum glcuda_headless_cuda_match
glcuda_headless_get_cuda_match(const struct glcuda_headless *hl);

#ifdef __cplusplus
}
#endif

#endif /* GLCUDA_H */
