"""opkit: ops, kernels and the runtime that selects and runs them, from
Python with numpy arrays in and out.

    import numpy as np, opkit
    opkit.ops.add_v2(np.float32([1, 2]), 3)            # array([4., 5.], dtype=float32)
    zero_out = opkit.load_op_library("zero_out.so")
    zero_out.zero_out([[1, 2], [3, 4]])                # array([[1, 0], [0, 0]], dtype=int32)
    opkit.raw_ops.MatMul(a=x, b=y, transpose_b=True)
    with opkit.Session(graph_def_bytes) as s: s.run("y", {"x": x})

    g = opkit.Graph()                                  # graphs from Python
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [None, 2])
        y = opkit.nn.relu(opkit.matmul(x, [[1.], [-1.]]) + 1)
    with opkit.Session(graph=g) as s: s.run(y, {x: [[1, 3]]})   # [[0.]]

    dx, = opkit.gradients(y, [x])                      # gradients in a graph
    v = opkit.constant(3.0)                            # ... and eagerly
    with opkit.GradientTape() as tape:
        tape.watch(v)
        w = v * v
    tape.gradient(w, v)                                # 6.0

Modules: opkit.ops (built-in ops, snake_case), opkit.raw_ops (every op,
keyword-only, named like the op), opkit.kernels (kernel registry),
opkit.errors (exception classes per status code), opkit.dtypes,
opkit.sysconfig (compiler and linker flags for op libraries),
opkit.config.threading (thread counts, as tf.config.threading),
opkit.framework (Graph, Operation, Tensor, Variable: graph building),
opkit.nn and the TensorFlow-named functions at the top level (constant,
placeholder, matmul, reduce_sum, ...; opkit/array_ops.py), opkit.test
(TestCase, main, compute_gradient), opkit.RegisterGradient /
NotDifferentiable (opkit.gradient_registry), opkit.gradients
(opkit.gradients_impl), opkit.GradientTape (opkit.backprop), DTypes as
opkit.float32, opkit.int32, ...
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
from opkit.session import ConfigProto, RunOptions, Session  # noqa: E402
from opkit.graph import load_graph, LoadedGraph  # noqa: E402
from opkit import framework  # noqa: E402
from opkit.framework import (  # noqa: E402
    Graph, Operation, Tensor, TensorShape, Variable, GraphDef,
    get_default_graph, get_default_session, executing_eagerly, name_scope,
    control_dependencies, group, global_variables, trainable_variables,
    global_variables_initializer, variables_initializer)
from opkit.dtypes import DType, as_dtype  # noqa: E402
from opkit.dtypes import (  # noqa: E402,F401 (re-exported TensorFlow names)
    float16, half, float32, float64, double, bfloat16, int8, int16, int32,
    int64, uint8, uint16, uint32, uint64, bool, string, complex64, complex128,
    resource, variant)
from opkit.array_ops import (  # noqa: E402
    constant, placeholder, identity, cast, add, subtract, multiply, divide,
    reshape, transpose, matmul, reduce_sum, reduce_mean, zeros_like, ones_like)
from opkit import array_ops  # noqa: E402
from opkit import nn  # noqa: E402
from opkit import test  # noqa: E402
from opkit import train  # noqa: E402
from opkit import optimizers  # noqa: E402

# What an op returns for a resource output: opaque handles to pass to other
# ops (a variable's VarHandleOp result to ReadVariableOp, ...).
ResourceTensor = _opkit.ResourceTensor
# What an op returns for a variant output: opaque values to pass to other ops
# (TensorListReserve's list to TensorListSetItem and TensorListStack, ...).
VariantTensor = _opkit.VariantTensor

__version__ = "0.1.0"

from opkit import gradient_registry  # noqa: E402
from opkit.gradient_registry import (  # noqa: E402
    RegisterGradient, NotDifferentiable, no_gradient)
from opkit import gradients_impl  # noqa: E402
from opkit.gradients_impl import gradients, UnconnectedGradients  # noqa: E402
from opkit import backprop  # noqa: E402
from opkit.backprop import GradientTape  # noqa: E402
from opkit import sparse_ops  # noqa: E402
from opkit.sparse_ops import sparse_to_dense  # noqa: E402
from opkit.array_ops import (  # noqa: E402
    shape, size, rank, stop_gradient, square, zeros, ones, add_n, sqrt, rsqrt,
    exp, log, abs, negative, maximum, minimum, pow, equal, reduce_max, reduce_min,
    argmax, expand_dims, squeeze, concat, stack)

# TensorFlow's ops module (opkit.python.framework.ops) holds these too.
framework.RegisterGradient = RegisterGradient
framework.NotDifferentiable = NotDifferentiable
framework.no_gradient = no_gradient


def _add_tensorflow_module_paths():
    """opkit.python.framework.ops, ... as aliases of opkit's modules, so that
    code importing TensorFlow's module paths finds them."""
    import sys  # noqa: PLC0415
    import types  # noqa: PLC0415
    aliases = {
        "python": None, "python.framework": None, "python.platform": None,
        "python.ops": None,
        "python.framework.ops": framework, "python.framework.dtypes": dtypes,
        "python.framework.errors": errors, "python.platform.test": test,
        "python.ops.nn": nn, "python.ops.array_ops": array_ops,
        "python.ops.math_ops": array_ops, "python.client.session": session,
        "python.ops.sparse_ops": sparse_ops, "python.ops.gradients": gradients_impl,
        "python.ops.gradients_impl": gradients_impl, "python.eager": None,
        "python.eager.backprop": backprop,
    }
    aliases["python.client"] = None
    for path in sorted(aliases, key=len):
        module = aliases[path]
        full = f"{__name__}.{path}"
        if module is None:
            module = types.ModuleType(full, f"Alias of TensorFlow's {path} package.")
            module.__path__ = []
        sys.modules[full] = module
        parent, _, leaf = full.rpartition(".")
        setattr(sys.modules[parent], leaf, module)


from opkit import session  # noqa: E402
_add_tensorflow_module_paths()

__all__ = ["ops", "raw_ops", "kernels", "errors", "dtypes", "sysconfig", "config",
           "Session", "RunOptions", "ConfigProto",
           "ResourceTensor", "VariantTensor",
           "load_graph", "LoadedGraph",
           "load_op_library", "unload_op_library", "RegisterGradient",
           "NotDifferentiable", "no_gradient", "gradients", "UnconnectedGradients",
           "GradientTape", "gradient_registry", "sparse_ops", "sparse_to_dense",
           "shape", "size", "rank", "stop_gradient", "square", "zeros", "ones",
           "add_n", "sqrt", "rsqrt", "exp", "log", "abs", "negative", "maximum",
           "minimum", "pow", "equal", "reduce_max", "reduce_min", "argmax",
           "expand_dims", "squeeze", "concat", "stack",
           "framework", "Graph", "Operation", "Tensor", "TensorShape", "Variable",
           "GraphDef", "get_default_graph", "get_default_session",
           "executing_eagerly", "name_scope", "control_dependencies", "group",
           "global_variables", "trainable_variables",
           "global_variables_initializer", "variables_initializer",
           "DType", "as_dtype", "nn", "test", "array_ops"] + list(
               dtypes._PUBLIC_DTYPES) + [
           "constant", "placeholder", "identity", "cast", "add", "subtract",
           "multiply", "divide", "reshape", "transpose", "matmul", "reduce_sum",
           "reduce_mean", "zeros_like", "ones_like"]
