/**
 * @file
 * glcuda — images as DLPack tensors, for PyTorch, CuPy, JAX and any other
 * consumer of DLPack (https://dmlc.github.io/dlpack/latest/).
 *
 * SPDX-License-Identifier: MIT
 *
 * A GL image is tiled memory that CUDA sees as an array, never as a plain
 * pointer, so an export is one copy on the GPU into linear device memory,
 * ordered on the consumer's stream: no CPU wait, in the timeline and
 * binary sync modes. The memory comes from a small pool of the image's, so
 * a loop that exports and drops one tensor per step allocates nothing
 * after its first steps.
 *
 * DLPack's types: this header declares the ones glcuda uses, with the
 * layout and names of DLPack 1.0's dlpack.h, unless dlpack.h was included
 * first (its include guard, DLPACK_DLPACK_H_, is also the guard here).
 * Include <dlpack/dlpack.h> before this header to use upstream's
 * declarations; including it after this header gives the ones below.
 * <glcuda/glcuda.h> does not include this header.
 */
#ifndef GLCUDA_DLPACK_H
#define GLCUDA_DLPACK_H

#include <glcuda/glcuda-cuda.h>

#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

/* DLPack 1.0, the declarations glcuda uses. */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	uint32_t major;
	uint32_t minor;
} DLPackVersion;

#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
	kDLCPU = 1,
	kDLCUDA = 2,
	kDLCUDAHost = 3,
	kDLOpenCL = 4,
	kDLVulkan = 7,
	kDLMetal = 8,
	kDLVPI = 9,
	kDLROCM = 10,
	kDLROCMHost = 11,
	kDLExtDev = 12,
	kDLCUDAManaged = 13,
	kDLOneAPI = 14,
	kDLWebGPU = 15,
	kDLHexagon = 16,
	kDLMAIA = 17,
} DLDeviceType;

typedef struct {
	DLDeviceType device_type;
	int32_t device_id;
} DLDevice;

typedef enum {
	kDLInt = 0U,
	kDLUInt = 1U,
	kDLFloat = 2U,
	kDLOpaqueHandle = 3U,
	kDLBfloat = 4U,
	kDLComplex = 5U,
	kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
	uint8_t code;
	uint8_t bits;
	uint16_t lanes;
} DLDataType;

typedef struct {
	void *data;
	DLDevice device;
	int32_t ndim;
	DLDataType dtype;
	int64_t *shape;
	int64_t *strides;
	uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
	DLTensor dl_tensor;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

typedef struct DLManagedTensorVersioned {
	DLPackVersion version;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensorVersioned *self);
	uint64_t flags;
	DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}
#endif

#endif /* DLPACK_DLPACK_H_ */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Export a plane of an image as a DLPack 1.x tensor on the GPU.
 *
 * The tensor is a copy of the plane in linear device memory of the
 * device's CUDA context (device type kDLCUDA, the device's CUDA ordinal),
 * flagged DLPACK_FLAG_BITMASK_IS_COPIED; writing to it does not change the
 * image:
 *  - shape (layers, height, width, channels), or (height, width, channels)
 *    for an image of one layer; tight, C-contiguous strides, in elements;
 *  - dtype uint8 (RGBA8, SRGB8_A8, R8, RG8), uint16 (R16, RG16), float16
 *    (RGBA16F), float32 (RGBA32F, R32F, DEPTH32F), or uint32 with one
 *    channel (RGB10_A2, one packed word per pixel).
 *
 * DLPack's stream rule: the data is ready in the order of @p stream, the
 * consumer's, with no CPU wait. An image owned by GL is handed to CUDA on
 * @p stream, copied, and handed back to GL, all enqueued on @p stream (GL
 * waits for the copy on the GPU before it next writes the image); an image
 * already handed to CUDA is only copied, on @p stream, which must then be
 * ordered after the hand-off's stream. In the CPU sync mode the hand-offs
 * wait on the CPU, as they do everywhere in that mode.
 *
 * The tensor's deleter returns its memory to the image's pool; it may be
 * called from any thread, at any time, also after the image and the
 * device were destroyed (the memory is then freed). A block returned to
 * the pool is reused only by an export on the same stream, so a consumer's
 * work on the old tensor, enqueued on that stream before the deleter ran,
 * is ordered before the copy that overwrites it; the pool keeps a few
 * blocks per image and frees the rest.
 *
 * GL: the device's context must be current when the image is owned by GL
 * (for the hand-offs).
 * @param plane 0, or 1 for the depth buffer of an image with
 *   desc.depth_format; shared images only
 * @param stream the consumer's stream (0: the legacy default stream)
 * @param[out] out the tensor; call its deleter when done
 * @return 0, -EINVAL (NULL, plane out of range, a wrapped image),
 *   -ENOMEM, GLCUDA_ERROR_NO_CUDA_DRIVER, the errors of
 *   glcuda_handoff_to_cuda() and glcuda_image_copy_to_linear(), and
 *   GLCUDA_ERROR_CUDA when the memory cannot be allocated (the message has
 *   the CUDA code). On failure the image keeps its owner.
 * @since 1.1
 */
int glcuda_image_export_dlpack(struct glcuda_image *img, unsigned int plane,
			       CUstream stream, DLManagedTensorVersioned **out);

/**
 * As glcuda_image_export_dlpack(), for consumers of DLPack before 1.0
 * (the unversioned DLManagedTensor, which has no flags).
 * @since 1.1
 */
int glcuda_image_export_dlpack_unversioned(struct glcuda_image *img,
					   unsigned int plane, CUstream stream,
					   DLManagedTensor **out);

/**
 * The options of glcuda_image_export_dlpack_desc(). The caller allocates
 * it and sets size (glcuda_export_desc_init()).
 * @since 1.2
 */
struct glcuda_export_desc {
	/** sizeof(struct glcuda_export_desc), as the caller was compiled
	 *  with. */
	size_t size;
	/** 0, or 1 for the depth buffer of an image with desc.depth_format. */
	unsigned int plane;
	/** The consumer's stream (0: the legacy default stream). */
	CUstream stream;
	/** Row 0 of the tensor: GL's bottom row (GLCUDA_ORIGIN_BOTTOM_LEFT,
	 *  0) or the picture's top row (GLCUDA_ORIGIN_TOP_LEFT). */
	enum glcuda_origin origin;
	/** For a depth plane: depth as stored (zeroed) or the distance
	 *  (struct glcuda_depth_conversion); float32 either way. Refused
	 *  (-EINVAL) for other planes. */
	struct glcuda_depth_conversion depth;
};

/** Zero @p desc and set its size (inline). @since 1.2 */
static inline void
glcuda_export_desc_init(struct glcuda_export_desc *desc)
{
	memset(desc, 0, sizeof(*desc));
	desc->size = sizeof(*desc);
}

/**
 * glcuda_image_export_dlpack() with options: the plane, the stream, the
 * row order and depth to distance. The tensor's shape, dtype, stream rule
 * and deleter are those of glcuda_image_export_dlpack().
 * @return as glcuda_image_export_dlpack(); -EINVAL also for a NULL desc,
 *   a size that is no version of the struct, a bad origin, depth mode or
 *   planes, or a conversion asked of a plane that is not depth.
 * @since 1.2
 */
int glcuda_image_export_dlpack_desc(struct glcuda_image *img,
				    const struct glcuda_export_desc *desc,
				    DLManagedTensorVersioned **out);

/**
 * glcuda_image_export_dlpack_desc() for consumers of DLPack before 1.0.
 * @since 1.2
 */
int glcuda_image_export_dlpack_unversioned_desc(
	struct glcuda_image *img, const struct glcuda_export_desc *desc,
	DLManagedTensor **out);

#ifdef __cplusplus
}
#endif

#endif /* GLCUDA_DLPACK_H */
