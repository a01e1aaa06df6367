"""opkit DataType numbers <-> numpy dtypes and TensorFlow's dtype names.

    dtypes.to_numpy(1)          # dtype('float32')   (DT_FLOAT)
    dtypes.python_name(1)       # 'float32'          (as tf.float32 names it)
    dtypes.as_datatype('int32') # 3                  (DT_INT32)
"""

import numpy as np

from opkit import _opkit

# DataType numbers (TensorFlow's, from types.proto).
DT_FLOAT = 1
DT_DOUBLE = 2
DT_INT32 = 3
DT_UINT8 = 4
DT_INT16 = 5
DT_INT8 = 6
DT_STRING = 7
DT_COMPLEX64 = 8
DT_INT64 = 9
DT_BOOL = 10
DT_BFLOAT16 = 14
DT_UINT16 = 17
DT_COMPLEX128 = 18
DT_HALF = 19
DT_UINT32 = 22
DT_UINT64 = 23

_NUMPY = {
    DT_FLOAT: np.float32, DT_DOUBLE: np.float64, DT_INT32: np.int32,
    DT_UINT8: np.uint8, DT_INT16: np.int16, DT_INT8: np.int8,
    DT_STRING: object, DT_COMPLEX64: np.complex64, DT_INT64: np.int64,
    DT_BOOL: np.bool_, DT_UINT16: np.uint16, DT_COMPLEX128: np.complex128,
    DT_HALF: np.float16, DT_UINT32: np.uint32, DT_UINT64: np.uint64,
}

# tf.DType.name for the DataType numbers opkit's docs mention.
_PYTHON_NAMES = {
    DT_FLOAT: "float32", DT_DOUBLE: "float64", DT_INT32: "int32",
    DT_UINT8: "uint8", DT_INT16: "int16", DT_INT8: "int8",
    DT_STRING: "string", DT_COMPLEX64: "complex64", DT_INT64: "int64",
    DT_BOOL: "bool", DT_BFLOAT16: "bfloat16", DT_UINT16: "uint16",
    DT_COMPLEX128: "complex128", DT_HALF: "float16", DT_UINT32: "uint32",
    DT_UINT64: "uint64", 11: "qint8", 12: "quint8", 13: "qint32",
    15: "qint16", 16: "quint16", 20: "resource", 21: "variant",
}


def as_datatype(value):
    """DataType number of a numpy dtype (np.float32, 'float32', np.dtype),
    a TensorFlow name ('float', 'DT_FLOAT') or a DataType number."""
    return _opkit.as_datatype(value)


def to_numpy(datatype):
    """The numpy dtype of a DataType number (object for strings); TypeError
    when numpy has none (bfloat16, quantized types)."""
    try:
        return np.dtype(_NUMPY[datatype])
    except KeyError:
        raise TypeError(
            f"DataType {python_name(datatype)} has no numpy equivalent") from None


def python_name(datatype):
    """TensorFlow's Python name of a DataType number ('float32', 'string')."""
    return _PYTHON_NAMES.get(datatype, f"DataType({datatype})")
