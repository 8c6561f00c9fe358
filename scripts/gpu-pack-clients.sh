#!/bin/sh
# Pack weston's demo clients, with what they need that the GPU machine
# lacks, for scripts/gpu-compositor-clients.sh. Run on the development
# machine (Debian 12 with the weston package) from the project root:
#
#     scripts/gpu-pack-clients.sh [DIR]
#
# DIR (default build-gpu/clients) gets:
#   bin/      the clients
#   lib/      the shared libraries they load (their ldd closure), less
#             glibc's own and GLVND's (libEGL, libGLESv2, libGLdispatch: the
#             runtime packages of .gl/ give those)
#   xkb/      the xkb data of the default keymap (evdev rules, pc105, us):
#             the toolkit clients refuse to start without an xkb directory
#   fonts/    DejaVu Sans and Sans Mono, regular and bold, and a fonts.conf
#             that names only them (titles, weston-terminal)
#   weston/   the toolkit's frame icons (WESTON_DATA_DIR): without them
#             every decorated client (clickdot, eventdemo, terminal...)
#             dies of a segmentation fault at its first frame
#   icons/    empty: no cursor theme (the compositor has no pointer, and
#             libwayland-cursor falls back on its built-in cursors)
#   run       `DIR/run CLIENT [ARGS]` runs a packed client with all the above
# The last lines say whether every library resolves inside DIR/lib or to
# glibc and GLVND, and how large DIR is.
# SPDX-License-Identifier: MIT
set -eu

dir=${1:-build-gpu/clients}
bindir=${WESTON_BINDIR:-/usr/bin}
datadir=${WESTON_DATADIR:-/usr/share/weston}
xkbdir=${XKB_DATADIR:-/usr/share/X11/xkb}
fontdir=${FONT_DIR:-/usr/share/fonts/truetype/dejavu}

# The clients scripts/gpu-compositor-clients.sh runs; simple-egl and
# subsurfaces need Wayland EGL and are there to show whether it exists.
clients="weston-simple-shm weston-simple-damage weston-presentation-shm weston-flower
	weston-clickdot weston-terminal weston-eventdemo weston-smoke weston-transformed
	weston-scaler weston-image weston-simple-egl weston-subsurfaces"
# Libraries the GPU machine has: glibc's, and GLVND's from .gl/*.deb.
system_libs="libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libutil.so.1
	ld-linux-x86-64.so.2 libresolv.so.2 libEGL.so.1 libGLESv2.so.2 libGLdispatch.so.0
	libGL.so.1 libGLX.so.0 libOpenGL.so.0"

is_system_lib() {
	for s in $system_libs; do
		[ "$1" = "$s" ] && return 0
	done
	return 1
}

for c in $clients; do
	if [ ! -x "$bindir/$c" ]; then
		echo "$bindir/$c not found: install Debian's weston package (apt-get install weston)" >&2
		exit 1
	fi
done
for f in icon_window.png sign_close.png sign_maximize.png sign_minimize.png wayland.png; do
	if [ ! -f "$datadir/$f" ]; then
		echo "$datadir/$f not found: install Debian's weston package" >&2
		exit 1
	fi
done
if [ ! -f "$xkbdir/rules/evdev" ]; then
	echo "$xkbdir/rules/evdev not found: install xkb-data" >&2
	exit 1
fi
for f in DejaVuSans.ttf DejaVuSans-Bold.ttf DejaVuSansMono.ttf DejaVuSansMono-Bold.ttf; do
	if [ ! -f "$fontdir/$f" ]; then
		echo "$fontdir/$f not found: install fonts-dejavu-core" >&2
		exit 1
	fi
done

rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib" "$dir/xkb/rules" "$dir/xkb/symbols" "$dir/fonts" \
	"$dir/weston" "$dir/icons"

# The clients and their libraries: ldd lists the whole closure.
for c in $clients; do
	cp "$bindir/$c" "$dir/bin/"
	ldd "$bindir/$c" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
	while read -r name path; do
		is_system_lib "$name" && continue
		[ -e "$dir/lib/$name" ] && continue
		# The file the soname points at, under the soname.
		cp -L "$path" "$dir/lib/$name"
	done
done

# xkb: what libxkbcommon reads for the default names (rules evdev, model
# pc105, layout us, no options).
cp -R "$xkbdir/keycodes" "$xkbdir/types" "$xkbdir/compat" "$dir/xkb/"
cp "$xkbdir/rules/evdev" "$dir/xkb/rules/"
for s in pc us inet keypad altwin srvr_ctrl; do
	cp "$xkbdir/symbols/$s" "$dir/xkb/symbols/"
done

for f in DejaVuSans.ttf DejaVuSans-Bold.ttf DejaVuSansMono.ttf DejaVuSansMono-Bold.ttf; do
	cp "$fontdir/$f" "$dir/fonts/"
done
cat >"$dir/fonts/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<!-- Only the fonts beside this file; the cache under $XDG_CACHE_HOME. -->
<fontconfig>
  <dir prefix="relative">.</dir>
  <cachedir prefix="xdg">fontconfig</cachedir>
  <alias><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias><family>sans</family><prefer><family>DejaVu Sans</family></prefer></alias>
</fontconfig>
EOF

# The frame icons, and an image for weston-image.
for f in icon_window.png sign_close.png sign_maximize.png sign_minimize.png wayland.png; do
	cp "$datadir/$f" "$dir/weston/"
done

cat >"$dir/run" <<'EOF'
#!/bin/sh
# DIR/run CLIENT [ARGS...]: run a client of DIR/bin with DIR's libraries,
# xkb data, fonts and icons, and nothing of the system's but glibc and GLVND.
d=$(cd "$(dirname "$0")" && pwd)
c=$1
shift
LD_LIBRARY_PATH=$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
XKB_CONFIG_ROOT=$d/xkb
FONTCONFIG_FILE=$d/fonts/fonts.conf
XCURSOR_PATH=$d/icons
WESTON_DATA_DIR=$d/weston
XDG_CACHE_HOME=${XDG_CACHE_HOME:-${TMPDIR:-/tmp}/weston-clients-cache}
export LD_LIBRARY_PATH XKB_CONFIG_ROOT FONTCONFIG_FILE XCURSOR_PATH WESTON_DATA_DIR XDG_CACHE_HOME
exec "$d/bin/$c" "$@"
EOF
chmod +x "$dir/run"

# Every library a client loads must now come from DIR/lib, glibc or GLVND.
bad=0
for c in $clients; do
	LD_LIBRARY_PATH=$dir/lib ldd "$dir/bin/$c" | awk '$2 == "=>" { print $1, $3 }' |
	while read -r name path; do
		case $path in
		"$dir"/lib/*) ;;
		*)
			if ! is_system_lib "$name"; then
				echo "$c: $name resolves to $path, outside $dir/lib" >&2
				exit 1
			fi ;;
		esac
	done || bad=1
done
if [ $bad -ne 0 ]; then
	echo "the pack is incomplete" >&2
	exit 1
fi
echo "packed $(ls "$dir/bin" | wc -l) clients and $(ls "$dir/lib" | wc -l) libraries into $dir; every other library they load is glibc's or GLVND's"
du -sh "$dir"
