# SPDX-License-Identifier: GPL-2.0
#
# dice: /dev/dice, libdice and the dice CLI.
#
#   make            build the module, the library and the CLI
#   make demo       install what is missing, boot a VM, roll real dice
#   make check      install what is missing, run every test tier
#   make check-TIER one tier of scripts/tiers.sh (make tiers lists them)
#   make deps       install the Debian packages of every tier (root)
#   make bench      benchmarks: the core in userspace, callgrind, /dev/dice in a VM
#   make deb        Debian packages in build/deb/ (dice-dkms, libdice1,
#                   libdice-dev, dice) and the source package
#
# make, make install and DKMS build for this machine's running kernel, with
# its installed headers.  The tests and the demo never do: they build for
# and boot Debian's kernels taken out of their .deb into DICE_CACHE, with
# their headers in cached Debian roots (scripts/kernels.sh), and install
# no kernel on this machine.

TOP := $(CURDIR)
# The kernel make builds for: the running one when its headers are
# installed (linux-headers-$(uname -r)), or else the newest installed
# headers; "make kver" prints it.
KVER ?= $(or $(shell k=$$(uname -r); test -d /lib/modules/$$k/build && echo $$k),$(lastword \
	$(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | \
		sed 's|/lib/modules/||;s|/build||')))
KDIR ?= /lib/modules/$(KVER)/build
KIMAGE ?= /boot/vmlinuz-$(KVER)
B ?= $(TOP)/build
# The one version of the project: dkms.conf, libdice.pc, dice --version and
# the Debian packages (debian/changelog must agree) all take it from here.
DICE_VERSION := $(shell cat $(TOP)/VERSION)
ifeq ($(DICE_VERSION),)
$(error no version in $(TOP)/VERSION)
endif
# Unpacked linux-source tarball (checkpatch, kselftest harness, kunit.py),
# kept outside the repo and reused between runs.
DICE_CACHE ?= /var/tmp/dice
LINUX_TARBALL = $(lastword $(sort $(wildcard /usr/src/linux-source-*.tar.xz)))
LINUX_SRC ?= $(DICE_CACHE)/$(notdir $(LINUX_TARBALL:.tar.xz=))
# The newest tree Debian has: linux-source-X.Y of trixie-backports (7.3
# today), its .deb taken apart by scripts/trixie.sh (never installed) and
# unpacked beside LINUX_SRC.  "make linux-src-newest" makes it if needed
# and prints its path: build against it with $(make -s linux-src-newest).
TRIXIE_STATE = $(DICE_CACHE)/trixie/current
LINUX_SRC_NEWEST ?= $(shell awk '$$1 == "source" { print $$2 }' $(TRIXIE_STATE) 2>/dev/null)

include $(TOP)/kmod/dice-core.mk

all: module core libdice cli

# Every file a build of the module needs (kmod/dice-core.mk), one a line:
# what DKMS and the debug kernel's private copy take.
kmod-files:
	@printf 'Kbuild\n'; printf 'kmod/%s\n' $(DICE_KMOD_FILES)

kver:
	@echo $(KVER)

# The packages of every tier (scripts/tiers.sh lists which serve which);
# make demo, make bench and make check-TIER install only their own.
deps:
	@$(TOP)/scripts/deps.sh

# Debian 12's kernels (scripts/bookworm.sh; root and the network): images
# taken out of their .deb into the cache, headers in a cached Debian 12
# root; the index refreshed, anything missing made.  Never installed here.
# make bookworm BOOKWORM_KERNELS=6.1: that one alone (make demo).
bookworm:
	@$(TOP)/scripts/bookworm.sh $(BOOKWORM_KERNELS) >/dev/null

# Debian 13's kernels and the newest source (scripts/trixie.sh; root and
# the network): the index refreshed, anything missing made.
trixie:
	@$(TOP)/scripts/trixie.sh >/dev/null

linux-src-newest:
	@test -f "$(LINUX_SRC_NEWEST)/Makefile" || \
		$(TOP)/scripts/trixie.sh >/dev/null || exit 1; \
	awk '$$1 == "source" { print $$2 }' $(TRIXIE_STATE)

linux-src: $(LINUX_SRC)/Makefile
$(LINUX_SRC)/Makefile:
	@test -n "$(LINUX_TARBALL)" || { echo "no /usr/src/linux-source-*.tar.xz: run make deps"; exit 1; }
	mkdir -p $(DICE_CACHE)
	tar -C $(DICE_CACHE) -xf $(LINUX_TARBALL)
	touch $@

module:
	@test -d $(KDIR) || { echo "no headers in $(KDIR): apt-get install linux-headers-$(KVER), or KVER=..."; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules

core:
	$(MAKE) -C kmod/tests O=$(B)/core

libdice:
	$(MAKE) -C libdice O=$(B)/libdice

cli: libdice
	$(MAKE) -C tools O=$(B)/tools

# libdice's Python bindings (bindings/python): the package libdice and its
# C extension, built by Debian's /usr/bin/python3 and setuptools against
# this tree's libdice.so (pkg-config finds libdice-uninstalled.pc, which
# gives the extension an rpath to it), into $(B)/python/lib: use it with
# PYTHONPATH=$(B)/python/lib.  python-test runs its pytest suite (the
# python tier; make check-python installs its packages first).  Built with
# --force: setuptools compares the extension with its own sources only, so
# an extension compiled against an older <dice_notation.h> would stay, and
# call the rebuilt libdice.so with the old structures.  CFLAGS=-Werror:
# a warning here is an error in a newer compiler (Debian 13's gcc 14 made
# one, an incompatible pointer returned, of what gcc 12 only warned).
PYTHON = /usr/bin/python3
python: libdice
	cd bindings/python && PKG_CONFIG_PATH=$(B)/libdice CFLAGS=-Werror \
		$(PYTHON) setup.py -q \
		build --force --build-base $(B)/python --build-lib $(B)/python/lib
python-test: python
	cd $(B)/python && PYTHONPATH=$(B)/python/lib PKG_CONFIG_PATH=$(B)/libdice \
		DICE_TOP=$(TOP) $(PYTHON) -B -m pytest -q -p no:cacheprovider \
		--rootdir $(TOP)/bindings/python $(TOP)/bindings/python/tests

# Tests that need no VM (the VM ones: vmtest, vmfork, vmtest-kernels,
# vmtest-debug below); make check runs every tier (scripts/check.sh).
sparse:
	$(MAKE) -C $(KDIR) M=$(TOP) C=2 CHECK="sparse -Wbitwise" modules

# checkpatch --strict on the module's C and the uapi header: ERROR and
# WARNING fail, CHECK lines are shown for review only.  Documented
# exceptions, for the compat headers alone (compat.h, compat/*): they
# typedef u128, which Linux 6.1 lacks (NEW_TYPEDEFS), define the
# <kunit/visibility.h> it lacks, whose macro wraps EXPORT_SYMBOL_NS()
# (EXPORT_SYMBOL), and are where the out-of-tree module meets the
# kernels it builds for, with shims keyed on LINUX_VERSION_CODE <
# KERNEL_VERSION(...) (LINUX_VERSION_CODE, CONSTANT_COMPARISON), so that
# no other file needs one.
KMOD_C_H = $(filter %.c %.h,$(DICE_KMOD_FILES:%=kmod/%))
KMOD_COMPAT_H = $(filter %compat.h kmod/compat/%,$(KMOD_C_H))
#
# checkpatch-newest: the same with the checkpatch.pl of the newest tree
# (LINUX_SRC_NEWEST), no exception of its own (CHECKPATCH_NEWEST_IGNORE,
# empty: a type named there is not failed, its lines are shown as
# "# newest only:" notes).
CHECKPATCH_FLAGS = --no-tree --strict --terse --show-types
CHECKPATCH_COMPAT = --ignore NEW_TYPEDEFS,LINUX_VERSION_CODE,CONSTANT_COMPARISON,EXPORT_SYMBOL
CHECKPATCH_NEWEST_IGNORE =
# $(call checkpatch_run,SOURCE TREE,--ignore of its own or nothing)
define checkpatch_run
	@test -f $(1)/scripts/checkpatch.pl || { \
		echo "checkpatch: no $(1)/scripts/checkpatch.pl"; exit 1; }; \
	cp="perl $(1)/scripts/checkpatch.pl $(CHECKPATCH_FLAGS)"; \
	out=$$(cd $(TOP) && \
		$$cp $(if $(2),--ignore $(2)) \
			-f $(filter-out $(KMOD_COMPAT_H),$(KMOD_C_H)) 2>&1; \
		$(if $(KMOD_COMPAT_H),$$cp $(CHECKPATCH_COMPAT)$(if $(2),$(comma)$(2)) \
			-f $(KMOD_COMPAT_H) 2>&1)); \
	printf '%s\n' "$$out" | grep -v '^total:'; \
	$(if $(2),(cd $(TOP) && $$cp -f $(KMOD_C_H) 2>&1) | \
		grep -E ': (ERROR|WARNING):($(subst $(comma),|,$(2))):' | \
		sed 's/^/# newest only: /';) \
	files=$$(printf '%s\n' $(KMOD_C_H) | grep -c .); \
	if printf '%s\n' "$$out" | grep -qE ': (ERROR|WARNING):'; then \
		echo "checkpatch: errors or warnings"; exit 1; fi; \
	echo "checkpatch ($(notdir $(1))): $$files files, no errors or warnings ($$(printf '%s\n' "$$out" | \
		grep -c ': CHECK:') checks)"
endef
comma := ,
checkpatch: linux-src
	$(call checkpatch_run,$(LINUX_SRC),)
checkpatch-newest:
	@test -n "$(LINUX_SRC_NEWEST)" || { echo "checkpatch-newest: no newest tree (make linux-src-newest)"; exit 1; }
	$(call checkpatch_run,$(LINUX_SRC_NEWEST),$(CHECKPATCH_NEWEST_IGNORE))

# kernel-doc on the module's C reports nothing, and cppcheck is clean on
# the core as userspace builds it, libdice and the CLI; the tier tables of
# the docs name the tiers of scripts/tiers.sh; every tier's packages are
# listed, and no tier's (nor make demo's, make bench's) would install a
# kernel image (scripts/tiers.sh --check-packages); the .c files of
# libdice/, tools/ and bindings/ call each other one way only
# (scripts/call-cycles.py, over the objects built here, and its self-test);
# the VM runner's retry and make check's ending behave (their self-tests).
# TAP.  cppcheck
# cannot evaluate the __has_include_next() of userspace/include's headers;
# the system headers it would pull in are ones cppcheck does not read.
static: linux-src
	@cd $(TOP) && fail=0; \
	out=$$(perl $(LINUX_SRC)/scripts/kernel-doc -none $(KMOD_C_H) 2>&1); \
	[ -z "$$out" ] || { printf '%s\n' "$$out"; fail=1; printf 'not '; }; \
	echo "ok 1 - static: kernel-doc -none reports nothing"; \
	cppcheck --quiet --enable=warning,portability,performance \
		--error-exitcode=1 --inline-suppr \
		--suppress=missingIncludeSystem $(DICE_CORE_CPPFLAGS) \
		'-D__has_include_next(x)=0' -D__SIZEOF_INT128__=16 \
		-D__x86_64__ -Ilibdice \
		-Ilibdice/notation libdice/*.c libdice/notation/*.c tools/*.c \
		$(DICE_CORE_SRCS) || { fail=1; printf 'not '; }; \
	echo "ok 2 - static: cppcheck on the core, libdice and the CLI"; \
	$(TOP)/scripts/tiers.sh --check-docs || { fail=1; printf 'not '; }; \
	echo "ok 3 - static: README's and testing.rst's tier tables list the tiers of scripts/tiers.sh"; \
	$(TOP)/scripts/errno-check.py kmod/include/uapi/linux/dice.h \
		Documentation/userspace-api/dice.rst || { fail=1; printf 'not '; }; \
	echo "ok 4 - static: <linux/dice.h> and dice.rst list the same errors for each ioctl"; \
	$(TOP)/scripts/tiers.sh --check-packages || { fail=1; printf 'not '; }; \
	echo "ok 5 - static: scripts/tiers.sh has each tier's packages, and installing them (apt-get -s, on an empty system) installs no linux-image-*"; \
	$(TOP)/scripts/series-cut-test.sh || { fail=1; printf 'not '; }; \
	echo "ok 6 - static: scripts/series-cut.awk cuts known answers, refuses bad markers, and cuts every kmod/ file at every stage of the upstream series"; \
	{ $(MAKE) -s -C libdice O=$(B)/static/libdice all && \
	  $(MAKE) -s -C tools O=$(B)/static/tools LIBDICE_O=$(B)/static/libdice \
		$(B)/static/tools/dice && \
	  ( for f in bindings/python/libdice/ext/*.c; do \
		mkdir -p $(B)/static/$${f%/*} && \
		$(CC) -c -fPIC -w $$($(PYTHON)-config --includes) \
			$$(PKG_CONFIG_PATH=$(B)/static/libdice pkg-config --cflags libdice) \
			-o $(B)/static/$${f%.c}.o $$f || exit 1; \
	  done ) && \
	  /usr/bin/python3 scripts/call-cycles.py libdice=$(B)/static/libdice \
		tools=$(B)/static/tools bindings=$(B)/static/bindings; } || \
		{ fail=1; printf 'not '; }; \
	echo "ok 7 - static: no .c files of libdice/, tools/ or bindings/ call each other in a circle (scripts/call-cycles.py)"; \
	/usr/bin/python3 scripts/call-cycles.py --self-test || { fail=1; printf 'not '; }; \
	echo "ok 8 - static: scripts/call-cycles.py fails on a tree with a circle"; \
	out=$$(selftests/qemu/run-retry-test.sh 2>&1) || \
		{ printf '%s\n' "$$out"; fail=1; printf 'not '; }; \
	echo "ok 9 - static: the VM runner boots again once after a crash before init, and only then (selftests/qemu/run-retry-test.sh)"; \
	out=$$(scripts/check-test.sh 2>&1) || \
		{ printf '%s\n' "$$out"; fail=1; printf 'not '; }; \
	echo "ok 10 - static: make check ends with each failed test and why, under 'failed:' (scripts/check-test.sh)"; \
	exit $$fail

# This tree's documentation, every .rst under Documentation/ (its conf.py),
# built by Sphinx into build/docs/html; any warning fails (the docs tier).
docs:
	@rm -rf $(B)/docs && mkdir -p $(B)/docs; \
	out=$$(sphinx-build -q -b html -d $(B)/docs/.doctrees $(TOP)/Documentation \
		$(B)/docs/html 2>&1); rc=$$?; \
	[ -z "$$out" ] || printf '%s\n' "$$out"; \
	n=$$(find $(TOP)/Documentation -name '*.rst' | wc -l); \
	if [ $$rc -ne 0 ] || [ -n "$$out" ]; then printf 'not '; fi; \
	echo "ok 1 - docs: the $$n .rst files of Documentation/ build with Sphinx, no warning"; \
	[ $$rc -eq 0 ] && [ -z "$$out" ]

# make upstream: the series for the newest kernel tree (scripts/upstream.sh)
# in build/upstream/linux-X.Y/; UPSTREAM_SRC=<unpacked tree> for another, or
# UPSTREAM_SRC=6.12 for Debian's linux-source-6.12 (make check-upstream
# UPSTREAM_SRC=6.12 fetches and unpacks it in the cache).
# The upstream tier (scripts/upstream-check.sh) proves it in that tree.
UPSTREAM_SRC ?= $(LINUX_SRC_NEWEST)
upstream:
	@test -n "$(UPSTREAM_SRC)" || { echo "upstream: no newest tree (make linux-src-newest)"; exit 1; }
	@$(TOP)/scripts/upstream.sh --src $(UPSTREAM_SRC)

# The kselftests build against the newest tree's kselftest_harness.h: its
# -r/-t/-f/-v case filters (6.1's has none) serve TAP_ONLY in the VM.
selftests:
	@src=$$($(MAKE) -s --no-print-directory linux-src-newest) && \
	$(MAKE) -C selftests/dice LINUX_SRC="$$src" O=$(B)/selftests

FUZZ_SECONDS ?= 30
fuzz:
	$(MAKE) -C fuzz check O=$(B)/fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

kunit: linux-src
	LINUX_SRC=$(LINUX_SRC) $(TOP)/selftests/kunit/run.sh

# The same suite in a UML kernel of the newest tree (LINUX_SRC_NEWEST),
# its copy and build cached beside the default tree's.
kunit-newest:
	@test -n "$(LINUX_SRC_NEWEST)" || { echo "kunit-newest: no newest tree (make linux-src-newest)"; exit 1; }
	LINUX_SRC=$(LINUX_SRC_NEWEST) \
	DICE_KUNIT_TREE=$(DICE_CACHE)/kunit-tree-$(notdir $(LINUX_SRC_NEWEST)) \
	DICE_KUNIT_BUILD=$(DICE_CACHE)/kunit-build-$(notdir $(LINUX_SRC_NEWEST)) \
		$(TOP)/selftests/kunit/run.sh

# The VM harness, one runner for every VM tier (selftests/qemu/vmtest.sh):
# make vmtest [VM_KERNEL=debug|6.12|6.1-rt|...] [VM_TESTS="dice_test quality"]
# builds the module for that kernel in a private copy, boots it in QEMU
# with the tests and prints TAP.  The default, 6.1, is Debian 12's default
# kernel from the cache (make bookworm), as the vm tier runs it.
VMTEST = $(TOP)/selftests/qemu/vmtest.sh
VM_KERNEL ?= 6.1
VM_ARGS = --kernel $(VM_KERNEL) $(if $(filter 6.1,$(VM_KERNEL)),--name vm)
vmtest: selftests vm-kernel
	$(VMTEST) $(VM_ARGS) $(VM_TESTS)

# Two clones of one saved VM must roll different dice (the vmfork tier).
vmfork: vm-kernel
	$(VMTEST) --kernel $(VM_KERNEL) $(if $(filter 6.1,$(VM_KERNEL)),--name vmfork) vmfork

# The kernels the module is built and tested for: the set is written once,
# in scripts/kernels.sh (Debian 12's 6.1 and 6.12, Debian 13's 6.12 and
# trixie-backports' newest, each also PREEMPT_RT), all from the cache
# (make bookworm, make trixie).  make check runs a VM tier on each; "make
# check KERNELS=6.1" keeps to the default kernel.
kernels:
	@for k in $$($(TOP)/scripts/kernels.sh --names); do \
		set -- $$($(TOP)/scripts/kernels.sh --info $$k) || exit 1; \
		$(TOP)/scripts/module-build.sh $$1 $(B)/kernels/$$1 $$4 || exit 1; \
	done
vmtest-kernels: selftests
	@for k in $$($(TOP)/scripts/kernels.sh --names); do \
		[ $$k = 6.1 ] && continue; \
		$(VMTEST) --kernel $$k $(VM_TESTS) || exit 1; \
	done

# The debug kernel (KASAN, UBSAN, lockdep, kmemleak, KUnit): built once into
# $(DICE_CACHE)/debug-kernel/, reused until its version or config changes.
debug-kernel: linux-src
	@$(TOP)/selftests/qemu/debug-kernel.sh

vmtest-debug: linux-src selftests
	$(VMTEST) --kernel debug $(VM_TESTS)

# Targets that install packages first go on in a fresh make: on a new
# machine the source tarball only exists after make deps, and the values
# computed above would be empty.  Each installs what it needs alone
# (scripts/deps.sh; the list: scripts/tiers.sh), the tiers their cached
# kernels (their NEEDS: make bookworm, make trixie).
AFTER_DEPS = env -u KVER -u KDIR -u KIMAGE -u LINUX_SRC $(MAKE) --no-print-directory

check: deps
	@$(AFTER_DEPS) check-tiers
check-tiers:
	@$(TOP)/scripts/check.sh

# One tier: make check-vm, make check-kernel-trixie-bpo, make check-cli
# TAP_ONLY='*pattern*' (Documentation/dice/testing.rst).  The packages that
# tier needs first (make deps for that tier alone, quiet when none is
# missing).
check-%:
	@$(TOP)/scripts/deps.sh -q '$*' && $(AFTER_DEPS) check-tiers TIERS='$*'
# The tiers, in order (scripts/tiers.sh: the one list).
tiers:
	@$(TOP)/scripts/tiers.sh --names

bench:
	@$(TOP)/scripts/deps.sh -q bench
	@$(AFTER_DEPS) bench-run
# bench boots 6.1 alone (scripts/bench.sh).
bench-run: libdice
	@$(MAKE) -s --no-print-directory bookworm BOOKWORM_KERNELS=6.1
	$(TOP)/scripts/bench.sh

# Only what the demo needs (scripts/tiers.sh's "demo" line) and Debian 12's
# default kernel from the cache: nothing installed beyond that.
demo:
	@$(TOP)/scripts/deps.sh -q demo
	@$(AFTER_DEPS) demo-run
demo-run: vm-kernel
	$(TOP)/scripts/demo.sh
# What VM_KERNEL boots, made where missing: a Debian 12 kernel alone
# (make bookworm BOOKWORM_KERNELS=...), Debian 13's (make trixie), the
# debug kernel's source (make linux-src); "default", the host's own
# linux-image-amd64 when installed, needs nothing.
vm-kernel:
	@case "$(VM_KERNEL)" in \
	default) ;; \
	debug) $(MAKE) -s --no-print-directory linux-src >/dev/null ;; \
	trixie-*) $(MAKE) -s --no-print-directory trixie ;; \
	*) $(MAKE) -s --no-print-directory bookworm BOOKWORM_KERNELS=$(VM_KERNEL) ;; \
	esac

# Everything a user needs; DESTDIR and PREFIX as usual.
PREFIX ?= /usr/local
install: all
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_PATH=$(DESTDIR) \
		CONFIG_MODULE_SIG_ALL= modules_install
	$(MAKE) -C libdice O=$(B)/libdice PREFIX=$(PREFIX) install
	$(MAKE) -C tools O=$(B)/tools PREFIX=$(PREFIX) install
	$(if $(DESTDIR),,depmod -a $(KVER))

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/kmod/dice.ko
	-rmdir $(DESTDIR)/lib/modules/$(KVER)/extra/kmod 2>/dev/null
	$(MAKE) -C libdice O=$(B)/libdice PREFIX=$(PREFIX) uninstall
	$(MAKE) -C tools O=$(B)/tools PREFIX=$(PREFIX) uninstall
	$(if $(DESTDIR),,depmod -a $(KVER))

# Build the module through dkms.conf once (root).
dkms:
	$(TOP)/scripts/dkms-check.sh

# The module's sources and dkms.conf, its version filled in, where DKMS
# looks for them (DESTDIR as usual; the dice-dkms package uses this).
# dkms-install registers, builds and installs them for KVER (root), and
# DKMS rebuilds them at every kernel upgrade; dkms-uninstall undoes it.
DKMS_SRC = $(DESTDIR)/usr/src/dice-$(DICE_VERSION)
dkms-source:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/kmod
	sed 's/#MODULE_VERSION#/$(DICE_VERSION)/' dkms.conf >$(DKMS_SRC)/dkms.conf
	install -m 0644 Kbuild $(DKMS_SRC)/
	cd $(TOP)/kmod && for f in $(DICE_KMOD_FILES); do \
		install -D -m 0644 $$f $(DKMS_SRC)/kmod/$$f || exit 1; done
	chmod -R u=rwX,go=rX $(DKMS_SRC)
dkms-install: dkms-source
	dkms install -m dice -v $(DICE_VERSION) -k $(KVER)
dkms-uninstall:
	-dkms remove -m dice -v $(DICE_VERSION) --all
	rm -rf /usr/src/dice-$(DICE_VERSION)

# Debian packages from a clean copy of the tree: build/deb/*.deb, the
# source package (.dsc) and the .changes; scripts/deb-check.sh tests them.
deb:
	$(TOP)/scripts/deb-build.sh --out $(B)/deb
# The deb tier of make check alone (root): make deb, lintian, and install,
# purge and upgrade in a throwaway Debian root (Documentation/dice/packaging.rst).
deb-check:
	$(TOP)/scripts/deb-check.sh

# An interactive VM with the module loaded and the CLI at hand (^A x
# quits), on VM_KERNEL.
shell: cli vm-kernel
	rm -rf $(B)/shell-extra && mkdir -p $(B)/shell-extra
	cp $(B)/tools/dice $(B)/shell-extra/
	cc -static -O2 -I$(TOP)/kmod/include/uapi -o $(B)/shell-extra/dicectl \
		$(TOP)/selftests/qemu/dicectl.c -lm
	$(VMTEST) --kernel $(VM_KERNEL) --extra $(B)/shell-extra --shell

clean:
	-test -d $(KDIR) && $(MAKE) -C $(KDIR) M=$(TOP) clean
	rm -rf $(B)

export TOP KVER KDIR KIMAGE B LINUX_SRC DICE_CACHE
.PHONY: all deps bookworm vm-kernel trixie linux-src linux-src-newest checkpatch-newest docs upstream \
	kunit-newest tiers module core libdice cli sparse checkpatch \
	selftests fuzz kunit vmtest vmfork kmod-files kver static kernels vmtest-kernels debug-kernel vmtest-debug check check-tiers demo demo-run bench bench-run install uninstall dkms \
	dkms-source dkms-install dkms-uninstall deb deb-check shell clean python python-test
