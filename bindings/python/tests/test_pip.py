# SPDX-License-Identifier: LGPL-2.1-or-later
"""pip install --no-build-isolation ./bindings/python into a venv
(/usr/bin/python3 -m venv --system-site-packages), offline: the build
needs nothing but Debian's packages (setuptools, wheel, python3-dev) and
libdice, found by pkg-config as setup.py does."""

import ast
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)				# bindings/python
TOP = os.path.dirname(os.path.dirname(SRC))


def test_pip_install_into_a_venv_offline(tmp_path):
    if os.environ.get("DICE_PIP_TEST") == "0":
        pytest.skip("DICE_PIP_TEST=0 (the Debian package build)")
    if not os.path.exists(os.path.join(TOP, "VERSION")):
        pytest.skip("not in the source tree")
    if os.environ.get("LIBDICE_INCLUDE_DIRS") is None and \
            subprocess.run(["pkg-config", "--exists", "libdice"]).returncode:
        pytest.skip("no libdice for pkg-config (PKG_CONFIG_PATH)")
    # A copy of what pip reads, so that its in-tree build (build/,
    # libdice.egg-info) lands there and not in the tree.
    tree = tmp_path / "tree"
    shutil.copytree(SRC, tree / "bindings" / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                  "__pycache__"))
    shutil.copy(os.path.join(TOP, "VERSION"), tree / "VERSION")
    venv = tmp_path / "venv"
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_CACHE_DIR="1")
    env.pop("PYTHONPATH", None)	# the venv must find its own libdice
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages",
                    str(venv)], check=True, env=env)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q",
                    "--no-build-isolation", "./bindings/python"],
                   cwd=tree, check=True, env=env)
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import libdice; print(libdice.__file__); "
         "print(libdice.Die(seed=1).roll(3))"],
        cwd=tmp_path, check=True, env=env, capture_output=True, text=True)
    where, faces = out.stdout.splitlines()
    assert where.startswith(str(venv)), where
    assert all(1 <= f <= 6 for f in ast.literal_eval(faces))
    # and the venv's pip knows it
    show = subprocess.run([str(venv / "bin" / "pip"), "show", "libdice"],
                          check=True, env=env, capture_output=True, text=True)
    with open(os.path.join(TOP, "VERSION")) as f:
        assert f"Version: {f.read().strip()}" in show.stdout
