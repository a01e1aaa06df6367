"""opkit.gradients: symbolic differentiation of a Python-built graph, as
TensorFlow's tf.gradients (tf.compat.v1.gradients) does it.

    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [None, 3])
        w = opkit.Variable(np.ones((3, 2), np.float32))
        loss = opkit.reduce_sum(opkit.matmul(x, w) ** 2)
        dw, dx = opkit.gradients(loss, [w, x])     # Tensors under "gradients/"

The gradient of each x is the sum over every path from x to any y of the
chained per-op gradients (AddN where paths meet), seeded with grad_ys
(ones of each y's shape by default). Each op's gradient comes from
opkit.gradient_registry: a function registered with opkit.RegisterGradient,
else the op's C++ gradient (REGISTER_GRADIENT_OP). Ops marked
NotDifferentiable, StopGradient and the ops of `stop_gradients` pass
nothing back. An x that no y depends on gets None, or zeros with
unconnected_gradients=UnconnectedGradients.ZERO.
"""

import enum

import numpy as np

from opkit import framework as _framework
from opkit import gradient_registry as _registry
from opkit.ops import _internal as _ops


class UnconnectedGradients(enum.Enum):
    """What gradients() and GradientTape.gradient() give an x that the ys
    do not depend on (tf.UnconnectedGradients)."""
    NONE = "none"
    ZERO = "zero"


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _unconnected(value):
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}; "
                         "use opkit.UnconnectedGradients.NONE or ZERO") from None


def aggregate(terms):
    """The sum of a list of gradient terms (None for none)."""
    if not terms:
        return None
    if len(terms) == 1:
        return terms[0]
    return _ops.add_n(list(terms))


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """The symbolic derivatives of sum(ys) with respect to each x in `xs`
    (see the module docstring), as a list of Tensors (None where
    unconnected). `ys`, `xs`: Tensors or Variables of one graph (a Variable
    x is differentiated through its reads); `grad_ys`: one initial gradient
    per y (Tensors or values); `stop_gradients`: Tensors treated as
    constants. LookupError naming the op and its type when an op on a path
    has no gradient. gate_gradients and aggregation_method are accepted for
    TensorFlow's signature and have no effect."""
    unconnected = _unconnected(unconnected_gradients)
    ys = _as_list(ys)
    xs = _as_list(xs)
    graph = None
    for v in ys + xs:
        g = getattr(v, "graph", None)
        if isinstance(v, (_framework.Tensor, _framework.Variable)) and g is not None:
            graph = g
            break
    if graph is None:
        raise RuntimeError("opkit.gradients is not supported when eager execution "
                           "is enabled. Use opkit.GradientTape instead.")
    if grad_ys is not None:
        grad_ys = _as_list(grad_ys)
        if len(grad_ys) != len(ys):
            raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    with graph.as_default():
        y_tensors = [_tensor_of(graph, y, "ys") for y in ys]
        x_tensors = [_x_tensor(graph, x) for x in xs]
        stops = [_tensor_of(graph, s, "stop_gradients")
                 for s in _as_list(stop_gradients or [])]
        with graph.name_scope(name):
            grads = _gradients(graph, y_tensors, x_tensors, grad_ys, stops)
            out = []
            for x, x_tensor in zip(xs, x_tensors):
                g = aggregate(grads.get(x_tensor))
                if g is None and unconnected is UnconnectedGradients.ZERO:
                    value = x._graph_read(graph) if isinstance(
                        x, _framework.Variable) else x_tensor
                    g = _ops.zeros_like(value)
                out.append(g)
    return out


def _tensor_of(graph, value, what):
    if isinstance(value, _framework.Variable):
        return value._graph_read(graph)
    if not isinstance(value, _framework.Tensor):
        raise TypeError(f"opkit.gradients: {what} must be Tensors or Variables "
                        f"of the graph, got {type(value).__name__}")
    return graph.as_graph_element(value)


def _x_tensor(graph, x):
    if isinstance(x, _framework.Variable):
        if x.graph is not graph:
            raise ValueError(f"Variable {x.name} belongs to another graph")
        return x.handle
    return _tensor_of(graph, x, "xs")


def _gradients(graph, ys, xs, grad_ys, stops):
    """Tensor -> list of gradient terms, for the xs (and every tensor on a
    path between them and the ys)."""
    ops = list(graph._ops)
    consumers = {}
    for op in ops:
        for t in op._inputs:
            consumers.setdefault(t, []).append(op)
    # Ops on a path from an x ...
    from_x = set()
    work = [c for x in xs for c in consumers.get(x, [])]
    while work:
        op = work.pop()
        if op in from_x:
            continue
        from_x.add(op)
        for t in op._outputs:
            work.extend(consumers.get(t, []))
    # ... to a y.
    to_y = set()
    work = [y.op for y in ys]
    while work:
        op = work.pop()
        if op in to_y:
            continue
        to_y.add(op)
        work.extend(t.op for t in op._inputs)
    between = from_x & to_y
    x_set = set(xs)
    stop_ops = {t.op for t in stops}

    grads = {}
    for i, y in enumerate(ys):
        if y.op not in between and y not in x_set:
            continue
        if grad_ys is None or grad_ys[i] is None:
            seed = _ops.ones_like(y, name=f"grad_ys_{i}")
        else:
            seed = grad_ys[i]
            if not isinstance(seed, _framework.Tensor):
                seed = graph._const(np.asarray(seed, y.dtype.as_numpy_dtype),
                                    f"grad_ys_{i}")
        grads.setdefault(y, []).append(seed)

    def wants(t):
        return (t in x_set or t.op in between) and _registry.is_trainable(t.dtype)

    for op in reversed(ops):
        if op not in between or op in stop_ops:
            continue
        if not any(wants(t) for t in op._inputs):
            continue
        with graph.name_scope(op.name + "_grad"):
            out_grads = []
            for t in op._outputs:
                terms = grads.get(t)
                out_grads.append(aggregate(terms))
                if terms is not None and len(terms) > 1:
                    grads[t] = [out_grads[-1]]
            if all(g is None for g in out_grads):
                continue
            in_grads = _registry.apply_gradient(op, out_grads, _ops.zeros_like,
                                                eager=False)
        for t, g in zip(op._inputs, in_grads):
            if g is not None and wants(t):
                grads.setdefault(t, []).append(_check_grad(op, graph, g))
    return grads


def _check_grad(op, graph, g):
    if isinstance(g, _framework.Variable):
        g = g._graph_read(graph)
    if isinstance(g, _framework.Tensor):
        return g
    # A gradient function returned a value: a constant of the graph.
    return graph._const(np.asarray(g))
