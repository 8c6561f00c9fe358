# tests/fuzz: API fuzzing. The harness (fuzz-api.c) turns its input into a
# sequence of public calls; every misuse must return an error.
#
#  - tests/fuzz/replay runs every file of tests/fuzz/corpus once through the
#    harness. Any C compiler builds it: it is a test of every build, and
#    under --enable-sanitizers it replays the corpus with ASan and UBSan.
#  - tests/fuzz/fuzz-api is the libFuzzer target, built with
#    CC=clang ./configure --enable-fuzzing. `make fuzz` runs it for
#    FUZZ_TIME seconds on a copy of the corpus, `make fuzz-merge` folds what
#    it found, minimised, back into tests/fuzz/corpus.
fuzz_api_sources = tests/fuzz/fuzz-api.c tests/fuzz/fuzz-api.h
fuzz_api_ldadd = lib/libglcuda-internal.la $(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS)

check_PROGRAMS += tests/fuzz/replay
TESTS += tests/fuzz/replay
tests_fuzz_replay_SOURCES = tests/fuzz/replay.c $(fuzz_api_sources)
tests_fuzz_replay_LDADD = $(fuzz_api_ldadd)
EXTRA_DIST += tests/fuzz/corpus

if ENABLE_FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz-api
tests_fuzz_fuzz_api_SOURCES = $(fuzz_api_sources)
tests_fuzz_fuzz_api_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_api_LDADD = $(fuzz_api_ldadd)

FUZZ_TIME = 600
FUZZ_ARGS =
fuzz: tests/fuzz/fuzz-api
	$(AM_V_at)$(MKDIR_P) tests/fuzz/new-corpus
	$(SANITIZER_TESTS_ENVIRONMENT) ./tests/fuzz/fuzz-api \
		-max_total_time=$(FUZZ_TIME) -rss_limit_mb=4096 $(FUZZ_ARGS) \
		tests/fuzz/new-corpus $(srcdir)/tests/fuzz/corpus
# The smallest set of inputs with the coverage of both, in place of the
# committed corpus's unnamed (hash-named) inputs; the named ones (seed-*,
# regress-*: inputs that once failed) stay.
fuzz-merge: tests/fuzz/fuzz-api
	rm -rf tests/fuzz/merged && $(MKDIR_P) tests/fuzz/merged
	$(SANITIZER_TESTS_ENVIRONMENT) ./tests/fuzz/fuzz-api -merge=1 \
		tests/fuzz/merged $(srcdir)/tests/fuzz/corpus tests/fuzz/new-corpus
	rm -f $(srcdir)/tests/fuzz/corpus/[0-9a-f]*
	mv tests/fuzz/merged/* $(srcdir)/tests/fuzz/corpus/
	rm -rf tests/fuzz/merged
endif
clean-local: clean-fuzz
clean-fuzz:
	rm -rf tests/fuzz/new-corpus tests/fuzz/merged
.PHONY: fuzz fuzz-merge clean-fuzz
