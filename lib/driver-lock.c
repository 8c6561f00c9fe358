/*
 * One process-wide lock around the driver calls that create and destroy
 * GPU contexts: EGL displays and contexts (the headless helper) and Vulkan
 * devices (the exporter).
 * SPDX-License-Identifier: MIT
 *
 * NVIDIA's driver 580 was seen to deadlock when vkDestroyDevice ran on one
 * thread (glcuda_device_destroy) while eglDestroyContext ran on another
 * (glcuda_headless_destroy), with devices on two GPUs: both threads waited
 * inside the driver forever. These calls are rare (set-up and teardown,
 * never per frame), so glcuda simply never makes two of them at once.
 * Taken last: no other glcuda lock is taken while it is held.
 */
#include "config.h"

#include "driver-lock.h"

#include <pthread.h>

static pthread_mutex_t lifecycle_lock = PTHREAD_MUTEX_INITIALIZER;

void
driver_lifecycle_lock(void)
{
	pthread_mutex_lock(&lifecycle_lock);
}

void
driver_lifecycle_unlock(void)
{
	pthread_mutex_unlock(&lifecycle_lock);
}
