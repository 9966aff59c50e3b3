// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * notation.c - libdice._ext's notation functions: roll(), distribution(),
 * versus() over libdice's notation API (<dice_notation.h>)
 *
 * Each call makes its own struct dice_notation (the API's contexts are
 * not shared across threads; one per call is one per thread at any time)
 * and runs every parse, roll and distribution without the GIL.  A roll
 * goes through a Die's handle under that die's lock
 * (libdice_die_acquire()).  What comes back is plain tuples, lists and
 * strings: libdice/__init__.py makes Result, Distribution and Versus of
 * them.
 *
 * Sections: errors, parsing, roll, distributions, the functions.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dice_notation.h>

#include "internal.h"

/* ---- errors -------------------------------------------------------------- */

/*
 * NotationError(message) with .offset (a str index into @text: the API's
 * is a byte offset into its UTF-8), .message and .expr.  Returns NULL.
 */
static PyObject *raise_notation_error(PyObject *text_obj, const char *text,
				      const struct dice_notation_error *why)
{
	size_t len = strlen(text), off = why->offset > len ? len : why->offset;
	PyObject *prefix, *exc, *off_obj;
	Py_ssize_t offset;
	int bad;

	prefix = PyUnicode_DecodeUTF8(text, (Py_ssize_t)off, "ignore");
	if (!prefix)
		return NULL;
	offset = PyUnicode_GET_LENGTH(prefix);
	Py_DECREF(prefix);
	exc = PyObject_CallFunction(libdice_notation_error, "s", why->message);
	if (!exc)
		return NULL;
	off_obj = PyLong_FromSsize_t(offset);
	bad = !off_obj ||
	      PyObject_SetAttrString(exc, "message",
				     PyTuple_GET_ITEM(((PyBaseExceptionObject *)
						       exc)->args, 0)) ||
	      PyObject_SetAttrString(exc, "offset", off_obj) ||
	      PyObject_SetAttrString(exc, "expr", text_obj);
	Py_XDECREF(off_obj);
	if (bad) {
		Py_DECREF(exc);
		return NULL;
	}
	PyErr_SetObject(libdice_notation_error, exc);
	Py_DECREF(exc);
	return NULL;
}

/* -ERANGE: a value beyond int64_t, as libdice says; others as libdice_raise. */
static PyObject *raise_notation_errno(int err, const char *what)
{
	if (err == -ERANGE) {
		PyErr_Format(PyExc_OverflowError,
			     "%s: a value does not fit in 64 bits (libdice: "
			     "ERANGE)", what);
		return NULL;
	}
	return libdice_raise(err, what);
}

/*
 * What dice_expr_roll(3) says of a roll, as Python says it of its own
 * arithmetic: ZeroDivisionError, OverflowError, ValueError.
 */
static PyObject *raise_roll_errno(int err)
{
	switch (err) {
	case -EDOM:
		PyErr_SetString(PyExc_ZeroDivisionError,
				"roll: division or '%' by zero (libdice: EDOM)");
		return NULL;
	case -EOVERFLOW:
		PyErr_SetString(PyExc_OverflowError,
				"roll: a value does not fit in 128 bits "
				"(libdice: EOVERFLOW)");
		return NULL;
	case -ERANGE:
		PyErr_SetString(PyExc_ValueError,
				"roll: a computed number of dice fell outside "
				"its range, as (1d6-3)d6 can (libdice: ERANGE)");
		return NULL;
	default:
		return libdice_raise(err, "roll");
	}
}

/*
 * NotationError for @e's NxEXPR, N > 1, which a call of one roll (or of
 * the law of one) would drop without a word; @instead says what to do.
 */
static PyObject *raise_repeat(PyObject *text_obj, const struct dice_expr *e,
			      const char *instead)
{
	struct dice_notation_error why;

	memset(&why, 0, sizeof(why));
	snprintf(why.message, sizeof(why.message), "%s rolls %llu times: %s",
		 dice_expr_text(e), (unsigned long long)dice_expr_repeat(e),
		 instead);
	return raise_notation_error(text_obj, PyUnicode_AsUTF8(text_obj),
				    &why);
}

/* ---- parsing ------------------------------------------------------------- */

/*
 * A context and @text parsed in it, without the GIL; NULL with an
 * exception set.  The caller frees both.
 */
static struct dice_expr *parse(PyObject *text_obj, struct dice_notation **ctx)
{
	struct dice_notation_error why;
	struct dice_expr *e = NULL;
	const char *text;
	Py_ssize_t size;
	int err;

	*ctx = NULL;
	if (!PyUnicode_Check(text_obj)) {
		PyErr_Format(PyExc_TypeError,
			     "an expression is a str, not %.100s",
			     Py_TYPE(text_obj)->tp_name);
		return NULL;
	}
	/* lives as long as text_obj, which the caller holds */
	text = PyUnicode_AsUTF8AndSize(text_obj, &size);
	if (!text)
		return NULL;
	if (strlen(text) != (size_t)size) {
		PyErr_SetString(PyExc_ValueError, "embedded NUL in expression");
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	err = dice_notation_new(ctx);
	if (!err)
		err = dice_expr_parse(*ctx, text, &e, &why);
	Py_END_ALLOW_THREADS
	if (err) {
		dice_notation_free(*ctx);
		*ctx = NULL;
		if (why.message[0])
			raise_notation_error(text_obj, text, &why);
		else
			libdice_raise(err, "parse");
		return NULL;
	}
	return e;
}

/* ---- roll ---------------------------------------------------------------- */

static PyObject *take_text(char *s)
{
	PyObject *o = s ? PyUnicode_FromString(s) : NULL;

	free(s);
	return o;
}

/*
 * A value libdice gave as @v, or, past int64 (@err -ERANGE), as the text
 * of @str: a Python int either way.
 */
static PyObject *exact_value(int err, int64_t v, int str_err,
			     const char *buf)
{
	if (err != -ERANGE)
		return PyLong_FromLongLong(v);
	if (str_err)
		return raise_notation_errno(str_err, "result");
	return PyLong_FromString(buf, NULL, 10);
}

/* [(start, end, value, [(value, flags), ...]), ...] */
static PyObject *result_groups(const struct dice_result *r)
{
	unsigned int g, ng = dice_result_ngroups(r);
	PyObject *groups = PyList_New(ng);
	char buf[DICE_VALUE_STRLEN];
	size_t i;

	if (!groups)
		return NULL;
	for (g = 0; g < ng; g++) {
		struct dice_result_group grp;
		PyObject *dice, *t, *v;
		int err = dice_result_group(r, g, &grp), str_err = 0;

		if (err && err != -ERANGE)
			goto fail_err;
		if (err)
			str_err = dice_result_group_str(r, g, buf, sizeof(buf));
		v = exact_value(err, grp.value, str_err, buf);
		if (!v)
			goto fail;
		dice = PyList_New((Py_ssize_t)grp.ndice);
		if (!dice) {
			Py_DECREF(v);
			goto fail;
		}
		for (i = 0; i < grp.ndice; i++) {
			struct dice_result_die die;
			PyObject *dv;

			err = dice_result_die(r, g, i, &die);
			str_err = 0;
			if (err == -ERANGE)
				str_err = dice_result_die_str(r, g, i, buf,
							      sizeof(buf));
			else if (err) {
				Py_DECREF(v);
				Py_DECREF(dice);
				goto fail_err;
			}
			dv = exact_value(err, die.value, str_err, buf);
			t = dv ? Py_BuildValue("(NI)", dv,
					       (unsigned int)die.flags) : NULL;
			if (!t) {
				Py_DECREF(v);
				Py_DECREF(dice);
				goto fail;
			}
			PyList_SET_ITEM(dice, (Py_ssize_t)i, t);
		}
		t = Py_BuildValue("(nnNN)", (Py_ssize_t)grp.start,
				  (Py_ssize_t)grp.end, v, dice);
		if (!t)
			goto fail;
		PyList_SET_ITEM(groups, g, t);
		continue;
fail_err:
		raise_notation_errno(err, "result");
		goto fail;
	}
	return groups;
fail:
	Py_DECREF(groups);
	return NULL;
}

/*
 * (total: int, flags, total text, breakdown, markdown, expr text,
 *  groups, warnings)
 */
static PyObject *result_tuple(const struct dice_expr *e,
			      const struct dice_result *r)
{
	char buf[DICE_VALUE_STRLEN];
	char *texts[3] = { NULL, NULL, NULL };
	PyObject *total, *groups, *warnings, *w;
	const char *warning;
	unsigned int i;
	int err;

	err = dice_result_total_str(r, buf, sizeof(buf));
	if (err)
		return raise_notation_errno(err, "result");
	for (i = 0; i < 3; i++) {
		err = dice_result_text(r, (int)i, &texts[i]);
		if (err) {
			while (i--)
				free(texts[i]);
			return raise_notation_errno(err, "result");
		}
	}
	/* The total as Python's int, exact beyond int64 too (the _str). */
	total = PyLong_FromString(buf, NULL, 10);
	groups = result_groups(r);
	warnings = PyList_New(0);
	for (i = 0; warnings && (warning = dice_expr_warning(e, i)); i++) {
		w = PyUnicode_FromString(warning);
		if (!w || PyList_Append(warnings, w)) {
			Py_XDECREF(w);
			Py_CLEAR(warnings);
			break;
		}
		Py_DECREF(w);
	}
	if (!total || !groups || !warnings) {
		Py_XDECREF(total);
		Py_XDECREF(groups);
		Py_XDECREF(warnings);
		for (i = 0; i < 3; i++)
			free(texts[i]);
		return NULL;
	}
	return Py_BuildValue("(NiNNNsNN)", total, dice_result_flags(r),
			     take_text(texts[DICE_TEXT_TOTAL]),
			     take_text(texts[DICE_TEXT_BREAKDOWN]),
			     take_text(texts[DICE_TEXT_MARKDOWN]),
			     dice_expr_text(e), groups, warnings);
}

/*
 * roll(expr, die, every): die is a libdice._ext.Die, or None for
 * /dev/dice, opened once the expression has parsed (a Die() of its own:
 * its DeviceNotFoundError without the module, never a fallback), closed
 * after.  A list of result tuples: each repetition of NxEXPR when @every,
 * else the one roll, and NotationError for NxEXPR with N > 1: it would
 * silently roll once what dice(1) rolls N times.
 */
static PyObject *notation_roll(PyObject *Py_UNUSED(module), PyObject *args)
{
	PyObject *text_obj, *die_arg, *die_obj = NULL, *ret = NULL, *t;
	struct dice_result **rs = NULL;
	struct dice_notation *ctx;
	struct dice_expr *e;
	uint64_t n, i;
	struct dice *d;
	int every, err = 0;

	if (!PyArg_ParseTuple(args, "UOp:roll", &text_obj, &die_arg, &every))
		return NULL;
	if (die_arg != Py_None &&
	    !PyObject_TypeCheck(die_arg, &libdice_die_type)) {
		PyErr_SetString(PyExc_TypeError,
				"die must be a libdice._ext.Die or None");
		return NULL;
	}
	e = parse(text_obj, &ctx);
	if (!e)
		return NULL;
	n = dice_expr_repeat(e);
	if (n > 1 && !every) {
		raise_repeat(text_obj, e, "roll() rolls once, rolls() rolls each");
		goto out;
	}
	ret = PyList_New(0);
	if (!ret)
		goto out;
	if (die_arg == Py_None)
		die_obj = PyObject_CallObject((PyObject *)&libdice_die_type,
					      NULL);
	else {
		Py_INCREF(die_arg);	/* Py_NewRef(): Python 3.10 */
		die_obj = die_arg;
	}
	if (!die_obj)
		goto fail;
	/*
	 * N results at once (N at most the context's dice limit) before the
	 * tuples: one call keeps the die set between the rolls, as dice(1).
	 */
	rs = PyMem_Calloc(n, sizeof(*rs));
	if (!rs) {
		PyErr_NoMemory();
		goto fail;
	}
	d = libdice_die_acquire(die_obj);
	if (!d)
		goto fail;
	Py_BEGIN_ALLOW_THREADS
	err = dice_expr_rolls(ctx, e, d, rs, n);
	Py_END_ALLOW_THREADS
	libdice_die_release(die_obj);
	if (err) {
		raise_roll_errno(err);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		t = result_tuple(e, rs[i]);
		if (!t || PyList_Append(ret, t)) {
			Py_XDECREF(t);
			goto fail;
		}
		Py_DECREF(t);
	}
	goto out;
fail:
	Py_CLEAR(ret);
out:
	for (i = 0; rs && i < n; i++)	/* NULL past a failure */
		dice_result_free(rs[i]);
	PyMem_Free(rs);
	if (die_obj && die_arg == Py_None) {
		PyObject *closed = PyObject_CallMethod(die_obj, "close", NULL);

		if (!closed && ret)
			Py_CLEAR(ret);
		Py_XDECREF(closed);
	}
	Py_XDECREF(die_obj);
	dice_expr_free(e);
	dice_notation_free(ctx);
	return ret;
}

/* ---- distributions ------------------------------------------------------- */

/* The exact distribution of @text, without the GIL; NULL with an exception. */
static struct dice_dist *text_dist(PyObject *text_obj)
{
	struct dice_notation_error why;
	struct dice_notation *ctx;
	struct dice_dist *dist = NULL;
	struct dice_expr *e;
	int err;

	e = parse(text_obj, &ctx);
	if (!e)
		return NULL;
	/* the law of one roll: NxEXPR's N would be dropped without a word */
	if (dice_expr_repeat(e) > 1) {
		raise_repeat(text_obj, e, "a distribution is the law of one "
			     "roll; give it without NxEXPR's N");
		dice_expr_free(e);
		dice_notation_free(ctx);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	err = dice_expr_dist(ctx, e, &dist, &why);
	Py_END_ALLOW_THREADS
	dice_expr_free(e);
	dice_notation_free(ctx);
	if (err) {
		if (why.message[0])
			raise_notation_error(text_obj,
					     PyUnicode_AsUTF8(text_obj), &why);
		else
			raise_notation_errno(err, "distribution");
		return NULL;
	}
	return dist;
}

/* [(value, "num", "den"), ...] ascending */
static PyObject *dist_list(const struct dice_dist *dist)
{
	size_t i, n = dice_dist_size(dist);
	PyObject *list = PyList_New((Py_ssize_t)n);

	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		char *num = NULL, *den = NULL;
		int64_t v;
		int err = dice_dist_value(dist, i, &v);
		PyObject *t;

		if (!err)
			err = dice_dist_prob_str(dist, i, &num, &den);
		if (err) {
			Py_DECREF(list);
			return libdice_raise(err, "distribution");
		}
		t = Py_BuildValue("(Lss)", (long long)v, num, den);
		free(num);
		free(den);
		if (!t) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	return list;
}

/* distribution(expr) -> ([(value, num, den), ...], mean, [percentile 0..100]) */
static PyObject *notation_distribution(PyObject *Py_UNUSED(module),
				       PyObject *text_obj)
{
	PyObject *list, *pcts, *ret = NULL;
	struct dice_dist *dist = text_dist(text_obj);
	char *mean = NULL;
	unsigned int p;
	int err;

	if (!dist)
		return NULL;
	list = dist_list(dist);
	pcts = PyList_New(101);
	if (!list || !pcts)
		goto out;
	for (p = 0; p <= 100; p++) {
		int64_t v;
		PyObject *o;

		err = dice_dist_percentile(dist, p, &v);
		if (err) {
			libdice_raise(err, "percentile");
			goto out;
		}
		o = PyLong_FromLongLong(v);
		if (!o)
			goto out;
		PyList_SET_ITEM(pcts, p, o);
	}
	err = dice_dist_mean_str(dist, &mean);
	if (err) {
		libdice_raise(err, "mean");
		goto out;
	}
	ret = Py_BuildValue("(OsO)", list, mean, pcts);
out:
	free(mean);
	Py_XDECREF(list);
	Py_XDECREF(pcts);
	dice_dist_free(dist);
	return ret;
}

/* versus(a, b) -> [(sign, num, den), ...]: the law of sign(A - B) */
static PyObject *notation_versus(PyObject *Py_UNUSED(module), PyObject *args)
{
	struct dice_dist *a, *b = NULL, *v = NULL;
	PyObject *a_obj, *b_obj, *ret = NULL;
	int err;

	if (!PyArg_ParseTuple(args, "UU:versus", &a_obj, &b_obj))
		return NULL;
	a = text_dist(a_obj);
	if (!a)
		return NULL;
	b = text_dist(b_obj);
	if (!b)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	err = dice_dist_versus(a, b, &v);
	Py_END_ALLOW_THREADS
	if (err) {
		libdice_raise(err, "versus");
		goto out;
	}
	ret = dist_list(v);
out:
	dice_dist_free(v);
	dice_dist_free(b);
	dice_dist_free(a);
	return ret;
}

/* ---- the functions ------------------------------------------------------- */

PyMethodDef libdice_notation_methods[] = {
	{ "roll", notation_roll, METH_VARARGS,
	  "roll(expr, die, every)\n--\n\n"
	  "Parse and roll expr through die (a libdice._ext.Die, or None): "
	  "a list of (total, flags, total text, breakdown, markdown, expr "
	  "text, groups, warnings), one for each repetition of NxEXPR when "
	  "every, else one (NotationError for NxEXPR)." },
	{ "distribution", notation_distribution, METH_O,
	  "distribution(expr)\n--\n\n"
	  "The exact distribution of expr: ([(value, num, den), ...], mean, "
	  "[percentiles 0..100])." },
	{ "versus", notation_versus, METH_VARARGS,
	  "versus(a, b)\n--\n\n"
	  "The exact law of sign(A - B): [(sign, num, den), ...]." },
	{ NULL }
};
