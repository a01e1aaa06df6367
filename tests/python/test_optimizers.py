"""opkit.optimizers (SGD, Adam) and TensorFlow 1's optimizers in opkit.train:
their updates against the formulas in numpy, eagerly and in a graph."""

import numpy as np
import pytest

import opkit


def randf(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def sgd_reference(w, grads, lr, momentum=0.0, nesterov=False):
    w = w.astype(np.float64)
    velocity = np.zeros_like(w)
    for g in grads:
        if momentum == 0:
            w = w - lr * g
            continue
        velocity = momentum * velocity - lr * g
        w = w + (momentum * velocity - lr * g if nesterov else velocity)
    return w


def adam_reference(w, grads, lr=0.001, b1=0.9, b2=0.999, eps=1e-7):
    w = w.astype(np.float64)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        w = w - lr_t * m / (np.sqrt(v) + eps)
    return w


GRADS = [randf(3, 2, seed=s) for s in (1, 2, 3)]


@pytest.mark.parametrize("momentum,nesterov", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd_eager(momentum, nesterov):
    w0 = randf(3, 2)
    v = opkit.Variable(w0)
    opt = opkit.optimizers.SGD(learning_rate=0.1, momentum=momentum, nesterov=nesterov)
    for g in GRADS:
        opt.apply_gradients([(g, v)])
    np.testing.assert_allclose(v.numpy(), sgd_reference(w0, GRADS, 0.1, momentum, nesterov),
                               rtol=1e-5, atol=1e-6)
    assert int(opt.iterations.numpy()) == len(GRADS)
    if momentum:
        assert opt.get_slot(v, "momentum").shape == v.shape
    else:
        with pytest.raises(KeyError, match="no slot"):
            opt.get_slot(v, "momentum")


def test_adam_eager_float32_and_float64():
    for dtype in (np.float32, np.float64):
        w0 = randf(3, 2).astype(dtype)
        v = opkit.Variable(w0)
        opt = opkit.optimizers.Adam(learning_rate=0.01)
        for g in GRADS:
            opt.apply_gradients([(g.astype(dtype), v)])
        assert v.numpy().dtype == dtype
        np.testing.assert_allclose(v.numpy(), adam_reference(w0, GRADS, lr=0.01),
                                   rtol=1e-5, atol=1e-6)
        assert opt.get_slot(v, "m").numpy().any()


def test_a_value_read_before_an_update_keeps_it():
    v = opkit.Variable(np.float32([1.0, 2.0]))
    before = v.numpy()
    opkit.optimizers.SGD(1.0).apply_gradients([(np.float32([1.0, 1.0]), v)])
    np.testing.assert_array_equal(before, [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0])


def test_minimize_with_a_callable_loss_trains():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = x @ np.float32([[1.0], [-2.0], [0.5]]) + np.float32(0.25)
    w = opkit.Variable(np.zeros((3, 1), np.float32))
    b = opkit.Variable(np.zeros(1, np.float32))
    opt = opkit.optimizers.Adam(learning_rate=0.1)

    def loss():
        d = opkit.matmul(x, w) + b - y
        return opkit.reduce_mean(d * d)
    for _ in range(300):
        opt.minimize(loss, var_list=[w, b])
    np.testing.assert_allclose(w.numpy().ravel(), [1.0, -2.0, 0.5], atol=1e-2)
    np.testing.assert_allclose(b.numpy(), [0.25], atol=1e-2)


def test_graph_mode_matches_eager():
    w0 = randf(3, 2)
    x_value = randf(4, 3, seed=7)
    graph = opkit.Graph()
    with graph.as_default():
        x = opkit.placeholder(opkit.float32, [None, 3])
        w = opkit.Variable(w0)
        loss = opkit.reduce_sum(opkit.matmul(x, w) ** 2.0)
        opt = opkit.optimizers.SGD(0.01, momentum=0.5)
        train_op = opt.minimize(loss, var_list=[w])
        init = opkit.global_variables_initializer()
    with opkit.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(train_op, feed_dict={x: x_value})
        graph_w = sess.run(w)
        steps = sess.run(opt._iterations[graph])
    ew = opkit.Variable(w0)
    eopt = opkit.optimizers.SGD(0.01, momentum=0.5)
    for _ in range(3):
        eopt.minimize(lambda: opkit.reduce_sum(opkit.matmul(x_value, ew) ** 2.0),
                      var_list=[ew])
    np.testing.assert_allclose(graph_w, ew.numpy(), rtol=1e-5)
    assert steps == 3


def test_tf1_optimizers_in_a_graph_with_a_global_step():
    w0 = randf(2, 2)
    for cls, kwargs in [(opkit.train.GradientDescentOptimizer, {}),
                        (opkit.train.MomentumOptimizer, {"momentum": 0.9}),
                        (opkit.train.AdamOptimizer, {})]:
        graph = opkit.Graph()
        with graph.as_default():
            w = opkit.Variable(w0, name="w")
            step = opkit.Variable(np.int64(0), trainable=False, name="global_step")
            loss = opkit.reduce_sum(w * w)
            train_op = cls(learning_rate=0.1, **kwargs).minimize(loss, global_step=step)
            init = opkit.global_variables_initializer()
        with opkit.Session(graph=graph) as sess:
            sess.run(init)
            for _ in range(2):
                sess.run(train_op)
            got, count = sess.run([w, step])
        assert count == 2
        want = w0.astype(np.float64)
        accum = np.zeros_like(want)
        m = np.zeros_like(want)
        v = np.zeros_like(want)
        for t in (1, 2):
            g = 2 * want
            if cls is opkit.train.GradientDescentOptimizer:
                want = want - 0.1 * g
            elif cls is opkit.train.MomentumOptimizer:
                accum = 0.9 * accum + g
                want = want - 0.1 * accum
            else:
                lr_t = 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
                m = m + (g - m) * 0.1
                v = v + (g * g - v) * 0.001
                want = want - lr_t * m / (np.sqrt(v) + 1e-8)
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=cls.__name__)


def test_bad_use_says_what_is_wrong():
    v = opkit.Variable(np.float32([1.0]))
    opt = opkit.optimizers.SGD(0.1)
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, v)])
    with pytest.raises(TypeError, match="Variable"):
        opt.apply_gradients([(np.float32([1.0]), np.float32([1.0]))])
    with pytest.raises(opkit.errors.InvalidArgumentError, match="same shape"):
        opt.apply_gradients([(np.float32([1.0, 2.0]), v)])
    with pytest.raises(ValueError, match="momentum"):
        opkit.optimizers.SGD(0.1, momentum=1.5)
    with pytest.raises(KeyError, match="slots are"):
        opt.get_slot(v, "velocity")
    np.testing.assert_array_equal(v.numpy(), [1.0])
