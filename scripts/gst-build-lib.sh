# Sourced (POSIX sh) by the GStreamer build scripts: scripts/gst-gpu-build.sh,
# scripts/gst-gpu-build-new.sh and scripts/gst-headers-check.sh, from the
# project root. Their variables are the callers'; the functions' own start
# with gbl_.
# SPDX-License-Identifier: MIT

# What the GPU machine has (newer than Debian 12's): glibc, the GCC runtime;
# and what .gl/*.deb puts into / there (GLVND, libepoxy; the Vulkan loader
# is there). A stage carries every other library its programs need.
base_sonames="linux-vdso.so.1 ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2
	libpthread.so.0 librt.so.1 libresolv.so.2 libgcc_s.so.1 libstdc++.so.6
	libEGL.so.1 libGL.so.1 libGLESv2.so.2 libGLX.so.0 libGLdispatch.so.0 libOpenGL.so.0
	libepoxy.so.0 libvulkan.so.1"

is_base() {
	for gbl_b in $base_sonames; do
		[ "$gbl_b" = "$1" ] && return 0
	done
	return 1
}

# needed FILE: its DT_NEEDED sonames.
needed() {
	readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

# closure FILE...: the DT_NEEDED of the files, transitively, but for
# base_sonames, each soname looked up with the caller's find_lib SONAME
# (its path, or nothing): the sonames reached in $seen, those find_lib did
# not find in $missing.
closure() {
	gbl_todo="$*"
	seen=""
	missing=""
	while [ -n "$gbl_todo" ]; do
		gbl_next=""
		for gbl_f in $gbl_todo; do
			for gbl_so in $(needed "$gbl_f"); do
				is_base "$gbl_so" && continue
				case " $seen " in *" $gbl_so "*) continue ;; esac
				seen="$seen $gbl_so"
				gbl_path=$(find_lib "$gbl_so")
				if [ -n "$gbl_path" ]; then
					gbl_next="$gbl_next $gbl_path"
				else
					missing="$missing $gbl_so"
				fi
			done
		done
		gbl_todo=$gbl_next
	done
}

# debian_fetch SUITE CACHE DEST PACKAGE...: Debian SUITE's PACKAGEs (amd64,
# main) from deb.debian.org with curl, the .deb files kept in CACHE,
# unpacked into DEST. Non-zero, with a message, if one cannot be had.
debian_fetch() {
	gbl_suite=$1 gbl_cache=$2 gbl_dest=$3
	shift 3
	gbl_mirror=http://deb.debian.org/debian
	mkdir -p "$gbl_cache" "$gbl_dest" || return 1
	if ! curl -fsS "$gbl_mirror/dists/$gbl_suite/main/binary-amd64/Packages.xz" |
		xz -dc > "$gbl_cache/Packages.$gbl_suite"; then
		echo "cannot fetch $gbl_mirror/dists/$gbl_suite/main/binary-amd64/Packages.xz" >&2
		return 1
	fi
	for gbl_p in "$@"; do
		gbl_f=$(awk -v p="$gbl_p" '$0 == "Package: " p { x = 1 } x && /^Filename:/ { print $2; exit }' \
			"$gbl_cache/Packages.$gbl_suite")
		if [ -z "$gbl_f" ]; then
			echo "$gbl_p is not in $gbl_suite" >&2
			return 1
		fi
		if [ ! -e "$gbl_cache/${gbl_f##*/}" ] &&
		   ! curl -fsS -o "$gbl_cache/${gbl_f##*/}" "$gbl_mirror/$gbl_f"; then
			rm -f "$gbl_cache/${gbl_f##*/}"
			echo "cannot fetch $gbl_mirror/$gbl_f" >&2
			return 1
		fi
		dpkg-deb -x "$gbl_cache/${gbl_f##*/}" "$gbl_dest" || return 1
	done
}

# gst_cc BUILD ROOT SOURCE OBJECT [FLAG...]: a C file of gst/ compiled as
# BUILD compiles the plugin (its config.h and CUDA flags), against the
# GStreamer headers unpacked under ROOT instead of the system's.
gst_cc() {
	gbl_build=$1 gbl_root=$2 gbl_src=$3 gbl_obj=$4
	shift 4
	# shellcheck disable=SC2046 # the flags are words
	gcc -DHAVE_CONFIG_H -I"$gbl_build" -I. -Iinclude -I"$gbl_build/include" -Icommon -Igst \
		$(sed -n 's/^CUDA_CFLAGS = //p' "$gbl_build/Makefile") \
		-isystem "$gbl_root/usr/include/gstreamer-1.0" \
		-isystem "$gbl_root/usr/lib/x86_64-linux-gnu/gstreamer-1.0/include" \
		$(pkg-config --cflags glib-2.0 gobject-2.0) -pthread -DGST_USE_UNSTABLE_API \
		-Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
		-Wno-missing-field-initializers -fno-common -fvisibility=hidden -g -O2 -fPIC \
		"$@" -c -o "$gbl_obj" "$gbl_src"
}

# gst_version ROOT: the version of the GStreamer headers under ROOT.
gst_version() {
	sed -n 's/^#define GST_VERSION_\(MAJOR\|MINOR\|MICRO\) (\([0-9]*\))/\2/p' \
		"$1/usr/include/gstreamer-1.0/gst/gstversion.h" | paste -sd.
}
