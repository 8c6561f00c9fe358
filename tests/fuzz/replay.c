/*
 * Replays the API fuzzing corpus without libFuzzer: every file named on the
 * command line, or every file of every directory named, runs once through
 * the harness of tests/fuzz/fuzz-api.c. Built with any C compiler, so that
 * CI replays the corpus where clang is not installed. A misuse that does
 * not return an error aborts; the sanitizer build reports the rest.
 *
 * Without arguments it replays $srcdir/tests/fuzz/corpus (make check).
 *
 * Where no CUDA driver (libcuda.so.1) can be loaded, as on CI, the CUDA
 * driver is the tests' fake (tests/fake-cuda/.libs/libfakecuda.so, built
 * by make check), so that the corpus reaches devices with CUDA, images,
 * rings and hand-offs without a GPU; a GPU machine replays on its real
 * driver. GLCUDA_FUZZ_LIBCUDA names the driver to use instead (a path that
 * does not exist: replay without any).
 * SPDX-License-Identifier: MIT
 */
#include "fuzz-api.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FAKE_LIB "fake-cuda/.libs/libfakecuda.so"

static int replayed;

static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (size == cap) {
			uint8_t *bigger;
			cap = cap ? cap * 2 : 4096;
			bigger = realloc(data, cap);
			if (!bigger) {
				fprintf(stderr, "replay: %s: out of memory\n",
					path);
				free(data);
				fclose(f);
				return -1;
			}
			data = bigger;
		}
		n = fread(data + size, 1, cap - size, f);
		size += n;
	} while (n > 0);
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	replayed++;
	return 0;
}

/* The fake next to this program (tests/fuzz/replay, maybe libtool's
 * tests/fuzz/.libs/lt-replay) or under the working directory (make check
 * runs from the build directory). */
static bool
find_fake_cuda(char *out)
{
	char exe[PATH_MAX], cand[PATH_MAX + 64];
	ssize_t n;

	if (realpath("tests/" FAKE_LIB, out))
		return true;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(cand, sizeof(cand), "%s/../%s", exe, FAKE_LIB);
	if (realpath(cand, out))
		return true;
	snprintf(cand, sizeof(cand), "%s/../../%s", exe, FAKE_LIB);
	return realpath(cand, out) != NULL;
}

/* Before anything loads CUDA. Returns whether the fake is the driver. */
static bool
choose_cuda_driver(void)
{
	const char *env = getenv("GLCUDA_FUZZ_LIBCUDA");
	char fake[PATH_MAX];

	if (env) {
		setenv("GLCUDA_LIBCUDA", env, 1);
		return strstr(env, "libfakecuda") != NULL;
	}
	/* Kept loaded: glcuda never unloads a CUDA driver either. */
	if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
		return false;
	if (!find_fake_cuda(fake))
		return false;
	setenv("GLCUDA_LIBCUDA", fake, 1);
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
	return true;
}

static int
compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's files in name order, so that a failure reproduces. */
static int
replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t count = 0, cap = 0;
	int ret = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char *path;
		if (e->d_name[0] == '.')
			continue;
		if (count == cap) {
			char **bigger;
			cap = cap ? cap * 2 : 256;
			bigger = realloc(names, cap * sizeof(*names));
			if (!bigger) {
				ret = -1;
				break;
			}
			names = bigger;
		}
		path = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!path) {
			ret = -1;
			break;
		}
		sprintf(path, "%s/%s", dir, e->d_name);
		names[count++] = path;
	}
	closedir(d);
	if (names)
		qsort(names, count, sizeof(*names), compare_names);
	for (size_t i = 0; i < count; i++) {
		if (ret == 0 && replay_file(names[i]) < 0)
			ret = -1;
		free(names[i]);
	}
	free(names);
	return ret;
}

static int
replay_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return S_ISDIR(st.st_mode) ? replay_dir(path) : replay_file(path);
}

int
main(int argc, char **argv)
{
	const char *srcdir = getenv("srcdir");
	char *corpus = NULL;
	int status = EXIT_SUCCESS;

	bool fake = choose_cuda_driver();
	const struct fuzz_api_reached *r = &fuzz_api_reached;

	LLVMFuzzerInitialize(&argc, &argv);
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (replay_path(argv[i]) < 0)
				status = EXIT_FAILURE;
	} else {
		if (!srcdir)
			srcdir = getenv("top_srcdir");
		if (!srcdir)
			srcdir = ".";
		corpus = malloc(strlen(srcdir) + sizeof("/tests/fuzz/corpus"));
		if (!corpus)
			return EXIT_FAILURE;
		sprintf(corpus, "%s/tests/fuzz/corpus", srcdir);
		if (replay_path(corpus) < 0)
			status = EXIT_FAILURE;
		free(corpus);
	}
	fuzz_api_fini();
	printf("replayed %d inputs with %s\n", replayed,
	       fake ? "the fake CUDA driver"
		    : "CUDA driver $GLCUDA_LIBCUDA or libcuda.so.1");
	printf("reached: %lu devices with CUDA, %lu rings, %lu frame submits, "
	       "%lu frame completes, %lu GL waits, %lu releases, %lu hand-offs "
	       "to CUDA, %lu hand-offs to GL\n",
	       r->cuda_devices, r->rings, r->submits, r->completes, r->gl_waits,
	       r->releases, r->handoffs_to_cuda, r->handoffs_to_gl);
	if (replayed == 0) {
		fprintf(stderr, "replay: no inputs found\n");
		status = EXIT_FAILURE;
	}
	/* The corpus is what CI fuzzes glcuda with: on the fake, it must get
	 * past device creation into the ring and the hand-offs. */
	if (fake && argc <= 1 &&
	    (!r->cuda_devices || !r->rings || !r->submits || !r->completes ||
	     !r->handoffs_to_cuda || !r->handoffs_to_gl)) {
		fprintf(stderr,
			"replay: on the fake CUDA driver the corpus no longer "
			"reaches every one of devices with CUDA, rings, frame "
			"submit and complete, and hand-offs both ways (see the "
			"counts above)\n");
		status = EXIT_FAILURE;
	}
	return status;
}
