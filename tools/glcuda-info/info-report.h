/*
 * The glcuda-info report: what the EGL, GL, Vulkan and CUDA drivers of this
 * machine offer for interop, which devices match by UUID, and whether
 * glcuda_device_new() works (and with which sync mode) or exactly why not.
 * Shared by glcuda-info and glcuda-demo (which prints it on failure).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_INFO_REPORT_H
#define GLCUDA_INFO_REPORT_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Write the report to out: readable text, or with json one JSON object
 * whose "verdict" member is {"ok", "sync_mode", "error", "message",
 * "advice"}, and each of its "egl"."devices" a "verdict" {"ok",
 * "cuda_device", "sync_mode", "renderer", "stage", "error", "message"}
 * and "hidden_from_cuda". gles: the verdict uses a GLES context instead of GL
 * core (both are described either way). cuda_ordinal: the CUDA device whose EGL
 * device is used (glcuda_headless_new), -1 for that of a CUDA device CUDA can
 * see. Every EGL device gets a verdict of its own as well.
 *
 * Creates and destroys EGL contexts (whatever was current on the calling
 * thread is not current afterwards) and loads libcuda.so.1 if present.
 * Returns the exit code for a tool: 0 when interop works, 1 otherwise.
 */
int glcuda_info_report(FILE *out, bool json, bool gles, int cuda_ordinal);

#endif
