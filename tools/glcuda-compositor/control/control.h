/*
 * glcuda-compositor's control socket (control.c), through which tests
 * drive the seat and wait for frames.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_CONTROL_H
#define GLCUDA_COMPOSITOR_CONTROL_H

struct comp;

/* control.c: the control socket. */
int control_init(struct comp *c);
void control_fini(struct comp *c);

#endif
