"""Bad inputs from Python give opkit errors (or ValueError/TypeError naming
the argument), never a RecursionError, a garbled message or a hang: deep
nesting, bool bytes other than 0/1, empty lists, uninitialised variables,
graph-only ops called eagerly, messages holding bytes that are not UTF-8,
and loops bounded by a Session.run timeout."""

import numpy as np
import pytest

import opkit
from opkit import errors


# --- Nested lists ----------------------------------------------------------------

def _nested(depth):
    value = [0]
    for _ in range(depth - 1):
        value = [value]
    return value


def test_deeply_nested_list_is_a_value_error_naming_the_argument():
    with pytest.raises(ValueError, match=r"argument 'input'.*nested"):
        opkit.ops.identity(_nested(10000))


def test_deeply_nested_feed_is_a_value_error():
    graph = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_INT32 } } }
"""
    with opkit.Session(graph) as s:
        with pytest.raises(ValueError, match=r"feed 'x'.*nested"):
            s.run("y", {"x": _nested(10000)})


def test_nesting_up_to_the_rank_limit_still_converts():
    out = opkit.ops.identity(_nested(20))
    assert out.shape == (1,) * 20


# --- Bools ---------------------------------------------------------------------

def _odd_bools():
    # Bytes 0, 1, 2 and 255 seen as numpy bools: numpy calls 2 and 255 True.
    return np.frombuffer(bytes([0, 1, 2, 255]), dtype=np.bool_)


def test_bool_input_bytes_other_than_one_are_true():
    out = opkit.ops.logical_not(_odd_bools())
    np.testing.assert_array_equal(out.view(np.uint8), [1, 0, 0, 0])
    out = opkit.ops.logical_and(_odd_bools(), _odd_bools())
    np.testing.assert_array_equal(out.view(np.uint8), [0, 1, 1, 1])


def test_large_bool_input_bytes_other_than_one_are_true():
    # Large enough for the zero-copy path.
    raw = np.zeros(4096, dtype=np.uint8)
    raw[1::2] = 7
    out = opkit.ops.logical_not(raw.view(np.bool_))
    assert set(np.unique(out.view(np.uint8))) == {0, 1}
    np.testing.assert_array_equal(out, ~(raw != 0))
    assert raw[1] == 7  # the caller's array is left as it was


def test_bool_feed_bytes_other_than_one_are_true():
    graph = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "y" op: "LogicalNot" input: "x" }
"""
    with opkit.Session(graph) as s:
        out = s.run("y", {"x": _odd_bools()})
    np.testing.assert_array_equal(out.view(np.uint8), [1, 0, 0, 0])


def test_bool_tensor_proto_bytes_other_than_one_are_true():
    graph = r"""
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
       attr { key: "value" value { tensor { dtype: DT_BOOL
         tensor_shape { dim { size: 4 } } tensor_content: "\000\001\002\377" } } } }
node { name: "y" op: "LogicalNot" input: "c" }
"""
    with opkit.Session(graph) as s:
        out = s.run("y")
    np.testing.assert_array_equal(out.view(np.uint8), [1, 0, 0, 0])


# --- Empty lists -----------------------------------------------------------------

def test_empty_list_takes_the_default_dtype_of_its_type_attr():
    out = opkit.ops.transpose(np.float32(3), [])
    assert out == 3
    out = opkit.raw_ops.Transpose(x=np.float32(3), perm=[])
    assert out == 3


def test_empty_list_takes_the_declared_dtype():
    from opkit import _op_gen
    for target in (np.int32, np.int64, np.bool_, np.float64):
        arr = _op_gen.to_array([], "argument 'x'", np.dtype(target))
        assert arr.dtype == target and arr.shape == (0,)
    arr = _op_gen.to_array([[], []], "argument 'x'", np.dtype(np.int64))
    assert arr.dtype == np.int64 and arr.shape == (2, 0)
    out = opkit.ops.reshape(np.float32([5]), [])
    assert out.shape == ()


# --- Attrs -----------------------------------------------------------------------

def test_shape_none_means_unknown_shape():
    out = opkit.raw_ops.PlaceholderWithDefault(input=np.float32([1, 2]),
                                               shape=None)
    np.testing.assert_array_equal(out, [1, 2])


# --- Graph-only ops eagerly ------------------------------------------------------

def test_eager_switch_is_an_invalid_argument_error():
    with pytest.raises(errors.InvalidArgumentError, match="Switch"):
        opkit.ops.switch(np.float32([1]), True)


def test_eager_variable_v2_is_failed_precondition():
    with pytest.raises(errors.FailedPreconditionError,
                       match="Attempting to use uninitialized value"):
        opkit.raw_ops.VariableV2(shape=[2], dtype=np.float32)


# --- Variables in a Session ---------------------------------------------------------

VARIABLE_GRAPH = """
node { name: "v" op: "VariableV2"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
"""


def test_fetching_an_uninitialized_variable_is_failed_precondition():
    with opkit.Session(VARIABLE_GRAPH) as s:
        with pytest.raises(errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value v"):
            s.run("v")


# --- Error messages ----------------------------------------------------------------

def test_message_with_bytes_that_are_not_utf8_reaches_python_escaped():
    with pytest.raises(errors.InvalidArgumentError) as info:
        opkit.raw_ops.MaxPool(input=np.ones((1, 2, 2, 1), np.float32),
                              ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1],
                              padding=b"SA\xff\x00ME")
    message = str(info.value)
    assert "padding" in message
    assert "\\xff" in message and "\\x00" in message and "ME" in message
    assert "\x00" not in message


def test_message_with_a_nul_is_not_cut():
    with pytest.raises(errors.InvalidArgumentError) as info:
        opkit.raw_ops.MaxPool(input=np.ones((1, 2, 2, 1), np.float32),
                              ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1],
                              padding=b"SA\x00ME")
    assert "SA\\x00ME" in str(info.value)


# --- Loops -------------------------------------------------------------------------

def _while_graph(limit):
    enter = 'attr { key: "T" value { type: DT_INT32 } } ' \
            'attr { key: "frame_name" value { s: "w" } }'
    t = 'attr { key: "T" value { type: DT_INT32 } }'
    const = ('node {{ name: "{}" op: "Const" {} '
             'attr {{ key: "dtype" value {{ type: DT_INT32 }} }} '
             'attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 '
             'tensor_shape {{}} int_val: {} }} }} }} }}\n')
    return (
        const.format("zero", "", 0) + const.format("limit", "", limit) +
        f'node {{ name: "w/Enter" op: "Enter" input: "zero" {enter} }}\n'
        f'node {{ name: "w/limit" op: "Enter" input: "limit" {enter} '
        'attr { key: "is_constant" value { b: true } } }\n'
        f'node {{ name: "w/Merge" op: "Merge" input: "w/Enter" '
        f'input: "w/NextIteration" {t} attr {{ key: "N" value {{ i: 2 }} }} }}\n'
        f'node {{ name: "w/Less" op: "Less" input: "w/Merge" input: "w/limit" {t} }}\n'
        'node { name: "w/LoopCond" op: "LoopCond" input: "w/Less" }\n'
        f'node {{ name: "w/Switch" op: "Switch" input: "w/Merge" '
        f'input: "w/LoopCond" {t} }}\n'
        f'node {{ name: "w/Identity" op: "Identity" input: "w/Switch:1" {t} }}\n' +
        const.format("w/one", 'input: "^w/Identity"', 1) +
        f'node {{ name: "w/add" op: "AddV2" input: "w/Identity" input: "w/one" {t} }}\n'
        f'node {{ name: "w/NextIteration" op: "NextIteration" input: "w/add" {t} }}\n'
        f'node {{ name: "w/Exit" op: "Exit" input: "w/Switch" {t} }}\n')


def test_while_loop_runs():
    with opkit.Session(_while_graph(10)) as s:
        assert s.run("w/Exit") == 10


def test_run_timeout_stops_a_loop_that_would_run_forever():
    with opkit.Session(_while_graph(2**31 - 1)) as s:
        for _ in range(2):  # the session stays usable
            with pytest.raises(errors.DeadlineExceededError):
                s.run("w/Exit", options=opkit.RunOptions(timeout_in_ms=50))
        assert s.run("limit") == 2**31 - 1


def test_loop_without_enter_is_rejected_before_it_runs():
    t = 'attr { key: "T" value { type: DT_INT32 } }'
    graph = (
        'node { name: "zero" op: "Const" '
        'attr { key: "dtype" value { type: DT_INT32 } } '
        'attr { key: "value" value { tensor { dtype: DT_INT32 '
        'tensor_shape {} int_val: 0 } } } }\n'
        f'node {{ name: "m" op: "Merge" input: "zero" input: "n" {t} '
        'attr { key: "N" value { i: 2 } } }\n'
        f'node {{ name: "n" op: "NextIteration" input: "m" {t} }}\n')
    with pytest.raises(errors.InvalidArgumentError, match="NextIteration"):
        with opkit.Session(graph) as s:
            s.run("m")
