// The CUDA filters of glcuda-demo and the examples: copy, invert, separable
// Gaussian blur, unsharp mask and a 3D-LUT colour grade. Compiled to a fat
// binary, embedded in the program and loaded with cuModuleLoadData through
// glcuda's run-time CUDA loader (common/filters.c), so nothing links libcuda.
//
// Every kernel reads and writes 2D surface objects of shared images; the
// pixel formats, launch geometry and the blur's two passes are in
// common/pixel.cuh, shared with glcuda-bench's kernels.
//
// SPDX-License-Identifier: MIT
#include <stdint.h>

#include "pixel.cuh"

static __device__ __forceinline__ float4 saturate4(float4 c)
{
	return make_float4(__saturatef(c.x), __saturatef(c.y), __saturatef(c.z),
			   __saturatef(c.w));
}

static __device__ __forceinline__ float4 lerp4(float4 a, float4 b, float t)
{
	return make_float4(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t,
			   a.z + (b.z - a.z) * t, a.w + (b.w - a.w) * t);
}

// (e) none: a copy (converting the format if input and output differ).
template <int I, int O>
__device__ void copy_px(CUsurfObject in, CUsurfObject out, int w, int h)
{
	PIXEL_COORDS(w, h);
	Pixel<O>::store(out, x, y, Pixel<I>::load(in, x, y));
}

// (a) invert: bandwidth-bound, one read and one write per pixel. Alpha stays.
template <int I, int O>
__device__ void invert_px(CUsurfObject in, CUsurfObject out, int w, int h)
{
	PIXEL_COORDS(w, h);
	float4 c = saturate4(Pixel<I>::load(in, x, y));
	Pixel<O>::store(out, x, y,
			make_float4(1.0f - c.x, 1.0f - c.y, 1.0f - c.z, c.w));
}

// (b)+(c) vertical pass from the scratch buffer (coalesced: consecutive
// threads read consecutive float4s). unsharp == 0: the blur itself;
// unsharp != 0: original + amount * (original - blur), alpha of the original.
template <int I, int O>
__device__ void
blur_v_px(const float4 *__restrict__ scratch, CUsurfObject orig,
	  CUsurfObject out, int w, int h, const float *__restrict__ weights,
	  int radius, float amount, int unsharp)
{
	PIXEL_COORDS(w, h);
	float4 acc = blur_v_sum(scratch, x, y, w, h, weights, radius);
	if (unsharp) {
		const float4 o = Pixel<I>::load(orig, x, y);
		acc = make_float4(o.x + amount * (o.x - acc.x),
				  o.y + amount * (o.y - acc.y),
				  o.z + amount * (o.z - acc.z), o.w);
		// Sharpening overshoots; float outputs keep their range >= 0.
		acc.x = fmaxf(acc.x, 0.f);
		acc.y = fmaxf(acc.y, 0.f);
		acc.z = fmaxf(acc.z, 0.f);
	}
	Pixel<O>::store(out, x, y, acc);
}

// (d) colour grade: a size^3 RGB LUT (float4 entries, red fastest, then
// green, then blue) built on the host, sampled with trilinear
// interpolation. Kept in linear memory: eight cached loads per pixel, and it
// needs no 3D arrays. Inputs are clamped to [0, 1]; alpha stays. bgr != 0:
// the pixel's colours are B, G, R (BGRA): graded as the same colours as
// RGBA, the same arithmetic, and stored back in that order.
template <int I, int O>
__device__ void grade_px(CUsurfObject in, CUsurfObject out, int w, int h,
			 const float4 *__restrict__ lut, int size, int bgr)
{
	PIXEL_COORDS(w, h);
	float4 c = saturate4(Pixel<I>::load(in, x, y));
	if (bgr)
		c = make_float4(c.z, c.y, c.x, c.w);
	const float s = (float)(size - 1);
	const float fr = c.x * s, fg = c.y * s, fb = c.z * s;
	// size >= 2 (the host checks): the cell's far corner is at most
	// size - 1, and an input of exactly 1.0 lands on it with a weight of 1.
	const int r0 = min((int)fr, size - 2), g0 = min((int)fg, size - 2),
		  b0 = min((int)fb, size - 2);
	const int r1 = r0 + 1, g1 = g0 + 1, b1 = b0 + 1;
	const float tr = fr - r0, tg = fg - g0, tb = fb - b0;
#define LUT(r, g, b) __ldg(&lut[((size_t)(b) * size + (g)) * size + (r)])
	const float4 c00 = lerp4(LUT(r0, g0, b0), LUT(r1, g0, b0), tr);
	const float4 c10 = lerp4(LUT(r0, g1, b0), LUT(r1, g1, b0), tr);
	const float4 c01 = lerp4(LUT(r0, g0, b1), LUT(r1, g0, b1), tr);
	const float4 c11 = lerp4(LUT(r0, g1, b1), LUT(r1, g1, b1), tr);
#undef LUT
	const float4 g = lerp4(lerp4(c00, c10, tg), lerp4(c01, c11, tg), tb);
	Pixel<O>::store(out, x, y,
			bgr ? make_float4(g.z, g.y, g.x, c.w)
			    : make_float4(g.x, g.y, g.z, c.w));
}

// C entry points, one per (input, output) format pair, named
// filter_<op>_<in>_<out> (blur_h: filter_blur_h_<in>). common/filters.c
// looks them up by these names.
#define PAIR_KERNELS(I, O, NI, NO)                                             \
	extern "C" __global__ void filter_copy_##NI##_##NO(CUsurfObject in,    \
							   CUsurfObject out,   \
							   int w, int h)       \
	{                                                                      \
		copy_px<I, O>(in, out, w, h);                                  \
	}                                                                      \
	extern "C" __global__ void filter_invert_##NI##_##NO(CUsurfObject in,  \
							     CUsurfObject out, \
							     int w, int h)     \
	{                                                                      \
		invert_px<I, O>(in, out, w, h);                                \
	}                                                                      \
	extern "C" __global__ void filter_blur_v_##NI##_##NO(                  \
		const float4 *scratch, CUsurfObject orig, CUsurfObject out,    \
		int w, int h, const float *weights, int radius, float amount,  \
		int unsharp)                                                   \
	{                                                                      \
		blur_v_px<I, O>(scratch, orig, out, w, h, weights, radius,     \
				amount, unsharp);                              \
	}                                                                      \
	extern "C" __global__ void filter_grade_##NI##_##NO(CUsurfObject in,   \
							    CUsurfObject out,  \
							    int w, int h,      \
							    const float4 *lut, \
							    int size, int bgr) \
	{                                                                      \
		grade_px<I, O>(in, out, w, h, lut, size, bgr);                 \
	}

#define INPUT_KERNELS(I, NI)                                                  \
	extern "C" __global__ void filter_blur_h_##NI(CUsurfObject in,        \
						      float4 *scratch, int w, \
						      int h,                  \
						      const float *weights,   \
						      int radius)             \
	{                                                                     \
		blur_h_px<I>(in, scratch, w, h, weights, radius);             \
	}                                                                     \
	PAIR_KERNELS(I, FMT_U8, NI, u8)                                       \
	PAIR_KERNELS(I, FMT_F16, NI, f16)                                     \
	PAIR_KERNELS(I, FMT_F32, NI, f32)

INPUT_KERNELS(FMT_U8, u8)
INPUT_KERNELS(FMT_F16, f16)
INPUT_KERNELS(FMT_F32, f32)
