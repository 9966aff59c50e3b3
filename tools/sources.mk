# SPDX-License-Identifier: GPL-2.0
#
# The dice CLI's sources, for tools/Makefile and for fuzz/Makefile (whose
# fuzz_notation links the same code): DICE_CLI_CORE is everything but the
# command itself (options, output), which is DICE_CLI_MAIN.  Each name is a
# .c file in tools/; Documentation/dice/cli.rst says what each holds.
DICE_CLI_CORE := paste lex parse parse_group expr bounds roll \
		 dist dist_law dist_group dist_pool dist_enum dist_cost dist_stats \
		 big common
DICE_CLI_MAIN := dice fail help engine show show_dist versus fair
