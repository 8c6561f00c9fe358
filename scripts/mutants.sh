#!/bin/bash
# Mutation testing: how many plausible bugs the test suite catches.
#
#   scripts/mutants.sh [-j JOBS] [--gpu] [--keep] [--reuse] [--work DIR]
#                      [MUTANT...]
#   scripts/mutants.sh --gpu-build DIR [MUTANT...]
#
# Each mutant (tests/mutants/*.mutant; doc/testing.md describes the
# format) is one small change to one file: a text found exactly once in
# it and what replaces it. The script builds the tree once, configured as
# the README's test command does, and runs its `make check` (a test that
# fails there already is named, and counts only where it fails
# differently: a failure line in its log that was not there); then, for
# each mutant, copies that built tree, applies the change, rebuilds what
# it touched and runs the mutant's own tests (the ones most likely to
# catch it) and, only if they pass, the whole `make check`. It configures
# in CI's environment (.ci/env.sh: nvcc on PATH, Debian's python3) and
# refuses to go on when a suite that CI runs skipped in the tree without
# mutants (tests/expected-skips): its mutants would survive. A mutant is
#   killed    when the build or a test fails (or hangs past
#             MUTANTS_TIMEOUT seconds, default 1800);
#   survived  when the whole suite passes with it;
#   stale     when its text is no longer found exactly once in its file:
#             the code moved on; refresh the mutant (not counted);
#   gpu-only  when it is marked so and --gpu is not given: only the real
#             CUDA driver catches it (scripts/gpu-test.sh's machine).
# Prints one line per mutant, then the survivors, the stale ones and the
# ratio killed / (killed + survived). Exits 1 when the tree does not
# build, or fewer than MUTANTS_MIN_KILLED percent (default 90) are killed.
#
# -j JOBS: mutants at a time, each in its own copy (default: the CPUs,
# nproc). --work DIR: where the copies go (default
# ${TMPDIR:-/tmp}/glcuda-mutants; emptied first). --keep: leave each
# mutant's copy there (DIR/mNNN) to look at. --reuse: the tree that the
# last run built and checked in DIR/base, as it was then (more mutants on
# the same code, without building it again). MUTANTS_CONFIGURE: configure's
# arguments (default --enable-werror, as the README's test command).
#
# --gpu-build DIR: for the GPU machine, which has no build tools
# (doc/gpu-testing.md): each gpu-only mutant applied to a copy of the
# tracked files in DIR/NAME, built there by scripts/gpu-build.sh, its
# tests listed in DIR/NAME/mutant-tests. Copy DIR to the GPU machine and
# run scripts/gpu-mutants.sh DIR there.
#
# The copies: libtool's wrapper scripts, the Makefiles and the binaries'
# run paths hold the build tree's absolute path. Each copy is made at a
# path of the same length as the built tree's (DIR/base, DIR/m001...) and
# every occurrence of one path is replaced by the other, byte for byte,
# keeping each file's time stamp, so that make sees a tree it built
# and rebuilds only what the mutant changes.
# SPDX-License-Identifier: MIT
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
# Configured and checked in CI's environment (nvcc on PATH, Debian's
# python3 as PYTHON): another python3 first in PATH would skip the Python
# suites, and no mutant of python/ could be caught.
# shellcheck source=.ci/env.sh
. "$src/.ci/env.sh"
jobs=$(nproc 2>/dev/null || echo 1)
gpu=no keep=no reuse=no gpu_build_dir=
work=${TMPDIR:-/tmp}/glcuda-mutants
timeout_s=${MUTANTS_TIMEOUT:-1800}
min_killed=${MUTANTS_MIN_KILLED:-90}
configure_args=${MUTANTS_CONFIGURE:---enable-werror}

usage() {
	sed -n '2,/^# SPDX/p' "$0" | sed 's/^# \{0,1\}//; /^SPDX/d' >&2
	exit 2
}

# field MUTANT NAME: the header line "NAME: value" of a mutant.
field() {
	sed -n "/^@@ find\$/q; s/^$2: *//p" "$1" | head -n1
}

# apply MUTANT TREE: the mutant's change in TREE; exit status 3 when its
# text is not found exactly once (stale).
apply() {
	perl -e '
		my ($mutant, $tree) = @ARGV;
		open(my $m, "<", $mutant) or die "$mutant: $!\n";
		my ($file, $part, $find, $repl) = ("", "", "", "");
		while (<$m>) {
			if (/^\@\@ find$/) { $part = "find"; next }
			if (/^\@\@ replace$/) { $part = "replace"; next }
			if ($part eq "find") { $find .= $_ }
			elsif ($part eq "replace") { $repl .= $_ }
			elsif (/^file: *(\S+)/) { $file = $1 }
		}
		die "$mutant: no file or no find block\n"
			if !$file || $find eq "";
		open(my $f, "<", "$tree/$file") or exit 3;
		local $/;
		my $text = <$f>;
		close($f);
		my $n = () = $text =~ /\Q$find\E/g;
		exit 3 if $n != 1;
		$text =~ s/\Q$find\E/$repl/;
		open($f, ">", "$tree/$file") or die "$tree/$file: $!\n";
		print $f $text;
		close($f);
	' "$1" "$2"
}

# copy_tracked TO: the tracked files, as they are in the work tree (git
# add a new one), copied to TO.
copy_tracked() {
	mkdir -p "$1"
	(cd "$src" && git ls-files -z -c | xargs -0 cp --parents -t "$1")
}

# copy_tree FROM TO: a copy of the built tree FROM at TO (a path of the
# same length), FROM's path replaced by TO's in every file, time stamps
# kept.
copy_tree() {
	local from=$1 to=$2
	rm -rf "$to"
	cp -a "$from" "$to"
	grep -rlZF -- "$from" "$to" | while IFS= read -r -d '' f; do
		[ -L "$f" ] && continue
		perl -pi -e \
			'BEGIN { ($a, $b) = (shift, shift) } s/\Q$a\E/$b/g' \
			"$from" "$to" "$f"
		touch -r "$from/${f#"$to"/}" "$f"
	done
}

# unexpected_skips TREE: the tests of TREE's make check that reported SKIP
# where tests/expected-skips does not allow it (its "ci" entries; with
# --gpu, its "gpu" entries: none), each with the line its log gave why.
unexpected_skips() {
	local machine=ci allowed trs t why
	[ $gpu = no ] || machine=gpu
	allowed=$(awk -v m=$machine '$1 == m { print $2 }' \
		"$1/tests/expected-skips")
	find "$1" -name '*.trs' | sort | while IFS= read -r trs; do
		grep -q '^:test-result: SKIP' "$trs" || continue
		t=${trs#"$1"/}
		t=${t%.trs}
		! grep -qxF -- "$t" <<< "$allowed" || continue
		why=$({ grep -m1 -E '^SKIP|skip' "${trs%.trs}.log" \
			2>/dev/null || true; })
		echo "$t${why:+: $why}"
	done
}

# failures LOG: the "FAIL: test" (ERROR, XPASS) lines of a make check log.
failures() {
	# None is no error (grep's status 1 would end the run: pipefail, -e).
	{ grep -hE '^(FAIL|ERROR|XPASS): ' "$1" || true; } | sort -u
}

# details TEST...: the failure lines in the logs of the tests named (in
# the current directory: a built tree), each after its test's name.
details() {
	local t
	for t in "$@"; do
		[ ! -f "$t.log" ] ||
			{ grep -E '^(FAIL|ERROR)|:[FE]:' "$t.log" || true; } |
			sed "s|^|$t: |"
	done | sort -u
}

# new_failures LOG: the tests that failed in LOG and not without mutants,
# or that failed there too but now fail differently (a failure line in
# their log that was not there), on one line; empty: none.
new_failures() {
	local t d new=
	for t in $(failures "$1" | sed 's/^[A-Z]*: //'); do
		if ! grep -qxF -- "$t" "$work/baseline-tests"; then
			new="$new$t "
		elif { d=$(details "$t"); [ -n "$d" ]; } &&
		     grep -qvxF -f "$work/baseline-details" <<< "$d"; then
			new="$new$t (failing differently) "
		fi
	done
	echo "$new"
}

# caught TESTS LOG: make check (of TESTS when not empty), its output
# added to LOG; prints what caught the mutant, nothing when nothing did.
caught() {
	local status=0 new
	timeout -k 30 "$timeout_s" make check ${1:+TESTS="$1"} >"$2.check" \
		2>&1 || status=$?
	cat "$2.check" >> "$2"
	new=$(new_failures "$2.check")
	if [ -n "$new" ]; then
		echo "$new"
	elif [ $status -ne 0 ] && [ -z "$(failures "$2.check")" ]; then
		# No test failed: the test programs did not build, or it hung.
		echo "make check exited $status"
	fi
	rm -f "$2.check"
}

# verdict TREE TESTS LOG: built and checked, "killed ..." or "survived".
verdict() {
	local by

	cd "$1" || return 1
	if ! timeout -k 30 "$timeout_s" make >"$3" 2>&1; then
		echo "killed build"
		return 0
	fi
	if [ -n "$2" ]; then
		by=$(caught "$2" "$3")
		[ -z "$by" ] || { echo "killed $by"; return 0; }
	fi
	by=$(caught "" "$3")
	[ -z "$by" ] || { echo "killed (whole suite) $by"; return 0; }
	echo "survived"
}

# run_mutant INDEX MUTANT: "NAME RESULT [DETAIL]" into the results.
run_mutant() {
	local i=$1 m=$2 name tree out
	name=$(basename "$m" .mutant)
	tree=$(printf '%s/m%03d' "$work" "$i")
	out=$work/results/$name
	if [ "$(field "$m" gpu-only)" = yes ] && [ $gpu = no ]; then
		echo "$name gpu-only" > "$out"
		return 0
	fi
	copy_tree "$work/base" "$tree"
	set +e
	apply "$m" "$tree"
	case $? in
	0) echo "$name $(verdict "$tree" "$(field "$m" tests)" \
		"$work/logs/$name.log")" > "$out" ;;
	3) echo "$name stale $(field "$m" file)" > "$out" ;;
	*) echo "$name error applying" > "$out" ;;
	esac
	set -e
	[ $keep = yes ] || rm -rf "$tree"
}

# gpu_build DIR: each gpu-only mutant built for the GPU machine.
gpu_build() {
	local dir=$1 m name
	mkdir -p "$dir"
	for m in "${mutants[@]}"; do
		[ "$(field "$m" gpu-only)" = yes ] || continue
		name=$(basename "$m" .mutant)
		rm -rf "${dir:?}/$name"
		copy_tracked "$dir/$name"
		if ! apply "$m" "$dir/$name"; then
			echo "$name stale: its text is no longer in" \
				"$(field "$m" file)"
			rm -rf "${dir:?}/$name"
			continue
		fi
		if ! (cd "$dir/$name" && scripts/gpu-build.sh) \
			>"$dir/$name.log" 2>&1; then
			echo "$name: the build failed ($dir/$name.log)"
			continue
		fi
		for t in $(field "$m" tests); do
			basename "$t"
		done > "$dir/$name/mutant-tests"
		echo "$name: built in $dir/$name"
	done
	echo "on the GPU machine: scripts/gpu-mutants.sh $dir"
}

# summary: a line per mutant, the survivors and the stale, the ratio;
# false below MUTANTS_MIN_KILLED percent.
summary() {
	local killed=0 survived=0 stale=0 gpu_only=0 m name r pct=0
	for m in "${mutants[@]}"; do
		name=$(basename "$m" .mutant)
		r=$(cat "$work/results/$name" 2>/dev/null ||
			echo "$name error no result")
		echo "$r"
		case ${r#"$name "} in
		killed*) killed=$((killed + 1)) ;;
		survived*) survived=$((survived + 1)) ;;
		stale*) stale=$((stale + 1)) ;;
		gpu-only*) gpu_only=$((gpu_only + 1)) ;;
		esac
	done
	for m in "${mutants[@]}"; do
		name=$(basename "$m" .mutant)
		case $(cat "$work/results/$name" 2>/dev/null) in
		*" survived")
			echo "survived: $name: $(field "$m" description)" ;;
		*" stale "*)
			echo "stale (refresh it): $name: its text is no" \
				"longer in $(field "$m" file)" ;;
		esac
	done
	[ $((killed + survived)) -eq 0 ] ||
		pct=$((100 * killed / (killed + survived)))
	echo "mutants: $killed killed, $survived survived ($pct % killed)," \
		"$stale stale, $gpu_only gpu-only not run;" \
		"$(($(date +%s) - start)) s"
	[ $((killed + survived)) -gt 0 ] && [ $pct -ge "$min_killed" ]
}

# All of it is read before any of it runs: the file may change meanwhile.
main() {
	local m i skips
	while [ $# -gt 0 ]; do
		case $1 in
		-j) jobs=$2; shift 2 ;;
		-j*) jobs=${1#-j}; shift ;;
		--gpu) gpu=yes; shift ;;
		--keep) keep=yes; shift ;;
		--work) work=$2; shift 2 ;;
		--gpu-build) gpu_build_dir=$2; shift 2 ;;
		--reuse) reuse=yes; shift ;;
		-h|--help) usage ;;
		--) shift; break ;;
		-*) usage ;;
		*) break ;;
		esac
	done
	case $jobs in
	''|*[!0-9]*|0)
		echo "mutants.sh: -j wants a number of jobs" >&2
		exit 2 ;;
	esac
	if [ $# -gt 0 ]; then
		mutants=("$@")
	else
		mutants=("$src"/tests/mutants/*.mutant)
	fi
	for m in "${mutants[@]}"; do
		[ -f "$m" ] || { echo "mutants.sh: no mutant $m" >&2; exit 2; }
	done
	if [ -n "$gpu_build_dir" ]; then
		gpu_build "$gpu_build_dir"
		exit 0
	fi
	case $work in
	"$src"|"$src"/*)
		echo "mutants.sh: --work must be outside the tree" >&2
		exit 2 ;;
	esac

	start=$(date +%s)
	if [ $reuse = yes ]; then
		[ -f "$work/base/test-suite.log" ] || {
			echo "mutants.sh: no tree built in $work/base" >&2
			exit 2
		}
		rm -rf "$work/results"
		mkdir -p "$work/results"
	else
		rm -rf "$work"
		mkdir -p "$work/results" "$work/logs"
	fi
	work=$(cd "$work" && pwd)
	[ $reuse = yes ] || echo "mutants.sh: building the tree in $work/base"
	[ $reuse = yes ] || copy_tracked "$work/base"
	# shellcheck disable=SC2086 # split on purpose
	if [ $reuse = no ] && ! (cd "$work/base" && autoreconf -fi &&
		./configure $configure_args && make -j"$jobs" &&
		{ make -j"$jobs" check || true; }) \
		>"$work/logs/base.log" 2>&1 ||
	   [ ! -f "$work/base/test-suite.log" ]; then
		echo "mutants.sh: the tree does not build without mutants" \
			"($work/logs/base.log)" >&2
		tail -n 20 "$work/logs/base.log" >&2
		exit 1
	fi
	# A suite that skips here and runs on CI would let every mutant
	# that only it catches survive: no ratio is worth printing then.
	skips=$(unexpected_skips "$work/base")
	if [ -n "$skips" ]; then
		echo "mutants.sh: without mutants, suites that CI runs" \
			"skipped here (tests/expected-skips does not allow" \
			"them); install what they need (.ci/packages) and run" \
			"again:" >&2
		while IFS= read -r m; do echo "    $m"; done <<< "$skips" >&2
		exit 1
	fi
	# A test that fails without mutants counts only when it fails
	# differently: a failure line in its log that was not there.
	failures "$work/logs/base.log" | sed 's/^[A-Z]*: //' \
		> "$work/baseline-tests"
	# shellcheck disable=SC2046 # one test a word
	(cd "$work/base" && details $(cat "$work/baseline-tests")) \
		> "$work/baseline-details"
	if [ -s "$work/baseline-tests" ]; then
		echo "mutants.sh: without mutants, make check fails" \
			"$(tr '\n' ' ' < "$work/baseline-tests");" \
			"they count only where they fail differently:"
		sed 's/^/    /' "$work/baseline-details"
	fi
	echo "mutants.sh: the tree built and checked" \
		"($(($(date +%s) - start)) s); ${#mutants[@]} mutants," \
		"$jobs at a time"

	i=0
	for m in "${mutants[@]}"; do
		i=$((i + 1))
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			wait -n || true
		done
		run_mutant "$i" "$m" &
	done
	wait
	summary
}

main "$@"
exit
