// The CUDA kernels of glcuda-bench: every path of the benchmark runs exactly
// these, on 2D surface objects (x in bytes), so the paths differ only in how
// the pixels reach CUDA and come back.
//
//   invert  one read, one write per pixel: bandwidth-bound (a 4K RGBA8
//           frame moves 2 x 33 MB).
//   blur    separable Gaussian, two passes through a float4 scratch buffer,
//           the same algorithm and parameters as the demo's blur
//           (tools/filters.cu): sigma 4 px at 1080 lines, scaled with the
//           height; taps 0..radius in linear memory; reads clamp to the edge.
//
// Formats: u8 = GLCUDA_FORMAT_RGBA8 (uchar4), f16 = GLCUDA_FORMAT_RGBA16F
// (ushort4 holding IEEE halves). Launch: 16x16 blocks, one thread per pixel.
//
// Compiled to a fat binary, embedded with scripts/embed-fatbin.sh and loaded
// with cuModuleLoadData through glcuda's run-time loader: nothing links
// libcuda.
//
// SPDX-License-Identifier: MIT
#include <cuda.h>
#include <cuda_fp16.h>

enum { FMT_U8 = 0, FMT_F16 = 1 };

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
	// Invert without the float round trip: what a hand-written RGBA8
	// invert does.
	static __device__ __forceinline__ void invert(CUsurfObject in, CUsurfObject out,
						      int x, int y)
	{
		uchar4 v;
		surf2Dread(&v, in, x * 4, y);
		v.x = 255 - v.x;
		v.y = 255 - v.y;
		v.z = 255 - v.z;
		surf2Dwrite(v, out, x * 4, y);
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
	static __device__ __forceinline__ void invert(CUsurfObject in, CUsurfObject out,
						      int x, int y)
	{
		float4 c = load(in, x, y);
		store(out, x, y, make_float4(1.0f - __saturatef(c.x), 1.0f - __saturatef(c.y),
					     1.0f - __saturatef(c.z), c.w));
	}
};

static __device__ __forceinline__ int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

#define PIXEL_COORDS(w, h)                                   \
	const int x = blockIdx.x * blockDim.x + threadIdx.x; \
	const int y = blockIdx.y * blockDim.y + threadIdx.y; \
	if (x >= (w) || y >= (h))                            \
		return

template <int F>
__device__ void invert_px(CUsurfObject in, CUsurfObject out, int w, int h)
{
	PIXEL_COORDS(w, h);
	Pixel<F>::invert(in, out, x, y);
}

// Horizontal pass: the image into the float4 scratch buffer. Neighbouring
// threads read overlapping taps, which the cache behind surface reads serves.
template <int F>
__device__ void blur_h_px(CUsurfObject in, float4 *scratch, int w, int h,
			  const float *__restrict__ weights, int radius)
{
	PIXEL_COORDS(w, h);
	float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
	for (int k = -radius; k <= radius; k++) {
		const float wk = __ldg(&weights[k < 0 ? -k : k]);
		const float4 c = Pixel<F>::load(in, clampi(x + k, 0, w - 1), y);
		acc.x += wk * c.x;
		acc.y += wk * c.y;
		acc.z += wk * c.z;
		acc.w += wk * c.w;
	}
	scratch[(size_t)y * w + x] = acc;
}

// Vertical pass from the scratch buffer (coalesced: consecutive threads read
// consecutive float4s) into the output surface.
template <int F>
__device__ void blur_v_px(const float4 *__restrict__ scratch, CUsurfObject out, int w,
			  int h, const float *__restrict__ weights, int radius)
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
	Pixel<F>::store(out, x, y, acc);
}

// C entry points, looked up by name in bench/glcuda-bench.c:
// bench_<op>_<fmt>.
#define FORMAT_KERNELS(F, N)                                                            \
	extern "C" __global__ void bench_invert_##N(CUsurfObject in, CUsurfObject out,  \
						    int w, int h)                       \
	{                                                                               \
		invert_px<F>(in, out, w, h);                                            \
	}                                                                               \
	extern "C" __global__ void bench_blur_h_##N(CUsurfObject in, float4 *scratch,   \
						    int w, int h, const float *weights, \
						    int radius)                         \
	{                                                                               \
		blur_h_px<F>(in, scratch, w, h, weights, radius);                       \
	}                                                                               \
	extern "C" __global__ void bench_blur_v_##N(const float4 *scratch,              \
						    CUsurfObject out, int w, int h,     \
						    const float *weights, int radius)   \
	{                                                                               \
		blur_v_px<F>(scratch, out, w, h, weights, radius);                      \
	}

FORMAT_KERNELS(FMT_U8, u8)
FORMAT_KERNELS(FMT_F16, f16)
