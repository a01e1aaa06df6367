"""The built-in ops as snake_case functions, generated the way
opkit.load_op_library generates a library's:

    opkit.ops.add_v2(np.float32([1]), 2)       # array([3.], dtype=float32)
    opkit.ops.mat_mul(a, b, transpose_b=True)
    dir(opkit.ops)                             # every built-in op's function

The built-in ops are those registered when opkit is imported (libopkit_ops);
ops of libraries loaded later are in the module load_op_library returns.
Functions are generated on first use.
"""

import os as _os

from opkit import _opkit
from opkit import _op_gen

# API overrides for the built-in functions, as TensorFlow's API definitions:
# OPKIT_OP_GEN_OVERRIDES names OpGenOverrides text files (comma-separated),
# read once at import (opkit._op_gen.api_names says what skip, hide,
# rename_to and alias do).
_OVERRIDES = _op_gen.read_op_gen_overrides(
    _os.environ.get("OPKIT_OP_GEN_OVERRIDES", ""),
    [n for n in _opkit.op_names() if not n.startswith("_")])

# Function name -> op name, for the ops registered at import time.
_BUILTIN = {}
for _name in _opkit.op_names():
    if not _name.startswith("_"):
        for _api in _op_gen.api_names(_name, _OVERRIDES.get(_name)):
            _BUILTIN.setdefault(_api, _name)
del _name
_api = None


def __getattr__(name):
    op = _BUILTIN.get(name)
    if op is None:
        raise AttributeError(
            f"module 'opkit.ops' has no function {name!r}; built-in op "
            "functions are snake_case (e.g. add_v2); see dir(opkit.ops)")
    fn = _FUNCTIONS.get(op)
    if fn is None:
        fn = _FUNCTIONS[op] = _op_gen.make_op_function(op, override=_OVERRIDES.get(op))
    globals()[name] = fn
    return fn


# Op name -> its function (one per op, whatever names it has).
_FUNCTIONS = {}


def __dir__():
    return sorted({n for n in _BUILTIN if not n.startswith("_")}
                  | {n for n in globals() if not n.startswith("_")})


class _Internal:
    """Every built-in op's function under its own snake_case name, whatever
    OPKIT_OP_GEN_OVERRIDES does to the public names: what opkit's own
    modules (array_ops, nn, framework ...) call."""

    def __init__(self):
        self._functions = {}

    def __getattr__(self, name):
        op = _ORIGINAL.get(name)
        if op is None:
            raise AttributeError(f"no built-in op function {name!r}")
        fn = self._functions.get(op)
        if fn is None:
            fn = self._functions[op] = (
                _FUNCTIONS.get(op) if not _OVERRIDES.get(op) else None) or \
                _op_gen.make_op_function(op)
        setattr(self, name, fn)
        return fn


# Original function name -> op name.
_ORIGINAL = {}
for _name in _opkit.op_names():
    if not _name.startswith("_"):
        _ORIGINAL.setdefault(_op_gen.function_name(_name), _name)
del _name
_internal = _Internal()
