#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Put Python and the libdice binding into the QEMU guest's image:

    guest_image.py --pylib DIR --extra DIR --tests DIR

The busybox initramfs has no Python.  This copies Debian's python3 (the
interpreter of /usr/bin/python3; mkinitramfs.sh adds the shared libraries
of every executable ELF file, the extension's libdice.so.1 at the rpath
make python gave it), only the standard library modules guest.py imports
(guest.py --modules on this machine lists them, with their .pyc), the
libdice package of DIR (make python's build/python/lib) and guest.py into
EXTRA/python, and a test, TESTS/python_test, that runs guest.py there.
Prints what it added.
"""
import argparse
import os
import shutil
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pylib", required=True)
    ap.add_argument("--extra", required=True)
    ap.add_argument("--tests", required=True)
    args = ap.parse_args()

    # What guest.py imports, as this machine's python3 finds it: -S as in
    # the guest (no site, so no dist-packages).
    env = dict(os.environ, PYTHONPATH=args.pylib, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([PYTHON, "-S", os.path.join(HERE, "guest.py"),
                          "--modules"], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    info = subprocess.run([PYTHON, "-S", "-c",
                           "import sys, sysconfig; "
                           "print(sys.version_info[0], sys.version_info[1]); "
                           "print(sysconfig.get_path('stdlib')); "
                           "print(sys.executable)"],
                          check=True, capture_output=True, text=True)
    ver, stdlib, exe = info.stdout.splitlines()
    ver = ver.replace(" ", ".")
    root = os.path.join(args.extra, "python")
    lib = os.path.join(root, "lib", f"python{ver}")
    pylib = os.path.realpath(args.pylib)
    os.makedirs(os.path.join(root, "bin"), exist_ok=True)
    shutil.copy(os.path.realpath(exe), os.path.join(root, "bin", "python3"))
    files = 0
    for f in out:
        f = os.path.realpath(f)
        if f.startswith(stdlib + os.sep):
            rel = os.path.relpath(f, stdlib)
            dst = os.path.join(lib, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(f, dst)
            files += 1
            # The cached bytecode, where Debian made it: no compiling at
            # each boot (copy2 keeps the mtime the .pyc records).
            if f.endswith(".py"):
                base = os.path.splitext(os.path.basename(f))[0]
                pyc = os.path.join(os.path.dirname(f), "__pycache__",
                                   f"{base}.{sys.implementation.cache_tag}"
                                   ".pyc")
                if os.path.exists(pyc):
                    d = os.path.join(os.path.dirname(dst), "__pycache__")
                    os.makedirs(d, exist_ok=True)
                    shutil.copy2(pyc, d)
                    files += 1
        elif not f.startswith(pylib + os.sep) and \
                f != os.path.join(HERE, "guest.py"):
            sys.exit(f"guest_image.py: {f}: neither the standard library "
                     f"nor {pylib}")
    # os.py is the landmark by which Python knows its home.
    if not os.path.exists(os.path.join(lib, "os.py")):
        shutil.copy2(os.path.join(stdlib, "os.py"), lib)
    shutil.copytree(os.path.join(pylib, "libdice"),
                    os.path.join(root, "site", "libdice"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyi",
                                                  "py.typed"))
    for dirpath, _, names in os.walk(os.path.join(root, "site")):
        for name in names:
            if name.endswith(".so"):	# mkinitramfs.sh: libraries of
                os.chmod(os.path.join(dirpath, name), 0o755)  # executables
    shutil.copy(os.path.join(HERE, "guest.py"), root)
    test = os.path.join(args.tests, "python_test")
    with open(test, "w", encoding="ascii") as f:
        f.write("#!/bin/sh\n"
                "# libdice's Python binding against /dev/dice "
                "(bindings/python/tests/guest.py)\n"
                "export PYTHONHOME=/extra/python "
                "PYTHONPATH=/extra/python/site PYTHONDONTWRITEBYTECODE=1\n"
                "exec /extra/python/bin/python3 -S "
                "/extra/python/guest.py\n")
    os.chmod(test, 0o755)
    size = sum(os.path.getsize(os.path.join(d, n))
               for d, _, ns in os.walk(root) for n in ns)
    print(f"guest_image.py: python {ver}, {files} standard library files, "
          f"libdice: {size // 1024} KiB in {root}")


if __name__ == "__main__":
    main()
