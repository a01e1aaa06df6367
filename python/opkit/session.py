"""opkit.Session: run a GraphDef the TensorFlow v1 way.

    with opkit.Session(open("model.pb", "rb").read()) as sess:
        y = sess.run("y", {"x": [[1, 2], [3, 4]]})          # one array
        a, b = sess.run(["a:0", "b"], feed_dict={"x": x})   # a list

The graph may be given as binary GraphDef bytes, protobuf text (str or
bytes), a path to either or to a TensorFlow.js graph model (model.json or its
folder), or any object with SerializeToString() (a GraphDef message, or what
opkit.load_graph returns), or an opkit.Graph built from Python (the
default graph when none is given):

    with g.as_default():
        x = opkit.placeholder(opkit.float32); y = x * 2
    with opkit.Session(graph=g) as sess:
        sess.run(y, {x: 3.0})                               # 6.0
        sess.run({"y": y, "both": [x, y]}, {x: 1.0})        # same structure

Tensor names without ":<index>" mean output 0. Fetches may be names,
Tensors, Variables, Operations (run for their effects; fetched as None)
and lists, tuples and dicts of them. Feed keys may be names or Tensors.
Feeds are converted to the dtype of the Placeholder they feed when it has
one. A session of a Python graph sees the nodes added to the graph after it
was made (Session::Extend), so variables keep their values.
"""

import os

import numpy as np

import contextlib

from opkit import _opkit
from opkit import _op_gen
from opkit import config as _config
from opkit import dtypes as _dtypes
from opkit import framework as _framework


class RunOptions:
    """Options of one Session.run call (the parts of TensorFlow's RunOptions
    opkit honours). `timeout_in_ms` > 0 bounds the step: past it the step
    stops at its next node, pending async kernels are cancelled and run()
    raises DeadlineExceededError (a loop that never ends stops there)."""

    def __init__(self, timeout_in_ms=0):
        self.timeout_in_ms = timeout_in_ms

    def __repr__(self):
        return f"RunOptions(timeout_in_ms={self.timeout_in_ms})"


def _timeout_in_ms(options):
    if options is None:
        return 0
    timeout = getattr(options, "timeout_in_ms", None)
    if timeout is None:
        raise TypeError("options must be an opkit.RunOptions (or any object "
                        f"with timeout_in_ms), got {type(options).__name__}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, np.integer)):
        raise TypeError(f"options.timeout_in_ms must be an int, got {timeout!r}")
    if timeout < 0:
        raise ValueError(f"options.timeout_in_ms must be >= 0, got {timeout}")
    return int(timeout)


def _tensor_name(name, what):
    if not isinstance(name, str):
        raise TypeError(f"{what} names must be strings, got {name!r}")
    return name if ":" in name else name + ":0"


class ConfigProto:
    """The thread counts of a Session, as the fields of TensorFlow's
    tf.compat.v1.ConfigProto of the same names (the others are not
    modelled): 0 leaves a count as opkit.config.threading has it.

        opkit.Session(graph=g, config=opkit.ConfigProto(
            intra_op_parallelism_threads=2, inter_op_parallelism_threads=1))
    """

    def __init__(self, intra_op_parallelism_threads=0, inter_op_parallelism_threads=0):
        for what, value in (("intra_op_parallelism_threads", intra_op_parallelism_threads),
                            ("inter_op_parallelism_threads", inter_op_parallelism_threads)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"ConfigProto: {what} must be an int >= 0, got {value!r}")
        self.intra_op_parallelism_threads = int(intra_op_parallelism_threads)
        self.inter_op_parallelism_threads = int(inter_op_parallelism_threads)

    def __repr__(self):
        return (f"ConfigProto(intra_op_parallelism_threads={self.intra_op_parallelism_threads}, "
                f"inter_op_parallelism_threads={self.inter_op_parallelism_threads})")


class Session:
    """A graph loaded for running (see the module docstring)."""

    def __init__(self, graph_def=None, graph=None, config=None):
        if graph_def is not None and graph is not None:
            raise TypeError("Session: give graph_def or graph, not both")
        if graph_def is None:
            graph_def = graph if graph is not None else \
                _framework.get_default_graph()
            if graph_def is None:
                raise ValueError(
                    "Session(): no graph given and no default graph; pass a "
                    "GraphDef or an opkit.Graph, or make one inside "
                    "`with graph.as_default():`")
        self._graph = None
        self._sent = 0
        if isinstance(graph_def, _framework.Graph):
            self._graph = graph_def
            self._sent = graph_def.version
            data = graph_def.SerializeToString()
        elif hasattr(graph_def, "SerializeToString"):
            data = graph_def.SerializeToString()
        elif isinstance(graph_def, os.PathLike) or (
                isinstance(graph_def, str) and "\n" not in graph_def
                and "{" not in graph_def and os.path.exists(graph_def)):
            # GraphDef files and TF.js graph models (model.json or its folder).
            data = _opkit._read_graph_file(os.fspath(graph_def))[0]
        elif isinstance(graph_def, str):
            data = graph_def.encode("utf-8")
        elif isinstance(graph_def, (bytes, bytearray, memoryview)):
            data = bytes(graph_def)
        else:
            raise TypeError(
                "Session(graph_def): expected GraphDef bytes, text, a path or a "
                f"GraphDef message, got {type(graph_def).__name__}")
        # Thread counts from `config`, else as opkit.config.threading has
        # them now (TensorFlow's v1 Session takes the context's config the
        # same way).
        intra = _config.threading.get_intra_op_parallelism_threads()
        inter = _config.threading.get_inter_op_parallelism_threads()
        if config is not None:
            if not isinstance(config, ConfigProto):
                raise TypeError("Session(config=): expected an opkit.ConfigProto, got "
                                f"{type(config).__name__}")
            intra = config.intra_op_parallelism_threads or intra
            inter = config.inter_op_parallelism_threads or inter
        self._session = _opkit._Session(data, intra, inter)
        self._closed = False

    @property
    def graph(self):
        """The opkit.Graph this session runs (None for a GraphDef)."""
        return self._graph

    @contextlib.contextmanager
    def as_default(self):
        """Makes this the thread's default session inside the `with` block
        (Tensor.eval() and Operation.run() use it)."""
        _framework._state.sessions.append(self)
        try:
            yield self
        finally:
            _framework._state.sessions.pop()

    def _sync_graph(self):
        if self._graph is not None and self._graph.version > self._sent:
            self._session.extend(self._graph._serialize(self._sent))
            self._sent = self._graph.version

    def _fetch_name(self, element, names, target_names):
        """Records one fetch; returns its index in `names`, or None for an
        op run for its effects."""
        if isinstance(element, str):
            names.append(_tensor_name(element, "fetch"))
            return len(names) - 1
        if self._graph is None:
            raise TypeError(f"fetches of a GraphDef session must be tensor "
                            f"names, got {type(element).__name__}")
        element = self._graph.as_graph_element(element)
        if isinstance(element, _framework.Operation):
            target_names.append(element.name)
            return None
        names.append(element.name)
        return len(names) - 1

    def _flatten_fetches(self, fetches, names, target_names):
        """A function rebuilding the fetch structure from the fetched list."""
        if isinstance(fetches, (list, tuple)):
            parts = [self._flatten_fetches(f, names, target_names) for f in fetches]
            kind = type(fetches)
            if kind not in (list, tuple):   # a namedtuple
                return lambda out: kind(*[p(out) for p in parts])
            return lambda out: kind(p(out) for p in parts)
        if isinstance(fetches, dict):
            parts = {k: self._flatten_fetches(v, names, target_names)
                     for k, v in fetches.items()}
            return lambda out: {k: p(out) for k, p in parts.items()}
        if not isinstance(fetches, (str, _framework.Tensor, _framework.Operation,
                                    _framework.Variable)):
            raise TypeError(f"fetches must be tensor names, Tensors, Operations "
                            f"or lists/dicts of them, got {type(fetches).__name__}")
        i = self._fetch_name(fetches, names, target_names)
        return (lambda out: None) if i is None else (lambda out: out[i])

    def run(self, fetches, feed_dict=None, targets=None, options=None):
        """Runs one step and returns the fetched tensors as numpy arrays:
        one array for a single name or Tensor, a list for a list of names,
        the same structure for lists, tuples and dicts of fetches.
        `feed_dict` maps tensor names to arrays, lists or scalars; `targets`
        names nodes to run for their effects; `options` is a RunOptions
        (timeout_in_ms: DeadlineExceededError once the step runs longer).
        Errors are opkit.errors exceptions (InvalidArgumentError for unknown
        names or feeds of the wrong dtype, the kernel's error with its
        node)."""
        timeout_in_ms = _timeout_in_ms(options)
        self._sync_graph()
        names = []
        target_names = []
        rebuild = self._flatten_fetches(fetches, names, target_names)
        feeds = []
        for key, value in (feed_dict or {}).items():
            if isinstance(key, _framework.Tensor):
                if key.graph is not self._graph:
                    raise ValueError(f"feed {key!r} is not in this session's graph")
                key = key.name
            name = _tensor_name(key, "feed")
            dt = self._session.feed_dtype(name)
            target = None
            if dt > 0:
                try:
                    target = _dtypes.to_numpy(dt)
                except TypeError:
                    target = None
            where = f"feed '{key}'"
            if isinstance(value, (np.ndarray, np.generic)):
                arr = np.asarray(value)
                if target is not None and arr.dtype != target and target.kind != "O":
                    arr = arr.astype(target) if np.can_cast(arr.dtype, target, "same_kind") else arr
            else:
                arr = _op_gen.to_array(value, where, target)
            feeds.append((name, arr))
        if targets is not None:
            for t in [targets] if isinstance(targets, str) else list(targets):
                target_names.append(t if isinstance(t, str) else
                                    self._graph.as_graph_element(t).name)
        out = self._session.run(feeds, names, target_names, timeout_in_ms)
        return rebuild(out)

    def close(self):
        """Ends the session; later run() calls raise FailedPreconditionError.
        Idempotent."""
        if not self._closed:
            self._closed = True
            self._session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
