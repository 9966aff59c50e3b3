# SPDX-License-Identifier: GPL-2.0
#
# The dice CLI's sources, each a .c file in tools/ (Documentation/dice/cli.rst
# says what each holds): options and input, output, commit-reveal.  The
# notation engine they are built on is libdice's (libdice/notation/).
DICE_CLI := dice fail help engine show show_dist versus json fair
