// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * die.c - libdice._ext.Die: one struct dice
 *
 * The Python layer (libdice/__init__.py) checks arguments and gives the
 * friendly API; this type is the handle and nothing more.  Every libdice
 * call on it runs without the GIL and under the die's own lock (see
 * libdice_die_acquire()), so other threads run while one rolls, and two
 * threads sharing one die take turns instead of racing on its state.
 *
 * Sections: lock, lifetime, configuration, rolls, queries, the type.
 */
#include <errno.h>
#include <stdint.h>

#include "internal.h"

typedef struct {
	PyObject_HEAD
	struct dice *dice;		/* NULL once closed */
	PyThread_type_lock lock;	/* held around every call on @dice */
} DieObject;

/* Faces rolled per libdice call: between two, the GIL is taken to store
 * them and to run signal handlers (Ctrl-C stops a long roll). */
#define ROLL_CHUNK	4096

/* ---- lock ---------------------------------------------------------------- */

struct dice *libdice_die_acquire(PyObject *obj)
{
	DieObject *self = (DieObject *)obj;

	/* Die.__new__() without __init__(): no lock, no die. */
	if (!self->lock) {
		PyErr_SetString(PyExc_ValueError,
				"Die is not initialised (Die.__init__() never ran)");
		return NULL;
	}
	/* Waiting with the GIL held would stop the holder from finishing. */
	if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
	if (!self->dice) {	/* closed, perhaps while we waited */
		PyThread_release_lock(self->lock);
		PyErr_SetString(PyExc_ValueError,
				"I/O operation on a closed Die");
		return NULL;
	}
	return self->dice;
}

void libdice_die_release(PyObject *obj)
{
	PyThread_release_lock(((DieObject *)obj)->lock);
}

/* ---- lifetime ------------------------------------------------------------ */

/*
 * No /dev/dice: never a silent fallback.  The message names both fixes,
 * the module (libdice's hint) and, without root, the userspace engine.
 */
static void raise_no_device(int err)
{
	const char *hint = dice_open_hint(err);
	PyObject *msg, *exc;

	msg = PyUnicode_FromFormat("%s; or pass userspace=True for libdice's "
				   "userspace engine",
				   hint ? hint : "/dev/dice is missing");
	if (!msg)
		return;
	exc = PyObject_CallFunction(libdice_device_not_found_error, "iOs",
				    -err, msg, "/dev/dice");
	Py_DECREF(msg);
	if (!exc)
		return;
	PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_DECREF(exc);
}

static int die_init(DieObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "userspace", "seed", NULL };
	int userspace = 0, err;
	PyObject *seed_obj = Py_None;
	unsigned long long seed = 0;
	struct dice *d = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|pO:Die", kwlist,
					 &userspace, &seed_obj))
		return -1;
	if (self->dice) {
		PyErr_SetString(PyExc_RuntimeError, "Die already initialised");
		return -1;
	}
	if (seed_obj != Py_None) {
		seed = PyLong_AsUnsignedLongLong(seed_obj);
		if (PyErr_Occurred()) {
			PyErr_SetString(PyExc_ValueError,
					"seed must be an int in 0..2**64-1");
			return -1;
		}
	}
	if (!self->lock) {
		self->lock = PyThread_allocate_lock();
		if (!self->lock) {
			PyErr_NoMemory();
			return -1;
		}
	}
	/* Opening /dev/dice may wait on the filesystem: no GIL. */
	Py_BEGIN_ALLOW_THREADS
	if (seed_obj != Py_None)
		err = dice_open_seeded(&d, seed);
	else
		err = dice_open_flags(&d, userspace ? DICE_OPEN_USERSPACE : 0);
	Py_END_ALLOW_THREADS
	if (err) {
		if (err != -ENOENT || userspace || seed_obj != Py_None) {
			libdice_raise(err, "open");
			return -1;
		}
		raise_no_device(err);
		return -1;
	}
	self->dice = d;
	return 0;
}

static PyObject *die_close(DieObject *self, PyObject *Py_UNUSED(ignored))
{
	struct dice *d;

	if (!self->lock || !self->dice)	/* closing twice is fine */
		Py_RETURN_NONE;
	/* A roll in another thread finishes first. */
	if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
	d = self->dice;
	self->dice = NULL;
	PyThread_release_lock(self->lock);
	if (d) {
		Py_BEGIN_ALLOW_THREADS
		dice_close(d);
		Py_END_ALLOW_THREADS
	}
	Py_RETURN_NONE;
}

static void die_dealloc(DieObject *self)
{
	/* No other thread holds a reference, so none holds the lock. */
	if (self->dice)
		dice_close(self->dice);
	if (self->lock)
		PyThread_free_lock(self->lock);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *die_get_closed(DieObject *self, void *Py_UNUSED(closure))
{
	return PyBool_FromLong(self->dice == NULL);
}

/* ---- configuration ------------------------------------------------------- */

/* Run CALL (an int expression using d) on the die, without the GIL. */
#define DIE_CALL(self, d, err, CALL)					\
	do {								\
		d = libdice_die_acquire((PyObject *)(self));		\
		if (!d)							\
			return NULL;					\
		Py_BEGIN_ALLOW_THREADS					\
		err = (CALL);						\
		Py_END_ALLOW_THREADS					\
		libdice_die_release((PyObject *)(self));		\
	} while (0)

static PyObject *die_set_sides(DieObject *self, PyObject *arg)
{
	unsigned long long sides = PyLong_AsUnsignedLongLong(arg);
	struct dice *d;
	int err;

	if (PyErr_Occurred())
		return NULL;
	DIE_CALL(self, d, err, dice_set_sides(d, sides));
	if (err)
		return libdice_raise(err, "set_sides");
	Py_RETURN_NONE;
}

static PyObject *die_set_method(DieObject *self, PyObject *arg)
{
	unsigned long method = PyLong_AsUnsignedLong(arg);
	struct dice *d;
	int err;

	if (PyErr_Occurred())
		return NULL;
	if (method > UINT32_MAX) {
		PyErr_SetString(PyExc_ValueError, "no such method");
		return NULL;
	}
	DIE_CALL(self, d, err, dice_set_method(d, (uint32_t)method));
	if (err)
		return libdice_raise(err, "set_method");
	Py_RETURN_NONE;
}

static PyObject *die_set_mapping(DieObject *self, PyObject *arg)
{
	unsigned long mapping = PyLong_AsUnsignedLong(arg);
	struct dice *d;
	int err;

	if (PyErr_Occurred())
		return NULL;
	if (mapping > UINT32_MAX) {
		PyErr_SetString(PyExc_ValueError, "no such mapping");
		return NULL;
	}
	DIE_CALL(self, d, err, dice_set_mapping(d, (uint32_t)mapping));
	if (err)
		return libdice_raise(err, "set_mapping");
	Py_RETURN_NONE;
}

/*
 * A sequence of ints, each at most @max, into a new array of @size-byte
 * elements (4 or 8); the length in *@len.  NULL with an exception set.
 */
static void *ints_from_sequence(PyObject *seq_obj, const char *what,
				unsigned long long max, size_t size,
				Py_ssize_t *len)
{
	PyObject *seq = PySequence_Fast(seq_obj, what);
	Py_ssize_t i, n;
	void *out;

	if (!seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	out = PyMem_Calloc(n ? n : 1, size);
	if (!out) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return NULL;
	}
	for (i = 0; i < n; i++) {
		PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
		unsigned long long v = PyLong_AsUnsignedLongLong(item);

		if (PyErr_Occurred() || v > max) {
			if (!PyErr_Occurred() ||
			    PyErr_ExceptionMatches(PyExc_OverflowError)) {
				PyErr_Clear();
				PyErr_Format(PyExc_ValueError,
					     "%s[%zd] must be an int in "
					     "0..%llu", what, i, max);
			}
			PyMem_Free(out);
			Py_DECREF(seq);
			return NULL;
		}
		if (size == 4)
			((uint32_t *)out)[i] = (uint32_t)v;
		else
			((uint64_t *)out)[i] = v;
	}
	Py_DECREF(seq);
	*len = n;
	return out;
}

static PyObject *die_set_weights(DieObject *self, PyObject *arg)
{
	Py_ssize_t n;
	uint32_t *weights = ints_from_sequence(arg, "weights", UINT32_MAX,
					       sizeof(*weights), &n);
	struct dice *d;
	int err;

	if (!weights)
		return NULL;
	if ((unsigned long long)n > UINT32_MAX) {
		PyMem_Free(weights);
		PyErr_SetString(PyExc_ValueError, "too many weights");
		return NULL;
	}
	/* The device or the engine builds an alias table: may take a while. */
	d = libdice_die_acquire((PyObject *)self);
	if (!d) {
		PyMem_Free(weights);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	err = dice_set_weights(d, weights, (uint32_t)n);
	Py_END_ALLOW_THREADS
	libdice_die_release((PyObject *)self);
	PyMem_Free(weights);
	if (err)
		return libdice_raise(err, "set_weights");
	Py_RETURN_NONE;
}

static PyObject *die_set_alias(DieObject *self, PyObject *args)
{
	PyObject *thr_obj, *alias_obj;
	unsigned long long mass;
	uint64_t *thresholds = NULL;
	uint32_t *aliases = NULL;
	Py_ssize_t nt, na;
	struct dice *d;
	int err;

	if (!PyArg_ParseTuple(args, "OOK:set_alias", &thr_obj, &alias_obj,
			      &mass))
		return NULL;
	thresholds = ints_from_sequence(thr_obj, "thresholds", UINT64_MAX,
					sizeof(*thresholds), &nt);
	if (!thresholds)
		return NULL;
	aliases = ints_from_sequence(alias_obj, "aliases", UINT32_MAX,
				     sizeof(*aliases), &na);
	if (!aliases)
		goto out;
	if (nt != na || (unsigned long long)nt > UINT32_MAX) {
		PyErr_SetString(PyExc_ValueError,
				"thresholds and aliases differ in length");
		goto out;
	}
	d = libdice_die_acquire((PyObject *)self);
	if (!d)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	err = dice_set_alias(d, thresholds, aliases, (uint32_t)nt, mass);
	Py_END_ALLOW_THREADS
	libdice_die_release((PyObject *)self);
	PyMem_Free(thresholds);
	PyMem_Free(aliases);
	if (err)
		return libdice_raise(err, "set_alias");
	Py_RETURN_NONE;
out:
	PyMem_Free(thresholds);
	PyMem_Free(aliases);
	return NULL;
}

/* ---- rolls --------------------------------------------------------------- */

/*
 * Roll @count faces into @list (NULL: return the one face).  The die stays
 * locked for the whole call, so a roll(n) is one run of the die even when
 * another thread shares it; the GIL is let go for each chunk.
 */
static PyObject *die_roll_into(DieObject *self, size_t count, PyObject *list)
{
	uint64_t buf[ROLL_CHUNK];
	size_t filled = 0, want, done, i;
	PyObject *one = NULL;
	struct dice *d;
	int err;

	d = libdice_die_acquire((PyObject *)self);
	if (!d)
		return NULL;
	while (filled < count) {
		want = count - filled;
		if (want > ROLL_CHUNK)
			want = ROLL_CHUNK;
		done = 0;
		Py_BEGIN_ALLOW_THREADS
		err = dice_roll(d, buf, want, &done);
		Py_END_ALLOW_THREADS
		for (i = 0; i < done; i++) {
			PyObject *face = PyLong_FromUnsignedLongLong(buf[i]);

			if (!face)
				goto fail;
			if (list) {
				PyList_SET_ITEM(list, filled + i, face);
			} else {
				one = face;
			}
		}
		filled += done;
		/* PEP 475: retry after a signal unless its handler raised. */
		if (err == -EINTR) {
			if (PyErr_CheckSignals())
				goto fail;
			continue;
		}
		if (err) {
			libdice_raise(err, "roll");
			goto fail;
		}
		if (filled < count && PyErr_CheckSignals())
			goto fail;
	}
	libdice_die_release((PyObject *)self);
	return list ? list : one;
fail:
	libdice_die_release((PyObject *)self);
	Py_XDECREF(one);
	return NULL;
}

static PyObject *die_roll(DieObject *self, PyObject *args)
{
	Py_ssize_t count = -1;
	PyObject *list, *ret;

	if (!PyArg_ParseTuple(args, "|n:roll", &count))
		return NULL;
	if (count == -1 && PyTuple_GET_SIZE(args) == 0)
		return die_roll_into(self, 1, NULL);
	if (count < 0) {
		PyErr_SetString(PyExc_ValueError, "count must be >= 0");
		return NULL;
	}
	list = PyList_New(count);
	if (!list)
		return NULL;
	ret = die_roll_into(self, (size_t)count, list);
	if (!ret)
		Py_DECREF(list);	/* unset items are NULL: safe */
	return ret;
}

/* ---- queries ------------------------------------------------------------- */

static PyObject *die_info(DieObject *self, PyObject *Py_UNUSED(ignored))
{
	struct dice_info info;
	struct dice *d;
	int err, userspace;

	d = libdice_die_acquire((PyObject *)self);
	if (!d)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dice_get_info(d, &info);
	userspace = dice_is_userspace(d);
	Py_END_ALLOW_THREADS
	libdice_die_release((PyObject *)self);
	if (err)
		return libdice_raise(err, "get_info");
	return Py_BuildValue("{s:K,s:I,s:I,s:I,s:I,s:O}",
			     "sides", (unsigned long long)info.sides,
			     "kind", info.kind, "format", info.format,
			     "method", info.method, "source", info.source,
			     "userspace", userspace ? Py_True : Py_False);
}

static PyObject *die_stats(DieObject *self, PyObject *Py_UNUSED(ignored))
{
	struct dice_stats st;
	struct dice *d;
	int err;

	DIE_CALL(self, d, err, dice_get_stats(d, &st));
	if (err)
		return libdice_raise(err, "get_stats");
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K}",
			     "rolls", (unsigned long long)st.rolls,
			     "bits_used", (unsigned long long)st.bits_used,
			     "bits_drawn", (unsigned long long)st.bits_drawn,
			     "bits_discarded",
			     (unsigned long long)st.bits_discarded,
			     "coin_bits", (unsigned long long)st.coin_bits);
}

static PyObject *die_mapping(DieObject *self, PyObject *Py_UNUSED(ignored))
{
	uint32_t mapping = 0;
	struct dice *d;
	int err;

	DIE_CALL(self, d, err, dice_get_mapping(d, &mapping));
	if (err)
		return libdice_raise(err, "get_mapping");
	return PyLong_FromUnsignedLong(mapping);
}

/* ---- the type ------------------------------------------------------------ */

static PyMethodDef die_methods[] = {
	{ "close", (PyCFunction)die_close, METH_NOARGS,
	  "close()\n--\n\nRelease the die; closing twice is harmless." },
	{ "set_sides", (PyCFunction)die_set_sides, METH_O,
	  "set_sides(sides)\n--\n\nA fair die of 1..2**64-1 sides." },
	{ "set_weights", (PyCFunction)die_set_weights, METH_O,
	  "set_weights(weights)\n--\n\nA loaded die: integer weights." },
	{ "set_alias", (PyCFunction)die_set_alias, METH_VARARGS,
	  "set_alias(thresholds, aliases, mass)\n--\n\n"
	  "A loaded die given as an exact alias table (dice_set_alias(3))." },
	{ "set_method", (PyCFunction)die_set_method, METH_O,
	  "set_method(method)\n--\n\nA DICE_METHOD_* number." },
	{ "set_mapping", (PyCFunction)die_set_mapping, METH_O,
	  "set_mapping(mapping)\n--\n\n"
	  "A DICE_MAPPING_* number (dice_set_mapping(3)): userspace "
	  "engines only." },
	{ "roll", (PyCFunction)die_roll, METH_VARARGS,
	  "roll(count=None)\n--\n\n"
	  "One face (an int) or a list of count faces, 1..sides." },
	{ "info", (PyCFunction)die_info, METH_NOARGS,
	  "info()\n--\n\nThe die as dice_get_info(3) reports it, a dict." },
	{ "stats", (PyCFunction)die_stats, METH_NOARGS,
	  "stats()\n--\n\nThe die's counters (dice_get_stats(3)), a dict." },
	{ "mapping", (PyCFunction)die_mapping, METH_NOARGS,
	  "mapping()\n--\n\n"
	  "The DICE_MAPPING_* number the engine rolls by "
	  "(dice_get_mapping(3)): userspace engines only." },
	{ NULL }
};

static PyGetSetDef die_getset[] = {
	{ "closed", (getter)die_get_closed, NULL, "True once closed.", NULL },
	{ NULL }
};

PyTypeObject libdice_die_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "libdice._ext.Die",
	.tp_basicsize = sizeof(DieObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Die(userspace=False, seed=None)\n--\n\n"
		  "One libdice handle: /dev/dice, or the userspace engine "
		  "(seeded when seed is an int).",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)die_init,
	.tp_dealloc = (destructor)die_dealloc,
	.tp_methods = die_methods,
	.tp_getset = die_getset,
};
