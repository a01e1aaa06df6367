"""opkit.Session: run a GraphDef the TensorFlow v1 way.

    with opkit.Session(open("model.pb", "rb").read()) as sess:
        y = sess.run("y", {"x": [[1, 2], [3, 4]]})          # one array
        a, b = sess.run(["a:0", "b"], feed_dict={"x": x})   # a list

The graph may be given as binary GraphDef bytes, protobuf text (str or
bytes), a path to either or to a TensorFlow.js graph model (model.json or its
folder), or any object with SerializeToString() (a GraphDef message, or what
opkit.load_graph returns). Tensor names without ":<index>" mean output 0. Feeds are converted
to the dtype of the Placeholder they feed when it has one.
"""

import os

import numpy as np

from opkit import _opkit
from opkit import _op_gen
from opkit import config
from opkit import dtypes as _dtypes


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


class Session:
    """A graph loaded for running (see the module docstring)."""

    def __init__(self, graph_def):
        if hasattr(graph_def, "SerializeToString"):
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
        # Thread counts as opkit.config.threading has them now (TensorFlow's
        # v1 Session takes the context's config the same way).
        self._session = _opkit._Session(
            data, config.threading.get_intra_op_parallelism_threads(),
            config.threading.get_inter_op_parallelism_threads())
        self._closed = False

    def run(self, fetches, feed_dict=None, targets=None, options=None):
        """Runs one step and returns the fetched tensors as numpy arrays:
        one array for a single name, a list for a list/tuple of names.
        `feed_dict` maps tensor names to arrays, lists or scalars; `targets`
        names nodes to run for their effects; `options` is a RunOptions
        (timeout_in_ms: DeadlineExceededError once the step runs longer).
        Errors are opkit.errors exceptions (InvalidArgumentError for unknown
        names or feeds of the wrong dtype, the kernel's error with its
        node)."""
        timeout_in_ms = _timeout_in_ms(options)
        single = isinstance(fetches, str)
        if single:
            names = [fetches]
        elif isinstance(fetches, (list, tuple)):
            names = list(fetches)
        else:
            raise TypeError(f"fetches must be a tensor name or a list of them, "
                            f"got {type(fetches).__name__}")
        names = [_tensor_name(n, "fetch") for n in names]
        feeds = []
        for key, value in (feed_dict or {}).items():
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
        target_names = [] if targets is None else (
            [targets] if isinstance(targets, str) else list(targets))
        out = self._session.run(feeds, names, target_names, timeout_in_ms)
        return out[0] if single else out

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
