"""TensorFlow's advisories TFSA-2022-051 to TFSA-2023-020 that reach an op
or API opkit has: each test feeds the advisory's input the way its proof of
concept does (eagerly through opkit.raw_ops, or a Session over a text
GraphDef) and asserts the error TensorFlow's fix gives, or the result the fix
defines for inputs that are valid after all (an empty tensor)."""

import numpy as np
import pytest

import opkit

from conftest import raises


# --- Graphs: pruning, folding and the function library -------------------------

def test_tfsa_2022_052_mul_input_missing_from_graph():
    # Constant folding looked up a Mul's inputs without checking that the
    # nodes exist.
    graph = """
node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 2 } } } }
node { name: "m" op: "Mul" input: "a" input: "missing"
       attr { key: "T" value { type: DT_FLOAT } } }
"""
    with raises("InvalidArgument", r"unknown input node 'missing'"):
        with opkit.Session(graph) as s:
            s.run("m")


def test_tfsa_2022_053_const_with_negative_dim():
    # A shape from the graph file with a negative size reached a
    # PartialTensorShape CHECK during constant folding.
    graph = """
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT
         tensor_shape { dim { size: -5 } } float_val: 1 } } } }
node { name: "y" op: "Identity" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
"""
    with raises("InvalidArgument", r"-5"):
        with opkit.Session(graph) as s:
            s.run("y")


def test_tfsa_2022_054_self_recursive_function():
    # A function in the GraphDef's library that calls itself: resolving it
    # recursed without end. opkit does not run library functions, so a node
    # calling one is an unknown op, reported, not a stack overflow.
    graph = """
node { name: "call" op: "SomeOp" }
library {
  function {
    signature { name: "SomeOp" description: "Self recursive op" }
    node_def { name: "1" op: "SomeOp" }
    node_def { name: "2" op: "SomeOp" }
  }
}
"""
    with raises("NotFound", r"Op type not registered 'SomeOp'"):
        with opkit.Session(graph) as s:
            s.run("call")


# --- Eager inputs the Python layer converts ---------------------------------------

def test_tfsa_2022_072_empty_resource_handle():
    # QueueIsClosedV2(handle=[]): an empty tensor where a resource handle
    # goes bound a reference to null. opkit's eager layer takes only a
    # resource tensor (one a handle op returned) where a resource goes.
    with pytest.raises(TypeError, match=r"resource"):
        opkit.raw_ops.ReadVariableOp(resource=[], dtype=np.float32)


def test_tfsa_2022_073_shape_attr_given_as_a_tensor():
    # PlaceholderWithDefault(shape=<a qint8 tensor>) handed the shape attr
    # parser a null value.
    with raises("InvalidArgument", r"'shape' expects a shape"):
        opkit.raw_ops.PlaceholderWithDefault(
            input=np.array([2]), shape=np.array([1], dtype=np.int8))


def test_tfsa_2022_146_broadcast_to_zero_and_overflowing_dims():
    # BroadcastTo([1], shape=0..20): one dimension is 0 and the product of
    # the others overflows int64, so numpy cannot describe the result; the
    # bridge dereferenced the null array it got back. opkit passes numpy's
    # own error on.
    with pytest.raises(ValueError, match=r"array is too big"):
        opkit.raw_ops.BroadcastTo(input=np.array([1], dtype=np.int32),
                                  shape=np.arange(21))


def test_tfsa_2022_152_list_attr_given_as_a_2d_tensor():
    # extract_volume_patches(ksizes=<a 2-D qint16 tensor>) handed the
    # list(int) attr parser a null value.
    ksizes = np.array([[1, 4], [5, 2]], dtype=np.int16)
    with raises("InvalidArgument", r"'ksizes' expects a list of int"):
        opkit.raw_ops.ExtractImagePatches(
            images=np.ones([1, 2, 2, 1], np.float32), ksizes=ksizes,
            strides=ksizes, rates=[1, 1, 1, 1], padding="VALID")


# --- Shapes that overflow or are not what the op needs ----------------------------

def test_tfsa_2022_076_space_to_batch_nd_block_shape_overflow():
    with raises("InvalidArgument", r"block_shape|overflow|positive"):
        opkit.raw_ops.SpaceToBatchND(
            input=np.full([10, 19, 22], -3.5e+35, np.float32),
            block_shape=np.full([2], -1879048192, np.int64),
            paddings=np.zeros([2, 2], np.int32))


def test_tfsa_2022_085_reshape_to_255_dims():
    with raises("InvalidArgument", r"dimensions|rank|255"):
        opkit.raw_ops.Reshape(tensor=[[1]], shape=np.zeros([255], np.int64))


def test_tfsa_2022_088_tensor_list_reserve_num_elements_not_scalar():
    with raises("InvalidArgument", r"num_elements"):
        opkit.raw_ops.TensorListReserve(
            element_shape=[1, 1], num_elements=np.array([1, 1], np.int32),
            element_dtype=np.int8)


def test_tfsa_2022_091_avg_pool_ksize_out_of_range():
    # ksize [1, 1e20, 1, 1] became a negative int32 window in the kernel.
    # opkit refuses the float where an int goes, a size past int32, and a
    # window that is not positive, each naming ksize.
    def avg_pool(ksize):
        return opkit.raw_ops.AvgPool(value=np.ones([1, 1, 1, 1]), ksize=ksize,
                                     strides=[1, 1, 1, 1], padding="SAME",
                                     data_format="NHWC")
    with raises("InvalidArgument", r"'ksize' expects an int"):
        avg_pool([1, 1e20, 1, 1])
    with raises("InvalidArgument", r"ksize"):
        avg_pool([1, 2**40, 1, 1])
    with raises("InvalidArgument", r"ksize for dimension 1 was zero or negative"):
        avg_pool([1, -(2**31), 1, 1])


def test_tfsa_2022_071_depthwise_backprop_filter_sizes_not_four():
    # DepthwiseConv2dNativeBackpropFilter made a shape of filter_sizes
    # without checking it had four dims (here 13, each 2**31 - 2**28) and
    # CHECK-failed. The input gradient reads input_sizes the same way.
    args = dict(strides=[1, 1, 1, 1], padding="SAME", explicit_paddings=[],
                data_format="NHWC", dilations=[1, 1, 1, 1])
    with raises("InvalidArgument", r"filter_sizes must have 4 values"):
        opkit.raw_ops.DepthwiseConv2dNativeBackpropFilter(
            input=np.ones([1, 4, 4, 3], np.float32),
            filter_sizes=np.full([13], 1879048192, np.int32),
            out_backprop=np.ones([1, 4, 4, 3], np.float32), **args)
    with raises("InvalidArgument", r"input_sizes must have 4 values"):
        opkit.raw_ops.DepthwiseConv2dNativeBackpropInput(
            input_sizes=np.full([13], 1879048192, np.int32),
            filter=np.full([1, 1, 48, 2], 0.18, np.float32),
            out_backprop=np.full([1, 1, 48, 2], 0.18, np.float32), **args)


def test_tfsa_2022_101_conv2d_backprop_input_scalar_out_backprop():
    with raises("InvalidArgument", r"out_backprop|4-D|rank 4|4 dimensions"):
        opkit.raw_ops.Conv2DBackpropInput(
            input_sizes=np.array([65534, 65534], np.int32),
            filter=np.full([3, 3, 2, 2], 0.159749106, np.float32),
            out_backprop=np.float32(0), strides=[1, 1, 1, 1],
            padding="SAME", use_cudnn_on_gpu=True, explicit_paddings=[],
            data_format="NHWC", dilations=[1, 1, 1, 1])


def test_tfsa_2022_120_max_pool_window_larger_than_input():
    # TensorFlow's GPU kernel CHECK-failed on a window larger than the
    # input. opkit's CPU kernel, like TensorFlow's, takes NHWC only; in NHWC
    # the same window gives the empty output VALID padding implies.
    with raises("InvalidArgument", r"only supports NHWC"):
        opkit.raw_ops.MaxPool(input=np.ones([1, 1, 1, 1]), ksize=[1, 1, 2, 2],
                              strides=[1, 1, 1, 1], padding="VALID",
                              data_format="NCHW")
    out = opkit.raw_ops.MaxPool(input=np.ones([1, 1, 1, 1]),
                                ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                padding="VALID", data_format="NHWC")
    assert out.shape == (1, 0, 0, 1)


def test_tfsa_2022_121_conv2d_backprop_input_empty_out_backprop():
    # An empty out_backprop is valid: the fix returns the zeros it implies.
    out = opkit.raw_ops.Conv2DBackpropInput(
        input_sizes=np.array([3, 1, 1, 2], np.int32),
        filter=np.ones([1, 3, 2, 3]), out_backprop=np.ones([3, 1, 0, 3]),
        strides=[1, 1, 2, 1], padding="VALID")
    assert out.shape == (3, 1, 1, 2)
    assert not out.any()


def test_tfsa_2022_122_empty_tensor_list_element_shape_rank_2():
    with raises("InvalidArgument", r"element_shape"):
        opkit.raw_ops.EmptyTensorList(
            element_shape=np.ones([1, 0], np.int32),
            max_num_elements=np.int32(1), element_dtype=np.int32)


def test_tfsa_2022_124_conv2d_empty_input_explicit_padding():
    # An empty input padded to a non-empty one: the output is all padding,
    # zeros; the kernel divided by the empty input's size.
    out = opkit.raw_ops.Conv2D(
        input=np.ones([1, 0, 2, 1]), filter=np.ones([1, 1, 1, 1]),
        strides=[1, 1, 1, 1], padding="EXPLICIT",
        explicit_paddings=[0, 0, 1, 1, 1, 1, 0, 0], data_format="NHWC")
    assert out.shape == (1, 2, 4, 1)
    assert not out.any()


def test_tfsa_2022_128_tensor_list_from_tensor_element_shape_rank_4():
    with raises("InvalidArgument", r"element_shape"):
        opkit.raw_ops.TensorListFromTensor(
            tensor=np.ones([6, 6, 2], np.float32),
            element_shape=np.ones([6, 9, 1, 3], np.int64))


def test_tfsa_2022_141_range_size_overflows_int64():
    # Range's shape function cast a size past int64 to int64. Both the
    # kernel (eager) and the shape function (constant inputs in a graph)
    # must refuse it.
    with raises("InvalidArgument", r"\(\(limit - start\) / delta\) <="):
        opkit.raw_ops.Range(start=np.float64(0), limit=np.float64(1e20),
                            delta=np.float64(1))
    with raises("InvalidArgument", r"\(\(limit - start\) / delta\) <="):
        opkit.raw_ops.Range(start=np.int64(-2**63), limit=np.int64(2**63 - 1),
                            delta=np.int64(1))
    graph = """
node { name: "start" op: "Const" attr { key: "dtype" value { type: DT_DOUBLE } }
       attr { key: "value" value { tensor { dtype: DT_DOUBLE double_val: 0 } } } }
node { name: "limit" op: "Const" attr { key: "dtype" value { type: DT_DOUBLE } }
       attr { key: "value" value { tensor { dtype: DT_DOUBLE double_val: 1e20 } } } }
node { name: "delta" op: "Const" attr { key: "dtype" value { type: DT_DOUBLE } }
       attr { key: "value" value { tensor { dtype: DT_DOUBLE double_val: 1 } } } }
node { name: "r" op: "Range" input: "start" input: "limit" input: "delta"
       attr { key: "Tidx" value { type: DT_DOUBLE } } }
"""
    with raises("InvalidArgument", r"\(\(limit - start\) / delta\) <="):
        with opkit.Session(graph) as s:
            s.run("r")


def test_tfsa_2022_155_tensor_list_resize_size_not_scalar():
    handle = opkit.raw_ops.TensorListFromTensor(
        tensor=np.array([3, 4, 5], np.int32), element_shape=np.int32(-1))
    with raises("InvalidArgument", r"size"):
        opkit.raw_ops.TensorListResize(input_handle=handle,
                                       size=np.zeros([0, 2, 3, 3], np.int32))


def test_tfsa_2022_166_bool_bytes_other_than_0_and_1():
    # Printing a bool tensor cast bytes other than 0 and 1 to bool (undefined
    # behaviour). opkit makes such bytes 1 where they enter, so no kernel or
    # printer sees them.
    graph = r"""
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
       attr { key: "value" value { tensor { dtype: DT_BOOL
         tensor_shape { dim { size: 3 } } tensor_content: "\002\000\377" } } } }
node { name: "y" op: "Identity" input: "c" attr { key: "T" value { type: DT_BOOL } } }
"""
    with opkit.Session(graph) as s:
        out = s.run("y")
    np.testing.assert_array_equal(out.view(np.uint8), [1, 0, 1])


def test_tfsa_2023_012_tensor_array_concat_with_a_string_handle():
    # TensorArrayConcatV2(handle=['a', 'b']) looked the handle up in a step
    # container that eager mode does not have.
    with pytest.raises(TypeError, match=r"resource"):
        opkit.raw_ops.TensorArrayConcatV3(
            handle=np.array(["a", "b"]), flow_in=np.float32(0.1),
            dtype=np.int32)
