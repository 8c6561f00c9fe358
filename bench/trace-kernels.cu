// The kernels of glcuda-trace: a one-thread kernel that writes the GPU's
// global timer (the nanosecond clock GL_TIMESTAMP queries read on NVIDIA's
// driver; glcuda-trace checks that they agree), and an RGBA8 invert on
// surface objects, the bench's cheapest kernel.
//
// SPDX-License-Identifier: MIT
#include <cuda.h>
#include <stdint.h>

extern "C" __global__ void trace_stamp(unsigned long long *out)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	*out = t;
}

// The pixel at (x, y) of in, inverted (alpha kept).
static __device__ __forceinline__ uchar4 inverted(CUsurfObject in, int x, int y)
{
	uchar4 v;

	surf2Dread(&v, in, x * 4, y);
	v.x = 255 - v.x;
	v.y = 255 - v.y;
	v.z = 255 - v.z;
	return v;
}

extern "C" __global__ void
trace_invert(CUsurfObject in, CUsurfObject out, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < w && y < h)
		surf2Dwrite(inverted(in, x, y), out, x * 4, y);
}

// The invert into pitched linear memory: the output of the EGLStream
// scenario, which CUDA presents to GL as a pitch-linear frame.
extern "C" __global__ void
trace_invert_to_pitch(CUsurfObject in, uchar4 *out, int pitch_px, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < w && y < h)
		out[(size_t)y * pitch_px + x] = inverted(in, x, y);
}
