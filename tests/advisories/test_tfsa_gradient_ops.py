"""Regression tests for the advisories against TensorFlow's gradient ops
(MaxPoolGrad, AvgPoolGrad, FusedBatchNormGrad*, UnsortedSegmentSum), which
apply to opkit since it has those ops. Each feeds the advisory's input
eagerly and asserts the error TensorFlow's fix gives."""

import numpy as np

import opkit

from conftest import raises, raises_any_error


def _f32(shape, value=0.0):
    return np.full(shape, value, dtype=np.float32)


def test_tfsa_2019_002_unsorted_segment_sum_num_segments_beyond_int32():
    # TensorFlow truncated num_segments to int32; opkit keeps int64 and the
    # output of 2^40 rows is refused before anything is allocated.
    with raises_any_error(r"allocation limit|too large|out of range"):
        opkit.raw_ops.UnsortedSegmentSum(
            data=_f32([2], 1.0), segment_ids=np.array([0, 1], np.int32),
            num_segments=np.int64(1 << 40))


def test_tfsa_2021_068_max_pool_grad_empty_grad():
    with raises("InvalidArgument", r"grad"):
        opkit.raw_ops.MaxPoolGrad(
            orig_input=_f32([1, 1, 1, 1]), orig_output=_f32([1, 1, 1, 1]),
            grad=_f32([0, 0, 0, 0]), ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1],
            padding="SAME", explicit_paddings=[])


def test_tfsa_2021_148_max_pool_grad_explicit_padding_beyond_the_window():
    with raises("InvalidArgument", r"pad|shape"):
        opkit.raw_ops.MaxPoolGrad(
            orig_input=_f32([3, 0, 0, 2]), orig_output=_f32([3, 0, 0, 2]),
            grad=_f32([3, 0, 0, 2]), ksize=[1, 16, 16, 1], strides=[1, 16, 18, 1],
            padding="EXPLICIT", explicit_paddings=[0, 0, 14, 3, 15, 5, 0, 0])


def test_tfsa_2021_169_fused_batch_norm_grad_mismatched_shapes():
    with raises("InvalidArgument", r"shape|same|must"):
        opkit.raw_ops.FusedBatchNormGradV3(
            y_backprop=np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3),
            x=np.arange(2, dtype=np.float32).reshape(1, 1, 1, 2),
            scale=_f32([2], 1.0), reserve_space_1=_f32([2], 1.0),
            reserve_space_2=_f32([3], 1.0), reserve_space_3=_f32([0]),
            epsilon=1.0, data_format="NCHW", is_training=True)


def test_tfsa_2022_100_avg_pool_grad_negative_orig_input_shape():
    with raises("InvalidArgument", r"orig_input_shape|negative|non-negative|>= 0"):
        opkit.raw_ops.AvgPoolGrad(
            orig_input_shape=np.full([4], -536870912, np.int32),
            grad=np.full([1, 5, 7, 1], 0.089, np.float64), ksize=[1, 2, 2, 1],
            strides=[1, 2, 2, 1], padding="VALID", data_format="NHWC")


def test_tfsa_2023_010_avg_pool_grad_grad_not_the_pooled_shape():
    # The depth stride of 30 is refused first (Unimplemented, TensorFlow's
    # message for pooling over depth on CPU); a grad of the wrong shape for
    # a spatial window is InvalidArgument.
    with raises("Unimplemented", r"Non-spatial pooling"):
        opkit.raw_ops.AvgPoolGrad(
            orig_input_shape=np.array([11, 9, 78, 9], np.int32),
            grad=_f32([16, 16, 16, 16], 1.0), ksize=[1, 40, 128, 1],
            strides=[1, 128, 128, 30], padding="SAME", data_format="NHWC")


def test_tfsa_2023_010_avg_pool_grad_spatial_window_wrong_grad_shape():
    with raises("InvalidArgument", r"grad"):
        opkit.raw_ops.AvgPoolGrad(
            orig_input_shape=np.array([11, 9, 78, 9], np.int32),
            grad=_f32([16, 16, 16, 16], 1.0), ksize=[1, 40, 128, 1],
            strides=[1, 128, 128, 1], padding="SAME", data_format="NHWC")
