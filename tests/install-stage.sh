# shellcheck shell=sh
# Sourced (". tests/install-stage.sh") by the tests of what make install
# writes (test-pkgconfig.sh, test-install-prefix.sh, test-examples.sh),
# with $tmp and $top_builddir set: installs what is already built into the
# staging directory $stage ($tmp/stage, with DESTDIR); exits 1, showing
# make's output, when the install fails.
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # tmp and top_builddir: set by the caller
stage=$tmp/stage
# Run from make check, so leave the parent's make options (the jobserver,
# TESTS=...) alone: this is a plain install of what is already built.
# One install at a time: each relinks libraries (the GStreamer plugin)
# inside the build tree (tests/gst-test-env.sh has the lock's other side).
if ! flock "$top_builddir/tests/.install.lock" \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -C "$top_builddir" \
	install DESTDIR="$stage" > "$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "FAIL: make install DESTDIR=$stage"
	exit 1
fi
