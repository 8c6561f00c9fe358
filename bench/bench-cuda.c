/*
 * glcuda-bench: the CUDA side: the kernels, through the programs' CUDA table.
 * SPDX-License-Identifier: MIT
 */
#include "bench.h"

/* CUDA: the kernels                                                        */

struct bench_cuda cu;

/* A kernel of the module, or NULL with the reason kept in cu.missing:
 * only the rows that use it fail then. */
static CUfunction
get_function(const char *name)
{
	CUfunction f = NULL;
	CUresult res = CU(cuModuleGetFunction)(&f, cu.module, name);
	char buf[128];

	if (res == CUDA_SUCCESS)
		return f;
	if (!cu.missing[0])
		snprintf(cu.missing, sizeof(cu.missing),
			 "cuModuleGetFunction(\"%s\"): %s", name,
			 tools_cuda_result(res, buf, sizeof(buf)));
	return NULL;
}

int
cuda_init(struct glcuda_device *dev)
{
	static const char *const suffix[2] = { "u8", "f16" };
	const char *invert_u8 = getenv("GLCUDA_BENCH_INVERT_U8");
	CUresult res;

	cu.ctx = glcuda_device_get_cuda_context(dev);
	/* Every CUDA call of the bench runs in the context glcuda uses (the
	 * device's primary context, shared by all the devices made here). */
	CU_TRY(cuCtxPushCurrent, cu.ctx);
	cu.pushed = true;
	res = CU(cuModuleLoadData)(&cu.module, glcuda_bench_fatbin);
	if (res != CUDA_SUCCESS)
		return cu_check(res, "cuModuleLoadData "
				     "(bench/bench-kernels.cu; built for the "
				     "GPU's architecture? see "
				     "NVCC_ARCH_FLAGS)");
	for (int f = 0; f < 2; f++) {
		char name[64];
		snprintf(name, sizeof(name), "bench_invert_%s", suffix[f]);
		/* GLCUDA_BENCH_INVERT_U8 names another RGBA8 invert: the fake
		 * CUDA driver runs only the kernels of its tests, and its
		 * ring_transform is this invert (255 - x on R, G, B). */
		cu.invert[f] = get_function(
			f == 0 && invert_u8 && *invert_u8 ? invert_u8 : name);
		snprintf(name, sizeof(name), "bench_blur_h_%s", suffix[f]);
		cu.blur_h[f] = get_function(name);
		snprintf(name, sizeof(name), "bench_blur_v_%s", suffix[f]);
		cu.blur_v[f] = get_function(name);
	}
	/* NULL where the driver has none (the fake CUDA driver of the
	 * tests). */
	cu.set_map_flags = (CUresult (*)(CUgraphicsResource, unsigned int))
		tools_cuda_find("cuGraphicsResourceSetMapFlags");
	CU_TRY(cuMemAlloc, &cu.weights, (MAX_RADIUS + 1) * sizeof(float));
	cu.loaded = true;
	return 0;
}

void
cuda_free_scratch(void)
{
	for (int i = 0; i < MAX_DEPTH; i++)
		if (cu.scratch[i]) {
			CU(cuMemFree)(cu.scratch[i]);
			cu.scratch[i] = 0;
		}
	cu.scratch_bytes = 0;
}

void
cuda_fini(void)
{
	if (!tools_cuda_loaded())
		return;
	if (cu.pushed)
		CU(cuCtxSynchronize)();
	cuda_free_scratch();
	if (cu.weights)
		CU(cuMemFree)(cu.weights);
	if (cu.module)
		CU(cuModuleUnload)(cu.module);
	if (cu.pushed) {
		CUcontext c;
		CU(cuCtxPopCurrent)(&c);
	}
	memset(&cu, 0, sizeof(cu));
}

/* The demo's Gaussian: sigma 4 px at 1080 lines, scaled with the height;
 * taps out to 3 sigma. */
int
cuda_prepare_group(const struct group *g, bool blur)
{
	float w[MAX_RADIUS + 1];
	double sum = 0;
	size_t bytes;

	cuda_free_scratch();
	if (!blur)
		return 0;
	cu.sigma =
		opt.blur_sigma > 0 ? opt.blur_sigma : 4.0 * g->height / 1080.0;
	cu.radius = (int)ceil(3.0 * cu.sigma);
	if (cu.radius < 1)
		cu.radius = 1;
	if (cu.radius > MAX_RADIUS)
		cu.radius = MAX_RADIUS;
	for (int k = 0; k <= cu.radius; k++) {
		w[k] = (float)exp(-(double)k * k / (2.0 * cu.sigma * cu.sigma));
		sum += k ? 2.0 * w[k] : w[k];
	}
	for (int k = 0; k <= cu.radius; k++)
		w[k] = (float)(w[k] / sum);
	CU_TRY(cuMemcpyHtoD, cu.weights, w,
	       (size_t)(cu.radius + 1) * sizeof(float));
	bytes = (size_t)g->width * g->height * 16;
	for (int i = 0; i < MAX_DEPTH; i++) {
		CUresult res = CU(cuMemAlloc)(&cu.scratch[i], bytes);
		if (res != CUDA_SUCCESS) {
			cu.scratch[i] = 0;
			return cu_check(res, "cuMemAlloc (blur scratch)");
		}
	}
	cu.scratch_bytes = bytes;
	return 0;
}

/* Enqueue the kernel of the configuration on a stream. */
int
run_kernel(const struct group *g, enum kernel_kind k, CUsurfObject in,
	   CUsurfObject out, unsigned int slot, CUstream stream)
{
	int f = g->format == GLCUDA_FORMAT_RGBA16F;
	int w = (int)g->width, h = (int)g->height;
	unsigned int gx = (g->width + 15) / 16, gy = (g->height + 15) / 16;

	if (k == KERNEL_INVERT ? !cu.invert[f] : !cu.blur_h[f] || !cu.blur_v[f])
		return fail("no %s kernel for %s in the module (first failed "
			    "lookup: %s)",
			    kernel_names[k], glcuda_format_get_name(g->format),
			    cu.missing);
	if (k == KERNEL_INVERT) {
		void *args[] = { &in, &out, &w, &h };
		return cu_check(CU(cuLaunchKernel)(cu.invert[f], gx, gy, 1, 16,
						   16, 1, 0, stream, args,
						   NULL),
				"cuLaunchKernel (invert)");
	} else {
		CUdeviceptr scratch = cu.scratch[slot % MAX_DEPTH];
		CUdeviceptr weights = cu.weights;
		int radius = cu.radius;
		void *args_h[] = { &in, &scratch, &w, &h, &weights, &radius };
		void *args_v[] = { &scratch, &out, &w, &h, &weights, &radius };
		if (cu_check(CU(cuLaunchKernel)(cu.blur_h[f], gx, gy, 1, 16, 16,
						1, 0, stream, args_h, NULL),
			     "cuLaunchKernel (blur_h)") < 0)
			return -1;
		return cu_check(CU(cuLaunchKernel)(cu.blur_v[f], gx, gy, 1, 16,
						   16, 1, 0, stream, args_v,
						   NULL),
				"cuLaunchKernel (blur_v)");
	}
}

/* ---------------------------------------------------------------------- */
