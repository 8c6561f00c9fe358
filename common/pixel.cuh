// Device code shared by the CUDA kernels of glcuda-demo (common/filters.cu)
// and glcuda-bench (bench/bench-kernels.cu): pixel loads and stores of
// 2D surface objects per format, the launch geometry, and the two passes of
// the separable Gaussian blur, so that both programs run the same blur.
//
// Formats (template parameter):
//   u8  = GLCUDA_FORMAT_RGBA8   (uchar4, x in bytes = x * 4)
//   f16 = GLCUDA_FORMAT_RGBA16F (ushort4 holding IEEE halves, x * 8)
//   f32 = GLCUDA_FORMAT_RGBA32F (float4, x * 16)
// Launch geometry: 16x16 blocks, one thread per pixel; threads outside the
// image return. Neighbourhood reads clamp to the edge.
//
// SPDX-License-Identifier: MIT
#ifndef GLCUDA_PIXEL_CUH
#define GLCUDA_PIXEL_CUH

#include <cuda.h>
#include <cuda_fp16.h>

enum { FMT_U8 = 0, FMT_F16 = 1, FMT_F32 = 2 };

template <int F> struct Pixel;

template <> struct Pixel<FMT_U8> {
	static __device__ __forceinline__ float4 load(CUsurfObject s, int x,
						      int y)
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
	static __device__ __forceinline__ void store(CUsurfObject s, int x,
						     int y, float4 c)
	{
		uchar4 v = make_uchar4(quantize(c.x), quantize(c.y),
				       quantize(c.z), quantize(c.w));
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
	static __device__ __forceinline__ float4 load(CUsurfObject s, int x,
						      int y)
	{
		ushort4 v;
		surf2Dread(&v, s, x * 8, y);
		return make_float4(h2f(v.x), h2f(v.y), h2f(v.z), h2f(v.w));
	}
	static __device__ __forceinline__ void store(CUsurfObject s, int x,
						     int y, float4 c)
	{
		ushort4 v =
			make_ushort4(f2h(c.x), f2h(c.y), f2h(c.z), f2h(c.w));
		surf2Dwrite(v, s, x * 8, y);
	}
};

template <> struct Pixel<FMT_F32> {
	static __device__ __forceinline__ float4 load(CUsurfObject s, int x,
						      int y)
	{
		float4 v;
		surf2Dread(&v, s, x * 16, y);
		return v;
	}
	static __device__ __forceinline__ void store(CUsurfObject s, int x,
						     int y, float4 c)
	{
		surf2Dwrite(c, s, x * 16, y);
	}
};

static __device__ __forceinline__ int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

#define PIXEL_COORDS(w, h)                                  \
	const int x = blockIdx.x * blockDim.x + threadIdx.x; \
	const int y = blockIdx.y * blockDim.y + threadIdx.y; \
	if (x >= (w) || y >= (h))                            \
		return

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

// The blur's vertical sum at (x, y) from the scratch buffer (coalesced:
// consecutive threads read consecutive float4s).
static __device__ __forceinline__ float4
blur_v_sum(const float4 *__restrict__ scratch, int x, int y, int w, int h,
	   const float *__restrict__ weights, int radius)
{
	float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
	for (int k = -radius; k <= radius; k++) {
		const float wk = __ldg(&weights[k < 0 ? -k : k]);
		const float4 c =
			scratch[(size_t)clampi(y + k, 0, h - 1) * w + x];
		acc.x += wk * c.x;
		acc.y += wk * c.y;
		acc.z += wk * c.z;
		acc.w += wk * c.w;
	}
	return acc;
}

#endif
