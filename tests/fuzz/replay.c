/*
 * Replays the API fuzzing corpus without libFuzzer: every file named on the
 * command line, or every file of every directory named, runs once through
 * the harness of tests/fuzz/fuzz-api.c. Built with any C compiler, so that
 * CI replays the corpus where clang is not installed. A misuse that does
 * not return an error aborts; the sanitizer build reports the rest.
 *
 * Without arguments it replays $srcdir/tests/fuzz/corpus (make check).
 * SPDX-License-Identifier: MIT
 */
#include "fuzz-api.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
				fprintf(stderr, "replay: %s: out of memory\n", path);
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
	printf("replayed %d inputs\n", replayed);
	if (replayed == 0) {
		fprintf(stderr, "replay: no inputs found\n");
		status = EXIT_FAILURE;
	}
	return status;
}
