/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* The die core's exports for its KUnit suite: nothing to export here. */
#ifndef _DICE_USERSPACE_KUNIT_VISIBILITY_H
#define _DICE_USERSPACE_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol)

#endif
