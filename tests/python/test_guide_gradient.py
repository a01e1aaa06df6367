"""The op guide's zero_out_op_test.py and its gradient of ZeroOut
(tests/python/guide/), run as the guide runs them."""

import os
import subprocess
import sys

import numpy as np
import pytest

import opkit

GUIDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guide")


@pytest.fixture(scope="module")
def zero_out_grad(zero_out):
    sys.path.insert(0, GUIDE)
    try:
        import zero_out_grad as module  # noqa: PLC0415 (registers ZeroOut's gradient)
    finally:
        sys.path.remove(GUIDE)
    # ZeroOut takes int32, which carries no gradient; the example library's
    # float variant gets the guide's function too, to differentiate through.
    if "ZeroOutFloatInt" not in opkit.gradient_registry._REGISTRY:
        opkit.RegisterGradient("ZeroOutFloatInt")(module._zero_out_grad)
    return module


def test_the_guides_zero_out_op_test_passes(tmp_path, zero_out):
    os.symlink(os.environ["OPKIT_TEST_ZERO_OUT"], tmp_path / "zero_out.so")
    run = subprocess.run([sys.executable, os.path.join(GUIDE, "zero_out_op_test.py")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OK" in run.stderr


def test_the_guides_gradient_is_registered_for_zero_out(zero_out_grad):
    assert opkit.gradient_registry._REGISTRY["ZeroOut"] is zero_out_grad._zero_out_grad
    with pytest.raises(KeyError, match="Registering two gradient with name 'ZeroOut'"):
        opkit.RegisterGradient("ZeroOut")(zero_out_grad._zero_out_grad)


def test_the_guides_gradient_in_graph_mode(zero_out, zero_out_grad):
    g = opkit.Graph()
    with g.as_default():
        x = opkit.placeholder(opkit.float32, [5])
        y = zero_out.zero_out_float_int(x)
        (dx,) = opkit.gradients(y, [x], grad_ys=[np.float32([7, 2, 3, 4, 5])])
        assert "SparseToDense" in [op.type for op in g.get_operations()]
    with opkit.Session(graph=g) as sess:
        np.testing.assert_array_equal(
            sess.run(dx, {x: np.float32([5, 4, 3, 2, 1])}), [7, 0, 0, 0, 0])


def test_the_guides_gradient_on_the_tape(zero_out, zero_out_grad):
    x = opkit.constant([5.0, 4.0, 3.0, 2.0, 1.0])
    with opkit.GradientTape() as tape:
        tape.watch(x)
        y = zero_out.zero_out_float_int(x) * 3.0
    np.testing.assert_array_equal(tape.gradient(y, x), [3, 0, 0, 0, 0])


def test_the_guides_gradient_matches_finite_differences(zero_out, zero_out_grad):
    theoretical, numerical = opkit.test.compute_gradient(
        zero_out.zero_out_float_int, [np.float32([[5, 4], [3, 2]])])
    np.testing.assert_allclose(theoretical[0], numerical[0], atol=1e-3)
    np.testing.assert_array_equal(theoretical[0][0], [1, 0, 0, 0])
