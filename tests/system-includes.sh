# shellcheck shell=sh
# Sourced (". tests/system-includes.sh") by the tests that compile against
# third-party headers (test-headers.sh, test-cuda-abi.sh): their own
# warnings are not glcuda's to fix, so they are included as system headers.
# system_includes FLAGS...: prints FLAGS with each -IDIR as -isystem DIR.
# SPDX-License-Identifier: MIT
system_includes() {
	for flag; do
		case $flag in
		-I*) printf ' -isystem %s' "${flag#-I}" ;;
		*) printf ' %s' "$flag" ;;
		esac
	done
}
