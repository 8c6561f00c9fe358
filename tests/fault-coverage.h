/*
 * Counting fault-injection coverage: the sites where a test injected a
 * failure (lib/fault.h records them) against every call site of lib/ through
 * the API's seam (tests/fault-sites.h, generated from the sources by
 * scripts/fault-sites.sh at build time).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_FAULT_COVERAGE_H
#define GLCUDA_FAULT_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "fault.h"

/* A site the test cannot reach, named by file, function and entry point
 * (not line: lines move), with the reason. Every exception must still name
 * at least one site of the generated list, or the report fails: an
 * exception outlives neither its site nor a rename. */
struct fault_exception {
	const char *file;     /* "lib/sync.c" */
	const char *function; /* "handoff_sync_drain" */
	const char *name;     /* "cuCtxSynchronize" */
	const char *reason;
};

/* Prints "N of M <label> call sites injected", where M counts the sites of
 * api in lib/ less those the engine never fails (fault_never_fails: release
 * and unwind calls) and those of exceptions, and N those of them where a
 * failure was injected since fault_sites_reset(). Prints each site not
 * injected, each injected site of lib/ missing from the generated list and
 * each stale exception. Returns true only if there are none. */
bool fault_coverage_report(enum fault_api api, const char *label,
			   const struct fault_exception *exceptions,
			   size_t count);

/* A site of lib/ (from the generated list). */
struct fault_target {
	const char *file; /* "lib/ring/ring.c" */
	int first, last;
	const char *name, *function;
};

/* The sites of api that fault_coverage_report would count and that no
 * failure was injected at yet: up to max into out; returns how many. */
size_t fault_coverage_missing(enum fault_api api,
			      const struct fault_exception *exceptions,
			      size_t count, struct fault_target *out,
			      size_t max);

/* The sites of api that the entries of `which` name (file, function and
 * entry point; the reasons are not read), in the order of lib/'s sources:
 * up to max into out; returns how many there are. */
size_t fault_coverage_sites(enum fault_api api,
			    const struct fault_exception *which, size_t count,
			    struct fault_target *out, size_t max);

#endif
