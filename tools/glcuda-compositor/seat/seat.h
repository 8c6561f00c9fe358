/*
 * glcuda-compositor's seat: wl_seat (seat.c), its keyboard's keymap
 * (keymap.c) and the clipboard (data-device.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_SEAT_H
#define GLCUDA_COMPOSITOR_SEAT_H

#include <stdbool.h>
#include <stdint.h>

#include <wayland-server-core.h>

struct comp;
struct surface;

/* The keyboard's modifiers, as wl_keyboard.modifiers sends them. */
struct key_mods {
	uint32_t depressed, latched, locked, group;
};

/* Keys and buttons held down at once: more are refused. */
#define SEAT_KEYS_MAX 32
#define SEAT_BUTTONS_MAX 16

/* A device's focus: NULL once the surface is destroyed. */
struct focus {
	struct surface *surface;
	struct wl_listener gone;
};

/* A grab of the seat's pointer (a popup's): the seat calls it, and knows
 * nothing else of who holds it. */
struct seat_grab;
struct seat_grab_interface {
	/* A button pressed over under (NULL: nothing), before the click
	 * focuses it. */
	void (*button)(struct seat_grab *grab, struct surface *under);
};
struct seat_grab {
	const struct seat_grab_interface *impl;
	struct comp *comp;
};

/* wl_seat: one pointer, one keyboard (seat.c). */
struct seat {
	struct seat_grab *grab;         /* NULL: none */
	struct wl_listener window_map;
	/* wl_pointer, wl_keyboard resources */
	struct wl_list pointers, keyboards;
	struct keymap *keymap;
	struct focus pointer_focus;     /* the surface under the pointer */
	struct focus keyboard_focus;    /* a toplevel's surface */
	double x, y;                    /* the pointer on the output */
	double sx, sy;                  /* and on its focus */
	uint32_t buttons[SEAT_BUTTONS_MAX];
	int n_buttons;
	uint32_t keys[SEAT_KEYS_MAX];   /* evdev codes */
	int n_keys;
	struct key_mods mods;
};

/* The clipboard (data-device.c). */
struct data_source;
struct clipboard {
	struct wl_list devices;         /* wl_data_device resources */
	struct data_source *selection;  /* NULL: none */
	struct wl_client *focus;        /* gets the selection; NULL: none */
	struct wl_listener focus_destroy;
};

/* data-device.c */
bool data_device_init(struct comp *c);
/* The client that gets the selection (NULL: none). */
void data_device_set_focus(struct comp *c, struct wl_client *client);

/* keymap.c: the keyboard's xkb keymap and state. */
struct keymap;
struct keymap *keymap_new(void);
void keymap_destroy(struct keymap *k);
/* The keymap's text, a sealed memfd of size bytes (the keymap's). */
int keymap_get_fd(const struct keymap *k, uint32_t *size);
/* The evdev code of the key that gives a keysym (by name: Return, a,
 * Shift_L) or a character, and whether Shift is needed. */
bool keymap_key_for_name(const struct keymap *k, const char *name,
			 uint32_t *code, bool *shift);
bool keymap_key_for_char(const struct keymap *k, uint32_t ucs4, uint32_t *code,
			 bool *shift);
bool keymap_shift_key(const struct keymap *k, uint32_t *code);
/* A key pressed or released: the modifiers now; true if they changed. */
bool keymap_update(struct keymap *k, uint32_t code, bool pressed,
		   struct key_mods *mods);
void keymap_get_mods(const struct keymap *k, struct key_mods *mods);

/* seat.c: wl_seat, driven by control.c. */
bool seat_init(struct comp *c);
void seat_fini(struct comp *c);
/* The pointer to x, y on the output (clamped): enter, leave, motion. */
void seat_pointer_move(struct comp *c, double x, double y);
/* false when the button already is in that state. A press focuses the
 * keyboard on the window under the pointer. */
bool seat_pointer_button(struct comp *c, uint32_t button, bool pressed);
/* Wheel steps, vertical and horizontal. */
void seat_pointer_scroll(struct comp *c, int32_t dx, int32_t dy);
/* false when the key already is in that state. */
bool seat_key(struct comp *c, uint32_t code, bool pressed);
/* The keyboard's focus to s's window (NULL: none). */
void seat_focus(struct comp *c, struct surface *s);
/* The pointer's grab: button presses go to it first. End: only if it is
 * the grab held. */
void seat_grab_begin(struct comp *c, struct seat_grab *grab);
void seat_grab_end(struct comp *c, struct seat_grab *grab);

#endif
