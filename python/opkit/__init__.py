"""opkit: ops, kernels and the runtime that selects and runs them, from
Python with numpy arrays in and out.

    import numpy as np, opkit
    opkit.ops.add_v2(np.float32([1, 2]), 3)            # array([4., 5.], dtype=float32)
    zero_out = opkit.load_op_library("zero_out.so")
    zero_out.zero_out([[1, 2], [3, 4]])                # array([[1, 0], [0, 0]], dtype=int32)
    opkit.raw_ops.MatMul(a=x, b=y, transpose_b=True)
    with opkit.Session(graph_def_bytes) as s: s.run("y", {"x": x})

Modules: opkit.ops (built-in ops, snake_case), opkit.raw_ops (every op,
keyword-only, named like the op), opkit.kernels (kernel registry),
opkit.errors (exception classes per status code), opkit.dtypes,
opkit.sysconfig (compiler and linker flags for op libraries),
opkit.config.threading (thread counts, as tf.config.threading).
"""

from opkit import _opkit
from opkit import errors

_opkit._register_error_classes(errors._BY_CODE)

from opkit import dtypes  # noqa: E402
from opkit import ops  # noqa: E402
from opkit import raw_ops  # noqa: E402
from opkit import kernels  # noqa: E402
from opkit import sysconfig  # noqa: E402
from opkit import config  # noqa: E402
from opkit._op_gen import load_op_library, unload_op_library  # noqa: E402
from opkit.session import RunOptions, Session  # noqa: E402
from opkit.graph import load_graph  # noqa: E402
from opkit.dtypes import DType, as_dtype  # noqa: E402
from opkit.dtypes import (  # noqa: E402,F401 (re-exported TensorFlow names)
    float16, half, float32, float64, double, bfloat16, int8, int16, int32,
    int64, uint8, uint16, uint32, uint64, bool, string, complex64, complex128,
    resource, variant)

# What an op returns for a resource output: opaque handles to pass to other
# ops (a variable's VarHandleOp result to ReadVariableOp, ...).
ResourceTensor = _opkit.ResourceTensor
# What an op returns for a variant output: opaque values to pass to other ops
# (TensorListReserve's list to TensorListSetItem and TensorListStack, ...).
VariantTensor = _opkit.VariantTensor

__version__ = "0.1.0"

_NO_GRADIENTS = ("Gradients are not supported by opkit yet: opkit runs ops "
                 "forward only (no tape, no gradient registry).")


class RegisterGradient:
    """Placeholder for tf.RegisterGradient: raises NotImplementedError,
    since opkit has no gradients yet."""

    def __init__(self, op_type):
        raise NotImplementedError(
            f"RegisterGradient({op_type!r}): {_NO_GRADIENTS}")


def gradients(*args, **kwargs):
    """Placeholder for tf.gradients: raises NotImplementedError."""
    raise NotImplementedError(f"opkit.gradients: {_NO_GRADIENTS}")


__all__ = ["ops", "raw_ops", "kernels", "errors", "dtypes", "sysconfig", "config",
           "Session", "RunOptions",
           "ResourceTensor", "VariantTensor",
           "load_graph",
           "load_op_library", "unload_op_library", "RegisterGradient",
           "gradients", "DType", "as_dtype"] + list(dtypes._PUBLIC_DTYPES)
