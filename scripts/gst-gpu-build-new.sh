#!/bin/bash
# The GPU machine's GStreamer tree of scripts/gst-gpu-build.sh, with a newer
# GStreamer: Debian 13's (1.26), whose GstCudaMemory carries a stream, and
# glcuda's plugin built against it (its code for GStreamer 1.24 and later).
# On the development machine (Debian 12), from the project root, after
# scripts/gst-gpu-build.sh:
#
#     scripts/gst-gpu-build-new.sh
#
# It writes build-gst-new/stage/: a copy of build-gst-gpu/stage/ in which
# GStreamer's programs, plugins and libraries, GLib, ORC and the few
# libraries GLib needs are Debian 13's, and glcuda/gstreamer-1.0/
# libgstglcuda.so is gst/*.c compiled against Debian 13's GStreamer
# headers (with build-gst-gpu/'s config.h and flags) and linked with the
# rest of build-gst-gpu/'s plugin (the CUDA kernels, common/) and its
# libglcuda. Run it there with GST_GPU_STAGE pointing at it:
#
#     GST_GPU_STAGE=build-gst-new/stage scripts/gst-gpu-test.sh
#
# Debian 13's libraries need glibc 2.39 (the GPU machine's Ubuntu 24.04
# has it; Debian 12 has 2.36, so the stage does not run here without
# Debian 13's own loader). The .deb files come from deb.debian.org with
# curl into .gl/gst-new/ (kept there: .gl/ is not in git).
# GST_NEW_SUITE picks the Debian suite (default trixie).
# SPDX-License-Identifier: MIT
set -euo pipefail

if [ ! -f configure.ac ] || [ ! -f gst/gstglcudafilter.c ]; then
	echo "run from the glcuda project root" >&2
	exit 1
fi
old=build-gst-gpu
if [ ! -x $old/stage/root/bin/gst-launch-1.0 ] || ! grep -q '^#define HAVE_GST_CUDA 1' $old/config.h; then
	echo "no $old/stage with GStreamer's CUDA memory: run scripts/gst-gpu-build.sh first" >&2
	exit 1
fi
for tool in curl xz dpkg-deb readelf gcc; do
	command -v $tool >/dev/null 2>&1 || { echo "$tool not found" >&2; exit 1; }
done

suite=${GST_NEW_SUITE:-trixie}
mirror=http://deb.debian.org/debian
multiarch=x86_64-linux-gnu
debdir=$(pwd)/.gl/gst-new
out=$(pwd)/build-gst-new
unpacked=$out/debs
stage=$out/stage

# 1. The packages, as .deb files: GStreamer's, what its libraries and
# GLib need beyond the old stage (which keeps every other library), and
# the development files of GStreamer for the plugin.
runtime="libgstreamer1.0-0 gstreamer1.0-tools libgstreamer-plugins-base1.0-0
	gstreamer1.0-plugins-base libgstreamer-gl1.0-0 gstreamer1.0-gl
	gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-0 libglib2.0-0t64
	liborc-0.4-0t64 libatomic1 libmount1 libselinux1 libblkid1 libpcre2-8-0
	libffi8 zlib1g"
dev="libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev"
mkdir -p "$debdir" "$out"
curl -fsS "$mirror/dists/$suite/main/binary-amd64/Packages.xz" | xz -dc > "$out/Packages"
rm -rf "$unpacked"
mkdir -p "$unpacked"
for p in $runtime $dev; do
	f=$(awk -v p="$p" '$0 == "Package: " p { x = 1 } x && /^Filename:/ { print $2; exit }' "$out/Packages")
	if [ -z "$f" ]; then
		echo "$p is not in $suite" >&2
		exit 1
	fi
	[ -e "$debdir/$(basename "$f")" ] || curl -fsS -o "$debdir/$(basename "$f")" "$mirror/$f"
	dpkg-deb -x "$debdir/$(basename "$f")" "$unpacked"
done
lib=$unpacked/usr/lib/$multiarch
inc=$unpacked/usr/include/gstreamer-1.0
version=$(sed -n 's/^#define GST_VERSION_\(MAJOR\|MINOR\|MICRO\) (\([0-9]*\))/\2/p' "$inc/gst/gstversion.h" | paste -sd.)

# 2. The plugin against those headers, linked with the old build's
# kernels, common/ and libglcuda, and with the new GStreamer and GLib.
obj=$out/obj
rm -rf "$obj"
mkdir -p "$obj" "$out/link"
for src in gst/*.c; do
	gcc -DHAVE_CONFIG_H -I$old -I. -Iinclude -I$old/include -Icommon -Igst \
		$(sed -n 's/^CUDA_CFLAGS = //p' $old/Makefile) \
		-isystem "$inc" -isystem "$lib/gstreamer-1.0/include" \
		$(pkg-config --cflags glib-2.0 gobject-2.0) -pthread -DGST_USE_UNSTABLE_API \
		-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Werror \
		-fno-common -fvisibility=hidden -g -O2 -fPIC \
		-c -o "$obj/$(basename "$src" .c).o" "$src"
done
for l in gstcuda-1.0 gstgl-1.0 gstvideo-1.0 gstbase-1.0 gstreamer-1.0 gobject-2.0 gmodule-2.0 glib-2.0; do
	ln -sf "$lib/lib$l.so.0" "$out/link/lib$l.so"
done
# Debian 13's libraries reference glibc 2.38 and 2.39 symbols that this
# machine's glibc lacks: resolved at run time there, not checked here.
gcc -shared -fPIC -o "$out/libgstglcuda.so" "$obj"/*.o \
	$old/gst/.libs/libgstglcuda_la-glcudafilter-kernels-fatbin.o \
	-Wl,--whole-archive $old/common/.libs/libfilters.a $old/common/.libs/libglcuda-common.a \
	-Wl,--no-whole-archive -L$old/lib/.libs -lglcuda -L"$out/link" -lgstcuda-1.0 -lgstgl-1.0 \
	-lgstvideo-1.0 -lgstbase-1.0 -lgstreamer-1.0 -lgobject-2.0 -lgmodule-2.0 -lglib-2.0 \
	-lGLESv2 -lGL -lEGL -lepoxy -lm -pthread -Wl,-z,defs -Wl,--allow-shlib-undefined \
	-Wl,--version-script=<(printf '{ global: gst_plugin_*; local: *; };\n')

# 3. The stage: the old one, with the new GStreamer, GLib and plugin.
rm -rf "$stage"
cp -a $old/stage "$stage"
cp -a "$lib"/libgst*-1.0.so.0* "$stage/root/lib/"
for l in glib-2.0 gobject-2.0 gio-2.0 gmodule-2.0 gthread-2.0 orc-0.4 atomic mount selinux \
	blkid pcre2-8 ffi z; do
	cp -a "$lib/lib$l.so."* "$stage/root/lib/"
done
for p in "$stage"/root/plugins/*.so; do
	cp "$lib/gstreamer-1.0/$(basename "$p")" "$p"
done
cp "$unpacked/usr/bin/gst-launch-1.0" "$unpacked/usr/bin/gst-inspect-1.0" "$stage/root/bin/"
cp "$lib/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner" "$stage/root/libexec/"
cp "$out/libgstglcuda.so" "$stage/glcuda/gstreamer-1.0/libgstglcuda.so"

# Every DT_NEEDED reached from the programs and plugins is in the stage or
# is what the GPU machine has (glibc, the GCC runtime, .gl/*.deb's GL
# dispatch, libepoxy, the Vulkan loader).
base=" linux-vdso.so.1 ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0
	librt.so.1 libresolv.so.2 libgcc_s.so.1 libstdc++.so.6 libEGL.so.1 libGL.so.1
	libGLESv2.so.2 libGLX.so.0 libGLdispatch.so.0 libOpenGL.so.0 libepoxy.so.0 libvulkan.so.1 "
base=" $(echo $base) "
todo=$(echo "$stage"/root/bin/* "$stage"/root/libexec/* "$stage"/root/plugins/*.so \
	"$stage"/glcuda/gstreamer-1.0/libgstglcuda.so "$stage"/glcuda/libglcuda.so.* "$stage"/bin/gst-states)
seen=" "
missing=
while [ -n "$todo" ]; do
	next=
	for f in $todo; do
		for so in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case "$base$seen" in *" $so "*) continue ;; esac
			seen="$seen$so "
			if [ -e "$stage/root/lib/$so" ]; then
				next="$next $stage/root/lib/$so"
			elif [ -e "$stage/glcuda/$so" ]; then
				next="$next $stage/glcuda/$so"
			else
				missing="$missing $so"
			fi
		done
	done
	todo=$next
done
if [ -n "$missing" ]; then
	echo "libraries the stage lacks:$missing" >&2
	exit 1
fi
cat > "$stage/README" <<EOF
glcuda's GStreamer plugin and Debian's GStreamer $version ($suite), built by
scripts/gst-gpu-build-new.sh over the tree of scripts/gst-gpu-build.sh; run
with GST_GPU_STAGE=<this directory> scripts/gst-gpu-test.sh (or
bench/gst-bench.sh) on a machine with glibc 2.39 or newer.
EOF
echo "build-gst-new/stage: GStreamer $version ($suite), $(du -sh "$stage" | cut -f1)"
