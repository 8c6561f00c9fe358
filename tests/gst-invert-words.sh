# shellcheck shell=sh
# Sourced by tests/test-gst.sh and scripts/gst-gpu-test.sh: what
# glcudafilter's invert does to each format's words.
# invert_words FORMAT: sets size (the bytes of one word, as od reads them)
# and expr (an awk condition on a line "IN OUT": true where OUT is IN
# inverted): NV12 and I420 every byte 255 - v; P010_10LE every 16-bit
# word's 10 high bits inverted, the low 6 zero; RGB10A2_LE every 32-bit
# word's bits 0-29 inverted, alpha (30-31) kept; BGRA, BGRx and RGBx
# every pixel's bytes 0-2 inverted, byte 3 (alpha or x) kept.
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2034 # size and expr are for the caller
invert_words() {
	case $1 in
	NV12 | I420) size=1 expr='$2 == 255 - $1' ;;
	BGRA | BGRx | RGBx) size=4 expr='$2 == $1 - $1 % 16777216 + 16777215 - $1 % 16777216' ;;
	P010_10LE) size=2 expr='$2 == 65472 - ($1 - $1 % 64)' ;;
	RGB10A2_LE) size=4 expr='$2 == $1 - $1 % 1073741824 + 1073741823 - $1 % 1073741824' ;;
	esac
}
