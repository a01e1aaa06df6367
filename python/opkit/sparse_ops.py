"""TensorFlow's sparse_ops functions that opkit has (the op guide's
gradient of ZeroOut uses sparse_to_dense):

    opkit.sparse_to_dense([[1], [3]], [5], 7.0)   # [0, 7, 0, 7, 0]
"""

from opkit.ops import _internal as _ops


def sparse_to_dense(sparse_indices, output_shape, sparse_values,
                    default_value=0, validate_indices=True, name=None):
    """A dense tensor of `output_shape` holding `sparse_values` at
    `sparse_indices` and `default_value` elsewhere (tf.sparse_to_dense)."""
    return _ops.sparse_to_dense(sparse_indices, output_shape, sparse_values,
                                default_value, validate_indices=validate_indices,
                                name=name)
