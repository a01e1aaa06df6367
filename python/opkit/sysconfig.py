"""Compiler and linker flags for building op libraries against this opkit,
as tf.sysconfig gives them for TensorFlow; the same flags as
`opkit-config --cflags` / `--ldflags` (both are generated from one list in
cmake/OpkitPackage.cmake).

    CFLAGS=( $(python3 -c 'import opkit as tf; print(" ".join(tf.sysconfig.get_compile_flags()))') )
    LFLAGS=( $(python3 -c 'import opkit as tf; print(" ".join(tf.sysconfig.get_link_flags()))') )
    g++ -std=c++11 -shared zero_out.cc -o zero_out.so -fPIC ${CFLAGS[@]} ${LFLAGS[@]} -O2

The compile flags come after the guide's -std=c++11 on that line and
contain -std=c++17, which wins (opkit needs C++17). They also carry the
definitions opkit's loader checks (-DEIGEN_MAX_ALIGN_BYTES,
-D_GLIBCXX_USE_CXX11_ABI): a library compiled with other values is refused
at load with a message naming the flag.
"""

import os as _os

from opkit import _build_info

__all__ = ["get_include", "get_lib", "get_compile_flags", "get_link_flags",
           "CXX11_ABI_FLAG", "MONOLITHIC_BUILD"]


def _prefix():
    rel = _build_info.PREFIX_FROM_PACKAGE
    if rel is None:
        return None
    here = _os.path.dirname(_os.path.abspath(__file__))
    return _os.path.normpath(_os.path.join(here, rel))


def _expand(text):
    prefix = _prefix()
    return text if prefix is None else text.replace("<PREFIX>", prefix)


def get_include():
    """The folder holding opkit's C++ headers (`opkit/op/op.h`, ...). The
    TensorFlow compatibility root (`tensorflow/core/framework/op.h`, ...) is
    among get_compile_flags()'s -I folders too."""
    return _expand(_build_info.INCLUDE_DIR)


def get_lib():
    """The folder holding libopkit_framework.so."""
    return _expand(_build_info.LIB_DIR)


def get_compile_flags():
    """The compiler flags for an op library, as a list: -I for opkit's
    headers, the compatibility root, the generated protos and Eigen, then
    -std=c++17, -fPIC and the definitions a library must share with
    opkit."""
    return _expand(_build_info.COMPILE_FLAGS).split()


def get_link_flags():
    """The linker flags for a loadable op library, as a list: -shared,
    -L and a run-time path to get_lib(), -lopkit_framework and its
    protobuf dependency."""
    return _expand(_build_info.LINK_FLAGS).split()


# tf.sysconfig's constants: the C++ library ABI opkit's flags ask for, and
# that opkit's framework is a separate library.
CXX11_ABI_FLAG = int("-D_GLIBCXX_USE_CXX11_ABI=1" in get_compile_flags())
MONOLITHIC_BUILD = 0
