/*
 * Clocks of the tools, in nanoseconds.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_CLOCK_H
#define GLCUDA_TOOLS_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC: wall time that NTP does not step. */
uint64_t clock_now_ns(void);
/* CPU time of the calling thread. */
uint64_t clock_thread_cpu_ns(void);
/* User and system CPU time of the whole process (the drivers' threads
 * included, which the thread clock does not see). */
uint64_t clock_process_cpu_ns(void);

/* The same in seconds, for reports. */
double clock_now_s(void);
double clock_process_cpu_s(void);

#endif
