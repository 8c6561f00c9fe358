/*
 * UUIDs as the tools print them: 8-4-4-4-12 lower-case hex digits, the
 * form nvidia-smi -L and vulkaninfo use, so that they can be compared by
 * eye.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_UUID_H
#define GLCUDA_TOOLS_UUID_H

#include <stdint.h>

#define UUID_STRING_SIZE 37

void tools_uuid_format(const uint8_t uuid[16], char out[UUID_STRING_SIZE]);

#endif
