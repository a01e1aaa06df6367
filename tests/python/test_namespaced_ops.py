"""Namespaced op names ("Addons>Gelu", "Examples>MinMax") from Python: the
functions of a loaded library are named as TensorFlow's generator names
them, a multi-output op's result type gets a valid name, and raw_ops
reaches them as tf.raw_ops does (Addons_Gelu)."""

import collections
import os

import numpy as np
import pytest

import opkit
from opkit import _op_gen


@pytest.fixture(scope="module")
def namespaced():
    path = os.environ.get("OPKIT_TEST_NAMESPACED_OPS")
    if not path:
        pytest.skip("OPKIT_TEST_NAMESPACED_OPS (path of compat_namespaced_ops.so) "
                    "is not set")
    return opkit.load_op_library(path)


def test_function_names_are_tensorflows():
    # GenerateLowerCaseOpName: '>' becomes '_', with no second '_' before
    # the upper-case letter that follows it.
    assert _op_gen.function_name("Addons>Gelu") == "addons_gelu"
    assert _op_gen.function_name("Examples>MultiplexSparse") == "examples_multiplex_sparse"
    assert _op_gen.function_name("TFText>WhitespaceTokenizeWithOffsets") == \
        "tf_text_whitespace_tokenize_with_offsets"
    assert _op_gen.raw_function_name("Addons>Gelu") == "Addons_Gelu"


def test_library_module_has_the_snake_case_functions(namespaced):
    assert sorted(namespaced.OP_NAMES) == ["Addons>Gelu", "Examples>MinMax"]
    assert callable(namespaced.addons_gelu)
    assert callable(namespaced.examples_min_max)
    assert namespaced.addons_gelu.__name__ == "addons_gelu"


def test_single_output_namespaced_op_runs(namespaced):
    # tfa.activations.gelu([-1., 0., 1.]) (approximate=True by default).
    out = namespaced.addons_gelu(np.float32([-1, 0, 1]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [-0.15880796, 0.0, 0.841192], rtol=1e-6, atol=1e-7)
    exact = namespaced.addons_gelu([1.0], approximate=False)
    np.testing.assert_allclose(exact, [0.8413447], rtol=1e-6)


def test_multi_output_namespaced_op_returns_a_validly_named_tuple(namespaced):
    result = namespaced.examples_min_max([3, -2, 7])
    assert type(result).__name__ == "Examples_MinMax"
    assert isinstance(result, tuple) and hasattr(type(result), "_fields")
    assert type(result)._fields == ("min", "max")
    assert result.min == -2 and result.max == 7
    assert result.min.dtype == np.int32
    lo, hi = namespaced.examples_min_max(np.float32([0.5, -1.5]))
    assert (lo, hi) == (-1.5, 0.5)


def test_raw_ops_reach_namespaced_ops_by_tensorflows_name(namespaced):
    assert "Addons_Gelu" in dir(opkit.raw_ops)
    assert "Examples_MinMax" in dir(opkit.raw_ops)
    raw = opkit.raw_ops.Addons_Gelu
    assert raw.__name__ == "Addons_Gelu"
    np.testing.assert_allclose(raw(features=np.float32([1])), [0.841192], rtol=1e-6)
    assert getattr(opkit.raw_ops, "Addons>Gelu")(features=np.float32([0]))[0] == 0
    minmax = opkit.raw_ops.Examples_MinMax(input=[4, 9])
    assert type(minmax).__name__ == "Examples_MinMax"
    assert tuple(minmax) == (4, 9)


def test_docstring_names_the_outputs(namespaced):
    doc = namespaced.examples_min_max.__doc__
    assert "A tuple of `Tensor` objects (min, max)." in doc
