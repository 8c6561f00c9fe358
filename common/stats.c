/*
 * Statistics of the tools (see stats.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

int
stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int
stats_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

size_t
stats_rank(size_t n, double pct)
{
	size_t rank;

	if (n == 0)
		return 0;
	rank = (size_t)ceil(pct / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return rank;
}

double
stats_percentile(const double *sorted, size_t n, double pct)
{
	return n == 0 ? NAN : sorted[stats_rank(n, pct) - 1];
}

double
stats_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), stats_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool
stats_add(struct stats *s, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		double *p = realloc(s->v, cap * sizeof(*p));
		if (!p)
			return false;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return true;
}

void
stats_summary(struct stats *s, double *mean, double *p50, double *p99)
{
	double sum = 0;

	*mean = *p50 = *p99 = 0;
	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof(double), stats_cmp_double);
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	*mean = sum / s->n;
	*p50 = stats_percentile(s->v, s->n, 50);
	*p99 = stats_percentile(s->v, s->n, 99);
}

void
stats_free(struct stats *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
