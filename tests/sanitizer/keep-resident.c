/*
 * Linked into every program of the sanitizer build (--enable-sanitizers):
 * a dlclose() that never unloads the system's shared objects.
 * SPDX-License-Identifier: MIT
 *
 * LeakSanitizer looks for leaks at exit and names each allocating frame by
 * the module that holds its address. The EGL and Vulkan loaders dlclose()
 * Mesa's drivers when a display is terminated or an instance destroyed, so
 * by exit a leak inside a driver points into memory that no module holds
 * any more: "(<unknown module>)", which no suppression can match, and a
 * driver's own leak becomes indistinguishable from anyone else's.
 *
 * This definition, in the executable, comes first in the global scope, so
 * the loaders' calls reach it before libc's (or the sanitizer's interceptor,
 * which it calls next). Before passing the call on it marks the object
 * RTLD_NODELETE, so the driver stays mapped and its leaks keep their module
 * name, which tests/lsan.supp then suppresses by name, with the reason.
 * Reference counts, constructors and everything else about dlclose() stay
 * as they are: only the unmapping is skipped.
 *
 * Objects of the build tree (the fake CUDA driver, which tests reload to get
 * a fresh driver) unload as usual: only objects under /usr and /lib, the
 * system's drivers and loaders, are kept.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dlinfo, RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <link.h>
#include <string.h>

/* Libraries built against glibc 2.34 or newer ask for dlclose@GLIBC_2.34,
 * older ones for dlclose@GLIBC_2.2.5; the dynamic linker gives a versioned
 * reference only a definition of that version, so this one is exported
 * under both (tests/sanitizer/keep-resident.map names them for the link). */
/* Visible despite the build's -fvisibility=hidden: it must be exported. */
#define KEEP_RESIDENT_EXPORT __attribute__((visibility("default")))
KEEP_RESIDENT_EXPORT int keep_resident_dlclose(void *handle);
__asm__(".symver keep_resident_dlclose, dlclose@@GLIBC_2.34");
__asm__(".symver keep_resident_dlclose_old, dlclose@GLIBC_2.2.5");

static int (*next_dlclose)(void *);

__attribute__((constructor)) static void
keep_resident_init(void)
{
	next_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
}

static int
is_system_object(const char *path)
{
	return strncmp(path, "/usr/", 5) == 0 || strncmp(path, "/lib", 4) == 0;
}

int
keep_resident_dlclose(void *handle)
{
	struct link_map *map = NULL;

	if (!next_dlclose)
		keep_resident_init();
	if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name &&
	    is_system_object(map->l_name)) {
		/* Promotes the loaded object to RTLD_NODELETE; the extra
		 * reference this takes is never dropped, on purpose. */
		(void)dlopen(map->l_name,
			     RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
	}
	return next_dlclose(handle);
}

KEEP_RESIDENT_EXPORT int keep_resident_dlclose_old(void *handle)
	__attribute__((alias("keep_resident_dlclose")));
