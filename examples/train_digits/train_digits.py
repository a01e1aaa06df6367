"""Trains two small networks on scikit-learn's 8x8 handwritten digits
(python3-sklearn ships the data; nothing is downloaded) with opkit ops only:

- an MLP 64-128-10 in graph mode: opkit.gradients builds the backward pass
  once, plain SGD updates are assign_sub nodes, one Session.run per batch;
- a small conv net (3x3 conv, ReLU, 2x2 max pool, dense) eagerly under an
  opkit.GradientTape, with Adam written with opkit ops.

Each prints one line per epoch (mean training loss, held-out accuracy) and
its final held-out accuracy. Run with PYTHONPATH pointing at opkit's build:

    PYTHONPATH=build/default/python /usr/bin/python3 examples/train_digits/train_digits.py
    ... train_digits.py --epochs 3 --quiet     # what the test runs

The figures are reproducible: weights and the data split come from fixed
seeds.
"""

import argparse
import sys
import time

import numpy as np

import opkit


def load_digits(seed=0, held_out=360):
    """(x_train, y_train, x_test, y_test): 8x8 images scaled to [0, 1] as
    [N, 64] float32, labels int32; the last `held_out` of a fixed
    permutation are held out."""
    from sklearn.datasets import load_digits as sklearn_digits
    digits = sklearn_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    return x[:-held_out], y[:-held_out], x[-held_out:], y[-held_out:]


def batches(n, batch_size, rng):
    order = rng.permutation(n)
    for start in range(0, n, batch_size):
        yield order[start:start + batch_size]


def he(rng, shape, fan_in):
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def accuracy(logits, labels):
    return float(np.mean(np.argmax(np.asarray(logits), axis=1) == labels))


def train_mlp_graph(data, epochs, log, hidden=128, batch_size=32, learning_rate=0.1):
    """The MLP in graph mode with SGD. Returns the held-out accuracy."""
    x_train, y_train, x_test, y_test = data
    rng = np.random.default_rng(1)
    graph = opkit.Graph()
    with graph.as_default():
        x = opkit.placeholder(opkit.float32, [None, 64], name="x")
        y = opkit.placeholder(opkit.int32, [None], name="y")
        w1 = opkit.Variable(he(rng, (64, hidden), 64), name="w1")
        b1 = opkit.Variable(np.zeros(hidden, np.float32), name="b1")
        w2 = opkit.Variable(he(rng, (hidden, 10), hidden), name="w2")
        b2 = opkit.Variable(np.zeros(10, np.float32), name="b2")
        params = [w1, b1, w2, b2]
        h = opkit.nn.relu(opkit.matmul(x, w1) + b1)
        logits = opkit.matmul(h, w2) + b2
        loss = opkit.reduce_mean(
            opkit.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = opkit.gradients(loss, params)
        train = [p.assign_sub(learning_rate * g) for p, g in zip(params, grads)]
        init = opkit.global_variables_initializer()
    with opkit.Session(graph=graph) as session:
        session.run(init)
        order_rng = np.random.default_rng(2)
        for epoch in range(epochs):
            losses = []
            for idx in batches(len(x_train), batch_size, order_rng):
                out = session.run([loss] + train, feed_dict={x: x_train[idx], y: y_train[idx]})
                losses.append(out[0])
            held_out = accuracy(session.run(logits, feed_dict={x: x_test}), y_test)
            log(f"  mlp (graph, SGD)  epoch {epoch + 1:2d}/{epochs}: "
                f"loss {np.mean(losses):.4f}  held-out accuracy {held_out:.1%}")
    return held_out


def conv_logits(images, params):
    conv_w, conv_b, dense_w, dense_b = params
    h = opkit.nn.relu(opkit.nn.bias_add(
        opkit.nn.conv2d(images, conv_w, strides=1, padding="SAME"), conv_b))
    h = opkit.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
    h = opkit.reshape(h, [-1, 4 * 4 * 16])
    return opkit.matmul(h, dense_w) + dense_b


class Adam:
    """Adam (Kingma and Ba, 2015) on opkit Variables, with opkit ops."""

    def __init__(self, params, learning_rate=0.01, beta1=0.9, beta2=0.999, epsilon=1e-7):
        self.params = params
        self.lr, self.b1, self.b2, self.eps = learning_rate, beta1, beta2, epsilon
        self.m = [opkit.Variable(np.zeros_like(p.numpy()), trainable=False) for p in params]
        self.v = [opkit.Variable(np.zeros_like(p.numpy()), trainable=False) for p in params]
        self.t = 0

    def apply(self, grads):
        self.t += 1
        lr = self.lr * np.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m.assign(self.b1 * m + (1 - self.b1) * g)
            v.assign(self.b2 * v + (1 - self.b2) * opkit.square(g))
            p.assign_sub(lr * m / (opkit.sqrt(v) + self.eps))


def train_conv_tape(data, epochs, log, batch_size=32):
    """The conv net eagerly under a GradientTape, with Adam. Returns the
    held-out accuracy."""
    x_train, y_train, x_test, y_test = data
    rng = np.random.default_rng(3)
    params = [opkit.Variable(he(rng, (3, 3, 1, 16), 9)),
              opkit.Variable(np.zeros(16, np.float32)),
              opkit.Variable(he(rng, (256, 10), 256)),
              opkit.Variable(np.zeros(10, np.float32))]
    optimizer = Adam(params)
    train_images = x_train.reshape(-1, 8, 8, 1)
    test_images = x_test.reshape(-1, 8, 8, 1)
    order_rng = np.random.default_rng(4)
    for epoch in range(epochs):
        losses = []
        for idx in batches(len(train_images), batch_size, order_rng):
            with opkit.GradientTape() as tape:
                loss = opkit.reduce_mean(opkit.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=y_train[idx], logits=conv_logits(train_images[idx], params)))
            optimizer.apply(tape.gradient(loss, params))
            losses.append(float(loss))
        held_out = accuracy(conv_logits(test_images, params), y_test)
        log(f"  conv net (tape, Adam) epoch {epoch + 1:2d}/{epochs}: "
            f"loss {np.mean(losses):.4f}  held-out accuracy {held_out:.1%}")
    return held_out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--quiet", action="store_true", help="print only the results")
    args = parser.parse_args(argv)
    log = (lambda _: None) if args.quiet else (lambda line: print(line, flush=True))
    data = load_digits()
    print(f"digits: {len(data[0])} training and {len(data[2])} held-out 8x8 images")
    start = time.perf_counter()
    mlp = train_mlp_graph(data, args.epochs, log)
    print(f"mlp (graph mode, SGD): held-out accuracy {mlp:.1%} "
          f"({time.perf_counter() - start:.1f} s)")
    start = time.perf_counter()
    conv = train_conv_tape(data, args.epochs, log)
    print(f"conv net (GradientTape, Adam): held-out accuracy {conv:.1%} "
          f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
