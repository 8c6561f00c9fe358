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

# debian_fetch, gst_cc, gst_version, closure.
. scripts/gst-build-lib.sh

suite=${GST_NEW_SUITE:-trixie}
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
rm -rf "$unpacked"
debian_fetch "$suite" "$debdir" "$unpacked" $runtime $dev
lib=$unpacked/usr/lib/$multiarch
version=$(gst_version "$unpacked")

# 2. The plugin against those headers, linked with the old build's
# kernels, common/ and libglcuda, and with the new GStreamer and GLib.
obj=$out/obj
rm -rf "$obj"
mkdir -p "$obj" "$out/link"
for src in gst/*.c; do
	gst_cc $old "$unpacked" "$src" "$obj/$(basename "$src" .c).o" -Werror
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
# is what the GPU machine has (base_sonames).
find_lib() {
	for d in "$stage/root/lib" "$stage/glcuda"; do
		if [ -e "$d/$1" ]; then
			echo "$d/$1"
			return
		fi
	done
}
closure "$stage"/root/bin/* "$stage"/root/libexec/* "$stage"/root/plugins/*.so \
	"$stage"/glcuda/gstreamer-1.0/libgstglcuda.so "$stage"/glcuda/libglcuda.so.* "$stage"/bin/gst-states
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
