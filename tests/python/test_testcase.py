"""opkit.test: TensorFlow's TestCase helpers, and the op guide's
zero_out_op_test.py with `tensorflow` replaced by `opkit`."""

import os
import subprocess
import sys
import textwrap
import unittest

import numpy as np
import pytest

import opkit


class _Probe(opkit.test.TestCase):
    def runTest(self):  # noqa: N802 (unittest's name)
        pass


def _case():
    case = _Probe()
    case.setUp()
    return case


def test_test_session_makes_a_default_graph_and_session():
    case = _case()
    with case.test_session() as sess:
        graph = opkit.get_default_graph()
        assert graph is not None
        assert opkit.get_default_session() is sess and sess.graph is graph
        x = opkit.ops.add_v2([1, 2], 3)
        assert isinstance(x, opkit.Tensor)
        np.testing.assert_array_equal(x.eval(), [4, 5])
        case.assertAllEqual(x, [4, 5])
        case.assertShapeEqual(np.zeros(2), x)
    assert opkit.get_default_graph() is None
    assert opkit.get_default_session() is None
    case.tearDown()


def test_session_is_reused_within_a_test_and_sees_new_nodes():
    case = _case()
    with case.session() as s1:
        a = opkit.constant(2)
        assert a.eval() == 2
    with case.cached_session() as s2:
        b = a * 3
        assert s2 is s1
        assert case.evaluate(b) == 6
        assert case.evaluate({"a": a, "l": [a, b], "n": np.int32(1)}) == {
            "a": 2, "l": [2, 6], "n": 1}
    case.tearDown()


def test_evaluate_outside_a_session_and_assertions():
    case = _case()
    with case.session():
        t = opkit.constant([1.0, 2.0])
    np.testing.assert_array_equal(case.evaluate(t), [1, 2])
    case.assertAllClose(t, [1.0, 2.0 + 1e-7])
    case.assertAllClose({"a": [1.0]}, {"a": np.float32([1.0])})
    with pytest.raises(AssertionError, match="not close"):
        case.assertAllClose([1.0, 2.0], [1.0, 2.1])
    with pytest.raises(AssertionError, match="shape mismatch"):
        case.assertAllEqual([1, 2], [[1, 2]])
    with pytest.raises(AssertionError, match="not equal"):
        case.assertAllEqual([1, 2], [1, 3])
    case.assertNotAllClose([1.0], [2.0])
    case.tearDown()


def test_eval_without_a_session_says_what_to_do():
    g = opkit.Graph()
    with g.as_default():
        t = opkit.constant(1)
    with pytest.raises(ValueError, match="no default session"):
        t.eval()


def test_test_session_is_not_collected_as_a_test():
    result = unittest.TestResult()
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(_Probe)
    suite.run(result)
    assert not result.failures and not result.errors
    skipped = [t.id() for t, _ in result.skipped]
    assert any(i.endswith(".test_session") for i in skipped)


# TensorFlow's op guide (extend/adding_an_op.md), zero_out_op_test.py, with
# `tensorflow` replaced by `opkit` and the library's path from ctest.
_ZERO_OUT_TEST = textwrap.dedent("""
    import opkit as tf

    class ZeroOutTest(tf.test.TestCase):
      def testZeroOut(self):
        zero_out_module = tf.load_op_library(LIBRARY)
        with self.test_session():
          result = zero_out_module.zero_out([5, 4, 3, 2, 1])
          self.assertAllEqual(result.eval(), [5, 0, 0, 0, 0])

    if __name__ == "__main__":
      tf.test.main()
    """)


def test_the_op_guides_zero_out_test_runs_under_opkit(tmp_path, zero_out):
    library = os.environ["OPKIT_TEST_ZERO_OUT"]
    script = tmp_path / "zero_out_op_test.py"
    script.write_text(f"LIBRARY = {library!r}\n" + _ZERO_OUT_TEST)
    run = subprocess.run([sys.executable, str(script)], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Ran 2 tests" in run.stderr      # testZeroOut, and test_session skipped
    assert "OK" in run.stderr


def test_zero_out_in_graph_mode_builds_a_node(zero_out):
    g = opkit.Graph()
    with g.as_default():
        result = zero_out.zero_out([[1, 2], [3, 4]])
    assert result.op.type == "ZeroOut"
    assert result.shape == [2, 2]
    with opkit.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(result), [[1, 0], [0, 0]])
