/*
 * UUIDs as text.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "uuid.h"

void
uuid_format(const uint8_t uuid[16], char out[UUID_STRING_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	int o = 0;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[uuid[i] >> 4];
		out[o++] = hex[uuid[i] & 15];
	}
	out[o] = '\0';
}
