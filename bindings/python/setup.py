# SPDX-License-Identifier: LGPL-2.1-or-later
"""Build libdice's Python bindings: the package libdice and its C
extension libdice._ext, linked with libdice.

Where libdice is found, first match wins:
  LIBDICE_INCLUDE_DIRS, LIBDICE_LIBRARY_DIRS  colon-separated directories
        (the Debian package: the build tree's headers and libdice.so,
        no rpath, since libdice1 installs the library)
  pkg-config libdice  the installed libdice-dev, or the build tree when
        PKG_CONFIG_PATH holds build/libdice (its libdice-uninstalled.pc
        adds an rpath to that directory: make python does this)
No network is needed: setuptools from Debian's python3-setuptools.
"""

import os
import re
import shlex
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def python_version(version):
    """VERSION as PEP 440 spells it: Debian's "~" (before the release:
    the deb tier's 0.1~prev1) becomes a development release, 0.1.dev0,
    with the rest as a local label, +prev1."""
    release, tilde, rest = version.partition("~")
    if not tilde:
        return version
    label = re.sub(r"[^A-Za-z0-9]+", ".", rest).strip(".")
    return f"{release}.dev0" + (f"+{label}" if label else "")


def read_version():
    # The project's one version, from VERSION at the top of the tree.
    path = os.path.join(HERE, "..", "..", "VERSION")
    if not os.path.exists(path):
        raise SystemExit("setup.py: no VERSION file (../../VERSION)")
    with open(path, encoding="ascii") as f:
        return python_version(f.read().strip())


def libdice_flags():
    inc = os.environ.get("LIBDICE_INCLUDE_DIRS")
    lib = os.environ.get("LIBDICE_LIBRARY_DIRS")
    if inc is not None or lib is not None:
        return dict(include_dirs=[d for d in (inc or "").split(":") if d],
                    library_dirs=[d for d in (lib or "").split(":") if d],
                    libraries=["dice"], extra_link_args=[])
    try:
        out = subprocess.run(["pkg-config", "--cflags", "--libs", "libdice"],
                             check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(
            "setup.py: libdice not found: install libdice-dev, or set "
            "PKG_CONFIG_PATH to the tree's build/libdice (make libdice), "
            f"or LIBDICE_INCLUDE_DIRS and LIBDICE_LIBRARY_DIRS ({e})")
    flags = dict(include_dirs=[], library_dirs=[], libraries=[],
                 extra_link_args=[])
    for word in shlex.split(out.stdout):
        if word.startswith("-I"):
            flags["include_dirs"].append(word[2:])
        elif word.startswith("-L"):
            flags["library_dirs"].append(word[2:])
        elif word.startswith("-l"):
            flags["libraries"].append(word[2:])
        else:
            flags["extra_link_args"].append(word)
    return flags


flags = libdice_flags()
ext = Extension(
    "libdice._ext",
    sources=["libdice/ext/module.c", "libdice/ext/die.c",
             "libdice/ext/notation.c", "libdice/ext/errors.c"],
    depends=["libdice/ext/internal.h"],
    extra_compile_args=["-Wall", "-Wextra", "-Wno-missing-field-initializers",
                        "-fvisibility=hidden"],
    **flags,
)

setup(
    name="libdice",
    version=read_version(),
    description="Exact dice from /dev/dice: Python bindings of libdice",
    license="LGPL-2.1-or-later",
    packages=["libdice"],
    package_data={"libdice": ["py.typed", "*.pyi"]},
    ext_modules=[ext],
    python_requires=">=3.9",
    zip_safe=False,
)
