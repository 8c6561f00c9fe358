/*
 * CPU versions of the tools' filters for the fake CUDA driver
 * (fake-filters.h). The arithmetic is common/filters.cu's and
 * common/pixel.cuh's for 8-bit RGBA: a byte v loads as v / 255, a value c
 * stores as c clamped to [0, 1], times 255, rounded.
 * SPDX-License-Identifier: MIT
 */
#include "fake-filters.h"

#include <string.h>

struct rgba {
	float x, y, z, w;
};

static const struct {
	const char *prefix;
	enum fake_filter id;
	const char *args;
} kernels[] = {
	{ "filter_copy_", FAKE_FILTER_COPY, "SSii" },
	{ "filter_invert_", FAKE_FILTER_INVERT, "SSii" },
	/* (in, scratch, w, h, weights, radius) */
	{ "filter_blur_h_", FAKE_FILTER_BLUR_H, "SSiiSi" },
	/* (scratch, orig, out, w, h, weights, radius, amount, unsharp) */
	{ "filter_blur_v_", FAKE_FILTER_BLUR_V, "SSSiiSiii" },
	/* (in, out, w, h, lut, size, bgr) */
	{ "filter_grade_", FAKE_FILTER_GRADE, "SSiiSii" },
};

enum fake_filter
fake_filter_find(const char *name, const char **args)
{
	static const char *const formats[] = { "u8", "f16", "f32" };

	/* (rgba, ids, width, rows, lut, lut_size) */
	if (!strcmp(name, "mujoco_segment_ids")) {
		*args = "SSiiSi";
		return FAKE_FILTER_MUJOCO_SEGMENT;
	}
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		size_t n = strlen(kernels[k].prefix);
		const char *rest = name + n;
		bool u8 = false, known = false;

		if (strncmp(name, kernels[k].prefix, n) != 0)
			continue;
		/* blur_h_<in>; the others <in>_<out>. */
		for (size_t i = 0; i < 3 && !known; i++) {
			size_t li = strlen(formats[i]);
			if (strncmp(rest, formats[i], li) != 0)
				continue;
			if (kernels[k].id == FAKE_FILTER_BLUR_H) {
				known = rest[li] == '\0';
				u8 = i == 0;
				continue;
			}
			for (size_t o = 0; o < 3 && !known; o++) {
				if (rest[li] == '_' &&
				    !strcmp(rest + li + 1, formats[o])) {
					known = true;
					u8 = i == 0 && o == 0;
				}
			}
		}
		if (!known)
			return FAKE_FILTER_NONE;
		*args = kernels[k].args;
		return u8 ? kernels[k].id : FAKE_FILTER_OTHER_FORMAT;
	}
	return FAKE_FILTER_NONE;
}

static float
saturate(float c)
{
	return c < 0.f ? 0.f : c > 1.f ? 1.f : c;
}

static uint8_t
quantize(float c)
{
	return (uint8_t)(saturate(c) * 255.0f + 0.5f);
}

static bool
load(const struct fake_filter_memory *mem, uint64_t s, int x, int y,
     struct rgba *c)
{
	const uint8_t *v = mem->texel(s, x * 4, y, 4);
	const float k = 1.0f / 255.0f;

	if (!v)
		return false;
	c->x = v[0] * k;
	c->y = v[1] * k;
	c->z = v[2] * k;
	c->w = v[3] * k;
	return true;
}

static bool
store(const struct fake_filter_memory *mem, uint64_t s, int x, int y,
      struct rgba c)
{
	uint8_t *v = mem->texel(s, x * 4, y, 4);

	if (!v)
		return false;
	v[0] = quantize(c.x);
	v[1] = quantize(c.y);
	v[2] = quantize(c.z);
	v[3] = quantize(c.w);
	return true;
}

static int
clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static float
f32(uint64_t bits)
{
	uint32_t u = (uint32_t)bits;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static struct rgba
lerp4(struct rgba a, struct rgba b, float t)
{
	struct rgba r = { a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t,
			  a.z + (b.z - a.z) * t, a.w + (b.w - a.w) * t };
	return r;
}

/* A weighted sum of 2 * radius + 1 texels along x (dx = 1) or of the
 * scratch buffer's rows (dx = 0), clamped to the edge. */
static bool
blur_sum(const struct fake_filter_memory *mem, const uint64_t *a,
	 bool horizontal, int x, int y, int w, int h, struct rgba *acc)
{
	const uint64_t weights = horizontal ? a[4] : a[5];
	const int radius = (int)(int32_t)(horizontal ? a[5] : a[6]);
	struct rgba sum = { 0, 0, 0, 0 };

	for (int k = -radius; k <= radius; k++) {
		const uint8_t *wp =
			mem->device(weights + 4u * (uint64_t)(k < 0 ? -k : k),
				    4);
		struct rgba c;
		float wk;

		if (!wp)
			return false;
		memcpy(&wk, wp, 4);
		if (horizontal) {
			if (!load(mem, a[0], clampi(x + k, 0, w - 1), y, &c))
				return false;
		} else {
			size_t i = (size_t)clampi(y + k, 0, h - 1) * (size_t)w +
				   (size_t)x;
			const uint8_t *p = mem->device(a[0] + 16u * i, 16);
			if (!p)
				return false;
			memcpy(&c, p, 16);
		}
		sum.x += wk * c.x;
		sum.y += wk * c.y;
		sum.z += wk * c.z;
		sum.w += wk * c.w;
	}
	*acc = sum;
	return true;
}

static bool
grade(const struct fake_filter_memory *mem, const uint64_t *a, int x, int y)
{
	const int size = (int)(int32_t)a[5];
	const bool bgr = (int32_t)a[6] != 0;
	const float s = (float)(size - 1);
	struct rgba c, corner[8], g;
	float fr, fg, fb, tr, tg, tb;
	int r0, g0, b0;

	if (size < 2 || !load(mem, a[0], x, y, &c))
		return false;
	c.x = saturate(c.x);
	c.y = saturate(c.y);
	c.z = saturate(c.z);
	c.w = saturate(c.w);
	if (bgr) {
		float t = c.x;
		c.x = c.z;
		c.z = t;
	}
	fr = c.x * s;
	fg = c.y * s;
	fb = c.z * s;
	r0 = (int)fr < size - 2 ? (int)fr : size - 2;
	g0 = (int)fg < size - 2 ? (int)fg : size - 2;
	b0 = (int)fb < size - 2 ? (int)fb : size - 2;
	tr = fr - (float)r0;
	tg = fg - (float)g0;
	tb = fb - (float)b0;
	for (int i = 0; i < 8; i++) {
		size_t index = ((size_t)(b0 + (i >> 2 & 1)) * (size_t)size +
				(size_t)(g0 + (i >> 1 & 1))) *
				       (size_t)size +
			       (size_t)(r0 + (i & 1));
		const uint8_t *p = mem->device(a[4] + 16u * index, 16);
		if (!p)
			return false;
		memcpy(&corner[i], p, 16);
	}
	/* As the kernel: along red, then green, then blue. */
	g = lerp4(lerp4(lerp4(corner[0], corner[1], tr),
			lerp4(corner[2], corner[3], tr), tg),
		  lerp4(lerp4(corner[4], corner[5], tr),
			lerp4(corner[6], corner[7], tr), tg),
		  tb);
	if (bgr) {
		float t = g.x;
		g.x = g.z;
		g.z = t;
	}
	g.w = c.w;
	return store(mem, a[1], x, y, g);
}

/* examples/mujoco/mujoco-cameras.c's mujoco_segment_ids, one pixel: the
 * RGB of MuJoCo's id colour (R + 256 G + 65536 B, 0 for the background,
 * else the scene's geom index plus 1) to lut[index], -1 for the
 * background and for an index past the table. */
static bool
mujoco_segment(const struct fake_filter_memory *mem, const uint64_t *a,
	       int x, int y, int w)
{
	const size_t i = (size_t)y * (size_t)w + (size_t)x;
	const uint32_t lut_size = (uint32_t)a[5];
	const uint8_t *c = mem->device(a[0] + 4u * i, 4);
	uint8_t *out = mem->device(a[1] + 4u * i, 4);
	uint32_t segid;
	int32_t id = -1;

	if (!c || !out)
		return false;
	segid = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16;
	if (segid != 0 && segid - 1 < lut_size) {
		const uint8_t *e = mem->device(a[4] + 4u * (segid - 1), 4);

		if (!e)
			return false;
		memcpy(&id, e, 4);
	}
	memcpy(out, &id, 4);
	return true;
}

static bool
texel(enum fake_filter id, const uint64_t *a, int x, int y, int w, int h,
      const struct fake_filter_memory *mem)
{
	struct rgba c, o;

	switch (id) {
	case FAKE_FILTER_COPY:
		return load(mem, a[0], x, y, &c) && store(mem, a[1], x, y, c);
	case FAKE_FILTER_INVERT:
		if (!load(mem, a[0], x, y, &c))
			return false;
		c.x = 1.0f - saturate(c.x);
		c.y = 1.0f - saturate(c.y);
		c.z = 1.0f - saturate(c.z);
		c.w = saturate(c.w);
		return store(mem, a[1], x, y, c);
	case FAKE_FILTER_BLUR_H: {
		uint8_t *p = mem->device(a[1] + 16u * ((size_t)y * (size_t)w +
						       (size_t)x),
					 16);
		if (!p || !blur_sum(mem, a, true, x, y, w, h, &c))
			return false;
		memcpy(p, &c, 16);
		return true;
	}
	case FAKE_FILTER_BLUR_V:
		if (!blur_sum(mem, a, false, x, y, w, h, &c))
			return false;
		if ((int32_t)a[8]) {
			const float amount = f32(a[7]);
			if (!load(mem, a[1], x, y, &o))
				return false;
			c.x = o.x + amount * (o.x - c.x);
			c.y = o.y + amount * (o.y - c.y);
			c.z = o.z + amount * (o.z - c.z);
			c.w = o.w;
		}
		return store(mem, a[2], x, y, c);
	case FAKE_FILTER_GRADE:
		return grade(mem, a, x, y);
	case FAKE_FILTER_MUJOCO_SEGMENT:
		return mujoco_segment(mem, a, x, y, w);
	default:
		return false;
	}
}

bool
fake_filter_run(enum fake_filter id, const uint64_t *a, int gw, int gh,
		const struct fake_filter_memory *mem)
{
	/* (scratch, orig, out, w, h, ...) for the vertical pass; (in, out or
	 * scratch, w, h, ...) for the others. */
	const int wi = id == FAKE_FILTER_BLUR_V ? 3 : 2;
	const int w = (int)(int32_t)a[wi], h = (int)(int32_t)a[wi + 1];

	if (id == FAKE_FILTER_OTHER_FORMAT || id == FAKE_FILTER_NONE)
		return false;
	for (int y = 0; y < h && y < gh; y++)
		for (int x = 0; x < w && x < gw; x++)
			if (!texel(id, a, x, y, w, h, mem))
				return false;
	return true;
}
