// The CUDA kernels of glcuda-bench: every path of the benchmark runs exactly
// these, on 2D surface objects (x in bytes), so the paths differ only in how
// the pixels reach CUDA and come back.
//
//   invert  one read, one write per pixel: bandwidth-bound (a 4K RGBA8
//           frame moves 2 x 33 MB).
//   blur    separable Gaussian, two passes through a float4 scratch buffer,
//           the demo's blur passes (common/pixel.cuh) with its parameters:
//           sigma 4 px at 1080 lines, scaled with the height; taps 0..radius in
//           linear memory; reads clamp to the edge.
//
// Formats: u8 = GLCUDA_FORMAT_RGBA8 (uchar4), f16 = GLCUDA_FORMAT_RGBA16F
// (ushort4 holding IEEE halves). Launch: 16x16 blocks, one thread per pixel.
//
// Compiled to a fat binary, embedded with scripts/embed-fatbin.sh and loaded
// with cuModuleLoadData through glcuda's run-time loader: nothing links
// libcuda.
//
// SPDX-License-Identifier: MIT
#include "../common/pixel.cuh"

// Invert, per format. RGBA8 without the float round trip: what a
// hand-written RGBA8 invert does. Alpha stays.
template <int F>
static __device__ __forceinline__ void
invert_pixel(CUsurfObject in, CUsurfObject out, int x, int y);

template <>
__device__ __forceinline__ void
invert_pixel<FMT_U8>(CUsurfObject in, CUsurfObject out, int x, int y)
{
	uchar4 v;
	surf2Dread(&v, in, x * 4, y);
	v.x = 255 - v.x;
	v.y = 255 - v.y;
	v.z = 255 - v.z;
	surf2Dwrite(v, out, x * 4, y);
}

template <>
__device__ __forceinline__ void
invert_pixel<FMT_F16>(CUsurfObject in, CUsurfObject out, int x, int y)
{
	float4 c = Pixel<FMT_F16>::load(in, x, y);
	Pixel<FMT_F16>::store(out, x, y,
			      make_float4(1.0f - __saturatef(c.x),
					  1.0f - __saturatef(c.y),
					  1.0f - __saturatef(c.z), c.w));
}

template <int F>
__device__ void invert_px(CUsurfObject in, CUsurfObject out, int w, int h)
{
	PIXEL_COORDS(w, h);
	invert_pixel<F>(in, out, x, y);
}

// Vertical pass from the scratch buffer into the output surface.
template <int F>
__device__ void
blur_v_px(const float4 *__restrict__ scratch, CUsurfObject out, int w, int h,
	  const float *__restrict__ weights, int radius)
{
	PIXEL_COORDS(w, h);
	Pixel<F>::store(out, x, y,
			blur_v_sum(scratch, x, y, w, h, weights, radius));
}

// C entry points, looked up by name in bench/glcuda-bench.c:
// bench_<op>_<fmt>.
#define FORMAT_KERNELS(F, N)                                                 \
	extern "C" __global__ void bench_invert_##N(CUsurfObject in,         \
						    CUsurfObject out, int w, \
						    int h)                   \
	{                                                                    \
		invert_px<F>(in, out, w, h);                                 \
	}                                                                    \
	extern "C" __global__ void bench_blur_h_##N(CUsurfObject in,         \
						    float4 *scratch, int w,  \
						    int h,                   \
						    const float *weights,    \
						    int radius)              \
	{                                                                    \
		blur_h_px<F>(in, scratch, w, h, weights, radius);            \
	}                                                                    \
	extern "C" __global__ void bench_blur_v_##N(const float4 *scratch,   \
						    CUsurfObject out, int w, \
						    int h,                   \
						    const float *weights,    \
						    int radius)              \
	{                                                                    \
		blur_v_px<F>(scratch, out, w, h, weights, radius);           \
	}

FORMAT_KERNELS(FMT_U8, u8)
FORMAT_KERNELS(FMT_F16, f16)
