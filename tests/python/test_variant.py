"""Variant outputs in eager calls: an op returning DT_VARIANT (a TensorList)
gives an opaque opkit.VariantTensor that goes back into the ops taking it,
as a resource output gives an opkit.ResourceTensor."""

import numpy as np
import pytest

import opkit

raw = opkit.raw_ops


def _reserve(n=3, shape=(2,)):
    return raw.TensorListReserve(element_shape=np.int32(list(shape)),
                                 num_elements=np.int32(n), element_dtype=np.float32)


def test_reserve_returns_an_opaque_variant_tensor():
    handle = _reserve()
    assert isinstance(handle, opkit.VariantTensor)
    assert handle.dtype == "variant"
    assert handle.shape == ()
    # The variant's TypeName(), as TensorFlow spells it.
    assert handle.type_name == "tensorflow::TensorList"
    assert repr(handle) == "<opkit.VariantTensor shape=[] type='tensorflow::TensorList'>"


def test_set_items_then_stack():
    handle = _reserve()
    for i, row in enumerate([[1, 2], [3, 4], [5, 6]]):
        handle = raw.TensorListSetItem(input_handle=handle, index=np.int32(i),
                                       item=np.float32(row))
        assert isinstance(handle, opkit.VariantTensor)
    stacked = raw.TensorListStack(input_handle=handle, element_shape=np.int32([2]),
                                  element_dtype=np.float32)
    np.testing.assert_array_equal(stacked, np.float32([[1, 2], [3, 4], [5, 6]]))


def test_set_item_leaves_the_list_it_was_given_unchanged():
    # TensorFlow's list ops are functional: the old handle still holds the
    # old list.
    empty = _reserve(n=2)
    filled = raw.TensorListSetItem(input_handle=empty, index=np.int32(0),
                                   item=np.float32([7, 8]))
    got = raw.TensorListGetItem(input_handle=filled, index=np.int32(0),
                                element_shape=np.int32([2]), element_dtype=np.float32)
    np.testing.assert_array_equal(got, [7, 8])
    old = raw.TensorListGetItem(input_handle=empty, index=np.int32(0),
                                element_shape=np.int32([2]), element_dtype=np.float32)
    np.testing.assert_array_equal(old, [0, 0])


def test_python_values_next_to_a_variant_input():
    # A plain int index and a list item go through the argument converter.
    handle = raw.TensorListSetItem(input_handle=_reserve(n=1), index=0, item=[1.5, 2.5])
    stacked = raw.TensorListStack(input_handle=handle, element_shape=[2],
                                  element_dtype=np.float32)
    np.testing.assert_array_equal(stacked, np.float32([[1.5, 2.5]]))


def test_a_variant_input_refuses_other_values():
    with pytest.raises(TypeError, match="expected a variant tensor"):
        raw.TensorListStack(input_handle=[1.0, 2.0], element_shape=[2],
                            element_dtype=np.float32)
    # A resource tensor is not a variant.
    handle = raw.VarHandleOp(dtype=np.float32, shape=[2], shared_name="not_a_list")
    with pytest.raises((TypeError, opkit.errors.InvalidArgumentError)):
        raw.TensorListStack(input_handle=handle, element_shape=[2], element_dtype=np.float32)

