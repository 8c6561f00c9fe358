#!/bin/sh
# make install writes under the prefix and nowhere else: installed into a
# staging directory (DESTDIR), every file must lie under DESTDIR/PREFIX,
# or under a directory configure was given outside it on purpose
# (--libdir=DIR, --with-gstreamer-plugindir=DIR, ...). A directory that
# configure takes from somewhere else by default (the pluginsdir of the
# system's GStreamer, say) lands outside, and a user's install into a
# prefix of their own would write there, or fail without root.
# The GStreamer plugin, where it is built, goes into LIBDIR/gstreamer-1.0
# by default, and GStreamer loads it from there with GST_PLUGIN_PATH.
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
: "${glcuda_prefix:?run from make check}"
: "${glcuda_libdir:?run from make check}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The directories configure was told (config.status --config prints its
# arguments, quoted for the shell).
allowed=$glcuda_prefix
plugindir_given=no
eval "set -- $("$top_builddir/config.status" --config)"
for arg; do
	case $arg in
	--with-gstreamer-plugindir=*)
		plugindir_given=yes
		allowed="$allowed
${arg#*=}" ;;
	--exec-prefix=* | --*dir=*)
		case $arg in --srcdir=* | --cache-file=*) continue ;; esac
		allowed="$allowed
${arg#*=}" ;;
	esac
done

. "$top_srcdir/tests/install-stage.sh"

(cd "$stage" && find . ! -type d | sed 's/^\.//') > "$tmp/files"
if [ ! -s "$tmp/files" ]; then
	echo "FAIL: make install DESTDIR=$stage installed nothing"
	exit 1
fi
outside=0
while read -r file; do
	ok=no
	while read -r dir; do
		case $file in "${dir%/}"/*) ok=yes; break ;; esac
	done <<EOF
$allowed
EOF
	if [ $ok = no ]; then
		echo "FAIL: installed outside the prefix $glcuda_prefix: $file"
		outside=$((outside + 1))
	fi
done < "$tmp/files"
if [ $outside -ne 0 ]; then
	echo "FAIL: $outside of $(wc -l < "$tmp/files") files installed outside the prefix"
	exit 1
fi
echo "ok: all $(wc -l < "$tmp/files") files installed under $(echo "$allowed" | tr '\n' ' ')"

# The plugin: where it is built (not in the sanitizer build), in
# LIBDIR/gstreamer-1.0 unless configure was told otherwise, and GStreamer
# loads it from there (GST_PLUGIN_PATH; only there: no system plugins) and
# knows its licence.
# The prefix check above holds either way; a SKIP says that the plugin's
# half did not run (tests/expected-skips says where that is allowed).
if [ ! -e "$top_builddir/gst/libgstglcuda.la" ]; then
	echo "SKIP: the GStreamer plugin is not built here (configure says why)"
	exit 77
fi
if [ $plugindir_given = yes ]; then
	plugin=$(grep '/libgstglcuda\.so$' "$tmp/files" || true)
else
	plugin=$glcuda_libdir/gstreamer-1.0/libgstglcuda.so
fi
if [ -z "$plugin" ] || [ ! -e "$stage$plugin" ]; then
	echo "FAIL: the GStreamer plugin is not installed as ${plugin:-libgstglcuda.so}"
	exit 1
fi
if ! command -v gst-inspect-1.0 > /dev/null; then
	echo "SKIP: no gst-inspect-1.0 to load $plugin (gstreamer1.0-tools)"
	exit 77
fi
# The installed plugin finds libglcuda through its RPATH, which names the
# real libdir, not the staging directory's.
if ! GST_PLUGIN_PATH=$stage${plugin%/*} GST_PLUGIN_SYSTEM_PATH_1_0= GST_PLUGIN_SYSTEM_PATH= \
	GST_REGISTRY=$tmp/registry.bin GST_DEBUG=GST_PLUGIN_LOADING:4 GST_DEBUG_NO_COLOR=1 \
	LD_LIBRARY_PATH=$stage$glcuda_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	gst-inspect-1.0 glcuda > "$tmp/inspect.log" 2>&1; then
	grep -v 'GST_PLUGIN_LOADING' "$tmp/inspect.log"
	grep -i 'glcuda' "$tmp/inspect.log"
	echo "FAIL: gst-inspect-1.0 does not load the installed plugin (GST_PLUGIN_PATH=$stage${plugin%/*})"
	exit 1
fi
if grep -i 'unknown license' "$tmp/inspect.log"; then
	echo "FAIL: GStreamer does not know the plugin's licence"
	exit 1
fi
grep -E '^ *(Filename|License) ' "$tmp/inspect.log"
echo "ok: GStreamer loads the installed plugin from $plugin with GST_PLUGIN_PATH"
