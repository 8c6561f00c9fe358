/*
 * The process-wide lock around the driver calls that create or destroy
 * EGL displays, EGL contexts and Vulkan devices (driver-lock.c says why).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_DRIVER_LOCK_H
#define GLCUDA_DRIVER_LOCK_H

void driver_lifecycle_lock(void);
void driver_lifecycle_unlock(void);

#endif
