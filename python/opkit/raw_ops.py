"""Every registered op as a keyword-only function named like the op, as
tf.raw_ops:

    opkit.raw_ops.AddV2(x=a, y=b)
    opkit.raw_ops.ZeroOut(to_zero=[1, 2])   # after opkit.load_op_library(...)
    dir(opkit.raw_ops)                      # every registered op name

A namespaced op is reached as TensorFlow names it, with '_' for '>'
(opkit.raw_ops.Addons_Gelu for op "Addons>Gelu"); getattr with the op's
own name works too.

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
        fn = _op_gen.make_op_function(_op_name(name), raw=True)
    except _errors.NotFoundError:
        raise AttributeError(
            f"module 'opkit.raw_ops' has no op {name!r}: no op of that name is "
            "registered (load its library with opkit.load_op_library first)"
        ) from None
    globals()[name] = fn
    return fn


def _op_name(name):
    """The registered op `name` stands for: itself, or the namespaced op
    whose raw_ops name it is (Addons_Gelu -> Addons>Gelu)."""
    if "_" not in name:
        return name
    for op in _opkit.op_names():
        if ">" in op and _op_gen.raw_function_name(op) == name:
            return op
    return name


def __dir__():
    return sorted({_op_gen.raw_function_name(n) for n in _opkit.op_names()} | {
        n for n in globals() if not n.startswith("_")})
