"""Gradient functions of ops, as TensorFlow's ops.RegisterGradient keeps
them, and the one routine that applies them for opkit.gradients (graph
mode) and opkit.GradientTape (eager).

    @opkit.RegisterGradient("ZeroOut")
    def _zero_out_grad(op, grad):           # one grad per output
        ...                                 # returns one per input, or None
    opkit.NotDifferentiable("MyIndexOp")    # no gradient flows through it

An op's gradient comes from the Python registry when a function was
registered there, otherwise from the C++ registry (REGISTER_GRADIENT_OP;
the built-in ops' gradients live there, opkit/ops/*_grad.cc): the C++
function builds its nodes on stand-ins (python/src/gradients.cc), and
apply_gradient runs them with the generated op functions, so in a graph
they become nodes and eagerly they run now (and are recorded by any tape
that is watching, which gives higher derivatives). The stand-in graph
depends only on the op type, its attrs, its input dtypes and the value of
small integer constant inputs, and is cached on that key.
"""

import inspect
import threading

import numpy as np

from opkit import _opkit
from opkit import _op_gen
from opkit import dtypes as _dtypes

# op type -> Python gradient function, or None (NotDifferentiable).
_REGISTRY = {}
_WHERE = {}
_lock = threading.Lock()


def _where(fn):
    try:
        return f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"
    except (TypeError, OSError):
        return repr(fn)


def _register(op_type, fn):
    if not isinstance(op_type, str):
        raise TypeError(f"op_type must be a string, got {type(op_type).__name__}")
    with _lock:
        if op_type in _REGISTRY:
            raise KeyError(
                f"Registering two gradient with name '{op_type}'! (Previous "
                f"registration was in {_WHERE[op_type]})")
        kind = _opkit._gradient_kind(op_type)
        if kind != "missing":
            raise KeyError(
                f"Registering two gradient with name '{op_type}'! (Previous "
                f"registration was in C++: {op_type} has a built-in "
                f"{'gradient' if kind == 'function' else 'no-gradient mark'} "
                "in the C++ gradient registry)")
        _REGISTRY[op_type] = fn
        _WHERE[op_type] = "NotDifferentiable" if fn is None else _where(fn)


class RegisterGradient:
    """Decorator registering the gradient function of op `op_type`
    (tf.RegisterGradient):

        @opkit.RegisterGradient("ZeroOut")
        def _zero_out_grad(op, grad): ...

    The function receives the Operation (an eager stand-in with `type`,
    `name`, `inputs`, `outputs`, `get_attr` under a GradientTape) and one
    gradient per output, and returns one gradient per input (a list; a
    single tensor for a one-input op), None where there is none. The same
    function serves opkit.gradients and GradientTape. KeyError when the op
    has a gradient already (in Python or in C++)."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError(f"op_type must be a string, got {type(op_type).__name__}")
        self._op_type = op_type

    def __call__(self, fn):
        if not callable(fn):
            raise TypeError(f"RegisterGradient({self._op_type!r}) decorates a "
                            f"function, got {type(fn).__name__}")
        _register(self._op_type, fn)
        return fn


def NotDifferentiable(op_type):  # noqa: N802 (TensorFlow's name)
    """Declares that op `op_type` has no gradient: its inputs get None
    (tf.no_gradient / ops.NotDifferentiable). KeyError when the op has a
    gradient already."""
    _register(op_type, None)


no_gradient = NotDifferentiable


def _unregister(op_type):
    """Removes a Python registration (tests)."""
    with _lock:
        _REGISTRY.pop(op_type, None)
        _WHERE.pop(op_type, None)


_PYTHON, _NONE, _CPP = 0, 1, 2


def _kind(op):
    """How `op` (Operation or eager stand-in) is differentiated; LookupError
    with TensorFlow's message when it has no gradient."""
    op_type = op.type
    if op_type in _REGISTRY:
        return (_NONE, None) if _REGISTRY[op_type] is None else (
            _PYTHON, _REGISTRY[op_type])
    kind = _opkit._gradient_kind(op_type)
    if kind == "function":
        return _CPP, None
    if kind == "none":
        return _NONE, None
    raise LookupError(
        f"No gradient defined for operation '{op.name}' (op type: {op_type}). "
        f"Register one with @opkit.RegisterGradient({op_type!r}) (or "
        f"REGISTER_GRADIENT_OP in C++), or opkit.NotDifferentiable({op_type!r}) "
        "if it has none.")


# --- Differentiable dtypes ----------------------------------------------------

_FLOATING = frozenset([_dtypes.DT_FLOAT, _dtypes.DT_DOUBLE, _dtypes.DT_HALF,
                       _dtypes.DT_BFLOAT16, _dtypes.DT_COMPLEX64,
                       _dtypes.DT_COMPLEX128])
_DT_RESOURCE = 20


def is_trainable(datatype):
    """Whether gradients flow into a tensor of this DataType number (floats
    and complex; resource handles, for variables)."""
    return int(datatype) in _FLOATING or int(datatype) == _DT_RESOURCE


# --- Running the nodes of a gradient --------------------------------------------

_FUNCTIONS = {}


def op_function(op_type):
    fn = _FUNCTIONS.get(op_type)
    if fn is None:
        fn = _FUNCTIONS[op_type] = _op_gen.make_op_function(op_type)
    return fn


def _input_lengths(spec, attrs):
    """Per input arg: None for a single tensor, the length for a list."""
    out = []
    for arg in spec.inputs:
        if arg["number_attr"]:
            out.append(int(attrs[arg["number_attr"]]))
        elif arg["type_list_attr"]:
            out.append(len(attrs[arg["type_list_attr"]]))
        else:
            out.append(None)
    return out


def _group(flat, lengths):
    grouped = []
    i = 0
    for n in lengths:
        if n is None:
            grouped.append(flat[i])
            i += 1
        else:
            grouped.append(list(flat[i:i + n]))
            i += n
    return grouped


class _PreparedNode:
    """One node of a cached gradient graph, ready to call: its op function,
    how its flat inputs group into the function's input parameters, and its
    attrs as the function's keyword arguments."""

    __slots__ = ("fn", "lengths", "kwargs", "const", "name", "inputs", "op")

    def __init__(self, node):
        attrs = node["attrs"]
        self.op = node["op"]
        self.inputs = node["inputs"]
        self.name = node["name"].rsplit("/", 1)[-1]
        self.const = attrs["value"] if node["op"] == "Const" else None
        fn = self.fn = op_function(node["op"])
        spec = fn._opkit_spec
        self.lengths = _input_lengths(spec, attrs)
        self.kwargs = {spec.param[("attr", a)]: attrs[a]
                       for a in spec.fast_attr_names if a in attrs}

    def run(self, inputs, eager):
        """The node's flat outputs: run now (`eager`) or added to the
        default graph (named after the C++ node, under the current scope)."""
        if eager and self.const is not None:
            return [self.const]
        args = _group(inputs, self.lengths)
        if eager:
            return _flatten_outputs(self.fn(*args, **self.kwargs))
        return _flatten_outputs(self.fn(*args, name=self.name, **self.kwargs))


def flatten(values):
    """`values` with each list in it replaced by its elements (an op's
    inputs or outputs, where a list input or output is a list)."""
    flat = []
    for v in values:
        if isinstance(v, list):
            flat.extend(v)
        else:
            flat.append(v)
    return flat


def _flatten_outputs(out):
    if out is None or not isinstance(out, (tuple, list)):
        return [] if out is None or _is_operation(out) else [out]
    return flatten(out)


def _is_operation(out):
    return type(out).__name__ == "Operation"


def _freeze(value):
    if isinstance(value, np.ndarray):
        return ("nd", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, float) and value != value:
        return "nan"
    return value


# Small integer inputs whose value a gradient function may read
# (GradientOp::ConstantInput: an axis, a permutation).
_MAX_CONST_ELEMENTS = 16
_CACHE = {}
_CACHE_LIMIT = 4096


def _cache_key(op_type, attrs, grouped_dtypes, consts):
    """The cache key of a gradient graph. The common case (no constant
    inputs, hashable attr values, one dtype per input) hashes the values
    as they are; the rest go through _freeze. The two forms never compare
    equal (tuples of different lengths)."""
    if not consts:
        try:
            key = (op_type, tuple(sorted(attrs.items())), tuple(grouped_dtypes))
            hash(key)
            return key
        except TypeError:   # a list or array among them
            pass
    return (op_type, _freeze(attrs), _freeze(grouped_dtypes), _freeze(consts))


def _gradient_graph(op_type, attrs, grouped_dtypes, consts):
    key = _cache_key(op_type, attrs, grouped_dtypes, consts)
    result = _CACHE.get(key)
    if result is None:
        result = _opkit._gradient_graph(op_type, attrs, grouped_dtypes, consts)
        if result is not None:
            result["prepared"] = [_PreparedNode(n) for n in result["nodes"]]
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[key] = result
    return result


def is_small_int(value):
    return (isinstance(value, np.ndarray) and value.dtype.kind in "iu"
            and value.size <= _MAX_CONST_ELEMENTS)


def _needed_nodes(graph, needed):
    """Which nodes of a cached gradient graph the gradients of the inputs
    flagged in `needed` (a tuple of bools, one per flat input) read,
    directly or through other nodes: a list of bools, cached per `needed`."""
    plans = graph.setdefault("plans", {})
    plan = plans.get(needed)
    if plan is None:
        nodes = graph["prepared"]
        plan = [False] * len(nodes)
        stack = [r for r, want in zip(graph["grads"], needed)
                 if want and r is not None]
        while stack:
            ref = stack.pop()
            if ref[0] != "node" or plan[ref[1]]:
                continue
            plan[ref[1]] = True
            stack.extend(nodes[ref[1]].inputs)
        plans[needed] = plan
    return plan


# Note [Shape-only gradient nodes]
# Many gradient functions compute shapes at run time (Mean's: Shape, Rank,
# Reshape, FloorMod, OneHot, ... to find the kept dimensions, Size and Cast
# for the count), which costs an eager op call per node on every step. Such
# a node's value depends only on the shapes of the forward op's inputs,
# outputs and output gradients (and on its constant inputs, which are part
# of the cached graph's key), so an eager gradient computes those nodes
# once per shape signature and reuses them. A node is shape-only when it is
# Shape, Size or Rank of any value, or a deterministic op of
# _SHAPE_ARITHMETIC whose inputs are all shape-only nodes or constant
# inputs. A node whose value is returned as a gradient is always run, so no
# caller ever holds a cached array. Nothing is lost for nested tapes: a
# shape-only node has no watched input, so no tape would record it.
# The op lists are python/src/tape.cc's, which applies the same rule to the
# gradient programs of first-order tapes.
_SHAPE_OF = frozenset(_opkit._SHAPE_OF_OPS)
_SHAPE_ARITHMETIC = frozenset(_opkit._SHAPE_ARITHMETIC_OPS)
# Shape signatures kept per gradient graph before the oldest are dropped.
_SHAPE_CACHE_LIMIT = 64


def _shape_only_nodes(graph, const_inputs):
    """Per node of `graph`, whether it is shape-only (Note [Shape-only
    gradient nodes]); cached in the graph."""
    static = graph.get("shape_only")
    if static is None:
        static = []
        for node in graph["prepared"]:
            if node.op in _SHAPE_OF:
                ok = all(r[0] != "node" or static[r[1]] for r in node.inputs)
            elif node.op in _SHAPE_ARITHMETIC:
                ok = all((r[0] == "node" and static[r[1]])
                         or (r[0] == "input" and r[1] in const_inputs)
                         for r in node.inputs)
            else:
                ok = False
            static.append(ok)
        for r in graph["grads"]:
            if r is not None and r[0] == "node":
                static[r[1]] = False
        graph["shape_only"] = static
        graph["shape_values"] = {}
    return static


def _shape_signature(inputs, outputs, grads):
    """The shapes a shape-only node may depend on, or None when some value
    is not an array."""
    shapes = []
    for group in (inputs, outputs, grads):
        for v in group:
            if not isinstance(v, np.ndarray):
                return None
            shapes.append(v.shape)
    return tuple(shapes)


def apply_gradient(op, out_grads, zeros_like, eager, needed=None):
    """The gradients of `op`'s flat inputs (None where there is none) given
    `out_grads` (one per output, None where nothing flows back).

    `op` is an Operation (graph) or an eager stand-in with the same
    `type`, `name`, `inputs`, `outputs`, `get_attr`, plus the methods
    `_grad_attrs()` (its attrs, for the C++ function), `_grouped_dtypes()`
    and `_const_inputs()`. `zeros_like(t)` makes a zero gradient.

    `needed`: one bool per flat input, or None for all. A gradient built
    from the C++ registry computes only the nodes the needed inputs'
    gradients read and gives None for the others (as TensorFlow's eager
    gradient functions skip the inputs in op.skip_input_indices: a MatMul
    whose first input is data computes no gradient for it)."""
    kind, fn = _kind(op)
    if kind == _NONE:
        return [None] * len(op.inputs)
    outputs = op.outputs
    if kind == _PYTHON:
        grads = [g if g is not None or not is_trainable(_dtype_of(o))
                 else zeros_like(o) for g, o in zip(out_grads, outputs)]
        result = fn(op, *grads)
        if not isinstance(result, (list, tuple)):
            result = [result]
        result = list(result)
        if len(result) != len(op.inputs):
            raise ValueError(
                f"Num gradients {len(result)} generated for op {op.name} "
                f"(op type: {op.type}) do not match num inputs {len(op.inputs)}")
        return result
    const_inputs = op._const_inputs()
    graph = _gradient_graph(op.type, op._grad_attrs(), op._grouped_dtypes(),
                            const_inputs)
    if graph is None:
        return [None] * len(op.inputs)
    grads = [g if g is not None else zeros_like(o)
             for g, o in zip(out_grads, outputs)]
    inputs = op.inputs
    values = []

    def resolve(ref):
        kind = ref[0]
        if kind == "input":
            return inputs[ref[1]]
        if kind == "output":
            return outputs[ref[1]]
        if kind == "grad":
            return grads[ref[1]]
        return values[ref[1]][ref[2]]

    refs = graph["grads"]
    nodes = graph["prepared"]
    plan = None
    if needed is not None and not all(needed):
        needed = tuple(bool(n) for n in needed)
        plan = _needed_nodes(graph, needed)
        refs = [r if want else None for r, want in zip(refs, needed)]
    # Note [Shape-only gradient nodes]
    static = cached = signature = shape_values = None
    if eager:
        signature = _shape_signature(inputs, outputs, grads)
    if signature is not None:
        static = _shape_only_nodes(graph, const_inputs)
        shape_values = graph["shape_values"]
        cached = shape_values.get(signature)
    for i, node in enumerate(nodes):
        if plan is not None and not plan[i]:
            values.append(None)
        elif cached is not None and static[i]:
            values.append(cached[i])
        else:
            values.append(node.run([resolve(r) for r in node.inputs], eager))
    if signature is not None and cached is None:
        if len(shape_values) >= _SHAPE_CACHE_LIMIT:
            shape_values.clear()
        # A node the plan skipped (None) is computed on a later call that
        # needs it: its entry stays unknown, so this signature is cached
        # only when every shape-only node ran.
        if not any(s and v is None for s, v in zip(static, values)):
            shape_values[signature] = [v if s else None
                                       for s, v in zip(static, values)]
    return [None if r is None else resolve(r) for r in refs]


def _dtype_of(t):
    dtype = getattr(t, "dtype", None)
    if isinstance(dtype, np.dtype):
        return _dtypes.as_datatype(dtype) if dtype.kind != "O" else _dtypes.DT_STRING
    if dtype is None:
        return _DT_RESOURCE
    return int(dtype)
