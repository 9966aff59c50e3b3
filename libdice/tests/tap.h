/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The TAP producer of the C tests lives in testlib/tap.h, shared by every
 * tier; this name stays for the programs and Makefiles that include it
 * from here (libdice/tests, kmod/tests).
 */
#include "../../testlib/tap.h"
