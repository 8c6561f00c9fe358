/*
 * Copies between a plane of an image and linear device memory through the
 * plane's surface object: one thread a pixel, rows of 32 threads, so that
 * the linear side is read and written in whole 128-byte lines (the copy
 * engine reaches about half a plain device copy on these layouts).
 * copy_kernels_N, N the bytes per pixel; layered: the surface is a layered
 * array's. flip: row y of linear memory is the image's row height - 1 - y
 * (GLCUDA_ORIGIN_TOP_LEFT). depth_mode: a float depth plane's values
 * become distances on the way into linear memory (enum glcuda_depth_mode:
 * 1 perspective, 2 orthographic), computed in double. Launched by
 * lib/cuda/copy-kernels.c.
 * SPDX-License-Identifier: MIT
 */
#include <cstddef>

/* Window depth d to the distance along the view axis. */
static __device__ unsigned int
depth_distance(unsigned int v, int mode, double znear, double zfar)
{
	const double d = (double)__uint_as_float(v);
	const double z = mode == 1 ? znear * zfar / (zfar - d * (zfar - znear))
				   : znear + d * (zfar - znear);

	return __float_as_uint((float)z);
}

template <typename T>
static __device__ T
convert(T v, int, double, double)
{
	return v;
}

template <>
__device__ unsigned int
convert<unsigned int>(unsigned int v, int mode, double znear, double zfar)
{
	return mode ? depth_distance(v, mode, znear, zfar) : v;
}

template <typename T>
static __device__ void
copy_pixel(unsigned long long surface, char *linear, size_t row_pitch,
	   size_t layer_pitch, int width, int height, int first, int layered,
	   int to_linear, int flip, int depth_mode, double znear, double zfar)
{
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y = blockIdx.y * blockDim.y + threadIdx.y;
	const int l = blockIdx.z;
	int sy;
	T *p;
	T v;

	if (x >= width || y >= height)
		return;
	sy = flip ? height - 1 - y : y;
	p = (T *)(linear + l * layer_pitch + y * row_pitch) + x;
	if (to_linear) {
		if (layered)
			surf2DLayeredread(&v, surface, x * (int)sizeof(T), sy,
					  first + l);
		else
			surf2Dread(&v, surface, x * (int)sizeof(T), sy);
		*p = convert<T>(v, depth_mode, znear, zfar);
	} else {
		v = *p;
		if (layered)
			surf2DLayeredwrite(v, surface, x * (int)sizeof(T), sy,
					   first + l);
		else
			surf2Dwrite(v, surface, x * (int)sizeof(T), sy);
	}
}

#define COPY_KERNEL(bytes, type)                                             \
	extern "C" __global__ void copy_kernels_##bytes(                     \
		unsigned long long surface, char *linear, size_t row_pitch,  \
		size_t layer_pitch, int width, int height, int first,        \
		int layered, int to_linear, int flip, int depth_mode,        \
		double znear, double zfar)                                   \
	{                                                                    \
		copy_pixel<type>(surface, linear, row_pitch, layer_pitch,    \
				 width, height, first, layered, to_linear,   \
				 flip, depth_mode, znear, zfar);             \
	}

COPY_KERNEL(1, unsigned char)
COPY_KERNEL(2, unsigned short)
COPY_KERNEL(4, unsigned int)
COPY_KERNEL(8, uint2)
COPY_KERNEL(16, uint4)
