"""opkit.config.threading: how many threads opkit runs on, with
TensorFlow's names (tf.config.threading).

    import opkit
    opkit.config.threading.set_intra_op_parallelism_threads(2)
    opkit.config.threading.set_inter_op_parallelism_threads(1)

0, the default, means one thread per CPU this process may use (its
affinity mask, lowered to a cgroup CPU quota); a positive count pins it.

- intra-op threads split one op's work (Eigen, Shard): the eager context's
  device and every opkit.Session made afterwards use them.
- inter-op threads run independent nodes of a graph: every opkit.Session
  made afterwards uses them (eager ops run one at a time on the caller).

As in TensorFlow, the counts cannot change once the eager context exists
(the first eager op creates it): setting a different value then raises
RuntimeError. Sessions read the counts when they are made, so a session
made before a change keeps its threads. A negative count raises
opkit.errors.InvalidArgumentError.
"""

import sys
import types

from opkit import _opkit

_intra_op_threads = 0
_inter_op_threads = 0


def _check(num_threads, what):
    if isinstance(num_threads, bool) or not isinstance(num_threads, int):
        raise TypeError(f"{what} must be an int, got {num_threads!r}")
    if num_threads < 0:
        # The same InvalidArgument the C++ options give.
        _opkit._raise_status(
            3, f"{what} is {num_threads}; pass 0 for one thread per CPU or a "
            "positive count to pin it")


def _set_threads(num_threads, what, current, label):
    """Checks num_threads for the count `what` whose value is `current`;
    whether it changes. RuntimeError once the eager context exists."""
    _check(num_threads, what)
    if num_threads == current:
        return False
    if _opkit._eager_context_initialized():
        raise RuntimeError(
            f"{label} parallelism cannot be modified after initialization.")
    return True


def get_intra_op_parallelism_threads():
    """Threads used within one op (0: one per CPU)."""
    return _intra_op_threads


def set_intra_op_parallelism_threads(num_threads):
    """Sets the threads used within one op; 0 means one per CPU. Raises
    RuntimeError once the eager context exists (unless unchanged)."""
    global _intra_op_threads
    if _set_threads(num_threads, "intra_op_parallelism_threads",
                    _intra_op_threads, "Intra op"):
        _opkit._set_eager_intra_op_threads(num_threads)
        _intra_op_threads = num_threads


def get_inter_op_parallelism_threads():
    """Threads that run independent ops of a graph (0: one per CPU)."""
    return _inter_op_threads


def set_inter_op_parallelism_threads(num_threads):
    """Sets the threads that run independent ops; 0 means one per CPU.
    Raises RuntimeError once the eager context exists (unless unchanged)."""
    global _inter_op_threads
    if _set_threads(num_threads, "inter_op_parallelism_threads",
                    _inter_op_threads, "Inter op"):
        _inter_op_threads = num_threads


threading = types.ModuleType(
    __name__ + ".threading",
    "Thread counts, as tf.config.threading (see opkit.config).")
for _f in (get_intra_op_parallelism_threads, set_intra_op_parallelism_threads,
           get_inter_op_parallelism_threads, set_inter_op_parallelism_threads):
    setattr(threading, _f.__name__, _f)
threading.__all__ = [
    "get_intra_op_parallelism_threads", "set_intra_op_parallelism_threads",
    "get_inter_op_parallelism_threads", "set_inter_op_parallelism_threads"]
sys.modules[threading.__name__] = threading
del _f

__all__ = ["threading"]
