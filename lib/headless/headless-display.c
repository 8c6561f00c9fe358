/*
 * The headless helper's EGL displays: their process-wide references.
 * SPDX-License-Identifier: MIT
 *
 * EGL displays are per-platform singletons: eglGetPlatformDisplayEXT hands
 * every caller in the process the same EGLDisplay for the same device, and
 * eglTerminate on it ends it for all of them. So this file only terminates a
 * display that was not initialised before it first opened it, and counts its
 * own users of each display (two headless objects on one device share the
 * display; the last one out terminates it). A caller that initialises the
 * same display on its own while a headless object holds it, and keeps using
 * it after glcuda_headless_destroy(), must eglInitialize it again: EGL gives
 * no way to see that from here (EGL_KHR_display_reference would, where the
 * caller opts in to it).
 */
#include "headless/headless.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>

struct display_ref {
	EGLDisplay display;
	unsigned int refs;
	/* The display was not initialised when we first opened it: the last
	 * of our users terminates it. */
	bool owned;
};

static pthread_mutex_t display_lock = PTHREAD_MUTEX_INITIALIZER;
static struct display_ref display_refs[MAX_EGL_DEVICES + 4];

static bool
display_is_initialized(EGLDisplay dpy)
{
	/* eglQueryString fails with EGL_NOT_INITIALIZED on a display that is
	 * not initialised, and needs nothing else. */
	const char *vendor = eglQueryString(dpy, EGL_VENDOR);

	if (!vendor) {
		(void)eglGetError();
		return false;
	}
	return true;
}

/* Initialise dpy (if needed) and take a reference. Returns 0, or
 * GLCUDA_ERROR_EGL with the reason in why. */
int
headless_display_acquire(EGLDisplay dpy, char *why, size_t whysize)
{
	struct display_ref *slot = NULL;
	EGLint major, minor;
	bool was_initialized;
	EGLBoolean ok;

	pthread_mutex_lock(&display_lock);
	for (size_t i = 0; i < ARRAY_LENGTH(display_refs); i++) {
		if (display_refs[i].refs && display_refs[i].display == dpy) {
			display_refs[i].refs++;
			pthread_mutex_unlock(&display_lock);
			return 0;
		}
		if (!slot && !display_refs[i].refs)
			slot = &display_refs[i];
	}
	if (!slot) {
		pthread_mutex_unlock(&display_lock);
		snprintf(why, whysize, "too many EGL displays open at once");
		return -ENOMEM;
	}
	was_initialized = display_is_initialized(dpy);
	driver_lifecycle_lock();
	ok = eglInitialize(dpy, &major, &minor);
	driver_lifecycle_unlock();
	if (!ok) {
		EGLint err = eglGetError();

		pthread_mutex_unlock(&display_lock);
		snprintf(why, whysize, "eglInitialize failed: %s (0x%04x)",
			 egl_error_name(err), (unsigned)err);
		return GLCUDA_ERROR_EGL;
	}
	slot->display = dpy;
	slot->refs = 1;
	slot->owned = !was_initialized;
	pthread_mutex_unlock(&display_lock);
	return 0;
}

void
headless_display_release(EGLDisplay dpy)
{
	pthread_mutex_lock(&display_lock);
	for (size_t i = 0; i < ARRAY_LENGTH(display_refs); i++) {
		struct display_ref *ref = &display_refs[i];

		if (!ref->refs || ref->display != dpy)
			continue;
		if (--ref->refs == 0) {
			if (ref->owned) {
				driver_lifecycle_lock();
				eglTerminate(dpy);
				driver_lifecycle_unlock();
			}
			ref->display = EGL_NO_DISPLAY;
		}
		break;
	}
	pthread_mutex_unlock(&display_lock);
}


