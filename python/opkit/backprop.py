"""opkit.GradientTape: gradients of eager computations, as TensorFlow's
tf.GradientTape.

    x = opkit.constant(3.0)
    with opkit.GradientTape() as t:
        t.watch(x)
        y = x * x
    t.gradient(y, x)                       # 6.0

    w = opkit.Variable(np.ones((3, 2), np.float32))
    with opkit.GradientTape() as t:        # trainable variables read inside
        loss = opkit.reduce_sum(opkit.matmul(x2, w))   # are watched
    dw = t.gradient(loss, w)

How values are identified. Eager values are numpy arrays. While a tape
records, every op function returns its arrays as `EagerTensor` (an ndarray
subclass whose arithmetic operators run opkit ops while a tape records,
Note [EagerTensor operators]) and the tape keeps each recorded input and
output alive and knows it by identity; `opkit.constant` returns an
EagerTensor too, so `x * x` on a constant is recorded. A plain numpy array
is recorded only where it goes into an op function (the operators of
ndarray itself are numpy's, which no tape sees).

How ops are recorded. An op function called while a tape records on the
thread runs the op and records it in C++ on each recording tape of the
thread that watches one of its inputs (Note [C++ tape] in
python/src/tape.h), so eager calls pay one test while no tape records.

gradient() walks the recorded ops backwards (in C++) and applies each op's
gradient: a gradient from the C++ registry runs as one prepared program of
its nodes; a Python-registered function, and every gradient while another
tape records on the thread (so that it records the gradient computation:
nested tapes give higher derivatives where the gradient ops have
gradients), goes through opkit.gradient_registry and the op functions.
"""

import contextlib
import threading

import numpy as np

from opkit import _op_gen
from opkit import _opkit
from opkit import dtypes as _dtypes
from opkit import framework as _framework
from opkit import gradient_registry as _registry
from opkit import gradients_impl as _gradients_impl
from opkit.ops import _internal as _ops

UnconnectedGradients = _gradients_impl.UnconnectedGradients


class _ThreadTapes(threading.local):
    def __init__(self):
        super().__init__()
        self.recording = []   # tapes recording on this thread, innermost last


_tapes = _ThreadTapes()
_active_lock = threading.Lock()
_active = 0   # tapes inside their `with` block, over all threads


# --- EagerTensor -----------------------------------------------------------------

class EagerTensor(np.ndarray):
    """A numpy array that opkit returns while a GradientTape records (and
    from opkit.constant): its operators (+ - * / @ ** unary -) run opkit
    ops, which tapes record. numpy() gives the plain array."""

    def numpy(self):
        return self.view(np.ndarray)

    def __repr__(self):
        return repr(self.view(np.ndarray))

    def __str__(self):
        return str(self.view(np.ndarray))

    def __reduce__(self):
        return self.view(np.ndarray).__reduce__()


def _wrap(value):
    if type(value) is np.ndarray:   # noqa: E721 (exactly ndarray, not a subclass)
        return value.view(EagerTensor)
    return value


# Note [EagerTensor operators]: while a tape records on the thread, the
# operators run opkit ops (TensorFlow's rules: same dtypes, recorded); with
# no tape they are numpy's, as for any array, so numpy code (np.testing,
# mixed dtypes) keeps working on what opkit returns.
def _operator(name, opkit_fn):
    numpy_fn = getattr(np.ndarray, name)

    def method(self, *other):
        if _tapes.recording:
            return _wrap(opkit_fn(self, *other))
        return numpy_fn(self, *other)
    method.__name__ = name
    return method


def _matmul(a, b):
    if np.ndim(a) == 2 and np.ndim(b) == 2:
        return _ops.mat_mul(a, b)
    return _ops.batch_mat_mul_v2(a, b)


def _set_operators():
    def fn(op):
        return lambda a, b: getattr(_ops, op)(a, b)

    def rfn(op):
        return lambda a, b: getattr(_ops, op)(b, a)
    for name, op in [("add", "add_v2"), ("sub", "sub"), ("mul", "mul"),
                     ("pow", "pow"), ("floordiv", "floor_div"),
                     ("mod", "floor_mod")]:
        setattr(EagerTensor, f"__{name}__", _operator(f"__{name}__", fn(op)))
        setattr(EagerTensor, f"__r{name}__", _operator(f"__r{name}__", rfn(op)))
    EagerTensor.__truediv__ = _operator("__truediv__", _framework._truediv)
    EagerTensor.__rtruediv__ = _operator("__rtruediv__",
                                         lambda a, b: _framework._truediv(b, a))
    EagerTensor.__matmul__ = _operator("__matmul__", _matmul)
    EagerTensor.__rmatmul__ = _operator("__rmatmul__", lambda a, b: _matmul(b, a))
    EagerTensor.__neg__ = _operator("__neg__", lambda a: _ops.neg(a))
    EagerTensor.__abs__ = _operator("__abs__", lambda a: _ops.abs(a))
    EagerTensor.__getitem__ = _getitem


def _getitem(self, key):
    """Indexing with ints, slices, `...` and None is a StridedSlice while a
    tape records (so it is differentiated); numpy's otherwise, and for the
    keys StridedSlice does not take (arrays, lists)."""
    if _tapes.recording:
        try:
            begin, end, strides, masks = _framework._canonical_slices(key)
        except (TypeError, ValueError):
            pass
        else:
            return _wrap(_ops.strided_slice(self, begin, end, strides, **masks))
    return np.ndarray.__getitem__(self, key)


_set_operators()


# --- Recording ---------------------------------------------------------------------

class _EagerOp:
    """One recorded op call: what a gradient function receives in eager
    mode in place of an Operation (`type`, `name`, `inputs`, `outputs`,
    `get_attr`)."""

    __slots__ = ("type", "_attrs", "_grouped", "inputs", "outputs", "_full_attrs")

    def __init__(self, op_type, attrs, grouped, inputs, outputs):
        self.type = op_type
        self._attrs = attrs
        self._grouped = grouped
        self.inputs = inputs
        self.outputs = outputs
        self._full_attrs = None

    @property
    def name(self):
        return self.type

    def _grad_attrs(self):
        return self._attrs

    def _grouped_dtypes(self):
        return [[_datatype(e) for e in g] if isinstance(g, list) else _datatype(g)
                for g in self._grouped]

    def _const_inputs(self):
        return {i: np.asarray(v) for i, v in enumerate(self.inputs)
                if _registry.is_small_int(v)}

    def get_attr(self, name):
        """The value of attr `name` (defaults and inferred attrs included)."""
        if self._full_attrs is None:
            self._full_attrs = _complete_attrs(self)
        if name not in self._full_attrs:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.")
        kind = {a["name"]: a["type"] for a in _op_gen.op_spec(self.type).info["attrs"]}.get(name)
        value = self._full_attrs[name]
        if kind == "type":
            return _dtypes.as_dtype(value)
        if kind == "list(type)":
            return [_dtypes.as_dtype(v) for v in value]
        return value

    def __repr__(self):
        return f"<opkit eager op {self.type}>"


_DATATYPES = {}   # numpy dtype -> DataType number, filled as dtypes are seen


def _datatype(value):
    if isinstance(value, np.ndarray):
        dtype = value.dtype
        datatype = _DATATYPES.get(dtype)
        if datatype is None:
            datatype = _dtypes.as_datatype(dtype) if dtype.kind != "O" else 7
            _DATATYPES[dtype] = datatype
        return datatype
    return 20 if isinstance(value, _framework._opkit.ResourceTensor) else 21


class _Typed:
    def __init__(self, datatype):
        self.dtype = _dtypes.as_dtype(datatype)


def _complete_attrs(op):
    attrs = dict(op._attrs)
    flat = [_Typed(_datatype(v)) for v in op.inputs]
    _framework._infer_attrs(op.type, flat, attrs)
    node = _framework._opkit._make_node(
        op.type, "op", [f"in{i}" for i in range(len(flat))], attrs)
    return node["attrs"]


def _apply_recorded(fn, attr_values, lengths, inputs, outputs, out_grads,
                    needed):
    """The gradients of one recorded call's inputs (the C++ walk's callback
    for what it does not run itself): through opkit.gradient_registry, as
    in graph mode."""
    spec = getattr(fn, "_opkit_spec", None) or _op_gen.op_spec(fn.__name__)
    attrs = {k: v for k, v in zip(spec.fast_attr_names, attr_values)
             if v is not None}
    grouped = _registry._group(inputs, [None if n < 0 else n for n in lengths])
    op = _EagerOp(spec.op_name, attrs, grouped, inputs, outputs)
    return _registry.apply_gradient(op, out_grads, _zeros_like, eager=True,
                                    needed=needed)


def _variable_read(variable):
    for tape in _tapes.recording:
        if tape._watch_accessed_variables and variable.trainable:
            tape._watch_variable(variable)


_opkit._set_eager_tensor_type(EagerTensor)
_opkit._set_python_gradients(_registry._REGISTRY)


def _tape_entered():
    global _active
    with _active_lock:
        _active += 1
        _framework._on_variable_read = _variable_read


def _tape_exited():
    global _active
    with _active_lock:
        _active -= 1
        if _active == 0:
            _framework._on_variable_read = None


# --- GradientTape ----------------------------------------------------------------

class GradientTape:
    """Records eager op calls to differentiate them (tf.GradientTape; see
    the module docstring).

    persistent: gradient() may be called more than once (otherwise the
      second call is a RuntimeError and the recorded values are freed after
      the first).
    watch_accessed_variables: trainable opkit.Variables read while the tape
      is active are watched without watch().
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._state = _opkit._Tape()   # watched values and recorded calls
        self._variables = []
        self._used = False
        self._entered = False

    # --- Context ------------------------------------------------------------

    def __enter__(self):
        if self._entered:
            raise ValueError("This GradientTape is already recording: a tape "
                             "cannot be entered twice at once")
        self._entered = True
        _tape_entered()
        self._push()
        return self

    def __exit__(self, *exc):
        self._stop()
        self._entered = False
        _tape_exited()
        return False

    def _push(self):
        _tapes.recording.append(self)
        _opkit._tape_push(self._state)

    def _stop(self):
        rec = _tapes.recording
        for i in range(len(rec) - 1, -1, -1):
            if rec[i] is self:
                del rec[i]
                _opkit._tape_pop(self._state)
                return True
        return False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside are not recorded by this tape."""
        if not self._entered:
            raise ValueError("Tape.stop_recording() is only valid when the tape "
                             "is recording (inside its `with` block)")
        was = self._stop()
        try:
            yield
        finally:
            if was:
                self._push()

    def reset(self):
        """Forgets everything recorded (the tape keeps recording if active)."""
        self._state.reset()
        self._variables = []
        self._used = False

    # --- Watching -------------------------------------------------------------

    def watch(self, tensor):
        """Records the ops that read `tensor` (an array or EagerTensor, an
        opkit.Variable, or a list of them)."""
        for t in tensor if isinstance(tensor, (list, tuple)) else [tensor]:
            if isinstance(t, _framework.Variable):
                self._watch_variable(t)
            elif isinstance(t, np.ndarray):
                if t.dtype.kind not in "fc":
                    continue   # TensorFlow watches floating tensors only
                self._state.watch(t)
            elif isinstance(t, _framework.Tensor):
                raise ValueError("GradientTape.watch takes eager values; for a "
                                 "graph Tensor use opkit.gradients")
            else:
                raise TypeError(f"GradientTape.watch: cannot watch "
                                f"{type(t).__name__}; pass the array an opkit "
                                "op or opkit.constant returned, or a Variable")

    def _watch_variable(self, variable):
        if variable.graph is not None:
            raise ValueError(f"Variable {variable.name} belongs to a graph; "
                             "use opkit.gradients there")
        if self._state.watch(variable.handle):
            self._variables.append(variable)

    def watched_variables(self):
        return list(self._variables)

    # --- Gradients ------------------------------------------------------------

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of `target`)/d(source) for each of `sources` (a value, a
        Variable, or a list/tuple/dict of them; the result has the same
        structure), None (or zeros with UnconnectedGradients.ZERO) for a
        source the target does not depend on. `output_gradients`: one
        initial gradient per target (default ones)."""
        unconnected = _gradients_impl._unconnected(unconnected_gradients)
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one "
                "set of gradients (or jacobians)")
        targets = _gradients_impl._as_list(target)
        flat_sources, rebuild = _flatten_structure(sources)
        if output_gradients is not None:
            output_gradients = _gradients_impl._as_list(output_gradients)
            if len(output_gradients) != len(targets):
                raise ValueError(f"Passed {len(output_gradients)} output_gradients "
                                 f"for {len(targets)} targets")
        for s in flat_sources:
            if isinstance(s, _framework.Tensor):
                raise ValueError("GradientTape.gradient takes eager values; for "
                                 "graph Tensors use opkit.gradients")
        self._used = True
        was_recording = self._stop()
        try:
            result = self._gradient(targets, flat_sources, output_gradients,
                                    unconnected)
        finally:
            if was_recording:
                self._push()
            if not self._persistent:
                self._state.reset()
        return rebuild(result)

    def _gradient(self, targets, sources, output_gradients, unconnected):
        keys = [s.handle if isinstance(s, _framework.Variable) else s
                for s in sources]
        seeds = []
        for i, t in enumerate(targets):
            if output_gradients is not None and output_gradients[i] is not None:
                seeds.append(output_gradients[i])
            elif self._state.is_tracked(t):
                seeds.append(np.ones_like(np.asarray(t)))
            else:
                seeds.append(None)
        # Gradient programs run without recording; while another tape
        # records on the thread every gradient goes through the op functions.
        out = self._state.gradient(targets, seeds, keys, _apply_recorded,
                                   _gradients_impl.aggregate, _zeros_like,
                                   not _tapes.recording, not self._persistent)
        if unconnected is UnconnectedGradients.ZERO:
            for k, (s, g) in enumerate(zip(sources, out)):
                if g is None:
                    value = s.numpy() if isinstance(s, _framework.Variable) else s
                    out[k] = np.zeros_like(np.asarray(value))
        return out

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE):
        """d target[i] / d source for every element i of `target`: an array of
        shape target.shape + source.shape per source (a persistent tape is
        not needed: the tape is kept until every row is done)."""
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one "
                "set of gradients (or jacobians)")
        flat_sources, rebuild = _flatten_structure(sources)
        t = np.asarray(target)
        persistent = self._persistent
        self._persistent = True
        try:
            rows = []
            connected = self.gradient(target, flat_sources) if t.size else \
                [None] * len(flat_sources)
            for i in range(t.size):
                seed = np.zeros(t.size, t.dtype)
                seed[i] = 1
                rows.append(self.gradient(target, flat_sources,
                                          output_gradients=[seed.reshape(t.shape)],
                                          unconnected_gradients=UnconnectedGradients.ZERO))
        finally:
            self._persistent = persistent
            self._used = True
            if not persistent:
                self._state.reset()
        out = []
        for k, s in enumerate(flat_sources):
            shape = np.shape(s.numpy() if isinstance(s, _framework.Variable) else s)
            stacked = np.stack([np.asarray(r[k]) for r in rows]) if rows else \
                np.zeros((0,) + shape)
            out.append(stacked.reshape(t.shape + shape))
        if _gradients_impl._unconnected(unconnected_gradients) is UnconnectedGradients.NONE:
            out = [None if c is None else o for o, c in zip(out, connected)]
        return rebuild(out)


def _zeros_like(value):
    return _ops.zeros_like(value)


def _flatten_structure(sources):
    if isinstance(sources, dict):
        keys = list(sources)
        return [sources[k] for k in keys], lambda r: dict(zip(keys, r))
    if isinstance(sources, (list, tuple)):
        kind = type(sources)
        return list(sources), (lambda r: list(r)) if kind is list else (lambda r: tuple(r))
    return [sources], lambda r: r[0]
