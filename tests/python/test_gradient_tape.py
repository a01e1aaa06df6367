"""opkit.GradientTape: eager gradients against finite differences
(opkit.test.compute_gradient), and TensorFlow's tape rules (watching,
persistence, nesting, variables, stop_recording)."""

import contextlib

import numpy as np
import pytest

import opkit
from opkit import _opkit
from opkit.backprop import EagerTensor

RNG = np.random.default_rng(11)


def randf(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def check(f, xs, rtol=2e-2, atol=2e-3):
    theoretical, numerical = opkit.test.compute_gradient(f, xs, delta=1e-2)
    assert len(theoretical) == len(xs)
    for th, nu, x in zip(theoretical, numerical, xs):
        assert th.ndim == 2 and th.shape[1] == np.size(x)
        np.testing.assert_allclose(th, nu, rtol=rtol, atol=atol)
    return theoretical


def test_x_times_x():
    x = opkit.constant(3.0)
    assert isinstance(x, EagerTensor)
    with opkit.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) == pytest.approx(6.0)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_with_transposes(ta, tb):
    a = randf(3, 2) if ta else randf(2, 3)
    b = randf(4, 3) if tb else randf(3, 4)
    check(lambda x, y: opkit.matmul(x, y, transpose_a=ta, transpose_b=tb), [a, b])


def test_broadcasting_add_and_reductions():
    check(lambda x, y: x + y, [randf(2, 3), randf(3)])
    check(lambda x, y: x * y, [randf(2, 1), randf(1, 3)])
    check(lambda x: opkit.reduce_sum(x, axis=1), [randf(2, 3, 2)])
    check(lambda x: opkit.reduce_mean(x), [randf(2, 3)])
    check(lambda x: opkit.reduce_mean(x, axis=[0, 2], keepdims=True), [randf(2, 3, 2)])


def test_relu_softmax_and_cross_entropy():
    check(opkit.nn.relu, [np.float32([[-1.0, 0.5], [2.0, -0.3]])])
    check(opkit.nn.softmax, [randf(3, 4)])
    labels = np.int32([1, 0, 3])
    check(lambda z: opkit.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=z), [randf(3, 4)])


def test_conv2d():
    check(lambda x, w: opkit.nn.conv2d(x, w, strides=1, padding="SAME"),
          [randf(1, 4, 4, 2), randf(3, 3, 2, 2)], rtol=3e-2, atol=5e-3)


def test_compute_gradient_in_a_test_case():
    class T(opkit.test.TestCase):
        def runTest(self):  # noqa: N802 (unittest's name)
            theoretical, numerical = opkit.test.compute_gradient(
                lambda a, b: opkit.matmul(a, b), [randf(2, 3), randf(3, 2)])
            self.assertAllClose(theoretical, numerical, rtol=1e-2, atol=1e-2)
            self.assertEqual([t.shape for t in theoretical], [(4, 6), (4, 6)])
    result = T().run()
    assert result.wasSuccessful(), result.failures + result.errors

    class InSession(opkit.test.TestCase):
        def runTest(self):  # noqa: N802 (unittest's name)
            with self.test_session():
                theoretical, numerical = opkit.test.compute_gradient(
                    lambda a: opkit.nn.relu(a) * a, [np.float32([[1.0, -2.0, 3.0]])])
                self.assertAllClose(theoretical, numerical, rtol=1e-2, atol=1e-2)
                self.assertAllClose(theoretical[0], np.diag([2.0, 0.0, 6.0]))
    result = InSession().run()
    assert result.wasSuccessful(), result.failures + result.errors
    with pytest.raises(ValueError, match="list or tuple"):
        opkit.test.compute_gradient(opkit.nn.relu, np.float32([1]))


def test_multiple_paths_and_output_gradients():
    x = opkit.constant([1.0, 2.0])
    with opkit.GradientTape() as tape:
        tape.watch(x)
        y = x * x + x * 3.0
    np.testing.assert_allclose(
        tape.gradient(y, x, output_gradients=[np.float32([1, 10])]), [5, 70])


def test_stop_gradient_and_unconnected_sources():
    x = opkit.constant(5.0)
    z = opkit.constant([1.0, 2.0])
    with opkit.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = opkit.stop_gradient(x * x) + x * 2.0
    assert tape.gradient(y, x) == pytest.approx(2.0)
    assert tape.gradient(y, z) is None
    np.testing.assert_array_equal(
        tape.gradient(y, z, unconnected_gradients=opkit.UnconnectedGradients.ZERO), [0, 0])
    dx, dz = tape.gradient(y, [x, z])
    assert dx == pytest.approx(2.0) and dz is None
    assert tape.gradient(y, {"x": x})["x"] == pytest.approx(2.0)


def test_unwatched_values_are_not_differentiated():
    x = opkit.constant(2.0)
    with opkit.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


class _NodeCounts:
    """Gradient nodes run, per op type: by gradient programs (C++) and by
    the op functions (the Python path)."""

    def __init__(self):
        self.python = {}

    def as_dict(self):
        out = dict(self.python)
        for op, n in _opkit._gradient_node_counts().items():
            out[op] = out.get(op, 0) + n
        return out

    def get(self, op, default=None):
        return self.as_dict().get(op, default)

    def clear(self):
        self.python.clear()
        _opkit._count_gradient_nodes(True)


@pytest.fixture
def node_counts(monkeypatch):
    """Counts, per op type, the gradient-graph nodes the tape runs."""
    from opkit import gradient_registry
    counts = _NodeCounts()
    run = gradient_registry._PreparedNode.run

    def counting_run(node, inputs, eager):
        name = node.fn._opkit_spec.op_name
        counts.python[name] = counts.python.get(name, 0) + 1
        return run(node, inputs, eager)

    monkeypatch.setattr(gradient_registry._PreparedNode, "run", counting_run)
    _opkit._count_gradient_nodes(True)
    yield counts
    _opkit._count_gradient_nodes(False)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_gradient_of_an_unwatched_input_is_not_computed(node_counts, ta, tb):
    # As TensorFlow's eager MatMul gradient skips op.skip_input_indices: the
    # data operand of matmul(x, w) gets no gradient MatMul of its own.
    x = randf(3, 5) if ta else randf(5, 3)
    w_value = randf(4, 3) if tb else randf(3, 4)
    w = opkit.Variable(w_value)
    counts = node_counts
    with opkit.GradientTape() as tape:
        y = opkit.reduce_sum(opkit.matmul(x, w, transpose_a=ta, transpose_b=tb))
    dw = tape.gradient(y, w)
    assert counts.get("MatMul") == 1
    op_x = x.T if ta else x
    want = op_x.T @ np.ones((5, 4), np.float32)
    np.testing.assert_allclose(dw, want.T if tb else want, rtol=1e-5)

    counts.clear()
    xc = opkit.constant(x)
    with opkit.GradientTape() as tape:
        tape.watch(xc)
        y = opkit.reduce_sum(opkit.matmul(xc, w, transpose_a=ta, transpose_b=tb))
    dx, dw2 = tape.gradient(y, [xc, w])
    assert counts.get("MatMul") == 2
    np.testing.assert_allclose(dw2, dw, rtol=1e-6)
    want_x = np.ones((5, 4), np.float32) @ (w_value.T if tb else w_value).T
    np.testing.assert_allclose(dx, want_x.T if ta else want_x, rtol=1e-5)


@pytest.mark.parametrize("nested", [False, True])
def test_shape_only_gradient_nodes_run_once_per_shape(node_counts, nested):
    # Note [Shape-only gradient nodes]: Mean's gradient finds the kept
    # dimensions and the count from shapes; those nodes run on the first
    # call for a shape signature only, and each shape gets its own values,
    # in a gradient program and (nested: an outer tape records, gradients
    # go through the op functions) in Python alike.
    counts = node_counts

    def mean_grad(x, axis, keepdims):
        xc = opkit.constant(x)
        with opkit.GradientTape() as tape:
            tape.watch(xc)
            y = opkit.reduce_mean(xc, axis=axis, keepdims=keepdims)
        return tape.gradient(y, xc)

    cases = [((2, 3), None, False), ((4, 5), None, False), ((2, 3), 1, True),
             ((4, 5), 0, False), ((6, 1, 2), [0, 2], False)]
    with contextlib.ExitStack() as stack:
        if nested:
            stack.enter_context(opkit.GradientTape())
        for _ in range(2):
            for shape, axis, keepdims in cases:
                x = randf(*shape)
                np_axis = tuple(axis) if isinstance(axis, list) else axis
                count = np.size(x) // np.size(np.mean(x, axis=np_axis))
                np.testing.assert_allclose(mean_grad(x, axis, keepdims),
                                           np.full(shape, 1.0 / count, np.float32),
                                           rtol=1e-6)
        first = counts.as_dict()
        counts.clear()
        for shape, axis, keepdims in cases:
            mean_grad(randf(*shape), axis, keepdims)
    assert first.get("Shape", 0) > 0 and first.get("Rank", 0) > 0
    assert counts.get("Shape", 0) == 0 and counts.get("Rank", 0) == 0, \
        counts.as_dict()
    assert counts.get("RealDiv", 0) == len(cases)   # the returned gradient


def test_non_persistent_tape_computes_once():
    x = opkit.constant(2.0)
    with opkit.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        tape.gradient(y, x)


def test_persistent_tape_computes_many_times():
    x = opkit.constant(2.0)
    with opkit.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
        v = x * opkit.constant([1.0, 2.0])
    assert tape.gradient(y, x) == pytest.approx(4.0)
    assert tape.gradient(z, x) == pytest.approx(32.0)    # 4 x^3
    assert tape.gradient(z, y) == pytest.approx(8.0)
    np.testing.assert_allclose(tape.jacobian(v, x), [1, 2])
    assert tape.jacobian(v, opkit.constant(1.0)) is None


def test_nested_tapes_give_the_second_derivative():
    x = opkit.constant(2.0)
    with opkit.GradientTape() as outer:
        outer.watch(x)
        with opkit.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)           # 3 x^2, recorded by `outer`
    assert dy == pytest.approx(12.0)
    assert outer.gradient(dy, x) == pytest.approx(12.0)   # 6 x


def test_nested_tapes_through_pow_and_reductions():
    x = opkit.constant([1.0, 2.0])
    with opkit.GradientTape() as outer:
        outer.watch(x)
        with opkit.GradientTape() as inner:
            inner.watch(x)
            y = opkit.reduce_sum(x ** 3.0)
        dy = inner.gradient(y, x)
    np.testing.assert_allclose(dy, [3, 12], rtol=1e-5)
    np.testing.assert_allclose(outer.gradient(dy, x), [6, 12], rtol=1e-5)


def test_trainable_variables_are_watched_when_read():
    w = opkit.Variable(np.float32([[1, 2], [3, 4]]))
    frozen = opkit.Variable(np.float32([1, 1]), trainable=False)
    x = opkit.constant(np.float32([[1, 1]]))
    with opkit.GradientTape() as tape:
        y = opkit.reduce_sum(opkit.matmul(x, w) * frozen)
    assert tape.watched_variables() == [w]
    dw, dfrozen = tape.gradient(y, [w, frozen])
    np.testing.assert_allclose(dw, [[1, 1], [1, 1]])
    assert dfrozen is None
    with opkit.GradientTape(watch_accessed_variables=False) as tape:
        y = opkit.reduce_sum(w * 2.0)
    assert tape.gradient(y, w) is None
    with opkit.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = opkit.reduce_sum(w * 2.0)
    np.testing.assert_allclose(tape.gradient(y, w), [[2, 2], [2, 2]])


def test_stop_recording_and_reset():
    x = opkit.constant(3.0)
    with opkit.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            hidden = x * x
        y = x * 2.0
        tape.reset()
        tape.watch(x)
        z = x * 5.0
    assert tape.gradient(hidden, x) is None
    assert tape.gradient(y, x) is None
    assert tape.gradient(z, x) == pytest.approx(5.0)
    with pytest.raises(ValueError, match="stop_recording"):
        with tape.stop_recording():
            pass


def test_missing_gradient_names_the_op(zero_out):
    x = opkit.constant([1.0, 2.0])
    with opkit.GradientTape() as tape:
        tape.watch(x)
        y = zero_out.zero_out_macro(x)
    with pytest.raises(LookupError, match=r"No gradient defined for operation "
                       r"'ZeroOutMacro' \(op type: ZeroOutMacro\)"):
        tape.gradient(y, x)


def test_no_tape_no_recording_and_plain_arrays():
    a = np.float32([1, 2])
    assert type(opkit.ops.add_v2(a, a)) is np.ndarray
    # Outside a tape an EagerTensor's operators are numpy's (mixed dtypes).
    c = opkit.constant([1.0, 2.0])
    assert (c - np.float64([1, 2])).dtype == np.float64
    with opkit.GradientTape() as tape:
        assert type(opkit.ops.add_v2(a, a)) is EagerTensor
        assert tape._state.op_types() == []   # nothing watched: nothing recorded
    assert type(opkit.ops.add_v2(a, a)) is np.ndarray


def test_watch_refuses_what_it_cannot_track():
    with opkit.GradientTape() as tape:
        with pytest.raises(TypeError, match="cannot watch"):
            tape.watch("x")
        tape.watch(np.int32([1]))      # integers are not watched, as in TF
    assert tape._state.num_tracked() == 0
    g = opkit.Graph()
    with g.as_default():
        t = opkit.constant(1.0)
    with opkit.GradientTape() as tape:
        with pytest.raises(ValueError, match="opkit.gradients"):
            tape.watch(t)


def test_tapes_are_per_thread():
    import threading
    x = opkit.constant(2.0)
    seen = []
    with opkit.GradientTape() as tape:
        tape.watch(x)

        def other():
            seen.append(type(opkit.ops.mul(np.asarray(x), np.asarray(x))))
        th = threading.Thread(target=other)
        th.start()
        th.join()
        y = x * x
    assert seen == [np.ndarray]
    assert tape.gradient(y, x) == pytest.approx(4.0)


def test_indexing_on_the_tape_is_differentiated():
    x = opkit.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with opkit.GradientTape() as tape:
        tape.watch(x)
        y = x[1, 1:] * x[0, :2] + x[..., 0][0]
        assert tape._state.op_types().count("StridedSlice") == 4
    np.testing.assert_allclose(tape.gradient(y, x), [[7, 6, 0], [0, 1, 2]])
    # Outside a tape (and for fancy keys) indexing is numpy's.
    assert x[np.array([1, 0])].shape == (2, 3)
    assert x[0, 1] == 2.0


O = opkit.ops
# Ops whose gradients take list inputs, give list outputs, several outputs,
# constant integer inputs or attrs: the plumbing between Python and the C++
# gradient functions.
PLUMBING = {
    "concat": (lambda a, b: O.concat_v2([a, b], 1), [(2, 3), (2, 2)]),
    "split": (lambda a: O.split(1, a, num_split=2)[1] * 2.0, [(2, 4)]),
    "split_summed": (lambda a: opkit.add_n(O.split(1, a, num_split=2)), [(2, 4)]),
    "unpack": (lambda a: O.unpack(a, num=2)[0] * 3.0, [(2, 3)]),
    "pack": (lambda a, b: O.pack([a, b], axis=1), [(3,), (3,)]),
    "gather": (lambda a: O.gather_v2(a, np.int32([2, 0, 2]), np.int32(0)), [(3, 2)]),
    "tile": (lambda a: O.tile(a, np.int32([2, 1])), [(2, 3)]),
    "pad": (lambda a: O.pad(a, np.int32([[1, 0], [0, 2]])), [(2, 3)]),
    "transpose_reshape": (lambda a: opkit.reshape(opkit.transpose(a), [6]), [(2, 3)]),
    "bias_add": (lambda a, b: opkit.nn.bias_add(a, b), [(2, 3), (3,)]),
    "max_pool": (lambda a: O.max_pool(a, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                      padding="VALID"), [(1, 4, 4, 1)]),
    "avg_pool": (lambda a: O.avg_pool(a, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                      padding="SAME"), [(1, 3, 3, 2)]),
    "tanh_sigmoid": (lambda a: opkit.nn.tanh(a) * opkit.nn.sigmoid(a), [(2, 3)]),
    "cast_float64": (lambda a: opkit.cast(opkit.cast(a, opkit.float64) * 2.0,
                                          opkit.float32), [(3,)]),
    "fused_batch_norm": (lambda a, s, o: O.fused_batch_norm_v3(
        a, s + 2.0, o, np.zeros(2, np.float32), np.ones(2, np.float32),
        is_training=True)[0], [(2, 2, 2, 2), (2,), (2,)]),
}


@pytest.mark.parametrize("name", sorted(PLUMBING))
def test_gradient_plumbing_on_the_tape(name):
    fn, shapes = PLUMBING[name]
    check(fn, [randf(*s) for s in shapes])


def _tape_gradients(fn, values, nested):
    """d sum(fn(*values)) / d values, by gradient programs or (nested: an
    outer tape records) by the op functions."""
    consts = [opkit.constant(v) for v in values]
    with contextlib.ExitStack() as stack:
        if nested:
            stack.enter_context(opkit.GradientTape())
        with opkit.GradientTape() as tape:
            tape.watch(consts)
            y = fn(*consts)
        return tape.gradient(y, consts)


@pytest.mark.parametrize("name", sorted(PLUMBING))
def test_gradient_programs_agree_with_the_op_functions(node_counts, name):
    # Note [C++ tape]: a first-order gradient runs each C++ gradient as a
    # program; under an outer tape it goes through the op functions. Both
    # must give the same values (and None in the same places).
    fn, shapes = PLUMBING[name]
    values = [randf(*s) for s in shapes]
    programs = _tape_gradients(fn, values, nested=False)
    assert sum(_opkit._gradient_node_counts().values()) > 0 or \
        all(g is None for g in programs)
    node_counts.clear()
    by_functions = _tape_gradients(fn, values, nested=True)
    assert not _opkit._gradient_node_counts()     # no program ran
    for got, want in zip(programs, by_functions):
        assert (got is None) == (want is None)
        if got is not None:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_gradient_programs_run_on_many_threads():
    # Large inputs run a program with the GIL released, so threads share
    # one program's prepared kernels only one at a time (the others run
    # the nodes through the eager context).
    import threading
    w_value = randf(256, 256)
    x_value = randf(128, 256)
    want = x_value.sum(axis=0)[:, None] * np.ones((1, 256), np.float32)
    errors = []

    def work():
        try:
            for _ in range(20):
                w = opkit.constant(w_value)
                with opkit.GradientTape() as tape:
                    tape.watch(w)
                    y = opkit.reduce_sum(opkit.matmul(x_value, w))
                # Each entry is a float32 sum of 128 terms of size ~1: its
                # rounding error (~1e-5) is absolute, not relative to a sum
                # that cancels to near 0.
                np.testing.assert_allclose(tape.gradient(y, w), want, rtol=1e-4, atol=2e-5)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_a_gradient_passed_through_is_the_callers_array():
    # Identity's gradient is its output gradient itself: the program hands
    # back the caller's array, not a copy.
    x = opkit.constant([1.0, 2.0])
    seed = np.float32([3.0, 4.0])
    with opkit.GradientTape() as tape:
        tape.watch(x)
        y = O.identity(x)
    assert tape.gradient(y, x, output_gradients=[seed]) is seed


@pytest.mark.parametrize("persistent", [False, True])
def test_a_tape_used_once_lets_values_go_during_the_backward_pass(zero_out, persistent):
    # As PyTorch frees saved tensors during backward: a tape that cannot be
    # used again drops each record once its gradient is applied, so a value
    # only the later ops kept is freed before the earlier ops' gradients
    # run (memory the rest of the backward pass can reuse). A persistent
    # tape keeps everything.
    import weakref
    from opkit import gradient_registry
    seen = []

    def zero_out_grad(op, grad):
        seen.append(kept() is None)
        return grad

    opkit.RegisterGradient("ZeroOutRealNumber")(zero_out_grad)
    try:
        x = opkit.constant([1.0, 2.0, 3.0])
        with opkit.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            a = zero_out.zero_out_real_number(x)    # recorded first
            b = a * 3.0                              # only later ops keep b
            y = opkit.reduce_sum(b * b)
            kept = weakref.ref(b)
            del b
        grad = tape.gradient(y, x)
    finally:
        gradient_registry._unregister("ZeroOutRealNumber")
    assert seen == [not persistent]
    np.testing.assert_allclose(grad, 18.0 * np.asarray(a))
