"""opkit's generated op functions: calls, conversion, attrs, lists,
names, signatures and docstrings, raw_ops, zero-copy results."""

import inspect
import os

import numpy as np
import pytest

import opkit
from opkit import errors


# --- Op libraries --------------------------------------------------------------

def test_zero_out_from_python(zero_out):
    out = zero_out.zero_out([[1, 2], [3, 4]])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[1, 0], [0, 0]])


def test_zero_out_with_numpy_input(zero_out):
    out = zero_out.zero_out(np.array([5, 6, 7], dtype=np.int32))
    np.testing.assert_array_equal(out, [5, 0, 0])


def test_library_module_has_every_op(zero_out):
    for name in ["zero_out", "zero_out_preserve_index", "zero_out_float_int",
                 "zero_out_templated", "zero_out_merged", "zero_out_vector"]:
        assert callable(getattr(zero_out, name)), name
    assert "ZeroOut" in zero_out.OP_NAMES


def test_loading_twice_returns_same_module(zero_out):
    again = opkit.load_op_library(os.environ["OPKIT_TEST_ZERO_OUT"])
    assert again is zero_out


def test_load_missing_library_raises_not_found():
    with pytest.raises(errors.NotFoundError):
        opkit.load_op_library("/nonexistent/libnothing.so")


def test_load_library_rejects_non_path():
    with pytest.raises(TypeError, match="path"):
        opkit.load_op_library(42)


def test_library_ops_appear_in_raw_ops(zero_out):
    assert "ZeroOut" in dir(opkit.raw_ops)
    out = opkit.raw_ops.ZeroOut(to_zero=[9, 8])
    np.testing.assert_array_equal(out, [9, 0])


# --- Type inference ------------------------------------------------------------

def test_python_ints_become_int32():
    out = opkit.ops.add_v2([1, 2], [3, 4])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [4, 6])


def test_big_python_ints_become_int64():
    out = opkit.ops.add_v2([2 ** 40], [1])
    assert out.dtype == np.int64
    assert out[0] == 2 ** 40 + 1


def test_preferred_int32_gives_way_to_big_ints():
    # Reshape's Tshape defaults to int32; a shape needing int64 keeps int64,
    # as TensorFlow's preferred dtype is only a hint.
    x = np.zeros((2, 3), dtype=np.float32)
    assert opkit.ops.reshape(x, [3, 2]).shape == (3, 2)
    with pytest.raises(errors.InvalidArgumentError, match="4294967296"):
        opkit.ops.reshape(x, [2 ** 32, 1])


def test_python_floats_become_float32():
    out = opkit.ops.add_v2([1.5], [2.0])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [3.5])


def test_mixed_list_becomes_float32():
    out = opkit.ops.add_v2([1, 2.5], [0, 0])
    # The first input fixes T = float32; the second converts to it.
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [1, 2.5])


def test_array_fixes_type_of_python_values():
    out = opkit.ops.add_v2(np.float64([1.0]), 2)
    assert out.dtype == np.float64
    out = opkit.ops.add_v2(3, np.int64([1]))   # array later in the inputs
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [4])


def test_bools_become_bool():
    out = opkit.ops.logical_and([True, False], [True, True])
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, [True, False])


def test_strings_become_string_tensors():
    out = opkit.ops.identity(["a", b"bc"])
    assert out.dtype == object
    assert list(out) == [b"a", b"bc"]


def test_numpy_scalar_keeps_its_dtype():
    out = opkit.ops.add_v2(np.float16(1), np.float16(2))
    assert out.dtype == np.float16
    assert out.shape == ()


def test_explicit_type_attr_chooses_conversion():
    out = opkit.ops.add_v2([1, 2], [3, 4], T=np.float64)
    assert out.dtype == np.float64
    out = opkit.ops.add_v2([1, 2], [3, 4], T="float32")
    assert out.dtype == np.float32


def test_declared_input_type_converts(zero_out):
    # ZeroOut's input is int32: int64 Python values convert to it.
    out = zero_out.zero_out([7, 8])
    assert out.dtype == np.int32


def test_type_attr_default_is_preferred_dtype(zero_out):
    # ZeroOutFloatInt: T: {float, int32} = DT_INT32.
    assert zero_out.zero_out_float_int([3, 4]).dtype == np.int32
    assert zero_out.zero_out_float_int([3.5, 4]).dtype == np.float32


def test_float_to_int_input_is_type_error(zero_out):
    with pytest.raises(TypeError, match="to_zero"):
        zero_out.zero_out([1.5, 2.0])


def test_wrong_array_dtype_is_invalid_argument(zero_out):
    with pytest.raises(errors.InvalidArgumentError):
        zero_out.zero_out(np.float32([1.0]))


def test_dtype_not_allowed_by_op(zero_out):
    with pytest.raises(errors.OpError):
        zero_out.zero_out_float_int(np.float64([1.0]))


def test_explicit_dst_type_attr():
    out = opkit.ops.cast([1, 2], DstT=np.float64)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [1.0, 2.0])


def test_noncontiguous_and_byteswapped_inputs():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    out = opkit.ops.add_v2(a, np.float32(1))
    np.testing.assert_array_equal(out, a + 1)
    b = np.array([1, 2], dtype=">i4")
    np.testing.assert_array_equal(opkit.ops.add_v2(b, np.int32(1)), [2, 3])


# --- Bad Python input ---------------------------------------------------------

def test_ragged_list_is_value_error():
    with pytest.raises(ValueError, match="'x'.*ragged"):
        opkit.ops.add_v2([[1, 2], [3]], [1])


def test_unconvertible_value_is_type_error():
    with pytest.raises(TypeError, match="'y'"):
        opkit.ops.add_v2([1], object())


def test_none_input_is_type_error():
    with pytest.raises(TypeError):
        opkit.ops.add_v2(None, [1])


def test_unknown_keyword_is_type_error():
    with pytest.raises(TypeError, match="bogus"):
        opkit.ops.add_v2([1], [2], bogus=3)


def test_wrong_number_of_inputs_is_type_error():
    with pytest.raises(TypeError):
        opkit.ops.add_v2([1])
    with pytest.raises(TypeError):
        opkit.ops.add_v2([1], [2], 3, 4)


def test_raw_ops_are_keyword_only():
    with pytest.raises(TypeError):
        opkit.raw_ops.AddV2([1], [2])


def test_unknown_raw_op_is_attribute_error():
    with pytest.raises(AttributeError, match="NoSuchOp"):
        opkit.raw_ops.NoSuchOp


def test_unknown_ops_function_is_attribute_error():
    with pytest.raises(AttributeError, match="no_such_op"):
        opkit.ops.no_such_op


def test_shape_mismatch_is_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError):
        opkit.ops.mat_mul(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))


def test_unsupported_numpy_dtype_is_type_error():
    with pytest.raises(TypeError):
        opkit.ops.identity(np.array([1], dtype=np.longdouble))


# --- Attrs -------------------------------------------------------------------------

def test_attr_defaults_apply():
    a = np.float32([[1, 2], [3, 4]])
    np.testing.assert_allclose(opkit.ops.mat_mul(a, a), a @ a)
    np.testing.assert_allclose(opkit.ops.mat_mul(a, a, transpose_b=True), a @ a.T)
    np.testing.assert_allclose(opkit.ops.mat_mul(a, a, False, True), a @ a.T)


def test_required_attr(zero_out):
    out = zero_out.zero_out_preserve_index([5, 6, 7], preserve_index=2)
    np.testing.assert_array_equal(out, [0, 0, 7])
    out = zero_out.zero_out_preserve_index([5, 6, 7], 1)
    np.testing.assert_array_equal(out, [0, 6, 0])


def test_missing_required_attr_is_type_error(zero_out):
    with pytest.raises(TypeError, match="preserve_index"):
        zero_out.zero_out_preserve_index([1, 2])


def test_bad_attr_type_is_invalid_argument(zero_out):
    with pytest.raises(errors.InvalidArgumentError, match="preserve_index"):
        zero_out.zero_out_preserve_index([1, 2], preserve_index="x")
    with pytest.raises(errors.InvalidArgumentError, match="transpose_a"):
        opkit.ops.mat_mul(np.ones((1, 1), np.float32), np.ones((1, 1), np.float32),
                          transpose_a=3)


def test_bad_attr_value_is_error_from_kernel(zero_out):
    with pytest.raises(errors.InvalidArgumentError):
        zero_out.zero_out_preserve_index([1, 2], preserve_index=5)


def test_bad_type_attr_is_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError, match="DstT"):
        opkit.ops.cast([1], DstT="not_a_type")


def test_attr_values_cached_per_value():
    a = np.float32([[1, 2], [3, 4]])
    f = opkit.ops.mat_mul
    for _ in range(3):
        np.testing.assert_allclose(f(a, a, transpose_a=True), a.T @ a)
        np.testing.assert_allclose(f(a, a, transpose_a=False), a @ a)


# --- List inputs and outputs, several outputs ---------------------------------

def test_add_n_list_input():
    out = opkit.ops.add_n([[1, 2], [3, 4], [5, 6]])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [9, 12])
    out = opkit.ops.add_n([np.float32([1]), [2]])
    assert out.dtype == np.float32


def test_add_n_needs_a_list():
    with pytest.raises(TypeError, match="Expected list for 'inputs'"):
        opkit.ops.add_n(np.float32([1]))


def test_concat_v2():
    out = opkit.ops.concat_v2([[1, 2], [3]], 0)
    np.testing.assert_array_equal(out, [1, 2, 3])
    a = np.ones((2, 2), np.float32)
    out = opkit.raw_ops.ConcatV2(values=[a, a], axis=1)
    assert out.shape == (2, 4)


def test_unpack_list_output():
    out = opkit.ops.unpack(np.arange(6, dtype=np.int32).reshape(3, 2), num=3)
    assert isinstance(out, list) and len(out) == 3
    np.testing.assert_array_equal(out[2], [4, 5])


def test_split_list_output():
    out = opkit.ops.split(0, np.arange(6, dtype=np.float32), num_split=3)
    assert isinstance(out, list) and len(out) == 3
    np.testing.assert_array_equal(out[1], [2, 3])


def test_several_outputs_namedtuple():
    x = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)
    scale = np.ones(2, np.float32)
    offset = np.zeros(2, np.float32)
    res = opkit.ops.fused_batch_norm_v3(x, scale, offset, np.zeros(0, np.float32),
                                        np.zeros(0, np.float32), is_training=True)
    assert isinstance(res, tuple)
    assert res._fields[:3] == ("y", "batch_mean", "batch_variance")
    np.testing.assert_allclose(res.batch_mean, [3, 4])
    y, mean, *_ = res
    assert y.shape == x.shape


# --- Names, signatures, docstrings ----------------------------------------------

@pytest.mark.parametrize("op,name", [
    ("ZeroOut", "zero_out"), ("MatMul", "mat_mul"), ("Conv2D", "conv2d"),
    ("BatchMatMulV2", "batch_mat_mul_v2"), ("LRN", "lrn"),
    ("FusedBatchNormV3", "fused_batch_norm_v3"), ("AddV2", "add_v2"),
    ("ConcatV2", "concat_v2"), ("BiasAdd", "bias_add"),
    ("SquaredDifference", "squared_difference"), ("ArgMax", "arg_max"),
    ("Relu6", "relu6"), ("LogSoftmax", "log_softmax"),
    ("QuantizedMatMulWithBias", "quantized_mat_mul_with_bias"),
    ("CTCLoss", "ctc_loss"), ("RGBToHSV", "rgb_to_hsv"),
    ("Conv3DBackpropInputV2", "conv3d_backprop_input_v2"),
    ("TPUReplicatedInput", "tpu_replicated_input"),
    ("Print", "print_"), ("Assert", "assert_"), ("IsNan", "is_nan"),
])
def test_snake_case_names(op, name):
    assert opkit._op_gen.function_name(op) == name


def test_builtin_functions_exist():
    for name in ["add_v2", "conv2d", "batch_mat_mul_v2", "fused_batch_norm_v3",
                 "mat_mul", "concat_v2"]:
        assert name in dir(opkit.ops)
        assert callable(getattr(opkit.ops, name))


def test_signature_of_generated_function(zero_out):
    sig = inspect.signature(opkit.ops.mat_mul)
    params = list(sig.parameters.values())
    assert [p.name for p in params] == ["a", "b", "transpose_a", "transpose_b",
                                        "name", "T"]
    assert params[2].default is False
    assert params[4].default is None
    assert params[5].kind is inspect.Parameter.KEYWORD_ONLY
    sig = inspect.signature(zero_out.zero_out_preserve_index)
    assert list(sig.parameters) == ["to_zero", "preserve_index", "name"]
    assert sig.parameters["preserve_index"].default is inspect.Parameter.empty


def test_signature_of_raw_op():
    sig = inspect.signature(opkit.raw_ops.MatMul)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY
               for p in sig.parameters.values())
    assert list(sig.parameters)[:4] == ["a", "b", "transpose_a", "transpose_b"]


def test_docstring_content(zero_out):
    doc = opkit.ops.mat_mul.__doc__
    assert "Args:" in doc and "Returns:" in doc
    assert "a: A `Tensor`. Must be one of the following types:" in doc
    assert "`float32`" in doc
    assert "b: A `Tensor`. Must have the same type as `a`." in doc
    assert "transpose_a: An optional `bool`. Defaults to `False`." in doc
    assert "A `Tensor`. Has the same type as `a`." in doc
    doc = zero_out.zero_out_preserve_index.__doc__
    assert "to_zero: A `Tensor` of type `int32`." in doc
    assert "preserve_index: An `int`." in doc
    doc = opkit.ops.add_n.__doc__
    assert "A list of at least 1 `Tensor` objects" in doc
    doc = opkit.ops.fused_batch_norm_v3.__doc__
    assert "A tuple of `Tensor` objects (y, batch_mean" in doc


def test_function_metadata():
    assert opkit.ops.add_v2.__name__ == "add_v2"
    assert opkit.raw_ops.AddV2.__name__ == "AddV2"
    assert opkit.ops.add_v2.__module__ == "opkit.ops"


# --- raw_ops -------------------------------------------------------------------------

def test_raw_ops_call_and_dir():
    assert {"AddV2", "MatMul", "ConcatV2"} <= set(dir(opkit.raw_ops))
    out = opkit.raw_ops.AddV2(x=np.float32([1]), y=np.float32([2]), name="add")
    np.testing.assert_array_equal(out, [3])
    assert opkit.raw_ops.AddV2 is opkit.raw_ops.AddV2


# --- Zero-copy ---------------------------------------------------------------------

def test_output_is_zero_copy_view_of_result():
    out = opkit.ops.add_v2(np.float32([1, 2]), np.float32([3, 4]))
    assert isinstance(out.base, object) and out.base is not None
    assert out.flags.writeable
    out[0] = 10  # the array owns (a reference to) the result buffer
    assert out[0] == 10


def aligned_floats(n):
    """A float32 array of n elements whose data is 64-byte aligned."""
    raw = np.empty(64 + n * 4, dtype=np.uint8)
    offset = (-raw.ctypes.data) % 64
    a = raw[offset:offset + n * 4].view(np.float32)
    assert a.ctypes.data % 64 == 0
    return a


def test_aligned_input_forwarded_output_is_readonly_view():
    a = aligned_floats(1024)   # zero-copy from 1 KiB up
    a[:] = np.arange(1024, dtype=np.float32)
    out = opkit.ops.identity(a)
    assert np.shares_memory(out, a)
    assert not out.flags.writeable
    np.testing.assert_array_equal(out, np.arange(1024))


def test_small_aligned_input_is_copied():
    a = aligned_floats(16)
    out = opkit.ops.identity(a)
    assert not np.shares_memory(out, a)
    assert out.flags.writeable


def test_kernel_never_writes_into_zero_copy_input():
    a = aligned_floats(1024)
    a[:] = 1.0
    before = a.copy()
    out = opkit.ops.add_v2(a, a)   # could forward its input buffer
    np.testing.assert_array_equal(a, before)
    np.testing.assert_array_equal(out, before * 2)
    assert not np.shares_memory(out, a)


def test_unaligned_input_is_copied():
    a = np.arange(17, dtype=np.float32)[1:]
    out = opkit.ops.identity(a)
    assert not np.shares_memory(out, a)
    assert out.flags.writeable


def test_result_outlives_inputs():
    a = aligned_floats(1024)
    a[:] = 2
    out = opkit.ops.identity(a)
    assert np.shares_memory(out, a)
    del a
    np.testing.assert_array_equal(out, np.full(1024, 2, np.float32))


def test_large_inputs_release_gil():
    a = np.ones((256, 256), np.float32)
    out = opkit.ops.mat_mul(a, a)
    assert out[0, 0] == 256


# --- Gradients ---------------------------------------------------------------------

def test_gradient_entry_points_refuse_what_tensorflow_refuses():
    # (Gradients themselves: test_gradients.py, test_gradient_tape.py.)
    with pytest.raises(KeyError, match="Registering two gradient with name 'MatMul'"):
        opkit.RegisterGradient("MatMul")(lambda op, grad: grad)
    with pytest.raises(RuntimeError, match="Use opkit.GradientTape instead"):
        opkit.gradients([np.float32(1)], [np.float32(2)])


def test_concurrent_calls_from_threads():
    # Large inputs run with the GIL released, so two threads can be inside
    # the same op at once; the second must not share the first's state.
    import threading
    a = np.ones((256, 256), np.float32)
    results = []
    failures = []

    def work(k):
        try:
            for _ in range(4):
                out = opkit.ops.mat_mul(a * k, a)
                results.append(bool(np.all(out == 256 * k)))
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert results == [True] * 16


def test_many_attr_combinations_evict_cache():
    a = np.float32([[1, 2], [3, 4]])
    f = opkit.ops.mat_mul
    for dtype in [np.float32, np.float64, np.int32, np.int64]:
        for ta in (False, True):
            for tb in (False, True):
                x = a.astype(dtype)
                want = (x.T if ta else x) @ (x.T if tb else x)
                np.testing.assert_array_equal(f(x, x, transpose_a=ta, transpose_b=tb), want)
    assert f.cache_size() <= 16


def test_list_input_python_values_share_one_dtype():
    out = opkit.ops.concat_v2([[1, 2], [3.5]], 0)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [1, 2, 3.5])
    with pytest.raises(TypeError, match="values"):
        opkit.ops.concat_v2([["a"], [1]], 0)


def test_argument_binding_errors_name_the_argument():
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        opkit.ops.add_v2([1], [2], x=[3])
    with pytest.raises(TypeError, match="missing required argument: 'y'"):
        opkit.ops.add_v2(x=[1])
    with pytest.raises(TypeError, match="at most"):
        opkit.ops.mat_mul([[1.0]], [[1.0]], False, False, None, np.float32)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        opkit.raw_ops.AddV2(x=[1], y=[2], z=3)
    # Keyword use of positional parameters works as in Python.
    np.testing.assert_array_equal(opkit.ops.add_v2(y=[1], x=[2], name="n"), [3])


def test_help_text_shows_signature():
    import pydoc
    text = pydoc.render_doc(opkit.ops.mat_mul, renderer=pydoc.plaintext)
    assert "transpose_a" in text


def test_eager_constant_is_its_own_aligned_copy():
    # As tf.constant: the value is copied, so writing to the source later
    # changes nothing; the copy is 64-byte aligned, so ops take it without
    # copying again.
    source = np.arange(1000, dtype=np.float32)[1:]   # an unaligned view
    c = opkit.constant(source)
    source[:] = -1
    np.testing.assert_array_equal(c, np.arange(1, 1000, dtype=np.float32))
    assert c.ctypes.data % 64 == 0
    assert c.flags.c_contiguous
    np.testing.assert_array_equal(opkit.constant(np.float64([[1, 2], [3, 4]])).T,
                                  [[1, 3], [2, 4]])
    assert opkit.constant(np.zeros((0, 3), np.int32)).shape == (0, 3)
    assert opkit.constant(["a", "bc"]).tolist() == [b"a", b"bc"]
