/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - what the files of libdice._ext share
 *
 * One .c per object, as in libgpiod's bindings: module.c (the module, its
 * exceptions and functions), die.c (the Die type), notation.c (roll(),
 * distribution(), versus() over <dice_notation.h>; a roll goes through a
 * Die's handle with libdice_die_acquire() and libdice_die_release()),
 * errors.c (the exceptions, libdice_raise()): no two call each other.
 */
#ifndef LIBDICE_EXT_INTERNAL_H
#define LIBDICE_EXT_INTERNAL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dice.h>

extern PyTypeObject libdice_die_type;

/* Exceptions of the module (errors.c): module.c makes them at import. */
extern PyObject *libdice_device_not_found_error;
extern PyObject *libdice_invalid_argument_error;
/* libdice.NotationError (a ValueError): notation.c raises it. */
extern PyObject *libdice_notation_error;

/* notation.c's functions, added to the module by module.c */
extern PyMethodDef libdice_notation_methods[];

/*
 * Raise the exception for a negative errno @err from libdice, @what naming
 * the call: an OSError subclass chosen by errno (FileNotFoundError,
 * PermissionError, ...), libdice.InvalidArgumentError (an OSError and a
 * ValueError) for -EINVAL.  Returns NULL, for "return libdice_raise(...)".
 */
PyObject *libdice_raise(int err, const char *what);

/*
 * Take @die's lock and return its handle, or raise ValueError and return
 * NULL when it is closed.  The lock serialises every libdice call on one
 * handle: the GIL is released around them, so two threads may otherwise
 * use the same struct dice at once.  Called with the GIL held; waits for
 * the lock without it.
 */
struct dice *libdice_die_acquire(PyObject *die);
void libdice_die_release(PyObject *die);

#endif /* LIBDICE_EXT_INTERNAL_H */
