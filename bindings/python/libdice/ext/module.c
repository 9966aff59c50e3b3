// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * module.c - libdice._ext: the module, its exceptions and its functions
 *
 * The C half of the libdice Python package (libdice/__init__.py is the
 * other): a thin layer over libdice's C API, as libgpiod's gpiod._ext is
 * over libgpiod.  Errors are libdice's negative errno values turned into
 * Python exceptions in one place, errors.c's libdice_raise().
 *
 * Sections: functions, the module.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* ---- functions ----------------------------------------------------------- */

static PyObject *method_name(PyObject *Py_UNUSED(module), PyObject *arg)
{
	unsigned long method = PyLong_AsUnsignedLong(arg);
	const char *name;

	if (PyErr_Occurred()) {
		if (!PyErr_ExceptionMatches(PyExc_OverflowError))
			return NULL;
		PyErr_Clear();
		Py_RETURN_NONE;		/* negative or huge: no method */
	}
	name = method > UINT32_MAX ? NULL : dice_method_name((uint32_t)method);
	if (!name)
		Py_RETURN_NONE;
	return PyUnicode_FromString(name);
}

static PyObject *method_parse(PyObject *Py_UNUSED(module), PyObject *arg)
{
	Py_ssize_t len;
	const char *name = PyUnicode_AsUTF8AndSize(arg, &len);
	uint32_t method;
	int err;

	if (!name)
		return NULL;
	/* "alias\0junk" is no name: C would stop at the NUL. */
	err = strlen(name) == (size_t)len ? dice_method_parse(name, &method) :
					    -EINVAL;
	if (err) {
		PyErr_Format(PyExc_ValueError, "no such method: %R", arg);
		return NULL;
	}
	return PyLong_FromUnsignedLong(method);
}

/* dice_alias_build(3): weights -> (thresholds, aliases, mass). */
static PyObject *alias_build(PyObject *Py_UNUSED(module), PyObject *arg)
{
	PyObject *seq, *thr = NULL, *ali = NULL, *ret = NULL;
	uint64_t *thresholds = NULL, mass = 0;
	uint32_t *weights = NULL, *aliases = NULL;
	Py_ssize_t i, n;
	int err;

	seq = PySequence_Fast(arg, "weights must be a sequence of ints");
	if (!seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	if ((unsigned long long)n > UINT32_MAX) {
		PyErr_SetString(PyExc_ValueError, "too many weights");
		goto out;
	}
	weights = PyMem_Calloc(n ? n : 1, sizeof(*weights));
	thresholds = PyMem_Calloc(n ? n : 1, sizeof(*thresholds));
	aliases = PyMem_Calloc(n ? n : 1, sizeof(*aliases));
	if (!weights || !thresholds || !aliases) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < n; i++) {
		unsigned long long w = PyLong_AsUnsignedLongLong(
			PySequence_Fast_GET_ITEM(seq, i));

		if (PyErr_Occurred() || w > UINT32_MAX) {
			if (!PyErr_Occurred() ||
			    PyErr_ExceptionMatches(PyExc_OverflowError)) {
				PyErr_Clear();
				PyErr_Format(PyExc_ValueError,
					     "weights[%zd] must be an int "
					     "in 0..%lu", i,
					     (unsigned long)UINT32_MAX);
			}
			goto out;
		}
		weights[i] = (uint32_t)w;
	}
	/* Up to 2^20 columns: no GIL while it builds. */
	Py_BEGIN_ALLOW_THREADS
	err = dice_alias_build(weights, (uint32_t)n, thresholds, aliases,
			       &mass);
	Py_END_ALLOW_THREADS
	if (err) {
		libdice_raise(err, "alias_build");
		goto out;
	}
	thr = PyList_New(n);
	ali = PyList_New(n);
	if (!thr || !ali)
		goto out;
	for (i = 0; i < n; i++) {
		PyObject *t = PyLong_FromUnsignedLongLong(thresholds[i]);
		PyObject *a = PyLong_FromUnsignedLong(aliases[i]);

		if (!t || !a) {
			Py_XDECREF(t);
			Py_XDECREF(a);
			goto out;
		}
		PyList_SET_ITEM(thr, i, t);
		PyList_SET_ITEM(ali, i, a);
	}
	ret = Py_BuildValue("(OOK)", thr, ali, (unsigned long long)mass);
out:
	Py_XDECREF(thr);
	Py_XDECREF(ali);
	PyMem_Free(weights);
	PyMem_Free(thresholds);
	PyMem_Free(aliases);
	Py_DECREF(seq);
	return ret;
}

/* ---- the module ---------------------------------------------------------- */

static PyMethodDef module_methods[] = {
	{ "method_name", method_name, METH_O,
	  "method_name(method)\n--\n\n"
	  "The name of a DICE_METHOD_* number, None for none." },
	{ "method_parse", method_parse, METH_O,
	  "method_parse(name)\n--\n\n"
	  "The DICE_METHOD_* number of a name; ValueError for none." },
	{ "alias_build", alias_build, METH_O,
	  "alias_build(weights)\n--\n\n"
	  "An exact alias table (thresholds, aliases, mass) from integer "
	  "weights, as dice_alias_build(3) builds it." },
	{ NULL }
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "libdice._ext",
	.m_doc = "The C half of libdice: use the libdice package instead.",
	.m_size = -1,
	.m_methods = module_methods,
};

/* The constants of <dice.h> and <libdice/uapi.h> the Python layer uses. */
static int add_constants(PyObject *m)
{
	static const struct { const char *name; unsigned long long v; } c[] = {
		{ "METHOD_RECYCLE", DICE_METHOD_RECYCLE },
		{ "METHOD_VIGLIETTA", DICE_METHOD_VIGLIETTA },
		{ "METHOD_BATCH", DICE_METHOD_BATCH },
		{ "METHOD_ALIAS", DICE_METHOD_ALIAS },
		{ "METHOD_REJECTION", DICE_METHOD_REJECTION },
		{ "KIND_FAIR", DICE_KIND_FAIR },
		{ "KIND_LOADED", DICE_KIND_LOADED },
		{ "SRC_KERNEL", DICE_SRC_KERNEL },
		{ "SRC_WRITTEN", DICE_SRC_WRITTEN },
		{ "MAPPING_1", DICE_MAPPING_1 },
		{ "MAPPING_2", DICE_MAPPING_2 },
		{ "MAPPING_3", DICE_MAPPING_3 },
		{ "MAPPING_LATEST", DICE_MAPPING_LATEST },
		{ "MAX_FAIR_SIDES", DICE_MAX_FAIR_SIDES },
		{ "TABLE_SIDES_MAX", DICE_TABLE_SIDES_MAX },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		PyObject *v = PyLong_FromUnsignedLongLong(c[i].v);

		if (!v || PyModule_AddObject(m, c[i].name, v)) {
			Py_XDECREF(v);
			return -1;
		}
	}
	return 0;
}

PyMODINIT_FUNC PyInit__ext(void)
{
	PyObject *m, *bases;

	if (PyType_Ready(&libdice_die_type) < 0)
		return NULL;
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	libdice_device_not_found_error = PyErr_NewExceptionWithDoc(
		"libdice.DeviceNotFoundError",
		"/dev/dice is missing: load the module (modprobe dice), or "
		"pass userspace=True for libdice's userspace engine.",
		PyExc_FileNotFoundError, NULL);
	bases = PyTuple_Pack(2, PyExc_OSError, PyExc_ValueError);
	libdice_invalid_argument_error = bases ? PyErr_NewExceptionWithDoc(
		"libdice.InvalidArgumentError",
		"libdice refused an argument (EINVAL): an OSError and a "
		"ValueError.", bases, NULL) : NULL;
	Py_XDECREF(bases);
	libdice_notation_error = PyErr_NewExceptionWithDoc(
		"libdice.NotationError",
		"A dice expression did not parse (or has no exact "
		"distribution): .offset (where in the text), .message, .expr.",
		PyExc_ValueError, NULL);
	if (!libdice_device_not_found_error ||
	    !libdice_invalid_argument_error || !libdice_notation_error)
		goto fail;
	Py_INCREF(libdice_notation_error);
	if (PyModule_AddObject(m, "NotationError", libdice_notation_error) ||
	    PyModule_AddFunctions(m, libdice_notation_methods))
		goto fail;
	Py_INCREF(libdice_device_not_found_error);
	Py_INCREF(libdice_invalid_argument_error);
	Py_INCREF(&libdice_die_type);
	if (PyModule_AddObject(m, "DeviceNotFoundError",
			       libdice_device_not_found_error) ||
	    PyModule_AddObject(m, "InvalidArgumentError",
			       libdice_invalid_argument_error) ||
	    PyModule_AddObject(m, "Die", (PyObject *)&libdice_die_type) ||
	    add_constants(m))
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
