"""Regression tests for TensorFlow's advisories TFSA-2018-001 to
TFSA-2021-099 that reach an op or API opkit has (README.md says why the
others do not apply).

Each test feeds the advisory's proof-of-concept input the way it does
(opkit.raw_ops eagerly, or a Session over a text GraphDef) and asserts the
error TensorFlow's fix gives, with a message showing which check fired.
"""

import numpy as np
import pytest

import opkit
from opkit import dtypes
from opkit import errors

from conftest import raises


def _zeros(shape, dtype=np.float32):
    return np.zeros(shape, dtype=dtype)


def _run(graph, fetch, feeds=None):
    with opkit.Session(graph) as session:
        return session.run(fetch, feeds or {})


# --- TFSA-2020-001: a Python string converted to float16 -----------------------

def test_tfsa_2020_001_string_to_float16():
    # tf.constant("hello", tf.float16) crashed eagerly; opkit's analogue is
    # an op input of dtype half given a str.
    with pytest.raises(TypeError, match=r"cannot convert 'hello' to float16"):
        opkit.raw_ops.Identity(input="hello", T=dtypes.DT_HALF)


# --- TFSA-2020-010: a Const node whose attrs were tampered with ----------------

def test_tfsa_2020_010_const_without_value():
    graph = 'node { name: "c" op: "Const" ' \
            'attr { key: "dtype" value { type: DT_FLOAT } } }'
    with raises("InvalidArgument", r"missing attr 'value'"):
        _run(graph, "c")
    graph = 'node { name: "c" op: "Const" ' \
            'attr { key: "dtype" value { type: DT_FLOAT } } ' \
            'attr { key: "value" value { tensor { dtype: DT_INT32 ' \
            'tensor_shape {} int_val: 3 } } } }'
    with raises("InvalidArgument",
                r"Type mismatch between value \(int32\) and dtype \(float\)"):
        _run(graph, "c")


# --- TFSA-2020-026: Switch run eagerly -----------------------------------------

def test_tfsa_2020_026_switch_eager():
    # TensorFlow's runtime read the untaken (null) output. opkit refuses the
    # op eagerly instead, since only a graph carries the dead output.
    with raises("InvalidArgument", r"Switch.*cannot run eagerly"):
        opkit.raw_ops.Switch(data=np.int32([1, 2]), pred=True)


# --- TFSA-2020-034: an edge from an output the source node does not have -------

def test_tfsa_2020_034_edge_from_missing_output():
    graph = '''
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Identity" input: "x:5"
       attr { key: "T" value { type: DT_FLOAT } } }
'''
    with raises("InvalidArgument",
                r"invalid output 5 of source node x|refers to output 5 of node 'x'"):
        _run(graph, "y", {"x": np.float32(1)})


# --- TFSA-2021-003: numpy values converted to a non-numeric dtype --------------

def test_tfsa_2021_003_resource_dtype_from_numpy():
    # dtype 20 is DT_RESOURCE: numbers must not be taken for handles.
    with pytest.raises((TypeError, errors.OpError), match=r"resource"):
        opkit.raw_ops.Range(start=np.int32(214), limit=660, delta=129, Tidx=20)
    with pytest.raises((TypeError, errors.OpError), match=r"resource"):
        opkit.raw_ops.OneHot(indices=[62, 50], depth=136,
                             on_value=np.int32(237), off_value=158, axis=856,
                             T=20)
    # An int32 array declared to be a resource.
    with raises("InvalidArgument",
                r"expected to be a resource tensor but is a int32 tensor"):
        opkit.raw_ops.Identity(input=np.int32([1, 2]), T=20)


# --- TFSA-2021-006: Conv3D with empty tensors ----------------------------------

def test_tfsa_2021_006_conv3d_empty_filter():
    with raises("InvalidArgument", r"divisible by filter depth: 0 vs 0"):
        opkit.raw_ops.Conv3D(
            input=_zeros([0, 0, 0, 0, 0]), filter=_zeros([0, 0, 0, 0, 0]),
            strides=[1, 56, 56, 56, 1], padding="VALID", data_format="NDHWC",
            dilations=[1, 1, 1, 23, 1])


def test_tfsa_2021_006_conv3d_empty_filter_of_other_depth():
    # The filter's depth (6) divides the input's (0), so only an emptiness
    # check stops it; it was Unimplemented ("grouped") before.
    with raises("InvalidArgument", r"filter must not be empty"):
        opkit.raw_ops.Conv3D(
            input=_zeros([2, 2, 2, 2, 0]), filter=_zeros([0, 0, 2, 6, 2]),
            strides=[1, 56, 39, 34, 1], padding="VALID", data_format="NDHWC",
            dilations=[1, 1, 1, 1, 1])


# --- TFSA-2021-013, -014, -015, -027, -028: Conv2D and its gradients -----------

_CONV_ATTRS = dict(use_cudnn_on_gpu=True, explicit_paddings=[],
                   data_format="NHWC", dilations=[1, 1, 1, 1])


def test_tfsa_2021_013_conv2d_backprop_filter_empty():
    with raises("InvalidArgument",
                r"input depth must be equal to filter depth"):
        opkit.raw_ops.Conv2DBackpropFilter(
            input=_zeros([0, 0, 1, 0]), filter_sizes=np.int32([1, 1, 1, 1]),
            out_backprop=_zeros([0, 0, 1, 1]), strides=[1, 66, 18, 1],
            padding="SAME", **_CONV_ATTRS)


def test_tfsa_2021_014_conv2d_backprop_input_empty():
    # An empty filter and out_backprop of consistent shapes: the gradient is
    # all zeros (TensorFlow's fix fills it so), not a division by zero.
    out = opkit.raw_ops.Conv2DBackpropInput(
        input_sizes=np.int32([52, 1, 1, 5]), filter=_zeros([0, 1, 5, 0]),
        out_backprop=_zeros([52, 1, 1, 0]), strides=[1, 1, 1, 1],
        padding="SAME", **_CONV_ATTRS)
    np.testing.assert_array_equal(out, _zeros([52, 1, 1, 5]))


def test_tfsa_2021_015_conv2d_empty():
    with raises("InvalidArgument", r"filter depth"):
        opkit.raw_ops.Conv2D(
            input=_zeros([0, 0, 0, 0]), filter=_zeros([0, 0, 0, 0]),
            strides=[1, 1, 1, 1], padding="SAME")


def test_tfsa_2021_027_conv2d_backprop_filter_all_empty():
    # Every shape empty yet consistent: an empty gradient, no division by
    # the zero work-unit size.
    out = opkit.raw_ops.Conv2DBackpropFilter(
        input=_zeros([0, 0, 0, 0]), filter_sizes=np.int32([0, 0, 0, 0]),
        out_backprop=_zeros([0, 0, 0, 0]), strides=[1, 1, 1, 1],
        padding="SAME", **_CONV_ATTRS)
    assert out.shape == (0, 0, 0, 0)


def test_tfsa_2021_028_conv2d_backprop_filter_sizes_mismatch():
    input_ = np.float32([386.078431372549, 386.07843139643234]).reshape(
        [1, 1, 1, 2])
    with raises("InvalidArgument",
                r"input depth must be equal to filter depth"):
        opkit.raw_ops.Conv2DBackpropFilter(
            input=input_, filter_sizes=np.int32([1, 1, 1, 1]),
            out_backprop=np.float32([386.078431372549]).reshape([1, 1, 1, 1]),
            strides=[1, 66, 49, 1], padding="VALID", **_CONV_ATTRS)


def test_tfsa_2021_028_conv2d_backprop_filter_empty_batch():
    with raises("InvalidArgument",
                r"input depth must be equal to filter depth"):
        opkit.raw_ops.Conv2DBackpropFilter(
            input=_zeros([0, 1, 1, 5]), filter_sizes=np.int32([3, 8, 1, 1]),
            out_backprop=_zeros([0, 1, 1, 1]), strides=[1, 66, 49, 1],
            padding="VALID", **_CONV_ATTRS)


# --- TFSA-2021-043, -072: FusedBatchNorm with channel vectors of the wrong size -

_BN_ATTRS = dict(epsilon=0.0, exponential_avg_factor=0.0, data_format="NHWC",
                 is_training=False)


def test_tfsa_2021_043_fused_batch_norm_zero_channels():
    # x has no channels (and no elements): opkit returns the empty result
    # without dividing by the channel count, where TensorFlow's fix reports
    # an Internal error.
    empty = _zeros([0])
    out = opkit.raw_ops.FusedBatchNormV3(
        x=_zeros([1, 1, 1, 0]), scale=empty, offset=empty, mean=empty,
        variance=empty, **_BN_ATTRS)
    assert out[0].shape == (1, 1, 1, 0)
    assert out[1].shape == (0,)


def test_tfsa_2021_072_fused_batch_norm_short_scale():
    one = _zeros([1])
    with raises("InvalidArgument", r"scale.*6|6.*scale"):
        opkit.raw_ops.FusedBatchNormV3(
            x=_zeros([10, 10, 10, 6]), scale=one, offset=one, mean=one,
            variance=one, **_BN_ATTRS)


def test_tfsa_2021_072_fused_batch_norm_empty_scale():
    empty = _zeros([0])
    with raises("InvalidArgument", r"scale"):
        opkit.raw_ops.FusedBatchNormV3(
            x=_zeros([10, 10, 10, 1]), scale=empty, offset=empty, mean=empty,
            variance=empty, **_BN_ATTRS)
