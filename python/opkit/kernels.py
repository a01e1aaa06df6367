"""The kernel registry from Python: which kernels exist, which one a node
selects and why, and replacing kernels for a while.

    opkit.kernels.list("MatMul")                     # [KernelInfo(...), ...]
    print(opkit.kernels.explain("MatMul", T=np.float32))
    with opkit.kernels.unregister(op="ZeroOut"):     # hidden in this block
        ...
    h = opkit.kernels.unregister(op="ZeroOut"); h.restore()
    with opkit.kernels.override(op="MatMul", label="naive"):
        ...                                          # the "naive" kernel wins

Changes apply to the process-wide registry at once; op wrappers select
again on their next call.
"""

import collections as _collections
import os as _os

from opkit import _opkit
from opkit import errors as _errors

KernelInfo = _collections.namedtuple(
    "KernelInfo",
    ["op", "device", "label", "priority", "kernel_class", "constraints",
     "origin", "library", "host_memory_args"])
KernelInfo.__doc__ = """One registered kernel: op, device ("CPU"), label
("" when unlabelled), priority, the C++ kernel class, its type/value
constraints ({attr: [allowed values]}, dtypes as DataType numbers), where it
was registered (file:line [in library]), the library path ("" for built-in
kernels) and host-memory args."""

Candidate = _collections.namedtuple(
    "Candidate", list(KernelInfo._fields) + ["matched", "reason"])
Candidate.__doc__ = """A kernel as explain() judged it: KernelInfo's fields,
`matched` (device, label and every constraint hold) and `reason` (why it was
rejected or did not win; "" for the winner)."""


def _info(d, cls=KernelInfo):
    return cls(**{f: d.get(f, "") for f in cls._fields})


def list(op=None):  # noqa: A001 - the public name mirrors the issue's API
    """Every registered kernel (of `op` when given), in registration order,
    as KernelInfo tuples."""
    if op is not None and not isinstance(op, str):
        raise TypeError(f"list(op=...) expects an op name, got {op!r}")
    return [_info(d) for d in _opkit.kernels_list(op)]


class Explanation:
    """Which kernel a node of `op` on `device` selects, and why each kernel
    of the op was or was not chosen. str() is a readable report."""

    def __init__(self, d):
        self.op = d["op"]
        self.device = d["device"]
        self.label = d["label"]
        self.candidates = [_info(c, Candidate) for c in d["candidates"]]
        self.winner_index = d["winner"] if d["winner"] >= 0 else None
        self.winner = (self.candidates[self.winner_index]
                       if self.winner_index is not None else None)
        code = d["error_code"]
        self.error = (None if code == 0 else
                      _errors.exception_type_from_error_code(code)(d["error_message"]))
        self._text = d["text"]

    @property
    def ok(self):
        """True when a kernel is selected."""
        return self.error is None

    def __str__(self):
        return self._text

    def __repr__(self):
        w = self.winner.kernel_class if self.winner else None
        return (f"<opkit.kernels.Explanation op={self.op!r} device={self.device!r} "
                f"winner={w!r} candidates={len(self.candidates)}>")


def explain(op, device="CPU", **attrs):
    """Explains kernel selection for a node of `op` on `device` with `attrs`
    (e.g. T=np.float32; `_kernel="label"` sets the kernel label). Unset
    attrs take the op's defaults. NotFoundError for an unknown op,
    InvalidArgumentError for an attr the op does not have or a bad value."""
    return Explanation(_opkit.kernels_explain(op, device, attrs))


def _filter(op, device, label, kernel_class, library, types):
    # The loader records a library by its resolved path; resolve the one
    # given, so the path the library was loaded with matches too.
    if library:
        library = _os.path.realpath(library)
    return {"op": op, "device": device, "label": label,
            "kernel_class": kernel_class, "library": library,
            "types": dict(types)}


class Unregistration:
    """Kernels hidden by unregister(). restore() shows them again; as a
    context manager the block's end restores them."""

    def __init__(self, handle):
        self._handle = handle

    @property
    def kernels(self):
        """The hidden kernels (op, device, label, priority, constraints)."""
        return [_info(d) for d in self._handle.kernels]

    @property
    def restored(self):
        return not self._handle.pending_restore

    def restore(self):
        """Puts the kernels back; FailedPreconditionError when already done."""
        self._handle.restore()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._handle.pending_restore:
            self._handle.restore()
        return False

    def __repr__(self):
        return f"<opkit.kernels.Unregistration of {len(self._handle.kernels)} kernel(s)>"


def unregister(op=None, device=None, label=None, kernel_class=None,
               library=None, **types):
    """Hides every registered kernel passing the filter: op name, device
    ("CPU"), label ("" for unlabelled kernels only), C++ kernel class,
    library path, and type attrs (T=np.float32: kernels accepting it).
    Returns an Unregistration (restore() / context manager). NotFoundError
    when no kernel passes the filter."""
    return Unregistration(_opkit.kernels_unregister(
        _filter(op, device, label, kernel_class, library, types)))


class Override:
    """Kernels made to win by override(); removed by restore() or at the
    end of a `with` block."""

    def __init__(self, handle):
        self._handle = handle

    @property
    def active(self):
        return self._handle.active

    @property
    def kernels(self):
        """The overriding registrations (with their raised priority)."""
        return [_info(d) for d in self._handle.kernels]

    def restore(self):
        """Removes the override; the previously selected kernels win again.
        Doing it twice is harmless."""
        self._handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()
        return False

    def __repr__(self):
        state = "active" if self.active else "restored"
        return f"<opkit.kernels.Override {state}>"


def override(op, device="CPU", label=None, kernel_class=None, library=None,
             **types):
    """Makes the registered kernels of `op` passing the filter (a label, a
    kernel class, a library path, type attrs) win for ordinary (unlabelled)
    nodes until restore() or the end of the `with` block: a copy of each is
    registered without its label, above every kernel it overlaps. Takes
    effect at once. NotFoundError when no kernel passes the filter."""
    if not isinstance(op, str) or not op:
        raise TypeError(f"override() needs an op name, got {op!r}")
    return Override(_opkit.kernels_override(
        _filter(op, device, label, kernel_class, library, types)))


__all__ = ["KernelInfo", "Candidate", "Explanation", "Unregistration",
           "Override", "list", "explain", "unregister", "override"]
