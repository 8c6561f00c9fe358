/*
 * Fault injection at every Vulkan call glcuda makes, through the public API
 * and without a GPU: Mesa (llvmpipe GL, lavapipe Vulkan) and the fake CUDA
 * driver (tests/fake-cuda) for the CUDA side of hand-offs and rings. For
 * N = 1, 2, ... the N-th Vulkan call fails during the scenario (device ->
 * images of several formats -> hand-offs -> ring of 3 -> a few frames ->
 * destroy everything), and
 *  - the public call that hit it returns an error whose message names the
 *    failed vk* entry point and its VkResult;
 *  - nothing leaks: fds, GL names, the fake driver's CUDA objects and the
 *    live Vulkan objects of each type (counted at the seam, lib/fault.h),
 *    which memory and fd counts cannot see;
 *  - every Vulkan call site of lib/ had a failure injected (counted against
 *    the list scripts/fault-sites.sh generates from the sources).
 * The process's first device also makes the process's Vulkan instance,
 * which glcuda keeps: the instance's calls are failed first, on that device.
 * SPDX-License-Identifier: MIT
 */
#include "test-common.h"
#include "fault-coverage.h"
#include "fake-cuda/fake-cuda-test.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define W 64
#define H 48

/* Errors a Vulkan call may return, none of them device loss (which
 * glcuda reports as GLCUDA_ERROR_DEVICE_LOST and is tested in
 * test-loss). */
static const struct {
	int code;
	const char *name;
} injected[] = {
	{ -1, "VK_ERROR_OUT_OF_HOST_MEMORY" },
	{ -2, "VK_ERROR_OUT_OF_DEVICE_MEMORY" },
	{ -3, "VK_ERROR_INITIALIZATION_FAILED" },
};

/* The Vulkan object types glcuda makes, whose live count must come back. */
static const char *const vk_types[] = { "Instance", "Device", "Image", "Memory",
					"Semaphore" };

struct baseline {
	int fds;
	long vk_live[sizeof(vk_types) / sizeof(vk_types[0])];
	unsigned int fake_live;
	struct gl_names names;
};

static unsigned int (*fake_live_objects)(void);

static void
baseline_take(struct baseline *b)
{
	glFinish();
	b->fds = test_count_fds();
	for (size_t t = 0; t < ARRAY_LENGTH(vk_types); t++)
		b->vk_live[t] = fault_vk_live(vk_types[t]);
	b->fake_live = fake_live_objects ? fake_live_objects() : 0;
	test_count_gl_names(&b->names, 4096);
}

static void
baseline_check(const struct baseline *b, unsigned long n, const char *what)
{
	struct gl_names names;

	glFinish();
	for (size_t t = 0; t < ARRAY_LENGTH(vk_types); t++)
		ck_assert_msg(fault_vk_live(vk_types[t]) == b->vk_live[t],
			      "N=%lu (%s): live Vulkan %s objects %ld -> %ld",
			      n, what, vk_types[t], b->vk_live[t],
			      fault_vk_live(vk_types[t]));
	ck_assert_msg(test_count_fds() == b->fds, "N=%lu (%s): fds %d -> %d", n,
		      what, b->fds, test_count_fds());
	if (fake_live_objects)
		ck_assert_msg(
			fake_live_objects() == b->fake_live,
			"N=%lu (%s): live CUDA objects of the fake %u -> %u", n,
			what, b->fake_live, fake_live_objects());
	test_count_gl_names(&names, 4096);
	ck_assert_msg(memcmp(&names, &b->names, sizeof(names)) == 0,
		      "N=%lu (%s): GL names leaked (textures %d->%d, memory "
		      "objects %d->%d, semaphores %d->%d, fbos %d->%d, queries "
		      "%d->%d)",
		      n, what, b->names.textures, names.textures,
		      b->names.memory_objects, names.memory_objects,
		      b->names.semaphores, names.semaphores,
		      b->names.framebuffers, names.framebuffers,
		      b->names.queries, names.queries);
}

static int
device_new(struct glcuda_headless *hl, enum glcuda_sync_mode mode,
	   uint32_t flags, struct glcuda_device **dev)
{
	struct glcuda_device_options opts = { .size = sizeof(opts),
					      .sync_mode = mode,
					      .flags = flags };

	return glcuda_device_new(glcuda_headless_get_display(hl),
				 glcuda_headless_get_context(hl), &opts, dev);
}

/* The public API's Vulkan work, in one sync mode: images of several formats
 * (each a VkImage, its memory, its exported fd), hand-offs both ways, a
 * ring of 3 with timings and a few frames through it. Returns the first
 * failing public call's error, or 0; *failed names that call. */
static int
scenario(struct glcuda_headless *hl, enum glcuda_sync_mode mode,
	 const char **failed)
{
	static const enum glcuda_format formats[] = {
		GLCUDA_FORMAT_RGBA8,
		GLCUDA_FORMAT_RGBA16F,
		GLCUDA_FORMAT_R8,
		GLCUDA_FORMAT_RG16,
	};
	struct glcuda_image *img[ARRAY_LENGTH(formats)] = { NULL };
	struct glcuda_device *dev = NULL;
	struct glcuda_ring *ring = NULL;
	struct glcuda_ring_desc desc = { .size = sizeof(desc),
					 .width = W,
					 .height = H,
					 .slots = 3,
					 .input_format = GLCUDA_FORMAT_RGBA8,
					 .flags = GLCUDA_RING_FLAG_TIMINGS };
	int ret;

#define STEP(call)                       \
	do {                             \
		ret = (call);            \
		if (ret < 0) {           \
			*failed = #call; \
			goto out;        \
		}                        \
	} while (0)
	STEP(device_new(hl, mode, 0, &dev));
	for (size_t i = 0; i < ARRAY_LENGTH(formats); i++)
		STEP(test_image_new(dev, W, H, formats[i], 0, &img[i]));
	STEP(glcuda_handoff_to_cuda(dev, img, ARRAY_LENGTH(img), NULL));
	STEP(glcuda_handoff_to_gl(dev, img, ARRAY_LENGTH(img), NULL));
	STEP(glcuda_ring_new(dev, &desc, &ring));
	for (int n = 0; n < 4; n++) {
		struct glcuda_frame *f, *t;
		STEP(glcuda_ring_acquire(ring, &f));
		test_render_frame(f, W, H);
		STEP(glcuda_frame_submit(f));
		STEP(glcuda_frame_complete(f));
		do {
			ret = glcuda_ring_take_newest(ring, &t);
		} while (ret == -EAGAIN);
		STEP(ret);
		STEP(glcuda_frame_release(t));
	}
	ret = 0;
out:
#undef STEP
	glcuda_ring_destroy(ring);
	for (size_t i = 0; i < ARRAY_LENGTH(img); i++)
		glcuda_image_destroy(img[i]);
	glcuda_device_destroy(dev);
	return ret;
}

/* The failed public call's message names the Vulkan entry point that was
 * made to fail ("vkCreateImage failed ...") and the injected VkResult. */
static void
check_message(unsigned long n, int ret, const char *call, int k)
{
	const char *vk = fault_failed_call();
	const char *msg = glcuda_get_last_error();
	char entry[96];

	ck_assert_ptr_nonnull(vk);
	ck_assert_msg(
		ret < 0,
		"N=%lu: vk%s failed with %s, yet every public call succeeded",
		n, vk, injected[k].name);
	snprintf(entry, sizeof(entry), "vk%s", vk);
	ck_assert_msg(strstr(msg, entry) && strstr(msg, injected[k].name),
		      "N=%lu: %s returned %s after %s failed with %s, but its "
		      "message does not name both: %s",
		      n, call, glcuda_error_get_name(ret), entry,
		      injected[k].name, msg);
}

/* Calls whose failure glcuda survives by design, so that every public call
 * may succeed: the layer list, read only to enable the validation layer
 * when asked (without it, validation is simply off), and the format
 * query when glcuda_device_new fills the caps (a format it fails for is
 * reported as not supported; glcuda_image_new's own query of the same
 * site fails the call). */
static bool
tolerated(const char *vk)
{
	return vk && (!strcmp(vk, "EnumerateInstanceLayerProperties") ||
		      !strcmp(vk, "GetPhysicalDeviceImageFormatProperties2"));
}

static bool
instance_call(const char *vk)
{
	return vk && (!strcmp(vk, "EnumerateInstanceVersion") ||
		      !strcmp(vk, "CreateInstance") ||
		      !strcmp(vk, "EnumerateInstanceLayerProperties"));
}

/* Child exit statuses of instance_child. */
enum { CHILD_NEXT = 0, CHILD_LAST = 3 };

/* In a new process (no instance yet): the N-th Vulkan call of the first
 * glcuda_device_new fails. Writes the sites it injected to fd. */
static void
instance_child(unsigned long n, int fd)
{
	struct glcuda_headless *hl = test_headless(false);
	struct glcuda_device *dev = NULL;
	struct fault_site sites[4];
	int k = (int)(n % ARRAY_LENGTH(injected)), ret;
	size_t count;
	const char *vk;

	ck_assert_int_eq(fake_cuda_set_uuid_from_gl(), GL_NO_ERROR);
	fault_sites_reset(); /* the parent's, copied by fork */
	fault_inject(FAULT_VULKAN, n, injected[k].code);
	/* Validation asked for, so that the layer list is read. */
	ret = device_new(hl, GLCUDA_SYNC_CPU,
			 GLCUDA_DEVICE_FLAG_VULKAN_VALIDATION, &dev);
	fault_disarm(FAULT_VULKAN);
	vk = fault_failed_call();
	if (vk && !(tolerated(vk) && ret == 0))
		check_message(n, ret, "glcuda_device_new", k);
	glcuda_device_destroy(dev);
	/* Nothing left but the process's instance, once made. */
	for (size_t t = 1; t < ARRAY_LENGTH(vk_types); t++)
		ck_assert_msg(fault_vk_live(vk_types[t]) == 0,
			      "N=%lu (vk%s failed in glcuda_device_new): %ld "
			      "live Vulkan %s",
			      n, vk, fault_vk_live(vk_types[t]), vk_types[t]);
	ck_assert_int_le(fault_vk_live("Instance"), 1);
	count = fault_sites_injected(FAULT_VULKAN, sites, ARRAY_LENGTH(sites));
	ck_assert_uint_le(count, ARRAY_LENGTH(sites));
	ck_assert(write(fd, sites, count * sizeof(sites[0])) ==
		  (ssize_t)(count * sizeof(sites[0])));
	glcuda_headless_destroy(hl);
	_exit(instance_call(vk) ? CHILD_NEXT : CHILD_LAST);
}

/* The instance's calls: each failed in a process of its own, as the
 * process's first device (glcuda keeps the instance once made). */
static unsigned long
fail_instance_calls(void)
{
	unsigned long n;

	for (n = 1;; n++) {
		struct fault_site sites[4];
		int fds[2], status = 0;
		ssize_t got;
		pid_t pid;

		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			close(fds[0]);
			instance_child(n, fds[1]);
		}
		close(fds[1]);
		got = read(fds[0], sites, sizeof(sites));
		close(fds[0]);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) &&
				      (WEXITSTATUS(status) == CHILD_NEXT ||
				       WEXITSTATUS(status) == CHILD_LAST),
			      "N=%lu: the process that failed the N-th Vulkan "
			      "call of the first device failed (status 0x%x)",
			      n, status);
		if (got > 0)
			fault_sites_add(sites, (size_t)got / sizeof(sites[0]));
		if (WEXITSTATUS(status) == CHILD_LAST)
			return n;
	}
}

START_TEST(every_vulkan_call)
{
	struct glcuda_headless *hl;
	/* Sites the scenario cannot reach here, by file, function and entry
	 * point (the report fails if one no longer names a site of lib/). */
	static const struct fault_exception no_semaphores[] = {
		{ "lib/vk/vk-resources.c", "vk_semaphore_create",
		  "CreateSemaphore", "no GL_EXT_semaphore_fd" },
		{ "lib/vk/vk-resources.c", "vk_semaphore_export_fd",
		  "GetSemaphoreFdKHR", "no GL_EXT_semaphore_fd" },
		{ "lib/vk/vk-resources.c", "vk_semaphore_get_value",
		  "GetSemaphoreCounterValue", "no GL_EXT_semaphore_fd" },
	};
	const struct fault_exception *exceptions = NULL;
	size_t nexceptions = 0;
	enum glcuda_sync_mode modes[3];
	size_t nmodes = 0;
	struct baseline base;
	const char *call;
	unsigned long n, runs = 0;
	int ret;

	ck_assert_int_eq(fault_vk_live_total(), 0);
	fault_sites_reset();

	/* 1. The instance's calls, before this process has one. */
	runs += fail_instance_calls();
	hl = test_headless(false);
	ck_assert_int_eq(fake_cuda_set_uuid_from_gl(), GL_NO_ERROR);

	/* 2. Every sync mode this GL, Vulkan and the fake support together:
	 * the semaphore modes need GL_EXT_semaphore_fd. */
	{
		struct glcuda_device *dev = NULL;
		uint32_t supported;

		ret = device_new(hl, GLCUDA_SYNC_AUTO, 0, &dev);
		ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		supported = glcuda_device_get_caps(dev)->sync_modes_supported;
		glcuda_device_destroy(dev);
		for (int mode = GLCUDA_SYNC_TIMELINE; mode <= GLCUDA_SYNC_CPU;
		     mode++)
			if (supported & (1u << mode))
				modes[nmodes++] = (enum glcuda_sync_mode)mode;
		ck_assert_uint_gt(nmodes, 0);
		/* Only the CPU mode (Mesa without GL_EXT_semaphore_fd, as
		 * CI's): no semaphore is ever made. */
		if (supported == 1u << GLCUDA_SYNC_CPU) {
			exceptions = no_semaphores;
			nexceptions = ARRAY_LENGTH(no_semaphores);
		}
	}

	for (size_t m = 0; m < nmodes; m++) {
		const char *mode = glcuda_sync_mode_get_name(modes[m]);

		/* Warm up (drivers' first-use allocations), then the
		 * baseline. */
		for (int warm = 0; warm < 2; warm++) {
			call = NULL;
			ret = scenario(hl, modes[m], &call);
			ck_assert_msg(ret == 0, "%s: clean run: %s: %s: %s",
				      mode, call, glcuda_error_get_name(ret),
				      glcuda_get_last_error());
			if (!fake_live_objects)
				fake_live_objects = (unsigned int (*)(void))
					fake_cuda_control(
						"fake_cuda_live_objects");
		}
		baseline_take(&base);
		for (n = 1;; n++) {
			int k = (int)(n % ARRAY_LENGTH(injected));

			call = NULL;
			fault_inject(FAULT_VULKAN, n, injected[k].code);
			ret = scenario(hl, modes[m], &call);
			fault_disarm(FAULT_VULKAN);
			runs++;
			if (fault_calls(FAULT_VULKAN) < n) {
				/* Fewer than n calls: every one has failed. */
				ck_assert_msg(ret == 0, "%s: N=%lu: %s: %s",
					      mode, n,
					      glcuda_error_get_name(ret),
					      glcuda_get_last_error());
				ck_assert_ptr_null(fault_failed_call());
				break;
			}
			if (!(tolerated(fault_failed_call()) && ret == 0))
				check_message(n, ret, call ? call : "-", k);
			baseline_check(&base, n, mode);
		}
		printf("%s mode: %lu Vulkan calls in the scenario, each failed "
		       "once, each unwound\n",
		       mode, n - 1);
	}
	/* A site the sweep stepped over (should the number of calls before
	 * it vary from run to run) is made to fail by where it is, in each
	 * mode. */
	{
		struct fault_target missed[32];
		size_t nmissed = fault_coverage_missing(FAULT_VULKAN,
							exceptions, nexceptions,
							missed,
							ARRAY_LENGTH(missed));

		ck_assert_uint_le(nmissed, ARRAY_LENGTH(missed));
		for (size_t i = 0; i < nmissed; i++) {
			for (size_t m = 0; m < nmodes; m++) {
				const char *mode =
					glcuda_sync_mode_get_name(modes[m]);
				int k = (int)(i % ARRAY_LENGTH(injected));

				baseline_take(&base);
				call = NULL;
				fault_inject_at(FAULT_VULKAN, missed[i].file,
						missed[i].first, missed[i].last,
						injected[k].code);
				ret = scenario(hl, modes[m], &call);
				fault_disarm(FAULT_VULKAN);
				runs++;
				if (!fault_failed_call())
					continue;
				printf("%s mode: vk%s at %s:%d, stepped over "
				       "by the sweep, failed by its site\n",
				       mode, missed[i].name, missed[i].file,
				       missed[i].first);
				if (!(tolerated(fault_failed_call()) &&
				      ret == 0))
					check_message(0, ret, call ? call : "-",
						      k);
				baseline_check(&base, 0, mode);
			}
		}
	}
	ck_assert_msg(fault_coverage_report(FAULT_VULKAN, "Vulkan", exceptions,
					    nexceptions),
		      "a Vulkan call site of lib/ was never made to fail "
		      "(listed above)");
	printf("%lu runs\n", runs);
	glcuda_headless_destroy(hl);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("vulkan", 600), TEST_ONCE(every_vulkan_call),
	};

	fake_cuda_test_setup();
	return test_run_cases("faults-vk", cases);
}
