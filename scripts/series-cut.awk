# SPDX-License-Identifier: GPL-2.0
#
# A file of the driver as it stands after one patch of make upstream's
# series (scripts/upstream.sh), cut from the whole file:
#
#   awk -v stages="fair loaded viglietta batch alias-method" -v stage=loaded \
#	-f scripts/series-cut.awk FILE
#
# The series adds the driver by concern, one feature a patch, and every
# intermediate file is cut from the one source, so nothing is kept by hand.
# A region that a feature adds is marked by lines of their own, in code or
# inside a comment block:
#
#	/* series: batch */		kept from the patch that adds batch on
#	/* series: not batch */		kept before it (what batch replaces)
#	/* series: out-of-tree */	never in the series: this project's
#					own files and builds
#	/* series: in-tree */		its else: in every patch
#	/* series: end */		the end of the region
#
# In code, whatever a "not" region holds must stay out of this project's
# own builds, which compile the whole file: it is written
#
#	#ifdef DICE_SERIES_CUT /* series: not batch */
#	...
#	#endif /* series: end */
#
# DICE_SERIES_CUT is defined nowhere (an #if 0 would do, but checkpatch
# rightly asks to remove those), and the cutter refuses "/* series: not X
# */" on a line of its own.
# (" * series: batch" inside a comment).  "series: not batch" may follow
# the lines of "series: batch" directly, as its else (and the other way
# round).  A region inside another is of a later feature.  Whatever
# the stage, the marker lines go, and so does code for userspace builds
# only: #ifndef __KERNEL__ blocks, and "!defined(__KERNEL__) ||" in an #if.
# Runs of blank lines a cut leaves become one, and none is left at the
# end, after a "{" or before a "}".  Exit 2 on a marker that is
# malformed, unknown, nested or unclosed.
function set_keep(	d) {
	keep = 1
	for (d = 1; d <= depth; d++)
		keep = keep && rkeep[d]
}
function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 2
}
BEGIN {
	n = split(stages, names, " ")
	for (i = 1; i <= n; i++)
		at[names[i]] = i
	if (!(stage in at)) {
		printf "series-cut.awk: unknown stage \"%s\"\n", stage > "/dev/stderr"
		failed = 1
		exit 2
	}
	now = at[stage]
	at["out-of-tree"] = n + 1	# kept from a stage after the last: never
	depth = 0	# regions open, innermost at depth: rtag, rbody, rkeep
	keep = 1	# every open region is kept
	kdepth = 0	# #if depth inside an #ifndef __KERNEL__ block, 0 outside
	blank = 0	# blank lines were read since the last line written
	last = ""	# the last line written
}
{
	line = $0
	body = line
	# "#ifdef DICE_SERIES_CUT /* series: not X */" and "#endif /*
	# series: end */" are the code forms of a "not" region (see above).
	hidden = sub(/^#ifdef DICE_SERIES_CUT[ \t]+/, "", body)
	hidden_end = sub(/^#endif[ \t]+/, "", body)
	code = body ~ /^\/\*.*\*\/[ \t]*$/
	sub(/^[ \t]*(\/\*|\*)?[ \t]*/, "", body)
	sub(/[ \t]*(\*\/)?[ \t]*$/, "", body)
}
body ~ /^series:/ {
	if (body !~ /^series: (not )?[a-z][a-z0-9-]*$/ && body != "series: end")
		fail("malformed series marker: " line)
	if (hidden != (body ~ /^series: not /) && (code || hidden))
		fail("a \"not\" region in code is \"#ifdef DICE_SERIES_CUT /* series: not X */\", and only it")
	if (body == "series: end") {
		if (!depth)
			fail("series: end outside a region")
		if (hidden_end != rhidden[depth])
			fail("an \"#ifdef DICE_SERIES_CUT\" region ends with \"#endif /* series: end */\", and only it")
		depth--
		set_keep()
		next
	}
	if (body == "series: in-tree")
		body = "series: not out-of-tree"
	else if (body == "series: not out-of-tree")
		fail("malformed series marker: " line)
	tag = body
	sub(/^series: (not )?/, "", tag)
	if (!(tag in at))
		fail("unknown feature \"" tag "\" (stages: " stages ", or out-of-tree)")
	# "series: not X" right after "series: X"'s lines is its else, and
	# the other way round: it replaces the innermost region.
	if (depth && rtag[depth] == tag && rbody[depth] != body) {
		if (rhidden[depth])
			fail("an \"#ifdef DICE_SERIES_CUT\" region ends with \"#endif /* series: end */\"")
		depth--
	}
	else if (depth && at[tag] <= at[rtag[depth]])
		fail("\"" body "\" inside \"" rbody[depth] "\": an inner region is of a later feature")
	depth++
	rtag[depth] = tag
	rbody[depth] = body
	rhidden[depth] = hidden
	rkeep[depth] = body ~ /^series: not / ? now < at[tag] : now >= at[tag]
	set_keep()
	next
}
!keep { next }
kdepth == 0 && line ~ /^#[ \t]*ifndef[ \t]+__KERNEL__([ \t]|$)/ {
	kdepth = 1
	next
}
kdepth > 0 {
	if (line ~ /^#[ \t]*if/)
		kdepth++
	else if (line ~ /^#[ \t]*endif/)
		kdepth--
	else if (kdepth == 1 && line ~ /^#[ \t]*else/)
		fail("#else in an #ifndef __KERNEL__ block")
	next
}
{
	sub(/!defined\(__KERNEL__\) \|\| /, "", line)
	# A blank line is written before the next line written, if that is
	# no "}" and the last one no "{": no runs of them, none at the end.
	if (line ~ /^[ \t]*$/) {
		blank = 1
		next
	}
	if (blank && last !~ /\{[ \t]*$/ && line !~ /^[ \t]*\}/)
		print ""
	blank = 0
	print line
	last = line
}
END {
	if (failed)
		exit 2
	if (depth) {
		printf "%s: the region \"%s\" is not closed\n", FILENAME, rbody[depth] > "/dev/stderr"
		exit 2
	}
	if (kdepth) {
		printf "%s: an #ifndef __KERNEL__ block is not closed\n", FILENAME > "/dev/stderr"
		exit 2
	}
}
