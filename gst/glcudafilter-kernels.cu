// glcudafilter's own kernels: the built-in invert on the planes of the
// formats other than 8-bit RGB (RGBA, BGRA, RGBx and BGRx run
// common/filters.cu's). One kernel per
// plane format, each (CUsurfObject in, CUsurfObject out, int width,
// int height) with width and height of the plane, launched with 16x16
// blocks, one thread per texel (x in bytes for the surface calls).
// Compiled to a fat binary embedded in the plugin; the fake CUDA driver
// of the tests runs CPU versions of them by name (tests/fake-cuda).
//
// SPDX-License-Identifier: MIT
#include <cuda.h>

#define PLANE_COORDS(w, h)                                   \
	const int x = blockIdx.x * blockDim.x + threadIdx.x; \
	const int y = blockIdx.y * blockDim.y + threadIdx.y; \
	if (x >= (w) || y >= (h))                            \
		return

// 8 bits (NV12, and I420's three planes): Y' = 255 - Y; chroma mirrored
// the same way, C' = 255 - C.
extern "C" __global__ void
glcudafilter_invert_r8(CUsurfObject in, CUsurfObject out, int w, int h)
{
	PLANE_COORDS(w, h);
	unsigned char v;
	surf2Dread(&v, in, x, y);
	surf2Dwrite((unsigned char)(255 - v), out, x, y);
}

extern "C" __global__ void
glcudafilter_invert_rg8(CUsurfObject in, CUsurfObject out, int w, int h)
{
	PLANE_COORDS(w, h);
	uchar2 v;
	surf2Dread(&v, in, x * 2, y);
	surf2Dwrite(make_uchar2(255 - v.x, 255 - v.y), out, x * 2, y);
}

// P010: 10 bits in the high bits of 16, the low 6 bits zero. The 10-bit
// value is inverted (1023 - v) and the low bits stay zero.
static __device__ __forceinline__ unsigned short invert_p010(unsigned short v)
{
	return (unsigned short)(~v & 0xffc0u);
}

extern "C" __global__ void
glcudafilter_invert_p010_r16(CUsurfObject in, CUsurfObject out, int w, int h)
{
	PLANE_COORDS(w, h);
	unsigned short v;
	surf2Dread(&v, in, x * 2, y);
	surf2Dwrite(invert_p010(v), out, x * 2, y);
}

extern "C" __global__ void
glcudafilter_invert_p010_rg16(CUsurfObject in, CUsurfObject out, int w, int h)
{
	PLANE_COORDS(w, h);
	ushort2 v;
	surf2Dread(&v, in, x * 4, y);
	surf2Dwrite(make_ushort2(invert_p010(v.x), invert_p010(v.y)), out,
		    x * 4, y);
}

// RGB10_A2: one 32-bit word, R in bits 0-9, G 10-19, B 20-29, A 30-31.
// RGB inverted, alpha kept.
extern "C" __global__ void
glcudafilter_invert_rgb10a2(CUsurfObject in, CUsurfObject out, int w, int h)
{
	PLANE_COORDS(w, h);
	unsigned int v;
	surf2Dread(&v, in, x * 4, y);
	surf2Dwrite(v ^ 0x3fffffffu, out, x * 4, y);
}
