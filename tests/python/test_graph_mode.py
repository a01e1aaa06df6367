"""Graphs built from Python: opkit.Graph, Operation, Tensor, the op
functions in graph mode, Session.run of the graph and its export."""

import threading

import numpy as np
import pytest

import opkit


def test_op_functions_build_nodes_inside_a_graph_and_run_eagerly_outside():
    g = opkit.Graph()
    with g.as_default():
        assert opkit.get_default_graph() is g
        assert not opkit.executing_eagerly()
        x = opkit.placeholder(opkit.float32, shape=[None, 3], name="x")
        y = opkit.ops.relu(x)
    assert opkit.get_default_graph() is None
    assert isinstance(y, opkit.Tensor)
    assert y.op.type == "Relu" and y.name == "Relu:0"
    assert y.op.inputs[0] is x and y.op.outputs[0] is y
    assert y.dtype is opkit.float32
    assert y.shape == [None, 3] and y.shape.as_list() == [None, 3]
    assert y.graph is g and x.op.graph is g
    assert [op.name for op in g.get_operations()] == ["x", "Relu"]
    # Eager again: numpy in, numpy out.
    out = opkit.ops.relu(np.float32([-1, 2]))
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, [0, 2])


def test_session_runs_a_python_graph():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, shape=[2], name="x")
        y = opkit.ops.add_v2(x, [10.0, 20.0])
        z = opkit.ops.mul(y, 2.0, name="z")
    with opkit.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(z, {x: [1, 2]}), [22, 44])
        a, b = sess.run([y, "z:0"], feed_dict={"x": np.float32([0, 0])})
        np.testing.assert_allclose(a, [10, 20])
        np.testing.assert_allclose(b, [20, 40])
        d = sess.run({"y": y, "both": (y, z)}, {x: [1, 1]})
        np.testing.assert_allclose(d["y"], [11, 21])
        assert isinstance(d["both"], tuple)


def test_python_values_become_const_nodes_of_the_right_dtype():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.int64, shape=[], name="x")
        y = opkit.ops.add_v2(x, 5)
    const = y.op.inputs[1].op
    assert const.type == "Const"
    assert const.get_attr("dtype") is opkit.int64
    assert y.dtype is opkit.int64
    with opkit.Session(graph=g) as sess:
        assert sess.run(y, {x: 1}) == 6


def test_operation_attrs_and_node_def():
    g = opkit.Graph()
    with g.as_default():
        a = opkit.constant([[1.0, 2.0]], name="a")
        b = opkit.constant([[3.0], [4.0]], name="b")
        m = opkit.ops.mat_mul(a, b, transpose_a=False, name="m")
    op = m.op
    assert op.get_attr("T") is opkit.float32
    assert op.get_attr("transpose_a") is False
    assert op.get_attr("transpose_b") is False    # the OpDef's default
    with pytest.raises(ValueError, match="no attr named"):
        op.get_attr("nope")
    assert op.node_def.name == "m" and op.node_def.op == "MatMul"
    assert op.node_def.input == ["a:0", "b:0"]
    assert m.shape == [1, 1]
    assert g.get_tensor_by_name("m:0") is m
    assert g.get_operation_by_name("a") is a.op
    assert a.consumers() == [op]


def test_names_are_unique_and_name_scopes_prefix_them():
    g = opkit.Graph()
    with g.as_default():
        c1 = opkit.constant(1.0)
        c2 = opkit.constant(2.0)
        with opkit.name_scope("layer"):
            r = opkit.ops.relu(c1)
            with opkit.name_scope("inner") as scope:
                s = opkit.ops.relu(c2, name="act")
        with opkit.name_scope("layer"):
            t = opkit.ops.relu(c1)
    assert (c1.op.name, c2.op.name) == ("Const", "Const_1")
    assert r.op.name == "layer/Relu"
    assert scope == "layer/inner/"
    assert s.op.name == "layer/inner/act"
    assert t.op.name == "layer_1/Relu"


def test_multi_output_ops_return_the_eager_structure():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.constant([[3.0, 1.0, 2.0]])
        res = opkit.ops.top_kv2(x, 2)
    assert type(res).__name__ == "TopKV2"
    values, indices = res
    assert values.dtype is opkit.float32 and indices.dtype is opkit.int32
    assert values.shape == [1, 2]
    with opkit.Session(graph=g) as sess:
        v, i = sess.run([values, indices])
    np.testing.assert_array_equal(v, [[3, 2]])
    np.testing.assert_array_equal(i, [[0, 2]])


def test_list_inputs_set_their_number_attr():
    g = opkit.Graph()
    with g.as_default():
        a = opkit.constant([1.0])
        b = opkit.constant([2.0])
        s = opkit.ops.add_n([a, b, 3.0 * np.ones(1, np.float32)])
    assert s.op.get_attr("N") == 3
    with opkit.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(s), [6.0])


def test_dtype_mismatch_is_a_type_error_at_build_time():
    g = opkit.Graph()
    with g.as_default():
        a = opkit.placeholder(opkit.float32, name="a")
        b = opkit.placeholder(opkit.int32, name="b")
        with pytest.raises((TypeError, opkit.errors.InvalidArgumentError)):
            opkit.ops.add_v2(a, b)
        with pytest.raises(TypeError, match="float"):
            opkit.ops.add_v2(a, "text")


def test_graph_tensor_outside_its_graph_is_refused():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, name="x")
    with pytest.raises(TypeError, match="graph tensor"):
        opkit.ops.relu(x)
    other = opkit.Graph()
    with other.as_default():
        with pytest.raises(ValueError, match="another graph"):
            opkit.ops.relu(x)


def test_shape_inference_uses_constant_values():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, shape=[4, 6])
        r = opkit.reshape(x, [3, -1])
        s = opkit.reduce_sum(x, axis=1)
        k = opkit.reduce_mean(x, axis=[0], keepdims=True)
        u = opkit.placeholder(opkit.float32)
    assert r.shape == [3, 8]
    assert s.shape == [4]
    assert k.shape == [1, 6]
    assert u.shape.rank is None
    assert str(r.shape) == "(3, 8)"


def test_as_graph_def_is_a_graph_def_the_session_and_load_graph_read(tmp_path):
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, shape=[2], name="x")
        opkit.nn.relu(x, name="y")
    gd = g.as_graph_def()
    assert [n.name for n in gd.node] == ["x", "y"]
    path = tmp_path / "relu.pb"
    path.write_bytes(gd.SerializeToString())
    loaded = opkit.load_graph(str(path))
    assert isinstance(loaded, opkit.LoadedGraph)
    with opkit.Session(loaded) as sess:
        np.testing.assert_array_equal(sess.run("y", {"x": [-1, 1]}), [0, 1])


def test_session_sees_nodes_added_later_and_keeps_variables():
    g = opkit.Graph()
    with g.as_default():
        v = opkit.Variable([1.0, 2.0], name="v")
        init = opkit.global_variables_initializer()
    sess = opkit.Session(graph=g)
    sess.run(init)
    with g.as_default():
        bumped = v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(sess.run(bumped), [2, 3])
    with g.as_default():
        doubled = v * 2
    np.testing.assert_array_equal(sess.run(doubled), [4, 6])
    sess.close()


def test_operators_build_ops_in_the_tensors_graph():
    g = opkit.Graph()
    with g.as_default():
        a = opkit.constant([[1.0, 2.0], [3.0, 4.0]])
        b = opkit.constant([[1.0], [1.0]])
    # Outside the context: operators use the tensor's graph.
    exprs = {"add": a + 1, "radd": 1 + a, "sub": a - a, "mul": a * 2,
             "div": a / 2, "rdiv": 2 / a, "neg": -a, "matmul": a @ b,
             "pow": a ** 2, "idx": a[1], "slice": a[:, 1:], "lt": a < 2,
             "np_radd": np.float32(1) + a}
    assert exprs["add"].op.type == "AddV2"
    assert exprs["matmul"].op.type == "MatMul"
    assert exprs["idx"].shape == [2]
    assert exprs["slice"].shape == [2, 1]
    assert isinstance(exprs["np_radd"], opkit.Tensor)
    with opkit.Session(graph=g) as sess:
        out = sess.run(exprs)
    x = np.float32([[1, 2], [3, 4]])
    np.testing.assert_allclose(out["add"], x + 1)
    np.testing.assert_allclose(out["radd"], 1 + x)
    np.testing.assert_allclose(out["sub"], 0 * x)
    np.testing.assert_allclose(out["mul"], x * 2)
    np.testing.assert_allclose(out["div"], x / 2)
    np.testing.assert_allclose(out["rdiv"], 2 / x)
    np.testing.assert_allclose(out["neg"], -x)
    np.testing.assert_allclose(out["matmul"], x @ np.ones((2, 1)))
    np.testing.assert_allclose(out["pow"], x ** 2)
    np.testing.assert_allclose(out["idx"], x[1])
    np.testing.assert_allclose(out["slice"], x[:, 1:])
    np.testing.assert_array_equal(out["lt"], x < 2)
    np.testing.assert_allclose(out["np_radd"], x + 1)
    with pytest.raises(TypeError, match="bool"):
        bool(a)


def test_integer_true_division_is_float64_as_in_tensorflow():
    g = opkit.Graph()
    with g.as_default():
        q = opkit.constant([1, 2]) / 2
    assert q.dtype is opkit.float64
    with opkit.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(q), [0.5, 1.0])


def test_tensorflow_named_functions_in_both_modes():
    x = np.float32([[1, -2], [3, -4]])
    np.testing.assert_allclose(opkit.matmul(x, x), x @ x)
    np.testing.assert_allclose(opkit.reduce_sum(x), x.sum())
    np.testing.assert_allclose(opkit.reduce_mean(x, axis=0), x.mean(axis=0))
    np.testing.assert_allclose(opkit.nn.relu(x), np.maximum(x, 0))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(opkit.nn.softmax(x), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-6)
    c = opkit.constant(3, dtype=opkit.float32, shape=[2])
    assert c.dtype == np.float32
    np.testing.assert_array_equal(c, [3, 3])
    with pytest.raises(RuntimeError, match="eager"):
        opkit.placeholder(opkit.float32)
    images = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    filters = np.ones((2, 2, 1, 1), np.float32)
    eager = opkit.nn.conv2d(images, filters, strides=1, padding="VALID")
    assert eager.shape == (1, 3, 3, 1)
    g = opkit.Graph()
    with g.as_default():
        t = opkit.nn.conv2d(opkit.constant(images), filters, strides=[1, 1],
                            padding="VALID")
        s = opkit.reduce_sum(opkit.matmul(opkit.constant(x), x))
    assert t.shape == [1, 3, 3, 1]
    assert s.shape == []
    with opkit.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(t), eager)
        np.testing.assert_allclose(sess.run(s), (x @ x).sum())


def test_eager_variable():
    v = opkit.Variable([1.0, 2.0])
    assert v.dtype is opkit.float32 and v.shape == [2]
    np.testing.assert_array_equal(v.numpy(), [1, 2])
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    np.testing.assert_array_equal(v.read_value(), [1.5, 2.5])
    v.assign([0.0, 0.0])
    np.testing.assert_array_equal(opkit.ops.add_v2(v, 1.0), [1, 1])
    np.testing.assert_array_equal(v + 1, [1, 1])
    w = opkit.Variable([5.0])    # another variable, not the same one
    np.testing.assert_array_equal(w.numpy(), [5.0])
    np.testing.assert_array_equal(v.numpy(), [0, 0])


def test_graph_variable_and_control_dependencies():
    g = opkit.Graph()
    with g.as_default():
        v = opkit.Variable(np.float32([[1, 2]]), name="weights")
        assert v.handle.op.type == "VarHandleOp"
        assert v.initializer.type == "AssignVariableOp"
        y = opkit.matmul(v, [[1.0], [1.0]])
        step = v.assign(v * 10)
        assert opkit.global_variables() == [v]
    assert y.shape == [1, 1]
    with opkit.Session(graph=g) as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(y), [[3]])
        np.testing.assert_array_equal(sess.run(step), [[10, 20]])
        np.testing.assert_array_equal(sess.run(v), [[10, 20]])


def test_default_graph_is_per_thread():
    g = opkit.Graph()
    seen = {}
    inside = threading.Event()
    done = threading.Event()

    def other_thread():
        try:
            inside.wait(60)
            seen["value"] = opkit.ops.relu(np.float32([-1, 1]))
        finally:
            done.set()

    t = threading.Thread(target=other_thread)
    t.start()
    with g.as_default():
        inside.set()
        assert done.wait(60)
        assert isinstance(opkit.ops.relu(np.float32([1])), opkit.Tensor)
    t.join()
    np.testing.assert_array_equal(seen["value"], [0, 1])


def test_eager_calls_still_take_the_fast_path_after_a_graph_context():
    g = opkit.Graph()
    with g.as_default():
        opkit.constant(1.0)
    x = np.float32([1, 2])
    fn = opkit.ops.add_v2
    before = fn.cache_size()
    np.testing.assert_array_equal(fn(x, x), [2, 4])
    assert fn.cache_size() >= max(before, 1)


def test_finalized_graph_refuses_nodes():
    g = opkit.Graph()
    g.finalize()
    with g.as_default():
        with pytest.raises(RuntimeError, match="finalized"):
            opkit.constant(1.0)


def test_bad_node_name_and_unknown_op_messages():
    g = opkit.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match="not a valid node name"):
            opkit.constant(1.0, name="bad name!")
        with pytest.raises(opkit.errors.NotFoundError):
            g.create_op("NoSuchOpAnywhere", [], {})


def test_old_load_graph_class_name_still_works():
    assert opkit.graph.Graph is opkit.LoadedGraph


def test_tensorflow_module_path_aliases():
    import opkit.python.framework.ops as ops_module
    from opkit.python.platform import test as test_module
    assert ops_module.Graph is opkit.Graph
    assert test_module.TestCase is opkit.test.TestCase
