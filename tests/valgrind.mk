# tests: `make check-valgrind` runs the Check suites that run everywhere
# (Mesa on CI, the NVIDIA driver on the GPU machine) under valgrind's
# memcheck, in one process each (CK_FORK=no), so that every leak and every
# invalid access of glcuda is seen. Mesa's, the drivers' and the loaders' own
# are suppressed by tests/valgrind.supp (each entry says why; with
# --keep-debuginfo a driver unloaded before the leak check keeps its name). It fails on
# the first report; tests/<test>.valgrind.log has the full output.
VALGRIND_TESTS = %reldir%/test-device %reldir%/test-image %reldir%/test-vk \
	%reldir%/test-headless tests/fuzz/replay %reldir%/test-ring-cpu %reldir%/test-loss
VALGRIND_FLAGS = --leak-check=full --error-exitcode=1 --num-callers=40 --keep-debuginfo=yes \
	--errors-for-leak-kinds=definite,indirect \
	--suppressions=$(abs_top_srcdir)/%reldir%/valgrind.supp
EXTRA_DIST += %reldir%/valgrind.supp

if HAVE_VALGRIND
check-valgrind: $(check_PROGRAMS)
	@status=0; \
	for t in $(VALGRIND_TESTS); do \
		log=$$t.valgrind.log; \
		if $(AM_TESTS_ENVIRONMENT) CK_FORK=no CK_DEFAULT_TIMEOUT=600 \
			srcdir=$(srcdir) GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 \
			$(LIBTOOL) --mode=execute $(VALGRIND) $(VALGRIND_FLAGS) \
			--log-file=$$log ./$$t > $$t.valgrind.out 2>&1; then \
			echo "PASS: $$t (valgrind)"; \
		else \
			rc=$$?; \
			if [ $$rc -eq 77 ]; then \
				echo "SKIP: $$t (valgrind): $$(tail -n1 $$t.valgrind.out)"; \
			else \
				echo "FAIL: $$t (valgrind, exit status $$rc): see $$log"; \
				cat $$t.valgrind.out; \
				grep -A40 -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|Source and|Argument|[0-9,]+ .*bytes in .* are (definitely|indirectly))' $$log | head -n 200; \
				status=1; \
			fi; \
		fi; \
	done; \
	exit $$status
else
check-valgrind:
	@echo "check-valgrind: valgrind was not found when configure ran" >&2; exit 1
endif
CLEANFILES += $(VALGRIND_TESTS:=.valgrind.log) $(VALGRIND_TESTS:=.valgrind.out)
.PHONY: check-valgrind
