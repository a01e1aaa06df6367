"""opkit.sysconfig as tf.sysconfig: the flags are opkit-config's, and
TensorFlow's guide command line, with tensorflow replaced by opkit, builds
zero_out into a library that loads and runs."""

import os
import shutil
import subprocess
import sys

import pytest

import opkit

GUIDE_BUILD = r"""
set -euo pipefail
CFLAGS=( $({python} -c 'import opkit as tf; print(" ".join(tf.sysconfig.get_compile_flags()))') )
LFLAGS=( $({python} -c 'import opkit as tf; print(" ".join(tf.sysconfig.get_link_flags()))') )
g++ -std=c++11 -shared zero_out.cc -o zero_out.so -fPIC ${{CFLAGS[@]}} ${{LFLAGS[@]}} -O2
"""


def _opkit_config(*args):
    path = os.environ.get("OPKIT_TEST_OPKIT_CONFIG")
    if not path:
        pytest.skip("OPKIT_TEST_OPKIT_CONFIG (path of opkit-config) is not set")
    return subprocess.run([path, *args], check=True, capture_output=True,
                          text=True).stdout.split()


def test_flags_are_opkit_configs():
    assert opkit.sysconfig.get_compile_flags() == _opkit_config("--cflags")
    assert opkit.sysconfig.get_link_flags() == _opkit_config("--ldflags")
    assert _opkit_config("--libdir") == [opkit.sysconfig.get_lib()]


def test_compile_flags_carry_what_a_library_must_agree_on():
    flags = opkit.sysconfig.get_compile_flags()
    include = opkit.sysconfig.get_include()
    assert f"-I{include}" in flags
    assert os.path.isfile(os.path.join(include, "opkit", "op", "op.h"))
    compat = [f[2:] for f in flags if f.startswith("-I")
              and os.path.isfile(os.path.join(f[2:], "tensorflow", "core",
                                              "framework", "op.h"))]
    assert compat, flags
    assert "-std=c++17" in flags
    assert "-DEIGEN_MAX_ALIGN_BYTES=64" in flags
    assert f"-D_GLIBCXX_USE_CXX11_ABI={opkit.sysconfig.CXX11_ABI_FLAG}" in flags
    lib = opkit.sysconfig.get_lib()
    assert os.path.isfile(os.path.join(lib, "libopkit_framework.so"))
    assert f"-L{lib}" in opkit.sysconfig.get_link_flags()
    assert "-lopkit_framework" in opkit.sysconfig.get_link_flags()


def test_guides_command_line_builds_a_library_that_loads_and_runs(tmp_path):
    source = os.environ.get("OPKIT_TEST_ZERO_OUT_SOURCE")
    if not source or not shutil.which("g++"):
        pytest.skip("OPKIT_TEST_ZERO_OUT_SOURCE or g++ missing")
    shutil.copy(source, tmp_path / "zero_out.cc")
    build = subprocess.run(
        ["bash", "-c", GUIDE_BUILD.format(python=sys.executable)],
        cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    # A fresh process: this one may hold the examples' zero_out, whose
    # kernel would make this build's ambiguous.
    run = subprocess.run(
        [sys.executable, "-c",
         "import opkit, sys\n"
         "m = opkit.load_op_library(sys.argv[1])\n"
         "print(m.zero_out([[1, 2], [3, 4]]).tolist())",
         str(tmp_path / "zero_out.so")],
        capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[[1, 0], [0, 0]]"
