/*
 * glcuda-compositor: the keyboard's keymap, compiled by libxkbcommon from
 * xkb-data's layouts (rules evdev, model pc105, layout us, or what the
 * XKB_DEFAULT_* variables say), as every client receives it
 * (wl_keyboard.keymap: a sealed memfd holding its text), the state of
 * its modifiers, and the keys that type a character or a named keysym.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include "seat/seat.h"
#include "comp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xkbcommon/xkbcommon.h>

/* The offset between evdev codes (wl_keyboard.key) and XKB keycodes. */
#define EVDEV_OFFSET 8

struct keymap {
	struct xkb_context *context;
	struct xkb_keymap *keymap;
	struct xkb_state *state;
	int fd;
	uint32_t size;
};

void
keymap_destroy(struct keymap *k)
{
	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	xkb_state_unref(k->state);
	xkb_keymap_unref(k->keymap);
	xkb_context_unref(k->context);
	free(k);
}

/* The keymap's text in a memfd sealed against writes and resizing: every
 * client maps the same one, none can change it. */
static int
keymap_make_fd(struct keymap *k)
{
	char *text =
		xkb_keymap_get_as_string(k->keymap, XKB_KEYMAP_FORMAT_TEXT_V1);
	size_t len, off = 0;

	if (!text) {
		fprintf(stderr,
			COMP_NAME ": xkb_keymap_get_as_string failed\n");
		return -1;
	}
	len = strlen(text) + 1;
	k->fd = memfd_create("glcuda-compositor-keymap",
			     MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (k->fd < 0) {
		fprintf(stderr, COMP_NAME ": memfd_create for the keymap: %s\n",
			strerror(errno));
		free(text);
		return -1;
	}
	while (off < len) {
		ssize_t n = write(k->fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, COMP_NAME ": writing the keymap: %s\n",
				strerror(errno));
			free(text);
			return -1;
		}
		off += (size_t)n;
	}
	free(text);
	if (fcntl(k->fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) <
	    0) {
		fprintf(stderr, COMP_NAME ": sealing the keymap: %s\n",
			strerror(errno));
		return -1;
	}
	k->size = (uint32_t)len;
	return 0;
}

struct keymap *
keymap_new(void)
{
	struct keymap *k = calloc(1, sizeof(*k));
	/* NULL fields: XKB_DEFAULT_RULES, _MODEL, _LAYOUT, _VARIANT,
	 * _OPTIONS, else evdev, pc105, us. */
	struct xkb_rule_names names = { 0 };

	if (!k) {
		fprintf(stderr, COMP_NAME ": out of memory\n");
		return NULL;
	}
	k->fd = -1;
	k->context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	if (!k->context) {
		fprintf(stderr, COMP_NAME ": xkb_context_new failed\n");
		goto fail;
	}
	k->keymap = xkb_keymap_new_from_names(k->context, &names,
					      XKB_KEYMAP_COMPILE_NO_FLAGS);
	if (!k->keymap) {
		fprintf(stderr, COMP_NAME
			": cannot compile the keymap (rules evdev, layout us, "
			"or XKB_DEFAULT_*): is xkb-data installed (Debian: "
			"apt-get install xkb-data)?\n");
		goto fail;
	}
	k->state = xkb_state_new(k->keymap);
	if (!k->state) {
		fprintf(stderr, COMP_NAME ": xkb_state_new failed\n");
		goto fail;
	}
	if (keymap_make_fd(k) < 0)
		goto fail;
	return k;
fail:
	keymap_destroy(k);
	return NULL;
}

int
keymap_get_fd(const struct keymap *k, uint32_t *size)
{
	*size = k->size;
	return k->fd;
}

/* The key that gives sym on the first layout at level 0 (no modifier) or
 * level 1 (Shift). A keymap has at most 256 keycodes here (evdev). */
static bool
find_keysym(const struct keymap *k, xkb_keysym_t sym, uint32_t *code,
	    bool *shift)
{
	xkb_keycode_t min = xkb_keymap_min_keycode(k->keymap);
	xkb_keycode_t max = xkb_keymap_max_keycode(k->keymap);

	for (int level = 0; level < 2; level++)
		for (xkb_keycode_t kc = min;
		     kc <= max && kc < 256 + EVDEV_OFFSET; kc++) {
			const xkb_keysym_t *syms;
			int n = xkb_keymap_key_get_syms_by_level(
				k->keymap, kc, 0, (xkb_level_index_t)level,
				&syms);

			if (kc < EVDEV_OFFSET)
				continue;
			for (int i = 0; i < n; i++)
				if (syms[i] == sym) {
					*code = kc - EVDEV_OFFSET;
					*shift = level == 1;
					return true;
				}
		}
	return false;
}

bool
keymap_key_for_name(const struct keymap *k, const char *name, uint32_t *code,
		    bool *shift)
{
	xkb_keysym_t sym = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS);

	if (sym == XKB_KEY_NoSymbol)
		sym = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE);
	return sym != XKB_KEY_NoSymbol && find_keysym(k, sym, code, shift);
}

bool
keymap_key_for_char(const struct keymap *k, uint32_t ucs4, uint32_t *code,
		    bool *shift)
{
	xkb_keysym_t sym;

	/* Control characters: the keys that send them. */
	if (ucs4 == '\n' || ucs4 == '\r')
		sym = XKB_KEY_Return;
	else if (ucs4 == '\t')
		sym = XKB_KEY_Tab;
	else
		sym = xkb_utf32_to_keysym(ucs4);
	return sym != XKB_KEY_NoSymbol && find_keysym(k, sym, code, shift);
}

bool
keymap_shift_key(const struct keymap *k, uint32_t *code)
{
	bool shift;

	return find_keysym(k, XKB_KEY_Shift_L, code, &shift);
}

bool
keymap_update(struct keymap *k, uint32_t code, bool pressed,
	      struct key_mods *mods)
{
	enum xkb_state_component changed =
		xkb_state_update_key(k->state, code + EVDEV_OFFSET,
				     pressed ? XKB_KEY_DOWN : XKB_KEY_UP);

	keymap_get_mods(k, mods);
	return changed != 0;
}

void
keymap_get_mods(const struct keymap *k, struct key_mods *mods)
{
	mods->depressed =
		xkb_state_serialize_mods(k->state, XKB_STATE_MODS_DEPRESSED);
	mods->latched =
		xkb_state_serialize_mods(k->state, XKB_STATE_MODS_LATCHED);
	mods->locked =
		xkb_state_serialize_mods(k->state, XKB_STATE_MODS_LOCKED);
	mods->group = xkb_state_serialize_layout(k->state,
						 XKB_STATE_LAYOUT_EFFECTIVE);
}
