"""The built-in ops as snake_case functions, generated the way
opkit.load_op_library generates a library's:

    opkit.ops.add_v2(np.float32([1]), 2)       # array([3.], dtype=float32)
    opkit.ops.mat_mul(a, b, transpose_b=True)
    dir(opkit.ops)                             # every built-in op's function

The built-in ops are those registered when opkit is imported (libopkit_ops);
ops of libraries loaded later are in the module load_op_library returns.
Functions are generated on first use.
"""

from opkit import _opkit
from opkit import _op_gen

# Function name -> op name, for the ops registered at import time.
_BUILTIN = {}
for _name in _opkit.op_names():
    if not _name.startswith("_"):
        _BUILTIN.setdefault(_op_gen.function_name(_name), _name)
del _name


def __getattr__(name):
    op = _BUILTIN.get(name)
    if op is None:
        raise AttributeError(
            f"module 'opkit.ops' has no function {name!r}; built-in op "
            "functions are snake_case (e.g. add_v2); see dir(opkit.ops)")
    fn = _op_gen.make_op_function(op)
    globals()[name] = fn
    return fn


def __dir__():
    return sorted(set(_BUILTIN) | {n for n in globals() if not n.startswith("_")})
