# SPDX-License-Identifier: LGPL-2.1-or-later
"""The examples of Documentation/dice/python.rst (doctest) and README's
Python example run as written."""

import doctest
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PAGE = os.path.join(TOP, "Documentation", "dice", "python.rst")
README = os.path.join(TOP, "README.md")


def test_python_rst_examples():
    if not os.path.exists(PAGE):
        pytest.skip("no Documentation/ here")
    result = doctest.testfile(PAGE, module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10 and result.failed == 0


def test_readme_python_example():
    if not os.path.exists(README):
        pytest.skip("no README.md here")
    if not os.path.isdir(os.path.join(TOP, "build", "python", "lib")):
        pytest.skip("no build/python/lib (make python) for its PYTHONPATH")
    with open(README, encoding="utf-8") as f:
        text = f.read()
    # The example: the lines of the fenced block under "Python" that run
    # /usr/bin/python3 -c, as a shell would (PYTHONPATH as given there).
    block = re.search(r"```sh\n(make python\n.*?/usr/bin/python3 -c .*?)```",
                      text, re.S)
    assert block, "README has no Python example"
    script = block.group(1).replace("make python\n", "")
    out = subprocess.run(["sh", "-ec", script], cwd=TOP, check=True,
                         capture_output=True, text=True)
    assert out.stdout.strip()


def test_readme_notation_example():
    if not os.path.exists(README):
        pytest.skip("no README.md here")
    with open(README, encoding="utf-8") as f:
        text = f.read()
    # the four lines of the ```python block with libdice.roll
    block = re.search(r"```python\n(import libdice\n.*?libdice\.roll.*?)```",
                      text, re.S)
    assert block, "README has no libdice.roll example"
    lines = block.group(1).strip().splitlines()
    assert len(lines) == 4
    out = subprocess.run([sys.executable, "-c", block.group(1)], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    assert re.fullmatch(r"4d6kh3 \\\[.*~~\d~~.*\\\] = \*\*\d+\*\*", out[0])
    assert out[1] == "13/20 13053/16000"
    totals = [int(t) for t in out[2].strip("[]").split(", ")]
    assert len(totals) == 6 and all(3 <= t <= 18 for t in totals)
