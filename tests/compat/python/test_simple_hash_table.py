"""The simple_hash_table op library (tests/compat/plugins, written against
TensorFlow's headers) and the built-in resource variables from Python: a
resource output is an opaque opkit.ResourceTensor that goes into the next op
as it is."""

import os

import numpy as np
import pytest

import opkit


@pytest.fixture(scope="module")
def table_ops():
    path = os.environ.get("OPKIT_TEST_SIMPLE_HASH_TABLE")
    if not path:
        pytest.skip("OPKIT_TEST_SIMPLE_HASH_TABLE (path of the library) is "
                    "not set")
    return opkit.load_op_library(path)


def test_insert_find_export_size(table_ops):
    table = table_ops.simple_hash_table_create(key_dtype=np.int64,
                                               value_dtype=np.float32)
    assert isinstance(table, opkit.ResourceTensor)
    assert table.dtype == "resource"
    assert table.shape == ()
    assert table.name.startswith("_AnonymousVar")
    table_ops.simple_hash_table_insert(table, np.int64([3, 1, 2]),
                                       np.float32([30, 10, 20]))
    found = table_ops.simple_hash_table_find(table, np.int64([1, 5, 3]),
                                             np.float32(-1))
    np.testing.assert_array_equal(found, np.float32([10, -1, 30]))
    assert table_ops.simple_hash_table_size(table) == 3
    table_ops.simple_hash_table_remove(table, np.int64([2]),
                                       value_dtype=np.float32)
    keys, values = table_ops.simple_hash_table_export(
        table, key_dtype=np.int64, value_dtype=np.float32)
    np.testing.assert_array_equal(keys, np.int64([1, 3]))
    np.testing.assert_array_equal(values, np.float32([10, 30]))


def test_shared_name_and_string_keys(table_ops):
    a = table_ops.simple_hash_table_create(key_dtype="string",
                                           value_dtype=np.int64,
                                           shared_name="words")
    b = table_ops.simple_hash_table_create(key_dtype="string",
                                           value_dtype=np.int64,
                                           shared_name="words")
    assert a.name == b.name == "words"
    table_ops.simple_hash_table_insert(a, ["x", "y"], np.int64([1, 2]))
    found = table_ops.simple_hash_table_find(b, ["y", "z"], np.int64(0))
    np.testing.assert_array_equal(found, np.int64([2, 0]))


def test_a_resource_input_needs_a_resource_tensor(table_ops):
    with pytest.raises(TypeError, match="expected a resource tensor"):
        table_ops.simple_hash_table_size(np.int64(1))


def test_counter_from_the_handle_op_macros(table_ops):
    counter = table_ops.simple_counter_handle_op(shared_name="py_counter")
    assert table_ops.simple_counter_increment(counter) == 1
    assert table_ops.simple_counter_increment(counter) == 2


def test_resource_variable():
    v = opkit.raw_ops.VarHandleOp(dtype=np.float32, shape=[2],
                                  shared_name="py_var")
    assert not opkit.raw_ops.VarIsInitializedOp(resource=v)
    with pytest.raises(opkit.errors.FailedPreconditionError,
                       match="Error while reading resource variable py_var"):
        opkit.raw_ops.ReadVariableOp(resource=v, dtype=np.float32)
    value = np.float32([1, 2])
    opkit.raw_ops.AssignVariableOp(resource=v, value=value)
    value[0] = 100  # The variable holds a copy.
    opkit.raw_ops.AssignAddVariableOp(resource=v, value=np.float32([1, 1]))
    np.testing.assert_array_equal(
        opkit.raw_ops.ReadVariableOp(resource=v, dtype=np.float32),
        np.float32([2, 3]))
    with pytest.raises(opkit.errors.InvalidArgumentError,
                       match="Trying to assign variable with wrong dtype"):
        opkit.raw_ops.AssignVariableOp(resource=v, value=np.int32([1, 2]))
    opkit.raw_ops.DestroyResourceOp(resource=v)
    assert not opkit.raw_ops.VarIsInitializedOp(resource=v)
