"""opkit.gradients in graph mode: results against finite differences, and
TensorFlow's rules (paths summed, stop_gradient, unconnected xs, grad_ys,
NotDifferentiable, a missing gradient's message)."""

import itertools

import numpy as np
import pytest

import opkit

RNG = np.random.default_rng(7)


def graph_gradient_check(f, values, delta=1e-2, rtol=2e-2, atol=2e-3):
    """Builds f on placeholders, differentiates sum(f(xs) * r) for a random r
    with opkit.gradients and compares with central differences of the same
    sum run in a Session."""
    g = opkit.Graph()
    with g.as_default():
        xs = [opkit.placeholder(opkit.as_dtype(v.dtype), v.shape) for v in values]
        y = f(*xs)
        r = RNG.uniform(0.5, 1.5, y.shape.as_list()).astype(np.float32)
        loss = opkit.reduce_sum(y * r)
        grads = opkit.gradients(loss, xs)
        for gr in grads:
            assert gr.name.startswith("gradients/"), gr.name
    with opkit.Session(graph=g) as sess:
        feed = dict(zip(xs, values))
        theoretical = sess.run(grads, feed)
        for x, v, th in zip(xs, values, theoretical):
            numeric = np.zeros(v.size)
            for i in range(v.size):
                pos, neg = v.copy(), v.copy()
                pos.reshape(-1)[i] += delta
                neg.reshape(-1)[i] -= delta
                hi = sess.run(loss, {**feed, x: pos})
                lo = sess.run(loss, {**feed, x: neg})
                numeric[i] = (float(hi) - float(lo)) / (2 * delta)
            assert th.shape == v.shape
            np.testing.assert_allclose(th.reshape(-1), numeric, rtol=rtol, atol=atol)
    return theoretical


def randf(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def test_square():
    x = np.float32([1.5, -2.0, 3.0])
    (dx,) = graph_gradient_check(lambda a: a * a, [x])
    # d/dx sum(x*x*r) = 2 x r: checked numerically; the exact value:
    g = opkit.Graph()
    with g.as_default():
        p = opkit.placeholder(opkit.float32, [3])
        (d,) = opkit.gradients(p * p, [p])
    with opkit.Session(graph=g) as s:
        np.testing.assert_allclose(s.run(d, {p: x}), 2 * x)


@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_matmul_with_transposes(ta, tb):
    a = randf(3, 2) if ta else randf(2, 3)
    b = randf(4, 3) if tb else randf(3, 4)
    graph_gradient_check(
        lambda x, y: opkit.matmul(x, y, transpose_a=ta, transpose_b=tb), [a, b])


@pytest.mark.parametrize("sa,sb", [((2, 3), (3,)), ((2, 1), (1, 3)), ((4, 3), ())])
def test_broadcasting_add_and_mul(sa, sb):
    graph_gradient_check(lambda x, y: x + y, [randf(*sa), randf(*sb)])
    graph_gradient_check(lambda x, y: x * y, [randf(*sa), randf(*sb)])


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), (0, True), ([0, 2], False)])
def test_reductions(axis, keepdims):
    x = randf(2, 3, 4)
    graph_gradient_check(lambda a: opkit.reduce_sum(a, axis=axis, keepdims=keepdims), [x])
    graph_gradient_check(lambda a: opkit.reduce_mean(a, axis=axis, keepdims=keepdims), [x])


def test_relu():
    x = np.float32([[-1.0, 0.5, 2.0], [0.3, -0.2, 1.0]])
    graph_gradient_check(opkit.nn.relu, [x])


def test_softmax_and_cross_entropy():
    logits = randf(4, 5)
    labels = np.int32([0, 3, 4, 1])
    graph_gradient_check(opkit.nn.softmax, [logits])
    graph_gradient_check(
        lambda z: opkit.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=z),
        [logits])
    onehot = np.eye(5, dtype=np.float32)[labels]
    graph_gradient_check(
        lambda z: opkit.ops.softmax_cross_entropy_with_logits(z, onehot)[0], [logits])


@pytest.mark.parametrize("padding,strides", [("SAME", 1), ("VALID", 2)])
def test_conv2d(padding, strides):
    graph_gradient_check(
        lambda x, w: opkit.nn.conv2d(x, w, strides=strides, padding=padding),
        [randf(1, 5, 5, 2), randf(3, 3, 2, 3)], rtol=3e-2, atol=5e-3)


def test_paths_are_summed_with_add_n():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [2])
        y = x * x + x * 3.0          # dy/dx = 2x + 3 over two paths
        (dx,) = opkit.gradients(y, [x])
        assert any(op.type == "AddN" for op in g.get_operations()
                   if op.name.startswith("gradients/"))
    with opkit.Session(graph=g) as s:
        np.testing.assert_allclose(s.run(dx, {x: [1, 2]}), [5, 7])


def test_stop_gradient_and_stop_gradients():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [])
        y = opkit.stop_gradient(x * x) + x * 2.0
        (dx,) = opkit.gradients(y, [x])
        a = x * 3.0
        b = a * x                      # db/dx = 3x + x*3 ...
        (db_stopped,) = opkit.gradients(b, [x], stop_gradients=[a])   # ... = a
    with opkit.Session(graph=g) as s:
        assert s.run(dx, {x: 5.0}) == pytest.approx(2.0)
        assert s.run(db_stopped, {x: 5.0}) == pytest.approx(15.0)


def test_unconnected_xs_give_none_or_zeros():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [2])
        z = opkit.placeholder(opkit.float32, [3])
        y = x * 2.0
        assert opkit.gradients(y, [x, z])[1] is None
        dz = opkit.gradients(y, [z], unconnected_gradients=opkit.UnconnectedGradients.ZERO)[0]
        dz2 = opkit.gradients(y, [z], unconnected_gradients="zero")[0]
        with pytest.raises(ValueError, match="unconnected_gradients"):
            opkit.gradients(y, [z], unconnected_gradients="sometimes")
    with opkit.Session(graph=g) as s:
        np.testing.assert_array_equal(s.run(dz, {z: [1, 2, 3]}), [0, 0, 0])
        np.testing.assert_array_equal(s.run(dz2, {z: [1, 2, 3]}), [0, 0, 0])


def test_grad_ys():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [2])
        y = x * x
        (dx,) = opkit.gradients([y], [x], grad_ys=[np.float32([10, 100])])
        gy = opkit.placeholder(opkit.float32, [2])
        (dx2,) = opkit.gradients(y, x, grad_ys=gy)
        with pytest.raises(ValueError, match="grad_ys"):
            opkit.gradients(y, x, grad_ys=[gy, gy])
    with opkit.Session(graph=g) as s:
        np.testing.assert_allclose(s.run(dx, {x: [1, 2]}), [20, 400])
        np.testing.assert_allclose(s.run(dx2, {x: [1, 2], gy: [1, -1]}), [2, -4])


def test_variables_are_differentiated_through_their_reads():
    g = opkit.Graph()
    with g.as_default():
        w = opkit.Variable(np.float32([[1, 2], [3, 4]]), name="w")
        x = opkit.constant(np.float32([[1, 1]]))
        loss = opkit.reduce_sum(opkit.matmul(x, w) * opkit.matmul(x, w.read_value()))
        (dw,) = opkit.gradients(loss, [w])
        init = opkit.global_variables_initializer()
    with opkit.Session(graph=g) as s:
        s.run(init)
        # loss = sum((x w)^2), x w = [4, 6]: dw = 2 x^T (x w)
        np.testing.assert_allclose(s.run(dw), [[8, 12], [8, 12]])


def test_not_differentiable_op_passes_nothing_back(zero_out):
    if "ZeroOutTemplated" not in opkit.gradient_registry._REGISTRY:
        opkit.NotDifferentiable("ZeroOutTemplated")
    with pytest.raises(KeyError, match="ZeroOutTemplated"):
        opkit.no_gradient("ZeroOutTemplated")
    with pytest.raises(TypeError):
        opkit.NotDifferentiable(42)
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [3])
        y = zero_out.zero_out_templated(x) + x
        dx, = opkit.gradients(y, [x])
        assert opkit.gradients(zero_out.zero_out_templated(x), [x]) == [None]
    with opkit.Session(graph=g) as s:
        np.testing.assert_array_equal(s.run(dx, {x: [1, 2, 3]}), [1, 1, 1])


def test_missing_gradient_names_the_op(zero_out):
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [3])
        y = zero_out.zero_out_macro(x, name="zm")
        with pytest.raises(LookupError, match=r"No gradient defined for operation "
                           r"'zm' \(op type: ZeroOutMacro\)"):
            opkit.gradients(y * 2.0, [x])


def test_python_gradient_overrides_nothing_built_in():
    with pytest.raises(KeyError, match="Registering two gradient with name 'Relu'"):
        opkit.RegisterGradient("Relu")(lambda op, grad: grad)
    with pytest.raises(KeyError, match="Shape"):
        opkit.NotDifferentiable("Shape")
    assert opkit.python.framework.ops.RegisterGradient is opkit.RegisterGradient
    assert opkit.python.framework.ops.NotDifferentiable is opkit.NotDifferentiable


def test_gradient_function_with_wrong_arity_is_an_error(zero_out):
    @opkit.RegisterGradient("ZeroOutMacro")
    def _bad(op, grad):
        return [grad, grad]
    try:
        g = opkit.Graph()
        with g.as_default():
            x = opkit.placeholder(opkit.float32, [3])
            y = zero_out.zero_out_macro(x, name="zm")
            with pytest.raises(ValueError, match=r"Num gradients 2 generated for "
                               r"op zm \(op type: ZeroOutMacro\) do not match num inputs 1"):
                opkit.gradients(y, [x])
        x = opkit.constant([1.0, 2.0])
        with opkit.GradientTape() as tape:
            tape.watch(x)
            y = zero_out.zero_out_macro(x)
        with pytest.raises(ValueError, match="Num gradients 2"):
            tape.gradient(y, x)
    finally:
        opkit.gradient_registry._unregister("ZeroOutMacro")


def test_integer_tensors_carry_no_gradient():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.int32, [3])
        f = opkit.placeholder(opkit.float32, [3])
        y = opkit.cast(x * 2, opkit.float32) * f
        assert opkit.gradients(y, [x, f])[0] is None


def test_gradient_graph_is_cached_per_op_signature():
    opkit.gradient_registry._CACHE.clear()
    g = opkit.Graph()
    with g.as_default():
        a = opkit.placeholder(opkit.float32, [2, 3])
        b = opkit.placeholder(opkit.float32, [3, 4])
        for _ in range(3):
            opkit.gradients(opkit.matmul(a, b), [a, b])
    keys = [k for k in opkit.gradient_registry._CACHE if k[0] == "MatMul"]
    assert len(keys) == 1


def test_gradients_is_for_graphs():
    with pytest.raises(RuntimeError, match="GradientTape"):
        opkit.gradients(opkit.constant(1.0), [opkit.constant(2.0)])


def test_second_derivative_in_graph_mode():
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [])
        y = x * x * x
        (dx,) = opkit.gradients(y, [x])
        (ddx,) = opkit.gradients(dx, [x])
    with opkit.Session(graph=g) as s:
        assert s.run([dx, ddx], {x: 2.0}) == [pytest.approx(12.0), pytest.approx(12.0)]


def test_bad_arguments_are_python_errors():
    with pytest.raises(TypeError, match="decorates a function"):
        opkit.RegisterGradient("SomeOp")(42)
    with pytest.raises(TypeError, match="op_type must be a string"):
        opkit.RegisterGradient(None)
    g1, g2 = opkit.Graph(), opkit.Graph()
    with g1.as_default():
        x1 = opkit.placeholder(opkit.float32, [])
        y1 = x1 * 2.0
    with g2.as_default():
        x2 = opkit.placeholder(opkit.float32, [])
    with pytest.raises(ValueError, match="not an element of this graph"):
        opkit.gradients(y1, [x2])
    with pytest.raises(TypeError, match="Tensors or Variables"):
        opkit.gradients(y1, ["x"])


def test_gradient_plumbing_in_graph_mode():
    # The same ops as test_gradient_tape.py's plumbing cases, built in a graph.
    from test_gradient_tape import PLUMBING  # noqa: PLC0415
    for name, (fn, shapes) in sorted(PLUMBING.items()):
        graph_gradient_check(fn, [randf(*s) for s in shapes], rtol=3e-2, atol=5e-3)
