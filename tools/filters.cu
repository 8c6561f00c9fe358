// The CUDA filters of glcuda-demo and the examples: copy, invert, separable
// Gaussian blur, unsharp mask and a 3D-LUT colour grade. Compiled to a fat
// binary, embedded in the program and loaded with cuModuleLoadData through
// glcuda's run-time CUDA loader (tools/filters.c), so nothing links libcuda.
//
// Every kernel reads and writes 2D surface objects of shared images; the
// pixel format is a template parameter:
//   u8  = GLCUDA_FORMAT_RGBA8   (uchar4, x in bytes = x * 4)
//   f16 = GLCUDA_FORMAT_RGBA16F (ushort4 holding IEEE halves, x * 8)
//   f32 = GLCUDA_FORMAT_RGBA32F (float4, x * 16)
// Launch geometry: 16x16 blocks, one thread per pixel; threads outside the
// image return. Neighbourhood reads clamp to the edge.
//
// SPDX-License-Identifier: MIT
#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>

enum { FMT_U8 = 0, FMT_F16 = 1, FMT_F32 = 2 };

template <int F> struct Pixel;

template <> struct Pixel<FMT_U8> {
	static __device__ __forceinline__ float4 load(CUsurfObject s, int x, int y)
	{
		uchar4 v;
		surf2Dread(&v, s, x * 4, y);
		const float k = 1.0f / 255.0f;
		return make_float4(v.x * k, v.y * k, v.z * k, v.w * k);
	}
	static __device__ __forceinline__ unsigned char quantize(float c)
	{
		return (unsigned char)__float2uint_rn(__saturatef(c) * 255.0f);
	}
	static __device__ __forceinline__ void store(CUsurfObject s, int x, int y, float4 c)
	{
		uchar4 v = make_uchar4(quantize(c.x), quantize(c.y), quantize(c.z), quantize(c.w));
		surf2Dwrite(v, s, x * 4, y);
	}
};

template <> struct Pixel<FMT_F16> {
	static __device__ __forceinline__ float h2f(unsigned short u)
	{
		return __half2float(__ushort_as_half(u));
	}
	static __device__ __forceinline__ unsigned short f2h(float f)
	{
		return __half_as_ushort(__float2half_rn(f));
	}
	static __device__ __forceinline__ float4 load(CUsurfObject s, int x, int y)
	{
		ushort4 v;
		surf2Dread(&v, s, x * 8, y);
		return make_float4(h2f(v.x), h2f(v.y), h2f(v.z), h2f(v.w));
	}
	static __device__ __forceinline__ void store(CUsurfObject s, int x, int y, float4 c)
	{
		ushort4 v = make_ushort4(f2h(c.x), f2h(c.y), f2h(c.z), f2h(c.w));
		surf2Dwrite(v, s, x * 8, y);
	}
};

template <> struct Pixel<FMT_F32> {
	static __device__ __forceinline__ float4 load(CUsurfObject s, int x, int y)
	{
		float4 v;
		surf2Dread(&v, s, x * 16, y);
		return v;
	}
	static __device__ __forceinline__ void store(CUsurfObject s, int x, int y, float4 c)
	{
		surf2Dwrite(c, s, x * 16, y);
	}
};

static __device__ __forceinline__ int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static __device__ __forceinline__ float4 saturate4(float4 c)
{
	return make_float4(__saturatef(c.x), __saturatef(c.y), __saturatef(c.z), __saturatef(c.w));
}

static __device__ __forceinline__ float4 lerp4(float4 a, float4 b, float t)
{
	return make_float4(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t,
			   a.z + (b.z - a.z) * t, a.w + (b.w - a.w) * t);
}

#define PIXEL_COORDS(w, h)                                  \
	const int x = blockIdx.x * blockDim.x + threadIdx.x; \
	const int y = blockIdx.y * blockDim.y + threadIdx.y; \
	if (x >= (w) || y >= (h))                            \
		return

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
	Pixel<O>::store(out, x, y, make_float4(1.0f - c.x, 1.0f - c.y, 1.0f - c.z, c.w));
}

// (b) blur, horizontal pass: the image into a float4 scratch buffer owned by
// the filter context. weights[0..radius] are the normalised Gaussian taps
// for offsets 0..radius. Neighbouring threads read overlapping taps, which
// the texture cache behind surface reads serves.
template <int I>
__device__ void blur_h_px(CUsurfObject in, float4 *scratch, int w, int h,
			  const float *__restrict__ weights, int radius)
{
	PIXEL_COORDS(w, h);
	float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
	for (int k = -radius; k <= radius; k++) {
		const float wk = __ldg(&weights[k < 0 ? -k : k]);
		const float4 c = Pixel<I>::load(in, clampi(x + k, 0, w - 1), y);
		acc.x += wk * c.x;
		acc.y += wk * c.y;
		acc.z += wk * c.z;
		acc.w += wk * c.w;
	}
	scratch[(size_t)y * w + x] = acc;
}

// (b)+(c) vertical pass from the scratch buffer (coalesced: consecutive
// threads read consecutive float4s). unsharp == 0: the blur itself;
// unsharp != 0: original + amount * (original - blur), alpha of the original.
template <int I, int O>
__device__ void blur_v_px(const float4 *__restrict__ scratch, CUsurfObject orig,
			  CUsurfObject out, int w, int h,
			  const float *__restrict__ weights, int radius, float amount,
			  int unsharp)
{
	PIXEL_COORDS(w, h);
	float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
	for (int k = -radius; k <= radius; k++) {
		const float wk = __ldg(&weights[k < 0 ? -k : k]);
		const float4 c = scratch[(size_t)clampi(y + k, 0, h - 1) * w + x];
		acc.x += wk * c.x;
		acc.y += wk * c.y;
		acc.z += wk * c.z;
		acc.w += wk * c.w;
	}
	if (unsharp) {
		const float4 o = Pixel<I>::load(orig, x, y);
		acc = make_float4(o.x + amount * (o.x - acc.x), o.y + amount * (o.y - acc.y),
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
// needs no 3D arrays. Inputs are clamped to [0, 1]; alpha stays.
template <int I, int O>
__device__ void grade_px(CUsurfObject in, CUsurfObject out, int w, int h,
			 const float4 *__restrict__ lut, int size)
{
	PIXEL_COORDS(w, h);
	const float4 c = saturate4(Pixel<I>::load(in, x, y));
	const float s = (float)(size - 1);
	const float fr = c.x * s, fg = c.y * s, fb = c.z * s;
	// size >= 2 (the host checks): the cell's far corner is at most size - 1,
	// and an input of exactly 1.0 lands on it with a weight of 1.
	const int r0 = min((int)fr, size - 2), g0 = min((int)fg, size - 2), b0 = min((int)fb, size - 2);
	const int r1 = r0 + 1, g1 = g0 + 1, b1 = b0 + 1;
	const float tr = fr - r0, tg = fg - g0, tb = fb - b0;
#define LUT(r, g, b) __ldg(&lut[((size_t)(b) * size + (g)) * size + (r)])
	const float4 c00 = lerp4(LUT(r0, g0, b0), LUT(r1, g0, b0), tr);
	const float4 c10 = lerp4(LUT(r0, g1, b0), LUT(r1, g1, b0), tr);
	const float4 c01 = lerp4(LUT(r0, g0, b1), LUT(r1, g0, b1), tr);
	const float4 c11 = lerp4(LUT(r0, g1, b1), LUT(r1, g1, b1), tr);
#undef LUT
	const float4 g = lerp4(lerp4(c00, c10, tg), lerp4(c01, c11, tg), tb);
	Pixel<O>::store(out, x, y, make_float4(g.x, g.y, g.z, c.w));
}

// C entry points, one per (input, output) format pair, named
// filter_<op>_<in>_<out> (blur_h: filter_blur_h_<in>). tools/filters.c
// looks them up by these names.
#define PAIR_KERNELS(I, O, NI, NO)                                                          \
	extern "C" __global__ void filter_copy_##NI##_##NO(CUsurfObject in, CUsurfObject out, \
							   int w, int h)                      \
	{                                                                                   \
		copy_px<I, O>(in, out, w, h);                                               \
	}                                                                                   \
	extern "C" __global__ void filter_invert_##NI##_##NO(CUsurfObject in, CUsurfObject out, \
							     int w, int h)                      \
	{                                                                                   \
		invert_px<I, O>(in, out, w, h);                                             \
	}                                                                                   \
	extern "C" __global__ void filter_blur_v_##NI##_##NO(                                \
		const float4 *scratch, CUsurfObject orig, CUsurfObject out, int w, int h,    \
		const float *weights, int radius, float amount, int unsharp)                 \
	{                                                                                   \
		blur_v_px<I, O>(scratch, orig, out, w, h, weights, radius, amount, unsharp); \
	}                                                                                   \
	extern "C" __global__ void filter_grade_##NI##_##NO(CUsurfObject in, CUsurfObject out, \
							    int w, int h, const float4 *lut,     \
							    int size)                            \
	{                                                                                   \
		grade_px<I, O>(in, out, w, h, lut, size);                                   \
	}

#define INPUT_KERNELS(I, NI)                                                              \
	extern "C" __global__ void filter_blur_h_##NI(CUsurfObject in, float4 *scratch, int w, \
						      int h, const float *weights, int radius) \
	{                                                                                 \
		blur_h_px<I>(in, scratch, w, h, weights, radius);                          \
	}                                                                                 \
	PAIR_KERNELS(I, FMT_U8, NI, u8)                                                   \
	PAIR_KERNELS(I, FMT_F16, NI, f16)                                                 \
	PAIR_KERNELS(I, FMT_F32, NI, f32)

INPUT_KERNELS(FMT_U8, u8)
INPUT_KERNELS(FMT_F16, f16)
INPUT_KERNELS(FMT_F32, f32)
