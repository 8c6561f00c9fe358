/*
 * glcuda-trace: the legacy scenario, cuGraphicsGLRegisterImage'd
 * textures mapped and unmapped every frame (the surface objects made again
 * only when the mapped array changes).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "trace.h"

int
legacy_map(struct run *r, CUsurfObject surf[2])
{
	CUDA_RESOURCE_DESC rd;

	CU_TRY(cuGraphicsMapResources, 2, r->res, r->stream);
	for (int i = 0; i < 2; i++) {
		CUarray a;
		CU_TRY(cuGraphicsSubResourceGetMappedArray, &a, r->res[i], 0,
		       0);
		if (a != r->arrays[i] || !r->surfs[i]) {
			if (r->surfs[i])
				CU(cuSurfObjectDestroy)(r->surfs[i]);
			r->surfs[i] = 0;
			memset(&rd, 0, sizeof(rd));
			rd.resType = CU_RESOURCE_TYPE_ARRAY;
			rd.res.array.hArray = a;
			CU_TRY(cuSurfObjectCreate, &r->surfs[i], &rd);
			r->arrays[i] = a;
		}
		surf[i] = r->surfs[i];
	}
	return 0;
}
