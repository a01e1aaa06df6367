"""OpGenOverrides applied to the generated Python functions, as TensorFlow
applies its API definitions: a skipped op has no function, a hidden one only
a '_' name, a renamed one its new name and aliases, with renamed parameters,
renamed outputs and new attr defaults; the op itself runs unchanged."""

import inspect
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opkit
from opkit import errors

LIBRARY_OVERRIDES = """
op { name: "ZeroOut" rename_to: "KeepFirst" alias: "FirstOnly"
     input_rename { from: "to_zero" to: "x" } }
op { name: "ZeroOutPreserveIndex"
     attr_default { name: "preserve_index" value { i: 1 } }
     attr_rename { from: "preserve_index" to: "keep" } }
op { name: "ZeroOutVector" hide: true }
op { name: "ZeroOutRows" skip: true }
"""


@pytest.fixture
def overrides_file(tmp_path):
    path = tmp_path / "overrides.pbtxt"
    path.write_text(LIBRARY_OVERRIDES)
    return path


@pytest.fixture
def zero_out_path():
    path = os.environ.get("OPKIT_TEST_ZERO_OUT")
    if not path:
        pytest.skip("OPKIT_TEST_ZERO_OUT (path of zero_out.so) is not set")
    return path


def test_library_functions_follow_the_overrides(zero_out_path, overrides_file):
    lib = opkit.load_op_library(zero_out_path, op_gen_overrides=str(overrides_file))
    # rename_to and alias: one function, new names; the old name is gone.
    assert lib.keep_first is lib.first_only
    assert not hasattr(lib, "zero_out")
    assert list(inspect.signature(lib.keep_first).parameters) == ["x", "name"]
    np.testing.assert_array_equal(lib.keep_first(x=[[5, 6], [7, 8]]), [[5, 0], [0, 0]])
    # attr_default and attr_rename: the attr is optional now, under its new name.
    params = inspect.signature(lib.zero_out_preserve_index).parameters
    assert params["keep"].default == 1
    np.testing.assert_array_equal(lib.zero_out_preserve_index([5, 6, 7]), [0, 6, 0])
    np.testing.assert_array_equal(lib.zero_out_preserve_index([5, 6, 7], keep=2), [0, 0, 7])
    # hide: only the '_' name, not listed; skip: nothing at all.
    assert callable(lib._zero_out_vector)
    assert not hasattr(lib, "zero_out_vector")
    assert "_zero_out_vector" not in lib.__all__ and "keep_first" in lib.__all__
    assert not hasattr(lib, "zero_out_rows") and not hasattr(lib, "_zero_out_rows")
    # Ops keep their registered names underneath (raw ops are never renamed).
    np.testing.assert_array_equal(opkit.raw_ops.ZeroOut(to_zero=[3, 4]), [3, 0])


def test_loading_without_overrides_gives_the_plain_names(zero_out_path, overrides_file):
    plain = opkit.load_op_library(zero_out_path)
    renamed = opkit.load_op_library(zero_out_path, op_gen_overrides=[str(overrides_file)])
    assert renamed is not plain
    assert opkit.load_op_library(zero_out_path, op_gen_overrides=str(overrides_file)) is renamed
    assert opkit.load_op_library(zero_out_path) is plain
    assert hasattr(plain, "zero_out") and hasattr(plain, "zero_out_rows")
    assert not hasattr(plain, "keep_first")


def test_bad_override_files_are_errors_naming_the_place(zero_out_path, tmp_path):
    bad = tmp_path / "bad.pbtxt"
    bad.write_text('op { name: "ZeroOut"\n  rename_to: }\n')
    with pytest.raises(errors.InvalidArgumentError, match=r"bad\.pbtxt:2"):
        opkit.load_op_library(zero_out_path, op_gen_overrides=str(bad))
    unknown_attr = tmp_path / "unknown_attr.pbtxt"
    unknown_attr.write_text(
        'op { name: "ZeroOut" attr_default { name: "nope" value { i: 1 } } }\n')
    with pytest.raises(errors.InvalidArgumentError, match=r"'nope'.*does not have"):
        opkit.load_op_library(zero_out_path, op_gen_overrides=str(unknown_attr))
    with pytest.raises(errors.NotFoundError):
        opkit.load_op_library(zero_out_path, op_gen_overrides=str(tmp_path / "missing.pbtxt"))
    with pytest.raises(TypeError, match="op_gen_overrides"):
        opkit.load_op_library(zero_out_path, op_gen_overrides=12)


def test_builtin_functions_follow_opkit_op_gen_overrides(tmp_path):
    # OPKIT_OP_GEN_OVERRIDES is read when opkit.ops is imported: a fresh
    # interpreter. opkit's own aliases (opkit.matmul ...) keep working.
    path = tmp_path / "builtin.pbtxt"
    path.write_text(textwrap.dedent("""
        op { name: "MatMul" rename_to: "MatrixMultiply"
             input_rename { from: "a" to: "x" } input_rename { from: "b" to: "y" }
             attr_default { name: "transpose_b" value { b: true } } }
        op { name: "Relu" hide: true }
        op { name: "Abs" skip: true }
        op { name: "SparseSoftmaxCrossEntropyWithLogits"
             output_rename { from: "backprop" to: "gradient" } }
    """))
    script = textwrap.dedent("""
        import inspect, numpy as np, opkit
        ops = opkit.ops
        assert not hasattr(ops, "mat_mul")
        params = inspect.signature(ops.matrix_multiply).parameters
        assert list(params)[:2] == ["x", "y"], list(params)
        assert params["transpose_b"].default is True
        a = np.float32([[1, 2]]); b = np.float32([[3, 4]])
        assert ops.matrix_multiply(a, b)[0, 0] == 11
        assert opkit.matmul(a, b.T)[0, 0] == 11          # TensorFlow's name, unchanged
        assert "relu" not in dir(ops) and callable(ops._relu)
        assert opkit.nn.relu(np.float32([-1, 2]))[1] == 2
        assert not hasattr(ops, "abs")
        out = ops.sparse_softmax_cross_entropy_with_logits(
            np.float32([[0.0, 0.0]]), np.int32([1]))
        assert out.gradient.tolist() == [[0.5, -0.5]], out
        print("ok")
    """)
    env = dict(os.environ, OPKIT_OP_GEN_OVERRIDES=str(path))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
