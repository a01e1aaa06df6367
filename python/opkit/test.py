"""tf.test for opkit: TestCase with TensorFlow's assertions and sessions.

    class ZeroOutTest(opkit.test.TestCase):
        def testZeroOut(self):
            zero_out = opkit.load_op_library("zero_out.so")
            with self.test_session():
                result = zero_out.zero_out([5, 4, 3, 2, 1])
                self.assertAllEqual(result.eval(), [5, 0, 0, 0, 0])

    if __name__ == "__main__":
        opkit.test.main()

Inside test_session() (or session(), cached_session()) a graph is the
default graph and a session of it the default session: op functions build
nodes and Tensor.eval() runs them there. Each test method starts with a
fresh graph. evaluate() takes Tensors, arrays or structures of them.
"""

import contextlib
import tempfile
import unittest

import numpy as np

from opkit import framework as _framework
from opkit import session as _session


def main(argv=None):
    """Runs the tests of the calling module (unittest.main)."""
    return unittest.main(argv=argv, module="__main__")


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """False: opkit's Python package runs on the CPU."""
    return False


def is_built_with_cuda():
    return False


def _to_numpy(value):
    if isinstance(value, (_framework.Tensor, _framework.Variable)):
        raise TypeError("a graph Tensor has no value by itself; use "
                        "self.evaluate(t) or t.eval() inside test_session()")
    return np.asarray(value)


class TestCase(unittest.TestCase):
    """unittest.TestCase with TensorFlow's helpers (see the module
    docstring)."""

    def __init__(self, methodName="runTest"):  # noqa: N803 (unittest's name)
        super().__init__(methodName)
        self._opkit_graph = None
        self._opkit_sessions = {}
        self._tempdir = None

    def setUp(self):
        super().setUp()
        self._opkit_graph = _framework.Graph()

    def tearDown(self):
        for sess in self._opkit_sessions.values():
            sess.close()
        self._opkit_sessions = {}
        super().tearDown()

    # --- Sessions ---------------------------------------------------------------

    def get_temp_dir(self):
        """A temporary folder for this test, removed at the end."""
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(prefix="opkit_test_")
            self.addCleanup(_remove_tree, self._tempdir)
        return self._tempdir

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A session of `graph` (default: the test's graph), with the graph
        the default graph and the session the default session inside."""
        if self._opkit_graph is None:   # setUp overridden without super()
            self._opkit_graph = _framework.Graph()
        graph = graph if graph is not None else (
            _framework.get_default_graph() or self._opkit_graph)
        sess = self._opkit_sessions.get(id(graph))
        if sess is None or sess.graph is not graph:
            sess = _session.Session(graph=graph)
            self._opkit_sessions[id(graph)] = sess
        with graph.as_default(), sess.as_default():
            yield sess

    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """TensorFlow 1's name for session() (one session per graph, kept
        for the whole test)."""
        if self._testMethodName == "test_session":
            # unittest collects it by its name; as TensorFlow, skip that.
            self.skipTest("test_session is a helper, not a test")
        return self.session(graph, config, use_gpu, force_gpu)

    cached_session = session

    def evaluate(self, tensors):
        """The values of `tensors` (a Tensor, Variable, array or a list,
        tuple or dict of them): graph values run in the default session (or
        one of their graph), the rest returned as numpy arrays."""
        elements = []
        self._collect(tensors, elements)
        if not elements:
            return _map(tensors, np.asarray)
        sess = _framework.get_default_session()
        graph = elements[0].graph
        if sess is None or sess.graph is not graph:
            with self.session(graph) as s:
                values = s.run(elements)
        else:
            values = sess.run(elements)
        by_id = {id(e): v for e, v in zip(elements, values)}
        return _map(tensors, lambda x: by_id[id(x)] if id(x) in by_id else np.asarray(x))

    def _collect(self, value, out):
        if isinstance(value, (_framework.Tensor, _framework.Variable)):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            for v in value:
                self._collect(v, out)
        elif isinstance(value, dict):
            for v in value.values():
                self._collect(v, out)

    # --- Assertions -------------------------------------------------------------

    def _value(self, x):
        if isinstance(x, (_framework.Tensor, _framework.Variable)):
            return np.asarray(self.evaluate(x))
        return _to_numpy(x)

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802 (TensorFlow's name)
        """Same shape and equal elements (NaN never equals)."""
        a, b = self._value(a), self._value(b)
        if a.shape != b.shape and not (a.size == b.size == 1 and a.ndim + b.ndim <= 1):
            self.fail(f"shape mismatch: {a.shape} vs {b.shape}"
                      + (f": {msg}" if msg else ""))
        same = a == b
        if not np.all(same):
            where = np.argwhere(~np.asarray(same))
            self.fail(f"not equal where {where[:5].tolist()}: {a!r} vs {b!r}"
                      + (f": {msg}" if msg else ""))

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """Same shape and |a - b| <= atol + rtol * |b| elementwise (looser
        for float16: 1e-3); structures (lists, tuples, dicts) compared
        element by element when their items are arrays or tensors."""
        if isinstance(a, dict) and isinstance(b, dict):
            self.assertEqual(sorted(a), sorted(b), msg)
            for k in a:
                self.assertAllClose(a[k], b[k], rtol, atol, msg)
            return
        if (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))
                and len(a) == len(b) and any(isinstance(v, np.ndarray) for v in a)):
            # A list of arrays (compute_gradient's Jacobians, of different
            # shapes): item by item.
            for x, y in zip(a, b):
                self.assertAllClose(x, y, rtol, atol, msg)
            return
        a, b = self._value(a), self._value(b)
        if np.float16 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, 1e-3), max(atol, 1e-3)
        if a.shape != b.shape:
            self.fail(f"shape mismatch: {a.shape} vs {b.shape}"
                      + (f": {msg}" if msg else ""))
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            self.fail(f"not close (rtol={rtol}, atol={atol}): {a!r} vs {b!r}"
                      + (f": {msg}" if msg else ""))

    def assertNotAllClose(self, a, b, **kwargs):  # noqa: N802
        try:
            self.assertAllClose(a, b, **kwargs)
        except AssertionError:
            return
        self.fail("the two values are close")

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):  # noqa: N802
        """The numpy array's shape equals the tensor's static shape."""
        if not isinstance(np_array, (np.ndarray, np.generic)):
            raise TypeError("assertShapeEqual: the first argument must be a "
                            f"numpy array, got {type(np_array).__name__}")
        if not isinstance(tf_tensor, (_framework.Tensor, _framework.Variable)):
            raise TypeError("assertShapeEqual: the second argument must be a "
                            f"Tensor, got {type(tf_tensor).__name__}")
        self.assertEqual(list(np_array.shape), tf_tensor.shape.as_list(), msg)

    def assertAllInRange(self, target, lower, upper, msg=None):  # noqa: N802
        v = self._value(target)
        if not (np.all(v >= lower) and np.all(v <= upper)):
            self.fail(f"values outside [{lower}, {upper}]: {v!r}"
                      + (f": {msg}" if msg else ""))

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        from opkit import dtypes  # noqa: PLC0415
        v = target.dtype if isinstance(target, _framework.Tensor) else \
            self._value(target).dtype
        self.assertEqual(dtypes.as_dtype(v), dtypes.as_dtype(expected_dtype))


def compute_gradient(f, x, delta=None):
    """The theoretical and numeric Jacobians of `f` at the values `x` (a
    list or tuple of arrays, one per argument of f), as TensorFlow 2's
    tf.test.compute_gradient: returns (theoretical, numerical), each a list
    with one 2-D numpy array per x, of shape (elements of f(*x), elements
    of that x). The theoretical one comes from a GradientTape with a one-hot
    output gradient per element of y; the numeric one from central
    differences x[i] +/- delta (default 1/1024), computed in x's dtype.
    Inside a graph context (test_session()) f is built once on
    placeholders and run in the default session; otherwise f runs eagerly.

        theoretical, numerical = opkit.test.compute_gradient(
            lambda a: opkit.nn.relu(a) * a, [np.float32([[1., -2.]])])
        self.assertAllClose(theoretical, numerical, rtol=1e-3, atol=1e-3)
    """
    from opkit import backprop  # noqa: PLC0415 (imports opkit's op modules)
    if not isinstance(x, (list, tuple)):
        raise ValueError("`x` must be a list or tuple of values (one per "
                         f"argument of f), got {type(x).__name__}")
    if delta is None:
        delta = 1.0 / 1024
    xs = [np.array(v.numpy() if isinstance(v, _framework.Variable) else v)
          for v in x]
    for i, v in enumerate(xs):
        if v.dtype.kind not in "fc":
            raise ValueError(f"compute_gradient: x[{i}] has dtype {v.dtype}; "
                             "only floating point values can be differentiated")

    graph = _framework.get_default_graph()
    if graph is not None:
        return _compute_gradient_in_graph(graph, f, xs, delta)

    def run(values):
        return np.asarray(f(*[v.view(backprop.EagerTensor) for v in values]))

    theoretical, numerical = [], []
    for param, x_value in enumerate(xs):
        with backprop.GradientTape(persistent=True) as tape:
            inputs = [v.copy().view(backprop.EagerTensor) for v in xs]
            tape.watch(inputs[param])
            y = f(*inputs)
        y_arr = _check_y(np.asarray(y))
        jt = _theoretical(y_arr, x_value, lambda dy: tape.gradient(
            y, inputs[param], output_gradients=[dy]))
        theoretical.append(jt)
        numerical.append(_numerical(run, xs, param, y_arr.size, delta))
    return theoretical, numerical


def _check_y(y):
    if y.dtype.kind not in "fc":
        raise ValueError(f"compute_gradient: f returns {y.dtype}; only "
                         "floating point results can be differentiated")
    return y


def _theoretical(y, x_value, gradient):
    """Row i: the gradient for a one-hot output gradient at element i."""
    jt = np.zeros((y.size, x_value.size), np.finfo(x_value.dtype).dtype)
    for row in range(y.size):
        dy = np.zeros(y.size, y.dtype)
        dy[row] = 1
        g = gradient(dy.reshape(y.shape))
        if g is not None:
            jt[row, :] = np.asarray(g).ravel()
    return jt


def _numerical(run, xs, param, y_size, delta):
    """Column i: central differences at x[i] +/- delta."""
    real = np.finfo(xs[param].dtype).dtype
    jn = np.zeros((y_size, xs[param].size), real)
    for col in range(xs[param].size):
        pos = [v.copy() for v in xs]
        neg = [v.copy() for v in xs]
        pos[param].reshape(-1)[col] += delta
        neg[param].reshape(-1)[col] -= delta
        diff = run(pos).astype(real) - run(neg).astype(real)
        jn[:, col] = diff.ravel() / (2 * delta)
    return jn


def _compute_gradient_in_graph(graph, f, xs, delta):
    """compute_gradient inside a graph context (a TestCase's
    test_session()): f built once on placeholders, run in the default
    session of the graph (or a new one)."""
    from opkit import array_ops, gradients_impl  # noqa: PLC0415
    from opkit import session as session_lib  # noqa: PLC0415
    with _framework.name_scope("compute_gradient"):
        phs = [array_ops.placeholder(v.dtype, v.shape) for v in xs]
        y = f(*phs)
        dy = array_ops.placeholder(y.dtype, y.shape)
        grads = gradients_impl.gradients(y, phs, grad_ys=[dy])
    sess = _framework.get_default_session()
    owned = None
    if sess is None or sess.graph is not graph:
        sess = owned = session_lib.Session(graph=graph)
    try:
        def run(values):
            return np.asarray(sess.run(y, dict(zip(phs, values))))
        y_arr = _check_y(run(xs))
        theoretical, numerical = [], []
        for param, x_value in enumerate(xs):
            feed = dict(zip(phs, xs))
            grad = grads[param]
            theoretical.append(_theoretical(
                y_arr, x_value,
                lambda d: None if grad is None else sess.run(grad, {**feed, dy: d})))
            numerical.append(_numerical(run, xs, param, y_arr.size, delta))
        return theoretical, numerical
    finally:
        if owned is not None:
            owned.close()


def _map(value, fn):
    if isinstance(value, (list, tuple)) and not isinstance(value, np.ndarray):
        return type(value)(_map(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    return fn(value)


def _remove_tree(path):
    import shutil  # noqa: PLC0415
    shutil.rmtree(path, ignore_errors=True)

