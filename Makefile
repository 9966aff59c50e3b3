# SPDX-License-Identifier: GPL-2.0
#
# dice: /dev/dice, libdice and the dice CLI.
#
#   make            build the module, the library and the CLI
#   make demo       install what is missing, boot a VM, roll real dice
#   make check      install what is missing, run every test tier
#   make deps       install the Debian packages (root)
#   make bench      benchmarks: the core in userspace, callgrind, /dev/dice in a VM
#   make deb        Debian packages in build/deb/ (dice-dkms, libdice1,
#                   libdice-dev, dice) and the source package
#
# The kernel is Debian's linux-image-amd64, found at build time.

TOP := $(CURDIR)
# The default kernel: the one Debian's linux-image-amd64 points to
# (scripts/kernels.sh 6.1), or else the newest installed headers; "make
# kver" prints it.
KVER ?= $(or $(shell $(TOP)/scripts/kernels.sh 6.1 2>/dev/null),$(lastword \
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

include $(TOP)/kmod/dice-core.mk

all: module core libdice cli

# Every file a build of the module needs (kmod/dice-core.mk), one a line:
# what DKMS and the debug kernel's private copy take.
kmod-files:
	@printf 'Kbuild\n'; printf 'kmod/%s\n' $(DICE_KMOD_FILES)

kver:
	@echo $(KVER)

deps:
	@$(TOP)/scripts/deps.sh

linux-src: $(LINUX_SRC)/Makefile
$(LINUX_SRC)/Makefile:
	@test -n "$(LINUX_TARBALL)" || { echo "no /usr/src/linux-source-*.tar.xz: run make deps"; exit 1; }
	mkdir -p $(DICE_CACHE)
	tar -C $(DICE_CACHE) -xf $(LINUX_TARBALL)
	touch $@

module:
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules

core:
	$(MAKE) -C kmod/tests O=$(B)/core

libdice:
	$(MAKE) -C libdice O=$(B)/libdice

cli: libdice
	$(MAKE) -C tools O=$(B)/tools

# Tests that need no VM (the VM ones: vmtest, vmfork, vmtest-kernels,
# vmtest-debug below); make check runs every tier (scripts/check.sh).
sparse:
	$(MAKE) -C $(KDIR) M=$(TOP) C=2 CHECK="sparse -Wbitwise" modules

# checkpatch --strict on the module's C and the uapi header: ERROR and
# WARNING fail, CHECK lines are shown for review only.  Documented
# exceptions, for the compat header alone (*compat.h): it typedefs u128,
# which Linux 6.1 lacks (NEW_TYPEDEFS), and it is where the out-of-tree
# module meets the kernels it builds for, with shims keyed on
# LINUX_VERSION_CODE < KERNEL_VERSION(...) (LINUX_VERSION_CODE,
# CONSTANT_COMPARISON), so that no other file needs one.
KMOD_C_H = $(filter %.c %.h,$(DICE_KMOD_FILES:%=kmod/%))
KMOD_COMPAT_H = $(filter %compat.h,$(KMOD_C_H))
CHECKPATCH = perl $(LINUX_SRC)/scripts/checkpatch.pl --no-tree --strict \
	--terse --show-types
CHECKPATCH_COMPAT = --ignore NEW_TYPEDEFS,LINUX_VERSION_CODE,CONSTANT_COMPARISON
checkpatch: linux-src
	@out=$$(cd $(TOP) && \
		$(CHECKPATCH) -f $(filter-out $(KMOD_COMPAT_H),$(KMOD_C_H)) 2>&1; \
		$(if $(KMOD_COMPAT_H),$(CHECKPATCH) $(CHECKPATCH_COMPAT) \
			-f $(KMOD_COMPAT_H) 2>&1)); \
	printf '%s\n' "$$out" | grep -v '^total:'; \
	if printf '%s\n' "$$out" | grep -qE ': (ERROR|WARNING):'; then \
		echo "checkpatch: errors or warnings"; exit 1; fi; \
	echo "checkpatch: no errors or warnings ($$(printf '%s\n' "$$out" | \
		grep -c ': CHECK:') checks)"

# kernel-doc on the module's C reports nothing, and cppcheck is clean on
# the core as userspace builds it, libdice and the CLI.  TAP.  cppcheck
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
		libdice/*.c tools/*.c $(DICE_CORE_SRCS) || { fail=1; printf 'not '; }; \
	echo "ok 2 - static: cppcheck on the core, libdice and the CLI"; \
	exit $$fail

selftests: linux-src
	$(MAKE) -C selftests/dice LINUX_SRC=$(LINUX_SRC) O=$(B)/selftests

FUZZ_SECONDS ?= 30
fuzz:
	$(MAKE) -C fuzz check O=$(B)/fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

kunit: linux-src
	LINUX_SRC=$(LINUX_SRC) $(TOP)/selftests/kunit/run.sh

# The VM harness, one runner for every VM tier (selftests/qemu/vmtest.sh):
# make vmtest [VM_KERNEL=debug|6.12|6.1-rt|...] [VM_TESTS="dice_test quality"]
# builds the module for that kernel (in a private copy but for the default
# kernel), boots it in QEMU with the tests and prints TAP.
VMTEST = $(TOP)/selftests/qemu/vmtest.sh
VM_KERNEL ?= default
vmtest: module selftests
	$(VMTEST) --kernel $(VM_KERNEL) $(VM_TESTS)

# Two clones of one saved VM must roll different dice (the vmfork tier).
vmfork: module
	$(VMTEST) --kernel $(VM_KERNEL) vmfork

# The kernels the module is built and tested for (scripts/kernels.sh):
# Debian 12's 6.1 and 6.12, each also PREEMPT_RT.  make check runs a VM
# tier on each; "make check KERNELS=6.1" keeps to the default kernel.
KERNELS ?= 6.1 6.12 6.1-rt 6.12-rt
kernels:
	@for k in $(KERNELS); do \
		v=$$($(TOP)/scripts/kernels.sh $$k) || exit 1; \
		$(TOP)/scripts/module-build.sh $$v $(B)/kernels/$$v || exit 1; \
	done
vmtest-kernels: selftests
	@for k in $(filter-out 6.1,$(KERNELS)); do \
		$(VMTEST) --kernel $$k $(VM_TESTS) || exit 1; \
	done

# The debug kernel (KASAN, UBSAN, lockdep, kmemleak, KUnit): built once into
# $(DICE_CACHE)/debug-kernel/, reused until its version or config changes.
debug-kernel: linux-src
	@$(TOP)/selftests/qemu/debug-kernel.sh

vmtest-debug: linux-src selftests
	$(VMTEST) --kernel debug $(VM_TESTS)

# Targets that install packages first go on in a fresh make: on a new
# machine the kernel version, headers and source tarball only exist after
# make deps, and the values computed above would be empty.
AFTER_DEPS = env -u KVER -u KDIR -u KIMAGE -u LINUX_SRC $(MAKE) --no-print-directory

check: deps
	@$(AFTER_DEPS) check-tiers
check-tiers:
	@$(TOP)/scripts/check.sh

bench: deps
	@$(AFTER_DEPS) bench-run
bench-run: module libdice
	$(TOP)/scripts/bench.sh

demo: deps
	@$(AFTER_DEPS) demo-run
demo-run: module
	$(TOP)/scripts/demo.sh

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
shell: module cli
	rm -rf $(B)/shell-extra && mkdir -p $(B)/shell-extra
	cp $(B)/tools/dice $(B)/shell-extra/
	cc -static -O2 -I$(TOP)/kmod/include/uapi -o $(B)/shell-extra/dicectl \
		$(TOP)/selftests/qemu/dicectl.c -lm
	$(VMTEST) --kernel $(VM_KERNEL) --extra $(B)/shell-extra --shell

clean:
	$(MAKE) -C $(KDIR) M=$(TOP) clean
	rm -rf $(B)

export TOP KVER KDIR KIMAGE B LINUX_SRC DICE_CACHE KERNELS
.PHONY: all deps linux-src module core libdice cli sparse checkpatch \
	selftests fuzz kunit vmtest vmfork kmod-files kver static kernels vmtest-kernels debug-kernel vmtest-debug check check-tiers demo demo-run bench bench-run install uninstall dkms \
	dkms-source dkms-install dkms-uninstall deb deb-check shell clean
