/*
 * Copies between a plane of an image and linear device memory through the
 * plane's surface object: one thread a pixel, rows of 32 threads, so that
 * the linear side is read and written in whole 128-byte lines (the copy
 * engine reaches about half a plain device copy on these layouts).
 * copy_kernels_N, N the bytes per pixel; layered: the surface is a layered
 * array's. Launched by lib/cuda/copy-kernels.c.
 * SPDX-License-Identifier: MIT
 */
#include <cstddef>

template <typename T>
static __device__ void
copy_pixel(unsigned long long surface, char *linear, size_t row_pitch,
	   size_t layer_pitch, int width, int height, int first, int layered,
	   int to_linear)
{
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y = blockIdx.y * blockDim.y + threadIdx.y;
	const int l = blockIdx.z;
	T *p;
	T v;

	if (x >= width || y >= height)
		return;
	p = (T *)(linear + l * layer_pitch + y * row_pitch) + x;
	if (to_linear) {
		if (layered)
			surf2DLayeredread(&v, surface, x * (int)sizeof(T), y,
					  first + l);
		else
			surf2Dread(&v, surface, x * (int)sizeof(T), y);
		*p = v;
	} else {
		v = *p;
		if (layered)
			surf2DLayeredwrite(v, surface, x * (int)sizeof(T), y,
					   first + l);
		else
			surf2Dwrite(v, surface, x * (int)sizeof(T), y);
	}
}

#define COPY_KERNEL(bytes, type)                                            \
	extern "C" __global__ void copy_kernels_##bytes(                    \
		unsigned long long surface, char *linear, size_t row_pitch, \
		size_t layer_pitch, int width, int height, int first,       \
		int layered, int to_linear)                                 \
	{                                                                   \
		copy_pixel<type>(surface, linear, row_pitch, layer_pitch,   \
				 width, height, first, layered, to_linear); \
	}

COPY_KERNEL(1, unsigned char)
COPY_KERNEL(2, unsigned short)
COPY_KERNEL(4, unsigned int)
COPY_KERNEL(8, uint2)
COPY_KERNEL(16, uint4)
