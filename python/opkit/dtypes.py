"""opkit DataType numbers <-> numpy dtypes and TensorFlow's dtype names.

    dtypes.to_numpy(1)          # dtype('float32')   (DT_FLOAT)
    dtypes.python_name(1)       # 'float32'          (as tf.float32 names it)
    dtypes.as_datatype("int32") # 3                  (DT_INT32)
    dtypes.float32              # opkit.float32      (a DType, as tf.float32)
    dtypes.as_dtype(np.int64)   # opkit.int64
"""

import builtins as _builtins

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


class DType(int):
    """A DataType as TensorFlow's tf.DType: `opkit.float32` and friends.

        opkit.float32.name               # 'float32'
        opkit.float32.as_numpy_dtype     # numpy.float32
        opkit.int32.is_integer           # True
        opkit.float32 == np.float32      # True (as in TensorFlow)

    A DType is also its DataType number (an int subclass), so it is
    accepted wherever a dtype is: type attrs (`T=opkit.float32`), Session
    feeds, opkit.dtypes.as_datatype, ...; numpy dtypes keep working there
    too. Use as_dtype() to turn any of them into a DType."""

    __slots__ = ()

    def __new__(cls, datatype):
        return super().__new__(cls, datatype)

    @property
    def name(self):
        """TensorFlow's Python name ('float32', 'string', 'resource')."""
        return python_name(int(self))

    @property
    def as_datatype_enum(self):
        """The DataType number (DT_FLOAT is 1)."""
        return int(self)

    @property
    def as_numpy_dtype(self):
        """The numpy scalar type (numpy.float32; object for strings);
        TypeError when numpy has none (bfloat16, resource, variant)."""
        return to_numpy(int(self)).type

    @property
    def is_floating(self):
        return int(self) in (DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16)

    @property
    def is_integer(self):
        return int(self) in (DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8,
                             DT_UINT16, DT_UINT32, DT_UINT64)

    @property
    def is_complex(self):
        return int(self) in (DT_COMPLEX64, DT_COMPLEX128)

    @property
    def is_bool(self):
        return int(self) == DT_BOOL

    @property
    def is_unsigned(self):
        return int(self) in (DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64)

    @property
    def is_numpy_compatible(self):
        return int(self) in _NUMPY

    @property
    def base_dtype(self):
        return self

    @property
    def size(self):
        """Bytes per element (numpy's itemsize); TypeError without numpy."""
        return to_numpy(int(self)).itemsize

    @property
    def min(self):
        np_dtype = to_numpy(int(self))
        return (np.finfo(np_dtype).min if np_dtype.kind in "fc"
                else np.iinfo(np_dtype).min)

    @property
    def max(self):
        np_dtype = to_numpy(int(self))
        return (np.finfo(np_dtype).max if np_dtype.kind in "fc"
                else np.iinfo(np_dtype).max)

    def is_compatible_with(self, other):
        return self == other

    def __eq__(self, other):
        if isinstance(other, int) and not isinstance(other, _builtins.bool):
            return int(self) == int(other)
        if other is None:
            return False
        try:
            return int(self) == as_datatype(other)
        except Exception:  # noqa: BLE001 (anything not a dtype is unequal)
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = int.__hash__

    def __repr__(self):
        return f"opkit.{self.name}"

    __str__ = __repr__

    def __reduce__(self):
        return (as_dtype, (int(self),))


_DTYPES = {}


def as_dtype(value):
    """The DType of a DType, DataType number, numpy dtype or type
    (np.float32), or a name ('float32', 'float', 'DT_FLOAT'); TypeError
    for anything else (as tf.as_dtype)."""
    if isinstance(value, DType):
        return value
    try:
        datatype = as_datatype(value)
    except Exception as e:  # noqa: BLE001 (re-raised as TensorFlow's TypeError)
        raise TypeError(f"Cannot convert {value!r} to a DType: {e}") from None
    dtype = _DTYPES.get(datatype)
    if dtype is None:
        dtype = _DTYPES[datatype] = DType(datatype)
    return dtype


float16 = half = as_dtype(DT_HALF)
float32 = as_dtype(DT_FLOAT)
float64 = double = as_dtype(DT_DOUBLE)
bfloat16 = as_dtype(DT_BFLOAT16)
int8 = as_dtype(DT_INT8)
int16 = as_dtype(DT_INT16)
int32 = as_dtype(DT_INT32)
int64 = as_dtype(DT_INT64)
uint8 = as_dtype(DT_UINT8)
uint16 = as_dtype(DT_UINT16)
uint32 = as_dtype(DT_UINT32)
uint64 = as_dtype(DT_UINT64)
bool = as_dtype(DT_BOOL)  # noqa: A001 (TensorFlow's name)
string = as_dtype(DT_STRING)
complex64 = as_dtype(DT_COMPLEX64)
complex128 = as_dtype(DT_COMPLEX128)
resource = as_dtype(20)
variant = as_dtype(21)

# The names opkit exports at the top level (opkit.float32, ...).
_PUBLIC_DTYPES = ("float16", "half", "float32", "float64", "double",
                  "bfloat16", "int8", "int16", "int32", "int64", "uint8",
                  "uint16", "uint32", "uint64", "bool", "string",
                  "complex64", "complex128", "resource", "variant")
