/*
 * The mark of the functions libglcuda exports: the library is built with
 * hidden visibility, and lib/glcuda.sym names the versions.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_EXPORT_H
#define GLCUDA_EXPORT_H

#define GLCUDA_EXPORT __attribute__((visibility("default")))

#endif
