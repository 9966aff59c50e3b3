# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The notation engine's sources, each a .c file in libdice/notation/ (see
# Documentation/dice/notation.rst), for libdice/Makefile, which builds them
# into libdice, and for the fuzzers that link them with sanitizers
# (tools/Makefile's fuzz_grammar, fuzz/Makefile's fuzz_notation).
# DICE_NOTATION_CORE is the engine, DICE_NOTATION_API its public face
# (<dice_notation.h>).
DICE_NOTATION_CORE := paste lex parse parse_group expr bounds roll \
		      dist dist_law dist_group dist_pool dist_enum dist_cost \
		      dist_stats versus breakdown roll_json big common
DICE_NOTATION_API := api_context api_expr api_roll api_dist
DICE_NOTATION := $(DICE_NOTATION_CORE) $(DICE_NOTATION_API)
