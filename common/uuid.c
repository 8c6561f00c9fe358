/*
 * UUIDs as the tools print them (see uuid.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "uuid.h"

void
tools_uuid_format(const uint8_t uuid[16], char out[UUID_STRING_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	char *p = out;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex[uuid[i] >> 4];
		*p++ = hex[uuid[i] & 15];
	}
	*p = '\0';
}
