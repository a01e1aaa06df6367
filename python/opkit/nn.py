"""TensorFlow's tf.nn basics over opkit's ops (graph or eager, as
opkit.array_ops explains):

    opkit.nn.relu(x); opkit.nn.softmax(logits)
    opkit.nn.conv2d(images, filters, strides=1, padding="SAME")
"""

from opkit import array_ops as _array_ops
from opkit.ops import _internal as _ops


def relu(features, name=None):
    return _ops.relu(features, name=name)


def relu6(features, name=None):
    return _ops.relu6(features, name=name)


def sigmoid(x, name=None):
    return _ops.sigmoid(x, name=name)


def tanh(x, name=None):
    return _ops.tanh(x, name=name)


def softmax(logits, axis=None, name=None):
    """Softmax over the last axis (TensorFlow's default); another `axis`
    is not supported yet."""
    if axis is not None and axis != -1 and axis != _array_ops._rank(logits) - 1:
        raise NotImplementedError(
            f"opkit.nn.softmax(axis={axis}): only the last axis is supported; "
            "transpose the axis to the end first")
    return _ops.softmax(logits, name=name)


def log_softmax(logits, axis=None, name=None):
    if axis is not None and axis != -1 and axis != _array_ops._rank(logits) - 1:
        raise NotImplementedError(
            f"opkit.nn.log_softmax(axis={axis}): only the last axis is supported")
    return _ops.log_softmax(logits, name=name)


def bias_add(value, bias, data_format=None, name=None):
    return _ops.bias_add(value, bias, data_format=data_format or "NHWC", name=name)


def _four(value, what, data_format):
    """TensorFlow's 1, 2 or 4 strides/dilations as the 4 Conv2D takes."""
    if isinstance(value, int):
        value = [value]
    value = [int(v) for v in value]
    if len(value) == 1:
        value = value * 2
    if len(value) == 2:
        return [1, 1] + value if data_format == "NCHW" else [1] + value + [1]
    if len(value) == 4:
        return value
    raise ValueError(f"{what} must have 1, 2 or 4 entries, got {value}")


def conv2d(input, filters, strides, padding, data_format="NHWC",  # noqa: A002
           dilations=None, name=None):
    """2-D convolution (tf.nn.conv2d): `strides` and `dilations` an int or
    a list of 1, 2 or 4; `padding` 'SAME', 'VALID' or explicit pairs."""
    explicit = []
    if not isinstance(padding, str):
        pairs = [list(p) for p in padding]
        explicit = [int(v) for p in pairs for v in p]
        padding = "EXPLICIT"
    return _ops.conv2d(input, filters, strides=_four(strides, "strides", data_format),
                       padding=padding, explicit_paddings=explicit,
                       data_format=data_format,
                       dilations=_four(1 if dilations is None else dilations,
                                       "dilations", data_format),
                       name=name)


def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """Depthwise 2-D convolution (tf.nn.depthwise_conv2d): `filter` is
    [rows, cols, in_channels, channel_multiplier]; `strides` has 4 entries
    (1, 2 accepted as for conv2d); `dilations` 2 entries (or 1 or 4)."""
    data_format = data_format or "NHWC"
    explicit = []
    if not isinstance(padding, str):
        explicit = [int(v) for p in padding for v in p]
        padding = "EXPLICIT"
    return _ops.depthwise_conv2d_native(
        input, filter, strides=_four(strides, "strides", data_format), padding=padding,
        explicit_paddings=explicit, data_format=data_format,
        dilations=_four(1 if dilations is None else dilations, "dilations", data_format),
        name=name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """2-D max pooling (tf.nn.max_pool2d): `ksize` and `strides` an int or
    a list of 1, 2 or 4."""
    return _ops.max_pool(input, ksize=_four(ksize, "ksize", data_format),
                         strides=_four(strides, "strides", data_format),
                         padding=padding, data_format=data_format, name=name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """2-D average pooling (tf.nn.avg_pool2d), as max_pool2d."""
    return _ops.avg_pool(input, ksize=_four(ksize, "ksize", data_format),
                         strides=_four(strides, "strides", data_format),
                         padding=padding, data_format=data_format, name=name)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """tf.nn.max_pool for 2-D inputs (NHWC or NCHW); other ranks are not
    supported yet."""
    return max_pool2d(input, ksize, strides, padding, data_format or "NHWC", name)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """tf.nn.avg_pool for 2-D inputs (NHWC or NCHW)."""
    return avg_pool2d(input, ksize, strides, padding, data_format or "NHWC", name)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Per-example cross-entropy of `logits` [batch, classes] against class
    indices `labels` [batch] (the loss output of the
    SparseSoftmaxCrossEntropyWithLogits op)."""
    if labels is None or logits is None:
        raise ValueError("sparse_softmax_cross_entropy_with_logits needs "
                         "labels= and logits=")
    return _ops.sparse_softmax_cross_entropy_with_logits(logits, labels, name=name)[0]
