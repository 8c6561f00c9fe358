#!/bin/bash
# The gpu-only mutants on the GPU machine, from the project root, after
# `scripts/mutants.sh --gpu-build DIR` on the development machine built
# each of them in DIR/NAME (doc/testing.md):
#
#     scripts/gpu-mutants.sh DIR
#
# Runs each mutant's tests (DIR/NAME/mutant-tests) with its own
# scripts/gpu-test.sh (the runtime libraries unpacked once before, as
# scripts/gpu-test.sh --unpack does). A mutant is killed when a test
# fails, survived when all pass. Prints one line per mutant, then
# "gpu mutants: K killed, S survived"; exits 1 when one survived.
# SPDX-License-Identifier: MIT
set -uo pipefail

dir=${1:?usage: scripts/gpu-mutants.sh DIR}
killed=0 survived=0
for d in "$dir"/*/; do
	[ -f "$d/mutant-tests" ] || continue
	name=$(basename "$d")
	log=$dir/$name.run.log
	# shellcheck disable=SC2046 # one test a word
	if (cd "$d" && scripts/gpu-test.sh $(cat mutant-tests)) >"$log" 2>&1
	then
		echo "$name survived"
		survived=$((survived + 1))
	else
		echo "$name killed: $(grep -m1 -E '^FAIL' "$log")"
		killed=$((killed + 1))
	fi
done
echo "gpu mutants: $killed killed, $survived survived"
[ $survived -eq 0 ]
