/*
 * UUIDs as text (uuid.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_UUID_H
#define GLCUDA_UUID_H

#include <stdint.h>

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and its terminator. */
#define UUID_STRING_SIZE 37
/* The 16 bytes of a device or driver UUID as text, lower-case. */
void uuid_format(const uint8_t uuid[16], char out[UUID_STRING_SIZE]);

#endif
