"""opkit's DType objects (opkit.float32, ...), as TensorFlow's tf.DType."""

import pickle

import numpy as np
import pytest

import opkit


def test_dtype_properties_follow_tensorflow():
    assert opkit.float32.name == "float32"
    assert opkit.float32.as_numpy_dtype is np.float32
    assert opkit.float32.is_floating and not opkit.float32.is_integer
    assert opkit.int64.is_integer and not opkit.int64.is_floating
    assert opkit.uint8.is_unsigned and not opkit.int8.is_unsigned
    assert opkit.complex64.is_complex
    assert opkit.bool.is_bool and opkit.bool.name == "bool"
    assert opkit.string.as_numpy_dtype is np.object_
    assert opkit.float32.as_datatype_enum == 1
    assert opkit.int32.size == 4
    assert opkit.uint8.max == 255 and opkit.int8.min == -128
    assert repr(opkit.float64) == "opkit.float64"
    assert opkit.double is opkit.float64 and opkit.half is opkit.float16


def test_as_dtype_accepts_every_spelling():
    for value in (opkit.float32, np.float32, np.dtype("float32"), "float32",
                  "float", "DT_FLOAT", 1):
        assert opkit.as_dtype(value) is opkit.float32
    with pytest.raises(TypeError, match="Cannot convert"):
        opkit.as_dtype("no_such_type")


def test_dtype_equality_with_numpy_and_names():
    assert opkit.float32 == np.float32
    assert opkit.float32 == "float32"
    assert opkit.float32 != opkit.float64
    assert opkit.int32 != np.float32
    assert opkit.float32 != object()
    assert {opkit.float32: "f"}[opkit.as_dtype(np.float32)] == "f"


def test_dtype_without_numpy_equivalent():
    assert opkit.bfloat16.name == "bfloat16"
    assert opkit.resource.name == "resource"
    with pytest.raises(TypeError, match="no numpy equivalent"):
        opkit.bfloat16.as_numpy_dtype


def test_dtype_pickles_to_the_same_object():
    assert pickle.loads(pickle.dumps(opkit.int16)) is opkit.int16


def test_dtypes_accepted_where_numpy_dtypes_are():
    # A type attr of an eager op.
    y = opkit.ops.cast(np.int32([1, 2]), opkit.float32)
    assert y.dtype == np.float32
    # The keyword-only type attr that chooses how Python values convert.
    z = opkit.ops.add_v2(1, 2, T=opkit.int64)
    assert z.dtype == np.int64
    assert opkit.dtypes.as_datatype(opkit.float64) == opkit.dtypes.DT_DOUBLE
    assert opkit.dtypes.to_numpy(opkit.int8) == np.int8
    # numpy dtypes keep working as they did.
    assert opkit.ops.cast(np.int32([1]), np.float64).dtype == np.float64
