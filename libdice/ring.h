/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ring.h - the call from a handle (dice.c) into its ring (ring.c)
 *
 * A ring reads the file of one device handle, and while it is open the
 * handle refuses configuration (struct dice's @ring).  The ring puts the
 * file in DICE_FMT_U64 through the handle, which keeps track of the file's
 * format (file.c's dice_file_format(), which both call); a handle closed
 * before its ring detaches it.  Beyond that call, dice_ring_detach() and
 * struct dice (internal.h), each file uses only the other's public
 * functions, and ring.c never calls dice.c.
 */
#ifndef _LIBDICE_RING_H
#define _LIBDICE_RING_H

#include <stdint.h>

struct dice;
struct dice_ring;

/* ring.c: @r's handle is being closed; dice_ring_close() must not touch it */
void dice_ring_detach(struct dice_ring *r);

#endif /* _LIBDICE_RING_H */
