"""A small MLP trained with opkit's gradients lowers its loss, in graph
mode (opkit.gradients, Session) and eagerly (GradientTape), the same
network from the same start."""

import numpy as np

import opkit


def data():
    rng = np.random.default_rng(3)
    centers = np.float32([[2, 0], [-2, 0], [0, 2.5]])
    labels = rng.integers(0, 3, 96).astype(np.int32)
    x = centers[labels] + rng.normal(0, 0.7, (96, 2)).astype(np.float32)
    return x, labels


def initial_weights():
    rng = np.random.default_rng(5)
    return [rng.normal(0, 0.5, (2, 16)).astype(np.float32), np.zeros(16, np.float32),
            rng.normal(0, 0.5, (16, 3)).astype(np.float32), np.zeros(3, np.float32)]


def mlp_loss(x, labels, w1, b1, w2, b2):
    hidden = opkit.nn.relu(opkit.matmul(x, w1) + b1)
    logits = opkit.matmul(hidden, w2) + b2
    return opkit.reduce_mean(opkit.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))


STEPS, LR = 30, 0.5


def train_in_graph_mode():
    x_value, y_value = data()
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [None, 2])
        y = opkit.placeholder(opkit.int32, [None])
        params = [opkit.Variable(w) for w in initial_weights()]
        loss = mlp_loss(x, y, *params)
        grads = opkit.gradients(loss, params)
        assert all(gr is not None for gr in grads)
        train = opkit.group(*[p.assign_sub(gr * LR) for p, gr in zip(params, grads)])
        init = opkit.global_variables_initializer()
    losses = []
    with opkit.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(STEPS):
            losses.append(float(sess.run(loss, {x: x_value, y: y_value})))
            sess.run(train, {x: x_value, y: y_value})
    return losses


def test_mlp_trains_in_graph_mode():
    losses = train_in_graph_mode()
    assert losses[-1] < 0.5 * losses[0], losses


def test_mlp_trains_on_the_tape():
    x_value, y_value = data()
    params = [opkit.Variable(w) for w in initial_weights()]
    losses = []
    for _ in range(STEPS):
        with opkit.GradientTape() as tape:
            loss = mlp_loss(x_value, y_value, *params)
        grads = tape.gradient(loss, params)
        for p, gr in zip(params, grads):
            p.assign_sub(gr * LR)
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0], losses
    # The same network and start: the two modes agree step by step.
    np.testing.assert_allclose(losses, train_in_graph_mode(), rtol=1e-3)
