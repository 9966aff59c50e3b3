/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ring.h - the calls between a handle (dice.c) and its ring (ring.c)
 *
 * A ring reads the file of one device handle, and while it is open the
 * handle refuses configuration (struct dice's @ring).  The ring puts the
 * file in DICE_FMT_U64 through the handle, which keeps track of the file's
 * format; a handle closed before its ring detaches it.  Beyond these two
 * calls and struct dice (internal.h), each file uses only the other's
 * public functions.
 */
#ifndef _LIBDICE_RING_H
#define _LIBDICE_RING_H

#include <stdint.h>

struct dice;
struct dice_ring;

/* dice.c: the handle's file (or engine) in @format, a no-op when it is */
int dice_file_format(struct dice *d, uint32_t format);

/* ring.c: @r's handle is being closed; dice_ring_close() must not touch it */
void dice_ring_detach(struct dice_ring *r);

#endif /* _LIBDICE_RING_H */
