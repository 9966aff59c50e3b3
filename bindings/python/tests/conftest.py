# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures of the libdice binding's tests, and their TAP.

The tests import the libdice under test from sys.path (PYTHONPATH: the
tree's build/python/lib from make check-python, or an installed package).
They need no /dev/dice: the userspace and seeded engines stand in, and the
tests that concern the device skip where it is (the QEMU guest tests it).

TAP: one "ok N - python: TEST" line per test at the end of the run (the
form scripts/check.sh counts); TAP_ONLY=PATTERN (a shell pattern, as in
testlib/tap.sh) keeps the run to the tests whose "python: TEST" name
matches it.
"""

import fnmatch
import os
import shlex
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def tap_name(nodeid):
    return "python: " + nodeid.split("tests/", 1)[-1]


def pytest_collection_modifyitems(config, items):
    pattern = os.environ.get("TAP_ONLY")
    if not pattern:
        return
    keep = [i for i in items if fnmatch.fnmatchcase(tap_name(i.nodeid),
                                                    pattern)]
    config.hook.pytest_deselected(items=[i for i in items if i not in keep])
    items[:] = keep


_results = []


def pytest_runtest_logreport(report):
    # One line per test: its call, or the setup that failed or skipped.
    if report.when == "call" or (report.when == "setup" and
                                 not report.passed) or \
            (report.when == "teardown" and report.failed):
        _results.append(report)


def pytest_terminal_summary(terminalreporter):
    tr = terminalreporter
    tr.write_line("")
    for n, r in enumerate(_results, 1):
        name = tap_name(r.nodeid)
        if r.skipped:
            why = r.longrepr[2] if isinstance(r.longrepr, tuple) else ""
            tr.write_line(f"ok {n} - {name} # SKIP {why}")
        elif r.passed:
            tr.write_line(f"ok {n} - {name}")
        else:
            tr.write_line(f"not ok {n} - {name}" +
                          (" (teardown)" if r.when == "teardown" else ""))


def libdice_build_flags():
    """cc flags to build against the libdice under test, as setup.py
    finds it: LIBDICE_INCLUDE_DIRS/LIBDICE_LIBRARY_DIRS, or pkg-config."""
    inc = os.environ.get("LIBDICE_INCLUDE_DIRS")
    lib = os.environ.get("LIBDICE_LIBRARY_DIRS")
    if inc is not None or lib is not None:
        incs = [d for d in (inc or "").split(":") if d]
        libs = [d for d in (lib or "").split(":") if d]
        return ([f"-I{d}" for d in incs] + [f"-L{d}" for d in libs] +
                [f"-Wl,-rpath,{d}" for d in libs] + ["-ldice"])
    out = subprocess.run(["pkg-config", "--cflags", "--libs", "libdice"],
                         check=True, capture_output=True, text=True)
    return shlex.split(out.stdout)


@pytest.fixture(scope="session")
def oracle(tmp_path_factory):
    """A function (seed, count, die, method=None) -> the faces libdice's C
    seeded engine rolls (seeded_oracle.c), built here with cc."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler for the C oracle")
    exe = tmp_path_factory.mktemp("oracle") / "seeded_oracle"
    try:
        flags = libdice_build_flags()
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"libdice not found for the C oracle: {e}")
    subprocess.run([cc, "-O2", "-Wall", "-Werror", "-o", str(exe),
                    os.path.join(HERE, "seeded_oracle.c")] + flags,
                   check=True)

    def run(seed, count, die, method=None):
        argv = [str(exe), str(seed), str(count), die]
        if method:
            argv.append(method)
        out = subprocess.run(argv, check=True, capture_output=True,
                             text=True).stdout
        return [int(x) for x in out.split()]
    return run


@pytest.fixture
def has_device():
    return os.path.exists("/dev/dice")
