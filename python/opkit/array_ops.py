"""The basics of TensorFlow's Python API under TensorFlow's names, as thin
wrappers over the generated op functions (opkit.ops). Each works in both
modes: inside `with graph.as_default():` it adds nodes and returns Tensors,
outside it runs now (numpy in, numpy out).

    opkit.constant([[1., 2.]])                  # eager: a numpy array
    x = opkit.placeholder(opkit.float32, [None, 2])     # graph only
    opkit.reduce_sum(opkit.matmul(x, w), axis=1)

opkit re-exports them at the top level (opkit.constant, opkit.matmul, ...);
opkit.nn holds the neural-network ones.
"""

import numpy as np

from opkit import _op_gen
from opkit import dtypes as _dtypes
from opkit import framework as _framework
from opkit.ops import _internal as _ops


def _np_dtype(dtype):
    return None if dtype is None else np.dtype(_dtypes.as_dtype(dtype).as_numpy_dtype)


def _rank(x):
    """The static rank of a Tensor, Variable or array-like (None unknown)."""
    if isinstance(x, np.ndarray):
        return x.ndim
    if isinstance(x, (_framework.Tensor, _framework.Variable)):
        return x.shape.rank
    return np.ndim(x)


def constant(value, dtype=None, shape=None, name="Const"):
    """A constant: the value converted by TensorFlow's rules (to `dtype`
    when given), filled to `shape` when it is a scalar or reshaped when it
    has as many elements. A Const node in a graph, a numpy array eagerly."""
    if isinstance(value, (_framework.Tensor, _framework.Variable)):
        raise TypeError("opkit.constant takes a Python or numpy value, not a "
                        "Tensor; use opkit.identity to copy a tensor")
    target = _np_dtype(dtype)
    arr = _op_gen.to_array(value, "opkit.constant", target)
    if target is not None and arr.dtype != target:
        if not np.can_cast(arr.dtype, target, "same_kind"):
            raise TypeError(f"opkit.constant: cannot convert a {arr.dtype} value "
                            f"to {_dtypes.as_dtype(dtype).name}")
        arr = arr.astype(target)
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == int(np.prod(shape, dtype=np.int64)):
            arr = arr.reshape(shape)
        else:
            raise TypeError(f"opkit.constant: a value of {arr.size} elements "
                            f"cannot take the shape {list(shape)}")
    graph = _framework.get_default_graph()
    if graph is None:
        # An EagerTensor (so that operators on it are recorded by tapes) of
        # its own, as tf.constant: later writes to `value` do not change it.
        from opkit import backprop  # noqa: PLC0415 (backprop imports opkit.ops users)
        return _aligned_copy(arr).view(backprop.EagerTensor)
    return graph._const(np.ascontiguousarray(arr), name or "Const")


# The alignment opkit's allocator gives (kAllocatorAlignment): an input
# aligned so is taken without a copy by every op call.
_ALIGNMENT = 64


def _aligned_copy(arr):
    """A C-contiguous copy of `arr` whose data is 64-byte aligned."""
    if arr.dtype.kind in "OSUV" or arr.nbytes == 0:
        return np.array(arr, copy=True, order="C")
    raw = np.empty(arr.nbytes + _ALIGNMENT, np.uint8)
    offset = (-raw.ctypes.data) % _ALIGNMENT
    out = raw[offset:offset + arr.nbytes].view(arr.dtype).reshape(arr.shape)
    np.copyto(out, arr)
    return out


def placeholder(dtype, shape=None, name=None):
    """A value fed at Session.run (graph mode only, as in TensorFlow)."""
    if _framework.get_default_graph() is None:
        raise RuntimeError(
            "opkit.placeholder() is not compatible with eager execution: call "
            "it inside `with graph.as_default():`")
    return _ops.placeholder(dtype=_dtypes.as_dtype(dtype),
                            shape=_framework._shape_attr(shape), name=name)


def identity(input, name=None):  # noqa: A002 (TensorFlow's name)
    return _ops.identity(input, name=name)


def cast(x, dtype, name=None):
    return _ops.cast(x, _dtypes.as_dtype(dtype), name=name)


def add(x, y, name=None):
    return _ops.add_v2(x, y, name=name)


def subtract(x, y, name=None):
    return _ops.sub(x, y, name=name)


def multiply(x, y, name=None):
    return _ops.mul(x, y, name=name)


def divide(x, y, name=None):
    return _framework._truediv(x, y) if name is None else _ops.real_div(x, y, name=name)


def reshape(tensor, shape, name=None):
    return _ops.reshape(tensor, np.asarray(shape, np.int32)
                        if not isinstance(shape, _framework.Tensor) else shape,
                        name=name)


def transpose(a, perm=None, name=None):
    if perm is None:
        rank = _rank(a)
        if rank is None:
            raise ValueError("opkit.transpose without perm needs a known rank")
        perm = list(range(rank))[::-1]
    return _ops.transpose(a, np.asarray(perm, np.int32), name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False,
           adjoint_b=False, name=None):
    """a @ b for matrices (MatMul) or batches of them (BatchMatMulV2)."""
    if _rank(a) == 2 and _rank(b) == 2 and not (adjoint_a or adjoint_b):
        return _ops.mat_mul(a, b, transpose_a=transpose_a,
                            transpose_b=transpose_b, name=name)
    if transpose_a or transpose_b:
        if not (adjoint_a or adjoint_b) and all(
                not _dtypes.as_dtype(_dtype_of(v)).is_complex for v in (a, b)):
            adjoint_a, adjoint_b = transpose_a, transpose_b
        else:
            raise ValueError("matmul: give transpose_* or adjoint_*, not both")
    return _ops.batch_mat_mul_v2(a, b, adj_x=adjoint_a, adj_y=adjoint_b, name=name)


def _dtype_of(x):
    if isinstance(x, (_framework.Tensor, _framework.Variable)):
        return x.dtype
    return np.asarray(x).dtype


def _axes(input_tensor, axis):
    if axis is None:
        rank = _rank(input_tensor)
        if rank is None:
            return _ops.range(0, _ops.rank(input_tensor), 1)
        return np.arange(rank, dtype=np.int32)
    if isinstance(axis, _framework.Tensor):
        return axis
    return np.asarray(axis, dtype=np.int32)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum over `axis` (an int or list; None: every dimension)."""
    return _ops.sum(input_tensor, _axes(input_tensor, axis), keep_dims=keepdims,
                    name=name)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean over `axis` (an int or list; None: every dimension)."""
    return _ops.mean(input_tensor, _axes(input_tensor, axis), keep_dims=keepdims,
                     name=name)


def zeros_like(input, dtype=None, name=None):  # noqa: A002 (TensorFlow's name)
    if dtype is not None:
        input = cast(input, dtype)
    return _ops.zeros_like(input, name=name)


def ones_like(input, dtype=None, name=None):  # noqa: A002 (TensorFlow's name)
    if dtype is not None:
        input = cast(input, dtype)
    return _ops.ones_like(input, name=name)


def shape(input, out_type=None, name=None):  # noqa: A002 (TensorFlow's name)
    """The shape of `input` as a 1-D tensor of `out_type` (int32 default)."""
    return _ops.shape(input, out_type=_dtypes.as_dtype(out_type or _dtypes.int32),
                      name=name)


def size(input, out_type=None, name=None):  # noqa: A002 (TensorFlow's name)
    return _ops.size(input, out_type=_dtypes.as_dtype(out_type or _dtypes.int32),
                     name=name)


def rank(input, name=None):  # noqa: A002 (TensorFlow's name)
    return _ops.rank(input, name=name)


def stop_gradient(input, name=None):  # noqa: A002 (TensorFlow's name)
    """`input` unchanged; gradients do not flow back through it."""
    return _ops.stop_gradient(input, name=name)


def square(x, name=None):
    return _ops.square(x, name=name)


def sqrt(x, name=None):
    return _ops.sqrt(x, name=name)


def rsqrt(x, name=None):
    return _ops.rsqrt(x, name=name)


def exp(x, name=None):
    return _ops.exp(x, name=name)


def log(x, name=None):
    return _ops.log(x, name=name)


def abs(x, name=None):  # noqa: A001 (TensorFlow's name)
    return _ops.abs(x, name=name)


def negative(x, name=None):
    return _ops.neg(x, name=name)


def maximum(x, y, name=None):
    return _ops.maximum(x, y, name=name)


def minimum(x, y, name=None):
    return _ops.minimum(x, y, name=name)


def pow(x, y, name=None):  # noqa: A001 (TensorFlow's name)
    return _ops.pow(x, y, name=name)


def equal(x, y, name=None):
    return _ops.equal(x, y, name=name)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """Maximum over `axis` (an int or list; None: every dimension)."""
    return _ops.max(input_tensor, _axes(input_tensor, axis), keep_dims=keepdims,
                    name=name)


def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """Minimum over `axis` (an int or list; None: every dimension)."""
    return _ops.min(input_tensor, _axes(input_tensor, axis), keep_dims=keepdims,
                    name=name)


def argmax(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002
    """Index of the largest value along `axis` (TensorFlow 2: axis 0 when
    None), as `output_type` (int64 by default)."""
    return _ops.arg_max(input, np.int32(0 if axis is None else axis),
                        output_type=output_type, name=name)


def expand_dims(input, axis, name=None):  # noqa: A002 (TensorFlow's name)
    return _ops.expand_dims(input, np.int32(axis), name=name)


def squeeze(input, axis=None, name=None):  # noqa: A002 (TensorFlow's name)
    if axis is None:
        axis = []
    elif isinstance(axis, int):
        axis = [axis]
    return _ops.squeeze(input, squeeze_dims=list(axis), name=name)


def concat(values, axis, name="concat"):
    return _ops.concat_v2(list(values), np.int32(axis), name=name)


def stack(values, axis=0, name="stack"):
    return _ops.pack(list(values), axis=axis, name=name)


def zeros(shape, dtype=_dtypes.float32, name=None):
    """A tensor of `shape` filled with zeros."""
    value = np.zeros(tuple(int(d) for d in shape), _np_dtype(dtype))
    return constant(value, name=name or "zeros")


def ones(shape, dtype=_dtypes.float32, name=None):
    """A tensor of `shape` filled with ones."""
    value = np.ones(tuple(int(d) for d in shape), _np_dtype(dtype))
    return constant(value, name=name or "ones")


def add_n(inputs, name=None):
    return _ops.add_n(list(inputs), name=name)
