"""opkit.load_graph on TensorFlow.js graph models written by the test (and
on a GraphDef file), and opkit.Session taking the result or the path."""

import json
import struct

import numpy as np
import pytest

import opkit
from opkit import errors

# x[?, 2] -> MatMul(w) -> Relu = y, w uint8-quantised (TF.js's layout).
W = np.array([[1, -1], [2, 0.5]], dtype=np.float32)
SCALE, MIN = 0.5, -1.0


def _model():
    def const(name, shape):
        return {"name": name, "op": "Const",
                "attr": {"dtype": {"type": "DT_FLOAT"},
                         "value": {"tensor": {"dtype": "DT_FLOAT",
                                              "tensorShape": {"dim": [{"size": str(d)} for d in shape]}}}}}
    nodes = [
        {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}}},
        const("w", [2, 2]),
        {"name": "matmul", "op": "MatMul", "input": ["x", "w"],
         "attr": {"T": {"type": "DT_FLOAT"}}},
        {"name": "y", "op": "Relu", "input": ["matmul"], "attr": {"T": {"type": "DT_FLOAT"}}},
    ]
    return {
        "format": "graph-model",
        "generatedBy": "2.15.0",
        "convertedBy": "test",
        "modelTopology": {"node": nodes, "versions": {"producer": 1482}},
        "signature": {
            "inputs": {"x": {"name": "x:0", "dtype": "DT_FLOAT",
                             "tensorShape": {"dim": [{"size": "-1"}, {"size": "2"}]}}},
            "outputs": {"y": {"name": "y:0", "dtype": "DT_FLOAT"}},
        },
        "weightsManifest": [{
            "paths": ["group1-shard1of1.bin"],
            "weights": [{"name": "w", "shape": [2, 2], "dtype": "float32",
                         "quantization": {"dtype": "uint8", "scale": SCALE, "min": MIN,
                                          "original_dtype": "float32"}}],
        }],
    }


@pytest.fixture
def model_dir(tmp_path):
    (tmp_path / "model.json").write_text(json.dumps(_model()))
    # q = (w - min) / scale = [[4, 0], [6, 3]]
    ((W - MIN) / SCALE).astype("<u1").tofile(tmp_path / "group1-shard1of1.bin")
    return tmp_path


def test_load_graph_reads_signature_and_runs(model_dir):
    g = opkit.load_graph(model_dir)
    assert g.input_names == ["x:0"]
    assert g.output_names == ["y:0"]
    assert g.inputs[0].key == "x"
    assert g.inputs[0].dtype == np.float32
    assert g.inputs[0].shape == (None, 2)
    assert g.outputs[0].shape is None          # the model gives no shape
    assert g.format == "graph-model" and g.generated_by == "2.15.0"
    x = np.array([[1, 2], [3, 4]], dtype=np.float32)
    # numpy: np.maximum(x @ W, 0) = [[5, 0], [11, 0]] (x @ W = [[5, 0], [11, -1]]).
    expected = np.maximum(x @ W, 0)
    with opkit.Session(g) as s:
        np.testing.assert_array_equal(s.run(g.output_names[0], {g.input_names[0]: x}), expected)
    for path in (model_dir, model_dir / "model.json", str(model_dir / "model.json")):
        with opkit.Session(path) as s:
            np.testing.assert_array_equal(s.run("y", {"x": x}), expected)


def test_load_graph_of_a_graphdef_has_no_signature(tmp_path):
    p = tmp_path / "g.pbtxt"
    p.write_text('node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }'
                 ' attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {}'
                 ' int_val: 7 } } } }')
    g = opkit.load_graph(str(p))
    assert g.inputs == [] and g.outputs == []
    with opkit.Session(g) as s:
        assert s.run("c") == 7


def test_load_graph_errors(model_dir):
    (model_dir / "group1-shard1of1.bin").unlink()
    with pytest.raises(errors.NotFoundError, match="group1-shard1of1.bin"):
        opkit.load_graph(model_dir)
    (model_dir / "group1-shard1of1.bin").write_bytes(struct.pack("<3B", 4, 0, 6))
    with pytest.raises(errors.InvalidArgumentError, match="weight 'w'"):
        opkit.load_graph(model_dir / "model.json")
    (model_dir / "model.json").write_text('{"modelTopology": [')
    with pytest.raises(errors.InvalidArgumentError, match="not valid JSON"):
        opkit.load_graph(model_dir)
    with pytest.raises(errors.NotFoundError):
        opkit.load_graph(model_dir / "nothing_here")
    with pytest.raises(TypeError):
        opkit.load_graph(42)
