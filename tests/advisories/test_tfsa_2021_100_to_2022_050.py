"""TensorFlow's security advisories TFSA-2021-100 to TFSA-2022-050 that
reach an op or API opkit has: each test feeds the advisory's input the way
its proof of concept does (eagerly through opkit.raw_ops, or through a
Session over a text GraphDef when the advisory's route is graph
construction, TensorProto decoding or the optimizer) and asserts the error
TensorFlow's fix gives. opkit's Session runs no shape functions, so a graph
here reaches the kernel; the shape functions' checks are C++ tests that
README.md names, as it says why the other advisories do not apply.
"""

import numpy as np
import pytest

import opkit
from opkit import raw_ops

from conftest import raises


def _run(graph, fetches, feeds=None):
    with opkit.Session(graph) as s:
        return s.run(fetches, feeds or {})


def _const(name, dtype, shape_dims, values=""):
    dims = " ".join(f"dim {{ size: {d} }}" for d in shape_dims)
    return (f'node {{ name: "{name}" op: "Const" '
            f'attr {{ key: "dtype" value {{ type: {dtype} }} }} '
            f'attr {{ key: "value" value {{ tensor {{ dtype: {dtype} '
            f'tensor_shape {{ {dims} }} {values} }} }} }} }}\n')


# TFSA-2021-117: a negative num_elements made TensorListReserve resize a
# std::vector to a huge size and abort.
def test_tfsa_2021_117_tensor_list_reserve_negative():
    with raises("InvalidArgument", r"num_elements.*non.?negative.*-1"):
        raw_ops.TensorListReserve(element_shape=np.int32([1]),
                                  num_elements=np.int32([-1]),
                                  element_dtype=np.int32)


# TFSA-2021-143: a negative max_output_size with padding resized the
# selection vector to a huge size.
def test_tfsa_2021_143_nms_v5_negative_max_output_size():
    with raises("InvalidArgument", r"output size must be non-negative.*-1"):
        raw_ops.NonMaxSuppressionV5(
            boxes=np.float32([[0.1] * 4, [0.2] * 4, [0.3] * 4]),
            scores=np.float32([1.0, 2.0, 3.0]),
            max_output_size=np.int32(-1),
            iou_threshold=np.float32(0.5),
            score_threshold=np.float32(0.5),
            soft_nms_sigma=np.float32(1.0),
            pad_to_max_output_size=True)


# An output shape whose element count overflows int64.
_TOO_MANY = r"more than 2\*\*63 - 1 elements"

# The shape function's message, then the kernel's.
_ZERO_FILTER_DEPTH = r"(Depth of input of filter|filter depth) must be"


# TFSA-2021-150: Conv2D's shape function divided by a zero filter depth when
# the graph held empty input and filter constants; the kernel must refuse
# them too.
def test_tfsa_2021_150_conv2d_shape_fn_zero_sizes():
    graph = (_const("x", "DT_FLOAT", [0, 0, 0, 0])
             + _const("f", "DT_FLOAT", [0, 0, 0, 0])
             + 'node { name: "y" op: "Conv2D" input: "x" input: "f" '
               'attr { key: "T" value { type: DT_FLOAT } } '
               'attr { key: "strides" value { list { i: [1, 1, 1, 1] } } } '
               'attr { key: "padding" value { s: "SAME" } } }\n')
    with raises("InvalidArgument", _ZERO_FILTER_DEPTH):
        _run(graph, "y")
    with raises("InvalidArgument", _ZERO_FILTER_DEPTH):
        raw_ops.Conv2D(input=np.zeros((0, 0, 0, 0), np.float32),
                       filter=np.zeros((0, 0, 0, 0), np.float32),
                       strides=[1, 1, 1, 1], padding="SAME")


# TFSA-2021-173: negative entries in size_splits made SplitV write outside
# its outputs.
def test_tfsa_2021_173_splitv_negative_size_splits():
    with raises("InvalidArgument", r"size_splits\[1\] = -2 (is negative|must be >= 0)"):
        raw_ops.SplitV(value=np.float32([]), size_splits=np.int32([-1, -2]),
                       split_dim=np.int32(0), num_split=2)


# TFSA-2021-175: an Exit node with no Enter before it made the executor's
# control-flow analysis dereference a missing parent frame.
def test_tfsa_2021_175_exit_without_enter():
    graph = (_const("c", "DT_BOOL", [2], "bool_val: [false, false]")
             + 'node { name: "e" op: "Exit" input: "c" '
               'attr { key: "T" value { type: DT_BOOL } } }\n')
    with raises("InvalidArgument", r"Exit.*Enter|Enter.*Exit"):
        _run(graph, "e")


# TFSA-2021-179: Transpose's shape function indexed the input's dimensions
# with a negative perm entry; the kernel must refuse it too.
def test_tfsa_2021_179_transpose_shape_fn_negative_perm():
    graph = (_const("x", "DT_INT32", [4], "int_val: [1, 2, 3, 4]")
             + _const("p", "DT_INT32", [1], "int_val: -10")
             + 'node { name: "y" op: "Transpose" input: "x" input: "p" '
               'attr { key: "T" value { type: DT_INT32 } } '
               'attr { key: "Tperm" value { type: DT_INT32 } } }\n')
    with raises("InvalidArgument", r"-10 is out of range"):
        _run(graph, "y")
    with raises("InvalidArgument", r"-10 is out of range"):
        raw_ops.Transpose(x=np.int32([1, 2, 3, 4]), perm=np.int32([-10]))


# TFSA-2021-194: Range's output size was computed through a double that
# overflowed for a huge span.
def test_tfsa_2021_194_range_float_overflow():
    with raises("InvalidArgument", r"Requires \(\(limit - start\) / delta\) <="):
        raw_ops.Range(start=np.float32(-1e38), limit=np.float32(1),
                      delta=np.float32(1))


# TFSA-2021-195: resizing to a huge size overflowed the output's element
# count and aborted in a CHECK.
@pytest.mark.parametrize("op", ["ResizeBilinear", "ResizeNearestNeighbor"])
def test_tfsa_2021_195_resize_output_overflow(op):
    with raises("InvalidArgument", _TOO_MANY):
        getattr(raw_ops, op)(images=np.ones((5, 1, 1, 1), np.float32),
                             size=np.int32([1610637938, 1610637938]))


# TFSA-2021-196: Tile with huge multiples overflowed the output's element
# count and aborted in a CHECK.
def test_tfsa_2021_196_tile_output_overflow():
    with raises("InvalidArgument", _TOO_MANY):
        raw_ops.Tile(input=np.ones((1, 1, 1), np.float32),
                     multiples=np.int32([100000000] * 3))


# TFSA-2021-198: ops that build an output shape from user dimensions aborted
# when its element count overflowed int64.
def test_tfsa_2021_198_fill_shape_overflow():
    with raises("InvalidArgument", _TOO_MANY):
        raw_ops.Fill(dims=np.int64([2 ** 40, 2 ** 40]), value=np.float32(1))


# TFSA-2021-199: pooling with a zero or negative window size crashed.
@pytest.mark.parametrize("op", ["MaxPool", "AvgPool"])
@pytest.mark.parametrize("ksize", [[1, 2, 0, 1], [1, -2, 2, 1]])
def test_tfsa_2021_199_pool_non_positive_ksize(op, ksize):
    with raises("InvalidArgument", r"ksize"):
        x = np.ones((1, 4, 4, 1), np.float32)
        args = {"MaxPool": {"input": x}, "AvgPool": {"value": x}}[op]
        getattr(raw_ops, op)(ksize=ksize, strides=[1, 1, 1, 1],
                             padding="VALID", **args)


# TFSA-2022-007: a ConcatV2 axis near INT32_MIN made the shape function's
# minimum rank negative, bypassing its check; the kernel must refuse it too.
def test_tfsa_2022_007_concat_shape_fn_huge_axis():
    axis = np.int32(0xB500005B - 2 ** 32)
    graph = (_const("a", "DT_INT32", [3], "int_val: [1, 2, 3]")
             + _const("b", "DT_INT32", [3], "int_val: [4, 5, 6]")
             + _const("axis", "DT_INT32", [], f"int_val: {int(axis)}")
             + 'node { name: "y" op: "ConcatV2" input: "a" input: "b" '
               'input: "axis" attr { key: "N" value { i: 2 } } '
               'attr { key: "T" value { type: DT_INT32 } } '
               'attr { key: "Tidx" value { type: DT_INT32 } } }\n')
    with raises("InvalidArgument", str(int(axis)) + "|rank"):
        _run(graph, "y")
    with raises("InvalidArgument", str(int(axis)) + "|rank"):
        raw_ops.ConcatV2(values=[np.int32([1, 2, 3]), np.int32([4, 5, 6])],
                         axis=axis)


# TFSA-2022-015: more ops built overflowing shapes and aborted.
def test_tfsa_2022_015_broadcast_to_shape_overflow():
    with raises("InvalidArgument", _TOO_MANY):
        raw_ops.BroadcastTo(input=np.float32(1),
                            shape=np.int64([2 ** 32, 2 ** 32]))


# TFSA-2022-028: Range with int64 bounds overflowed `limit - start`.
def test_tfsa_2022_028_range_int64_overflow():
    with raises("InvalidArgument", r"Requires \(\(limit - start\) / delta\) <="):
        raw_ops.Range(start=np.int64(-(2 ** 63) + 1),
                      limit=np.int64(2 ** 63 - 1), delta=np.int64(1))


# TFSA-2022-033: decoding a TensorProto with an invalid dtype or shape hit a
# CHECK.
@pytest.mark.parametrize("tensor,match", [
    ("dtype: 1000 tensor_shape { dim { size: 0 } }",
     r"unknown dtype enum \(1000\)"),
    ("dtype: DT_FLOAT tensor_shape { dim { size: -5 } }", r"negative"),
])
def test_tfsa_2022_033_const_invalid_tensor_proto(tensor, match):
    graph = ('node { name: "c" op: "Const" '
             'attr { key: "dtype" value { type: DT_FLOAT } } '
             f'attr {{ key: "value" value {{ tensor {{ {tensor} }} }} }} }}\n')
    with raises("InvalidArgument", match):
        _run(graph, "c")


# TFSA-2022-037: Assign copied an uninitialized right-hand side.
def test_tfsa_2022_037_assign_uninitialized_value():
    var = ('node {{ name: "{}" op: "VariableV2" '
           'attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} '
           'attr {{ key: "shape" value {{ shape {{ dim {{ size: 2 }} }} }} }} }}\n')
    graph = (var.format("a") + var.format("b")
             + 'node { name: "assign" op: "Assign" input: "a" input: "b" '
               'attr { key: "T" value { type: DT_FLOAT } } }\n')
    with raises("Internal", r"Right hand side of Assign \('b'\) is not "
                            r"initialized"):
        _run(graph, "assign")


# TFSA-2022-044: the optimizer's Identity removal assumed an Identity has an
# input.
def test_tfsa_2022_044_identity_without_input():
    graph = ('node { name: "i" op: "Identity" '
             'attr { key: "T" value { type: DT_FLOAT } } }\n')
    with raises("InvalidArgument", r"input"):
        _run(graph, "i")


# TFSA-2022-045: sizing a TensorProto with a partial or overflowing shape
# hit a CHECK.
@pytest.mark.parametrize("dims", [[-1], [2 ** 40, 2 ** 40]])
def test_tfsa_2022_045_const_partial_or_huge_shape(dims):
    graph = _const("c", "DT_FLOAT", dims)
    with raises("InvalidArgument", r"negative|too large|overflow"):
        _run(graph, "c")


# TFSA-2022-046: a Const whose tensor's dtype differs from its dtype attr fed
# a binary op data of the wrong type.
def test_tfsa_2022_046_const_dtype_mismatch():
    graph = ('node { name: "c" op: "Const" '
             'attr { key: "dtype" value { type: DT_FLOAT } } '
             'attr { key: "value" value { tensor { dtype: DT_INT32 '
             'tensor_shape { dim { size: 2 } } int_val: [1, 2] } } } }\n'
             + _const("d", "DT_FLOAT", [2], "float_val: [1, 2]")
             + 'node { name: "y" op: "AddV2" input: "c" input: "d" '
               'attr { key: "T" value { type: DT_FLOAT } } }\n')
    with raises("InvalidArgument", r"Type mismatch between value \(int32\) "
                                   r"and dtype \(float\)"):
        _run(graph, "y")


# TFSA-2021-191 and TFSA-2022-050: constant folding must leave resource and
# reference tensors alone (TensorFlow deep-copied a resource tensor and
# built a Tensor of a reference dtype, both crashes).
def test_tfsa_2021_191_constant_folding_skips_resource_tensors():
    graph = (
        'node { name: "v" op: "VarHandleOp" '
        'attr { key: "dtype" value { type: DT_FLOAT } } '
        'attr { key: "shape" value { shape { dim { size: 2 } } } } '
        'attr { key: "shared_name" value { s: "v191" } } }\n'
        + _const("init", "DT_FLOAT", [2], "float_val: [3, 4]")
        + 'node { name: "assign" op: "AssignVariableOp" input: "v" '
          'input: "init" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
          'node { name: "read" op: "ReadVariableOp" input: "v" '
          'attr { key: "dtype" value { type: DT_FLOAT } } }\n')
    with opkit.Session(graph) as s:
        s.run([], targets="assign")
        np.testing.assert_array_equal(s.run("read"), np.float32([3, 4]))


def test_tfsa_2022_050_constant_folding_skips_ref_tensors():
    graph = (
        'node { name: "v" op: "VariableV2" '
        'attr { key: "dtype" value { type: DT_FLOAT } } '
        'attr { key: "shape" value { shape { dim { size: 2 } } } } }\n'
        + _const("init", "DT_FLOAT", [2], "float_val: [5, 6]")
        + 'node { name: "assign" op: "Assign" input: "v" input: "init" '
          'attr { key: "T" value { type: DT_FLOAT } } }\n'
          'node { name: "shape" op: "Shape" input: "v" '
          'attr { key: "T" value { type: DT_FLOAT } } }\n'
          'node { name: "read" op: "Identity" input: "v" '
          'attr { key: "T" value { type: DT_FLOAT } } }\n')
    with opkit.Session(graph) as s:
        s.run("assign")
        np.testing.assert_array_equal(s.run("shape"), np.int32([2]))
        np.testing.assert_array_equal(s.run("read"), np.float32([5, 6]))


# TFSA-2022-030: decoding a resource handle whose dtypes_and_shapes holds an
# invalid shape hit a CHECK.
def test_tfsa_2022_030_resource_handle_proto_with_bad_shape():
    graph = ('node { name: "c" op: "Const" '
             'attr { key: "dtype" value { type: DT_RESOURCE } } '
             'attr { key: "value" value { tensor { dtype: DT_RESOURCE '
             'tensor_shape { } resource_handle_val { name: "r" '
             'dtypes_and_shapes { dtype: DT_FLOAT '
             'shape { dim { size: -5 } } } } } } } }\n')
    with raises("InvalidArgument", r"dtypes_and_shapes.*shape"):
        _run(graph, "c")


# --- TFSA-2021-187: convolutions with a zero-size filter ----------------------

def test_tfsa_2021_187_conv2d_zero_size_filter():
    for filter_shape in ([2, 2, 2, 0], [0, 1, 2, 3]):
        with raises("InvalidArgument", r"filter must not have zero elements"):
            opkit.raw_ops.Conv2D(
                input=np.zeros([1, 3, 3, 2], np.float32),
                filter=np.zeros(filter_shape, np.float32),
                strides=[1, 1, 1, 1], padding="VALID")
