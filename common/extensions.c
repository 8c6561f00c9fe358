/*
 * Extension strings: whole-word lookup.
 * SPDX-License-Identifier: MIT
 */
#include "extensions.h"

#include <string.h>

bool
tools_extension_list_has(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	if (!list || len == 0)
		return false;
	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
		p += len;
	}
	return false;
}
