# SPDX-License-Identifier: GPL-2.0
#
# The die core's one source list, read by every build of it: kmod/Kbuild
# (the module), kmod/tests, fuzz, selftests, libdice and bench (userspace),
# and the copies of the module's sources (DKMS, the debug kernel, make
# kmod-files).  Included, it defines:
#
#   DICE_KMOD             this folder, absolute
#   DICE_CORE             the core's objects, without .o: pure C that builds
#                         into the module and into userspace
#   DICE_CORE_SRCS        their sources, absolute
#   DICE_CORE_HDRS        the headers they depend on, absolute
#   DICE_CORE_CPPFLAGS    preprocessor flags of a userspace build of the core:
#                         the kernel headers it uses come from userspace/include
#   DICE_CORE_CFLAGS      warnings a userspace build adds to its own flags
#   DICE_KMOD_FILES       every file of a module build, relative to kmod/
DICE_KMOD := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

DICE_CORE := dice_pool dice_uniform dice_alias dice_die dice_roll \
	     dice_methods dice_format dice_stream
DICE_CORE_SRCS := $(DICE_CORE:%=$(DICE_KMOD)/%.c)
DICE_CORE_HDR_NAMES := dice_core.h dice_pool.h dice_uniform.h dice_alias.h \
		       dice_methods.h dice_die.h dice_format.h dice_stream.h \
		       include/uapi/linux/dice.h
DICE_USERSPACE_INC := $(patsubst %/,%,$(dir $(DICE_KMOD)))/userspace/include
DICE_CORE_HDRS := $(DICE_CORE_HDR_NAMES:%=$(DICE_KMOD)/%) \
		  $(DICE_KMOD)/dice-core.mk $(wildcard $(DICE_USERSPACE_INC)/linux/*.h)

DICE_CORE_CPPFLAGS := -I$(DICE_USERSPACE_INC) -I$(DICE_KMOD) \
		      -I$(DICE_KMOD)/include/uapi
# The core is the module's code: its unused callback parameters are fine.
DICE_CORE_CFLAGS := -Wno-unused-parameter

DICE_KMOD_FILES := Kbuild Kconfig dice-core.mk compat.h compat/kunit/visibility.h \
	compat/kunit-import.h dice_main.c dice_kunit.c dice_test_hooks.h \
		   $(DICE_CORE:%=%.c) $(DICE_CORE_HDR_NAMES)
