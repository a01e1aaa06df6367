"""TensorFlow's top-level math and array names (tf.sqrt, tf.reduce_max,
tf.argmax, tf.concat ...) over opkit's ops, eagerly and in a graph, with
TensorFlow's results."""

import numpy as np
import pytest

import opkit

X = np.float32([[1.0, 4.0, 9.0], [16.0, 0.25, 2.0]])
Y = np.float32([[2.0, 1.0, 10.0], [3.0, 1.0, 0.5]])

CASES = [
    ("sqrt", lambda: opkit.sqrt(X), np.sqrt(X)),
    ("rsqrt", lambda: opkit.rsqrt(X), 1 / np.sqrt(X)),
    ("exp", lambda: opkit.exp(X / 10), np.exp(X / 10)),
    ("log", lambda: opkit.log(X), np.log(X)),
    ("abs", lambda: opkit.abs(-X), X),
    ("negative", lambda: opkit.negative(X), -X),
    ("maximum", lambda: opkit.maximum(X, Y), np.maximum(X, Y)),
    ("minimum", lambda: opkit.minimum(X, Y), np.minimum(X, Y)),
    ("pow", lambda: opkit.pow(X, 2.0), X ** 2),
    ("equal", lambda: opkit.equal(X, Y), X == Y),
    ("reduce_max", lambda: opkit.reduce_max(X, axis=1), X.max(axis=1)),
    ("reduce_min", lambda: opkit.reduce_min(X), X.min()),
    ("reduce_max keepdims", lambda: opkit.reduce_max(X, axis=0, keepdims=True),
     X.max(axis=0, keepdims=True)),
    ("argmax", lambda: opkit.argmax(X, axis=1), np.argmax(X, axis=1)),
    ("argmax axis None is 0", lambda: opkit.argmax(X), np.argmax(X, axis=0)),
    ("expand_dims", lambda: opkit.expand_dims(X, 1), X[:, None, :]),
    ("squeeze", lambda: opkit.squeeze(X[:, None, :]), X),
    ("squeeze axis", lambda: opkit.squeeze(X[None, :, :, None], axis=[0]), X[:, :, None]),
    ("concat", lambda: opkit.concat([X, Y], axis=0), np.concatenate([X, Y], 0)),
    ("stack", lambda: opkit.stack([X, Y], axis=1), np.stack([X, Y], 1)),
]


@pytest.mark.parametrize("name,fn,want", CASES, ids=[c[0] for c in CASES])
def test_eager(name, fn, want):
    got = np.asarray(fn())
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.shape == np.shape(want)


@pytest.mark.parametrize("name,fn,want", CASES, ids=[c[0] for c in CASES])
def test_graph(name, fn, want):
    with opkit.Graph().as_default():
        t = fn()
        assert isinstance(t, opkit.Tensor)
        with opkit.Session() as s:
            np.testing.assert_allclose(s.run(t), want, rtol=1e-6)


def test_argmax_output_type():
    assert np.asarray(opkit.argmax(X, axis=1)).dtype == np.int64
    assert np.asarray(opkit.argmax(X, axis=1, output_type=opkit.int32)).dtype == np.int32
