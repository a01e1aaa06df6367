"""The nn gradient ops and softmax cross-entropy losses from Python: they
appear in opkit.raw_ops from the registry, compute TensorFlow's values and
refuse bad input with opkit.errors.InvalidArgumentError."""

import numpy as np
import pytest

import opkit
from opkit import errors

GRAD_OPS = [
    "ReluGrad", "Relu6Grad", "EluGrad", "LeakyReluGrad", "Selu", "SeluGrad",
    "BiasAddGrad", "MaxPoolGrad", "AvgPoolGrad",
    "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
    "FusedBatchNormGradV3",
]


@pytest.mark.parametrize("name", GRAD_OPS)
def test_in_raw_ops(name):
    assert callable(getattr(opkit.raw_ops, name))


def test_relu_grad_and_bias_add_grad():
    x = np.array([[-1.0, 2.0, 7.0]], dtype=np.float32)
    g = np.full_like(x, 3.0)
    np.testing.assert_array_equal(
        opkit.raw_ops.ReluGrad(gradients=g, features=x), [[0, 3, 3]])
    np.testing.assert_array_equal(
        opkit.raw_ops.Relu6Grad(gradients=g, features=x), [[0, 3, 0]])
    np.testing.assert_array_equal(
        opkit.raw_ops.BiasAddGrad(
            out_backprop=np.arange(6, dtype=np.float64).reshape(2, 3)),
        [3, 5, 7])


def test_sparse_cross_entropy_matches_numpy():
    logits = np.array([[1.0, -2.0, 0.5], [3.0, 3.5, -1.0]])
    labels = np.array([2, 0], dtype=np.int32)
    loss, backprop = opkit.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
        features=logits, labels=labels)
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(loss, -np.log(p[[0, 1], labels]), rtol=1e-12)
    want = p.copy()
    want[[0, 1], labels] -= 1
    np.testing.assert_allclose(backprop, want, rtol=1e-12, atol=1e-15)


def test_label_out_of_range_is_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError, match="holds 9 at position 1"):
        opkit.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
            features=np.zeros((2, 4), np.float32),
            labels=np.array([1, 9], np.int64))


def test_max_pool_grad_shape_mismatch_is_invalid_argument():
    x = np.zeros((1, 4, 4, 1), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="grad \\(input 2\\)"):
        opkit.raw_ops.MaxPoolGrad(
            orig_input=x, orig_output=np.zeros((1, 2, 2, 1), np.float32),
            grad=np.zeros((1, 3, 2, 1), np.float32), ksize=[1, 2, 2, 1],
            strides=[1, 2, 2, 1], padding="VALID")
