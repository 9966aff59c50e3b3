#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the version of the kernel Debian's linux-image-amd64 points at: the
# kernel the module is built for and the VM boots.  Never hard-coded.
set -e
dep=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
	sed -n 's/.*linux-image-\([0-9][^ ,]*\).*/\1/p')
if [ -n "$dep" ] && [ -d "/lib/modules/$dep/build" ]; then
	echo "$dep"
	exit 0
fi
# Fall back to the newest installed headers.
ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/||;s|/build||' |
	sort -V | tail -n 1
