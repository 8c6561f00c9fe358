// Kernels of the GPU tests. Compiled to a fat binary and embedded; loaded
// with cuModuleLoadData through glcuda's run-time CUDA loader.
// SPDX-License-Identifier: MIT
#include <cuda.h>
#include <stdint.h>

// This thread's pixel (x, y) of a w x h image; false past its edges.
__device__ bool thread_pixel(int w, int h, int *x, int *y)
{
	*x = blockIdx.x * blockDim.x + threadIdx.x;
	*y = blockIdx.y * blockDim.y + threadIdx.y;
	return *x < w && *y < h;
}

template <typename T>
__device__ bool bytes_equal(const T &a, const T &b)
{
	const unsigned char *pa = (const unsigned char *)&a,
			    *pb = (const unsigned char *)&b;
	for (int i = 0; i < (int)sizeof(T); i++)
		if (pa[i] != pb[i])
			return false;
	return true;
}

template <typename T>
__device__ void
check_and_fill(CUsurfObject surf, int w, int h, const T *expect, const T *fill,
	       unsigned int *mismatches, unsigned int *first)
{
	int x, y;
	if (!thread_pixel(w, h, &x, &y))
		return;
	size_t i = (size_t)y * w + x;
	T v;
	surf2Dread(&v, surf, x * (int)sizeof(T), y);
	if (expect && !bytes_equal(v, expect[i])) {
		unsigned int n = atomicAdd(mismatches, 1u);
		if (n == 0)
			*first = (unsigned int)i;
	}
	if (fill)
		surf2Dwrite(fill[i], surf, x * (int)sizeof(T), y);
}

// One entry point per pixel size: comparisons are bit-exact whatever the
// format, and every access is one element of the array's own size.
#define CHECK_AND_FILL(name, T)                                          \
	extern "C" __global__ void name(CUsurfObject surf, int w, int h, \
					const T *expect, const T *fill,  \
					unsigned int *mismatches,        \
					unsigned int *first)             \
	{                                                                \
		check_and_fill<T>(surf, w, h, expect, fill, mismatches,  \
				  first);                                \
	}
CHECK_AND_FILL(check_and_fill_1, uchar1)
CHECK_AND_FILL(check_and_fill_2, ushort1)
CHECK_AND_FILL(check_and_fill_4, uint1)
CHECK_AND_FILL(check_and_fill_8, uint2)
CHECK_AND_FILL(check_and_fill_16, uint4)

// Holds the stream until the host writes a non-zero value to *gate (host
// memory mapped into the device): proves that no glcuda call waits for the
// stream on the CPU.
extern "C" __global__ void spin_gate(volatile unsigned int *gate)
{
	while (*gate == 0)
		__nanosleep(1000);
}

// Ring test: input pixels encode the frame number (R = n & 255,
// G = (n >> 8) & 255, B = 0x5a, A = 0xff); the output is
// (255 - R, 255 - G, B ^ 0xff, A) so a stale or skipped frame shows.
extern "C" __global__ void
ring_transform(CUsurfObject in, CUsurfObject out, int w, int h)
{
	int x, y;
	if (!thread_pixel(w, h, &x, &y))
		return;
	uchar4 v;
	surf2Dread(&v, in, x * 4, y);
	surf2Dwrite(make_uchar4(255 - v.x, 255 - v.y, v.z ^ 0xff, v.w), out,
		    x * 4, y);
}

// Batched hand-off test: each RGBA8 pixel, in place, XOR the image's own
// key (byte i of key for channel i). The result depends on what CUDA read
// (GL's content of this round) and on which image the key was meant for.
extern "C" __global__ void
xor_rgba8(CUsurfObject surf, int w, int h, unsigned int key)
{
	int x, y;
	if (!thread_pixel(w, h, &x, &y))
		return;
	uchar4 v;
	surf2Dread(&v, surf, x * 4, y);
	surf2Dwrite(make_uchar4(v.x ^ (key & 0xff), v.y ^ ((key >> 8) & 0xff),
				v.z ^ ((key >> 16) & 0xff), v.w ^ (key >> 24)),
		    surf, x * 4, y);
}

// A kernel that runs for a while (about `iters` microseconds), to keep
// work in flight while a test destroys objects.
extern "C" __global__ void busy(unsigned int iters)
{
	for (unsigned int i = 0; i < iters; i++)
		__nanosleep(1000);
}

// Ring order test: a frame's work of a length of its own, `cycles` of the
// SM clock (about 1 ms per 2 000 000 on an H200), so that frames on the
// ring's streams finish out of order.
extern "C" __global__ void spin_cycles(long long cycles)
{
	long long start = clock64();
	while (clock64() - start < cycles)
		;
}
