// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * errors.c - libdice._ext's exceptions and libdice_raise(): libdice's
 * negative errno values as Python exceptions, in one place (module.c
 * creates the exception types at import; die.c and notation.c raise)
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

PyObject *libdice_device_not_found_error;
PyObject *libdice_invalid_argument_error;
PyObject *libdice_notation_error;

PyObject *libdice_raise(int err, const char *what)
{
	const char *hint = strcmp(what, "open") ? NULL : dice_open_hint(err);
	PyObject *type = PyExc_OSError, *exc;

	/* libdice checks arguments the Python layer cannot (a table's
	 * columns, a method the die has not): a ValueError too. */
	if (err == -EINVAL)
		type = libdice_invalid_argument_error;
	/* OSError(errno, text) picks the subclass from errno itself
	 * (FileNotFoundError, PermissionError, BlockingIOError, ...). */
	exc = PyObject_CallFunction(type, "is", -err, hint ? hint :
				    strerror(-err));
	if (!exc)
		return NULL;
	PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_DECREF(exc);
	return NULL;
}

