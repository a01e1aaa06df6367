"""The tour's last part: the same runtime from Python (scripts/tour.sh runs it
after the C++ tour, with the build tree's package on PYTHONPATH): an op
library written for TensorFlow loaded as a Python module, built-in ops on
numpy arrays, an error as an exception class, and MatMul timed with the
built-in kernel, with a BLAS library's kernel loaded over it, and with that
one unregistered for a scope.

    PYTHONPATH=build/default/python /usr/bin/python3 examples/tour/tour.py \
        build/default/examples/zero_out/zero_out.so [blas_matmul.so]
"""

import inspect
import sys
import time

import numpy as np

import opkit


def best_of(fn, repeats=5):
    """The fastest of `repeats` calls of fn, in milliseconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    print("\n== The same from Python (examples/tour/tour.py)")
    zero_out = opkit.load_op_library(argv[1])
    print("  ops of", argv[1].rsplit("/", 1)[-1] + ":",
          ", ".join(sorted(n for n in dir(zero_out) if n[0].islower())))
    print("  zero_out" + str(inspect.signature(zero_out.zero_out)),
          "->", repr(zero_out.zero_out([[1, 2], [3, 4]])))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    print("  opkit.ops.add_v2(x, 1) ->", opkit.ops.add_v2(x, 1).tolist())
    try:
        opkit.ops.mat_mul(x, x)
    except opkit.errors.InvalidArgumentError as e:
        print("  mat_mul of [2,3] by [2,3] raises InvalidArgumentError:",
              e.message.splitlines()[0][:90])

    a = np.random.default_rng(0).standard_normal((512, 512), dtype=np.float32)
    print("  MatMul 512x512 float, built-in kernel: %.2f ms" %
          best_of(lambda: opkit.ops.mat_mul(a, a)))
    if len(argv) > 2:
        opkit.load_op_library(argv[2])
        winner = opkit.kernels.explain("MatMul", T=np.float32).winner
        print("  after loading", argv[2].rsplit("/", 1)[-1] + ", MatMul runs",
              winner.kernel_class, "(priority %d):" % winner.priority,
              "%.2f ms" % best_of(lambda: opkit.ops.mat_mul(a, a)))
        with opkit.kernels.unregister(op="MatMul", library=argv[2]):
            print("  with it unregistered for a scope: %.2f ms" %
                  best_of(lambda: opkit.ops.mat_mul(a, a)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
