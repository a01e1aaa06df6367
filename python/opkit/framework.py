"""Graphs built from Python, as TensorFlow's v1 graph mode builds them.

    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, shape=[None, 3], name="x")
        with opkit.name_scope("layer"):
            y = opkit.ops.relu(x)                 # a Tensor: "layer/Relu:0"
    y.shape                                       # TensorShape([None, 3])
    y.op.type, y.op.inputs[0] is x                # ('Relu', True)
    with opkit.Session(graph=g) as s:
        s.run(y, {x: [[-1, 2, 3]]})               # array([[0., 2., 3.]])
    open("relu.pb", "wb").write(g.as_graph_def().SerializeToString())

Inside `with graph.as_default():` every op function (opkit.ops.*,
opkit.raw_ops.*, a loaded library's functions) adds a node to the graph and
returns symbolic Tensors; outside any graph context they run eagerly.
Python values and numpy arrays given to a graph op become Const nodes.

The switch costs eager calls one pointer test: the generated functions are
C (FastOp), and a graph context installs a hook they check first (Note
[Graph hook] in python/src/fast_op.cc). Default graphs are per thread, as in
TensorFlow; a thread without one runs its calls eagerly even while another
thread builds a graph.

An Operation keeps what a gradient function needs: `type`, `inputs`,
`outputs`, `get_attr()`, `graph`, and `node_def`.
"""

import contextlib
import re
import threading

import numpy as np

from opkit import _opkit
from opkit import _op_gen
from opkit import dtypes as _dtypes


class _ThreadState(threading.local):
    def __init__(self):
        super().__init__()
        self.graphs = []     # the default-graph stack of this thread
        self.sessions = []   # the default-session stack of this thread


_state = _ThreadState()
# How many graph contexts are open, over all threads (the hook is installed
# while it is above zero).
_open_contexts = 0
_contexts_lock = threading.Lock()


def get_default_graph():
    """The innermost graph of this thread's `with g.as_default():`, or None
    outside any (opkit runs ops eagerly there; TensorFlow 1 would have a
    global graph)."""
    return _state.graphs[-1] if _state.graphs else None


def get_default_session():
    """The innermost session of this thread's `with sess.as_default():` (or
    a TestCase's test_session()), or None."""
    return _state.sessions[-1] if _state.sessions else None


def _acquire_hook():
    """Installs the hook op functions call first (Note [Graph hook] in
    python/src/fast_op.cc) for one more graph context."""
    global _open_contexts
    with _contexts_lock:
        _open_contexts += 1
        if _open_contexts == 1:
            _opkit._set_graph_hook(_graph_hook)


def _release_hook():
    global _open_contexts
    with _contexts_lock:
        _open_contexts -= 1
        if _open_contexts == 0:
            _opkit._set_graph_hook(None)


def executing_eagerly():
    """Whether op functions run now on this thread (no default graph)."""
    return not _state.graphs


# Set by opkit.backprop while some GradientTape is active: called with an
# eager Variable before each read (tapes watch trainable variables read).
_on_variable_read = None


def _graph_hook(fn, args, name):
    graphs = _state.graphs
    if not graphs:
        return NotImplemented
    spec = getattr(fn, "_opkit_spec", None)
    if spec is None:
        return NotImplemented
    return graphs[-1]._apply_op_function(spec, fn._opkit_converter, args, name)


class TensorShape:
    """A static shape as TensorFlow's TensorShape: None for an unknown rank,
    None entries for unknown dimensions.

        s = TensorShape([None, 3])
        s.rank, s.as_list(), s[1], s == [None, 3]    # 2, [None, 3], 3, True
    """

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims._dims
        self._dims = None if dims is None else tuple(
            None if d is None or int(d) < 0 else int(d) for d in dims)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        return int(np.prod(self._dims, dtype=np.int64))

    def is_compatible_with(self, other):
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return None if not isinstance(key, slice) else TensorShape(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        if other is None:
            return False
        try:
            other = TensorShape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        return ("TensorShape(None)" if self._dims is None
                else f"TensorShape({list(self._dims)})")

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        return "(" + ", ".join("None" if d is None else str(d) for d in self._dims) + (
            ",)" if len(self._dims) == 1 else ")")


class NodeDef:
    """A node of a Python-built graph as its GraphDef holds it: `name`,
    `op`, `input` (list of tensor names), `device`, `attr` (attr name ->
    Python value, defaults included), SerializeToString()."""

    def __init__(self, name, op, inputs, device, attrs, data):
        self.name = name
        self.op = op
        self.input = list(inputs)
        self.device = device
        self.attr = dict(attrs)
        self._bytes = data

    def SerializeToString(self):  # noqa: N802 (protobuf's name)
        return self._bytes

    def __repr__(self):
        return f"<NodeDef name={self.name!r} op={self.op!r} input={self.input}>"


class Operation:
    """A node of a Graph: `type` (the op), `name`, `inputs` and `outputs`
    (Tensors), `graph`, `node_def`, `get_attr(name)`, `run()`."""

    def __init__(self, graph, node_def, inputs, output_types, output_lens,
                 input_types):
        self._graph = graph
        self._node_def = node_def
        self._inputs = tuple(inputs)
        self._input_types = tuple(_dtypes.as_dtype(t) for t in input_types)
        self._outputs = tuple(Tensor(self, i, _dtypes.as_dtype(t))
                              for i, t in enumerate(output_types))
        self._output_lens = tuple(output_lens)
        self._control_inputs = []

    @property
    def name(self):
        return self._node_def.name

    @property
    def type(self):
        return self._node_def.op

    @property
    def graph(self):
        return self._graph

    @property
    def inputs(self):
        return list(self._inputs)

    @property
    def outputs(self):
        return list(self._outputs)

    @property
    def control_inputs(self):
        return list(self._control_inputs)

    @property
    def device(self):
        return self._node_def.device

    @property
    def node_def(self):
        return self._node_def

    @property
    def op_def(self):
        """The registered OpDef as opkit.ops builds wrappers from it (a dict)."""
        return _opkit.op_info(self.type)

    def values(self):
        return tuple(self._outputs)

    def get_attr(self, name):
        """The value of attr `name` (defaults included): a DType for a type
        attr, a list of DTypes for a list(type) attr, a TensorShape for a
        shape, else the Python value. ValueError for an attr the node does
        not have (as TensorFlow)."""
        attrs = self._node_def.attr
        if name not in attrs:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.")
        kind = self._attr_types().get(name)
        value = attrs[name]
        if kind == "type":
            return _dtypes.as_dtype(value)
        if kind == "list(type)":
            return [_dtypes.as_dtype(v) for v in value]
        if kind == "shape":
            return TensorShape(value)
        if kind == "list(shape)":
            return [TensorShape(v) for v in value]
        return value

    def _attr_types(self):
        return {a["name"]: a["type"] for a in _opkit.op_info(self.type)["attrs"]}

    # What opkit.gradient_registry.apply_gradient asks of an op.
    def _grad_attrs(self):
        return self._node_def.attr

    def _grouped_dtypes(self):
        from opkit import gradient_registry  # noqa: PLC0415 (imports this module)
        spec = _op_gen.op_spec(self.type)
        lengths = gradient_registry._input_lengths(spec, self._node_def.attr)
        return gradient_registry._group([int(t) for t in self._input_types], lengths)

    def _const_inputs(self):
        from opkit import gradient_registry  # noqa: PLC0415
        consts = {}
        for i, t in enumerate(self._inputs):
            if t.op.type == "Const":
                value = t.op._node_def.attr.get("value")
                if gradient_registry.is_small_int(value):
                    consts[i] = value
        return consts

    def run(self, feed_dict=None, session=None):
        """Runs this op in `session` (default: the default session)."""
        _session_for(self._graph, session, f"Operation '{self.name}'").run(
            self, feed_dict)

    def __repr__(self):
        return f"<opkit.Operation '{self.name}' type={self.type}>"


def _session_for(graph, session, what):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(
                f"Cannot evaluate {what}: no default session is registered. "
                "Use `with sess.as_default():` (or a TestCase's test_session()) "
                "or pass session=")
    if getattr(session, "graph", None) is not graph:
        raise ValueError(
            f"Cannot evaluate {what} in a session of another graph: the "
            "tensor's graph must be the session's graph")
    return session


class Tensor(_op_gen.SymbolicValue):
    """Output `value_index` of Operation `op`: a symbolic value whose
    `dtype` is known when built and whose `shape` comes from opkit's shape
    functions. eval() runs it in the default session. Operators build ops in
    the tensor's graph (+ - * / // % ** @, unary -, abs, comparisons < <= >
    >=, & | ^ ~ for bools, [] indexing with ints and slices)."""

    # numpy defers to the reflected operators (ndarray + Tensor).
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype

    @property
    def op(self):
        return self._op

    def _as_op_input(self, symbolic, where):
        if not symbolic:
            raise TypeError(
                f"{where}: Tensor '{self.name}' is a graph tensor, but this "
                "thread has no default graph, so the op would run eagerly; "
                "build it inside `with tensor.graph.as_default():`")
        return self

    @property
    def value_index(self):
        return self._value_index

    @property
    def dtype(self):
        return self._dtype

    @property
    def graph(self):
        return self._op._graph

    @property
    def name(self):
        return f"{self._op.name}:{self._value_index}"

    @property
    def device(self):
        return self._op.device

    @property
    def shape(self):
        return self._op._graph._shape_of(self)

    def get_shape(self):
        return self.shape

    def consumers(self):
        return [op for op in self.graph._ops if any(t is self for t in op._inputs)]

    def eval(self, feed_dict=None, session=None):
        """The tensor's value (numpy) from `session`, else the default one."""
        return _session_for(self.graph, session, f"Tensor '{self.name}'").run(
            self, feed_dict)

    def __repr__(self):
        return (f"<opkit.Tensor '{self.name}' shape={self.shape} "
                f"dtype={self._dtype.name}>")

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError(
            "Using a symbolic opkit.Tensor as a Python bool is not allowed: its "
            "value is known only when a session runs it")

    def __iter__(self):
        shape = self.shape
        if shape.rank is None or shape.rank == 0 or shape[0] is None:
            raise TypeError(f"Tensor '{self.name}' of shape {shape} is not "
                            "iterable: its first dimension must be known")
        return (self[i] for i in range(shape[0]))

    def __len__(self):
        shape = self.shape
        if shape.rank is None or shape.rank == 0 or shape[0] is None:
            raise TypeError(f"len() of Tensor '{self.name}' of shape {shape}: "
                            "its first dimension must be known")
        return shape[0]


class Graph:
    """A graph under construction (see the module docstring). Not
    thread-safe: build a graph from one thread at a time."""

    def __init__(self):
        self._ops = []
        self._by_name = {}
        self._names_in_use = {}
        self._name_stack = ""
        self._shapes = {}
        self._shapes_version = -1
        self._shapes_error = None
        self._finalized = False
        self._collections = {}
        self._control_stack = []   # lists of Operations

    # --- Context ------------------------------------------------------------

    @contextlib.contextmanager
    def as_default(self):
        """Makes this the thread's default graph inside the `with` block: op
        functions add nodes here."""
        _acquire_hook()
        _state.graphs.append(self)
        try:
            yield self
        finally:
            _state.graphs.pop()
            _release_hook()

    @contextlib.contextmanager
    def name_scope(self, name):
        """Prefixes the names of the nodes built inside with `name/`. A name
        ending in '/' is used as it is; None or "" resets to the top."""
        old = self._name_stack
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            new = self.unique_name(name)
        self._name_stack = new
        try:
            yield (new + "/") if new else ""
        finally:
            self._name_stack = old

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Nodes built inside run after `control_inputs` (Operations or
        Tensors, whose ops are meant); None clears the outer ones."""
        old = self._control_stack
        if control_inputs is None:
            self._control_stack = []
        else:
            ops = []
            for c in control_inputs:
                c = self.as_graph_element(c)
                ops.append(c.op if isinstance(c, Tensor) else c)
            self._control_stack = old + [ops]
        try:
            yield
        finally:
            self._control_stack = old

    def get_name_scope(self):
        return self._name_stack

    def unique_name(self, name, mark_as_used=True):
        """`name` under the current name scope, with `_1`, `_2`, ... added
        when it is taken (TensorFlow's naming)."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = f"{base}_{i}"
                i += 1
            name = f"{name}_{i - 1}"
            if mark_as_used:
                self._names_in_use[key] = 1
        return name

    # --- Building -----------------------------------------------------------

    def finalize(self):
        """Makes the graph read-only: building a node raises RuntimeError."""
        self._finalized = True

    @property
    def finalized(self):
        return self._finalized

    def create_op(self, op_type, inputs, attrs=None, name=None):
        """Adds a node of op `op_type` reading the Tensors `inputs` (flat,
        in the op's input order) with `attrs` (name -> value; the attrs the
        inputs determine may be left out) and returns its Operation."""
        inputs = list(inputs)
        for t in inputs:
            self._check_own(t, op_type)
        attrs = dict(attrs or {})
        _infer_attrs(op_type, inputs, attrs)
        return self._add_node(op_type, inputs, attrs, name)

    def _check_own(self, t, op_type):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op_type}: inputs must be opkit.Tensors of the "
                            f"graph, got {type(t).__name__}")
        if t.graph is not self:
            raise ValueError(
                f"{op_type}: Tensor '{t.name}' belongs to another graph; an op's "
                "inputs must all be in the graph it is built in")

    def _add_node(self, op_type, inputs, attrs, name, control_inputs=()):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        if name is None:
            name = op_type.replace(">", "_")
        elif not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        if name.endswith("/"):
            # A scope's name ("scope/") names the node as it is (TensorFlow).
            node_name = name[:-1]
            _check_name(node_name)
            if node_name in self._by_name:
                raise ValueError(f"Duplicate node name in graph: '{node_name}'")
        else:
            _check_name(name)
            node_name = self.unique_name(name)
        controls = []
        input_ops = {t.op.name for t in inputs}
        for op in [o for ops in self._control_stack for o in ops] + list(control_inputs):
            if op.name not in input_ops and op not in controls:
                controls.append(op)
        names = [t.name for t in inputs] + ["^" + op.name for op in controls]
        node = _opkit._make_node(op_type, node_name, names, attrs)
        node_def = NodeDef(node_name, op_type, names, "", node["attrs"],
                           node["node_def"])
        expected = node["input_types"]
        for i, (t, want) in enumerate(zip(inputs, expected)):
            if int(t.dtype) != want:
                raise TypeError(
                    f"Input {i} of '{node_name}' ({op_type} op) has type "
                    f"{t.dtype.name} that does not match the expected type "
                    f"{_dtypes.python_name(want)}; cast it first "
                    "(opkit.cast)")
        op = Operation(self, node_def, inputs, node["output_types"],
                       node["output_lens"], expected)
        op._control_inputs = controls
        self._ops.append(op)
        self._by_name[node_name] = op
        return op

    def _apply_op_function(self, spec, converter, args, name):
        """What an op function returns in graph mode: its inputs converted
        (Python values and arrays to Const nodes), one node added, its
        outputs grouped as the eager call groups them."""
        n = len(spec.inputs)
        converted = converter.convert(args, symbolic=True)
        inputs = converted[:n]
        attrs = {k: v for k, v in zip(spec.fast_attr_names, converted[n:])
                 if v is not None}
        flat = []
        for arg, v in zip(spec.inputs, inputs):
            if arg["number_attr"] or arg["type_list_attr"]:
                tensors = [self._as_graph_tensor(e, f"{spec.op_name} input "
                                                 f"'{arg['name']}'") for e in v]
                flat.extend(tensors)
            else:
                flat.append(self._as_graph_tensor(
                    v, f"{spec.op_name} input '{arg['name']}'"))
        # Shape attrs left as None mean "unknown shape" in an op call.
        for aname, a in spec.attrs.items():
            if a["type"] == "shape" and aname in spec.fast_attr_names:
                i = spec.fast_attr_names.index(aname)
                if converted[n + i] is None:
                    attrs.pop(aname, None)
                elif isinstance(converted[n + i], TensorShape):
                    attrs[aname] = _shape_attr(converted[n + i])
        _infer_attrs(spec.op_name, flat, attrs, spec)
        op = self._add_node(spec.op_name, flat, attrs, name)
        return _group_outputs(op, spec)

    def _as_graph_tensor(self, value, where):
        if isinstance(value, Tensor):
            if value.graph is not self:
                raise ValueError(
                    f"{where}: Tensor '{value.name}' belongs to another graph "
                    "than the default one; build each op in its inputs' graph")
            return value
        if isinstance(value, (list, tuple)) and any(
                isinstance(e, (Tensor, Variable)) for e in value):
            # Tensors in a list are packed (TensorFlow's auto-packing).
            parts = [self._as_graph_tensor(e, where) for e in value]
            return _ops().pack(parts, axis=0)
        if isinstance(value, (_opkit.ResourceTensor, _opkit.VariantTensor)):
            raise TypeError(
                f"{where}: an eager resource/variant handle cannot be a graph "
                "input; create the resource inside the graph")
        arr = np.asarray(value)
        return self._const(arr)

    def _const(self, arr, name="Const"):
        return self._add_node(
            "Const", [], {"value": arr, "dtype": _dtypes.as_datatype(arr.dtype)},
            name).outputs[0]

    # --- Reading ------------------------------------------------------------

    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        op = self._by_name.get(name)
        if op is None:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")
        return op

    def get_tensor_by_name(self, name):
        if ":" not in name:
            raise ValueError(f"The name '{name}' looks like an Operation name, "
                             "not a Tensor name ('op:0')")
        op_name, index = name.rsplit(":", 1)
        op = self.get_operation_by_name(op_name)
        try:
            return op._outputs[int(index)]
        except (ValueError, IndexError):
            raise KeyError(f"The name '{name}' refers to a Tensor which does not "
                           f"exist: operation '{op_name}' has "
                           f"{len(op._outputs)} outputs") from None

    def as_graph_element(self, obj):
        """A Tensor or Operation of this graph from itself or its name."""
        if isinstance(obj, (Tensor, Operation)):
            if obj.graph is not self:
                raise ValueError(f"{obj!r} is not an element of this graph.")
            return obj
        if isinstance(obj, Variable):
            return obj._graph_read(self)
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else \
                self.get_operation_by_name(obj)
        raise TypeError(f"Cannot interpret {type(obj).__name__} {obj!r} as a "
                        "Tensor or Operation of the graph")

    @property
    def version(self):
        """Grows by one with every node."""
        return len(self._ops)

    def _serialize(self, start=0):
        parts = []
        for op in self._ops[start:]:
            data = op._node_def._bytes
            parts.append(b"\x0a" + _varint(len(data)) + data)
        return b"".join(parts)

    def as_graph_def(self):
        """The graph as a GraphDef: SerializeToString() gives the binary
        GraphDef (for opkit.Session, the command line tools, TensorFlow)."""
        return GraphDef(self._serialize(), [op.node_def for op in self._ops])

    def SerializeToString(self):  # noqa: N802 (protobuf's name)
        return self._serialize()

    def _shape_of(self, tensor):
        if self._shapes_version != len(self._ops):
            result = _opkit._infer_shapes(self._serialize())
            self._shapes = result["shapes"]
            self._shapes_error = result["error"]
            self._shapes_version = len(self._ops)
        shapes = self._shapes.get(tensor.op.name)
        if shapes is None or tensor.value_index >= len(shapes):
            return TensorShape(None)
        return TensorShape(shapes[tensor.value_index])

    # --- Collections (what tf.compat.v1 code reaches for) -----------------------

    def add_to_collection(self, name, value):
        self._collections.setdefault(name, []).append(value)

    def get_collection(self, name, scope=None):
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        return [i for i in items if getattr(i, "name", "").startswith(scope)]

    def __repr__(self):
        return f"<opkit.Graph {len(self._ops)} nodes>"


class GraphDef:
    """What Graph.as_graph_def returns: `node` (NodeDefs) and
    SerializeToString() (the binary GraphDef)."""

    def __init__(self, data, nodes):
        self._bytes = data
        self.node = nodes

    def SerializeToString(self):  # noqa: N802 (protobuf's name)
        return self._bytes

    def __repr__(self):
        return f"<opkit GraphDef {len(self.node)} nodes>"


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")


def _check_name(name):
    if not _VALID_NAME.match(name):
        raise ValueError(
            f"'{name}' is not a valid node name: use letters, digits and "
            "'_' '.' '-' '/', starting with a letter, digit or '.'")


def _shape_attr(shape):
    shape = TensorShape(shape)
    return None if shape.rank is None else tuple(shape.dims)


def _infer_attrs(op_type, inputs, attrs, spec=None):
    """Sets the type and number attrs that `inputs` (flat Tensors)
    determine, where `attrs` does not give them."""
    if spec is None:
        spec = _op_gen.op_spec(op_type)
    next_input = 0
    # A list(type) or N-length input's size is what is left after the
    # others; with more than one such input the attrs must say.
    lists = [a for a in spec.inputs if a["number_attr"] or a["type_list_attr"]]
    fixed = len(spec.inputs) - len(lists)
    for arg in lists:
        if arg["number_attr"] and arg["number_attr"] in attrs:
            fixed += int(attrs[arg["number_attr"]])
        elif arg["type_list_attr"] and arg["type_list_attr"] in attrs:
            fixed += len(attrs[arg["type_list_attr"]])
    unknown = [a for a in lists if not (
        (a["number_attr"] and a["number_attr"] in attrs)
        or (a["type_list_attr"] and a["type_list_attr"] in attrs))]
    if len(unknown) > 1:
        raise ValueError(f"{op_type}: give the lengths of its list inputs as attrs")
    rest = len(inputs) - fixed
    if rest < 0 or (not unknown and rest != 0):
        raise ValueError(f"{op_type} takes {fixed} inputs here, got {len(inputs)}")
    for arg in spec.inputs:
        if arg["number_attr"]:
            count = int(attrs.get(arg["number_attr"], rest))
            attrs.setdefault(arg["number_attr"], count)
        elif arg["type_list_attr"]:
            ts = attrs.get(arg["type_list_attr"])
            count = len(ts) if ts is not None else rest
            if ts is None:
                attrs[arg["type_list_attr"]] = [
                    int(t.dtype) for t in inputs[next_input:next_input + count]]
        else:
            count = 1
        if arg["type_attr"] and arg["type_attr"] not in attrs and count > 0:
            attrs[arg["type_attr"]] = int(inputs[next_input].dtype)
        next_input += count


def _group_outputs(op, spec):
    outs = op._outputs
    lens = op._output_lens
    if not lens:
        return op
    groups = []
    i = 0
    for n in lens:
        if n < 0:
            groups.append(outs[i])
            i += 1
        else:
            groups.append(list(outs[i:i + n]))
            i += n
    if len(groups) == 1:
        return groups[0]
    cls = _op_gen.output_class(spec)
    return cls(*groups) if cls is not None else tuple(groups)




# --- Operators -------------------------------------------------------------------

_internal_ops = None


def _ops():
    """opkit.ops._internal: every op under its own name (OPKIT_OP_GEN_OVERRIDES
    aside), imported on first use (opkit.ops imports this module's users)."""
    global _internal_ops
    if _internal_ops is None:
        from opkit import ops  # noqa: PLC0415
        _internal_ops = ops._internal
    return _internal_ops


def _in_graph_of(value, fn, *args, **kwargs):
    """fn(*args) built in `value`'s graph (operators work outside a graph
    context too, as TensorFlow's do)."""
    graph = value.graph
    if get_default_graph() is graph:
        return fn(*args, **kwargs)
    with graph.as_default():
        return fn(*args, **kwargs)


def _binary(op_name, reverse=False):
    def method(self, other):
        fn = getattr(_ops(), op_name)
        a, b = (other, self) if reverse else (self, other)
        return _in_graph_of(self, fn, a, b)
    method.__name__ = op_name
    return method


def _truediv(a, b):
    ops = _ops()
    dtypes = [x.dtype for x in (a, b) if isinstance(x, (Tensor, Variable))]
    if dtypes and dtypes[0].is_integer:
        # TensorFlow's truediv: int32 / int32 is float64 (int8/16: float32).
        to = _dtypes.float64 if dtypes[0] in (_dtypes.int32, _dtypes.int64) \
            else _dtypes.float32
        a = ops.cast(a, DstT=to) if isinstance(a, (Tensor, Variable)) \
            else np.asarray(a, dtype=to.as_numpy_dtype)
        b = ops.cast(b, DstT=to) if isinstance(b, (Tensor, Variable)) \
            else np.asarray(b, dtype=to.as_numpy_dtype)
    return ops.real_div(a, b)


def _matmul(a, b):
    ops = _ops()
    ranks = [getattr(getattr(x, "shape", None), "rank", None) for x in (a, b)]
    if ranks == [2, 2]:
        return ops.mat_mul(a, b)
    return ops.batch_mat_mul_v2(a, b)


def _unary(op_name):
    def method(self):
        return _in_graph_of(self, getattr(_ops(), op_name), self)
    method.__name__ = op_name
    return method


def _canonical_slices(key):
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    begin_mask = end_mask = shrink = new_axis = ellipsis = 0
    for i, k in enumerate(key):
        bit = 1 << i
        if k is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis |= bit
        elif k is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis |= bit
        elif isinstance(k, slice):
            step = 1 if k.step is None else int(k.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            begin.append(0 if k.start is None else int(k.start))
            end.append(0 if k.stop is None else int(k.stop))
            strides.append(step)
            if k.start is None:
                begin_mask |= bit
            if k.stop is None:
                end_mask |= bit
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            k = int(k)
            begin.append(k)
            end.append(k + 1 if k != -1 else 0)
            strides.append(1)
            shrink |= bit
            if k == -1:
                end_mask |= bit
        else:
            raise TypeError(
                "Only integers, slices (`:`), ellipsis (`...`) and None "
                f"(newaxis) are valid indices, got {k!r}")
    return (np.asarray(begin, np.int32), np.asarray(end, np.int32),
            np.asarray(strides, np.int32),
            dict(begin_mask=begin_mask, end_mask=end_mask,
                 ellipsis_mask=ellipsis, new_axis_mask=new_axis,
                 shrink_axis_mask=shrink))


def _getitem(self, key):
    begin, end, strides, masks = _canonical_slices(key)
    return _in_graph_of(self, _ops().strided_slice, self, begin, end, strides,
                        **masks)


def _add_operators(cls):
    for name, op in [("add", "add_v2"), ("sub", "sub"), ("mul", "mul"),
                     ("floordiv", "floor_div"), ("mod", "floor_mod"),
                     ("pow", "pow")]:
        setattr(cls, f"__{name}__", _binary(op))
        setattr(cls, f"__r{name}__", _binary(op, reverse=True))
    for name, op in [("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                     ("ge", "greater_equal"), ("and", "logical_and"),
                     ("or", "logical_or")]:
        setattr(cls, f"__{name}__", _binary(op))
    cls.__rand__ = _binary("logical_and", reverse=True)
    cls.__ror__ = _binary("logical_or", reverse=True)
    cls.__truediv__ = lambda self, other: _in_graph_of(self, _truediv, self, other)
    cls.__rtruediv__ = lambda self, other: _in_graph_of(self, _truediv, other, self)
    cls.__matmul__ = lambda self, other: _in_graph_of(self, _matmul, self, other)
    cls.__rmatmul__ = lambda self, other: _in_graph_of(self, _matmul, other, self)
    cls.__neg__ = _unary("neg")
    cls.__abs__ = _unary("abs")
    cls.__invert__ = _unary("logical_not")
    cls.__getitem__ = _getitem


_add_operators(Tensor)


def group(*inputs, name=None):
    """One NoOp that runs after every op in `inputs` (Operations or
    Tensors): running it runs them all (tf.group)."""
    flat = []
    for i in inputs:
        flat.extend(i if isinstance(i, (list, tuple)) else [i])
    graph = get_default_graph()
    if graph is None:
        graph = flat[0].graph if flat else None
    if graph is None:
        raise ValueError("opkit.group needs a graph: call it inside "
                         "`with graph.as_default():`")
    ops = [graph.as_graph_element(x) for x in flat]
    ops = [x.op if isinstance(x, Tensor) else x for x in ops]
    return graph._add_node("NoOp", [], {}, name or "NoOp", control_inputs=ops)


# --- Variables ---------------------------------------------------------------------

_ANONYMOUS_NAME = "cd2c89b7-88b7-44c8-ad83-06c2a9158347"


class Variable(_op_gen.SymbolicValue):
    """A resource variable, as TensorFlow's tf.Variable.

        v = opkit.Variable([1.0, 2.0], name="v")   # eager: holds its value
        v.assign_add([1, 1]); v.numpy()            # array([2., 3.], ...)

    Inside a graph it adds a VarHandleOp (`handle`), its `initializer`
    (AssignVariableOp of the initial value) and reads (ReadVariableOp);
    run opkit.global_variables_initializer() (or v.initializer) first.
    Passed to an op, a variable is its current value; operators work as on
    tensors. assign/assign_add/assign_sub write and return the new value (in
    a graph: a read that runs after the write)."""

    __array_priority__ = 100

    def __init__(self, initial_value, trainable=True, name=None, dtype=None,
                 shape=None):
        if callable(initial_value):
            initial_value = initial_value()
        self.trainable = trainable
        ops = _ops()
        graph = get_default_graph()
        self._graph = graph
        if graph is None:
            value = initial_value if not isinstance(initial_value, Variable) \
                else initial_value.numpy()
            target = None if dtype is None else np.dtype(
                _dtypes.as_dtype(dtype).as_numpy_dtype)
            value = _op_gen.to_array(value, "Variable initial_value", target)
            if target is not None and value.dtype != target:
                value = value.astype(target)
            self._dtype = _dtypes.as_dtype(value.dtype)
            self._shape = TensorShape(value.shape if shape is None else shape)
            self._name = (name or "Variable") + ":0"
            # A fresh variable each time (ResourceHandle::ANONYMOUS_NAME).
            self._handle = ops.var_handle_op(dtype=value.dtype,
                                             shape=list(value.shape),
                                             shared_name=_ANONYMOUS_NAME)
            ops.assign_variable_op(self._handle, value)
            self.initializer = None
            return
        with graph.name_scope(name or "Variable") as scope:
            init = initial_value
            if not isinstance(init, Tensor):
                target = None if dtype is None else np.dtype(
                    _dtypes.as_dtype(dtype).as_numpy_dtype)
                arr = init.numpy() if isinstance(init, Variable) else \
                    _op_gen.to_array(init, "Variable initial_value", target)
                init = graph._const(arr, "Initializer/initial_value")
            elif dtype is not None and init.dtype != dtype:
                raise TypeError(f"Variable {scope!r}: initial value has dtype "
                                f"{init.dtype.name}, not {_dtypes.as_dtype(dtype).name}")
            self._dtype = init.dtype
            self._shape = TensorShape(init.shape if shape is None else shape)
            handle_shape = _shape_attr(self._shape)
            self._handle = ops.var_handle_op(
                dtype=self._dtype, shape=handle_shape,
                shared_name=scope[:-1], name=scope)
            self.initializer = ops.assign_variable_op(self._handle, init,
                                                      name="Assign")
            self._initial_value = init
            with graph.name_scope("Read"):
                self._snapshot = ops.read_variable_op(self._handle, dtype=self._dtype)
        self._name = self._handle.name
        graph.add_to_collection("variables", self)
        if trainable:
            graph.add_to_collection("trainable_variables", self)

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def handle(self):
        return self._handle

    @property
    def graph(self):
        return self._graph

    @property
    def op(self):
        return self._handle.op if self._graph is not None else None

    @property
    def initial_value(self):
        return self._initial_value

    def _eager_value(self):
        """The current value when this is an eager variable (a read, which
        tapes record), else None: _Converter's fast path."""
        return self.read_value() if self._graph is None else None

    def _as_op_input(self, symbolic, where):
        if self._graph is None:
            if symbolic:
                raise TypeError(f"{where}: an eager Variable ({self._name}) "
                                "cannot be a graph input; create it in the graph")
            return self.numpy()
        if not symbolic:
            raise TypeError(f"{where}: Variable {self._name} belongs to a graph; "
                            "use it inside `with graph.as_default():`")
        return self._graph_read(get_default_graph())

    def _graph_read(self, graph):
        if graph is not self._graph:
            raise ValueError(f"Variable {self._name} belongs to another graph")
        return self._snapshot

    def read_value(self):
        """The current value: an array (eager), or a new ReadVariableOp
        (graph)."""
        if self._graph is None:
            if _on_variable_read is not None:
                _on_variable_read(self)
            return _ops().read_variable_op(self._handle, dtype=self._dtype)
        return _in_graph_of(self, lambda: _ops().read_variable_op(
            self._handle, dtype=self._dtype, name=self._handle.op.name + "/Read"))

    def value(self):
        return self.read_value() if self._graph is None else self._snapshot

    def numpy(self):
        if self._graph is not None:
            raise NotImplementedError(
                "numpy() is only available for eager variables; in a graph use "
                "sess.run(v) or v.eval()")
        return self.read_value()

    def eval(self, session=None):
        return _session_for(self._graph, session, f"Variable {self._name}").run(
            self._snapshot)

    def _update(self, fn, value, name):
        ops = _ops()
        if self._graph is None:
            fn(self._handle, _op_gen.to_array(
                value, f"Variable.{name}", np.dtype(self._dtype.as_numpy_dtype)))
            return self
        def build():
            with self._graph.name_scope(name):
                write = fn(self._handle, value)
                with self._graph.control_dependencies([write]):
                    return ops.read_variable_op(self._handle, dtype=self._dtype)
        return _in_graph_of(self, build)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._update(_ops().assign_variable_op, value, name or "Assign")

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._update(_ops().assign_add_variable_op, delta,
                            name or "AssignAdd")

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._update(_ops().assign_sub_variable_op, delta,
                            name or "AssignSub")

    def __array__(self, dtype=None):
        value = self.numpy()
        return value if dtype is None else value.astype(dtype)

    def __repr__(self):
        if self._graph is None:
            return (f"<opkit.Variable '{self._name}' shape={self._shape} "
                    f"dtype={self._dtype.name}, numpy={self.numpy()!r}>")
        return (f"<opkit.Variable '{self._name}' shape={self._shape} "
                f"dtype={self._dtype.name}>")

    __hash__ = object.__hash__


def _variable_operator(method):
    def run(self, *args):
        if self._graph is None:
            # Eager: the operators of the value.
            value = self.numpy()
            return getattr(value, method.__name__)(*args)
        return method(self._snapshot, *args)
    run.__name__ = method.__name__
    return run


for _name in [n for n, v in vars(Tensor).items()
              if n.startswith("__") and callable(v) and n not in (
                  "__init__", "__repr__", "__hash__", "__bool__", "__iter__",
                  "__len__")]:
    _method = getattr(Tensor, _name)
    _method.__name__ = _name
    setattr(Variable, _name, _variable_operator(_method))
del _name, _method


def global_variables(graph=None):
    graph = graph or get_default_graph()
    return [] if graph is None else graph.get_collection("variables")


def trainable_variables(graph=None):
    graph = graph or get_default_graph()
    return [] if graph is None else graph.get_collection("trainable_variables")


def variables_initializer(var_list, name="init"):
    """One op running the initializers of `var_list`."""
    graph = get_default_graph()
    if graph is None:
        raise ValueError("variables_initializer builds a graph op: call it "
                         "inside `with graph.as_default():`")
    return group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer():
    """One op running the initializer of every variable of the default
    graph (tf.compat.v1.global_variables_initializer)."""
    return variables_initializer(global_variables())


def name_scope(name):
    """The default graph's name_scope (a no-op when running eagerly)."""
    graph = get_default_graph()
    if graph is None:
        return contextlib.nullcontext("" if not name else name + "/")
    return graph.name_scope(name)


def control_dependencies(control_inputs):
    graph = get_default_graph()
    if graph is None:
        return contextlib.nullcontext()
    return graph.control_dependencies(control_inputs)
