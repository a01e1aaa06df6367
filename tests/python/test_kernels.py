"""opkit.kernels: list, explain, unregister/restore, override."""

import os

import numpy as np
import pytest

import opkit
from opkit import errors


def test_list_kernels_of_op():
    ks = opkit.kernels.list("MatMul")
    assert ks and all(k.op == "MatMul" for k in ks)
    k = ks[0]
    assert k.device == "CPU"
    assert isinstance(k.priority, int)
    assert "T" in k.constraints
    assert k.kernel_class.startswith("MatMulOp<")
    assert "matmul_op.cc" in k.origin
    assert k.library == ""
    assert {k.label for k in ks} >= {"", "eigen"}


def test_list_all_kernels_and_library_origin(zero_out):
    ks = opkit.kernels.list()
    ops = {k.op for k in ks}
    assert {"MatMul", "AddV2", "ZeroOut"} <= ops
    z = [k for k in ks if k.op == "ZeroOut"]
    assert z[0].library.endswith("zero_out.so")
    assert "zero_out.so" in z[0].origin


def test_list_unknown_op_is_empty():
    assert opkit.kernels.list("NoSuchOp") == []


def test_list_rejects_non_string():
    with pytest.raises(TypeError):
        opkit.kernels.list(3)


def test_explain_selects_and_reports():
    e = opkit.kernels.explain("MatMul", T=np.float32)
    assert e.ok and e.error is None
    assert e.winner.kernel_class == "MatMulOp<float>"
    assert e.winner.matched and e.winner.reason == ""
    assert len(e.candidates) == len(opkit.kernels.list("MatMul"))
    rejected = [c for c in e.candidates if not c.matched]
    assert any("DT_FLOAT" in c.reason for c in rejected)
    text = str(e)
    assert "Selected: 'MatMulOp<float>'" in text
    assert "MatMulOp<float>" in repr(e)


def test_explain_with_label():
    e = opkit.kernels.explain("MatMul", T="float32", _kernel="eigen")
    assert e.ok
    assert e.winner.label == "eigen"


def test_dtype_names_as_the_command_line_reads_them():
    # Strings go through the attr parser's shorthand (TensorFlow's names),
    # then numpy's names.
    for name in ("float", "float32", "DT_FLOAT", "DT_float", "tf.float32", "f4", "<f4"):
        assert opkit.dtypes.as_datatype(name) == opkit.dtypes.DT_FLOAT, name
        e = opkit.kernels.explain("MatMul", T=name)
        assert e.winner.kernel_class == "MatMulOp<float>", name
    assert opkit.dtypes.as_datatype("half") == opkit.dtypes.DT_HALF
    assert opkit.dtypes.as_datatype("tf.int64") == opkit.dtypes.DT_INT64
    for bad in ("float_ref", "DT_FLOAT_REF", "DT_INVALID", "flot"):
        with pytest.raises(errors.InvalidArgumentError, match="expects a dtype"):
            opkit.dtypes.as_datatype(bad)


def test_explain_no_kernel():
    e = opkit.kernels.explain("MatMul", T=np.uint8)
    assert not e.ok
    assert isinstance(e.error, errors.NotFoundError)
    assert e.winner is None


def test_explain_bad_attr():
    with pytest.raises(errors.InvalidArgumentError, match="no attr 'Q'"):
        opkit.kernels.explain("MatMul", Q=1)
    with pytest.raises(errors.InvalidArgumentError, match="'T'"):
        opkit.kernels.explain("MatMul", T="nonsense")


def test_unregister_and_restore(zero_out):
    assert zero_out.zero_out([1, 2])[0] == 1
    handle = opkit.kernels.unregister(op="ZeroOut")
    try:
        assert len(handle.kernels) == 1
        assert not handle.restored
        with pytest.raises(errors.NotFoundError):
            zero_out.zero_out([1, 2])
        assert opkit.kernels.list("ZeroOut") == []
    finally:
        handle.restore()
    assert handle.restored
    np.testing.assert_array_equal(zero_out.zero_out([1, 2]), [1, 0])
    with pytest.raises(errors.FailedPreconditionError):
        handle.restore()


def test_unregister_context_manager(zero_out):
    with opkit.kernels.unregister(op="ZeroOut", device="CPU") as h:
        assert h.kernels
        with pytest.raises(errors.NotFoundError):
            zero_out.zero_out([3])
    np.testing.assert_array_equal(zero_out.zero_out([3]), [3])


def test_unregister_by_type_hides_only_that_type():
    a = np.float32([[1]])
    with opkit.kernels.unregister(op="MatMul", T=np.float64):
        np.testing.assert_array_equal(opkit.ops.mat_mul(a, a), [[1]])
        with pytest.raises(errors.NotFoundError):
            opkit.ops.mat_mul(np.float64([[1]]), np.float64([[1]]))
    np.testing.assert_array_equal(opkit.ops.mat_mul(np.float64([[2]]), np.float64([[2]])), [[4]])


def test_unregister_nothing_matching_is_not_found():
    with pytest.raises(errors.NotFoundError):
        opkit.kernels.unregister(op="MatMul", label="no-such-label")


def test_unregister_bad_type_filter():
    with pytest.raises(errors.InvalidArgumentError, match="'T' expects a dtype"):
        opkit.kernels.unregister(op="MatMul", T="not a dtype at all")


def test_override_forces_labelled_kernel():
    a = np.float32([[1, 2], [3, 4]])
    before = opkit.kernels.explain("MatMul", T=np.float32).winner
    assert before.label == ""
    with opkit.kernels.override(op="MatMul", label="eigen", T=np.float32) as o:
        assert o.active
        w = opkit.kernels.explain("MatMul", T=np.float32).winner
        assert w.label == "" and w.priority > before.priority
        assert o.kernels[0].priority == w.priority
        np.testing.assert_allclose(opkit.ops.mat_mul(a, a), a @ a)
    assert not o.active
    after = opkit.kernels.explain("MatMul", T=np.float32).winner
    assert after.priority == before.priority
    o.restore()  # harmless twice


def test_override_library_kernel(zero_out):
    path = os.environ["OPKIT_TEST_ZERO_OUT"]
    lib = [k for k in opkit.kernels.list("ZeroOut")][0].library
    with opkit.kernels.override(op="ZeroOut", library=lib) as o:
        assert o.kernels
        np.testing.assert_array_equal(zero_out.zero_out([4, 5]), [4, 0])
    assert path


def test_library_filter_takes_the_path_as_loaded(zero_out):
    # The loader records the resolved path; a relative path, or one through
    # "..", names the same library.
    path = os.environ["OPKIT_TEST_ZERO_OUT"]
    relative = os.path.relpath(path)
    detour = os.path.join(os.path.dirname(path), "..",
                          os.path.basename(os.path.dirname(path)),
                          os.path.basename(path))
    for given in (relative, detour):
        with opkit.kernels.unregister(op="ZeroOut", library=given) as u:
            assert u.kernels
            with pytest.raises(errors.NotFoundError):
                zero_out.zero_out([1, 2])
        np.testing.assert_array_equal(zero_out.zero_out([4, 5]), [4, 0])


def test_unload_library_restores_the_builtin_kernel(zero_out):
    path = os.environ.get("OPKIT_TEST_PRIORITY_MATMUL")
    if not path:
        pytest.skip("OPKIT_TEST_PRIORITY_MATMUL is not set")
    a = np.float32([[1, 2], [3, 4]])
    lib = opkit.load_op_library(path)  # a kernel-only library: no functions
    assert opkit.kernels.explain("MatMul", T=np.float32).winner.kernel_class == "MyMatMulOp"
    np.testing.assert_allclose(opkit.ops.mat_mul(a, a), a @ a)
    opkit.unload_op_library(lib)
    assert opkit.kernels.explain("MatMul", T=np.float32).winner.kernel_class == "MatMulOp<float>"
    np.testing.assert_allclose(opkit.ops.mat_mul(a, a), a @ a)
    with pytest.raises(errors.NotFoundError, match="No loaded op library"):
        opkit.unload_op_library(path)  # unloaded already
    # By path, for a library with ops: its functions fail until it is back.
    zero_out_path = os.environ["OPKIT_TEST_ZERO_OUT"]
    opkit.unload_op_library(os.path.relpath(zero_out_path))
    with pytest.raises(errors.NotFoundError):
        zero_out.zero_out([1, 2])
    assert not hasattr(opkit.raw_ops, "ZeroOut")
    again = opkit.load_op_library(zero_out_path)
    assert again is zero_out
    np.testing.assert_array_equal(zero_out.zero_out([7, 8]), [7, 0])
    with pytest.raises(errors.NotFoundError, match="No loaded op library"):
        opkit.unload_op_library("/no/such/library.so")
    with pytest.raises(TypeError):
        opkit.unload_op_library(42)


def test_override_nothing_matching():
    with pytest.raises(errors.NotFoundError, match="no-such"):
        opkit.kernels.override(op="MatMul", label="no-such")
    with pytest.raises(TypeError):
        opkit.kernels.override(op=None)
