#!/bin/sh
# embed-fatbin.sh NAME FATBIN: print an assembler file that embeds FATBIN as
#   const unsigned char NAME[];  const unsigned long NAME_size;
# so programs carry their CUDA kernels and load them with cuModuleLoadData.
set -e
name=$1
file=$2
cat <<ASM
	.section .rodata
	.balign 16
	.global $name
	.type $name, @object
$name:
	.incbin "$file"
${name}_end:
	.byte 0
	.balign 8
	.global ${name}_size
	.type ${name}_size, @object
${name}_size:
	.quad ${name}_end - $name
	.section .note.GNU-stack,"",@progbits
ASM
