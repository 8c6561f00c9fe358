/*
 * Statistics of the tools: percentiles by nearest rank, medians, and a
 * growing list of samples.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_STATS_H
#define GLCUDA_TOOLS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* qsort comparators, ascending. */
int stats_cmp_double(const void *a, const void *b);
int stats_cmp_u64(const void *a, const void *b);

/* The nearest rank (1..n) of the pct-th percentile of n sorted values;
 * 0 when n is 0. */
size_t stats_rank(size_t n, double pct);
/* The pct-th percentile of n sorted values by nearest rank; NAN when n is
 * 0. */
double stats_percentile(const double *sorted, size_t n, double pct);
/* The median of n values (sorts them; the mean of the middle two when n is
 * even); NAN when n is 0. */
double stats_median(double *v, size_t n);

/* Samples, as many as come. */
struct stats {
	double *v;
	size_t n, cap;
};

/* false when memory runs out (the sample is lost). */
bool stats_add(struct stats *s, double v);
/* Mean, median and 99th percentile by nearest rank (sorts the samples);
 * all 0 without samples. */
void stats_summary(struct stats *s, double *mean, double *p50, double *p99);
void stats_free(struct stats *s);

#endif
