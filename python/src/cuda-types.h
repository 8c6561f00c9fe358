/*
 * The few CUDA driver API types that glcuda's CUDA and DLPack headers
 * name, declared here so that the module builds without the CUDA toolkit
 * (glcuda loads the driver at run time; the module makes no CUDA call of
 * its own). Defining GLCUDA_CUDA_TYPES_H tells <glcuda/glcuda-cuda.h>
 * not to include <cuda.h>. The layouts are the driver API's.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_PY_CUDA_TYPES_H
#define GLCUDA_PY_CUDA_TYPES_H
#define GLCUDA_CUDA_TYPES_H

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUarray_st *CUarray;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUsurfObject;
typedef unsigned long long CUtexObject;

#define CU_STREAM_PER_THREAD ((CUstream)0x2)

typedef enum CUarray_format_enum {
	CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
	CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
	CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
	CU_AD_FORMAT_SIGNED_INT8 = 0x08,
	CU_AD_FORMAT_SIGNED_INT16 = 0x09,
	CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
	CU_AD_FORMAT_HALF = 0x10,
	CU_AD_FORMAT_FLOAT = 0x20,
	CU_AD_FORMAT_MAX = 0x7FFFFFFF
} CUarray_format;

#endif
