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
fuzz_api_sources = %reldir%/fuzz-api.c %reldir%/fuzz-api.h
fuzz_api_ldadd = lib/libglcuda-internal.la $(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS)

check_PROGRAMS += %reldir%/replay
TESTS += %reldir%/replay
%canon_reldir%_replay_SOURCES = %reldir%/replay.c $(fuzz_api_sources) $(sanitizer_sources)
%canon_reldir%_replay_LDADD = $(fuzz_api_ldadd)
EXTRA_DIST += %reldir%/corpus

if ENABLE_FUZZING
noinst_PROGRAMS += %reldir%/fuzz-api
%canon_reldir%_fuzz_api_SOURCES = $(fuzz_api_sources) $(sanitizer_sources)
%canon_reldir%_fuzz_api_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
%canon_reldir%_fuzz_api_LDADD = $(fuzz_api_ldadd)

FUZZ_TIME = 600
FUZZ_ARGS =
fuzz: %reldir%/fuzz-api
	$(AM_V_at)$(MKDIR_P) %reldir%/new-corpus
	$(SANITIZER_TESTS_ENVIRONMENT) ./%reldir%/fuzz-api \
		-max_total_time=$(FUZZ_TIME) -rss_limit_mb=4096 $(FUZZ_ARGS) \
		%reldir%/new-corpus $(srcdir)/%reldir%/corpus
# The smallest set of inputs with the coverage of both, in place of the
# committed corpus's unnamed (hash-named) inputs; the named ones (seed-*,
# regress-*: inputs that once failed) stay.
fuzz-merge: %reldir%/fuzz-api
	rm -rf %reldir%/merged && $(MKDIR_P) %reldir%/merged
	$(SANITIZER_TESTS_ENVIRONMENT) ./%reldir%/fuzz-api -merge=1 \
		%reldir%/merged $(srcdir)/%reldir%/corpus %reldir%/new-corpus
	rm -f $(srcdir)/%reldir%/corpus/[0-9a-f]*
	mv %reldir%/merged/* $(srcdir)/%reldir%/corpus/
	rm -rf %reldir%/merged
endif
clean-local: clean-fuzz
clean-fuzz:
	rm -rf %reldir%/new-corpus %reldir%/merged
.PHONY: fuzz fuzz-merge clean-fuzz
