"""opkit.config.threading: TensorFlow's names and semantics for thread
counts. Each case runs in a fresh interpreter, since the eager context of
this one may already exist (other tests run eager ops)."""

import os
import subprocess
import sys
import textwrap


def _run(code):
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=dict(os.environ),
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_defaults_are_zero_and_sets_are_kept_before_init():
    out = _run("""
        import numpy as np, opkit
        t = opkit.config.threading
        assert t.get_intra_op_parallelism_threads() == 0
        assert t.get_inter_op_parallelism_threads() == 0
        t.set_intra_op_parallelism_threads(2)
        t.set_inter_op_parallelism_threads(3)
        assert t.get_intra_op_parallelism_threads() == 2
        assert t.get_inter_op_parallelism_threads() == 3
        # A session made now uses them; its results do not depend on them.
        graph = '''
        node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "b" op: "AddV2" input: "a" input: "a"
               attr { key: "T" value { type: DT_FLOAT } } }
        node { name: "c" op: "Mul" input: "a" input: "a"
               attr { key: "T" value { type: DT_FLOAT } } }
        node { name: "d" op: "AddV2" input: "b" input: "c"
               attr { key: "T" value { type: DT_FLOAT } } }
        '''
        with opkit.Session(graph) as s:
            print(s.run("d", {"a": np.float32([1, 2, 3])}).tolist())
        """)
    assert out.strip() == "[3.0, 8.0, 15.0]"


def test_changing_after_the_eager_context_exists_raises_runtime_error():
    out = _run("""
        import numpy as np, opkit
        t = opkit.config.threading
        t.set_intra_op_parallelism_threads(1)
        opkit.ops.add_v2(np.float32([1]), 2)  # creates the eager context
        t.set_intra_op_parallelism_threads(1)  # unchanged: allowed
        for setter in (t.set_intra_op_parallelism_threads,
                       t.set_inter_op_parallelism_threads):
            try:
                setter(4)
            except RuntimeError as e:
                print(e)
        """)
    assert out.splitlines() == [
        "Intra op parallelism cannot be modified after initialization.",
        "Inter op parallelism cannot be modified after initialization.",
    ]


def test_negative_counts_are_invalid_argument():
    out = _run("""
        import opkit
        try:
            opkit.config.threading.set_inter_op_parallelism_threads(-1)
        except opkit.errors.InvalidArgumentError as e:
            print(e)
        print(opkit.config.threading.get_inter_op_parallelism_threads())
        """)
    lines = out.splitlines()
    assert "inter_op_parallelism_threads is -1" in lines[0]
    assert "pass 0 for one thread per CPU" in lines[0]
    assert lines[1] == "0"
