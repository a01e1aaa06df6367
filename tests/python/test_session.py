"""opkit.Session running GraphDefs (text, binary, path) with ZeroOut."""

import numpy as np
import pytest

import opkit
from opkit import errors

ZERO_OUT_GRAPH = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "z" op: "ZeroOut" input: "x" }
node { name: "y" op: "AddV2" input: "z" input: "x"
       attr { key: "T" value { type: DT_INT32 } } }
"""

ADD_GRAPH = """
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "sum" op: "AddV2" input: "a" input: "b"
       attr { key: "T" value { type: DT_FLOAT } } }
"""


def test_session_runs_zero_out(zero_out):
    with opkit.Session(ZERO_OUT_GRAPH) as s:
        out = s.run("z", {"x": [[1, 2], [3, 4]]})
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, [[1, 0], [0, 0]])
        z, y = s.run(["z:0", "y"], feed_dict={"x:0": np.int32([5, 6])})
        np.testing.assert_array_equal(z, [5, 0])
        np.testing.assert_array_equal(y, [10, 6])


def test_session_from_bytes_and_path(zero_out, tmp_path):
    p = tmp_path / "graph.pbtxt"
    p.write_text(ADD_GRAPH)
    for g in (ADD_GRAPH.encode(), str(p), p):
        with opkit.Session(g) as s:
            out = s.run("sum", {"a": [1, 2], "b": np.float32([3, 4])})
            assert out.dtype == np.float32   # feeds follow the placeholder dtype
            np.testing.assert_array_equal(out, [4, 6])


def test_session_from_message_like_object():
    class Message:
        def SerializeToString(self):
            return ADD_GRAPH.encode()
    with opkit.Session(Message()) as s:
        assert s.run(["sum"], {"a": 1.0, "b": 2.0})[0] == 3.0


def test_session_errors():
    with pytest.raises(errors.InvalidArgumentError):
        opkit.Session("node { this is not a graph")
    with pytest.raises(TypeError):
        opkit.Session(12)
    s = opkit.Session(ADD_GRAPH)
    with pytest.raises(errors.InvalidArgumentError):
        s.run("nosuchnode", {"a": [1.0], "b": [2.0]})
    with pytest.raises(TypeError):
        s.run(3)
    with pytest.raises(ValueError, match="feed 'a'.*ragged"):
        s.run("sum", {"a": [[1.0], [2.0, 3.0]], "b": [1.0]})
    with pytest.raises(TypeError, match="feed"):
        s.run("sum", {1: [1.0], "b": [1.0]})
    s.close()
    s.close()
    with pytest.raises(errors.FailedPreconditionError):
        s.run("sum", {"a": [1.0], "b": [2.0]})


def test_session_with_unknown_op_fails():
    g = 'node { name: "q" op: "NoSuchOpHere" }'
    with pytest.raises(errors.OpError):
        opkit.Session(g)


def test_session_config_sets_thread_counts():
    # tf.compat.v1.Session(config=ConfigProto(...)): the counts are checked
    # and the session runs with them; 0 keeps opkit.config.threading's.
    config = opkit.ConfigProto(intra_op_parallelism_threads=2,
                               inter_op_parallelism_threads=1)
    assert "intra_op_parallelism_threads=2" in repr(config)
    with opkit.Session(ADD_GRAPH, config=config) as s:
        assert s.run("sum", {"a": [1.0], "b": [2.0]})[0] == 3.0
    with opkit.Session(ADD_GRAPH, config=opkit.ConfigProto()) as s:
        assert s.run("sum", {"a": [1.0], "b": [2.0]})[0] == 3.0
    with pytest.raises(ValueError, match="intra_op_parallelism_threads must be an int >= 0"):
        opkit.ConfigProto(intra_op_parallelism_threads=-1)
    with pytest.raises(ValueError, match="inter_op_parallelism_threads"):
        opkit.ConfigProto(inter_op_parallelism_threads=1.5)
    with pytest.raises(TypeError, match="expected an opkit.ConfigProto"):
        opkit.Session(ADD_GRAPH, config={"intra_op_parallelism_threads": 2})
