#!/bin/sh
# glcuda loads the CUDA driver at run time (dlopen of libcuda.so.1): no
# library or program of the build may name libcuda or libcudart as a NEEDED
# entry, and no link line may ask for them. A program linked with glcuda
# must start on a machine without the NVIDIA driver.
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
status=0
checked=0

# Every ELF shared object and program the build made (libtool keeps the
# real ones in .libs/); the source tree's own files are not build output.
tmp=$(mktemp "${TMPDIR:-/tmp}/glcuda-elf.XXXXXX")
trap 'rm -f "$tmp"' EXIT
find "$top_builddir" -name .git -prune -o -name .gl -prune -o \
	-type f \( -name '*.so*' -o -perm -u+x \) -print > "$tmp" 2>/dev/null || :
while IFS= read -r f; do
	case $(od -An -c -N4 "$f" 2>/dev/null | tr -d ' ') in
	177ELF) ;;
	*) continue ;;
	esac
	checked=$((checked + 1))
	needed=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	for n in $needed; do
		case $n in
		libcuda.so*|libcudart.so*)
			echo "FAIL: $f needs $n"
			status=1 ;;
		esac
	done
done < "$tmp"

lib=$top_builddir/lib/.libs/libglcuda.so
if [ -e "$lib" ]; then
	echo "ok: $lib: NEEDED $(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
fi

# The link lines: the generated Makefile, the fragments it came from, and the
# pkg-config file (-lcuda also matches -lcudart).
for f in "$top_builddir/Makefile" "$top_srcdir/Makefile.am" \
	"$top_srcdir"/*/*.mk "$top_builddir/pkgconfig/glcuda.pc" \
	"$top_srcdir/configure.ac"; do
	[ -f "$f" ] || continue
	if grep -n -e '-lcuda' "$f"; then
		echo "FAIL: $f links the CUDA driver or runtime"
		status=1
	fi
done

[ $status -eq 0 ] && echo "ok: $checked ELF files, none needs libcuda or libcudart"
exit $status
