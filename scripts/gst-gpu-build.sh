#!/bin/sh
# Build the GStreamer plugin for the GPU machine, on the development
# machine (Debian 12), from the project root:
#
#     scripts/gst-gpu-build.sh [CONFIGURE-OPTIONS...]
#
# The GPU machine has no GStreamer. This prepares, in build-gst-gpu/stage/,
# a tree that runs there from any path:
#
#   root/     GStreamer 1.22 of Debian 12 as it runs: gst-launch-1.0,
#             gst-inspect-1.0, the plugin scanner, the plugins the GPU
#             scripts use (coreelements, videotestsrc, videoconvertscale,
#             app, opengl, and plugins-bad's nvcodec: cudaupload,
#             cudadownload, cudaconvert, cudascale, which dlopen libcuda)
#             in root/plugins/, and every library they need that an
#             Ubuntu 24.04 image may lack. Only glibc and the GCC runtime
#             (newer there) and the GL dispatch libraries (.gl/*.deb, which
#             scripts/gst-gpu-test.sh unpacks as the other GPU scripts do)
#             are left out.
#   glcuda/   libglcuda.so (shared) and libgstglcuda.so, from `make install
#             DESTDIR=`, built in build-gst-gpu/ with the CUDA kernels.
#   bin/      tests/gst-states, which prints the element's stats, and
#             invert-planes.fatbin (examples/gstreamer/invert-planes.cu,
#             the example of a kernel of the user's run once per plane)
#             where nvcc is found.
#
# The .deb files come from Debian's archive through `apt-get download` into
# .gl/gst/ (kept there: .gl/ is not in git); each is unpacked into
# build-gst-gpu/debs/ and only the files reached from the programs and
# plugins above (their DT_NEEDED, transitively) are copied into the stage.
# The stage needs LD_LIBRARY_PATH and GST_PLUGIN_SYSTEM_PATH pointing into
# it (scripts/gst-gpu-test.sh sets them); nothing in it names this
# machine's paths. Options given here are passed to configure.
set -eu

if [ ! -f configure.ac ] || [ ! -f gst/gstglcudafilter.c ]; then
	echo "run from the glcuda project root" >&2
	exit 1
fi
for tool in apt-get dpkg-deb readelf; do
	command -v $tool >/dev/null 2>&1 || { echo "$tool not found" >&2; exit 1; }
done

# base_sonames, needed, closure (with find_lib below).
. scripts/gst-build-lib.sh

top=$(pwd)
debdir=$top/.gl/gst
out=$top/build-gst-gpu
unpacked=$out/debs
stage=$out/stage
multiarch=x86_64-linux-gnu

# 1. GStreamer's packages, and the libraries they need, as .deb files.
packages="libgstreamer1.0-0 gstreamer1.0-tools libgstreamer-plugins-base1.0-0
	gstreamer1.0-plugins-base libgstreamer-gl1.0-0 gstreamer1.0-gl
	gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-0"
# The files the GPU scripts run (relative to the unpacked tree).
plugins="libgstcoreelements.so libgstvideotestsrc.so libgstvideoconvertscale.so
	libgstapp.so libgstopengl.so libgstnvcodec.so"
programs="usr/bin/gst-launch-1.0 usr/bin/gst-inspect-1.0
	usr/lib/$multiarch/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner"

mkdir -p "$debdir" "$unpacked"
# fetch PACKAGE...: download (once) and unpack.
fetch() {
	(cd "$debdir" && for p in "$@"; do
		ls "${p}"_*.deb >/dev/null 2>&1 || apt-get download "$p" || exit 1
	done) || { echo "apt-get download failed" >&2; exit 1; }
	for p in "$@"; do
		for f in "$debdir/${p}"_*.deb; do
			dpkg-deb -x "$f" "$unpacked"
		done
	done
}
fetch $packages

# find_lib SONAME: its path in the unpacked tree, or nothing.
find_lib() {
	for d in "$unpacked/usr/lib/$multiarch" "$unpacked/lib/$multiarch" \
		"$unpacked/usr/lib/$multiarch/gstreamer-1.0" "$stage/glcuda"; do
		if [ -e "$d/$1" ]; then
			echo "$d/$1"
			return
		fi
	done
}

# 2. The closure of DT_NEEDED from the programs and plugins (and from
# glcuda's library and plugin, checked after they are built). A library
# the unpacked packages lack comes from the package that ships it on this
# machine (dpkg -S), downloaded like the others; rounds until none lacks.
roots=""
for p in $programs; do roots="$roots $unpacked/$p"; done
for p in $plugins; do roots="$roots $unpacked/usr/lib/$multiarch/gstreamer-1.0/$p"; done
round=0
while :; do
	closure $roots
	[ -z "$missing" ] && break
	round=$((round + 1))
	if [ $round -gt 8 ]; then
		echo "libraries still missing after 8 rounds:$missing" >&2
		exit 1
	fi
	pkgs=""
	for so in $missing; do
		pkg=$(dpkg -S "*/$multiarch/$so" 2>/dev/null | sed -n '1s/:.*//p')
		if [ -z "$pkg" ]; then
			echo "no installed package ships $so (needed by the GStreamer tree)" >&2
			exit 1
		fi
		case " $pkgs " in *" $pkg "*) ;; *) pkgs="$pkgs $pkg" ;; esac
	done
	echo "libraries for:$missing"
	echo "  from:$pkgs"
	fetch $pkgs
done
libs=$seen

# 3. glcuda, shared, with the kernels, installed into the stage.
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi
fi
cd "$out"
# A prefix that exists on neither machine: the stage is found through
# LD_LIBRARY_PATH and GST_PLUGIN_SYSTEM_PATH, never through a path built in.
prefix=/opt/glcuda-gst
if [ ! -f Makefile ] || [ $# -gt 0 ]; then
	../configure --prefix=$prefix --enable-shared --disable-static --enable-gstreamer=yes \
		--with-gstreamer-plugindir=$prefix/lib/gstreamer-1.0 "$@"
fi
make -j8
make -j8 tests/gst-states
if grep -q '^#define HAVE_NVCC 1' config.h; then
	make examples/gstreamer/invert-planes.fatbin
fi
rm -rf "$stage"
make install-libLTLIBRARIES install-gstpluginLTLIBRARIES DESTDIR="$stage/install" >/dev/null
mkdir -p "$stage/glcuda" "$stage/bin" "$stage/root/lib" "$stage/root/bin" "$stage/root/plugins" \
	"$stage/root/libexec"
cp -a "$stage/install$prefix/lib/." "$stage/glcuda/"
rm -rf "$stage/install"
rm -f "$stage/glcuda/"*.la "$stage/glcuda/gstreamer-1.0/"*.la
# gst-states links GStreamer only (no libtool library): a plain program.
if head -c 4 tests/gst-states | grep -q ELF; then
	cp tests/gst-states "$stage/bin/"
else
	cp tests/.libs/gst-states "$stage/bin/"
fi
if [ -f examples/gstreamer/invert-planes.fatbin ]; then
	cp examples/gstreamer/invert-planes.fatbin "$stage/bin/"
fi

# glcuda's own NEEDED must be in the tree too.
closure $roots "$stage/glcuda/libglcuda.so.0" "$stage/glcuda/gstreamer-1.0/libgstglcuda.so" \
	"$stage/bin/gst-states"
if [ -n "$missing" ]; then
	echo "glcuda or gst-states needs libraries not in the tree:$missing" >&2
	echo "(run again: they are looked up with the GStreamer ones)" >&2
	exit 1
fi

# 4. The stage: the reached libraries (the file and its soname link), the
# plugins, the programs.
for so in $seen; do
	path=$(find_lib "$so")
	case $path in "$stage"/*) continue ;; esac
	cp -L "$path" "$stage/root/lib/$so"
done
for p in $plugins; do
	cp "$unpacked/usr/lib/$multiarch/gstreamer-1.0/$p" "$stage/root/plugins/"
done
cp "$unpacked/usr/bin/gst-launch-1.0" "$unpacked/usr/bin/gst-inspect-1.0" "$stage/root/bin/"
cp "$unpacked/usr/lib/$multiarch/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner" "$stage/root/libexec/"
cat > "$stage/README" <<EOF
glcuda's GStreamer plugin and Debian 12's GStreamer $(dpkg-deb -f "$debdir"/libgstreamer1.0-0_*.deb Version),
built by scripts/gst-gpu-build.sh; run with scripts/gst-gpu-test.sh (it sets
LD_LIBRARY_PATH=root/lib:glcuda, GST_PLUGIN_SYSTEM_PATH=root/plugins:glcuda/gstreamer-1.0,
GST_PLUGIN_SCANNER=root/libexec/gst-plugin-scanner).
EOF

echo "stage: $(du -sh "$stage" | cut -f1) in build-gst-gpu/stage ($(ls "$stage/root/lib" | wc -l) libraries);" \
	".gl: $(du -sh "$top/.gl" | cut -f1)"
echo "on the GPU machine, from the project root: scripts/gst-gpu-test.sh --unpack"
