"""Every registered op as a keyword-only function named like the op, as
tf.raw_ops:

    opkit.raw_ops.AddV2(x=a, y=b)
    opkit.raw_ops.ZeroOut(to_zero=[1, 2])   # after opkit.load_op_library(...)
    dir(opkit.raw_ops)                      # every registered op name

Functions are generated on first attribute access, so ops of libraries
loaded later appear too. Same conversions and errors as the wrappers of
opkit.ops (see opkit/_op_gen.py).
"""

from opkit import _opkit
from opkit import _op_gen
from opkit import errors as _errors


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        fn = _op_gen.make_op_function(name, raw=True)
    except _errors.NotFoundError:
        raise AttributeError(
            f"module 'opkit.raw_ops' has no op {name!r}: no op of that name is "
            "registered (load its library with opkit.load_op_library first)"
        ) from None
    globals()[name] = fn
    return fn


def __dir__():
    return sorted(set(_opkit.op_names()) | {
        n for n in globals() if not n.startswith("_")})
