// An example of a kernel of the user's for glcudafilter (kernel-name,
// ptx-file or cubin-file) on every format the element takes, YUV included:
// the element launches it once per plane, with that plane's size, index
// and glcuda format (doc/gstreamer.md, "Your own kernel"). It inverts as
// the built-in filter=invert does: every 8-bit sample 255 - v (alpha
// kept on RGBA8 planes), the 10 high bits of 16-bit samples (P010), RGB
// of RGB10_A2.
//
//     nvcc -ptx -o invert-planes.ptx invert-planes.cu
//     gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! glupload ! \
//         glcudafilter ptx-file=invert-planes.ptx kernel-name=invert_planes ! \
//         glimagesink
//
// SPDX-License-Identifier: MIT
#include <cuda.h>

// enum glcuda_format (<glcuda/glcuda.h>): the texel of each plane.
enum {
	FORMAT_RGBA8 = 1,    // uchar4 (RGBA, BGRA, RGBx, BGRx: bytes in the
			     // format's order)
	FORMAT_RGB10_A2 = 3, // uint, R in bits 0-9 (RGB10A2_LE)
	FORMAT_R8 = 6,       // uchar (NV12 luma, I420's three planes)
	FORMAT_RG8 = 7,      // uchar2 (NV12 chroma: U, V)
	FORMAT_R16 = 8,      // ushort (P010 luma)
	FORMAT_RG16 = 9,     // ushort2 (P010 chroma)
};

static __device__ __forceinline__ unsigned short invert10(unsigned short v)
{
	return (unsigned short)(~v & 0xffc0u);
}

extern "C" __global__ void
invert_planes(CUsurfObject in, CUsurfObject out, int width, int height,
	      int plane, int format)
{
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y = blockIdx.y * blockDim.y + threadIdx.y;

	(void)plane; // the same on every plane; a kernel may tell luma (0) from
		     // chroma
	if (x >= width || y >= height)
		return;
	switch (format) {
	case FORMAT_RGBA8: {
		uchar4 v;
		surf2Dread(&v, in, x * 4, y);
		surf2Dwrite(make_uchar4(255 - v.x, 255 - v.y, 255 - v.z, v.w),
			    out, x * 4, y);
		break;
	}
	case FORMAT_RGB10_A2: {
		unsigned int v;
		surf2Dread(&v, in, x * 4, y);
		surf2Dwrite(v ^ 0x3fffffffu, out, x * 4, y);
		break;
	}
	case FORMAT_R8: {
		unsigned char v;
		surf2Dread(&v, in, x, y);
		surf2Dwrite((unsigned char)(255 - v), out, x, y);
		break;
	}
	case FORMAT_RG8: {
		uchar2 v;
		surf2Dread(&v, in, x * 2, y);
		surf2Dwrite(make_uchar2(255 - v.x, 255 - v.y), out, x * 2, y);
		break;
	}
	case FORMAT_R16: {
		unsigned short v;
		surf2Dread(&v, in, x * 2, y);
		surf2Dwrite(invert10(v), out, x * 2, y);
		break;
	}
	case FORMAT_RG16: {
		ushort2 v;
		surf2Dread(&v, in, x * 4, y);
		surf2Dwrite(make_ushort2(invert10(v.x), invert10(v.y)), out,
			    x * 4, y);
		break;
	}
	}
}
