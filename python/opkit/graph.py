"""opkit.load_graph: read a graph file for opkit.Session.

    g = opkit.load_graph("web_model")        # a TF.js graph model's folder
    g.input_names, g.output_names            # (['x:0'], ['Identity:0'])
    with opkit.Session(g) as s:
        y = s.run(g.output_names[0], {g.input_names[0]: x})

The file may be a GraphDef (binary .pb or text .pbtxt) or a TensorFlow.js
graph model: its model.json, or the folder holding it, with the weight shards
next to it. Only a TF.js model has a signature; for a GraphDef `inputs` and
`outputs` are empty. Errors are opkit.errors exceptions naming the file and
the weight or node at fault (NotFoundError for a missing file or shard,
InvalidArgumentError for everything malformed).
"""

import collections
import os

from opkit import _opkit
from opkit import dtypes as _dtypes

TensorInfo = collections.namedtuple("TensorInfo", ["key", "name", "dtype", "shape"])
TensorInfo.__doc__ = """One signature entry: `key` the signature's name for it,
`name` the graph tensor ("x:0"), `dtype` a numpy dtype (None when the model
does not say or numpy has none), `shape` a tuple with None for unknown
dimensions (None for an unknown rank)."""


def _tensor_info(d):
    dtype = None
    if d["dtype"] > 0:
        try:
            dtype = _dtypes.to_numpy(d["dtype"])
        except TypeError:
            dtype = None
    shape = None
    if d["shape"] is not None:
        shape = tuple(None if n < 0 else n for n in d["shape"])
    return TensorInfo(d["key"], d["name"], dtype, shape)


class LoadedGraph:
    """A graph read by load_graph. opkit.Session accepts it (it has
    SerializeToString(), as a GraphDef message has). Named Graph before
    opkit.Graph became the class that builds graphs from Python; the old
    name opkit.graph.Graph still refers to it."""

    def __init__(self, graph_def_bytes, info):
        self._bytes = graph_def_bytes
        self.inputs = [_tensor_info(d) for d in info["inputs"]]
        self.outputs = [_tensor_info(d) for d in info["outputs"]]
        self.format = info["format"]
        self.generated_by = info["generated_by"]
        self.converted_by = info["converted_by"]

    @property
    def input_names(self):
        """The signature's input tensor names, in the model's order."""
        return [t.name for t in self.inputs]

    @property
    def output_names(self):
        """The signature's output tensor names, in the model's order."""
        return [t.name for t in self.outputs]

    def SerializeToString(self):  # noqa: N802 (protobuf's name)
        """The binary GraphDef."""
        return self._bytes

    def __repr__(self):
        return (f"<opkit.LoadedGraph {len(self._bytes)} bytes, inputs={self.input_names}, "
                f"outputs={self.output_names}>")


# The old name of LoadedGraph.
Graph = LoadedGraph


def load_graph(path):
    """Reads the graph file `path` (see the module docstring) into a
    LoadedGraph."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"load_graph(path): expected a path, got {type(path).__name__}")
    data, info = _opkit._read_graph_file(os.fspath(path))
    return LoadedGraph(data, info)
